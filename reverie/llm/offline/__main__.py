"""``python -m reverie.llm.offline [gates]``: rewrite the shipped data lists (``data/``) from their
sources (the test extra) and the rules' gate table; with ``gates``, the gate table only (no extra
needed: after editing a rule)."""

import sys

from .kinds import write_lists
from .rules.gate import write_table


def _write_gates() -> None:
    from .rules.extract import RULES

    count = write_table([(r.source, r.flags) for r in RULES])
    print(f"wrote the gates of {count} patterns")


if __name__ == "__main__":  # importing this module (pdoc, autodoc) must not rewrite data files
    _write_gates()
    if sys.argv[1:] != ["gates"]:
        write_lists()
