"""The model client: one async call, ``complete``, over ``litellm.acompletion``, with Reverie's retry policy.

Every model — a hosted one (``openai/gpt-4o-mini``, ``anthropic/claude-…``), a local OpenAI-compatible server
(``ollama/…``, ``openai/<name>`` with ``apiBase``), the offline engine (``reverie/offline``) or a test's
``scripted/<name>`` — is reached the same way, by name. litellm is imported on the first call, not before.

Retry policy (``config.llm``): retried are rate limits (429, honouring ``Retry-After`` / ``retry-after-ms`` up to
``retryAfterMax``), 408/409, 5xx, timeouts and dropped connections; never other 4xx (a bad request stays bad).
Waits grow exponentially from ``backoffBase`` (capped at ``backoffMax``) with jitter. At most ``maxRetries``
retries, and the whole call — attempts and waits — stays within ``retryBudget`` seconds: each attempt's timeout is
cut to what remains, and a wait that would cross the budget ends the call instead. The offline engine and
scripted models' own failures (an empty script) are not retried; a scripted exception is, like a real one.

Provider settings: ``providers.<name>.apiKey`` / ``apiBase`` / ``extraHeaders`` from config, the provider named by
the model's prefix (``openai/…`` → ``providers.openai``; aliases in ``_PROVIDER_ALIASES``); otherwise litellm reads
the provider's usual environment variables (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``OLLAMA_API_BASE`` …).
Keys are never logged and are scrubbed from every ``ModelError`` message.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import os
import random
import re
import sys
import time
from collections.abc import Mapping
from typing import Any

import orjson

from ..config import Config, LLMConfig, ProviderConfig
from ..errors import ModelError
from .tokens import estimate_tokens
from .types import ModelResponse, ToolCall, Usage

log = logging.getLogger(__name__)

__all__ = ["ModelClient"]

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
_KEYWORDS = (("gpt", "openai"), ("o1", "openai"), ("o3", "openai"), ("o4", "openai"), ("claude", "anthropic"),
             ("gemini", "gemini"), ("deepseek", "deepseek"), ("qwen", "dashscope"), ("glm", "zhipu"))
_LOCAL_PROVIDERS = {"reverie", "scripted"}
_RETRY_STATUS = {408, 409, 429}


class ModelClient:
    """Async model calls with retries, usage and cost. One instance per config; safe to share between tasks."""

    def __init__(self, config: Config | None = None) -> None:
        self.config = config if config is not None else Config()
        self._sleep = asyncio.sleep  # the one wait; tests of the policy may replace it

    @property
    def settings(self) -> LLMConfig:
        return self.config.llm

    # -- the call -----------------------------------------------------------------------------------------
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
    ) -> ModelResponse:
        """One chat completion. ``model`` None → ``config.model`` (the offline engine when unconfigured).

        Raises ``ModelError`` (never carrying an API key) once retries are exhausted or the failure is final.
        """
        name = model or self.config.model
        provider = provider_of(name)
        messages = _valid_unicode(messages)
        direct = _direct_fake(name) if provider == "scripted" else None
        kwargs = self._kwargs(name, provider, tools, tool_choice, temperature, max_tokens)
        routed = self._route(name) if provider not in _LOCAL_PROVIDERS else name
        secrets = _secrets_of(kwargs)
        s = self.settings
        per_attempt = timeout if timeout is not None else s.timeout
        started = time.monotonic()
        deadline = started + s.retry_budget
        attempt = 0
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ModelError(f"{name}: no time left in the retry budget ({s.retry_budget:g}s)")
            try:
                if direct is not None:
                    return await asyncio.wait_for(
                        direct(messages, tools, tool_choice, temperature, max_tokens, name), min(per_attempt, remaining))
                raw = await self._acompletion(routed, messages, kwargs, min(per_attempt, remaining))
                return self._to_response(raw, name, provider, messages, tools)
            except (asyncio.CancelledError, ModelError):
                raise
            except Exception as exc:  # noqa: BLE001 — classified here; anything unexpected is final
                retry, hint = _classify(exc, provider)
                text = _scrub(_describe(exc), secrets)
            # Decided outside the except block, so the ModelError carries no link to the provider's exception
            # (whose text and request may hold the key).
            if not retry:
                raise ModelError(f"{name}: {text}")
            if attempt >= s.max_retries:
                raise ModelError(f"{name}: {text} (gave up after {attempt + 1} attempts)")
            delay = self._delay(attempt, hint)
            if time.monotonic() + delay >= deadline:
                spent = time.monotonic() - started
                raise ModelError(
                    f"{name}: {text} (gave up after {attempt + 1} attempts, {spent:.1f}s; "
                    f"retry budget {s.retry_budget:g}s)"
                )
            log.info("model %s: %s; retry %d in %.2fs", name, text, attempt + 1, delay)
            attempt += 1
            await self._sleep(delay)

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        s = self.settings
        if retry_after is not None:
            return min(retry_after, s.retry_after_max) + random.uniform(0, 0.1 * s.backoff_base)
        base = min(s.backoff_max, s.backoff_base * (2**attempt))
        return base * random.uniform(0.5, 1.0)  # jitter spreads clients that failed together

    async def _acompletion(self, name: str, messages: list[dict[str, Any]], kwargs: dict[str, Any], timeout: float) -> Any:
        from ._litellm import get_litellm

        litellm = get_litellm()
        # litellm passes the timeout to HTTP providers; in-process ones (scripted latency) only obey this wait_for.
        grace = 0.0 if provider_of(name) in _LOCAL_PROVIDERS else 1.0
        try:
            return await asyncio.wait_for(
                litellm.acompletion(model=name, messages=messages, timeout=timeout, **kwargs), timeout + grace
            )
        except asyncio.TimeoutError as exc:  # litellm did not honour its own timeout: treat as one
            raise litellm.Timeout(f"no reply within {timeout:.1f}s", model=name, llm_provider="") from exc

    def _kwargs(
        self, name: str, provider: str, tools: Any, tool_choice: Any, temperature: Any, max_tokens: Any
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {}
        if tools:
            kwargs["tools"] = tools
            if tool_choice is not None:
                kwargs["tool_choice"] = tool_choice
            # litellm 1.106 routes any call with tools through its MCP gateway check, which imports the optional
            # `mcp` package and fails without it; our tools are plain functions, so skip that check (its own flag).
            kwargs["_skip_mcp_handler"] = True
        if temperature is not None:
            kwargs["temperature"] = temperature
        if max_tokens is not None:
            kwargs["max_tokens"] = max_tokens
        if provider in _LOCAL_PROVIDERS:
            return kwargs
        kwargs["max_retries"] = 0  # ours is the only retry loop (the OpenAI SDK would retry twice on its own)
        kwargs["num_retries"] = 0
        settings = self.provider_settings(name)
        if settings is not None:
            if settings.api_key:
                kwargs["api_key"] = settings.api_key
            if settings.api_base:
                kwargs["api_base"] = settings.api_base
            if settings.extra_headers:
                kwargs["extra_headers"] = dict(settings.extra_headers)
        if (kwargs.get("api_base") and not kwargs.get("api_key") and provider_of(self._route(name)) == "openai"
                and not os.environ.get("OPENAI_API_KEY")):
            kwargs["api_key"] = "no-key"  # a local OpenAI-compatible server (llama.cpp, vLLM) needs none; the SDK does
        return kwargs

    def _route(self, name: str) -> str:
        """The model name litellm gets: nanobot's ``custom`` provider (any OpenAI-compatible server) is litellm's
        ``openai/…`` with that provider's ``apiBase``."""
        prefix = provider_of(name)
        if prefix == "custom":
            return f"openai/{name.split('/', 1)[1]}"
        if not prefix and "custom" in self.config.providers and self.provider_settings(name) is self.config.providers["custom"]:
            return f"openai/{name}"
        return name

    def provider_settings(self, model: str) -> ProviderConfig | None:
        """The ``providers.<name>`` config entry for ``model``, or None (litellm then reads the environment)."""
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
            chosen = (self.config.agents.defaults.model_extra or {}).get("provider")  # nanobot's explicit choice
            if isinstance(chosen, str) and chosen in providers:
                return providers[chosen]
            if "custom" in providers:
                return providers["custom"]
        return None

    # -- the response -------------------------------------------------------------------------------------
    def _to_response(
        self, raw: Any, name: str, provider: str, messages: list[dict[str, Any]], tools: Any
    ) -> ModelResponse:
        choices = getattr(raw, "choices", None) or []
        if not choices:
            raise ModelError(f"{name}: the reply has no choices")
        choice = choices[0]
        message = getattr(choice, "message", None)
        content = getattr(message, "content", None) if message is not None else None
        if content is not None:
            content = _fix_text(content if isinstance(content, str) else str(content))
        calls = tuple(_tool_call(i, c) for i, c in enumerate(getattr(message, "tool_calls", None) or []))
        finish = getattr(choice, "finish_reason", None) or ("tool_calls" if calls else "stop")
        return ModelResponse(
            content=content,
            tool_calls=calls,
            finish_reason=str(finish),
            usage=self._usage(raw, name, provider, messages, tools, content, calls),
            model=name,
        )

    def _usage(self, raw: Any, name: str, provider: str, messages: Any, tools: Any, content: Any, calls: Any) -> Usage:
        usage = getattr(raw, "usage", None)
        prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion = int(getattr(usage, "completion_tokens", 0) or 0)
        if not prompt and not completion:  # a server that reports nothing: estimate, so budgets still bind
            prompt = estimate_tokens(messages, tools)
            out = [{"role": "assistant", "content": content or "", "tool_calls": [
                {"function": {"name": c.name, "arguments": c.raw_arguments}} for c in calls]}]
            completion = estimate_tokens(out) - 3
        cost: float | None = None
        if provider == "reverie":
            cost = 0.0
        elif provider != "scripted":
            cost = _cost(raw)
        return Usage(prompt, completion, cost)

    # -- tokens -------------------------------------------------------------------------------------------
    def count_tokens(
        self, messages: list[dict[str, Any]], *, tools: list[dict[str, Any]] | None = None, model: str | None = None
    ) -> int:
        """Prompt tokens of ``messages`` (+ ``tools``) for ``model``.

        ``litellm.token_counter`` (the model's real tokenizer, offline for OpenAI/Anthropic/unknown names) when a
        hosted model is named and litellm is already loaded in this process; otherwise the cheap estimate of
        ``reverie.llm.tokens`` (errs ~10% high), so ``status``, the offline engine and the first budget check of a
        process never pay litellm's 2–3 s import.
        """
        name = model or self.config.model
        provider = provider_of(name)
        if provider in _LOCAL_PROVIDERS or "litellm" not in sys.modules:
            return estimate_tokens(messages, tools)
        from ._litellm import get_litellm

        try:
            return int(get_litellm().token_counter(model=name, messages=messages, tools=tools))
        except Exception as exc:  # noqa: BLE001 — a tokenizer failure must not fail a budget check
            log.debug("token_counter failed for %s (%s): using the estimate", name, type(exc).__name__)
            return estimate_tokens(messages, tools)


