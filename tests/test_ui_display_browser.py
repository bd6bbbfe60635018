"""What ``reverie ui`` looks like in a real browser (Debian's chromium through Selenium, against the
real command on 127.0.0.1): on a phone-sized screen nothing is wider than the screen, right-to-left
text reads right to left, a hostile conversation runs nothing and pages through, and the back
button after a form's post repeats nothing. One server and one browser for these tests; the
in-process checks of the same pages are in tests/test_ui_display.py.

On a second workspace and server (the ``long_`` fixtures): two tabs holding forms while a hand edit
puts a byte that is not UTF-8 into USER.md (both saves refused with what was typed given back, the
file's bytes untouched, the byte shown escaped), a right-to-left line with emoji saved through a
form byte for byte once the file is fixed, and a conversation too large to count at once opening
on its newest page, appended to while open, and paged back from with no message lost or
repeated."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, urlencode

import orjson
import pytest
from support.browser import (  # it skips this module where chromium or selenium is missing
    SIGN_IN,
    WAIT,
    By,
    WebDriverWait,
    chromium,
    ec,
    go,
    printed,
    sign_in,
    signed_in_browser,
    stop,
    webdriver,
)
from support.cli import ROOT
from support.ui_app import new_memory

from reverie.storage import sessions_view

HEBREW = "- גר בתל אביב."  # "lives in Tel Aviv.": its full stop ends the line on the left
EMOJI = "- Family: 👩‍👩‍👧 and café (e\u0301) and 🇵🇹"
LONG = "- Notes: " + " ".join(f"word{i}" for i in range(240))  # under the gate's 2,000
UNBROKEN = "- Key: " + "x" * 1_500
KEY = 'web:<script>document.title="pwned"</script> ../a?b#c'
HOSTILE = "<img src=x onerror=\"document.title='pwned'\"> **bold** `code`"
MESSAGES = 130


LONG_KEY = "web:long"
#: Messages in the long conversation: about 1 KB each, past what is counted at once.
COUNTED_AT_ONCE = getattr(sessions_view, "COUNT_AT_ONCE", 32 << 20)  # (main had no such limit)
LONG_MESSAGES = COUNTED_AT_ONCE // 1_000 + 2_000
RTL_EMOJI = "- גר בתל אביב עם 👩‍👩‍👧 (café, e\u0301) 🇵🇹"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    memory = new_memory(tmp_path_factory.mktemp("display") / "ws")
    ws = memory.workspace
    text = memory.read("USER.md")
    memory.write(
        "USER.md", text + "\n".join([HEBREW, EMOJI, LONG, UNBROKEN]) + "\n", message="manual: seed"
    )
    with open(ws.root / "USER.md", "a", encoding="utf-8") as f:  # a hand edit: any length
        f.write("- Pasted: " + "z" * 5_000 + "\n")
    store = memory.runtime.sessions
    session = store.get_or_create(KEY)
    path = store.path_for(KEY)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [session.metadata_line()]
    for i in range(MESSAGES):
        content = HOSTILE if i == MESSAGES - 1 else f"message number {i} " + "y" * (i * 40)
        lines.append(orjson.dumps({"role": "user", "content": content}) + b"\n")
    path.write_bytes(b"".join(lines))
    memory.close()
    yield ws.root


@pytest.fixture(scope="module")
def ui(workspace: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[webdriver.Chrome]:
    with signed_in_browser(workspace, tmp_path_factory) as driver:
        yield driver


def _overflowing(ui: webdriver.Chrome) -> list[str]:
    """Elements reaching past the screen's right edge (none inside a box that scrolls itself)."""
    return ui.execute_script(
        """
        const edge = document.documentElement.clientWidth + 1;
        const scrolls = e => { for (; e; e = e.parentElement) {
          if (getComputedStyle(e).overflowX === 'auto') return true; } return false; };
        return Array.from(document.querySelectorAll('body *'))
          .filter(e => (e.getBoundingClientRect().right > edge || e.scrollWidth > e.clientWidth + 1)
                       && getComputedStyle(e).overflowX !== 'auto' && !scrolls(e.parentElement))
          .slice(0, 5).map(e => e.tagName + '.' + e.className);
        """
    )


