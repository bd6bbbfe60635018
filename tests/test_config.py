"""Config: nanobot's files load as is, legacy keys are honoured and kept, layering, env vars,
clear errors."""

from __future__ import annotations

import logging
from pathlib import Path

import orjson
import pytest

from reverie.errors import ConfigError
from reverie.storage.config import OFFLINE_MODEL, load_config, save_config, validate_config

DATA = Path(__file__).parent / "data"


def write_json(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(data))
    return path


@pytest.mark.parametrize("version", ["0.3.5", "0.1.5.post3"])
def test_nanobot_config_json_loads_as_is_without_warnings(_isolated_home, version, caplog):
    """The files are nanobot-ai's own default config, dumped by that release (see tests/data)."""
    (_isolated_home / "config.json").write_bytes(
        (DATA / f"nanobot-{version}-config.json").read_bytes()
    )
    with caplog.at_level(logging.WARNING, logger="reverie.storage.config"):
        cfg = load_config()
    assert caplog.records == []
    assert cfg.model == "anthropic/claude-opus-4-5"
    assert cfg.dream.interval_h == 2 and cfg.dream.effective_model_override is None
    assert cfg.dream_model == cfg.model
    assert "openai" in cfg.providers


def test_defaults_without_any_file():
    cfg = load_config()
    assert cfg.model == OFFLINE_MODEL and cfg.dream_model == OFFLINE_MODEL
    assert (
        cfg.dream.interval_h == 2
        and cfg.dream.max_batch_size == 20
        and cfg.dream.max_iterations == 10
    )
    assert cfg.dream.model_override is None and cfg.memory.history.fsync is True


def test_legacy_dream_keys_are_honoured_and_kept_on_write_back(tmp_path):
    data = {
        "agents": {
            "defaults": {
                "model": "openai/gpt-x",
                "dream": {"cron": "0 3 * * *", "model": "openai/mini", "intervalH": 6},
            }
        },
        "channels": {"telegram": {"enabled": False}},
    }
    cfg = validate_config(data)
    assert cfg.dream.cron == "0 3 * * *"  # the scheduler lets cron win over intervalH
    assert cfg.dream_model == "openai/mini"
    out = tmp_path / "config.json"
    save_config(cfg, out)
    back = orjson.loads(out.read_bytes())
    assert back["agents"]["defaults"]["dream"] == {
        "cron": "0 3 * * *",
        "model": "openai/mini",
        "intervalH": 6,
    }
    assert back["channels"] == {"telegram": {"enabled": False}}
    assert "memory" not in back  # only what was set is written back
    assert validate_config(back).dream_model == "openai/mini"


def test_model_override_wins_over_legacy_model():
    cfg = validate_config(
        {"agents": {"defaults": {"dream": {"model": "a/old", "modelOverride": "b/new"}}}}
    )
    assert cfg.dream_model == "b/new"


def test_snake_case_keys_are_accepted():
    cfg = validate_config({"agents": {"defaults": {"max_tokens": 100, "dream": {"interval_h": 3}}}})
    assert cfg.defaults.max_tokens == 100 and cfg.dream.interval_h == 3


