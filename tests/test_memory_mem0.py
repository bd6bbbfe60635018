"""A mem0 user's first ten minutes on ``reverie.open``: the verbs they reach for exist under mem0's
names and do what mem0's do (add, search with user_id and a threshold, get_all, get, update,
delete, history of one memory), ids stay stable through Dream, and a wrong argument is named in one
line — never a bare TypeError from deep inside, never ``kinds='history'`` split into letters."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import reverie
from reverie.errors import CommandError, RecallError, WorkspaceError

CONTROL_CHARACTERS = ("a\x00b", "x\x1b[8mhidden", "Role: \u202enimda", "\x9b2J", "\x7f")


def test_mem0_quickstart_verbatim(tmp_path: Path) -> None:
    """mem0's Python quickstart and its memory-operations pages (docs.mem0.ai: open-source
    python-quickstart; core-concepts/memory-operations add, search, update, delete), as written,
    with ``reverie.open(...)`` in place of ``Memory()``: no renamed verb, argument or key."""
    m = reverie.open(tmp_path / "ws")
    messages = [
        {"role": "user", "content": "Hi, I'm Alex. I love basketball and gaming."},
        {"role": "assistant", "content": "Hey Alex! I'll remember your interests."},
    ]
    added = m.add(messages, user_id="alex")
    assert {r["event"] for r in added["results"]} == {"ADD"}
    assert all(r["id"].startswith("m") for r in added["results"])  # memories, with their ids
    results = m.search("What do you know about me?", filters={"user_id": "alex"})
    said = [r["memory"] for r in results["results"]]
    assert any("basketball" in s for s in said) and any("gaming" in s for s in said)
    assert all(0 < r["score"] <= 1 for r in results["results"])

    movie = [
        {"role": "user", "content": "I'm planning to watch a movie tonight. Any recommendations?"},
        {"role": "assistant", "content": "How about thriller movies? They can be quite engaging."},
        {
            "role": "user",
            "content": "I'm not a big fan of thriller movies but I love sci-fi movies.",
        },
        {"role": "assistant", "content": "Got it! I'll avoid thriller recommendations."},
    ]
    result = m.add(movie, user_id="alex", metadata={"category": "movie_recommendations"})
    assert [r["event"] for r in result["results"]] == ["ADD"] * len(result["results"])
    food = [{"role": "user", "content": "I'm vegetarian and allergic to nuts."}]
    raw = m.add(food, user_id="alex", metadata={"category": "food"}, infer=False)
    assert raw["results"] and {r["state"] for r in raw["results"]} == {"pending"}
    memories = m.search("food preferences", filters={"user_id": "alex"})
    assert any("vegetarian" in r["memory"] for r in memories["results"])
    found = m.search("movies", filters={"user_id": "alex", "category": "movie_recommendations"})
    assert found["results"] and all("movie" in r["memory"] for r in found["results"])
    assert "sci-fi" in str(found["results"]) and "vegetarian" not in str(found["results"])

    all_memories = m.get_all(filters={"user_id": "alex"})
    memory_id = all_memories["results"][0]["id"]
    specific_memory = m.get(memory_id)
    assert specific_memory["memory"] == all_memories["results"][0]["memory"]
    m.update(memory_id=memory_id, data="Likes to play basketball on weekends")
    assert m.get(memory_id)["memory"] == "Likes to play basketball on weekends"
    history = m.history(memory_id=memory_id)
    assert [h["event"] for h in history] == ["ADD", "UPDATE"]
    assert history[-1]["new_memory"] == "Likes to play basketball on weekends"
    m.delete(memory_id=memory_id)
    assert m.get(memory_id)["state"] == "archived" and m.history(memory_id)[-1].event == "DELETE"
    m.delete_all(user_id="alex")
    assert [r for r in m.get_all(user_id="alex")["results"] if r["state"] == "active"] == []
    m.reset()  # memory empty already: nothing to commit, nothing refused
    m.close()


def test_add_learns_at_once_and_says_what_it_did(tmp_path: Path) -> None:
    """``add`` (``infer=True``, mem0's default) runs Dream on what it recorded and returns mem0's
    events with the lines' stable ids: ADD, then NONE for what memory holds already or what the
    engine is unsure of (kept in history, found by search), UPDATE with the old text for a
    correction; ``infer=False`` only records."""
    with reverie.open(root=tmp_path / "root", user="alice") as m:
        first = m.add("I prefer tea over coffee and I live in Lisbon.", user_id="alice")
        assert [(r.event, r.state) for r in first] == [("ADD", "active")] * 2
        lisbon = next(r for r in first if "Lisbon" in r.memory)
        again = m.add("I prefer tea over coffee and I live in Lisbon.", user_id="alice")
        assert [(r.event, r.state) for r in again] == [("NONE", "dreamed")]
        unsure = m.add("Maybe I like jazz, not sure.", user_id="alice")
        assert [r.event for r in unsure] == ["NONE"] and "jazz" not in m.read("USER.md")
        assert any(r.id == unsure[0].id for r in m.search("jazz"))  # history keeps it
        moved = m.add("I moved to Porto last month.", user_id="alice")
        assert [(r.event, r.id) for r in moved] == [("UPDATE", lisbon.id)]
        assert moved[0].metadata["previous_memory"] == lisbon.memory and "Porto" in moved[0].memory
        assert m.get(lisbon.id).memory == moved[0].memory  # the id survived Dream's edit
        kept = m.add("My sister Ines is a nurse.", user_id="alice", metadata={"s": 1}, infer=False)
        assert [r.state for r in kept] == ["pending"] and kept[0].metadata["metadata"] == {"s": 1}
        assert m.pending() == 1 and "Ines" not in m.read("USER.md")
        with pytest.raises(CommandError, match="infer must be True or False"):
            m.add("x y z", infer="yes")  # type: ignore[arg-type]


def test_an_id_update_and_delete_cannot_take_says_what_to_do(tmp_path: Path) -> None:
    """With ``infer=False`` what ``add`` returns is a history entry Dream has not read (history is
    kept as written), so the error says how to reach the line it becomes, and every other kind of
    id that is no active line says what it is, in one line."""
    with reverie.open(tmp_path / "ws") as m:
        (added,) = m.add("I live in Lisbon and I prefer tea.", infer=False)
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
        m.restore(m.log(limit=1)[0].sha, only=True)  # delete is undone by a restore
        assert m.get(line.id).state == "active"
        with pytest.raises(WorkspaceError, match="no memory m000000000000"):
            m.delete("m000000000000")


def test_scope_ids_and_filters_are_checked(tmp_path: Path) -> None:
    """``user_id`` / ``agent_id`` as arguments or in ``filters`` must be this memory's; filters
    mem0 has that Reverie does not (AND/OR, operators) are named, never ignored."""
    with reverie.open(root=tmp_path / "root", user="alice") as m:
        m.add("I live in Lisbon.", user_id="alice", run_id="s1", infer=False)
        m.add("I drink tea.", user_id="alice", run_id="s2", infer=False)
        for call in (
            lambda: m.get_all(user_id="bob"),
            lambda: m.search("Lisbon", filters={"user_id": "bob"}),
            lambda: m.get_all(filters={"agent_id": "x"}),
        ):
            with pytest.raises(CommandError, match="is not this memory's"):
                call()
        assert [r.memory for r in m.get_all(filters={"run_id": "s2"})] == ["I drink tea."]
        assert [r.memory for r in m.get_all(run_id="s1")] == ["I live in Lisbon."]
        assert len(m.get_all(filters={"run_id": {"in": ["s1", "s2"]}}, top_k=5)) == 2
        assert len(m.get_all(filters={"user_id": "alice", "run_id": "*"})) == 2
        m.dream(all=True)  # read by Dream: still what those runs added
        assert [r.memory for r in m.get_all(run_id="s1")] == ["I live in Lisbon."]
        chat = [{"role": "user", "content": "I love sci-fi movies."}]
        m.add(chat, user_id="alice", run_id="s3", metadata={"category": "movies"})
        said = m.get_all(filters={"category": "movies"})
        assert [(r.memory, r.state) for r in said] == [("I love sci-fi movies.", "said")]
        for bad, said in (
            ({"OR": [{"user_id": "alice"}]}, "'OR' is not supported"),
            ({"created_at": {"gte": "2024-07-01"}}, "['gte'] not supported"),
            ({"run_id": {"in": "s1"}}, "must be a list of values"),
            ([1], "filters must be a dict"),
        ):
            with pytest.raises(CommandError, match=re.escape(said)):
                m.search("Lisbon", filters=bad)  # type: ignore[arg-type]
        with pytest.raises(CommandError, match="user_id 'alice' and filters' 'bob' disagree"):
            m.search("Lisbon", user_id="alice", filters={"user_id": "bob"})
        with pytest.raises(CommandError, match="top_k must be a whole number"):
            m.search("Lisbon", top_k=0)
        with pytest.raises(KeyError, match="results are a list"):
            m.search("Lisbon")["memories"]


def test_a_plain_workspace_is_the_user_its_first_add_named(tmp_path: Path) -> None:
    """mem0 keeps every user in one store; a workspace is one user's memory. Code written for mem0
    that passes another user_id to the same plain workspace is refused, never handed (nor made to
    delete) the first user's memories."""
    with reverie.open(tmp_path / "ws") as m:
        m.add("I live in Lisbon and I prefer tea.", user_id="alice", infer=False)
        m.add("I moved my desk to the window.", infer=False)  # no user_id: this workspace's user
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
        hits = m.recall("boiler", kinds="history")
        assert hits and {h.source.kind for h in hits} == {"history"}
        assert [i.id for i in m.search("boiler", kinds="history")] == ["h1"]
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
                m.add(
                    [{"role": "user", "content": f"I moved to city{i}{j} last year."}],
                    infer=False,
                )

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
                    m.aadd(
                        [{"role": "user", "content": f"I moved to city{i}{j} last year."}],
                        infer=False,
                    )
                    for i in range(4)
                    for j in range(4)
                )
            )
            assert counts(m) == {f"city{i}{j}": 1 for i in range(4) for j in range(4)}

    asyncio.run(tasks())


