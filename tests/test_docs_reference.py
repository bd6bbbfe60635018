"""docs/cli.md and docs/config.md are generated from the parser and the config models: they must
not drift."""

from __future__ import annotations

from reverie.cli.reference import DOCS, cli_reference, config_keys, config_reference


def test_cli_reference_matches_the_parser() -> None:
    assert (DOCS / "cli.md").read_text(encoding="utf-8") == cli_reference(), (
        "docs/cli.md is stale: run `python -m reverie.cli.reference`"
    )


def test_config_reference_matches_the_models() -> None:
    assert (DOCS / "config.md").read_text(encoding="utf-8") == config_reference(), (
        "docs/config.md is stale: run `python -m reverie.cli.reference`"
    )


def test_every_config_key_says_what_it_means() -> None:
    missing = [key for key, _, _, meaning in config_keys() if not meaning]
    assert not missing, f"config keys without a description (add Field(description=...)): {missing}"