def test_a_snake_case_key_is_the_same_key_as_its_camel_case(_isolated_home, tmp_path, caplog):
    """Issue 40: a snake_case ``interval_h`` in reverie.json lost to a camelCase ``intervalH`` in
    ~/.reverie/config.json (both kept, the alias won). They are one key: the later source wins,
    silently; two spellings in one file with different values warn, naming both and the file."""
    write_json(
        _isolated_home / "config.json", {"agents": {"defaults": {"dream": {"intervalH": 9}}}}
    )
    ws = tmp_path / "ws"
    write_json(ws / "reverie.json", {"agents": {"defaults": {"dream": {"interval_h": 2}}}})
    with caplog.at_level(logging.WARNING, logger="reverie.storage.config"):
        assert load_config(ws, env={}).dream.interval_h == 2
    assert caplog.records == []
    write_json(
        ws / "reverie.json", {"agents": {"defaults": {"dream": {"intervalH": 3, "interval_h": 4}}}}
    )
    with caplog.at_level(logging.WARNING, logger="reverie.storage.config"):
        assert load_config(ws, env={}).dream.interval_h == 4
    (warning,) = [r.getMessage() for r in caplog.records]
    assert "intervalH and interval_h are one key" in warning and "using interval_h" in warning
    assert str(ws / "reverie.json") in warning
    caplog.clear()
    key = "sk-" + "Zq9" * 12
    write_json(ws / "reverie.json", {"providers": {"openai": {"apiKey": "old", "api_key": key}}})
    with caplog.at_level(logging.WARNING, logger="reverie.storage.config"):
        assert load_config(ws, env={}).providers["openai"].api_key == key
    assert "apiKey and api_key are one key" in caplog.text and key not in caplog.text


def test_workspace_file_overrides_home_and_env_overrides_both(_isolated_home, tmp_path):
    write_json(
        _isolated_home / "config.json",
        {"agents": {"defaults": {"model": "home/m", "maxTokens": 111, "dream": {"intervalH": 3}}}},
    )
    ws = tmp_path / "ws"
    write_json(ws / "reverie.json", {"agents": {"defaults": {"model": "ws/m"}}})
    cfg = load_config(ws, env={})
    assert (cfg.model, cfg.defaults.max_tokens, cfg.dream.interval_h) == ("ws/m", 111, 3)
    env = {
        "REVERIE_MODEL": "env/m",
        "REVERIE_AGENTS__DEFAULTS__DREAM__INTERVAL_H": "5",
        "REVERIE_MEMORY__HISTORY__FSYNC": "false",
        "REVERIE_PROVIDERS__OPENAI__API_KEY": "sk-test",
        "REVERIE_AGENTS__DEFAULTS__DREAM__MODEL_OVERRIDE": "env/dream",
    }
    cfg = load_config(ws, env=env)
    assert cfg.model == "env/m" and cfg.dream.interval_h == 5 and cfg.memory.history.fsync is False
    assert cfg.providers["openai"].api_key == "sk-test" and cfg.dream_model == "env/dream"
    assert cfg.defaults.max_tokens == 111  # untouched keys still come from the files


def test_reverie_home_and_workspace_variables_are_not_config_keys(caplog):
    with caplog.at_level(logging.WARNING, logger="reverie.storage.config"):
        load_config(env={"REVERIE_HOME": "/x", "REVERIE_WORKSPACE": "/y", "REVERIE_DEBUG": "1"})
    assert caplog.records == []


@pytest.mark.parametrize(
    ("data", "key", "value", "allowed"),
    [
        (
            {"agents": {"defaults": {"dream": {"intervalH": 0}}}},
            "agents.defaults.dream.intervalH",
            "0",
            "greater than or equal to 1",
        ),
        (
            {"agents": {"defaults": {"dream": {"intervalH": "soon"}}}},
            "agents.defaults.dream.intervalH",
            '"soon"',
            "valid number",
        ),
        (
            {"agents": {"defaults": {"maxTokens": -5}}},
            "agents.defaults.maxTokens",
            "-5",
            "greater than or equal to 1",
        ),
        (
            {"agents": {"defaults": {"dream": {"maxBatchSize": 0}}}},
            "agents.defaults.dream.maxBatchSize",
            "0",
            "greater than or equal to 1",
        ),
        ({"agents": {"defaults": {"model": 7}}}, "agents.defaults.model", "7", "valid string"),
        (
            {"memory": {"history": {"fsync": "sometimes"}}},
            "memory.history.fsync",
            '"sometimes"',
            "valid boolean",
        ),
    ],
)
def test_bad_value_names_key_value_and_what_is_allowed(data, key, value, allowed):
    with pytest.raises(ConfigError) as err:
        validate_config(data)
    msg = str(err.value)
    assert key in msg and f"= {value}" in msg and allowed in msg
    assert "\n" not in msg


