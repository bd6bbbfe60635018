"""No program runs on import (issue 39): a tool that walks the package (pdoc, Sphinx autodoc)
imports every module, ``__main__`` ones included. Read from the source with ``ast``: a module's
top level may define and register (``register_embedder``, ``os.register_at_fork``), never call
anything else or raise; a ``__main__`` module's work sits under ``if __name__ == "__main__":``."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "reverie"


def _called(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def test_no_module_calls_or_raises_at_its_top_level() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            call = node.value if isinstance(node, ast.Expr) else None
            if isinstance(node, ast.Raise) or (
                isinstance(call, ast.Call) and not _called(call).startswith("register")
            ):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    assert not found, f"work done on import (guard it with if __name__ == '__main__'): {found}"


def test_importing_the_main_modules_runs_nothing() -> None:
    code = "import reverie.__main__, reverie.llm.offline.__main__; print('imported')"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0 and done.stdout == "imported\n", done.stderr[-2000:]
