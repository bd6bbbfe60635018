"""Reverie's exception tree.

Every error the library raises on purpose is a ``ReverieError``; front-ends (CLI, chat commands) map
it to a one-line message, and anything else is a bug shown with a traceback only on request::

    ReverieError
    ├── ConfigError            a config file or value is invalid (names the key, the value, what
    │                          is allowed)
    ├── WorkspaceError         the workspace cannot be used as asked
    │   ├── UnsafePathError    a path escapes the workspace, is absolute, has '..' or NUL, or is
    │   │                      a symlink out
    │   ├── InvalidScopeError  a user or agent id is not a valid scope id (reverie.storage.scopes)
    │   ├── NothingPendingError     nothing to act on: approve found no staged SOUL.md change
    │   │                           (front-ends answer as reject does), or restore() with no sha
    │   │                           found no Dream commit
    │   └── PendingChangedError     the SOUL.md change a confirmation showed was widened since
    │                               (``current_id``)
    ├── CursorError            a cursor file is corrupt and cannot be recovered automatically
    ├── HistoryError           history.jsonl cannot be read or written
    ├── LockTimeoutError       a cross-process lock was not acquired in time
    ├── GitStoreError          the memory repository failed
    │   ├── UnknownRevisionError    no commit matches a sha or prefix
    │   ├── AmbiguousRevisionError  a prefix matches several commits (``candidates`` lists them)
    │   └── MergeConflictError      a revert or merge conflicts (``path`` and ``lines`` say where)
    │       └── EditConflictError   a write or restore made from an older state conflicts with what
    │                               changed since (carries both sides: ``yours`` and ``current``)
    ├── ModelError             a model call failed after its retries (never carries an API key)
    │   ├── ModelUnavailableError   the provider, not the request, is at fault: unreachable,
    │   │                           refused the key, unknown model, not answering in time, or
    │   │                           overloaded past the retry budget (never costs a batch)
    │   └── ContextWindowError      the request is longer than the model's context window
    │                               (``limit``, when the provider said it, is learned; callers
    │                               shrink their input and retry)
    ├── SessionError           a session could not be consolidated or cleared
    ├── GateError              Dream's gate refused a person's or an agent's edit (the message
    │                          says why)
    ├── DreamError             a Dream run could not start
    │   ├── AlreadyRunningError     another run holds the run lock
    │   └── FencedError             a stale run's write was refused (fencing epoch or batch
    │                               moved); nothing written
    ├── CommandError           a chat command or CLI invocation is malformed
    ├── WorkerError            a worker process of the async verbs died or could not carry a call
    └── RecallError            the search index cannot be built or queried (a corrupt index is
                               rebuilt, not raised)
"""

from __future__ import annotations

from collections.abc import Iterator

__all__ = [
    "ReverieError",
    "ConfigError",
    "WorkspaceError",
    "UnsafePathError",
    "WorkspaceMovedError",
    "InvalidScopeError",
    "NothingPendingError",
    "PendingChangedError",
    "CursorError",
    "HistoryError",
    "LockTimeoutError",
    "GitStoreError",
    "UnknownRevisionError",
    "AmbiguousRevisionError",
    "MergeConflictError",
    "EditConflictError",
    "ModelError",
    "ModelUnavailableError",
    "ContextWindowError",
    "SessionError",
    "GateError",
    "DreamError",
    "AlreadyRunningError",
    "FencedError",
    "CommandError",
    "WorkerError",
    "RecallError",
]


#: The longest word (a run without white space: a quoted argument, a path) an error's message
#: quotes whole, and the longest message; past them, the middle is cut (``shorten_message``).
MAX_QUOTED = 200
MAX_MESSAGE = 1200


def shorten_message(message: str) -> str:
    """``message`` with each word longer than ``MAX_QUOTED`` characters cut in its middle, then the
    whole cut in its middle when still longer than ``MAX_MESSAGE``: an error quoting a 4 KB
    argument stays a line a person reads, naming the argument by its start, its end and its
    length. Every ``ReverieError`` passes its message through here (the one place)."""
    if len(message) <= MAX_QUOTED:
        return message
    words = message.split(" ")
    cut = [w if len(w) <= MAX_QUOTED else _cut(w, MAX_QUOTED) for w in words]
    out = " ".join(cut)
    return out if len(out) <= MAX_MESSAGE else _cut(out, MAX_MESSAGE)


def _cut(text: str, keep: int) -> str:
    head, tail = keep * 2 // 3, keep // 6
    return f"{text[:head]}…[{len(text) - head - tail} characters cut]…{text[-tail:]}"


class ReverieError(Exception):
    """Base of every error Reverie raises deliberately. A message is kept readable whatever it
    quotes (``shorten_message``)."""

    def __init__(self, *args: object) -> None:
        if args and isinstance(args[0], str):
            args = (shorten_message(args[0]), *args[1:])
        super().__init__(*args)


class ConfigError(ReverieError):
    """A config file or value is invalid; the message names the key, the value and what is
    allowed."""


class WorkspaceError(ReverieError):
    """The workspace cannot be used as asked (missing, not a directory, a file that is not
    memory)."""


class WorkspaceMovedError(WorkspaceError):
    """The workspace folder an open ``Memory`` uses was deleted, moved or replaced (another
    folder, or another memory repo, at its path) after it was opened: nothing is read or written
    there (the memory would be split in two places); open it again."""


class UnsafePathError(WorkspaceError):
    """A path escapes the workspace (absolute, ``..``, NUL, a symlink out) or is not a memory
    file."""


class InvalidScopeError(WorkspaceError):
    """A user or agent id is not a valid scope id (``reverie.storage.scopes``)."""


