"""Other tools' memory brought in (reverie.memory.importers): every importer keeps credentials
out of
everything it writes (history, memory files, sessions, the search index, every git object), names
every item it leaves out with the reason, and reads each source's files as what they are: nanobot's
own files kept, Claude Code's CLAUDE.md, rules, auto memory and front matter each in their place,
a mem0 export of several users into one scope each with ids, metadata and dates kept."""

from __future__ import annotations

import json
import random
import string
import tarfile
from pathlib import Path

import pytest
from dulwich.repo import Repo

import reverie
from reverie.cli import main
from reverie.errors import CommandError, WorkspaceError
from reverie.memory.importers import (
    export_bundle,
    import_claude_code,
    import_from,
    import_mem0,
    import_mem0_root,
    import_nanobot,
)
from reverie.memory.importers.claude_code import PREFIX
from reverie.storage.scopes import Scope, ScopeRoot

_R = random.Random(37)
#: Fake credentials in real formats (the scanner finds both), random so no test text holds them.
GITHUB = "ghp_" + "".join(_R.choice(string.ascii_letters + string.digits) for _ in range(36))
OPENAI = "sk-proj-" + "".join(_R.choice(string.ascii_letters + string.digits) for _ in range(48))
SECRETS = (GITHUB, OPENAI)


def _leaks(root: Path) -> list[str]:
    """Where any credential is under ``root``: a file's bytes, or any object of a git repository
    there (loose or packed, reachable or not), decompressed."""
    found: list[str] = []
    needles = [s.encode() for s in SECRETS]
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            if any(n in data for n in needles):
                found.append(str(path.relative_to(root)))
    for git_dir in [p for p in root.rglob("*") if p.is_dir() and (p / "objects").is_dir()]:
        with Repo(str(git_dir.parent) if git_dir.name == ".git" else str(git_dir)) as repo:
            store = repo.object_store
            for sha in store:
                raw = store[sha].as_raw_string()
                if any(n in raw for n in needles):
                    found.append(f"git object {sha.decode()}")
    return found


def _indexed(ws: Path) -> None:
    """Build the search index (a writer's verb keeps it in step; queries never write it) so the
    leak check reads it too."""
    with reverie.open(ws) as memory:
        memory.reindex()
    assert (ws / "memory" / ".index.sqlite").is_file()


def _nanobot(root: Path) -> Path:
    """A nanobot workspace with a credential in every place one can be, and files of every kind."""
    (root / "memory").mkdir(parents=True)
    (root / "sessions").mkdir()
    (root / "skills" / "weather").mkdir(parents=True)
    (root / "projects").mkdir()
    (root / ".git").mkdir()
    (root / "SOUL.md").write_text(f"# Soul\n- Answer briefly.\n- Deploy token {GITHUB}\n")
    (root / "USER.md").write_text(f"# User\n- Name: Ada.\n- OpenAI key {OPENAI}\n")
    (root / "memory" / "MEMORY.md").write_text("# Memory\n- The launch is in March.\n")
    (root / "memory" / "notes.md").write_text(f"- Staging uses {GITHUB}\n")
    (root / "memory" / "2026-03-02-standup.md").write_text("- Standup at ten.\n")
    lines = [
        {"cursor": 1, "timestamp": "2026-03-01 10:00", "content": "Ada chose Postgres."},
        {
            "cursor": 2,
            "timestamp": "2026-03-01 10:05",
            "content": f"Ada pasted {OPENAI}",
            "session_key": f"cli:{GITHUB}",
            "tags": [f"key {GITHUB}"],
        },
    ]
    history = b"".join(json.dumps(x).encode() + b"\n" for x in lines)
    history += b'{"cursor": 3, "timestamp": "2026-03-01 10:06", "content": "caf\xe9"}\n'
    history += b"not json at all\n"
    (root / "memory" / "history.jsonl").write_bytes(history)
    (root / "memory" / "HISTORY.md").write_text(f"[2026-02-01] token {GITHUB}\n")
    (root / "memory" / ".cursor").write_text("3")
    (root / "sessions" / "cli_ada.jsonl").write_text(
        json.dumps({"_type": "metadata", "key": "cli:ada", "last_consolidated": 0})
        + "\n"
        + json.dumps({"role": "user", "content": [{"type": "text", "text": f"use {OPENAI}"}]})
        + "\n"
    )
    (root / "sessions" / "notes.txt").write_text("not a session\n")
    # locks: the source's state, neither kept nor listed as skipped
    (root / "sessions" / "cli_ada.jsonl.lock").write_text("")
    (root / "sessions" / "cli_ada.jsonl.consolidate.lock").write_text("")
    (root / "AGENTS.md").write_text(f"# Agents\n- Use the token {GITHUB} for deploys.\n")
    (root / "TOOLS.md").write_text("# Tools\n- weather: forecasts.\n")
    (root / "HEARTBEAT.md").write_text("- [ ] Check the inbox every morning.\n")
    (root / "skills" / "weather" / "SKILL.md").write_text(f"# Weather\nkey={OPENAI}\n")
    (root / "skills" / "weather" / "icon.png").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    (root / "projects" / "report.txt").write_text("a file the agent wrote\n")
    (root / "notes.txt").write_text("loose\n")
    return root


