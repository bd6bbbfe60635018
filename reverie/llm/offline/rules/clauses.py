"""The clause stage: which words of a message are read at all, and as what.

A message is cut into sentences and each sentence into its main clauses (``clauses``); a clause is
read only when it is a statement (``statement``): no question, hypothetical, hedge, report, joke
or code. Set phrases that say nothing literal (``IDIOMS``) and quoted text are removed first;
fillers ("oh,", "btw,") and cues of correction ("Actually, …") are taken off the front. Frames that
reach across sentences (a story, a task on a text, a retraction) are ``framing``'s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ....text.lazyre import lazy
from ..framing import framed, temporary
from .agent import AGENT_VERBS
from .person import first_person
from .shorthand import household, opening_role, spelled, titled_here, with_subject

#: Set phrases that say nothing literal: removed before a sentence is read ("Call me crazy, but I
#: like Perl").
IDIOMS = (
    "call me crazy",
    "call me old-fashioned",
    "call me maybe",
    "look on the bright side",
    "never say never",
    "never give up",
    "live and learn",
    "live in the moment",
    "live in fear",
    "live in hope",
    "live under a rock",
    "over the moon",
    "on cloud nine",
    "under the weather",
    "all ears",
    "at my wits' end",
    "on the fence",
    "fish out of water",
    "work like a dog",
    "keep your hair on",
    "agree to disagree",
    "call it a day",
    "go with the flow",
    "allergic to mornings",
    "allergic to meetings",
    "always a pleasure",
    "always remember to breathe",
    "to death",
    "to bits",
    "to pieces",
)


IDIOM = lazy(r"\b(?:" + "|".join(re.escape(x) for x in IDIOMS) + r")\b[,;]?\s*(?:but\s+)?", re.I)


_HEDGE = lazy(
    # "mostly into X" says what one likes most (not "… these days": a phase); "that / a different
    # kind of X" is a noun, no hedge
    r"\b(?:mostly(?! into\b(?!.*\b(?:these days|lately|right now|at the moment|nowadays|for "
    r"now)\b)| my thing\b)|(?<!\bthat )(?<!\bthis )(?<!\bwhat )(?<!\bthe )(?<!\bany )(?<!\bsome )"
    r"(?<!\bdifferent )(?<!\bsame )(?<!\bother )(?<!\bevery )(?<!\bone )(?:sort|kind) of|kinda|"
    # "half" of a share ("half Italian"), not of a clock or a count ("half past nine", "an hour and
    # a half")
    # "half of my questions", "half our clients", "half the week": a share of something else
    r"partly|partially|(?<!and a )half(?! past\b| an? (?:hour|day|year|mile|kilo)| (?:of|the|our|"
    r"my|their|his|her)\b| (?:one|two|"
    r"three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b)|sometimes|occasionally|at times|"
    r"more or less|ish|i think(?! in\b)|i guess|i suppose|not sure|"
    r"apparently|supposedly|allegedly)\b",
    re.I,
)


#: Part of the week: when a pastime or a habit happens ("I ride her on weekends", "On weekends I
#: do ceramics"), but only a part of a home or a job ("I live in Brighton on weekends", "I work
#: from home on weekdays", "I'm vegetarian on weekdays", "I use Linux at weekends"), which a line
#: without it would overstate.
_PART_WEEK = lazy(r"\b(?:on|at|over) (?:the )?(?:weekdays|weekends|weekend)\b", re.I)
_PART_OF_A_STATE = lazy(
    r"\b(?:live|lives|living|stay|stays|staying|based|home|work|works|working|job|office|employed|"
    r"shifts?|rent|flat|apartment|house|use|uses|using|eat|eats|eating|drink|drinks|drinking|diet|"
    r"vegan|vegetarian|veggie|pescatarian|sober|fast|fasting|single|married|custody)\b"
    r"|\bwith (?:me|us|them|him|her|my|our)\b",
    re.I,
)


REMEMBER = lazy(r"^(?:please )?remember (?:that )?(?P<v>(?:i|my|we|our)\b.{3,200}?)\s*[.!]?$", re.I)


_QUESTION_START = lazy(
    r"^(?:what|where|when|why|how|who|whom|which|any idea|guess)\b|^(?:do|does|did|can|could|would|"
    r"should|shall|"
    r"will|is|are|am|was|were|have|has|had|isn't|aren't|don't|doesn't|didn't|won't|wouldn't|"
    r"shouldn't|couldn't)"
    r"\s+(?:you|we|i|they|he|she|it|that|this|there|my|our|the)\b",
    re.I,
)


_HYPOTHETICAL = lazy(
    r"\b(?:if|unless|whether|assuming|provided that|as long as|in case|would|could|might|may be|"
    r"maybe|perhaps|possibly|probably|wish|imagine|suppose|"
    r"supposing|pretend|hypothetically|in theory|someday|some day|one day|dream of|dreaming|"
    r"thinking about|"
    r"thinking of|considering|planning to|plan to|hoping to|hope to|want to|wanted to|wants to|"
    r"going to (?!(?-i:[A-Z])|keep up with|keep going with|continue|carry on)"
    r"|gonna(?! keep up with| keep going with| continue| carry on)|should i|what if|let's say|used "
    r"to|was going to|almost(?! (?:all|every|always|everything|everyone|never))|nearly(?! (?:all|"
    # "either" of a choice; "no eggs either" at a clause's end adds a denial, no choice
    r"every|always))|either(?![\s.!]*$)|pretending|joking|kidding|just kidding)\b",
    re.I,
)


_REPORTED = lazy(
    r"\b(?:he|she|they|you|someone|somebody|people|everyone|everybody|nobody|my \w+|his \w+|her "
    r"\w+|the \w+|"
    r"(?!(?:Always|Never|Please|Just|Also)\b)(?-i:[A-Z])\w+)\s+(?:said|says|say|told me|tells me|"
    r"thinks|think|"
    r"thought|claims?|claimed|believes?|"
    r"believed|"
    # "writes" with an object is work done, no report: "our team in Tokyo writes the services in Go"
    r"(?:wrote|writes)(?!\s+(?:the|a|an|our|all|most|code|software|apps?|services?|docs|tests)"
    r"\b)|asked|asks|assumes?|assumed|insists?|insisted|mentioned|mentions)\b"
    # the speaker named after the words: "I'm a total movie fan, said my brother"
    r"|,\s*(?:said|says|asked|asks|wrote|writes|added|adds|replied)\s+(?:(?-i:[A-Z])\w+|my \w+|his "
    r"\w+|her \w+|"
    r"the \w+|nobody|no one|someone|everyone|he|she|they)\b",
    re.I,
)


#: Sarcasm: the whole message is unsure ("Oh great, I'm the boss now 🙄").
SARCASM = lazy(
    r"\b(?:yeah right|oh great|oh joy|oh wonderful|oh sure|sure thing|/s|said no one ever|"
    r"not!|yeah,? sure|totally not)\b|/s\b|🙄|\bnot\.$"
    # "As if I'd ever …", "… as if!": sarcasm; "explain it as if I'm a beginner" is a comparison
    r"|(?:^|(?<=[.!?]\s))as if\b|\bas if\s*[.!]*$",
    re.I,
)
#: Laughter: its own sentence is unsure ("I'm the Queen of England, haha."), and the sentence
#: before it when it stands alone ("Sure, I work at NASA. lol"); the rest of the message stands
#: ("my husky destroys everything lol. I live in Oslo").
_LAUGH = r"(?:\b(?:lol|lmao|rofl|haha\w*)\b|😂|🤣)"
LAUGH = lazy(_LAUGH, re.I)
#: Laughter at one's own slip covers nothing: "lol autocorrect, it's Rollo", "typo haha", "haha my
#: granddaughter corrected me, it's Tiger".
_SELF_LAUGH = lazy(
    rf"{_LAUGH}[,.!:]*\s*(?=(?:autocorrect|typo|my bad|oops|whoops|sorry|i mistyped|i meant|"
    r"(?:my|our) [a-z]+ (?:just )?corrected me)\b)|"
    rf"\b(?:autocorrect|typo|my bad|oops|whoops|mistyped|misspelled)\W*{_LAUGH}",
    re.I,
)
#: Laughter alone, or in a few words ("not really, lol", "jk haha"), after a sentence. A match
#: starts only where a run of stops starts (``(?<![.!?;])``): from inside a run it re-read the rest
#: of it (10,000 "!" took 1 s, 20,000 took 4).
_LAUGH_ALONE = lazy(rf"(?<![.!?;])([.!?;]+)\s+([^.!?;]{{0,20}}?{_LAUGH})[.!?]*(?=\s|$)", re.I)


#: Laughter at what the user gave up covers nothing either: "gave up on spanish lol", "quit the
#: gym haha" own a failure, they do not joke about it (unless "jk" / "kidding" takes it back).
_GAVE_UP_LAUGH = lazy(
    rf"(\b(?:gave|given|give|giving) up on\b[^.!?;,]{{1,40}}?|\bi (?:quit|dropped out of|failed)\s"
    rf"[^.!?;,]{{1,40}}?)\s*{_LAUGH}(?![^.!?;]*\b(?:jk|kidding|joking)\b)",
    re.I,
)


def joking(sentence: str) -> bool:
    """Sarcasm, or laughter that is no laughter at the user's own slip or failure, in
    ``sentence``."""
    if SARCASM.search(sentence):
        return True
    unslipped = _GAVE_UP_LAUGH.sub(r"\1", _SELF_LAUGH.sub(" ", sentence))
    return bool(LAUGH.search(unslipped))


def laughter_attached(message: str) -> str:
    """A sentence of laughter alone (or of a few words with it) joined to the one it laughs at: "I
    work at NASA. lol" and "I play the guitar; not really, lol" are one joke each."""
    return _LAUGH_ALONE.sub(r" \2\1", message)


