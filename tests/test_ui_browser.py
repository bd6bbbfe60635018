"""``reverie ui`` in a real browser: Debian's chromium driven by its chromedriver through Selenium,
against the real command serving a real workspace on 127.0.0.1. One server and one browser for the
whole module (the tests run in order on the same workspace, as a person would click through it).

With ``REVERIE_UI_SCREENSHOTS=DIR`` set, the screen test also saves a PNG of each screen there
(docs/ui.md's pictures: ``REVERIE_UI_SCREENSHOTS=docs/images/ui .venv/bin/python -m pytest
tests/test_ui_browser.py``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.browser import (  # it skips this module where chromium or selenium is missing
    WAIT,
    By,
    NoSuchElementException,
    StaleElementReferenceException,
    WebDriverWait,
    chromium,
    ec,
    go,
    sign_in,
    ui_server,
    webdriver,
)

from tests.support.ui_workspace import SCRIPT_LINE, seeded

#: Read at import: the autouse fixture clears REVERIE_* variables before each test.
SHOTS = os.environ.get("REVERIE_UI_SCREENSHOTS")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    memory = seeded(tmp_path_factory.mktemp("ui") / "ws")
    memory.close()
    yield memory.workspace.root


@pytest.fixture(scope="module")
def server(workspace: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``reverie ui --no-browser --port 0`` in its own process; the URL (with its token) it
    prints."""
    with ui_server(
        ["-w", str(workspace), "ui", "--no-browser"], tmp_path_factory.mktemp("home")
    ) as url:
        yield url


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[webdriver.Chrome]:
    driver = chromium(tmp_path_factory.mktemp("chromium"))
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def ui(server: str, browser: webdriver.Chrome) -> webdriver.Chrome:
    browser.ui_base = sign_in(browser, server)  # type: ignore[attr-defined]
    return browser


def _flash(ui: webdriver.Chrome) -> str:
    return (
        WebDriverWait(ui, WAIT)
        .until(ec.presence_of_element_located((By.CSS_SELECTOR, ".flash")))
        .text
    )


def _shot(ui: webdriver.Chrome, name: str) -> None:
    """The whole page as a PNG in ``SHOTS`` (when set): the viewport grown to the page's height
    through the DevTools protocol, then put back."""
    if not SHOTS:
        return
    Path(SHOTS).mkdir(parents=True, exist_ok=True)
    height = ui.execute_script("return document.documentElement.scrollHeight")
    ui.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {
            "width": 1280,
            "height": min(max(height, 600), 2000),
            "deviceScaleFactor": 1,
            "mobile": False,
        },
    )
    try:
        ui.save_screenshot(str(Path(SHOTS) / f"{name}.png"))
    finally:
        ui.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_the_token_url_signs_in_and_the_cookie_is_not_readable_by_script(
    ui: webdriver.Chrome,
) -> None:
    assert "token=" not in ui.current_url
    assert ui.execute_script("return document.cookie") == ""  # HttpOnly
    port = ui.current_url.split(":")[2].split("/")[0]
    cookie = ui.get_cookie(f"reverie_ui_{port}")
    assert cookie["sameSite"] == "Lax" and cookie["path"] == "/" + ui.ui_base.rsplit("/", 1)[1]


