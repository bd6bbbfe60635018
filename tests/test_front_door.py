"""The front door's shape holds: the old module paths the docs gave are the moved modules, Recall
reads memory and writes none of it, an edit refused by the edit policy creates nothing, and every
generated ``a``-twin shows its verb's parameters and docstring (what ``help``, pdoc and an IDE
read)."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

import reverie
from reverie.errors import UnsafePathError, WorkspaceError
from reverie.memory import Memory

PACKAGE = Path(reverie.__file__).parent


@pytest.mark.parametrize(
    "old, new",
    [
        ("reverie.offload", "reverie.memory.offload"),
        ("reverie.session_jobs", "reverie.memory.session_jobs"),
        ("reverie.importers", "reverie.memory.importers"),
        ("reverie.commands", "reverie.chat.commands"),
        ("reverie.activity", "reverie.llm.activity"),
    ],
)
def test_an_old_path_is_the_moved_module(old: str, new: str) -> None:
    moved = importlib.import_module(new)
    assert importlib.import_module(old) is moved
    for name in moved.__all__:  # what the docs named there is there, the same object
        assert getattr(importlib.import_module(old), name) is getattr(moved, name)


def test_setting_the_executor_through_the_old_path_sets_the_one_executor() -> None:
    """The old path is no copy: a program that configures ``reverie.offload`` configures the
    executor every async verb uses."""
    from concurrent.futures import ThreadPoolExecutor

    import reverie.memory.offload as offload
    import reverie.offload as old

    with ThreadPoolExecutor(1) as pool:
        old.use_executor(pool)
        try:
            assert offload.executor() is pool
        finally:
            # back to a shared executor of the module's own, built on the next call (never the
            # one this replaced: replacing shut it down)
            offload.use_executor(None)
    assert offload.executor() is not pool


#: What writes a memory file or its versions: Recall imports none of it.
WRITERS = {
    "reverie.gitstore",
    "reverie.dream",
    "reverie.operations",
    "reverie.storage.locking",
    "reverie.storage.appendlog",
}
WRITING_NAMES = {"atomic_write", "open_regular", "fsync_dir", "append_entries"}


def _imports(path: Path) -> list[tuple[str, set[str]]]:
    """(module, names) of each import in ``path``, a module of a folder of ``reverie``."""
    here = f"reverie.{path.parent.name}"
    out = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = "reverie" if node.level == 2 else here if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            out.append((module, {a.name for a in node.names}))
        elif isinstance(node, ast.Import):
            out.extend((a.name, set()) for a in node.names)
    return out


def _writers_imported(folder: str) -> list[str]:
    """What the modules of ``reverie/<folder>`` import that writes a memory file or commits."""
    found = []
    for path in sorted((PACKAGE / folder).glob("*.py")):
        for module, names in _imports(path):
            if any(module == w or module.startswith(w + ".") for w in WRITERS):
                found.append(f"{path.name}: {module}")
            if names & WRITING_NAMES:
                found.append(f"{path.name}: {module} {sorted(names & WRITING_NAMES)}")
    return found


def test_recall_writes_no_memory_file() -> None:
    """Recall only reads memory: its modules import nothing that writes a memory file or commits
    (its own search index is its only file)."""
    assert not _writers_imported("recall")


def test_the_writer_check_sees_a_writer() -> None:
    """The oracle can fail: where dated memory files are written now, it reports the writers."""
    found = _writers_imported("operations")
    assert any(f.startswith("memfiles.py: reverie.storage.fsutil") for f in found), found


def test_a_refused_edit_creates_no_scope(tmp_path: Path) -> None:
    """An edit the policy refuses leaves a scope never written as it was: nothing on disk."""
    root = tmp_path / "root"
    with reverie.open(root=root, user="alice") as memory:
        with pytest.raises(UnsafePathError):
            memory.write("memory/archive/user.md", "- Likes tea.\n", kind="agent")
        with pytest.raises(UnsafePathError):
            memory.write("history.jsonl", "{}\n")
        with pytest.raises(WorkspaceError):
            memory.remove("memory/notes.md", "Likes tea.", reason="a test")
        assert not memory.written
    assert not root.exists() or not any(root.rglob("*.md"))


def test_an_accepted_edit_creates_the_scope(tmp_path: Path) -> None:
    """The other side: the first edit that passes creates the scope and commits."""
    with reverie.open(root=tmp_path / "root", user="alice") as memory:
        result = memory.write("USER.md", "# User\n- Likes tea.\n")
        assert memory.written and result.commit is not None
        assert "Likes tea." in memory.read("USER.md")


def _twins() -> list[str]:
    return sorted(
        name
        for name, member in inspect.getmembers(Memory)
        if name.startswith("a")
        and inspect.iscoroutinefunction(member)
        and getattr(member, "__wrapped__", None) is not None
    )


def test_most_twins_are_generated() -> None:
    assert len(_twins()) >= 40


@pytest.mark.parametrize("name", _twins())
def test_a_generated_twin_shows_its_verbs_parameters_and_docstring(name: str) -> None:
    twin, verb = getattr(Memory, name), getattr(Memory, name[1:])
    assert inspect.signature(twin) == inspect.signature(verb)
    assert twin.__name__ == name and twin.__qualname__.endswith("." + name)
    assert verb.__doc__ and verb.__doc__ in (twin.__doc__ or "")


def test_a_generated_twin_runs_a_subclass_override(tmp_path: Path) -> None:
    """A twin calls its verb by name: a ``Memory`` subclass's override is what the twin runs,
    in the executor (and its mem0 twins, which stay in this process, the same)."""
    import asyncio

    class Recording(Memory):
        seen: list[str] = []

        def remember(self, text: str, *, session_key: str | None = None) -> reverie.Remembered:
            self.seen.append(text)
            return super().remember(text, session_key=session_key)

        def get(self, memory_id: str) -> reverie.MemoryItem | None:
            self.seen.append(f"get {memory_id}")
            return super().get(memory_id)

    previous = reverie.use_memory_class(Recording)
    try:
        with reverie.open(tmp_path / "ws") as memory:

            async def both() -> None:
                await memory.aremember("I moved to Porto.", session_key="t:1")
                assert await memory.aget("h1") is not None

            asyncio.run(both())
            assert Recording.seen == ["I moved to Porto.", "get h1"]
    finally:
        reverie.use_memory_class(previous)
