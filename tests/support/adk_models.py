"""Local models (Google ADK's ``BaseLlm``) for ``tests/test_integration_google_adk_contract.py``: a
module of their own so that ADK is imported when that file's tests run, not when every xdist worker
collects it (support/sdk.py)."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types


class _AsksWith(BaseLlm):
    """A local model: calls ADK's load_memory with ``query``, then says what it returned."""

    query: str = ""

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        returned = [
            p.function_response
            for c in llm_request.contents
            for p in c.parts or []
            if p.function_response
        ]
        if returned:
            said = returned[-1].response or {}
            result: Any = said.get("result", said)
            memories = getattr(result, "memories", None)
            text = f"{len(memories)} memories" if memories is not None else f"error: {said}"
            yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))
            return
        call = types.FunctionCall(name="load_memory", args={"query": self.query})
        yield LlmResponse(
            content=types.Content(role="model", parts=[types.Part(function_call=call)])
        )


class _Reads(BaseLlm):
    """A local model that keeps the text of every request it is sent and answers "ok"."""

    seen: list[str] = []

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.seen.append(
            "\n".join(p.text or "" for c in llm_request.contents for p in c.parts or [])
        )
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text="ok")]))
