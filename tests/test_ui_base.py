"""No blind writes from the UI: an edit form carries the state it loaded (the file's content id and
text), a confirmation the state its diff previewed (``plan_restore``'s base). A change made since on
other lines is merged and kept; on the same lines, nothing is written and the conflict page shows
both sides and lets the person choose. In process (Starlette's TestClient over the real app and a
real workspace); the browser's own two-tab run is in tests/test_ui_browser.py."""

from __future__ import annotations

import re
from html import unescape

from reverie.storage.workspace import content_id
from tests.test_ui import BASE, _csrf, _flash, _head, client, memory  # noqa: F401 (fixtures)


def _fields(page: str, form: str) -> dict[str, str]:
    """The named fields of the form whose ``action`` ends with ``form`` (hidden inputs, the text
    field's value, a text area's text), as a browser would post them."""
    found = re.search(
        rf'<form method="post" action="[^"]*{re.escape(form)}"[^>]*>(.*?)</form>', page, re.S
    )
    assert found, form
    body = found.group(1)
    fields = {
        unescape(n): unescape(v)
        for n, v in re.findall(
            r'<input type="(?:hidden|text)" name="([^"]+)" value="([^"]*)"', body
        )
    }
    for name, text in re.findall(r'<textarea name="([^"]+)"[^>]*>\n?(.*?)</textarea>', body, re.S):
        fields[unescape(name)] = unescape(text)
    return fields


def _edit_form(client, line: int, text: str) -> dict[str, str]:  # noqa: F811
    page = client.get("/memory/edit", params={"path": "USER.md", "line": line, "text": text})
    assert page.status_code == 200, page.text
    return _fields(page.text, "/memory/edit")


def test_the_edit_form_carries_the_state_it_loaded(client, memory) -> None:  # noqa: F811
    fields = _edit_form(client, 6, "- Works at ACME")
    assert fields["base"] == content_id(memory.read("USER.md"))
    assert fields["original"] == "- Works at ACME" and fields["text"] == "- Works at ACME"


def test_an_edit_is_merged_over_a_change_to_other_lines(client, memory) -> None:  # noqa: F811
    fields = _edit_form(client, 6, "- Works at ACME")
    # another tab, an agent: the file moves on before this form is saved, on another line
    memory.write("USER.md", memory.read("USER.md").replace("- Name: Alice", "- Name: Alice Smith"))
    r = client.post("/memory/edit", data={**fields, "text": "- Works at ACME Robotics"})
    assert r.status_code == 303
    text = memory.read("USER.md")
    assert "- Name: Alice Smith\n" in text and "- Works at ACME Robotics\n" in text
    assert "merged with the changes made since you opened it" in _flash(client, "/memory")


def test_an_edit_of_lines_changed_since_shows_both_sides_and_writes_nothing(
    client,  # noqa: F811
    memory,  # noqa: F811
) -> None:
    fields = _edit_form(client, 6, "- Works at ACME")
    memory.write("USER.md", memory.read("USER.md").replace("- Works at ACME", "- Works at Initech"))
    head, now = _head(memory), memory.read("USER.md")
    r = client.post("/memory/edit", data={**fields, "text": "- Works at ACME Robotics"})
    assert r.status_code == 409 and _head(memory) == head and memory.read("USER.md") == now
    page = unescape(r.text)
    assert "USER.md changed since you opened it" in page and "Nothing was written" in page
    now_side = re.search(r'id="side-now">(.*?)</section>', page, re.S).group(1)
    yours_side = re.search(r'id="side-yours">(.*?)</section>', page, re.S).group(1)
    assert re.search(
        r'class="differs"><span class="ln">7</span><span class="code">- Works at Initech', now_side
    )
    assert re.search(
        r'class="differs"><span class="ln">7</span><span class="code">- Works at ACME Robotics',
        yours_side,
    )
    assert 'class=""><span class="ln">5</span><span class="code">- Name: Alice' in yours_side
    # the choice: save a text made from both, from the state the conflict page showed
    resolve = _fields(r.text, "/memory/file")
    assert resolve["base"] == content_id(now) and "- Works at ACME Robotics" in resolve["text"]
    chosen = resolve["text"].replace("- Works at ACME Robotics", "- Works at Initech (was ACME)")
    r = client.post("/memory/file", data={**resolve, "text": chosen.replace("\n", "\r\n")})
    assert r.status_code == 303 and memory.read("USER.md") == chosen


