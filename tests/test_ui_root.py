"""``reverie --root DIR ui`` in process: the user picker, each scope's screens under ``/s/<name>``,
isolation between scopes, names that are not a scope's, the sign-in and CSRF rules on scope routes,
a never-written scope creating nothing, and the cache of open scopes closing what it drops (never
under a request)."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import threading
from html import unescape
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

import reverie
from reverie.cli import main
from reverie.dream import DreamResult
from reverie.memory import Memory, use_memory_class
from reverie.operations.forget import forget_user
from reverie.storage.config import Config
from reverie.storage.scopes import Scope, ScopeRoot
from reverie.ui import build_root_app
from reverie.ui.root import LISTED, ScopeApps
from reverie.ui.security import SignIn

TOKEN = "t0k3n-" + "r" * 30
BASE = "http://127.0.0.1:8766"
SERVER_ID = "root-server-" + "x" * 10  # every page's prefix (a random id in a real server)
PREFIX = f"/{SERVER_ID}"
ALICE, BOB, BOT = Scope("alice"), Scope("bob"), Scope("bob", "support-bot")


def _write(root: Path, scope: Scope, *lines: str) -> None:
    config = Config()
    config.memory.history.fsync = False
    with reverie.open(root=root, user=scope.user, agent=scope.agent, config=config) as memory:
        memory.init()
        text = memory.read("USER.md") + "".join(f"{line}\n" for line in lines)
        assert memory.write("USER.md", text, message="seed").commit


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    _write(root, ALICE, "- Lives in Berlin")
    _write(root, BOB, "- Lives in Lisbon")
    _write(root, BOT, "- Prefers short answers")
    return root


def _client(root: Path, scopes: ScopeApps | None = None) -> TestClient:
    app = build_root_app(
        ScopeRoot(root),
        signin=SignIn(TOKEN),
        allowed_hosts=frozenset({"127.0.0.1:8766"}),
        scopes=scopes,
        server_id=SERVER_ID,
    )
    return TestClient(app, base_url=BASE, follow_redirects=False)


def _signed_in(c: TestClient) -> TestClient:
    """``c`` signed in, its addresses under the server's prefix from now on."""
    assert c.get(f"/?token={TOKEN}").status_code == 303
    c.base_url = BASE + PREFIX
    return c


@pytest.fixture
def client(root: Path):
    with _client(root) as c:
        yield _signed_in(c)


def _csrf(client: TestClient, page: str = "/") -> str:
    match = re.search(r'name="csrf" value="([^"]+)"', client.get(page).text)
    assert match
    return match.group(1)


def _problem(html: str) -> str:
    match = re.search(r'<p class="flash error"[^>]*>(.*?)</p>', html)
    return unescape(match.group(1)) if match else ""


def _pick(client: TestClient, user: str, agent: str = "") -> httpx.Response:
    return client.post("/", data={"csrf": _csrf(client), "user": user, "agent": agent})


def _tree(root: Path) -> list[str]:
    """Every path under ``root`` (directories and files): what "nothing was created" is checked
    against."""
    return sorted(
        os.path.relpath(os.path.join(base, name), root)
        for base, dirs, files in os.walk(root)
        for name in dirs + files
    )


def _user_md(root: Path, scope: Scope) -> str:
    return (ScopeRoot(root).path(scope) / "USER.md").read_text()


# -- the picker and a scope's pages ----------------------------------------------------------------


def test_the_picker_lists_the_scopes_and_opens_one_by_its_ids(client) -> None:
    page = client.get("/")
    assert page.status_code == 200 and f'action="{PREFIX}/"' in page.text
    for scope in (ALICE, BOB, BOT):  # each listed, linked by its digest name
        assert f'href="{PREFIX}/s/{scope.name}/memory"' in page.text
    assert "support-bot" in page.text and "Every scope under the root: 3." in page.text
    opened = _pick(client, "bob", "support-bot")
    location = f"{PREFIX}/s/{BOT.name}/memory"
    assert opened.status_code == 303 and opened.headers["location"] == location
    memory = client.get(f"/s/{BOT.name}/memory")
    assert memory.status_code == 200 and "Prefers short answers" in memory.text
    assert "user <b>bob</b> · agent <b>support-bot</b>" in memory.text
    assert f'<a class="picker" href="{PREFIX}/">All users</a>' in memory.text


