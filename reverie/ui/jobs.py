"""The "Dream now" button's run: one at a time per server, in a worker thread on a ``Memory`` of its
own (``Memory.dream``, the call ``reverie dream`` makes), reporting Dream's progress events as it
goes so the page can show them. Dream's own run lock still orders it against ``reverie dream``,
``reverie serve`` and the others."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..errors import ReverieError

if TYPE_CHECKING:
    from ..dream.result import DreamResult, Progress
    from ..memory import Memory

__all__ = ["DreamJob", "JobState"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class JobState:
    """A snapshot of the job: replaced whole on every change, so a reader on another thread sees one
    state."""

    running: bool = False
    started: datetime | None = None
    finished: datetime | None = None
    phase: str = ""
    detail: str = ""
    status: str | None = None  # DreamResult.status once finished, "error" when it raised
    reason: str | None = None
    commit: str | None = None
    files: tuple[str, ...] = ()
    pending_soul: bool = False
    first: int | None = None
    last: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "running": self.running,
            "phase": self.phase,
            "detail": self.detail,
            "status": self.status,
            "reason": self.reason,
            "commit": self.commit,
            "files": list(self.files),
            "pending_soul": self.pending_soul,
            "first": self.first,
            "last": self.last,
            "started": self.started.isoformat() if self.started else None,
            "finished": self.finished.isoformat() if self.finished else None,
        }


def progress_detail(p: Progress) -> str:
    batch = f"entries {p.first}–{p.last} · " if p.first is not None else ""
    text = f"{batch}turn {p.iteration} · {p.tool_calls} tool calls · {p.tokens:,} tokens"
    return f"{text} · {p.message}" if p.message else text


class DreamJob:
    def __init__(self) -> None:
        self.state = JobState()
        self._task: asyncio.Task[None] | None = None

    def start(self, memory: Memory) -> bool:
        """Start a run unless this server's is still going (False then). Call from the event
        loop."""
        if self.state.running:
            return False
        self.state = JobState(running=True, started=datetime.now(UTC), phase="starting")
        self._task = asyncio.get_running_loop().create_task(self._run(memory))
        return True

    async def wait(self) -> JobState:
        if self._task is not None:
            await asyncio.shield(self._task)
        return self.state

    def _progress(self, p: Progress) -> None:  # called on the worker thread
        self.state = replace(self.state, phase=str(p.phase), detail=progress_detail(p))

    async def _run(self, memory: Memory) -> None:
        def run() -> DreamResult:
            with memory.sibling() as own:
                return own.dream(on_progress=self._progress)

        try:
            result = await asyncio.to_thread(run)
        except ReverieError as exc:
            self.state = replace(
                self.state,
                running=False,
                finished=datetime.now(UTC),
                status="error",
                reason=str(exc),
                phase="",
            )
            return
        except Exception as exc:
            # the job's boundary: the page reports it instead of the server losing it
            log.exception("dream now: the run failed")
            self.state = replace(
                self.state,
                running=False,
                finished=datetime.now(UTC),
                status="error",
                reason=f"{type(exc).__name__}: {exc}",
                phase="",
            )
            return
        self.state = replace(
            self.state,
            running=False,
            finished=datetime.now(UTC),
            status=result.status,
            reason=result.reason,
            commit=result.commit,
            phase="",
            files=tuple(f.path for f in result.files),
            pending_soul=bool(result.pending_soul),
            first=result.first,
            last=result.last,
        )