def test_a_nanobot_workspace_comes_in_whole_with_no_credential_and_nothing_dropped_silently(
    tmp_path: Path,
) -> None:
    nano = _nanobot(tmp_path / "nanobot")
    ws = tmp_path / "ws"
    result = import_nanobot(nano, ws)
    _indexed(ws)
    assert _leaks(ws) == []
    assert result.redacted >= 8 and len(result.commits) == 1
    with reverie.open(ws) as memory:
        entries = memory.history()
        assert [(e.cursor, e.timestamp) for e in entries] == [
            (1, "2026-03-01 10:00"),
            (2, "2026-03-01 10:05"),
        ]
        assert entries[1].session_key == "cli:[REDACTED:github-token]"
        assert entries[1].extra["tags"] == ["key [REDACTED:github-token]"]
        assert "Name: Ada." in memory.read("USER.md") and "[REDACTED" in memory.read("SOUL.md")
        assert memory.read("memory/topics/notes.md").startswith("- Staging uses [REDACTED")
        assert memory.read("memory/2026-03-02-standup.md") == "- Standup at ten.\n"
        assert memory.log(limit=1)[0].subject == f"import: nanobot workspace from {nano}"
        assert memory.messages("cli:ada")[0]["content"][0]["text"].startswith("use [REDACTED")
    assert sorted(result.kept) == [
        "AGENTS.md",
        "HEARTBEAT.md",
        "TOOLS.md",
        "skills/weather/SKILL.md",
    ]
    assert (ws / "AGENTS.md").read_text().startswith("# Agents\n- Use the token [REDACTED")
    skipped = {s.item: s.reason for s in result.skipped}
    assert skipped["memory/history.jsonl line 3"] == "not a history entry (invalid UTF-8)"
    assert skipped["memory/history.jsonl line 4"] == "not a history entry (not JSON)"
    assert skipped["sessions/notes.txt"] == "not a conversation (sessions/*.jsonl)"
    assert not [item for item in skipped if item.endswith(".lock")]
    assert skipped["skills/weather/icon.png"].startswith("not UTF-8 (byte 0x89 at offset 0)")
    assert skipped["projects/"] == "a folder that is not memory"
    assert skipped["notes.txt"] == "a file that is not memory"
    assert skipped[".git"].startswith("nanobot's own memory repository")
    # a HISTORY.md beside a log with entries is copied, and named: its entries are never migrated
    assert skipped["memory/HISTORY.md entries"].startswith("the file is copied, but its entries")
    assert len(result.skipped) == 8
    assert not (ws / "projects").exists() and not (ws / "skills/weather/icon.png").exists()