_IRONIC = lazy(r"^(?:sure|totally|of course|obviously|yeah sure|riiight)[,!]\s", re.I)


_OTHER_SPEAKER = lazy(
    r"^(?:the )?(?:assistant|bot|agent|ai|system|tool|model|claude|gpt|chatgpt)\b", re.I
)


CODE = lazy(
    r"`|[{}]|==|=>|->|\(\)|;\s*$|^\s*(?:#|//|>>>|\$ |def |class |import |from \S+ import)|\w\(|"
    r"\w=\w|"
    r"\w\.\w+\(|</?\w+>"
)


QUOTED = lazy(r"\"[^\"]*\"|“[^”]*”|‘[^’]*’|(?<![\w])'[^']{2,}'(?![\w])")


#: A quoted title right after a like ('I love "The Santa Clause"') is the thing liked, not quoted
#: speech: its marks go before quoted text is dropped. Only a title: capitalised words and short
#: function words.
TITLE_LIKED = lazy(
    r"(?P<pre>\b(?:love|like|enjoy|adore|fan of|into)\s+)[\"“](?P<t>(?-i:[A-Z])[\w'’-]*(?:\s(?:(?-i"
    r":[A-Z])[\w'’-]*|"
    r"of|the|a|an|and|in|on|to|with|for)){0,7})[\"”]",
    re.I,
)


NEGATION = lazy(r"\b(?:not|never|no|none|nor|neither|without|n't)\b|n't\b", re.I)


# Only with words that make it standing: "can you always …?" may ask about an ability, or be
# rhetorical.
STANDING_REQUEST = lazy(
    r"^(?:can|could|would|will) you (?:please |kindly )?(?P<v>(?:always )?[a-z].*?\b(?:from now on|"
    r"going forward|in (?:the )?future)|(?:always )?(?:keep|make|use|stop|avoid|write|answer|reply|"
    r"respond|give|"
    r"put|format)\b[^?]*?\byour (?:answers|replies|responses)\b[^?]*?)"
    r"(?:,? please)?\s*[?.!]*$",
    re.I,
)


CORRECTION_CUE = lazy(
    r"^(?:actually|correction|sorry|no(?=\s*[,!-])|wait|oops|update|news|quick update|small update|"
    r"(?:small|quick|tiny|slight) (?:fix|correction)|(?:small|quick|slight|one) change|"
    # a slip of the keyboard owned: "Ha, the phone changed it — my name is Jorge"
    r"(?:(?:ha|haha|oops|ugh|argh),?\s*)?(?:the|my|stupid) (?:phone|keyboard|autocorrect) "
    r"(?:changed|messed up|corrected|autocorrected|mangled)(?: it| that| my \w+)?|"
    r"small thing|scratch that|make that|changed my mind|i changed my mind|update on that|"
    r"change of plans?(?: on [a-z]+)?|on second thought|heads up|"
    # twelfth round: a mistake owned before the right value, whatever the value's kind ("My bad,
    # …", "OK I lied, …", "I misspoke earlier —", "Wrong uni —", "Got that wrong:")
    r"(?:ok(?:ay)?,? |so,? )?(?:i lied|my bad|my mistake|i was wrong|i mis-?spoke(?: earlier)?|"
    r"i got (?:that|it) wrong|got (?:that|it) wrong|to correct myself|silly me|typo(?: earlier)?|"
    r"wrong (?:city|town|country|uni|university|school|college|company|job|employer|name|"
    r"date|day|year|number|one|word|language|breed|team)))\b"
    r"[,:!\s-]*",
    re.I,
)


CHANGE_CUE = lazy(
    r"\b(?:actually|i meant|i was wrong|currently|these days|nowadays|no longer|any ?more|"
    r"since (?:last|this)|moved|relocated|switched|changed|new job|instead|replaces?)\b"
    # "now", but not after a duration ("a nurse for twelve years now" says how long, no change)
    r"|(?<!years )(?<!year )(?<!yrs )(?<!months )(?<!month )(?<!weeks )(?<!decades )"
    r"(?<!a while )(?<!ages )\bnow\b"
    # a spelling given letter by letter corrects one: "Jorge, with g", "with two Ls"
    r"|\bwith (?:(?:an? |one )?[b-hj-z]|(?:two|double|three) [a-z]'?s?)(?=\s*(?:[,.;!]|$))",
    re.I,
)


NOT_BUT = lazy(
    r"\bnot (?P<p>(?:in|at|as|for) )?(?P<o>[^,.;]{1,40}?),? but (?!(?:i|i'm|i've|it|it's|we|they|"
    r"he|she|you)\b)"
    r"(?:(?P=p))?",
    re.I,
)


FILLER = lazy(
    r"^(?:oh|well|btw|by the way|so|also|anyway|ok|okay|hmm|and|fyi|fun fact|for the record|"
    r"honestly|frankly|"
    r"tbh|for reference|for context|context|some context|heads-up|"
    r"just so you know|heads up|note|yes|yeah|yep|right|what can i say|you know what|"
    # the sounds a dictated message opens with ("um don't use bullet points")
    r"um+|uh+|erm+)\b[,:!.\s-]+",
    re.I,
)


_SENTENCE_SPLIT = lazy(r"(?<=[.!?;])\s+|\n+")


REPLACES = lazy(r"(?<!\s)\s*\(replaces?:\s*(?P<o>[^)]*)\)\s*[.!]?$", re.I)


#: What makes a sentence a plan, a wish or a guess about the future, while a possessive in it ("my
#: love for X") still says what is: "I'm considering X because of my passion for Y".
_MODAL = lazy(
    r"\b(?:would|could|might|want to|wanted to|wants to|hoping to|hope to|considering|thinking "
    r"about|"
    r"thinking of|planning to|plan to|going to|gonna|someday|some day|one day)\b",
    re.I,
)


#: A love wished back is one lost ("I want my love for painting back").
AGAIN = lazy(r"\b(?:again|back|anymore|any more|once more)\b", re.I)


#: A later clause that is a plan or a guess of its own: ", working with them would be cool".
#: Its subject is an activity of its own (an "-ing" phrase), so the mood is about that activity;
#: a pronoun subject ("I might be wrong", "it would be fun to try") may be about the first clause,
#: and so may a condition or a first try ("assuming I'd pass", "trying it would be fun").
_MODAL_TAIL = lazy(
    r",\s+(?P<t>(?!(?:during|according|regarding|including|concerning|considering|being|nothing|"
    r"something|anything|everything|assuming|supposing|providing|imagining|pretending|hoping|"
    r"wishing|"
    r"planning|thinking|trying|tasting|testing|starting)\b)[a-z]+ing\b[^,]*\b(?:would|could|"
    r"might)\b[^,]*)$",
    re.I,
)


def modal_tail_cut(sentence: str) -> str:
    """The sentence without a last clause that is a plan or a guess of its own ("I've always liked
    Under Armour, working with them would be really cool" → its first clause), so that clause's
    mood does not reach back; "" when there is none, or the rest is no statement either."""
    m = _MODAL_TAIL.search(sentence)
    if not m or len(m.group("t").split()) < 3:
        return ""  # "I love PHP, maybe.": a hedge on the whole, no clause of its own
    head = sentence[: m.start()].strip()
    return head if len(head.split()) >= 3 and statement(head) else ""


