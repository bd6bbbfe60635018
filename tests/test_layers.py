"""The layer order is a contract: every import in ``reverie/`` (module level or inside a function)
points down or sideways within its layer, the three pipeline packages do not import each other, and
no two top-level units (nor two modules inside one unit) import each other in a circle. Read from
the source with ``ast``, so a lazy import counts as much as a top-level one."""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "reverie"

#: Lowest first. A unit is a top-level module or folder of ``reverie``.
LAYERS: list[tuple[str, set[str]]] = [
    ("files and formats", {"errors", "_lazy", "backoff", "version", "text", "storage", "security"}),
    ("versioning", {"gitstore"}),
    ("models", {"llm"}),
    ("memory pipeline", {"consolidator", "dream", "recall"}),
    # Dream's one scheduling policy and its in-process drivers: above Dream, which they run; below
    # the wiring (a root's scheduler is handed its scopes' Dream) and the front door, which reads
    # the next run's time.
    ("scheduling", {"schedule"}),
    ("operations", {"operations", "compat"}),
    ("the front door", {"memory"}),
    ("chat: the agent and its commands", {"chat"}),
    ("serving", {"serving"}),
    (
        "front-ends",
        {"cli", "mcp", "ui", "fleet", "__main__", "_start", "integrations"},
    ),
    # The old module paths the docs promised, each the moved module under its old name.
    ("old paths", {"offload", "session_jobs", "importers", "commands", "activity"}),
]
INDEPENDENT = {"consolidator", "dream", "recall"}


def _layer(unit: str) -> int:
    for n, (_, units) in enumerate(LAYERS):
        if unit in units:
            return n
    raise AssertionError(
        f"reverie.{unit} is in no layer: add it to LAYERS in {Path(__file__).name}"
    )


@functools.cache  # the package is parsed once, not once per test (~2-3 s a parse)
def _imports() -> list[tuple[str, str, str, int]]:
    """(importing unit, imported unit, file, line) for every import of reverie code by reverie
    code."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = list(rel.parts)
        package = parts[:-1] if parts[-1] != "__init__" else parts[:-1]
        if parts[-1] == "__init__":
            parts = parts[:-1]
        unit = parts[1] if len(parts) > 1 else ""
        if not unit:
            continue  # reverie/__init__.py: the public API's lazy map names every layer by design
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[: len(package) - (node.level - 1)]
                    module = base + (node.module.split(".") if node.module else [])
                    names = (
                        [module + [a.name] for a in node.names] if len(module) == 1 else [module]
                    )
                    targets = [".".join(m) for m in names]
                elif node.module and node.module.startswith("reverie"):
                    targets = [node.module]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name.startswith("reverie")]
            for target in targets:
                pieces = target.split(".")
                is_unit = len(pieces) > 1 and (
                    (PACKAGE / pieces[1]).is_dir() or (PACKAGE / f"{pieces[1]}.py").exists()
                )
                if pieces[0] == "reverie" and is_unit:  # (``from .. import __version__``: none)
                    out.append(
                        (
                            unit,
                            pieces[1],
                            str(path.relative_to(PACKAGE.parent)),
                            node.lineno,
                        )
                    )
    return out


def test_every_import_points_down_the_layers() -> None:
    upward = [
        f"{file}:{line}: reverie.{a} ({LAYERS[_layer(a)][0]}) "
        f"imports reverie.{b} ({LAYERS[_layer(b)][0]})"
        for a, b, file, line in _imports()
        if _layer(b) > _layer(a)
    ]
    assert not upward, "imports running up the layers:\n" + "\n".join(upward)


def test_the_pipeline_packages_do_not_import_each_other() -> None:
    crossing = [
        f"{file}:{line}: reverie.{a} imports reverie.{b}"
        for a, b, file, line in _imports()
        if a in INDEPENDENT and b in INDEPENDENT and a != b
    ]
    assert not crossing, "\n".join(crossing)


def test_no_import_circle_between_units() -> None:
    graph: dict[str, set[str]] = defaultdict(set)
    for a, b, _, _ in _imports():
        if a != b:
            graph[a].add(b)
    circles = []
    for start in list(graph):
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for nxt in graph.get(node, ()):
                if nxt == start:
                    circles.append(" -> ".join(path + [start]))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, path + [nxt]))
    assert not circles, "import circles:\n" + "\n".join(sorted(set(circles)))


@functools.cache
def _module_imports() -> list[tuple[str, str]]:
    """(importing module, imported module) for every import of reverie code by reverie code, module
    by module.

    ``from .pkg import name`` points at ``pkg.name`` when that is a module, else at ``pkg`` (its
    ``__init__``)."""

    def exists(parts: list[str]) -> bool:
        where = PACKAGE.parent.joinpath(*parts)
        return where.with_suffix(".py").exists() or (where / "__init__.py").exists()

    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        package = parts if is_package else parts[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[list[str]] = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[: len(package) - (node.level - 1)]
                elif (node.module or "").split(".")[0] == "reverie":
                    base = []
                else:
                    continue
                module = base + (node.module.split(".") if node.module else [])
                targets = [
                    module + [a.name] if exists(module + [a.name]) else module for a in node.names
                ]
            elif isinstance(node, ast.Import):
                targets = [
                    a.name.split(".") for a in node.names if a.name.split(".")[0] == "reverie"
                ]
            for target in targets:
                while target and not exists(target):
                    target = target[:-1]
                if target:
                    out.append((".".join(parts), ".".join(target)))
    return out


def _circles(edges: list[tuple[str, str]]) -> list[str]:
    graph: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        if a != b:
            graph[a].add(b)
    circles = []
    for start in list(graph):
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for nxt in graph.get(node, ()):
                if nxt == start:
                    circles.append(" -> ".join(path + [start]))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, path + [nxt]))
    return sorted(set(circles))


def _same_unit(a: str, b: str) -> bool:
    return a.split(".")[1:2] == b.split(".")[1:2]


def test_no_import_circle_inside_a_unit() -> None:
    """Inside ``llm/`` (or any package) no two modules import each other, directly or round a longer
    loop."""
    circles = _circles([(a, b) for a, b in _module_imports() if _same_unit(a, b)])
    assert not circles, "import circles inside a package:\n" + "\n".join(circles)


def test_the_module_checker_sees_a_circle() -> None:
    """The oracle can fail: a made-up back edge closes a loop it reports, and real edges are
    resolved to modules."""
    edges = _module_imports()
    assert ("reverie.llm.scripted", "reverie.llm.types") in edges  # ``from .types import ...``
    assert (
        "reverie.llm.registry",
        "reverie.llm.offline",
    ) in edges  # a function-local import counts
    assert _circles(edges + [("reverie.llm.types", "reverie.llm.scripted")])


def test_the_checker_sees_an_upward_import(tmp_path: Path) -> None:
    """The oracle can fail: the storage folder importing the Dream package is reported."""
    assert _layer("storage") < _layer("dream")
    assert ("storage", "dream") not in {(a, b) for a, b, _, _ in _imports()}
    assert any(
        a == "dream" and b == "storage" for a, b, _, _ in _imports()
    )  # the usual direction is seen
