"""What keeping credentials out costs an import (issue 37, item 6).

A bundle's import reads every text it carries — its files and every version in its memory repository
— for credentials before the copy is moved into place
(``reverie.operations.portability.purge_credentials``). Measured on a workspace of ``ENTRIES``
history entries (plain chat facts, no credential) exported once: ``import_bundle`` whole, against
its floor measured in the same run, the same import with the sweep left out (extraction, the
manifest check and the move into place). A nanobot import redacts each entry as it copies it:
measured the same way against the copy of the same history file.

``python -m bench importers`` (``--quick``: a quarter of the entries).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from unittest import mock

from ._core import Context, Result, stats_of

ENTRIES = 20_000


def _workspace(root: Path, entries: int) -> Path:
    import reverie

    with reverie.open(root) as memory:
        memory.init()
        history = memory.runtime.store.history
        for n in range(entries):
            history.append(
                f"User said project {n} runs on port {8000 + n % 100} after build step {n * 7}.",
                "cli:bench",
            )
    return root


def _timed(fn: object, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        out.append(time.perf_counter() - t0)
    return out


def run(ctx: Context) -> list[Result]:
    from reverie.memory.importers import export_bundle, import_bundle, import_nanobot
    from reverie.operations import portability

    entries = ENTRIES // 4 if ctx.quick else ENTRIES
    repeat = 2 if ctx.quick else 3
    tmp = ctx.tmpdir("importers-")
    src = _workspace(tmp / "src", entries)
    bundle = tmp / "b.tar.gz"
    export_bundle(src, bundle)
    size = (src / "memory" / "history.jsonl").stat().st_size
    n = [0]

    def target() -> Path:
        n[0] += 1
        path = tmp / f"dst{n[0]}"
        return path

    def whole() -> None:
        path = target()
        import_bundle(bundle, path)
        shutil.rmtree(path)

    def floor() -> None:
        path = target()
        with mock.patch.object(portability, "purge_credentials", lambda root: 0):
            import_bundle(bundle, path)
        shutil.rmtree(path)

    nano = tmp / "nano"
    (nano / "memory").mkdir(parents=True)
    shutil.copyfile(src / "memory" / "history.jsonl", nano / "memory" / "history.jsonl")

    def nanobot() -> None:
        path = target()
        import_nanobot(nano, path)
        shutil.rmtree(path)

    def copy() -> None:
        path = target()
        path.mkdir()
        shutil.copyfile(nano / "memory" / "history.jsonl", path / "history.jsonl")
        shutil.rmtree(path)

    label = f"{entries:,} history entries ({size / 1e6:.1f} MB)"
    return [
        Result(
            "importers",
            f"import a bundle, credentials swept, {label}",
            stats_of(_timed(whole, repeat)),
            stats_of(_timed(floor, repeat)),
            "the same import without the sweep (floor)",
            note="the sweep reads every file and git version once",
        ),
        Result(
            "importers",
            f"import a nanobot workspace, entries redacted, {label}",
            stats_of(_timed(nanobot, repeat)),
            stats_of(_timed(copy, repeat)),
            "copying its history file (floor)",
        ),
    ]