def modal_only(sentence: str) -> bool:
    """The sentence is no statement only through a plan, a wish or a guess (``_MODAL``): no
    question,
    other speaker, joke, hedge, report, condition, past habit or pretence."""
    if statement(sentence) or not _MODAL.search(sentence) or AGAIN.search(sentence):
        return False
    return statement(_MODAL.sub("do", sentence))


def statement(sentence: str) -> bool:
    """False for what states no fact about the user: questions, hypotheticals, reported speech,
    jokes, code."""
    if sentence.rstrip().endswith("?") or _QUESTION_START.match(sentence):
        return False
    if (
        _OTHER_SPEAKER.match(sentence)
        or joking(sentence)
        or CODE.search(sentence)
        or _IRONIC.match(sentence)
    ):
        return False
    if _HEDGE.search(sentence) or (
        _PART_WEEK.search(sentence) and _PART_OF_A_STATE.search(sentence)
    ):
        return False
    probe = re.sub(r"\b(?:would|'d) rather\b", "prefer", sentence, flags=re.I)
    if _HYPOTHETICAL.search(probe) or _REPORTED.search(sentence):
        return False
    return True


_MAX_SENTENCE = (
    400  # facts are said briefly; a run-on "sentence" (a pasted list, a log line) is cut here
)


MAX_MATCHES = (
    4  # per rule and sentence: "I love cats, I love cats, …" a thousand times costs no more
)


#: A preamble before a colon ("Quick info about me before I ask: I live in …", "Long shift today
#: but quick one: I'm a pharmacist …"): the statement after it is a sentence of its own, so the
#: preamble's plan or passing day does not reach it. Only before a clause with its own subject, and
#: never after a label of a word or two ("Job: …", ``shorthand``), which is one sentence.
_PREAMBLE = lazy(
    r"(?<=\w):\s+(?=(?:i|i'm|i've|i am|my|our|we|we're|it's|the)\s)",
    re.I,
)


#: A preamble that scopes what follows, a time or a condition ("For the next two weeks: I'm in
#: Paris", "If anyone asks: I'm 30"): the line stays whole.
_SCOPING_PREAMBLE = lazy(
    r"^(?:for|until|till|this|next|during|over|from|starting|as of|if|when|whenever|unless|in case|"
    r"once|after|before|while)\b",
    re.I,
)


#: A preamble that gives words to come, someone's or a text's ("My son wrote in his essay: I have
#: a cat"): what follows is quoted, so the line stays whole (``framing`` reads it).
_WORDS_OF_OTHERS = lazy(
    r"\b(?:said|says|say|saying|wrote|writes|write|written|writing|texted|texts|told|tells|asked|"
    r"asks|posted|tweeted|reads|read|goes|went|messaged|emailed|replied|shouted|yelled|announced|"
    r"quote|quoted|essay|story|novel|book|email|e-mail|message|letter|post|poem|song|script|bio|"
    r"profile|text|caption|sign|note|translate|translation|example|sentence|line|draft)\b",
    re.I,
)


def _preambles_cut(line: str) -> list[str]:
    """The line cut after a preamble of three words or more that ends with a colon."""
    out, start = [], 0
    for m in _PREAMBLE.finditer(line):
        left = line[start : m.start()]
        if (
            len(left.split()) >= 3
            and not _SCOPING_PREAMBLE.match(left.strip())
            and not _WORDS_OF_OTHERS.search(left)
        ):
            out.append(line[start : m.start()].strip() + ":")  # "Mom texted me:" frames on
            start = m.end()
    return [*out, line[start:]]


#: A message typed with no punctuation (dictation, a phone): where its next clause opens, with "it"
#: as its subject ("… its freezing half the year") or with the user's subject left out ("… been
#: here since uni"), after a word that binds nothing. The comma a writer would type goes there, so
#: the clause is read as its punctuated form is (``run_on_punctuated``). A new subject "i" or "we"
#: is none: after a noun it opens a relative clause as often ("the shelter i volunteer at").
_RUN_ON_OPENING = lazy(
    r"(?<=\w)(?<!\bthat)(?<!\bwhich)(?<!\bwho)(?<!\bif)(?<!\bwhen)(?<!\bbecause)(?<!\bsince)"
    r"(?<!\bhow)(?<!\bwhat)(?<!\bwhere)(?<!\bwhy)(?<!\bthink)(?<!\bsure)(?<!\bknow)(?<!\bguess)"
    r"(?<!\bsay)(?<!\bsaid)(?<!\bsays)(?<!\bmean)(?<!\band)(?<!\bbut)(?<!\bor)(?<!\bso)"
    r"(?<!\bthan)(?<!\bas)(?<!\bwhether)(?<!\buntil)(?<!\bbefore)(?<!\bafter)(?<!\bwhile)"
    r"(?<!\bonce)(?<!\bunless)(?<!\bthough)(?<!\bwish)(?<!\bhope)(?<!\bbet)(?<!\bfeel)"
    r"(?<!\bthe)(?<!\ba)(?<!\bam)(?<!\bdo)(?<!\bdid)(?<!\bcan)(?<!\bwould)(?<!\bcould)"
    # "… have been", "… i've always been", "… it's just been": "been" after its auxiliary
    r"(?<!\bhave)(?<!\bhas)(?<!\bhad)(?<!ve)(?<!'s)(?<!'d)(?<!\bnever)(?<!\bjust)(?<!\balways)"
    r"(?<!\bnot)(?<!\bever)(?<!\bonly)(?<!\balready)(?<!\bstill)(?<!\bmight)(?<!\bmust)"
    r"(?<!\bshould)(?<!\bwill)(?<!\bto)(?<!\bmay)(?<!\bthey)(?<!\bshe)(?<!\bhe)(?<!\bwe)"
    r"\s+(?=(?P<s>anyway|(?:can|could|would|will) you)\s|"
    r"(?:it's|been)\s|"
    # "its" typed for "it's", never its possessive ("stores its data"): before what follows a verb
    r"its\s+(?:so|too|really|very|just|a|an|the|not|been|always|never|kinda|pretty|super|quite|"
    r"like|getting|gonna|going)\s)",
    re.I,
)
#: Punctuation inside a sentence: a writer who typed it typed the clauses' commas too.
_PUNCTUATED = lazy(r"[,;:()\u2013\u2014]|\s-\s")
#: A message with no mark of punctuation at all, but its apostrophes: typed as dictation gives it.
_UNPUNCTUATED = lazy(r"^[^.,;:!?()\u2013\u2014\"]*$")


def run_on_punctuated(sentence: str) -> list[str]:
    """A sentence typed with no punctuation inside it, of eight words or more, as its writer would
    have punctuated it: a comma where each run-on clause opens (``_RUN_ON_OPENING``) and a new
    sentence where a request opens ("… anyway can you help me plan …"), each after three words
    or more; the sentence as it is when it has its own punctuation. The rest of the clause stage
    then reads it as the punctuated form ("i live in krakow been here since uni" as "i live in
    krakow, been here …")."""
    if _PUNCTUATED.search(sentence) or len(sentence.split()) < 8:
        return [sentence]
    out, text, start = [], "", 0
    for m in _RUN_ON_OPENING.finditer(sentence):
        if len(sentence[start : m.start()].split()) < 3:
            continue
        if m.group("s"):
            out.append(text + sentence[start : m.start()] + ".")
            text = ""
        else:
            text += sentence[start : m.start()] + ","
        start = m.start()
    return [*out, (text + sentence[start:]).strip()]


def sentences_of(block: str) -> list[str]:
    run_on = _UNPUNCTUATED.match(block) is not None
    out = []
    for line in block.split("\n"):
        parts = [
            p.strip()
            for cut in _preambles_cut(line)
            for q in _SENTENCE_SPLIT.split(cut)
            for p in (run_on_punctuated(q.strip()) if run_on else [q])
            if p.strip()
        ]
        for i, sentence in enumerate(parts):
            if i < len(parts) - 1 and sentence.endswith(";") and not CODE.search(sentence[:-1]):
                # a semicolon between two clauses of prose ends the first one; only at a line's end
                # (or beside other code) is it code's
                sentence = sentence[:-1] + "."
            out.append(sentence[:_MAX_SENTENCE])
    return out


