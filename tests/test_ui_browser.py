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
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.support.ui_workspace import SCRIPT_LINE, seeded

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

for program in (CHROMIUM, CHROMEDRIVER):
    if not os.access(program, os.X_OK):
        pytest.skip(
            f"{program} is missing (Debian's chromium and chromium-driver: scripts/system-deps installs "
            "them)",
            allow_module_level=True,
        )
webdriver = pytest.importorskip(
    "selenium.webdriver", reason="selenium (the test extra) is not installed"
)

from selenium.common.exceptions import (  # noqa: E402
    NoSuchElementException,
    StaleElementReferenceException,
)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

#: Read at import: the autouse fixture clears REVERIE_* variables before each test.
SHOTS = os.environ.get("REVERIE_UI_SCREENSHOTS")
WAIT = 20  # seconds: an upper bound for the slowest step on a loaded machine, not a sleep


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    memory = seeded(tmp_path_factory.mktemp("ui") / "ws")
    memory.close()
    yield memory.workspace.root


@pytest.fixture(scope="module")
def server(workspace: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``reverie ui --no-browser --port 0`` in its own process; the URL (with its token) it prints."""
    home = tmp_path_factory.mktemp("home")
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(home), PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "reverie",
            "-w",
            str(workspace),
            "ui",
            "--no-browser",
            "--port",
            "0",
        ],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=str(ROOT),
    )
    try:
        assert proc.stderr is not None
        lines = []
        for line in proc.stderr:
            lines.append(line)
            found = re.search(r"open (http://127\.0\.0\.1:\d+/\?token=\S+)", line)
            if found:
                yield found.group(1)
                break
        else:
            pytest.fail("reverie ui printed no address:\n" + "".join(lines))
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-dev-shm-usage",
        "--window-size=1280,1000",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium')}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = webdriver.ChromeService(executable_path=CHROMEDRIVER)
    driver = webdriver.Chrome(options=options, service=service)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def ui(server: str, browser: webdriver.Chrome) -> webdriver.Chrome:
    browser.get(server)  # the token URL: a session cookie, then the page without the token
    WebDriverWait(browser, WAIT).until(ec.url_matches(r"/memory$"))
    browser.ui_base = server.split("/?")[0]  # type: ignore[attr-defined]
    return browser


def _go(ui: webdriver.Chrome, path: str) -> None:
    ui.get(ui.ui_base + path)  # type: ignore[attr-defined]


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
    assert ui.get_cookie("reverie_ui")["sameSite"] == "Strict"


def test_each_screen_loads(ui: webdriver.Chrome) -> None:
    screens = {
        "/memory": "Memory",
        "/timeline": "Timeline",
        "/review": "Review",
        "/search?q=Berlin": "Search",
        "/status": "Status",
    }
    for path, title in screens.items():
        _go(ui, path)
        assert ui.find_element(By.TAG_NAME, "h1").text == title, path
        _shot(ui, path.strip("/").split("?")[0])
    _go(ui, "/search?q=Berlin")
    assert "USER.md line 6" in ui.find_element(By.CSS_SELECTOR, "ol.hits").text
    _go(ui, "/status")
    assert len(ui.find_elements(By.CSS_SELECTOR, "table.budgets progress")) == 3
    errors = [e for e in ui.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors  # no blocked script, no failed request


def test_an_injected_script_line_is_shown_and_inert(ui: webdriver.Chrome) -> None:
    _go(ui, "/memory")
    text = ui.find_element(By.ID, "memory-MEMORY.md").text
    assert SCRIPT_LINE in text  # shown as the text it is
    assert ui.title != "pwned" and ui.execute_script("return document.title") == "Memory · Reverie"
    _go(ui, "/timeline?kind=dream")
    ui.find_element(By.CSS_SELECTOR, "table.timeline tbody tr td a").click()
    assert SCRIPT_LINE in ui.find_element(By.CSS_SELECTOR, "pre.diff").text and ui.title != "pwned"


def test_why_opens_inline_with_the_commit_and_the_entries(ui: webdriver.Chrome) -> None:
    _go(ui, "/memory")
    line = ui.find_element(By.ID, "USER.md-L6")
    line.find_element(By.CSS_SELECTOR, "details.why summary").click()
    body = line.find_element(By.CSS_SELECTOR, ".why-body")
    WebDriverWait(ui, WAIT).until(lambda _: "written by commit" in body.text)
    assert "From history entries 1–3" in body.text and "[durable] Lives in Berlin" in body.text
    _shot(ui, "why")


def test_edit_a_line_and_see_the_commit(ui: webdriver.Chrome, workspace: Path) -> None:
    _go(ui, "/memory")
    ui.find_element(By.ID, "USER.md-L7").find_element(By.LINK_TEXT, "edit").click()
    field = WebDriverWait(ui, WAIT).until(ec.presence_of_element_located((By.NAME, "text")))
    field.clear()
    field.send_keys("- Works at ACME Robotics")
    ui.find_element(By.CSS_SELECTOR, "form.stack button[type=submit]").click()
    message = _flash(ui)
    sha = re.search(r"commit ([0-9a-f]{8})", message)
    assert sha, message
    assert "- Works at ACME Robotics\n" in (workspace / "USER.md").read_text()
    _go(ui, "/timeline")
    first = ui.find_element(By.CSS_SELECTOR, "table.timeline tbody tr")
    assert sha.group(1) in first.text and "manual: edit a line of USER.md" in first.text


def test_approve_the_pending_soul_change(ui: webdriver.Chrome, workspace: Path) -> None:
    _go(ui, "/review")
    assert "Reply in British English" in ui.find_element(By.CSS_SELECTOR, "#soul pre.diff").text
    ui.find_element(By.ID, "approve").click()
    assert "Applied the SOUL.md change" in _flash(ui)
    assert "Reply in British English" in (workspace / "SOUL.md").read_text()
    assert "Nothing is waiting" in ui.find_element(By.ID, "soul").text


def test_undo_a_dream_commit_from_the_timeline(ui: webdriver.Chrome, workspace: Path) -> None:
    assert "Atlas" in (workspace / "memory/MEMORY.md").read_text()
    _go(ui, "/timeline?kind=dream")
    rows = ui.find_elements(By.CSS_SELECTOR, "table.timeline tbody tr")
    target = next(r for r in rows if "MEMORY.md" in r.text and "history 4-6" in r.text)
    target.find_element(By.CSS_SELECTOR, "td a").click()
    _shot(ui, "commit")
    ui.find_element(By.LINK_TEXT, "Undo just this change").click()
    _shot(ui, "confirm")
    preview = ui.find_element(By.CSS_SELECTOR, "pre.diff").text
    assert "-- Deadline for Atlas" in preview and SCRIPT_LINE in preview
    ui.find_element(By.ID, "confirm").click()
    assert "Undid" in _flash(ui)
    text = (workspace / "memory/MEMORY.md").read_text()
    assert "Atlas" not in text and "<script>" not in text
    assert "Works at ACME Robotics" in (workspace / "USER.md").read_text()  # the later edit stays


def test_dream_now_shows_its_run(ui: webdriver.Chrome, workspace: Path) -> None:
    import reverie

    with reverie.open(workspace) as memory:
        memory.remember("- [durable] Has a cat called Miso", session_key="cli:alice")
    _go(ui, "/status")
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
    assert "Miso" in ui.find_element(By.CSS_SELECTOR, "pre.diff").text


# -- a root of scopes ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def root_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``reverie --root DIR ui`` over two users; the URL it prints, on ``localhost`` (cookies are
    kept per host, not per port: this session must not replace the one-workspace server's on
    127.0.0.1)."""
    import reverie
    from reverie.config import Config

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
    home = tmp_path_factory.mktemp("home-root")
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(home), PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "reverie", "--root", str(root), "ui", "--no-browser"]
    proc = subprocess.Popen(
        [*command, "--port", "0"], stderr=subprocess.PIPE, text=True, env=env, cwd=str(ROOT)
    )
    try:
        assert proc.stderr is not None
        lines = []
        for line in proc.stderr:
            lines.append(line)
            found = re.search(r"open http://127\.0\.0\.1(:\d+/\?token=\S+)", line)
            if found:
                yield "http://localhost" + found.group(1)
                break
        else:
            pytest.fail("reverie --root DIR ui printed no address:\n" + "".join(lines))
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_a_root_picks_a_user_and_shows_their_memory(
    browser: webdriver.Chrome, root_server: str
) -> None:
    browser.get(root_server)  # the token URL: a session cookie, then the picker
    WebDriverWait(browser, WAIT).until(ec.url_matches(r"localhost:\d+/$"))
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