def test_the_resolution_is_itself_made_from_a_state(client, memory) -> None:  # noqa: F811
    """A conflict page left open while the file moves again on the same lines: its save conflicts
    too (a new page, nothing written), never overwrites the newer change."""
    fields = _edit_form(client, 6, "- Works at ACME")
    memory.write("USER.md", memory.read("USER.md").replace("- Works at ACME", "- Works at Initech"))
    resolve = _fields(
        client.post("/memory/edit", data={**fields, "text": "- Works at Globex"}).text,
        "/memory/file",
    )
    memory.write("USER.md", memory.read("USER.md").replace("Initech", "Umbrella"))
    head = _head(memory)
    r = client.post("/memory/file", data=resolve)
    assert r.status_code == 409 and _head(memory) == head
    assert "- Works at Umbrella" in memory.read("USER.md")


def test_a_whole_file_edit_needs_its_base_and_is_merged_over_changes_since(
    client,  # noqa: F811
    memory,  # noqa: F811
) -> None:
    fields = _fields(client.get("/memory/file?path=USER.md").text, "/memory/file")
    assert fields["base"] == content_id(memory.read("USER.md"))
    assert fields["text"] == memory.read("USER.md")  # the text area holds the file exactly
    memory.write("USER.md", memory.read("USER.md") + "- Drinks green tea\n")
    mine = fields["text"].replace("- Lives in Berlin", "- Lives in Hamburg")
    assert client.post("/memory/file", data={**fields, "text": mine}).status_code == 303
    text = memory.read("USER.md")
    assert "- Lives in Hamburg\n" in text and "- Drinks green tea\n" in text
    head = _head(memory)
    blind = {k: v for k, v in fields.items() if k != "base"}
    refused = client.post("/memory/file", data={**blind, "text": "# User\n"})
    assert refused.status_code == 409  # the text typed given back (adapt5)
    assert _head(memory) == head and "does not say which version" in refused.text


def test_a_leading_blank_line_survives_the_text_area(client, memory) -> None:  # noqa: F811
    """HTML drops one newline right after ``<textarea>``: the page writes one, so a file that
    starts with a blank line is posted back unchanged (no edit made by opening and saving)."""
    memory.write("USER.md", "\n" + memory.read("USER.md"))
    head = _head(memory)
    fields = _fields(client.get("/memory/file?path=USER.md").text, "/memory/file")
    assert fields["text"] == memory.read("USER.md")
    client.post("/memory/file", data=fields)
    assert _head(memory) == head and "(no change)" in _flash(client, "/memory")


def test_a_damaged_or_forged_edit_form_writes_nothing(client, memory) -> None:  # noqa: F811
    fields = _edit_form(client, 6, "- Works at ACME")
    head = _head(memory)
    for bad in (
        {"loaded": "not base64!"},
        {"base": content_id("something else")},  # a base the loaded text does not have
        {"line": "5"},  # a line the loaded text does not read so
    ):
        r = client.post("/memory/edit", data={**fields, **bad, "text": "- Works at Evil"})
        assert _head(memory) == head and r.status_code == 409  # the line typed given back
        assert "arrived damaged" in r.text and "- Works at Evil" in r.text


def test_an_edit_form_for_a_line_that_moved_shows_the_file_again(client, memory) -> None:  # noqa: F811
    r = client.get("/memory/edit", params={"path": "USER.md", "line": 5, "text": "- Works at ACME"})
    assert r.status_code == 200 and "changed since the page was loaded" in r.text
    assert 'name="loaded"' not in r.text  # no form to save


# -- confirmations ---------------------------------------------------------------------------------


def _confirm(client, sha: str) -> dict[str, str]:  # noqa: F811
    page = client.get(f"/commit/{sha}/confirm?action=revert")
    assert page.status_code == 200
    return _fields(page.text, f"/commit/{sha}/restore")


def test_a_confirmation_carries_the_state_its_diff_previewed(client, memory) -> None:  # noqa: F811
    dream = memory.log(limit=1, kind="dream")[0].sha
    fields = _confirm(client, dream)
    assert fields["base"] == _head(memory) == memory.plan_restore(dream, only=True).base


