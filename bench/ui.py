"""``reverie ui``: server time of the Timeline on a 10,000-commit memory repo and of the Memory
screen at full budgets (goal ≤ 200 ms each).

    .venv/bin/python -m bench ui            # 10,000 commits
    .venv/bin/python -m bench ui --quick    # 1,000 commits, fewer repetitions

Timeline filters (issue 38): the Timeline filtered by a rare kind (``init``: 1 commit of 10,000, at
the bottom), by a file only that commit touched (USER.md), by a text two commits changed, and by one
day (1,440 commits), each served from the log's catalog (``reverie.gitstore.catalog``) once a first
request has read the history. Beside each: the same filter by walking the log as ``GitStore.log``
did before the catalog (every commit read, and for a text every changed file's two versions
compared), fewer rounds. The first request of each, with the process's catalogs emptied (the cold
cost, paid once per server), is its own row.

For a root of scopes (``reverie --root DIR ui``, ``reverie.ui.root``): the user picker on a root of
10 and of 20,000 users (2,000 with ``--quick``; each a directory and its ``scope.json`` written in
the layout, no repo), beside the listing it reads (``ScopeRoot.scopes``, the first 51); and a
scope's Memory screen when the scope is already open, beside the same page when it is opened for the
request (a cache of one, two scopes alternating).

Each page is requested in process through the real ASGI app (Starlette's TestClient: the Guard, the
handler, the ``Memory`` calls in worker threads, Jinja2), signed in as a browser would be. The floor
is the library calls the page makes, timed in the same rounds (request, then floor, alternating):
what the UI adds is the difference. The repo is ``bench.gitstore``'s cached one (git fast-import,
Reverie's trailers). The Memory screen caches each line's rendered Markdown across requests; its
first load is measured apart, with that cache emptied.
"""

from __future__ import annotations

import json
import shutil
from itertools import islice
from pathlib import Path

from bench import Context, Result, stats_of
from bench.gitstore import cached_workspace

TOKEN = "bench-" + "t" * 30


def _client(memory):  # type: ignore[no-untyped-def]
    from starlette.testclient import TestClient

    from reverie.ui import build_app
    from reverie.ui.security import SignIn

    app = build_app(memory, signin=SignIn(TOKEN))
    client = TestClient(app, base_url="http://127.0.0.1:8766", follow_redirects=False)
    client.__enter__()
    assert client.get(f"/?token={TOKEN}").status_code == 303
    client.base_url = "http://127.0.0.1:8766" + app.prefix  # every page is under the server's id
    return client


def _root_client(root: Path, size: int = 16):  # type: ignore[no-untyped-def]
    from starlette.testclient import TestClient

    from reverie.storage.scopes import ScopeRoot
    from reverie.ui.root import ScopeApps, build_root_app
    from reverie.ui.security import SignIn

    scopes = ScopeApps(ScopeRoot(root), size=size)
    app = build_root_app(ScopeRoot(root), signin=SignIn(TOKEN), scopes=scopes)
    client = TestClient(app, base_url="http://127.0.0.1:8766", follow_redirects=False)
    client.__enter__()
    assert client.get(f"/?token={TOKEN}").status_code == 303
    client.base_url = "http://127.0.0.1:8766" + app.prefix
    return client, scopes


def _listed_root(root: Path, users: int) -> None:
    """``users`` scopes as the layout holds them (directory and ``scope.json``; no repo): what the
    picker lists."""
    from reverie.storage.scopes import SCOPE_FILE, Scope, ScopeRoot

    layout = ScopeRoot(root)
    for n in range(users):
        scope = Scope(f"user-{n}")
        marker = layout.path(scope) / SCOPE_FILE
        marker.parent.mkdir(parents=True)
        marker.write_text(json.dumps({"user": scope.user, "agent": None}))


def _alternate(  # type: ignore[no-untyped-def]
    page, floor, repeat: int
) -> tuple[list[float], list[float]]:
    import time

    pages, floors = [], []
    for fn in (page, floor):
        fn()  # warm-up
    for _ in range(repeat):
        t0 = time.perf_counter()
        response = page()
        pages.append(time.perf_counter() - t0)
        assert response.status_code == 200, response.text[:300]
        t0 = time.perf_counter()
        floor()
        floors.append(time.perf_counter() - t0)
    return pages, floors


def _full(limit: int, label: str) -> str:
    """A memory file at its budget: a heading and ``- `` lines up to ``limit`` characters."""
    lines = [f"# {label}", ""]
    n = 0
    while sum(len(x) + 1 for x in lines) + 80 < limit:
        lines.append(
            f"- {label} fact {n}: the user mentioned item {n} in a conversation about the project"
        )
        n += 1
    return "\n".join(lines) + "\n"


