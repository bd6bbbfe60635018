"""The web UI attacked as a user would, in a real browser (Debian's chromium through Selenium,
against the real ``reverie ui`` command; the in-process checks are tests/test_adapt5_ui.py): two
tabs holding forms while a hand edit puts a byte that is not UTF-8 into USER.md (both saves
refused with what was typed given back, the file's bytes untouched, the byte shown escaped), a
right-to-left line with emoji saved through a form byte for byte once the file is fixed, and a
conversation too large to count at once opening on its newest page, appended to while open, and
paged back from with no message lost or repeated."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, urlencode

import orjson
import pytest
from selenium.webdriver.common.by import By  # noqa: E402  (after the skip in test_ui_browser)
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

import reverie
from reverie.storage import sessions_view
from reverie.storage.config import Config
from reverie.storage.workspace import Workspace
from tests.test_ui_browser import WAIT, _chromium, _printed, _start_ui, _stop, webdriver

KEY = "web:long"
#: Messages in the long conversation: about 1 KB each, past what is counted at once.
COUNTED_AT_ONCE = getattr(sessions_view, "COUNT_AT_ONCE", 32 << 20)  # (main had no such limit)
MESSAGES = COUNTED_AT_ONCE // 1_000 + 2_000
RTL_EMOJI = "- גר בתל אביב עם 👩‍👩‍👧 (café, e\u0301) 🇵🇹"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    ws = Workspace(tmp_path_factory.mktemp("adapt5") / "ws")
    ws.init()
    config = Config()
    config.memory.history.fsync = False
    with reverie.open(ws, config=config) as memory:
        memory.write(
            "USER.md",
            "# User\n\n- Lives in Lisbon\n- Works at Acme\n- Likes tea\n",
            message="manual: seed",
        )
    path = ws.root / "sessions" / "web_long.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        meta = {"_type": "metadata", "key": KEY, "last_consolidated": 0}
        f.write(orjson.dumps(meta) + b"\n")
        for i in range(MESSAGES):
            line = {"role": "user", "content": f"message {i} " + "v" * 980}
            f.write(orjson.dumps(line) + b"\n")
    yield ws.root


@pytest.fixture(scope="module")
def ui(workspace: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[webdriver.Chrome]:
    proc = _start_ui(["-w", str(workspace), "ui", "--no-browser"], tmp_path_factory.mktemp("home"))
    driver = None
    try:
        url = _printed(proc, r"open (http://127\.0\.0\.1:\d+/\?token=\S+)")
        driver = _chromium(tmp_path_factory.mktemp("chromium"))
        driver.get(url)
        WebDriverWait(driver, WAIT).until(ec.url_matches(r"/memory$"))
        driver.ui_base = driver.current_url[: -len("/memory")]  # type: ignore[attr-defined]
        yield driver
    finally:
        if driver is not None:
            driver.quit()
        _stop(proc)


def _go(ui: webdriver.Chrome, path: str) -> None:
    ui.get(ui.ui_base + path)  # type: ignore[attr-defined]


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
    ui: webdriver.Chrome, workspace: Path
) -> None:
    user = workspace / "USER.md"
    first = ui.current_window_handle
    _go(
        ui, "/memory/edit?" + urlencode({"path": "USER.md", "line": 2, "text": "- Lives in Lisbon"})
    )
    ui.switch_to.new_window("tab")
    second = ui.current_window_handle
    try:
        _go(ui, "/memory/file?path=USER.md")
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

        _go(ui, "/memory")
        line = ui.find_element(By.ID, "USER.md-L6")
        escape = line.find_element(By.CSS_SELECTOR, ".esc")
        assert escape.text == "\\xE9" and "BYTE NOT UTF-8" in escape.get_attribute("title")
        assert not line.find_elements(By.LINK_TEXT, "edit")
        assert "\ufffd" not in ui.find_element(By.TAG_NAME, "main").text
        _go(ui, "/memory/file?path=USER.md")
        assert ui.find_element(By.ID, "not-utf8").is_displayed()
        assert not ui.find_elements(By.TAG_NAME, "textarea")

        # the person converts the file to UTF-8; the line form saves any script byte for byte
        user.write_bytes(before.decode("latin-1").encode("utf-8"))
        _go(
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
    ui: webdriver.Chrome, workspace: Path
) -> None:
    path = workspace / "sessions" / "web_long.jsonl"
    assert path.stat().st_size > COUNTED_AT_ONCE
    _go(ui, f"/session?key={quote(KEY, safe='')}")
    assert "numbered back from the newest" in ui.find_element(By.ID, "from-end").text
    numbers = [e.text for e in ui.find_elements(By.CSS_SELECTOR, ".msgno")]
    assert numbers[0] == "#-100" and numbers[-1] == "#-1"
    texts = ui.find_elements(By.CSS_SELECTOR, "ol.messages .text")
    assert texts[-1].text.startswith(f"message {MESSAGES - 1} ")
    assert texts[0].text.startswith(f"message {MESSAGES - 100} ")

    with open(path, "ab") as f:  # the agent goes on while the page is open
        for i in range(2):
            line = {"role": "assistant", "content": f"appended {i}"}
            f.write(orjson.dumps(line) + b"\n")

    ui.find_element(By.CSS_SELECTOR, "a.earlier").click()
    WebDriverWait(ui, WAIT).until(ec.url_contains("back=100"))
    texts = [e.text for e in ui.find_elements(By.CSS_SELECTOR, "ol.messages .text")]
    assert texts[-1].startswith(f"message {MESSAGES - 101} ")  # right before the newest page
    assert texts[0].startswith(f"message {MESSAGES - 200} ")
    assert ui.find_elements(By.CSS_SELECTOR, ".msgno")[-1].text == f"#{MESSAGES - 100}"
    assert not ui.find_elements(By.ID, "changed")
    ui.find_element(By.CSS_SELECTOR, "a.later").click()
    WebDriverWait(ui, WAIT).until(ec.url_contains("dir=after"))
    first = ui.find_elements(By.CSS_SELECTOR, "ol.messages .text")[0].text
    assert first.startswith(f"message {MESSAGES - 100} ")
    ui.find_element(By.CSS_SELECTOR, "a.later").click()
    WebDriverWait(ui, WAIT).until(
        ec.text_to_be_present_in_element((By.TAG_NAME, "main"), "appended 1")
    )
