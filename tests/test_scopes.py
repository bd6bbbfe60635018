"""Scopes (reverie.storage.scopes): validated ids, the fan-out layout, creation on first write,
mark on
write, forgetting a user, and isolation between scopes (hostile ids, concurrent writers).

A root of scopes and a workspace are never made one inside the other: ``--root WORKSPACE
--user X`` (and ``reverie.open(root=WORKSPACE, user=X)``) would nest users inside a workspace, and
``-w ROOT init`` would turn a root into a workspace; each is refused in one line that says what
the folder is and what to give instead, and nothing is written."""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from pathlib import Path

import pytest
from support.cli import invoke

import reverie
from reverie.cli import main
from reverie.errors import InvalidScopeError, WorkspaceError
from reverie.operations.forget import forget_user
from reverie.storage.scopes import MAX_ID_CHARS, Scope, ScopeRoot, due_hook, due_jitter, validate_id
from reverie.storage.store import WorkspaceStore
from reverie.storage.workspace import Workspace

HOSTILE = [
    "",
    ".",
    "..",
    "../etc",
    "../../x",
    "a/b",
    "a\\b",
    "/abs",
    "C:\\x",
    "a..b",
    ".hidden",
    "-rf",
    "a b",
    "a\tb",
    "a\nb",
    "a\x00b",
    "a\u200bb",
    "a\u202eb",
    "\ufeffa",
    "a\x7fb",
    "x" * (MAX_ID_CHARS + 1),
    "a*b?",
    "a/../b",
    "%2e%2e",
    "a$(x)",
    "a;b|c",
]


@pytest.mark.parametrize("bad", HOSTILE)
def test_a_hostile_id_is_refused_with_one_line(bad: str) -> None:
    with pytest.raises(InvalidScopeError) as info:
        Scope(bad)
    assert "\n" not in str(info.value)
    with pytest.raises(InvalidScopeError):
        Scope("alice", bad)


@pytest.mark.parametrize(
    "good",
    [
        "alice",
        "U024BE7LH",
        "alice@example.com",
        "telegram:123456",
        "李雷",
        "josé",
        "a_b-c.d+e=f~g#h",
        "x" * MAX_ID_CHARS,
    ],
)
def test_ordinary_ids_are_accepted(good: str) -> None:
    assert Scope(good, good).user == good


def test_ids_are_nfc_normalised_and_case_sensitive() -> None:
    assert Scope("jose\u0301") == Scope("jos\u00e9")  # decomposed and composed: one user
    assert validate_id("jose\u0301") == "jos\u00e9"
    assert Scope("Alice") != Scope("alice")
    assert (
        Scope("Alice").user_digest != Scope("alice").user_digest
    )  # distinct even on a case-insensitive FS
    assert Scope("alice") != Scope("alice", "bot")


def test_the_layout_fans_out_and_stays_under_the_root(tmp_path: Path) -> None:
    root = ScopeRoot(tmp_path / "root")
    scope = Scope("alice", "bot")
    path = root.path(scope)
    rel = path.relative_to(root.root).parts
    assert (
        rel[0] == "users"
        and len(rel[1]) == 2
        and len(rel[2]) == 2
        and rel[3].startswith(rel[1] + rel[2])
    )
    assert rel[4:] == ("agents", scope.agent_digest)
    assert root.path(Scope("alice")).relative_to(root.root).parts[4:] == ("workspace",)
    # a thousand users spread over many first-level buckets: no directory collects them all
    buckets = {root.path(Scope(f"user{i}")).relative_to(root.root).parts[1] for i in range(1000)}
    assert len(buckets) > 200


def test_a_scope_is_created_on_its_first_write_only(tmp_path: Path) -> None:
    root = ScopeRoot(tmp_path / "root")
    scope = Scope("alice")
    ws = root.workspace(scope)
    assert not root.exists(scope) and not (tmp_path / "root").exists()
    assert root.ensure(scope) == ws and root.ensure(scope) == ws  # idempotent
    assert root.exists(scope)
    assert json.loads((ws.root / "memory/.reverie/scope.json").read_text()) == {
        "user": "alice",
        "agent": None,
    }
    assert [s for s, _ in root.scopes()] == [scope]


