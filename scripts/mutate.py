"""A small mutation check: break a central function on purpose, in a temporary copy, and see whether
its tests notice.

    .venv/bin/python scripts/mutate.py                 # every mutation
    .venv/bin/python scripts/mutate.py gate lifecycle  # only those whose name starts with one of these
    .venv/bin/python scripts/mutate.py --list

Each mutation replaces one exact snippet of one file (it must occur exactly once, so a mutation that
no longer applies fails loudly instead of passing as "caught") and runs the test files named for it
with ``pytest -x``. A mutation that leaves them passing *survives*: the tests do not prove that the
code it broke matters. The copy is ``reverie/``, ``tests/`` and ``pyproject.toml`` in a temporary
directory, imported ahead of the editable install (``PYTHONPATH``), so the working tree is never
touched. Exit code: the number of survivors.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Mutation:
    name: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]


M = Mutation
GATE = (
    "tests/test_gate_archive.py",
    "tests/test_dream_parts.py",
    "tests/test_dream_run.py",
    "tests/test_security_robustness.py",
    "tests/test_memory.py",
)
LIFECYCLE = ("tests/test_dream_lifecycle.py",)
HISTORY = ("tests/test_history.py", "tests/test_history_robustness.py")
SECRETS = ("tests/test_security_secrets.py",)
PATHS = ("tests/test_mcp_paths.py", "tests/test_memory.py", "tests/test_security_paths.py")

MUTATIONS: list[Mutation] = [
    # -- Dream's gate --------------------------------------------------------------------------------------------
    M(
        "gate: no credential check on archive files",
        "reverie/dream/gate.py",
        "            if introduced:\n"
        "                return GateVerdict(\n"
        "                    False,\n"
        "                    f\"an edit to {rel} would introduce a credential ({', '.join(introduced)})\",\n"
        "                )\n"
        "            continue",
        "            continue",
        GATE,
    ),
    M(
        "gate: no credential check on prompt files",
        "reverie/dream/gate.py",
        "        if introduced:\n"
        "            return GateVerdict(\n"
        "                False, f\"an edit to {rel} would introduce a credential ({', '.join(introduced)})\"\n"
        "            )\n"
        "    return GateVerdict(True)",
        "    return GateVerdict(True)",
        GATE,
    ),
    M(
        "gate: half the content may go",
        "reverie/dream/gate.py",
        "if len(new) * 2 < len(judged):",
        "if len(new) * 3 < len(judged):",
        GATE,
    ),
    M(
        "gate: half the lines may go",
        "reverie/dream/gate.py",
        "if new_lines * 2 < old_lines:",
        "if new_lines * 3 < old_lines:",
        GATE,
    ),
    M(
        "gate: no size budget",
        "reverie/dream/gate.py",
        "            and len(new) > limit\n",
        "            and len(new) > 2 * limit\n",
        GATE,
    ),
    M(
        "gate: exactly half the content refused",
        "reverie/dream/gate.py",
        "if len(new) * 2 < len(judged):",
        "if len(new) * 2 <= len(judged):",
        GATE,
    ),
    M(
        "gate: exactly half the lines refused",
        "reverie/dream/gate.py",
        "if new_lines * 2 < old_lines:",
        "if new_lines * 2 <= old_lines:",
        GATE,
    ),
    M(
        "gate: exactly the size budget refused",
        "reverie/dream/gate.py",
        "            and len(new) > limit\n",
        "            and len(new) >= limit\n",
        GATE,
    ),
    M(
        "gate: an over-budget file may grow",
        "reverie/dream/gate.py",
        "            and len(new) > len(old)\n",
        "            and len(new) > len(old) + 1\n",
        GATE,
    ),
    M(
        "gate: control characters allowed",
        "reverie/dream/gate.py",
        "        if introduced_controls:\n",
        "        if False:\n",
        GATE,
    ),
    # -- the lifecycle rules -------------------------------------------------------------------------------------
    M(
        "lifecycle: expiry on the grace day itself",
        "reverie/dream/lifecycle.py",
        "(today - due).days > lc.grace_days",
        "(today - due).days >= lc.grace_days",
        LIFECYCLE,
    ),
    M(
        "lifecycle: no expiry",
        "reverie/dream/lifecycle.py",
        "if due is not None and (today - due).days",
        "if False and (today - due).days",
        LIFECYCLE,
    ),
    M(
        "lifecycle: retired lines not archived",
        "reverie/dream/lifecycle.py",
        "    archive = _archive_texts(retired, archive_texts, today) if archive_enabled else {}",
        "    archive = {}",
        LIFECYCLE,
    ),
    M(
        "lifecycle: pins not protected",
        "reverie/dream/lifecycle.py",
        "return ln.pinned or identity or",
        "return identity or",
        LIFECYCLE,
    ),
    M(
        "lifecycle: identity not protected",
        "reverie/dream/lifecycle.py",
        "identity = rel == USER and bool(_IDENTITY.search(ln.key))",
        "identity = False",
        LIFECYCLE,
    ),
    M(
        "lifecycle: no supersession",
        "reverie/dream/lifecycle.py",
        "    _supersede_slots(rel, lines, drop, when, stamp)\n",
        "",
        LIFECYCLE,
    ),
    # The same step reached only through Dream.run with a model that adds the new line beside the
    # old one (the year test cannot catch it: the offline engine replaces such lines itself).
    M(
        "lifecycle: no supersession, through Dream.run",
        "reverie/dream/lifecycle.py",
        "    _supersede_slots(rel, lines, drop, when, stamp)\n",
        "",
        (
            "tests/test_dream_lifecycle.py::test_dream_run_supersedes_an_older_value_the_model_only_added_beside",
        ),
    ),
    M(
        "lifecycle: no duplicate merge",
        "reverie/dream/lifecycle.py",
        "    _merge_duplicates(rel, lines, drop, when, protected, stamp)\n",
        "",
        LIFECYCLE,
    ),
    # -- history append and recovery ------------------------------------------------------------------------------
    M(
        "history: no torn-tail repair",
        "reverie/storage/history.py",
        "                    self._repair_tail(fd)\n                    cursor",
        "                    cursor",
        HISTORY,
    ),
    M(
        "history: a torn tail is kept, not moved aside",
        "reverie/storage/appendlog.py",
        "    if size - start <= MAX_LINE_BYTES and is_complete(os.pread(fd, size - start, start)):",
        "    if True:",
        HISTORY,
    ),
    M(
        "history: a complete last line is moved aside",
        "reverie/storage/appendlog.py",
        "    if size - start <= MAX_LINE_BYTES and is_complete(os.pread(fd, size - start, start)):",
        "    if False:",
        HISTORY,
    ),
    M(
        "history: cursors reused",
        "reverie/storage/history.py",
        "cursor = self._last_cursor_locked(fd) + 1",
        "cursor = self._log_max(fd) + 1",
        HISTORY,
    ),
    M(
        "history: session key not redacted",
        "reverie/storage/history.py",
        "                session_key = self.redact(\n                    session_key\n                )",
        "                pass",
        HISTORY,
    ),
    # -- the secret scanner ---------------------------------------------------------------------------------------
    M(
        "secrets: no left boundary",
        "reverie/security/secrets.py",
        "    return start == 0 or text[start - 1] not in _TOKEN_NEIGHBOURS",
        "    return True",
        SECRETS,
    ),
    M(
        "secrets: no placeholder rule",
        "reverie/security/secrets.py",
        "    low = value.lower()\n    if low in _PLACEHOLDERS",
        "    return False\n    low = value.lower()\n    if low in _PLACEHOLDERS",
        SECRETS,
    ),
    M(
        "secrets: any sk- body",
        "reverie/security/secrets.py",
        "    return longest_run >= 10 and _mixed(body) and shannon_entropy(body) >= 3.5",
        "    return True",
        SECRETS,
    ),
    M(
        "secrets: no PEM check",
        "reverie/security/secrets.py",
        "    return _BASE64_RUN.search(block) is not None",
        "    return True",
        SECRETS,
    ),
    M(
        "secrets: passwords need no mix",
        "reverie/security/secrets.py",
        "    if not _mixed(value):\n        return None  # cheapest",
        "    if False:\n        return None  # cheapest",
        SECRETS,
    ),
    M(
        "secrets: no URL passwords",
        "reverie/security/secrets.py",
        "        *_url_passwords(text),\n",
        "",
        SECRETS,
    ),
    # -- the MCP (and every front end's) path rules ----------------------------------------------------------------
    M(
        "paths: Memory.read serves any existing file",
        "reverie/memory/core.py",
        "        if rel not in memory_files(self.workspace):",
        "        if False:",
        PATHS,
    ),
    M(
        "paths: hidden folders under memory/ allowed",
        "reverie/memory/core.py",
        '        and not any(p.startswith(".") for p in parts)\n',
        "",
        PATHS,
    ),
    M(
        "paths: any file under memory/, not only .md",
        "reverie/memory/core.py",
        '        and parts[0] == "memory"\n        and rel.endswith(".md")\n',
        '        and parts[0] == "memory"\n',
        PATHS,
    ),
    M(
        "paths: symlinked files listed as memory",
        "reverie/memory/core.py",
        "            if path.is_file() and not path.is_symlink():",
        "            if path.is_file():",
        PATHS,
    ),
    M(
        "paths: the workspace follows a symlink out",
        "reverie/storage/workspace.py",
        '        norm = check_relative(rel)\n        parts = norm.split("/")\n        candidate = self.root.joinpath(*parts)',
        '        norm = check_relative(rel)\n        parts = norm.split("/")\n        return self.root.joinpath(*parts)',
        PATHS,
    ),
]


def _copy(dest: Path) -> None:
    ignore = shutil.ignore_patterns(
        "__pycache__", "*.pyc", ".pytest_cache", ".hypothesis", ".venvs", ".cache"
    )
    for name in ("reverie", "tests", "bench"):
        shutil.copytree(ROOT / name, dest / name, ignore=ignore, symlinks=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, dest / name)
    shutil.copytree(ROOT / "docs", dest / "docs", ignore=ignore)


def run(m: Mutation, python: str) -> tuple[str, float, str]:
    """``caught``/``survived`` (or ``broken``: the snippet is not there once), seconds, the first failure line."""
    with tempfile.TemporaryDirectory(prefix="reverie-mutate-") as tmp:
        dest = Path(tmp)
        _copy(dest)
        target = dest / m.path
        text = target.read_text(encoding="utf-8")
        if text.count(m.old) != 1:
            return "broken", 0.0, f"the snippet occurs {text.count(m.old)} times in {m.path}"
        target.write_text(text.replace(m.old, m.new), encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(dest), "PYTHONDONTWRITEBYTECODE": "1"}
        started = time.perf_counter()
        proc = subprocess.run(
            [
                python,
                "-m",
                "pytest",
                "-x",
                "-q",
                "-p",
                "no:cacheprovider",
                "-m",
                "not slow",
                *m.tests,
            ],
            cwd=dest,
            env=env,
            capture_output=True,
            text=True,
        )
        took = time.perf_counter() - started
        # The copy must be what ran: the editable install would otherwise test the unmutated tree.
        failed = [ln for ln in proc.stdout.splitlines() if ln.startswith(("FAILED", "ERROR"))]
        if proc.returncode == 0:
            return "survived", took, ""
        if proc.returncode in (1,) and failed:
            return "caught", took, failed[0][:160]
        return "broken", took, (proc.stdout.strip().splitlines() or ["?"])[-1][:160]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/mutate.py", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "only", nargs="*", help="run the mutations whose name starts with one of these"
    )
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTATIONS if not args.only or m.name.startswith(tuple(args.only))]
    if args.list:
        print("\n".join(f"{m.name}  ({m.path}; {' '.join(m.tests)})" for m in chosen))
        return 0
    survivors = 0
    for m in chosen:
        verdict, took, detail = run(m, sys.executable)
        survivors += verdict == "survived"
        print(
            f"{verdict:8} {took:6.1f} s  {m.name}" + (f"  — {detail}" if detail else ""), flush=True
        )
    print(f"{len(chosen)} mutations: {survivors} survived")
    return survivors


if __name__ == "__main__":
    sys.exit(main())
