"""The one place litellm is imported: its environment switches first, then the import.

Importing litellm costs 2–3 s and ~150 MB, so nothing imports this module until a remote provider is
called (in-process models — the offline engine, scripted fakes — never reach it; see ``registry``).

The switches are set only where the host process left them unset (it owns its environment): without
``LITELLM_LOCAL_MODEL_COST_MAP`` litellm fetches a price list over the network at import, without
``LITELLM_MODE=PRODUCTION`` it loads the working directory's ``.env``, and without
``HF_HUB_OFFLINE`` its token counter tries to download tokenizers for llama-style names.

litellm's logging worker is one per process, bound to the event loop that used it first; a call
from another loop (``serve --root`` runs each scope in its own, every synchronous verb in a fresh
one) makes the callbacks it queued fail ("cannot reuse already awaited coroutine", "bound to a
different event loop": upstream, BerriAI/litellm#36548), each with a traceback on stderr, from
litellm's logger and from asyncio's at loop shutdown; and asyncio reports each worker task a loop
closed while it was pending ("Task was destroyed but it is pending!", naming the task), when one
loop's calls overlap another's. Reverie registers no litellm callbacks, so nothing is lost:
``_WorkerNoise`` says the first such failure in one line and drops the rest.
"""

from __future__ import annotations

import logging
import os
import threading
import traceback
from types import ModuleType

__all__ = ["get_litellm", "SWITCHES"]

SWITCHES = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "True",
    "LITELLM_MODE": "PRODUCTION",
    "HF_HUB_OFFLINE": "1",
}

_lock = threading.Lock()
_module: ModuleType | None = None


#: The file of litellm's logging worker: asyncio names it in a report about one of its tasks.
_WORKER_FILE = os.path.join("litellm", "litellm_core_utils", "logging_worker.py")


def _about_litellm(record: logging.LogRecord) -> bool:
    """Whether an asyncio record is about litellm's logging worker: its exception was raised in
    litellm's code, or the task it reports (``Task was destroyed but it is pending!``, ``Task
    exception was never retrieved``: asyncio names a task by the file its coroutine is defined in)
    is one of the worker's, left pending on a loop that has closed. Other reports naming litellm
    (asyncio's debug mode timing a slow call) are the application's to see."""
    info = record.exc_info
    if info and info[2] is not None:
        frames = traceback.extract_tb(info[2])
        if any(f"{os.sep}litellm{os.sep}" in frame.filename for frame in frames):
            return True
    try:
        message = record.getMessage()
    except (TypeError, ValueError):  # a record whose arguments do not fit its format
        return False
    return _WORKER_FILE in message


class _WorkerNoise(logging.Filter):
    """The logging worker's failures (see the module doc) as one warning line per process."""

    def __init__(self) -> None:
        super().__init__()
        self._said = False
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        from_worker = record.name == "LiteLLM" and record.module == "logging_worker"
        if not from_worker and not (record.name == "asyncio" and _about_litellm(record)):
            return True
        if os.environ.get("REVERIE_DEBUG"):
            return True
        error = record.exc_info[1] if record.exc_info else None
        with self._lock:
            if self._said:
                return False
            self._said = True
        why = f"{type(error).__name__}: {error}" if error is not None else record.getMessage()
        record.msg = "litellm's logging worker failed (%s); its callbacks are skipped"
        record.args = (" ".join(why.split())[:200],)
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        return True


_noise = _WorkerNoise()


def get_litellm() -> ModuleType:
    """litellm, imported once, with Reverie's switches wherever the caller's environment does not
    set them."""
    global _module
    if _module is not None:
        return _module
    with _lock:
        if _module is None:
            for name, value in SWITCHES.items():
                os.environ.setdefault(name, value)
            import litellm

            litellm.suppress_debug_info = True
            litellm.telemetry = False
            # litellm attaches its own stderr handler; its warnings ("falling back to tiktoken …")
            # are noise for a CLI user. Errors still show, and REVERIE_DEBUG keeps everything.
            if not os.environ.get("REVERIE_DEBUG"):
                logging.getLogger("LiteLLM").setLevel(logging.ERROR)
            for name in ("LiteLLM", "asyncio"):
                logging.getLogger(name).addFilter(_noise)
            _module = litellm
    return _module
