"""The CLI and config references in ``docs/``, generated from the parser and the pydantic models so
they cannot drift (``tests/test_docs_reference.py`` fails when the files differ from what this
module renders), and the models' defaults as data for the paths that must not import pydantic
(``reverie.storage.configdata``; checked by ``tests/test_config_defaults.py``).

    # rewrite docs/cli.md, docs/config.md, reverie/config_defaults.json
    python -m reverie.cli.reference
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import typing
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

__all__ = [
    "cli_reference",
    "config_reference",
    "config_keys",
    "config_defaults",
    "write",
    "DOCS",
]

DOCS = Path(__file__).resolve().parents[2] / "docs"
_WIDTH = "100"


def _help(parser: argparse.ArgumentParser) -> str:
    old = os.environ.get("COLUMNS")
    # argparse wraps to the terminal: a fixed width keeps the file stable
    os.environ["COLUMNS"] = _WIDTH
    try:
        return parser.format_help().rstrip()
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old


#: Options every command takes (``reverie --help`` shows them once): hidden from each command's
#: section so the reference says them once.
_GLOBAL = {"-h", "-w", "--root", "--user", "--agent", "--debug"}


def _command_help(parser: argparse.ArgumentParser) -> str:
    """A command's ``--help`` without the global options."""
    parser.format_help()  # completes a command's parser first (it adds its options then)
    hidden = [
        (a, a.help)
        for a in parser._actions  # noqa: SLF001
        if _GLOBAL & set(a.option_strings)
    ]
    try:
        for action, _ in hidden:
            action.help = argparse.SUPPRESS
        return _help(parser)
    finally:
        for action, text in hidden:
            action.help = text


def _commands(parser: argparse.ArgumentParser, words: str, level: int) -> list[str]:
    """The section of a command, then its sub-commands', at any depth (``mcp token issue``)."""
    from . import subcommands

    out = [f"{'#' * level} reverie {words}", "", "```text", _command_help(parser), "```", ""]
    for name, nested in subcommands(parser).items():
        out += _commands(nested, f"{words} {name}", min(level + 1, 4))
    return out


def cli_reference() -> str:
    """``docs/cli.md``: ``reverie --help``, then every command's ``--help`` (global options left
    out: they are in the first block), in ``--help``'s order, sub-commands at any depth."""
    from . import COMMANDS, WITHOUT_JSON, build_parser, subcommands

    parser = build_parser()
    parser.prog = "reverie"
    out = [
        "# CLI reference",
        "",
        "Generated from the parser by `python -m reverie.cli.reference`; do not edit by hand.",
        "",
        "## Global options",
        "",
        "The options in this first block (`-w`, `--root`, "
        "`--user`, `--agent`, `--debug`, `-h`) are",
        "accepted by every command, before or after it, "
        "and are not repeated below. `--json` prints",
        "machine-readable JSON; every command takes it except "
        + ", ".join(f"`{name}`" for name in WITHOUT_JSON)
        + ", and `serve` takes it only with `--root` (without `--user`).",
        "",
        "```text",
        _help(parser),
        "```",
        "",
    ]
    commands = subcommands(parser)
    for name, _, _ in COMMANDS:
        out += _commands(commands[name], name, 2)
    return "\n".join(out).rstrip("\n") + "\n"


def _type_name(annotation: Any) -> str:
    text = (
        str(annotation)
        if typing.get_origin(annotation)
        else getattr(annotation, "__name__", str(annotation))
    )
    return text.replace("typing.", "").replace("NoneType", "null")


def config_keys(
    model: type[BaseModel] | None = None, prefix: str = ""
) -> list[tuple[str, str, str, str]]:
    """Every leaf key of the config: ``(camelCase path, type, default as JSON, meaning)``."""
    from ..storage.config import Config, ModelSettings, ProviderConfig

    model = model or Config
    rows: list[tuple[str, str, str, str]] = []
    for name, field in model.model_fields.items():
        key = f"{prefix}{field.alias or name}"
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            rows += config_keys(annotation, key + ".")
            continue
        entry = typing.get_args(annotation)[1] if typing.get_origin(annotation) is dict else None
        if entry in (ProviderConfig, ModelSettings):
            assert entry is not None
            rows += config_keys(
                entry, key + (".<name>." if entry is ProviderConfig else ".<model>.")
            )
            continue
        default = field.get_default(call_default_factory=True)
        if default is PydanticUndefined:
            default = None
        rows.append(
            (
                key,
                _type_name(annotation),
                json.dumps(default, ensure_ascii=False),
                (field.description or "").strip(),
            )
        )
    return rows


def config_reference() -> str:
    """``docs/config.md``: every key with its type, default and meaning."""
    out = [
        "# Config reference",
        "",
        "Generated from the pydantic models in `reverie/storage/config.py` "
        "by `python -m reverie.cli.reference`; do not",
        "edit by hand. Keys are camelCase (a snake_case spelling is the "
        "same key). Sources, later winning: `~/.reverie/config.json`,",
        "the workspace's `reverie.json`, then `REVERIE_` + the key path joined by `__` "
        "(`REVERIE_AGENTS__DEFAULTS__DREAM__INTERVAL_H=4`).",
        "",
        "| key | type | default | meaning |",
        "|---|---|---|---|",
    ]
    for key, type_, default, meaning in config_keys():
        cell = meaning.replace("|", "\\|") or "—"
        out.append(f"| `{key}` | `{type_}` | `{default}` | {cell} |")
    return "\n".join(out) + "\n"


def config_defaults() -> str:
    """``reverie/config_defaults.json``: every key's default, keyed by field name, as the models
    give them."""
    from ..storage.config import Config

    # python mode: a float field's int default stays an int (2, not 2.0), as a Config() holds it
    return json.dumps(Config().model_dump(), indent=2, ensure_ascii=False) + "\n"


def write(docs: Path = DOCS) -> list[Path]:
    from ..storage.configdata import DEFAULTS_PATH

    docs.mkdir(exist_ok=True)
    written = []
    for path, text in (
        (docs / "cli.md", cli_reference()),
        (docs / "config.md", config_reference()),
        (DEFAULTS_PATH, config_defaults()),
    ):
        path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write():
        print(f"wrote {path}", file=sys.stderr)
