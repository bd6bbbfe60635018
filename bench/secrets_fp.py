"""False positives of the secret scanner on ordinary chat and ordinary code (issue 19, item 12).

- chat: every dialog turn of the LoCoMo development split
  (``/work/shared/data/locomo/locomo-dev.json``, read in place, never copied; real multi-session
  chats between two people, no credentials in them);
- code: every non-blank line of the Python standard library's top-level modules (``Lib/*.py`` of the
  running interpreter; test packages excluded) and of Reverie's own ``reverie/`` package.

A flagged turn or line is a false positive (none of them holds a real credential; the stdlib's few
test keys live in ``test/``, which is excluded). ``python -m bench secrets_fp`` prints the rates and
the flagged samples.
"""

from __future__ import annotations

import json
import sys
import sysconfig
import time
from pathlib import Path

from ._core import ROOT, Context, Result, stats_of

LOCOMO = Path("/work/shared/data/locomo/locomo-dev.json")


def chat_turns() -> list[str]:
    if not LOCOMO.is_file():
        return []
    turns = []
    for sample in json.loads(LOCOMO.read_text()):
        for key, session in sample["conversation"].items():
            if key.startswith("session_") and isinstance(session, list):
                turns += [t["text"] for t in session if isinstance(t, dict) and t.get("text")]
    return turns


def code_lines() -> list[str]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(stdlib.glob("*.py")) + sorted((ROOT / "reverie").rglob("*.py"))
    lines = []
    for path in files:
        try:
            lines += [
                ln
                for ln in path.read_text(encoding="utf-8", errors="replace").splitlines()
                if ln.strip()
            ]
        except OSError:
            continue
    return lines


def rates() -> dict[str, tuple[int, int, list[str]]]:
    from reverie.security.secrets import scan

    out = {}
    for name, samples in (("chat", chat_turns()), ("code", code_lines())):
        flagged = [s for s in samples if scan(s)]
        out[name] = (len(flagged), len(samples), flagged)
    return out


def run(ctx: Context) -> list[Result]:
    t0 = time.perf_counter()
    found = rates()
    elapsed = time.perf_counter() - t0
    results = []
    for name, (n, total, flagged) in found.items():
        if not total:
            print(f"[bench] secrets_fp: no {name} samples found", file=sys.stderr)
            continue
        note = f"{n}/{total} flagged = {n / total:.2%}"
        print(f"[bench] secrets_fp {name}: {note}", file=sys.stderr)
        for text in flagged[:40]:
            print(f"    FLAGGED {name}: {text[:140]!r}", file=sys.stderr)
        results.append(
            Result(
                "secrets_fp",
                f"false positives, {name} ({total:,} samples)",
                stats_of([n / total]),
                unit="rate",
                target="≤ 1 %",
                note=note,
            )
        )
    print(f"[bench] secrets_fp: scanned in {elapsed:.1f} s", file=sys.stderr)
    return results
