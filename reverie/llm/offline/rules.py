"""The offline engine's tables: what a user's sentence says about them, in canonical fact templates.

Precision first. A sentence gives a fact only when all of this holds, else nothing (the words stay
in history, where Recall finds them):

1. It is the user's own present statement: no frame covers its clause (a story, a dream, a task on a
   text, a rumour, a denial, a retraction: ``framing``), it is not a question, not a hypothetical
   ("if", "might", "thinking of"), not reported speech ("she said …"), not a joke or sarcasm marker,
   not code; quoted text is removed first. A clause about a passing state ("today", "this week")
   gives only dated facts. Third-person notes about the user ("User prefers tea", "The user's sister
   …") read as the user's own words.
2. A rule of ``_RULES`` matches, and no negation precedes it (unless the rule is about a negation:
   "I don't like", "no longer").
3. Each captured value is the right *kind* of thing (``_KINDS``), checked against real data where
   there is some (``kinds``): a home is a place a gazetteer knows, an employer an organisation (no
   department, no time zone), a role a job title from ``ROLES`` with no judging word, a language an
   ISO 639-1 one, a relative's name a given name, a tool a technology, a liked thing a noun phrase
   (not "it", "that", "the idea", not something unpleasant). A rule for the agent (SOUL) must be
   addressed to it (``_TO_AGENT``).

``canon`` reads a canonical fact back: which file it belongs to (USER, SOUL, MEMORY) and which
single-valued *slot* (attribute) it fills (``home``, ``employer``, ``database:heron`` …). A fact
replaces another only when it says so: its mark is ``correction`` (a cue of change: "actually",
"now", "moved", "switched", "no longer", "not X but Y", "(replaces: …)") and it fills the same slot,
or it names the old line (``… instead of OLD``).

Marks: identity (name, origin, birthplace, family) ``permanent``; dated things ``ephemeral``;
anything said with a cue of change ``correction``; the rest ``durable``. This is a table of
patterns, not language understanding: it catches the common phrasings and misses the rest, which a
real model handles.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import lru_cache, wraps
from typing import TypeVar

from .dates import DATE_PHRASE, resolve
from .framing import framed, reversed_feeling, temporary
from .kinds import given_name, known_language, known_place, noun

__all__ = [
    "Fact",
    "Canon",
    "extract_facts",
    "leaves_unsure",
    "canon",
    "third_person",
    "first_person",
    "normalize",
    "is_suspicious_rule",
    "strip_instead",
    "dated",
    "is_canonical",
    "attribute",
    "value_words",
]

USER, SOUL, MEMORY = "USER", "SOUL", "MEMORY"


@dataclass(frozen=True)
class Fact:
    text: str
    mark: str  # permanent | durable | ephemeral | correction


@dataclass(frozen=True)
class Canon:
    target: str  # USER | SOUL | MEMORY
    slot: (
        str | None
    )  # single-valued attribute, or None for facts that may coexist (likes, rules, tools in use)
    replaces: str | None = None  # the old line's text ("… instead of X")
    removes: str | None = None  # the line a "No longer …" fact retracts


_T = TypeVar("_T")


def _memo(fn: Callable[[str], _T]) -> Callable[[str], _T]:
    """Cache a pure function of one short string (a fact or a file line: asked again for every line
    of every file); a long one is computed each time, so the cache stays small."""
    cached = lru_cache(maxsize=4096)(fn)

    @wraps(fn)
    def call(text: str) -> _T:
        return cached(text) if len(text) <= 300 else fn(text)

    return call


def _words(text: str) -> frozenset[str]:
    return frozenset(text.lower().split())


# -- word tables --------------------------------------------------------------------------------------------------
LANGUAGES = _words(
    "english german french spanish italian portuguese dutch japanese chinese mandarin cantonese korean russian polish "
    "swedish norwegian danish finnish greek turkish arabic hebrew hindi ukrainian czech hungarian romanian catalan "
    "basque welsh irish vietnamese thai indonesian swahili"
)
NATIONALITIES = _words(
    "american british canadian australian irish scottish welsh german french spanish italian portuguese dutch "
    "belgian swiss austrian polish swedish norwegian danish finnish greek turkish russian ukrainian indian chinese "
    "japanese korean brazilian mexican argentinian nigerian kenyan egyptian moroccan israeli iranian european "
    "asian african latin catholic jewish muslim christian buddhist hindu atheist"
)
#: Job titles: "I work as a …" / "I'm a …" only gives a role when the phrase ends in one of these.
ROLES = _words(
    "engineer developer programmer designer teacher professor lecturer doctor physician nurse surgeon dentist "
    "pharmacist manager director scientist researcher student writer author journalist editor lawyer attorney "
    "consultant analyst architect artist musician photographer accountant founder co-founder cto ceo cfo coo vp "
    "intern freelancer contractor carpenter electrician plumber chef cook baker farmer pilot translator "
    "therapist psychologist librarian economist mechanic technician administrator sysadmin tester recruiter "
    "salesperson marketer entrepreneur veterinarian paramedic firefighter officer lead"
)
#: Words a proper name (place, organisation, person, project) never is: times, greetings,
#: nationalities, feelings.
TIME_WORDS = _words(
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july august "
    "september october november december jan feb mar apr jun jul aug sep sept oct nov dec christmas easter "
    "today tomorrow tonight yesterday noon midnight morning evening night weekend weekends am pm now then"
)
NOT_NAMES = (
    TIME_WORDS
    | NATIONALITIES
    | LANGUAGES
    | _words(
        "i me you he she it we they the a an this that so not no yes ok okay fine good great sorry sure here there "
        "back done ready tired happy sad busy home work just very really also still well hi hello hey thanks "
        "it's i'm im user assistant someone somebody nobody everyone god lol haha"
    )
)
#: The first word of a liked or used "thing" that makes it no thing at all ("I like that", "we use
#: it daily").
VAGUE = _words(
    "it it's its that this these those them they you your yours he him she her his hers we our ours their theirs "
    "i my mine me not no never "
    "what how when where why who whom whatever whenever which something anything nothing everything "
    "someone anyone nobody everyone all some any none one ones to a an the being doing going getting having "
    "feeling thinking working living trying when if here there so too such more most less least same other "
    "each every either neither both lots much many few little bit way idea whichever still up down out "
    "around alone back anymore again already"
)
#: A "like" of something unpleasant is usually sarcasm ("I just love waiting in traffic"): unsure,
#: so no fact.
UNPLEASANT = _words(
    "waiting wait queue queues traffic stuck delay delays delayed broken bug bugs crash crashes crashing outage "
    "outages taxes tax paperwork overtime deadline deadlines mondays meetings spam ads hold debugging rain "
    "commute commuting lag failing fails failure errors flu headache headaches hangover hangovers "
    "crying screaming yelling shouting venting sobbing "  # ways to let off steam, not pastimes
    "fighting arguing bickering teasing quarreling quarrelling "  # done to someone, not a pastime
    "war violence pain suffering hate hatred spite misery doom gloom cruelty abuse"  # harm, said in jest
)
#: Technologies: a tool in use is one of these or a capitalised name ("we use Slack", not "we use a
#: hack").
TECH = _words(
    "python rust go golang java kotlin swift scala ruby php perl haskell elixir erlang clojure typescript "
    "javascript node nodejs deno bun c c++ c# sql bash zsh fish docker podman kubernetes k8s helm terraform "
    "ansible postgres postgresql mysql mariadb sqlite mongodb redis cassandra clickhouse duckdb timescaledb "
    "elasticsearch opensearch kafka rabbitmq nats grpc graphql rest react vue svelte angular django flask fastapi "
    "rails spring laravel express nextjs nginx apache caddy linux ubuntu debian fedora arch macos windows git "
    "github gitlab bitbucket jenkins circleci aws gcp azure vim neovim emacs vscode jira slack notion figma "
    "airflow dbt spark pandas numpy pytorch tensorflow alembic pytest celery s3 bigquery snowflake dynamodb"
)
DATABASES = _words(
    "postgres postgresql mysql mariadb sqlite mongodb redis cassandra clickhouse duckdb timescaledb "
    "elasticsearch opensearch dynamodb bigquery snowflake oracle couchdb neo4j influxdb firestore supabase "
    "cockroachdb s3"
)
KIN = (
    "wife|husband|partner|girlfriend|boyfriend|fiancée?|son|daughter|brother|sister|mother|father|mom|mum|dad|"
    "grandmother|grandfather|grandma|grandpa|uncle|aunt|cousin|niece|nephew|boss|manager|dog|cat|puppy|kitten|"
    "parrot|hamster|rabbit|horse"
)
PETS = "dog|cat|puppy|kitten|parrot|hamster|rabbit|horse|turtle|tortoise|snake|lizard|guinea pig|ferret|bird|fish"
#: How people say "dog" and "cat" to friends: a pet held is written by its kind.
PET_TALK = {"pup": "dog", "pups": "dogs", "doggo": "dog", "kitty": "cat", "kitties": "cats"}
_PETS_PLURAL = (
    "dogs|cats|puppies|kittens|parrots|hamsters|rabbits|horses|turtles|tortoises|snakes|lizards|guinea pigs|"
    "ferrets|birds|fish|pups|kitties"
)
#: "a dog", "a pup", "two turtles": a pet held, counted.
_PET_NP = rf"(?:an? (?:{PETS}|pup|doggo|kitty)|(?:two|three|four|five) (?:{_PETS_PLURAL}))"
#: The pet ends its noun phrase and its clause ("a cat allergy", "a dog on my lap" are none).
_PET_END = r"(?=\s*(?:[.!;]|$)|,\s*(?:and|but|so|which|they|he|she|both)\b|\s+(?:and (?:i|we|they|he|she|it)|but|so|who|that)\b)"
#: Colours: "Blue is my favourite colour" (said with the word: "Red's my fave" is as often wine).
COLOURS = (
    "red|orange|yellow|green|blue|purple|violet|pink|black|white|grey|gray|brown|teal|turquoise|navy|"
    "lavender|gold|silver"
)
#: Genres of films, books and games: "action and sci-fi movies" is two likes, "black and white
#: movies" none.
GENRES = (
    "action|adventure|animated|anime|comedy|crime|detective|documentary|drama|dystopian|fantasy|historical|horror|"
    "indie|mystery|romance|romantic|sci-fi|science fiction|spy|superhero|thriller|war|western|zombie"
)
INSTRUMENTS = (
    "guitar|bass|piano|keyboard|violin|viola|cello|double bass|clarinet|flute|oboe|bassoon|saxophone|sax|"
    "trumpet|trombone|tuba|french horn|drums|ukulele|harp|banjo|mandolin|harmonica|accordion|organ"
)
#: An instrument, with its kind when said ("acoustic guitar", "grand piano"; not "air guitar").
_INSTRUMENT = (
    rf"(?:(?:acoustic|electric|classical|bass|lead|rhythm|grand|upright|jazz) )?(?:{INSTRUMENTS})"
)
#: The word after an instrument or a sport, checked to be no noun ("Guitar Hero", "tennis elbow").
_NP_END = r"\b(?:[ -](?P<n>[a-z][\w'’-]*))?"
#: Years ago, and nothing after it that ends the pursuit ("… but quit last year", "… then stopped").
_YEARS_AGO = (
    r"(?:about |around |over |some |almost |nearly |like )?(?:\d+ |a few |several |many |a couple of |two |three |"
    r"four |five |six |seven |eight |nine |ten |\w+teen |twenty )?years ago\b"
    r"(?!.*\b(?:quit|stopped|gave up|give up|until|then|dropped|abandoned|but)\b)"
)
SPORTS = (
    "tennis|basketball|football|soccer|volleyball|baseball|hockey|golf|rugby|cricket|badminton|squash|"
    "table tennis|ping pong|chess|padel|pickleball|handball|water polo|softball"
)
PRACTICES = (
    "yoga|pilates|kickboxing|boxing|karate|judo|taekwondo|jiu-jitsu|jiu jitsu|aikido|kung fu|crossfit|"
    "tai chi|capoeira|fencing|archery|aerial yoga|parkour|muay thai|triathlons?|marathons?"
)
GROUPS = (
    "brigade|club|team|choir|band|league|society|association|union|crew|orchestra|ensemble|troupe|squad|"
    "committee|council|board|guild|chapter"
)
VENTURES = (
    "store|shop|business|studio|bakery|restaurant|café|cafe|company|startup|podcast|blog|channel|clinic|"
    "practice|agency|gym|salon|bar|brewery|farm|food truck|boutique|nonprofit|charity"
)
_CADENCE = (
    r"(?:every|each) (?:other |second |single )?(?:day|weekday|week|month|quarter|year|morning|afternoon|evening|"
    r"sprint|release|\w+day|two|three|four|six|\d+)|(?:once|twice|three times) a (?:day|week|month|quarter|year|"
    r"sprint)|weekly|daily|monthly|biweekly|bi-weekly|fortnightly|quarterly|on (?:mondays|tuesdays|wednesdays|"
    r"thursdays|fridays|saturdays|sundays)"
)
#: A business ends its phrase: "I started a business plan" runs none.
_VENTURE_END = (
    r"(?=\s+(?:and|but|in|with|called|named|last|this|that|on|for|from|which|where|since|a few|two|three|"
    r"years?|months?|weeks?|not|so|because|near|downtown)\b|\s*[,.;:!?()\-–—]|\s*$)"
)
#: What a team holds on a cadence ("we have a retro every Friday"), not "we have fun every time".
_TEAM_EVENT = (
    r"(?:a |an |our |the )?(?:daily |weekly |sprint |team )?(?:standup|stand-up|retro|retrospective|demo|sync|"
    r"planning|review|code review|meeting|one-on-one|1:1|all-hands|release|deploy|deployment|check-in)s?"
)
#: Relatives and colleagues (people, whose names are given names), as opposed to pets.
_PEOPLE = frozenset(
    "wife husband partner girlfriend boyfriend fiancé fiancée fiance son daughter brother sister mother father mom "
    "mum dad grandmother grandfather grandma grandpa uncle aunt cousin niece nephew boss manager".split()
)
#: After an unknown proper name, words that say it is a place.
_PLACE_CUE = re.compile(
    r",?\s+(?:an?|the)\s+(?:small\s+|little\s+|tiny\s+|big\s+)?(?:town|village|city|suburb|"
    r"hamlet|neighbou?rhood|district|borough|island|county|region|province|state)\b",
    re.I,
)
APPOINTMENTS = (
    "dentist|doctor|doctor's|dental|eye|hair|haircut|vet|physio|therapy|job|interview|medical|"
    "hospital|optician|check-up|checkup"
)
#: Time words that point at one moment: never the start of a lasting preference ("tonight's game").
_DEICTIC = _words(
    "today today's tomorrow tomorrow's tonight tonight's yesterday yesterday's now then"
)
_CONNECTORS = _words("of de da do del della di la le van von der den am upon on sur and & y en the")
_TOOL_TAIL = _words("for with in on at as to and via over instead from than rather")


# -- kinds of values ----------------------------------------------------------------------------------------------
def _tokens(value: str) -> list[str]:
    return value.split()


def _is_proper(value: str, *, max_words: int = 5, digits: bool = False) -> bool:
    """A proper name: every significant word capitalised (``Rio de Janeiro``, ``Bank of America``),
    no time word, no greeting, no nationality."""
    words = _tokens(value)
    if not words or len(words) > max_words or words[0].lower() in _CONNECTORS - {"the"}:
        return False
    if words[0].lower() == "the":
        words = words[1:]
        if not words:
            return False
    if words[-1].lower() in _CONNECTORS:
        return False
    for w in words:
        bare = w.strip("'’.,")
        if not bare:
            return False
        if bare.lower() in _CONNECTORS:
            continue
        if bare.lower() in NOT_NAMES or bare.lower().rstrip("s") in TIME_WORDS:
            return False
        if not (bare[0].isupper() or (digits and bare[0].isdigit())):
            return False
        if not digits and any(ch.isdigit() for ch in bare):
            return False
    return True


#: Not an organisation, whatever the capitals: departments, time zones, places of work that are no
#: employer.
_NOT_ORG = _words(
    "hr it marketing finance sales legal engineering accounting support operations ops pr r&d admin management "
    "product design research security compliance procurement logistics customer payroll facilities qa "
    "utc gmt cet cest est edt pst pdt cst cdt mst mdt bst ist jst aest central pacific eastern mountain atlantic "
    "time home remote remotely night nights weekends school university college"
)
#: Short forms a gazetteer spells out.
_PLACE_ALIASES = _words("uk u.k. us u.s. usa u.s.a. uae nyc la sf england scotland wales bavaria")


def is_place(value: str) -> bool:
    """A place the gazetteer knows (``kinds``), written as a proper name: "Lisbon", "the
    Netherlands". Software, time zones and moods never are ("Linux", "Central Time"); an unknown
    name needs a cue (``_fill``)."""
    return _is_proper(value, max_words=4) and (
        known_place(value) or value.strip().lower() in _PLACE_ALIASES
    )


def is_unknown_place(value: str) -> bool:
    """A proper name the gazetteer does not know, for a sentence that says it is a place ("a village near …")."""
    words = value.lower().split()
    return _is_proper(value, max_words=4) and not set(words) & (_NOT_ORG | TECH | LANGUAGES)


def is_org(value: str) -> bool:
    words = [w.strip(".,").lower() for w in value.split()]
    return _is_proper(value, max_words=5, digits=True) and not (set(words) & (_NOT_ORG | LANGUAGES))


def is_name(value: str) -> bool:
    return _is_proper(value, max_words=3) and not value.lower().startswith("the ")


#: Words that judge rather than name a job: "a terrible cook" is no cook by trade.
EVALUATIVE = _words(
    "terrible awful bad good great decent lousy horrible amazing excellent better worse best worst average "
    "mediocre poor fine lazy proud happy big huge aspiring wannabe would-be former ex failed frustrated "
    "hopeless natural born real total complete wonderful fantastic brilliant okay ok so-so"
)


def is_role(value: str) -> bool:
    words = [w.strip(".,").lower() for w in _tokens(value)]
    return (
        0 < len(words) <= 4
        and words[-1] in ROLES
        and all(re.fullmatch(r"[a-z-]+", w) for w in words)
        and not (set(words) & (VAGUE | TIME_WORDS | EVALUATIVE))
    )


def is_language(value: str) -> bool:
    """A language ISO 639-1 names (``kinds``), as written with its capital: "Portuguese", never "Poetry"."""
    value = value.strip()
    return value[:1].isupper() and (value.lower() in LANGUAGES or known_language(value))


def is_tool(value: str) -> bool:
    """A technology, optionally with a short purpose ("Rust for the parser", "Slack for chat")."""
    words = _tokens(value)
    if not words or len(words) > 7:
        return False
    head: list[str] = []
    for w in words:
        if w.lower() in _TOOL_TAIL:
            break
        head.append(w)
    if not head or len(head) > 3:
        return False
    first = head[0].strip(".,")
    if first.lower() in VAGUE or first.lower() in TIME_WORDS:
        return False
    return all(
        h.lower().strip(".,") in TECH or (h[:1].isupper() and h.lower() not in NOT_NAMES)
        for h in head
    )


_EMPTY_TAIL = _words("time out stuff things everything it that this there here together")
#: Settings that "the" names in general, not one of them in view ("I love the ocean", not "I love
#: the vase in the pic"): a like of anything else after "the" is about one thing of the
#: conversation.
_BEING_OUT = frozenset(
    ("being outdoors", "being outside", "being in nature", "being on the water", "being by the sea")
)
_GENERIC_THE = _words(
    "ocean oceans sea beach mountains outdoors countryside woods forest snow rain sun desert wilderness"
)


def is_thing(value: str, *, unpleasant_ok: bool = False) -> bool:
    """Something a person can like or dislike: a short noun phrase, not a pronoun, not a vague or unpleasant one."""
    words = [w.strip(".,!'\"").replace("’", "'").lower() for w in _tokens(value)]
    if len(words) == 2 and words[0] == "the" and words[1] in _GENERIC_THE:
        return True  # "I love the ocean"
    if " ".join(words) in _BEING_OUT:
        return True  # "we love being outdoors"
    if len(words) > 1 and words[0] == "having" and words[-1].endswith("s"):
        # "having movie marathons": the marathons are the thing
        return is_thing(" ".join(words[1:]))
    if (
        not words
        or len(words) > 6
        or words[0] in VAGUE
        or words[0] in _DEICTIC
        or words[0] in _NOT_PRESENT
    ):
        return False  # "I like tomorrow's plan": about one day
    if words[0].removesuffix("s") in TIME_WORDS and len(words) == 1:
        return False  # "I love Fridays": a day, maybe a plan; "morning meetings", "night trains" are things
    if words[-1] in _EMPTY_TAIL:
        return False  # "spending time", "hanging out": no thing named
    if (set(words) & UNPLEASANT and not unpleasant_ok) or set(words) & {
        "my",
        "your",
        "it",
        "that",
        "this",
        "you",
        "when",
        "if",
        "answers",
        "replies",
        "responses",
        "answer",
        "reply",
    }:
        return False
    return all(re.fullmatch(r"[\w'&+-]+(?:\.\w+)*", w) for w in words)


_ONE_OCCASION = frozenset(
    (
        "together",
        "lately",
        "recently",
        "again",
        "sometimes",
        "tonight",
        "today",
        "yesterday",
        "tomorrow",
        "last",
        "next",
        "once",
        "here",
        "there",
        "us",
        "with",
    )
)


def is_activity(value: str) -> bool:
    """A pastime said as a gerund ("hiking in the mountains"), or a list of them, and not one
    occasion ("painting together lately")."""
    items = [i for i in re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", value.lower()) if i]
    return (
        bool(items)
        and len(items) <= 5
        and all(
            len(words) <= 5
            and words[0].endswith("ing")
            and len(words[0]) > 4
            and not set(words) & _ONE_OCCASION
            and is_thing(item)
            for item in items
            for words in [item.split()]
        )
    )


_TITLE = re.compile(r"The(?: (?:of|the|and|a|[A-Z][\w'’:-]*)){0,4} [A-Z][\w'’:-]*")


def is_thing_or_title(value: str) -> bool:
    """A liked thing, or a title that opens with its "The" ("The Hobbit is one of my favorites")."""
    return is_thing(value) or bool(_TITLE.fullmatch(value.strip()))


_HONORIFICS = _words(
    "mr mrs ms miss dr doctor prof professor sir madam auntie grandpa grandma coach"
)


def is_title(value: str) -> bool:
    """A name of two capitalised words or more that names no person ("Home Alone", not "Grandma
    Rose")."""
    words = [w for w in value.split() if w[:1].isupper()]
    return (
        len(value.split()) >= 2
        and words[0].lower().rstrip(".") not in _PEOPLE | _HONORIFICS
        and not any(given_name(w) for w in words)
    )


#: Verbs that name no pastime after "I like to": saying, thinking, seeing and helping are about a
#: moment or a person ("I like to think …", "I love to see it").
_NOT_PASTIME_VERBS = _words(
    "think say know believe hear see keep remind make help go be get have let tell ask imagine remember "
    "point mention add call check try give put take feel show"
)


def is_pastime_verb(value: str) -> bool:
    """A verb after "I like to" that can name a pastime ("collect", "swim"), not "think" or "see"."""
    return value.lower() not in _NOT_PASTIME_VERBS and value.isalpha()


#: What a topic can be liked in: "I love books about personal development".
MEDIA = (
    "books|novels|stories|movies|films|documentaries|podcasts|shows|series|comics|articles|songs"
)
_ABOUT = re.compile(rf"(?:[\w-]+ )?(?:{MEDIA}) about [a-z][\w -]*")
#: Words that tie a topic to this conversation or one occasion ("books about you", "stories about
#: the time we went camping").
_NOT_TOPIC = _words(
    "my your his her their our the a an this that these those it we i you he she they me him them us "
    "when what how who where which time"
)


def is_about(value: str) -> bool:
    """Books, films … about a topic: a generic topic of at most eight words in all, no pronoun,
    no article, no one occasion."""
    words = value.lower().split()
    return (
        bool(_ABOUT.fullmatch(value.strip()))
        and len(words) <= 8
        and not set(words) & (_NOT_TOPIC | _QUALIFIERS)
    )


def is_no_noun(value: str) -> bool:
    """No noun of the lexicon, singular or plural (the word after an instrument: "hero" of "Guitar
    Hero" is one, "every" of "guitar every day" none); an empty value is none."""
    word = value.lower()
    return not (word and (noun(word) or (word.endswith("s") and noun(word[:-1]))))


def is_pastime(value: str) -> bool:
    """A named pursuit of three words at most ("dance", "charity work"); a longer one is more often
    an aim ("making a positive impact in my town") than something a person does."""
    return len(value.split()) <= 3 and is_thing(value)


#: What people are allergic to: food allergens, animals and insects, plants, medicines, materials.
#: "Allergic to drama" is a figure of speech: an allergy to anything else gives no fact.
ALLERGENS = _words(
    "nut nuts peanut peanuts tree almond almonds cashew cashews walnut walnuts hazelnut hazelnuts pecan pecans "
    "pistachio pistachios shellfish shrimp prawn prawns crab lobster fish seafood egg eggs milk dairy lactose "
    "gluten wheat soy soya sesame mustard celery lupin sulphites sulfites corn strawberries strawberry kiwi "
    "banana bananas tomato tomatoes chocolate garlic onion onions avocado mango "
    "pollen grass hay ragweed birch trees flowers dust mites mold mould latex nickel wool perfume fragrance "
    "penicillin aspirin ibuprofen antibiotics sulfa codeine morphine anaesthetic anesthetic "
    "bee bees wasp wasps hornet hornets mosquito mosquitoes insect insects cockroach cockroaches ant ants "
    "cat cats dog dogs horse horses rabbit rabbits hamster hamsters guinea pigs bird birds feathers fur pets "
    "animals reptiles rodents mice dander"
)


def is_allergen(value: str) -> bool:
    """Something a person can be allergic to ("peanuts", "most reptiles", "cat hair"), not a figure of speech."""
    words = [w.lower().strip(".,!") for w in _tokens(value)]
    return (
        bool(words) and is_thing(value, unpleasant_ok=True) and any(w in ALLERGENS for w in words)
    )


def is_any_thing(value: str) -> bool:
    """As ``is_thing``, unpleasant things included: a dislike of one is sincere ("I hate early
    meetings"), and a tax return can be due."""
    return is_thing(value, unpleasant_ok=True)


def is_np(value: str) -> bool:
    """A noun phrase with its article ("a homeless shelter", "the fire-fighting brigade")."""
    bare = re.sub(
        r"^(?:a|an|the|my local|our local|my own|our own)\s+", "", value.strip(), flags=re.I
    )
    return bare != value.strip() and is_any_thing(bare)


def is_firm(value: str) -> bool:
    """An organisation that is no place the gazetteer knows ("I left Google for Stripe", not "… Berlin for Lisbon")."""
    return is_org(value) and not known_place(value)


def is_free(value: str) -> bool:
    return bool(value.strip())


def is_project(value: str) -> bool:
    """A named project ("Heron") or a described one ("inventory app")."""
    return is_name(value) or bool(re.fullmatch(rf"[a-z][\w-]* {_PROJECT_NOUN}", value))


def is_specific(value: str) -> bool:
    """Anything but a pronoun or a vague word ("I no longer use it")."""
    first = value.split(" ", 1)[0].lower() if value.strip() else ""
    return bool(first) and first not in VAGUE


_KINDS: dict[str, Callable[[str], bool]] = {
    "place": is_place,
    "org": is_org,
    "unknown-place": is_unknown_place,
    "np": is_np,
    "firm": is_firm,
    "role": is_role,
    "lang": is_language,
    "tool": is_tool,
    "thing": is_thing,
    "activity": is_activity,
    "pastime": is_pastime,
    "name": is_name,
    "project": is_project,
    "free": is_free,
    "specific": is_specific,
    "any-thing": is_any_thing,
    "allergen": is_allergen,
    "thing-or-title": is_thing_or_title,
    "title": is_title,
    "pastime-verb": is_pastime_verb,
    "no-noun": is_no_noun,
    "about": is_about,
}


# -- sentence rules -----------------------------------------------------------------------------------------------
_STOP = r"(?=\s+[-–—]+\s|\s+(?:and|but|since|because|so|now|anymore|any more|these days|nowadays|with|where|which|who|though|although|instead)\b|[,.;:!?()]|$)"
_VAL = rf"(?P<v>[^,.;:!?()]{{1,60}}?){_STOP}"
#: Verbs that lose a love rather than have it ("I lost my love for cooking"), or seek it again
#: ("find", "get back", "rediscover", "regain").
_LOSING = (
    r"(?:lost|lose|loses|losing|gave|give|gives|giving|quit|quitting|killed|kill|ruined|ruin|abandoned|outgrew|"
    r"doubt|doubted|question|questioned|hide|hid|find|finding|found|get|getting|got|"
    r"re(?:discover|gain|kindle|ignite|capture|new|vive|store|cover|claim|turn|connect)[a-z]*)\b"
)
#: The value is no half of "X and Y" ("education" of "improving education and infrastructure"); a
#: determiner after "and" opens a noun phrase of its own ("my love for reading and the joy of …").
_WHOLE = r"(?!\s+and\s+(?!(?:i|we|it|that|how|what|why|when|the|a|an|my|our|your|his|her|their)\b)[a-z]+(?<!ing)\b)"
#: The value ends its clause: not "creating a safe" of "creating a safe, inviting place".
_CLAUSE_END = (
    r"(?=\s*(?:[.!;]|$)|\s+and\s|\s+but\s|\s+so\s+(?!much|many|far|long|well|good|often|hard|bad)\b|"
    r",\s*(?:and|but|so|which|it|that|this|they|i)\b)"
)
#: A like's value ends its clause, or a comma opens the next item of a list of activities ("camping,
#: hiking") or a new clause; never mid-phrase ("creating a safe, inviting place": a comma between
#: two adjectives).
_LIKE_END = (
    r"(?=\s*(?:[.!;?)(]|$)|\s+[-–—]+\s|\s+(?:and|but|since|because|so|now|anymore|any more|these days|nowadays|with|"
    r"where|which|who|though|although|instead)\b|\s*[:]|,\s*(?:[a-z]+ing(?=\s*(?:,|and\b|or\b|[.!;]|$))|"
    r"(?:and|but|so|which|it|it's|that|this|they|i|i'm|you|we|he|she|especially|like|plus|too|though|as|"
    r"because|cause|'cause|since|even|when|if|or|not|personally|honestly|for sure|of course|to)\b))"
)
_PSTOP = (
    r"(?=\s+(?:and|but|since|because|so|now|anymore|any more|these days|nowadays|with|where|which|who|as|in|"
    r"on|at|last|next|this|for|from|until|today|yesterday|tomorrow|a few|two|three|near|after|before|though|"
    r"although|instead|full-time|part-time|originally)\b|[,.;:!?()]|$)"
)
_PLACE = rf"(?P<v>[^,.;:!?()]{{1,60}}?){_PSTOP}"
_OLD = r"(?P<o>[^,.;:!?()]{1,60}?)(?=\s+to\b)"
_OLDTO = r"(?P<o>[^,.;:!?()]{1,60}?)(?=\s+(?:to|for|and)\b)"
_NAME = r"(?P<v>(?-i:[A-Z])[\w'’-]+(?:\s(?-i:[A-Z])[\w'’-]+)?)"
_DATE = rf"(?P<d>{DATE_PHRASE})"
I = r"\bi(?:\s+(?:now|currently|just|actually|recently|also|still))?"  # noqa: E741 — "I", the user
#: How a sentence addressed to the agent opens: an imperative (after "please", "from now on",
#: "always" …) or a request ("I'd like you to …", "you can …"). "At home we speak Portuguese" is no
#: rule for the agent.
_TO_AGENT = (
    r"(?:^(?:(?:please|pls|kindly|just|and|also|so|always|only|from now on|going forward|"
    r"in (?:the )?future|feel free to)[,\s]+)*"
    r"|\byou (?:should |must |can |could |may |will |'ll )?(?:please )?(?:just )?(?:always |only )?"
    r"|\b(?:i(?:'d| would)? (?:like|want|need|prefer) you to|make sure (?:to|you)|remember to) "
    r"(?:always |only )?)"
)
_PROJECT_NOUN = (
    r"(?:app|service|backend|frontend|project|system|api|website|site|pipeline|platform)"
)
# A project: a capitalised name, or a described one ("the inventory app"), as the subject of a
# storage fact.
_PROJECT = rf"(?:\b|^)(?:the |our )?(?P<p>(?-i:[A-Z])[\w-]+|(?-i:[a-z])[\w-]* {_PROJECT_NOUN})"
_ROLE_NOUN = "|".join(sorted(ROLES, key=len, reverse=True))
_ROLE = (
    r"(?P<v>(?:[a-z-]+ ){0,3}?[a-z-]+)(?=\s+(?:at|for|in|with|and|but|since|because|so|now|who|which|"
    r"from|by|on)\b|[,.;:!?()]|$)"
)


@dataclass(frozen=True)
class Rule:
    pattern: re.Pattern[str]
    template: str  # {v} value, {o} old value, {k} kind word, {d} date, {p} project, {v3} free text in 3rd person
    kinds: tuple[tuple[str, str], ...]  # (group, kind) pairs every match must satisfy
    mark: str
    change: bool = (
        False  # the phrasing itself is a cue of change ("moved to", "switched from … to")
    )
    negative: bool = (
        False  # the rule is about a negation: a "not" before the match does not cancel it
    )
    each: bool = False  # the value may be a list of activities ("playing games and watching films"): one fact each
    # the fact is presupposed by a possessive ("my love for X"), so it holds under a plan or a wish
    # ("I wanted to blend my love for dance and fashion")
    presupposed: bool = False


def _rule(
    pattern: str,
    template: str,
    kinds: str = "",
    mark: str = "durable",
    *,
    change: bool = False,
    negative: bool = False,
    each: bool = False,
    presupposed: bool = False,
) -> Rule:
    pairs = tuple((group, kind) for group, _, kind in (x.partition("=") for x in kinds.split()))
    return Rule(
        re.compile(pattern, re.I), template, pairs, mark, change, negative, each, presupposed
    )


_RULES: list[Rule] = [
    # identity
    _rule(rf"\bmy name is {_NAME}", "Name: {v}", "v=name", "permanent"),
    _rule(
        rf"^(?:hi|hello|hey)(?: there)?[,!\s]+(?:i'm|i am) {_NAME}\s*(?:[,.!]|$)",
        "Name: {v}",
        "v=name",
        "permanent",
    ),
    _rule(rf"^name's {_NAME}\s*[.!]?$", "Name: {v}", "v=name", "permanent"),
    _rule(rf"\bi(?:'m| am) (?:originally )?from {_PLACE}", "From {v}", "v=place", "permanent"),
    _rule(rf"\bi was born in {_PLACE}", "Born in {v}", "v=place", "permanent"),
    _rule(
        rf"\bi was born and (?:raised|brought up) in {_PLACE}",
        "Born in {v}",
        "v=place",
        "permanent",
    ),
    _rule(
        rf"\bi was born and (?:raised|brought up) in {_PLACE}",
        "Grew up in {v}",
        "v=place",
        "permanent",
    ),
    _rule(rf"\bi grew up in {_PLACE}", "Grew up in {v}", "v=place", "permanent"),
    _rule(
        r"\bmy birthday is (?:on )?(?P<b>(?:\d{1,2}(?:st|nd|rd|th)? (?:of )?[a-z]+|[a-z]+ \d{1,2}(?:st|nd|rd|th)?))\b",
        "Birthday: {b}",
        "",
        "permanent",
    ),
    _rule(
        rf"\bmy (?P<k>{KIN})(?:'s name)? is (?:called |named ){_NAME}",
        "Has a {k} named {v}",
        "v=name",
        "permanent",
    ),
    _rule(
        rf"\bmy (?P<k>{KIN})(?:'s name is| is) {_NAME}\s*(?:[,.!]|$)",
        "Has a {k} named {v}",
        "v=name",
        "permanent",
    ),
    _rule(
        rf"\bmy (?P<k>{KIN}),? {_NAME},?\s+(?:is|lives|works|was|has|just|will|and|who|studies|loves|likes)\b",
        "Has a {k} named {v}",
        "v=name",
        "permanent",
    ),
    _rule(
        rf"\bi have an? (?P<k>{KIN}) (?:called|named) {_NAME}",
        "Has a {k} named {v}",
        "v=name",
        "permanent",
    ),
    # home and work
    _rule(
        rf"{I}(?: live| am living|'m living| am based|'m based| reside) in {_PLACE}",
        "Lives in {v}",
        "v=place",
    ),
    _rule(
        rf"(?:\bmy home is (?:now )?in|^home (?:for me )?is(?: now)?) {_PLACE}",
        "Lives in {v}",
        "v=place",
    ),
    _rule(
        rf"\bi(?:'ve| have) (?:lived|been living) in {_PLACE}(?=\s+(?:for|since)\b)",
        "Lives in {v}",
        "v=place",
    ),
    _rule(
        rf"{I}(?:'ve| have)? (?:just )?(?:moved|relocated) from {_OLD} to {_PLACE}",
        "Lives in {v} instead of {o}",
        "v=place o=place",
        change=True,
    ),
    _rule(
        rf"{I}(?:'ve| have)? (?:just )?(?:moved|relocated) (?:back )?to {_PLACE}",
        "Lives in {v}",
        "v=place",
        change=True,
    ),
    _rule(rf"{I}(?: work| am working|'m working) (?:at|for) {_PLACE}", "Works at {v}", "v=org"),
    _rule(
        rf"\bi(?:'m| am) (?:now )?(?:employed|working) (?:at|by|for) {_PLACE}",
        "Works at {v}",
        "v=org",
    ),
    _rule(
        rf"{I}(?:'ve| have)? (?:started (?:a new job|working) at|got a (?:new )?job at|been hired by|"
        rf"switched jobs to|moved to a new job at) {_PLACE}",
        "Works at {v}",
        "v=org",
        change=True,
    ),
    _rule(
        rf"{I}(?:'ve| have)? (?:joined|started at) {_PLACE}(?= as an? )",
        "Works at {v}",
        "v=org",
        change=True,
    ),
    _rule(
        rf"{I}(?:'ve| have)? (?:joined|started at) [^,.;]{{1,60}}? as an? {_ROLE}",
        "Works as {v}",
        "v=role",
        change=True,
    ),
    _rule(
        rf"{I}(?:'ve| have)? left {_PLACE}(?=\s+(?:to join|to start|and joined|last (?:week|month|year))\b)",
        "No longer works at {v}",
        "v=org",
        "correction",
        change=True,
    ),
    _rule(
        rf"{I}(?: work| am working|'m working)(?: (?:at|for) [^,.;]*?)? as (?:an? )?{_ROLE}",
        "Works as {v}",
        "v=role",
    ),
    _rule(rf"\bi(?:'m| am) (?:now |currently )?an? {_ROLE}", "Works as {v}", "v=role"),
    _rule(
        rf"\bi(?:'m| am| work| am working|'m working) (?:now |currently )?(?:as )?an? (?:[a-z-]+ ){{0,3}}(?:{_ROLE_NOUN}) "
        rf"(?:at|for) {_PLACE}",
        "Works at {v}",
        "v=org",
    ),
    _rule(rf"\bmy job is (?:an? )?{_VAL}", "Works as {v}", "v=role"),
    _rule(rf"\bmy (?:current )?employer is {_PLACE}", "Works at {v}", "v=org"),
    _rule(
        rf"\bi(?:'ve| have) (?:worked|been working) (?:at|for) {_PLACE}(?=\s+(?:for|since)\b)",
        "Works at {v}",
        "v=org",
    ),
    _rule(
        rf"\bmy (?:home country|homeland|native country|country of origin|home town|hometown)(?:,| is| was|:) "
        rf"{_PLACE}",
        "From {v}",
        "v=place",
        "permanent",
    ),
    _rule(
        rf"\b(?:we|i)(?:'ve| have)? (?:just |recently |also )?(?:got|adopted|rescued|brought home|have) (?:a|an|another|"
        rf"a new|our|my) (?:new )?(?P<k>{PETS}) (?:named|called) {_NAME}",
        "Has a {k} named {v}",
        "v=name",
        "permanent",
    ),
    # a pet held, without a name: "we've got a pup and a kitty", "I have two cats"; the pet ends its
    # noun phrase ("a cat allergy", "a dog show", "a bird's eye view" are none)
    _rule(
        rf"\b(?:we|i)(?:'ve| have)? (?:also |still )?(?:got|have) (?P<v>{_PET_NP})(?: and (?:{_PET_NP}))?{_PET_END}",
        "Has {v}",
        "",
        "permanent",
    ),
    _rule(
        rf"\b(?:we|i)(?:'ve| have)? (?:also |still )?(?:got|have) (?:{_PET_NP}) and (?P<v>{_PET_NP}){_PET_END}",
        "Has {v}",
        "",
        "permanent",
    ),
    # the second pet of the same statement: "we have a dog named Buddy and a cat named Socks"
    _rule(
        rf"\b(?:we|i)(?:'ve| have)? (?:just |recently |also )?(?:got|adopted|rescued|brought home|have) (?:a|an|another|"
        rf"a new|our|my) (?:new )?(?:{PETS}) (?:named|called) (?-i:[A-Z])[\w'’-]+,? and (?:a|an|another) (?:new )?"
        rf"(?P<k>{PETS}) (?:named|called) {_NAME}",
        "Has a {k} named {v}",
        "v=name",
        "permanent",
    ),
    _rule(
        rf"\bour (?P<k>{KIN})(?:'s name)? is (?:called |named ){_NAME}",
        "Has a {k} named {v}",
        "v=name",
        "permanent",
    ),
    _rule(
        rf"\bour (?P<k>{KIN}),? {_NAME},?\s+(?:is|lives|works|was|has|just|will|and|who|studies|loves|likes|"
        rf"starts|started|goes|plays|turned|turns|graduated|got)\b",
        "Has a {k} named {v}",
        "v=name",
        "permanent",
    ),
    # job and home changes said as leaving one for another
    _rule(
        rf"{I}(?:'ve| have)? (?:left|quit) {_OLDTO} (?:to join|to work at|to work for|and joined) {_PLACE}",
        "Works at {v} instead of {o}",
        "v=org o=org",
        "correction",
        change=True,
    ),
    _rule(
        rf"{I}(?:'ve| have)? (?:left|quit) {_OLDTO} for {_PLACE}",
        "Works at {v} instead of {o}",
        "v=firm o=firm",
        "correction",
        change=True,
    ),
    _rule(
        rf"{I}(?:'ve| have)? (?:left|swapped) {_OLDTO} for {_PLACE}",
        "Lives in {v} instead of {o}",
        "v=place o=place",
        "correction",
        change=True,
    ),
    _rule(
        rf"{I}(?:'ve| have)? (?:quit|left|lost) my (?:job|position|role) (?:at|with) {_PLACE}",
        "No longer works at {v}",
        "v=org",
        "correction",
        change=True,
        negative=True,
    ),
    # activities, memberships, businesses
    # an instrument with its kind ("acoustic guitar"), ending its noun phrase: "Guitar Hero", "piano
    # bar gigs" name no instrument played (the word after it is no noun of the lexicon)
    _rule(
        rf"\bi(?:'ve been| have been|'m| am)? (?:also |still |currently )?(?:play|playing) (?:the )?"
        rf"(?P<v>{_INSTRUMENT}){_NP_END}",
        "Plays the {v}",
        "n=no-noun",
    ),
    _rule(rf"\bplaying my (?P<v>{_INSTRUMENT}){_NP_END}", "Plays the {v}", "n=no-noun"),
    _rule(
        rf"\bi(?:'ve been| have been|'m| am)? (?:also |still |currently )?(?:play|playing) (?P<v>{SPORTS}){_NP_END}",
        "Plays {v}",
        "n=no-noun",
    ),
    # a pursuit started years ago and not given up since: "I started playing acoustic guitar about
    # five years ago" (not "… a week ago", "… but quit")
    _rule(
        rf"\bi (?:first )?started (?:playing|to play) (?:the )?(?P<v>{_INSTRUMENT}) {_YEARS_AGO}",
        "Plays the {v}",
        "",
    ),
    _rule(
        rf"\bi (?:first )?started (?:playing|to play) (?P<v>{SPORTS}) {_YEARS_AGO}",
        "Plays {v}",
        "",
    ),
    _rule(
        rf"\bi(?:'ve been| have been|'m| am)? (?:also |still |currently )?(?:do|doing|practi[sc]e|practi[sc]ing) "
        rf"(?P<v>{PRACTICES})\b",
        "Does {v}",
        "",
    ),
    _rule(
        rf"\bi(?:'m| am)(?: (?!my\b|his\b|her\b|their\b|the\b|an?\b|our\b|your\b)[a-z]+){{0,3}}?,? (?:just |also |"
        rf"currently |now )?learning (?:(?:how )?to play )?(?:the )?(?P<v>{INSTRUMENTS})\b",
        "Is learning the {v}",
        "",
    ),
    _rule(
        r"\bi(?:'m| am) (?:just |also |currently |now )?learning (?P<v>[A-Z][a-z]+)\b",
        "Is learning {v}",
        "v=lang",
    ),
    # "Learning German has been tough but worth it": the speaker's own experience of it, not "…
    # for him", "… a dream of mine"
    _rule(
        r"^learning (?P<v>[A-Z][a-z]+) (?:has been|'s been) (?:really |so |pretty |quite )?(?:tough|hard|fun|great|"
        r"challenging|rewarding|difficult|amazing|slow|worth it)\b(?!.*\bfor\b)",
        "Is learning {v}",
        "v=lang",
    ),
    # lessons the user takes or keeps up with: "I'm taking German lessons", "I'll keep up with my
    # Spanish classes" (not "I quit my German lessons", "my son's French lessons")
    _rule(
        r"\bi(?:'m| am|'ve been| have been|'ll| will)? (?:definitely |still |also |now |currently )?"
        r"(?:going to |gonna )?(?:keep(?:ing)? up with|keep(?:ing)? going with|continu(?:e|ing) with|"
        r"carry(?:ing)? on with|tak(?:e|ing)|lov(?:e|ing)|enjoy(?:ing)?) (?:my )?(?P<v>[A-Z][a-z]+) "
        r"(?:lessons|classes|course|lesson)\b",
        "Is learning {v}",
        "v=lang",
    ),
    _rule(
        r"\bi(?:'ve been| have been|'m| am)? (?:also |still |currently |now |definitely )?(?:carrying on |continuing |"
        r"keeping up )?(?:volunteer|volunteering) (?:at|with|for) "
        r"(?P<v>(?:a|an|the|my local|our local) [a-z][a-z -]{2,40}?)(?=\s+(?:and|but|since|because|so|on|every|"
        r"twice|once|for)\b|[,.;:!?()]|$)",
        "Volunteers at {v}",
        "v=np",
    ),
    # a participle after the user's own clause has the user for its subject: "I'm doing my part too,
    # volunteering at a homeless shelter" (not after someone named in that clause: "I'm proud of
    # you, volunteering at …")
    _rule(
        rf"^i(?:'m| am)\b(?![^,]*\b(?:you|him|her|them|us|he|she|they|{'|'.join(sorted(_PEOPLE))}|"
        r"friends?|kids?|children|(?-i:[A-Z])\w+)\b)[^,]{1,60},\s+volunteering (?:at|with|for) "
        r"(?P<v>(?:a|an|the|my local|our local) [a-z][a-z -]{2,40}?)(?=[,.;:!?()]|$)",
        "Volunteers at {v}",
        "v=np",
    ),
    _rule(r"\bi (?:started|began) volunteering\b", "Volunteers", ""),
    _rule(
        rf"\bi(?:'ve| have)? (?:just |recently |also )?joined (?P<v>(?:a|an|the|our local|my local) [a-z][a-z -]{{0,40}}?"
        rf"(?:{GROUPS}))\b",
        "Is a member of {v}",
        "v=np",
        change=True,
    ),
    _rule(
        rf"\bi(?:'m| am) (?:now |also |still )?(?:a )?(?:part|member) of (?P<v>(?:a|an|the|our local|my local) "
        rf"[a-z][a-z -]{{0,40}}?(?:{GROUPS}))\b",
        "Is a member of {v}",
        "v=np",
    ),
    _rule(
        rf"\bi (?:run|own|opened|started|launched|founded)(?: up)? (?P<v>(?:a|an|my own) (?:[\w-]+ ){{0,3}}?"
        rf"(?:{VENTURES})){_VENTURE_END}",
        "Runs {v}",
        "",
    ),
    _rule(
        rf"\bi (?:love |enjoy |like )?running (?P<v>my own (?:[\w-]+ ){{0,3}}?(?:{VENTURES})){_VENTURE_END}",
        "Runs {v}",
        "",
    ),
    # negations and retractions
    _rule(
        rf"\bi (?:don't|do not) (?P<k>live in|work at|work for|like|use) {_VAL}\s+any ?more\b",
        "No longer {k} {v}",
        "v=specific",
        "correction",
        change=True,
        negative=True,
    ),
    _rule(
        rf"\bi no longer (?P<k>live in|work at|work for|like|use) {_VAL}",
        "No longer {k} {v}",
        "v=specific",
        "correction",
        change=True,
        negative=True,
    ),
    _rule(
        rf"\bi(?:'m| am) no longer (?:working|employed) (?:at|for|by) {_PLACE}",
        "No longer works at {v}",
        "v=org",
        "correction",
        change=True,
        negative=True,
    ),
    # likes, dislikes, preferences
    _rule(
        rf"\bi (?:really |also |just )?(?:don't|do not) (?:like|enjoy) {_VAL}",
        "Dislikes {v}",
        "v=any-thing",
        negative=True,
    ),
    _rule(
        rf"\bi(?:'m| am) not (?:a (?:big |huge )?fan of|into) {_VAL}",
        "Dislikes {v}",
        "v=any-thing",
        negative=True,
    ),
    _rule(
        rf"\bi (?:really |also |just )?(?:hate|dislike|detest|can't stand|cannot stand) {_VAL}",
        "Dislikes {v}",
        "v=any-thing",
        negative=True,
    ),
    _rule(
        rf"\bi (?:really |also |absolutely |do |truly |just )?(?:like|love|enjoy|adore) {_VAL}{_LIKE_END}",
        "Likes {v}",
        "v=thing",
    ),
    _rule(
        rf"\bi(?:'m| am) (?:a (?:big |huge )?fan of|really into|(?:much |far )?more into|mostly into|into|all about|(?:really )?drawn to) {_VAL}"
        rf"{_LIKE_END}",
        "Likes {v}",
        "v=thing",
    ),
    _rule(
        rf"\bi(?:'ve| have) (?:always )?been (?:really )?into {_VAL}{_LIKE_END}",
        "Likes {v}",
        "v=thing",
    ),
    _rule(
        rf"\bi(?:'ve| have| will|'ll) always (?:liked|loved|enjoyed|love|enjoy) {_VAL}{_LIKE_END}",
        "Likes {v}",
        "v=thing",
    ),
    # "I love action and sci-fi movies": two genres of one kind of work, a like each ("black and
    # white movies", "rock and roll songs" name no two genres)
    _rule(
        rf"\bi (?:really |also |absolutely |just )?(?:like|love|enjoy|adore) (?P<v>{GENRES}) and (?:{GENRES}) "
        rf"(?P<k>{MEDIA})\b",
        "Likes {v} {k}",
        "",
        each=True,  # read whole: the pair is the rule's own, not a coordination to check
    ),
    _rule(
        rf"\bi (?:really |also |absolutely |just )?(?:like|love|enjoy|adore) (?:{GENRES}) and (?P<v>{GENRES}) "
        rf"(?P<k>{MEDIA})\b",
        "Likes {v} {k}",
        "",
        each=True,  # read whole: the pair is the rule's own, not a coordination to check
    ),
    # "I love non-fiction books about personal development and mindset": the whole topic, to the
    # sentence's end
    _rule(
        r"\bi (?:really |also |absolutely |just )?(?:like|love|enjoy|adore) (?P<v>[a-z][\w -]{3,80}?)"
        r"(?=\s*(?:[.!;]|$))",
        "Likes {v}",
        "v=about",
    ),
    # a list of pastimes, every item a gerund of at most two words: "I love cooking, baking, and
    # gardening"
    _rule(
        r"\bi (?:really |also |absolutely )?(?:like|love|enjoy|adore) (?P<v>[a-z]+ing(?: [a-z]+)?(?:,\s*[a-z]+ing"
        r"(?: [a-z]+)?)*,?\s+and\s+[a-z]+ing(?: [a-z]+)?)(?=\s*(?:[.!;]|$))",
        "Likes {v}",
        "v=activity",
        each=True,
    ),
    _rule(
        rf"\bi(?:'m| am) (?:totally |so |really |a bit |kind of )?(?:obsessed with|crazy about|hooked on) "
        rf"{_VAL}{_WHOLE}{_CLAUSE_END}",
        "Likes {v}",
        "v=pastime",
    ),
    _rule(
        r"^(?P<v>[a-z]+ing(?: [a-z]+){0,2}) (?:is|has always been|has been) (?:my way|how i(?:'ve always)?) "
        r"(?:to )?(?:relax|unwind|de-?stress|recharge)\b",
        "Likes {v}",
        "v=activity",
    ),
    # "Playing video games or watching movies helps me unwind": each pastime
    _rule(
        r"^(?P<v>[a-z]+ing(?: [\w'-]+){0,3}(?:(?:,| or| and| or just| and just) [a-z]+ing(?: [\w'-]+){0,3}){0,2}) "
        r"(?:really |always |just )?helps? me (?:to )?(?:unwind|relax|de-?stress|recharge|chill(?: out)?)\b",
        "Likes {v}",
        "v=activity",
        each=True,
    ),
    # "I'm a huge Lakers fan": the team, sport or band before "fan" (one or two words)
    _rule(
        r"\bi(?:'m| am) (?:a )?(?:really )?(?:big|huge|massive|die-?hard|lifelong|total|avid) "
        r"(?!(?:movie|film|book|comic|podcast) fan\b)(?P<v>[\w'-]+(?: [\w'-]+)?) fan\b",
        "Likes {v}",
        "v=pastime",
    ),
    # "I'm a total movie fan": a kind of work, liked in the plural
    _rule(
        r"\bi(?:'m| am) (?:a )?(?:really )?(?:big|huge|massive|die-?hard|lifelong|total|avid) "
        r"(?P<v>movie|film|book|comic|podcast) fan\b",
        "Likes {v}s",
        "",
    ),
    # A passion is a standing like; a value cut at "and" before a bare noun ("improving education
    # and infrastructure") is half of one object, so it gives nothing.
    _rule(
        rf"\bi(?:'m| am) (?:really |so |very |truly |also |genuinely )?passionate about {_VAL}{_WHOLE}{_CLAUSE_END}",
        "Likes {v}",
        "v=pastime",
    ),
    # only as an object ("following my passion for dance"): "My love for dance grew" puts a verb in
    # the value
    _rule(
        rf"\b(?:follow(?:ing)?|pursu(?:e|ing)|about|of|sharing|share) my (?:passion|love) (?:for|of) {_VAL}{_WHOLE}"
        rf"{_CLAUSE_END}",
        "Likes {v}",
        "v=pastime",
    ),
    # ... and as the object of what the user does ("I wanted to blend my love for dance and
    # fashion", "it lets me combine my love for reading and …", "because of my degree and my passion
    # for …"), unless the verb loses it ("I lost my love for X", "gave up my passion for X")
    _rule(
        rf"(?:\b(?:i|we|to|me)\s+(?:(?!{_LOSING})[a-z]+\s+){{1,2}}|\b(?!{_LOSING})[a-z]+ (?:and|with|through|into) )my "
        rf"(?:passion|love) (?:for|of) {_VAL}{_WHOLE}{_CLAUSE_END}",
        "Likes {v}",
        "v=pastime",
        presupposed=True,
    ),
    # "I've always had a love for horses": a love one has, not had once ("I had a love for X as a
    # kid")
    _rule(
        rf"\bi(?:'ve| have) (?:always |long )?(?:had |got )?a (?:real |deep |great |huge |big |special |strong |"
        rf"soft spot and a )?(?:love|passion) for {_VAL}{_WHOLE}{_CLAUSE_END}",
        "Likes {v}",
        "v=pastime",
    ),
    # "Sharing my love for dairy-free desserts has been fun"; "we share a love for reading" (the
    # user and the other, so the user too)
    _rule(
        r"^(?:sharing )?my (?:passion|love) (?:for|of) (?P<v>[^,.;:!?()]{1,60}?)(?= (?:has|have) been\b| is no secret\b)",
        "Likes {v}",
        "v=pastime",
    ),
    _rule(
        rf"\b(?:we|i) (?:both )?share (?:a|the|our) (?:passion|love) (?:for|of) {_VAL}{_WHOLE}{_CLAUSE_END}",
        "Likes {v}",
        "v=pastime",
    ),
    # "we" is the user with family or friends: only an activity, said of no one occasion; the
    # family or friends it is done with may follow ("we love having movie marathons with our
    # friends")
    _rule(
        rf"^we (?:really |all |both |just |also )?(?:love|enjoy|adore) {_VAL}{_WHOLE}"
        rf"(?: with (?:our|my) (?:friends|family|families|kids|children|parents|dogs?)(?=\s*(?:[.!;]|$)))?"
        rf"{_CLAUSE_END}",
        "Likes {v}",
        "v=activity",
    ),
    # "We love Home Alone" (a quoted title, its marks removed): a name of two words or more, no
    # person ("We love Grandma Rose")
    _rule(
        r"^we (?:really |all |both |just |also )?(?:love|adore) (?P<v>(?-i:[A-Z])[\w'’-]*(?: (?:of|the|and|"
        r"(?-i:[A-Z])[\w'’-]*)){1,4})(?=\s*(?:[.!;,]|$)|\s+[-–—]|\s+too\b)",
        "Likes {v}",
        "v=title",
    ),
    # "Improving education is particularly interesting to me": an activity, no one occasion
    _rule(
        r"^(?P<v>[a-z]+ing(?: [\w'-]+){0,5}) (?:is|are) (?:particularly |really |very |so |super |always )?"
        r"(?:interesting|fascinating) to me\b",
        "Likes {v}",
        "v=thing",
    ),
    # "Here's a pic of my favorite, Lord of the Rings!": a title after the comma, no person
    _rule(
        r"\bmy (?:all-time )?favou?rite, (?P<v>(?-i:[A-Z])[\w'’-]*(?: (?:of|the|and|(?-i:[A-Z])[\w'’-]*)){0,5})"
        r"(?=\s*(?:[.!,;]|$))",
        "Likes {v}",
        "v=title",
    ),
    # "I like to collect jerseys": the pastime, as a gerund; a verb of saying or thinking is none
    _rule(
        r"\bi (?:really |also |just |do )?(?:like|love|enjoy) to (?P<g>[a-z]{2,12}) (?P<v>[a-z][\w' -]{1,40}?)"
        r"(?=\s*(?:[.!;]|$))",
        "Likes {g} {v}",
        "g=pastime-verb v=thing",
    ),
    _rule(
        r"\bi (?:really |also |just |do )?(?:like|love|enjoy) to (?P<g>[a-z]{2,12})(?=\s*(?:[.!;]|$))",
        "Likes {g}",
        "g=pastime-verb",
    ),
    _rule(
        r"^(?P<v>[a-z]+ing) makes me (?:so |really |very |super )?happy\b",
        "Likes {v}",
        "v=activity",
    ),
    _rule(
        r"^(?P<v>[a-z][\w' -]{1,50}?)(?: is| are|'s| has always been| have always been) (?:really |definitely |"
        r"totally |also |always |pretty much |just |mostly )?"
        r"(?:my (?:passion|"
        r"jam|thing|favou?rite (?:hobby|hobbies|pastime|thing to do|activity)|main hobb(?:y|ies)|hobby|hobbies|"
        r"go-to for (?:stress relief|relaxing|relaxation|unwinding)|stress relief|stress-buster|"
        r"favou?rite way to (?:relax|unwind|de-?stress))|"
        r"one of my (?:faves|favou?rites|favou?rite (?:things|hobbies|pastimes|activities)|passions|hobbies)|"
        r"my top pick|a favou?rite of mine|a passion of mine|at the top of my list)\b",
        "Likes {v}",
        "v=thing-or-title",
        each=True,
    ),
    # A preference compares, so an unpleasant thing is sincere here ("I prefer early meetings"), not
    # sarcasm.
    _rule(
        rf"\bi(?: really| also| generally| usually)? prefer {_VAL}", "Prefers {v}", "v=any-thing"
    ),
    # "rather" takes a verb: only "rather have/drink/eat/use X" names a thing ("I'd rather die"
    # names none)
    _rule(
        rf"\bi(?: really| also| generally| usually)?(?: would rather|'d rather) (?:have|drink|eat|use|get) {_VAL}",
        "Prefers {v}",
        "v=thing",
    ),
    _rule(rf"\bmy favou?rite (?P<k>[a-z]+) is {_VAL}", "Favourite {k}: {v}", "v=thing"),
    _rule(
        rf"^(?P<v>{COLOURS})(?:'s| is) (?:definitely |always |still )?my (?:fave|favou?rite) colou?r"
        r"(?=\s*(?:[,.!;]|$))",
        "Favourite colour: {v}",
        "",
    ),
    # "Harry Potter is my favorite book": a named work or team, the kind said; "Dancing is my
    # favourite" names none
    _rule(
        r"^(?P<v>(?-i:[A-Z])[\w'’-]*(?:\s(?:of|the|and|(?-i:[A-Z])[\w'’-]*)){0,4}) (?:is|are) (?:definitely |probably |"
        r"still )?my (?:all-time )?favou?rite (?P<k>book|novel|movie|film|show|series|band|song|album|team|game|author|"
        r"writer|singer|artist|player|city|dish|food)\b",
        "Favourite {k}: {v}",
        "v=specific",
    ),
    _rule(
        r"\bi(?:'m| am) (?:(?:severely|very|a bit|slightly|mildly) )?(?P<v>lactose|gluten) intolerant\b",
        "Is {v} intolerant",
        "",
        "permanent",
    ),
    _rule(rf"\bi(?:'m| am) allergic to {_VAL}", "Allergic to {v}", "v=allergen", "permanent"),
    _rule(r"\bi(?:'m| am) (?:an? )?(?P<v>vegetarian|vegan|pescatarian)(?![\w-])", "Is {v}", ""),
    _rule(
        r"\bi(?:'m| am) (?:(?:on )?an? |strictly |completely )?(?P<v>gluten-free|dairy-free|lactose-free|keto|paleo|"
        r"kosher|halal|plant-based|low-carb|sugar-free)(?: diet)?\b",
        "Diet: {v}",
        "",
    ),
    _rule(
        r"^(?P<v>gluten-free|dairy-free|lactose-free|sugar-free) (?:is|has to be) (?:a must|non-negotiable|essential) "
        r"for me\b",
        "Diet: {v}",
        "",
    ),
    # "I can't have dairy, so no ice cream for me"; not "… in the house", "… before the race"
    _rule(
        r"\bi (?:can't|cannot|can not) (?:have|eat|do|tolerate) (?P<v>dairy|gluten|lactose)"
        r"(?=\s*(?:[,.;!]|$)|\s+(?:anymore|any more|at all)\b)",
        "Diet: {v}-free",
        "",
        negative=True,
    ),
    _rule(
        r"\bi (?:eat|follow|keep) (?:an? |strictly )?(?P<v>gluten-free|dairy-free|keto|paleo|kosher|halal|plant-based|"
        r"low-carb|sugar-free)(?: diet| food)?\b",
        "Diet: {v}",
        "",
    ),
    _rule(
        r"\bi (?:don't|do not|never|no longer) eat (?P<v>meat|red meat|pork|beef|fish|seafood|dairy|eggs|gluten|"
        r"sugar|nuts|shellfish)\b",
        "Doesn't eat {v}",
        "",
        negative=True,
    ),
    _rule(r"\bi (?:can )?speak (?:fluent )?(?P<v>[A-Z][a-z]+)\b", "Speaks {v}", "v=lang"),
    _rule(
        r"\bmy (?:native|first|mother) (?:language|tongue) is (?P<v>[A-Z][a-z]+)\b",
        "Native language: {v}",
        "v=lang",
        "permanent",
    ),
    _rule(r"\bmy time ?zone is (?P<v>[A-Z][\w/+:-]{1,30})", "Timezone: {v}", ""),
    # rules for the agent
    _rule(rf"{_TO_AGENT}(?:call|address) me (?:as )?{_NAME}", "Call the user {v}", "v=name"),
    _rule(rf"{_TO_AGENT}(?:call|address) me (?:as )?{_NAME}", "Goes by {v}", "v=name"),
    _rule(
        rf"\b(?:(?:my|our) (?:friends|family|colleagues|coworkers|co-workers|parents|kids|team|mates|students)|"
        rf"everyone|everybody|people|most people|folks) (?:all |usually |just )?calls? me {_NAME}",
        "Goes by {v}",
        "v=name",
    ),
    _rule(rf"\bi (?:usually |mostly )?go by {_NAME}", "Goes by {v}", "v=name"),
    _rule(rf"\bmy nickname is {_NAME}", "Goes by {v}", "v=name"),
    _rule(
        rf"{_TO_AGENT}(?:reply|respond|answer|talk|speak|write)(?: to me| me| back)?(?: only| always)? in "
        r"(?P<v>[A-Z][a-z]+)\b",
        "Reply in {v}",
        "v=lang",
    ),
    _rule(
        r"\b(?:keep|make) (?:your |the )?(?:answers|replies|responses) (?:short|brief|concise)"
        r"|^(?:please )?be (?:brief|concise)\b|\bi (?:prefer|like|want) (?:short|brief|concise) (?:answers|replies)",
        "Keep answers short",
        "",
    ),
    _rule(
        rf"{_TO_AGENT}keep (?:it|them|answers|your answers|replies|your replies|responses) (?:under|below|to|within) "
        r"(?P<v>\d+ (?:sentences|words|lines|paragraphs|bullet points))\b",
        "Keep answers under {v}",
        "",
    ),
    _rule(
        r"^(?:please[,\s]+)?(?:answer|reply|respond) (?:in|with|using) no more than (?P<v>\d+ (?:sentences|words|lines))\b",
        "Keep answers under {v}",
        "",
        negative=True,
    ),
    _rule(
        rf"{_TO_AGENT}(?:answer|reply|respond|write)(?: to me)? (?:in|with|using) (?P<v>bullet points|bullets|"
        r"numbered lists|short paragraphs|plain text|plain prose|tables)\b",
        "Answer in {v}",
        "",
    ),
    _rule(
        rf"{_TO_AGENT}(?:show|give|put) (?:me )?(?:the )?code first\b",
        "Give the code first, then the explanation",
        "",
    ),
    _rule(
        r"^(?:please[,\s]+)?use (?P<v>metric units|imperial units|british spelling|american spelling|uk english|us english|"
        r"celsius|fahrenheit|24-hour time|iso dates)\b",
        "Use {v}",
        "",
    ),
    _rule(
        r"\b(?:give|write) (?:me )?(?:more )?detailed (?:answers|replies)"
        r"|\bi (?:prefer|like|want) (?:long|longer|detailed) (?:answers|replies)",
        "Give detailed answers",
        "",
    ),
    _rule(
        r"^(?:(?:please|from now on|going forward|in (?:the )?future|and|also|so)[,\s]+)*"
        r"(?:you should |you must |make sure to |remember to )?(?P<k>always|never) (?P<v>.{3,120}?)\s*[.!]?$",
        "{K} {v3}",
        "v=free",
        negative=True,
    ),
    _rule(
        r"^(?:(?:please|from now on|going forward|and|also)[,\s]+)*(?:don't|do not) ever (?P<v>.{3,120}?)\s*[.!]?$",
        "Never {v3}",
        "v=free",
        negative=True,
    ),
    _rule(
        r"^(?:please[,\s]+)?(?:stop (?P<g>using|adding|putting|writing|including)|(?:don't|do not) "
        r"(?P<b>use|add|put|write|include)) (?P<v>emojis?|emoticons|exclamation marks|bullet points|jargon|"
        r"markdown tables|headings|filler|small talk)\b[^.!?]*[.!]?$",
        "Never {verb} {v}",
        "",
        negative=True,
    ),
    _rule(
        r"^(?:from now on|going forward|in (?:the )?future)[,\s]+(?:please )?(?P<v>(?!i\b|we\b|my\b|the\b|it\b)"
        r"[a-z]+ .{3,120}?)\s*[.!]?$",
        "Always {v3}",
        "v=free",
    ),
    # project facts and decisions
    _rule(
        rf"\bwe(?:'ve| have)? (?:now )?(?:switched|moved|migrated) (?:\w+ )?from (?P<o>[^,.;!?()]{{1,40}}?) to {_VAL}",
        "Uses {v} instead of {o}",
        "v=tool o=tool",
        "correction",
        change=True,
    ),
    _rule(
        r"\b(?:i|we)(?:'ve| have)? (?:decided|agreed) (?:to |that |on )(?P<v>.{3,120}?)\s*[.!]?$",
        "Decided: {v3}",
        "v=free",
    ),
    _rule(
        rf"\b(?:i|we)(?:'ve| have)? (?:chose|chosen|picked|went with|settled on|opted for) {_VAL}",
        "Chose {v}",
        "v=tool",
    ),
    _rule(
        rf"\bwe(?:'re| are|'ve been| have been)? (?:now |currently )?(?:use|using|run on|running on|build on|"
        rf"building on|rely on) {_VAL}",
        "Uses {v}",
        "v=tool",
    ),
    _rule(
        rf"\bour (?:stack|infrastructure|infra|backend|frontend|platform|services?|pipeline|deployment) "
        rf"(?:now )?(?:runs|is running|is built|is deployed) on {_VAL}",
        "Uses {v}",
        "v=tool",
    ),
    _rule(
        rf"{_PROJECT} is (?:written|built|implemented|coded) in {_VAL}",
        "{p} is written in {v}",
        "p=project v=tool",
    ),
    _rule(
        rf"{_PROJECT} is (?:written|built|implemented) in [^,.;]{{1,40}}? and (?:is )?(?:deployed|hosted|running|runs) "
        rf"on {_VAL}",
        "{p} runs on {v}",
        "p=project v=tool",
    ),
    _rule(
        rf"{_PROJECT} (?:is (?:now )?(?:deployed|hosted|running)|(?:now )?runs) on {_VAL}",
        "{p} runs on {v}",
        "p=project v=tool",
    ),
    _rule(
        r"\bwe(?:'ve| have)? (?:just |now |finally )?(?:upgraded|updated|moved|bumped|migrated) (?P<t>(?-i:[A-Z])[\w.+-]*)"
        r" from (?:version |v)?(?P<o>\d+(?:\.\d+)*[a-z]?) to (?:version |v)?(?P<v>\d+(?:\.\d+)*[a-z]?)",
        "Uses {t} {v} instead of {t} {o}",
        "t=tool",
        "correction",
        change=True,
    ),
    _rule(
        r"\bwe(?:'ve| have)? (?:just |now |finally )?(?:upgraded|updated|bumped) (?P<t>(?-i:[A-Z])[\w.+-]*) to "
        r"(?:version |v)?(?P<v>\d+(?:\.\d+)*[a-z]?)",
        "Uses {t} {v}",
        "t=tool",
        "correction",
        change=True,
    ),
    _rule(
        r"\bwe(?:'re| are) (?:now |currently |still )?on (?P<t>(?-i:[A-Z])[\w.+-]*) (?:version |v)?(?P<v>\d+(?:\.\d+)*[a-z]?)",
        "Uses {t} {v}",
        "t=tool",
    ),
    _rule(
        rf"^(?:we|our team|the team)(?:'ve| have)? (?:all )?(?:agreed|decided) (?:to |that we(?:'ll| will) |on )"
        rf"(?P<v>[^.;!?]{{3,80}}?\b(?:{_CADENCE})\b[^.;!?]{{0,40}}?)\s*[.!]?$",
        "Team agreement: {v}",
        "v=free",
    ),
    _rule(
        rf"^(?:we|our team|the team) (?P<v>(?:deploy|release|ship|meet|demo|plan|sync|review code|pair|"
        rf"(?:do|have|hold|run) {_TEAM_EVENT}) (?:{_CADENCE})[^.;!?]{{0,40}}?)"
        r"\s*[.!]?$",
        "Team cadence: {v}",
        "v=free",
    ),
    _rule(
        r"^our (?P<e>daily standup|standup|stand-up|retro|retrospective|sprint planning|planning|demo|sync|"
        r"releases?|deploys?|deployments?|sprints?) (?:is|are|happens?|takes place) (?P<v>(?:at|on|every|each|once|"
        r"twice|weekly|daily|biweekly|fortnightly|\w+ weeks long)[^.;!?]{0,40}?)\s*[.!]?$",
        "Team cadence: {e} {v}",
        "v=free",
    ),
    _rule(
        rf"\bwe (?:no longer use|stopped using|don't use \S+ any ?more) {_VAL}",
        "No longer uses {v}",
        "v=tool",
        "correction",
        change=True,
        negative=True,
    ),
    _rule(
        rf"\b(?:the|our|my) (?P<k>project|app|product|service|system|repo|startup|company|team|tool|library) is "
        rf"(?:called|named) {_NAME}",
        "The {k} is called {v}",
        "v=project",
    ),
    _rule(
        rf"\bi(?:'m| am) (?:leading|working on|building|running) (?:a|an|the) (?P<k>project|app|product|service|"
        rf"startup|tool|library) (?:called|named) {_NAME}",
        "The {k} is called {v}",
        "v=project",
    ),
    _rule(
        rf"{_PROJECT}(?:'s)? (?:now )?(?:stores|keeps|saves|persists) (?:its|their|all its)? ?data in {_VAL}",
        "{p} stores its data in {v}",
        "p=project v=tool",
    ),
    _rule(
        rf"\bwe (?:now )?(?:store|keep|save|persist) {_PROJECT}'s data in {_VAL}",
        "{p} stores its data in {v}",
        "p=project v=tool",
    ),
    _rule(
        rf"{_PROJECT}'s (?:database|data store|datastore|storage) is (?:now )?{_VAL}",
        "{p} stores its data in {v}",
        "p=project v=tool",
    ),
    _rule(
        rf"\bthe deadline (?:for (?P<v>[\w\s-]{{2,40}}?) )?is (?:on |by )?{_DATE}\b",
        "Deadline for {v}: {d}",
        "",
        "ephemeral",
    ),
    _rule(
        rf"\b(?:the |our |my )?(?P<v>[\w-]+(?: [\w-]+(?:\.\w+)*){{0,3}}) (?:is|are) due (?:on |by )?{_DATE}\b",
        "Deadline for {v}: {d}",
        "v=any-thing",
        "ephemeral",
    ),
    _rule(
        rf"\bwe (?:need to|have to|must|want to|'ve got to|have got to) (?P<a>ship|release|launch|deliver|finish|submit)(?: (?:the |our )?"
        rf"(?P<v>[\w-]+(?: [\w-]+){{0,3}}))? by {_DATE}\b",
        "Deadline for {v}: {d}",
        "v=any-thing",
        "ephemeral",
    ),
    _rule(
        rf"\bi(?:'ve| have)(?: got)? an? (?P<k>{APPOINTMENTS}) appointment (?:on |at |for )?{_DATE}\b",
        "{K} appointment on {d}",
        "",
        "ephemeral",
    ),
    _rule(
        rf"\bi(?:'m| am) (?:going|flying|travelling|traveling|driving|heading) to {_NAME} (?:on |this |next )?{_DATE}\b",
        "Travelling to {v} on {d}",
        "v=place",
        "ephemeral",
    ),
]

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
_IDIOM = re.compile(
    r"\b(?:" + "|".join(re.escape(x) for x in IDIOMS) + r")\b[,;]?\s*(?:but\s+)?", re.I
)
_HEDGE = re.compile(
    # "mostly into X" says what one likes most (not "… these days": a phase); "that / a different
    # kind of X" is a noun, no hedge
    r"\b(?:mostly(?! into\b(?!.*\b(?:these days|lately|right now|at the moment|nowadays|for now)\b)| my thing\b)|(?<!\bthat )(?<!\bthis )(?<!\bwhat )(?<!\bthe )(?<!\bany )(?<!\bsome )"
    r"(?<!\bdifferent )(?<!\bsame )(?<!\bother )(?<!\bevery )(?<!\bone )(?:sort|kind) of|kinda|partly|partially|half|sometimes|occasionally|at times|"
    r"on weekdays|on weekends|more or less|ish|i think|i guess|i suppose|not sure|apparently|"
    r"supposedly|allegedly)\b",
    re.I,
)

_REMEMBER = re.compile(
    r"^(?:please )?remember (?:that )?(?P<v>(?:i|my|we|our)\b.{3,200}?)\s*[.!]?$", re.I
)

# -- what makes a sentence no statement of fact ------------------------------------------------------------------
_QUESTION_START = re.compile(
    r"^(?:what|where|when|why|how|who|whom|which|any idea|guess)\b|^(?:do|does|did|can|could|would|should|shall|"
    r"will|is|are|am|was|were|have|has|had|isn't|aren't|don't|doesn't|didn't|won't|wouldn't|shouldn't|couldn't)"
    r"\s+(?:you|we|i|they|he|she|it|that|this|there|my|our|the)\b",
    re.I,
)
_HYPOTHETICAL = re.compile(
    r"\b(?:if|unless|whether|assuming|provided that|as long as|in case|would|could|might|may be|maybe|perhaps|possibly|probably|wish|imagine|suppose|"
    r"supposing|pretend|hypothetically|in theory|someday|some day|one day|dream of|dreaming|thinking about|"
    r"thinking of|considering|planning to|plan to|hoping to|hope to|want to|wanted to|wants to|going to (?!(?-i:[A-Z])|keep up with|keep going with|continue|carry on)"
    r"|gonna(?! keep up with| keep going with| continue| carry on)|should i|what if|let's say|used to|was going to|almost|nearly|pretending|joking|kidding|just kidding)\b",
    re.I,
)
_REPORTED = re.compile(
    r"\b(?:he|she|they|you|someone|somebody|people|everyone|everybody|nobody|my \w+|his \w+|her \w+|the \w+|"
    r"(?-i:[A-Z])\w+)\s+(?:said|says|say|told me|tells me|thinks|think|thought|claims?|claimed|believes?|"
    r"believed|wrote|writes|asked|asks|assumes?|assumed|insists?|insisted|mentioned|mentions)\b"
    # the speaker named after the words: "I'm a total movie fan, said my brother"
    r"|,\s*(?:said|says|asked|asks|wrote|writes|added|adds|replied)\s+(?:(?-i:[A-Z])\w+|my \w+|his \w+|her \w+|"
    r"the \w+|nobody|no one|someone|everyone|he|she|they)\b",
    re.I,
)
_SARCASM = re.compile(
    r"\b(?:yeah right|oh great|oh joy|oh wonderful|oh sure|sure thing|lol|lmao|rofl|haha\w*|/s|said no one ever|"
    r"as if|not!|yeah,? sure|totally not)\b|/s\b|🙄|😂|🤣|\bnot\.$",
    re.I,
)
_IRONIC = re.compile(r"^(?:sure|totally|of course|obviously|yeah sure|riiight)[,!]\s", re.I)
_OTHER_SPEAKER = re.compile(
    r"^(?:the )?(?:assistant|bot|agent|ai|system|tool|model|claude|gpt|chatgpt)\b", re.I
)
_CODE = re.compile(
    r"`|[{}]|==|=>|->|\(\)|;\s*$|^\s*(?:#|//|>>>|\$ |def |class |import |from \S+ import)|\w\(|\w=\w|"
    r"\w\.\w+\(|</?\w+>"
)
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|‘[^’]*’|(?<![\w])'[^']{2,}'(?![\w])")
#: A quoted title right after a like ('I love "The Santa Clause"') is the thing liked, not quoted
#: speech: its marks go before quoted text is dropped. Only a title: capitalised words and short
#: function words.
_TITLE_LIKED = re.compile(
    r"(?P<pre>\b(?:love|like|enjoy|adore|fan of|into)\s+)[\"“](?P<t>(?-i:[A-Z])[\w'’-]*(?:\s(?:(?-i:[A-Z])[\w'’-]*|"
    r"of|the|a|an|and|in|on|to|with|for)){0,7})[\"”]",
    re.I,
)
_NEGATION = re.compile(r"\b(?:not|never|no|none|nor|neither|without|n't)\b|n't\b", re.I)