def test_bad_env_value_is_a_config_error():
    with pytest.raises(ConfigError, match="intervalH = 0.5"):
        load_config(env={"REVERIE_AGENTS__DEFAULTS__DREAM__INTERVAL_H": "0.5"})


@pytest.mark.parametrize(
    ("raw", "fragment"), [(b"{not json", "not valid JSON"), (b"[1, 2]", "JSON object")]
)
def test_unreadable_config_file_names_the_file(_isolated_home, raw, fragment):
    path = _isolated_home / "config.json"
    path.write_bytes(raw)
    with pytest.raises(ConfigError) as err:
        load_config()
    assert str(path) in str(err.value) and fragment in str(err.value)


def test_unknown_keys_warn_once_and_are_kept(caplog, tmp_path):
    data = {
        "agents": {"defaults": {"modle": "typo", "dream": {"intervall": 3}}},
        "extraSection": {"a": 1},
    }
    with caplog.at_level(logging.WARNING, logger="reverie.storage.config"):
        cfg = validate_config(data)
    (record,) = caplog.records
    for key in ("agents.defaults.modle", "agents.defaults.dream.intervall", "extraSection"):
        assert key in record.getMessage()
    save_config(cfg, tmp_path / "c.json")
    assert orjson.loads((tmp_path / "c.json").read_bytes()) == data


def test_save_config_is_atomic_and_leaves_no_temp_files(tmp_path):
    target = tmp_path / "config.json"
    target.write_text("old")
    save_config(validate_config({"agents": {"defaults": {"model": "m"}}}), target)
    assert orjson.loads(target.read_bytes()) == {"agents": {"defaults": {"model": "m"}}}
    assert [p.name for p in tmp_path.iterdir()] == ["config.json"]


def test_api_key_is_not_in_repr():
    cfg = validate_config({"providers": {"openai": {"apiKey": "sk-secret-123"}}})
    assert "sk-secret-123" not in repr(cfg)


@pytest.mark.parametrize("value", [float("inf"), float("nan")])
def test_non_finite_numbers_are_refused(value):
    with pytest.raises(ConfigError, match="intervalH"):
        validate_config({"agents": {"defaults": {"dream": {"intervalH": value}}}})


def test_serve_keys_renamed_to_the_fleets_names_are_still_read_with_a_warning(caplog):
    """One knob, one name: ``serve.concurrency`` is ``serve.maxInflight`` (as
    ``fleet.maxInflight``),
    ``busyRetrySeconds`` / ``backoffMaxSeconds`` are ``retryBackoffSeconds`` /
    ``retryBackoffMaxSeconds`` (as the fleet's), ``backoffSeconds`` is ``outageBackoffSeconds``. An
    old name is still read, in any spelling, and warned about; the new one wins when both are
    set."""
    data = {
        "serve": {
            "concurrency": 7,
            "busy_retry_seconds": 5,
            "backoffMaxSeconds": 50,
            "backoffSeconds": 3,
        }
    }
    with caplog.at_level(logging.WARNING, logger="reverie.storage.config"):
        serve = validate_config(data).serve
    assert (serve.max_inflight, serve.retry_backoff_seconds) == (7, 5)
    assert (serve.retry_backoff_max_seconds, serve.outage_backoff_seconds) == (50, 3)
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 4 and "serve.concurrency is now called serve.maxInflight" in said[0]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="reverie.storage.config"):
        serve = validate_config({"serve": {"concurrency": 7, "maxInflight": 9}}).serve
    assert serve.max_inflight == 9
    assert "serve.concurrency is ignored" in caplog.records[0].getMessage()
    env = {"REVERIE_SERVE__CONCURRENCY": "5"}
    assert load_config(env=env).serve.max_inflight == 5