def test_cli_queries_on_a_never_written_scope_are_empty_and_create_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--root", str(tmp_path / "root"), "--user", "alice"]
    for command in (
        ["status", "--json"],
        ["search", "--json", "anything"],
        ["log"],
        ["history", "show"],
        ["restore"],
    ):
        assert main([*base, *command]) == 0, command
    out = capsys.readouterr().out
    assert "[]" in out
    # `why` finding no line is a user error (exit 1, one line), as on any workspace
    assert main([*base, "why", "x"]) == 1
    assert "no memory line contains 'x'" in capsys.readouterr().err
    assert not (tmp_path / "root").exists()
    for command in (["gc"], ["dream"], ["pin", "x"], ["index"]):
        assert main([*base, *command]) == 1
        assert "has no memory yet" in capsys.readouterr().err
    assert not (tmp_path / "root").exists()


def test_cli_writes_create_the_scope_and_mark_it_due(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ScopeRoot(tmp_path / "root")
    assert (
        main(
            [
                "--root",
                str(root.root),
                "--user",
                "alice",
                "--agent",
                "bot",
                "history",
                "append",
                "likes tea",
            ]
        )
        == 0
    )
    scope = Scope("alice", "bot")
    assert root.exists(scope)
    assert root.due_names() == [scope.name]
    assert root.workspace_of_due(scope.name) == root.workspace(scope)
    capsys.readouterr()
    assert (
        main(
            [
                "--root",
                str(root.root),
                "--user",
                "alice",
                "--agent",
                "bot",
                "history",
                "show",
                "--json",
            ]
        )
        == 0
    )
    assert "likes tea" in capsys.readouterr().out
    assert (
        main(["--root", str(root.root), "--user", "alice", "history", "show", "--json"]) == 0
    )  # another scope
    assert "likes tea" not in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--root", "R", "-w", "W", "--user", "a", "status"], "exclusive"),
        (["--user", "a", "status"], "need --root"),
        (["--root", "R", "--agent", "b", "status"], "--agent needs --user"),
        (["--root", "R", "status"], "give --user"),
        (["--root", "R", "--user", "../../etc", "status"], "contains '/'"),
        (["--root", "R", "--user", "a", "forget-user", "a", "--yes"], "as its argument"),
    ],
)
def test_cli_scope_options_are_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    argv = [str(tmp_path / a) if a in ("R", "W") else a for a in argv]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "R").exists()


def test_only_a_scope_workspace_marks_itself_due(tmp_path: Path) -> None:
    root = ScopeRoot(tmp_path / "root")
    assert (
        due_hook(root.workspace(Scope("alice"))) is not None
    )  # known by its place, before it exists
    for lookalike in (
        "users/ab/cd/abcd/workspace",
        "users/ab/ab/" + "0" * 32 + "/workspace",
        "other/ab/cd/abcd" + "0" * 28 + "/workspace",
        "workspace",
    ):
        assert due_hook(Workspace(tmp_path / lookalike)) is None, lookalike
    plain = WorkspaceStore(tmp_path / "plain")
    plain.append_history("x")
    assert plain.history.on_append is None
    WorkspaceStore(root.ensure(Scope("alice"))).append_history("y")
    assert root.due_names() == [Scope("alice").name]
    root.unmark_due(Scope("alice").name)
    assert root.due_names() == []


def test_rescan_marks_every_scope_with_pending_history(tmp_path: Path) -> None:
    root = ScopeRoot(tmp_path / "root")
    for user in ("a", "b", "c"):
        ws = root.ensure(Scope(user))
        if user != "b":
            WorkspaceStore(ws).append_history(f"{user} fact")
    for name in root.due_names():
        root.unmark_due(name)  # markers lost (a restore from backup)
    assert root.rescan(lambda ws: WorkspaceStore(ws).pending_count()) == 2
    assert sorted(root.due_names()) == sorted([Scope("a").name, Scope("c").name])


