"""Crash-consistency harness: run the whole pipeline, SIGKILL it after each step (or at random
moments), check what a restart finds.

Run as ``python -m tests.support.crash_harness WORKDIR --every-step --seed S`` (or ``--rounds N``
for N kills at random moments). The process imports Reverie once, then works as a fork server: each
round forks a *worker* that appends history entries, appends and archives session messages (the
Consolidator's ``/new``), runs Dream on the offline engine, restores Dream commits and makes a
person's edits — journalling every acknowledged result outside the workspace — and kills it with
SIGKILL. A fresh forked *checker* then opens the workspace as a restart would (GitStore recovery,
Dream reconciliation) and checks the invariants below; any violation ends the run with exit 1 and a
JSON report naming the step. Forking (instead of a new interpreter per round) keeps a round to a
fraction of a second. A SIGKILLed process loses nothing the kernel already has, which is the
failure this models (not power loss, which the fsyncs are for).

Where to kill (`Steps`): the worker's audit hook names every change it makes to the disk.
``--every-step`` kills a worker right after the first step no round has killed after yet, so each
distinct step is followed by a kill exactly once, until a worker completes every operation
``--quiet`` times without meeting a new step. Random kills land on the same steps (between two
changes the disk does not change), only unevenly: 200 of them reached about a third of the steps
``--every-step`` kills after, in five times its time. ``WORKDIR/steps.txt`` lists the steps a run
killed after.

Invariants after every restart:
1. every history append that returned a cursor is present exactly once, with its content; cursors
   are unique and strictly increasing in file order;
2. the memory files are valid UTF-8 and equal HEAD's version, or a person's edit the next commit
   records;
3. git's index is HEAD's tree (``git diff --cached`` names no file) and ``git fsck --full`` (the
   git CLI) is clean;
4. ``.dream_cursor`` is never behind the newest Dream commit's ``Reverie-Cursor`` (a committed batch
   is never replayed) nor past the log's last cursor, and every entry it has passed was consumed by
   a committed Dream batch, a dead-letter record, a completed run, or a run killed in flight (never
   skipped unprocessed);
5. every session file loads.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import mmap
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson

from reverie.storage.fsutil import RENAME2_EVENT

CITIES = ["Porto", "Lisbon", "Berlin", "Oslo", "Kyoto", "Quito", "Hanoi", "Tunis"]
LIKES = ["green tea", "dark mode", "short answers", "Rust", "cycling", "jazz", "vim", "long walks"]
TECH = ["PostgreSQL", "SQLite", "Redis", "Kafka", "DuckDB", "NATS", "Temporal", "ClickHouse"]
FILES = ("SOUL.md", "USER.md", "memory/MEMORY.md")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Journal:
    """Append-only record of acknowledged results, outside the workspace (a torn last line is
    tolerated)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def open(self) -> None:
        self.fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def jot(self, **record: Any) -> None:
        _steps.change("journal", str(record["op"]), "")
        os.write(self.fd, orjson.dumps(record) + b"\n")

    def read(self) -> list[dict[str, Any]]:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return []
        out = []
        for line in raw.splitlines():
            try:
                out.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                pass  # the worker was killed mid-write
        return out


# -- steps: every place the worker changes the disk ------------------------------------------------
#: What changes the disk, as Python's audit events name it (``os.replace`` raises ``os.rename``,
#: ``os.unlink`` ``os.remove``; Reverie's renameat2 through ctypes raises ``RENAME2_EVENT``); an
#: ``open`` counts when its flags can write. ``os.write`` and ``fsync`` raise no event: they change
#: what a file just opened for writing holds, so they belong to that step.
_CHANGES = {
    "os.rename",
    RENAME2_EVENT,
    "os.remove",
    "os.mkdir",
    "os.rmdir",
    "os.truncate",
    "os.link",
    "os.symlink",
}
#: The events whose second argument is the path changed (the first is the source).
_TWO_PATHS = ("os.rename", RENAME2_EVENT, "os.link", "os.symlink")
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_VARYING = [
    (re.compile(r"objects/[0-9a-f]{2}(/[0-9a-f]{38})?"), "objects/#"),
    (re.compile(r"\.tmp-[^/]*$|tmp[a-z0-9_]{8}"), ".tmp#"),
    (re.compile(r"\.swap-[^/]*$"), ".swap#"),  # fsutil.replace_if_unchanged's temp file
    (
        re.compile(r"memory/(\.?)\d{4}-\d\d-\d\d-[^/]*\.md"),
        r"memory/\1DATE-SLUG.md",
    ),  # a dated note
    (re.compile(r"[0-9a-f]{12,}|\d+"), "#"),
]


