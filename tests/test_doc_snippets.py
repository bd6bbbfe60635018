"""Every shell and Python block in README.md, CONTRIBUTING.md and docs/*.md runs as written, and
shows the output it claims, so the docs cannot drift from the code.

How a page runs: its ``sh``/``bash`` and ``python`` blocks, in page order, become one bash script
(a Python block is fed to the virtual environment's ``python`` on stdin), run with ``set -e`` in a
scratch folder with HOME in it (so ``~/.reverie/workspace`` is a scratch workspace), the test's
virtual environment first on PATH and linked as ``.venv`` (so ``. .venv/bin/activate`` works), no
Reverie config, model or provider key in the environment (the offline engine answers), and no
network for Python blocks (a connection to anything but loopback raises). One process per page, not
per block: a page is read top to bottom, and later blocks build on earlier ones. Every page but
the README starts where the README's tutorial does after ``reverie init``: with a default workspace.

What a page may say about a block, in an HTML comment on the line before its fence:

- ``<!-- output -->`` before a ``text`` block: it is the output of the block just before it
  (stdout and stderr), compared line by line, blank lines left out. ``…`` inside a line matches
  any text; a line that is only ``…`` matches any lines. What differs from run to run matches
  any other value of its shape: commit ids (7-40 hex digits), ``YYYY-MM-DD HH:MM`` times, token
  counts, durations, "N minutes ago", a temporary folder's name, and the runs of spaces and
  rules that a table's column widths make (``VARIES``); every other character is compared. The
  scratch home folder is shown as ``/home/you``.
- ``<!-- server: N -->``: the block starts something that runs until stopped (a server); it is
  sent SIGINT after N seconds, and must not have exited with an error before then.
- ``<!-- not run: REASON -->``: the block is not executed (it needs what a test machine cannot
  have, such as another program or the package registry); the reason is listed by
  ``test_blocks_not_run_say_why``.

``quickstart:`` blocks are the README's two setup commands: CI runs the test command verbatim
(tests/test_ci.py). ``install:`` blocks (docs/install.md) install packages from the registry:
tests/test_install.py runs them, when selected with ``-m install``.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(
    r"(?:^<!--\s*(?P<note>.*?)\s*-->\n(?:\n)?)?^```(?P<lang>[\w-]*)\n(?P<body>.*?)^```\n?",
    re.S | re.M,
)
SHELL = {"sh", "bash", "shell"}
#: What a page may show in a fence that is neither run nor output (a synopsis, a file's contents).
SHOWN = {"text", "json", "markdown", "toml", "jsonl", "diff", "ini", "yaml", ""}

# Runs before each Python block: refuse every connection that is not to loopback.
NO_NETWORK = """\
import socket as _socket

_connect = _socket.socket.connect

def _local_only(self, address, *args):
    host = address[0] if isinstance(address, tuple) else address
    if isinstance(host, str) and host not in ("127.0.0.1", "::1", "localhost") and not host.startswith("/"):
        raise OSError(f"doc block tried to reach {host!r}: blocks must run offline")
    return _connect(self, address, *args)

