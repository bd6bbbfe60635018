"""The peer environments: one virtual environment per release of a project Reverie works beside,
installed only from its hash-locked file.

Two kinds, one mechanism:

- **nanobot-ai** releases (``nanobot-<version>``), which the benchmarks compare against and the
  tests run a real nanobot from;
- **framework** releases (``<dist>-<version>``): the oldest supported release of an agent framework
  whose adapter Reverie ships, when it differs from the newest (which the dev lock pins). Such an
  environment holds Reverie's own dependencies, the framework at that release and pytest; Reverie
  itself runs from the checkout (``PYTHONPATH``), and the adapter's tests run there
  (``tests/test_frameworks_oldest.py``).

``bench/locks/<name>.lock`` pins everything with its hashes, and this module is the one place that
turns a lock into ``bench/.venvs/<name>`` (``pip install --require-hashes --no-deps``), for
``python -m bench --peers``, the benchmarks' peers and the tests alike. An environment is reused
while its ``.installed`` marker holds the digest of its lock and of the Python that made it; a
changed lock, or another Python, rebuilds it. A file lock beside it keeps two processes (a test run
and a benchmark, say) from building the same one at once.

To change a lock, edit ``bench/locks/<name>.in`` (or ``constraints.txt``, which keeps litellm's
compromised releases out whatever a peer comes to depend on) and regenerate it with pip-tools, from
``bench/locks``; a nanobot lock::

    pip-compile --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url \\
        --no-emit-find-links --no-header -o nanobot-<version>.lock nanobot-<version>.in

a framework lock, with Reverie's own requirements and the adapter's extra first::

    pip-compile --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url \\
        --no-emit-find-links --no-header --extra <extra> -o <name>.lock \\
        ../../pyproject.toml <name>.in
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

BENCH_DIR = Path(__file__).resolve().parent
LOCKS = BENCH_DIR / "locks"
VENVS = BENCH_DIR / ".venvs"
#: The nanobot-ai releases every area can compare against, each with a lock in ``bench/locks``.
NANOBOT_VERSIONS = ("0.3.5", "0.1.5.post3")


@dataclass(frozen=True)
class Peer:
    """A release with a peer environment: its distribution, version, a module the environment
    must import, and the name of its lock and environment."""

    dist: str
    version: str
    module: str
    name: str

    @property
    def probe(self) -> str:
        """Prints the release the environment imports (so a half-built one is not taken for
        ready)."""
        return f"import importlib.metadata as m, {self.module}; print(m.version({self.dist!r}))"


def _nanobot(version: str) -> Peer:
    return Peer("nanobot-ai", version, "nanobot.agent.memory", f"nanobot-{version}")


#: Every peer environment (``python -m bench --peers`` builds them all): the nanobot-ai releases,
#: then the oldest supported release of each framework whose adapter's extra allows one older
#: than the dev lock's (tests/test_integrations_boundary.py holds each extra to this).
PEERS: dict[str, Peer] = {
    p.name: p
    for p in (
        *(_nanobot(v) for v in NANOBOT_VERSIONS),
        Peer("openai-agents", "0.20.0", "agents", "openai-agents-0.20.0"),
    )
}


class PeerEnvError(RuntimeError):
    """A peer environment could not be created; the message is one line saying why."""


def peer(name: str) -> Peer:
    """The peer ``name`` (``nanobot-0.3.5``, ``openai-agents-0.20.0``), or a bare version taken as
    nanobot-ai's (``0.3.5``)."""
    return PEERS.get(name) or PEERS.get(f"nanobot-{name}") or _nanobot(name)


def lock_file(name: str) -> Path:
    return LOCKS / f"{peer(name).name}.lock"


def venv_dir(name: str) -> Path:
    return VENVS / peer(name).name


def _python(venv: Path) -> Path:
    return venv / "bin" / "python"


def _base_python() -> str:
    """The interpreter a virtual environment is made from, even when this one runs inside a venv."""
    return getattr(sys, "_base_executable", None) or sys.executable


def digest(lock: Path) -> str:
    """What an environment built from ``lock`` by this Python records: the lock's hash and the
    interpreter."""
    h = hashlib.sha256(lock.read_bytes())
    h.update(f"\n{_base_python()}\n{sys.version}".encode())
    return h.hexdigest()


