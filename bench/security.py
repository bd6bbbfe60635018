"""Secret redaction on the history path: what ``redact`` costs, and what it costs a durable append.

Workloads:

- ``redact`` on a 64,000-character entry (the history cap) of ordinary text (the look-alike corpus:
  prose, code, git shas, UUIDs, base64, paths, URLs), of keyword-dense text (``key=… token: …
  password: …`` every ~45 characters: the adversarial case for the assignment rule), and of text
  packed with credentials (every 100 characters); and on one ordinary 328-character entry.
- durable appends/s through ``HistoryLog.append`` (fsync on) with redaction, against the same
  appends with redaction off as the peer (no nanobot peer: nanobot does not redact). Rounds
  alternate the two sides.
"""

from __future__ import annotations

from pathlib import Path

from ._core import Context, Result, measure, stats_of

ENTRY = "[2026-11-22 10:00] USER: I prefer tea; the deploy is on Friday. ASSISTANT: noted.\n" * 4


def _fill(parts: list[str], n: int = 64_000) -> str:
    text = " ".join(parts)
    return (text * (n // len(text) + 1))[:n]


def _appends_per_s(ctx: Context, redactor, n: int) -> float:  # type: ignore[no-untyped-def]
    import time

    from reverie.storage.history import HistoryLog

    d = ctx.tmpdir("security-append-")
    log = HistoryLog(Path(d) / "history.jsonl", Path(d) / ".cursor", redact=redactor)
    t0 = time.perf_counter()
    for _ in range(n):
        log.append(ENTRY)
    return n / (time.perf_counter() - t0)


def run(ctx: Context) -> list[Result]:
    from reverie.security.secrets import redact
    from tests.support.security_corpus import BENIGN, SECRETS

    repeat = 10 if ctx.quick else 30
    cases = [
        ("redact 64,000 chars of ordinary text", _fill([t for _, t in BENIGN]), "a few ms"),
        (
            "redact 64,000 chars, keyword-dense (adversarial)",
            _fill(["key=value token: abc secret=xyz password: pw"]),
            "",
        ),
        ("redact 64,000 chars packed with credentials", _fill([t for _, t, _ in SECRETS]), ""),
        (f"redact one {len(ENTRY)}-char entry", ENTRY, ""),
    ]
    results = []
    for name, text, target in cases:
        stats, _ = measure(lambda t=text: redact(t), repeat=repeat if len(text) > 1000 else 2000)
        results.append(Result("security", name, stats, target=target))
    block = 200 if ctx.quick else 400
    rounds = 3 if ctx.quick else 5
    with_r, without = [], []
    for _ in range(rounds):
        without.append(_appends_per_s(ctx, None, block))
        with_r.append(_appends_per_s(ctx, redact, block))
    results.append(
        Result(
            "security",
            "durable appends/s, redaction on (fsync)",
            stats_of(with_r),
            stats_of(without),
            "same appends, redaction off",
            unit="appends/s",
            target="≥ 2,000/s",
        )
    )
    return results
