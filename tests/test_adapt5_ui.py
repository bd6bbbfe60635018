"""The web UI's session and display (adapt5 item 1), in process (Starlette's TestClient over the
real app and a real workspace; the browser's view is tests/test_adapt5_ui_browser.py):

- the newest page of a conversation too large to count at once is read from the file's end (no
  read of the whole file), its messages numbered back from the newest and marked consolidated
  when that can be told from the file's start within reach; *Earlier* counts it once and follows
  on with no message skipped or shown twice, appends meanwhile included;
- a memory file holding bytes that are not UTF-8 is shown with each such byte escaped (``\\xE9``),
  never U+FFFD; its edit forms say why they do not save it, and every post that would write it
  back is refused with nothing written — what was typed shown back to copy — while pin and remove
  of its other lines keep its bytes as they are;
- any refused form that held typed text shows it back instead of dropping it (a gate refusal)."""

from __future__ import annotations

import os
import re
from html import unescape
from pathlib import Path
from urllib.parse import urlencode

import orjson
import pytest
from starlette.testclient import TestClient

import reverie
from reverie.storage import sessions_view
from reverie.storage.config import Config
from reverie.storage.workspace import Workspace
from reverie.ui import build_app
from reverie.ui.security import SignIn

TOKEN = "t0k3n-" + "q" * 30
BASE = "http://127.0.0.1:8766"
PREFIX = "/adapt5-" + "w" * 16


@pytest.fixture
def memory(tmp_path: Path):
    ws = Workspace(tmp_path / "ws")
    ws.init()
    config = Config()
    config.memory.history.fsync = False
    m = reverie.open(ws, config=config)
    yield m
    m.close()


@pytest.fixture
def client(memory):
    sessions_view._SCANS.clear()
    app = build_app(
        memory,
        signin=SignIn(TOKEN),
        allowed_hosts=frozenset({"127.0.0.1:8766"}),
        port=8766,
        server_id=PREFIX[1:],
    )
    with TestClient(app, base_url=BASE, follow_redirects=False) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 303
        c.base_url = BASE + PREFIX
        yield c
    sessions_view._SCANS.clear()


# -- a conversation too large to count at once ----------------------------------------------------


def _big_session(memory, n: int, consolidated: int = 0) -> Path:
    path = memory.workspace.root / "sessions" / "cli_big.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"_type": "metadata", "key": "cli:big", "last_consolidated": consolidated}
    with open(path, "wb") as f:
        f.write(orjson.dumps(meta) + b"\n")
        for i in range(n):
            text = f"message {i} " + "w" * 900
            f.write(orjson.dumps({"role": "user", "content": text}) + b"\n")
    return path


@pytest.fixture
def reads(monkeypatch) -> list[int]:
    """The bytes each read of a session file asks for (as test_harden2_session_pages counts
    them), with files over 1 MiB too large to count at once."""
    asked: list[int] = []
    real = os.pread

    def pread(fd: int, n: int, offset: int) -> bytes:
        asked.append(n)
        return real(fd, n, offset)

    monkeypatch.setattr(sessions_view.os, "pread", pread)
    monkeypatch.setattr(sessions_view, "COUNT_AT_ONCE", 1 << 20, raising=False)
    return asked


def _numbers(page: str) -> list[str]:
    return re.findall(r'class="msgno">#(-?\d+)</span>', page)


def _contents(page: str) -> list[int]:
    return [int(n) for n in re.findall(r'<p class="text">message (\d+) ', page)]


def _link(page: str, label: str) -> str:
    found = re.search(r'href="[^"]*?(/session\?[^"]*)"[^>]*>' + re.escape(label), page)
    assert found, label
    return unescape(found.group(1))


def test_the_newest_page_of_a_huge_conversation_reads_only_its_end(client, memory, reads) -> None:
    path = _big_session(memory, 8_000)  # ~7.4 MB, counted at once up to 1 MiB here
    page = client.get("/session", params={"key": "cli:big"})
    assert page.status_code == 200
    # its metadata line and its last block (a read of main counted every block)
    assert sum(reads) <= 2 * sessions_view.BLOCK < path.stat().st_size / 3, sum(reads)
    assert _contents(page.text) == list(range(7_900, 8_000))
    assert _numbers(page.text) == [str(k) for k in range(-100, 0)]
    said = unescape(re.search(r'id="from-end">(.*?)</p>', page.text, re.S).group(1))
    assert "numbered back from the newest" in said and "None is consolidated" in said
    assert not sessions_view._SCANS  # nothing counted

    # an append while the page is open, then Earlier: counted once, it follows on from the page
    with open(path, "ab") as f:
        for i in range(8_000, 8_003):
            f.write(orjson.dumps({"role": "user", "content": f"message {i} new"}) + b"\n")
    earlier = client.get(_link(page.text, "‹ Earlier"))
    assert earlier.status_code == 200 and 'id="changed"' not in earlier.text
    assert _contents(earlier.text) == list(range(7_800, 7_900))
    assert _numbers(earlier.text) == [str(k + 1) for k in range(7_800, 7_900)]
    assert "8003 messages" in earlier.text
    newest = client.get(_link(earlier.text, "Later ›"))
    assert _contents(newest.text)[:3] == [7_900, 7_901, 7_902]
    assert "message 8002 new" in client.get(_link(newest.text, "Later ›")).text