_socket.socket.connect = _local_only
del _socket
"""


@dataclass
class Block:
    page: str
    line: int
    lang: str
    body: str
    note: str = ""
    expected: list[str] | None = None  # the output block that follows, if any


@dataclass
class Page:
    name: str
    blocks: list[Block] = field(default_factory=list)

    @property
    def run(self) -> list[Block]:
        return [b for b in self.blocks if _runs(b)]


def _runs(block: Block) -> bool:
    return (block.lang in SHELL or block.lang == "python") and not block.note.startswith(
        ("not run", "quickstart:", "install:")
    )


def _pages() -> list[Page]:
    pages = []
    for path in DOCS:
        if not path.exists():
            continue
        text = path.read_text("utf-8")
        page = Page(str(path.relative_to(ROOT)))
        last_run: Block | None = None
        for m in FENCE.finditer(text):
            line = text.count("\n", 0, m.start("lang")) + 1
            block = Block(page.name, line, m["lang"], m["body"], (m["note"] or "").strip())
            if block.note == "output":
                assert block.lang == "text", f"{page.name}:{line}: an output block is ```text"
                assert last_run is not None, f"{page.name}:{line}: output with no block before it"
                last_run.expected = block.body.splitlines()
                last_run = None
                continue
            page.blocks.append(block)
            if _runs(block):
                last_run = block
        pages.append(page)
    return pages


PAGES = _pages()


def test_every_block_is_run_shown_or_says_why():
    """A fence is a block the suite runs, an output it checks, a file or synopsis shown (``text``,
    ``json``, …), or one marked ``not run`` with a reason: an unlabelled or unknown fence fails."""
    wrong = [
        f"{b.page}:{b.line} ```{b.lang}"
        for p in PAGES
        for b in p.blocks
        if b.lang not in SHELL | SHOWN | {"python"} or b.lang == ""
    ]
    assert not wrong, f"label these fences (sh, python, text, json, …): {wrong}"


def test_blocks_not_run_say_why():
    skipped = [b for p in PAGES for b in p.blocks if b.note.startswith("not run")]
    assert all(len(b.note) > len("not run: ") + 10 for b in skipped), skipped
    assert len(skipped) <= 8, "most blocks must run: " + ", ".join(
        f"{b.page}:{b.line}" for b in skipped
    )


def test_the_blocks_the_docs_rely_on_are_collected():
    """The collector finds the pages that have blocks (so an empty run cannot pass)."""
    pages = {p.name for p in PAGES if p.run}
    assert {
        "README.md",
        "docs/api.md",
        "docs/chat.md",
        "docs/mcp.md",
        "docs/versioning.md",
    } <= pages
    readme = next(p for p in PAGES if p.name == "README.md")
    assert (
        sum(b.expected is not None for b in readme.run) >= 4
    )  # the tutorial's outputs are checked


def _script(page: Page, workdir: Path) -> str:
    parts = ["set -e", "exec 2>&1"]
    if page.name != "README.md" and any(b.lang in SHELL for b in page.run):
        parts.append("reverie init >/dev/null")  # where the README's tutorial leaves a reader
    for n, block in enumerate(page.run):
        parts.append(f"printf '\\n@@block {n}@@\\n'")
        body = block.body
        if block.lang == "python":
            body = f"python - <<'REVERIE_DOC_PY'\n{NO_NETWORK}\n{body}REVERIE_DOC_PY\n"
        if block.note.startswith("server:"):
            seconds = int(block.note.split(":", 1)[1])
            quoted = body.replace("'", "'\\''")
            # SIGINT after N seconds (how a person stops it); SIGKILL 10 s later if it ignored that
            body = f"timeout -k 10 -s INT {seconds} bash -e -c '{quoted}' || [ $? -eq 124 ]\n"
        parts.append(body.rstrip("\n"))
    parts.append("printf '\\n@@block end@@\\n'")
    return "\n".join(parts) + "\n"


#: A commit id: 7-40 hex digits with a letter and a digit, or a short id (8 or 12) that drew digits
#: only (about one in 40 does, so a page showing six ids failed one run in seven) or letters only
#: (one in 2,500: CI failed on ``dbeaadab``).
HEX = re.compile(
    r"\b(?:(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}|[0-9a-f]{8}|[0-9a-f]{12})\b"
)
TIME = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d)?(\.\d+)?([+-]\d\d:\d\d|Z)?")


#: What differs between two runs of one block, each shape replaced by one placeholder on both
#: sides (the words around it are still compared): a model's token counts, a duration, a time
#: relative to now, a temporary folder's random name, and the width of a table's columns and rules
#: (they follow the longest cell, which holds an id or a time).
VARIES = [
    (re.compile(r"\b\d[\d,]*(?:\+\d[\d,]*)? tokens\b"), "<n> tokens"),
    (re.compile(r"\b\d+(?:\.\d+)? ?(?:ms|s)\b"), "<duration>"),
    (re.compile(r"\b\d+ (?:second|minute|hour|day)s? ago\b"), "<ago>"),
    (re.compile(r"(/tmp|/var/tmp)/[^\s/:'\"]+"), r"\1/<temp>"),
    (re.compile(r"[─━═]{2,}|-{3,}|={3,}"), "───"),
    (re.compile(r"\s+"), " "),
]


def _norm(line: str) -> str:
    line = TIME.sub("<time>", HEX.sub("<sha>", line.strip()))
    for shape, placeholder in VARIES:
        line = shape.sub(placeholder, line)
    return line


@pytest.mark.parametrize("sha", ["751d79c6", "dbeaadab", "12345678", "3f2a9c1d0b7e", "abcdef123"])
def test_any_short_commit_id_matches_the_one_shown(sha):
    """A page shows one commit id; a run draws another, digits only or letters only included."""
    assert _matches([f"{sha}  dream  x"], ["92a95a8e  dream  x"])
    assert _matches(["92a95a8e  dream  x"], [f"{sha}  dream  x"])
    assert not _matches(["92a95a8e  dream  x"], ["deferred  dream  x"])


def _matches(expected: list[str], actual: list[str]) -> bool:
    """``expected`` matches ``actual`` line by line; ``…`` alone on a line matches any lines."""
    if not expected:
        return not actual
    head = _norm(expected[0])
    if head == "…":
        return any(_matches(expected[1:], actual[i:]) for i in range(len(actual) + 1))
    if not actual:
        return False
    pattern = ".*".join(re.escape(part) for part in head.split("…"))
    return bool(re.fullmatch(pattern, _norm(actual[0]))) and _matches(expected[1:], actual[1:])


def _env(home: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("REVERIE_", "OPENAI_", "ANTHROPIC_", "VIRTUAL_ENV"))
    }
    env.update(
        HOME=str(home),
        REVERIE_HOME=str(home / ".reverie"),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        PYTHONDONTWRITEBYTECODE="1",
        NO_COLOR="1",
        COLUMNS="200",
        PYTHONPATH=str(ROOT),
    )
    return env


RUN = [p for p in PAGES if p.run]
#: The pages tests/test_doc_pages.py runs: half of them, so pytest-xdist (one file, one worker)
#: runs the two halves at once.
OTHER_HALF = {p.name for i, p in enumerate(RUN) if i % 2}


@pytest.mark.parametrize("page", [p for p in RUN if p.name not in OTHER_HALF], ids=lambda p: p.name)
def test_page_blocks_run_as_written(page: Page, tmp_path: Path) -> None:
    run_page(page, tmp_path)


def run_page(page: Page, tmp_path: Path) -> None:
    """Run ``page``'s blocks as one script and check the outputs it shows."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".venv").symlink_to(Path(sys.prefix))
    script = tmp_path / "page.sh"
    script.write_text(_script(page, home), "utf-8")
    # A session of its own: whatever a block started (a server) goes with it, even on a timeout.
    proc = subprocess.Popen(
        ["bash", str(script)],
        cwd=home,
        env=_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        stdout, _ = proc.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, _ = proc.communicate()
        pytest.fail(f"{page.name} still running after 240 s; it printed:\n{stdout[-3000:]}")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    outputs = re.split(r"^\n?@@block (\d+|end)@@\n", "\n" + stdout, flags=re.M)
    ran = dict(zip(outputs[1::2], outputs[2::2], strict=True))
    blocks = page.run
    if "end" not in ran:
        last = int(max((k for k in ran if k != "end"), key=int, default="0"))
        block = blocks[last]
        pytest.fail(
            f"{block.page}:{block.line} failed (exit {proc.returncode}):\n{block.body}\n"
            f"--- its output ---\n{ran.get(str(last), '')[-3000:]}"
        )
    for n, block in enumerate(blocks):
        if block.expected is None:
            continue
        printed = ran[str(n)].replace(str(home), "/home/you")
        actual = [line for line in printed.splitlines() if line.strip()]
        expected = [line for line in block.expected if line.strip()]
        assert _matches(expected, actual), (
            f"{block.page}:{block.line}: the output shown is not what runs:\n--- shown ---\n"
            + "\n".join(expected)
            + "\n--- printed ---\n"
            + "\n".join(actual)
        )


@pytest.mark.parametrize("doc", ["docs/commands.md"])
def test_command_list_names_every_command(doc):
    """The command block under "## Commands" names every command the CLI has (reverie.cli.COMMANDS)."""
    from reverie.cli import COMMANDS

    text = (ROOT / doc).read_text("utf-8")
    block = re.search(r"^## Commands\n.*?^```\w*\n(.*?)^```", text, re.S | re.M).group(1)
    listed = set(re.findall(r"^\s{2}(\w[\w-]*)", block, re.M)) | set(
        re.findall(r"/ (\w[\w-]*)", block)
    )
    missing = [name for name, _, _ in COMMANDS if name not in listed]
    assert not missing, f"{doc}'s command list lacks {missing}"


def _anchors(text: str) -> set[str]:
    """The anchors GitHub gives a page's headings (outside code fences)."""
    found, fence = set(), False
    for line in text.splitlines():
        fence ^= line.startswith("```")
        if not fence and re.match(r"#{1,6} ", line):
            heading = re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower())
            found.add(heading.replace(" ", "-"))
    return found


