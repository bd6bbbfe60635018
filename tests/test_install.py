"""docs/install.md's blocks, run as a user runs them: the release form (``pip install reverie``,
``'reverie[mcp,ui]'``) and the checkout form (the lock with its hashes, then ``--no-deps -e .``).

They download and install packages (a few minutes), so they run only when selected:
``.venv/bin/python -m pytest -m install tests/test_install.py``. No release is on an index here,
so the release form gets one: a wheel built from this checkout, in a folder pip is pointed at with
``PIP_FIND_LINKS`` (as an index would serve it), installed by name with the page's own command.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "install.md"
pytestmark = pytest.mark.install


def _blocks(kind: str) -> list[str]:
    text = PAGE.read_text("utf-8")
    found = re.findall(rf"<!-- install: {kind} -->\n```sh\n(.*?)```", text, re.S)
    assert found, f"docs/install.md has no {kind} block"
    return found


@pytest.fixture(autouse=True)
def _selected(request: pytest.FixtureRequest) -> None:
    if "install" not in (request.config.getoption("-m") or ""):
        pytest.skip("installs packages from the registry: run with -m install")


def _run(script: str, cwd: Path, env: dict[str, str]) -> str:
    proc = subprocess.run(
        ["bash", "-e", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, f"{script}\n--- output ---\n{(proc.stdout + proc.stderr)[-3000:]}"
    return proc.stdout


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(str(ROOT))
    )
    return env | extra


def test_a_release_installs_by_name_with_its_extras(tmp_path: Path) -> None:
    wheels = tmp_path / "index"
    _run(f"{sys.executable} -m pip wheel -q --no-deps -w {wheels} {ROOT}", tmp_path, _env())
    assert [w.name for w in wheels.glob("reverie-*.whl")]
    _run("python3 -m venv venv", tmp_path, _env())
    venv = tmp_path / "venv" / "bin"
    env = _env(PIP_FIND_LINKS=str(wheels), PATH=f"{venv}{os.pathsep}{_env()['PATH']}")
    for block in _blocks("release"):
        _run(block, tmp_path, env)
    out = _run(
        "reverie --version && reverie -w ws init && python -c 'import mcp, starlette, uvicorn'",
        tmp_path,
        env,
    )
    assert out.startswith("reverie ") and "created USER.md" in out


def test_the_checkout_form_installs_the_locked_versions(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    _run(f"git clone -q {ROOT} {clone}", tmp_path, _env())
    (block,) = _blocks("checkout")
    _run(block, clone, _env())
    out = _run(".venv/bin/reverie --version && .venv/bin/pip check", clone, _env())
    assert out.startswith("reverie ")