class Steps:
    """Where the worker is: the operation it runs and each change it makes to the disk, named by the
    operation, the kind of change, the path's shape (object ids, temp names and numbers as ``#``)
    and the line of Reverie's code that made it, with ``#n`` for its n-th time in one operation (up
    to ``REPEATS``).

    ``targets`` (every-step mode): the steps no round has killed after yet. The worker is SIGKILLed
    at the first change after one of them completed, so the disk holds that step and everything
    before it, and nothing after; the step's name goes to ``report_fd`` first. ``shared`` (random
    mode): the last step begun, for the parent to read after its kill."""

    REPEATS = 2

    def __init__(self) -> None:
        self.op = "start"
        self.counts: dict[str, int] = {}
        self.covered: set[str] | None = None
        self.pending: str | None = None
        self.report_fd = -1
        self.shared: mmap.mmap | None = None
        self.root = ""
        self.package = ""

    def begin(self, op: str) -> None:
        self.op = op
        self.counts.clear()

    def audit(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "open":
            path, _mode, flags = args
            if isinstance(path, int) or not flags & _WRITE_FLAGS:
                return
        elif event not in _CHANGES:
            return
        else:
            path = args[1] if event in _TWO_PATHS else args[0]
        if isinstance(path, int):  # os.ftruncate(fd)
            path = os.readlink(f"/proc/self/fd/{path}")
        path = os.path.abspath(os.fsdecode(path))
        if not path.startswith(self.root):
            return  # the interpreter's own files, /tmp: not the workspace
        self.change(event, os.path.relpath(path, self.root), self._site())

    def _site(self) -> str:
        frame = sys._getframe(2)
        while frame is not None and not frame.f_code.co_filename.startswith(self.package):
            frame = frame.f_back  # type: ignore[assignment]
        if frame is None:
            return "?"
        return f"{frame.f_code.co_filename[len(self.package) :]}:{frame.f_lineno}"

    def change(self, kind: str, path: str, site: str) -> None:
        for pattern, replacement in _VARYING:
            path = pattern.sub(replacement, path)
        label = f"{self.op}: {kind} {path} at {site}"
        n = self.counts[label] = self.counts.get(label, 0) + 1
        if n > 1:
            label += f" #{min(n, self.REPEATS)}"
        if self.pending is not None:
            os.write(self.report_fd, self.pending.encode())
            os.kill(os.getpid(), signal.SIGKILL)
        if self.covered is not None and label not in self.covered:
            self.pending = label
        if self.shared is not None:
            data = label.encode()[:4000]
            self.shared[:4] = len(data).to_bytes(4, "little")
            self.shared[4 : 4 + len(data)] = data

    def last(self) -> str:
        assert self.shared is not None
        size = int.from_bytes(self.shared[:4], "little")
        return self.shared[4 : 4 + size].decode()


_steps = Steps()


def _fact(rng: random.Random) -> tuple[str, bool]:
    """A history entry, and whether Dream must change memory for it (a decision about a
    never-seen service)."""
    if rng.random() < 0.6:
        return (
            f"- [durable] We decided to use {rng.choice(TECH)} for service s{rng.randrange(10**9)}",
            True,
        )
    return (
        rng.choice(
            [
                f"- [permanent] The user lives in {rng.choice(CITIES)}",
                f"- [correction] The user moved to {rng.choice(CITIES)}",
                f"- [durable] The user likes {rng.choice(LIKES)}",
                (
                    f"- [durable] We decided to use {rng.choice(TECH)} for project"
                    f" {rng.choice('ABCDEFGH')}"
                ),
                "- [durable] Always answer in English",
                f"- [ephemeral] The user had {rng.choice(LIKES)} today",
            ]
        ),
        False,
    )


# -- the worker: does everything the pipeline does, until it is killed -----------------------------
#: The worker's operations with their cumulative shares (a ``session`` turn starts afresh, ``/new``,
#: 30% of the time).
SHARES = (("append", 0.45), ("session", 0.60), ("dream", 0.85), ("restore", 0.93), ("manual", 1.0))
OPERATIONS = (*(name for name, _ in SHARES), "new")


async def _work(ws: Path, journal: Journal, rng: random.Random, until: int | None) -> None:
    from reverie.memory.runtime import Runtime

    rt = Runtime(ws)
    store, git, sessions, dream = rt.store, rt.git, rt.sessions, rt.dream
    session = sessions.get_or_create("cli:crash")
    done = dict.fromkeys(OPERATIONS, 0)
    while until is None or min(done.values()) < until:
        roll = rng.random()
        op = next(name for name, upto in SHARES if roll < upto)
        _steps.begin(op)
        if op == "append":
            content, must_change = _fact(rng)
            cursor = store.append_history(content)
            journal.jot(op="append", cursor=cursor, content=content, must_change=must_change)
        elif op == "session":
            for role, text in (
                ("user", f"I live in {rng.choice(CITIES)} and I like {rng.choice(LIKES)}."),
                ("assistant", "Noted."),
            ):
                sessions.append(session, {"role": role, "content": text})
            if rng.random() < 0.3:
                _steps.begin("new")
                journal.jot(op="new-start")
                await rt.consolidator.new_session(session)
                journal.jot(op="new-end")
                done["new"] += 1
        elif op == "dream":
            start = store.dream_cursor()
            journal.jot(
                op="dream-start",
                cursor=start,
                last=store.last_cursor(),
                batch=rt.config.dream.max_batch_size,
            )
            result = await dream.run()
            journal.jot(
                op="dream-end",
                status=result.status,
                first=result.first,
                last=result.last,
                commit=result.commit,
            )
        elif op == "restore":
            dreams = git.log(limit=1, kind="dream")
            if dreams:
                res = git.restore(dreams[0].sha)
                journal.jot(op="restore", of=dreams[0].sha, commit=res.commit)
        else:
            rel = rng.choice(("USER.md", "memory/MEMORY.md"))
            text = store.workspace.read(rel) + f"- hand-written note {rng.randrange(10**6)}\n"
            journal.jot(op="manual", path=rel, digest=_digest(text))
            store.workspace.write(rel, text)
        done[op] += 1


def _worker(ws: Path, journal: Journal, seed: int, until: int | None) -> None:
    import reverie

    journal.open()
    _steps.root = str(ws) + os.sep
    _steps.package = str(Path(reverie.__file__).parent) + os.sep
    sys.addaudithook(_steps.audit)  # this process only: the fork server and the checkers have none
    asyncio.run(_work(ws, journal, random.Random(seed), until))
    _steps.change("end", "", "")  # a new step completed by the last operation is killed after too


# -- the checker: a restart, then the invariants ---------------------------------------------------
def _check(ws: Path, journal: Journal) -> list[str]:
    from reverie.dream.deadletter import deadletter_path, read_dead_letters
    from reverie.gitstore import trailers as tr
    from reverie.memory.runtime import Runtime
    from reverie.storage.history import BadLine, HistoryEntry

    problems: list[str] = []
    records = journal.read()
    rt = Runtime(ws)
    git = rt.git  # GitStore.ensure(): crash recovery
    rt.dream.reconcile()

    # 1. history
    order: list[int] = []
    by_cursor: dict[int, list[str]] = {}
    raw = (
        rt.store.workspace.history_path.read_bytes()
        if rt.store.workspace.history_path.exists()
        else b""
    )
    for line in raw.splitlines():
        try:
            entry = HistoryEntry.from_json(line)
        except BadLine:
            continue
        order.append(entry.cursor)
        by_cursor.setdefault(entry.cursor, []).append(entry.content)
    if any(b <= a for a, b in zip(order, order[1:])):
        problems.append("history cursors are not strictly increasing in file order")
    for rec in records:
        if rec["op"] == "append":
            got = by_cursor.get(rec["cursor"], [])
            if got != [rec["content"]]:
                problems.append(
                    f"acknowledged cursor {rec['cursor']} appears {len(got)} time(s): {got[:2]}"
                )

    # 2. memory files
    manual = {r["digest"] for r in records if r["op"] == "manual"}
    head = git.head()
    for rel in FILES:
        data = (ws / rel).read_bytes() if (ws / rel).exists() else b""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            problems.append(f"{rel} is not valid UTF-8")
            continue
        at_head = git.file_at(head, rel) if head else None
        if text != (at_head or "") and _digest(text) not in manual:
            problems.append(f"{rel} matches neither HEAD nor a person's edit")

    # 3. git: nothing staged (git's index is HEAD's tree: a cut between the branch's move and the
    # index's update is finished by recovery), and fsck
    staged = subprocess.run(
        ["git", f"--git-dir={git.git_dir}", f"--work-tree={ws}", "diff", "--cached", "--name-only"],
        capture_output=True,
        text=True,
    )
    if staged.returncode != 0 or staged.stdout.strip():
        problems.append(f"git's index differs from HEAD: {staged.stdout.split()} {staged.stderr}")
    fsck = subprocess.run(
        ["git", f"--git-dir={git.git_dir}", "fsck", "--full", "--no-progress"],
        capture_output=True,
        text=True,
    )
    if fsck.returncode != 0 or "error" in fsck.stderr.lower():
        problems.append(f"git fsck failed: {fsck.stdout[-300:]} {fsck.stderr[-300:]}")

    # 4. the Dream cursor
    cursor = rt.store.dream_cursor()
    last = max(order, default=0)
    if cursor > last:
        problems.append(f".dream_cursor {cursor} is past the log's last cursor {last}")
    covered: set[int] = set()
    newest_committed = 0
    for info in git.log(limit=1_000_000, kind="dream"):
        span = tr.parse_batch(info.trailers.get(tr.BATCH))
        if span:
            covered.update(range(span[0], span[1] + 1))
            newest_committed = max(newest_committed, span[1])
    if cursor < newest_committed:
        problems.append(
            f".dream_cursor {cursor} is behind committed Dream batch ending at {newest_committed}"
        )
    for dead in read_dead_letters(deadletter_path(rt.store.workspace.memory_dir)):
        covered.update(range(dead.first, dead.last + 1))
    started: list[dict[str, Any]] = []
    for rec in records:
        if rec["op"] == "dream-start":
            started.append(rec)
        elif rec["op"] == "dream-end":
            started.pop() if started else None
            if rec["first"] is not None and rec["status"] in ("ok", "no-change", "dead-lettered"):
                covered.update(range(rec["first"], rec["last"] + 1))
    # A run killed in flight may have consumed its batch as "no change" (cursor moved, no commit) —
    # but only a batch in which no entry demanded a change; any other passed batch without a commit
    # was skipped.
    must_change = {r["cursor"] for r in records if r["op"] == "append" and r.get("must_change")}
    for rec in started:
        batch = range(rec["cursor"] + 1, min(rec["cursor"] + rec["batch"], rec["last"]) + 1)
        if not must_change.intersection(batch):
            covered.update(batch)
    skipped = [c for c in by_cursor if c <= cursor and c not in covered]
    if skipped:
        problems.append(
            f".dream_cursor {cursor} passed entries no run consumed: {sorted(skipped)[:10]}"
        )

    # 5. sessions
    for info in rt.sessions.list():
        if rt.sessions.load(info.path) is None:
            problems.append(f"session {info.path} does not load")
    return problems


def _fork(target: Any, *args: Any) -> int:
    pid = os.fork()
    if pid == 0:  # child: never return into the caller's frames
        code = 0
        try:
            target(*args)
        except SystemExit as exc:
            code = int(exc.code or 0)
        except BaseException:
            import traceback

            traceback.print_exc()
            code = 3
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    return pid


def _wait(pid: int, timeout: float) -> int | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.01)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("workdir", type=Path)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-delay", type=float, default=0.5)
    ap.add_argument(
        "--every-step",
        action="store_true",
        help="kill once after each distinct step (not at random moments)",
    )
    ap.add_argument(
        "--quiet",
        type=int,
        default=3,
        help=(
            "--every-step ends when a worker completes each operation this many times with no new"
            " step"
        ),
    )
    args = ap.parse_args(argv)

    # Warm the fork server: every module the pipeline uses, imported once. No thread may exist
    # when we fork. Not litellm: the pipeline runs on the offline engine, which never loads it.
    import reverie.consolidator  # noqa: E401,F401
    from reverie.dream.deadletter import read_dead_letters  # noqa: F401
    from reverie.memory.runtime import Runtime

    warm = Runtime(
        args.workdir / "warm"
    )  # a model call's one-time lazy set-up, paid once before forking
    warm.workspace.init()
    warm.store.append_history(_fact(random.Random(0))[0])
    asyncio.run(warm.dream.run())
    import threading

    assert threading.active_count() == 1, "a thread exists: forking would be unsafe"

    ws = args.workdir / "ws"
    ws.mkdir(parents=True, exist_ok=True)
    (ws / "reverie.json").write_text(
        '{"agents": {"defaults": {"contextWindowTokens": 4096, "maxTokens": 512}}}'
    )
    Runtime(ws).workspace.init()
    journal = Journal(args.workdir / "journal.jsonl")
    rng = random.Random(args.seed)
    if args.every_step:
        result = _every_step(ws, journal, rng, args.quiet)
    else:
        result = _random_kills(ws, journal, rng, args.rounds, args.max_delay)
    if "error" in result:
        print(orjson.dumps(result).decode())
        return 1
    steps = sorted(result.pop("steps"))
    (args.workdir / "steps.txt").write_text("".join(f"{step}\n" for step in steps))
    ops = [r["op"] for r in journal.read()]
    summary = {op: ops.count(op) for op in sorted(set(ops))}
    summary.update(result, steps=len(steps))
    print(orjson.dumps({"ok": True, "summary": summary}).decode())
    return 0