def test_every_screen_of_a_scope_links_under_its_prefix(client, root) -> None:
    base = f"/s/{ALICE.name}"
    assert client.get(base).status_code in (307, 308)  # to base + "/"
    home = client.get(base + "/")
    assert home.status_code == 303 and home.headers["location"] == f"{PREFIX}{base}/memory"
    with reverie.open(root=root, user="alice") as alice:
        sha = alice.log(limit=1)[0].sha
    pages = ["/memory", "/timeline", "/review", "/search?q=Berlin", "/status", "/dream"]
    pages += [f"/commit/{sha}", f"/commit/{sha}/confirm?action=revert", "/history?first=1"]
    for page in pages:
        r = client.get(base + page)
        assert r.status_code == 200, page
        urls = re.findall(r'(?:href|action|data-poll|data-why|src)="([^"#]*)', r.text)
        assert urls, page
        for url in urls:  # every link stays in the scope, but for the shared files, the picker
            scoped = url.startswith((PREFIX + base + "/", "/static/"))  # and the sign-out
            assert scoped or url in (PREFIX + "/", PREFIX + "/signout"), (page, url)
    assert client.get(base + "/dream.json").json()["running"] is False


def test_an_edit_lands_in_its_scope_only_and_no_page_shows_another_scopes_lines(
    client, root
) -> None:
    before_bob, before_bot = _user_md(root, BOB), _user_md(root, BOT)
    with reverie.open(root=root, user="bob") as bob:
        bob_head = bob.log(limit=1)[0].sha
    lines = _user_md(root, ALICE).split("\n")
    index = lines.index("- Lives in Berlin")
    base = f"/s/{ALICE.name}"
    edit = client.post(
        base + "/memory/edit",
        data={
            "csrf": _csrf(client, base + "/memory"),
            "path": "USER.md",
            "line": str(index),
            "original": "- Lives in Berlin",
            "text": "- Lives in Hamburg",
        },
    )
    assert edit.status_code == 303 and edit.headers["location"] == PREFIX + base + "/memory"
    assert "- Lives in Hamburg\n" in _user_md(root, ALICE)
    with reverie.open(root=root, user="alice") as alice:
        commit = alice.log(limit=1)[0]
    assert commit.kind == "manual" and commit.subject == "manual: edit a line of USER.md"
    assert _user_md(root, BOB) == before_bob and _user_md(root, BOT) == before_bot
    with reverie.open(root=root, user="bob") as bob:
        assert bob.log(limit=1)[0].sha == bob_head
    alice_page = client.get(base + "/memory").text
    assert "Hamburg" in alice_page
    assert "Lisbon" not in alice_page and "short answers" not in alice_page
    assert "Nothing matches" in client.get(base + "/search?q=Lisbon").text
    assert "Lives in Lisbon" in client.get(f"/s/{BOB.name}/search?q=Lisbon").text
    bob_page = client.get(f"/s/{BOB.name}/memory").text
    assert "Lisbon" in bob_page and "Hamburg" not in bob_page and "short answers" not in bob_page


def test_the_session_and_its_csrf_token_hold_for_every_scope(client, root) -> None:
    token = _csrf(client)  # one session: the picker's token is every scope's
    form = {"csrf": token, "path": "USER.md", "line": "0", "original": "x", "text": "y"}
    changed = client.post(f"/s/{BOB.name}/memory/edit", data=form)
    # accepted, then refused by the line check: nothing changed (the text typed shown back)
    assert changed.status_code == 409
    assert "changed since the page was loaded" in changed.text


def test_a_name_that_is_not_a_scope_of_this_root_is_404(client, root, tmp_path) -> None:
    other = tmp_path / "other"
    _write(other, Scope("carol"), "- Lives in Oslo")  # a scope of another root
    stray = ScopeRoot(root).path(Scope("mallory"))  # alice's workspace copied to mallory's place
    shutil.copytree(ScopeRoot(root).path(ALICE), stray)
    before = _tree(root)
    names = [
        Scope("carol").name,  # another root's
        Scope("alice", "no-such-agent").name,  # the right user, an agent never written
        Scope("mallory").name,  # a workspace whose scope.json names another scope
        "0" * 32,  # well formed, nobody's
        ALICE.name.upper(),
        ALICE.name + ".",
        ALICE.name[:-1],
        "alice",  # the raw id is never a name
        "..",
        "%2e%2e",
        f"{ALICE.name}.{BOB.name}",
    ]
    for name in names:
        r = client.get(f"/s/{name}/memory")
        assert r.status_code == 404, name
        assert "Lives in Berlin" not in r.text and "Traceback" not in r.text
    assert _tree(root) == before


