"""What the agent reads, exactly (in process; the browser checks what is drawn in
tests/test_ui_browser.py): hidden characters as visible escapes wherever text is shown, Markdown
marks shown as they are, lines not committed yet marked, a badge while a SOUL.md change waits, and
diffs with the words that changed inside a changed line."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import pytest
from support.gitcli import git
from support.ui_app import signed_in

from reverie.text.safety import hidden, visible
from reverie.ui.views import diff_rows, file_lines
from tests.support.ui_workspace import seeded

TOKEN = "t0k3n-" + "t" * 30
PREFIX = "/" + "t" * 22
RLO = "\u202e"
HOSTILE = [
    f"- Role: {RLO}nimda",  # reads "admin" when drawn
    "- Zero\u200bwidth and a tag\U000e0041 char",
    "- Computes 7*7 and **bold** and _under_ and `code`",
    "- Escape \x1b[8mhidden\x1b[0m text",
]


@pytest.fixture
def memory(tmp_path: Path):  # type: ignore[no-untyped-def]
    m = seeded(tmp_path / "ws")
    yield m
    m.close()


@pytest.fixture
def client(memory):  # type: ignore[no-untyped-def]
    with signed_in(memory, TOKEN, PREFIX[1:]) as c:
        yield c


def _outside_attributes(html: str) -> str:
    """The page without its attribute values (a form field carries a line's exact text)."""
    return re.sub(r'="[^"]*"', '=""', html)


def test_hidden_characters_are_escapes_on_every_page_that_shows_them(client, memory) -> None:
    user = memory.read("USER.md") + "\n".join(HOSTILE) + "\n"
    (memory.workspace.root / "USER.md").write_text(user)  # a hand edit: the gate refuses these
    sha = memory.runtime.git.commit(f"manual: add lines {RLO}evil", kind="manual")
    # remember refuses it (Memory.remember: check_stored); history written before, or by another
    # writer, may hold it all the same, and the page shows it escaped
    memory.runtime.store.append_history(f"- [durable] history line {RLO}nimda", "cli:alice")
    talk = memory.runtime.sessions.get_or_create("cli:alice")
    memory.runtime.sessions.append(talk, {"role": "user", "content": f"say {RLO}nimda \ud800"})
    index = user.split("\n").index(HOSTILE[0])
    query = {"path": "USER.md", "line": str(index), "text": HOSTILE[0]}
    pages = {
        "/memory": ["U+202E", "U+200B", "U+E0041", "U+001B"],
        "/timeline": ["U+202E"],  # the commit's subject
        f"/commit/{sha}": ["U+202E", "U+200B"],
        "/history?first=1&last=20": ["U+202E"],
        "/session?key=cli:alice": ["U+202E"],
        "/memory/why?" + "&".join(f"{k}={v}" for k, v in query.items()): ["U+202E"],
        "/memory/file?path=USER.md": ["hidden character"],  # the text area's warning
    }
    for page, escapes in pages.items():
        r = client.get(page, params=query if page.startswith("/memory/edit") else None)
        assert r.status_code == 200, (page, r.text[-500:])
        shown = _outside_attributes(r.text)
        for name in escapes:
            assert name in shown, (page, name)
        if page != "/memory/file?path=USER.md":  # (a text area holds the file's exact text)
            assert not hidden(shown.replace("\n", "")), (page, visible(shown)[:300])
    edit = client.get("/memory/edit", params=query)
    assert "1 hidden character" in edit.text and "U+202E RIGHT-TO-LEFT OVERRIDE" in edit.text
    assert f'name="original" value="- Role: {RLO}nimda"' in edit.text  # round-trips exactly


def test_an_escape_names_the_character_and_emoji_stay_emoji() -> None:
    from reverie.ui.views import shown

    html = str(shown(f"a{RLO}b 👨\u200d👩\u200d👧 ❤\ufe0f"))
    assert 'title="U+202E RIGHT-TO-LEFT OVERRIDE">U+202E</span>' in html
    assert "👨\u200d👩\u200d👧" in html and "❤\ufe0f" in html  # joiners of an emoji are no escape
    assert visible(f"x{RLO}y") == "x\u27e8U+202E\u27e9y"
    lone = str(
        shown("bad \ud800 byte")
    )  # a lone surrogate (invalid UTF-8 read with surrogateescape)
    assert "U+D800" in lone and lone.encode("utf-8")  # would make the response fail to encode


def test_markdown_marks_are_shown_not_interpreted(client, memory) -> None:
    memory.write("USER.md", memory.read("USER.md") + HOSTILE[2] + "\n")
    html = client.get("/memory").text
    line = re.search(
        r'<li id="USER.md-L\d+" class="line item">(?:(?!</li>).)*7\*7.*?</li>', html, re.S
    )
    assert line and "7*7 and **bold** and _under_ and `code`" in unescape(line.group(0))
    assert not re.search(r"<(em|strong|code)>", line.group(0))
    assert ">- Name: Alice<" in html and "># User<" in html  # the marks the agent reads


def test_lines_not_committed_yet_are_marked(client, memory) -> None:
    path = memory.workspace.root / "USER.md"
    path.write_text(path.read_text().replace("- Lives in Berlin", "- Lives in Hamburg"))
    html = client.get("/memory").text
    hamburg = re.search(r'<li id="USER.md-L(\d+)" class="line item([^"]*)">', html)
    marked = re.findall(r'<li id="([^"]+)" class="line [a-z]+[^"]*uncommitted', html)
    assert marked == ["USER.md-L6"], marked
    assert hamburg and "1 line not committed yet" in html
    memory.runtime.git.commit("manual: the hand edit", kind="manual")  # committed now
    assert "uncommitted" not in client.get("/memory").text.split("</header>")[1]


def test_uncommitted_lines_are_the_ones_the_commit_lacks() -> None:
    lines = file_lines("# A\n- x\n- y\n- z\n", "USER.md", "# A\n- x\n- z\n")
    assert [line.raw for line in lines if line.uncommitted] == ["- y"]
    assert all(line.uncommitted for line in file_lines("- a\n", "USER.md", None))
    assert not any(line.uncommitted for line in file_lines("- a\n", "USER.md", "- a\n"))


def test_a_badge_in_the_navigation_while_a_soul_change_waits(client, memory) -> None:
    for page in ("/memory", "/timeline", "/status", "/search?q=x"):
        assert 'id="soul-badge"' in client.get(page).text, page
    memory.approve()
    assert 'id="soul-badge"' not in client.get("/memory").text


def test_a_changed_line_shows_the_words_that_changed(client, memory) -> None:
    text = memory.read("USER.md").replace("- Lives in Berlin", "- Lives in Hamburg")
    sha = memory.write("USER.md", text).commit
    html = client.get(f"/commit/{sha}").text
    assert "<mark>Berlin</mark>" in html and "<mark>Hamburg</mark>" in html
    assert "index " not in html and "+++ b/" not in html  # git's headers: the file's name instead
    assert '<div class="d-file">USER.md</div>' in html


def test_diff_rows_read_a_removed_line_that_looks_like_a_header() -> None:
    rows = diff_rows(
        "diff --git a/M.md b/M.md\n--- a/M.md\n+++ b/M.md\n@@ -1,2 +1,1 @@\n # M\n--- a rule\n"
    )
    assert [(r.kind, r.text) for r in rows] == [
        ("file", "M.md"),
        ("hunk", "line 1"),
        ("context", "# M"),
        ("del", "-- a rule"),
    ]
    assert rows[3].old == 2 and rows[2].new == 1


def test_a_commit_with_no_message_is_named_where_its_message_would_be(client, memory) -> None:
    """Another tool's commit with an empty message (``git commit --allow-empty-message``) was a
    Timeline row whose change was an empty link, a commit page titled by its id alone and a
    confirmation undoing “” (ui9)."""
    root = memory.workspace.root
    (root / "USER.md").write_text(memory.read("USER.md") + "- Likes tea\n")
    who = ("-c", "user.name=Another tool", "-c", "user.email=tool@example.org")
    git(root, *who, "commit", "-q", "--allow-empty-message", "-m", "", "USER.md")
    sha = git(root, "rev-parse", "HEAD").strip()
    timeline = client.get("/timeline").text
    links = re.findall(rf'<a href="[^"]*/commit/{sha}">(.*?)</a>', timeline, re.S)
    assert len(links) == 2 and all(re.sub("<[^>]+>", "", text).strip() for text in links), links
    title = re.search(r"<h1>(.*?)</h1>", client.get(f"/commit/{sha}").text, re.S).group(1)
    assert f"commit {sha[:8]}, which has no message" in title
    confirm = re.sub("<[^>]+>", "", client.get(f"/commit/{sha}/confirm?action=revert").text)
    assert "“”" not in confirm and "which has no message is taken back" in confirm


def test_a_diff_shows_a_line_of_megabytes_cut(client, memory) -> None:
    """A commit holding a 2 MB line (a hand edit committed by another tool) made every diff
    showing it, even as context beside the line that changed, a page the browser took 20 s to
    lay out (ui9). Its rows are cut as a memory line is, the changed words still marked."""
    root = memory.workspace.root
    huge = "- Pasted log: " + "q" * 2_000_000
    (root / "USER.md").write_text(memory.read("USER.md") + huge + "\n- Likes tea\n")
    who = ("-c", "user.name=Another tool", "-c", "user.email=tool@example.org")
    git(root, *who, "commit", "-q", "-m", "paste", "USER.md")
    (root / "USER.md").write_text(memory.read("USER.md").replace(huge, huge + " and more"))
    git(root, *who, "commit", "-q", "-m", "more", "USER.md")
    page = client.get(f"/commit/{git(root, 'rev-parse', 'HEAD').strip()}").text
    assert len(page) < 100_000
    assert page.count(f"… {len(huge) - 4_000:,} more characters not shown here") == 1
    assert page.count(f"… {len(huge) + 9 - 4_000:,} more characters not shown here") == 1
    (root / "USER.md").write_text(memory.read("USER.md").replace("- Likes tea", "- Likes mint tea"))
    git(root, *who, "commit", "-q", "-m", "tea", "USER.md")  # beside it: shown as context
    page = client.get(f"/commit/{git(root, 'rev-parse', 'HEAD').strip()}").text
    assert len(page) < 100_000 and re.search(r"<mark>\s?mint\s?</mark>", page)
    assert page.count("more characters not shown here") == 1


def test_a_range_of_history_past_a_page_goes_on_a_page_at_a_time(client, memory) -> None:
    """The history page shows 500 entries: asked for more (a long batch's "all entries"), it
    showed the first 500 and no way to the rest (ui9)."""
    for i in range(1_200):
        memory.runtime.store.append_history(f"- [durable] fact number {i}", "cli:bob")
    page, seen = "/history?first=1&last=1206", []
    while page:
        html = client.get(page).text
        seen += [int(n) for n in re.findall(r'<li id="c(\d+)"', html)]
        later = re.search(r'rel="next" href="[^"]*(/history\?[^"]+)"', html)
        page = unescape(later.group(1)) if later else ""
    assert seen == list(range(1, 1_207))


def test_a_query_past_what_is_searched_says_what_was_left_out(client) -> None:
    """Search passes Recall a query's first 2,000 characters (``Memory.MAX_QUERY_CHARS``): the
    page showed the whole query, as if searched, and its hits (ui9)."""
    query = "Berlin " + "x" * 3_000
    page = client.get("/search", params={"q": query}).text
    note = re.search(r'<p class="flash error" id="query-cut">(.*?)</p>', page)
    assert note and "first 2,000 characters were searched (1,007 more left out)" in note.group(1)
    assert "Berlin" in re.search(r'<ol class="hits">.*?</ol>', page, re.S).group(0)
    assert 'id="query-cut"' not in client.get("/search", params={"q": "Berlin"}).text
