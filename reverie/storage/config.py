"""Reverie's configuration: one typed model, its sources, and its errors.

Sources, later winning: ``<home>/config.json`` (home is ``$REVERIE_HOME`` or ``~/.reverie``), the
workspace's optional ``reverie.json``, then environment variables. Keys are nanobot's camelCase, so
a nanobot ``config.json`` loads as is; snake_case is accepted too. Environment variables:
``REVERIE_MODEL`` (the agent's model) and, for any key, ``REVERIE_`` + its path joined by ``__``
(``REVERIE_AGENTS__DEFAULTS__DREAM__INTERVAL_H=4``); values are read as JSON when they parse, else
as strings.

Legacy keys are honoured and written back unchanged: ``dream.cron`` (wins over ``intervalH``) and
``dream.model`` (used as ``modelOverride``). Unknown keys are kept and warned about, except
nanobot's own sections.

The sources are read by ``reverie.storage.configdata`` (no pydantic), which also holds these models'
defaults as generated data for the paths that must start without pydantic (`reverie status`); the
models here stay the one definition.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.alias_generators import to_camel

from ..errors import ConfigError
from .configdata import (
    OFFLINE_MODEL,
    env_overrides,
    file_layers,
    home_config_path,
    merge,
    resolve_dream_model,
    resolve_model,
)
from .fsutil import atomic_write
from .workspace import ARCHIVE_GLOB, DATED_MEMORY_GLOB, MEMORY_FILES, TOPICS_GLOB

log = logging.getLogger(__name__)

__all__ = [
    "Config",
    "AgentDefaults",
    "DreamConfig",
    "LifecycleConfig",
    "ProviderConfig",
    "ModelSettings",
    "HistoryConfig",
    "GitConfig",
    "LLMConfig",
    "SearchConfig",
    "FlushConfig",
    "SessionFilesConfig",
    "TopicsConfig",
    "FleetConfig",
    "ServeConfig",
    "load_config",
    "save_config",
    "home_config_path",
    "OFFLINE_MODEL",
]

# Keys nanobot's config has (0.1.5 – 0.3.5) that Reverie does not use: kept, never warned about.
# ``("providers", "*")`` applies to every provider entry.
_NANOBOT_KEYS = {
    (): {
        "channels",
        "gateway",
        "tools",
        "api",
        "heartbeat",
        "mcpServers",
        "logging",
        "transcription",
        "modelPresets",
    },
    ("agents", "defaults"): {
        "workspace",
        "provider",
        "maxToolIterations",
        "reasoningEffort",
        "memoryWindow",
        "timezone",
        "maxToolResultChars",
        "providerRetryMode",
        "sendProgress",
        "sendToolHints",
        "botName",
        "idleCompactAfterMinutes",
        "modelPreset",
        "fallbackModels",
        "maxConcurrentSubagents",
        "toolHintMaxLength",
        "timezoneMode",
        "botIcon",
        "unifiedSession",
        "disabledSkills",
        "idleCompactCheckIntervalSeconds",
        "contextBlockLimit",
        "maxMessages",
    },
    ("agents", "defaults", "dream"): {"enabled", "annotateLineAges"},
    ("providers", "*"): {
        "apiType",
        "extraBody",
        "extraQuery",
        "proxy",
        "thinkingStyle",
        "region",
        "profile",
    },
}


class _Section(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        validate_assignment=True,
        allow_inf_nan=False,
    )


class LifecycleConfig(_Section):
    """Dream's lifecycle step (``reverie.dream.lifecycle``): how the prompt files stay within budget
    for years."""

    grace_days: int = Field(
        7, ge=0, le=3_650, description="days past its date a dated item stays in a prompt file"
    )
    target_ratio: float = Field(
        0.85,
        ge=0.3,
        le=1.0,
        description="a file over budget is archived down to this fraction of it",
    )
    half_life_days: float = Field(
        60, gt=0, description="salience: recency half-life of learning or confirmation"
    )
    stale_days: int | None = Field(
        30,
        ge=7,
        description="archive unprotected lines not learned, confirmed or "
        "recalled for this many days (null: only under budget "
        "pressure)",
    )


class DreamConfig(_Section):
    interval_h: float = Field(2, ge=1, description="hours between scheduled runs")
    cron: str | None = Field(None, description="legacy cron expression; wins over intervalH")
    model: str | None = Field(None, description="legacy name of modelOverride")
    model_override: str | None = Field(None, description="Dream's model (else the agent's)")
    max_batch_size: int = Field(20, ge=1, le=10_000, description="history entries per Dream batch")
    max_iterations: int = Field(10, ge=1, le=1_000, description="model turns per Dream run")
    max_tool_calls: int = Field(50, ge=1, le=10_000, description="edit tool calls per Dream run")
    token_budget: int = Field(
        200_000, ge=1_000, description="tokens per Dream run (prompt and reply)"
    )
    max_seconds: float = Field(300, gt=0, description="wall time of one Dream run, in seconds")
    max_attempts: int = Field(
        3,
        ge=1,
        le=100,
        description="failed runs (faults of the batch itself) before a batch is set aside",
    )
    protect_soul: bool = Field(
        True, description="Dream's SOUL.md changes wait for `reverie approve`"
    )
    memory_max_chars: int = Field(
        16_000, ge=100, description="budget of memory/MEMORY.md, in characters"
    )
    user_max_chars: int = Field(8_000, ge=100, description="budget of USER.md, in characters")
    soul_max_chars: int = Field(8_000, ge=100, description="budget of SOUL.md, in characters")
    drain_max_seconds: float = Field(
        1_800, gt=0, description="overall wall time of a drain (dream --all)"
    )
    drain_token_budget: int = Field(1_000_000, ge=1_000, description="overall tokens of a drain")
    lifecycle: LifecycleConfig = Field(default_factory=LifecycleConfig)

    @property
    def effective_model_override(self) -> str | None:
        return self.model_override or self.model


class AgentDefaults(_Section):
    model: str | None = Field(
        None,
        description="the agent's model (a litellm model name); "
        "unset: the offline engine reverie/offline",
    )
    context_window_tokens: int = Field(
        65_536, ge=2_048, description="context window used to decide when to consolidate"
    )
    max_tokens: int = Field(
        8_192, ge=1, description="max tokens per model reply (memory tasks send less)"
    )
    temperature: float = Field(0.1, ge=0, le=2, description="sent with every model call")
    consolidation_ratio: float = Field(
        0.5, ge=0.1, le=0.95, description="share of the prompt budget a session is archived down to"
    )
    dream: DreamConfig = Field(default_factory=DreamConfig)


class Agents(_Section):
    defaults: AgentDefaults = Field(default_factory=AgentDefaults)


class ProviderConfig(_Section):
    api_key: str | None = Field(
        None, repr=False, description="the provider's API key (else its usual environment variable)"
    )
    api_base: str | None = Field(None, description="the provider's endpoint URL")
    extra_headers: dict[str, str] | None = Field(
        None, repr=False, description="HTTP headers sent with every call to the provider"
    )


class ModelSettings(_Section):
    """What Reverie should know about one model (``models.<model name>``), where its provider's
    table or its error messages do not say it."""

    context_window_tokens: int | None = Field(
        None,
        ge=256,
        description="the model's context window in tokens (unset: agents.defaults."
        "contextWindowTokens when set and this is the agent's model, else litellm's model table, "
        "else that default, each capped by a window the provider's own over-window error named, "
        "learned and kept in the workspace)",
    )


class HistoryConfig(_Section):
    fsync: bool = Field(True, description="fsync every history append")
    max_entry_chars: int = Field(
        64_000, ge=1_000, description="longer entries are truncated with a visible marker"
    )
    retention: int | None = Field(
        None, ge=100, description="entries kept by compaction; null keeps all"
    )


class SearchConfig(_Section):
    """Recall (``reverie.recall``): the derived search index and its ranking."""

    embedding_model: str | None = Field(
        None, description="litellm embedding model; unset means BM25 only"
    )
    include_sessions: bool = Field(True, description="index session transcripts")
    half_life_days: float = Field(
        30, gt=0, description="temporal decay half-life; SOUL/USER/MEMORY never decay"
    )
    decay: bool = Field(True, description="let recency nudge the ranking (see halfLifeDays)")
    recency_weight: float = Field(
        0.1, ge=0, le=1, description="share of a score that recency can take away (measured)"
    )
    fusion: str = Field(
        "weighted", pattern="^(rrf|weighted)$", description="weighted (measured better) or rrf"
    )
    vector_weight: float = Field(
        0.2, ge=0, le=1, description="weight of vectors in weighted fusion (measured)"
    )
    mmr: bool = Field(False, description="diversify results (maximal marginal relevance)")
    mmr_lambda: float = Field(
        0.7, ge=0, le=1, description="relevance share of MMR diversification (1: relevance only)"
    )
    auto_recall: bool = Field(
        False, description="add the top hits for each chat message to the system prompt"
    )
    auto_recall_k: int = Field(
        3, ge=1, le=20, description="hits added per chat message by autoRecall"
    )
    index_dir: str | None = Field(
        None,
        description="a local-disk directory for the index (one file per workspace); "
        "null: memory/.index.sqlite in the workspace",
    )
    journal_mode: str = Field(
        "auto",
        pattern="^(auto|wal|delete)$",
        description="the index's SQLite journal: auto or delete (the rollback journal, which "
        "queries read without writing), or wal (queries then leave -wal/-shm files beside it)",
    )


class FlushConfig(_Section):
    """Pre-compaction flush of durable facts into ``memory/YYYY-MM-DD.md``."""

    enabled: bool = Field(
        True, description="save a session's durable facts to memory/YYYY-MM-DD.md before compaction"
    )
    threshold_tokens: int = Field(
        4_000,
        ge=0,
        description="flush when a session's prompt estimate comes within "
        "this many tokens of the consolidation trigger",
    )


class SessionFilesConfig(_Section):
    """Session-end memory files ``memory/YYYY-MM-DD-<slug>.md`` written at ``/new``."""

    enabled: bool = Field(
        True, description="write memory/YYYY-MM-DD-<slug>.md when a session ends (/new)"
    )
    min_user_messages: int = Field(
        3, ge=1, description="user messages a session needs for a session-end memory file"
    )


class TopicsConfig(_Section):
    """Topic files ``memory/topics/**`` (reverie.storage.topics): listed in the prompt by name, read
    on demand."""

    max_file_chars: int = Field(
        16_000,
        ge=100,
        description="largest topic file, in characters (Claude's "
        "memory tool shows 16,000 at a time)",
    )
    max_files: int = Field(200, ge=1, description="most topic files a workspace keeps")


class MemoryConfig(_Section):
    history: HistoryConfig = Field(default_factory=HistoryConfig)
    search: SearchConfig = Field(default_factory=SearchConfig)
    flush: FlushConfig = Field(default_factory=FlushConfig)
    session_files: SessionFilesConfig = Field(default_factory=SessionFilesConfig)
    topics: TopicsConfig = Field(default_factory=TopicsConfig)


class GitConfig(_Section):
    author_name: str = Field("Reverie", description="author of memory commits")
    author_email: str = Field("reverie@localhost", description="author e-mail of memory commits")
    tracked_files: list[str] = Field(
        default_factory=lambda: [*MEMORY_FILES, DATED_MEMORY_GLOB, ARCHIVE_GLOB, TOPICS_GLOB],
        description="paths and globs the memory repo versions",
    )
    gc_every: int = Field(
        100, ge=1, description="pack the memory repo's loose objects every N commits"
    )


class LLMConfig(_Section):
    """Model calls (owned by reverie.llm): per-attempt timeout and the retry policy's bounds."""

    timeout: float = Field(120, gt=0, description="seconds per attempt")
    max_retries: int = Field(
        5, ge=0, le=50, description="retries per model call (rate limits, timeouts, 5xx only)"
    )
    retry_budget: float = Field(
        300, gt=0, description="seconds across all attempts and waits of one call"
    )
    backoff_base: float = Field(
        1.0, ge=0, description="first retry wait, in seconds (doubles each time)"
    )
    backoff_max: float = Field(30, ge=0, description="longest retry wait, in seconds")
    retry_after_max: float = Field(60, ge=0, description="cap on a server's Retry-After")


class FleetConfig(_Section):
    """``reverie fleet``: Dream for many workspaces on Celery workers across machines
    (docs/scale.md)."""

    root: str | None = Field(None, description="the shared directory holding the workspaces")
    broker_url: str = Field(
        "redis://127.0.0.1:6379/0",
        description="Redis URL of the Celery broker and of "
        "the due index, leases and budget (redis://, rediss:// or redis+socket:///path)",
    )
    queue: str = Field("reverie-dream", min_length=1, description="the Celery queue of Dream jobs")
    lease_seconds: float = Field(
        120, gt=0, description="a workspace lease's lifetime, renewed by heartbeats"
    )
    heartbeat_seconds: float = Field(20, gt=0, description="seconds between lease renewals")
    fence_margin_seconds: float = Field(
        30, ge=0, description="lease time a run must have left to commit"
    )
    claim_seconds: float = Field(
        180,
        gt=0,
        description="a dispatched workspace is dispatched again when no "
        "heartbeat renewed its claim for this long (a dead worker's job)",
    )
    dispatch_every_seconds: float = Field(5, gt=0, description="seconds between dispatcher ticks")
    debounce_seconds: float = Field(
        300,
        ge=0,
        description="delay from a workspace's first pending append "
        "(or a run that left entries pending) to its Dream",
    )
    jitter_seconds: float = Field(
        60, ge=0, description="each workspace's fixed extra delay is below this"
    )
    max_inflight: int = Field(
        64, ge=1, description="Dream jobs queued or running at once, fleet-wide"
    )
    tokens_per_minute: int | None = Field(
        None, ge=1, description="model tokens admitted per minute, fleet-wide (null: no limit)"
    )
    tokens_per_run: int = Field(
        20_000, ge=1, description="tokens a run is assumed to use before any ran"
    )
    retry_backoff_seconds: float = Field(
        60, gt=0, description="first delay after a failed run (doubles)"
    )
    retry_backoff_max_seconds: float = Field(
        3_600, gt=0, description="longest delay after failed runs"
    )
    outage_backoff_seconds: float = Field(
        30,
        gt=0,
        description="first pause of every dispatch while the model is unavailable "
        "(doubles while it stays down, up to retryBackoffMaxSeconds)",
    )
    crash_park_after: int = Field(
        3, ge=1, description="jobs that died mid-run before a workspace is parked"
    )
    metrics_host: str = Field(
        "127.0.0.1", description="address the Prometheus metrics of dispatchers and workers bind"
    )
    dispatch_metrics_port: int | None = Field(
        None, ge=1, le=65535, description="the dispatcher's Prometheus port (null: none)"
    )
    worker_metrics_port: int | None = Field(
        None, ge=1, le=65535, description="a worker's Prometheus port (null: none)"
    )

    @model_validator(mode="after")
    def _lease_outlives_heartbeats(self) -> FleetConfig:
        if self.heartbeat_seconds >= self.lease_seconds / 2:
            raise ValueError(
                f"fleet.heartbeatSeconds ({self.heartbeat_seconds:g}) must be under half of "
                f"fleet.leaseSeconds ({self.lease_seconds:g}), or one late renewal loses the lease"
            )
        if self.fence_margin_seconds >= self.lease_seconds:
            raise ValueError(
                f"fleet.fenceMarginSeconds ({self.fence_margin_seconds:g}) must be under "
                f"fleet.leaseSeconds ({self.lease_seconds:g}), or no run may ever commit"
            )
        return self


class ServeConfig(_Section):
    """``reverie serve --root``: Dream for every scope under a root, in one process
    (reverie.schedule.root)."""

    max_inflight: int = Field(
        16, ge=1, le=10_000, description="Dream runs in flight at once (--max-inflight wins)"
    )
    tokens_per_minute: int | None = Field(
        None,
        ge=1_000,
        description="model tokens all runs may use per minute, "
        "against the provider's rate limit (null: no limit)",
    )
    jitter_seconds: float = Field(
        600,
        ge=0,
        description="a scope's runs are delayed by a fixed share of this, "
        "from its id, so a mass event does not fire at once",
    )
    poll_seconds: float = Field(
        1.0, gt=0, le=60, description="how often the due markers are looked at"
    )
    outage_backoff_seconds: float = Field(
        30,
        gt=0,
        description="first pause of every run while the provider is down "
        "(doubles while it stays down, up to retryBackoffMaxSeconds)",
    )
    retry_backoff_seconds: float = Field(
        60,
        gt=0,
        description="first delay before a scope is retried whose Dream lock another process "
        "holds, or whose run failed (doubling while it keeps failing)",
    )
    retry_backoff_max_seconds: float = Field(
        900, gt=0, description="longest delay after failed runs, and longest outage pause"
    )
    metrics_host: str = Field(
        "127.0.0.1", description="address the Prometheus metrics of serve --root bind"
    )
    metrics_port: int | None = Field(
        None, ge=1, le=65535, description="serve --root's Prometheus port (null: none)"
    )
    progress_seconds: float = Field(
        60,
        gt=0,
        description="seconds between serve --root's progress lines when not on a terminal "
        "(and its JSON lines with --json)",
    )


class Config(_Section):
    """A workspace's whole configuration (``reverie.json`` over ``~/.reverie/config.json`` over the
    defaults): every key is in docs/config.md, where it comes from in docs/configuration.md."""

    agents: Agents = Field(default_factory=Agents)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    providers: dict[str, ProviderConfig] = Field(default_factory=dict)
    models: dict[str, ModelSettings] = Field(
        default_factory=dict, description="per model name (as configured): its settings"
    )
    memory: MemoryConfig = Field(default_factory=MemoryConfig)
    git: GitConfig = Field(default_factory=GitConfig)
    fleet: FleetConfig = Field(default_factory=FleetConfig)
    serve: ServeConfig = Field(default_factory=ServeConfig)

    @property
    def defaults(self) -> AgentDefaults:
        """``agents.defaults``: the agent's model settings and Dream's."""
        return self.agents.defaults

    @property
    def dream(self) -> DreamConfig:
        """``agents.defaults.dream``: Dream's settings."""
        return self.agents.defaults.dream

    @property
    def model(self) -> str:
        """The agent's model, or the offline engine when none is configured."""
        return resolve_model(self.agents.defaults.model)

    @property
    def dream_model(self) -> str:
        """``modelOverride`` when set, else the agent's model, else the offline engine."""
        return resolve_dream_model(
            self.dream.model_override, self.dream.model, self.agents.defaults.model
        )

    def dump(self) -> dict[str, Any]:
        """The config as nanobot-style JSON data: only keys that were set, legacy and unknown keys
        kept."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


def _canon(name: str) -> str:
    return name.replace("_", "").lower()


def _align_keys(data: Any, model: type[BaseModel] | None, where: str = "") -> Any:
    """Rename keys to the model's aliases (snake_case ``interval_h``, an environment-derived
    ``INTERVAL_H``: ``intervalH``), so every spelling of a key is one key and the later source wins.
    Two spellings of one key in one source with different values: the later one is used, and a
    warning names both (``where`` is the source)."""
    if not isinstance(data, dict) or model is None:
        return data
    fields = {
        _canon(f.alias or n): (f.alias or n, f.annotation) for n, f in model.model_fields.items()
    }
    out: dict[str, Any] = {}
    spelled: dict[str, str] = {}
    for key, value in data.items():
        alias, annotation = fields.get(_canon(key), (key, None))
        sub = (
            annotation
            if isinstance(annotation, type) and issubclass(annotation, BaseModel)
            else None
        )
        if sub is None and alias == "providers" and isinstance(value, dict):
            value = {k.lower(): _align_keys(v, ProviderConfig, where) for k, v in value.items()}
        if sub is None and alias == "models" and isinstance(value, dict):
            value = {k: _align_keys(v, ModelSettings, where) for k, v in value.items()}
        value = _align_keys(value, sub, where)
        if isinstance(value, dict) and isinstance(out.get(alias), dict):
            value = merge(out[alias], value)
        elif alias in out and out[alias] != value:
            # The values are not shown: the key may be a credential (apiKey and api_key).
            log.warning(
                "config%s: %s and %s are one key (%s) with different values; using %s, the later",
                f" ({where})" if where else "",
                spelled[alias],
                key,
                alias,
                key,
            )
        out[alias] = value
        spelled[alias] = key
    return out


def _unknown_keys(model: BaseModel, path: tuple[str, ...] = ()) -> list[str]:
    """Dotted paths of keys no model field (and no known nanobot key) claims."""
    nanobot = _NANOBOT_KEYS.get(path) or _NANOBOT_KEYS.get((*path[:-1], "*"), set())
    found = [".".join((*path, key)) for key in model.model_extra or {} if key not in nanobot]
    for name, info in type(model).model_fields.items():
        value = getattr(model, name)
        alias = info.alias or name
        if isinstance(value, BaseModel):
            found += _unknown_keys(value, (*path, alias))
        elif isinstance(value, dict):
            for k, v in value.items():
                if isinstance(v, BaseModel):
                    found += _unknown_keys(v, (*path, alias, k))
    return found


def _warn_unknown(model: BaseModel) -> None:
    unknown = _unknown_keys(model)
    if unknown:
        shown = ", ".join(unknown[:10]) + (
            f" (+{len(unknown) - 10} more)" if len(unknown) > 10 else ""
        )
        log.warning(
            "config: unknown key%s kept but not used: %s", "s" if len(unknown) > 1 else "", shown
        )


def _explain(exc: ValidationError, data: Mapping[str, Any]) -> str:
    err = exc.errors()[0]
    key = ".".join(str(p) for p in err["loc"])
    value = err.get("input")
    shown = (
        json.dumps(value)
        if isinstance(value, (int, float, str, bool, type(None)))
        else repr(value)[:60]
    )
    more = f" (and {len(exc.errors()) - 1} more)" if len(exc.errors()) > 1 else ""
    return f"config: {key} = {shown}: {err['msg']}{more}"


#: Keys renamed so that one knob has one name in ``serve`` and ``fleet``: the old name is still
#: read, with a warning, and the new one wins when both are set.
_RENAMED = {
    ("serve", "concurrency"): "maxInflight",
    ("serve", "busyRetrySeconds"): "retryBackoffSeconds",
    ("serve", "backoffMaxSeconds"): "retryBackoffMaxSeconds",
    ("serve", "backoffSeconds"): "outageBackoffSeconds",
}


def _read_renamed(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` with each old key of `_RENAMED` under its new name (any spelling: camelCase,
    snake_case, an environment variable's capitals), each one warned about."""
    out = dict(data)
    for (section, old), new in _RENAMED.items():
        part = out.get(section)
        if not isinstance(part, dict):
            continue
        spelled = {_canon(key): key for key in part}
        if _canon(old) not in spelled:
            continue
        part = dict(part)
        value = part.pop(spelled[_canon(old)])
        if _canon(new) in spelled:
            log.warning(
                "config: %s.%s is ignored: it is the old name of %s.%s, set too",
                section,
                old,
                section,
                new,
            )
        else:
            part[new] = value
            log.warning(
                "config: %s.%s is now called %s.%s (read this time: rename it)",
                section,
                old,
                section,
                new,
            )
        out[section] = part
    return out


def validate_config(data: Mapping[str, Any]) -> Config:
    """Validate config data, turning pydantic's error into one line naming key, value and what is
    allowed."""
    try:
        config = Config.model_validate(_read_renamed(data))
    except ValidationError as exc:
        raise ConfigError(_explain(exc, data)) from None
    _warn_unknown(config)
    return config


def load_config(workspace: Path | None = None, *, env: Mapping[str, str] | None = None) -> Config:
    """Home config, then ``<workspace>/reverie.json``, then the environment."""
    data: dict[str, Any] = {}
    for path, layer in file_layers(workspace):
        data = merge(data, _align_keys(layer, Config, str(path)))
    variables = env_overrides(os.environ if env is None else env)
    return validate_config(merge(data, _align_keys(variables, Config, "environment")))


def save_config(config: Config, path: Path) -> None:
    """Write the config back atomically, keeping legacy and unknown keys."""
    # stdlib json: unlike orjson it also writes integers past 64 bits that a caller may have put in
    # unknown keys.
    atomic_write(Path(path), json.dumps(config.dump(), indent=2, ensure_ascii=False) + "\n")