def test_a_newest_page_says_which_of_its_messages_are_consolidated(
    client, memory, reads, monkeypatch
) -> None:
    _big_session(memory, 8_000, consolidated=7_950)
    page = client.get("/session", params={"key": "cli:big"}).text
    marks = re.findall(r'<p class="muted small"><span class="msgno">.*?</p>', page, re.S)
    assert len(marks) == 100
    assert ["consolidated" in m for m in marks] == [True] * 50 + [False] * 50
    assert "The first 7950 messages are consolidated" in page
    assert not sessions_view._SCANS

    # where the consolidated messages end lies past the reach: said, never guessed
    monkeypatch.setattr(sessions_view, "CONSOLIDATED_REACH", 1 << 16, raising=False)
    page = client.get("/session", params={"key": "cli:big"}).text
    assert "whether these are among them is not known" in page
    assert "· consolidated" not in page


# -- bytes that are not UTF-8 ---------------------------------------------------------------------


def _csrf(client) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', client.get("/memory").text)
    assert found
    return found.group(1)


def _form(page: str) -> dict[str, str]:
    form = re.search(
        r'<form method="post" action="[^"]*/memory/(?:edit|file)".*?</form>', page, re.S
    )
    assert form, page[:2000]
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form.group(0)))
    return {k: unescape(v) for k, v in fields.items()}


def _typed_back(page: str) -> str:
    box = re.search(r'id="typed-text"[^>]*>\n(.*?)</textarea>', page, re.S)
    assert box, page[:3000]
    return unescape(box.group(1))


@pytest.fixture
def latin1(memory) -> Path:
    memory.write(
        "USER.md", "# User\n\n- Lives in Lisbon\n- Works at Acme\n", message="manual: seed"
    )
    return memory.workspace.root / "USER.md"


def test_a_byte_that_is_not_utf8_is_shown_escaped_and_never_written_back(
    client, memory, latin1
) -> None:
    # a form loaded while the file was UTF-8 (another tab's, kept open)
    rows = latin1.read_text().split("\n")
    address = "/memory/edit?" + urlencode({"path": "USER.md", "line": 2, "text": rows[2]})
    stale = _form(client.get(address).text)
    whole = _form(client.get("/memory/file?path=USER.md").text)
    # then a hand edit in Latin-1 (a sync tool, an old editor)
    latin1.write_bytes(latin1.read_bytes() + b"- Likes caf\xe9 au lait\n")
    before = latin1.read_bytes()
    head = memory.log(limit=1)[0].sha

    page = client.get("/memory").text
    assert "\ufffd" not in page and "�" not in page
    line = re.search(r'<li id="USER\.md-L5".*?</li>', page, re.S).group(0)
    assert 'title="\\xE9 BYTE NOT UTF-8">\\xE9</span>' in line
    assert "/memory/edit?" not in line and "/memory/pin" not in line  # no action on that line
    assert "/memory/edit?" in re.search(r'<li id="USER\.md-L3".*?</li>', page, re.S).group(0)

    form_page = client.get("/memory/file?path=USER.md").text
    assert 'id="not-utf8"' in form_page and "<textarea" not in form_page
    assert "byte 0xe9 at offset" in form_page

    csrf = _csrf(client)
    typed = "- Lives in Porto, Rua das Flores 7"
    for action, form in (("/memory/edit", stale), ("/memory/file", whole)):
        text = typed if action == "/memory/edit" else "# User\n\n" + typed + "\n"
        r = client.post(action, data={**form, "csrf": csrf, "text": text})
        assert r.status_code == 409, (action, r.status_code)
        assert "Nothing was written: USER.md holds bytes that are not UTF-8" in unescape(r.text)
        assert _typed_back(r.text) == text
    pin = {"csrf": csrf, "path": "USER.md", "line": "4", "original": "- Likes caf\ufffd au lait"}
    r = client.post("/memory/pin", data=pin)
    assert r.status_code == 303
    assert latin1.read_bytes() == before and memory.log(limit=1)[0].sha == head

    # the file's other lines still act, and its bytes stay as they are
    r = client.post(
        "/memory/pin", data={"csrf": csrf, "path": "USER.md", "line": "3", "original": rows[3]}
    )
    assert r.status_code == 303
    assert latin1.read_bytes() == before.replace(b"Acme\n", b"Acme [pinned]\n")


def test_a_refused_form_shows_back_what_was_typed(client, memory, latin1) -> None:
    """The gate refuses an edit that drops most of a file: the page says why and gives back the
    text typed, which a redirect to the Memory screen dropped."""
    memory.write(
        "USER.md",
        "# User\n\n" + "".join(f"- Fact number {i} about the user\n" for i in range(30)),
        message="manual: more",
    )
    form = _form(client.get("/memory/file?path=USER.md").text)
    typed = "# User\n\n- Only this\n"
    r = client.post("/memory/file", data={**form, "csrf": _csrf(client), "text": typed})
    assert r.status_code == 409 and "Not saved" in r.text
    assert _typed_back(r.text) == typed
    assert "Fact number 29" in latin1.read_text()
