"""``--json``: taken by every command but the few that print no result (a chat, a server, a
worker), and those are named exactly, in ``reverie --help`` and docs/cli.md (issue 40: the docs
said "every command" while ``fleet mark``, ``unpark`` and ``init`` refused it)."""

from __future__ import annotations

import argparse

import pytest
from support.cli import invoke

from reverie.cli import WITHOUT_JSON, build_parser, subcommands


def _leaves(parser: argparse.ArgumentParser, path: str = "") -> dict[str, argparse.ArgumentParser]:
    """Every command a user can run, by its words: ``fleet worker``, and ``mcp`` itself (it runs a
    server without a sub-command) beside ``mcp token issue``."""
    found: dict[str, argparse.ArgumentParser] = {}
    parser.format_help()  # completes a command's parser
    nested = subcommands(parser)
    if path and (not nested or not any(a.required for a in _subparser_actions(parser))):
        found[path] = parser
    for name, sub in nested.items():
        found |= _leaves(sub, f"{path} {name}".strip())
    return found


def _subparser_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]  # noqa: SLF001


def _takes_json(parser: argparse.ArgumentParser) -> bool:
    return any("--json" in a.option_strings for a in parser._actions)  # noqa: SLF001


def test_the_commands_without_json_are_exactly_the_documented_ones():
    leaves = _leaves(build_parser())
    assert {"status", "fleet mark", "fleet unpark", "fleet init", "mcp token issue"} <= set(leaves)
    without = sorted(name for name, parser in leaves.items() if not _takes_json(parser))
    assert without == sorted(WITHOUT_JSON)
    assert ", ".join(WITHOUT_JSON) in " ".join(build_parser().format_help().split())


@pytest.mark.parametrize(
    "argv", [["--json", "chat"], ["--json", "fleet", "worker"], ["--json", "mcp"]]
)
def test_json_before_a_command_that_has_none_is_a_usage_error(argv, tmp_path):
    """Given before the command, ``--json`` reached ``fleet worker`` or ``mcp`` silently (their
    siblings take it); now it is refused as after the command: exit 2, one usage line."""
    result = invoke("-w", str(tmp_path / "ws"), *argv)
    assert result.returncode == 2
    assert f"--json is not available for `{' '.join(argv[1:])}`" in result.stderr


def test_the_pages_name_the_same_commands_without_json():
    """docs/commands.md's synopsis and docs/cli.md name the commands without --json as the code
    does."""
    from conftest import ROOT

    overview = (ROOT / "docs" / "commands.md").read_text("utf-8")
    assert (
        "--json: every command but chat, mcp, ui and fleet worker (serve: with --root)" in overview
    )
    reference = " ".join((ROOT / "docs" / "cli.md").read_text("utf-8").split())
    assert (
        "every command takes it except `chat`, `mcp`, `ui`, `fleet worker`, and `serve` takes it "
        "only with `--root` (without `--user`)." in reference
    )
    assert WITHOUT_JSON == ("chat", "mcp", "ui", "fleet worker")


def test_serve_takes_json_only_with_a_root(tmp_path):
    """`serve --json` on one workspace is refused in one line, as the pages say."""
    result = invoke("-w", str(tmp_path / "ws"), "serve", "--json")
    assert result.returncode == 1 and "--json go with --root DIR" in result.stderr
