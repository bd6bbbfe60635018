"""``python -m reverie.llm.offline``: rewrite the shipped data lists (``data/``) from their sources (the test extra)."""

from .kinds import write_lists

write_lists()
