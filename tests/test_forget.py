"""forget-user is complete and exclusive (issue 35 item 2), against a real redis-server: with a
fleet job dreaming the user at that moment, afterwards nothing of the user is left anywhere — not
in the root (files, names, tokens), not in the search index kept outside it, not in Redis — and the
job, when it wakes, writes nothing back."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from pathlib import Path

import pytest
from support.cli import invoke
from support.fleet import RedisServer, fleet_env
from support.fleet_fixtures import needs_redis

from reverie.llm import registry
from reverie.llm.types import ModelResponse
from reverie.storage.access import TokenFile
from reverie.storage.config import load_config
from reverie.storage.scopes import Scope, ScopeRoot
from reverie.storage.store import WorkspaceStore

pytestmark = [needs_redis, pytest.mark.usefixtures("no_process_left")]
pytest.importorskip("celery", reason="the `fleet` extra (celery, redis) is not installed")

SECRET = "alice-secret-7f3a"


class Gate:
    """A model (prefix ``gate``) that answers like the offline engine once the test opens it; the
    test knows when a run is waiting in it."""

    def __init__(self) -> None:
        self.waiting = threading.Event()
        self.open = threading.Event()

    async def __call__(self, request: registry.Request) -> ModelResponse:
        from reverie.llm.offline import respond

        self.waiting.set()
        for _ in range(3000):  # (no thread of its own: a cancelled run leaves none behind)
            if self.open.is_set():
                break
            await asyncio.sleep(0.02)
        resp = respond(request.messages, tools=request.tools, tool_choice=request.tool_choice)
        return ModelResponse(
            resp.content, resp.tool_calls, resp.finish_reason, resp.usage, request.model
        )


@pytest.fixture
def gate():
    model = Gate()
    registry.register("gate", model)
    yield model
    model.open.set()
    registry.unregister("gate")


def _env(root: Path, server: RedisServer, index: Path) -> dict[str, str]:
    env = {k: v for k, v in fleet_env(root, server).items() if k.startswith("REVERIE_")}
    env["REVERIE_AGENTS__DEFAULTS__DREAM__MODEL_OVERRIDE"] = "gate/offline"
    env["REVERIE_MEMORY__SEARCH__INDEX_DIR"] = str(index)
    env["REVERIE_FLEET__LEASE_SECONDS"] = "30"  # the job keeps its lease until forget takes it
    env["REVERIE_FLEET__HEARTBEAT_SECONDS"] = "0.2"
    return env


def _everything_in_redis(r) -> str:
    """Every key of the Redis and every value in it, as one text to search."""
    out = []
    for key in r.scan_iter(count=1000):
        kind = r.type(key)
        out.append(key)
        if kind == "string":
            out.append(str(r.get(key)))
        elif kind == "hash":
            out.extend(f"{k}={v}" for k, v in r.hgetall(key).items())
        elif kind == "zset":
            out.extend(r.zrange(key, 0, -1))
        elif kind == "list":
            out.extend(r.lrange(key, 0, -1))
        elif kind == "set":
            out.extend(r.smembers(key))
    return "\n".join(out)


def _everything_on_disk(*dirs: Path) -> str:
    """Every path and every file's text under ``dirs``."""
    out = []
    for d in dirs:
        for base, names, files in os.walk(d):
            out.extend(os.path.join(base, n) for n in names)
            for f in files:
                p = os.path.join(base, f)
                out.append(p)
                try:
                    out.append(Path(p).read_bytes().decode("utf-8", "replace"))
                except OSError:
                    pass
    return "\n".join(out)


def test_forget_user_with_a_job_in_flight_leaves_nothing_of_the_user(
    tmp_path: Path, redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch, gate: Gate
) -> None:
    import redis as redis_py

    from reverie.fleet import Fleet

    root, index = tmp_path / "root", tmp_path / "index"
    env = _env(root, redis_server, index)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    scopes = ScopeRoot(root)
    alice, agent, bob = Scope("alice"), Scope("alice", "bot"), Scope("bob")
    for scope, text in ((alice, SECRET), (agent, f"{SECRET} to the bot"), (bob, "bob's own")):
        WorkspaceStore(scopes.ensure(scope)).append_history(f"- [durable] User likes {text}")
    assert invoke("--root", str(root), "--user", "alice", "index", env=env).returncode == 0
    assert any(index.rglob("*.sqlite")), "the search index lives outside the root"
    TokenFile(scopes).issue(agent, label=f"{SECRET} phone")
    fleet = Fleet(load_config())
    assert sorted(fleet.dispatch_once(lambda ws: None)) == sorted(
        [alice.name, agent.name, bob.name]
    )
    fleet.coord.set_aside(agent.name, 2)  # what a fleet keeps about a scope besides its due entry
    fleet.coord.failed(agent.name)
    fleet.coord.park(agent.name, f"{SECRET} parked")

    outcome: list[object] = []
    job = threading.Thread(target=lambda: outcome.append(fleet.run_job(alice.name)))
    job.start()
    assert gate.waiting.wait(30), "the job did not reach the model"
    result = invoke("--root", str(root), "forget-user", "alice", "--yes", "--json", env=env)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["found"] and report["tokens_revoked"] == 1 and report["index_files"]
    assert report["redis_entries"].get("parked") == 1 and report["redis_entries"].get("lease") == 1
    gate.open.set()
    job.join(60)
    assert outcome and outcome[0].status in ("fenced", "lease-lost"), outcome

    r = redis_py.Redis(unix_socket_path=str(redis_server.sock), decode_responses=True)
    in_redis = _everything_in_redis(r)
    on_disk = _everything_on_disk(root, index)
    for trace in ("alice", SECRET, alice.user_digest):
        assert trace not in in_redis, f"{trace!r} left in Redis"
        assert trace not in on_disk, f"{trace!r} left on disk"
    assert not scopes.exists(alice) and not scopes.exists(agent)
    assert bob.name in in_redis and scopes.exists(bob)  # bob untouched
    assert WorkspaceStore(scopes.workspace(bob)).pending_count() == 1


def test_forget_user_with_redis_down_deletes_the_files_and_says_what_is_left(
    tmp_path: Path, redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import redis as redis_py

    from reverie.fleet import Fleet

    root, index = tmp_path / "root", tmp_path / "index"
    env = _env(root, redis_server, index)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    scopes = ScopeRoot(root)
    WorkspaceStore(scopes.ensure(Scope("alice"))).append_history(f"- [durable] {SECRET}")
    fleet = Fleet(load_config())
    fleet.dispatch_once(lambda ws: None)
    fleet.coord.set_aside(Scope("alice").name, 1)
    redis_server.kill()
    result = invoke("--root", str(root), "forget-user", "alice", "--yes", env=env)
    assert result.returncode == 1
    assert "run forget-user again to finish" in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "removed user 'alice'" in result.stdout  # what was removed, all the same
    assert SECRET not in _everything_on_disk(root)
    redis_server.start()
    again = invoke("--root", str(root), "forget-user", "alice", "--yes", env=env)
    assert again.returncode == 0 and "fleet entries in Redis" in again.stdout, again.stdout
    r = redis_py.Redis(unix_socket_path=str(redis_server.sock), decode_responses=True)
    assert Scope("alice").user_digest not in _everything_in_redis(r)