def test_a_phone_sized_screen_shows_every_page_without_sideways_scrolling(
    ui: webdriver.Chrome,
) -> None:
    go(ui, "/timeline")
    commit = ui.find_element(By.CSS_SELECTOR, "table.timeline td a").get_attribute("href")
    ui.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 360, "height": 740, "deviceScaleFactor": 1, "mobile": True},
    )
    try:
        for path in (
            "/memory",
            "/timeline",
            commit.split(ui.ui_base, 1)[1],  # type: ignore[attr-defined]
            f"/session?key={quote(KEY, safe='')}",
            "/search?q=word5",
            "/status",
            "/review",
            "/memory/file?path=USER.md",
        ):
            go(ui, path)
            width = ui.execute_script(
                "const d = document.documentElement; return [d.scrollWidth, d.clientWidth]"
            )
            assert width[0] <= width[1] and not _overflowing(ui), (path, width, _overflowing(ui))
        go(ui, "/memory")
        sign_out = ui.find_element(By.ID, "sign-out").rect
        assert sign_out["x"] + sign_out["width"] <= 360  # reachable, not pushed off the screen
    finally:
        ui.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_right_to_left_emoji_and_combining_text_read_as_written(ui: webdriver.Chrome) -> None:
    go(ui, "/memory")
    line = next(
        e for e in ui.find_elements(By.CSS_SELECTOR, "#USER\\.md .line .text") if "בתל" in e.text
    )
    assert line.text == HEBREW
    # where the first letter and the full stop are drawn: a right-to-left line starts on the right
    # and its full stop ends it on the left
    first, stop = ui.execute_script(
        """
        const node = arguments[0].firstChild, text = node.textContent;
        const at = i => { const r = document.createRange(); r.setStart(node, i);
          r.setEnd(node, i + 1); return r.getBoundingClientRect().left; };
        return [at(text.indexOf('ג')), at(text.indexOf('.'))];
        """,
        line,
    )
    assert stop < first
    texts = [e.text for e in ui.find_elements(By.CSS_SELECTOR, "#USER\\.md .line .text")]
    assert EMOJI in texts  # joined emoji, flags and combining marks untouched


def test_a_commit_subject_in_hebrew_reads_right_to_left(
    ui: webdriver.Chrome, workspace: Path
) -> None:
    """A commit's subject (another tool's, an agent's) was drawn in the left-to-right cell of the
    Timeline and the commit page's title: a Hebrew subject's full stop was drawn after its last
    word, on the right (ui9). Each subject takes its own direction."""
    subject = "עדכון: גר בתל אביב."  # "update: lives in Tel Aviv."
    who = ("-c", "user.name=Another tool", "-c", "user.email=tool@example.org")
    subprocess.run(
        ["git", "-C", str(workspace), *who, "commit", "-q", "--allow-empty", "-m", subject],
        check=True,
    )
    go(ui, "/timeline")
    link = next(
        e for e in ui.find_elements(By.CSS_SELECTOR, "table.timeline td a") if e.text == subject
    )
    for where in (link, None):
        if where is None:
            link.click()
            WebDriverWait(ui, WAIT).until(ec.url_contains("/commit/"))
            where = ui.find_element(By.TAG_NAME, "h1")
        first, stop = ui.execute_script(
            """
            const walk = document.createTreeWalker(arguments[0], NodeFilter.SHOW_TEXT);
            let node; while ((node = walk.nextNode()) && !node.textContent.includes('ע')) {}
            const text = node.textContent;
            const at = i => { const r = document.createRange(); r.setStart(node, i);
              r.setEnd(node, i + 1); return r.getBoundingClientRect().left; };
            return [at(text.indexOf('ע')), at(text.indexOf('.'))];
            """,
            where,
        )
        assert stop < first, where.tag_name


def test_a_hostile_conversation_runs_nothing_and_pages_through(ui: webdriver.Chrome) -> None:
    go(ui, f"/session?key={quote(KEY, safe='')}")
    assert ui.title == f"{KEY} · Reverie"  # the key as text: its script did not run
    texts = [e.text for e in ui.find_elements(By.CSS_SELECTOR, "ol.messages li .text")]
    assert texts[-1] == HOSTILE and len(texts) == 100  # the newest page, shown as text
    assert ui.find_elements(By.CSS_SELECTOR, "ol.messages img") == []
    whole = "message number 128 " + "y" * 128 * 40  # past the fold: one link away
    assert ui.find_element(By.CSS_SELECTOR, "#m128 .text").text == whole[:4000]
    ui.find_element(By.CSS_SELECTOR, "#m128 .cut a").click()
    WebDriverWait(ui, WAIT).until(ec.url_contains("whole=128"))
    assert ui.find_element(By.CSS_SELECTOR, "#m128 .text").text == whole
    ui.find_element(By.CSS_SELECTOR, "a.earlier").click()
    WebDriverWait(ui, WAIT).until(ec.presence_of_element_located((By.ID, "m0")))
    numbers = [e.get_attribute("id") for e in ui.find_elements(By.CSS_SELECTOR, "ol.messages li")]
    assert numbers == [f"m{i}" for i in range(MESSAGES - 100)]