def test_each_screen_loads(ui: webdriver.Chrome) -> None:
    screens = {
        "/memory": "Memory",
        "/timeline": "Timeline",
        "/review": "Review",
        "/search?q=Berlin": "Search",
        "/status": "Status",
    }
    for path, title in screens.items():
        go(ui, path)
        assert ui.find_element(By.TAG_NAME, "h1").text == title, path
        _shot(ui, path.strip("/").split("?")[0])
    go(ui, "/search?q=Berlin")
    assert "USER.md line 6" in ui.find_element(By.CSS_SELECTOR, "ol.hits").text
    go(ui, "/status")
    assert len(ui.find_elements(By.CSS_SELECTOR, "table.budgets progress")) == 3
    errors = [e for e in ui.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors  # no blocked script, no failed request


def test_an_injected_script_line_is_shown_and_inert(ui: webdriver.Chrome) -> None:
    go(ui, "/memory")
    text = ui.find_element(By.ID, "memory-MEMORY.md").text
    assert SCRIPT_LINE in text  # shown as the text it is
    assert ui.title != "pwned" and ui.execute_script("return document.title") == "Memory · Reverie"
    go(ui, "/timeline?kind=dream")
    ui.find_element(By.CSS_SELECTOR, "table.timeline tbody tr td a").click()
    assert SCRIPT_LINE in ui.find_element(By.CSS_SELECTOR, "div.diff").text and ui.title != "pwned"


def test_why_opens_inline_with_the_commit_and_the_entries(ui: webdriver.Chrome) -> None:
    go(ui, "/memory")
    line = ui.find_element(By.ID, "USER.md-L6")
    line.find_element(By.CSS_SELECTOR, "details.why summary").click()
    body = line.find_element(By.CSS_SELECTOR, ".why-body")
    WebDriverWait(ui, WAIT).until(lambda _: "written by commit" in body.text)
    assert "From history entries 1–3" in body.text and "[durable] Lives in Berlin" in body.text
    _shot(ui, "why")


def test_edit_a_line_and_see_the_commit(ui: webdriver.Chrome, workspace: Path) -> None:
    go(ui, "/memory")
    ui.find_element(By.ID, "USER.md-L7").find_element(By.LINK_TEXT, "edit").click()
    field = WebDriverWait(ui, WAIT).until(ec.presence_of_element_located((By.NAME, "text")))
    field.clear()
    field.send_keys("- Works at ACME Robotics")
    ui.find_element(By.CSS_SELECTOR, "form.stack button[type=submit]").click()
    message = _flash(ui)
    sha = re.search(r"commit ([0-9a-f]{8})", message)
    assert sha, message
    assert "- Works at ACME Robotics\n" in (workspace / "USER.md").read_text()
    go(ui, "/timeline")
    first = ui.find_element(By.CSS_SELECTOR, "table.timeline tbody tr")
    assert sha.group(1) in first.text and "manual: edit a line of USER.md" in first.text


def test_approve_the_pending_soul_change(ui: webdriver.Chrome, workspace: Path) -> None:
    go(ui, "/review")
    assert "Reply in British English" in ui.find_element(By.CSS_SELECTOR, "#soul div.diff").text
    ui.find_element(By.ID, "approve").click()
    assert "Applied the SOUL.md change" in _flash(ui)
    assert "Reply in British English" in (workspace / "SOUL.md").read_text()
    assert "Nothing is waiting" in ui.find_element(By.ID, "soul").text


def test_undo_a_dream_commit_from_the_timeline(ui: webdriver.Chrome, workspace: Path) -> None:
    assert "Atlas" in (workspace / "memory/MEMORY.md").read_text()
    go(ui, "/timeline?kind=dream")
    rows = ui.find_elements(By.CSS_SELECTOR, "table.timeline tbody tr")
    target = next(r for r in rows if "MEMORY.md" in r.text and "history 4-6" in r.text)
    target.find_element(By.CSS_SELECTOR, "td a").click()
    _shot(ui, "commit")
    ui.find_element(By.LINK_TEXT, "Undo just this change").click()
    _shot(ui, "confirm")
    removed = [e.text for e in ui.find_elements(By.CSS_SELECTOR, "div.diff .d-del .code")]
    assert any(r.startswith("- Deadline for Atlas") for r in removed), removed
    assert any(SCRIPT_LINE in r for r in removed), removed
    ui.find_element(By.ID, "confirm").click()
    assert "Undid" in _flash(ui)
    text = (workspace / "memory/MEMORY.md").read_text()
    assert "Atlas" not in text and "<script>" not in text
    assert "Works at ACME Robotics" in (workspace / "USER.md").read_text()  # the later edit stays


def test_dream_now_shows_its_run(ui: webdriver.Chrome, workspace: Path) -> None:
    import reverie

    with reverie.open(workspace) as memory:
        memory.remember("- [durable] Has a cat called Miso", session_key="cli:alice")
    go(ui, "/status")
    assert "1 history entry waiting" in ui.find_element(By.ID, "pending").text
    ui.find_element(By.ID, "dream-now").click()
    WebDriverWait(ui, WAIT).until(ec.url_matches(r"/dream$"))
    # The page reloads itself when the run ends: an element found just before the reload goes stale,
    # so the wait reads the text in one step and looks again on a stale element.
    state = WebDriverWait(
        ui, WAIT, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException)
    ).until(
        lambda d: (
            text if "Finished" in (text := d.find_element(By.ID, "dream-state").text) else False
        )
    )
    assert "ok" in state
    _shot(ui, "dream")
    ui.find_element(By.PARTIAL_LINK_TEXT, "See commit").click()
    assert "Miso" in ui.find_element(By.CSS_SELECTOR, "div.diff").text


