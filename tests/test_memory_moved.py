"""A workspace deleted, renamed or replaced under an open ``Memory``: every verb (a write, Dream, a
query, their async twins, from any thread) fails with ``WorkspaceMovedError`` naming the path and
writes nothing; it never quietly starts a second workspace at the old path."""

from __future__ import annotations

import asyncio
import shutil
import threading
from pathlib import Path

import pytest

import reverie
from reverie.errors import WorkspaceError, WorkspaceMovedError
from reverie.memory import Memory


def _opened(path: Path) -> Memory:
    mem = reverie.open(path)
    mem.remember("User: I live in Lisbon.")
    return mem


def _delete(ws: Path) -> None:
    shutil.rmtree(ws)


def _rename(ws: Path) -> None:
    ws.rename(ws.with_name("moved"))


def _replace(ws: Path) -> None:
    other = ws.with_name("other")
    with reverie.open(other) as mem:
        mem.remember("User: someone else entirely.")
    ws.rename(ws.with_name("old"))
    other.rename(ws)


CHANGES = {"deleted": _delete, "renamed": _rename, "replaced": _replace}
VERBS = {
    "remember": lambda m: m.remember("User: I prefer tea."),
    "write": lambda m: m.write("USER.md", "# User\n- Likes tea\n"),
    "dream": lambda m: m.dream(),
    "recall": lambda m: m.recall("Lisbon"),
    "history": lambda m: m.history(),
    "log": lambda m: m.log(),
    "read": lambda m: m.read("USER.md"),
}


def _snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (missing: empty), to show a verb wrote nothing."""
    if not root.exists():
        return {}
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("verb", sorted(VERBS))
@pytest.mark.parametrize("change", sorted(CHANGES))
def test_every_verb_refuses_a_moved_workspace_and_writes_nothing(tmp_path, change, verb):
    ws = tmp_path / "ws"
    mem = _opened(ws)
    mem.dream()  # a memory repo, and the services built: the handles kept open are no excuse
    CHANGES[change](ws)
    before = _snapshot(ws)
    with pytest.raises(WorkspaceMovedError) as caught:
        VERBS[verb](mem)
    message = str(caught.value)
    assert str(ws) in message and "open it again" in message and "\n" not in message
    assert isinstance(caught.value, WorkspaceError)
    assert _snapshot(ws) == before  # nothing written: no fresh workspace at the old path
    mem.close()  # closing still works
    with reverie.open(ws) as again:  # opened again: the workspace at the path now
        assert again.history() == [] if change != "replaced" else len(again.history()) == 1


def test_async_twins_and_threads_see_the_same_error(tmp_path):
    ws = tmp_path / "ws"
    mem = _opened(ws)
    _rename(ws)
    with pytest.raises(WorkspaceMovedError):
        asyncio.run(mem.aremember("User: I prefer tea."))
    with pytest.raises(WorkspaceMovedError):
        asyncio.run(mem.adream())
    with pytest.raises(WorkspaceMovedError):
        asyncio.run(mem.arecall("Lisbon"))
    errors: list[BaseException] = []

    def use() -> None:
        try:
            mem.remember("User: from a thread.")
        except BaseException as exc:  # noqa: BLE001 - what each thread met is the assertion
            errors.append(exc)

    threads = [threading.Thread(target=use) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(errors) == 4 and all(isinstance(e, WorkspaceMovedError) for e in errors)
    assert not ws.exists()
    mem.close()


def test_a_new_memory_repo_in_the_folder_is_refused(tmp_path):
    ws = tmp_path / "ws"
    mem = _opened(ws)
    mem.dream()
    git = ws / ".git"
    shutil.rmtree(git)
    with reverie.open(tmp_path / "other") as other:
        other.remember("User: someone else.")
        other.dream()
    (tmp_path / "other" / ".git").rename(git)
    with pytest.raises(WorkspaceMovedError, match="memory repo"):
        mem.write("USER.md", "# User\n- Likes tea\n")
    mem.close()


def test_a_workspace_created_by_the_first_write_is_the_one_checked(tmp_path):
    """Opened before it existed: the folder the first write made is the one later verbs expect;
    a sibling shares it."""
    ws = tmp_path / "ws"
    with reverie.open(ws) as mem:
        assert mem.history() == [] and not ws.exists()  # a query made nothing
        mem.remember("User: I live in Lisbon.")
        assert mem.history()[0].content.endswith("Lisbon.")
        sibling = mem.sibling()
        _delete(ws)
        for m in (mem, sibling):
            with pytest.raises(WorkspaceMovedError):
                m.remember("User: again.")
        assert not ws.exists()
        sibling.close()


def test_an_unchanged_workspace_keeps_working(tmp_path):
    ws = tmp_path / "ws"
    with reverie.open(ws) as mem:
        mem.remember("User: I live in Lisbon and I prefer Postgres.")
        assert mem.dream().status == "ok"
        mem.write("memory/MEMORY.md", "# Memory\n- Deploys on Fridays\n")
        assert mem.restore().commit
        assert mem.recall("Postgres") and mem.log()
