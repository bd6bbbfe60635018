"""Every literal regex in the package on long adversarial text: time at N and 4N characters.

A linear pattern takes ~4x as long on 4x the text; a quadratic one ~16x. The patterns are found in
the source (``re.compile``, ``re.search`` … with a literal pattern), so the ones compiled inside
functions count too. Inputs are what a user pastes or a model replies at its worst: long runs of
spaces, newlines, one word, digits, ``a, a, a``, tags with no end, ``(why: `` with no closing.
The floor is ``str.count`` over the same text (one linear pass in C).

The offline engine's ~600 rules never see such text whole (it cuts a message into clauses first),
so they are timed the way they run: ``extract_facts`` on each input at N and 4N.

Usage::

    python -m bench [--quick] regex_scaling
"""

from __future__ import annotations

import ast
import re
import time

from ._core import ROOT, Context, Result, stats_of

_CALLS = {"compile", "search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer"}


def patterns() -> list[tuple[str, re.Pattern[str]]]:
    """``(where, compiled)`` for each literal pattern in reverie/ (flags evaluated when literal)."""
    found: dict[tuple[str, int], str] = {}
    for path in sorted((ROOT / "reverie").rglob("*.py")):
        if "offline" in path.parts:
            continue
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _CALLS
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "re"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                continue
            flags = 0
            flag_node = next((k.value for k in node.keywords if k.arg == "flags"), None)
            if flag_node is None and node.func.attr == "compile" and len(node.args) > 1:
                flag_node = node.args[1]
            if flag_node is not None:
                try:
                    flags = int(
                        eval(compile(ast.Expression(flag_node), "flags", "eval"), {"re": re})
                    )
                except Exception:  # a flag from a variable: time the pattern without it
                    flags = 0
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            found.setdefault((node.args[0].value, flags), where)
    return [(where, re.compile(p, f)) for (p, f), where in found.items()]


def inputs(n: int) -> dict[str, str]:
    return {
        "spaces": "a" + " " * n + "b",
        "newlines": "a" + "\n" * n + "b",
        "blank lines": " \n" * (n // 2),
        "one word": "a" * n,
        "digits": "1" * n,
        "dots": "." * n,
        "words": "word " * (n // 5),
        "a list": "a, " * (n // 3),
        "and and": "x and " * (n // 6),
        "colons": "a:" * (n // 2),
        "open tags": "<a\n" * (n // 3),
        "open why": "(why: " * (n // 6),
        "open think": "<think>" * (n // 7),
    }


def _seconds(pattern: re.Pattern[str], text: str) -> float:
    t0 = time.perf_counter()
    pattern.search(text)
    return time.perf_counter() - t0


def run(ctx: Context) -> list[Result]:
    n = 5_000 if ctx.quick else 20_000
    small, large = inputs(n), inputs(4 * n)
    found = patterns()
    worst: list[tuple[float, float, str, str]] = []
    for where, pattern in found:
        for kind in small:
            t_small = _seconds(pattern, small[kind])
            t_large = _seconds(pattern, large[kind])
            worst.append((t_large, t_large / max(t_small, 1e-6), where, kind))
    worst.sort(reverse=True)
    floor = [_seconds_count(text) for text in large.values()]
    offline = _offline(small, large)
    superlinear = [w for w in worst if w[0] > 0.01 and w[1] > 8]
    results = [
        Result(
            "regex",
            f"slowest of {len(found)} patterns on {4 * n:,} characters",
            stats_of([worst[0][0]]),
            peer=stats_of([max(floor)]),
            peer_name="str.count (floor)",
            note=f"{worst[0][2]} on {worst[0][3]}, x{worst[0][1]:.0f} from {n:,}",
        ),
        Result(
            "regex",
            "patterns growing faster than linear (x8 or more for 4x the text)",
            stats_of([float(len({w[2] for w in superlinear}))]),
            unit="patterns",
            note="; ".join(f"{w[2]} on {w[3]} x{w[1]:.0f}" for w in superlinear[:8]),
        ),
    ]
    results.append(
        Result(
            "regex",
            f"offline engine, slowest input of {4 * n:,} characters (extract_facts)",
            stats_of([offline[0][0]]),
            peer=stats_of([max(floor)]),
            peer_name="str.count (floor)",
            note=f"on {offline[0][2]}, x{offline[0][1]:.1f} from {n:,}",
        )
    )
    return results


def _offline(small: dict[str, str], large: dict[str, str]) -> list[tuple[float, float, str]]:
    from reverie.llm.offline.rules.extract import extract_facts

    timed = []
    for kind in small:
        t0 = time.perf_counter()
        extract_facts("I live in Porto. " + small[kind])
        t_small = time.perf_counter() - t0
        t0 = time.perf_counter()
        extract_facts("I live in Porto. " + large[kind])
        t_large = time.perf_counter() - t0
        timed.append((t_large, t_large / max(t_small, 1e-6), kind))
    return sorted(timed, reverse=True)


def _seconds_count(text: str) -> float:
    t0 = time.perf_counter()
    text.count("\x00")
    return time.perf_counter() - t0