def test_a_nanobot_memory_file_that_is_not_utf8_is_named_never_replaced(tmp_path: Path) -> None:
    nano = tmp_path / "nano"
    (nano / "memory").mkdir(parents=True)
    (nano / "USER.md").write_bytes(b"# User\n- Lives in M\xfcnchen.\n")
    (nano / "memory" / "MEMORY.md").write_text("# Memory\n- Ships Friday.\n")
    result = import_nanobot(nano, tmp_path / "ws")
    assert [str(s) for s in result.skipped] == [
        "USER.md: not UTF-8 (byte 0xfc at offset 19); convert it to UTF-8 and import again"
    ]
    assert not (tmp_path / "ws" / "USER.md").exists()  # left out, never decoded with replacements


def test_a_bundle_carrying_credentials_comes_in_without_them(tmp_path: Path) -> None:
    src = tmp_path / "src"
    with reverie.open(src) as memory:
        memory.init()
        # Written past Reverie's own redaction: what a hand-made or foreign bundle can hold.
        memory.runtime.git.commit(
            "manual: a leak", kind="manual", files={"USER.md": f"# User\n- key {GITHUB}\n"}
        )
        memory.runtime.git.commit("manual: fixed", kind="manual", files={"USER.md": "# User\n"})
    (src / "sessions").mkdir(exist_ok=True)
    (src / "sessions" / "cli_x.jsonl").write_text(json.dumps({"role": "user", "content": OPENAI}))
    bundle = tmp_path / "b.tar.gz"
    export_bundle(src, bundle)
    with tarfile.open(bundle) as tar:
        assert any(OPENAI.encode() in (tar.extractfile(m) or b"").read() for m in tar if m.isfile())
    result = import_from(bundle, "bundle", workspace=tmp_path / "ws")
    assert result.redacted == 2
    _indexed(tmp_path / "ws")
    assert _leaks(tmp_path / "ws") == []
    with reverie.open(tmp_path / "ws") as memory:
        assert memory.log(limit=1)[0].kind == "purge"
        assert "[REDACTED:purged]" in memory.messages("cli:x", archived=True)[0]["content"]


def _claude_project(root: Path) -> Path:
    (root / ".claude" / "rules" / "frontend").mkdir(parents=True)
    (root / "CLAUDE.md").write_text(
        f"# Project\n\n- Use pnpm, never npm.\n- CI token {GITHUB}\n\n@docs/setup.md\n"
    )
    (root / "README.md").write_text("# App\nA readme.\n")
    (root / "CHANGELOG.md").write_text("# Changelog\n- 1.0\n")
    (root / ".claude" / "rules" / "testing.md").write_text(
        "---\ndescription: how we test\n---\n- Run pytest with -x.\n"
    )
    (root / ".claude" / "rules" / "frontend" / "react.md").write_text(
        '---\npaths:\n  - "src/**/*.tsx"\n---\n- Components are functions.\n'
    )
    (root / ".claude" / "rules" / "legacy.md").write_bytes(b"- Caf\xe9 rules\n")
    return root