# Only with words that make it standing: "can you always …?" may ask about an ability, or be
# rhetorical.
_STANDING_REQUEST = re.compile(
    r"^(?:can|could|would|will) you (?:please )?(?P<v>(?:always )?[a-z].*?\b(?:from now on|"
    r"going forward|in (?:the )?future))(?:,? please)?\s*[?.!]*$",
    re.I,
)
_CORRECTION_CUE = re.compile(
    r"^(?:actually|correction|sorry|no|wait|oops|update|news|quick update|small update)\b"
    r"[,:!\s-]*",
    re.I,
)
_CHANGE_CUE = re.compile(
    r"\b(?:actually|i meant|i was wrong|now|currently|these days|nowadays|no longer|any ?more|"
    r"since (?:last|this)|moved|relocated|switched|changed|new job|instead|replaces?)\b",
    re.I,
)
_NOT_BUT = re.compile(
    r"\bnot (?P<p>(?:in|at|as|for) )?(?P<o>[^,.;]{1,40}?),? but (?!(?:i|i'm|i've|it|it's|we|they|he|she|you)\b)"
    r"(?:(?P=p))?",
    re.I,
)
_FILLER = re.compile(
    r"^(?:oh|well|btw|by the way|so|also|anyway|ok|okay|hmm|and|fyi|fun fact|for the record|"
    r"just so you know|heads up|note|yes|yeah|yep|right|what can i say|you know what)\b[,:!\s-]+",
    re.I,
)
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?;])\s+|\n+")
_REPLACES = re.compile(r"\s*\(replaces?:\s*(?P<o>[^)]*)\)\s*[.!]?$", re.I)