# -- two tabs: no blind writes ---------------------------------------------------------------------


def _edit_in_this_tab(ui: webdriver.Chrome, workspace: Path, rel: str, line: str) -> None:
    """Open the edit form of the line of ``rel`` reading ``line`` (the Memory screen's link)."""
    from urllib.parse import urlencode

    index = (workspace / rel).read_text().split("\n").index(line)
    go(ui, "/memory/edit?" + urlencode({"path": rel, "line": index, "text": line}))
    WebDriverWait(ui, WAIT).until(ec.presence_of_element_located((By.NAME, "text")))


def _save_line(ui: webdriver.Chrome, text: str) -> None:
    field = ui.find_element(By.NAME, "text")
    field.clear()
    field.send_keys(text)
    ui.find_element(By.CSS_SELECTOR, "form.stack button[type=submit]").click()
    WebDriverWait(ui, WAIT).until(ec.staleness_of(field))  # the next page, not this one


def _only_conflicts_logged(ui: webdriver.Chrome) -> None:
    """The browser's log holds no error but the conflict pages' status (409), and is emptied."""
    errors = [e for e in ui.get_log("browser") if e["level"] == "SEVERE"]
    assert errors and all("status of 409" in e["message"] for e in errors), errors


def test_two_tabs_editing_one_file_merge_or_choose(ui: webdriver.Chrome, workspace: Path) -> None:
    """Two tabs of one session, each with an edit form loaded from the same USER.md: the second
    save is merged over the first when they changed different lines; when they changed the same
    line, the conflict page shows both and the text the person makes from them is saved."""
    user = workspace / "USER.md"
    first = ui.current_window_handle
    _edit_in_this_tab(ui, workspace, "USER.md", "- Name: Alice")
    ui.switch_to.new_window("tab")
    second = ui.current_window_handle
    try:
        _edit_in_this_tab(ui, workspace, "USER.md", "- Works at ACME Robotics")
        _save_line(ui, "- Works at ACME Robotics GmbH")
        assert "Edited USER.md as commit" in _flash(ui)
        ui.switch_to.window(first)  # its form still holds the file as it was before that save
        _save_line(ui, "- Name: Alice Smith")
        assert "merged with the changes made since you opened it" in _flash(ui)
        text = user.read_text()
        assert "- Name: Alice Smith\n" in text and "- Works at ACME Robotics GmbH\n" in text

        _edit_in_this_tab(ui, workspace, "USER.md", "- Name: Alice Smith")
        ui.switch_to.window(second)
        _edit_in_this_tab(ui, workspace, "USER.md", "- Name: Alice Smith")
        _save_line(ui, "- Name: Alice Jones")
        assert "Edited USER.md as commit" in _flash(ui)
        ui.switch_to.window(first)
        _save_line(ui, "- Name: Alice Brown")
        WebDriverWait(ui, WAIT).until(ec.presence_of_element_located((By.ID, "resolved")))
        assert ui.find_element(By.TAG_NAME, "h1").text == "USER.md changed since you opened it"
        assert "- Name: Alice Jones" in user.read_text() and "Brown" not in user.read_text()
        now = ui.find_element(By.CSS_SELECTOR, "#side-now li.differs").text
        yours = ui.find_element(By.CSS_SELECTOR, "#side-yours li.differs").text
        assert "- Name: Alice Jones" in now and "- Name: Alice Brown" in yours
        seen, failures = ui.execute_script(_CONTRAST)
        assert seen and not failures, failures
        _shot(ui, "conflict")
        chosen = user.read_text().replace("- Name: Alice Jones", "- Name: Alice Jones (born Brown)")
        area = ui.find_element(By.ID, "resolved")
        area.clear()
        area.send_keys(chosen)
        ui.find_element(By.ID, "save-resolved").click()
        WebDriverWait(ui, WAIT).until(ec.staleness_of(area))  # (the conflict page has a .flash too)
        assert "Edited USER.md as commit" in _flash(ui)
        assert user.read_text() == chosen
    finally:
        ui.switch_to.window(second)
        ui.close()
        ui.switch_to.window(first)
    _only_conflicts_logged(ui)


def test_an_undo_confirmed_after_another_tab_changed_its_lines(
    ui: webdriver.Chrome, workspace: Path
) -> None:
    """A confirmation open in one tab while another tab edits the file: confirmed, the undo keeps
    an edit to other lines, and for an edit to its own lines shows both sides and writes nothing."""
    # Dream's line from the run just above, in whichever file it wrote it
    rel = next(r for r in ("USER.md", "memory/MEMORY.md") if "Miso" in (workspace / r).read_text())
    user = workspace / rel
    first = ui.current_window_handle
    line = next(ln for ln in user.read_text().split("\n") if "Miso" in ln)

    def confirm_in_this_tab(subject: str) -> None:
        go(ui, "/timeline")
        row = next(
            r
            for r in ui.find_elements(By.CSS_SELECTOR, "table.timeline tbody tr")
            if subject in r.text
        )
        row.find_element(By.CSS_SELECTOR, "td a").click()
        ui.find_element(By.LINK_TEXT, "Undo just this change").click()
        WebDriverWait(ui, WAIT).until(ec.presence_of_element_located((By.ID, "confirm")))

    confirm_in_this_tab("dream")  # the newest Dream commit: the one that wrote the Miso line
    ui.switch_to.new_window("tab")
    second = ui.current_window_handle
    try:
        _edit_in_this_tab(ui, workspace, rel, line)
        _save_line(ui, "- Has two cats, Miso and Tofu")
        assert f"Edited {rel} as commit" in _flash(ui)
        ui.switch_to.window(first)
        ui.find_element(By.ID, "confirm").click()
        WebDriverWait(ui, WAIT).until(ec.presence_of_element_located((By.ID, "again")))
        assert ui.find_element(By.TAG_NAME, "h1").text.endswith(
            "changed since the undo was previewed"
        )
        assert "Miso and Tofu" in ui.find_element(By.ID, "side-now").text
        assert "- Has two cats, Miso and Tofu\n" in user.read_text()  # nothing written
        again = ui.find_element(By.ID, "again")
        again.click()  # previewed again from now: it no longer applies
        WebDriverWait(ui, WAIT).until(ec.staleness_of(again))
        assert "cannot be done as asked" in _flash(ui)

        confirm_in_this_tab(f"manual: edit a line of {rel}")  # undo the two cats, from tab one
        ui.switch_to.window(second)
        other = user.read_text().split("\n")[0]  # the heading, far from the cats
        _edit_in_this_tab(ui, workspace, rel, other)
        _save_line(ui, other + " (checked)")
        assert f"Edited {rel} as commit" in _flash(ui)
        ui.switch_to.window(first)
        ui.find_element(By.ID, "confirm").click()
        assert "Undid" in _flash(ui)
        text = user.read_text()
        assert other + " (checked)\n" in text and "Tofu" not in text and line + "\n" in text
    finally:
        ui.switch_to.window(second)
        ui.close()
        ui.switch_to.window(first)
    _only_conflicts_logged(ui)


