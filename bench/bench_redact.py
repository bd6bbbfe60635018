"""Cost of secret redaction on history appends.

Usage: ``python bench/bench_redact.py``. Prints the time ``redact`` takes on a 64,000-character entry (the
history cap) of ordinary text, of keyword-dense text and of text full of credentials, and durable append
throughput with redaction against the same appends without it, in the same process (the ratio is the cost).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reverie.history import HistoryLog  # noqa: E402
from reverie.security.secrets import redact  # noqa: E402
from tests.security_corpus import BENIGN, SECRETS  # noqa: E402


def _fill(parts: list[str], n: int = 64_000) -> str:
    text = " ".join(parts)
    return (text * (n // len(text) + 1))[:n]


def _ms(fn, text: str, repeat: int = 30) -> float:  # type: ignore[no-untyped-def]
    fn(text)
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(text)
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples)


ENTRY = "[2026-11-22 10:00] USER: I prefer tea; the deploy is on Friday. ASSISTANT: noted.\n" * 4


def _appends_per_s(redactor, n: int) -> float:  # type: ignore[no-untyped-def]
    with tempfile.TemporaryDirectory() as d:
        log = HistoryLog(Path(d) / "history.jsonl", Path(d) / ".cursor", redact=redactor)
        t0 = time.perf_counter()
        for _ in range(n):
            log.append(ENTRY)
        return n / (time.perf_counter() - t0)


def main() -> None:
    cases = {
        "prose+code look-alikes": _fill([t for _, t in BENIGN]),
        "keyword-dense": _fill(["key=value token: abc secret=xyz password: pw"]),
        "credentials everywhere": _fill([t for _, t, _ in SECRETS]),
    }
    for name, text in cases.items():
        print(f"redact 64,000 chars, {name:24} {_ms(redact, text):7.2f} ms (median of 30)")
    print(f"redact one {len(ENTRY)}-char entry: {_ms(redact, ENTRY, 2000) * 1000:.1f} µs (median)")
    # Interleaved rounds, because fsync time on a shared machine drifts more than the cost being measured.
    plain_rounds, redacted_rounds = [], []
    for _ in range(5):
        plain_rounds.append(_appends_per_s(None, 400))
        redacted_rounds.append(_appends_per_s(redact, 400))
    plain, redacted = statistics.median(plain_rounds), statistics.median(redacted_rounds)
    print(f"durable appends/s: {redacted:,.0f} with redaction, {plain:,.0f} without (ratio {redacted / plain:.2f})")


if __name__ == "__main__":
    main()