def test_claude_code_files_are_read_as_what_they_are(tmp_path: Path) -> None:
    project = _claude_project(tmp_path / "app")
    ws = tmp_path / "ws"
    with reverie.open(ws) as memory:
        result = import_claude_code(memory, project)
        files = sorted(f for f in memory.files() if f.startswith(PREFIX))
        assert files == [
            f"{PREFIX}/CLAUDE.md",
            f"{PREFIX}/rules/frontend/react.md",
            f"{PREFIX}/rules/testing.md",
        ]
        assert "CI token [REDACTED:github-token]" in memory.read(f"{PREFIX}/CLAUDE.md")
        remembered = [e.content for e in memory.history()]
        # CLAUDE.md's and the unconditional rule's statements; no front matter, no path-scoped rule
        assert remembered == [
            "Use pnpm, never npm.",
            "CI token [REDACTED:github-token]",
            "@docs/setup.md",
            "Run pytest with -x.",
        ]
        assert (
            memory.log(limit=1)[0].subject
            == f"import: claude-code memory from {project} (3 file(s))"
        )
    assert {str(s) for s in result.skipped} == {
        "README.md: a project document, not Claude Code memory",
        "CHANGELOG.md: a project document, not Claude Code memory",
        ".claude/rules/legacy.md: not UTF-8 (byte 0xe9 at offset 5); convert it to UTF-8 and "
        "import again",
    }
    assert result.redacted == 1 and result.items == 4
    _indexed(ws)
    assert _leaks(ws) == []
    with reverie.open(ws) as memory:  # the same again: nothing new, nothing remembered twice
        again = import_claude_code(memory, project)
        assert again.commits == [] and again.items == 0 and len(memory.history()) == 4


def test_a_lone_claude_md_and_an_auto_memory_folder(tmp_path: Path) -> None:
    lone = tmp_path / "CLAUDE.md"
    lone.write_text("- Prefer small commits.\n")
    auto = tmp_path / "projects" / "-home-ada-app" / "memory"
    auto.mkdir(parents=True)
    (auto / "MEMORY.md").write_text(
        "---\nname: index\n---\n# Memory\n\n- [Debugging](debugging.md) — the flaky test\n"
        "- My favourite editor is Helix.\n"
    )
    (auto / "debugging.md").write_text("---\ndescription: flaky tests\n---\n- Payments is flaky.\n")
    with reverie.open(tmp_path / "ws") as memory:
        assert import_claude_code(memory, lone).items == 1
        result = import_claude_code(memory, auto.parent)  # ~/.claude/projects/<project>
        assert result.files == 2 and result.items == 1
        assert [e.content for e in memory.history()] == [
            "Prefer small commits.",
            "My favourite editor is Helix.",  # the index's link line and front matter are no facts
        ]
        assert memory.read(f"{PREFIX}/memory/debugging.md").endswith("- Payments is flaky.\n")
        memory.dream(all=True)
        assert "Helix" in memory.read("USER.md")
    with pytest.raises(WorkspaceError, match="no Claude Code memory at"):
        with reverie.open(tmp_path / "ws") as memory:
            import_claude_code(memory, tmp_path / "projects")


def _mem0_export(path: Path) -> Path:
    items = [
        {
            "id": "m-1",
            "memory": "Prefers tea over coffee",
            "hash": "h1",
            "metadata": {"source": "chat", "note": f"token {GITHUB}"},
            "categories": ["food"],
            "created_at": "2026-03-01T10:00:00+00:00",
            "updated_at": "2026-03-02T11:00:00+00:00",
            "user_id": "ada",
        },
        {"id": "m-2", "memory": f"Uses the key {OPENAI}", "user_id": "ada", "agent_id": "helper"},
        {"id": "m-3", "memory": "Lives in Oslo", "user_id": "bob", "run_id": "r9"},
        {"id": "m-4", "memory": "   ", "user_id": "bob"},
        {"id": "m-5", "memory": "Orphan fact"},
        "not a memory",
    ]
    path.write_text(json.dumps({"results": items, "relations": []}))
    return path