def test_relative_links_point_at_files_and_headings_that_exist():
    """A page moved, split or renamed cannot leave a dangling link (or ``#anchor``) in README.md,
    CONTRIBUTING.md or docs/."""
    dangling = []
    for path in DOCS:
        if not path.exists():
            continue
        for m in re.finditer(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)", path.read_text("utf-8")):
            target, anchor = m.group(1), m.group(2)
            if "://" in target or not (target or anchor):
                continue
            file = path.parent / target if target else path
            if not file.exists():
                dangling.append(f"{path.relative_to(ROOT)} → {target}")
            elif (
                anchor and file.suffix == ".md" and anchor not in _anchors(file.read_text("utf-8"))
            ):
                dangling.append(f"{path.relative_to(ROOT)} → {target}#{anchor}")
    assert not dangling


#: Pages still over the limit (issue 40 split the last ones): none.
NOT_YET_SPLIT: set[str] = set()
GENERATED = {"docs/cli.md", "docs/config.md"}


def test_no_page_is_over_1500_words():
    """A page a person reads in one go: 1,500 words at most (the generated references aside)."""
    long = {
        str(path.relative_to(ROOT)): len(path.read_text("utf-8").split())
        for path in DOCS
        if path.exists()
    }
    over = {page: n for page, n in long.items() if n > 1500 and page not in GENERATED}
    assert set(over) <= NOT_YET_SPLIT, f"split or cut: {over}"


