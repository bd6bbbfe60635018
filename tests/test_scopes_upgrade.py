"""The attack on issue 35, without Redis: ids an older version recorded that this one changes or
refuses (their tokens, forgetting and migrating them), ids Unicode does not allow in identifiers, a
search index bound to its workspace, forget-user's order and its tolerance of a broken config and of
a second run, the root's kind file, links and hard links. The fleet's side is in
test_fleet_operator.py."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import shutil
import unicodedata
from pathlib import Path

import pytest
from support.cli import invoke

from reverie.errors import ConfigError, InvalidScopeError, ReverieError, WorkspaceError
from reverie.operations.forget import ForgetIncomplete, forget_user
from reverie.storage.access import TokenFile
from reverie.storage.scopes import ROOT_FILE, Scope, ScopeRoot, read_root_kind, validate_id
from reverie.storage.store import WorkspaceStore
from reverie.storage.workspace import Workspace


def _old_scope(root: Path, user: str, text: str) -> Path:
    """A scope as the version before NFKC and script checks wrote it: the directory named by the
    digest of the NFC id, ``user.json`` and ``scope.json`` naming that id, one history entry."""
    nfc = unicodedata.normalize("NFC", user)
    digest = hashlib.sha256(f"user\x00{nfc}".encode()).hexdigest()[:32]
    user_dir = root / "users" / digest[:2] / digest[2:4] / digest
    ws = user_dir / "workspace"
    (ws / "memory" / ".reverie").mkdir(parents=True)
    (ws / "sessions").mkdir()
    (user_dir / "user.json").write_text(json.dumps({"user": nfc}) + "\n")
    (ws / "memory" / ".reverie" / "scope.json").write_text(
        json.dumps({"user": nfc, "agent": None}) + "\n"
    )
    WorkspaceStore(Workspace(ws)).append_history(text, "cli:test")
    return user_dir


def _old_token(root: ScopeRoot, user: str) -> str:
    """A token an older version issued for ``user`` (recorded as it was given)."""
    tokens = TokenFile(root)
    text, _ = tokens.issue(Scope("placeholder"))
    data = json.loads(tokens.path.read_text())
    data["tokens"][-1]["user"] = user
    tokens.path.write_text(json.dumps(data))
    return text


def _everything(root: Path) -> bytes:
    return b"\n".join(p.read_bytes() for p in root.rglob("*") if p.is_file())


@pytest.fixture
def upgraded(tmp_path: Path) -> ScopeRoot:
    """H1/H2's root: a full-width user and a plain one written by the older version (two users
    then), and a mixed-script one."""
    root = tmp_path / "root"
    _old_scope(root, "ａｌｉｃｅ", "fullwidth secret")
    _old_scope(root, "alice", "plain alice")
    _old_scope(root, "\u0430lice", "cyrillic secret")
    (root / ROOT_FILE).write_text('{"kind": "scopes", "version": 1}\n')
    return ScopeRoot(root)


# -- H1: a token of an id NFKC changed never opens another user's memory ---------------------------


def test_an_old_token_of_an_id_nfkc_changes_resolves_to_nobody_and_is_revoked(
    upgraded: ScopeRoot, caplog: pytest.LogCaptureFixture
) -> None:
    old = _old_token(upgraded, "ａｌｉｃｅ")
    plain, _ = TokenFile(upgraded).issue(Scope("alice"))
    assert TokenFile(upgraded).lookup(old) is None  # was: Scope('alice'), plain alice's memory
    assert "which this version reads as 'alice'" in caplog.text
    assert TokenFile(upgraded).lookup(plain) == Scope("alice")
    revoked = TokenFile(upgraded).revoke_user("alice")
    assert len(revoked) == 2  # was 0 for the full-width one: compared as raw strings
    assert TokenFile(upgraded).records() == []


# -- H2: legacy ids found, forgotten, migrated -----------------------------------------------------


def test_legacy_ids_are_listed(upgraded: ScopeRoot) -> None:
    result = invoke("--root", str(upgraded.root), "legacy-ids", "--json")
    assert result.returncode == 0, result.stderr
    users = {u["user"]: u for u in json.loads(result.stdout)["users"]}
    assert set(users) == {"ａｌｉｃｅ", "\u0430lice"}
    assert users["ａｌｉｃｅ"]["now"] == "alice"
    assert users["\u0430lice"]["now"] is None and "mixes scripts" in users["\u0430lice"]["problem"]


def test_forget_user_erases_the_legacy_ids_that_now_name_the_user(upgraded: ScopeRoot) -> None:
    old = _old_token(upgraded, "ａｌｉｃｅ")
    result = invoke("--root", str(upgraded.root), "forget-user", "ａｌｉｃｅ", "--yes", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["legacy_ids"] == ["ａｌｉｃｅ"] and report["tokens_revoked"] == 1
    everything = _everything(upgraded.root)
    assert b"fullwidth secret" not in everything and b"plain alice" not in everything
    assert b"cyrillic secret" in everything  # another user
    assert TokenFile(upgraded).records() == [] and TokenFile(upgraded).lookup(old) is None
    assert [u.user for u in upgraded.legacy_users()] == ["\u0430lice"]


def test_a_refused_legacy_id_is_forgotten_when_given_exactly(upgraded: ScopeRoot) -> None:
    result = invoke("--root", str(upgraded.root), "forget-user", "\u0430lice", "--yes")
    assert result.returncode == 0, result.stderr  # was: refused, "mixes scripts", data kept
    assert b"cyrillic secret" not in _everything(upgraded.root)
    assert b"plain alice" in _everything(upgraded.root)  # the plain user is another one
    refused = invoke("--root", str(upgraded.root), "forget-user", "\u0430lice", "--yes")
    assert refused.returncode == 1 and "mixes scripts" in refused.stderr  # none left: refused


def test_a_legacy_user_is_migrated_to_a_free_id_and_never_merged(upgraded: ScopeRoot) -> None:
    old = _old_token(upgraded, "\u0430lice")
    base = ["--root", str(upgraded.root), "legacy-ids", "migrate"]
    taken = invoke(*base, "ａｌｉｃｅ")
    assert taken.returncode == 1 and "never merged" in taken.stderr  # alice has a memory
    assert invoke(*base, "\u0430lice").returncode == 1  # refused: needs --to
    moved = invoke(*base, "\u0430lice", "--to", "alice-cyrillic")
    assert moved.returncode == 0, moved.stderr
    store = WorkspaceStore(upgraded.workspace(Scope("alice-cyrillic")))
    assert [e.content for e in store.history.read_since(0)] == ["cyrillic secret"]
    assert TokenFile(upgraded).lookup(old) == Scope("alice-cyrillic")  # the token followed
    assert Scope("alice-cyrillic") in [s for s, _ in upgraded.scopes()]
    assert [u.user for u in upgraded.legacy_users()] == ["ａｌｉｃｅ"]


def test_a_root_made_by_this_version_is_never_scanned_for_legacy_ids(tmp_path: Path) -> None:
    root = ScopeRoot(tmp_path / "root")
    root.ensure(Scope("bob"))
    assert json.loads((root.root / "legacy-ids.json").read_text())["users"] == []


# -- M9: ids Unicode does not allow in identifiers -------------------------------------------------

INVISIBLE_OR_LIMITED = [
    "alice\u3164",  # Hangul filler (NFKC: U+1160)
    "\u3164",
    "\uffa0",
    "a\u115flice",
    "alice\u034f",  # combining grapheme joiner
    "\u17b4",
    "\u180b",
    "alice\ufe0f",  # variation selector
    "alice\U000e0100",
    "\u13aalice",  # Cherokee Ꭺ
    "\ua4eelice",  # Lisu ꓮ
    "\u2c81lice",  # Coptic ⲁ
    "\u16b1ob",  # Runic ᚱ
    "\U00010300lice",  # Old Italic 𐌀
    "g\u0585ogle",  # Armenian օ with Latin
    "\u1d00lice",  # ᴀ, a small capital (technical)
]


@pytest.mark.parametrize("bad", INVISIBLE_OR_LIMITED)
def test_ids_unicode_does_not_allow_in_identifiers_are_refused(bad: str) -> None:
    with pytest.raises(InvalidScopeError) as info:
        validate_id(bad)
    assert "\n" not in str(info.value) and "\\\\" not in str(info.value)  # escaped once


def test_refusals_say_what_happened_in_one_readable_line() -> None:
    with pytest.raises(InvalidScopeError, match=r"'\\u0430lice' mixes scripts"):
        validate_id("\u0430lice")
    with pytest.raises(InvalidScopeError, match=r"144 characters long once normalised \(NFKC"):
        validate_id("\ufdfa" * 8)


# -- H3: a search index kept outside the root is bound to its workspace ----------------------------


def test_an_index_of_a_forgotten_user_is_never_used_for_the_user_who_comes_back(
    tmp_path: Path,
) -> None:
    root, idx = tmp_path / "root", tmp_path / "idx"
    env = {"REVERIE_MEMORY__SEARCH__INDEX_DIR": str(idx)}
    base = ["--root", str(root), "--user", "zed"]
    assert invoke(*base, "history", "append", "zed old secret PINEAPPLE", env=env).returncode == 0
    assert invoke(*base, "index", env=env).returncode == 0  # a writer's step: queries never write
    assert "PINEAPPLE" in invoke(*base, "search", "PINEAPPLE", env=env).stdout
    shutil.copytree(idx, tmp_path / "idx.hostB")  # a second host's local index directory
    assert invoke("--root", str(root), "forget-user", "zed", "--yes", env=env).returncode == 0
    host_b = {"REVERIE_MEMORY__SEARCH__INDEX_DIR": str(tmp_path / "idx.hostB")}
    assert invoke(*base, "history", "append", "zed new life", env=host_b).returncode == 0
    assert "PINEAPPLE" not in invoke(*base, "search", "PINEAPPLE", env=host_b).stdout
    assert "new life" in invoke(*base, "search", "new life", env=host_b).stdout
    # queries never write: host B's next writer to sync the index drops the old one
    assert invoke(*base, "index", env=host_b).returncode == 0
    assert b"PINEAPPLE" not in _everything(tmp_path / "idx.hostB")  # dropped, not kept aside


# -- M7: forget-user's order: a broken config never blocks it; a failure is finished by a
# rerun --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("config", ["{garbage", '{"memory": {"search": {"indexDir": 123}}}'])
def test_a_user_whose_workspace_config_is_invalid_is_forgotten(tmp_path: Path, config: str) -> None:
    root = ScopeRoot(tmp_path / "root")
    ws = root.ensure(Scope("carol"))
    WorkspaceStore(ws).append_history("carol secret", "cli:test")
    TokenFile(root).issue(Scope("carol"))
    ws.config_path.write_text(config)
    result = forget_user(root, "carol")  # was: a config error after the tokens were revoked
    assert result.found and result.tokens == 1 and not root.exists(Scope("carol"))


def test_a_forget_user_that_fails_midway_is_finished_by_a_rerun(tmp_path: Path) -> None:
    root = ScopeRoot(tmp_path / "root")
    WorkspaceStore(root.ensure(Scope("dave"))).append_history("dave secret", "cli:test")
    TokenFile(root).issue(Scope("dave"))
    (root.root / "trash").write_text("not a directory")  # the move into the trash fails
    with pytest.raises(ForgetIncomplete, match="run forget-user again to finish") as info:
        forget_user(root, "dave")
    assert info.value.result.tokens == 1  # what was done is said
    (root.root / "trash").unlink()
    again = forget_user(root, "dave")
    assert again.found and not root.exists(Scope("dave"))
    assert b"dave secret" not in _everything(root.root)


# -- M6: two forget-users at once ------------------------------------------------------------------


def _empty_trash(root: str, barrier) -> None:  # type: ignore[no-untyped-def]
    barrier.wait()
    ScopeRoot(root).empty_trash()


def test_two_runs_emptying_the_trash_at_once_both_finish(tmp_path: Path) -> None:
    root = ScopeRoot(tmp_path / "root")
    root.ensure(Scope("big"))
    big = root.user_dir("big")
    for i in range(40):
        d = big / "workspace" / f"d{i}"
        d.mkdir()
        for j in range(100):
            (d / f"f{j}").write_bytes(b"x")
    root.trash_user(Scope("big").user_digest)
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(2)
    procs = [ctx.Process(target=_empty_trash, args=(str(root.root), barrier)) for _ in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0]  # was: FileNotFoundError in one of them
    assert os.listdir(root.root / "trash") == []


# -- M2: the root's kind file ----------------------------------------------------------------------


def test_a_damaged_root_kind_file_says_how_to_repair_it_and_init_force_does(tmp_path: Path) -> None:
    root = ScopeRoot(tmp_path / "root")
    root.ensure(Scope("erin"))
    (root.root / ROOT_FILE).write_text("garbage")
    with pytest.raises(WorkspaceError, match="init --kind scopes|plain --force"):
        ScopeRoot(root.root)
    fixed = invoke("fleet", "--root", str(root.root), "init", "--kind", "scopes", "--force")
    assert fixed.returncode == 0, fixed.stderr
    assert read_root_kind(root.root) == "scopes"


@pytest.mark.parametrize("kind", ["dev-zero", "fifo", "huge"])
def test_a_root_kind_file_that_is_no_small_regular_file_is_refused_unread(
    tmp_path: Path, kind: str
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    path = root / ROOT_FILE
    if kind == "dev-zero":
        path.symlink_to("/dev/zero")  # was: read forever
    elif kind == "fifo":
        os.mkfifo(path)  # was: a hang
    else:
        path.write_bytes(b" " * 100_000)
    with pytest.raises(WorkspaceError, match="--force"):
        read_root_kind(root)


# -- M1: reverie fleet --root on a plain root ------------------------------------------------------


def test_fleet_root_option_works_on_a_plain_root(tmp_path: Path) -> None:
    plain = tmp_path / "p1"
    for _ in range(2):  # was: the second failed, "a plain root … not a root of scopes"
        result = invoke("--root", str(plain), "fleet", "init", "--kind", "plain")
        assert result.returncode == 0, result.stderr
    fix = invoke("--root", str(plain), "fleet", "init", "--kind", "scopes", "--force")
    assert fix.returncode == 0 and read_root_kind(plain) == "scopes"


# -- links and hard links (low) --------------------------------------------------------------------


def test_tokens_are_never_read_or_written_through_a_link(tmp_path: Path) -> None:
    r7, r8 = ScopeRoot(tmp_path / "r7"), ScopeRoot(tmp_path / "r8")
    text, _ = TokenFile(r8).issue(Scope("bob"))
    (r7.root / "access").mkdir(parents=True)
    (r7.root / "access" / "tokens.json").symlink_to(r8.root / "access" / "tokens.json")
    with pytest.raises(ConfigError):
        TokenFile(r7).lookup(text)  # was: r8's token accepted by r7
    outside = tmp_path / "outside"
    outside.mkdir()
    r9 = ScopeRoot(tmp_path / "r9")
    r9.root.mkdir()
    (r9.root / "access").symlink_to(outside)
    with pytest.raises(ReverieError, match="symbolic link"):
        TokenFile(r9).issue(Scope("bob"))  # was: tokens.json written outside the root
    assert os.listdir(outside) == []


def test_a_hard_linked_history_is_refused(tmp_path: Path) -> None:
    root = ScopeRoot(tmp_path / "root")
    alice = root.ensure(Scope("alice"))
    WorkspaceStore(alice).append_history("alice secret", "cli:test")
    bob = root.ensure(Scope("bob"))
    os.link(alice.history_path, bob.history_path)  # bob's history is alice's file
    with pytest.raises(ReverieError, match="hard links"):
        WorkspaceStore(bob).append_history("bob writes", "cli:test")
    assert b"bob writes" not in alice.history_path.read_bytes()


def test_forget_user_refusing_a_planted_link_says_how_to_go_on(tmp_path: Path) -> None:
    root = ScopeRoot(tmp_path / "root")
    ws = root.ensure(Scope("alice"))
    WorkspaceStore(ws).append_history("alice secret", "cli:test")
    elsewhere = tmp_path / "elsewhere"
    ws.root.rename(elsewhere)
    ws.root.symlink_to(elsewhere)  # planted: the user's workspace is a link
    result = invoke("--root", str(root.root), "forget-user", "alice", "--yes")
    assert result.returncode == 1 and "remove the link itself" in result.stderr  # was: no hint
    assert (elsewhere / "memory" / "history.jsonl").is_file()  # nothing deleted through it
    ws.root.unlink()
    assert invoke("--root", str(root.root), "forget-user", "alice", "--yes").returncode == 0


def test_forget_user_with_a_due_marker_that_is_a_directory(tmp_path: Path) -> None:
    root = ScopeRoot(tmp_path / "root")
    WorkspaceStore(root.ensure(Scope("fay"))).append_history("fay secret", "cli:test")
    marker = root.due_path(Scope("fay").name)
    marker.unlink()
    marker.mkdir()  # was: "internal error: IsADirectoryError", exit 2, nothing deleted
    result = invoke("--root", str(root.root), "forget-user", "fay", "--yes")
    assert result.returncode == 0, result.stderr
    assert not root.exists(Scope("fay")) and not marker.exists()
    WorkspaceStore(root.ensure(Scope("gus"))).append_history("gus secret", "cli:test")
    full = root.due_path(Scope("gus").name)
    full.unlink()
    full.mkdir()
    (full / "junk").touch()  # cannot be removed as a marker: said in one line, rerun finishes
    refused = invoke("--root", str(root.root), "forget-user", "gus", "--yes")
    assert refused.returncode == 1 and "remove it by hand" in refused.stderr
    assert "Traceback" not in refused.stderr and "internal error" not in refused.stderr
    shutil.rmtree(full)
    assert invoke("--root", str(root.root), "forget-user", "gus", "--yes").returncode == 0
    assert b"gus secret" not in _everything(root.root)
