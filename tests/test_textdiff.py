"""reverie.text.diff: the line counter is tested with the git store (tests/test_gitstore.py); here,
the kinds of a unified diff's lines, and that the CLI's colours and the web UI's classes both follow
them."""

from __future__ import annotations

from reverie.cli._render import diff_text
from reverie.text.diff import diff_line_kind, diff_line_kinds
from reverie.ui.views import diff_rows

DIFF = """diff --git a/USER.md b/USER.md
index 3b18e51..a9c2d10 100644
--- a/USER.md
+++ b/USER.md
@@ -1,3 +1,3 @@
 # User
--- x
-- Lives in Lisbon
+++ x
+- Lives in Porto
\\ No newline at end of file
diff --git a/memory/MEMORY.md b/memory/MEMORY.md
new file mode 100644
deleted file mode 100644
 plain context
"""

# Per line: (its kind read alone, the CLI's rich style, its kind read in order). A removed "-- x"
# line and an added "++ x" line begin like the "--- "/"+++ " headers: read alone they are headers;
# read in order, inside the hunk whose header counts them, they are the lines they are.
EXPECTED = [
    ("file", "bold", "file"),
    ("meta", "bold", "meta"),
    ("meta", "bold", "meta"),
    ("meta", "bold", "meta"),
    ("hunk", "cyan", "hunk"),
    ("context", "", "context"),
    ("meta", "red", "del"),
    ("del", "red", "del"),
    ("meta", "green", "add"),
    ("add", "green", "add"),
    ("no-newline", "", "no-newline"),  # git shows its marker as context
    ("file", "bold", "file"),
    ("meta", "bold", "meta"),
    ("meta", "bold", "meta"),
    ("context", "", "context"),
]


def test_each_line_of_a_unified_diff_has_one_kind():
    lines = DIFF.splitlines()
    assert [diff_line_kind(line) for line in lines] == [kind for kind, _, _ in EXPECTED]


def test_the_cli_colours_and_the_ui_classes_follow_the_kinds():
    lines = DIFF.splitlines()
    text = diff_text(DIFF)
    styles = [str(span.style) for span in text.spans]
    plain = text.plain.splitlines()
    assert plain == lines
    # rich keeps no span for an unstyled line: rebuild the per-line style from the spans' offsets
    by_start = {span.start: str(span.style) for span in text.spans}
    offsets = [sum(len(ln) + 1 for ln in lines[:i]) for i in range(len(lines))]
    assert [by_start.get(at, "") for at in offsets] == [style for _, style, _ in EXPECTED]
    assert len(styles) == sum(1 for _, style, _ in EXPECTED if style)
    assert diff_line_kinds(lines) == [kind for _, _, kind in EXPECTED]
    shown = [(d.kind, d.text) for d in diff_rows(DIFF) if d.kind in ("add", "del", "context")]
    assert (
        shown
        == [  # the web UI shows the same lines as the same kinds, marks cut off
            (kind, ln[1:])
            for (_, _, kind), ln in zip(EXPECTED, lines)
            if kind in ("add", "del", "context")
        ]
    )
