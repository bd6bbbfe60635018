"""The offline engine (``reverie/offline``): a deterministic rule-based stand-in for a model, one
module per job.

- ``engine``: the tasks of the prompt protocol (archive, Dream's analysis and edit turn, summaries,
  flushes);
- ``rules``: what a user's sentence says about them, in canonical fact templates (a package: one
  module per kind of fact and per stage);
- ``framing``: which clauses of a message are the user's own present statements;
- ``kinds``: value kinds checked against real data (``data/``: GeoNames and ISO 3166 places by every
  Latin name, Faker given names, lemminflect nouns, pycountry languages);
- ``dates``: what day a relative date phrase means.

Importing the package reads no data table (each loads on first use); docs/offline-engine.md
describes the engine and links its reference pages.
"""

from .engine import OFFLINE_REPLY, respond

__all__ = ["OFFLINE_REPLY", "respond"]