def _walk_filter(memory, match) -> list[str]:  # type: ignore[no-untyped-def]
    """The filter as ``GitStore.log`` ran it before the catalog: a walk from HEAD reading every
    commit (the peer of the filter rows)."""
    from reverie.gitstore.queries import walk

    git = memory.runtime.git
    with git.reading() as repo:
        store = repo.objects
        head = git._query_head(repo)
        return [c.id.decode() for c in walk(store, head) if match(store, c)]


def _changed_lines(store, commit, paths) -> str:  # type: ignore[no-untyped-def]
    from collections import Counter

    from reverie.gitstore.objects import read_blob
    from reverie.gitstore.queries import changed_paths

    parts = []
    for old_id, new_id in changed_paths(store, commit, paths).values():
        old = Counter((read_blob(store, old_id) or b"").decode().splitlines())
        new = Counter((read_blob(store, new_id) or b"").decode().splitlines())
        parts += list((new - old).elements()) + list((old - new).elements())
    return "\n".join(parts).lower()


def _filter_results(  # type: ignore[no-untyped-def]
    ctx: Context, memory, client, commits: int, repeat: int
) -> list[Result]:
    import time
    from datetime import date

    from reverie.gitstore import catalog
    from reverie.gitstore.objects import commit_datetime
    from reverie.gitstore.trailers import KIND, split_message
    from reverie.ui.app import PAGE_SIZE

    paths = ["SOUL.md", "USER.md", "memory/MEMORY.md"]
    middle = 1_760_000_000 + commits // 2 * 60  # bench.gitstore: one commit a minute
    day = date.fromtimestamp(middle).isoformat()
    needle = f"(rev {commits // 2})"

    def kind_of(c) -> str:  # type: ignore[no-untyped-def]
        return split_message(c.message.decode())[2].get(KIND, "")

    cases = [
        (
            "a rare kind (init: 1 commit, the oldest)",
            {"kind": "init"},
            lambda store, c: kind_of(c) == "init",
        ),
        (
            "a file only the oldest commit changed (USER.md)",
            {"path": "USER.md"},
            lambda store, c: "USER.md" in _changed_paths(store, c, paths),
        ),
        (
            f"a text two commits changed ({needle!r})",
            {"text": needle},
            lambda store, c: (
                needle
                in (
                    c.message.decode().split("\n", 1)[0].lower()
                    + "\n"
                    + _changed_lines(store, c, paths)
                )
            ),
        ),
        (
            f"one day ({day}: 1,440 commits)",
            {"since": day, "until": day},
            lambda store, c: commit_datetime(c).date().isoformat() == day,
        ),
    ]
    out = []
    peer_rounds = 3 if ctx.quick else 5
    for label, params, match in cases:
        cold = []
        for _ in range(3):
            catalog._catalogs.clear()
            t0 = time.perf_counter()
            response = client.get("/timeline", params=params)
            cold.append(time.perf_counter() - t0)
            assert response.status_code == 200, response.text[:300]
        pages = []
        client.get("/timeline", params=params)  # warm-up
        for _ in range(repeat):
            t0 = time.perf_counter()
            response = client.get("/timeline", params=params)
            pages.append(time.perf_counter() - t0)
        walked = []
        for _ in range(peer_rounds):
            t0 = time.perf_counter()
            found = _walk_filter(memory, match)
            walked.append(time.perf_counter() - t0)
        shown = response.text.count('<tr>\n    <td><a href="')
        assert shown == min(len(found), PAGE_SIZE), (label, shown, len(found))
        name = f"Timeline filtered by {label}, of {commits:,} commits"
        out.append(
            Result(
                "ui",
                name,
                stats_of(pages),
                stats_of(walked),
                f"the same filter by walking the log ({peer_rounds} rounds)",
                target="≤ 100 ms",
                note=f"{len(found)} matching; first request of a process "
                f"{stats_of(cold).median * 1000:.0f} ms (3 rounds, catalogs emptied)",
            )
        )
    return out


def _changed_paths(store, commit, paths) -> dict:  # type: ignore[no-untyped-def, type-arg]
    from reverie.gitstore.queries import changed_paths

    return changed_paths(store, commit, paths)