def test_a_never_written_scope_shows_no_memory_and_creates_nothing(client, root) -> None:
    before = _tree(root)
    for user, agent in (("carol", ""), ("carol", "bot"), ("alice", "new-agent")):
        r = _pick(client, user, agent)
        assert r.status_code == 404
        assert _problem(r.text).startswith("No memory for this user yet"), r.text
        assert client.get(f"/s/{Scope(user, agent or None).name}/memory").status_code == 404
    assert _tree(root) == before


@pytest.mark.parametrize(
    ("user", "agent", "says"),
    [
        ("a/b", "", "contains '/'"),
        ("", "", "user id is empty"),
        (".hidden", "", "may not start with '.'"),
        ("alice", "x y", "agent id 'x y' contains ' '"),
        ("u" * 129, "", "the limit is 128"),
    ],
)
def test_a_bad_id_is_a_one_line_error_on_the_page(client, root, user, agent, says) -> None:
    before = _tree(root)
    r = _pick(client, user, agent)
    problem = _problem(r.text)
    assert r.status_code == 400 and says in problem and "\n" not in problem, problem
    assert 'name="user"' in r.text  # the form again, to correct it
    assert _tree(root) == before


# -- the guard on scope routes ---------------------------------------------------------------------


def test_scope_routes_need_the_session_and_actions_the_csrf_token(root) -> None:
    base = f"/s/{ALICE.name}"
    before = _user_md(root, ALICE)
    stranger = _client(root)
    assert stranger.get("/").status_code == 403
    assert stranger.get(PREFIX + "/").status_code == 403
    assert stranger.get(PREFIX + base + "/memory").status_code == 403
    assert stranger.get(f"{base}/memory?token=wrong").status_code == 403
    signed = stranger.get(f"{base}/timeline?token={TOKEN}")  # the token works on any page
    location = PREFIX + base + "/timeline"
    assert signed.status_code == 303 and signed.headers["location"] == location
    c = stranger
    c.base_url = BASE + PREFIX
    token = _csrf(c, base + "/memory")
    edit = {"path": "USER.md", "line": "1", "original": _user_md(root, ALICE).split("\n")[1]}
    edit["text"] = "- owned"
    for path, form in [
        ("/memory/edit", edit),
        ("/memory/file", {"path": "USER.md", "text": "# owned\n"}),
        ("/review/reject", {}),
        ("/dream", {}),
    ]:
        assert c.post(base + path, data=form).status_code == 403, path
        assert c.post(base + path, data={**form, "csrf": "forged"}).status_code == 403, path
        cross = c.post(
            base + path, data={**form, "csrf": token}, headers={"origin": "http://evil.example"}
        )
        assert cross.status_code == 403, path
    assert c.get(base + "/memory/pin", params=edit).status_code == 405
    assert c.post("/", data={"user": "alice"}).status_code == 403  # the picker's form too
    assert _user_md(root, ALICE) == before
    assert c.get(base + "/dream.json").json()["status"] is None


def test_a_forgotten_user_is_404_and_stays_forgotten(root) -> None:
    closed: list[Path] = []
    with _counting(closed), _client(root) as c:
        _signed_in(c)
        assert c.get(f"/s/{ALICE.name}/memory").status_code == 200
        forget_user(root, "alice")
        assert c.get(f"/s/{ALICE.name}/memory").status_code == 404
        assert c.get(f"/s/{ALICE.name}/memory").status_code == 404
    assert closed == [ScopeRoot(root).path(ALICE)]
    assert not ScopeRoot(root).exists(ALICE)  # nothing wrote it back


# -- the cache of open scopes ----------------------------------------------------------------------


class _Counting(Memory):
    """Records each close of a scope's own ``Memory`` (the ones the cache holds); the short-lived
    siblings that verbs run on in worker threads are plain ``Memory`` objects, not counted."""

    closed: list[Path] = []
    hold: asyncio.Event | None = None  # set: the first read waits for it (a request in flight)
    entered: asyncio.Event | None = None

    def close(self) -> None:
        type(self).closed.append(self.workspace.root)
        super().close()

    def sibling(self) -> Memory:
        return _Sibling(self.runtime.fresh())

    async def aread(self, path: str, *, exact: bool = False) -> str:
        cls = type(self)
        if cls.hold is not None and cls.entered is not None:
            cls.entered.set()
            await cls.hold.wait()
        return await super().aread(path, exact=exact)


