"""One message recorded into a big session (hostile tester, consol5 item 3): ``record(key, [msg],
consolidate=False)`` and ``messages(key)`` on a session file of N MB, each in a fresh process (so
its peak RSS is the operation's), as ``/tmp/hostile/bigrec.py`` measured them.

The append itself reads nothing of the file (one ``O_APPEND`` write); the record still reads the
session once, for the prompt estimate its result carries (``ConsolidationResult.estimate_before``),
and that read is streamed (one line's bytes at a time, no raw copy of the file).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from ._core import ROOT, Context, Result, stats_of

_MB = 1024 * 1024

_CHILD = """
import json, resource, sys, time
import reverie
ws, what = sys.argv[1], sys.argv[2]
m = reverie.open(ws)
m.status()
t = time.perf_counter()
if what == "record":
    said = [{"role": "user", "content": "one more line about Zanzibar"}]
    m.record("big", said, consolidate=False)
else:
    m.messages("big")
took = time.perf_counter() - t
print(json.dumps({"s": took, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}))
m.close()
"""


def _session(ctx: Context, mb: int) -> Path:
    ws = Path(ctx.tmpdir("sessappend-")) / "ws"
    (ws / "sessions").mkdir(parents=True)
    with open(ws / "sessions" / "big.jsonl", "w") as f:
        f.write(
            json.dumps(
                {
                    "_type": "metadata",
                    "key": "big",
                    "created_at": "2026-11-29T05:47:56",
                    "updated_at": "2026-11-29T05:47:57",
                    "metadata": {},
                    "last_consolidated": 0,
                }
            )
            + "\n"
        )
        i = size = 0
        while size < mb * _MB:
            line = json.dumps(
                {
                    "role": "user" if i % 2 == 0 else "assistant",
                    "content": f"message {i} I like item{i} " + "lorem ipsum dolor sit amet " * 36,
                }
            )
            f.write(line + "\n")
            size += len(line) + 1
            i += 1
    return ws


def run(ctx: Context) -> list[Result]:
    sizes = [20] if ctx.quick else [20, 200]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    results = []
    for mb in sizes:
        ws = _session(ctx, mb)
        for what in ("record", "messages"):
            out = subprocess.run(
                [sys.executable, "-c", _CHILD, str(ws), what],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            got = json.loads(out.stdout.strip().splitlines()[-1])
            results.append(
                Result(
                    "session_append",
                    f"{what} on a {mb} MB session",
                    stats_of([got["s"]]),
                    note=f"peak RSS {got['rss_mb']} MB",
                )
            )
        shutil.rmtree(ws.parent, ignore_errors=True)
    return results
