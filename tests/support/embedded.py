"""Reverie inside a real web application, under load (run by tests/test_embedded_stress.py for a
short run and by bench/embedded.py for the long ones; not collected).

``serve``: a Starlette app under uvicorn on 127.0.0.1 serving ONE ``Memory`` to synchronous
endpoints (Starlette runs them in its thread pool) and asynchronous ones (the ``a…`` verbs) at once,
with a ticker on its event loop measuring how late it wakes (``/lag``). ``append``: a second process
appending to history through the store for a while. ``load``: 64 concurrent HTTP clients on the app
for a while. ``check``: what must hold afterwards. ``run``: all of it, with a CLI ``reverie dream``
looping beside, returning a report.

usage: python embedded.py serve <workspace>              prints "port N", serves until SIGTERM
       python embedded.py append <workspace> <seconds>   prints a JSON list of the texts appended
       python embedded.py run <workspace> <seconds>      prints the report as JSON
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

MEM = "memory/MEMORY.md"
CLIENTS = 64
CITIES = ("Lisbon", "Porto", "Berlin", "Lyon", "Oslo", "Madrid", "Vienna", "Krakow")
JOBS = ("nurse", "teacher", "pilot", "baker", "librarian")
#: The workspace's config: budgets wide enough that Dream's lifecycle archives none of the lines the
#: load appends (the check then knows where each must be), a small window so conversations
#: consolidate.
CONFIG = {
    "agents": {
        "defaults": {
            "contextWindowTokens": 4_096,
            "maxTokens": 512,
            "dream": {"memoryMaxChars": 2_000_000, "userMaxChars": 200_000},
        }
    }
}


# -- the app ---------------------------------------------------------------------------------------
def make_app(root: Path) -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    import reverie
    from reverie.errors import EditConflictError, ReverieError

    memory = reverie.open(root)
    lags: list[float] = []

    def answer(fn: Any) -> Any:
        def endpoint(request: Request) -> JSONResponse:  # sync: Starlette's thread pool runs it
            try:
                return JSONResponse(fn(request.query_params))
            except ReverieError as exc:
                return JSONResponse({"error": type(exc).__name__, "message": str(exc)}, 409)

        return endpoint

    def answer_async(fn: Any) -> Any:
        async def endpoint(request: Request) -> JSONResponse:
            try:
                return JSONResponse(await fn(request.query_params))
            except ReverieError as exc:
                return JSONResponse({"error": type(exc).__name__, "message": str(exc)}, 409)

        return endpoint

    def append(q: Any) -> dict[str, Any]:
        line = q["line"]
        for tries in range(1, 101):
            text = memory.read(MEM)
            try:
                memory.write(MEM, text + line + "\n", base=reverie.content_id(text))
            except EditConflictError:
                continue
            return {"line": line, "tries": tries}
        raise RuntimeError(f"{line}: 100 conflicts in a row")

    async def aappend(q: Any) -> dict[str, Any]:
        line = q["line"]
        for tries in range(1, 101):
            text = await memory.aread(MEM)
            try:
                await memory.awrite(MEM, text + line + "\n", base=reverie.content_id(text))
            except EditConflictError:
                continue
            return {"line": line, "tries": tries}
        raise RuntimeError(f"{line}: 100 conflicts in a row")

    async def arecord(q: Any) -> dict[str, Any]:
        msg = {"role": "user", "content": q["text"]}
        await memory.arecord(q["session"], [msg])
        return {"text": q["text"]}

    def hits(found: list[Any]) -> dict[str, Any]:
        return {"hits": len(found)}

    routes = [
        Route("/sync/remember", answer(lambda q: {"cursor": memory.remember(q["text"]).cursor})),
        Route("/sync/recall", answer(lambda q: hits(memory.recall(q["q"])))),
        Route("/sync/append", answer(append)),
        Route("/sync/log", answer(lambda q: {"n": len(memory.log(limit=20))})),
        Route("/sync/status", answer(lambda q: {"pending": memory.status().pending})),
        Route("/sync/why", answer(lambda q: {"n": len(memory.why(q["q"]))})),
        Route(
            "/async/remember",
            answer_async(lambda q: _cursor(memory.aremember(q["text"]))),
        ),
        Route("/async/recall", answer_async(lambda q: _hits(memory.arecall(q["q"])))),
        Route("/async/append", answer_async(aappend)),
        Route("/async/record", answer_async(arecord)),
        Route("/async/context", answer_async(lambda q: _length(memory.acontext()))),
        Route("/lag", answer_async(lambda q: _lag(lags))),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        done = asyncio.Event()

        async def tick() -> None:
            while not done.is_set():
                before = time.perf_counter()
                await asyncio.sleep(0.005)
                lags.append(time.perf_counter() - before - 0.005)

        ticker = asyncio.create_task(tick())
        try:
            yield
        finally:
            done.set()
            await ticker
            memory.close()
            print("stopped cleanly", file=sys.stderr, flush=True)

    return Starlette(routes=routes, lifespan=lifespan)


async def _cursor(call: Any) -> dict[str, Any]:
    return {"cursor": (await call).cursor}


async def _hits(call: Any) -> dict[str, Any]:
    return {"hits": len(await call)}


async def _length(call: Any) -> dict[str, Any]:
    return {"chars": len(await call)}


async def _lag(lags: list[float]) -> dict[str, Any]:
    return {"lag": lags[:]}


def serve(root: Path) -> None:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(2048)  # clients that connect before uvicorn accepts wait in the backlog
    print(f"port {sock.getsockname()[1]}", flush=True)
    # keep-alive past any run: uvicorn closes a connection idle for 5 s by default, and a client
    # sending on it as it closes gets a transport error (HTTP's race, not the app's); the load's
    # errors are then the app's own
    config = uvicorn.Config(
        make_app(root), log_level="warning", lifespan="on", timeout_keep_alive=3600
    )
    uvicorn.Server(config).run(sockets=[sock])


# -- the other process -----------------------------------------------------------------------------
def append_for(root: Path, seconds: float) -> list[str]:
    """A second process appending history through the store (its own locks, its own cursors)."""
    from reverie.storage.store import WorkspaceStore

    store = WorkspaceStore(root)
    texts = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        n = len(texts)
        text = (
            f"User: I work as a {JOBS[n // 10 % len(JOBS)]} now."
            if n % 10 == 0  # a fact now and then: the CLI's Dream runs commit while the load runs
            else f"User: side process note {uuid.uuid4().hex[:12]}."
        )
        store.append_history(text, session_key="side")
        texts.append(text)
        time.sleep(0.01)
    return texts


# -- the load --------------------------------------------------------------------------------------
ROUTES = (
    ("/sync/remember", 3),
    ("/async/remember", 3),
    ("/sync/recall", 4),
    ("/async/recall", 4),
    ("/sync/append", 2),
    ("/async/append", 2),
    ("/async/record", 2),
    ("/sync/log", 1),
    ("/sync/status", 1),
    ("/sync/why", 1),
    ("/async/context", 1),
)


async def load(port: int, seconds: float, clients: int = CLIENTS) -> dict[str, Any]:
    """``clients`` concurrent clients for ``seconds``; what was acknowledged and what went wrong."""
    import httpx

    names = [r for r, w in ROUTES for _ in range(w)]
    acked: dict[str, list[str]] = {"remember": [], "append": [], "record": []}
    errors: list[str] = []
    calls: Counter[str] = Counter()
    deadline = time.monotonic() + seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(
        base_url=f"http://127.0.0.1:{port}", limits=limits, timeout=120
    ) as http:

        async def client(n: int) -> None:
            rng = random.Random(n)
            while time.monotonic() < deadline:
                route = rng.choice(names)
                tag = uuid.uuid4().hex[:12]
                fact = rng.random() < 0.15  # now and then a fact Dream writes to USER.md
                params = {
                    "text": f"User: I live in {rng.choice(CITIES)}."
                    if fact
                    else f"User: note {tag} from client {n}.",
                    "q": rng.choice(["note client", "Lisbon", "side process", "task"]),
                    "line": f"- Line {tag} from client {n}.",
                    "session": f"web:{n % 8}",
                }
                try:
                    r = await http.get(route, params=params)
                except httpx.HTTPError as exc:
                    errors.append(f"{route}: {type(exc).__name__}: {exc}")
                    continue
                calls[route] += 1
                if r.status_code != 200:
                    errors.append(f"{route}: {r.status_code} {r.text[:300]}")
                    continue
                if route.endswith("remember"):
                    acked["remember"].append(params["text"])
                elif route.endswith("append"):
                    acked["append"].append(params["line"])
                elif route.endswith("record"):
                    acked["record"].append(params["text"])

        await asyncio.gather(*(client(n) for n in range(clients)))
        lag = (await http.get("/lag")).json()["lag"]
    return {"acked": acked, "errors": errors, "calls": dict(calls), "lag": lag}


# -- the checks ------------------------------------------------------------------------------------
def check(root: Path, acked: dict[str, list[str]], side: list[str]) -> list[str]:
    """What must hold after the run: every acknowledged entry, line and message exactly once, every
    tracked file committed, ``git fsck --strict`` clean. Returns the problems (none is the goal)."""
    import reverie

    problems = []
    with reverie.open(root) as memory:
        history = Counter(e.content for e in memory.history())
        for text, times in Counter(acked["remember"] + side).items():  # facts repeat; notes do not
            if history[text] != times:
                problems.append(f"history holds {text!r} {history[text]} times, not {times}")
        cursors = [e.cursor for e in memory.history()]
        if len(cursors) != len(set(cursors)):
            problems.append("a history cursor is issued twice")
        text = memory.read(MEM)
        for line in acked["append"]:
            if text.count(line + "\n") != 1:
                problems.append(f"MEMORY.md holds {line!r} {text.count(line + chr(10))} times")
        sessions = Counter()
        for path in (root / "sessions").glob("*.jsonl"):
            for raw in path.read_bytes().splitlines():
                with contextlib.suppress(ValueError):
                    content = json.loads(raw).get("content")
                    if isinstance(content, str):
                        sessions[content] += 1
        for message, times in Counter(acked["record"]).items():
            if sessions[message] != times:
                problems.append(
                    f"the sessions hold {message!r} {sessions[message]} times, not {times}"
                )
        dirty = memory.runtime.git.dirty()
        if dirty:
            problems.append(f"not committed: {dirty}")
        git_dir = memory.runtime.git.git_dir  # .git, or a separate one inside another repository
    fsck = subprocess.run(
        ["git", f"--git-dir={git_dir}", "fsck", "--strict"], capture_output=True, text=True
    )
    if fsck.returncode != 0:
        problems.append(f"git fsck: {fsck.stderr.strip()[:500]}")
    return problems


# -- all of it -------------------------------------------------------------------------------------
def prepare(root: Path, entries: int = 2_000) -> None:
    """A workspace with memory, versions and history for the run."""
    import reverie
    from reverie.storage.history import HistoryEntry
    from reverie.storage.store import WorkspaceStore

    root.mkdir(parents=True, exist_ok=True)
    (root / "reverie.json").write_text(json.dumps(CONFIG))
    with reverie.open(root) as memory:
        memory.init()
        memory.write(MEM, memory.read(MEM) + "- The project is called Heron.\n")
        memory.remember("User: I live in Lisbon and I prefer Postgres over SQLite.")
        memory.dream()
        last = memory.history()[-1].cursor
    with open(root / "memory" / "history.jsonl", "ab") as f:
        for c in range(last + 1, last + entries + 1):
            text = f"User: earlier task {c} about Lisbon and coffee {c % 7}."
            f.write(HistoryEntry(c, "2026-01-01 10:00", text, "old").to_json())
    # already dreamed: searchable history, and the load's own facts are what Dream reads next (the
    # first of them pending already, so the CLI's first run commits while the load runs)
    store = WorkspaceStore(root)
    store.set_dream_cursor(last + entries)
    store.append_history("User: I moved to Porto and I work as a nurse.", session_key="old")


def run(root: Path, seconds: float) -> dict[str, Any]:
    """The app (one Memory, sync and async endpoints), 64 clients, a CLI dream looping and a second
    process appending history, all for ``seconds``; then the checks. The report says what ran,
    what failed and the app's event-loop lag."""
    here = Path(__file__).resolve()
    env = {
        **os.environ,
        "PYTHONPATH": str(here.parent.parent) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    }
    server = subprocess.Popen(
        [sys.executable, str(here), "serve", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert server.stdout is not None
    port = int(server.stdout.readline().split()[1])
    _ready(port)
    side = subprocess.Popen(
        [sys.executable, str(here), "append", str(root), str(seconds)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    stop = threading.Event()
    dreams: list[tuple[int, str]] = []

    def dream_loop() -> None:
        while not stop.is_set():
            proc = subprocess.run(
                [sys.executable, "-m", "reverie", "-w", str(root), "dream", "--json"],
                capture_output=True,
                text=True,
                env=env,
            )
            dreams.append((proc.returncode, proc.stdout[:300] + proc.stderr[-400:]))

    dreamer = threading.Thread(target=dream_loop)
    dreamer.start()
    started = time.monotonic()
    try:
        out = asyncio.run(load(port, seconds))
    finally:
        stop.set()
        dreamer.join()
        side_out, side_err = side.communicate(timeout=120)
        server.send_signal(signal.SIGTERM)
        server_err = server.communicate(timeout=120)[1]
    elapsed = time.monotonic() - started
    errors = list(out["errors"])
    # uvicorn re-raises the SIGTERM it shut down on: -15 after its lifespan ended is a clean stop
    clean = server.returncode in (0, -signal.SIGTERM) and "stopped cleanly" in server_err
    if not clean or "Traceback" in server_err:
        errors.append(f"the server exited {server.returncode}: {server_err[-2000:]}")
    if side.returncode != 0:
        errors.append(f"the appending process exited {side.returncode}: {side_err[-2000:]}")
    errors += [f"reverie dream exited {rc}: {tail}" for rc, tail in dreams if rc != 0]
    dream_states = Counter(_status(tail) for _rc, tail in dreams)
    import reverie

    with reverie.open(root) as memory:
        dream_commits = len(memory.log(limit=10_000, kind="dream"))
    texts = json.loads(side_out) if side.returncode == 0 else []
    problems = check(root, out["acked"], texts)
    busy = [e for e in errors + [server_err] if "busy" in e.lower()]
    lag = sorted(out["lag"])
    return {
        "seconds": round(elapsed, 1),
        "clients": CLIENTS,
        "calls": sum(out["calls"].values()),
        "by_route": out["calls"],
        "acknowledged": {k: len(v) for k, v in out["acked"].items()} | {"side": len(texts)},
        "dream_runs": dict(dream_states),
        "dream_commits": dream_commits,
        "errors": errors[:50],
        "error_count": len(errors),
        "busy": len(busy),
        "problems": problems[:50],
        "lag_ms": {
            "p50": _pct(lag, 0.5) * 1e3,
            "p99": _pct(lag, 0.99) * 1e3,
            "max": (lag[-1] if lag else 0.0) * 1e3,
        },
        "server_stderr": server_err[-2000:],
    }


def _ready(port: int, timeout: float = 60.0) -> None:
    """Wait until the app answers (its imports and lifespan done), so the load measures the app."""
    import httpx

    deadline = time.monotonic() + timeout
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/lag", timeout=5).raise_for_status()
            return
        except httpx.HTTPError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _status(out: str) -> str:
    for status in ("already-running", "nothing-to-do", "no-change", "ok", "failed", "rejected"):
        if f'"status": "{status}"' in out:
            return status
    return "?"


def _pct(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(q * len(values)))] if values else 0.0


if __name__ == "__main__":
    verb, where = sys.argv[1], Path(sys.argv[2])
    if verb == "serve":
        serve(where)
    elif verb == "append":
        print(json.dumps(append_for(where, float(sys.argv[3]))))
    elif verb == "run":
        print(json.dumps(run(where, float(sys.argv[3])), indent=1))
    else:
        raise SystemExit(__doc__)