# -- what the agent reads, as drawn ----------------------------------------------------------------

LONG = "- " + "x" * 2000  # one word: it cannot wrap at a space
REVERSED = "- Role: \u202enimda"  # drawn as "admin" when the override is left in the text

#: The WCAG 2.1 contrast ratio of each visible link and button against what is drawn behind it
#: (backgrounds composited from the page down, opacity included): the failures, as text.
_CONTRAST = """
function rgba(text) {
  var p = text.match(/[\\d.]+/g).map(Number);
  return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
}
function over(top, under) {
  var a = top[3];
  return [0, 1, 2].map(function (i) { return top[i] * a + under[i] * (1 - a); });
}
function luminance(c) {
  var v = c.map(function (x) {
    x /= 255;
    return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4);
  });
  return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
}
var failures = [], seen = 0;
document.querySelectorAll("a, button, summary").forEach(function (el) {
  var box = el.getBoundingClientRect();
  if (!box.width || !box.height || el.disabled) return;
  var chain = [], opacity = 1;
  for (var e = el; e; e = e.parentElement) {
    chain.push(e);
    opacity *= Number(getComputedStyle(e).opacity);
  }
  var back = [255, 255, 255];
  for (var i = chain.length - 1; i >= 0; i--) {
    back = over(rgba(getComputedStyle(chain[i]).backgroundColor), back);
  }
  var fg = rgba(getComputedStyle(el).color);
  fg[3] *= opacity;
  var front = over(fg, back);
  var l1 = luminance(front), l2 = luminance(back);
  var ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
  seen += 1;
  if (ratio < 4.5) failures.push(el.textContent.trim().slice(0, 30) + " " + ratio.toFixed(2));
});
return [seen, failures];
"""


def test_hidden_characters_long_lines_and_contrast_as_drawn(
    ui: webdriver.Chrome, workspace: Path
) -> None:
    import reverie

    path = workspace / "USER.md"
    path.write_text(path.read_text() + f"{REVERSED}\n{LONG}\n")  # a hand edit, as a person makes
    with reverie.open(workspace) as memory:
        memory.runtime.git.commit("manual: hostile lines", kind="manual")
    go(ui, "/memory")
    lines = ui.find_elements(By.CSS_SELECTOR, "#USER\\.md li.line")
    role = next(li for li in lines if "nimda" in li.text)
    text = role.find_element(By.CSS_SELECTOR, ".text")
    assert "U+202E" in text.text and "\u202e" not in text.text  # an escape, not the override
    # Drawn left to right as stored: the "n" of "nimda" left of its "a" (the override would swap).
    order = ui.execute_script(
        """
        var node = arguments[0].lastChild, text = node.textContent, at = text.indexOf("nimda");
        function x(i) { var r = document.createRange(); r.setStart(node, i); r.setEnd(node, i + 1);
                        return r.getBoundingClientRect().left; }
        return [x(at), x(at + 4)];
        """,
        text,
    )
    assert order[0] < order[1], order
    # A 2,000-character line wraps in place: the page is no wider than the window, and the line's
    # actions stay on screen.
    width = ui.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], width
    long_line = next(li for li in lines if "xxxxxxxxxx" in li.text)
    right = ui.execute_script(
        "return arguments[0].querySelector('.actions').getBoundingClientRect().right", long_line
    )
    assert right <= width[1], (right, width)
    for page in ("/memory", "/timeline", "/review", "/status"):
        go(ui, page)
        seen, failures = ui.execute_script(_CONTRAST)
        assert seen > 5 and not failures, (page, failures)  # WCAG AA: at least 4.5:1


