"""The OpenAI Agents SDK's ``Model`` interface, implemented locally for
``tests/test_integration_openai_agents.py`` (no network): a module of its own so that the SDK (2.5 s
of CPU) is imported when that file's tests run, not when every xdist worker collects it."""

from __future__ import annotations

import json
from typing import Any

from agents import Model, ModelResponse, Usage
from openai.types.responses import ResponseOutputMessage, ResponseOutputText


class EchoModel(Model):
    """Answers with what it was given: the instructions' first memory line it finds and the user
    texts it saw."""

    def __init__(self) -> None:
        self.calls: list[tuple[str | None, Any]] = []

    async def get_response(
        self, system_instructions: str | None, input: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        self.calls.append((system_instructions, input))
        items = [{"role": "user", "content": input}] if isinstance(input, str) else input
        said = [i["content"] for i in items if isinstance(i, dict) and i.get("role") == "user"]
        text = f"I have seen {len(said)} user message(s); the last: {said[-1]}"
        message = ResponseOutputMessage(
            id=f"msg_{len(self.calls)}",
            type="message",
            role="assistant",
            status="completed",
            content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
        )
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


class ToolModel(Model):
    """Calls the tool its script names with its arguments, then says what the tool returned."""

    def __init__(self, script: list[tuple[str, dict[str, Any]]]) -> None:
        self.script = script
        self.inputs: list[Any] = []

    async def get_response(
        self, system_instructions: str | None, input: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        from openai.types.responses import ResponseFunctionToolCall

        self.inputs.append(input)
        items = input if isinstance(input, list) else []
        asked = max(
            (n for n, i in enumerate(items) if isinstance(i, dict) and i.get("role") == "user"),
            default=0,
        )
        outputs = [  # this run's (the session gives earlier runs' items back too)
            i
            for i in items[asked:]
            if isinstance(i, dict) and i.get("type") == "function_call_output"
        ]
        if outputs and len(outputs) >= len(self.script):
            text = "tool said: " + str(outputs[-1]["output"])
            message = ResponseOutputMessage(
                id="msg_done",
                type="message",
                role="assistant",
                status="completed",
                content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
            )
            return ModelResponse(output=[message], usage=Usage(), response_id=None)
        name, args = self.script[len(outputs)]
        call = ResponseFunctionToolCall(
            id=f"fc_{len(outputs)}",
            call_id=f"call_{len(outputs)}",
            type="function_call",
            name=name,
            arguments=json.dumps(args),
            status="completed",
        )
        return ModelResponse(output=[call], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError
