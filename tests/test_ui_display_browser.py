"""What ``reverie ui`` looks like in a real browser (Debian's chromium through Selenium, against the
real command on 127.0.0.1): on a phone-sized screen nothing is wider than the screen, right-to-left
text reads right to left, a hostile conversation runs nothing and pages through, and the back
button after a form's post repeats nothing. One server and one browser for the module; the
in-process checks of the same pages are in tests/test_ui_display.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import orjson
import pytest
from selenium.webdriver.common.by import By  # noqa: E402  (after the skip in test_ui_browser)
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

import reverie
from reverie.storage.config import Config
from reverie.storage.workspace import Workspace
from tests.test_ui_browser import WAIT, _chromium, _printed, _start_ui, _stop, webdriver

HEBREW = "- גר בתל אביב."  # "lives in Tel Aviv.": its full stop ends the line on the left
EMOJI = "- Family: 👩‍👩‍👧 and café (e\u0301) and 🇵🇹"
LONG = "- Notes: " + " ".join(f"word{i}" for i in range(240))  # under the gate's 2,000
UNBROKEN = "- Key: " + "x" * 1_500
KEY = 'web:<script>document.title="pwned"</script> ../a?b#c'
HOSTILE = "<img src=x onerror=\"document.title='pwned'\"> **bold** `code`"
MESSAGES = 130


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    ws = Workspace(tmp_path_factory.mktemp("display") / "ws")
    ws.init()
    config = Config()
    config.memory.history.fsync = False
    memory = reverie.open(ws, config=config)
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
    _go(ui, "/timeline")
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
            _go(ui, path)
            width = ui.execute_script(
                "const d = document.documentElement; return [d.scrollWidth, d.clientWidth]"
            )
            assert width[0] <= width[1] and not _overflowing(ui), (path, width, _overflowing(ui))
        _go(ui, "/memory")
        sign_out = ui.find_element(By.ID, "sign-out").rect
        assert sign_out["x"] + sign_out["width"] <= 360  # reachable, not pushed off the screen
    finally:
        ui.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_right_to_left_emoji_and_combining_text_read_as_written(ui: webdriver.Chrome) -> None:
    _go(ui, "/memory")
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


def test_a_hostile_conversation_runs_nothing_and_pages_through(ui: webdriver.Chrome) -> None:
    _go(ui, f"/session?key={quote(KEY, safe='')}")
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
    _go(ui, "/memory")
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
    _go(ui, "/timeline")
    subjects = [e.text for e in ui.find_elements(By.CSS_SELECTOR, "table.timeline tbody tr")]
    assert sum("manual: edit a line of USER.md" in s for s in subjects) == 1, subjects
    errors = [e for e in ui.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