def test_a_mem0_export_of_several_users_goes_one_scope_each_with_its_provenance(
    tmp_path: Path,
) -> None:
    export = _mem0_export(tmp_path / "mem0.json")
    root = tmp_path / "root"
    result = import_mem0_root(root, export)
    assert [(s.user, s.agent, s.items) for s in result.scopes] == [
        ("ada", None, 1),
        ("ada", "helper", 1),
        ("bob", None, 1),
    ]
    assert {str(s) for s in result.skipped} == {
        "item 4 (id m-4): no memory text",
        "item 5 (id m-5): no user_id: it belongs to no user's scope",
        "item 6: not a memory object (a str)",
    }
    with reverie.open(root=root, user="ada") as memory:
        (entry,) = memory.history()
        assert entry.content == "Prefers tea over coffee" and entry.timestamp.startswith(
            "2026-03-01"
        )
        kept = entry.extra["mem0"]
        assert kept["id"] == "m-1" and kept["categories"] == ["food"] and kept["hash"] == "h1"
        assert kept["updated_at"] == "2026-03-02T11:00:00+00:00"
        assert kept["metadata"] == {"source": "chat", "note": "token [REDACTED:github-token]"}
        assert memory.search("tea")[0].memory.startswith("Prefers tea")
    with reverie.open(root=root, user="bob") as memory:
        assert [e.content for e in memory.history()] == ["Lives in Oslo"]
        assert memory.history()[0].extra["mem0"]["run_id"] == "r9"
    for scope in (Scope("ada"), Scope("ada", "helper"), Scope("bob")):
        _indexed(ScopeRoot(root).path(scope))
    assert _leaks(root) == []
    again = import_mem0_root(root, export)
    assert again.items == 0 and sum("already imported" in s.reason for s in again.skipped) == 3


def test_a_mem0_export_into_one_workspace_is_one_users_or_refused(tmp_path: Path) -> None:
    export = _mem0_export(tmp_path / "mem0.json")
    with reverie.open(tmp_path / "ws") as memory:
        with pytest.raises(WorkspaceError, match=r"memories of 2 users \(ada, bob\)"):
            import_mem0(memory, export)
        assert memory.history() == []
        result = import_mem0(memory, export, user="bob")
        assert [e.content for e in memory.history()] == ["Lives in Oslo"]
        skipped = {str(s) for s in result.skipped}
        assert "item 1 (id m-1): user ada's, not bob's" in skipped
        assert "item 5 (id m-5): no user_id: not taken for bob's" in skipped
        assert result.user == "bob"  # whose memories came in: now this workspace's user
        with pytest.raises(CommandError, match=r"not this workspace's user \('bob'"):
            memory.get_all(user_id="ada")
        with pytest.raises(CommandError, match=r"user_id 'ada' is not this workspace's user"):
            import_mem0(memory, export, user="ada")  # another user's memories: refused
        assert [e.content for e in memory.history()] == ["Lives in Oslo"]
    with reverie.open(tmp_path / "ws") as memory:  # kept: the next process knows it too
        assert memory.get_all(user_id="bob")["results"][0]["memory"] == "Lives in Oslo"
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"results": [{"memory": "caf\xe9"}]}')
    with pytest.raises(WorkspaceError, match=r"not UTF-8 \(byte 0xe9 at offset 28\)"):
        with reverie.open(tmp_path / "ws2") as memory:
            import_mem0(memory, bad)


