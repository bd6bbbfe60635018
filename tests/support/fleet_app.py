"""The Celery app the fleet tests and bench run in real worker processes (``celery -A fleet_app
worker``).

It registers model prefix ``slow``: the offline engine answering after ``REVERIE_TEST_LATENCY``
seconds (an LLM's latency without its CPU), through the same registry hook a third-party model uses.
With ``REVERIE_TEST_KILL_AT`` = a Dream fault point and ``REVERIE_TEST_KILL_FILE`` = a file, the
first job to reach that point claims the file (rename) and SIGKILLs its whole worker process group:
a crash mid-commit, not a simulated one.
"""

from __future__ import annotations

import asyncio
import os
import signal

from reverie.dream import transaction
from reverie.fleet.app import make_app
from reverie.llm import registry
from reverie.llm.types import ModelResponse

_LATENCY = float(os.environ.get("REVERIE_TEST_LATENCY", "0.2"))


async def _slow(request: registry.Request) -> ModelResponse:
    from reverie.llm.offline import respond

    await asyncio.sleep(_LATENCY)
    resp = respond(request.messages, tools=request.tools, tool_choice=request.tool_choice)
    return ModelResponse(
        resp.content, resp.tool_calls, resp.finish_reason, resp.usage, request.model
    )


registry.register("slow", _slow)

_kill_at = os.environ.get("REVERIE_TEST_KILL_AT")
_kill_file = os.environ.get("REVERIE_TEST_KILL_FILE")
if _kill_at and _kill_file:

    def _fault(point: str) -> None:
        if point != _kill_at:
            return
        try:
            os.rename(
                _kill_file, _kill_file + ".taken"
            )  # exactly one job in the whole test takes it
        except OSError:
            return
        os.killpg(os.getpgid(0), signal.SIGKILL)

    transaction.fault = _fault

app = make_app()
