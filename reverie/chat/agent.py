"""``ChatAgent``: a minimal agent with memory — the reference embedding of Reverie, used by
``reverie chat``.

The agent is a user of a ``Memory``, the verbs every front end calls: each turn a slash command goes
to the ``CommandRouter`` (``/new`` is ``Memory.aclear``, ``/dream`` ``Memory.adream``); anything
else is recorded with ``Memory.arecord`` (appended to the persisted session, old messages
consolidated into history when the prompt nears the context window), and the model answers from a
system prompt made of SOUL.md, USER.md, MEMORY.md and the history entries Dream has not read yet (so
what was said an hour ago is known before Dream has run). With the offline engine there is no
conversation model: the agent says so, still records what the user says (so memory keeps learning)
and still runs every command.

A turn may be cancelled at any await (the REPL's Ctrl-C): the user's message is recorded whenever
the cancellation comes (``arecord`` appends it before the cancellation is raised), and every write
after it (a consolidation round, the reply) is whole or not made, so a cancelled turn leaves nothing
half-done. A scheduled Dream run is registered with the router, so ``/dream`` waits for it instead
of racing it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..consolidator.estimate import prompt_messages
from ..errors import SessionError
from ..memory import Memory, agent_preamble, wrap
from ..recall.tool import complete_with_search_memory, recall_context
from ..storage.config import OFFLINE_MODEL
from .commands import CommandContext, CommandRouter
from .commands.dream_cmds import TASK_NAME as DREAM_TASK
from .commands.render import dream_result
from .commands.router import Notify

if TYPE_CHECKING:
    import asyncio

    from ..dream import DreamResult
    from ..memory.runtime import Runtime
    from ..schedule.workspace import DreamScheduler

log = logging.getLogger(__name__)

__all__ = ["ChatAgent", "OFFLINE_NOTICE", "agent_preamble"]

OFFLINE_NOTICE = (
    "No model is configured, so the offline rule-based engine is in use: it maintains memory but "
    "does not converse. What you say is still saved, consolidated into history and dreamed into "
    "memory, and every /command works. "
    "Set agents.defaults.model (or REVERIE_MODEL) for real replies."
)
_OFFLINE_REPLY = "(noted — the offline engine does not reply; /help lists the commands)"


class ChatAgent:
    """One conversation with memory: session persisted, consolidation under token pressure, commands
    routed.

    ``memory``: the ``Memory`` it records into (its opener closes it), or a ``Runtime``, which the
    agent wraps in a ``Memory`` of its own and closes in ``close``."""

    def __init__(
        self,
        memory: Memory | Runtime,
        *,
        session_key: str = "cli:chat",
        notify: Notify | None = None,
    ) -> None:
        self._owns_memory = not isinstance(memory, Memory)
        self.memory = memory if isinstance(memory, Memory) else wrap(memory)
        self.session_key = session_key
        self.router = CommandRouter(self.memory)
        self.notify = notify
        self._scheduler: DreamScheduler | None = None
        self._scheduled_run: asyncio.Task[DreamResult] | None = None

    @property
    def runtime(self) -> Runtime:
        """The services of the agent's ``Memory`` (the model client and Recall its replies use)."""
        return self.memory.runtime

    @property
    def offline(self) -> bool:
        return self.runtime.config.model == OFFLINE_MODEL

    def model_line(self) -> str:
        """The models in use, for a banner: ``openai/gpt-4o-mini`` (plus Dream's when it
        differs)."""
        cfg = self.runtime.config
        dream = f" (Dream: {cfg.dream_model})" if cfg.dream_model != cfg.model else ""
        return f"{cfg.model}{dream}"

    def context(self) -> CommandContext:
        return CommandContext(session_key=self.session_key, notify=self.notify)

    async def respond(self, text: str) -> str:
        """The reply to one user message (a command's Markdown reply, or the model's answer)."""
        reply = await self.router.handle(text, self.context())
        if reply is not None:
            return reply
        memory, key = self.memory, self.session_key
        # the message appended, then old messages consolidated, so the prompt below fits the window
        await memory.arecord(key, [{"role": "user", "content": text}])
        if self.offline:
            return _OFFLINE_REPLY
        rt = memory.runtime
        # Recall: the top hits for this message when memory.search.autoRecall is on, and the
        # search_memory tool.
        recalled = await recall_context(rt.recall, text)
        extra = agent_preamble(rt) + (f"\n\n{recalled}" if recalled else "")
        session = await memory.asession(key)
        if session is None:
            raise SessionError(f"session {key} was removed during the turn")
        messages = prompt_messages(rt.store, session, extra_system=extra)
        response = await complete_with_search_memory(
            rt.client, rt.recall, messages, max_tokens=rt.config.defaults.max_tokens
        )
        answer = (response.content or "").strip()
        # the next message's record consolidates, before its prompt is built
        await memory.arecord(key, [{"role": "assistant", "content": answer}], consolidate=False)
        return answer

    async def start_schedule(self) -> None:
        """Run Dream on its schedule (``intervalH`` / ``cron``) in the background while the
        conversation lasts."""
        from ..schedule.workspace import DreamScheduler

        self._scheduler = DreamScheduler(
            self.runtime.dream, on_result=self._scheduled_result, on_start=self._scheduled_start
        )
        await self._scheduler.start()

    def _scheduled_start(self, run: asyncio.Task[DreamResult]) -> None:
        self._scheduled_run = run
        self.router.adopt(run, name=DREAM_TASK)  # /dream now waits for this run and reports it

    def _scheduled_result(self, result: DreamResult) -> None:
        # Reported like /dream's, unless a /dream already replied with it, or it found nothing to
        # do, or found the lock held (by a /dream of this chat, which reports itself, or by another
        # process).
        if self.router.claimed(self._scheduled_run) or result.status in (
            "nothing-to-do",
            "already-running",
        ):
            return
        if self.notify is not None:
            self.router.spawn(self.notify("Scheduled " + dream_result(result)), name="dream-report")

    async def close(self, timeout: float | None = None) -> None:
        """Let background work started by commands (a ``/dream`` run) finish and report; stop the
        schedule; close the ``Memory`` the agent made (its worker threads then leave)."""
        try:
            await self.router.wait_idle(timeout)
        finally:  # also when that wait is cancelled (Ctrl-C on the way out)
            try:
                if self._scheduler is not None:
                    scheduler, self._scheduler = self._scheduler, None
                    await scheduler.stop()
            finally:
                if self._owns_memory:
                    await self.memory.aclose()