class _Sibling(Memory):
    """A verb's own ``Memory`` in a worker thread; with ``release`` set, a Dream run waits for it
    first."""

    release: threading.Event | None = None

    def dream(self, **kw: Any) -> DreamResult:
        if _Sibling.release is not None:
            _Sibling.release.wait(30)
        return super().dream(**kw)


class _counting:
    def __init__(self, closed: list[Path]) -> None:
        self.closed = closed

    def __enter__(self) -> None:
        _Counting.closed = self.closed
        _Counting.hold = _Counting.entered = None
        self.previous = use_memory_class(_Counting)

    def __exit__(self, *exc: object) -> None:
        use_memory_class(self.previous)


def test_the_least_recently_used_scope_is_closed_past_the_limit(root) -> None:
    closed: list[Path] = []
    where = ScopeRoot(root).path
    scopes = ScopeApps(ScopeRoot(root), size=2)
    with _counting(closed), _client(root, scopes) as c:
        _signed_in(c)
        for scope in (ALICE, BOB):
            assert c.get(f"/s/{scope.name}/memory").status_code == 200
        assert scopes.names == [ALICE.name, BOB.name] and closed == []
        assert c.get(f"/s/{ALICE.name}/status").status_code == 200  # alice: most recent again
        assert c.get(f"/s/{BOT.name}/memory").status_code == 200
        assert scopes.names == [ALICE.name, BOT.name] and closed == [where(BOB)]
        assert _pick(c, "bob").status_code == 303  # the picker opens it: alice goes
        assert scopes.names == [BOT.name, BOB.name] and closed == [where(BOB), where(ALICE)]
        assert "Lives in Berlin" in c.get(f"/s/{ALICE.name}/memory").text  # reopened on demand
    scopes.close()
    assert sorted(closed[3:]) == sorted([where(BOB), where(ALICE)])  # and the rest on shutdown


def test_a_scope_is_not_closed_under_a_request_in_flight(root) -> None:
    closed: list[Path] = []
    where = ScopeRoot(root).path
    scopes = ScopeApps(ScopeRoot(root), size=1)
    app = build_root_app(ScopeRoot(root), signin=SignIn(TOKEN), scopes=scopes, server_id=SERVER_ID)

    async def run() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as c:
            await c.get(f"/?token={TOKEN}")
            c.base_url = BASE + PREFIX
            _Counting.hold, _Counting.entered = asyncio.Event(), asyncio.Event()
            slow = asyncio.create_task(c.get(f"/s/{ALICE.name}/memory"))
            await _Counting.entered.wait()  # alice's page is reading its files
            _Counting.entered = None
            hold, _Counting.hold = _Counting.hold, None
            assert (await c.get(f"/s/{BOB.name}/memory")).status_code == 200
            # One scope may stay open: alice is busy, so bob, idle once served, is the one closed.
            assert closed == [where(BOB)] and scopes.names == [ALICE.name]
            hold.set()
            page = await slow
            assert page.status_code == 200 and "Lives in Berlin" in page.text
            assert closed == [where(BOB)]
            assert (await c.get(f"/s/{BOB.name}/memory")).status_code == 200
            assert closed == [where(BOB), where(ALICE)] and scopes.names == [BOB.name]

    with _counting(closed):
        asyncio.run(run())
    scopes.close()


def test_a_scope_running_dream_from_its_page_stays_open(root) -> None:
    closed: list[Path] = []
    where = ScopeRoot(root).path
    scopes = ScopeApps(ScopeRoot(root), size=1)
    _Sibling.release = threading.Event()
    try:
        with _counting(closed), _client(root, scopes) as c:
            _signed_in(c)
            base = f"/s/{ALICE.name}"
            started = c.post(base + "/dream", data={"csrf": _csrf(c, base + "/status")})
            assert started.headers["location"] == PREFIX + base + "/dream"
            assert c.get(base + "/dream.json").json()["running"] is True
            assert c.get(f"/s/{BOB.name}/memory").status_code == 200
            assert closed == [where(BOB)] and scopes.names == [ALICE.name]  # alice's run goes on
            _Sibling.release.set()
            for _ in range(400):
                if not c.get(base + "/dream.json").json()["running"]:
                    break
                threading.Event().wait(0.05)
            assert c.get(base + "/dream.json").json()["status"] == "nothing-to-do"
            assert c.get(f"/s/{BOB.name}/status").status_code == 200  # now alice is idle: closed
            assert closed == [where(BOB), where(ALICE)] and scopes.names == [BOB.name]
    finally:
        _Sibling.release.set()
        _Sibling.release = None
    scopes.close()


