"""The config read without pydantic (``reverie.storage.configdata``) is the config the models
give, or is
not used.

``config_defaults.json`` is generated from the models; the plain view over it must answer every key
as a ``Config()`` does, and it must only be used when no file and no variable sets a key.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from reverie.cli.reference import config_defaults
from reverie.errors import ConfigError
from reverie.storage import configdata
from reverie.storage.config import Config, load_config, validate_config
from reverie.storage.configdata import ConfigView, defaults_if_unset
from reverie.storage.store import WorkspaceStore
from reverie.storage.workspace import Workspace


def test_the_defaults_file_is_what_the_models_give() -> None:
    assert configdata.DEFAULTS_PATH.read_text(encoding="utf-8") == config_defaults(), (
        "reverie/config_defaults.json is stale: run `python -m reverie.cli.reference`"
    )


def _leaves(model: BaseModel, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    out: list[tuple[tuple[str, ...], Any]] = []
    for name in type(model).model_fields:
        value = getattr(model, name)
        if isinstance(value, BaseModel):
            out += _leaves(value, (*path, name))
        else:
            out.append(((*path, name), value))
    return out


def _get(view: Any, path: tuple[str, ...]) -> Any:
    for name in path:
        view = getattr(view, name)
    return view


def test_the_view_answers_every_key_as_the_models_do(tmp_path: Path) -> None:
    view = defaults_if_unset(tmp_path, env={})
    assert view is not None
    leaves = _leaves(Config())
    assert {path[0] for path, _ in leaves} == set(Config.model_fields)  # every section
    for path, value in leaves:
        got = _get(view, path)
        got = dict(got._data) if isinstance(got, ConfigView) else got  # noqa: SLF001
        # the same type too: a float field's int default (intervalH 2) is an int in both
        assert got == value and type(got) is type(value), ".".join(path)
    with pytest.raises(AttributeError):
        _get(view, ("memory", "history", "no_such_key"))


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"agents": {"defaults": {"model": "openai/x"}}},
        {"agents": {"defaults": {"model": "openai/x", "dream": {"modelOverride": "openai/y"}}}},
        {"agents": {"defaults": {"dream": {"model": "legacy/z"}}}},
        {"agents": {"defaults": {"dream": {"model": "legacy/z", "modelOverride": "openai/y"}}}},
    ],
)
def test_the_derived_models_agree(data: dict[str, Any]) -> None:
    config = validate_config(data)
    view = ConfigView(config.model_dump(mode="json"))
    assert (view.model, view.dream_model) == (config.model, config.dream_model)
    assert view.dream.soul_max_chars == config.dream.soul_max_chars


def test_the_view_is_used_only_when_nothing_sets_a_key(
    _isolated_home: Path, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    assert defaults_if_unset(ws, env={"REVERIE_DEBUG": "1", "REVERIE_X": "y"}) is not None
    (_isolated_home / "config.json").write_text("{}")
    (ws / "reverie.json").write_text("{}")
    assert defaults_if_unset(ws, env={}) is not None  # empty objects set nothing
    assert defaults_if_unset(ws, env={"REVERIE_MODEL": "openai/x"}) is None
    assert defaults_if_unset(ws, env={"REVERIE_MEMORY__HISTORY__FSYNC": "false"}) is None
    (ws / "reverie.json").write_text(json.dumps({"agents": {}}))
    assert defaults_if_unset(ws, env={}) is None
    (ws / "reverie.json").write_text("{}")
    (_isolated_home / "config.json").write_text(json.dumps({"channels": {}}))  # nanobot's key
    assert defaults_if_unset(ws, env={}) is None


@pytest.mark.parametrize("text", ["{not json", "[1, 2]"])
def test_a_broken_file_is_the_same_error_on_both_paths(
    _isolated_home: Path, tmp_path: Path, text: str
) -> None:
    (_isolated_home / "config.json").write_text(text)
    with pytest.raises(ConfigError) as plain:
        defaults_if_unset(tmp_path, env={})
    with pytest.raises(ConfigError) as validated:
        load_config(tmp_path, env={})
    assert str(plain.value) == str(validated.value)


def test_the_store_reads_a_set_key_through_the_models(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    ws.init()
    store = WorkspaceStore(ws)
    assert isinstance(store.settings, ConfigView) and "config" not in store.__dict__
    (ws.root / "reverie.json").write_text(json.dumps({"memory": {"history": {"fsync": False}}}))
    store = WorkspaceStore(ws)
    assert isinstance(store.settings, Config) and store.history.fsync is False
    given = validate_config({"agents": {"defaults": {"dream": {"soulMaxChars": 123}}}})
    store = WorkspaceStore(ws, config=given)
    assert store.settings is given and store.config is given
    loaded = WorkspaceStore(ws, config=lambda: given)
    assert loaded.config is given


def test_status_uses_a_config_given_to_open(tmp_path: Path) -> None:
    import reverie

    ws = Workspace(tmp_path / "ws")
    ws.init()
    given = validate_config({"agents": {"defaults": {"dream": {"soulMaxChars": 123}}}})
    with reverie.open(ws.root, config=given) as memory:
        assert memory.status().budgets["SOUL.md"]["limit"] == 123
    with reverie.open(ws.root) as memory:
        assert memory.status().budgets["SOUL.md"]["limit"] == Config().dream.soul_max_chars


def _nodes(model: BaseModel, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], BaseModel]]:
    out = [(path, model)]
    for name in type(model).model_fields:
        value = getattr(model, name)
        if isinstance(value, BaseModel):
            out += _nodes(value, (*path, name))
    return out


def test_the_demos_view_is_the_config_the_models_give(tmp_path: Path) -> None:
    """The demo's config read without pydantic (``given_if_only``) answers every key, every
    ``model_fields_set`` and the derived names as ``load_config`` does on the same workspace."""
    from reverie.chat.demo import DEMO_CONFIG
    from reverie.storage.configdata import given_if_only

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "reverie.json").write_text(json.dumps(DEMO_CONFIG))
    view = given_if_only(ws, DEMO_CONFIG, env={})
    config = load_config(ws, env={})
    assert view is not None
    for path, value in _leaves(config):
        got = _get(view, path)
        got = dict(got._data) if isinstance(got, ConfigView) else got  # noqa: SLF001
        assert got == value and type(got) is type(value), ".".join(path)
    for path, node in _nodes(config):
        assert _get(view, path).model_fields_set == node.model_fields_set, ".".join(path)
        assert _get(view, path).model_extra == (node.model_extra or {}), ".".join(path)
    assert view.defaults.context_window_tokens == config.defaults.context_window_tokens == 2048
    assert (view.model, view.dream_model) == (config.model, config.dream_model)
    assert view.dream.max_batch_size == config.dream.max_batch_size
    assert not view.providers and view.models.get(view.model) is None
    # a Memory's config goes to its worker processes pickled
    copy = pickle.loads(pickle.dumps(view, protocol=5))
    assert copy.defaults.model_fields_set == config.defaults.model_fields_set
    assert copy.memory.history.max_entry_chars == config.memory.history.max_entry_chars


def test_the_demos_view_only_when_its_file_is_the_only_source(
    _isolated_home: Path, tmp_path: Path
) -> None:
    from reverie.chat.demo import DEMO_CONFIG
    from reverie.storage.configdata import given_if_only

    ws = tmp_path / "ws"
    ws.mkdir()
    assert given_if_only(ws, DEMO_CONFIG, env={}) is None  # no reverie.json: not the demo's
    (ws / "reverie.json").write_text(json.dumps(DEMO_CONFIG))
    assert given_if_only(ws, DEMO_CONFIG, env={"REVERIE_HOME": "x"}) is not None
    assert given_if_only(ws, DEMO_CONFIG, env={"REVERIE_MODEL": "openai/x"}) is None
    (_isolated_home / "config.json").write_text(json.dumps({"git": {"gcEvery": 5}}))
    assert given_if_only(ws, DEMO_CONFIG, env={}) is None
    (_isolated_home / "config.json").write_text("{not json")
    with pytest.raises(ConfigError) as plain:
        given_if_only(ws, DEMO_CONFIG, env={})
    with pytest.raises(ConfigError) as validated:
        load_config(ws, env={})
    assert str(plain.value) == str(validated.value)
    (_isolated_home / "config.json").unlink()
    for odd in ({"agents": {"defaults": {"noSuchKey": 1}}}, {"providers": {"openai": {}}}):
        (ws / "reverie.json").write_text(json.dumps(odd))
        assert given_if_only(ws, odd, env={}) is None  # the models' to read (and to warn about)
