"""A mem0 user's first ten minutes on ``reverie.open``: the verbs they reach for exist under mem0's
names and do what mem0's do (add, search with user_id and a threshold, get_all, get, update,
delete, history of one memory), ids stay stable through Dream, and a wrong argument is named in one
line — never a bare TypeError from deep inside, never ``kinds='history'`` split into letters."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import reverie
from reverie.errors import CommandError, RecallError, WorkspaceError


def test_the_verbs_a_mem0_user_reaches_for(tmp_path: Path) -> None:
    """mem0's quickstart, verb for verb (https://docs.mem0.ai: add, search, get_all, get, update,
    history, delete), on a user's scope."""
    with reverie.open(root=tmp_path / "root", user="alice") as m:
        added = m.add(
            "I prefer tea over coffee and I live in Lisbon.",
            user_id="alice",
            metadata={"source": "chat"},
        )
        assert [a.state for a in added] == ["pending"] and added[0].metadata["metadata"] == {
            "source": "chat"
        }
        chat = [
            {"role": "user", "content": "My sister Ines is a nurse in Braga."},
            {"role": "assistant", "content": "Good to know!"},
        ]
        m.add(chat, user_id="alice")
        hits = m.search("where does alice live", user_id="alice", limit=5)
        assert hits and "Lisbon" in hits[0].snippet and 0 < hits[0].match <= 1
        assert m.search("where does alice live", user_id="alice", threshold=1.0) == [
            h for h in hits if h.match == 1.0
        ]
        m.dream(all=True)
        everything = m.get_all(user_id="alice")
        lisbon = next(i for i in everything if "Lisbon" in i.memory)
        assert lisbon.state == "active" and lisbon.id.startswith("m")
        assert m.get(lisbon.id).memory == lisbon.memory and m.get(lisbon.id).updated_at
        m.update(lisbon.id, "Lives in Porto")
        assert m.get(lisbon.id).memory == "Lives in Porto"
        assert [e.event for e in m.history(lisbon.id)] == ["ADD", "UPDATE"]
        gone = m.delete(lisbon.id)
        assert gone.state == "archived" and "deleted by id" in gone.metadata["note"]
        assert all(i.id != lisbon.id for i in m.get_all(user_id="alice"))
        assert m.history(lisbon.id)[-1].event == "DELETE"
        m.restore(m.log(limit=1)[0].sha, only=True)  # delete is undone by a restore
        assert m.get(lisbon.id).state == "active"
        with pytest.raises(CommandError, match="user_id 'bob' is not this memory's user"):
            m.get_all(user_id="bob")
        with pytest.raises(WorkspaceError, match="no memory m000000000000"):
            m.delete("m000000000000")
        cleared = m.delete_all(user_id="alice")  # mem0's delete_all: one commit, one restore
        assert [i for i in m.get_all() if i.state == "active"] == []
        m.restore(cleared.commit, only=True)
        assert m.get(lisbon.id).state == "active"


def test_an_id_update_and_delete_cannot_take_says_what_to_do(tmp_path: Path) -> None:
    """mem0's quickstart updates what ``add`` returned at once; here that is a history entry
    Dream has not read (history is kept as written), so the error says how to reach the line it
    becomes, and every other kind of id that is no active line says what it is, in one line."""
    with reverie.open(tmp_path / "ws") as m:
        (added,) = m.add("I live in Lisbon and I prefer tea.")
        for verb in (m.update, m.delete):
            args = (added.id, "Lives in Porto") if verb == m.update else (added.id,)
            with pytest.raises(WorkspaceError, match="is waiting for Dream") as caught:
                verb(*args)
            assert "run dream()" in str(caught.value) and "\n" not in str(caught.value)
        assert m.get(added.id).state == "pending"  # nothing changed
        m.dream(all=True)
        with pytest.raises(WorkspaceError, match="Dream has read already"):
            m.update(added.id, "Lives in Porto")
        line = next(i for i in m.get_all() if "Lisbon" in i.memory)
        m.delete(line.id)
        with pytest.raises(WorkspaceError, match=r"is archived \(.*deleted by id.*\): restore"):
            m.update(line.id, "Lives in Porto")
        with pytest.raises(WorkspaceError, match="edit that file with write"):
            m.delete("USER.md#L1")


def test_a_plain_workspace_is_the_user_its_first_add_named(tmp_path: Path) -> None:
    """mem0 keeps every user in one store; a workspace is one user's memory. Code written for mem0
    that passes another user_id to the same plain workspace is refused, never handed (nor made to
    delete) the first user's memories."""
    with reverie.open(tmp_path / "ws") as m:
        m.add("I live in Lisbon and I prefer tea.", user_id="alice")
        m.add("I moved my desk to the window.")  # no user_id: this workspace's user
        for call in (
            lambda: m.get_all(user_id="bob"),
            lambda: m.search("Lisbon", user_id="bob"),
            lambda: m.delete_all(user_id="bob"),
            lambda: m.add("I live in Oslo.", user_id="bob"),
        ):
            with pytest.raises(CommandError, match=r"not this workspace's user \('alice'"):
                call()
        assert len(m.get_all(user_id="alice")) == 2 and m.search("Lisbon", user_id="alice")
        assert "Oslo" not in str(m.history())
    with reverie.open(tmp_path / "ws") as m:  # kept: the next process knows it too
        with pytest.raises(CommandError, match="reverie.open\\(root=DIR, user='bob'\\)"):
            m.get_all(user_id="bob")