#: How wide a line of prose is: 115 characters (code blocks, tables, headings, HTML comments and a
#: line that is one unbreakable word are not prose to wrap), filled up to it: a line is not broken
#: while the next word fits with 30 characters to spare.
PROSE_WIDTH, EARLY_BREAK = 115, 85
#: Pages not yet wrapped to the width (each must exist; drop its entry once wrapped): none.
NOT_YET_WRAPPED: set[str] = set()
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+")


def _badly_wrapped(text: str) -> list[tuple[int, str]]:
    """The lines of ``text`` (1-based) over the width, or broken early, with why."""
    found, fence = [], False
    lines = text.split("\n")

    def prose(line: str) -> bool:
        return bool(line.strip()) and not line.lstrip().startswith(("#", "|", "<!--", "```"))

    for n, line in enumerate(lines):
        if line.startswith("```"):
            fence = not fence
        if fence or not prose(line):
            continue
        lead = (
            len(LIST_ITEM.match(line)[0])
            if LIST_ITEM.match(line)
            else len(line) - len(line.lstrip())
        )
        if len(line) > PROSE_WIDTH and " " in line[lead : PROSE_WIDTH + 1]:
            found.append((n + 1, f"{len(line)} characters"))
        after = lines[n + 1] if n + 1 < len(lines) else ""
        if prose(after) and not LIST_ITEM.match(after) and not after.startswith("```"):
            if len(line) + 1 + len(after.split()[0]) <= EARLY_BREAK:
                found.append((n + 1, f"broken early ({len(line)} characters)"))
    return found


