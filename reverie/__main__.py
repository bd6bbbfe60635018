"""``python -m reverie`` runs the CLI (tests use this to run the CLI without an installed entry
point)."""

from ._start import main

# A tool that walks the package (pdoc, autodoc) imports this module: it must run nothing then.
if __name__ == "__main__":
    raise SystemExit(main())
