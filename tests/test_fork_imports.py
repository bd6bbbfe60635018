"""A program that forks while another of its threads is importing a module (Reverie imports late,
often from the threads a program shares one ``Memory`` between: tenacity in a contended lock's
poll, the model client in Dream). That thread does not exist in the child, so its import never
ends there: the child's next import of the module waited forever (found by a child that ran Dream
after a fork made while the parent's thread waited on the history lock). ``reverie._lazy``
forgets such imports in the child, which imports the module afresh."""

from __future__ import annotations

import importlib
import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

import reverie  # noqa: F401 (registers the fork hook, as any use of Reverie does)

SLOW = """
import os, time
open(os.path.join(os.path.dirname(__file__), "started"), "w").close()
while not os.path.exists(os.path.join(os.path.dirname(__file__), "go")):
    time.sleep(0.005)
VALUE = 42
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_fork_while_another_thread_imports_leaves_the_child_able_to_import_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "reverie_slow_import.py").write_text(SLOW)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "reverie_slow_import", raising=False)
    importer = threading.Thread(target=importlib.import_module, args=("reverie_slow_import",))
    importer.start()
    try:
        while not (tmp_path / "started").exists():
            time.sleep(0.005)
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            code = 3
            try:
                signal.alarm(20)  # the hang this test is about ends the child, not the suite
                (tmp_path / "go").touch()
                code = 0 if importlib.import_module("reverie_slow_import").VALUE == 42 else 1
            finally:
                os._exit(code)
        status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    finally:
        (tmp_path / "go").touch()
        importer.join()
        sys.modules.pop("reverie_slow_import", None)
    assert status == 0, "the child hung on the import the parent's thread had under way"
