"""The scripted model: the first-class test fake, reached by name through ``ModelClient`` like any
model.

::

    fake = ScriptedModel.register("dreamer")            # model name "scripted/dreamer"
    fake.enqueue("[USER] Lives in Berlin")               # a text reply
    # a tool-call reply (several ToolCalls = one reply)
    fake.enqueue(ToolCall("c1", "edit_file", {...}))
    fake.enqueue(Reply("cut short", finish_reason="length", usage=Usage(10, 5)))
    fake.enqueue(rate_limit_error(retry_after=1))        # an exception, raised by the "provider"
    # answers after 5 s (the client's timeout applies)
    fake.enqueue(Reply("slow", delay=5))
    resp = await ModelClient(config).complete(msgs, model=fake.model)
    fake.prompts[-1].messages                            # what the caller sent

Each request pops the next reply; a callable reply (or ``responder``) is called with the ``Prompt``
and returns any of the above, for scripts that depend on the request. An empty queue with no
responder, or an unregistered name, fails the call with a clear error (``ModelError`` from the
client, never retried).

``scripted/…`` is an in-process model of ``reverie.llm.registry``: the client calls it directly,
with the same timeout, retry and error classification as a remote provider (the exception helpers
below raise litellm's own types, so the policy sees the real thing; only they import litellm).
``direct`` is kept for old callers; every scripted model is direct now.

Registration is process-global (like litellm's provider map); ``unregister``/``reset`` undo it.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import types as rt
from .tokens import estimate_tokens
from .types import Request, ToolCall, Usage

if TYPE_CHECKING:
    import httpx

__all__ = [
    "ScriptedModel",
    "Reply",
    "Prompt",
    "ScriptError",
    "rate_limit_error",
    "server_error",
    "timeout_error",
    "connection_error",
    "bad_request_error",
    "answer",
]


class ScriptError(RuntimeError):
    """The script cannot answer: unregistered name or nothing queued. Never retried by the
    client."""


@dataclass(frozen=True)
class Reply:
    """One scripted reply. ``finish_reason`` None means "stop" for text and "tool_calls" when tool
    calls are given; ``usage`` None means "counted with the cheap token estimate"; ``delay`` makes
    this reply slow (timeouts, wall-clock caps)."""

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None
    usage: Usage | None = None
    delay: float | None = None  # seconds before answering; None → the model's ``latency``

    def __post_init__(self) -> None:
        object.__setattr__(self, "tool_calls", tuple(self.tool_calls))

    @property
    def effective_finish_reason(self) -> str:
        if self.finish_reason:
            return self.finish_reason
        return "tool_calls" if self.tool_calls else "stop"


@dataclass(frozen=True)
class Prompt(Request):
    """What one request sent (the registry's ``Request``): the fake's record, for assertions."""

    @property
    def system(self) -> str:
        return next(
            (str(m.get("content") or "") for m in self.messages if m.get("role") == "system"), ""
        )

    @property
    def user(self) -> str:
        """The last user message's text."""
        return next(
            (
                str(m.get("content") or "")
                for m in reversed(self.messages)
                if m.get("role") == "user"
            ),
            "",
        )


#: What a script gives for one request: text, a tool call or several (one reply), a full ``Reply``,
#: an exception to raise, or None (a reply with no content).
Answer = str | ToolCall | Reply | BaseException | list[ToolCall] | tuple[ToolCall, ...] | None
#: A queued reply: an ``Answer``, or a callable computing one from the request.
Script = Answer | Callable[["Prompt"], Answer]

_registry: dict[str, ScriptedModel] = {}
_registry_lock = threading.Lock()


@dataclass(eq=False)
class ScriptedModel:
    """A fake model answering from a queue of replies. Create with
    ``ScriptedModel.register(name)``."""

    name: str
    responder: Callable[[Prompt], Answer] | None = None
    direct: bool = False
    latency: float = 0.0
    prompts: list[Prompt] = field(default_factory=list)
    _queue: deque[Script] = field(default_factory=deque, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    # -- registry ----------------------------------------------------------------------------------
    @classmethod
    def register(
        cls,
        name: str,
        *,
        responder: Callable[[Prompt], Answer] | None = None,
        direct: bool = False,
        latency: float = 0.0,
    ) -> ScriptedModel:
        """Create (or replace) the fake answering model ``scripted/<name>``; ``latency`` delays
        every reply."""
        if not name or "/" in name:
            raise ValueError(f"scripted model name must be non-empty and without '/': {name!r}")
        fake = cls(name=name, responder=responder, direct=direct, latency=latency)
        with _registry_lock:
            _registry[name] = fake
        return fake

    @classmethod
    def get(cls, name: str) -> ScriptedModel:
        """The fake registered as ``name`` (with or without the ``scripted/`` prefix)."""
        key = name.split("/", 1)[1] if name.startswith("scripted/") else name
        with _registry_lock:
            fake = _registry.get(key)
        if fake is None:
            raise ScriptError(
                f"no scripted model registered as {key!r} (call ScriptedModel.register({key!r}))"
            )
        return fake

    @classmethod
    def unregister(cls, name: str) -> None:
        with _registry_lock:
            _registry.pop(name, None)

    @classmethod
    def reset(cls) -> None:
        """Forget every registered fake."""
        with _registry_lock:
            _registry.clear()

    @property
    def model(self) -> str:
        """The model string to pass to ``ModelClient.complete``."""
        return f"scripted/{self.name}"

    # -- script ------------------------------------------------------------------------------------
    def enqueue(self, *replies: Script) -> ScriptedModel:
        """Queue replies, one per request: text, a ToolCall or a list of them, a ``Reply``, an
        exception to raise, or a callable taking the ``Prompt``. Returns self, for chaining."""
        with self._lock:
            self._queue.extend(replies)
        return self

    @property
    def pending(self) -> int:
        """Replies still queued."""
        return len(self._queue)

    def respond(self, prompt: Prompt) -> Reply:
        """Record the request and produce the next reply (raising a scripted exception as is)."""
        with self._lock:
            self.prompts.append(prompt)
            item = self._queue.popleft() if self._queue else None
        if item is None:
            if self.responder is None:
                raise ScriptError(
                    f"scripted model {self.name!r} has no reply "
                    f"queued for request #{len(self.prompts)}"
                )
            item = self.responder
        return _to_reply(item, prompt)


def _to_reply(item: Script, prompt: Prompt) -> Reply:
    if callable(item) and not isinstance(item, (ToolCall, Reply, BaseException, type)):
        item = item(prompt)
    if isinstance(item, BaseException):
        raise item
    if isinstance(item, Reply):
        return item
    if isinstance(item, str):
        return Reply(content=item)
    if isinstance(item, ToolCall):
        return Reply(tool_calls=(item,))
    if isinstance(item, (list, tuple)) and all(isinstance(t, ToolCall) for t in item):
        return Reply(tool_calls=tuple(item))
    if item is None:
        return Reply(content=None)
    raise ScriptError(f"cannot turn {type(item).__name__} into a scripted reply")


async def answer(request: Request) -> rt.ModelResponse:
    """The registry's entry point: the fake's next reply to ``request`` (a ``registry.Request``),
    after its delay."""
    import asyncio

    fake = ScriptedModel.get(request.model)
    resp, delay = direct_reply(
        fake,
        request.messages,
        request.tools,
        request.tool_choice,
        request.temperature,
        request.max_tokens,
        request.model,
    )
    if delay:
        # a slow scripted model: the client's timeout and Dream's wall clock apply
        await asyncio.sleep(delay)
    return resp


def direct_reply(
    fake: ScriptedModel,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    tool_choice: str | dict[str, Any] | None,
    temperature: float | None,
    max_tokens: int | None,
    model: str,
) -> tuple[rt.ModelResponse, float]:
    """The fake's next reply as a Reverie ``ModelResponse`` (usage estimated when the script gives
    none), and how long to wait before giving it."""
    import orjson

    prompt = Prompt(
        model=model,
        messages=[dict(m) for m in messages],
        tools=tools,
        tool_choice=tool_choice,
        temperature=temperature,
        max_tokens=max_tokens,
    )
    reply = fake.respond(prompt)
    calls = tuple(
        c
        if c.raw_arguments or c.arguments is None
        else rt.ToolCall(c.id, c.name, c.arguments, orjson.dumps(c.arguments, default=str).decode())
        for c in reply.tool_calls
    )
    usage = reply.usage
    if usage is None:
        out = [
            {
                "role": "assistant",
                "content": reply.content or "",
                "tool_calls": [
                    {"function": {"name": c.name, "arguments": c.raw_arguments}} for c in calls
                ],
            }
        ]
        usage = rt.Usage(estimate_tokens(messages, tools), max(0, estimate_tokens(out) - 3))
    delay = reply.delay if reply.delay is not None else fake.latency
    return rt.ModelResponse(
        content=reply.content,
        tool_calls=calls,
        finish_reason=reply.effective_finish_reason,
        usage=usage,
        model=model,
    ), max(0.0, float(delay or 0.0))


# -- exceptions as a provider raises them (litellm's types, so the client's retry policy sees the re
def _http_response(status: int, headers: dict[str, str] | None = None) -> httpx.Response:
    import httpx

    return httpx.Response(
        status, headers=headers or {}, request=httpx.Request("POST", "http://scripted.invalid/")
    )


def _litellm_error(kind: str, *args: object, **kwargs: object) -> BaseException:
    """litellm's exception ``kind`` raised by "provider" ``scripted`` (litellm imported here, on
    first use)."""
    from ._litellm import get_litellm

    make: Callable[..., BaseException] = getattr(get_litellm(), kind)
    return make(*args, llm_provider="scripted", model="scripted", **kwargs)


def rate_limit_error(
    retry_after: float | None = None, message: str = "rate limited"
) -> BaseException:
    """A litellm ``RateLimitError`` (429), with a ``Retry-After`` header when given."""
    headers = {"retry-after": f"{retry_after:g}"} if retry_after is not None else {}
    return _litellm_error("RateLimitError", message, response=_http_response(429, headers))


def server_error(status: int = 500, message: str = "server error") -> BaseException:
    """A litellm 5xx error (InternalServerError for 500, ServiceUnavailableError for 503, else
    APIError)."""
    if status == 503:
        return _litellm_error("ServiceUnavailableError", message, response=_http_response(503))
    if status == 500:
        return _litellm_error("InternalServerError", message, response=_http_response(500))
    return _litellm_error("APIError", status, message)


def timeout_error(message: str = "request timed out") -> BaseException:
    return _litellm_error("Timeout", message)


def connection_error(message: str = "connection dropped") -> BaseException:
    return _litellm_error("APIConnectionError", message)


def bad_request_error(message: str = "bad request") -> BaseException:
    return _litellm_error("BadRequestError", message)
