"""What every page handler of the UI shares — a workspace's screens (``reverie.ui.app``) and a
root's user picker (``reverie.ui.root``): the templates and static files, rendering a page with the
session's values and what every page shows around its content, a posted form behind its CSRF check,
a library call whose failure leaves out part of a page instead of the whole page, sign-out, and the
error page."""

from __future__ import annotations

from collections.abc import Awaitable
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.staticfiles import StaticFiles

from ..errors import ReverieError
from ..storage.workspace import MEMORY_FILES
from . import views
from .security import (
    CSRF_FIELD,
    MAX_FIELD_BYTES,
    SessionRef,
    UISession,
    came_from,
    check_csrf,
    signed_out_page,
    typed_back,
)

__all__ = ["Pages", "templates", "static_files", "session_of", "quietly"]

HERE = Path(__file__).resolve().parent
T = TypeVar("T")


@lru_cache(maxsize=1)
def templates() -> Environment:
    """The templates, loaded once per process and shared by every ``UI`` (a root serves many)."""
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.finalize = views.shown  # every value printed: escaped, its hidden characters visible
    env.filters.update(
        plain=views.plain, token=views.token, cut=views.cut_line, line_field=views.line_field
    )
    env.globals.update(
        ago=views.ago,
        when=views.when,
        line_item=views.line_item,
        diff_code=views.diff_code,
        MEMORY_FILES=MEMORY_FILES,
    )
    return env


def static_files() -> StaticFiles:
    """The style sheet, script and icon, the same for every workspace: served at ``/static``
    (public)."""
    return StaticFiles(directory=HERE / "static")


class Pages:
    """What the UI's page handlers share (a workspace's screens, a root's picker): rendering a
    template with the session's values, the handler's ``frame`` and what every page shows
    (``around``: the faults found, the badges), a posted form behind its CSRF check, a library call
    whose failure leaves a part of the page out instead of the whole page (``attempt``), and the
    error page."""

    def frame(self) -> dict[str, Any]:
        raise NotImplementedError

    async def around(self, request: Request) -> dict[str, Any]:
        """What every page shows besides its content (computed per request)."""
        return {"faults": [], "soul_waiting": False}

    async def render(
        self, request: Request, name: str, status_code: int = 200, **context: Any
    ) -> HTMLResponse:
        session = session_of(request)
        state = request.scope["state"]
        prefix = state.get("ui_prefix", "")
        around = await self.around(request)
        known = {f.problem for f in around["faults"]} | {f.path for f in around["faults"]}
        context.update(
            request=request,
            csrf=session.csrf,
            csrf_field=CSRF_FIELD,
            flashes=session.take_flashes(),
            prefix=prefix,
            signout=f"{prefix}/signout",
            left_out=[p for p in state.get("ui_left_out", []) if not _said(p, known)],
            **around,
            **self.frame(),
        )
        return HTMLResponse(
            templates().get_template(name).render(**context), status_code=status_code
        )

    async def attempt(self, request: Request, call: Awaitable[T], default: T) -> T:
        """``call``'s result; when the library cannot do it (a damaged file: ``ReverieError``,
        ``OSError``), ``default``, and the page says what was left out and why (once per cause,
        and not when a fault on the page already says it)."""
        try:
            return await call
        except (ReverieError, OSError) as exc:
            self.leave_out(request, exc)
            return default

    def leave_out(self, request: Request, exc: BaseException) -> None:
        """Say on the page that a part of it is left out, and why (once per cause)."""
        left = request.scope["state"].setdefault("ui_left_out", [])
        text = str(exc)
        if text not in left:
            left.append(text)

    async def form(self, request: Request) -> dict[str, str]:
        """The posted form, after the CSRF check (403 without the session's token)."""
        data = await request.form(max_part_size=MAX_FIELD_BYTES)
        if not check_csrf(session_of(request), data.get(CSRF_FIELD)):
            # a form from an earlier session (signed out and in since, in another tab): what was
            # typed is shown back, and the page it came from is one link away
            state = request.scope["state"]
            state["ui_typed"] = typed_back(data)
            state["ui_came_from"] = came_from(request, state.get("ui_prefix", ""))
            raise HTTPException(
                403,
                "this form carries no CSRF token of this session (it was loaded before a sign-out "
                "or in another session): nothing was done. Open the form again and resubmit",
            )
        return {k: v for k, v in data.items() if isinstance(v, str)}

    async def signout(self, request: Request) -> Response:
        """End this browser's session (a posted form, so no other site can sign you out)."""
        await self.form(request)
        ref: SessionRef = request.scope["state"]["ui_session_ref"]
        response = signed_out_page()
        ref.end(response)
        return response

    async def error(self, request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        detail = exc.detail if isinstance(exc, HTTPException) else "internal error"
        if "ui_session" not in request.scope.get("state", {}):
            return HTMLResponse(
                f"<!doctype html><title>Reverie</title><p>{status}</p>", status_code=status
            )
        state = request.scope["state"]
        return await self.render(
            request,
            "error.html",
            status_code=status,
            status=status,
            detail=detail,
            typed=state.get("ui_typed"),
            again=state.get("ui_came_from"),
            active="",
        )


async def quietly(call: Awaitable[T]) -> T | None:
    """``call``'s result, or None when it fails for a reason a fault reports on the page anyway
    (the SOUL.md proposal behind the badge, the committed text behind the marks)."""
    try:
        return await call
    except (ReverieError, OSError):
        return None


def _said(problem: str, known: set[str]) -> bool:
    """Whether a fault on the page already says ``problem`` (``known``: the faults' problems and
    paths; a page's left-out part and a fault over the same damaged file name the same file)."""
    return any(fault in problem or problem in fault for fault in known)


def session_of(request: Request) -> UISession:
    """The request's session, which the ``Guard`` put in its scope."""
    session: UISession = request.scope["state"]["ui_session"]
    return session
