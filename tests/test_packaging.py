"""Supply-chain guards: no foreign ``.pth`` files, litellm pinned to an allowed release with
hashes."""

from __future__ import annotations

import importlib.metadata as md
import re
import site
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
LOCKS = [ROOT / "requirements.lock", ROOT / "requirements-dev.lock"]
# The releases that carried a credential-stealing ``litellm_init.pth`` (1.82.7, 1.82.8) and the
# 1.107 series.
FORBIDDEN = ["1.82.7", "1.82.8", "1.107.0", "1.107.1", "1.107.5", "1.107.12"]
ALLOWED_PTH = {("setuptools", "distutils-precedence.pth")}


def _site_dirs() -> list[Path]:
    dirs = [Path(p) for p in site.getsitepackages()]
    if site.ENABLE_USER_SITE:
        dirs.append(Path(site.getusersitepackages()))
    return [d for d in dirs if d.is_dir()]


def _owned_pth_files() -> dict[Path, str]:
    """Every ``.pth`` file that an installed distribution's RECORD lists, mapped to the
    distribution's name."""
    owned: dict[Path, str] = {}
    for dist in md.distributions():
        for f in dist.files or []:
            if f.name.endswith(".pth"):
                owned[Path(dist.locate_file(f)).resolve()] = dist.metadata["Name"]
    return owned


def test_no_installed_distribution_other_than_reverie_ships_a_pth_file():
    owned = _owned_pth_files()
    offenders = []
    for path, dist in owned.items():
        name = dist.lower().replace("_", "-")
        if name == "reverie" or (name, path.name) in ALLOWED_PTH:
            continue  # reverie's own editable-install hook is listed in reverie's RECORD
        offenders.append(f"{path} (from {dist})")
    for directory in _site_dirs():
        for path in directory.glob("*.pth"):
            if path.resolve() not in owned:
                offenders.append(f"{path} (no installed distribution's RECORD lists it)")
    assert not offenders, (
        "unexpected .pth files run code at every interpreter start:\n" + "\n".join(offenders)
    )


def test_pth_check_sees_this_environment():
    """Guard against the test above passing vacuously: it must see the distributions and site
    dirs in use."""
    names = {d.metadata["Name"].lower() for d in md.distributions()}
    assert {"reverie", "pytest", "orjson"} <= names
    assert any(Path(sys.prefix).resolve() in d.resolve().parents for d in _site_dirs())


def _lock_entries(path: Path) -> dict[str, tuple[str, list[str]]]:
    """``name -> (version, hashes)`` from a pip-compile style lock file."""
    entries: dict[str, tuple[str, list[str]]] = {}
    current = None
    for line in path.read_text("utf-8").splitlines():
        m = re.match(r"^([A-Za-z0-9_.\-\[\],]+)==([^\s\\;]+)", line)
        if m:
            current = m.group(1).split("[")[0].lower().replace("_", "-")
            entries[current] = (m.group(2), [])
        h = re.search(r"--hash=sha256:([0-9a-f]{64})", line)
        if h and current:
            entries[current][1].append(h.group(1))
    return entries


@pytest.mark.parametrize("lock", LOCKS, ids=lambda p: p.name)
def test_lock_pins_every_package_with_hashes_and_litellm_to_an_allowed_release(lock):
    entries = _lock_entries(lock)
    assert "litellm" in entries, f"{lock.name} does not pin litellm"
    for name, (version, hashes) in entries.items():
        assert hashes, f"{lock.name}: {name}=={version} has no --hash"
    version = Version(entries["litellm"][0])
    assert str(version) not in {"1.82.7", "1.82.8"}
    assert (version.major, version.minor) != (1, 107)
    spec = _pyproject_litellm().specifier
    assert spec.contains(version), f"{lock.name} pins litellm {version}, outside pyproject's {spec}"


def _pyproject_litellm() -> Requirement:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    (req,) = [Requirement(r) for r in project["dependencies"] if Requirement(r).name == "litellm"]
    return req


def test_pyproject_excludes_the_compromised_litellm_releases():
    spec = _pyproject_litellm().specifier
    for bad in FORBIDDEN:
        assert not spec.contains(bad, prereleases=True), f"pyproject allows litellm {bad}"
    assert spec.contains("1.110.2")  # the release the locks pin


def test_dev_lock_is_the_runtime_lock_plus_test_tools():
    runtime, dev = _lock_entries(LOCKS[0]), _lock_entries(LOCKS[1])
    for name, (version, _) in runtime.items():
        assert dev.get(name, (None,))[0] == version, f"{name}: the two locks disagree"
    assert {"pytest", "hypothesis"} <= set(dev)