def test_async_twins(tmp_path: Path) -> None:
    import asyncio

    async def go() -> None:
        async with reverie.open(tmp_path / "ws") as m:
            added = await m.aadd([{"role": "user", "content": "I moved to Oslo in May."}])
            assert added and (await m.aget(added[0].id)) is not None
            assert await m.asearch_memory("Oslo")

    asyncio.run(go())


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda m: m.remember(""), "text is empty"),
        (lambda m: m.remember(123), "text must be a string, not int"),
        (lambda m: m.recall("x", limit="5"), "limit must be a whole number of at least 1, not '5'"),
        (lambda m: m.recall(None), "query must be a string, not NoneType"),
        (lambda m: m.search("x", kinds=[1]), "kinds must be a kind or a list of kinds"),
        (lambda m: m.search("x", threshold=2), "threshold must be a number from 0 to 1"),
        (lambda m: m.write("USER.md", None), "text must be a string, not NoneType"),
        (lambda m: m.write(7, "x"), "path must be a string, not int"),
        (lambda m: m.add(42), "messages must be a text, a chat message or a list of them"),
        (lambda m: m.add([{"content": "x"}]), "messages[0] must be a dict with a string 'role'"),
        (lambda m: m.add("x y z", metadata=[1]), "metadata must be a dict, not list"),
        (lambda m: m.add("x y z", metadata={1: "a"}), "metadata must be plain JSON"),
        (lambda m: m.get(""), "memory_id is empty"),
        (lambda m: m.update("m1", 3), "data must be a string, not int"),
        (lambda m: m.history(since=-1), "since must be a whole number of at least 0"),
        (lambda m: m.search_memory("x", session_key=5), "session_key must be a string"),
    ],
)
def test_a_wrong_argument_is_named_in_one_line(tmp_path: Path, call, message: str) -> None:
    with reverie.open(tmp_path / "ws") as m:
        m.init()
        with pytest.raises(CommandError) as caught:
            call(m)
        assert message in str(caught.value) and "\n" not in str(caught.value)


def test_one_kind_is_a_kind_not_its_letters(tmp_path: Path) -> None:
    with reverie.open(tmp_path / "ws") as m:
        m.remember("The boiler was serviced in March.")
        hits = m.search("boiler", kinds="history")
        assert hits and {h.source.kind for h in hits} == {"history"}
        with pytest.raises(RecallError, match=r"unknown source kind\(s\) \['histories'\]"):
            m.search("boiler", kinds="histories")


def _public_methods(cls: type) -> list[str]:
    """The public methods and properties Reverie's own code defines on ``cls`` (inherited from
    pydantic, dataclasses or ``Exception`` left out)."""
    out = []
    for name in dir(cls):
        if name.startswith("_"):
            continue
        static = inspect.getattr_static(cls, name)
        func = static.fget if isinstance(static, property) else getattr(cls, name)
        if not (inspect.isfunction(func) or isinstance(static, property)):
            continue
        if (getattr(func, "__module__", "") or "").startswith("reverie"):
            out.append(name)
    return out


def test_every_public_name_and_method_has_a_docstring() -> None:
    """Every name in ``reverie.__all__`` and every public method or property of each public class
    says what it does (``help(memory.adream)`` is never empty)."""
    missing = []
    for name in reverie.__all__:
        obj = getattr(reverie, name)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if not (obj.__doc__ or "").strip():
            missing.append(name)
        if not inspect.isclass(obj):
            continue
        for attr in _public_methods(obj):
            static = inspect.getattr_static(obj, attr)
            member = static.fget if isinstance(static, property) else getattr(obj, attr)
            doc = inspect.getdoc(member) or ""
            inherited = any(
                doc == (inspect.getdoc(getattr(base, attr, None)) or "")
                for base in obj.__mro__[1:]
                if not base.__module__.startswith("reverie")
            )
            if not doc.strip() or inherited:
                missing.append(f"{name}.{attr}")
    assert missing == []


def test_conversations_added_at_once_are_archived_once_each(tmp_path: Path) -> None:
    """Threads sharing one Memory, and tasks of one loop (whose pipeline verbs run on the executor's
    threads), add conversations to the same user at once: every message reaches history exactly
    once. Before, a consolidation holding a copy of the session loaded before another thread
    appended archived slices the other had archived already (3 copies of one message)."""
    import asyncio
    import collections
    import re
    import threading

    def counts(m: reverie.Memory) -> collections.Counter[str]:
        found: collections.Counter[str] = collections.Counter()
        for entry in m.history():
            found.update(re.findall(r"city\d\d", entry.content))
        return found

    with reverie.open(tmp_path / "threads") as m:
        m.init()

        def work(i: int) -> None:
            for j in range(4):
                m.add([{"role": "user", "content": f"I moved to city{i}{j} last year."}])

        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert counts(m) == {f"city{i}{j}": 1 for i in range(4) for j in range(4)}

    async def tasks() -> None:
        async with reverie.open(tmp_path / "tasks") as m:
            await m.ainit()
            await asyncio.gather(
                *(
                    m.aadd([{"role": "user", "content": f"I moved to city{i}{j} last year."}])
                    for i in range(4)
                    for j in range(4)
                )
            )
            assert counts(m) == {f"city{i}{j}": 1 for i in range(4) for j in range(4)}

    asyncio.run(tasks())