def run(ctx: Context) -> list[Result]:
    import reverie
    from reverie.ui.app import PAGE_SIZE
    from reverie.ui.views import _shown

    commits = 1_000 if ctx.quick else 10_000
    repeat = 15 if ctx.quick else 60
    src = cached_workspace(ctx, commits)
    root = ctx.tmpdir("ui-") / "ws"
    shutil.copytree(src, root, symlinks=True)
    memory = reverie.open(root)
    client = _client(memory)
    try:
        newest = memory.log(limit=1)[0].sha
        deep = memory.log(limit=1, start=f"HEAD~{commits - PAGE_SIZE - 1}")[
            0
        ].sha  # the last full page
        first, first_floor = _alternate(
            lambda: client.get("/timeline"), lambda: memory.log(limit=PAGE_SIZE + 1), repeat
        )
        last, last_floor = _alternate(
            lambda: client.get(f"/timeline?start={deep}"),
            lambda: memory.log(limit=PAGE_SIZE + 1, start=deep),
            repeat,
        )
        filters = _filter_results(ctx, memory, client, commits, repeat)
        show, show_floor = _alternate(
            lambda: client.get(f"/commit/{newest}"),
            lambda: (memory.show(newest), memory.history(since=0, limit=3)),
            repeat,
        )

        cfg = memory.config.dream
        for rel, limit, label in (
            ("SOUL.md", cfg.soul_max_chars, "Soul"),
            ("USER.md", cfg.user_max_chars, "User"),
            ("memory/MEMORY.md", cfg.memory_max_chars, "Memory"),
        ):
            (root / rel).write_text(_full(limit, label))
        memory.runtime.git.commit("bench: memory files at their budgets", kind="manual")
        lines = sum(len(memory.read(rel).splitlines()) for rel in reverie.MEMORY_FILES)

        def reads():
            return ([memory.read(r) for r in reverie.MEMORY_FILES], memory.status())

        full, full_floor = _alternate(lambda: client.get("/memory"), reads, repeat)
        cold, cold_floor = _alternate(
            lambda: (_shown.cache_clear(), client.get("/memory"))[1], reads, repeat
        )
    finally:
        client.__exit__(None, None, None)
        memory.close()
    floor = "the page's Memory calls, same rounds"
    return (
        filters
        + _root_results(ctx, repeat)
        + [
            Result(
                "ui",
                f"Timeline, newest page ({PAGE_SIZE} of {commits:,} commits)",
                stats_of(first),
                stats_of(first_floor),
                floor,
                target="≤ 200 ms",
            ),
            Result(
                "ui",
                f"Timeline, oldest full page ({commits - PAGE_SIZE:,} commits back)",
                stats_of(last),
                stats_of(last_floor),
                floor,
                target="≤ 200 ms",
            ),
            Result(
                "ui",
                "a commit's page (diff, trailers, its batch's entries)",
                stats_of(show),
                stats_of(show_floor),
                floor,
                target="≤ 200 ms",
            ),
            Result(
                "ui",
                f"Memory screen, the three files at their budgets ({lines} lines)",
                stats_of(full),
                stats_of(full_floor),
                floor,
                target="≤ 200 ms",
            ),
            Result(
                "ui",
                "the same, first load (no line's rendering cached)",
                stats_of(cold),
                stats_of(cold_floor),
                floor,
                target="≤ 200 ms",
            ),
        ]
    )


def _root_results(ctx: Context, repeat: int) -> list[Result]:
    import reverie
    from reverie.storage.scopes import Scope, ScopeRoot

    out = []
    for users in (10, 2_000 if ctx.quick else 20_000):
        root = ctx.tmpdir("ui-root-") / "root"
        _listed_root(root, users)
        client, scopes = _root_client(root)
        listing = lambda: list(islice(ScopeRoot(root).scopes(), 51))  # noqa: E731
        try:
            page, floor = _alternate(lambda: client.get("/"), listing, repeat)
        finally:
            client.__exit__(None, None, None)
            scopes.close()
        out.append(
            Result(
                "ui",
                f"user picker, root of {users:,} users (50 listed)",
                stats_of(page),
                stats_of(floor),
                "ScopeRoot.scopes(), first 51",
                target="≤ 200 ms",
            )
        )
    root = ctx.tmpdir("ui-root-") / "root"
    names = []
    for user in ("alice", "bob"):
        with reverie.open(root=root, user=user) as memory:
            memory.init()
            memory.remember(f"{user} lives in Berlin")
        names.append(Scope(user).name)
    kept, kept_scopes = _root_client(root)
    cold, cold_scopes = _root_client(root, size=1)
    turn = iter(range(10**9))
    try:
        warm_page, cold_page = _alternate(
            lambda: kept.get(f"/s/{names[0]}/memory"),
            lambda: cold.get(f"/s/{names[next(turn) % 2]}/memory"),
            repeat,
        )
    finally:
        for client, scopes in ((kept, kept_scopes), (cold, cold_scopes)):
            client.__exit__(None, None, None)
            scopes.close()
    return out + [
        Result(
            "ui",
            "a scope's Memory screen, the scope open",
            stats_of(warm_page),
            stats_of(cold_page),
            "the same, the scope opened for the request",
            target="≤ 200 ms",
        )
    ]