def test_adds_that_learn_at_once_share_dreams_lock(tmp_path: Path) -> None:
    """Threads adding with ``infer=True`` at once (each a Dream run, one at a time under its lock,
    a waiting one distilling what the others left): no error, every add says what it did, and
    each fact is in USER.md or, when the engine left it, in history."""
    import threading

    facts = [f"I have a dog called Rex{i}." for i in range(4)]
    out: dict[int, list[str]] = {}
    with reverie.open(tmp_path / "ws") as m:
        m.init()

        def work(i: int) -> None:
            out[i] = [r.event or "" for r in m.add(facts[i])]

        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(out) == [0, 1, 2, 3] and all(out[i] for i in out)
        assert m.pending() == 0
        user, history = m.read("USER.md"), str(m.history())
        assert all(f"Rex{i}" in user or f"Rex{i}" in history for i in range(4))


@pytest.mark.parametrize(
    ("bad", "said"),
    [
        *((c, r"holds a control character \(U\+") for c in CONTROL_CHARACTERS),
        # text that cannot be written as UTF-8: decoded from bytes that were not, or a JSON \ud800
        ("Lives in Lis\ud800bon", r"is not UTF-8 \("),
        ("I live in Lisbon \udcff", r"is not UTF-8 \("),
    ],
)
def test_text_a_verb_stores_is_checked_by_one_rule(tmp_path: Path, bad: str, said: str) -> None:
    """One rule for text a verb stores (``check_stored``), in every place it is stored (a text, a
    message's content, each text part of it, an update): tab and newline only (``\\r\\n`` is a
    newline); a NUL, an escape sequence, a bidirectional override is refused naming the argument
    and the character; a lone surrogate as the command line refuses it, naming the offset, never
    stored as an escape that a prompt then carries. Nothing reaches history, a conversation or a
    memory file."""
    with reverie.open(tmp_path / "ws") as m:
        m.add("I live in Lisbon.")
        line = m.get_all()[0]
        calls = {
            "text": lambda: m.remember(bad),
            "messages": lambda: m.add(bad),
            "messages[1]['content']": lambda: m.add(
                [{"role": "user", "content": "hi"}, {"role": "user", "content": bad}]
            ),
            "messages[0]['content'][1]['text']": lambda: m.add(
                [{"role": "user", "content": [{"type": "text", "text": "hi"}, {"text": bad}]}]
            ),
            "data": lambda: m.update(line.id, bad),
        }
        for name, call in calls.items():
            with pytest.raises(CommandError, match=re.escape(name) + " " + said) as caught:
                call()
            assert "\n" not in str(caught.value)
        assert len(m.history()) == 1 and m.get(line.id).memory == line.memory
        assert m.messages("mem0") == []
        assert "\\u" not in (tmp_path / "ws" / "memory" / "history.jsonl").read_text()
        assert m.remember("one\r\ntwo\tthree").cursor == 2
        assert m.history()[-1].content == "one\ntwo\tthree"