def test_forget_user_removes_every_scope_and_says_what(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ScopeRoot(tmp_path / "root")
    base = ["--root", str(root.root)]
    assert main([*base, "--user", "alice", "init"]) == 0
    assert (
        main([*base, "--user", "alice", "--agent", "bot", "history", "append", "secret plan"]) == 0
    )
    assert main([*base, "--user", "bob", "history", "append", "bob's fact"]) == 0
    capsys.readouterr()
    assert main([*base, "forget-user", "alice", "--yes", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["found"] and report["files"] > 5 and report["due_markers"] == 1
    assert sorted((s["agent"] or "") for s in report["scopes"]) == ["", "bot"]
    assert not root.user_dir("alice").exists()
    assert not any(b"secret plan" in p.read_bytes() for p in root.root.rglob("*") if p.is_file())
    assert root.due_names() == [Scope("bob").name]  # bob untouched
    assert (
        WorkspaceStore(root.workspace(Scope("bob"))).history.read_since(0)[0].content
        == "bob's fact"
    )
    assert main([*base, "forget-user", "alice", "--yes"]) == 0
    assert "nothing removed" in capsys.readouterr().out
    assert main([*base, "forget-user", "alice"]) == 1  # no terminal, no --yes: refused
    assert "--yes" in capsys.readouterr().err


def test_forget_user_finishes_a_deletion_a_crash_interrupted(tmp_path: Path) -> None:
    root = ScopeRoot(tmp_path / "root")
    WorkspaceStore(root.ensure(Scope("alice"))).append_history("x")
    # a crash after the rename aside, before the delete finished
    trash = root.root / "trash"
    trash.mkdir()
    os.rename(root.user_dir("alice"), trash / "leftover.1")
    assert not root.scopes_of("alice")  # from the rename on, alice has no memory
    forget_user(root, "bob")
    assert list(trash.iterdir()) == []


def _append_many(root: str, user: str, n: int) -> None:
    store = WorkspaceStore(ScopeRoot(root).ensure(Scope(user)))
    for i in range(n):
        store.append_history(f"{user} entry {i}")


def test_concurrent_writers_in_different_scopes_stay_apart(tmp_path: Path) -> None:
    root = ScopeRoot(tmp_path / "root")
    users = [f"user{i}" for i in range(4)]
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_append_many, args=(str(root.root), u, 50)) for u in users]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    for user in users:
        entries = WorkspaceStore(root.workspace(Scope(user))).history.read_since(0)
        assert [e.content for e in entries] == [f"{user} entry {i}" for i in range(50)]
        assert [e.cursor for e in entries] == list(range(1, 51))
    assert sorted(root.due_names()) == sorted(Scope(u).name for u in users)


# -- the front door: reverie.open(root=..., user=..., agent=...) -----------------------------------
def test_open_a_scope_reads_empty_until_its_first_write(tmp_path: Path) -> None:
    import reverie

    root = tmp_path / "root"
    with reverie.open(root=root, user="alice", agent="bot") as memory:
        assert memory.recall("tea") == [] and memory.pending() == 0 and memory.log() == []
        assert memory.dream().status == "nothing-to-do"
        assert not root.exists()  # queries and an idle dream created nothing
        memory.remember("Alice likes green tea.")
        assert [h.snippet for h in memory.recall("tea")]
    scopes = ScopeRoot(root)
    assert scopes.exists(Scope("alice", "bot")) and scopes.due_names() == [
        Scope("alice", "bot").name
    ]
    with reverie.open(
        root=root, user="alice"
    ) as other:  # the same user without the agent: another scope
        assert other.recall("tea") == []
    with reverie.open(root=root, user="bob", agent="bot") as bob:
        assert bob.recall("tea") == []


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"user": "alice"}, "pass root"),
        ({"root": "R"}, "needs a user"),
        ({"root": "R", "user": "../alice"}, "contains '/'"),
        ({"root": "R", "user": "alice", "agent": "a\u202eb"}, "U+202E"),
    ],
)
def test_open_refuses_a_malformed_scope(tmp_path: Path, kwargs: dict[str, str], error: str) -> None:
    import reverie

    kwargs = {k: (str(tmp_path / v) if v == "R" else v) for k, v in kwargs.items()}
    with pytest.raises(reverie.ReverieError, match=error.replace("+", r"\+")):
        reverie.open(**kwargs)
    with pytest.raises(reverie.ReverieError, match="not both"):
        reverie.open(tmp_path / "ws", root=tmp_path, user="alice")


