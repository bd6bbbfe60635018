"""The command router: parsing, dispatch, help, did-you-mean, argument refusal, errors,
registration."""

from __future__ import annotations

import asyncio
from asyncio import run

import pytest

from reverie.chat.commands import Command, CommandContext, CommandRouter, Invocation, parse_command
from reverie.errors import CommandError, GitStoreError
from reverie.memory.runtime import Runtime


@pytest.fixture
def router(workspace) -> CommandRouter:
    return CommandRouter(Runtime(workspace))


def echo_command(name: str = "echo", takes_args: bool = True) -> Command:
    async def handler(inv: Invocation) -> str:
        return f"{inv.name}:{'|'.join(inv.args)}:{inv.context.session_key}"

    return Command(name, handler, "repeat the arguments", f"/{name} WORDS", takes_args=takes_args)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("/help", ("help", "")),
        ("  /help  ", ("help", "")),
        ("/dream-log abc123", ("dream-log", "abc123")),
        ("/dream_log abc123", ("dream-log", "abc123")),
        ("/DREAM", ("dream", "")),
        ("/dream@reverie_bot", ("dream", "")),
        ("/dream-restore@Reverie_Bot 1234abcd --only", ("dream-restore", "1234abcd --only")),
        ("hello /help", None),
        ("/usr/bin is a path", None),
        ("/", None),
        ("", None),
        ("//help", None),
        ("/dream@other_bot", None),
    ],
)
def test_parse_command(text, expected):
    assert parse_command(text, "reverie_bot") == expected


def test_without_a_bot_name_any_addressee_is_accepted():
    assert parse_command("/dream@whoever", None) == ("dream", "")


def test_not_a_command_returns_none(router):
    assert run(router.handle("what did we decide about the database?")) is None
    assert run(router.handle("/etc/passwd please")) is None


def test_help_lists_every_command_with_one_line(router):
    reply = run(router.handle("/help"))
    for command in router.commands():
        assert f"`{command.usage_line()}`" in reply
    assert "/dream-log" in reply and "/dream-restore" in reply
    lines = [l for l in reply.splitlines() if l.startswith("- ")]
    assert len(lines) == len(router.commands())


def test_help_for_one_command(router):
    reply = run(router.handle("/help dream-restore"))
    assert reply.startswith("`/dream-restore [sha] [--only] [--replay]`")
    assert "Did you mean `/dream-log`" in run(router.handle("/help dream-lo"))


def test_unknown_command_suggests_the_closest(router):
    reply = run(router.handle("/dream-lgo"))
    assert "Unknown command `/dream-lgo`" in reply
    assert "Did you mean `/dream-log`?" in reply
    reply = run(router.handle("/zzzzzz"))
    assert "Did you mean" not in reply and "/help" in reply


def test_arguments_to_a_command_that_takes_none(router):
    router.register(echo_command("ping", takes_args=False))
    reply = run(router.handle("/ping now please"))
    assert reply == "`/ping` takes no arguments (got `now please`). Usage: `/ping WORDS`"


def test_registration_api_and_context(router):
    router.register(echo_command())
    reply = run(router.handle('/echo one "two words"', CommandContext(session_key="tg:7")))
    assert reply == "echo:one|two words:tg:7"
    assert "`/echo WORDS` — repeat the arguments" in run(router.handle("/help"))


def test_unbalanced_quote_falls_back_to_plain_words(router):
    router.register(echo_command())
    assert run(router.handle('/echo "open')) == 'echo:"open:cli:direct'


def test_aliases_resolve(router):
    async def handler(inv: Invocation) -> str:
        return "hi"

    router.register(Command("hello", handler, "greet", aliases=("hi",)))
    assert run(router.handle("/hi")) == "hi"
    assert "Did you mean `/hello`" in run(router.handle("/hii"))


def test_errors_become_replies(router, caplog):
    async def misuse(inv: Invocation) -> str:
        raise CommandError("Give a query.")

    async def library(inv: Invocation) -> str:
        raise GitStoreError("the memory repo is locked")

    async def bug(inv: Invocation) -> str:
        raise ZeroDivisionError("boom")

    router.register(Command("misuse", misuse, "x", "/misuse QUERY", takes_args=True))
    router.register(Command("library", library, "x"))
    router.register(Command("bug", bug, "x"))
    assert run(router.handle("/misuse")) == "Give a query.\nUsage: `/misuse QUERY`"
    assert run(router.handle("/library")) == "`/library` failed: the memory repo is locked"
    reply = run(router.handle("/bug"))
    assert "internal error (ZeroDivisionError)" in reply
    assert any("ZeroDivisionError" in (r.exc_text or "") for r in caplog.records)


def test_background_tasks_are_tracked(router):
    done: list[str] = []

    async def main() -> None:
        async def work() -> None:
            await asyncio.sleep(0.01)
            done.append("yes")

        router.spawn(work(), name="job")
        assert router.running("job")
        await router.wait_idle()
        assert not router.running("job")

    run(main())
    assert done == ["yes"]