def test_prose_lines_wrap_at_115_characters():
    """Every page's prose is wrapped alike: no line over 115 characters, none broken early (a
    paragraph is rewrapped whole when a change makes one of its lines too long)."""
    bad = [
        f"{path.relative_to(ROOT)}:{n}: {why}"
        for path in DOCS
        if str(path.relative_to(ROOT)) not in GENERATED | NOT_YET_WRAPPED
        for n, why in _badly_wrapped(path.read_text("utf-8"))
    ]
    assert not bad, (
        "rewrap these paragraphs (`.venv/bin/python tests/test_doc_snippets.py PAGE ...` does):\n"
        + "\n".join(bad)
    )
    assert all((ROOT / page).exists() for page in NOT_YET_WRAPPED), "a page left: drop its entry"


def test_the_wrap_check_finds_what_it_looks_for():
    word = "word "
    assert _badly_wrapped(word * 24) == [(1, "120 characters")]
    assert _badly_wrapped("- " + word * 10 + "\n  more words") == [
        (1, "broken early (52 characters)")
    ]
    assert not _badly_wrapped("- " + word * 10 + "\n- a new item")
    assert not _badly_wrapped("```\n" + word * 40 + "\n```\n| " + word * 40 + "|")
    assert not _badly_wrapped("  `tests/test_x.py::" + "x" * 120 + "`,")
    assert not _badly_wrapped(word * 22 + "\n" + word * 3)


def rewrap(text: str) -> str:
    """``text`` with each paragraph or list item that ``_badly_wrapped`` finds filled again to the
    width (its words unchanged; a line never starts with what would make it a list item or a
    heading); every other line as it was."""
    import textwrap

    out: list[str] = []
    item: list[str] = []

    def flush() -> None:
        if item and _badly_wrapped("\n".join(item)):
            marker = LIST_ITEM.match(item[0])
            lead = marker[0] if marker else item[0][: len(item[0]) - len(item[0].lstrip())]
            indent = " " * len(lead) if marker else lead
            words = " ".join(line.strip() for line in item)[len(lead.strip()) if marker else 0 :]
            for width in range(PROSE_WIDTH, 60, -1):
                lines = textwrap.wrap(
                    words.strip(),
                    width,
                    initial_indent=lead,
                    subsequent_indent=indent,
                    break_long_words=False,
                    break_on_hyphens=False,
                )
                starts = [line[len(indent) :] for line in lines[1:]]
                if not any(LIST_ITEM.match(x) or x.startswith(("#", "|", "<!--")) for x in starts):
                    break
            out.extend(lines)
        else:
            out.extend(item)
        item.clear()

    fence = False
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
        prose = (
            not fence and line.strip() and not line.lstrip().startswith(("#", "|", "<!--", "```"))
        )
        if not prose or LIST_ITEM.match(line):
            flush()
        if prose:
            item.append(line)
        else:
            out.append(line)
    flush()
    return "\n".join(out)


def test_rewrap_fills_a_paragraph_and_keeps_its_words():
    text = "- " + "word " * 30 + "\n  end\n\n```\n" + "x " * 80 + "\n```\n- short\n"
    wrapped = rewrap(text)
    assert wrapped.split() == text.split() and not _badly_wrapped(wrapped)
    assert wrapped.splitlines()[1].startswith("  word") and "x " * 80 in wrapped


def test_no_sentence_is_said_on_two_pages():
    """One place per fact: a sentence of 15 words or more appears on one page only (a page links
    to the other instead), code blocks and the generated references aside."""
    said: dict[str, set[str]] = {}
    for path in DOCS:
        name = str(path.relative_to(ROOT))
        if not path.exists() or name in GENERATED:
            continue
        text = re.sub(r"```.*?```", "", path.read_text("utf-8"), flags=re.S)
        for sentence in re.split(r"(?<=[.!?])\s+", " ".join(text.split())):
            if len(sentence.split()) >= 15:
                said.setdefault(sentence, set()).add(name)
    twice = {s[:80]: sorted(pages) for s, pages in said.items() if len(pages) > 1}
    assert not twice, twice


