"""Reverie's benchmarks: one entry point, one module per area, each figure a ratio against a peer
run in the same run.

Run (from the repository root, in the project's virtual environment)::

    .venv/bin/python -m bench                 # every area, full sizes
    .venv/bin/python -m bench --quick         # every area, small sizes and fewer repetitions
    .venv/bin/python -m bench history cli     # only these areas
    .venv/bin/python -m bench --list          # the areas found
    .venv/bin/python -m bench --peers         # only create the nanobot-ai venvs (bench/peerenv.py)

Benchmarks are never timed tests: pytest does not run them. Results go to stdout as a Markdown table
(paste it into BENCHMARKS.md with the machine header the run prints) and, with ``--json PATH``, as
JSON.

Adding an area
--------------
Create ``bench/<area>.py`` with a function ``run(ctx: bench.Context) -> list[bench.Result]``. That
is all: ``python -m bench`` finds every module in this folder whose name does not start with ``_``
and that defines ``run`` (or, for older scripts, ``main``: called with ``["--quick"]`` or ``[]``
when it takes arguments, and its own output printed as is). Inside ``run``:

- ``ctx.quick`` says which sizes to use; ``ctx.cache`` is a gitignored folder for generated inputs
  (reuse them across runs); ``ctx.tmpdir()`` a scratch folder removed at exit.
- ``bench.measure(fn, repeat=..., warmup=...)`` times a callable and returns ``Stats`` (median, p10,
  p90, n).
- ``ctx.peer("0.3.5", "nanobot_history", {...})`` runs ``bench/peers/nanobot_history.py`` inside a
  virtual environment with ``nanobot-ai==0.3.5`` from its hash-locked file (``bench/peerenv.py``; in
  ``bench/.venvs/``) and returns the JSON object that script prints last. Peer scripts import only
  the standard library and nanobot, and report raw timing samples (seconds) so both sides get the
  same statistics.
- Return ``Result(area, name, reverie=Stats, peer=Stats | None, peer_name=..., unit="s" | "ops/s",
  target=...)``; the ratio is computed so that > 1 means Reverie is better (faster, or more
  operations per second).

Interleave the two sides (alternate rounds of Reverie and of the peer) so drift on a shared machine
hits both.
"""

from ._core import Context, Result, Stats, measure, stats_of

__all__ = ["Context", "Result", "Stats", "measure", "stats_of"]