def test_a_query_naming_a_category_of_fact_finds_its_lines(tmp_path: Path) -> None:
    """Offline, with no embeddings, a question naming a category of fact finds lines that share no
    word with it (``reverie.recall.categories``), after the question's own hits; the score keeps its
    absolute meaning: a word naming the category counts as held by a line of it."""
    with reverie.open(tmp_path / "ws") as m:
        m.add([{"role": "user", "content": "I'm vegetarian and I work as a nurse."}])
        m.add("I have a dog called Rex.")
        assert "Is vegetarian" in m.read("USER.md")
        diet = m.search("dietary restrictions")
        assert diet and diet[0].memory == "Is vegetarian" and diet[0].score == 1.0
        assert all("vegetarian" in r.memory.lower() for r in diet)  # never the job, the dog
        job = {r.memory: r.score for r in m.search("what is my job at the hospital?")}
        assert job.get("Works as nurse") == 0.5  # the job, not the hospital
        full = [r.memory for r in m.search("my job", threshold=1.0)]
        assert "Works as nurse" in full and all("nurse" in r for r in full)
        pets = [r.memory for r in m.search("Do I have pets?")]
        assert pets and "Rex" in pets[0]
        about = [r.memory for r in m.search("What do you know about me?")]
        assert {"Is vegetarian", "Works as nurse"} <= set(about) and any("Rex" in a for a in about)
        assert m.search("quantum chromodynamics") == []  # nothing named, nothing held


