"""The offline engine's output on the statement splits, item by item, as digests: for a change
that must not change what the engine writes (speed work), run it on both trees and diff.

    .venv/bin/python -m bench.offline_digest OUT [SPLIT ...]     # default: every split on disk

(Run by ``python -m bench`` with every area, it has no file to write and says so.)

Each item of ``tests/data/statements/writer-<SPLIT>.jsonl`` runs through the engine's real path
(``tests/offline_statements.run_item``: its turns recorded, consolidated and dreamed), and OUT gets
one line per item: its id and a sha256 of everything the run left (the lines added to each file,
the archive's text, which archived lines ``why`` finds, the files' items after each turn). No item's
text is printed, so a held-out split (copied into a scratch checkout, never into a branch) can be
compared without being read: ``diff`` the two files, or count the lines that differ. The sources
are this checkout's, or those of the tree on ``PYTHONPATH`` when it is another
(``PYTHONPATH=<tree> python -m bench.offline_digest``, from that tree's root).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType


def _statements(tree: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "offline_statements", tree / "tests" / "offline_statements.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["offline_statements"] = module
    sys.path.insert(0, str(tree / "tests"))
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> None:
    args = [a for a in (sys.argv[1:] if argv is None else argv) if a != "--quick"]
    if not args:  # ``python -m bench`` runs every area: this one needs a file to write
        print("offline_digest: no output file given; skipped (usage: OUT [SPLIT ...])")
        return
    tree = Path.cwd()
    st = _statements(tree)
    out = Path(args[0])
    splits = args[1:] or sorted(
        p.stem.removeprefix("writer-") for p in st.DATA.glob("writer-*.jsonl")
    )
    count = 0
    with out.open("w", encoding="utf-8") as f:
        for split in splits:
            for item in st.items(split):
                run = st.run_item(item)
                left = [
                    run.lines,
                    run.archive,
                    sorted(run.why_finds.items()),
                    [sorted(t) for t in run.turns],
                ]
                digest = hashlib.sha256(json.dumps(left, sort_keys=True).encode()).hexdigest()
                f.write(f"{item.id}\t{digest}\n")
                count += 1
    print(f"{count} items of {len(splits)} splits ({' '.join(splits)}) -> {out}")


if __name__ == "__main__":
    main()