def ready(name: str, *, lock: Path | None = None, venv: Path | None = None) -> Path | None:
    """The environment's python when it was built from the current lock by this Python, else
    None."""
    lock = lock or lock_file(name)
    venv = venv or venv_dir(name)
    marker = venv / ".installed"
    try:
        recorded = marker.read_text().strip()
        current = digest(lock)
    except OSError:
        return None
    python = _python(venv)
    return python if recorded == current and python.is_file() else None


def ensure(name: str, *, lock: Path | None = None, venv: Path | None = None) -> Path:
    """The python of the peer environment ``name`` (a peer's name, or a nanobot-ai version),
    created from its lock when missing or out of date.

    Raises PeerEnvError (pip's output is kept in ``<venv>.log``) when the registry cannot be
    reached, a hash does not match, or the installed environment does not import the release.
    """
    lock = lock or lock_file(name)
    venv = venv or venv_dir(name)
    if not lock.is_file():
        raise PeerEnvError(f"no lock file {lock}")
    venv.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(venv) + ".lock"):
        python = ready(name, lock=lock, venv=venv)
        if python is not None:
            return python
        return _create(peer(name), lock, venv)


def _outer_pip() -> bool:
    """Whether this interpreter's pip can install into another one (``--python``, pip 22.3 and
    later)."""
    if importlib.util.find_spec("pip") is None:
        return False
    major, minor = (int(part) for part in importlib.metadata.version("pip").split(".")[:2])
    return (major, minor) >= (22, 3)


# : With a recent pip beside this interpreter, the environment gets none of its own (ensurepip takes
# seconds):
#: this pip installs into it with ``--python``.
_OUTER_PIP = _outer_pip()
_VENV_PIP = ["--without-pip"] if _OUTER_PIP else []


def _pip_install(venv: Path, lock: Path) -> list[str]:
    pip = [sys.executable, "-m", "pip", "--python", str(_python(venv))]
    if not _OUTER_PIP:
        pip = [str(_python(venv)), "-m", "pip"]
    return [
        *pip,
        "install",
        "--require-hashes",
        "--no-deps",  # the lock lists every dependency: nothing is resolved at install time
        "--no-compile",  # .pyc files get written on first import, for the modules a peer uses
        "--disable-pip-version-check",
        "--no-input",
        "-q",
        "-r",
        str(lock),
    ]


def _create(release: Peer, lock: Path, venv: Path) -> Path:
    log = Path(str(venv) + ".log")
    (venv / ".installed").unlink(missing_ok=True)
    steps = {
        "python -m venv": [_base_python(), "-m", "venv", "--clear", *_VENV_PIP, str(venv)],
        "pip install": _pip_install(venv, lock),
    }
    with log.open("w") as out:
        for step, cmd in steps.items():
            out.write(f"$ {' '.join(cmd)}\n")
            out.flush()
            done = subprocess.run(
                cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
            if done.returncode != 0:
                raise PeerEnvError(
                    f"{step} for {release.dist} {release.version} exited "
                    f"{done.returncode}: {_last_line(log)} (full output: {log})"
                )
    probe = subprocess.run(
        [str(_python(venv)), "-c", release.probe], capture_output=True, text=True
    )
    found = probe.stdout.strip()
    if probe.returncode != 0 or found != release.version:
        reason = _last(probe.stderr) or f"it has {release.dist} {found}"
        raise PeerEnvError(f"{venv} does not import {release.dist} {release.version}: {reason}")
    (venv / ".installed").write_text(digest(lock) + "\n")
    return _python(venv)


def _last(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _last_line(log: Path) -> str:
    """The last line of pip's output that says what went wrong (pip ends with its error, not a
    summary)."""
    lines = [line.strip() for line in log.read_text(errors="replace").splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR")]
    return (errors or lines or ["no output"])[-1]


def main(argv: list[str] | None = None) -> int:
    """Ensure each environment in turn (default: all), printing one JSON line per name as it is
    ready: ``{"version", "python", "reused", "seconds"}`` or ``{"version", "error", "seconds"}``
    (``version``: the name asked for, a peer's name or a nanobot-ai version).

    The test run calls this in a background process (tests/support/peers.py) and reads the lines as
    they come.
    """
    failed = 0
    for version in argv or list(PEERS):
        t0 = time.monotonic()
        reused = ready(version) is not None
        report: dict[str, object] = {"version": version}
        try:
            report.update(python=str(ensure(version)), reused=reused)
        except PeerEnvError as exc:
            report["error"] = str(exc)
            failed = 1
        report["seconds"] = round(time.monotonic() - t0, 1)
        print(json.dumps(report), flush=True)
    return failed