def test_the_list_is_partial_past_its_length(tmp_path) -> None:
    root = tmp_path / "root"
    scopes = ScopeRoot(root)
    for n in range(LISTED + 1):  # a written scope's own files, without a repo: enough to be listed
        scopes.ensure(Scope(f"user{n:03d}"))
    with _client(root) as c:
        _signed_in(c)
        page = c.get("/").text
    assert page.count(f'href="{PREFIX}/s/') == LISTED and 'id="partial"' in page


# -- the command -----------------------------------------------------------------------------------


def test_the_command_serves_a_root_without_user(root, capsys) -> None:
    import socket

    with socket.socket() as busy:  # a busy port: past the scope checks, into the root's server, out
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        code = main(["--root", str(root), "ui", "--no-browser", "--port", str(port)])
    assert code == 1 and f"port {port} on 127.0.0.1 is in use" in capsys.readouterr().err
    assert main(["--root", str(root), "ui", "--host", "0.0.0.0", "--port", "0"]) == 1
    assert "without --token-file" in capsys.readouterr().err
    assert main(["--root", str(root), "--user", "carol", "ui", "--no-browser"]) == 1
    assert "has no memory yet" in capsys.readouterr().err


def test_a_root_that_does_not_exist_is_served_empty_and_says_why(
    tmp_path, capsys, monkeypatch
) -> None:
    import reverie.ui

    served = []

    def fake_serve_root(root, *, host, port, token_file, ready, renewed, browser) -> None:
        served.append(root.root)
        ready("http://127.0.0.1:1/?token=t")

    monkeypatch.setattr(reverie.ui, "serve_root", fake_serve_root)
    missing = tmp_path / "no-such-root"
    assert main(["--root", str(missing), "ui", "--no-browser", "--port", "0"]) == 0
    err = capsys.readouterr().err
    assert served == [missing] and "that folder does not exist" in err
    assert not missing.exists()  # serving creates nothing
    missing.mkdir()
    assert main(["--root", str(missing), "ui", "--no-browser", "--port", "0"]) == 0
    assert "does not exist" not in capsys.readouterr().err


def test_a_link_in_a_scopes_place_is_said_and_a_form_to_a_gone_scope_keeps_its_text(
    root: Path, client: TestClient
) -> None:
    """A scope's workspace replaced by a symbolic link (never followed in a root) made its open
    pages, its pages in a fresh server and picking its user each a 500 "internal error"; a form
    posted to a scope moved away since its page loaded lost what was typed (ui9)."""
    alice = _pick(client, "alice").headers["location"].removeprefix(PREFIX)
    bob = _pick(client, "bob").headers["location"].removeprefix(PREFIX)
    assert client.get(alice).status_code == 200
    csrf = _csrf(client, bob)
    place = ScopeRoot(root).path(ALICE)
    shutil.move(place, root.parent / "elsewhere")
    place.symlink_to(root.parent / "elsewhere")
    with _client(root) as fresh:
        answers = [client.get(alice), _signed_in(fresh).get(alice), _pick(client, "alice")]
    for r in answers:
        assert r.status_code in (404, 409), r.status_code
        assert _problem(r.text).startswith("this user's memory cannot be opened: ")
        assert "is a symbolic link" in _problem(r.text)

    shutil.move(ScopeRoot(root).path(BOB), root.parent / "bob-moved")
    typed = "# User\n\n- Moved to Porto in May\n"
    form = {"csrf": csrf, "path": "USER.md", "base": "0" * 40, "text": typed}
    r = client.post(bob.replace("/memory", "/memory/file"), data=form)
    assert r.status_code == 404 and _problem(r.text).startswith("no scope of this root")
    box = re.search(r'id="typed-text"[^>]*>\n(.*?)</textarea>', r.text, re.S)
    assert box and unescape(box.group(1)) == typed