# -- a root of scopes ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def root_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``reverie --root DIR ui`` over two users; the URL it prints, on ``localhost`` (the name a
    person may type: the Host check accepts it too)."""
    import reverie
    from reverie.storage.config import Config

    root = tmp_path_factory.mktemp("ui-root") / "root"
    config = Config()
    config.memory.history.fsync = False
    seeds = [
        ("alice", None, "- Lives in Berlin"),
        ("bob", None, "- Lives in Lisbon"),
        ("bob", "support-bot", "- Prefers short answers"),
    ]
    for user, agent, line in seeds:
        with reverie.open(root=root, user=user, agent=agent, config=config) as memory:
            memory.init()
            memory.write("USER.md", memory.read("USER.md") + line + "\n", message="seed")
    args = ["--root", str(root), "ui", "--no-browser"]
    pattern = r"open http://127\.0\.0\.1(:\d+/\?token=\S+)"
    with ui_server(args, tmp_path_factory.mktemp("h"), pattern) as found:
        yield "http://localhost" + found


def test_a_root_picks_a_user_and_shows_their_memory(
    browser: webdriver.Chrome, root_server: str
) -> None:
    browser.get(root_server)  # the token URL: a session cookie, then the picker
    WebDriverWait(browser, WAIT).until(ec.url_matches(r"localhost:\d+/[\w-]{22}/$"))
    assert "token=" not in browser.current_url
    assert {"alice", "bob"} <= set(
        browser.find_element(By.CSS_SELECTOR, "table.scopes").text.split()
    )
    _shot(browser, "picker")
    browser.find_element(By.NAME, "user").send_keys("bob")
    browser.find_element(By.ID, "open-scope").click()
    WebDriverWait(browser, WAIT).until(ec.url_matches(r"/s/[0-9a-f]{32}/memory$"))
    assert "bob" not in browser.current_url  # the address names the scope by its digest only
    assert "user bob" in browser.find_element(By.CSS_SELECTOR, "header .workspace").text
    user_md = browser.find_element(By.ID, "USER.md").text
    assert "Lives in Lisbon" in user_md
    assert "Berlin" not in browser.page_source and "short answers" not in browser.page_source
    browser.find_element(By.LINK_TEXT, "Timeline").click()  # the screens stay in bob's scope
    WebDriverWait(browser, WAIT).until(ec.url_matches(r"/s/[0-9a-f]{32}/timeline$"))
    browser.find_element(By.LINK_TEXT, "All users").click()
    browser.find_element(By.NAME, "user").send_keys("carol")
    browser.find_element(By.ID, "open-scope").click()
    problem = WebDriverWait(browser, WAIT).until(
        ec.presence_of_element_located((By.ID, "pick-problem"))
    )
    assert problem.text.startswith("No memory for this user yet")
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not [e for e in errors if "404" not in e["message"]], errors  # (carol's page is a 404)


# -- sessions: two servers side by side, the history, a link from another page ---------------------


@pytest.fixture(scope="module")
def second_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Another ``reverie ui`` (another workspace, another port, another token) on 127.0.0.1."""
    import reverie

    with reverie.open(tmp_path_factory.mktemp("second") / "ws") as memory:
        memory.init()
        memory.write("USER.md", memory.read("USER.md") + "- Drinks green tea\n", message="seed")
        root = memory.workspace.root
    with ui_server(
        ["-w", str(root), "ui", "--no-browser"], tmp_path_factory.mktemp("home2")
    ) as url:
        yield url


def test_two_servers_on_two_ports_stay_signed_in_side_by_side(
    ui: webdriver.Chrome, second_server: str
) -> None:
    first = ui.ui_base  # type: ignore[attr-defined]
    second = sign_in(ui, second_server)  # signing into the second…
    assert first.split("/")[2] != second.split("/")[2]  # (another port on the same host)
    for _ in range(2):  # …never signs the first out, and back and forth they both stay in
        for base, line in ((first, "Lives in Berlin"), (second, "Drinks green tea")):
            ui.get(base + "/memory")
            assert ui.find_element(By.TAG_NAME, "h1").text == "Memory", base
            assert line in ui.find_element(By.ID, "USER.md").text
    names = {c["name"] for c in ui.get_cookies()}  # (the cookies of the page shown: the second's)
    ui.get(first + "/memory")
    names |= {c["name"] for c in ui.get_cookies()}
    assert len({n for n in names if n.startswith("reverie_ui_")}) == 2


