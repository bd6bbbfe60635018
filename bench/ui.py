"""``reverie ui``: server time of the Timeline on a 10,000-commit memory repo and of the Memory
screen at full budgets (goal ≤ 200 ms each).

    .venv/bin/python -m bench ui            # 10,000 commits
    .venv/bin/python -m bench ui --quick    # 1,000 commits, fewer repetitions

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

    from reverie.scopes import ScopeRoot
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
    """``users`` scopes as the layout holds them (directory and ``scope.json``; no repo): what the picker lists."""
    from reverie.scopes import SCOPE_FILE, Scope, ScopeRoot

    layout = ScopeRoot(root)
    for n in range(users):
        scope = Scope(f"user-{n}")
        marker = layout.path(scope) / SCOPE_FILE
        marker.parent.mkdir(parents=True)
        marker.write_text(json.dumps({"user": scope.user, "agent": None}))


def _alternate(page, floor, repeat: int) -> tuple[list[float], list[float]]:  # type: ignore[no-untyped-def]
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


def run(ctx: Context) -> list[Result]:
    import reverie
    from reverie.ui.app import PAGE_SIZE
    from reverie.ui.views import inline

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
        reads = lambda: ([memory.read(r) for r in reverie.MEMORY_FILES], memory.status())  # noqa: E731
        full, full_floor = _alternate(lambda: client.get("/memory"), reads, repeat)
        cold, cold_floor = _alternate(
            lambda: (inline.cache_clear(), client.get("/memory"))[1], reads, repeat
        )
    finally:
        client.__exit__(None, None, None)
        memory.close()
    floor = "the page's Memory calls, same rounds"
    return _root_results(ctx, repeat) + [
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


def _root_results(ctx: Context, repeat: int) -> list[Result]:
    import reverie
    from reverie.scopes import Scope, ScopeRoot

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