_CLAUSE_SPLIT = lazy(
    r",\s+(?=(?:and|but|so|because|'cause|cause|though|although)\s+i\b|so (?:that|it|this)\b)|"
    r"(?<!\s)\s+[-–—]\s+"
    # ", so keep that in mind if I ask …": a consequence, its mood its own
    r"|,\s+(?=so\s+(?!(?:much|many|far|long|well|good|often|hard|bad)\b))"
    # "…, because half the team is in Manila": a reason, its mood its own
    r"|(?<![,\s])(?:\s*+,)?\s++(?=because\s)"
    # "I'm originally from Da Nang but I've been living in Hanoi": a contrast opens a clause of
    # the user's own, with or without its comma
    r"|(?<=\w\w)\s+(?=but\s+(?:i|i'm|i've|i'd|we|we're|we've)\s)",
    re.I,
)
#: A comma before a new subject opens a new main clause ("I haven't eaten meat in ten years, I'm
#: vegetarian"), when the words before it are a clause of their own (three words or more:
#: "Sometimes,
#: I …" and "As a kid, I …" stay whole, their adverb reaching the rest).
_NEW_SUBJECT = lazy(
    r",\s+(?=(?:(?:and |but )?now )?"
    r"(?:i'm|i am|i've|i have|i'd|i|we're|we are|we|my|he|she|he's|she's|they|they're)\s|"
    r"(?:mostly|usually|sometimes|often)\s+(?:i|we)\b|"
    # the user's subject left out before a move ("not in bologna anymore, moved to verona")
    r"(?:(?:just|recently|finally) )?(?:moved|relocated) (?:back )?to\s|(?:living|based) in\s|"
    # a clause of its own with a subject named by its noun: "big fan of Ghibli, Spirited Away is
    # my favourite film"
    r"(?!(?:it|that|this|there|which|who|what|so|and|but|or|not)\b)(?:[\w'-]+\s+){1,3}(?:is|are)"
    r"\s+(?:my|our)\s|"
    # a diet said with no subject after the user's clause ("…, fully vegan")
    r"(?:(?:fully|strictly|completely|totally) )?(?:vegan|vegetarian|pescatarian)\s*[.!]*$)",
    re.I,
)
#: A report with nothing after its verb reaches the clause before ("…, he said", "…, my brother
#: thinks"); one with its own object is a clause of its own ("…, my doctor told me to watch the
#: carbs").
_BARE_REPORT = lazy(
    r"^\s*(?:he|she|they|my \w+|(?-i:[A-Z])\w+) (?:said|says|thinks|thought|claims|claimed|told me|"
    r"wrote|"
    r"insists|believes|reckons)\s*[.!]*$",
    re.I,
)
_CONDITIONAL = lazy(
    r"^(?:if|when|whenever|unless|once|whether|suppose|supposing|as soon as|in case)\b", re.I
)
_CONJUNCTION = lazy(r"^(?:and|but|so|because|'cause|cause|though|although)\s+", re.I)


def clauses(sentence: str) -> list[str]:
    """A sentence's main clauses, each read on its own ("Dance is my passion, and I'm gonna …": the
    plan does not hide the fact). A conditional sentence stays whole: its "if" covers every clause.
    """
    if _CONDITIONAL.match(sentence):
        return [sentence]
    parts = []
    for part in _CLAUSE_SPLIT.split(sentence):
        for piece in (c for p in _at_new_subjects(part.strip()) for c in coordinated_clauses(p)):
            run_on = _RUN_ON.split(piece) if _RUN_ON_HEAD.match(piece) else [piece]
            parts += [p.strip() for p in run_on]
    parts = [f for p in parts for f in _fragments(p)]
    return [d for p in parts if p for d in _diet_denials(_CONJUNCTION.sub("", p))]


#: Where a second main clause is joined by "and" (with or without its comma): the words after it
#: open with a subject and its verb ("I'm Deaf and ASL is my first language", "I'm divorced and I
#: have a son", "we deploy to AWS, and the services run on ECS"), or with the user's verb and the
#: subject left out ("I'm Deaf and use BSL day to day"). No list of connectives: the shape of the
#: words after "and" decides.
_AND_CLAUSE = lazy(
    # "Priya and I are divorced": "and I are" joins two subjects, no clauses
    r"(?<=\w)\s*,?\s+and\s+(?=(?P<s>(?:i(?!\s+(?:are|were|both)\b)|i'm|i've|i am|i have|we|we're|"
    r"we've|we are)\s"
    r"|(?:my|our|the|his|her|their)\s+(?:[\w'-]+\s+){0,3}?(?:is|are|was|has|have|lives?|works?|"
    r"runs?|uses?|stays?|starts?|goes|go|takes?|gets?|needs?|handles?|sits?|hosts?)\s"
    r"|(?-i:[A-Z])[\w-]*(?:\s+[\w-]+){0,2}\s+(?:is|are)\s+(?:my|our)\s)"
    r"|(?P<v>(?:use|carry|speak|sign|keep|own|teach|play|run|have|mix|record|write|volunteer|"
    r"coach|train|grow|ride|drive|cook|bake|work from|live with|"
    # twelfth round: the places and work of a statement after one of the user's ("I work as a
    # teacher and live in Porto", "I'm a nurse and work nights at St Mary's")
    r"live in|live near|live outside|work at|work as|work for|work in|"
    # fourteenth round: where the user grew up after where they were born ("I was born in Bombay
    # and grew up in Lisbon")
    r"grew up in|grew up near|was raised in)\s))",
    re.I,
)
#: A state of the user's ("I'm Deaf", "I'm allergic to peanuts") before which a second verb may
#: leave its subject out: "I'm Deaf and use BSL", "… and carry an EpiPen".
_I_AM_STATE = lazy(r"^(?:i'm|i am)\s", re.I)
#: A statement of the user's own in the present before "and" ("I work as a teacher and live in
#: Porto", "I teach maths and coach the school team"): the second verb's subject is the user too.
_I_STATE = lazy(
    r"^i (?:also |currently |still )?(?:work|live|teach|speak|study|run|own|keep|use|coach|"
    r"volunteer|manage)\s|^i was born\s",
    re.I,
)
#: The words before "and" are a clause: the user as a pronoun subject, or a verb of being or
#: having after "my …" ("my first language is …"); "my husband Kwame" is a subject only.
_HAS_VERB = lazy(
    r"^(?:i|i'm|i am|i've|i have|we|we're|we are|we've)\s|\b(?:is|are|was|were|has|have|had)\b",
    re.I,
)
#: A cue of change or an ending in the part ("I quit teaching in June and I'm a video editor now").
_CHANGED = lazy(
    rf"{CHANGE_CUE.pattern}|\b(?:quit|left|stopped|gave up|retired|resigned|no longer)\b", re.I
)
_USER_FIRST = lazy(r"^(?:i|i'm|i am|i've|i have|we|we're|we are|we've|my|our)\b", re.I)


def coordinated_clauses(part: str) -> list[str]:
    """The part cut where "and" joins a second main clause to one that opens with the user (see
    ``_AND_CLAUSE``), when each side is a statement of its own: a hedge, a plan or a question on
    either side keeps the part whole, so the mood reaches both."""
    if not _USER_FIRST.match(part) or _CONDITIONAL.match(part) or _CHANGED.search(part):
        return [part]  # a change is read whole: what ended and what began are one correction
    out: list[str] = []
    start = 0
    for m in _AND_CLAUSE.finditer(part):
        left = part[start : m.start()].strip()
        right = part[m.end() :].strip()
        if m.group("v"):
            if not (_I_AM_STATE.match(left) or _I_STATE.match(left)):
                continue  # "we had to dig deep and keep on pushing": one clause, its subject's
            right = f"I {right}"
        if len(left.split()) < 2 or len(right.split()) < 3 or not _HAS_VERB.search(left):
            continue  # "my husband Kwame and I have twins": the left is a subject, no clause
        if not statement(left) or not statement(right) or _mood(right):
            return [part]  # "I think I'm Deaf and …", "… and I might move": one mood for both
        out.append(left)
        start = m.end()
        if m.group("v"):
            out.append(right)
            return out  # a verb with its subject left out ends the cutting: the rest is its own
    return [*out, part[start:].strip()] if out else [part]


