"""How ``reverie ui`` shows a conversation and a time: a long conversation a page at a time, its
pages following on by the message (not its place) while the conversation changes, tool calls and
results, multi-part content, long and hostile messages, damaged session files, odd keys, and every
time in one form with its zone. In process (Starlette's TestClient over the real app and a real
workspace); the browser's view of the same is tests/test_ui_display_browser.py.

Also:

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
import subprocess
from datetime import UTC, datetime, timedelta, timezone
from html import unescape
from pathlib import Path
from urllib.parse import quote, urlencode

import orjson
import pytest
from support.ui_app import BASE, new_memory, signed_in

import reverie
from reverie.storage import sessions_view
from reverie.ui import views
from reverie.ui.security import cookie_name

TOKEN = "t0k3n-" + "y" * 30
PREFIX = "/display-" + "z" * 16
PAGE = views.MESSAGES_PER_PAGE
#: A time as the pages show one: date, minutes and the zone's name.
ZONE = datetime.now().astimezone().tzname() or ""
SHOWN_TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d " + re.escape(ZONE))


@pytest.fixture
def memory(tmp_path: Path):
    m = new_memory(tmp_path / "ws")
    yield m
    m.close()


@pytest.fixture
def client(memory):
    sessions_view._SCANS.clear()  # the newest page's tests check that it counted nothing
    with signed_in(memory, TOKEN, PREFIX[1:]) as c:
        yield c
    sessions_view._SCANS.clear()


def _write_session(memory, key: str, messages: list[dict], consolidated: int = 0) -> Path:
    """A session file as an agent leaves it (one line per message), written at once."""
    from reverie.storage.sessions import Session

    store = memory.runtime.sessions
    path = store.path_for(key)  # another agent's file: any key (Reverie makes none it refuses)
    session = store.load(path) or Session(key=key, path=path)
    session.last_consolidated = consolidated
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(session.metadata_line() + b"".join(orjson.dumps(m) + b"\n" for m in messages))
    return path


def _talk(n: int, start: int = 0) -> list[dict]:
    return [
        {
            "role": "user" if i % 2 == 0 else "assistant",
            "content": f"message number {i}",
            "timestamp": f"2026-11-20T10:{i // 60 % 60:02d}:{i % 60:02d}",
        }
        for i in range(start, start + n)
    ]


def _shown(html: str) -> list[str]:
    """The messages a page shows, by their text (``message number N``)."""
    return re.findall(r"message number \d+", html)


def _link(html: str, cls: str) -> str | None:
    found = re.search(rf'class="{cls}" href="{PREFIX}(/session\?[^"]+)"', html)
    return unescape(found.group(1)) if found else None


# -- a long conversation -----------------------------------------------------------------------


def test_a_long_conversation_is_paged_newest_first_and_every_message_is_on_one_page(
    client, memory
) -> None:
    total = 2 * PAGE + 37
    _write_session(memory, "cli:long", _talk(total))
    html = client.get("/session?key=cli:long").text
    assert html.count('<li id="m') == PAGE  # never the whole conversation at once
    assert _shown(html)[-1] == f"message number {total - 1}"
    assert f"Shown: {total - PAGE + 1}–{total}" in html and f"{total} messages" in html
    seen: list[str] = []
    while True:  # Earlier, back to the start: each message once, none skipped
        seen[:0] = _shown(html)
        earlier = _link(html, "earlier")
        if earlier is None:
            break
        html = client.get(earlier).text
    assert seen == [f"message number {i}" for i in range(total)]
    # a search hit's message opens the page holding it, marked
    html = client.get("/session?key=cli:long&message=5").text
    assert 'id="m5" class="message role-assistant target"' in html and len(_shown(html)) == PAGE
    html = client.get(f"/session?key=cli:long&message={total + 3}").text
    assert f"It has no message {total + 4} now" in html  # a hit older than a clear: said


def test_pages_follow_on_by_the_message_while_the_consolidator_clears_the_conversation(
    client, memory
) -> None:
    """Reading from the oldest page on while the Consolidator consolidates and clears the
    conversation's oldest messages (``SessionStore.clear``, what ``/new`` runs) and the agent
    appends: each Later page starts right after the last message shown, so no message is shown
    twice or skipped; when the message a page led on from was cleared too, the page says so."""
    _write_session(memory, "cli:moving", _talk(3 * PAGE))
    store = memory.runtime.sessions
    html = client.get("/session?key=cli:moving&at=0").text
    assert _shown(html) == [f"message number {i}" for i in range(PAGE)]
    later = _link(html, "later")
    session = store.get_or_create("cli:moving")
    store.clear(session, consolidated=PAGE // 2)  # half of the page just read leaves the file
    for message in _talk(5, start=3 * PAGE):
        store.append(session, message)
    html = client.get(later).text
    assert "this page follows on from the last one as it is now" in html
    assert _shown(html) == [f"message number {i}" for i in range(PAGE, 2 * PAGE)]
    earlier = _link(html, "earlier")
    assert _shown(client.get(earlier).text) == [  # back: what is left before it, once each
        f"message number {i}" for i in range(PAGE // 2, PAGE)
    ]
    later = _link(html, "later")
    session = store.get_or_create("cli:moving")
    store.clear(session, consolidated=len(session.messages) - 3)  # past the next page's start
    html = client.get(later).text
    assert "was consolidated into history and cleared" in html
    assert "shown from its start as it is now" in html
    assert _shown(html) == [f"message number {i}" for i in range(3 * PAGE + 2, 3 * PAGE + 5)]


def test_a_message_taken_back_after_the_page_leaves_nothing_to_follow(client, memory) -> None:
    _write_session(memory, "cli:undo", _talk(PAGE + 1))
    later = _link(client.get("/session?key=cli:undo&at=0").text, "later")
    store = memory.runtime.sessions
    assert store.pop(store.get_or_create("cli:undo"))["content"] == f"message number {PAGE}"
    html = client.get(later).text
    assert "Nothing follows that message now" in html and _link(html, "later") is None
    assert _shown(html)[-1] == f"message number {PAGE - 1}"


def test_consolidating_a_slice_keeps_every_place_and_marks_it(client, memory) -> None:
    _write_session(memory, "cli:slice", _talk(PAGE + 10))
    html = client.get("/session?key=cli:slice&at=0").text
    later = _link(html, "later")
    store = memory.runtime.sessions
    store.save_offset(store.get_or_create("cli:slice"), PAGE + 5)  # the oldest slice consolidated
    html = client.get(later).text
    assert "changed since" not in html
    assert _shown(html) == [f"message number {i}" for i in range(PAGE, PAGE + 10)]
    assert html.count("· consolidated") == 5 and f"the first {PAGE + 5} are consolidated" in html


# -- what a message holds ------------------------------------------------------------------------


HOSTILE = (
    "# heading\n```python\nprint('hi')\n```\n**bold** <img src=x onerror=alert(1)> "
    "<script>alert(2)</script> [link](javascript:alert(3))"
)


def test_tool_calls_results_parts_and_hostile_text_are_shown_as_text(client, memory) -> None:
    messages = [
        {"role": "user", "content": HOSTILE, "timestamp": "2026-11-20T10:00:00"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "<b>/etc</b>"}'},
                }
            ],
            "timestamp": "2026-11-20T10:00:01",
        },
        {
            "role": "tool",
            "content": "root:x:0:0 <b>x</b>",
            "tool_call_id": "call_1",
            "name": "read_file",
            "timestamp": "2026-11-20T10:00:02",
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look at this"},
                {"type": "image_url", "image_url": {"url": "javascript:alert(4)"}},
                {"type": "input_audio", "input_audio": {"data": "AAAA"}},
                {"type": "text", "text": "שלום עולם 👩‍👩‍👧 e\u0301"},
            ],
            "timestamp": "2026-11-20T10:00:03",
        },
        {"role": "assistant", "content": None, "timestamp": "not a time <i>"},
    ]
    _write_session(memory, "cli:tools", messages)
    html = client.get("/session?key=cli:tools").text
    main = html[html.index("<main>") :]
    for injected in ("<img", "<script", "<b>", "<i>", "javascript:alert(4)", 'href="javascript'):
        assert injected not in main, injected
    assert "&lt;img src=x onerror=alert(1)&gt;" in main and "**bold**" in main
    assert "# heading\n```python" in main  # Markdown is not interpreted: its marks stay
    assert "tool call</span> read_file({&#34;path&#34;: &#34;&lt;b&gt;/etc&lt;/b&gt;&#34;})" in main
    assert "read_file · answers <code>call_1</code>" in main
    parts = re.findall(r'<p class="(text|part muted small)">([^<]*)</p>', main.split('id="m3"')[1])
    assert [t for _, t in parts[:4]] == [
        "look at this",
        "[image]",
        "[input_audio]",
        "שלום עולם 👩‍👩‍👧 e\u0301",
    ]
    assert "(no content)" in main and "not a time &lt;i&gt;" in main


def test_a_long_message_folds_and_opens_whole(client, memory) -> None:
    text = "".join(f"{i:07d} " for i in range(2_000))  # 16,000 characters
    _write_session(memory, "cli:long-message", [*_talk(3), {"role": "user", "content": text}])
    html = client.get("/session?key=cli:long-message").text
    assert text[: views.MESSAGE_SHOWN] in html and text not in html
    assert f"… {len(text) - views.MESSAGE_SHOWN} more characters" in html
    whole = re.search(r'href="[^"]*(/session\?[^"]+whole=3[^"]*)"', html)
    assert whole
    html = client.get(unescape(whole.group(1)).split("#")[0]).text
    assert text in html and "more characters" not in html


def test_a_damaged_session_file_and_an_odd_key_still_show(client, memory) -> None:
    key = 'web:<script>alert(1)</script> \u202enimda & "q" ../x?y#z/é'
    path = _write_session(memory, key, _talk(2))
    with open(path, "ab") as f:
        f.write(b'{"role": "user", "content": "bad \xff\xfe bytes"}\n')
        f.write(b"not json at all\n")
        f.write(b'{"role": "user", "content": "torn')  # an append in flight
    response = client.get("/session?key=" + quote(key, safe=""))
    assert response.status_code == 200
    html = response.text
    assert _shown(html) == ["message number 0", "message number 1"]
    assert "bad \ufffd\ufffd bytes" in html and "torn" not in html
    assert '<span class="esc" title="U+202E RIGHT-TO-LEFT OVERRIDE">U+202E</span>nimda' in html
    assert "<script>alert(1)" not in html
    # the links it makes lead back to the same conversation
    _write_session(memory, key, _talk(PAGE + 1))
    html = client.get("/session?key=" + quote(key, safe="")).text
    earlier = _link(html, "earlier")
    assert earlier and _shown(client.get(earlier).text) == ["message number 0"]


def test_an_empty_or_missing_conversation(client, memory) -> None:
    _write_session(memory, "cli:empty", [])
    html = client.get("/session?key=cli:empty").text
    assert "0 messages" in html and "No messages yet." in html
    assert client.get("/session?key=cli:empty&mark=abc&dir=next&at=4").status_code == 200
    assert client.get("/session?key=cli:nobody").status_code == 404
    assert client.get("/session?key=").status_code == 404


# -- times ---------------------------------------------------------------------------------------


def test_every_time_reads_one_way_with_its_zone() -> None:
    local = datetime(2026, 11, 28, 14, 5, tzinfo=UTC).astimezone()
    expected = f"{local:%Y-%m-%d %H:%M} {local.tzname()}"
    # one moment, as git (its own offset), Dream's records (UTC) and a datetime give it
    assert views.when(datetime(2026, 11, 28, 14, 5, tzinfo=UTC)) == expected
    assert views.when("2026-11-28T14:05:00+00:00") == expected
    assert (
        views.when(datetime(2026, 11, 28, 15, 5, tzinfo=timezone(timedelta(hours=1)))) == expected
    )
    # history and sessions write local time without a zone: local it is
    naive = views.when("2026-11-28 14:05")
    assert naive == f"2026-11-28 14:05 {datetime(2026, 11, 28, 14, 5).astimezone().tzname()}"
    assert views.when(None) == "" and views.when("") == ""
    assert views.when("soon <b>\u202e") == (
        'soon &lt;b&gt;<span class="esc" title="U+202E RIGHT-TO-LEFT OVERRIDE">U+202E</span>'
    )


def test_pages_show_times_with_their_zone(client, memory) -> None:
    memory.remember("- [durable] Lives in Lisbon", session_key="cli:alice")
    assert memory.dream().status == "ok"
    _write_session(memory, "cli:alice-talk", _talk(2))
    commit = memory.log(limit=1)[0].sha
    for page in (
        "/timeline",
        f"/commit/{commit}",
        "/history?first=1&last=1",
        "/session?key=cli:alice-talk",
        "/review",
    ):
        html = client.get(page).text
        assert SHOWN_TIME.search(html), page
        # no time without its zone: a bare YYYY-MM-DD HH:MM is always followed by one
        for found in re.finditer(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(?::\d\d(?:\.\d+)?)?", html):
            tail = html[found.end() : found.end() + len(ZONE) + 1]
            assert tail == f" {ZONE}", (page, html[found.start() - 40 : found.end() + 20])


# -- the browser's session: an ended session, an earlier session's form, a form sent twice -------


def _form(html: str) -> dict[str, str]:
    return {
        k: unescape(v)
        for k, v in re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', html)
    }


def _edit_form(client, memory, needle: str) -> tuple[str, dict[str, str]]:
    rows = memory.read("USER.md").split("\n")
    i = next(k for k, r in enumerate(rows) if needle in r)
    address = "/memory/edit?" + urlencode({"path": "USER.md", "line": i, "text": rows[i]})
    return address, _form(client.get(address).text)


@pytest.fixture
def lines(memory):
    memory.write(
        "USER.md", "# User\n\n- Lives in Lisbon\n- Works at Acme\n", message="manual: seed"
    )
    return memory


def test_a_form_posted_after_the_session_ended_keeps_what_was_typed(client, lines) -> None:
    address, form = _edit_form(client, lines, "Lisbon")
    head = lines.log(limit=1)[0].sha
    client.app.gate.sessions.end(client.cookies.get(cookie_name(8766)))  # idle 24 h, or signed out
    typed = "- Lives in Porto <b>since May</b>\nsecond line"
    r = client.post(
        "/memory/edit",
        data={**form, "text": typed},
        headers={"referer": BASE + PREFIX + address},
    )
    assert r.status_code == 403 and lines.log(limit=1)[0].sha == head
    assert "session has ended, so the form was not acted on" in r.text
    box = re.search(
        r'<textarea readonly class="typed" id="typed-text"[^>]*>\n(.*?)</textarea>', r.text, re.S
    )
    assert box and unescape(box.group(1)) == typed and "<b>since" not in r.text
    back = re.search(r'name="next" value="([^"]+)"', r.text)
    assert back and unescape(back.group(1)) == PREFIX + address  # signing in returns to the form
    # a post from another site's page, or without a referer: signing in goes to the start
    for referer in ("http://evil.test" + PREFIX + address, None):
        r = client.post("/memory/edit", data=form, headers={"referer": referer} if referer else {})
        assert r.status_code == 403 and 'name="next" value="/"' in r.text
    client.base_url = BASE
    again = client.post("/signin", data={"token": TOKEN, "next": unescape(back.group(1))})
    assert again.status_code == 303 and again.headers["location"] == PREFIX + address


def test_a_form_of_a_file_past_1_mib_posted_after_the_session_ended_keeps_what_was_typed(
    client, lines
) -> None:
    """A line's form carries its file (base64): past 768 KB, that field was over Starlette's
    1 MiB, the form was not read, and the page of a session that ended dropped the text (ui9)."""
    user = lines.workspace.root / "USER.md"
    user.write_text(user.read_text() + "- Pasted log: " + "q" * 1_000_000 + "\n")
    address, form = _edit_form(client, lines, "Lisbon")
    assert len(form["loaded"]) > 1 << 20
    client.app.gate.sessions.end(client.cookies.get(cookie_name(8766)))
    r = client.post("/memory/edit", data={**form, "text": "- Lives in Porto"})
    assert r.status_code == 403 and "session has ended" in r.text
    assert re.search(r'id="typed-text"[^>]*>\n- Lives in Porto</textarea>', r.text)


def test_a_form_posted_to_a_restarted_server_returns_to_its_page_once_signed_in(client) -> None:
    """A restart gives the server a new id: a form from a page of the server before it carried no
    session, its text was shown back, but signing in went to the start, not the form (ui9)."""
    before = "/" + "B" * 22  # the server's id before the restart
    form_page = before + "/memory/edit?path=USER.md&line=2&text=-+Lives+in+Lisbon"
    client.base_url = BASE
    r = client.post(
        before + "/memory/edit",
        data={"csrf": "an earlier session's", "text": "- Lives in Porto"},
        headers={"referer": BASE + form_page},
    )
    assert r.status_code == 403 and "- Lives in Porto</textarea>" in r.text
    back = re.search(r'name="next" value="([^"]+)"', r.text)
    assert back and unescape(back.group(1)) == form_page
    again = client.post("/signin", data={"token": TOKEN, "next": unescape(back.group(1))})
    assert again.status_code == 303
    assert again.headers["location"] == PREFIX + form_page.removeprefix(before)


def test_a_form_of_an_earlier_session_is_refused_with_what_was_typed(client, lines) -> None:
    address, form = _edit_form(client, lines, "Lisbon")
    head = lines.log(limit=1)[0].sha
    client.app.gate.sessions.end(client.cookies.get(cookie_name(8766)))
    client.base_url = BASE
    assert client.get(f"/?token={TOKEN}").status_code == 303  # signed in anew: a new CSRF token
    client.base_url = BASE + PREFIX
    r = client.post(
        "/memory/edit",
        data={**form, "text": "- Lives in Faro"},
        headers={"referer": BASE + PREFIX + address},
    )
    assert r.status_code == 403 and lines.log(limit=1)[0].sha == head
    assert (
        "- Lives in Faro</textarea>" in r.text and "carries no CSRF token of this session" in r.text
    )
    link = re.search(r'id="again"', r.text) and re.search(r'<a href="([^"]+)" id="again"', r.text)
    assert link and unescape(link.group(1)) == PREFIX + address


def test_a_form_sent_twice_acts_once(client, lines) -> None:
    """A reload of a result, or the back button and Submit again: each action's form names the
    state it was made from, so the second post changes nothing (and says so)."""
    _address, form = _edit_form(client, lines, "Lisbon")
    form["text"] = "- Lives in Porto"
    for _ in range(2):
        assert client.post("/memory/edit", data=form).status_code == 303
    assert lines.read("USER.md").count("Porto") == 1
    assert [c.subject for c in lines.log(limit=2)].count("manual: edit a line of USER.md") == 1
    assert "(no change)" in client.get("/memory").text
    rows = lines.read("USER.md").split("\n")
    i = rows.index("- Works at Acme")
    page = client.get(
        "/memory/remove?" + urlencode({"path": "USER.md", "line": i, "text": rows[i]})
    ).text
    removal = {**_form(page), "reason": "left Acme"}
    assert client.post("/memory/remove", data=removal).status_code == 303
    head = lines.log(limit=1)[0].sha
    assert client.post("/memory/remove", data=removal).status_code == 303
    assert lines.log(limit=1)[0].sha == head and "changed since the page was loaded" in (
        client.get("/memory").text
    )
    undo = client.get(f"/commit/{head}/confirm?action=revert").text
    confirm = _form(undo)
    assert client.post(f"/commit/{head}/restore", data=confirm).status_code == 303
    reverted = lines.log(limit=1)[0].sha
    assert client.post(f"/commit/{head}/restore", data=confirm).status_code == 303
    assert lines.log(limit=1)[0].sha == reverted and "- Works at Acme" in lines.read("USER.md")


# -- diffs of long lines -------------------------------------------------------------------------


def test_a_long_changed_line_is_marked_in_linear_time(monkeypatch) -> None:
    """difflib's word comparison is quadratic (a 14,000-character line with scattered changes took
    30 s): past ``WORDS_COMPARED`` words a line's change is marked between the words both sides
    start and end with, and a whole diff compares at most ``WORDS_PER_DIFF`` words in full."""
    compared: list[int] = []
    real = views.SequenceMatcher

    def counting(junk, a, b, autojunk=True):  # type: ignore[no-untyped-def]
        compared.append(len(a) + len(b))
        return real(junk, a, b, autojunk=autojunk)

    monkeypatch.setattr(views, "SequenceMatcher", counting)
    words = [f"w{i % 7}" for i in range(6_000)]
    old = " ".join(words)
    new = " ".join(["CHANGED" if i == 3_000 else w for i, w in enumerate(words)])
    rows = views.diff_rows(views.text_diff("USER.md", f"# a\n{old}\n", f"# a\n{new}\n"))
    changed = [r for r in rows if r.kind in ("add", "del")]
    assert [r.text for r in changed] == [old, new] and compared == []
    assert [(text, mark) for text, mark in changed[1].parts if mark] == [("CHANGED", True)]
    assert "".join(text for text, _ in changed[0].parts) == old
    # many short changed lines: each compared in full until the diff's budget is spent
    many_old = "\n".join(f"line {i} " + "a b " * 40 for i in range(80))
    many_new = "\n".join(f"line {i} " + "a c " * 40 for i in range(80))
    rows = views.diff_rows(views.text_diff("USER.md", many_old + "\n", many_new + "\n"))
    assert 0 < sum(compared) <= views.WORDS_PER_DIFF and 10 < len(compared) < 80
    adds = [r for r in rows if r.kind == "add"]
    assert [r.text for r in adds] == many_new.split("\n")  # every line shown, compared or not
    assert all(sum(m for _, m in r.parts) == 40 for r in adds[: len(compared)])  # each "c"


def test_pin_and_remove_from_an_older_tab_find_their_line_where_it_moved(client, lines) -> None:
    """Tab A loaded Memory; tab B added a line above: A's pin and remove name the line by its
    number and text, and act on that text where it now stands when it stands there once; a line
    now twice, or gone, is refused."""
    csrf = _form(client.get("/memory").text)["csrf"]
    rows = lines.read("USER.md").split("\n")
    i = rows.index("- Works at Acme")
    form = {"csrf": csrf, "path": "USER.md", "line": str(i), "original": rows[i]}
    text = lines.read("USER.md")
    lines.write("USER.md", text.replace("- Lives", "- Name: Ana\n- Lives"), message="manual: tab B")
    assert client.post("/memory/pin", data=form).status_code == 303
    assert "Pinned in USER.md as commit" in client.get("/memory").text
    assert lines.read("USER.md").split("\n")[i + 1].startswith("- Works at Acme")
    assert lines.log(limit=1)[0].subject != "manual: tab B"
    # the same text twice, or not at all: which line was meant is unknown, so nothing is done
    lines.write("USER.md", lines.read("USER.md") + "- Name: Ana\n", message="manual: twice")
    head = lines.log(limit=1)[0].sha
    for original in ("- Name: Ana", "- Lives in Porto"):
        gone = {**form, "line": "0", "original": original, "reason": "x"}
        assert client.post("/memory/remove", data=gone).status_code == 303
        assert lines.log(limit=1)[0].sha == head
        assert "changed since the page was loaded" in client.get("/memory").text


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
    """The bytes each read of a session file asks for (as test_sessions_view counts
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


def _labelled_link(page: str, label: str) -> str:
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
    earlier = client.get(_labelled_link(page.text, "‹ Earlier"))
    assert earlier.status_code == 200 and 'id="changed"' not in earlier.text
    assert _contents(earlier.text) == list(range(7_800, 7_900))
    assert _numbers(earlier.text) == [str(k + 1) for k in range(7_800, 7_900)]
    assert "8003 messages" in earlier.text
    newest = client.get(_labelled_link(earlier.text, "Later ›"))
    assert _contents(newest.text)[:3] == [7_900, 7_901, 7_902]
    assert "message 8002 new" in client.get(_labelled_link(newest.text, "Later ›")).text


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


def _memory_form(page: str) -> dict[str, str]:
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
    stale = _memory_form(client.get(address).text)
    whole = _memory_form(client.get("/memory/file?path=USER.md").text)
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


def test_a_committed_line_that_is_not_utf8_is_not_marked_uncommitted(
    client, memory, latin1
) -> None:
    """The file is read byte for byte (a bad byte an escape), the commit through the store's
    lossy decoding (U+FFFD): compared as they are, a committed Latin-1 line read as a hand edit
    not committed yet (ui7)."""
    latin1.write_bytes(latin1.read_bytes() + b"- Likes caf\xe9 au lait\n")
    page = client.get("/memory").text
    assert "1 line not committed yet" in page  # the hand edit, before any commit holds it
    rows = latin1.read_text(errors="replace").split("\n")
    r = client.post(  # another line's pin commits the file as it is, its bytes kept
        "/memory/pin",
        data={"csrf": _csrf(client), "path": "USER.md", "line": "3", "original": rows[3]},
    )
    assert r.status_code == 303
    committed = subprocess.run(
        ["git", "-C", str(latin1.parent), "show", "HEAD:USER.md"], capture_output=True, check=True
    ).stdout
    assert committed == latin1.read_bytes() and b"caf\xe9" in committed
    page = client.get("/memory").text
    assert "not committed" not in page, re.findall(r"\d+ lines? not committed yet", page)


def test_a_refused_form_shows_back_what_was_typed(client, memory, latin1) -> None:
    """The gate refuses an edit that drops most of a file: the page says why and gives back the
    text typed, which a redirect to the Memory screen dropped."""
    memory.write(
        "USER.md",
        "# User\n\n" + "".join(f"- Fact number {i} about the user\n" for i in range(30)),
        message="manual: more",
    )
    form = _memory_form(client.get("/memory/file?path=USER.md").text)
    typed = "# User\n\n- Only this\n"
    r = client.post("/memory/file", data={**form, "csrf": _csrf(client), "text": typed})
    assert r.status_code == 409 and "Not saved" in r.text
    assert _typed_back(r.text) == typed
    assert "Fact number 29" in latin1.read_text()


@pytest.mark.parametrize(
    ("odd", "shown"),
    [
        ("nul\x00 here", "nul\ufffd here"),  # the HTML parser reads a NUL as U+FFFD
        ("a lone\rreturn", "a lone\nreturn"),  # a text area sends every CR as a line break
        ("a windows line\r", "a windows line"),  # (CRLF: every such line would change)
    ],
)
def test_a_file_a_text_area_cannot_carry_is_not_saved_from_the_whole_file_form(
    client, memory, latin1, odd, shown
) -> None:
    """A browser's text area does not give every character back: saving the whole-file form
    wrote the file with another line changed than the one the person edited (ui7)."""
    latin1.write_bytes(latin1.read_bytes() + f"- {odd}\n".encode())
    before, head = latin1.read_bytes(), memory.log(limit=1)[0].sha
    text = before.decode()
    page = client.get("/memory/file?path=USER.md").text
    assert 'id="not-carried"' in page and "<textarea" not in page
    # what a browser sends back from the text area as it showed it, one line added
    typed = text.replace(f"- {odd}\n", f"- {shown}\n") + "- Likes tea\n"
    form = {"path": "USER.md", "base": reverie.content_id(text), "csrf": _csrf(client)}
    r = client.post("/memory/file", data={**form, "text": typed.replace("\n", "\r\n")})
    assert r.status_code == 409 and "a text area cannot carry" in unescape(r.text)
    assert _typed_back(r.text).replace("\r\n", "\n") == typed
    assert latin1.read_bytes() == before and memory.log(limit=1)[0].sha == head
    if "\x00" in odd:
        return  # (any write of a file holding a NUL is the gate's to refuse)
    # a line's own edit form still edits another line, the file's other bytes kept
    rows = text.split("\n")
    address = "/memory/edit?" + urlencode({"path": "USER.md", "line": 2, "text": rows[2]})
    line_form = _memory_form(client.get(address).text)
    r = client.post(
        "/memory/edit", data={**line_form, "csrf": _csrf(client), "text": "- Lives in Porto"}
    )
    assert r.status_code == 303
    assert latin1.read_bytes() == before.replace(b"Lisbon", b"Porto")


def test_a_line_of_megabytes_is_shown_cut_and_named_in_its_links_by_its_id(
    client, memory, latin1
) -> None:
    """A hand edit pastes a 2 MB line: the Memory screen carried it six times (its text, and in
    its why, edit and remove addresses and its pin form), 12 MB a load, and each address carrying
    it was refused by the server. Now the page shows its start and how much more, names it by its
    content id, and each link opens it (ui9)."""
    huge = "- Pasted log: " + "q" * 2_000_000
    latin1.write_text(latin1.read_text() + huge + "\n")
    page = client.get("/memory").text
    assert len(page) < 100_000
    row = re.search(r'<li id="USER\.md-L5".*?</li>', page, re.S).group(0)
    assert f"{len(huge) - views.LINE_SHOWN:,} more characters: the whole line" in row
    links = dict(re.findall(r'href="[^"]*/memory/(why|edit|remove)\?([^"]+)"', row))
    assert set(links) == {"why", "edit", "remove"}
    assert all(len(q) < 200 and f"id={reverie.content_id(huge)}" in q for q in links.values())

    why = client.get("/memory/why?" + unescape(links["why"]))
    assert why.status_code == 200 and "changed since" not in why.text
    form_page = client.get("/memory/edit?" + unescape(links["edit"])).text
    assert f'value="{huge}"' in form_page  # the whole line to edit
    # another line's edit: its form carries the file as loaded, 2.7 MB (a field over 1 MiB was
    # refused with an error page, what was typed lost)
    rows = latin1.read_text().split("\n")
    address = "/memory/edit?" + urlencode({"path": "USER.md", "line": 2, "text": rows[2]})
    form = _memory_form(client.get(address).text)
    r = client.post("/memory/edit", data={**form, "csrf": _csrf(client), "text": "- In Porto"})
    assert r.status_code == 303, re.sub("q{50,}", "q…", r.text)[-3000:]
    assert latin1.read_text().split("\n")[2:5] == ["- In Porto", "- Works at Acme", huge]
    # a link made before the line changed names a line that is no longer there: said
    latin1.write_text(latin1.read_text().replace("Pasted log", "Pasted logs"))
    for page in ("why", "edit", "remove"):
        stale = client.get(f"/memory/{page}?" + unescape(links[page])).text
        assert "changed since the page was loaded" in stale, page
        assert "Pasted logs" not in stale and 'name="id"' not in stale
    inline = client.get("/memory/why?" + unescape(links["why"]) + "&fragment=1").text
    assert "changed since the page was loaded" in inline and "No commit has" not in inline
