"""``reverie ui`` in a real browser, for every UI browser test: Debian's chromium driven by its
chromedriver through Selenium, against the real command serving on 127.0.0.1.

Importing this module skips the importing test module where chromium, chromedriver or selenium is
missing (``scripts/system-deps`` installs the first two, the test extra the third): a test module
takes selenium's names from here (``By``, ``ec``, ``WebDriverWait``), so nothing imports selenium
before the skip.

- `ui_server`: ``reverie ARGS ui --port 0`` in its own process, the address it prints;
- `chromium`: a headless browser with a profile of its own;
- `sign_in`: open a sign-in address, wait for the memory page; the server's base address;
- `signed_in_browser`: the three for one workspace, the browser's ``ui_base`` set (`go`'s base).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from support.cli import ROOT

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

for program in (CHROMIUM, CHROMEDRIVER):
    if not os.access(program, os.X_OK):
        pytest.skip(
            f"{program} is missing (Debian's chromium and chromium-driver: scripts/system-deps"
            " installs them)",
            allow_module_level=True,
        )
webdriver = pytest.importorskip(
    "selenium.webdriver", reason="selenium (the test extra) is not installed"
)

# (after the skip; a test module takes these from here, so the skip comes first there too)
from selenium.common.exceptions import (  # noqa: E402
    NoSuchElementException,
    StaleElementReferenceException,
)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

__all__ = [
    "SIGN_IN",
    "WAIT",
    "By",
    "NoSuchElementException",
    "StaleElementReferenceException",
    "WebDriverWait",
    "chromium",
    "ec",
    "go",
    "printed",
    "sign_in",
    "signed_in_browser",
    "start_ui",
    "stop",
    "ui_server",
    "webdriver",
]

WAIT = 20  # seconds: an upper bound for the slowest step on a loaded machine, not a sleep
#: What ``reverie ui`` prints for one workspace: the sign-in address (its first group).
SIGN_IN = r"open (http://127\.0\.0\.1:\d+/\?token=\S+)"


def start_ui(args: list[str], home: Path, env_extra: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    """``reverie ARGS ui --port 0 …`` in its own process (its stderr read line by line)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(home), PYTHONPATH=str(ROOT), **(env_extra or {}))
    return subprocess.Popen(
        [sys.executable, "-m", "reverie", *args, "--port", "0"],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=str(ROOT),
    )


def printed(proc: subprocess.Popen[str], pattern: str = r"open (http://\S+)") -> str:
    """The first address ``reverie ui`` prints (its first group of ``pattern``)."""
    assert proc.stderr is not None
    lines = []
    for line in proc.stderr:
        lines.append(line)
        found = re.search(pattern, line)
        if found:
            return found.group(1)
    pytest.fail("reverie ui printed no address:\n" + "".join(lines))


def stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    proc.wait(timeout=30)


@contextmanager
def ui_server(
    args: list[str],
    home: Path,
    pattern: str = SIGN_IN,
    env_extra: dict[str, str] | None = None,
) -> Iterator[str]:
    """`start_ui` with ``args``; the address it prints (``pattern``'s first group). The server is
    stopped on leaving."""
    proc = start_ui(args, home, env_extra)
    try:
        yield printed(proc, pattern)
    finally:
        stop(proc)


def chromium(profile: Path) -> webdriver.Chrome:
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
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = webdriver.ChromeService(executable_path=CHROMEDRIVER)
    return webdriver.Chrome(options=options, service=service)


def sign_in(driver: webdriver.Chrome, url: str) -> str:
    """Open a sign-in ``url`` (a session cookie, then the memory page without the token); the
    signed-in server's base address (``http://host:port/<id>``)."""
    driver.get(url)
    WebDriverWait(driver, WAIT).until(ec.url_matches(r"/[\w-]{22}/memory$"))
    return str(driver.current_url)[: -len("/memory")]


@contextmanager
def signed_in_browser(
    workspace: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[webdriver.Chrome]:
    """``reverie -w WORKSPACE ui --no-browser`` and a browser signed in to it, its ``ui_base`` the
    server's base address; the browser quit, then the server stopped."""
    args = ["-w", str(workspace), "ui", "--no-browser"]
    with ui_server(args, tmp_path_factory.mktemp("home")) as url:
        driver = chromium(tmp_path_factory.mktemp("chromium"))
        try:
            driver.ui_base = sign_in(driver, url)  # type: ignore[attr-defined]
            yield driver
        finally:
            driver.quit()


def go(ui: webdriver.Chrome, path: str) -> None:
    """Open ``path`` (``/memory``, ``/timeline?kind=dream``) on the server ``ui`` signed in to."""
    ui.get(ui.ui_base + path)  # type: ignore[attr-defined]