def test_an_undo_confirmed_after_a_change_elsewhere_keeps_that_change(
    client,  # noqa: F811
    memory,  # noqa: F811
) -> None:
    """...and the message says it was merged, since the result is not exactly the diff shown."""
    dream = memory.log(limit=1, kind="dream")[0].sha
    fields = _confirm(client, dream)
    memory.write("memory/MEMORY.md", memory.read("memory/MEMORY.md").replace("# Memory", "# Work"))
    r = client.post(f"/commit/{dream}/restore", data=fields)
    assert r.status_code == 303
    text = memory.read("memory/MEMORY.md")
    assert text.startswith("# Work\n") and "Atlas" not in text  # the undo, and the change kept
    assert "merged with the changes made since you previewed it" in _flash(client, "/timeline")


def test_an_undo_confirmed_with_nothing_changed_since_does_not_say_merged(
    client,  # noqa: F811
    memory,  # noqa: F811
) -> None:
    dream = memory.log(limit=1, kind="dream")[0].sha
    assert client.post(f"/commit/{dream}/restore", data=_confirm(client, dream)).status_code == 303
    flash = _flash(client, "/timeline")
    assert f"Undid {dream[:8]} as commit" in flash and "merged" not in flash


def test_an_undo_confirmed_after_a_change_to_its_lines_shows_both_and_writes_nothing(
    client,  # noqa: F811
    memory,  # noqa: F811
) -> None:
    dream = memory.log(limit=1, kind="dream")[0].sha
    fields = _confirm(client, dream)
    memory.write(
        "memory/MEMORY.md", memory.read("memory/MEMORY.md").replace("2027-03-14", "2027-04-01")
    )
    head, now = _head(memory), memory.read("memory/MEMORY.md")
    r = client.post(f"/commit/{dream}/restore", data=fields)
    assert r.status_code == 409 and _head(memory) == head
    assert memory.read("memory/MEMORY.md") == now
    page = unescape(r.text)
    assert "changed since the undo was previewed" in page and "Nothing was written" in page
    assert "- Deadline for Atlas: 2027-04-01" in page  # the file now, beside the undo's result
    again = re.search(r'id="again" href="([^"]+)"', r.text).group(1)
    assert again.endswith(f"/commit/{dream}/confirm?action=revert&amp;replay=0")
    # previewed again from now: this revert no longer applies cleanly, and the page says so
    assert "cannot be done as asked" in client.get(BASE + unescape(again)).text


def test_a_confirmation_without_its_base_does_nothing(client, memory) -> None:  # noqa: F811
    """A posted undo that does not name the state it previewed (a forged or truncated form) is
    refused: the UI never undoes what nobody was shown."""
    dream = memory.log(limit=1, kind="dream")[0].sha
    head = _head(memory)
    r = client.post(f"/commit/{dream}/restore", data={"csrf": _csrf(client), "action": "revert"})
    assert r.status_code == 303 and _head(memory) == head
    assert "does not say which state it previewed" in _flash(client, f"/commit/{dream}")


def test_an_edit_made_from_a_state_no_commit_holds_is_a_conflict_page(
    client,  # noqa: F811
    memory,  # noqa: F811
) -> None:
    """The form loaded a hand edit not committed yet, and the file moved on before the save: there
    is nothing to merge from, so both sides are shown (never a 500, never an overwrite)."""
    user = memory.workspace.root / "USER.md"
    user.write_text(user.read_text() + "- Plays the cello\n")  # by hand: no commit holds it
    fields = _edit_form(client, 6, "- Works at ACME")
    user.write_text(user.read_text().replace("- Name: Alice", "- Name: Alice Smith"))  # by hand
    head, now = _head(memory), memory.read("USER.md")
    r = client.post("/memory/edit", data={**fields, "text": "- Works at Globex"})
    assert r.status_code == 409 and _head(memory) == head and memory.read("USER.md") == now
    assert "- Works at Globex" in unescape(r.text) and "Nothing was written" in r.text


def test_an_edit_from_a_hand_edit_is_merged_once_a_commit_holds_it(
    client,  # noqa: F811
    memory,  # noqa: F811
) -> None:
    """The next write commits a hand edit first (kind ``manual``): an edit form loaded from it then
    merges over that write like any other."""
    user = memory.workspace.root / "USER.md"
    user.write_text(user.read_text() + "- Plays the cello\n")
    fields = _edit_form(client, 6, "- Works at ACME")
    memory.write("USER.md", memory.read("USER.md").replace("- Name: Alice", "- Name: Alice Smith"))
    r = client.post("/memory/edit", data={**fields, "text": "- Works at Globex"})
    assert r.status_code == 303
    text = memory.read("USER.md")
    assert all(
        f"{line}\n" in text
        for line in ("- Plays the cello", "- Name: Alice Smith", "- Works at Globex")
    )


