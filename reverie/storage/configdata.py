"""The config as plain data: its sources (files and ``REVERIE_*`` variables) and the models'
defaults.

``reverie.storage.config`` validates what this module reads through its pydantic models, the one
definition of every key, type and default. This module exists for the paths that must not import
pydantic (`reverie status`: pydantic's import is most of its start-up): when no file and no variable
sets a key, the config is exactly the models' defaults, which ``config_defaults.json`` holds as
data. That file is generated from the models by ``python -m reverie.cli.reference`` and
``tests/test_config_defaults.py`` fails when it differs from them. `reverie demo` reads its own
reverie.json over them the same way (``given_if_only``: values the models take as they are). When
any other key is set, callers validate through ``reverie.storage.config.load_config``, so a bad
value gets the same one-line error on every path.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import orjson

from ..errors import ConfigError
from .workspace import default_home

__all__ = [
    "OFFLINE_MODEL",
    "ConfigView",
    "DEFAULTS_PATH",
    "resolve_model",
    "defaults_if_unset",
    "given_if_only",
    "resolve_dream_model",
    "env_overrides",
    "home_config_path",
    "merge",
    "read_json",
    "sources",
]

#: The model name of the built-in offline rule-based engine, used when no model is configured.
OFFLINE_MODEL = "reverie/offline"
#: The models' defaults keyed by field name (``Config().model_dump(mode="json")``), generated: do
#: not edit.
DEFAULTS_PATH = Path(__file__).resolve().parent.parent / "config_defaults.json"
#: ``REVERIE_*`` variables that are not config keys.
ENV_SKIP = {"REVERIE_HOME", "REVERIE_WORKSPACE", "REVERIE_DEBUG"}


def home_config_path() -> Path:
    return default_home() / "config.json"


def read_json(path: Path) -> dict[str, Any]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror}") from exc
    try:
        # stdlib json, like the writer: orjson reads an integer past 64 bits as a float, so an
        # unknown key holding one would not round-trip (config files are small; speed does not
        # matter here)
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a JSON object, not {type(data).__name__}")
    return data


def merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merge(dict(out[key]), value)
        else:
            out[key] = value
    return out


def env_overrides(env: Mapping[str, str]) -> dict[str, Any]:
    """Nested config data from ``REVERIE_*`` variables; keys are matched to aliases later,
    case-insensitively."""
    data: dict[str, Any] = {}
    for name, raw in env.items():
        if not name.startswith("REVERIE_") or name in ENV_SKIP:
            continue
        if name == "REVERIE_MODEL":
            path = ["agents", "defaults", "model"]
        elif "__" in name:
            path = [p for p in name[len("REVERIE_") :].split("__") if p]
        else:
            continue
        try:
            value: Any = orjson.loads(raw)
        except orjson.JSONDecodeError:
            value = raw
        node = data
        for part in path[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                break
        else:
            node[path[-1]] = value
    return data


def sources(
    workspace: Path | None, env: Mapping[str, str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The files' data (home config, then ``<workspace>/reverie.json`` over it) and the variables'
    data, raw."""
    data: dict[str, Any] = {}
    for _, layer in file_layers(workspace):
        data = merge(data, layer)
    return data, env_overrides(env)


def file_layers(workspace: Path | None) -> list[tuple[Path, dict[str, Any]]]:
    """Each config file that exists, with its raw data, earliest (losing) first."""
    paths = [home_config_path()]
    if workspace is not None:
        paths.append(Path(workspace) / "reverie.json")
    return [(path, data) for path in paths if (data := read_json(path))]


def resolve_model(configured: str | None) -> str:
    """The agent's model: the configured one, or the offline engine."""
    return configured or OFFLINE_MODEL


def resolve_dream_model(override: str | None, legacy: str | None, configured: str | None) -> str:
    """Dream's model: ``modelOverride``, else the legacy ``dream.model``, else the agent's model."""
    return override or legacy or resolve_model(configured)