def test_the_back_button_after_an_edit_repeats_nothing(ui: webdriver.Chrome) -> None:
    go(ui, "/memory")
    row = next(
        e for e in ui.find_elements(By.CSS_SELECTOR, "#USER\\.md .line") if "Key: xxx" in e.text
    )
    row.find_element(By.LINK_TEXT, "edit").click()
    field = WebDriverWait(ui, WAIT).until(ec.presence_of_element_located((By.NAME, "text")))
    field.clear()
    field.send_keys("- Key: short now")
    field.submit()
    WebDriverWait(ui, WAIT).until(ec.url_matches(r"/memory$"))
    ui.back()  # the edit form again, loaded afresh (no-store): its line has changed
    WebDriverWait(ui, WAIT).until(ec.presence_of_element_located((By.TAG_NAME, "h1")))
    assert "changed since the page was loaded" in ui.find_element(By.TAG_NAME, "main").text
    ui.forward()
    ui.refresh()  # the page a post redirected to: reloading it posts nothing
    go(ui, "/timeline")
    subjects = [e.text for e in ui.find_elements(By.CSS_SELECTOR, "table.timeline tbody tr")]
    assert sum("manual: edit a line of USER.md" in s for s in subjects) == 1, subjects
    errors = [e for e in ui.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors


def test_the_back_button_shows_memory_as_it_is_now_and_keeps_what_was_typed(
    ui: webdriver.Chrome, workspace: Path
) -> None:
    """Chromium keeps even a no-store page in its back-forward cache: back to the Memory screen
    after memory changed elsewhere (Dream, a restore in another tab, an agent) showed its lines as
    they were, as if current (ui9). Such a page is loaded again, unless someone typed into its
    form."""
    user = workspace / "USER.md"
    before = user.read_bytes()
    try:
        go(ui, "/memory")
        user.write_bytes(before + b"- Moved to Porto in May\n")  # written by another
        ui.find_element(By.LINK_TEXT, "Timeline").click()
        WebDriverWait(ui, WAIT).until(ec.url_matches(r"/timeline$"))
        ui.back()
        WebDriverWait(ui, WAIT).until(  # (loaded again: the condition takes a stale element)
            ec.text_to_be_present_in_element((By.ID, "USER.md"), "Moved to Porto")
        )
        row = next(
            e for e in ui.find_elements(By.CSS_SELECTOR, "#USER\\.md .line") if "Porto" in e.text
        )
        row.find_element(By.LINK_TEXT, "edit").click()
        field = WebDriverWait(ui, WAIT).until(ec.presence_of_element_located((By.NAME, "text")))
        field.clear()
        field.send_keys("- Moved to Braga in May")
        ui.find_element(By.LINK_TEXT, "Timeline").click()
        WebDriverWait(ui, WAIT).until(ec.url_matches(r"/timeline$"))
        ui.back()
        field = WebDriverWait(ui, WAIT).until(ec.presence_of_element_located((By.NAME, "text")))
        assert field.get_property("value") == "- Moved to Braga in May"
    finally:
        user.write_bytes(before)


def test_a_pasted_line_of_400_kb_is_shown_cut_and_its_edit_link_opens(
    ui: webdriver.Chrome, workspace: Path
) -> None:
    """Its edit link carried the line: the server refused the address, and the browser showed
    "This page isn't working" (ui9). The Memory screen shows the line's start and how much more."""
    user = workspace / "USER.md"
    before = user.read_bytes()
    pasted = "- Pasted log: " + "q" * 400_000
    user.write_bytes(before + pasted.encode() + b"\n")
    try:
        go(ui, "/memory")
        row = next(
            e
            for e in ui.find_elements(By.CSS_SELECTOR, "#USER\\.md .line")
            if "Pasted log" in e.text[:20]
        )
        shown = row.find_element(By.CSS_SELECTOR, ".text").text
        row.find_element(By.LINK_TEXT, "edit").click()
        WebDriverWait(ui, WAIT).until(ec.presence_of_element_located((By.TAG_NAME, "h1")))
        assert ui.find_element(By.TAG_NAME, "h1").text.startswith("Edit line")
        assert ui.find_element(By.NAME, "text").get_property("value") == pasted
        assert shown.endswith(f"… {len(pasted) - 4_000:,} more characters: the whole line")
    finally:
        user.write_bytes(before)


# -- a second workspace: hand edits in another encoding, a huge conversation --------------------


@pytest.fixture(scope="module")
def long_workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with new_memory(tmp_path_factory.mktemp("long") / "ws") as memory:
        ws = memory.workspace
        memory.write(
            "USER.md",
            "# User\n\n- Lives in Lisbon\n- Works at Acme\n- Likes tea\n",
            message="manual: seed",
        )
    path = ws.root / "sessions" / "web_long.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        meta = {"_type": "metadata", "key": LONG_KEY, "last_consolidated": 0}
        f.write(orjson.dumps(meta) + b"\n")
        for i in range(LONG_MESSAGES):
            line = {"role": "user", "content": f"message {i} " + "v" * 980}
            f.write(orjson.dumps(line) + b"\n")
    yield ws.root


@pytest.fixture(scope="module")
def long_ui(
    long_workspace: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[webdriver.Chrome]:
    with signed_in_browser(long_workspace, tmp_path_factory) as driver:
        yield driver


def _type(ui: webdriver.Chrome, name: str, text: str) -> None:
    """Put ``text`` in the field named ``name`` as typing would (chromedriver's keys stop at the
    BMP: an emoji is set through the field's value, then an input event)."""
    field = ui.find_element(By.NAME, name)
    ui.execute_script(
        "arguments[0].value = arguments[1];"
        "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));",
        field,
        text,
    )


def _submit(ui: webdriver.Chrome) -> None:
    button = ui.find_element(By.CSS_SELECTOR, "form.stack button[type=submit]")
    button.click()
    WebDriverWait(ui, WAIT).until(ec.staleness_of(button))


def _typed_back(ui: webdriver.Chrome) -> str:
    box = WebDriverWait(ui, WAIT).until(ec.presence_of_element_located((By.ID, "typed-text")))
    return str(box.get_property("value"))


def test_two_tabs_a_latin1_hand_edit_and_a_line_in_any_script(
    long_ui: webdriver.Chrome, long_workspace: Path
) -> None:
    ui, workspace = long_ui, long_workspace
    user = workspace / "USER.md"
    first = ui.current_window_handle
    go(ui, "/memory/edit?" + urlencode({"path": "USER.md", "line": 2, "text": "- Lives in Lisbon"}))
    ui.switch_to.new_window("tab")
    second = ui.current_window_handle
    try:
        go(ui, "/memory/file?path=USER.md")
        # both forms loaded; then an old editor saves the file in Latin-1
        user.write_bytes(user.read_bytes() + b"- Likes caf\xe9 au lait\n")
        before = user.read_bytes()

        _type(ui, "text", "# User\n\n- Lives in Porto\n- Works at Acme\n- Likes tea\n")
        _submit(ui)
        assert ui.find_element(By.TAG_NAME, "h1").text == "Not saved"
        assert (
            "holds bytes that are not UTF-8 (byte 0xe9"
            in ui.find_element(By.CSS_SELECTOR, ".flash.error").text
        )
        assert _typed_back(ui).startswith("# User\n\n- Lives in Porto\n")

        ui.switch_to.window(first)
        _type(ui, "text", RTL_EMOJI)
        _submit(ui)
        assert ui.find_element(By.TAG_NAME, "h1").text == "Not saved"
        assert _typed_back(ui) == RTL_EMOJI  # given back whole: the script, the emoji, the accent
        assert user.read_bytes() == before

        go(ui, "/memory")
        line = ui.find_element(By.ID, "USER.md-L6")
        escape = line.find_element(By.CSS_SELECTOR, ".esc")
        assert escape.text == "\\xE9" and "BYTE NOT UTF-8" in escape.get_attribute("title")
        assert not line.find_elements(By.LINK_TEXT, "edit")
        assert "\ufffd" not in ui.find_element(By.TAG_NAME, "main").text
        go(ui, "/memory/file?path=USER.md")
        assert ui.find_element(By.ID, "not-utf8").is_displayed()
        assert not ui.find_elements(By.TAG_NAME, "textarea")

        # the person converts the file to UTF-8; the line form saves any script byte for byte
        user.write_bytes(before.decode("latin-1").encode("utf-8"))
        go(
            ui,
            "/memory/edit?"
            + urlencode({"path": "USER.md", "line": 2, "text": "- Lives in Lisbon"}),
        )
        _type(ui, "text", RTL_EMOJI)
        _submit(ui)
        assert "Edited USER.md as commit" in ui.find_element(By.CSS_SELECTOR, ".flash").text
        assert user.read_bytes().split(b"\n")[2] == RTL_EMOJI.encode("utf-8")
        assert "- Likes café au lait" in user.read_text(encoding="utf-8")
        shown = ui.find_element(By.CSS_SELECTOR, "#USER\\.md-L3 .text").text
        assert shown == RTL_EMOJI
    finally:
        ui.switch_to.window(second)
        ui.close()
        ui.switch_to.window(first)


def test_a_huge_conversation_opens_newest_first_and_pages_back_through_an_append(
    long_ui: webdriver.Chrome, long_workspace: Path
) -> None:
    ui, workspace = long_ui, long_workspace
    path = workspace / "sessions" / "web_long.jsonl"
    assert path.stat().st_size > COUNTED_AT_ONCE
    go(ui, f"/session?key={quote(LONG_KEY, safe='')}")
    assert "numbered back from the newest" in ui.find_element(By.ID, "from-end").text
    numbers = [e.text for e in ui.find_elements(By.CSS_SELECTOR, ".msgno")]
    assert numbers[0] == "#-100" and numbers[-1] == "#-1"
    texts = ui.find_elements(By.CSS_SELECTOR, "ol.messages .text")
    assert texts[-1].text.startswith(f"message {LONG_MESSAGES - 1} ")
    assert texts[0].text.startswith(f"message {LONG_MESSAGES - 100} ")

    with open(path, "ab") as f:  # the agent goes on while the page is open
        for i in range(2):
            line = {"role": "assistant", "content": f"appended {i}"}
            f.write(orjson.dumps(line) + b"\n")

    ui.find_element(By.CSS_SELECTOR, "a.earlier").click()
    WebDriverWait(ui, WAIT).until(ec.url_contains("back=100"))
    texts = [e.text for e in ui.find_elements(By.CSS_SELECTOR, "ol.messages .text")]
    assert texts[-1].startswith(f"message {LONG_MESSAGES - 101} ")  # right before the newest page
    assert texts[0].startswith(f"message {LONG_MESSAGES - 200} ")
    assert ui.find_elements(By.CSS_SELECTOR, ".msgno")[-1].text == f"#{LONG_MESSAGES - 100}"
    assert not ui.find_elements(By.ID, "changed")
    ui.find_element(By.CSS_SELECTOR, "a.later").click()
    WebDriverWait(ui, WAIT).until(ec.url_contains("dir=after"))
    first = ui.find_elements(By.CSS_SELECTOR, "ol.messages .text")[0].text
    assert first.startswith(f"message {LONG_MESSAGES - 100} ")
    ui.find_element(By.CSS_SELECTOR, "a.later").click()
    WebDriverWait(ui, WAIT).until(
        ec.text_to_be_present_in_element((By.TAG_NAME, "main"), "appended 1")
    )


# -- a server that stops while a form is open ---------------------------------------------------


def _serve_on(workspace: Path, home: Path, port: str) -> subprocess.Popen[str]:
    """``reverie ui`` on ``port`` (``start_ui``'s ``--port 0`` would take another: another origin,
    whose storage the browser keeps apart)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(home), PYTHONPATH=str(ROOT))
    args = ["-w", str(workspace), "ui", "--no-browser", "--port", port]
    return subprocess.Popen(
        [sys.executable, "-m", "reverie", *args],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )


class _Restartable:
    """``reverie ui`` on a port of its own (`_serve_on`), stopped and started again on it (a
    restart: a new id and secret), and a browser signed in to it."""

    def __init__(self, workspace: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
        self.workspace, self.home = workspace, tmp_path_factory.mktemp("home")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = str(probe.getsockname()[1])
        self.driver = chromium(tmp_path_factory.mktemp("chromium"))
        self.proc = _serve_on(workspace, self.home, self.port)
        self.driver.ui_base = sign_in(self.driver, printed(self.proc, SIGN_IN))  # type: ignore[attr-defined]

    def stop(self) -> None:
        stop(self.proc)

    def start(self, workspace: Path | None = None) -> str:
        """The server again, on the same port (of ``workspace``: another one); the sign-in
        address it prints."""
        self.proc = _serve_on(workspace or self.workspace, self.home, self.port)
        return printed(self.proc, SIGN_IN)

    def close(self) -> None:
        self.driver.quit()
        stop(self.proc)


def test_a_text_sent_to_a_stopped_server_is_offered_back(
    workspace: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Save pressed while the server is down (stopped, restarting): the browser's error page,
    and back to a form page it may not keep (no-store) lost what was typed. The text is kept in
    the tab until a page of the server answers its post; the same form offers it back (ui7)."""
    server = _Restartable(workspace, tmp_path_factory)
    driver = server.driver
    try:
        go(driver, "/memory/file?path=memory/MEMORY.md")
        typed = driver.find_element(By.NAME, "text").get_property("value") + "- Owns a boat\n"
        _type(driver, "text", typed)
        server.stop()
        driver.find_element(By.CSS_SELECTOR, "form.stack button[type=submit]").click()
        WebDriverWait(driver, WAIT).until(lambda d: "ERR_CONNECTION_REFUSED" in d.page_source)
        # the same port, a new secret: signed in afresh
        driver.ui_base = sign_in(driver, server.start())  # type: ignore[attr-defined]
        go(driver, "/memory/file?path=memory/MEMORY.md")
        note = WebDriverWait(driver, WAIT).until(ec.presence_of_element_located((By.ID, "unsent")))
        note.find_element(By.TAG_NAME, "button").click()
        assert driver.find_element(By.NAME, "text").get_property("value") == typed
        _submit(driver)
        assert "- Owns a boat" in (workspace / "memory" / "MEMORY.md").read_text()
        go(driver, "/memory/file?path=memory/MEMORY.md")  # answered: not offered again
        assert not driver.find_elements(By.ID, "unsent")
    finally:
        server.close()


def test_a_text_sent_to_a_stopped_server_is_not_offered_to_another_workspaces_form(
    workspace: Path, long_workspace: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """``reverie ui`` serves on the same port (8766 by default) whatever the workspace: a text
    kept from a server that stopped was offered back in the same form of the next workspace served
    there, "sent from this form", to be saved into that workspace's file (ui9)."""
    server = _Restartable(workspace, tmp_path_factory)
    driver = server.driver
    try:
        go(driver, "/memory/file?path=memory/MEMORY.md")
        _type(driver, "text", "# Memory\n\n- Owns a boat\n")
        server.stop()
        driver.find_element(By.CSS_SELECTOR, "form.stack button[type=submit]").click()
        WebDriverWait(driver, WAIT).until(lambda d: "ERR_CONNECTION_REFUSED" in d.page_source)
        driver.ui_base = sign_in(driver, server.start(long_workspace))  # type: ignore[attr-defined]
        go(driver, "/memory/file?path=memory/MEMORY.md")
        WebDriverWait(driver, WAIT).until(ec.presence_of_element_located((By.NAME, "text")))
        assert not driver.find_elements(By.ID, "unsent")
    finally:
        server.close()


def test_the_dream_page_says_when_the_server_stops_answering_and_what_is_after_a_restart(
    workspace: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The Dream page follows a run by asking the server for its state. With the server stopped,
    then restarted (a new id: it knows neither the session nor the run), the page went on saying
    "Running" with the last progress it had, asking forever (ui9). It says the server does not
    answer, then, answered by the restarted server, is loaded again and says what is now."""
    server = _Restartable(workspace, tmp_path_factory)
    driver = server.driver
    try:
        go(driver, "/dream")
        server.stop()
        driver.execute_script("followDream(document.getElementById('dream-job'));")  # a run's
        detail = driver.find_element(By.ID, "dream-detail")
        WebDriverWait(driver, WAIT).until(lambda d: "No answer from the server" in detail.text)
        server.start()  # the same port, a new id
        # (reloaded while it is read: the condition, not a lambda, takes a stale element as not yet)
        WebDriverWait(driver, WAIT).until(
            ec.text_to_be_present_in_element((By.TAG_NAME, "h1"), "Not signed in")
        )
    finally:
        server.close()
