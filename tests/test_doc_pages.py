"""The other half of the docs' pages, run as tests/test_doc_snippets.py says (a file of its own
so that pytest-xdist runs it beside the first half)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_doc_snippets import OTHER_HALF, RUN, Page, run_page


@pytest.mark.parametrize("page", [p for p in RUN if p.name in OTHER_HALF], ids=lambda p: p.name)
def test_page_blocks_run_as_written(page: Page, tmp_path: Path) -> None:
    run_page(page, tmp_path)


def test_every_page_runs_in_one_half_or_the_other() -> None:
    assert OTHER_HALF < {p.name for p in RUN} and "README.md" not in OTHER_HALF