def _fix_text(text: str) -> str:
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:  # lone surrogates (from undecodable bytes): U+FFFD, so no provider chokes on them
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _valid_unicode(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages with every text encodable as UTF-8 (copied only where something had to change)."""
    out = messages
    for i, msg in enumerate(messages):
        content = msg.get("content") if isinstance(msg, Mapping) else None
        fixed: Any = content
        if isinstance(content, str):
            fixed = _fix_text(content)
        elif isinstance(content, list):
            fixed = [{**part, "text": _fix_text(part["text"])} if isinstance(part, Mapping)
                     and isinstance(part.get("text"), str) else part for part in content]
            if all(a is b or a == b for a, b in zip(fixed, content)):
                fixed = content
        if fixed is not content:
            if out is messages:
                out = list(messages)
            out[i] = {**msg, "content": fixed}
    return out


def provider_of(model: str) -> str:
    """The provider prefix of a model name (``openai/gpt-4o`` → ``openai``), or ``""`` when it has none."""
    head, sep, _ = model.partition("/")
    return head.lower() if sep else ""


def _direct_fake(name: str) -> Any:
    from .scripted import ScriptedModel, ScriptError

    try:
        fake = ScriptedModel.get(name)
    except ScriptError:
        return None
    if not fake.direct:
        return None
    from ._providers import direct_reply

    async def answer(*args: Any) -> ModelResponse:
        resp, delay = direct_reply(fake, *args)
        if delay:
            await asyncio.sleep(delay)
        return resp

    return answer


def _tool_call(index: int, call: Any) -> ToolCall:
    fn = getattr(call, "function", None)
    if fn is None and isinstance(call, Mapping):
        fn = call.get("function")
    get = (lambda k: fn.get(k)) if isinstance(fn, Mapping) else (lambda k: getattr(fn, k, None))
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
    return ToolCall(id=str(call_id or f"call_{index}"), name=str(get("name") or ""), arguments=args, raw_arguments=raw_text)


def _cost(raw: Any) -> float | None:
    from ._litellm import get_litellm

    try:
        value = get_litellm().completion_cost(completion_response=raw)
    except Exception:  # noqa: BLE001 — unknown price: no cost, not an error
        return None
    return float(value) if value else None


# -- failure classification -----------------------------------------------------------------------------------
def _classify(exc: BaseException, provider: str) -> tuple[bool, float | None]:
    """(retry?, Retry-After seconds or None)."""
    from .scripted import ScriptError

    if isinstance(exc, ScriptError) or provider == "reverie":
        return False, None
    if isinstance(exc, TimeoutError):  # a direct scripted model that did not answer in time
        return True, None
    from ._litellm import get_litellm

    litellm = get_litellm()
    if isinstance(exc, (litellm.Timeout, litellm.APIConnectionError)):
        return True, None
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        if status in _RETRY_STATUS or status >= 500:
            return True, _retry_after(exc) if status in (429, 503) else None
        return False, None
    if isinstance(exc, (litellm.RateLimitError,)):
        return True, _retry_after(exc)
    if isinstance(exc, (litellm.InternalServerError, litellm.ServiceUnavailableError, litellm.BadGatewayError)):
        return True, None
    return False, None


def _retry_after(exc: BaseException) -> float | None:
    headers: dict[str, str] = {}
    for source in (getattr(exc, "litellm_response_headers", None), getattr(getattr(exc, "response", None), "headers", None),
                   getattr(exc, "headers", None)):
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
    text = str(exc).split(" Traceback (most recent call last)", 1)[0].split("\nTraceback", 1)[0].strip() or kind
    text = re.sub(r"\s+", " ", text)[:500]
    return f"{kind} ({status}): {text}" if isinstance(status, int) else f"{kind}: {text}"


# -- secrets --------------------------------------------------------------------------------------------------
_KEY_PATTERNS = re.compile(
    r"(sk-[A-Za-z0-9_\-]{8,}|sk_[A-Za-z0-9_\-]{8,}|(?<=Bearer )[A-Za-z0-9._\-]{8,}"
    r"|(?<=api_key=)[^\s&'\"]+|(?<=api-key: )\S+|(?<=x-api-key: )\S+)",
    re.I,
)


def _secrets_of(kwargs: Mapping[str, Any]) -> list[str]:
    found = [str(kwargs["api_key"])] if kwargs.get("api_key") else []
    for header in (kwargs.get("extra_headers") or {}).values():
        if header and len(str(header)) >= 8:
            found.append(str(header))
    for var, value in os.environ.items():
        if value and len(value) >= 8 and var.upper().endswith(("_API_KEY", "_TOKEN", "_SECRET", "_KEY")):
            found.append(value)
    return sorted(set(found), key=len, reverse=True)


def _scrub(text: str, secrets: list[str]) -> str:
    """The text with every known key, and anything shaped like one, replaced by ``***``."""
    for secret in secrets:
        text = text.replace(secret, "***")
    return _KEY_PATTERNS.sub("***", text)

