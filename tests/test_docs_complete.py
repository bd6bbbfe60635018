"""Everything a user can type or set is documented: every command and option (in the generated
docs/cli.md and, for commands, in the overview of docs/commands.md), every chat command
(docs/commands.md) and every environment variable the code reads (somewhere in README.md or docs/).
Found from the code itself, so a new one fails here until written up."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from reverie.chat.commands import default_commands
from reverie.cli import build_parser, subcommands

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]*[A-Z0-9]")
#: Variables the code reads or sets only for a third party's sake, never documented as Reverie's.
NOT_OURS = {"COLUMNS"}  # argparse's wrap width, pinned while docs/cli.md is rendered


def _docs_text() -> str:
    return "\n".join(
        p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
    )


def _read_env_names() -> set[str]:
    """Names in ``os.environ.get("X")``, ``os.getenv("X")``, ``os.environ["X"]``, ``"X" in
    os.environ``, and module constants ``*_ENV = "X"`` (how ``reverie mcp`` names its token
    variable)."""
    names: set[str] = set()
    for path in (ROOT / "reverie").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            arg: ast.expr | None = None
            if isinstance(node, ast.Call) and node.args:
                func = ast.unparse(node.func)
                if func in {"os.environ.get", "os.getenv", "environ.get", "env.get"}:
                    arg = node.args[0]
            elif isinstance(node, ast.Subscript) and ast.unparse(node.value) in {
                "os.environ",
                "environ",
            }:
                arg = node.slice
            elif isinstance(node, ast.Compare) and any(
                ast.unparse(c) == "os.environ" for c in node.comparators
            ):
                arg = node.left
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name) and target.id.endswith("_ENV"):
                    arg = node.value
            elif isinstance(node, ast.Compare) and ast.unparse(node.left) == "name":
                arg = node.comparators[0]  # config's ``if name == "REVERIE_MODEL"``
            if (
                isinstance(arg, ast.Constant)
                and isinstance(arg.value, str)
                and ENV_NAME.fullmatch(arg.value)
            ):
                names.add(arg.value)
            elif isinstance(arg, (ast.Set, ast.Tuple, ast.List)):
                names |= {
                    e.value
                    for e in arg.elts
                    if isinstance(e, ast.Constant)
                    and isinstance(e.value, str)
                    and ENV_NAME.fullmatch(e.value)
                }
    return names


def test_every_environment_variable_the_code_reads_is_documented() -> None:
    names = _read_env_names() - NOT_OURS
    assert {
        "REVERIE_HOME",
        "REVERIE_WORKSPACE",
        "REVERIE_MODEL",
        "REVERIE_DEBUG",
        "REVERIE_MCP_TOKEN",
    } <= names
    text = _docs_text()
    missing = sorted(n for n in names if f"`{n}" not in text and f"${n}" not in text)
    assert not missing, f"environment variables read by the code but documented nowhere: {missing}"


def test_every_chat_command_is_in_the_commands_page() -> None:
    text = (DOCS / "commands.md").read_text(encoding="utf-8")
    names = {c.name for c in default_commands()} | {"help"}
    assert {"pin", "unpin", "requeue", "dream"} <= names
    missing = sorted(n for n in names if not re.search(rf"`/{re.escape(n)}[` \[]", text))
    assert not missing, f"chat commands missing from docs/commands.md: {['/' + n for n in missing]}"


def test_every_command_is_in_the_overview_and_every_option_in_the_reference() -> None:
    overview = (DOCS / "commands.md").read_text(encoding="utf-8").split("```", 2)[1]
    reference = (DOCS / "cli.md").read_text(encoding="utf-8")
    parser = build_parser()
    commands = subcommands(parser)
    assert {"status", "mcp", "ui", "pin", "requeue"} <= set(commands)
    missing_commands = sorted(
        n for n in commands if not re.search(rf"^  {re.escape(n)}\b", overview, re.M)
    )
    assert not missing_commands, (
        f"commands missing from the overview in docs/commands.md: {missing_commands}"
    )
    missing_options = sorted(
        f"{name} {opt}"
        for name, sub in commands.items()
        for action in sub._actions
        for opt in action.option_strings
        if opt.startswith("--") and opt not in reference
    )
    assert not missing_options, f"options missing from docs/cli.md: {missing_options}"


def test_every_commit_kind_is_in_the_versioning_page() -> None:
    """docs/versioning.md names each kind Reverie writes (issue 40: it listed 5 of the 8 then in
    use)."""
    from reverie.gitstore.trailers import KINDS

    text = (DOCS / "versioning.md").read_text(encoding="utf-8")
    section = text.split("**Commits:**", 1)[1].split("\n- **", 1)[0]
    named = set(re.findall(r"`(\w+)` \(", section))
    assert named == set(KINDS), f"in the code, not the page: {set(KINDS) - named}; " + (
        f"on the page, not the code: {named - set(KINDS)}"
    )
