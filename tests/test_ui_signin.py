"""``reverie ui``'s sign-in and sessions, each claim of docs/ui.md's "Security" checked: a one-time
token exchanged for a session, a standing token from a file, a cookie named after the port and
scoped to the server's own id, an expiry, a sign-out, the sign-in file the browser is opened with
(no token on its command line). The browser-level claims (two servers side by side, nothing in the
history, a link from another page) are in tests/test_ui_browser.py."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from reverie.ui import build_app
from reverie.ui.security import SESSION_IDLE, SESSION_MAX, Sessions, SignIn, cookie_name
from reverie.ui.server import SignInFile
from tests.conftest import ROOT
from tests.support.ui_workspace import seeded

BASE = "http://127.0.0.1:8766"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    memory = seeded(tmp_path_factory.mktemp("signin") / "ws")
    memory.close()
    return memory.workspace.root


@pytest.fixture
def memory(workspace: Path):  # type: ignore[no-untyped-def]
    import reverie

    with reverie.open(workspace) as m:
        yield m


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _app(memory, signin: SignIn, **kw):  # type: ignore[no-untyped-def]
    return build_app(
        memory, signin=signin, allowed_hosts=frozenset({"127.0.0.1:8766"}), port=8766, **kw
    )


def _prefix(location: str) -> str:
    match = re.match(r"^(/[A-Za-z0-9_-]{22})/", location)
    assert match, location
    return match.group(1)


def test_a_one_time_token_signs_in_once(memory) -> None:
    spent: list[str] = []
    signin = SignIn(on_spent=spent.append)
    token = signin.issue()
    with TestClient(_app(memory, signin), base_url=BASE, follow_redirects=False) as c:
        first = c.get(f"/?token={token}")
        assert first.status_code == 303 and spent == [token]
        prefix = _prefix(first.headers["location"])
        assert c.get(prefix + "/memory").status_code == 200
        old = c.get(f"{prefix}/timeline?token={token}")  # signed in, an old link: no refusal
        assert old.status_code == 303 and old.headers["location"] == prefix + "/timeline"
        again = TestClient(_app(memory, signin), base_url=BASE, follow_redirects=False)
        refused = again.get(f"/?token={token}")  # the address in the history: worthless now
        assert refused.status_code == 403 and "used already" in refused.text
        posted = again.post("/signin", data={"token": token, "next": "/"})
        assert posted.status_code == 403


def test_the_server_id_is_random_and_every_page_is_under_it(memory) -> None:
    prefixes = set()
    for _ in range(3):
        signin = SignIn("s" * 30)
        with TestClient(_app(memory, signin), base_url=BASE, follow_redirects=False) as c:
            prefixes.add(_prefix(c.get(f"/?token={'s' * 30}").headers["location"]))
    assert len(prefixes) == 3


def test_the_sign_in_form_and_a_stale_prefix(memory) -> None:
    signin = SignIn("f" * 30)
    with TestClient(_app(memory, signin), base_url=BASE, follow_redirects=False) as c:
        page = c.get("/timeline")  # a link from elsewhere, no session: the form, and where to go
        assert page.status_code == 403 and 'action="/signin"' in page.text
        assert 'name="next" value="/timeline"' in page.text and 'data-signin="1"' in page.text
        wrong = c.post("/signin", data={"token": "nope", "next": "/timeline"})
        assert wrong.status_code == 403
        stale = "/" + "Z" * 22  # a restarted server's prefix, remembered by the browser
        r = c.post("/signin", data={"token": "f" * 30, "next": stale + "/review"})
        prefix = _prefix(r.headers["location"])
        assert r.status_code == 303 and r.headers["location"] == prefix + "/review"
        r = c.post("/signin", data={"token": "f" * 30, "next": "//evil.example/x"})
        assert r.headers["location"] == _prefix(r.headers["location"]) + "/"


def test_cookies_are_per_port_and_scoped_to_the_server(memory) -> None:
    assert cookie_name(8766) != cookie_name(8767)
    signin = SignIn("c" * 30)
    app = build_app(memory, signin=signin, port=8767, server_id="k" * 22)
    with TestClient(app, base_url="http://127.0.0.1:8767", follow_redirects=False) as c:
        cookie = c.get(f"/?token={'c' * 30}").headers["set-cookie"]
    assert cookie.startswith("reverie_ui_8767=") and f"Path=/{'k' * 22};" in cookie


def test_a_session_expires_when_idle_and_at_its_lifetime() -> None:
    clock = Clock()
    sessions = Sessions(clock=clock)
    sid, _ = sessions.new()
    clock.now += SESSION_IDLE - 1
    assert sessions.get(sid) is not None  # used: its idle time starts again
    clock.now += SESSION_IDLE - 1
    assert sessions.get(sid) is not None
    clock.now += SESSION_IDLE + 1
    assert sessions.get(sid) is None
    sid, _ = sessions.new()
    for _ in range(int(SESSION_MAX // (SESSION_IDLE / 2)) + 1):  # used all the time…
        clock.now += SESSION_IDLE / 2
        alive = sessions.get(sid)
    assert alive is None  # …still ends at its lifetime
    assert sessions.remaining(sid) == 0


def test_an_expired_session_is_refused_through_the_app(memory) -> None:
    clock = Clock()
    signin = SignIn("e" * 30)
    app = _app(memory, signin)
    app.gate.sessions.clock = clock
    with TestClient(app, base_url=BASE, follow_redirects=False) as c:
        prefix = _prefix(c.get(f"/?token={'e' * 30}").headers["location"])
        assert c.get(prefix + "/memory").status_code == 200
        clock.now += SESSION_IDLE + 1
        r = c.get(prefix + "/memory")
        assert r.status_code == 403 and "Not signed in" in r.text


def test_sign_out_ends_the_session_and_needs_the_csrf_token(memory) -> None:
    signin = SignIn("o" * 30)
    with TestClient(_app(memory, signin), base_url=BASE, follow_redirects=False) as c:
        prefix = _prefix(c.get(f"/?token={'o' * 30}").headers["location"])
        page = c.get(prefix + "/memory").text
        assert f'action="{prefix}/signout"' in page
        csrf = re.search(r'name="csrf" value="([^"]+)"', page)
        assert csrf
        assert c.post(prefix + "/signout").status_code == 403  # no CSRF token: still signed in
        assert c.get(prefix + "/memory").status_code == 200
        out = c.post(prefix + "/signout", data={"csrf": csrf.group(1)})
        assert out.status_code == 200 and 'data-signed-out="1"' in out.text
        assert "Max-Age=0" in out.headers["set-cookie"] or "expires" in out.headers["set-cookie"]
        assert len(c.app.gate.sessions) == 0
        c.cookies.clear()
        assert c.get(prefix + "/memory").status_code == 403


def test_the_sign_in_file_posts_its_token_and_only_its_owner_reads_it(tmp_path: Path) -> None:
    file = SignInFile("http://127.0.0.1:8766", "the-token")
    try:
        assert file.folder.stat().st_mode & 0o777 == 0o700
        assert file.path.stat().st_mode & 0o777 == 0o600
        html = file.path.read_text()
        assert 'method="post" action="http://127.0.0.1:8766/signin"' in html
        assert 'name="token" value="the-token"' in html and "the-token" not in file.url
    finally:
        file.remove()
    assert not file.folder.exists()


# -- the command, as a process ---------------------------------------------------------------------


def _run_ui(workspace: Path, tmp_path: Path, *extra: str, env_extra: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(tmp_path / "home"), PYTHONPATH=str(ROOT), **(env_extra or {}))
    return subprocess.Popen(
        [sys.executable, "-m", "reverie", "-w", str(workspace), "ui", "--port", "0", *extra],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _addresses(proc: subprocess.Popen[str]) -> Iterator[str]:
    assert proc.stderr is not None
    for line in proc.stderr:
        found = re.search(r"open (\S+)", line)
        if found:
            yield found.group(1)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return None


_opener = urllib.request.build_opener(_NoRedirect)


def _sign_in(url: str, data: bytes | None = None) -> tuple[str, str]:
    """The session cookie and the address a sign-in (``url``: GET, or POST of ``data``) redirects
    to."""
    with pytest.raises(urllib.error.HTTPError) as signed_in:
        _opener.open(url, data=data, timeout=10)
    assert signed_in.value.code == 303, signed_in.value.read()[:300]
    return signed_in.value.headers["set-cookie"].split(";")[0], signed_in.value.headers["location"]


def test_the_printed_address_signs_in_once_then_a_new_one_is_printed(workspace, tmp_path) -> None:
    proc = _run_ui(workspace, tmp_path, "--no-browser")
    try:
        addresses = _addresses(proc)
        url = next(addresses)
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[\w-]{43}", url)
        base = url.split("/?")[0]
        cookie, where = _sign_in(url)
        assert re.fullmatch(r"reverie_ui_\d+=[\w-]+", cookie)
        page = _opener.open(
            urllib.request.Request(base + where + "memory", headers={"cookie": cookie}),
            timeout=10,
        )
        assert page.status == 200 and b"Lives in Berlin" in page.read()
        with pytest.raises(urllib.error.HTTPError) as again:
            _opener.open(url, timeout=10)
        assert again.value.code == 403
        fresh = next(addresses)  # "a browser signed in; to sign in another, open …"
        assert fresh != url and _sign_in(fresh)[1] == where
        with pytest.raises(urllib.error.HTTPError) as refused:
            _opener.open(base + where + "memory", timeout=10)
        assert refused.value.code == 403
    finally:
        proc.terminate()
        assert proc.wait(timeout=30) in (0, -15)


def test_a_token_file_is_typed_into_the_form_not_printed(workspace, tmp_path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("a-token-from-a-file-" + "z" * 20 + "\n")
    proc = _run_ui(workspace, tmp_path, "--no-browser", "--token-file", str(token_file))
    try:
        url = next(_addresses(proc))
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", url)  # no token in it
        form = b"token=a-token-from-a-file-" + b"z" * 20 + b"&next=%2Fstatus"
        cookie, where = _sign_in(url + "signin", form)
        assert where.endswith("/status")
        for _ in range(2):  # a standing token: every use signs in
            assert _sign_in(url + "signin", form)[1] == where
        page = _opener.open(
            urllib.request.Request(url[:-1] + where, headers={"cookie": cookie}), timeout=10
        )
        assert page.status == 200
    finally:
        proc.terminate()
        assert proc.wait(timeout=30) in (0, -15)


def test_the_browser_is_opened_on_a_sign_in_file_not_the_token(workspace, tmp_path) -> None:
    """``$BROWSER`` (honoured by Python's ``webbrowser``) is a script recording its command line and
    the file it was given: no token in it, none in any process's command line; the file signs in
    once and is gone after."""
    record = tmp_path / "argv"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\necho "$@" > {record}\ncp "${{1#file://}}" {record}.html\n')
    browser.chmod(0o755)
    proc = _run_ui(workspace, tmp_path, env_extra={"BROWSER": str(browser)})
    try:
        printed = next(_addresses(proc))
        token = printed.split("token=")[1]
        for _ in range(100):
            if record.exists() and Path(f"{record}.html").exists():
                break
            subprocess.run(["sleep", "0.1"], check=True)
        argv = record.read_text()
        assert argv.startswith("file:///") and "token" not in argv and token not in argv
        html = Path(f"{record}.html").read_text()
        file_token = re.search(r'name="token" value="([^"]+)"', html)
        assert file_token and file_token.group(1) != token
        for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
            try:
                text = cmdline.read_bytes().decode(errors="replace")
            except OSError:
                continue
            assert token not in text and file_token.group(1) not in text, cmdline
        signed = Path(argv.strip()[len("file://") :])
        assert signed.exists()
        action = re.search(r'action="([^"]+)"', html)
        assert action
        body = f"token={file_token.group(1)}&next=%2F".encode()
        _sign_in(action.group(1), body)
        assert not signed.exists() and not signed.parent.exists()  # used: deleted
        with pytest.raises(urllib.error.HTTPError) as again:
            _opener.open(action.group(1), data=body, timeout=10)
        assert again.value.code == 403
    finally:
        proc.terminate()
        assert proc.wait(timeout=30) in (0, -15)