def _fragments(part: str) -> list[str]:
    """A list of fragments with no subject, each one the shorthand reads ("Married, no kids, two
    cats", "Vegan, allergic to nuts"), cut at its commas; the part as it is when any item is
    none."""
    items = [i.strip().rstrip(".!") for i in part.split(",")]
    if len(items) < 2:
        return [part]
    titled = titled_here(items[0]) or opening_role(items[0], items[1])
    if titled:  # "Nurse here, ICU, nights", "ux researcher, ~5 yrs in": an introduction
        return [titled, part.split(",", 1)[1].strip()]
    read = [household(i) or with_subject(i) for i in items]
    if any(not i or said == i for i, said in zip(items, read)):
        return [part]
    return read


#: A diet and what it leaves out, said as a list with no verb: "Vegetarian, no eggs either", "vegan
#: since 2019, and no honey either", "jain veg, no onion garlic or root veggies".
_DIET_LIST = lazy(
    r"^(?P<h>[^,]{0,60}?\b(?:vegan|vegetarian|veggie|veg|pescatarian|halal|kosher|plant-based|"
    r"gluten-free|dairy-free)\b[^,]{0,30}?)"
    r"(?P<d>(?:,\s*(?:and\s+)?(?:also\s+)?no\s+[a-z][a-z -]{1,30}?"
    r"(?:\s+either|\s+too|\s+as well)?)+)"
    r"\s*[.!]*$",
    re.I,
)
_DENIED = lazy(
    r",\s*(?:and\s+)?(?:also\s+)?no\s+(?P<x>[a-z][a-z -]{1,30}?)(?:\s+either|"
    r"\s+too|\s+as well)?\s*(?=,|$)",
    re.I,
)
#: What a diet leaves out is a food or a drink, never a person, a thing owned or a worry.
_NOT_FOOD = lazy(
    r"\b(?:kids?|children|child|pets?|cars?|jobs?|problems?|issues?|worries|pressure|stress|time|"
    r"money|exceptions?|excuses?|thanks|way|idea|clue|need|rush|pun|judg\w*|offen[cs]e|"
    r"complaints?|regrets?|plans?)\b",
    re.I,
)
_DRINKS = frozenset("alcohol booze caffeine coffee beer wine spirits liquor soda fizzy".split())


def _diet_denials(part: str) -> list[str]:
    """A diet said with what it leaves out, cut into the diet and one "I don't eat X" clause a
    thing left out: the rules read each; the part as it is when it is none."""
    m = _DIET_LIST.match(part.strip())
    if m is None:
        return [part]
    out = [m.group("h").strip()]
    for d in _DENIED.finditer(m.group("d")):
        food = d.group("x").strip()
        if _NOT_FOOD.search(food) or len(food.split()) > 4:
            return [part]
        verb = "drink" if food.lower() in _DRINKS else "eat"
        out.append(f"I don't {verb} {food}")
    return out


#: A second clause run on with no comma and no conjunction, its subject a pronoun or left out:
#: "cant stand coriander tastes like soap to me", "I dislike mushrooms they're slimy". It is a
#: reason or a remark of its own; the first clause ends before it when it opens with the user or a
#: feeling (``_RUN_ON_HEAD``: "the soup tastes like soap" is one clause) and no "that", "if" or
#: "because" binds the second to it.
_RUN_ON_HEAD = lazy(
    r"^(?:i|i'm|i am|we|we're|(?:really |just )?(?:can'?t|cannot) stand|hate|love|like|dislike|"
    r"adore|not a fan of|no fan of)\b",
    re.I,
)
_RUN_ON = lazy(
    r"(?<=\w{3})(?<!\bthat)(?<!\bwhich)(?<!\bif)(?<!\bwhen)(?<!\bbecause)(?<!\bsince)"
    r"(?<!\bhow)(?<!\bwhat)(?<!\bwhere)(?<!\bthink)(?<!\bsure)(?<!\bknow)(?<!\bguess)\s+"
    r"(?=(?:(?:it|they|this|that|he|she)\s+)?(?:tastes?|smells?|looks?|sounds?|feels?) like\b|"
    r"(?:it|they|this|that)\s+(?:makes?|gives?) me\b|"
    r"(?:it's|it is|they're|they are)\s+(?:(?:so|too|really|very|just|always|kinda|super|way|"
    r"pretty|literally)\s+)?(?:\w{3,}y|gross|bitter|awful|horrible|disgusting|boring|"
    r"overrated|amazing|delicious|great|the best|the worst)\b)",
    re.I,
)


#: The words before the comma open with their own subject: a clause, not an adverbial ("From now on,
#: we …", "Sometimes, I …").
_LEAD = r"^(?:(?:honestly|actually|ok|okay|so|well|also|oh|anyway|update|btw)[,:]?\s+)?"
_OWN_SUBJECT = lazy(
    rf"{_LEAD}(?:(?:i|i'm|i've|i'd|we|we're|we've|my|our)\b"
    # "Not Krakow anymore actually, we relocated …": the old value denied, a clause of its own
    r"|not [\w'’ -]{2,40}? any ?more\b)",
    re.I,
)


#: A move with its subject left out: the subject is the clause before's, so it must be the user.
_DIET_AFTER = lazy(
    r"(?:(?:fully|strictly|completely|totally) )?(?:vegan|vegetarian|pescatarian)\b", re.I
)
_MOVE_LEFT_SUBJECT = lazy(
    rf"(?:(?:just|recently|finally) )?(?:moved|relocated) |(?:living|based) in |"
    rf"{_DIET_AFTER.pattern}",
    re.I,
)
#: What the clause before a bare diet must be about.
_ABOUT_EATING = lazy(r"\b(?:eat|eating|ate|meat|animal products|dairy|fish|diet)\b", re.I)
#: The user as the subject (not "my sister"), or the old value denied.
_USER_SUBJECT = lazy(
    rf"{_LEAD}(?:(?:i|i'm|i've|we|we're|we've)\b|not [\w'’ -]{{2,40}}? any ?more\b)",
    re.I,
)
#: An instruction to the agent opening the words before the comma ("switch to Celsius, …").
_TO_AGENT_FIRST = lazy(
    r"^(?:(?:actually|ok|okay|so|please|pls|and|always|never)[,]?\s+)*(?:switch|change|go back|use|"
    r"reply|answer|respond|keep|write|call me|give me|finish|end|close|start|include|skip|avoid)\b",
    re.I,
)
#: A request said without a verb of answering: "No emojis please, I copy …", "please short
#: answers, I'm on …" ("no caffeine for me, I'm pregnant" is the user's own rule: none).
_BARE_REQUEST = lazy(
    r"^(?:please|pls)\s+[a-z]+(?:\s+[a-z]+){0,3}$|^[a-z]+(?:\s+[a-z]+){1,3},?\s+(?:please|pls)$",
    re.I,
)
#: A taste said after a request ("no bullet points please, I prefer normal text"): about the
#: answers, the request's, not a taste of the user's life.
_ANSWER_TASTE = lazy(
    r"^\s*(?:i|i'd|i would)\s+(?:really |much )?(?:prefer|like|want|need|rather|love|hate)\b",
    re.I,
)
#: A hedge that reaches back to the clause before ("…, I guess", "…, if that's ok").
_HEDGE_BACK = lazy(
    r"\b(?:i think|i guess|i suppose|not sure|i might be wrong|maybe|probably|if (?:that's|it's|"
    r"you)|"
    r"or not|for now|just this once|for this)\b",
    re.I,
)


def _at_new_subjects(part: str) -> list[str]:
    """The part cut at each comma before a new subject, where the words before are a clause of their
    own and the clause after is no hedge, plan or question: "…, I might be wrong though", "…, I
    guess" reach the earlier clause, so the part stays whole there."""
    cuts = [m for m in _NEW_SUBJECT.finditer(part)]
    out: list[str] = []
    start = 0
    for i, m in enumerate(cuts):
        left = part[start : m.start()].strip()
        end = cuts[i + 1].start() if i + 1 < len(cuts) else len(part)
        right = part[m.end() : end]
        own = _OWN_SUBJECT.match(left) or with_subject(left) != left
        if _MOVE_LEFT_SUBJECT.match(part, m.end()) and not _USER_SUBJECT.match(left):
            continue  # "my sister is in Rome, moved there in May": the sister moved
        if _DIET_AFTER.match(part, m.end()) and not _ABOUT_EATING.search(left):
            continue  # "I love cooking, vegetarian": a diet only after words about eating
        request = _TO_AGENT_FIRST.match(left) or (
            _BARE_REQUEST.match(left) and not _ANSWER_TASTE.match(right)
        )
        if request and not _HEDGE_BACK.search(right):
            # "Actually switch to Celsius, I'm trying to get used to it": the plan is the user's,
            # the instruction stands
            out.append(left)
            start = m.end()
        elif len(left.split()) >= 3 and own and not _mood(_TRAILING_HEDGE.sub("", right)):
            out.append(left)
            start = m.end()
    out.append(part[start:].strip())
    return out


