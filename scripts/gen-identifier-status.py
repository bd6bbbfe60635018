"""Write ``reverie/data/identifier-allowed.txt``: the code point ranges of Unicode's
``Identifier_Status=Allowed`` (UTS #39 §3.1, the General Security Profile), which scope ids are
checked against (``reverie.storage.scopes``).

The set is read from the ICU library on this machine (``uspoof_getRecommendedUnicodeSet``: "the set
of characters that are recommended for use in identifiers, per UTS #39 Identifier_Status=Allowed"),
through ctypes, so nothing is copied by hand. Run it where ICU is installed (Debian: libicu72) and
commit the file; the Unicode version it came from is written in its header::

    python scripts/gen-identifier-status.py
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import re
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "reverie" / "data" / "identifier-allowed.txt"


def _icu() -> tuple[ctypes.CDLL, ctypes.CDLL, str]:
    paths = sorted(glob.glob("/usr/lib/*/libicui18n.so.*[0-9]")) or [
        ctypes.util.find_library("icui18n") or ""
    ]
    i18n = ctypes.CDLL(paths[-1])
    major = re.search(r"\.so\.(\d+)", paths[-1])
    suffix = f"_{major.group(1)}" if major else ""
    uc = ctypes.CDLL(paths[-1].replace("libicui18n", "libicuuc"))
    return i18n, uc, suffix


def main() -> None:
    i18n, uc, v = _icu()
    err = ctypes.c_int(0)
    recommended = getattr(i18n, f"uspoof_getRecommendedSet{v}")
    recommended.restype = ctypes.c_void_p
    uset = recommended(ctypes.byref(err))
    assert err.value <= 0, f"ICU error {err.value}"
    count = getattr(uc, f"uset_getItemCount{v}")
    count.argtypes = [ctypes.c_void_p]
    item = getattr(uc, f"uset_getItem{v}")
    item.argtypes = [
        ctypes.c_void_p,
        ctypes.c_int32,
        ctypes.POINTER(ctypes.c_int32),
        ctypes.POINTER(ctypes.c_int32),
        ctypes.c_void_p,
        ctypes.c_int32,
        ctypes.POINTER(ctypes.c_int),
    ]
    version = (ctypes.c_uint8 * 4)()
    getattr(uc, f"u_getUnicodeVersion{v}")(version)
    ranges = []
    for i in range(count(uset)):
        start, end = ctypes.c_int32(), ctypes.c_int32()
        err = ctypes.c_int(0)
        n = item(uset, i, ctypes.byref(start), ctypes.byref(end), None, 0, ctypes.byref(err))
        if n == 0:  # a range, not a string
            ranges.append((start.value, end.value))
    unicode = ".".join(str(x) for x in version[:3])
    lines = [
        "# Identifier_Status=Allowed (UTS #39), code point ranges, hex, inclusive.",
        f"# Unicode {unicode}, from ICU's uspoof_getRecommendedSet; scripts/gen-identifier-status.py",
        *(f"{a:04X} {b:04X}" for a, b in ranges),
    ]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")
    print(f"{OUT}: {len(ranges)} ranges, Unicode {unicode}")


if __name__ == "__main__":
    main()
