"""The order the suite's files go out to pytest-xdist's two workers (``conftest._file_order``): the
heaviest first, then the files run in a peer environment, then the lighter ones, and last the files
whose tests wait for a background check. pytest-xdist's own order (``--loadscope-reorder``, its
default: most tests first) would undo it, so ``pyproject.toml`` turns that off."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import conftest
import pytest
from support import background, peers

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class _Item:  # what _file_order reads of a pytest.Item
    nodeid: str
    marks: dict[str, object] = field(default_factory=dict)

    def get_closest_marker(self, name: str) -> object | None:
        return self.marks.get(name)


def _files(items: list[_Item]) -> list[str]:
    order = conftest._file_order(items)  # type: ignore[arg-type]
    return sorted(order, key=order.__getitem__)


def test_the_heaviest_files_go_first_and_the_waiting_ones_last() -> None:
    heavy, heavier = conftest.HEAVIEST[1], conftest.HEAVIEST[0]
    waiting = next(iter(background.CHECKS.values())).test
    items = [
        *(_Item(f"tests/test_many.py::test_{i}") for i in range(100)),
        _Item(f"tests/{waiting.split('::')[0]}::other"),
        _Item(f"tests/{waiting}"),
        _Item("tests/test_peer.py::test_p", {peers.MARKER: object()}),
        _Item(f"tests/{heavy}.py::test_one"),
        *(_Item(f"tests/test_few.py::test_{i}") for i in range(3)),
        _Item(f"tests/{heavier}.py::test_one"),
    ]
    assert _files(items) == [
        f"tests/{heavier}.py",
        f"tests/{heavy}.py",
        "tests/test_peer.py",
        "tests/test_many.py",  # the lighter files: most tests first
        "tests/test_few.py",
        f"tests/{waiting.split('::')[0]}",
    ]


def test_xdist_keeps_the_order_given() -> None:
    pytest_options = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["pytest"]
    addopts = pytest_options["ini_options"]["addopts"].split()
    assert "--dist" in addopts and addopts[addopts.index("--dist") + 1] == "loadfile"
    assert "--no-loadscope-reorder" in addopts


def test_each_file_named_heaviest_exists() -> None:
    assert len(set(conftest.HEAVIEST)) == len(conftest.HEAVIEST)
    missing = [n for n in conftest.HEAVIEST if not (ROOT / "tests" / f"{n}.py").is_file()]
    assert missing == []


def test_the_files_importing_litellm_or_an_sdk_run_together_first() -> None:
    """One worker imports litellm and each agent SDK for them all (``conftest.IMPORTING_FILES``),
    before the heaviest file."""
    one, other = sorted(conftest.IMPORTING_FILES)[:2]
    items = [
        _Item(f"tests/{conftest.HEAVIEST[0]}.py::test_one"),
        _Item(f"tests/{one}.py::test_one"),
        *(_Item(f"tests/test_many.py::test_{i}") for i in range(100)),
        *(_Item(f"tests/{other}.py::test_{i}") for i in range(2)),
    ]
    assert _files(items) == [
        f"tests/{other}.py",  # the unit's files together, most tests first
        f"tests/{one}.py",
        f"tests/{conftest.HEAVIEST[0]}.py",
        "tests/test_many.py",
    ]


class _LoadFile:
    """A config with the options pytest-xdist's scheduler reads as ``-n 2 --dist loadfile`` gives
    them."""

    OPTIONS = {"dist": "loadfile", "tx": ["popen"] * 2}

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def getoption(self, name: str) -> object:
        return self.OPTIONS[name] if name in self.OPTIONS else self.config.getoption(name)

    getvalue = getoption

    def __getattr__(self, name: str) -> object:
        return getattr(self.config, name)


def test_xdist_sends_the_files_importing_a_library_to_one_worker(
    pytestconfig: pytest.Config,
) -> None:
    sched = conftest.pytest_xdist_make_scheduler(_LoadFile(pytestconfig), None)
    one, other = sorted(conftest.IMPORTING_FILES)[:2]
    unit = sched._split_scope(f"tests/{one}.py::test_a")
    assert sched._split_scope(f"tests/{other}.py::test_b[x]") == unit
    assert sched._split_scope("tests/test_suite_order.py::test_c") == "tests/test_suite_order.py"
    assert unit != f"tests/{one}.py"


def test_each_file_importing_a_library_exists() -> None:
    missing = [n for n in conftest.IMPORTING_FILES if not (ROOT / "tests" / f"{n}.py").is_file()]
    assert missing == []