def _every_step(ws: Path, journal: Journal, rng: random.Random, quiet: int) -> dict[str, Any]:
    """Kill a worker after each step no round has killed after yet, until one completes every
    operation ``quiet`` times without meeting a new one."""
    _steps.covered = set()
    rounds = 0
    while True:
        read_end, write_end = os.pipe()
        _steps.report_fd = write_end
        pid = _fork(_worker, ws, journal, rng.randrange(2**31), quiet)
        os.close(write_end)
        code = _wait(pid, 120)
        with os.fdopen(read_end, "rb") as reported:
            step = reported.read().decode()
        if code == 0:
            break  # every operation ran ``quiet`` times and met no new step
        if code != -signal.SIGKILL or not step:
            return {"round": rounds, "error": f"the worker ended with {code} before a kill"}
        _steps.covered.add(step)
        print(step, file=sys.stderr) if os.environ.get("CRASH_HARNESS_TRACE") else None
        rounds += 1
        if (problem := _check_round(ws, journal, rounds, step)) is not None:
            return problem
    if (problem := _check_round(ws, journal, rounds, "the last worker's end")) is not None:
        return problem
    return {"rounds": rounds, "kills": rounds, "steps": _steps.covered}


def _random_kills(
    ws: Path, journal: Journal, rng: random.Random, rounds: int, max_delay: float
) -> dict[str, Any]:
    """Kill a worker at a random moment, ``rounds`` times; note the last step each one had begun."""
    _steps.shared = mmap.mmap(-1, 4096)  # MAP_SHARED: the worker's writes are seen here
    reached: set[str] = set()
    for round_no in range(rounds):
        pid = _fork(_worker, ws, journal, rng.randrange(2**31), None)
        time.sleep(rng.uniform(0.01, max_delay))
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            return {"round": round_no, "error": "the worker exited before it was killed"}
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        reached.add(_steps.last())
        if (problem := _check_round(ws, journal, round_no, _steps.last())) is not None:
            return problem
    return {"rounds": rounds, "kills": rounds, "steps": reached}


def _check_round(ws: Path, journal: Journal, round_no: int, step: str) -> dict[str, Any] | None:
    checker = _fork(lambda: sys.exit(_report(round_no, step, _check(ws, journal))))
    code = _wait(checker, 120)
    if code != 0:
        return {"round": round_no, "step": step, "error": f"checker exit {code}"}
    return None


def _report(round_no: int, step: str, problems: list[str]) -> int:
    if problems:
        print(orjson.dumps({"round": round_no, "step": step, "problems": problems}).decode())
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