# Third-person notes about the user, read as the user's own words: "User prefers tea" → "I prefer
# tea".
_USER_SUBJECT = re.compile(
    r"^(?:the )?user(?P<adv>(?:\s+(?:now|currently|also|really|still|just|actually|recently|no longer|"
    r"usually|generally|always|never|often))*)\s+(?P<verb>[a-z']+)\b",
    re.I,
)
_USER_POSSESSIVE = re.compile(r"\b(?:the )?user's\b", re.I)
_USER_OBJECT = re.compile(r"\b(?:the )?user\b", re.I)
_BE_HAVE = {
    "is": "am",
    "was": "was",
    "has": "have",
    "does": "do",
    "doesn't": "don't",
    "isn't": "am not",
    "hasn't": "haven't",
    "wasn't": "wasn't",
}


def _base_verb(verb: str) -> str:
    low = verb.lower()
    if low in _BE_HAVE:
        return _BE_HAVE[low]
    if low.endswith("ies") and len(low) > 4:
        return low[:-3] + "y"
    if low.endswith(("ches", "shes", "sses", "xes", "zes", "oes")):
        return low[:-2]
    if low.endswith("s") and not low.endswith(("ss", "us", "is")):
        return low[:-1]
    return low


def first_person(sentence: str) -> str:
    """A third-person note about the user as the user's own words ("User lives in Porto" → "I live in Porto")."""
    m = _USER_SUBJECT.match(sentence)
    if m:
        sentence = f"I{m.group('adv')} {_base_verb(m.group('verb'))}{sentence[m.end() :]}"
    else:
        m = re.match(r"^(?:the )?user's\b", sentence, re.I)
        if not m:
            return sentence
    sentence = _USER_POSSESSIVE.sub("my", sentence)
    return _USER_OBJECT.sub("me", sentence)