def test_add_that_learns_inside_an_event_loop_says_to_await_aadd(tmp_path: Path) -> None:
    """``add(infer=True)`` runs Dream, which cannot block a running loop: refused before anything
    is recorded (never halfway), saying what to call; ``aadd`` does it, ``infer=False`` records."""
    import asyncio

    async def go() -> None:
        with reverie.open(tmp_path / "ws") as m:
            with pytest.raises(CommandError, match=r"await Memory\.aadd\(\.\.\.\) instead"):
                m.add("I live in Lisbon.")
            assert m.history() == []
            assert [r.state for r in m.add("I live in Lisbon.", infer=False)] == ["pending"]
            learned = await m.aadd("I prefer tea.")  # Dream distils every pending entry
            assert {(r.event, r.memory) for r in learned} == {
                ("ADD", "Prefers tea"),
                ("ADD", "Lives in Lisbon"),
            }

    asyncio.run(go())


def test_results_read_as_mem0_s_dicts_and_history_rows_carry_its_fields(tmp_path: Path) -> None:
    """mem0 returns plain dicts: code written for it does ``dict(r)``, ``{**r}``, ``"score" in r``
    and ``r.items()``, and reads a history row's ``id``, ``is_deleted`` and ``updated_at``
    (mem0's ``get_history`` rows). The items stay typed, and equal by their fields."""
    with reverie.open(tmp_path / "ws") as m:
        (added,) = m.add("I live in Lisbon.", user_id="alex")
        as_dict = dict(added)
        assert as_dict["memory"] == added.memory and as_dict["event"] == "ADD"
        assert {**added} == as_dict and set(added) == set(as_dict) and len(added) == len(as_dict)
        assert "score" in added and "no_such_field" not in added
        assert dict(added.items())["id"] == added.id
        m.update(added.id, "Lives in Porto")
        m.delete(added.id)
        rows = m.history(added.id)
        assert [r["event"] for r in rows] == ["ADD", "UPDATE", "DELETE"]
        assert [r["is_deleted"] for r in rows] == [False, False, True]
        assert len({r["id"] for r in rows}) == 3  # one id per row
        assert all(r["updated_at"] == r["created_at"] and r["memory_id"] == added.id for r in rows)
        assert all(dict(r) == r.to_dict() for r in rows)
        assert rows[0]["actor_id"] is None and rows[0]["role"] is None