def test_a_bucket_listed_in_the_same_clock_tick_as_a_new_marker_is_listed_again(
    tmp_path: Path,
) -> None:
    root = ScopeRoot(tmp_path / "root")
    names = [Scope(f"u{i}").name for i in range(400)]
    first = next(n for n in names if n[:2] == names[0][:2] and n != names[0])
    root.mark_due(names[0])
    seen: dict[str, int] = {}
    assert [n for _, ns in root.due_buckets(seen) for n in ns] == [names[0]]
    bucket = root.due_path(names[0]).parent
    stamp = bucket.stat().st_mtime_ns
    root.mark_due(first)
    os.utime(
        bucket, ns=(stamp, stamp)
    )  # the second marker landed in the same tick: the mtime did not move
    assert sorted(n for _, ns in root.due_buckets(seen) for n in ns) == sorted([names[0], first])
    old = time.time_ns() - 10_000_000_000
    os.utime(bucket, ns=(old, old))
    root.due_buckets(seen)
    assert (
        root.due_buckets(seen) == []
    )  # an old mtime is trusted: an unchanged bucket is not listed again


def test_the_demo_runs_in_a_new_scope_and_leaves_it_a_proper_scope(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ScopeRoot(tmp_path / "root")
    assert main(["--root", str(root.root), "--user", "alice", "demo", "--json"]) == 0
    capsys.readouterr()
    assert root.exists(Scope("alice")) and [s for s, _ in root.scopes()] == [Scope("alice")]
    assert (root.path(Scope("alice")) / "USER.md").read_text().strip()


def test_due_jitter_is_a_fixed_spread_share_of_the_window():
    names = [Scope(f"user{i}").name for i in range(200)] + [f"/srv/ws/{i}" for i in range(200)]
    shares = [due_jitter(n, 600) for n in names]
    assert all(0 <= s < 600 for s in shares)
    assert shares == [due_jitter(n, 600) for n in names]  # the same key keeps its place
    assert (
        max(shares[:200]) - min(shares[:200]) > 500 and max(shares[200:]) - min(shares[200:]) > 500
    )
    assert len(set(shares)) == len(names)
    assert due_jitter(names[0], 0) == 0.0


# -- ids: NFKC, one script (issue 35 item 7) -------------------------------------------------------


def test_compatibility_forms_name_one_user() -> None:
    assert Scope("\uff41\uff4c\uff49\uff43\uff45") == Scope("alice")  # full-width ａｌｉｃｅ
    assert validate_id("user-\ufb01sh") == "user-fish"  # the ligature ﬁ
    assert Scope("\uff21lice") == Scope("Alice")  # case is still kept


@pytest.mark.parametrize(
    "bad",
    [
        "\u0430lice",  # Cyrillic а
        "\u03b1lice",  # Greek α
        "p\u0430yp\u0430l",  # two Cyrillic а among Latin
        "\u0438\u0432a\u043d",  # Latin a among Cyrillic
        "\u03b1\u0431",  # Greek and Cyrillic
        "abc\u0661\u0662123",  # Arabic-Indic and ASCII digits
        "user:\u0430dmin",
    ],
)
def test_mixed_script_ids_are_refused_in_one_line(bad: str) -> None:
    with pytest.raises(InvalidScopeError, match="mixes") as info:
        Scope(bad)
    assert "\n" not in str(info.value)
    assert main(["--root", "/nonexistent-root", "--user", bad, "status"]) == 1


@pytest.mark.parametrize(
    "good",
    [
        "\u0410\u043b\u0435\u043a\u0441\u0430\u043d\u0434\u0440",  # Александр: Cyrillic alone
        "\u03c0\u03b1\u03cd\u03bb\u03bf\u03c2",  # παύλος: Greek alone
        "\u5c71\u7530\u592a\u90ce\u305f\u308d\u3046",  # 山田太郎たろう: Han with Hiragana
        "x:\u6771\u4eac\u30bf\u30ef\u30fc",  # x:東京タワー: Latin, Han, Katakana
        "\ud64d\uae38\ub3d9123",  # 홍길동123: Hangul with digits
        "user:\u0645\u062d\u0645\u062f",  # user:محمد: Latin with Arabic
        "telegram:\u674e\u96f7",  # Latin with Han
    ],
)
def test_single_script_ids_and_allowed_combinations_are_accepted(good: str) -> None:
    assert Scope(good).user == good


# -- the root's kind (issue 35 item 5) -------------------------------------------------------------


def test_a_root_records_its_kind_when_made_and_a_plain_root_is_refused(tmp_path: Path) -> None:
    from reverie.errors import WorkspaceError
    from reverie.storage.scopes import read_root_kind, write_root_kind

    root = ScopeRoot(tmp_path / "root")
    assert read_root_kind(root.root) is None  # nothing made yet
    root.ensure(Scope("alice"))
    assert read_root_kind(root.root) == "scopes"
    plain = tmp_path / "plain"
    (plain / "users" / "alice" / "memory").mkdir(parents=True)  # a workspace that is at users/alice
    write_root_kind(plain, "plain")
    with pytest.raises(WorkspaceError, match="plain root"):
        ScopeRoot(plain)
    assert write_root_kind(plain, "scopes") == "plain"  # a recorded kind is not replaced
    assert write_root_kind(plain, "scopes", replace=True) == "scopes"


def test_a_root_made_before_kinds_is_migrated_once_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from reverie.storage.scopes import ROOT_FILE, read_root_kind, root_kind

    root = ScopeRoot(tmp_path / "root")
    root.ensure(Scope("alice"))
    (root.root / ROOT_FILE).unlink()  # as an older version left it
    ScopeRoot(root.root)
    assert read_root_kind(root.root) == "scopes" and "had no reverie-root.json" in caplog.text
    caplog.clear()
    ScopeRoot(root.root)
    assert caplog.text == ""  # once
    plain = tmp_path / "plain"
    (plain / "users" / "alice" / "memory").mkdir(parents=True)
    assert root_kind(plain) == "plain"  # a users/ folder without the layout's buckets
    assert root_kind(tmp_path / "empty") is None


def test_a_token_of_an_id_refused_since_is_ignored_and_the_others_still_work(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from reverie.storage.access import TokenFile

    root = ScopeRoot(tmp_path / "root")
    tokens = TokenFile(root)
    text, _record = tokens.issue(Scope("bob"))
    data = json.loads(tokens.path.read_text())
    old = {**data["tokens"][0], "id": "old", "sha256": "0" * 64, "user": "\u0430lice"}
    data["tokens"].append(old)  # written by a version that took mixed-script ids
    tokens.path.write_text(json.dumps(data))
    assert TokenFile(root).lookup(text) == Scope("bob")
    assert "a token of a refused id is ignored" in caplog.text


# -- a root of scopes and a workspace are never nested ---------------------------------------------


def _files(root: Path) -> set[str]:
    return {str(Path(d, f).relative_to(root)) for d, _, fs in os.walk(root) for f in fs}


def test_a_root_and_a_workspace_are_never_nested(tmp_path: Path) -> None:
    root, ws = tmp_path / "root", tmp_path / "ws"
    assert invoke("--root", str(root), "--user", "alice", "history", "append", "hi").returncode == 0
    assert invoke("-w", str(ws), "init").returncode == 0
    before = (_files(root), _files(ws))
    for argv, says in [
        (("-w", str(root), "init"), "is a root of workspaces"),
        (("-w", str(root), "history", "append", "hi"), "is a root of workspaces"),
        (("--root", str(ws), "--user", "x", "history", "append", "hi"), "is a workspace"),
        (("--root", str(ws), "--user", "x", "status"), "is a workspace, not a root of scopes"),
    ]:
        done = invoke(*argv)
        assert done.returncode != 0, argv
        assert done.stderr.count("\n") == 1 and says in done.stderr, done.stderr
    with pytest.raises(WorkspaceError, match="is a workspace"):
        reverie.open(root=ws, user="x")
    assert (_files(root), _files(ws)) == before
