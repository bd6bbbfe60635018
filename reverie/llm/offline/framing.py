"""Framing for the offline engine: which sentences of a user's message are the user's own present
statements.

Only those yield facts. The others are *framed*, and a frame reaches as far as it plausibly does:

- a **task** on a text (translate, proofread, rephrase, "Example:", "e.g.", a quoted email) frames
  the whole message: the words are material, not the user's life ("Translate this: I live in
  Paris.");
- a **story, dream, role-play, rumour, report or denial** ("in my novel …", "I dreamt …", "rumour
  has it …", "according to …", "it's a lie that …", someone else's words without quote marks: "Mom
  texted me: I'm …") frames its sentence and every later one of the message ("In my story I live in
  Oslo. I work at the castle.");
- a **retraction** ("Just kidding.", "Not really.", "(jk)", "scratch that", "that was a joke")
  frames its sentence and every earlier one ("I love PHP. Just kidding.").

A sentence about a **temporary state** ("today", "this week", "for this project", "on holiday")
gives no lasting fact (``temporary``); a dated fact (a deadline, an appointment) is still read from
it.
"""

from __future__ import annotations

import re

from ...text.lazyre import lazy

__all__ = ["framed", "temporary", "reversed_feeling"]

_TASK = lazy(
    r"^(?:(?:please|pls|can you|could you|would you|help me|i need you to|i want you to)[,\s]+)*"
    r"(?:translate|proofread|rephrase|paraphrase|reword|rewrite|correct|fix|check(?!\s+(?:it\s+|"
    r"this\s+)?out\b)|"
    r"edit|polish|summari[sz]e|spell-?check|improve|shorten|format|convert)\b"
    # a verb with a copula after it is a noun: "Polish is my first language"
    r"(?!\s+(?:is|are|was|were|has)\b|'s\b)"
    r"|\b(?:translate|translation of|proofread|rephrase|paraphrase|reword)\b.{0,40}[:\"“]"
    # a text pasted in quotes to be summed up: "Here's a review to summarise: 'I live in …'"
    r"|\bsummari[sz]e\b.{0,40}:\s*['‘\"“]"
    r"|\bhow (?:do|would) (?:you|i|we) say\b|\bwhat does .{1,60} mean\b|\bin (?-i:[A-Z])[a-z]+ "
    r"(?:please)?:"
    r"|^(?:e\.g\.|eg\b|example|for example|for instance|sample|sample sentence|exercise|practice "
    r"sentence|"
    r"quote|quoting|transcript|lyrics|dialogue|caption|template|placeholder|test(?:ing)?|"
    r"draft)\b\s*[:,-]"
    r"|\b(?:for example|for instance|as an example|example sentence|sample text|lorem ipsum)\b|"
    r"(?<!\w)e\.g\.|^eg\b"
    r"|\b(?:the|this|that|his|her|their|your|an?) (?:email|e-mail|message|text|letter|post|ad|"
    r"tweet|review|"
    r"sentence|line|caption|bio|profile|script|scene|song|poem) (?:says|said|reads|read|goes|"
    r"went)\b"
    r"|\b(?:here's|here is) (?:the|a|an|my) (?:draft|text|message|email|letter|sentence|bio|"
    r"paragraph)\b"
    r"|^\s*(?:>|«|\")",
    re.I,
)
_FORWARD = lazy(
    r"\b(?:in|for) (?:my|the|a|our|this) (?:story|novel|book|script|screenplay|game|campaign|"
    r"fanfic|fan fiction|"
    r"fiction|poem|song|play|sketch|comic|dream|dreams|fantasy|daydream|nightmare|imagination|"
    r"role-?play|"
    r"d&d|rpg|world-?building|writing class|creative writing|hypothetical|scenario|simulation)\b"
    # the frame's noun naming another thing is none: "a bot for my D&D group", "Unity for the game"
    r"(?!\s+(?:group|club|night|nights|session|sessions|server|bot|team|app|project|studio|engine|"
    r"company|shop|store|website|site)\b)(?<!\bfor the game)(?<!\bfor our game)"
    r"|\bmy (?:character|protagonist|hero|heroine|narrator|avatar|persona|oc)\b"
    r"|\bthe (?:protagonist|main character|hero|heroine|narrator|villain)\b"
    r"|\brole-?play(?:ing)?\b|\blet's (?:pretend|say|imagine|play)\b|\bpretend(?:ing)?\b|\bin "
    r"character\b"
    r"|\bi (?:dreamt|dreamed|had a dream|was dreaming|daydream(?:ed)?)\b|\bwhat a dream\b"
    r"|\brumou?rs?\b|\bword (?:is|on the street|has it)\b|\bgossip\b|\breportedly\b|\baccording "
    r"to\b"
    r"|\bsupposedly\b|\ballegedly\b|\bi(?:'ve)? heard (?:that|a|about)\b|\bthey say\b|\bpeople "
    r"say\b"
    r"|\bit(?:'s| is) (?:a lie|not true|untrue|a myth|false|fake news|a rumou?r) that\b|\bcontrary "
    r"to\b"
    r"|\bdespite what\b|\b(?:people|everyone|some|they|folks|my \w+) (?:think|thinks|assume|"
    r"assumes|believe|"
    r"believes|claim|claims) (?:that )?i\b|\bi never said\b|\bwho says\b"
    r"|\bif i were\b|\bin (?:another|a parallel|an alternate) (?:life|world|universe)\b|\bin "
    r"theory\b"
    # someone else's words given without quote marks: "Mom texted me: I'm a vegan now", "My boss
    # told the team, I …"
    r"|(?:^|\b(?:my|his|her|their|our|the|a)\s)(?!i\b)(?:[\w'’-]+\s){0,2}?(?!i\b)[\w'’-]+(?:'s "
    r"(?:bio|profile|post|status|"
    r"message|note|text))? (?:says|said|told|tells|texted|texts|wrote|writes|messaged|emailed|"
    r"posted|tweeted|replied|"
    r"announced|shouted|yelled|goes|went|reads|read|keeps saying|always says)(?: (?:me|us|him|her|"
    r"them|everyone|"
    r"(?:the|my|our) [\w-]+))?\s*[:,]",
    re.I,
)
_BACKWARD = lazy(
    r"\b(?:just )?(?:kidding|joking)\b|\bj/?k\b|\(jk\)|\bnot really[.!]*$|^no[,.!]* not really\b|"
    r"\bscratch that\b"
    r"|\bnever ?mind\b|\bor not\b|\bwho am i kidding\b|\bthat(?:'s| is| was) (?:not true|a joke|a "
    r"lie|false)\b"
    r"|\bi take (?:that|it) back\b|\bnot!|\blol,? no\b|\bnah[,.!]?\s*$|^nah\b|\bfor real\?|^(?:as "
    r")?if[.!]*$"
    r"|\bdisregard (?:that|the above)\b|\bignore (?:that|what i (?:just )?said)\b(?! (?:about|re|"
    r"regarding)\b)|^(?:wait,?\s*)?no[.!]*$",
    re.I,
)
_TEMPORARY = lazy(
    r"(?<!as of )(?<!from )(?<!starting )(?<!since )"
    r"\b(?:today|tonight|this (?:morning|afternoon|evening|week|weekend|month|sprint|trip|semester|"
    r"term|summer|"
    r"winter)|for (?:this|the|a) (?:project|week|weekend|trip|month|sprint|demo|day|night|"
    r"holidays?|"
    r"conference|meeting|hackathon|course|class)|for (?:the time being|a few (?:days|weeks))|"
    r"for the (?:next|coming) (?:(?:few|two|three|four|couple of) )?(?:days?|weeks?|months?)|"
    r"temporarily|for the moment|right now|on (?:holiday|vacation|leave|a trip|a business trip|"
    r"sabbatical)|"
    r"visiting|staying (?:at|in|with)|until (?:monday|tuesday|wednesday|thursday|friday|saturday|"
    r"sunday|"
    r"tomorrow|next)|these few days)\b",
    re.I,
)