#: What makes a sentence a plan, a wish or a guess about the future, while a possessive in it ("my
#: love for X") still says what is: "I'm considering X because of my passion for Y".
_MODAL = re.compile(
    r"\b(?:would|could|might|want to|wanted to|wants to|hoping to|hope to|considering|thinking about|"
    r"thinking of|planning to|plan to|going to|gonna|someday|some day|one day)\b",
    re.I,
)


#: A love wished back is one lost ("I want my love for painting back").
_AGAIN = re.compile(r"\b(?:again|back|anymore|any more|once more)\b", re.I)


#: A later clause that is a plan or a guess of its own: ", working with them would be cool".
#: Its subject is an activity of its own (an "-ing" phrase), so the mood is about that activity;
#: a pronoun subject ("I might be wrong", "it would be fun to try") may be about the first clause,
#: and so may a condition or a first try ("assuming I'd pass", "trying it would be fun").
_MODAL_TAIL = re.compile(
    r",\s+(?P<t>(?!(?:during|according|regarding|including|concerning|considering|being|nothing|"
    r"something|anything|everything|assuming|supposing|providing|imagining|pretending|hoping|wishing|"
    r"planning|thinking|trying|tasting|testing|starting)\b)[a-z]+ing\b[^,]*\b(?:would|could|might)\b[^,]*)$",
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
    return head if len(head.split()) >= 3 and _statement(head) else ""


def modal_only(sentence: str) -> bool:
    """The sentence is no statement only through a plan, a wish or a guess (``_MODAL``): no question,
    other speaker, joke, hedge, report, condition, past habit or pretence."""
    if _statement(sentence) or not _MODAL.search(sentence) or _AGAIN.search(sentence):
        return False
    return _statement(_MODAL.sub("do", sentence))


def _statement(sentence: str) -> bool:
    """False for what states no fact about the user: questions, hypotheticals, reported speech, jokes, code."""
    if sentence.rstrip().endswith("?") or _QUESTION_START.match(sentence):
        return False
    if (
        _OTHER_SPEAKER.match(sentence)
        or _SARCASM.search(sentence)
        or _CODE.search(sentence)
        or _IRONIC.match(sentence)
    ):
        return False
    if _HEDGE.search(sentence):
        return False
    probe = re.sub(r"\b(?:would|'d) rather\b", "prefer", sentence, flags=re.I)
    if _HYPOTHETICAL.search(probe) or _REPORTED.search(sentence):
        return False
    return True


# -- canonical facts read back ------------------------------------------------------------------------------------
_CANON: list[tuple[re.Pattern[str], str, str | None]] = [
    (re.compile(p, re.I), target, slot)
    for p, target, slot in [
        (r"^Name: (.+)$", USER, "name"),
        (r"^From (.+)$", USER, "origin"),
        (r"^Born in (.+)$", USER, "birthplace"),
        (r"^Grew up in (.+)$", USER, None),
        (r"^Birthday: (.+)$", USER, "birthday"),
        (r"^Has an? (\w+) named (.+)$", USER, None),
        (rf"^Has (?:an? (?:{PETS})|(?:two|three|four|five) (?:{_PETS_PLURAL}))$", USER, None),
        (r"^Lives in (.+)$", USER, "home"),
        (r"^Works at (.+)$", USER, "employer"),
        (r"^Works as (.+)$", USER, "role"),
        (r"^Favou?rite (\w+): (.+)$", USER, "favourite:{1}"),
        (r"^(?:Likes|Dislikes|Prefers|Allergic to|Speaks) (.+)$", USER, None),
        (r"^Is (vegetarian|vegan|pescatarian)$", USER, "diet"),
        (r"^Is (lactose|gluten) intolerant$", USER, None),
        (r"^Native language: (.+)$", USER, "native-language"),
        (r"^Timezone: (.+)$", USER, "timezone"),
        (r"^Call the user (.+)$", SOUL, "call"),
        (r"^Goes by (.+)$", USER, None),
        (
            r"^(?:Plays|Does|Is learning|Volunteers at|Is a member of|Runs|Doesn't eat) (.+)$",
            USER,
            None,
        ),
        (r"^(Volunteers)$", USER, None),
        (r"^Diet: (.+)$", USER, None),
        (r"^Keep answers under (.+)$", SOUL, "length"),
        (
            r"^Answer in (bullet points|bullets|numbered lists|short paragraphs|plain text|plain prose|tables)$",
            SOUL,
            "format",
        ),
        (r"^(Give the code first, then the explanation)$", SOUL, None),
        (
            r"^Use (metric units|imperial units|british spelling|american spelling|uk english|us english|celsius|"
            r"fahrenheit|24-hour time|iso dates)$",
            SOUL,
            None,
        ),
        (r"^(.+?) is written in (.+)$", MEMORY, "language:{1}"),
        (r"^(.+?) runs on (.+)$", MEMORY, None),
        (r"^Team (?:agreement|cadence): (.+)$", MEMORY, None),
        (r"^Reply in (.+)$", SOUL, "language"),
        (r"^(Keep answers short|Give detailed answers)$", SOUL, "length"),
        (r"^(?:Always|Never) (.+)$", SOUL, None),
        (r"^Deadline for (.+?): (.+)$", MEMORY, "deadline:{1}"),
        (r"^Deadline: (.+)$", MEMORY, None),
        (r"^The (\w+) is called (.+)$", MEMORY, "name:{1}"),
        (r"^(.+?) stores its data in (.+)$", MEMORY, "database:{1}"),
        (r"^(?:Uses|Chose|Decided:|Travelling to|No longer uses) (.+)$", MEMORY, None),
        (r"^(\S+) appointment on (.+)$", MEMORY, None),
    ]
]
_INSTEAD = re.compile(r"^(?P<new>.+?) instead of (?P<old>.+)$", re.I)
_NO_LONGER = re.compile(
    r"^No longer (?P<k>lives in|live in|works at|work at|works for|work for|likes|like|uses|use) "
    r"(?P<v>.+)$",
    re.I,
)
_NO_LONGER_LINE = {
    "live in": "Lives in",
    "lives in": "Lives in",
    "work at": "Works at",
    "works at": "Works at",
    "work for": "Works at",
    "works for": "Works at",
    "like": "Likes",
    "likes": "Likes",
    "use": "Uses",
    "uses": "Uses",
}
_NO_LONGER_TEXT = {
    "live in": "lives in",
    "work at": "works at",
    "work for": "works at",
    "like": "likes",
    "use": "uses",
}

_SUSPICIOUS = re.compile(
    r"https?://|www\.|[\w.+-]+@[\w-]+\.\w+|ignore (?:all |any |the )?(?:previous|prior|above|earlier) instructions"
    r"|\b(?:send|upload|forward|post|e-?mail|exfiltrate|share|leak)\b.*\b(?:to|with)\b"
    r"|\b(?:password|api[ _-]?key|token|secret|credential|ssh key)s?\b|\bsoul\.md\b|\bsystem prompt\b",
    re.I,
)

# "I copy" → "the user copies": the verb right after "I" (past an adverb or two) agrees with its new
# subject.
_I_VERB = (
    r"\bI((?:\s+(?:also|really|usually|always|never|often|just|still|mostly|only|generally|sometimes))*)"
    r"\s+([a-z]+)\b"
)
_NOT_PRESENT = frozenset(
    "am is are was were be been have has had do does did don't can could will would shall should must might may "
    "ought used to a an the".split()
)


def _third_singular(verb: str) -> str:
    if (
        verb in _NOT_PRESENT
        or (verb.endswith("ed") and not verb.endswith("eed"))
        or verb.endswith("n't")
        or len(verb) < 2
    ):
        return verb
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


_THIRD_PERSON: list[tuple[str, str | Callable[[re.Match[str]], str]]] = [
    (r"\bI am\b|\bI'm\b", "the user is"),
    (r"\bI've\b|\bI have\b", "the user has"),
    (r"\bI'll\b", "the user will"),
    (r"\bI'd\b", "the user would"),
    (r"\bI was\b", "the user was"),
    (r"\bI don't\b|\bI do not\b", "the user doesn't"),
    (r"\bI do\b", "the user does"),
    (_I_VERB, lambda m: f"the user{m.group(1)} {_third_singular(m.group(2))}"),
    (r"\bI\b", "the user"),
    (r"\bmy\b", "the user's"),
    (r"\bmine\b", "the user's"),
    (r"\bmyself\b", "the user"),
    (r"\bme\b", "the user"),
]
_THIRD_PERSON_RX = [
    (re.compile(p, 0 if p in (r"\bI\b", _I_VERB) else re.I), r) for p, r in _THIRD_PERSON
]


def third_person(text: str) -> str:
    """The user's first-person words as a third-person note ("my flat" → "the user's flat")."""
    for rx, repl in _THIRD_PERSON_RX:
        text = rx.sub(repl, text)
    return text


def normalize(text: str) -> str:
    """Comparison key: lower case, bullets, marks, punctuation and spacing folded."""
    text = re.sub(r"^\s*[-*]\s*(?:\[[a-z]+\]\s*)?", "", text.strip(), flags=re.I)
    text = re.sub(r"[^\w\s:]", " ", text.lower())
    return " ".join(text.split())


def is_suspicious_rule(text: str) -> bool:
    """A would-be SOUL rule that sends data out, names credentials or tries to rewrite the agent's instructions."""
    return bool(_SUSPICIOUS.search(text))


_NOT_A_RULE = _words(
    "mind heard been seen knew thought happened did was were had again ever forget forgot felt "
    "got said saw liked loved wanted needed understood managed worked lived the a my i it this "
    "that so true fun easy works"
)
_PROPER = ("Lives in", "From", "Works at", "Travelling to", "Born in", "Grew up in")


def _clean(value: str, proper: bool, *, strip: bool = True) -> str:
    value = re.sub(
        r"[\ud800-\udfff\x00-\x1f\x7f\ufffd]", "", value
    )  # broken or control characters: never file text
    value = re.sub(r"\s+", " ", value).strip(" '\"`-:")
    if not strip:
        return value
    value = re.sub(r"^(?:the city of|our|my|in|at)\s+", "", value, flags=re.I)
    if re.fullmatch(r"(?i:the)\s+\w+", value) and value.split()[-1].lower() in _GENERIC_THE:
        return value  # "the ocean" keeps its article, as said
    if (proper and re.match(r"^the\s+[A-Z]", value)) or _TITLE.fullmatch(value):
        return value  # "the Netherlands"; a title said with its capital "The" ("The Hobbit")
    value = re.sub(r"^the\s+", "", value, flags=re.I)
    return value


_ONE_OFF = re.compile(
    r"\b(?:this|that|these|those|for now|today|tonight|tomorrow|right now|here|yet|below|above|"
    r"next one)\b",
    re.I,
)
_GERUND = {
    "using": "use",
    "adding": "add",
    "putting": "put",
    "writing": "write",
    "including": "include",
}


#: What an agent does when it answers or acts for the user: a free rule opens with one of these.
#: Between people "always" and "never" open advice and remarks ("Don't ever quit on what you love",
#: "Always up for something sweet"), which are no instruction to the agent.
_AGENT_VERBS = _words(
    "answer respond reply write use cite show ask apologise apologize include add explain give keep format "
    "mention quote link check confirm run test summarise summarize suggest recommend call address refer sign "
    "start end put say translate spell tell list number wrap comment commit push delete remove send mark label "
    "avoid default assume make greet double-check verify print output return lead open close reference note "
    "warn offer provide read search look review proofread copy paste edit rewrite shorten simplify"
)


def _imperative(text: str) -> bool:
    """Free text addressed to the agent starts with a verb it can follow ("cite", "use"), not
    "been", "thought", and not a verb of advice between people ("quit", "give up")."""
    first = text.split(" ", 1)[0].lower().strip(",.!")
    if not re.fullmatch(r"[a-z-]+", first) or first in _NOT_A_RULE or first not in _AGENT_VERBS:
        return False
    if re.match(r"^\w+ up\b", text, re.I):
        return False  # "never give up", "always look up to …"
    if re.match(r"^\w+ (?:i|we|he|she|they|it|you)\b", text, re.I):
        return (
            False  # an inversion ("never have I ever been …", "never did we …"): a remark, no rule
        )
    if first.endswith("ed") and not first.endswith("eed"):
        return False
    return not (first.endswith("s") and not first.endswith(("ss", "us")))


#: A favourite of these kinds is a title or a name, capitalised wherever it stands ("Titanic is my
#: favourite movie").
_TITLE_KINDS = _words(
    "book novel movie film show series band song album team game author writer singer artist player"
)


def _fill(rule: Rule, m: re.Match[str], said_on: date | None) -> str | None:
    groups = {k: v for k, v in m.groupdict().items() if v}
    template = rule.template
    values: dict[str, str] = {}
    if (
        "a" in groups and "v" not in groups
    ):  # "we need to launch by …": the action is the thing that is due
        groups["v"] = groups["a"]
    for (
        group,
        kind,
    ) in rule.kinds:  # on the words as said: "my coffee black" is no thing, "coffee black" would be
        if group == "v" and kind == "free":
            continue
        raw = _clean(groups.get(group, ""), True, strip=False)
        if not _KINDS[kind](raw):
            if kind == "place" and _PLACE_CUE.match(m.string[m.end() :]) and is_unknown_place(raw):
                continue  # "I live in Little Hinton, a village near Oxford": the sentence says it is a place
            return None
    if (
        "k" in groups
        and template.startswith("Has a")
        and not given_name(groups.get("v", ""))
        and (
            groups["k"].lower() in _PEOPLE
            or not re.search(r"\b(?:named|called|name is)\b", m.group(0), re.I)
        )
    ):
        return None  # a wife or a son has a given name ("Colombian" is none); "my dog is Hungry" names no dog
    for key in ("v", "o", "p"):
        if key in groups:
            values[key] = _clean(groups[key], template.startswith(_PROPER) or key == "p")
    if "b" in groups:
        values["b"] = groups["b"].strip()
    if template.startswith(("Volunteers at", "Is a member of")) and "v" in values:
        # out of its conversation "the shelter" names no one shelter: "a homeless shelter"
        bare = re.sub(
            r"^(?:a|an|the|my|our|my local|our local)\s+",
            "",
            _clean(groups["v"], False, strip=False),
            flags=re.I,
        )
        values["v"] = f"{'an' if bare[:1].lower() in 'aeiou' else 'a'} {bare}"
    if template.startswith("Runs ") and "v" in values:
        values["v"] = re.sub(
            r"^(?:(?:my|our) )?own ", "a ", values["v"]
        )  # "my own studio" → "a studio"
        values["v"] = re.sub(
            r"^an? (?=\w)",
            lambda a: "an " if values["v"][a.end() :][:1] in "aeiou" else "a ",
            values["v"],
        )
    if template.startswith("Team ") and "v" in values:
        values["v"] = _clean(groups["v"], False, strip=False)  # "at 9:30 every day" keeps its "at"
    for key in ("t", "e"):
        if key in groups:
            values[key] = groups[key].strip()
    if (
        "v" in values
        and m.start("v") == 0
        and _sentence_capital(values["v"])
        and groups.get("k", "").lower() not in _TITLE_KINDS
    ):
        values["v"] = (
            values["v"][:1].lower() + values["v"][1:]
        )  # "Dance is my passion" → "Likes dance"
    if "d" in groups:
        raw = re.sub(r"^on ", "", groups["d"].strip(), flags=re.I)
        day = resolve(raw, said_on)
        values["d"] = day.isoformat() if day else raw
    if "k" in groups:
        values["K"] = groups["k"].capitalize()
        values["k"] = _NO_LONGER_TEXT.get(groups["k"].lower(), groups["k"].lower())
    if "{g}" in template:  # "I like to collect jerseys" → "Likes collecting jerseys"
        values["g"] = gerund(groups["g"].lower())
    if "{verb}" in template:  # "stop using emojis" → "Never use emojis"
        verb = (groups.get("g") or groups.get("b") or "use").lower()
        values["verb"] = _GERUND.get(verb, verb)
        values["v"] = groups["v"].lower()
    if (
        "{v3}" in template
    ):  # free text addressed to the agent: keep the user's words, in the third person
        raw = groups.get("v", "").strip().rstrip(".!")
        if template.startswith(("{K}", "Never", "Always")) and (
            not _imperative(raw) or _ONE_OFF.search(raw)
        ):
            return None  # "always been like that"; "always check the logs first when debugging this one"
        if template.startswith("Decided") and not any(
            is_tool(w.strip(",.")) and w[:1].isupper() and w.lower() not in NOT_NAMES
            for w in raw.split()[1:]
        ):
            return None  # "we decided to call it a day": a decision names what was decided on
        values["v3"] = third_person(raw)
    if template.startswith("Deadline for {v}") and "v" not in values:
        template = template.replace("Deadline for {v}", "Deadline")
    try:
        text = template.format(**values)
    except KeyError:
        return None
    text = text.strip()
    return text[:1].upper() + text[1:] if text else None


def gerund(verb: str) -> str:
    """The "-ing" form of a verb: "dance" → "dancing", "swim" → "swimming", "cook" → "cooking"."""
    if verb.endswith("ie"):
        return verb[:-2] + "ying"
    if verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")) and len(verb) > 2:
        return verb[:-1] + "ing"
    if len(verb) <= 4 and re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", verb):
        return verb + verb[-1] + "ing"
    return verb + "ing"


def _keep(
    text: str,
    rule: Rule,
    sentence: str,
    old: str | None,
    correction: bool,
    seen: set[str],
    out: list[Fact],
) -> bool:
    """Add one filled fact to ``out`` unless it is a one-off rule for the agent or said already: True if added."""
    if canon(text).target == SOUL and (is_suspicious_rule(text) or _ONE_OFF.search(sentence)):
        return False  # "be concise in the summary below": about one reply, not a standing rule
    if old and "instead of" not in text and canon(text).removes is None:
        text = f"{text} (replaces: {old})"
    changed = correction or rule.change
    kind = "correction" if changed and rule.mark != "ephemeral" else rule.mark
    key = normalize(text)
    if key in seen:
        return False
    seen.add(key)
    out.append(Fact(text, kind))
    return True


def _sentence_capital(value: str) -> bool:
    """The value's capital comes only from opening the sentence ("Drawing flowers"), not from a name ("Rust")."""
    first = value.split(" ", 1)[0]
    if first[:1].isupper() and first[1:].islower() and first.endswith("ing") and " " in value:
        return True  # "Reading fantasy novels": an activity, though Reading is also a town
    if any(w[:1].isupper() for w in value.split()[1:]):
        return False  # "Iron Man", "Harry Potter": a name of several capitalised words
    return (
        first[:1].isupper()
        and first[1:].islower()
        and first.lower() not in TECH
        and not known_place(first)
        and not given_name(first)
    )


_GERUND_LIST = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")

#: Said after a like, these qualify the saying, not the thing ("I love traveling too").
_LIKE_TAIL = re.compile(
    r"\s+(?:too|also|as well|a lot|so much|very much|the most|most of all|more than anything|"
    r"personally|for sure|honestly|though|"
    r"(?:even |all the |much |so much |way )?more(?: than ever| than before| now)?)$",
    re.I,
)
#: Object pronouns: a like of "them" names nothing out of its conversation ("I also like holding
#: them").
_PERSONAL = _words("him her them us you me myself ourselves yourself themselves himself herself")
#: Besides those, what names nothing as a like's last word ("I like it", "I love those").
_OBJECT_PRONOUNS = _words("it one ones those these this that stuff things yourselves itself")
#: Particles that end a phrasal verb cut from its object ("curling up [with a book]").
_PARTICLES = _words("up out down off in on over around away back along through about into")
#: Gerunds that name no pastime without their object ("playing", "pushing").
_TRANSITIVE_GERUNDS = _words(
    "playing pushing making taking trying putting keeping giving getting doing having watching using seeing "
    "learning helping building working creating sharing finding"
)
#: Particles that only make a phrasal verb ("hanging around"), never a place ("hiking in the
#: hills").
_ADVERB_PARTICLES = _words("up out down off around away back along over")
#: Quantifiers and qualifiers that make a like one occasion's ("playing different songs", "a few
#: recipes").
_QUALIFIERS = _words(
    "different some certain few many several various other another every each any all"
)
#: Prepositions that tie a gerund to a scene ("sinking into magical worlds", "playing songs on the
#: piano").
_SCENE_PREPOSITIONS = _words(
    "into onto on in at from about under over through across by to for of with"
)


def liked(text: str) -> str | None:
    """A "Likes …" line as a lasting fact, or None: the qualifier that ends it dropped ("too"), and
    a value that names no lasting thing out of its conversation refused (a pronoun, a cut phrasal
    verb, one occasion: "the feast", a scene: "sinking into different magical worlds"). Precision
    first: a refused like stays in history. A dislike, an allergy or a preference only loses its
    trailing qualifier; any other line is returned as it is."""
    for head in ("Dislikes ", "Allergic to ", "Prefers "):
        if text.startswith(head):
            return head + _LIKE_TAIL.sub("", text.removeprefix(head).strip())
    head, _, value = text.partition(" ")
    if head != "Likes":
        return text
    value = _LIKE_TAIL.sub("", value.strip())
    if re.match(r"having \w", value) and is_thing(value):
        value = value.removeprefix("having ")  # "having picnics": the picnics are the thing liked
    words = value.split()
    lower = [w.lower().strip(".,!'\"") for w in words]
    if is_about(value):
        return f"{head} {value}"  # "books about personal development and mindset": a topic
    if (
        len(lower) in (3, 4)
        and lower[0] in ("learning", "reading")
        and lower[1] == "about"
        and lower[2:3] == ["different"]
        and is_thing(" ".join(lower[3:]))
    ):
        # "learning about different cultures": a pursuit, "different" no occasion
        return f"{head} {value}"
    if not words or len(words) > 4:
        return None
    if lower[-1] in _OBJECT_PRONOUNS or lower[-1] in _PARTICLES or set(lower) & _PERSONAL:
        return None  # "holding them", "curling up", "watching him play": about someone, or cut
    if lower[0].endswith("ing") and (
        len(lower) > 1 and lower[1] in _ADVERB_PARTICLES or lower[0] == "spending"
    ):
        return None  # "hanging around after class", "spending weekends [with …]": cut from what they are about
    if set(lower) & _QUALIFIERS:
        return None
    if len(lower) == 1 and lower[0] in _TRANSITIVE_GERUNDS:
        return None  # "I enjoy playing and pushing myself": playing what? no pastime named
    if (
        len(words) == 1
        and words[0][:1].isupper()
        and given_name(words[0])
        and not known_place(words[0])
    ):
        return None  # "I love Sarah": a person, not a thing liked
    proper = [w for w in words[1:] if w[:1].isupper()]
    if proper:
        return f"{head} {value}"  # a title or a name ("Lord of the Rings", "watching LeBron")
    if re.fullmatch(r"\w+ing (?:in|to|at|on) (?:the )?(?:\w+ )?\w+", " ".join(lower)):
        return f"{head} {value}"  # "cycling to work", "hiking in the mountains": a pursuit with its scene
    if "the" in lower[1:]:
        the = lower.index("the", 1)
        if not re.fullmatch(f"(?:{INSTRUMENTS}|{SPORTS})", " ".join(lower[the + 1 :])):
            return None  # "prepping the feast": one occasion; "playing the piano" is a pursuit
    if lower[0].endswith("ing") and set(lower[1:]) & _SCENE_PREPOSITIONS:
        return None  # "sinking into magical worlds", "playing songs on the piano": a scene, not a pursuit
    return f"{head} {value}"


#: "… and Y" after a liked value, Y ending its clause: the second half of a coordination.
_AND_TAIL = re.compile(
    r"\s+and\s+(?P<t>[\w'’-]+(?: [\w'’-]+){0,3}?)(?=\s*(?:[,.;:!?()]|$)|\s+(?:but|so|because|since|which|"
    r"that|though|too|as well|also)\b)",
    re.I,
)
#: A word that opens a new clause after "and" ("I love dogs and I have two"), not a second liked
#: thing.
_CLAUSE_OPENERS = _words(
    "i we it that this they he she you my our there so then now also just really"
)
#: A pronoun keeps opening a clause with its verb contracted onto it ("and it'd be great").
_CONTRACTION = re.compile(r"['’](?:m|s|d|ll|re|ve)$")


def _opens_clause(word: str) -> bool:
    return _CONTRACTION.sub("", word.lower()) in _CLAUSE_OPENERS


#: ... and so do these ("my love for dance and how it makes me feel").
_WH = _words("how what why when where who whom whose which whether")
#: A determiner after "and" opens a noun phrase of its own: the like before it is whole ("my love
#: for reading and the joy of sharing stories"), never a modifier of what follows.
_DETERMINERS = _words("the a an your his her their its")


def _list_item(value: str) -> bool:
    """One item of a coordinated like that stands alone: a plural ("dramas"), an activity ("hiking"),
    a name, or one word the lexicon knows as a noun and never as an adjective ("dance", "pottery";
    not "black" of "black and white")."""
    words = value.split()
    last = words[-1].lower()
    return (
        words[0][:1].isupper()
        or (words[0].lower().endswith("ing") and len(words[0]) > 4)
        or (last.endswith("s") and not last.endswith(("ss", "us", "is")))
        or (len(words) == 1 and noun(last))
    )


#: Fixed pairs that name one thing ("rock and roll", "salt and pepper", "pros and cons"): never two
#: likes. A closed class: English has a few dozen in everyday use, and no lexicon here lists them.
_BINOMIALS = frozenset(
    tuple(pair.split("+"))
    for pair in (
        "rock+roll rhythm+blues salt+pepper fish+chips mac+cheese macaroni+cheese bread+butter "
        "peanut+butter peace+quiet black+white trial+error hide+seek law+order pros+cons ups+downs "
        "wear+tear rise+fall give+take trick+treat surf+turf odds+ends nuts+bolts bed+breakfast "
        "arts+crafts cops+robbers song+dance heart+soul life+death health+safety fun+games "
        "bells+whistles sticks+stones flesh+blood bits+pieces rest+relaxation lock+key cat+mouse "
        "research+development hugs+kisses milk+cookies"
    ).split()
)
#: Words too broad to be a like on their own, as a half of a coordination ("life and love"), and
#: people ("mom and dad", "kids and dogs"): a like is of a thing, not of a person.
_BROAD = _words(
    "life love work family home people stuff things world time fun kid kids child children friend friends "
    "parents baby babies guys girls boys men women teacher teachers student students neighbour neighbours "
    "neighbor neighbors colleague colleagues team teammates coworkers classmates grandparents grandkids "
    "grandchildren " + " ".join(_PEOPLE)
)


def _noun_pair(first: str, second: str) -> bool:
    """Two halves of "X and Y" that are two things liked: each stands alone, the pair is no fixed
    binomial, and a bare singular noun is coordinated only with one word ("dance and fashion", not
    "dance and fashion shows", which may be shows of both)."""
    a, b = first.lower().split(), second.lower().split()
    if not a or not b or (a[-1], b[0]) in _BINOMIALS or {a[-1], b[0]} & _BROAD:
        return False
    if any(w[:1].isupper() and given_name(w) for w in (first.split()[0], second.split()[0])):
        return False  # "Jesus and Mary", "Sarah and Tom": people
    if not (_list_item(first) and _list_item(second)):
        return False
    bare = len(a) == 1 and noun(a[0]) and not a[0].endswith(("s", "ing"))
    return len(b) == 1 or not bare


def _coordinated(text: str, m: re.Match[str], rule: Rule) -> list[str]:
    """A like (or an allergy) read in its sentence. "I love dramas and romcoms" → both likes; "I
    love fantasy and sci-fi movies" → none, since "fantasy" may qualify "movies" (as "rock" in "rock
    and roll"): unsure, so nothing is written."""
    head = next((h for h in ("Likes ", "Allergic to ") if text.startswith(h)), None)
    if head is None or not m.groupdict().get("v"):
        return [text]
    pair = re.fullmatch(r"([\w'’-]+) and ([\w'’-]+)", text.removeprefix(head))
    if pair:  # a value read whole ("passionate about dance and fashion"): two things, or one
        first, second = pair.groups()
        if (first.lower(), second.lower()) in _BINOMIALS:
            return [text]  # "rock and roll": one thing
        kind = dict(rule.kinds).get("v", "thing")
        if _noun_pair(first, second) and _KINDS[kind](first) and _KINDS[kind](second):
            return [f"{head}{first}", f"{head}{second}"]
        return []
    if re.match(r"\s+(?:with|to|for|about) (?:you|u)\b", m.string[m.end("v") :], re.I):
        return []  # "I love chatting with you": about this conversation, not a pastime
    tail = _AND_TAIL.match(m.string, m.end("v"))
    if not tail:
        rest = re.match(r"\s+and\s+([\w'’-]+)", m.string[m.end("v") :])
        if rest and not (
            _opens_clause(rest.group(1)) or rest.group(1).lower() in _WH | _DETERMINERS
        ):
            # "I love action and comedy movies with my kids": the second half not read, unsure
            return []
        return [text]
    if _opens_clause(tail.group("t").split()[0]):
        return [text]
    items = [text.removeprefix(head), tail.group("t")]
    kind = dict(rule.kinds).get("v", "thing")
    if _noun_pair(*items) and _KINDS[kind](items[1]):
        return [f"{head}{i}" for i in items]
    if items[0].split()[0].lower().endswith("ing") and " " in items[0]:
        # "helping people and making a positive impact": an activity with its object stands alone
        return [text]
    return []


def _pet_kind(text: str) -> str:
    """ "Has a pup" → "Has a dog": a pet held is written by its kind."""
    m = re.fullmatch(r"Has (an? |two |three |four |five )(\w+)", text)
    if m and m.group(2).lower() in PET_TALK:
        return f"Has {m.group(1)}{PET_TALK[m.group(2).lower()]}"
    return text


def _each(text: str) -> list[str]:
    """ "Likes playing video games and watching movies" → one fact per activity, when every item is
    one (an "-ing" phrase); "Likes rock and roll" stays whole."""
    head, _, value = text.partition(" ")
    items = [i for i in _GERUND_LIST.split(value) if i]
    if len(items) > 1 and all(i.split(" ", 1)[0].lower().endswith("ing") for i in items):
        return [f"{head} {i}" for i in items]
    return [text]


def dated(text: str, said_on: date | None) -> str:
    """A canonical dated fact with its date made absolute ("Deadline for X: next Friday" → "…: 2027-01-15")."""
    m = re.match(
        r"^(?P<head>Deadline for .+?: |Deadline: |\S+ appointment on |Travelling to .+? on )(?P<d>.+)$",
        text,
        re.I,
    )
    if not m:
        return text
    day = resolve(m.group("d"), said_on)
    return f"{m.group('head')}{day.isoformat()}" if day else text


_MAX_SENTENCE = (
    400  # facts are said briefly; a run-on "sentence" (a pasted list, a log line) is cut here
)
_MAX_MATCHES = (
    4  # per rule and sentence: "I love cats, I love cats, …" a thousand times costs no more
)


def _sentences(block: str) -> list[str]:
    out = []
    for line in block.split("\n"):
        parts = [p.strip() for p in _SENTENCE_SPLIT.split(line) if p.strip()]
        for i, sentence in enumerate(parts):
            if i < len(parts) - 1 and sentence.endswith(";") and not _CODE.search(sentence[:-1]):
                # a semicolon between two clauses of prose ends the first one; only at a line's end
                # (or beside other code) is it code's
                sentence = sentence[:-1] + "."
            out.append(sentence[:_MAX_SENTENCE])
    return out


def extract_facts(sentence_block: str, said_on: date | None = None) -> list[Fact]:
    """Facts stated in one message of the user's (or a note about the user), in order, without
    duplicates. ``said_on`` is the day it was said: relative dates ("next Friday") are counted from
    it."""
    out: list[Fact] = []
    seen: set[str] = set()
    if _SARCASM.search(sentence_block):
        return out  # a joke anywhere in the message ("Sure, I work at NASA. lol"): nothing in it is sure
    sentences = _sentences(sentence_block)
    clauses = [
        (c, f, i == 0)
        for s, f in zip(sentences, framed(sentences))
        for i, c in enumerate(_clauses(s))
    ]
    for sentence, in_frame, opens in clauses:
        if in_frame or _CODE.search(sentence):
            continue  # a story, a task on a text, a rumour, a retracted line; code, markup: not the user's life
        passing = temporary(sentence)
        sentence = _IDIOM.sub(
            "", _QUOTED.sub(" ", _TITLE_LIKED.sub(r"\g<pre>\g<t>", sentence))
        ).strip()
        old = None
        m = _REPLACES.search(sentence)
        if m:
            old, sentence = m.group("o").strip(), sentence[: m.start()]
        while True:  # drop leading fillers ("oh,", "btw,") however many there are
            stripped = _FILLER.sub("", sentence)
            if stripped == sentence:
                break
            sentence = stripped
        correction = old is not None
        cue = _CORRECTION_CUE.match(sentence)
        if cue:
            correction, sentence = True, sentence[cue.end() :]
        sentence = first_person(sentence)
        standing = _STANDING_REQUEST.match(sentence)
        if (
            standing
        ):  # "Could you answer in Spanish from now on?" asks for a standing rule: read it as one
            sentence = standing.group("v")
        if sentence and not _statement(sentence):
            sentence = modal_tail_cut(sentence) or sentence
        presupposed_only = bool(sentence) and modal_only(sentence)
        if not sentence or not (presupposed_only or _statement(sentence)):
            continue
        if _CHANGE_CUE.search(sentence):
            correction = True
        if _NOT_BUT.search(sentence):
            correction = True
            sentence = _NOT_BUT.sub(lambda m: m.group("p") or "", sentence)
        found = False
        for rule in _RULES:
            if presupposed_only and not rule.presupposed:
                continue
            if rule.presupposed and _AGAIN.search(sentence):
                continue  # "get in touch with my love for art again": a love sought again is lost
            if found and rule.template.startswith(("{K}", "Never {v3}", "Always {v3}")):
                continue  # "always answer in French" already gave "Reply in French": no generic rule too
            for n, m in enumerate(rule.pattern.finditer(sentence)):
                if n >= _MAX_MATCHES:
                    break
                if not rule.negative and _NEGATION.search(sentence[: m.start()] + " " + m.group(0)):
                    continue  # "I don't live in Berlin", "it's not that I like tea"
                if rule.negative and _NEGATION.search(sentence[: m.start()]):
                    continue  # "it's not that I'm not into hiking": a negated negation says neither
                if passing and rule.mark != "ephemeral" and not rule.change:
                    # "I'm working from Café Lisboa today": a passing state, no lasting fact; a
                    # change ("I lost my job at X this month") is dated by its time phrase, not made
                    # passing
                    continue
                filled = _fill(rule, m, said_on)
                if not filled or len(filled) > 160:
                    continue
                if not opens and canon(filled).target == SOUL:
                    continue  # an instruction to the agent opens its sentence; "… - always full of memories" is none
                texts = _each(filled) if rule.each else _coordinated(filled, m, rule)
                texts = [_pet_kind(t) for t in texts]
                for text in filter(None, map(liked, texts)):
                    if _keep(text, rule, sentence, old, correction, seen, out):
                        found = True
        for lang in _spoken(sentence)[1:]:  # the first one came from the rule; the rest of the list
            key = normalize(f"Speaks {lang}")
            if key not in seen and not passing:
                seen.add(key)
                out.append(Fact(f"Speaks {lang}", "correction" if correction else "durable"))
        if not found:
            m = _REMEMBER.search(sentence)
            if m:
                note = third_person(m.group("v").strip())
                note = note[:1].upper() + note[1:]
                if normalize(note) not in seen and not is_suspicious_rule(note):
                    seen.add(normalize(note))
                    out.append(Fact(note, "correction" if correction else "durable"))
    likes_it, hates_it = reversed_feeling(sentence_block)
    if likes_it or hates_it:  # "I hate Rust, honestly I love it": neither feeling is sure
        out = [
            f
            for f in out
            if not (hates_it and f.text.startswith(("Likes ", "Prefers ", "Favourite ")))
            and not (likes_it and f.text.startswith("Dislikes "))
        ]
    return _drop_shadowed(out)


_SPEAK_LIST = re.compile(r"\bi (?:can )?speak (?P<v>[^.;:!?()]{1,120})", re.I)
_LIST_SPLIT = re.compile(r"\s*,\s*(?:and\s+|as well as\s+)?|\s+(?:and|as well as)\s+")


def _spoken(sentence: str) -> list[str]:
    """Every language of "I speak English, French and Portuguese", in order, up to the first item
    that is not a bare language ("… and a bit of French" stops the list there)."""
    m = _SPEAK_LIST.search(sentence)
    if not m or _NEGATION.search(sentence[: m.start()]):
        return []
    out = []
    for item in _LIST_SPLIT.split(m.group("v").strip()):
        item = re.sub(r"^fluent\s+", "", item.strip(), flags=re.I)
        word = item.split(" ", 1)[0]
        if not is_language(word):
            break
        out.append(word)
        if " " in item:  # "Portuguese at home": the list ends here
            break
    return out


_CLAUSE_SPLIT = re.compile(
    r",\s+(?=(?:and|but|so|because|'cause|cause|though|although)\s+i\b|so (?:that|it|this)\b)|\s+[-–—]\s+",
    re.I,
)
_CONDITIONAL = re.compile(
    r"^(?:if|when|whenever|unless|once|whether|suppose|supposing|as soon as|in case)\b", re.I
)


def _clauses(sentence: str) -> list[str]:
    """A sentence's main clauses, each read on its own ("Dance is my passion, and I'm gonna …": the
    plan does not hide the fact). A conditional sentence stays whole: its "if" covers every clause.
    """
    if _CONDITIONAL.match(sentence):
        return [sentence]
    parts = [p.strip() for p in _CLAUSE_SPLIT.split(sentence)]
    return [
        re.sub(r"^(?:and|but|so|because|'cause|cause|though|although)\s+", "", p, flags=re.I)
        for p in parts
        if p
    ]


def leaves_unsure(message: str) -> bool:
    """True when a sentence of the user's message says something that gave no fact: four words or
    more, not a question, not code. The rules were not sure what it means (a hedge, a plan, a
    preference in words they do not know), so the caller keeps the words themselves rather than
    nothing: history keeps them, Recall finds them."""
    for sentence in _sentences(message):
        if len(sentence.split()) < 4 or sentence.endswith("?") or _CODE.search(sentence):
            continue
        if not extract_facts(sentence):
            return True
    return False


def _drop_shadowed(facts: list[Fact]) -> list[Fact]:
    """When one sentence matched two rules for the same slot (e.g. "I now work at X" and "I work at X"), keep one."""
    kept: list[Fact] = []
    slots: dict[str, int] = {}
    for fact in facts:
        slot = canon(fact.text).slot
        if slot and slot in slots:
            prev = kept[slots[slot]]
            if fact.mark == "correction" and prev.mark != "correction":
                kept[slots[slot]] = fact
            continue
        if slot:
            slots[slot] = len(kept)
        kept.append(fact)
    return kept


@_memo
def canon(fact: str) -> Canon:
    """Where a (canonical) fact belongs and which slot it fills. Unknown phrasing: USER when it is
    about the user, else MEMORY, with no slot."""
    text = fact.strip()
    m = _NO_LONGER.match(text)
    if m:
        line = f"{_NO_LONGER_LINE[m.group('k').lower()]} {m.group('v')}"
        return Canon(canon(line).target, None, removes=line)
    old = None
    m = _INSTEAD.match(text)
    if m:
        text, old = m.group("new"), m.group("old")
    for rx, target, slot in _CANON:
        cm = rx.match(text)
        if cm:
            if slot:
                slot = slot.replace("{1}", normalize(cm.group(1)))
            replaces = (
                f"{text[: cm.start(cm.lastindex or 0)]}{old}" if old and cm.lastindex else None
            )
            return Canon(target, slot, replaces)
    lowered = text.lower()
    if re.match(r"^(?:the )?user\b|\bthe user's\b", lowered):
        return Canon(USER, None, old)
    return Canon(MEMORY, None, old)


@_memo
def is_canonical(fact: str) -> bool:
    """Whether ``fact`` is in one of the engine's templates (else it is someone's free phrasing)."""
    text = strip_instead(fact)
    return bool(_NO_LONGER.match(text)) or any(rx.match(text) for rx, _t, _s in _CANON)


_NOT_STORAGE = re.compile(
    r"\b(?:cache|caching|queue|queues|sessions|search|logs|logging|analytics)\b", re.I
)


@_memo
def attribute(line: str) -> str | None:
    """The single-valued attribute a line states: its template's slot, else (attribute/value
    matching) a named project's database when the line names exactly one project and a database
    ("Decided: use PostgreSQL for Heron" → ``database:heron``)."""
    info = canon(line)
    if info.slot or info.removes:
        return info.slot
    if _NOT_STORAGE.search(line):
        return None
    text = strip_instead(line)
    words = re.findall(r"[A-Za-z][\w-]*", text)
    if not any(w.lower() in DATABASES for w in words):
        return None
    projects = {
        w.lower()
        for w in words[1:]
        if w[0].isupper()
        and w.lower() not in TECH
        and w.lower() not in DATABASES
        and w.lower() not in NOT_NAMES
    }
    projects |= {
        m.lower() for m in re.findall(rf"(?<!\S)(?-i:[a-z])[\w-]* {_PROJECT_NOUN}\b", text)
    }
    return f"database:{projects.pop()}" if len(projects) == 1 else None


_TEMPLATE_WORDS = _words(
    "lives in works at as from born grew up likes dislikes prefers uses chose decided "
    "stores its data name no longer the user user's a an of to for"
)


def value_words(text: str) -> frozenset[str]:
    """The words that carry a fact's value ("Lives in Lisbon" → {"lisbon"}), for matching a paraphrase."""
    return frozenset(
        w
        for w in normalize(strip_instead(text)).replace(":", " ").split()
        if w not in _TEMPLATE_WORDS and len(w) > 1
    ) - {"lived", "worked", "used", "liked", "was", "is"}


def strip_instead(fact: str) -> str:
    """The fact as it is saved: without its ``instead of …`` clause."""
    m = _INSTEAD.match(fact.strip())
    return m.group("new") if m else fact.strip()
