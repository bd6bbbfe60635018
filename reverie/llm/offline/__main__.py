"""``python -m reverie.llm.offline``: rewrite the shipped data lists (``data/``) from their sources
(the test extra)."""

from .kinds import write_lists

if __name__ == "__main__":  # importing this module (pdoc, autodoc) must not rewrite data files
    write_lists()