def test_a_link_from_another_page_opens_it_signed_in(ui: webdriver.Chrome, tmp_path: Path) -> None:
    base = ui.ui_base  # type: ignore[attr-defined]
    origin = "/".join(base.split("/")[:3])
    links = tmp_path / "links.html"
    links.write_text(
        f'<a id="bare" href="{origin}/timeline?kind=dream">timeline</a> '
        f'<a id="full" href="{base}/review">review</a>'
    )
    ui.get(links.as_uri())
    ui.find_element(By.ID, "bare").click()  # an address without the server's id: found by ui.js
    WebDriverWait(ui, WAIT).until(ec.url_matches(r"/[\w-]{22}/timeline\?kind=dream$"))
    assert ui.find_element(By.TAG_NAME, "h1").text == "Timeline"
    ui.get(links.as_uri())
    ui.find_element(By.ID, "full").click()  # from another site: SameSite=Lax sends the cookie
    WebDriverWait(ui, WAIT).until(ec.url_matches(r"/review$"))
    assert ui.find_element(By.TAG_NAME, "h1").text == "Review"
    ui.refresh()
    assert ui.find_element(By.TAG_NAME, "h1").text == "Review"


def test_no_token_in_the_browsers_history_or_any_command_line(
    workspace: Path, tmp_path: Path
) -> None:
    """``reverie ui`` opening the browser itself (``$BROWSER``: a script handing its argument to
    this test, which opens it in a fresh Chromium): the browser's command line holds a file's
    address, no process's command line holds a token, and after signing in both ways — the file,
    then the printed address — the browser's history holds no token that still signs in."""
    import sqlite3
    import time
    import urllib.error
    import urllib.request

    handed = tmp_path / "handed"
    script = tmp_path / "browser"
    script.write_text(f'#!/bin/sh\nprintf "%s" "$1" > {handed}.tmp && mv {handed}.tmp {handed}\n')
    script.chmod(0o755)
    profile = tmp_path / "profile"
    args, browser = ["-w", str(workspace), "ui"], {"BROWSER": str(script)}
    with ui_server(args, tmp_path / "home", env_extra=browser) as printed:
        deadline = time.monotonic() + WAIT
        while not handed.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        file_url = handed.read_text()
        found = re.search(r'name="token" value="([^"]+)"', Path(file_url[7:]).read_text())
        assert found and file_url.startswith("file:///")
        file_token = found.group(1)
        tokens = {printed.split("token=")[1], file_token}
        assert not any(t in file_url for t in tokens)
        for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
            try:
                text = cmdline.read_bytes().decode(errors="replace")
            except OSError:
                continue
            assert not any(t in text for t in tokens), cmdline
        driver = chromium(profile)
        try:
            sign_in(driver, file_url)  # what the browser `reverie ui` opened does
            assert not Path(file_url[7:]).exists()  # the file is gone once used
            sign_in(driver, printed)  # and the printed address, pasted
            driver.get(driver.current_url.replace("/memory", "/timeline"))
        finally:
            driver.quit()  # (writes the history out)
        with sqlite3.connect(profile / "Default" / "History") as db:
            urls = [row[0] for row in db.execute("SELECT url FROM urls")]
        assert any(u.endswith("/timeline") for u in urls), urls  # the history was recorded
        assert not any(file_token in u for u in urls), urls
        pasted = [u for u in urls if "token=" in u]
        assert pasted == [printed], urls
        with pytest.raises(urllib.error.HTTPError) as spent:  # spent, so worthless
            urllib.request.urlopen(printed, timeout=10)
        assert spent.value.code == 403
