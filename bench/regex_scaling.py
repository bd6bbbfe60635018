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
from collections.abc import Callable

from ._core import ROOT, Context, Result, stats_of

_CALLS = {"compile", "search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer"}


def patterns() -> list[tuple[str, re.Pattern[str], str]]:
    """``(where, compiled, how)`` for each literal pattern in reverie/ (flags evaluated when
    literal); ``how`` is the call (``match``, ``fullmatch``) where the source says, else
    ``search``, the worst case."""
    found: dict[tuple[str, int, str], str] = {}
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
            how = node.func.attr if node.func.attr in ("match", "fullmatch") else "search"
            found.setdefault((node.args[0].value, flags, how), where)
    return [(where, re.compile(p, f), how) for (p, f, how), where in found.items()]


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


def _seconds(call: Callable[[str], object], text: str) -> float:
    t0 = time.perf_counter()
    call(text)
    return time.perf_counter() - t0


def _growth(call: Callable[[str], object], small: str, large: str) -> tuple[float, float]:
    """Seconds on ``large`` and how many times the time on ``small`` that is."""
    t_small, t_large = _seconds(call, small), _seconds(call, large)
    return t_large, t_large / max(t_small, 1e-6)


def run(ctx: Context) -> list[Result]:
    from reverie.llm.offline.rules.extract import extract_facts

    n = 5_000 if ctx.quick else 20_000
    small, large = inputs(n), inputs(4 * n)
    found = patterns()
    worst = sorted(
        (*_growth(getattr(pattern, how), small[kind], large[kind]), where, kind)
        for where, pattern, how in found
        for kind in small
    )[::-1]
    offline = sorted(
        (*_growth(lambda t: extract_facts("I live in Porto. " + t), small[k], large[k]), k)
        for k in small
    )[::-1]
    floor = stats_of([max(_seconds(lambda t: t.count("\x00"), text) for text in large.values())])
    superlinear = [w for w in worst if w[0] > 0.01 and w[1] > 8]
    return [
        Result(
            "regex",
            f"slowest of {len(found)} patterns on {4 * n:,} characters",
            stats_of([worst[0][0]]),
            peer=floor,
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
        Result(
            "regex",
            f"offline engine, slowest input of {4 * n:,} characters (extract_facts)",
            stats_of([offline[0][0]]),
            peer=floor,
            peer_name="str.count (floor)",
            note=f"on {offline[0][2]}, x{offline[0][1]:.1f} from {n:,}",
        ),
    ]