def test_a_conflicts_sides_fold_the_lines_both_have() -> None:
    """A long file with one line changed on each side shows that line, three neighbours each way,
    and a fold saying how many equal lines it hides, numbered as in the file."""
    from reverie.ui.views import sides

    now = [f"- fact {i}" for i in range(1, 101)] + [""]
    yours = list(now)
    now[49], yours[49] = "- fact 50 (theirs)", "- fact 50 (mine)"
    left, right = sides(now, yours)
    assert [n for n, _, _ in left.lines] == [None, 47, 48, 49, 50, 51, 52, 53, None]
    assert left.lines[0][1] == "… 46 lines the same on both sides"
    assert left.lines[-1][1] == "… 47 lines the same on both sides"
    assert [(n, t) for n, t, d in left.lines if d] == [(50, "- fact 50 (theirs)")]
    assert [(n, t) for n, t, d in right.lines if d] == [(50, "- fact 50 (mine)")]
    short_left, _ = sides(["a", "b", "c", ""], ["a", "x", "c", ""])
    assert short_left.lines == ((1, "a", False), (2, "b", True), (3, "c", False))


def test_a_restore_confirmed_after_its_lines_changed_offers_the_same_restore_again(
    client,  # noqa: F811
    memory,  # noqa: F811
) -> None:
    dream = memory.log(limit=1, kind="dream")[0].sha
    page = client.get(f"/commit/{dream}/confirm?action=restore&replay=1")
    fields = _fields(page.text, f"/commit/{dream}/restore")
    assert fields["action"] == "restore" and fields["replay"] == "1"
    memory.write(
        "memory/MEMORY.md", memory.read("memory/MEMORY.md").replace("2027-03-14", "2027-04-01")
    )
    head, cursor = _head(memory), memory.runtime.store.dream_cursor()
    r = client.post(f"/commit/{dream}/restore", data=fields)
    assert r.status_code == 409 and _head(memory) == head
    assert memory.runtime.store.dream_cursor() == cursor  # nor was Dream's cursor moved
    again = unescape(re.search(r'id="again" href="([^"]+)"', r.text).group(1))
    assert again.endswith(f"/commit/{dream}/confirm?action=restore&replay=1")
    fresh = _fields(client.get(BASE + again).text, f"/commit/{dream}/restore")
    assert fresh["base"] == head  # previewed from now: confirming it restores over the new line
    assert client.post(f"/commit/{dream}/restore", data=fresh).status_code == 303
    assert "Atlas" not in memory.read("memory/MEMORY.md")


# -- Review ----------------------------------------------------------------------------------------


def test_approve_and_reject_name_the_soul_proposal_the_page_showed(
    client,  # noqa: F811
    memory,  # noqa: F811
) -> None:
    """Dream widens the pending SOUL.md proposal while Review is open: the page's Approve and
    Reject apply or drop nothing unseen; Review then shows the widened one, whose forms do."""
    page = client.get("/review").text
    approve, reject = _fields(page, "/review/approve"), _fields(page, "/review/reject")
    shown = memory.pending_soul()
    assert approve["change"] == reject["change"] == shown.id
    soul, head = memory.read("SOUL.md"), _head(memory)
    memory.write("SOUL.md", shown.proposed + "- Never use emoji.\n", kind="agent")  # widened
    for form, path in ((approve, "/review/approve"), (reject, "/review/reject")):
        assert client.post(path, data=form).status_code == 303
        assert "not the one shown" in _flash(client, "/timeline")
        assert memory.read("SOUL.md") == soul and _head(memory) == head
    page = client.get("/review").text
    assert "Never use emoji" in page
    fresh = _fields(page, "/review/approve")
    assert client.post("/review/approve", data=fresh).status_code == 303
    assert "- Never use emoji." in memory.read("SOUL.md")
    forged = {k: v for k, v in fresh.items() if k != "change"}
    memory.write("SOUL.md", memory.read("SOUL.md") + "- Be brief.\n", kind="agent")
    head = _head(memory)
    client.post("/review/approve", data=forged)
    assert _head(memory) == head and "does not say which SOUL.md proposal" in _flash(
        client, "/timeline"
    )
