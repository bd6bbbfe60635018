"""``python -m reverie`` runs the CLI (tests use this to run the CLI without an installed entry point)."""

from .cli import main

raise SystemExit(main())
