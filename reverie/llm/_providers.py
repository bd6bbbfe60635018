"""litellm ``CustomLLM`` adapters for Reverie's two in-process models: ``reverie/*`` (the offline engine) and
``scripted/*`` (the test fake). Imported only by ``_litellm`` after litellm itself.

Both engines answer with a ``reverie.llm.types.ModelResponse``; this module turns it into litellm's response
object, so callers see exactly what a hosted model would give them.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from typing import Any

import orjson

from . import types as rt
from .tokens import estimate_tokens

log = logging.getLogger(__name__)

__all__ = ["make_handlers", "direct_reply"]


def make_handlers(litellm: Any) -> dict[str, Any]:
    """``{provider name: handler}`` for ``litellm.custom_provider_map``."""
    from litellm.types.utils import ChatCompletionMessageToolCall, Choices, Function, Message
    from litellm.types.utils import ModelResponse as LModelResponse
    from litellm.types.utils import Usage as LUsage

    def to_litellm(resp: rt.ModelResponse, model: str) -> Any:
        calls = [
            ChatCompletionMessageToolCall(
                id=c.id, type="function", function=Function(name=c.name, arguments=c.raw_arguments or _dumps(c.arguments))
            )
            for c in resp.tool_calls
        ] or None
        message = Message(content=resp.content, role="assistant", tool_calls=calls)
        return LModelResponse(
            id=f"chatcmpl-{uuid.uuid4().hex[:16]}",
            created=int(time.time()),
            model=model,
            object="chat.completion",
            choices=[Choices(index=0, finish_reason=resp.finish_reason, message=message)],
            usage=LUsage(
                prompt_tokens=resp.usage.prompt_tokens,
                completion_tokens=resp.usage.completion_tokens,
                total_tokens=resp.usage.total_tokens,
            ),
        )

    class _Engine(litellm.CustomLLM):  # type: ignore[misc, name-defined]
        def __init__(self, answer: Any) -> None:
            super().__init__()
            self._answer = answer

        def _reply(self, model: str, messages: list, kwargs: dict[str, Any]) -> tuple[Any, float]:
            from .scripted import ScriptError

            params = kwargs.get("optional_params") or {}
            try:
                resp, delay = self._answer(model, messages, params)
            except ScriptError as exc:  # a broken script is the test's fault: final, never retried
                raise litellm.BadRequestError(str(exc), model=model, llm_provider="scripted") from None
            except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError) as exc:
                log.exception("in-process model %s failed", model)
                raise litellm.BadRequestError(f"{type(exc).__name__}: {exc}", model=model, llm_provider="reverie") from None
            return to_litellm(resp, model), delay

        def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
            resp, delay = self._reply(model, messages, kwargs)
            if delay:
                time.sleep(delay)
            return resp

        async def acompletion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
            resp, delay = self._reply(model, messages, kwargs)
            if delay:
                await asyncio.sleep(delay)  # a slow scripted model: the client's timeout and Dream's wall clock apply
            return resp

    def offline_answer(model: str, messages: list, params: dict[str, Any]) -> tuple[rt.ModelResponse, float]:
        from .offline import respond

        return respond(messages, tools=params.get("tools"), tool_choice=params.get("tool_choice")), 0.0

    def scripted_answer(model: str, messages: list, params: dict[str, Any]) -> tuple[rt.ModelResponse, float]:
        from .scripted import ScriptedModel

        fake = ScriptedModel.get(model)
        return direct_reply(fake, messages, params.get("tools"), params.get("tool_choice"),
                            params.get("temperature"), params.get("max_tokens"), fake.model)

    return {"reverie": _Engine(offline_answer), "scripted": _Engine(scripted_answer)}


def direct_reply(
    fake: Any, messages: list, tools: Any, tool_choice: Any, temperature: Any, max_tokens: Any, model: str
) -> tuple[rt.ModelResponse, float]:
    """The fake's next reply as a Reverie ``ModelResponse`` (usage estimated when the script gives none), and how
    long to wait before giving it."""
    from .scripted import Prompt

    prompt = Prompt(model=model, messages=[dict(m) for m in messages], tools=tools, tool_choice=tool_choice,
                    temperature=temperature, max_tokens=max_tokens)
    reply = fake.respond(prompt)
    calls = tuple(
        c if c.raw_arguments or c.arguments is None else rt.ToolCall(c.id, c.name, c.arguments, _dumps(c.arguments))
        for c in reply.tool_calls
    )
    usage = reply.usage
    if usage is None:
        out = [{"role": "assistant", "content": reply.content or "",
                "tool_calls": [{"function": {"name": c.name, "arguments": c.raw_arguments}} for c in calls]}]
        usage = rt.Usage(estimate_tokens(messages, tools), max(0, estimate_tokens(out) - 3))
    delay = reply.delay if reply.delay is not None else fake.latency
    return rt.ModelResponse(content=reply.content, tool_calls=calls, finish_reason=reply.effective_finish_reason,
                            usage=usage, model=model), max(0.0, float(delay or 0.0))


def _dumps(value: Any) -> str:
    return orjson.dumps(value if value is not None else {}, default=str).decode()