def test_the_output_check_fails_on_output_that_differs():
    """The matcher the pages rely on: a wildcard matches, anything else must be equal (so a page
    cannot pass with an output it does not print)."""
    assert _matches(
        ["commit  751d79c6  (undo)", "…", "done"], ["commit  0a1b2c3d  (undo)", "x", "done"]
    )
    assert _matches(["open http://127.0.0.1:…/?token=…"], ["open http://127.0.0.1:4242/?token=abc"])
    assert _matches(["2026-11-28 08:52  dream"], ["2027-01-04 10:00  dream"])
    assert _matches(["restored as 8d8555a1: USER.md"], ["restored as 55848287: USER.md"])
    assert not _matches(["- Lives in Lisbon"], ["- Lives in Porto"])
    assert not _matches(["ok"], ["ok", "and more"])
    assert not _matches(["ok", "more"], ["ok"])
    assert not _matches(["status  ok"], ["status  failed"])


#: A test function's name (a test file's, ``tests/test_x.py``, is a place a page may point to).
TEST_FUNCTION = re.compile(r"\btest_\w+\b(?!\.py)")
#: Where a test's name belongs: the guarantees pages (each promise with the test that shows it) and
#: the contributors' guide.
NAMES_TESTS = re.compile(r"^(?:docs/(?:\w+-)?guarantees(?:-\w+)?\.md|CONTRIBUTING\.md)$")


def test_test_names_are_on_the_guarantees_pages_only():
    """A page is for a person using Reverie: the test behind a promise is named on a guarantees page
    (which the page links), never in its prose; and every test a page names exists."""
    defined = set(
        re.findall(
            r"^\s*(?:async )?def (test_\w+)\(",
            "\n".join(p.read_text("utf-8") for p in (ROOT / "tests").rglob("test_*.py")),
            re.M,
        )
    )
    misplaced, missing = [], []
    for path in DOCS:
        name = str(path.relative_to(ROOT))
        text = re.sub(r"```.*?```", "", path.read_text("utf-8"), flags=re.S)
        for test in TEST_FUNCTION.findall(text):
            if not NAMES_TESTS.match(name):
                misplaced.append(f"{name}: {test}")
            elif test not in defined:
                missing.append(f"{name}: {test}")
    assert not misplaced, f"move these to a guarantees page: {misplaced}"
    assert not missing, f"no such test: {missing}"
    assert NAMES_TESTS.match("docs/scale-guarantees.md") and not NAMES_TESTS.match("docs/ui.md")
    assert TEST_FUNCTION.findall("`tests/test_ui.py::test_no_action_on_get`") == [
        "test_no_action_on_get"
    ]


@pytest.mark.parametrize(
    ("shown", "printed"),
    [
        (
            "usage   2 turns, 4 tool calls, 3,491+235 tokens",
            "usage   2 turns, 4 tool calls, 912+40 tokens",
        ),
        ("Done in 1.1 s (3 ms a batch)", "Done in 12.43 s (250 ms a batch)"),
        ("last run 2 minutes ago", "last run 1 hour ago"),
        ("demo workspace: /tmp/reverie-demo-k2x9/ws", "demo workspace: /tmp/reverie-demo-0qa1/ws"),
        ("a1b2c3d4  dream  x  y", "a1b2c3d4  dream    x  y"),
        ("─────────  ──", "───────────────  ────"),
    ],
)
def test_what_varies_between_runs_matches(shown: str, printed: str) -> None:
    assert _matches([shown], [printed])


@pytest.mark.parametrize(
    ("shown", "printed"),
    [
        (
            "usage   2 turns, 4 tool calls, 3,491+235 tokens",
            "usage   3 turns, 4 tool calls, 3,491+235 tokens",
        ),
        ("usage 3,491+235 tokens (reverie/offline)", "usage 3,491+235 tokens (openai/gpt-4o)"),
        ("Done in 1.1 s", "Failed in 1.1 s"),
        (
            "demo workspace: /tmp/reverie-demo-k2x9/ws",
            "demo workspace: /tmp/reverie-demo-k2x9/other",
        ),
        ("a1b2c3d4  dream  USER.md +5 -0", "a1b2c3d4  dream  USER.md +4 -0"),
        ("files   USER.md +5 -0", "files   USER.md +5 -0, MEMORY.md +1 -0"),
        ("entries 1–1", "entries 1–2"),
        ("- Deadline for beta: 2027-03-14", "- Deadline for beta: 2027-03-15"),
    ],
)
def test_what_a_run_really_changed_does_not_match(shown: str, printed: str) -> None:
    assert not _matches([shown], [printed])


