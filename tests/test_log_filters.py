"""The log's filters (kind, file, text, date) and the catalog behind them
(``reverie.gitstore.catalog``): the same answers as a walk, page by page without gaps, in step with
HEAD (a new commit, a rewritten history), safe from threads, and a commit that cannot be read ending
the history where it is — said by ``GitStore.problems`` and on the UI's Timeline."""

from __future__ import annotations

import os
import threading
from datetime import date, timedelta
from pathlib import Path

import pytest
from support.ui_app import signed_in

import reverie
from reverie.gitstore.queries import walk


@pytest.fixture
def memory(workspace):  # type: ignore[no-untyped-def]
    m = reverie.open(workspace.root)
    m.init()
    yield m
    m.close()


def _user(memory, *lines: str) -> str:  # type: ignore[no-untyped-def]
    """USER.md as the starter file plus ``lines`` (the gate refuses an edit dropping most of it)."""
    starter = memory.runtime.git.file_at(memory.log(limit=1, kind="init")[0].sha, "USER.md")
    text = starter + "".join(f"{line}\n" for line in lines)
    result = memory.write("USER.md", text)
    assert result.commit
    return result.commit


def test_each_filter_gives_what_a_walk_would(memory) -> None:
    berlin = _user(memory, "- Lives in Berlin")
    memory.write(
        "memory/MEMORY.md", memory.read("memory/MEMORY.md") + "- Project Heron ships in May\n"
    )
    hamburg = _user(memory, "- Lives in Hamburg")
    undo = memory.restore(hamburg, only=True).commit
    assert undo
    everything = memory.log(limit=100)
    assert [c.sha for c in memory.log(limit=100, kind="revert")] == [undo]
    assert [c.sha for c in memory.log(limit=100, text="BERLIN")] == [undo, hamburg, berlin]
    assert [c.sha for c in memory.log(limit=100, text="hamburg")] == [undo, hamburg]
    assert [c.sha for c in memory.log(limit=100, text="revert: undo")] == [undo]  # the subject
    touching = [c.sha for c in memory.log(limit=100, path="memory/MEMORY.md")]
    assert len(touching) == 2 and touching[0] not in (berlin, hamburg, undo)  # (init, the edit)
    today = date.today()
    assert len(memory.log(limit=100, since=today - timedelta(days=1))) == len(everything)
    assert memory.log(limit=100, since=today + timedelta(days=2)) == []
    assert memory.log(limit=100, until=today - timedelta(days=2)) == []
    both = memory.log(limit=100, kind="manual", text="berlin", since=today - timedelta(days=1))
    assert [c.sha for c in both] == [hamburg, berlin]
    with memory.runtime.git.reading() as repo:  # the walk, for comparison
        walked = [c.id.decode() for c in walk(repo.objects, repo.refs[b"HEAD"])]
    assert [c.sha for c in everything] == walked


def test_filtered_pages_join_up_and_follow_new_commits(memory) -> None:
    shas = [_user(memory, f"- fact {n}") for n in range(7)]
    pages, start = [], None
    while True:
        page = memory.log(limit=3 + 1, kind="manual", start=start)
        pages += [c.sha for c in page[:3]]
        if len(page) <= 3:
            break
        start = page[3].sha
    assert pages == shas[::-1]
    newer = _user(memory, "- fact 7")  # HEAD moved: the catalog puts it on top
    assert memory.log(limit=1, kind="manual")[0].sha == newer
    assert [c.sha for c in memory.log(limit=100, text="fact 3")] == [shas[4], shas[3]]


def test_a_rewritten_history_starts_the_catalog_again(memory) -> None:
    _user(memory, "- Lives in Hamburg-Altona")
    _user(memory, "- Lives in Berlin")
    before = [c.sha for c in memory.log(limit=100, text="berlin")]
    assert memory.log(limit=100, text="hamburg-altona")
    memory.purge("Hamburg-Altona")  # the commits from the first holding it on: rewritten
    after = [c.sha for c in memory.log(limit=100, text="berlin")]
    assert after and not set(after) & set(before)
    assert memory.log(limit=100, text="hamburg-altona") == []


def test_threads_share_one_catalog(memory) -> None:
    for n in range(20):
        _user(memory, f"- fact {n}")
    expected = [c.sha for c in memory.log(limit=100, text="fact 1")]
    found: list[list[str]] = []
    errors: list[BaseException] = []

    def reader() -> None:
        try:
            with memory.sibling() as own:
                for _ in range(10):
                    found.append([c.sha for c in own.log(limit=100, text="fact 1")])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and found == [expected] * 40


def _object(ws: Path, sha: str) -> Path:
    return ws / ".git/objects" / sha[:2] / sha[2:]


def test_a_commit_that_cannot_be_read_ends_the_history_and_is_said(memory, workspace) -> None:
    shas = [_user(memory, f"- fact {n}") for n in range(4)]
    broken = _object(workspace.root, shas[1])
    os.chmod(broken, 0o644)
    broken.write_bytes(broken.read_bytes()[:30])  # truncated
    with reverie.open(workspace.root) as fresh:  # a process that never read it whole
        log = fresh.log(limit=100)
        assert [c.sha for c in log] == [shas[3], shas[2]]
        problems = fresh.runtime.git.problems()
        assert any(shas[1][:12] in p.problem and "cannot be read" in p.problem for p in problems)
        with signed_in(fresh, "b" * 30, "b" * 22) as c:
            page = c.get("/timeline")
        assert page.status_code == 200 and f"commit {shas[1][:12]}" in page.text
        assert "the history before" in page.text


def test_the_timeline_filters(memory) -> None:
    _user(memory, "- Lives in Berlin")
    hamburg = _user(memory, "- Lives in Hamburg")
    with signed_in(memory, "l" * 30, "l" * 22) as c:
        page = c.get("/timeline", params={"text": "hamburg", "path": "USER.md"}).text
        assert hamburg in page and page.count('<tr>\n    <td><a href="') == 1
        assert 'value="hamburg"' in page and '<option value="USER.md" selected>' in page
        none = c.get("/timeline", params={"since": "2999-01-01"}).text
        assert "No commit matches these filters" in none
        odd = c.get("/timeline", params={"since": "not-a-date", "path": "../etc/passwd"})
        assert odd.status_code == 200 and hamburg in odd.text  # ignored, not an error


def test_a_scan_holds_the_catalog_a_chunk_at_a_time(memory) -> None:
    """``select`` looks at no more than its budget and says where to go on: ``query`` lets the lock
    go between chunks, so a long cold scan never holds up another page for its whole length."""
    from reverie.gitstore.catalog import Catalog, LogFilter

    shas = [_user(memory, f"- fact {n}") for n in range(6)]
    git = memory.runtime.git
    with git.reading() as repo:
        store = repo.objects
        head = repo.refs[b"HEAD"]
        catalog = Catalog()
        catalog.sync(store, head)
        paths = lambda commit: ["USER.md"]  # noqa: E731
        found, at = catalog.select(store, catalog.top, 10, LogFilter(text="fact"), paths, budget=2)
        assert [s.decode() for s in found] == shas[::-1][:2] and at == catalog.top + 2
        rest, end = catalog.select(store, at, 10, LogFilter(text="fact"), paths, budget=100)
        assert [s.decode() for s in found + rest] == shas[::-1] and end is None