def _mood(clause: str) -> bool:
    """A hedge, a plan, a guess or a question: a mood that may reach the clause before."""
    return bool(
        clause.rstrip().endswith("?")
        or _BARE_REPORT.match(clause)
        or _HEDGE.search(clause)
        or _HYPOTHETICAL.search(re.sub(r"\b(?:would|'d) rather\b", "prefer", clause, flags=re.I))
    )


#: A hedge that opens a trailing phrase of its own ("…, mostly the morning shift", "…, mostly
#: Coltrane and Bill Evans") qualifies that phrase, not the clause before it.
_TRAILING_HEDGE = lazy(
    r",\s*(?:(?:mostly|usually|sometimes|often|occasionally|especially|mainly)\s+(?!i\b|"
    # "…, mostly in Paris": a hedge on the head's place ("I live in Berlin, mostly in Paris")
    r"we\b|in\b|at\b|near\b)\w+(?:\s+\w+)+[^,]*|"
    r"\w+(?:\s+\w+)?\s+(?:mostly|usually|mainly))\s*[.!]?$",
    re.I,
)


@dataclass(frozen=True)
class Clause:
    """One main clause of a message, ready for the rules."""

    text: str
    opens: bool  # it opens its sentence (an instruction to the agent must)
    passing: bool  # about a passing state ("today", "this week"): dated facts only
    old: str | None  # the line it says it replaces ("(replaces: …)")
    correction: bool  # said with a cue of change ("Actually, …", "now", "not X but Y")
    presupposed_only: bool  # a plan or a wish: only what a possessive presupposes holds
    message: str = ""  # the whole message, for a rule that reads its context
    #: under a hedge ("… so pescatarian now I guess"): what it ends is sure, what it states is not
    ends_only: bool = False
    #: a request to the agent said politely ("could you keep answers short?"): only a rule for the
    #: agent is read from it, and no free "Always …" one
    polite: bool = False
    #: a habit said with how often ("I mostly work from home", "… most days"): only a line that
    #: keeps the "mostly" is sure (``statements``), never a kind's line without it
    frequency: bool = False


def message_clauses(message: str) -> list[Clause]:
    """The clauses of a message that are the user's own statements, each prepared for the rules: a
    story, a task on a text, a retraction, code or a clause that states nothing gives none. A cue of
    correction that opens the message ("Changed my mind, …", "Update: …") reaches all of it."""
    sentences = sentences_of(spelled(message))
    corrects = bool(sentences) and bool(CORRECTION_CUE.match(_without_fillers(sentences[0])))
    out = []
    for sentence, in_frame in zip(sentences, framed(sentences)):
        for i, clause in enumerate(clauses(sentence)):
            if in_frame or CODE.search(clause):
                continue  # a story, a task on a text, a rumour, a retracted line; code, markup
            prepared = _prepare(clause, opens=i == 0)
            if prepared is None or prepared.ends_only or prepared.presupposed_only:
                # a remark after the head sank it: the head alone, when the remark is not on it
                head = unsunk_head(clause)
                unsunk = _prepare(head, opens=i == 0) if head else None
                if unsunk is not None and not (unsunk.ends_only or unsunk.presupposed_only):
                    prepared = unsunk
            if prepared is not None:
                out.append(
                    replace(prepared, message=message, correction=prepared.correction or corrects)
                )
    return out


#: A hedge of the user's own on what they now are ("so pescatarian now I guess"), not a report.
_OWN_HEDGE = lazy(r"\b(?:i guess|i think|i suppose|kinda|more or less|i reckon|mostly)\b", re.I)


#: A hedge of proportion inside a trailing phrase ("…, working mostly on X", "…, mostly fintech
#: clients, no agency"): it qualifies that phrase, not the head before the comma.
_PROPORTION = lazy(r"\b(?:mostly|mainly|usually|often|sometimes|especially|occasionally)\b", re.I)


_ELSEWHERE = lazy(
    r"^\s*(?:mostly|mainly|usually|often|sometimes|especially|occasionally)\s+(?:in|at|from|on|"
    r"with|for|to|near|by|between)\b",
    re.I,
)


def _hedged_tail_cut(clause: str) -> str:
    """The clause without a trailing phrase whose only mood is a hedge of proportion, when the head
    before it is a statement with the user as its subject; else the clause as it is."""
    head, sep, rest = clause.partition(", ")
    if not sep or len(head.split()) < 3 or not _USER_SUBJECT.match(head) or not statement(head):
        return clause
    if not _PROPORTION.search(rest) or _HEDGE_BACK.search(rest) or _mood(_PROPORTION.sub("", rest)):
        return clause
    if len(_PROPORTION.sub("", rest).split()) < 2 or _ELSEWHERE.match(rest):
        return clause  # "I live in Berlin, sometimes", "…, mostly in Paris": on the whole clause
    if re.search(r"\bhere\b", head, re.I):
        # "I'm a session violinist here in Istanbul, mostly studio work": the head says where the
        # work is, which the home rules read as a home; unsure, as the whole clause was
        return clause
    return head if not statement(clause) else clause


#: A picture character says nothing a line keeps ("I'm a nurse 😊", "I keep bees 🐝"); laughter
#: (😂, 🤣) and sarcasm (🙄) are read before it goes.
_EMOJI = lazy(
    r"(?<!\s)\s*(?:(?![😂🤣🙄])[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B50\u2B55\u2764]|[\uFE0F\u200D])+"
)
#: A filler closing a clause ("…, tbh", "… lol" over the user's own slip or failure, which
#: ``joking`` let pass): no part of what a line keeps.
_TRAILING_FILLER = lazy(
    rf"(?<![,\s])[,\s]+(?:tbh|ngl|honestly|to be honest|imo|lol|lmao|haha\w*|hehe)\s*(?=[,.!]*$|,)|"
    r"(?<![,\s])[,\s]+(?:and )?(?:all that|and stuff|and so on|etc|that sort of thing|"
    r"that kind of thing)"
    r"\s*[.!]*$|"
    rf"(?<!\s)\s+{_LAUGH}(?=\s*[,.!]*$)",
    re.I,
)


#: How often a habit holds, said by the user of themselves: a frequency, no doubt.
FREQUENCY = lazy(
    r"\b(?:mostly|mainly|usually|generally|typically|normally)\b|\bmost (?:days|of the time|weeks|"
    r"weekends|mornings|evenings|nights)\b",
    re.I,
)
_I_HABIT = lazy(
    r"^i(?:'m| am)?\s+(?:(?:mostly|mainly|usually|generally|typically|normally)\s+)?[a-z]+\b", re.I
)
#: "I'm usually vegetarian": a state said with how often, which a kind's line ("Diet: vegetarian")
#: would state without it.
_USUALLY_AM = lazy(r"^i(?:'m| am)\s+(?:usually|generally|typically|normally)\s+[a-z]", re.I)


def _frequency_only(text: str) -> bool:
    """The clause is the user's habit ("I mostly …", "I … most days") that is no statement only
    through its frequency word, and says no change."""
    if _USUALLY_AM.match(text) and statement(text) and not CHANGE_CUE.search(text):
        return True
    if statement(text) or not _I_HABIT.match(text) or CHANGE_CUE.search(text):
        return False
    head = re.split(r"[,;:(]|\s[-–—]\s", text, maxsplit=1)[0]
    # the frequency in the head a line keeps: "I'm a violinist here, mostly studio work" is none
    return bool(FREQUENCY.search(head)) and statement(FREQUENCY.sub("", text))


