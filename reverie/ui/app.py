"""The UI's ASGI app: five screens over one workspace's ``Memory``, every action one ``Memory``
verb.

Screens: Memory (the prompt files line by line: why, edit, pin, remove), Timeline (every commit, a
page at a time; a commit's diff, trailers and batch; restore, revert and replay behind a
confirmation showing the exact diff), Review (a SOUL.md proposal, set-aside batches, the last
Dream run), Search (Recall, each hit linked to where it came from) and Status (budgets, archive,
Dream's schedule, the model's health, "Dream now").

Pages are rendered on the server (Jinja2, autoescaped, every hidden character an escape: memory text
is untrusted; ``reverie.ui.pages``, ``reverie.ui.views``); forms post and redirect (a reload never
repeats an action); ``static/ui.js`` only enhances (inline "why", confirmations, Dream's progress).
Reads and writes run through ``Memory``'s async twins (each in a worker thread on its own handle),
so a slow call never stalls another page. A ``ReverieError`` from an action becomes a message on the
page the user came from; one from a read leaves that part of the page out and says why, beside the
banners of the workspace's faults (``Memory.faults``) every page shows.

One ``UI`` serves one workspace. Every link, form and redirect it makes starts with its ``base``:
the server's own id (``/<id>``) when it is the whole app (``build_app``), ``/<id>/s/<scope name>``
when ``reverie.ui.root`` serves it as one scope of a root (``reverie --root DIR ui``: a user picker,
then each scope's screens).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import functools
import logging
import re
from collections.abc import Awaitable, Callable
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route

from ..errors import (
    AmbiguousRevisionError,
    EditConflictError,
    ReverieError,
    UnknownRevisionError,
    UnsafePathError,
)
from ..gitstore.trailers import REJECTED, split_message
from ..storage.workspace import MEMORY_FILES, content_id
from ..text.safety import hidden, visible
from ..text.utf8 import undecodable
from . import views
from .jobs import DreamJob
from .pages import Pages, quietly, session_of, static_files, templates
from .security import Gate, Guard, SignIn, came_from, typed_back

if TYPE_CHECKING:
    from starlette.routing import BaseRoute

    from ..gitstore.types import CommitInfo
    from ..memory import Memory, WriteResult
    from ..storage.history import HistoryEntry
    from ..storage.sessions_view import SessionView

__all__ = ["UI", "build_app", "scope_app", "templates", "static_files", "PAGE_SIZE"]

log = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
#: Commits per Timeline page.
PAGE_SIZE = 50
#: Search hits shown.
HITS = 20
#: History entries on one page of the history screen.
HISTORY_PAGE = 500
#: A batch's entries shown on a commit page (a longer batch links to the history page).
BATCH_SHOWN = 50

Handler = Callable[[Request], Awaitable[Response]]


class UI(Pages):
    """The handlers, over one ``Memory`` (its async verbs each use a handle of their own). ``base``
    prefixes every URL the pages and redirects make; ``picker``: the address of the root's user
    picker (root mode only)."""

    def __init__(self, memory: Memory, *, base: str = "", picker: str | None = None) -> None:
        self.memory = memory
        self.base = base
        self.picker = picker
        self.job = DreamJob()
        scope = memory.runtime.scope
        self.scope = scope[1] if scope is not None else None  # shown in the header

    # -- plumbing ----------------------------------------------------------------------------------
    async def around(self, request: Request) -> dict[str, Any]:
        """The faults found in the workspace, and whether a SOUL.md change waits (a badge on
        Review); a proposal that cannot be read is a fault, not a badge."""

        faults, change = await asyncio.gather(
            self.attempt(request, self.memory.afaults(), []),
            quietly(self.memory.apending_soul()),  # a damaged file: its fault says so
        )
        waiting = change is not None and not change.applied
        return {"faults": faults, "soul_waiting": waiting}

    #: The files the Timeline filters by: the prompt files and their archives.
    timeline_files = (
        *MEMORY_FILES,
        *(f"memory/archive/{n}.md" for n in ("soul", "user", "memory")),
    )

    def frame(self) -> dict[str, Any]:
        """What every page of this workspace shows around its content (see ``Pages.render``)."""
        return {
            "workspace": str(self.memory.workspace.root),
            "base": self.base,
            "picker": self.picker,
            "scope": self.scope,
            "screens": True,
        }

    async def act(
        self, request: Request, back: str, action: Callable[[dict[str, str]], Awaitable[str]]
    ) -> Response:
        """Run an action from a posted form; its message (or its error) is shown on ``back``'s page
        (a path of this workspace's screens: the base is added here)."""
        form = await self.form(request)
        session = session_of(request)
        try:
            session.flash("ok", await action(form))
        except EditConflictError as exc:  # both sides shown, the person chooses: nothing written
            return await self.conflict(request, exc, form)
        except ReverieError as exc:
            if _typed(form):
                return await self.refused(request, str(exc), form)
            session.flash("error", str(exc))
            back = _local(form.get("back_on_error")) or back
        except OSError as exc:
            # the machine's fault (a full disk, a read-only mount): said, not a 500
            where = f"{exc.filename}: " if exc.filename else ""
            said = f"nothing was changed: {where}{exc.strerror or exc}"
            if _typed(form):
                return await self.refused(request, said, form)
            session.flash("error", said)
            back = _local(form.get("back_on_error")) or back
        return self.redirect(back)

    async def refused(self, request: Request, why: str, form: dict[str, str]) -> Response:
        """A refused form that held typed text (a line, a file, a reason): why, and what was typed
        shown back read-only to copy, with a link to the form again; a redirect to the page
        behind it would lose the text."""
        prefix = request.scope["state"].get("ui_prefix", "")
        return await self.render(
            request,
            "error.html",
            status_code=409,
            status=409,
            detail=why,
            typed=typed_back(form),
            again=came_from(request, prefix),
            active="memory",
        )

    def redirect(self, path: str) -> Response:
        """To ``path`` of this workspace's screens (``/memory``…), under the base."""
        return RedirectResponse(self.base + path, status_code=303)

    # -- Memory ------------------------------------------------------------------------------------
    async def memory_page(self, request: Request) -> Response:
        texts = await asyncio.gather(
            *(self.attempt(request, self._exact(rel), None) for rel in MEMORY_FILES)
        )
        committed = await asyncio.gather(
            *(quietly(self.memory.acommitted(rel)) for rel in MEMORY_FILES)
        )
        files = []
        for rel, text, last in zip(MEMORY_FILES, texts, committed, strict=True):
            lines = views.file_lines(text, rel, last) if text is not None else None
            files.append((rel, lines, len(text or "")))
        status = await self.attempt(request, self.memory.astatus(), None)
        budgets = status.budgets if status is not None else {}
        return await self.render(
            request, "memory.html", files=files, budgets=budgets, active="memory"
        )

    async def why(self, request: Request) -> Response:
        rel, index, clicked = await self._clicked(request)
        line = clicked or ""  # (None: a long line changed since the page, said so)
        found = (
            [
                p
                for p in await self.attempt(request, self.memory.awhy(line.strip()), [])
                if p.path == rel
            ]
            if line.strip()
            else []
        )
        exact = [p for p in found if p.line_no == index + 1]
        entries = []
        for p in exact or found:
            shown = await self._entries(*p.cursor_range) if p.cursor_range else []
            entries.append((p, shown[:BATCH_SHOWN]))
        name = "why_fragment.html" if request.query_params.get("fragment") else "why.html"
        return await self.render(
            request,
            name,
            path=rel,
            line=line,
            changed=clicked is None,
            found=entries,
            active="memory",
        )

    async def edit_form(self, request: Request) -> Response:
        """A line's edit form, carrying the file as it loaded it (its content id and text): the
        edit is made from that state, and merged over whatever changed since (``Memory.write``'s
        ``base``)."""
        rel, index, line = await self._clicked(request)
        text = await self.attempt(request, self._exact(rel), None)
        rows = text.split("\n") if text is not None else []
        moved = text is not None and (not 0 <= index < len(rows) or rows[index] != line)
        line = line or ""  # (a long line changed since the page: said, not shown)
        return await self.render(
            request,
            "edit.html",
            path=rel,
            line=line,
            index=index,
            hidden=len(hidden(line)),
            moved=moved,
            not_utf8=_not_utf8(rel, text) if text is not None else None,
            loaded_id=content_id(text) if text is not None else "",
            loaded=_packed(text) if text is not None and not moved else None,
            active="memory",
        )

    async def edit(self, request: Request) -> Response:
        async def run(form: dict[str, str]) -> str:
            rel, rows, i, base = await self._loaded_line(form)
            await self._round_trips(rel, "\n".join(rows))
            rows[i] = form.get("text", "").replace("\r", " ").replace("\n", " ")
            result = await self.memory.awrite(
                rel, "\n".join(rows), message=f"manual: edit a line of {rel}", base=base
            )
            return _edited(rel, result)

        return await self.act(request, "/memory", run)

    async def _loaded_line(self, form: dict[str, str]) -> tuple[str, list[str], int, str]:
        """The file's lines as the edit form loaded them (``loaded``, whose content id is
        ``base``), the index of the line edited, and that base; a form without them (from an
        older page) edits the file as it is now, if its line still reads as the form says."""
        if not form.get("base") and not form.get("loaded"):
            rel, rows, i = await self._line_of(form)
            return rel, rows, i, content_id("\n".join(rows))
        rel = _memory_file(form.get("path", ""))
        base = form.get("base", "")
        loaded = _unpacked(form.get("loaded", ""))
        if loaded is None or content_id(loaded) != base:
            raise ReverieError("the edit form arrived damaged: nothing was done (reload the page)")
        rows = loaded.split("\n")
        i = _int(form.get("line"), -1)
        if not 0 <= i < len(rows) or not _names(form, rows[i]):
            raise ReverieError("the edit form arrived damaged: nothing was done (reload the page)")
        return rel, rows, i, base

    async def file_form(self, request: Request) -> Response:
        rel = _memory_file(request.query_params.get("path", ""))
        text = await self.attempt(request, self._exact(rel), None)
        return await self.render(
            request,
            "edit_file.html",
            path=rel,
            text=text,
            not_utf8=_not_utf8(rel, text) if text is not None else None,
            not_carried=_not_carried(rel, text) if text is not None else None,
            loaded_id=content_id(text) if text is not None else "",
            hidden=sum(len(hidden(line)) for line in (text or "").split("\n")),
            active="memory",
        )

    async def edit_file(self, request: Request) -> Response:
        """A whole file's new text, made from the state whose content id the form carries
        (``base``): merged over what changed since, or the conflict page. Never a blind write."""

        async def run(form: dict[str, str]) -> str:
            rel = _memory_file(form.get("path", ""))
            base = form.get("base", "")
            if not base:
                raise ReverieError(
                    f"this form does not say which version of {rel} it was made from: nothing "
                    "was written (reload the page)"
                )
            await self._round_trips(rel, whole=True)
            text = form.get("text", "").replace("\r\n", "\n")
            result = await self.memory.awrite(rel, text, message=f"manual: edit {rel}", base=base)
            return _edited(rel, result)

        return await self.act(request, "/memory", run)

    async def _exact(self, rel: str) -> str:
        """A memory file as it is, byte for byte: a byte that is not UTF-8 read as the lone
        surrogate standing for it (``Memory.read(exact=True)``), so a page shows it escaped
        (``\\xE9``) and no form writes U+FFFD back in its place."""
        return await self.memory.aread(rel, exact=True)

    async def _round_trips(self, rel: str, loaded: str | None = None, whole: bool = False) -> None:
        """Refuse an edit of a file holding bytes that are not UTF-8, as the form loaded it
        (``loaded``) or as it is now: a form carries text, and would write other bytes for them.
        ``whole``: the whole file came back through a text area, which must carry it as it is."""
        for text in (loaded, await self._exact(rel)):
            why = _not_utf8(rel, text) if text is not None else None
            if why is None and whole and text is not None:
                why = _not_carried(rel, text)
            if why is not None:
                raise ReverieError(f"Nothing was written: {why}")

    async def conflict(
        self, request: Request, exc: EditConflictError, form: dict[str, str]
    ) -> Response:
        """The page for a change made from a state that moved on the same lines: what the file
        holds now beside what the change would make it, and a choice (keep the file as it is, or
        save a text made from both; an undo is previewed again from now). Nothing was written."""
        sha = request.path_params.get("sha")
        current = exc.current.split("\n")
        yours = exc.yours.split("\n")
        return await self.render(
            request,
            "conflict.html",
            status_code=409,
            path=exc.path,
            lines=exc.lines,
            message=str(exc),
            sides=views.sides(current, yours),
            diff=views.diff_rows(views.text_diff(exc.path, exc.current, exc.yours)),
            current_id=exc.current_id,
            yours=exc.yours,
            sha=sha,
            again=urlencode(
                {"action": form.get("action", "restore"), "replay": form.get("replay", "0")}
            ),
            active="timeline" if sha else "memory",
        )

    async def pin(self, request: Request) -> Response:
        async def run(form: dict[str, str]) -> str:
            rel, rows, i = await self._line_of(form, follow=True)
            unpin = form.get("unpin") == "1"
            result = await self.memory.apin(rows[i].strip(), unpin=unpin)
            verb = "Unpinned" if unpin else "Pinned"
            return f"{verb} in {result.path}" + (
                f" as commit {result.commit[:8]}." if result.commit else " (it already was)."
            )

        return await self.act(request, "/memory", run)

    async def remove_form(self, request: Request) -> Response:
        rel, index, line = await self._clicked(request)
        return await self.render(
            request, "remove.html", path=rel, line=line, index=index, active="memory"
        )

    async def _clicked(self, request: Request) -> tuple[str, int, str | None]:
        """The ``path`` and ``line`` (0-based) a line's link names, and that line's text as the
        page showed it: the link's ``text``, or for a long line (``views.line_ref``), the line read
        from the file if its content id is still the link's ``id`` (None: it changed since)."""
        rel, index, text, ident = _file_line(request)
        if text is not None:
            return rel, index, text
        rows = (await self.attempt(request, self._exact(rel), "")).split("\n")
        found = rows[index] if index < len(rows) else None
        return rel, index, found if found is not None and content_id(found) == ident else None

    async def remove(self, request: Request) -> Response:
        async def run(form: dict[str, str]) -> str:
            rel, rows, i = await self._line_of(form, follow=True)
            result = await self.memory.aremove(rel, rows[i], reason=form.get("reason", ""))
            return f"Moved the line to {result.archive}" + (
                f" (commit {result.commit[:8]})." if result.commit else "."
            )

        return await self.act(request, "/memory", run)

    async def _line_of(
        self, form: dict[str, str], *, follow: bool = False
    ) -> tuple[str, list[str], int]:
        """The file, its lines and the index of the line the form names, if it still reads as the
        form says; with ``follow`` (a pin or a removal: verbs of the line's text), also where that
        text now stands if it stands there once (another tab added or removed a line above it).
        Refused otherwise (changed, gone, or now twice)."""
        rel = _memory_file(form.get("path", ""))
        rows = (await self._exact(rel)).split("\n")
        i = _int(form.get("line"), -1)
        if 0 <= i < len(rows) and undecodable(rows[i]) is not None:
            raise ReverieError(f"Nothing was done: {_not_utf8(rel, rows[i])}")
        if not 0 <= i < len(rows) or not _names(form, rows[i]):
            places = [
                k for k, row in enumerate(rows) if follow and _names(form, row) and row.strip()
            ]
            if len(places) != 1:
                raise ReverieError(
                    f"{rel} changed since the page was loaded: nothing was done (look again and "
                    "retry)"
                )
            i = places[0]
        return rel, rows, i

    async def file_page(self, request: Request) -> Response:
        rel = request.query_params.get("path", "")
        try:
            text = await self._exact(rel)
        except UnsafePathError as exc:
            raise HTTPException(404, str(exc)) from None
        except (ReverieError, OSError) as exc:
            raise HTTPException(404, f"{rel} cannot be read: {exc}") from None
        last = await quietly(self.memory.acommitted(rel))
        return await self.render(
            request,
            "file.html",
            path=rel,
            lines=views.file_lines(text, rel, last),
            active="memory",
        )

    # -- Timeline ----------------------------------------------------------------------------------
    async def timeline(self, request: Request) -> Response:
        params = request.query_params
        kind = params.get("kind") or None
        start = params.get("start") or None
        path = params.get("path") or None
        text = (params.get("text") or "").strip()[:200] or None
        since, until = _day(params.get("since")), _day(params.get("until"))
        if path is not None and path not in self.timeline_files:
            path = None
        shown = {"kind": kind, "path": path, "text": text, "since": since, "until": until}
        try:
            commits = await self.memory.alog(
                limit=PAGE_SIZE + 1,
                kind=kind,
                start=start,
                path=path,
                text=text,
                since=since,
                until=until,
            )
        except (UnknownRevisionError, AmbiguousRevisionError) as exc:
            raise HTTPException(404, str(exc)) from None
        except (ReverieError, OSError) as exc:
            commits = []
            self.leave_out(request, exc)
        older = commits[PAGE_SIZE].sha if len(commits) > PAGE_SIZE else None
        return await self.render(
            request,
            "timeline.html",
            commits=commits[:PAGE_SIZE],
            older=older,
            kind=kind or "",
            filters={k: v for k, v in shown.items() if v},
            query=urlencode({k: str(v) for k, v in shown.items() if v}),
            files=self.timeline_files,
            path=path or "",
            text=text or "",
            since=since.isoformat() if since else "",
            until=until.isoformat() if until else "",
            start=start,
            batch_of=views.batch_of,
            active="timeline",
        )

    async def commit_page(self, request: Request) -> Response:
        detail = await self._show(request.path_params["sha"])
        batch = views.batch_of(detail.info)
        entries = (
            await self._entries(batch[0], min(batch[1], batch[0] + BATCH_SHOWN - 1))
            if batch
            else []
        )
        return await self.render(
            request,
            "commit.html",
            info=detail.info,
            proposal=_rejected_proposal(detail.info),
            diff=views.diff_rows(detail.diff),
            batch=batch,
            entries=entries,
            trailers=views.other_trailers(detail.info),
            active="timeline",
        )

    async def confirm(self, request: Request) -> Response:
        detail = await self._show(request.path_params["sha"])
        only = request.query_params.get("action") == "revert"
        replay = request.query_params.get("replay") == "1"
        problem, diff, base = None, "", ""
        try:
            plan = await self.memory.aplan_restore(detail.info.sha, only=only)
            diff, base = plan.diff, plan.base or ""
        except (ReverieError, OSError) as exc:  # a conflict, a first commit, a damaged object
            problem = str(exc)
        rejection = None
        if detail.info.kind == "reject" or (
            detail.info.kind == "revert" and REJECTED in detail.info.trailers
        ):
            rejection = detail.info.kind  # the proposal goes back on Review / is rejected again
        return await self.render(
            request,
            "confirm.html",
            info=detail.info,
            only=only,
            replay=replay,
            problem=problem,
            diff=views.diff_rows(diff),
            previewed=base,
            rejection=rejection,
            proposal=_rejected_proposal(detail.info),
            batch=views.batch_of(detail.info),
            active="timeline",
        )

    async def restore(self, request: Request) -> Response:
        sha = request.path_params["sha"]

        async def run(form: dict[str, str]) -> str:
            only, replay = form.get("action") == "revert", form.get("replay") == "1"
            # the state the confirmation's diff was made at: the undo does what it showed, over
            # what changed since (or the conflict page)
            base = form.get("base")
            if not base:
                raise ReverieError(
                    "this confirmation does not say which state it previewed: nothing was done "
                    "(open the confirmation again)"
                )
            result = await self.memory.arestore(sha, only=only, replay=replay, base=base)
            what = f"Undid {sha[:8]}" if only else f"Restored memory to before {sha[:8]}"
            done = f" as commit {result.commit[:8]}" if result.commit else " (nothing changed)"
            if result.merged:
                done += " (merged with the changes made since you previewed it)"
            rewound = (
                f"; Dream will read history again from entry {result.cursor_rewound_to + 1}"
                if result.cursor_rewound_to is not None
                else ""
            )
            return f"{what}{done}{rewound}."

        return await self.act(request, "/timeline", run)

    async def _show(self, sha: str) -> Any:
        try:
            return await self.memory.ashow(sha)
        except (ReverieError, OSError) as exc:  # no such commit, or one that cannot be read
            raise HTTPException(404, str(exc)) from None

    async def history(self, request: Request) -> Response:
        first = _int(request.query_params.get("first"), 1)
        asked = _int(request.query_params.get("last"), first)
        last = min(asked, first + HISTORY_PAGE - 1)
        entries = await self.attempt(request, self._entries(first, last), [])
        # a range past one page (a long batch's "all entries") goes on a page at a time
        later = urlencode({"first": last + 1, "last": asked}) if asked > last else None
        return await self.render(
            request,
            "history.html",
            entries=entries,
            first=first,
            last=last,
            later=later,
            active="search",
        )

    async def _entries(self, first: int, last: int) -> list[HistoryEntry]:
        """History entries ``first`` to ``last`` (a Dream batch, a search hit's entry)."""
        if last < first:
            return []
        found = await quietly(self.memory.ahistory(since=max(first - 1, 0), limit=last - first + 1))
        return [e for e in found or [] if e.cursor <= last]

    async def session(self, request: Request) -> Response:
        """A conversation, a page of ``views.MESSAGES_PER_PAGE`` messages at a time (the newest
        page first; a search hit's ``message`` opens its page). *Earlier* and *Later* name the
        message a page starts or ends at by its content (``mark``) as well as its place (``at``):
        when the conversation changes while it is open — the Consolidator clears its consolidated
        messages, a message is taken back — the next page starts where the last one ended as the
        conversation is now, so no message is shown twice or skipped."""
        params = request.query_params
        key = params.get("key", "")
        try:
            # read a page at a time: a conversation of a gigabyte is never read whole for a page
            found = await self.memory.asession_view(key) if key else None
        except (ReverieError, OSError) as exc:
            raise HTTPException(404, f"the conversation {key!r} cannot be read: {exc}") from None
        if found is None:
            raise HTTPException(404, f"no conversation {key!r} in this workspace")
        try:
            return await self._session_page(request, found)
        finally:
            found.messages.close()

    async def _session_page(self, request: Request, found: SessionView) -> Response:
        params = request.query_params
        key = params.get("key", "")
        messages, size = found.messages, views.MESSAGES_PER_PAGE
        newest_only = not {"message", "at", "mark", "back"} & set(params)
        if newest_only and await asyncio.to_thread(lambda: messages.countless):
            return await self._newest_page(request, found)
        n = await asyncio.to_thread(len, messages)
        target = _int(params.get("message"), -1)
        whole = _int(params.get("whole"), -1)
        at, mark, way = _int(params.get("at"), -1), params.get("mark", ""), params.get("dir", "")
        if "back" in params:  # from a newest page read from the end: before its messages
            at = max(n - _int(params.get("back"), 0), 0)
        note = None
        if mark and way in ("after", "before") and n:
            # "after": the last message the page before showed; "before": the first one the page
            # after showed. A clear drops a prefix, so when that message is gone, so is all
            # before it: the conversation as it is now starts after it.
            place = views.locate(messages, mark, at)
            start = 0 if place is None else place + 1 if way == "after" else max(0, place - size)
            end = min(n, start + size) if way == "after" or place is None else place
            if place is None:
                note = (
                    "This conversation changed since the last page loaded: the message that page "
                    "led on from was consolidated into history and cleared from it (or taken "
                    "back). It is shown from its start as it is now."
                )
            elif start >= end:  # nothing on that side of it now
                start, end = (max(0, n - size), n) if way == "after" else (0, min(n, size))
                note = (
                    "Nothing follows that message now (a later one was taken back)."
                    if way == "after"
                    else "Nothing comes before that message now: the earlier ones were "
                    "consolidated into history and cleared from the conversation."
                )
            elif place != at and "back" not in params:  # (counted back from the end: appends
                # after it moved nothing)
                note = (
                    "This conversation changed since the last page loaded (its messages moved by "
                    f"{at - place}: its oldest were consolidated into history and cleared); this "
                    "page follows on from the last one as it is now."
                )
        elif 0 <= target < n:
            start = target - target % size
            end = min(n, start + size)
        else:
            if target >= n:
                note = f"It has no message {target + 1} now: it holds {n}."
            start = min(max(at, 0), max(n - 1, 0)) if "at" in params else max(0, n - size)
            end = min(n, start + size)
        consolidated = found.last_consolidated
        shown = [
            views.message_view(i, messages[i], consolidated=i < consolidated, whole=i == whole)
            for i in range(start, end)
        ]
        here = (
            {"at": at, "mark": mark, "dir": way}
            if mark
            else {"message": target}
            if 0 <= target < n
            else {"at": start}
        )
        link = functools.partial(_session_query, key)
        return await self._render_session(
            request,
            found,
            shown,
            total=n,
            first=start,
            target=target,
            consolidated=consolidated,
            note=note,
            earlier=link(at=start, mark=shown[0].mark, dir="before")
            if start > 0 and shown
            else None,
            later=link(at=end - 1, mark=shown[-1].mark, dir="after") if end < n and shown else None,
            oldest=link(at=0) if start > 0 else None,
            newest=link() if end < n else None,
            whole_link=lambda i: link(**here, whole=i) + f"#m{i}",
        )

    async def _newest_page(self, request: Request, found: SessionView) -> Response:
        """The newest page of a conversation too large to count at once, read from the file's end
        (``MessageLines.newest``): its messages numbered back from the newest, each marked
        consolidated or not when the end of the consolidated ones lies within reach of the
        file's start (else the page says it is not known), and *Earlier* counting the file once
        to go on from there."""
        params = request.query_params
        key = params.get("key", "")
        messages, size = found.messages, views.MESSAGES_PER_PAGE
        tail = await asyncio.to_thread(messages.newest, size)
        stated = found.stated_consolidated
        ends = 0 if stated == 0 else await asyncio.to_thread(messages.offset_of, stated)
        whole = _int(params.get("whole"), 0)
        shown = [
            views.message_view(
                k - len(tail),  # -1: the newest
                message,
                consolidated=None if ends is None else offset < ends,
                whole=k - len(tail) == whole,
            )
            for k, (offset, message) in enumerate(tail)
        ]
        size_mb = messages.size() / (1 << 20)
        link = functools.partial(_session_query, key)
        return await self._render_session(
            request,
            found,
            shown,
            total=None,
            size_mb=size_mb,
            first=0,
            target=-1,
            consolidated=stated,
            consolidated_known=ends is not None,
            note=None,
            earlier=link(back=len(shown), mark=shown[0].mark, dir="before") if shown else None,
            later=None,
            oldest=link(at=0),
            newest=None,
            whole_link=lambda i: link(whole=i) + f"#m{i}",
        )

    async def _render_session(
        self, request: Request, found: SessionView, shown: list[views.MessageView], **page: Any
    ) -> Response:
        """``session.html`` for the conversation ``found`` showing ``shown`` (its messages' views);
        ``page``: where the page stands in it and its links (``_session_query`` addresses)."""
        return await self.render(
            request, "session.html", key=found.key, messages=shown, active="search", **page
        )

    # -- Review ------------------------------------------------------------------------------------
    async def review(self, request: Request) -> Response:
        unreadable = None
        try:
            change = await self.memory.apending_soul()
        except (ReverieError, OSError) as exc:  # a damaged file: its fault is on the page
            change, unreadable = None, str(exc)
        status, last_dream, aside, queued, rejected = await asyncio.gather(
            self.attempt(request, self.memory.astatus(), None),
            self.attempt(request, self.memory.alast_dream_commit(), None),
            self.attempt(request, self.memory.aset_aside(), []),
            self.attempt(request, self.memory.aqueued(), []),
            self.attempt(request, self.memory.alog(limit=5, kind="reject"), []),
        )
        waiting = change is not None and not change.applied
        return await self.render(
            request,
            "review.html",
            change=change if waiting else None,
            unreadable=unreadable,
            diff=views.diff_rows(change.diff()) if change is not None and waiting else [],
            aside=aside,
            queued=queued,
            rejected=rejected,
            status=status,
            last_commit=last_dream,
            active="review",
        )

    async def approve(self, request: Request) -> Response:
        async def run(form: dict[str, str]) -> str:
            shown = form.get("change")  # the proposal this page showed: Dream may widen it since
            if not shown:
                raise ReverieError(
                    "this form does not say which SOUL.md proposal it showed: nothing was applied "
                    "(look at it again)"
                )
            result = await self.memory.aapprove(change=shown)
            merged = " (merged with your later edits)" if result.merged else ""
            done = f" as commit {result.commit[:8]}" if result.commit else ""
            return (
                f"Applied the SOUL.md change{done}{merged}: "
                f"+{result.added} -{result.removed} lines."
            )

        return await self.act(request, "/review", run)

    async def reject(self, request: Request) -> Response:
        async def run(form: dict[str, str]) -> str:
            # the proposal shown (none when its file cannot be read: rejected all the same)
            dropped = await self.memory.areject(change=form.get("change") or None)
            if dropped is None:
                return "No SOUL.md proposal was waiting."
            record = f" (commit {dropped.commit[:8]})" if dropped.commit else ""
            return (
                f"Rejected the proposed SOUL.md change{record}: it is kept, and undoing that "
                "commit on the Timeline puts it back on Review."
            )

        return await self.act(request, "/review", run)

    async def requeue(self, request: Request) -> Response:
        async def run(form: dict[str, str]) -> str:
            firsts = None if form.get("all") == "1" else [_int(form.get("first"), -1)]
            done = await self.memory.arequeue(firsts)
            if not done:
                return "No set-aside batch matched: nothing requeued."
            shown = ", ".join(f"{d.first}–{d.last}" for d in done)
            return f"Requeued history {shown}: the next Dream run reads it again."

        return await self.act(request, "/review", run)

    # -- Search ------------------------------------------------------------------------------------
    async def search(self, request: Request) -> Response:
        query = request.query_params.get("q", "").strip()
        hits, problem = [], None
        searched = query[: self.memory.MAX_QUERY_CHARS]  # (the page says what it left out)
        if query:
            try:
                hits = await self.memory.arecall(searched, limit=HITS)
            except (ReverieError, OSError) as exc:
                problem = str(exc)
        return await self.render(
            request,
            "search.html",
            query=query,
            searched=searched,
            hits=hits,
            problem=problem,
            active="search",
        )

    # -- Status ------------------------------------------------------------------------------------
    async def status(self, request: Request) -> Response:
        status, next_run = await asyncio.gather(
            self.attempt(request, self.memory.astatus(), None),
            self.attempt(request, self.memory.anext_dream(), None),
        )
        last_run = status.dream_last_run if status is not None else None
        outage = status.dream_model_unavailable if status is not None else None
        return await self.render(
            request,
            "status.html",
            status=status,
            next_run=next_run,
            job=self.job.state,
            last_run_time=_time(last_run["time"] if last_run else None),
            outage_since=_time(outage["since"] if outage else None),
            active="status",
        )

    async def dream_now(self, request: Request) -> Response:
        await self.form(request)
        if not self.job.start(self.memory):
            session_of(request).flash(
                "error", "Dream is already running from this page: its progress is below."
            )
        return self.redirect("/dream")

    async def dream_page(self, request: Request) -> Response:
        return await self.render(request, "dream.html", job=self.job.state, active="status")

    async def dream_state(self, request: Request) -> Response:
        # text shown by the page's script: hidden characters written out
        state = self.job.state.to_dict()
        for key in ("phase", "detail", "reason"):
            if isinstance(state.get(key), str):
                state[key] = visible(state[key])
        return JSONResponse(state)

    async def home(self, request: Request) -> Response:
        return self.redirect("/memory")


def _edited(rel: str, result: WriteResult) -> str:
    """What an edit did, said in one line."""
    if result.commit is None:
        return f"Edited {rel} (no change)."
    merged = " (merged with the changes made since you opened it)" if result.merged else ""
    return f"Edited {rel} as commit {result.commit[:8]}{merged}."


def _typed(form: dict[str, str]) -> bool:
    """Whether a posted form holds a text someone wrote (an edit's line or file): a refusal then
    shows it back. (A removal's reason stays a flash on the Memory screen, where the line is.)"""
    return bool(form.get("text", "").strip())


def _not_utf8(rel: str, text: str) -> str | None:
    """Why the UI will not write ``rel`` back (``text``: it, or a line of it, read exactly), or
    None when it is UTF-8 throughout."""
    why = undecodable(text)
    if why is None:
        return None
    where = why.removeprefix("not UTF-8 (").removesuffix(")")
    return (
        f"{rel} holds bytes that are not UTF-8 ({where}; shown as escapes like \\xE9): this page "
        "does not save it, since a form cannot carry those bytes back and would write others in "
        "their place. Convert the file to UTF-8 (for Latin-1 text: iconv -f latin1 -t utf-8), "
        "then edit it here"
    )


#: What a browser's text area does not give back as it was: the HTML parser reads a NUL as U+FFFD,
#: and the form sends every carriage return (alone, or before a line feed) as a line break.
_NOT_CARRIED = re.compile("[\x00\r]")


def _not_carried(rel: str, text: str) -> str | None:
    """Why the whole-file form will not save ``rel`` (``text``: it as it is), or None when a text
    area gives it back as it is: saved from one, a line the person did not touch would change."""
    found = _NOT_CARRIED.search(text)
    if found is None:
        return None
    what = "a NUL" if found.group() == "\x00" else "a carriage return (\\r)"
    line = text.count("\n", 0, found.start()) + 1
    return (
        f"{rel} holds {what} at line {line}, which a text area cannot carry: saved from this "
        "page, lines you did not touch would change. Edit one line at a time from the Memory "
        "screen, or remove those characters from the file (for a file saved with Windows line "
        "ends: dos2unix)"
    )


def _packed(text: str) -> str:
    """A file's text for a hidden form field, byte for byte (a browser rewrites line breaks in a
    field's value: base64 has none)."""
    return base64.b64encode(text.encode("utf-8", "surrogateescape")).decode("ascii")


def _unpacked(value: str) -> str | None:
    """``_packed``'s text back; None when the field is not one."""
    try:
        return base64.b64decode(value.encode("ascii"), validate=True).decode(
            "utf-8", "surrogateescape"
        )
    except (ValueError, binascii.Error, UnicodeError):
        return None


def _rejected_proposal(info: CommitInfo) -> list[views.DiffRow]:
    """The diff a reject commit's message keeps of the proposal it rejected (none for another
    kind of commit)."""
    return views.diff_rows(split_message(info.message)[1]) if info.kind == "reject" else []


def _session_query(key: str, **place: object) -> str:
    """The query of a session page's address: the conversation ``key`` and the page's ``place``
    (``at``, ``mark``, ``dir``, ``back``, ``message``, ``whole``)."""
    return urlencode({"key": key, **{k: str(v) for k, v in place.items()}})


def _day(value: str | None) -> date | None:
    """A ``YYYY-MM-DD`` form value as a date; anything else as no date (the field shows it gone)."""
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


def _local(path: str | None) -> str | None:
    """A form's path to go back to, if it is one of this server's (``/…``, not ``//host/…``)."""
    if not path or not path.startswith("/") or path.startswith(("//", "/\\")):
        return None
    return path


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def _memory_file(rel: str) -> str:
    if rel not in MEMORY_FILES:
        raise HTTPException(
            404, f"{rel!r} is not one of the memory files ({', '.join(MEMORY_FILES)})"
        )
    return rel


def _file_line(request: Request) -> tuple[str, int, str | None, str | None]:
    """The ``path`` and ``line`` (0-based) a GET names, and that line's text as the page showed
    it or, for a long line, its content id (``views.line_ref``)."""
    params = request.query_params
    rel = _memory_file(params.get("path", ""))
    index = _int(params.get("line"), -1)
    text, ident = params.get("text"), params.get("id")
    if (text is None and ident is None) or index < 0:
        raise HTTPException(400, "which line? (the link carries its number and its text)")
    return rel, index, text, ident


def _names(form: dict[str, str], row: str) -> bool:
    """Whether ``row`` is the line a posted form names (``views.line_ref``): by its text
    (``original``), or for a long line by its content id (``id``)."""
    if "original" in form:
        return row == form["original"]
    return "id" in form and content_id(row) == form["id"]


def _time(value: object) -> Any:
    from ..dream.records import parse_time

    return parse_time(value)


def _routes(ui: UI) -> list[BaseRoute]:
    return [
        Route("/", ui.home),
        Route("/memory", ui.memory_page),
        Route("/memory/why", ui.why),
        Route("/memory/edit", ui.edit_form),
        Route("/memory/edit", ui.edit, methods=["POST"]),
        Route("/memory/file", ui.file_form),
        Route("/memory/file", ui.edit_file, methods=["POST"]),
        Route("/memory/pin", ui.pin, methods=["POST"]),
        Route("/memory/remove", ui.remove_form),
        Route("/memory/remove", ui.remove, methods=["POST"]),
        Route("/file", ui.file_page),
        Route("/timeline", ui.timeline),
        Route("/commit/{sha:str}", ui.commit_page),
        Route("/commit/{sha:str}/confirm", ui.confirm),
        Route("/commit/{sha:str}/restore", ui.restore, methods=["POST"]),
        Route("/history", ui.history),
        Route("/session", ui.session),
        Route("/review", ui.review),
        Route("/review/approve", ui.approve, methods=["POST"]),
        Route("/review/reject", ui.reject, methods=["POST"]),
        Route("/review/requeue", ui.requeue, methods=["POST"]),
        Route("/search", ui.search),
        Route("/status", ui.status),
        Route("/dream", ui.dream_page),
        Route("/dream", ui.dream_now, methods=["POST"]),
        Route("/dream.json", ui.dream_state),
        Route("/signout", ui.signout, methods=["POST"]),
    ]


def _starlette(ui: UI, routes: list[BaseRoute]) -> Starlette:
    app = Starlette(
        routes=routes, exception_handlers={HTTPException: ui.error, Exception: ui.error}
    )
    app.state.ui = ui
    return app


def scope_app(ui: UI) -> Starlette:
    """``ui``'s screens without the guard or the static files: one scope's app, mounted by a root's
    app (which guards every request and serves ``/static`` once)."""
    return _starlette(ui, _routes(ui))


def build_app(
    memory: Memory,
    *,
    signin: SignIn,
    allowed_hosts: frozenset[str] | None = None,
    port: int | None = None,
    server_id: str | None = None,
) -> Guard:
    """The app for ``memory``'s workspace under the server's own id, behind the ``Guard`` (tokens,
    sessions, CSRF, headers; see ``reverie.ui.security``). ``allowed_hosts``: the ``Host`` values
    accepted (None: any); ``port`` names the session cookie; ``server_id``: the prefix of every page
    (default: a random one)."""
    gate = Gate(signin, server_id=server_id, port=port)
    ui = UI(memory, base=gate.prefix)
    app = _starlette(ui, [*_routes(ui), Mount("/static", static_files(), name="static")])
    return Guard(app, gate=gate, allowed_hosts=allowed_hosts)