class ConfigView:
    """Read-only attribute access over config data keyed by field name, as the models give it:
    ``view.memory.history.max_entry_chars``, ``view.model``, ``view.dream_model``, ``view.dream``,
    ``view.defaults``; a dict-valued key (``providers``, ``models``) reads as a mapping
    (``view.models.get(name)``). ``given`` is the part of the data a source set (keyed as
    ``data``): what the models' ``model_fields_set`` holds at each level; no key is unknown, so
    ``model_extra`` is empty.
    """

    __slots__ = ("_data", "_given", "_kids")

    def __init__(self, data: Mapping[str, Any], given: Mapping[str, Any] | None = None) -> None:
        self._data = data
        self._given: Mapping[str, Any] = given or {}
        #: the views of its sections, made once: a demo reads its config some 7,000 times
        self._kids: dict[str, ConfigView] = {}

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # not a key (and no recursion before __init__ set the slots)
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __getitem__(self, key: str) -> Any:
        kid = self._kids.get(key)
        if kid is not None:
            return kid
        value = self._data[key]
        if not isinstance(value, Mapping):
            return value
        given = self._given.get(key)
        kid = self._kids[key] = ConfigView(value, given if isinstance(given, Mapping) else None)
        return kid

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self._data else default

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    @property
    def model_fields_set(self) -> set[str]:
        return set(self._given)

    @property
    def model_extra(self) -> dict[str, Any]:
        return {}

    # The whole config's shortcuts, as ``Config`` has them; in a section, its own key of the name.
    @property
    def defaults(self) -> Any:
        if "agents" not in self._data:
            return self.__getattr__("defaults")
        return self["agents"]["defaults"]

    @property
    def dream(self) -> Any:
        if "agents" not in self._data:
            return self.__getattr__("dream")
        return self["agents"]["defaults"]["dream"]

    @property
    def model(self) -> Any:
        if "agents" not in self._data:
            return self.__getattr__("model")
        return resolve_model(self["agents"]["defaults"]["model"])

    @property
    def dream_model(self) -> str:
        dream = self.dream
        return resolve_dream_model(dream.model_override, dream.model, self.defaults.model)


@cache
def _defaults() -> Mapping[str, Any]:
    data: Mapping[str, Any] = orjson.loads(DEFAULTS_PATH.read_bytes())
    return data


def defaults_if_unset(
    workspace: Path | None, env: Mapping[str, str] | None = None
) -> ConfigView | None:
    """The models' defaults when no config file and no variable sets a key (the config is then
    exactly these), else None: the caller validates the sources with
    ``reverie.storage.config.load_config``. A file that cannot be read or parsed raises the same
    ``ConfigError`` as ``load_config``."""
    files, variables = sources(workspace, os.environ if env is None else env)
    if files or variables:
        return None
    return ConfigView(_defaults())


def given_if_only(
    workspace: Path, given: Mapping[str, Any], env: Mapping[str, str] | None = None
) -> ConfigView | None:
    """The config when its sources hold exactly ``given`` (keyed as in a file, camelCase) and no
    variable sets a key: the models' defaults with ``given``'s values over them. Else None: the
    caller validates the sources with ``reverie.storage.config.load_config``. ``given`` must be
    data the models take as it is, every key theirs and every value of its field's type and range
    (the demo's reverie.json, ``tests/test_config_defaults.py``: the view equals the models'
    config key for key). A file that cannot be read or parsed raises the same ``ConfigError`` as
    ``load_config``."""
    files, variables = sources(workspace, os.environ if env is None else env)
    if files != given or variables:
        return None
    named = _field_names(given, _defaults())
    if named is None:
        return None
    return ConfigView(merge(dict(_defaults()), named), named)


def _field_names(data: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any] | None:
    """``data`` keyed by field name (``contextWindowTokens``: ``context_window_tokens``, the
    models' alias generator reversed), or None when a key is not a field of ``defaults``."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m.group(1).lower(), key)
        if name not in defaults:
            return None
        sub = defaults[name]
        if isinstance(value, Mapping):
            if not isinstance(sub, Mapping) or (value and not sub):
                return None  # a dict-valued key (``providers``) set: the models' to read
            value = _field_names(value, sub)
            if value is None:
                return None
        out[name] = value
    return out