def _prepare(clause: str, *, opens: bool) -> Clause | None:
    clause = _EMOJI.sub("", clause).strip()
    clause = _hedged_tail_cut(_TRAILING_HEDGE.sub("", clause))
    passing = temporary(clause)
    text = IDIOM.sub("", QUOTED.sub(" ", TITLE_LIKED.sub(r"\g<pre>\g<t>", clause))).strip()
    old = None
    m = REPLACES.search(text)
    if m:
        old, text = m.group("o").strip(), text[: m.start()]
    text = _without_fillers(text)
    correction = old is not None
    cue = CORRECTION_CUE.match(text)
    if cue:
        correction, text = True, text[cue.end() :]
    text = _diagnosed(_noted(text))
    asked = polite_request(text)
    if asked is not None:
        text = _STANDING_SCOPE.sub("", asked).strip()
        if not text or not statement(text):
            return None
        return Clause(
            text,
            opens,
            passing,
            old,
            correction or bool(CHANGE_CUE.search(text)),
            False,
            polite=True,
        )
    text = _STANDING_SCOPE.sub("", first_person(with_subject(_standing(text)))).strip()
    standing = STANDING_REQUEST.match(text)
    if standing:  # "Could you answer in Spanish from now on?" asks for a standing rule
        text = standing.group("v")
    if text and not statement(text):
        text = modal_tail_cut(text) or text
    presupposed_only = bool(text) and modal_only(text)
    if text and _frequency_only(text):
        # "I mostly work from home": the hedge says how often, not whether; a line keeps it
        return Clause(text, opens, passing, old, correction, False, frequency=True)
    if text and not (presupposed_only or statement(text)) and statement(_OWN_HEDGE.sub("", text)):
        # "started eating fish again so pescatarian now I guess": the hedge is on the new value
        return Clause(text, opens, passing, old, True, False, ends_only=True)
    if not text or not (presupposed_only or statement(text)):
        return None
    if CHANGE_CUE.search(text):
        correction = True
    text = _TRAILING_FILLER.sub("", text).strip()
    if NOT_BUT.search(text):
        correction = True
        text = NOT_BUT.sub(lambda n: n.group("p") or "", text)
    return Clause(text, opens, passing, old, correction, presupposed_only)


#: A rule's standing scope said after it ("… unless I ask for more", "… even if I write in
#: English", "… whatever language I use"): part of the rule, no hypothetical.
_STANDING_SCOPE = lazy(
    r"(?<![,\s])(?:\s*+,)?\s++(?:unless i (?:ask|say|tell|request|want|need|specify)|even "
    r"(?:if|when) i "
    r"(?:write|ask|"
    r"use|message|"
    r"talk|type|speak)|whatever (?:language )?i (?:use|write|type)|no matter (?:what|which) "
    r"(?:language )?i|"
    r"if i ask(?: for (?:it|them|more|details))?\s*[.!]?$)[^.;]*",
    re.I,
)


#: A standing condition before a request ("When I ask coding questions, give me the code first"):
#: the request is a rule the condition scopes, not a hypothetical.
_WHEN_I_ASK = lazy(
    r"^when(?:ever)? (?:i|you) (?:ask|write|want|need|send|give|say|request|message|share|paste|"
    r"mention|"
    r"talk|use|explain|suggest|recommend)\b[^,]{2,80},\s+(?P<rest>(?:please |just )?[a-z].+)$",
    re.I,
)
_RULE_OPENER = lazy(r"^(?:please |just )?(?:no|don't|do not|never|always)\b", re.I)


#: A request to the agent said politely, as a question or a condition: "could you keep answers
#: short?", "would you mind answering in Spanish", "it'd be great if you used bullet points", "if
#: you could skip the emojis, that would help". Group ``v`` is the request, its verb in any form.
_POLITE = lazy(
    r"^(?:(?:hey|hi|so|ok|okay|also|and|oh|one more thing|one thing)[,:\s]+)*(?:"
    r"(?:would|do) you mind(?: please)?\s+(?P<g>[a-z]+ing\s.+?)"
    r"|(?:could|can|would|will) (?:you|u)(?:\s+(?:please|kindly|pls|just))*\s+"
    r"(?P<a>(?!mind\b)[a-z][\w'-]*\s.+?)"
    r"|(?:it(?:'d| would) be (?:great|nice|good|helpful|ideal|lovely|awesome|amazing)|i(?:'d| "
    r"would) (?:really |much )?(?:appreciate it|love it|prefer it|like it)) if you(?: could| would|"
    r" can)?(?: please)?\s+(?P<p>[a-z][\w'-]*\s.+?)"
    r"|if you (?:could|would|can)(?: please)?\s+(?P<c>[a-z][\w'-]*\s.+?),? (?:that|it|this)(?:'d|"
    r" would|'ll| will) (?:really )?(?:help|be (?:great|nice|good|helpful|ideal|appreciated|"
    r"lovely))"
    r")(?:,?\s*(?:please|pls|thanks|thank you))?\s*[?.!]*$",
    re.I,
)
#: What makes "could you …?" a standing request rather than a question about the next answer:
#: "please", "always", a scope ("from now on", "unless I ask", "with me"), the answers named.
_STANDING_MARK = lazy(
    r"\b(?:please|pls|kindly|always|from now on|going forward|in (?:the )?future|unless i|even "
    r"(?:if|when) i|with me|for me|(?:your|all|the) (?:answers|replies|responses))\b",
    re.I,
)
#: The verbs a polite request may open with: what the agent does when it answers, and a few more
#: a request uses ("skip the emojis", "stick to metric").
_REQUEST_VERBS = AGENT_VERBS | frozenset("skip stop leave drop stick go switch limit cap".split())
#: Past forms a request after "if you" takes ("it'd be great if you kept it short").
_IRREGULAR = {
    "kept": "keep",
    "gave": "give",
    "wrote": "write",
    "left": "leave",
    "made": "make",
    "sent": "send",
    "told": "tell",
    "said": "say",
    "stuck": "stick",
    "went": "go",
    "put": "put",
    "read": "read",
    "cut": "cut",
}


def _base_verb(word: str) -> str | None:
    """ "answering", "used", "kept", "skipping" → their base form, when it is a verb a request to
    the agent opens with (``_REQUEST_VERBS``); None otherwise."""
    word = word.lower()
    if word in _REQUEST_VERBS:
        return word
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    for end in ("ing", "ed", "d"):
        if word.endswith(end) and len(word) > len(end) + 1:
            stem = word[: -len(end)]
            undoubled = stem[:-1] if stem[-1] == stem[-2:-1] else stem
            for base in (stem, stem + "e", undoubled):
                if base in _REQUEST_VERBS:
                    return base
    return None


def polite_request(text: str) -> str | None:
    """The imperative a polite request asks for ("could you keep answers short?" → "keep answers
    short"), or None when the text is none or its verb is none the agent follows ("could you help
    me with this?" is a one-off ask, left to the question it is)."""
    m = _POLITE.match(text.strip())
    if m is None:
        return None
    if m.group("a") and not _STANDING_MARK.search(m.group(0)):
        return None  # "Could you keep answers short?" may ask for one answer: a question stays one
    said = next(g for g in m.group("a", "g", "p", "c") if g)
    always, _, rest = said.partition(" ") if said.lower().startswith("always ") else ("", "", said)
    verb, _, rest = rest.partition(" ")
    base = _base_verb(verb)
    if base is None or not rest.strip():
        return None
    return f"{always.lower()} {base} {rest}".strip()


#: A request to keep a statement of the user's in mind, asked ("Could you remember that I'm a Year 2
#: teacher?", "Would you mind remembering that I don't drink alcohol?"): the statement is the
#: user's own, the request only frames it. A bare imperative ("Remember that my flat has no lift",
#: "Please note that our pipeline runs on Airflow") is left whole: the remember rules read it.
_NOTE_THAT = lazy(
    r"^(?:(?:(?:could|can|would|will) (?:you|u)|(?:i'd|i would) (?:really )?appreciate it if you "
    r"(?:could|would|can))(?:\s+(?:please|pls|kindly|just|also))*\s+(?:remember|note|keep in mind|"
    r"bear in mind|make a note)|(?:would|do) you mind (?:remembering|noting|keeping in mind))"
    r"(?:,)?\s+that\s+(?P<s>(?:i|i'm|i've|my|we|we're|our|(?-i:[A-Z])[\w-]+ (?:is|are) my)\b.+?)"
    r"(?:,?\s*(?:please|pls|thanks|thank you))?\s*[?.!]*$",
    re.I,
)


def _noted(text: str) -> str:
    """The statement a request to keep it in mind frames ("could you remember that I …?" → "I
    …"); the text as it is when it is none."""
    m = _NOTE_THAT.match(text.strip())
    return m.group("s") if m else text