def test_the_command_line_names_what_it_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export = _mem0_export(tmp_path / "mem0.json")
    root = tmp_path / "root"
    assert main(["--root", str(root), "import", "--from", "mem0", str(export)]) == 0
    out = capsys.readouterr().out
    assert "imported 3 memories" in out and "user ada agent helper: 1 memories" in out
    assert "not imported (3):" in out and "item 5 (id m-5): no user_id" in out
    assert "2 credential(s) redacted" in out
    assert (
        main(
            [
                "--root",
                str(root),
                "--user",
                "bob",
                "--json",
                "import",
                "--from",
                "mem0",
                str(export),
            ]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert (
        report["items"] == 0
        and {
            "item": "item 3 (id m-3)",
            "reason": f"already imported into {ScopeRoot(root).path(Scope('bob'))}",
        }
        in report["skipped"]
    )
    assert main(["-w", str(tmp_path / "ws"), "import", "--from", "mem0", str(export)]) == 1
    assert "memories of 2 users" in capsys.readouterr().err


def test_one_users_import_into_a_new_scope_from_the_command_line(tmp_path: Path) -> None:
    export = _mem0_export(tmp_path / "mem0.json")
    root = tmp_path / "root"
    assert (
        main(["--root", str(root), "--user", "bob", "import", "--from", "mem0", str(export)]) == 0
    )
    with reverie.open(root=root, user="bob") as memory:
        assert [e.content for e in memory.history()] == ["Lives in Oslo"]
    assert ScopeRoot(root).exists(Scope("bob")) and not ScopeRoot(root).exists(Scope("ada"))


def test_importing_again_merges_over_what_changed_here_never_overwrites_it(tmp_path: Path) -> None:
    project = tmp_path / "app"
    project.mkdir()
    claude = project / "CLAUDE.md"
    claude.write_text("# Project\n\n- Use pnpm, never npm.\n- Deploys on Friday.\n")
    rel = f"{PREFIX}/CLAUDE.md"
    with reverie.open(tmp_path / "ws") as memory:
        import_claude_code(memory, project)
        # an agent's edit of the imported file, then the source changes a different line
        text = memory.read(rel)
        memory.write(rel, text.replace("Friday", "Thursday"), kind="agent")
        claude.write_text(
            "# Project\n\n- Use pnpm, never npm.\n- Deploys on Friday.\n- Node 22 only.\n"
        )
        again = import_claude_code(memory, project)
        assert memory.read(rel).endswith("- Deploys on Thursday.\n- Node 22 only.\n")
        assert again.items == 1 and memory.history()[-1].content == "Node 22 only."
        # both change the same line: the file is left as it is here, and named
        memory.write(rel, memory.read(rel).replace("Node 22", "Node 20"), kind="agent")
        claude.write_text(
            "# Project\n\n- Use pnpm, never npm.\n- Deploys on Friday.\n- Node 24 only.\n"
        )
        before = memory.read(rel)
        third = import_claude_code(memory, project)
        assert memory.read(rel) == before and third.commits == [] and third.items == 0
        assert [str(s) for s in third.skipped] == [
            f"CLAUDE.md: {rel}: changed here since it was imported and in the source, on the "
            "same lines; left as it is here (merge it by hand)"
        ]


def test_a_line_the_source_dropped_leaves_for_the_archive_at_a_reimport(tmp_path: Path) -> None:
    """A line leaves a memory file only for a reason with evidence, and lands in the archive where
    ``why`` finds it: a re-import after the source dropped a line archives it (with the source
    named), in the import's one commit, which ``restore`` undoes."""
    project = tmp_path / "app"
    (project / ".claude" / "rules").mkdir(parents=True)
    claude = project / "CLAUDE.md"
    claude.write_text("# Project\n\n- Use pnpm, never npm.\n- Deploys on Friday.\n")
    rule = project / ".claude" / "rules" / "style.md"
    rule.write_text("- Tabs, not spaces.\n- Max line 100.\n")
    rel = f"{PREFIX}/CLAUDE.md"
    with reverie.open(tmp_path / "ws") as memory:
        import_claude_code(memory, project)
        claude.write_text("# Project\n\n- Use pnpm, never npm.\n")
        rule.write_text("- Max line 100.\n")
        again = import_claude_code(memory, project)
        assert "Deploys on Friday" not in memory.read(rel)
        assert "Tabs, not spaces" not in memory.read(f"{PREFIX}/rules/style.md")
        assert len(again.commits) == 1 and "2 line(s) archived" in memory.log(limit=1)[0].subject
        archive = memory.read("memory/archive/files.md")
        assert f"Deploys on Friday. · gone from the source at a re-import of {project}" in archive
        for text in ("Deploys on Friday", "Tabs, not spaces"):
            found = memory.why(text)
            assert any(p.path == "memory/archive/files.md" for p in found), text
        memory.restore(again.commits[0], only=True)
        assert "Deploys on Friday" in memory.read(rel)
