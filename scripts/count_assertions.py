"""Count the checks in tests/: ``assert`` statements and ``pytest.raises``/``warns``/``fail`` calls.

Issue 30 asked that making the suite faster test nothing less; this is the static half of that
comparison (the other half is the number of collected tests). usage: ``python
scripts/count_assertions.py [--files] [DIR]``.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

PYTEST_CHECKS = {"raises", "warns", "fail", "deprecated_call"}


def count(source: str) -> Counter[str]:
    found: Counter[str] = Counter()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assert):
            found["assert"] += 1
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if (
                isinstance(owner, ast.Name)
                and owner.id == "pytest"
                and node.func.attr in PYTEST_CHECKS
            ):
                found[f"pytest.{node.func.attr}"] += 1
    return found


def main(argv: list[str]) -> int:
    per_file = "--files" in argv
    args = [a for a in argv if a != "--files"]
    root = Path(args[0] if args else "tests")
    total: Counter[str] = Counter()
    for path in sorted(root.rglob("*.py")):
        found = count(path.read_text(encoding="utf-8"))
        total += found
        if per_file and found:
            print(f"{sum(found.values()):6d}  {path}")
    for kind, n in sorted(total.items()):
        print(f"{kind}: {n}")
    print(f"total: {sum(total.values())}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