class NothingPendingError(WorkspaceError):
    """Nothing to act on: no staged SOUL.md change to approve, no Dream commit to restore."""


class PendingChangedError(WorkspaceError):
    """The SOUL.md proposal a confirmation previewed (its ``SoulProposal.id``) is no longer the one
    waiting: Dream widened it since. Nothing was applied or dropped; ``current_id`` names the one
    waiting now (show it again)."""

    def __init__(self, message: str, *, current_id: str) -> None:
        super().__init__(message)
        self.current_id = current_id

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild_pending_changed, (str(self), self.current_id))


def _rebuild_pending_changed(message: str, current_id: str) -> PendingChangedError:
    return PendingChangedError(message, current_id=current_id)


class CursorError(ReverieError):
    """A cursor file is corrupt and cannot be recovered automatically."""


class HistoryError(ReverieError):
    """history.jsonl cannot be read or written."""


class LockTimeoutError(ReverieError):
    """A cross-process lock was not acquired in time."""


class GitStoreError(ReverieError):
    """The memory repository failed."""


class UnknownRevisionError(GitStoreError):
    """No commit matches a sha or prefix."""


class AmbiguousRevisionError(GitStoreError):
    """A prefix matches several commits; ``candidates`` lists them."""

    def __init__(self, message: str, candidates: list[str] | None = None) -> None:
        super().__init__(message)
        self.candidates = list(candidates or [])


class MergeConflictError(GitStoreError):
    """A revert or merge conflicts; ``path`` and ``lines`` say where."""

    def __init__(self, message: str, path: str = "", lines: tuple[int, int] | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.lines = lines


class EditConflictError(MergeConflictError):
    """A change made from an older state (a ``base``) that the changes made since conflict with:
    both touched the same lines. Nothing was written. It carries both sides so a front end can
    show them and let the person choose: ``yours`` (what the change would make the file),
    ``current`` (the file now) and ``base`` (what the change was made from; None when that state
    is not in the memory repo, so no merge was possible). Retry with ``base=current_id`` (a
    write) or ``base=head`` (a restore) once resolved."""

    def __init__(
        self,
        message: str,
        *,
        path: str,
        yours: str,
        current: str,
        base: str | None,
        current_id: str,
        head: str | None = None,
        lines: tuple[int, int] | None = None,
    ) -> None:
        super().__init__(message, path, lines)
        self.yours = yours
        self.current = current
        self.base = base
        self.current_id = current_id
        self.head = head

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled whole (a worker process, a task queue): its fields are keyword-only."""
        fields = {
            "path": self.path,
            "yours": self.yours,
            "current": self.current,
            "base": self.base,
            "current_id": self.current_id,
            "head": self.head,
            "lines": self.lines,
        }
        return (_rebuild_edit_conflict, (str(self), fields))


def _rebuild_edit_conflict(message: str, fields: dict[str, object]) -> EditConflictError:
    return EditConflictError(message, **fields)  # type: ignore[arg-type]


class ModelError(ReverieError):
    """A model call failed after its retries (the message never carries an API key)."""


class ModelUnavailableError(ModelError):
    """The provider could not serve the call at all; what the caller sent is not at fault.

    ``kind`` is one of "auth" (401/403, missing key), "not-found" (no such model), "unreachable"
    (connection refused, DNS), "not-answering" (every attempt timed out without a reply: a hung or
    stopped server) or "overloaded" (rate limits, 5xx, or a mix of faults past the retry budget).
    Dream leaves the batch pending without counting an attempt when it sees this.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: str = "unreachable",
        provider: str = "",
        model: str = "",
        endpoint: str = "",
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.provider = provider
        self.model = model
        self.endpoint = endpoint


class ContextWindowError(ModelError):
    """The request did not fit the model's context window (the provider said so). ``limit`` is the
    window the provider named, when its message names one; ``requested`` the tokens it counted.
    Never retried as is: the caller shrinks what it sends (a smaller batch, a shorter
    transcript)."""

    def __init__(
        self, message: str, *, limit: int | None = None, requested: int | None = None
    ) -> None:
        super().__init__(message)
        self.limit = limit
        self.requested = requested


class SessionError(ReverieError):
    """A session could not be consolidated or cleared."""


class GateError(ReverieError):
    """Dream's gate refused a person's or an agent's edit; the message says why and what to do."""


class DreamError(ReverieError):
    """A Dream run could not start."""


class AlreadyRunningError(DreamError):
    """Another Dream run holds the run lock."""


class FencedError(DreamError):
    """A Dream run's write was refused by ``reverie.dream.fence``: its epoch is stale or its batch
    was taken."""


class CommandError(ReverieError):
    """A chat command, CLI invocation or verb argument is malformed; the message names it."""


class WorkerError(ReverieError):
    """A worker process of the async verbs (``reverie.memory.offload`` in process mode) died during
    a call, or could not carry it (an argument, result or error that does not pickle). A write it
    was doing is either whole or not made (every write is atomic, and a multi-step change recovers
    on the next writer's turn), as when a CLI run is killed; the next call starts a new worker."""


class RecallError(ReverieError):
    """The search index cannot be built or queried (a corrupt index is rebuilt, not raised)."""


def cause_chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and every exception behind it, each once (a cycle ends the walk): its ``__cause__``,
    its ``__context__``, and the ``original_exception`` a wrapping library keeps (litellm's). The
    one walk for every layer that asks what a failure really was (the model client: an unreachable
    provider; the fleet's log filter: a lost broker)."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        todo += [e.__cause__, e.__context__, getattr(e, "original_exception", None)]