#: A dotted ``reverie.…`` name in backticks (a module, or a name in one) and a source path.
DOTTED_NAME = re.compile(r"`(reverie(?:\.\w+)+)")
SOURCE_PATH = re.compile(r"`((?:reverie|tests|bench|scripts|examples)/[\w./-]*)")
#: Names of that shape that are not Python: the config file, the offline engine's model name, and
#: the fleet's Celery task (``reverie.fleet.app.TASK``).
NOT_PYTHON = {"reverie.json", "reverie/offline", "reverie.fleet.dream"}


def _resolve(dotted: str) -> None:
    """Find ``dotted``: a module's source file, then each further name defined at the top of it
    (read, not imported: the framework adapters import their frameworks, seconds each); a name
    it does not define plainly (a lazy export, a class attribute) is imported and looked up."""
    import ast
    import importlib
    import importlib.util

    parts = dotted.split(".")
    spec, i = importlib.util.find_spec(parts[0]), 1
    while spec and spec.submodule_search_locations is not None and i < len(parts):
        deeper = importlib.util.find_spec(".".join(parts[: i + 1]))  # imports packages only
        if deeper is None:
            break
        spec, i = deeper, i + 1
    if spec is not None and spec.origin is not None:
        module, rest = ".".join(parts[:i]), parts[i:]
        if len(rest) == 1:
            tree = ast.parse(Path(spec.origin).read_text("utf-8"))
            defined = {
                node.name
                for node in tree.body
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            } | {
                target.id
                for node in tree.body
                if isinstance(node, (ast.Assign, ast.AnnAssign))
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                if isinstance(target, ast.Name)
            }
            if rest[0] in defined:
                return
        obj = importlib.import_module(module)
        for name in rest:
            obj = getattr(obj, name)
        return
    raise ImportError(f"no module of {dotted}")


def test_every_module_path_and_source_file_a_page_names_exists():
    """Modules move (``reverie.activity`` into ``llm/``, a package split): a page naming a dotted
    ``reverie.…`` name or a ``reverie/…`` (``tests/``, ``bench/``, ``scripts/``, ``examples/``) path
    names one that exists, so a move updates the docs with it."""
    from reverie.fleet.app import TASK

    assert TASK in NOT_PYTHON
    dangling, checked = [], 0
    missing: list[tuple[str, str]] = []
    for path in DOCS:
        text = path.read_text("utf-8")
        page = str(path.relative_to(ROOT))
        for dotted in sorted(set(DOTTED_NAME.findall(text)) - NOT_PYTHON):
            checked += 1
            try:
                _resolve(dotted)
            except (ImportError, AttributeError) as exc:
                dangling.append(f"{page}: {dotted} ({exc})")
        for source in sorted(set(SOURCE_PATH.findall(text)) - NOT_PYTHON):
            checked += 1
            if not (ROOT / source.rstrip(".")).exists():
                missing.append((page, source))
    # what a command builds where git ignores it (bench/.venvs/…) is not in a fresh clone
    built = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"],
        input="\n".join(source for _, source in missing),
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    ).stdout.split()
    dangling += [f"{page}: {source}" for page, source in missing if source not in built]
    assert not dangling, "\n".join(dangling)
    assert checked > 200
    for moved in ("reverie.no_such_module", "reverie.memory.NoSuchName"):
        with pytest.raises((ImportError, AttributeError)):
            _resolve(moved)


if __name__ == "__main__":  # rewrap the pages named: python tests/test_doc_snippets.py PAGE ...
    for name in sys.argv[1:]:
        page = Path(name)
        page.write_text(rewrap(page.read_text("utf-8")), "utf-8")
