"""The model client: one async call, ``complete``, with Reverie's retry policy and error classes.

Which code answers a model name is ``registry``'s decision: in-process models (the offline engine
``reverie/…``, the test fake ``scripted/…``) are called directly; every other name is a remote
provider reached through ``litellm.acompletion`` (a hosted model, ``ollama/…``, ``openai/<name>``
with ``apiBase``), and litellm is imported on the first such call, not before.

Failures, classified on the first attempt (``ModelUnavailableError``, one line naming the provider,
the model, the endpoint and what to set; never retried):

- ``auth``: no API key, or the provider refused it (401/403);
- ``not-found``: the provider has no such model (404), or litellm cannot tell which provider serves
  the name;
- ``unreachable``: the endpoint refused the connection or its host name does not resolve.

Retried, within the budget: rate limits (429, honouring ``Retry-After`` / ``retry-after-ms`` up to
``retryAfterMax``), 408/409, 5xx, timeouts and dropped connections. A 500 whose body says the
request itself is malformed (a server template choking on a message) is retried once, then final.
Other 4xx are final (a bad request stays bad). Waits grow exponentially from ``backoffBase`` (capped
at ``backoffMax``) with jitter; at most ``maxRetries`` retries, and the whole call stays within
``retryBudget`` seconds — and within the caller's ``deadline`` when it gives one (Dream gives its
run's, so a call always ends on its own timeout before the run's limit). A retryable fault that
outlasts the budget is a ``ModelUnavailableError``: of kind ``not-answering`` when no attempt got
any reply (every one timed out: a hung or stopped server), else ``overloaded``; a final fault of the
request is a plain ``ModelError``.

A request longer than the model's context window (litellm's ``ContextWindowExceededError``, or a 4xx
whose text says so) is a ``ContextWindowError`` carrying the window the provider named, never
retried as is: the caller learns the window (``reverie.llm.window``) and sends less.

Provider settings: ``providers.<name>.apiKey`` / ``apiBase`` / ``extraHeaders`` from config, the
provider named by the model's prefix (``openai/…`` → ``providers.openai``; aliases in
``_PROVIDER_ALIASES``); otherwise litellm reads the provider's usual environment variables
(``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``OLLAMA_API_BASE`` …). Keys are never logged: every
error text goes through ``security.secrets.scrub`` with the keys the call carried.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import random
import re
import socket
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type

from ..backoff import jittered_backoff
from ..errors import ContextWindowError, ModelError, ModelUnavailableError, cause_chain
from ..security.secrets import scrub
from . import registry
from .registry import prefix_of as provider_of
from .tokens import estimate_tokens
from .types import ModelResponse, ToolCall, Usage
from .window import parse_limit

if TYPE_CHECKING:
    from ..storage.config import Config, LLMConfig, ProviderConfig

log = logging.getLogger(__name__)

__all__ = ["ModelClient", "provider_of", "log_model_failure", "warned_since"]

# Model prefix → the config ``providers`` key holding its settings (nanobot's provider names).
_PROVIDER_ALIASES = {
    "hosted_vllm": "vllm",
    "vertex_ai": "vertex",
    "together_ai": "together",
    "ollama_chat": "ollama",
    "dashscope": "dashscope",
    "zai": "zhipu",
}
# Model name keywords → provider, for names without a prefix (``gpt-4o``, ``claude-3-5-sonnet``).
_KEYWORDS = (
    ("gpt", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("claude", "anthropic"),
    ("gemini", "gemini"),
    ("deepseek", "deepseek"),
    ("qwen", "dashscope"),
    ("glm", "zhipu"),
)
_RETRY_STATUS = {408, 409, 429}
#: Where a provider answers when no ``apiBase`` is configured (named in error messages only).
_DEFAULT_ENDPOINTS = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
    "deepseek": "https://api.deepseek.com",
    "gemini": "https://generativelanguage.googleapis.com",
    "groq": "https://api.groq.com/openai/v1",
    "mistral": "https://api.mistral.ai/v1",
    "openrouter": "https://openrouter.ai/api/v1",
    "ollama": "http://localhost:11434",
    "together": "https://api.together.xyz/v1",
}
#: The environment variable holding each provider's key, where it is not ``<PROVIDER>_API_KEY``.
_KEY_VARS = {
    "vertex": "GOOGLE_APPLICATION_CREDENTIALS",
    "together": "TOGETHERAI_API_KEY",
    "zhipu": "ZAI_API_KEY",
    "vllm": "HOSTED_VLLM_API_KEY",
}
# What a provider or server says when the request, not the server, is at fault (a deterministic
# 500).
_MALFORMED = re.compile(
    r"has no attribute|is undefined|is not defined|malformed|invalid "
    r"(?:request|json|message|argument|parameter)"
    r"|validation error|jinja|template|could not parse|unexpected "
    r"(?:token|keyword|field)|missing (?:required|field)"
    r"|TypeError|KeyError|AttributeError|ValueError",
    re.I,
)
# What a provider says when the prompt is longer than the model's window (OpenAI, vLLM, llama.cpp,
# Ollama, Anthropic phrasings).
_OVER_WINDOW = re.compile(
    r"context[_ ]length[_ ]exceeded|maximum context length|exceeds? (?:the )?(?:model'?s? )?context"
    r"|context window|prompt is too long|too many tokens|input (?:is )?too long|n_ctx",
    re.I,
)
_NO_KEY = re.compile(
    r"missing credentials|api_key client option must be set|no api key|api key (?:is )?(?:missing|"
    r"not (?:set|found|provided))|without an api key",
    re.I,
)


@dataclass(frozen=True)
class _Fault:
    """How one failed attempt is handled: ``kind`` auth / not-found / unreachable (final, the
    provider's fault), malformed (a 500 blaming the request: one retry), undecodable (a reply that
    is not valid UTF-8: one retry, then final — the same prompt may well give the same bytes, and
    an outage would hold the batch forever), retry (transient), timeout (no reply in time:
    transient), window (the prompt is over the model's window: final, the caller shrinks it), or
    final (the request's fault)."""

    kind: str
    retry_after: float | None = None


class _Retryable(Exception):
    """A transient fault of one attempt: the retry loop waits and tries again, or gives up."""

    def __init__(self, fault: _Fault, text: str) -> None:
        super().__init__(text)
        self.fault = fault
        self.text = text


@dataclass
class _Call:
    """One ``complete`` call across its attempts: what every attempt sends, its time, and what the
    attempts so far said (``silent``: every one timed out without any reply)."""

    name: str
    provider: str
    local: registry.LocalModel | None
    request: registry.Request
    routed: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None
    kwargs: dict[str, Any]
    secrets: list[str]
    started: float
    budget: float
    text: str = ""
    silent: bool = True
    malformed: int = 0

    @property
    def ends(self) -> float:
        return self.started + self.budget


def _last_fault(state: RetryCallState) -> _Retryable:
    exc = state.outcome.exception() if state.outcome is not None else None
    assert isinstance(exc, _Retryable)  # the loop retries only on these
    return exc


class ModelClient:
    """Async model calls with retries, usage and cost. One instance per config; safe to share
    between tasks."""

    def __init__(self, config: Config | None = None) -> None:
        if config is None:
            from ..storage.config import Config  # pydantic: only when no config is given

            config = Config()
        self.config = config
        self._sleep = asyncio.sleep  # the one wait; tests of the policy may replace it
        self._outages: dict[str, float] = {}  # model → when a call to it last ended in an outage

    def unavailable_within(self, model: str | None, seconds: float) -> bool:
        """Whether a call to ``model`` ended in an outage (``ModelUnavailableError``) in the last
        ``seconds``: a caller with something else to fall back on (a raw excerpt) need not wait
        for the same provider again."""
        at = self._outages.get(model or self.config.model)
        return at is not None and time.monotonic() - at < seconds

    @property
    def settings(self) -> LLMConfig:
        return self.config.llm

    # -- the call ----------------------------------------------------------------------------------
    async def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        model: str | None = None,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str | dict[str, Any] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        timeout: float | None = None,
        deadline: float | None = None,
    ) -> ModelResponse:
        """One chat completion. ``model`` None → ``config.model`` (the offline engine when
        unconfigured); ``temperature`` / ``max_tokens`` None → ``agents.defaults.temperature`` /
        ``maxTokens``; ``timeout`` None → ``llm.timeout`` per attempt; ``deadline`` (a
        ``time.monotonic()`` instant) ends the call, retries included, by then.

        Raises ``ModelUnavailableError`` when the provider is at fault (see the module docstring),
        ``ContextWindowError`` when the prompt is over the model's window, ``ModelError`` when the
        request is otherwise at fault; none ever carries an API key.
        """
        name = model or self.config.model
        provider = provider_of(name)
        messages = _valid_unicode(messages)
        # Every call carries an output limit and the configured temperature: a small model without
        # one generates to the end of its context, past the timeout.
        if temperature is None:
            temperature = self.config.defaults.temperature
        if max_tokens is None:
            max_tokens = self.config.defaults.max_tokens
        local = registry.resolve(name)
        request = registry.Request(name, messages, tools, tool_choice, temperature, max_tokens)
        kwargs = self._kwargs(
            name, provider, tools, tool_choice, temperature, max_tokens, remote=local is None
        )
        routed = self._route(name) if local is None else name
        s = self.settings
        per_attempt = timeout if timeout is not None else s.timeout
        started = time.monotonic()
        budget = s.retry_budget if deadline is None else min(s.retry_budget, deadline - started)
        call = _Call(
            name,
            provider,
            local,
            request,
            routed,
            messages,
            tools,
            kwargs,
            _secrets_of(kwargs),
            started,
            budget,
        )

        def wait(state: RetryCallState) -> float:
            return self._delay(state.attempt_number - 1, _last_fault(state).fault.retry_after)

        def stop(state: RetryCallState) -> bool:
            return state.attempt_number > s.max_retries or (
                time.monotonic() + state.upcoming_sleep >= call.ends
            )

        def log_retry(state: RetryCallState) -> None:
            log.info(
                "model %s: %s; retry %d in %.2fs",
                name,
                _last_fault(state).text,
                state.attempt_number,
                state.upcoming_sleep,
            )

        retrying = AsyncRetrying(
            retry=retry_if_exception_type(_Retryable),
            wait=wait,
            stop=stop,
            sleep=lambda delay: self._sleep(delay),
            before_sleep=log_retry,
            retry_error_callback=lambda state: self._give_up(call, state),
        )
        answer: ModelResponse = await retrying(self._attempt, call, per_attempt)
        return answer

    async def _attempt(self, call: _Call, per_attempt: float) -> ModelResponse:
        """One attempt within the call's time: the answer, or raises — `_Retryable` for a
        transient fault (the retry loop's to decide), the final error otherwise."""
        remaining = call.ends - time.monotonic()
        if remaining <= 0:
            raise self._unavailable(
                call.name,
                "not-answering" if call.silent else "overloaded",
                call.kwargs,
                f"{call.text or 'no reply'} (no time left for the call, {call.budget:.0f}s)",
            )
        try:
            if call.local is not None:
                answer = _finished(
                    await asyncio.wait_for(
                        _call_local(call.local, call.request), min(per_attempt, remaining)
                    ),
                    call.name,
                    call.provider,
                )
            else:
                raw = await self._acompletion(
                    call.routed, call.messages, call.kwargs, min(per_attempt, remaining)
                )
                answer = self._to_response(raw, call.name, call.provider, call.messages, call.tools)
            self._outages.pop(call.name, None)
            return answer
        except (asyncio.CancelledError, ModelError):
            raise
        except Exception as exc:  # noqa: BLE001 — classified here; anything unexpected is final
            fault = _classify(exc, call.provider, call.local is not None)
            call.text = scrub(_describe(exc), call.secrets)
        # Decided outside the except block, so the ModelError carries no link to the provider's
        # exception (whose text and request may hold the key).
        raise self._final(call, fault)

    def _final(self, call: _Call, fault: _Fault) -> Exception:
        """What a failed attempt raises: the final error for its fault, or `_Retryable`."""
        name, text = call.name, call.text
        call.silent = call.silent and fault.kind == "timeout"
        if fault.kind in ("auth", "not-found", "unreachable"):
            return self._unavailable(name, fault.kind, call.kwargs, text)
        if fault.kind == "window":
            limit, requested = parse_limit(text)
            sent = estimate_tokens(call.messages, call.tools)
            return ContextWindowError(
                f"{name}: the prompt is longer than the model's context window ({_short(text)})",
                limit=limit,
                requested=requested or sent,
            )
        if fault.kind == "final":
            return ModelError(f"{name}: {text}")
        if fault.kind == "undecodable":
            call.malformed += 1
            if call.malformed > 1:
                return ModelError(f"{name}: the reply is not valid UTF-8 ({_short(text)})")
        if fault.kind == "malformed":
            call.malformed += 1
            if call.malformed > 1:
                return ModelError(f"{name}: {text} (the same error twice; not retried again)")
        return _Retryable(fault, text)

    def _give_up(self, call: _Call, state: RetryCallState) -> ModelResponse:
        """The retry loop stopped on a transient fault: out of retries, or of time for the next."""
        attempts = state.attempt_number
        text = _last_fault(state).text
        gave_up = "not-answering" if call.silent else "overloaded"
        if attempts > self.settings.max_retries:
            detail = f"{text} (gave up after {attempts} attempts)"
        else:
            spent = time.monotonic() - call.started
            detail = (
                f"{text} (gave up after {attempts} attempts, "
                f"{spent:.1f}s; time for the call {call.budget:.0f}s)"
            )
        raise self._unavailable(call.name, gave_up, call.kwargs, detail)

    def _unavailable(
        self, name: str, kind: str, kwargs: Mapping[str, Any], detail: str
    ) -> ModelUnavailableError:
        """The one-line error for a fault of the provider: what failed, where, and what to set."""
        self._outages[name] = time.monotonic()
        provider = self.provider_key(name)
        endpoint = self.endpoint(name, kwargs)
        detail = _short(detail)
        if registry.resolve(name) is not None:
            message = (
                f"{name}: not answering: {detail}"
                if kind == "not-answering"
                else f"{name}: {detail}"
            )
        elif kind == "auth":
            var = (
                _KEY_VARS.get(provider, f"{provider.upper()}_API_KEY")
                if provider
                else "the provider's API key"
            )
            where = f"providers.{provider}.apiKey" if provider else "providers.<name>.apiKey"
            missing = bool(_NO_KEY.search(detail))
            what = (
                f"no API key for {provider or name}"
                if missing
                else f"{provider or 'the provider'} refused the API key"
            )
            message = f"{name}: {what} at {endpoint}; set {var} or {where}" + (
                "" if missing else f" ({detail})"
            )
        elif kind == "not-found":
            message = (
                f"{name}: no such model at {endpoint}; check agents.defaults.model (a provider "
                f"prefix such as openai/ or ollama/ and a model the provider serves) ({detail})"
            )
        elif kind == "unreachable":
            why = (
                "host name not found"
                if re.search(
                    r"name (?:or service )?not known|nodename|getaddrinfo|resolution", detail, re.I
                )
                else "connection refused"
            )
            where = f"providers.{provider}.apiBase" if provider else "providers.<name>.apiBase"
            message = f"{name}: cannot reach {endpoint} ({why}); start the server or set {where}"
        elif kind == "not-answering":
            message = f"{name}: {endpoint} is not answering: {detail}"
        else:
            message = f"{name}: {provider or 'the provider'} at {endpoint} kept failing: {detail}"
        return ModelUnavailableError(
            message, kind=kind, provider=provider, model=name, endpoint=endpoint
        )

    def provider_key(self, name: str) -> str:
        """The ``providers`` config key serving ``name`` (``openai`` for ``openai/…``, ``gpt-4o``
        and ``custom/…`` routed to an OpenAI-compatible server, ``""`` when unknown)."""
        prefix = provider_of(name)
        if prefix == "custom":
            return "custom"
        if prefix:
            return _PROVIDER_ALIASES.get(prefix, prefix)
        lowered = name.lower()
        for word, key in _KEYWORDS:
            if word in lowered:
                return key
        return "custom" if "custom" in self.config.providers else ""

    def endpoint(self, name: str, kwargs: Mapping[str, Any] | None = None) -> str:
        """Where a call to ``name`` goes: the configured ``apiBase``, the provider's base-URL
        variable, or its public default."""
        if registry.resolve(name) is not None:
            return "in-process"
        base = (kwargs or {}).get("api_base")
        if not base:
            settings = self.provider_settings(name)
            base = settings.api_base if settings is not None else None
        provider = self.provider_key(name)
        if not base and provider:
            base = os.environ.get(f"{provider.upper()}_API_BASE") or os.environ.get(
                f"{provider.upper()}_BASE_URL"
            )
        return str(
            base or _DEFAULT_ENDPOINTS.get(provider, f"{provider or name}'s default endpoint")
        )

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        """The wait before retry ``attempt + 1``: the server's ``Retry-After`` (capped) when it
        gave one, else the jittered backoff."""
        s = self.settings
        if retry_after is not None:
            return min(retry_after, s.retry_after_max) + random.uniform(0, 0.1 * s.backoff_base)
        return jittered_backoff(attempt + 1, s.backoff_base, s.backoff_max)

    async def _acompletion(
        self, name: str, messages: list[dict[str, Any]], kwargs: dict[str, Any], timeout: float
    ) -> Any:
        from ._litellm import get_litellm

        litellm = get_litellm()
        # litellm passes the timeout to the HTTP client; the wait_for (1 s later) catches one that
        # ignores it
        try:
            return await asyncio.wait_for(
                litellm.acompletion(model=name, messages=messages, timeout=timeout, **kwargs),
                timeout + 1.0,
            )
        except TimeoutError as exc:  # litellm did not honour its own timeout: treat as one
            raise litellm.Timeout(
                f"no reply within {timeout:.1f}s", model=name, llm_provider=""
            ) from exc

    def _kwargs(
        self,
        name: str,
        provider: str,
        tools: list[dict[str, Any]] | None,
        tool_choice: str | dict[str, Any] | None,
        temperature: float | None,
        max_tokens: int | None,
        *,
        remote: bool = True,
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {}
        if tools:
            kwargs["tools"] = tools
            if tool_choice is not None:
                kwargs["tool_choice"] = tool_choice
            # litellm 1.106 routes any call with tools through its MCP gateway check, which imports
            # the optional `mcp` package and fails without it; our tools are plain functions, so
            # skip that check (its own flag).
            kwargs["_skip_mcp_handler"] = True
        if temperature is not None:
            kwargs["temperature"] = temperature
        if max_tokens is not None:
            kwargs["max_tokens"] = max_tokens
        if not remote:
            return kwargs
        # ours is the only retry loop (the OpenAI SDK would retry twice on its own)
        kwargs["max_retries"] = 0
        kwargs["num_retries"] = 0
        settings = self.provider_settings(name)
        if settings is not None:
            if settings.api_key:
                kwargs["api_key"] = settings.api_key
            if settings.api_base:
                kwargs["api_base"] = settings.api_base
            if settings.extra_headers:
                kwargs["extra_headers"] = dict(settings.extra_headers)
        if (
            kwargs.get("api_base")
            and not kwargs.get("api_key")
            and provider_of(self._route(name)) == "openai"
            and not os.environ.get("OPENAI_API_KEY")
        ):
            kwargs["api_key"] = (
                # a local OpenAI-compatible server (llama.cpp, vLLM) needs none; the SDK does
                "no-key"
            )
        return kwargs

    def _route(self, name: str) -> str:
        """The model name litellm gets: nanobot's ``custom`` provider (any OpenAI-compatible server)
        is litellm's ``openai/…`` with that provider's ``apiBase``."""
        prefix = provider_of(name)
        if prefix == "custom":
            return f"openai/{name.split('/', 1)[1]}"
        if (
            not prefix
            and "custom" in self.config.providers
            and self.provider_settings(name) is self.config.providers["custom"]
        ):
            return f"openai/{name}"
        return name

    def provider_settings(self, model: str) -> ProviderConfig | None:
        """The ``providers.<name>`` config entry for ``model``, or None (litellm then reads the
        environment)."""
        providers = self.config.providers
        if not providers:
            return None
        prefix = provider_of(model)
        key = _PROVIDER_ALIASES.get(prefix, prefix) if prefix else None
        if key and key in providers:
            return providers[key]
        if prefix and prefix in providers:
            return providers[prefix]
        if not prefix:
            lowered = model.lower()
            for word, key in _KEYWORDS:
                if word in lowered and key in providers:
                    return providers[key]
            # nanobot's explicit choice
            chosen = (self.config.agents.defaults.model_extra or {}).get("provider")
            if isinstance(chosen, str) and chosen in providers:
                return providers[chosen]
            if "custom" in providers:
                return providers["custom"]
        return None

    # -- the response ------------------------------------------------------------------------------
    def _to_response(
        self,
        raw: Any,
        name: str,
        provider: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
    ) -> ModelResponse:
        choices = getattr(raw, "choices", None) or []
        if not choices:
            raise ModelError(f"{name}: the reply has no choices")
        choice = choices[0]
        message = getattr(choice, "message", None)
        content = getattr(message, "content", None) if message is not None else None
        if content is not None:
            content = _fix_text(content if isinstance(content, str) else str(content))
        content, reasoning = split_reasoning(content)
        given = getattr(message, "reasoning_content", None) if message is not None else None
        if isinstance(given, str) and given.strip():
            reasoning = _fix_text(given) + ("\n" + reasoning if reasoning else "")
        calls = tuple(
            _tool_call(i, c) for i, c in enumerate(getattr(message, "tool_calls", None) or [])
        )
        finish = getattr(choice, "finish_reason", None) or ("tool_calls" if calls else "stop")
        return ModelResponse(
            content=content,
            tool_calls=calls,
            finish_reason=str(finish),
            usage=self._usage(raw, name, provider, messages, tools, content, calls),
            model=name,
            reasoning=reasoning,
        )

    def _usage(
        self,
        raw: Any,
        name: str,
        provider: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        content: str | None,
        calls: tuple[ToolCall, ...],
    ) -> Usage:
        usage = getattr(raw, "usage", None)
        prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion = int(getattr(usage, "completion_tokens", 0) or 0)
        # a server that reports nothing: estimate, so budgets still bind
        if not prompt and not completion:
            prompt = estimate_tokens(messages, tools)
            out = [
                {
                    "role": "assistant",
                    "content": content or "",
                    "tool_calls": [
                        {"function": {"name": c.name, "arguments": c.raw_arguments}} for c in calls
                    ],
                }
            ]
            completion = estimate_tokens(out) - 3
        return Usage(prompt, completion, _cost(raw))

    # -- tokens ------------------------------------------------------------------------------------
    def count_tokens(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        model: str | None = None,
    ) -> int:
        """Prompt tokens of ``messages`` (+ ``tools``) for ``model``.

        ``litellm.token_counter`` (the model's real tokenizer, offline for OpenAI/Anthropic/unknown
        names) when a hosted model is named and litellm is already loaded in this process; otherwise
        the cheap estimate of ``reverie.llm.tokens`` (errs ~10% high), so ``status``, the offline
        engine and the first budget check of a process never pay litellm's 2–3 s import.
        """
        name = model or self.config.model
        if registry.resolve(name) is not None or "litellm" not in sys.modules:
            return estimate_tokens(messages, tools)
        from ._litellm import get_litellm

        try:
            return int(get_litellm().token_counter(model=name, messages=messages, tools=tools))
        except Exception as exc:  # noqa: BLE001 — a tokenizer failure must not fail a budget check
            log.debug(
                "token_counter failed for %s (%s): using the estimate", name, type(exc).__name__
            )
            return estimate_tokens(messages, tools)


_THINK = re.compile(r"\s*<(think|thinking|reasoning)>(.*?)(?:</\1>|\Z)", re.DOTALL | re.IGNORECASE)
_THINK_END = re.compile(r"</(think|thinking|reasoning)>", re.IGNORECASE)


def split_reasoning(content: str | None) -> tuple[str | None, str]:
    """``content`` without the thinking a reasoning model served raw puts before its answer
    (``<think>`` … ``</think>`` blocks, or text up to a lone ``</think>`` when the chat template
    opened the block), and that thinking. A thought is not the answer: a finding line inside one
    ("[USER] maybe lives in Paris?") must never be read as a finding. A block left open (the reply
    cut at ``max_tokens`` mid-thought) runs to the end. Only leading blocks are taken: the words
    ``<think>`` later in an answer are the answer's."""
    if not content or "<" not in content:
        return content, ""
    thoughts: list[str] = []
    rest = content
    if not _THINK.match(rest):
        end = _THINK_END.search(rest)
        if end is None or "<" + end.group(1).lower() + ">" in rest[: end.start()].lower():
            return content, ""
        thoughts.append(rest[: end.start()].strip())
        rest = rest[end.end() :]
    while (m := _THINK.match(rest)) is not None:
        thoughts.append(m.group(2).strip())
        rest = rest[m.end() :]
    return rest.strip(), "\n".join(t for t in thoughts if t)


def _fix_text(text: str) -> str:
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        # lone surrogates (from undecodable bytes): U+FFFD, so no provider chokes on them
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _valid_unicode(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages with every text encodable as UTF-8 (copied only where something had to
    change)."""
    out = messages
    for i, msg in enumerate(messages):
        content = msg.get("content") if isinstance(msg, Mapping) else None
        fixed: Any = content
        if isinstance(content, str):
            fixed = _fix_text(content)
        elif isinstance(content, list):
            fixed = [
                {**part, "text": _fix_text(part["text"])}
                if isinstance(part, Mapping) and isinstance(part.get("text"), str)
                else part
                for part in content
            ]
            if all(a is b or a == b for a, b in zip(fixed, content)):
                fixed = content
        if fixed is not content:
            if out is messages:
                out = list(messages)
            out[i] = {**msg, "content": fixed}
    return out


_reported: dict[str, float] = {}
_warned: dict[str, float] = {}  # text → when it was last logged at warning level
#: Seconds within which the same failure text is not warned about again.
REPEAT_QUIET_SECONDS = 120.0


def log_model_failure(logger: logging.Logger, what: str, exc: BaseException) -> None:
    """Log a failed model call as a warning the first time its text is seen, at info when it repeats
    within ``REPEAT_QUIET_SECONDS``: one ``/new`` during an outage meets it in the archive, the
    summary and the flush, and the user should read it once."""
    text = str(exc)
    now = time.monotonic()
    seen = _reported.get(text)
    if len(_reported) > 256:
        _reported.clear()
        _warned.clear()
    _reported[text] = now
    repeat = seen is not None and now - seen < REPEAT_QUIET_SECONDS
    if not repeat:
        _warned[text] = now
    logger.log(logging.INFO if repeat else logging.WARNING, "%s: %s", what, text)


def warned_since(exc: BaseException, since: float) -> bool:
    """Whether ``exc``'s text was shown as a warning at or after ``since`` (``time.monotonic()``):
    the chat then says a failed turn failed for the reason just shown instead of printing it a
    second time."""
    at = _warned.get(str(exc))
    return at is not None and at >= since


async def _call_local(model: registry.LocalModel, request: registry.Request) -> ModelResponse:
    out = model(request)
    return await out if inspect.isawaitable(out) else out


def _finished(resp: ModelResponse, name: str, provider: str) -> ModelResponse:
    """An in-process reply as the caller sees it: its text made UTF-8 safe, the model named, the
    offline engine's cost zero."""
    content = _fix_text(resp.content) if isinstance(resp.content, str) else resp.content
    usage = (
        resp.usage
        if provider != "reverie"
        else Usage(resp.usage.prompt_tokens, resp.usage.completion_tokens, 0.0)
    )
    return ModelResponse(content, resp.tool_calls, resp.finish_reason or "stop", usage, name)


def _short(text: str, limit: int = 300) -> str:
    """A provider's error text without litellm's repeated class-name prefixes, on one line,
    bounded."""
    text = re.sub(r"\b(?:litellm\.)?[A-Za-z]*(?:Error|Exception)(?: \(\d+\))?(?:: | - )", "", text)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _tool_call(index: int, call: Any) -> ToolCall:
    fn = getattr(call, "function", None)
    if fn is None and isinstance(call, Mapping):
        fn = call.get("function")

    # a provider's call is a litellm object or, from some servers, a plain dict
    def get(key: str) -> object:
        return fn.get(key) if isinstance(fn, Mapping) else getattr(fn, key, None)

    raw = get("arguments")
    if isinstance(raw, Mapping):
        raw_text = orjson.dumps(dict(raw), default=str).decode()
    else:
        raw_text = "" if raw is None else _fix_text(str(raw))
    args: dict[str, Any] | None
    try:
        parsed = orjson.loads(raw_text) if raw_text.strip() else {}
        args = parsed if isinstance(parsed, dict) else None
    except orjson.JSONDecodeError:
        args = None
    call_id = getattr(call, "id", None) or (call.get("id") if isinstance(call, Mapping) else None)
    return ToolCall(
        id=str(call_id or f"call_{index}"),
        name=str(get("name") or ""),
        arguments=args,
        raw_arguments=raw_text,
    )


def _cost(raw: Any) -> float | None:
    from ._litellm import get_litellm

    try:
        value = get_litellm().completion_cost(completion_response=raw)
    except Exception:  # noqa: BLE001 — unknown price: no cost, not an error
        return None
    return float(value) if value else None


# -- failure classification ------------------------------------------------------------------------
def _classify(exc: BaseException, provider: str, local: bool) -> _Fault:
    """What one failed attempt means (see the module docstring)."""
    if isinstance(exc, TimeoutError) or type(exc).__name__ == "TimeoutError":
        return _Fault("timeout")  # a direct in-process model that did not answer in time
    if "litellm" not in sys.modules:
        return _Fault("final")  # an in-process model's own failure (a broken script, an engine bug)
    from ._litellm import get_litellm

    litellm = get_litellm()
    status = getattr(exc, "status_code", None)
    text = str(exc)
    # The same rules for a scripted fake raising litellm's exception types (tests simulate providers
    # that way).
    if _unreachable(exc):
        return _Fault("unreachable")
    if _undecodable(exc):
        return _Fault("undecodable")
    if (
        isinstance(exc, (litellm.AuthenticationError, litellm.PermissionDeniedError))
        or status in (401, 403)
        or (not local and _NO_KEY.search(text))
    ):
        return _Fault("auth")
    if (
        isinstance(exc, litellm.NotFoundError)
        or status == 404
        or "LLM Provider NOT provided" in text
    ):
        return _Fault("not-found")
    if isinstance(exc, litellm.ContextWindowExceededError):
        return _Fault("window")
    if isinstance(exc, litellm.Timeout):
        return _Fault("timeout")
    if isinstance(exc, litellm.APIConnectionError):
        return _Fault("retry")
    if isinstance(status, int) and status in (400, 413, 422, 500) and _OVER_WINDOW.search(text):
        return _Fault("window")  # some servers answer an over-long prompt with a bare 500
    if isinstance(status, int):
        if status in _RETRY_STATUS or status >= 500:
            if status == 500 and _MALFORMED.search(text):
                return _Fault("malformed")
            return _Fault("retry", _retry_after(exc) if status in (429, 503) else None)
        return _Fault("final")
    if isinstance(exc, litellm.RateLimitError):
        return _Fault("retry", _retry_after(exc))
    if isinstance(
        exc, (litellm.InternalServerError, litellm.ServiceUnavailableError, litellm.BadGatewayError)
    ):
        return _Fault("retry")
    return _Fault("final")


def _undecodable(exc: BaseException) -> bool:
    """True when the reply's body was not valid UTF-8 (a byte-level model cut mid-character, a
    server's encoding bug)."""
    return any(isinstance(e, UnicodeDecodeError) for e in cause_chain(exc)) or (
        "codec can't decode" in str(exc)
    )


def _unreachable(exc: BaseException) -> bool:
    """True when the connection was never made: refused, or the host name does not resolve (a
    dropped connection, a reset mid-reply, is not this: it is retried)."""
    for e in cause_chain(exc):
        if isinstance(e, (ConnectionRefusedError, socket.gaierror)):
            return True
        if type(e).__name__ == "ConnectError" and type(e).__module__.startswith(
            ("httpx", "httpcore")
        ):
            return True
        if type(e).__name__ == "ClientConnectorError":  # aiohttp's failed connect
            return True
    return bool(
        re.search(
            r"connection refused|errno 111|name or service not known|nodename nor servname|"
            r"temporary failure in name resolution|failed to resolve|cannot connect to host",
            str(exc),
            re.I,
        )
    )


def _retry_after(exc: BaseException) -> float | None:
    headers: dict[str, str] = {}
    for source in (
        getattr(exc, "litellm_response_headers", None),
        getattr(getattr(exc, "response", None), "headers", None),
        getattr(exc, "headers", None),
    ):
        if source:
            try:
                headers.update({str(k).lower(): str(v) for k, v in dict(source).items()})
            except (TypeError, ValueError):
                continue
    if "retry-after-ms" in headers:
        try:
            return max(0.0, float(headers["retry-after-ms"]) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    import email.utils  # only here: a Retry-After date, on a retried call

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _describe(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError) and not str(exc):
        return "Timeout: no reply in time"
    status = getattr(exc, "status_code", None)
    kind = type(exc).__name__
    text = (
        str(exc)
        .split(" Traceback (most recent call last)", 1)[0]
        .split("\nTraceback", 1)[0]
        .strip()
        or kind
    )
    text = re.sub(r"\s+", " ", text)[:500]
    return f"{kind} ({status}): {text}" if isinstance(status, int) else f"{kind}: {text}"


# -- secrets ---------------------------------------------------------------------------------------
def _secrets_of(kwargs: Mapping[str, Any]) -> list[str]:
    found = [str(kwargs["api_key"])] if kwargs.get("api_key") else []
    for header in (kwargs.get("extra_headers") or {}).values():
        if header and len(str(header)) >= 8:
            found.append(str(header))
    for var, value in os.environ.items():
        if (
            value
            and len(value) >= 8
            and var.upper().endswith(("_API_KEY", "_TOKEN", "_SECRET", "_KEY"))
        ):
            found.append(value)
    return found
