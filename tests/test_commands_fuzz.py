"""Router fuzzing: any message text — unicode, control characters, NUL, ``/cmd@bot``, huge arguments
— goes into ``CommandRouter.handle`` without raising. A non-command returns None and writes nothing;
a command returns a reply string and never hits the router's internal-error boundary (that would be
a bug in a handler)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reverie.chat.commands import CommandRouter, parse_command
from reverie.memory.runtime import Runtime
from reverie.storage.workspace import Workspace

BOT = "reverie_bot"
FUZZ = settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


def files(root: Path) -> dict[str, tuple[bytes, int]]:
    out = {}
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            p = Path(dirpath) / name
            out[p.relative_to(root).as_posix()] = (p.read_bytes(), p.stat().st_mtime_ns)
    return out


def make_router(tmp_path: Path) -> tuple[CommandRouter, Path]:
    ws = Workspace(tmp_path / "ws")
    ws.init()
    return CommandRouter(Runtime(ws), bot_name=BOT), ws.root


async def _handle(router: CommandRouter, text: str) -> str | None:
    reply = await router.handle(text)
    await router.wait_idle(timeout=30)  # /dream answers at once and finishes in the background
    return reply


# Text with everything hypothesis draws: surrogates excluded only where a str cannot hold them.
any_text = st.text(st.characters(codec="utf-8"), max_size=200) | st.text(
    st.sampled_from(
        [
            "/",
            "@",
            " ",
            "\x00",
            "\n",
            "\t",
            "\r",
            "\u2028",
            "\ufeff",
            "-",
            "_",
            "a",
            "Z",
            "9",
            "é",
            "😀",
            "\u202e",
            "\x1b",
            '"',
            "'",
            "\\",
        ]
    ),
    max_size=60,
)

names = st.sampled_from(
    [
        "help",
        "new",
        "dream",
        "dream-log",
        "dream_log",
        "DREAM-LOG",
        "dream-restore",
        "dream-approve",
        "dream-reject",
        "recall",
        "Recall",
        "helpp",
        "x",
        "-",
        "dream-",
    ]
)
addressee = st.sampled_from(["", f"@{BOT}", "@REVERIE_BOT", "@other_bot", "@", "@@x", "@bot name"])
huge = st.integers(0, 3).map(lambda k: ["", "x" * 10_000, "é\x00" * 5_000, " a" * 10_000][k])
commandish = st.builds(
    lambda n, a, sep, args, big: f"/{n}{a}{sep}{args}{big}",
    names,
    addressee,
    st.sampled_from([" ", "\t", "\n", "", "  "]),
    any_text,
    huge,
)


def test_non_commands_return_none_and_write_nothing(tmp_path: Path) -> None:
    router, root = make_router(tmp_path)

    @FUZZ
    @given(text=any_text)
    def check(text: str) -> None:
        before = files(root)
        reply = asyncio.run(_handle(router, text))
        if "/" not in text:  # an oracle independent of the parser under test: no slash, no command
            assert reply is None and files(root) == before
        if parse_command(text, BOT) is None:
            assert reply is None
            assert files(root) == before
        else:
            assert isinstance(reply, str) and reply and "internal error" not in reply

    check()


def test_command_strings_never_raise(tmp_path: Path) -> None:
    router, root = make_router(tmp_path)

    @FUZZ
    @given(text=commandish)
    def check(text: str) -> None:
        before = files(root)
        reply = asyncio.run(_handle(router, text))
        if "/" not in text:  # an oracle independent of the parser under test: no slash, no command
            assert reply is None and files(root) == before
        if parse_command(text, BOT) is None:  # addressed to another bot, or not a command at all
            assert reply is None and files(root) == before
        else:
            assert isinstance(reply, str) and reply
            assert "internal error" not in reply, reply[:300]
            assert (
                len(reply) < 4_000
            )  # nothing in this workspace is big: only an echo of the input could be

    check()
