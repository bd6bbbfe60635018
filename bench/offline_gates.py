"""What the offline engine's rule gates save (issue 36): each rule's pattern compiled on first use,
and tried on a clause only when the literals a match needs are in it (``offline/rules/gate.py``).

    .venv/bin/python -m bench.offline_gates [--rounds N]

Every row compares the engine with its gates (``GATED = True``, as shipped) against the same engine
with every rule tried on every clause (``GATED = False``: every pattern compiled on the first
message, as before the gates), in the same run, rounds alternating:

- **import**: ``import reverie.llm.offline`` in a fresh interpreter (timed in-process), against
  the same import followed by compiling every rule's pattern (what importing cost before);
- **first message**: a fresh interpreter's import and its first archive of one user message (what
  ``reverie demo`` and a first ``reverie add`` pay), gated and not;
- **corpus**: every turn of the statement corpus (``tests/data/statements``) through
  ``extract_facts`` in one warm process;
- **60 KB message**: one user message of 60,000 characters (the corpus's turns joined) through the
  engine's archive task (``respond``), in a warm process.

Medians over the rounds, and the ratio gated / not gated.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_DATA = ROOT / "tests" / "data" / "statements"

_IMPORT = "import time; t = time.perf_counter(); import reverie.llm.offline\n"
_COMPILE_ALL = "from reverie.llm.offline.rules.extract import RULES\n[r.pattern for r in RULES]\n"
_FIRST = (
    "from reverie.llm import load_prompt, protocol as p\n"
    "from reverie.llm.offline import respond\n"
    "from reverie.llm.offline.rules import extract\n"
    "extract.GATED = {gated}\n"
    "line = p.transcript_line('2027-01-04 09:00', 'user', "
    '"I live in Lisbon and I work at Siemens as a nurse. Please keep answers short.")\n'
    "respond([{{'role': 'system', 'content': load_prompt('archive')}}, "
    "{{'role': 'user', 'content': p.render_sections([(p.SECTION_ARCHIVE, line)])}}])\n"
)


def _fresh(code: str) -> float:
    """Seconds from the import's start to the end of ``code``, in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", code + "print(time.perf_counter() - t)"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return float(out.stdout.strip().splitlines()[-1])


def _turns() -> list[str]:
    turns: list[str] = []
    for path in sorted(_DATA.glob("writer-*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                turns += json.loads(line)["turns"]
    return turns


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    rounds = int(args[args.index("--rounds") + 1]) if "--rounds" in args else 5
    from reverie.llm import load_prompt
    from reverie.llm import protocol as p
    from reverie.llm.offline import respond
    from reverie.llm.offline.rules import extract

    turns = _turns()
    big = " ".join(turns)[:60_000]
    line = p.transcript_line("2027-01-04 09:00", "user", big)
    messages = [
        {"role": "system", "content": load_prompt("archive")},
        {"role": "user", "content": p.render_sections([(p.SECTION_ARCHIVE, line)])},
    ]
    for gated in (True, False):  # warm: every pattern compiled, every table read
        extract.GATED = gated
        for t in turns[:200]:
            extract.extract_facts(t)
    rows: dict[str, dict[bool, list[float]]] = {
        k: {True: [], False: []} for k in ("import", "first message", "corpus", "60 KB message")
    }
    for _ in range(rounds):
        for gated in (True, False):
            rows["import"][gated].append(_fresh(_IMPORT + ("" if gated else _COMPILE_ALL)))
            rows["first message"][gated].append(_fresh(_IMPORT + _FIRST.format(gated=gated)))
            extract.GATED = gated
            t0 = time.perf_counter()
            for t in turns:
                extract.extract_facts(t, date(2027, 1, 4))
            rows["corpus"][gated].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            respond(messages)
            rows["60 KB message"][gated].append(time.perf_counter() - t0)
    extract.GATED = True
    print(f"{len(turns)} corpus turns; {rounds} rounds, gated and not alternating; medians\n")
    print("| measure | gated (shipped) | every rule on every clause | ratio |")
    print("|---|---:|---:|---:|")
    for name, by in rows.items():
        on, off = statistics.median(by[True]), statistics.median(by[False])
        print(f"| {name} | {on:.3f} s | {off:.3f} s | {on / off:.2f} |")


if __name__ == "__main__":
    main()
