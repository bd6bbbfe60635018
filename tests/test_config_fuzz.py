"""Config fuzzing: random JSON documents shaped like nanobot/Reverie configs (real keys, wrong
types, huge and non-finite numbers, unknown keys, junk bytes) either load as a ``Config`` or fail
with one ``ConfigError`` line; never another exception. What loads survives ``save_config`` and
loads again to the same data."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie.errors import ConfigError
from reverie.storage.config import Config, load_config, save_config, validate_config

FUZZ = settings(
    max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)

KEYS = [
    "agents",
    "defaults",
    "model",
    "dream",
    "intervalH",
    "interval_h",
    "cron",
    "maxBatchSize",
    "modelOverride",
    "providers",
    "openai",
    "apiKey",
    "apiBase",
    "extraHeaders",
    "llm",
    "timeout",
    "maxRetries",
    "retryBudget",
    "memory",
    "history",
    "fsync",
    "retention",
    "search",
    "fusion",
    "git",
    "trackedFiles",
    "gcEvery",
    "contextWindowTokens",
    "temperature",
    "channels",
    "unknownThing",
    "",
    "é",
    "\x00",
]

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
    | st.sampled_from(["NaN", "Infinity", "1e309", "-1", "0", "true", "*/5 * * * *"])
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=25,
)
documents = st.dictionaries(st.sampled_from(KEYS), values, max_size=6)


def _nested(doc: dict) -> dict:
    """Also place the document where the real keys live, so validation goes past the top level."""
    return {
        "agents": {"defaults": doc},
        "providers": {"openai": doc},
        "llm": doc,
        "memory": {"history": doc},
        **doc,
    }


@pytest.fixture(autouse=True)
def _quiet(caplog):
    caplog.set_level(logging.ERROR, logger="reverie.storage.config")


@FUZZ
@given(doc=documents, nest=st.booleans())
def test_random_documents_load_or_fail_with_a_config_error(doc: dict, nest: bool) -> None:
    data = _nested(doc) if nest else doc
    try:
        config = validate_config(data)
    except ConfigError as exc:
        assert str(exc).startswith("config: ") and "\n" not in str(exc)
        return
    assert isinstance(config, Config)
    assert isinstance(config.model, str) and isinstance(config.dream_model, str)


def test_what_loads_round_trips_through_save(tmp_path: Path) -> None:
    @FUZZ
    @given(doc=documents, nest=st.booleans())
    def check(doc: dict, nest: bool) -> None:
        try:
            config = validate_config(_nested(doc) if nest else doc)
        except ConfigError:
            return
        ws = tmp_path / "ws"
        ws.mkdir(exist_ok=True)
        save_config(config, ws / "reverie.json")
        again = load_config(ws, env={})
        assert again.dump() == config.dump()

    check()


@FUZZ
@given(raw=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_junk_files_are_config_errors(raw: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "reverie.json").write_bytes(raw)
        try:
            json.loads(raw)
            parses = True
        except ValueError:
            parses = False
        try:
            load_config(Path(d), env={})
        except ConfigError as exc:
            assert "reverie.json" in str(exc) or str(exc).startswith("config: ")
        else:
            assert parses  # only a valid JSON object can load
