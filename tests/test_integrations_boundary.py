"""The framework adapters are thin over ``Memory``: they import only the front door
(``reverie.memory``) and the exception tree, never Reverie's internals; and every framework they
plug into is an install extra that the dev lock pins, so CI tests each adapter against the
framework's own package."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from conftest import ROOT
from packaging.version import Version

ALLOWED = {
    "reverie.memory",
    "reverie.errors",
    "reverie",
    "reverie.integrations._tools",
    "reverie.memory.offload",
    "reverie.text.safety",
    "reverie.text.memline",
}  # _tools: their own; offload: the async verbs' executor (documented, ``use_executor``), where an
# async adapter runs its synchronous work too; text.safety and text.memline: text rules below every
# layer, pure functions (the one check of text that is stored, a memory line's comparison key)
#: adapter module -> the extra that installs its framework
EXTRAS = {
    "anthropic": "anthropic",
    "openai_agents": "openai-agents",
    "pydantic_ai": "pydantic-ai",
    "google_adk": "google-adk",
    "agent_framework": "agent-framework",
}


def _reverie_imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = "reverie" if node.level == 2 else "reverie.integrations"
            if node.module:
                found.add(f"{base}.{node.module}")
            else:  # ``from .. import memory``: each name is a module
                found |= {f"{base}.{a.name}" for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("reverie"):
            found.add(str(node.module))
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("reverie")}
    return found


def test_adapters_import_only_the_front_door() -> None:
    modules = sorted((ROOT / "reverie" / "integrations").glob("*.py"))
    assert {p.stem for p in modules} >= set(EXTRAS)
    reaching = {p.name: sorted(_reverie_imports(p) - ALLOWED) for p in modules}
    assert not any(reaching.values()), f"adapters reaching past Memory: {reaching}"


def test_every_adapter_has_an_extra_pinned_in_the_dev_lock() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    extras = project["optional-dependencies"]
    lock = (ROOT / "requirements-dev.lock").read_text("utf-8")
    pinned = {
        line.split("==")[0].strip().lower()
        for line in lock.splitlines()
        if "==" in line and not line.startswith(" ")
    }
    for module, extra in EXTRAS.items():
        assert extra in extras, f"reverie.integrations.{module} has no install extra {extra!r}"
        for requirement in extras[extra]:
            name = (
                requirement.split(">")[0]
                .split("<")[0]
                .split("=")[0]
                .split("!")[0]
                .split("[")[0]
                .strip()
                .lower()
            )
            assert name in pinned, f"{name} (extra {extra}) is not pinned in requirements-dev.lock"


def test_every_adapter_is_tested_on_its_oldest_and_newest_release() -> None:
    """The dev lock pins each framework's newest release (the suite runs every adapter on it); the
    oldest its extra allows is either that same release or has a peer environment whose tests run
    the adapter on it (tests/test_frameworks_oldest.py, built from bench/locks by
    bench/peerenv.py)."""
    from packaging.requirements import Requirement

    from bench import peerenv  # (the benchmarks' package: imported here, where it is needed)

    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    lock = (ROOT / "requirements-dev.lock").read_text("utf-8")
    pinned = dict(
        line.split(" ")[0].split("==")
        for line in lock.splitlines()
        if "==" in line and not line.startswith(" ")
    )
    oldest_tested = (ROOT / "tests" / "test_frameworks_oldest.py").read_text("utf-8")
    for extra in EXTRAS.values():
        for text in project["optional-dependencies"][extra]:
            req = Requirement(text)
            floors = [s.version for s in req.specifier if s.operator == ">="]
            assert floors, f"{req.name}: the extra names no oldest supported release (>=)"
            oldest = floors[0]
            newest = pinned[req.name]
            assert req.specifier.contains(newest), (
                f"{req.name}: the dev lock's {newest} is outside {req}"
            )
            if Version(oldest) == Version(newest):
                continue
            name = f"{req.name}-{Version(oldest)}"
            candidates = [p for p in peerenv.PEERS.values() if p.dist == req.name]
            assert any(Version(p.version) == Version(oldest) for p in candidates), (
                f"{req.name} {oldest} (the oldest {extra} allows) has no peer environment"
            )
            found = next(p for p in candidates if Version(p.version) == Version(oldest))
            assert peerenv.lock_file(found.name).is_file(), name
            assert f'NAME = "{found.name}"' in oldest_tested, f"{found.name} is not tested"
