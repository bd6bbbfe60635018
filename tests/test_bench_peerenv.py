"""bench/peerenv.py and its locks: a peer environment is installed only from hashes, and rebuilt
when its lock changes; tests/support/peers.py turns a failed build into a failure under CI."""

from __future__ import annotations

import base64
import hashlib
import re
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from support import peers

from bench import peerenv

FORBIDDEN_LITELLM = re.compile(r"^litellm==(1\.82\.7|1\.82\.8|1\.107\.\S+)\s", re.M)


@pytest.mark.parametrize("version", peerenv.NANOBOT_VERSIONS)
def test_each_lock_pins_its_release_and_hashes_every_requirement(version):
    text = peerenv.lock_file(version).read_text()
    pins = re.findall(r"^([A-Za-z0-9._-]+)==(\S+) \\$", text, re.M)
    assert ("nanobot-ai", version) in pins
    assert len(pins) > 20  # nanobot's dependencies are in the lock, not resolved at install time
    requirements = re.split(r"\n(?=[A-Za-z0-9])", text.strip())
    assert len(requirements) == len(pins)
    for requirement in requirements:
        assert "--hash=sha256:" in requirement, requirement.splitlines()[0]
    assert not FORBIDDEN_LITELLM.search(text)
    source = (peerenv.LOCKS / f"nanobot-{version}.in").read_text()
    assert f"nanobot-ai=={version}\n" in source and "-c constraints.txt" in source


def test_the_constraints_keep_the_compromised_litellm_releases_out():
    text = (peerenv.LOCKS / "constraints.txt").read_text()
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    (litellm,) = [Requirement(line) for line in lines if Requirement(line).name == "litellm"]
    for bad in ("1.82.7", "1.82.8", "1.107.0", "1.107.9"):
        assert not litellm.specifier.contains(bad), bad
    assert litellm.specifier.contains("1.106.2")


def _wheel(folder: Path, version: str, body: str) -> Path:
    """A tiny installable nanobot-ai wheel, so the install path runs without the network."""
    files = {
        "nanobot/__init__.py": "",
        "nanobot/agent/__init__.py": "",
        "nanobot/agent/memory.py": body,
        f"nanobot_ai-{version}.dist-info/METADATA": (
            f"Metadata-Version: 2.1\nName: nanobot-ai\nVersion: {version}\n"
        ),
        f"nanobot_ai-{version}.dist-info/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    record = []
    for name, content in files.items():
        raw = hashlib.sha256(content.encode()).digest()
        b64 = base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
        record.append(f"{name},sha256={b64},{len(content.encode())}")
    record.append(f"nanobot_ai-{version}.dist-info/RECORD,,")
    files[f"nanobot_ai-{version}.dist-info/RECORD"] = "\n".join(record) + "\n"
    path = folder / f"nanobot_ai-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for name, content in files.items():
            zf.writestr(name, content)
    return path


def _lock(path: Path, wheels: Path, sha: str) -> Path:
    path.write_text(
        f"--no-index\n--find-links {wheels}\nnanobot-ai==0.0.1 \\\n    --hash=sha256:{sha}\n"
    )
    return path


def test_an_environment_is_built_from_hashes_reused_and_rebuilt_when_its_lock_changes(tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    sha = hashlib.sha256(_wheel(wheels, "0.0.1", "STORE = 1\n").read_bytes()).hexdigest()
    lock = _lock(tmp_path / "nanobot.lock", wheels, sha)
    venv = tmp_path / "venv"

    python = peerenv.ensure("0.0.1", lock=lock, venv=venv)
    assert peerenv.ready("0.0.1", lock=lock, venv=venv) == python
    marker = venv / ".installed"
    assert marker.read_text().strip() == peerenv.digest(lock)
    built = marker.stat().st_mtime_ns
    assert peerenv.ensure("0.0.1", lock=lock, venv=venv) == python
    assert marker.stat().st_mtime_ns == built  # reused, not rebuilt

    _wheel(wheels, "0.0.1", "STORE = 2  # not the wheel the lock was made from\n")
    lock.write_text(lock.read_text() + "# relocked\n")  # a changed lock: rebuild
    assert peerenv.ready("0.0.1", lock=lock, venv=venv) is None
    with pytest.raises(peerenv.PeerEnvError) as failed:
        peerenv.ensure("0.0.1", lock=lock, venv=venv)
    message = str(failed.value)
    assert "\n" not in message and "pip install" in message and "HASH" in message.upper()
    assert not marker.exists()
    assert peerenv.ready("0.0.1", lock=lock, venv=venv) is None


def test_a_failed_build_fails_the_peer_tests_under_ci_and_skips_them_elsewhere(monkeypatch):
    reason = "pip install for nanobot-ai 0.3.5 exited 1:\nERROR: no network"
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception) as failed:
        peers.unavailable(reason)
    assert str(failed.value) == "pip install for nanobot-ai 0.3.5 exited 1: ERROR: no network"
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception) as skipped:
        peers.unavailable(reason)
    assert "ERROR: no network" in str(skipped.value)