def test_search_leaves_out_what_memory_no_longer_holds(tmp_path: Path) -> None:
    """A line moved to the archive (deleted, or superseded by a correction) is no memory any more:
    mem0's ``search`` never returns a deleted memory, so neither does this one, and the current
    line is not crowded out by archived ones. ``get`` still reads the archived line by id, and
    ``search_memory`` (what a model is handed) marks it ``archived``."""
    with reverie.open(tmp_path / "ws") as m:
        (manchester,) = m.add("I live in Manchester.", user_id="alex")
        (leeds,) = m.add("Actually I moved to Leeds last month.", user_id="alex")
        assert leeds.event == "UPDATE" and "Leeds" in leeds.memory
        (tea,) = m.add("I prefer green tea over coffee.", user_id="alex")
        m.delete(tea.id)
        for query in ("where do I live", "Manchester", "green tea"):
            found = m.search(query, user_id="alex", limit=1)["results"]
            assert all(r["state"] != "archived" for r in found), (query, found)
        lines = [r["memory"] for r in m.search("where do I live", user_id="alex")["results"]]
        assert "Lives in Leeds" in lines and "Lives in Manchester" not in lines
        assert m.get(tea.id)["state"] == "archived"
        handed = m.search_memory("green tea")
        assert any(i.state == "archived" and "green tea" in i.memory for i in handed)


def test_search_finds_the_current_line_behind_many_archived_ones(tmp_path: Path) -> None:
    """When archived lines fill Recall's first window of hits, ``search`` widens it until it has
    its limit of current items or Recall has no more: the one current line is still found."""
    with reverie.open(tmp_path / "ws") as m:
        old = [f"- Drinks coffee brand number {i} coffee every coffee morning" for i in range(60)]
        m.write("USER.md", "\n".join(old) + "\n")
        m.clear_files(reason="test: archive them all")
        m.write("USER.md", m.read("USER.md").rstrip("\n") + "\n- Likes coffee\n")
        assert len(m.search_memory("coffee", limit=50)) >= 20  # the archived lines match too
        for limit in (1, 3, 10):
            found = m.search("coffee", limit=limit)["results"]
            assert [r["memory"] for r in found][:1] == ["Likes coffee"], (limit, found)
            assert all(r["state"] != "archived" for r in found)
