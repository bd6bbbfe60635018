"""A session key is one line of valid text, checked once (``reverie.text.safety.unusable_key``)
wherever a key comes in: ``Memory.remember``/``record``/``search_memory``, a new session, history's
appends, the session files, the command line. A NUL, an escape sequence, a tab or newline or a lone
surrogate is refused in one line naming the argument and the character; nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import invoke

import reverie
from reverie.errors import ReverieError

BAD = ["a\x00b", "cli:\x1b[2Jx", "two\nlines", "tab\there", "bidi\u202eevil", "sur\ud800"]


def test_a_bad_session_key_is_refused_everywhere_it_comes_in(tmp_path: Path) -> None:
    with reverie.open(tmp_path / "ws") as memory:
        for key in BAD:
            _refused_everywhere(memory, key)
        assert memory.history() == []
        assert not any((tmp_path / "ws" / "sessions").glob("*.jsonl"))
        memory.remember("I like tea", session_key="cli:alice")  # a good key still works
        assert memory.history()[0].session_key == "cli:alice"


def _refused_everywhere(memory: reverie.Memory, key: str) -> None:
    store = memory.runtime.store
    calls = [
        lambda: memory.remember("I like tea", session_key=key),
        lambda: memory.record(key, [{"role": "user", "content": "hello"}]),
        lambda: memory.search_memory("tea", session_key=key),
        lambda: store.append_history("I like tea", session_key=key),
        lambda: memory.runtime.sessions.get_or_create(key),
    ]
    for call in calls:
        with pytest.raises(ReverieError) as caught:
            call()
        message = str(caught.value)
        assert "\n" not in message and "\x1b" not in message and "\x00" not in message
        assert ("control character" in message) or ("empty" in message) or "UTF-8" in message


def test_the_command_line_refuses_a_key_with_an_escape_in_one_line(tmp_path: Path) -> None:
    ws = str(tmp_path / "ws")
    assert invoke("-w", ws, "init").returncode == 0
    done = invoke("-w", ws, "history", "append", "I like tea", "--session", "cli:\x1b[2J")
    assert done.returncode != 0
    assert done.stderr.count("\n") == 1 and "control character" in done.stderr
    assert "\x1b" not in done.stderr and "Traceback" not in done.stderr