_RETRACT_THEN_SAY = lazy(
    # after a filler that owns the change ("actually never mind English is fine for everything")
    r"^(?:(?:actually|ok|okay|oh|wait|no|hmm|sorry|ah)[,.!]?\s+)?"
    r"(?:scratch that|never ?mind|ignore that|i take (?:that|it) back)[,:;!]?\s+\S+\s+\S+",
    re.I,
)


def framed(sentences: list[str]) -> list[bool]:
    """For each sentence of one message, whether a frame covers it (see the module doc)."""
    if any(_TASK.search(s) for s in sentences):
        return [True] * len(sentences)
    out = [False] * len(sentences)
    for i, sentence in enumerate(sentences):
        if _FORWARD.search(sentence):
            for j in range(i, len(sentences)):
                out[j] = True
        if _BACKWARD.search(sentence.strip()):
            # "Scratch that, we're going with X": a retraction that opens its sentence takes back
            # the earlier ones only
            last = i if _RETRACT_THEN_SAY.match(sentence.strip()) else i + 1
            for j in range(0, last):
                out[j] = True
    return out


#: A decision dated by when it was taken ("Team agreed today: …", "we decided this morning to …"):
#: the time word is the decision's, and what was decided lasts.
_DECIDED_WHEN = lazy(
    r"\b(?:agreed|decided|voted|settled|signed off|committed|made the call)\s+(?:on\s+)?"
    r"(?=(?:today|this (?:morning|afternoon|evening|week|month|sprint))\b)"
    r"|\b(?:today|this (?:morning|afternoon|week|month|sprint)),?\s+(?:we|the team|our team)\s+"
    r"(?=(?:agreed|decided|voted|settled|signed off|committed)\b)",
    re.I,
)


def temporary(sentence: str) -> bool:
    """The sentence is about a passing state ("I'm working from a café today"): no lasting fact in
    it. A decision's date is none ("Team agreed today: all new services in Go")."""
    m = _DECIDED_WHEN.search(sentence)
    if m is not None:
        sentence = sentence[: m.end()] + _TEMPORARY.sub("", sentence[m.end() :], count=1)
    return _TEMPORARY.search(sentence) is not None


_LIKE_IT = lazy(
    r"\bi (?:actually |really |secretly |still |totally )?(?:love|like|adore|enjoy) (?:it|them|"
    r"that|this)\b",
    re.I,
)
_HATE_IT = lazy(
    r"\bi (?:actually |really |secretly |still |totally )?(?:hate|dislike|detest|can't stand|"
    r"cannot stand) (?:it|them|that|this)\b",
    re.I,
)


def reversed_feeling(message: str) -> tuple[bool, bool]:
    """(a like of "it" is said, a dislike of "it" is said): a message that says "I hate Rust" and "I
    love it" (or the reverse) states neither feeling for sure."""
    return _LIKE_IT.search(message) is not None, _HATE_IT.search(message) is not None
