"""Pattern pieces the rules of several kinds of fact share: where a captured value ends, a proper
name, the user as a subject. A piece used by one kind only lives in that kind's module."""

from __future__ import annotations

import re

from ....text.lazyre import lazy

#: Where a value ends: a dash, a conjunction or a relative word opening the next clause, or a mark.
STOP = (
    r"(?=\s+[-–—]+\s|\s+(?:and|but|since|because|so|now|anymore|any more|these days|nowadays|with|"
    r"where|which|who|though|although|instead)\b|[,;:!?()]|\.(?!(?-i:[a-z0-9]))|$)"
)
#: A value of one to sixty characters, up to ``STOP``; a dot inside a word is part of it ("Next.js",
#: "Python 3.12").
VAL = rf"(?P<v>(?:[^,.;:!?()]|\.(?=(?-i:[a-z0-9]))){{1,60}}?){STOP}"
#: Where a proper name (a place, an employer) ends: also before a preposition or a time phrase.
PSTOP = (
    r"(?=\s+(?:and|but|since|because|so|now|anymore|any more|these days|nowadays|with|where|which|"
    r"who|as|in|"
    r"on|at|last|next|this|for|from|until|today|yesterday|tomorrow|a few|two|three|near|after|"
    r"before|though|"
    r"although|instead|full-time|part-time|originally|over the|earlier|recently|back|"
    # "I live in Haifa up on the Carmel": where in it, after the name
    r"(?:up|down|out) (?:on|in|by|near|at))\b|[,.;:!?()]|"
    r"$)"
)
PLACE = rf"(?P<v>[^,.;:!?()]{{1,60}}?){PSTOP}"
#: The old value of a change: "moved from OLD to …", "left OLD for …".
OLD = r"(?P<o>[^,.;:!?()]{1,60}?)(?=\s+to\b)"
OLDTO = r"(?P<o>[^,.;:!?()]{1,60}?)(?=\s+(?:to|for|and)\b)"
#: A proper name of one or two capitalised words.
NAME = r"(?P<v>(?-i:[A-Z])[\w'’-]+(?:\s(?-i:[A-Z])[\w'’-]+)?)"
#: "I", the user, with an adverb of time or degree ("I now", "I actually").
I = r"\bi(?:\s+(?:now|currently|just|actually|recently|also|still))?"  # noqa: E741
#: The end of the words before a move told as the time of something else ("… when we moved to
#: Vite"): background, not a statement of home.
BACKGROUND = r"\b(?:when|after|before|since|until|once)\s*$"
#: "promoted", as typed in a hurry ("promted", "promtoed").
PROMOTED = r"prom(?:oted|ted|toed|otted|otoed|oed)"
#: Someone else as a sentence's subject or owner ("my sister moved to Leeds", "he quit", "they gave
#: up being vegan"): their change, not the user's. A pronoun doing something to the user ("they made
#: me store manager", "she moved our standup") leaves the change the user's.
SOMEONE_ELSE = lazy(
    r"\b(?:(?:my|our|his|her|their) (?:sister|brother|mum|mom|mother|dad|father|parents?|friends?|"
    r"boss|manager|colleagues?|coworkers?|cousins?|aunt|uncle|neighbou?rs?|flatmates?|roommates?|"
    r"grand\w+|in-laws?|wife|husband|partner|girlfriend|boyfriend|son|daughter|kids?|children|"
    r"niece|nephew)|(?:he|she|they)(?!(?:'ve| have| has| had| just)? (?:made|moved|promoted|"
    r"appointed|gave|sent|transferred|let|pushed|put|switched) (?:me|us|our|my)\b))\b",
    re.I,
)