#: A diagnosis given by a clinician ("My doctor says I'm prediabetic", "my GP told me in January
#: that I have type 2 diabetes", "The vet says our lab Nala has hip dysplasia"): the finding is the
#: user's fact, told by the one who knows. Only a state after "says/told me/confirmed/diagnosed"
#: (never advice: "says I should …", "told me to …") and never a guess ("thinks", "might").
_DIAGNOSED = lazy(
    r"^(?:my|our|the) (?:doctor|doc|gp|vet|dentist|physio|physiotherapist|cardiologist|"
    r"dermatologist|allergist|specialist|consultant|neurologist|endocrinologist|optician|"
    r"audiologist|paediatrician|pediatrician|psychiatrist|therapist)\s+(?:says|said|told me|"
    r"confirmed|has confirmed|diagnosed me)(?:\s+(?:in|last|this|on)\s+\w+)?(?:\s+that)?\s+"
    r"(?P<s>(?:i'm|i am|i have(?! to\b)|i've got|(?:my|our) (?:[\w'-]+ ){1,3}(?:is|has)\s)"
    r"(?!.*\b(?:should|might|may|could|probably|maybe|possibly|need|needs|must|have to|"
    r"has to)\b).+)$",
    re.I,
)


def _diagnosed(text: str) -> str:
    """The finding a clinician's diagnosis states, as the user's own words; the text as it is when
    it is none."""
    m = _DIAGNOSED.match(text.strip())
    return m.group("s") if m else text


def _standing(text: str) -> str:
    m = _WHEN_I_ASK.match(text)
    if not m:
        return text
    rest = m.group("rest")
    return rest if _RULE_OPENER.match(rest) else f"Always {rest}"


def _without_fillers(text: str) -> str:
    """Leading fillers dropped ("oh,", "btw,"), however many there are."""
    while True:
        stripped = FILLER.sub("", text)
        if stripped == text:
            return text
        text = stripped


#: Where a clause's head ends and a remark on it starts: a comma, a dash, a bracket, or a remark
#: on relevance said with no comma ("timezone GMT+6 if that matters for reminders").
_REMARK_CUT = lazy(
    r"(?<!\s)\s*,\s+|(?<!\s)\s+[-–—]\s+|(?<!\s)\s*\(|\)\s*"
    r"|(?<!\s)\s+(?=in case\b(?! of\b)|if (?:that|it|this)(?: is|'s) (?:useful|helpful|"
    r"important|relevant)\b|if (?:that|it|this) (?:matters|helps|is relevant|makes a "
    r"difference)\b)"
    # "my husky Storm is 3 and he destroys everything lol": a remark on someone else, its own mood
    r"|(?<!\s)\s+(?=and (?:he|she|it|they)(?:'s|'re)?\s)"
    # "khinkali is my favourite food hands down could eat twenty in one go": a run-on remark with
    # its subject left out, opened by a modal
    r"|(?<=\w\w)\s+(?=(?:could|would|can)\s+(?!(?:you|i|we|be|have)\b)[a-z]+\s)",
    re.I,
)
#: A remark that says why the user tells it, or when it matters, and leaves the head as it is: "in
#: case you need it", "if that matters", "if it helps".
_RELEVANCE = lazy(
    r"^(?:in case\b(?! of\b)|if (?:that|it|this)(?: is|'s) (?:useful|helpful|important|"
    r"relevant)\b|if (?:that|it|this) (?:matters|helps|is relevant|makes a difference|"
    r"changes anything)\b|if you (?:need|want|care|wonder|were wondering|must know)\b|"
    r"if i'm (?:being )?honest\b|to be honest\b)",
    re.I,
)
#: A condition, a retraction or an alternative that opens the remark scopes the head: "I eat
#: meat, if it's halal", "I'm vegan, or trying to be", "…, at least on weekdays".
_SCOPES_HEAD = lazy(
    r"^(?:if|unless|as long as|provided|assuming|when|whenever|except|except when|only when|"
    r"only if|or|at least|well|not|though|although|but|until|for now|i think|i guess|i suppose|"
    r"i reckon|i believe|i mean)\b",
    re.I,
)
#: A hedge anywhere in the remark that may be on the head: the user's own doubt, a point in time.
_DOUBT = lazy(
    r"\b(?:i think|i guess|i suppose|i reckon|i believe|not sure|i might be wrong|or not|or so|for "
    r"now|just this once|for this|at least|if (?:that's|it's|you) (?:ok|okay|fine|right|correct|"
    r"true)|or something|who knows|jk|kidding|joking|though|although|except|instead|rather)\b",
    re.I,
)
_PROPORTION_OPENS = lazy(
    r"^(?:mostly|mainly|usually|often|especially|largely|primarily)\s+(?!(?:i|we|i'm|we're)\b)\w",
    re.I,
)
_MODAL_REMARK = lazy(
    r"\b(?:might|would|could|may|will|shall|gonna|going to|soon)\b|'d\b|'ll\b", re.I
)
#: A run-on remark with its subject left out, of what the user can do ("… could eat twenty in one
#: go"): an ability, no plan.
_CAN_RUN_ON = lazy(r"^\s*(?:could|can)\s+(?!(?:you|i|we|be|have)\b)[a-z]+\s", re.I)
_USER_IN = lazy(r"\b(?:i|i'm|i've|i'd|we|we're|we've)\b", re.I)


#: An apology that opens a sentence ("Sorry if I'm slow to reply, …"): its "if" is no condition on
#: what follows it.
_APOLOGY = lazy(r"^\s*(?:sorry|apologies|forgive me)\s+(?:if|for|about)\b", re.I)


def _reaches_back(remark: str) -> bool:
    """Whether a remark that is no statement of its own (a reason, a joke, a hedge, a question)
    may be about the clause before it: then neither is sure."""
    remark = remark.strip(" ,.;:)!")
    if _RELEVANCE.match(remark):
        return False
    bare = _HEDGE.sub(" ", LAUGH.sub(" ", remark))
    if _ELSEWHERE.match(remark):
        return True  # "I live in Berlin, mostly in Paris": on the head's place
    if _PROPORTION_OPENS.match(remark) and bare.split():
        return False  # "…, mostly backend", "…, especially Coltrane": on its own words only
    if len(re.findall(r"[\w'’]+", bare)) < 3 or _SCOPES_HEAD.match(remark) or _DOUBT.search(remark):
        return True  # "…, I guess", "…, lol", "…, if it's halal", "…, or trying to be"
    if remark.endswith("?") and re.search(r"\b(?:that|it|this|those|them)\b", remark, re.I):
        return True  # "I keep bees, is that a problem?": a question about the head
    if _BARE_REPORT.match(remark) or _IRONIC.match(remark) or SARCASM.search(remark):
        return True
    if _MODAL_REMARK.search(remark) and not _CAN_RUN_ON.match(remark):
        # "I work at Google, well, I might soon", "I love sushi, trying it would be fun": a plan or
        # a guess that may be about the head
        return True
    # "…, sometimes I cheat": a hedge or a laugh on the user's own words is on the head too
    return bool(_USER_IN.search(remark) and (_HEDGE.search(remark) or LAUGH.search(remark)))


def unsunk_head(clause: str) -> str:
    """The clause's head when only a remark after it (a reason, a joke, a hedge or a question of
    its own) made the clause no statement: "Arrival is my favourite film, I've watched it maybe
    ten times", "I live in Lisbon, in case you need it for the weather", "learning swahili on
    duolingo, 200 day streak haha". "" when the head is no statement either, or a remark may be
    about it ("I eat meat, if it's halal", "I'm vegan, sometimes I cheat", "I'm a CEO, lol")."""
    if len(clause) > _MAX_SENTENCE or _CONDITIONAL.match(clause):
        return ""
    parts = [p for p in _REMARK_CUT.split(clause) if p and p.strip(" ,.;:")]
    if len(parts) > 1 and _APOLOGY.match(parts[0]):
        parts = parts[1:]  # "Sorry if I'm slow today, my daughter Maya has exams": no condition
    sunk = next((n for n, part in enumerate(parts) if not statement(part)), len(parts))
    if sunk == 0:
        return ""
    head = ", ".join(p.strip() for p in parts[:sunk])
    if not statement(head) or len(head.split()) < 2 or re.search(r"\bhere\b", head, re.I):
        # "a session violinist here in Istanbul, mostly studio work": where the work is, which the
        # home rules would read as a home (``_hedged_tail_cut``)
        return ""
    rest = parts[sunk:]
    if any(not statement(part) and _reaches_back(part) for part in rest):
        return ""
    return head
