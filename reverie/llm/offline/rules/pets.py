"""The user's pets: named ("we adopted a cat named Miso", "my dog Rex …") or held ("we've got a pup
and a kitty", "I have two cats").

A pet held is written by its kind ("a pup" → ``Has a dog``) and must end its noun phrase: "a cat
allergy", "a dog show" and "a bird's eye view" hold no pet. A pet named with a bare "is" needs a
given name ("my dog is Hungry" names no dog); with "named" or "called" any proper name will do
("Biscuit").
"""

from __future__ import annotations

import re

from ....text.lazyre import lazy
from ..kinds import given_name, noun
from .changes import pet_named
from .core import USER, Filling, rule, rules_of
from .lexicon import KIND_OF, NOT_NAMES, PETS, PETS_PLURAL
from .phrases import NAME
from .values import is_name

#: The pets "my dog is called Rex" and "our cat, Miso, …" are read for.
PET_KIN = "dog|cat|puppy|kitten|parrot|hamster|rabbit|horse"
#: How people say "dog" and "cat" to friends: a pet held is written by its kind.
PET_TALK = {"pup": "dog", "pups": "dogs", "doggo": "dog", "kitty": "cat", "kitties": "cats"}
#: Breeds and kinds of pet people name their pet by ("a beagle called Max", "my African grey").
BREEDS = (
    "golden retriever|labrador retriever|labrador|lab|retriever|border collie|collie|shiba inu|"
    "shiba|"
    "greyhound|whippet|dachshund|poodle|pug|husky|terrier|bulldog|french bulldog|pit ?bull|"
    "rottweiler|"
    "chihuahua|corgi|spaniel|cocker spaniel|german shepherd|shepherd|schnauzer|yorkie|labradoodle|"
    "goldendoodle|doodle|cockapoo|dalmatian|akita|mutt|mongrel|moggy|moggie|boxer|mastiff|samoyed|"
    "malamute|great dane|"
    "beagle|"
    "siamese|persian|maine coon|ragdoll|tabby|bengal|sphynx|tomcat|tom|"
    "budgie|parakeet|cockatiel|canary|african grey|macaw|cockatoo|axolotl|bearded dragon|gecko|"
    "iguana|"
    "hedgehog|chinchilla|gerbil|rat|mouse|goat|pig|pony|donkey|hen|chicken"
)
_PLURALS = (
    "dogs|cats|horses|rabbits|birds|fish|hamsters|guinea pigs|turtles|tortoises|parrots|budgies|"
    "axolotls|"
    "chickens|hens|goats|ponies|ferrets|rats|mice"
)
_SINGULAR = {
    "ponies": "pony",
    "mice": "mouse",
    "fish": "fish",
    "huskies": "husky",
    "greyhounds": "greyhound",
    "beagles": "beagle",
    "labradors": "labrador",
    "labs": "labrador",
    "terriers": "terrier",
    "collies": "collie",
    "budgies": "budgie",
    "horses": "horse",
    "axolotls": "axolotl",
    "tortoises": "tortoise",
    "turtles": "turtle",
    "hamsters": "hamster",
    "birds": "bird",
    "parrots": "parrot",
}
#: A pet by kind or breed, after at most two words that describe it ("a ginger cat", "an old
#: shiba", "a rescue pitbull mix").
_ANIMAL = rf"(?:[a-z-]+ ){{0,2}}?(?P<k>{BREEDS}|{PETS})(?: mix)?"
#: The user holds it: "I have", "we've got", "we adopted".
_HELD = (
    r"(?:\b(?:we|i)(?:'ve| have)?(?: just| also| recently| since)? (?:got|have|adopted|rescued|"
    r"keep|brought home)\b|"
    r"^(?:one|two|three|four) (?:dogs?|cats?|pets?) at home\b[:,]?|\bmy (?:dog|cat|pet) is an?\b)"
)

#: "a dog", "a pup", "two turtles": a pet held, counted.
_PET_NP = rf"(?:an? (?:{PETS}|pup|doggo|kitty)|(?:two|three|four|five) (?:{PETS_PLURAL}))"
#: The pet ends its noun phrase and its clause ("a cat allergy", "a dog on my lap" are none).
_PET_END = (
    r"(?=\s*(?:[.!;]|$)|,\s*(?:and|but|so|which|they|he|she|both)\b|"
    r"\s+(?:and (?:i|we|they|he|she|it)|but|so|who|that)\b)"
)


#: Colours a pet is named by ("an orange tabby", "a ginger cat"), kept with its kind.
COLOURS = "orange|ginger|black|white|grey|gray|brown|tabby|tortoiseshell|calico|tuxedo|golden|cream"
#: Breeds that are also words for something else ("our lab", "a boxer", "my tom"): a pet of these
#: is named only by a given name.
_AMBIGUOUS = frozenset("lab tom boxer pointer shepherd retriever collie rat mouse hen pig".split())


def named_pet(f: Filling) -> bool:
    """A pet named with "named" or "called" (or set off by a comma: "a beagle, Max") may have any
    proper name; with a bare "is" a given name. The article fits the kind ("an African grey")."""
    kind = f.values.get("k", "")
    f.values["k"] = _SINGULAR.get(
        kind, kind.removesuffix("s") if kind.endswith(("ts", "gs", "ns")) else kind
    )
    f.values["k"] = KIND_OF.get(f.values["k"].lower(), f.values["k"])
    if f.groups.get("c"):
        f.values["k"] = f"{f.groups['c'].lower()} {f.values['k']}"
    if f.values["k"][:1] in "aeiou":
        f.template = f.template.replace("Has a {k}", "Has an {k}")
    if re.fullmatch(rf"(?:{BREEDS}|{PETS})", f.groups.get("v", "").lower()):
        return False  # "two dogs, Labrador and Poodle": a breed is no name
    return given_name(f.groups.get("v", "")) or bool(
        re.search(r"\b(?:named|called|names?)\b|,", f.match.group(0), re.I)
    )


def breed_named(f: Filling) -> bool:
    """ "Our orange tabby Simba is 9": a breed names a pet by any proper name; a kind of pet ("my
    parrot Kiwi") or a breed that is also another word ("our lab Bruno", never "our lab Director")
    by a given name, as the rules for "my dog Rex" ask."""
    kind = f.groups.get("k", "").lower()
    name = f.groups.get("v", "")
    if name.lower() in NOT_NAMES:
        return False
    if kind in _AMBIGUOUS and not given_name(name):
        return False
    if re.fullmatch(PETS, kind) and not given_name(name) and not _proper_name_after(f, name):
        return False
    named_pet(f)  # the article and the kind's name; any proper name will do for a breed
    return True


def _proper_name_after(f: Filling, name: str) -> bool:
    """ "My cat Mochi is diabetic", "our dog Kuma has …": a capitalised word right after the pet's
    word is its name, though no given name, when the sentence is not written in title case (the verb
    after it is in lower case) and the word is no English noun ("My parrot Squawk is loud" may name
    the sound; "cat Food", "dog Walker" make one thing with the pet's word)."""
    verb = f.match.group(0).split()[-1]
    return (
        name[:1].isupper()
        and " " not in name
        and verb.islower()
        and name.lower() not in NOT_NAMES
        and not noun(name.lower())
    )


#: A pet's name typed in lower case, and where it ends.
_LOWER_NAME = r"(?-i:[a-z])[a-z'’-]{1,20}"
_LOWER_END = r"(?=\s*(?:[,.;!]|$)|\s+(?:and|but|who|he|she|hes|shes|lol|haha)\b)"


def _lower_name(f: Filling, *, named: bool) -> bool:
    """A name typed in lower case: after "named" / "called" any word that is no English noun and
    no common word ("koko", "pasha"), else a given name ("bruno"); written with its capital."""
    name = f.groups.get("v", "").lower()
    if name in NOT_NAMES or (not given_name(name) and (not named or noun(name))):
        return False
    f.groups["v"] = f.values["v"] = name.capitalize()
    named_pet(f)  # the article and the kind's name
    return True


def _lower_named_in_context(f: Filling) -> bool:
    """ "his name is bolt": a lower-case name (as ``_lower_name`` reads it) of the one pet the
    message holds."""
    name = f.groups.get("v", "").lower()
    if name in NOT_NAMES or (not given_name(name) and noun(name)):
        return False
    f.groups["v"] = f.values["v"] = name.capitalize()
    return named_in_context(f)


def _lower_gone(f: Filling) -> bool:
    """A pet named in lower case that died: the name as the line wrote it, never a word or a
    relative ("grandma died")."""
    name = f.groups.get("v", "").lower()
    if name in NOT_NAMES or (not given_name(name) and noun(name)):
        return False
    f.values["v"] = name.capitalize()
    return pet_named(f)


def _count(f: Filling) -> bool:
    """ "about 15 chickens in the backyard": as said, numbers as digits."""
    f.values["v"] = re.sub(r"\s+", " ", f.groups["v"]).strip()
    return True


def named_in_context(f: Filling) -> bool:
    """ "his name is Bolt", "she's called Luna": the pet the message says the user holds, when it
    names one kind."""
    held = re.findall(rf"{_HELD}[^.;]*?\b(?:an? |one |our |my )?{_ANIMAL}\b", f.message, re.I)
    kinds = {k.lower() for k in held}
    if len(kinds) != 1:
        return False
    f.groups["k"] = f.values["k"] = kinds.pop()
    f.values["K"] = f.values["k"].capitalize()
    return named_pet(f)


def held_by_user(f: Filling) -> bool:
    """The second pet of "I have a budgie called Kiwi and a tortoise, Franz": the clause says the
    user holds them."""
    return bool(re.search(_HELD, f.match.string, re.I)) and named_pet(f)


#: Animals kept in a flock or a herd, a number before them.
_FLOCK = "|".join(
    "hens chickens ducks geese quail goats sheep cows cattle pigs alpacas llamas bees beehives "
    "hives".split()
)
_FLOCK_COUNT = (
    r"(?:(?:about|around|over|some|nearly|almost|roughly) )?(?:\d+|two|three|four|five|six|seven|"
    r"eight|nine|ten|twelve|a dozen|a few|a couple of|twenty|thirty|forty|fifty|a hundred) "
    r"(?:backyard )?"
)
_FLOCK_WHERE = (
    r"(?: (?:in|on|at) (?:the|our|my) (?:back ?yard|back garden|garden|yard|farm|allotment|"
    r"land))?"
)
_FLOCK_END = r"(?=\s*(?:[,.;:!?()]|$)|\s+(?:and|but|so|mostly|for|now)\b)"


def _no_here(f: Filling) -> bool:
    """ "a shelter here in Istanbul", "the shelter in my town": the user's own place is implied."""
    value = re.sub(r"\s+here\b", "", f.groups["v"])
    f.values["v"] = re.sub(r"\s+in (?:my|our) (?:town|city|area|village)$", "", value).strip()
    return True


#: The kind of two pets named together, with one word of how they live or look ("two indoor cats",
#: "two rescue dogs", "two Siberian huskies").
_PAIR_KIND = (
    r"(?:(?:indoor|outdoor|rescue|old|young|little|senior|(?-i:[A-Z])[a-z]+) )?"
    rf"(?P<k>{_PLURALS}|huskies|greyhounds|beagles|labradors|labs|terriers|collies|budgies)"
)

RULES = [
    *rules_of(
        (
            rf"\bmy (?P<k>{PET_KIN})(?:'s name)? is (?:called |named ){NAME}",
            rf"\bmy (?P<k>{PET_KIN})(?:'s name is| is) {NAME}\s*(?:[,.!]|$)",
            rf"\bmy (?P<k>{PET_KIN}),? {NAME},?\s+(?:is|lives|works|was|has|just|will|and|who|"
            r"studies|loves|likes)\b",
            rf"\bi have an? (?P<k>{PET_KIN}) (?:called|named) {NAME}",
            rf"\bour (?P<k>{PET_KIN})(?:'s name)? is (?:called |named ){NAME}",
            rf"\bour (?P<k>{PET_KIN}),? {NAME},?\s+(?:is|lives|works|was|has|just|will|and|who|"
            r"studies|loves|likes|"
            rf"starts|started|goes|plays|turned|turns|graduated|got)\b",
            r"\b(?:we|i)(?:'ve| have)? (?:just |recently |also |since )?(?:got|adopted|rescued|"
            r"brought home|have) (?:a|an|another|"
            rf"a new|our|my) (?:new )?(?P<k>{PETS}) (?:named|called) {NAME}",
        ),
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_pet,
    ),
    # a pet held, without a name: "we've got a pup and a kitty", "I have two cats"; the pet ends its
    # noun phrase ("a cat allergy", "a dog show", "a bird's eye view" are none)
    *rules_of(
        (
            rf"\b(?:we|i)(?:'ve| have)? (?:also |still )?(?:got|have) (?P<v>{_PET_NP})(?: and "
            rf"(?:{_PET_NP}))?{_PET_END}",
            rf"\b(?:we|i)(?:'ve| have)? (?:also |still )?(?:got|have) (?:{_PET_NP}) and "
            rf"(?P<v>{_PET_NP}){_PET_END}",
        ),
        "Has {v}",
        None,
        "permanent",
    ),
    # the second pet of the same statement: "we have a dog named Buddy and a cat named Socks"
    *rules_of(
        (
            r"\b(?:we|i)(?:'ve| have)? (?:just |recently |also |since )?(?:got|adopted|rescued|"
            r"brought home|have) (?:a|an|another|"
            rf"a new|our|my) (?:new )?(?:{PETS}) (?:named|called) (?-i:[A-Z])[\w'’-]+,? and (?:a|"
            r"an|another) (?:new )?"
            rf"(?P<k>{PETS}) (?:named|called) {NAME}",
            # "a ginger cat called Pierogi", "a rescue greyhound named Bolt", "I've got a beagle,
            # Max."
            rf"{_HELD} (?:a|an|another|a new|one|our|my) {_ANIMAL}(?: (?:named|called)|,) {NAME}",
        ),
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_pet,
    ),
    rule(
        rf",? and (?:a|an|another) {_ANIMAL}(?: (?:named|called)|,) {NAME}",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=held_by_user,
    ),
    # "two cats, Salt and Pepper"
    *rules_of(
        (
            rf"{_HELD} (?:two|three|2|3|a pair of) {_PAIR_KIND}(?: (?:named|called)|,) {NAME}"
            r"(?= and )",
            # "2 cats, Mango and Kiwi", said alone as a note (never "…, belong to my sister")
            rf"^(?:two|three|2|3|a pair of) {_PAIR_KIND}(?: (?:named|called)|,) {NAME}"
            r"(?= and (?-i:[A-Z])[\w'’-]+\s*(?:[.!]|$))",
            rf"^(?:two|three|2|3|a pair of) {_PAIR_KIND}(?: (?:named|called)|,) "
            r"(?-i:[A-Z])[\w'’-]+ and (?P<v>(?-i:[A-Z])[\w'’-]+)(?=\s*(?:[.!]|$))",
            rf"{_HELD} (?:two|three|2|3|a pair of) {_PAIR_KIND}(?: (?:named|called)|,) "
            r"(?-i:[A-Z])[\w'’-]+ "
            r"and "
            r"(?P<v>(?-i:[A-Z])[\w'’-]+)",
            # "Max is my beagle", "Chico, my African grey, is 22", "Biscuit is our greyhound"
            rf"(?:^|(?<=[,.;] )){NAME}(?: is|,) (?:my|our) {_ANIMAL}\b",
            # "My cats are Miso and Tofu", "our dogs are Rex and Bella": each by name
            rf"\b(?:my|our) (?:two |three |2 |3 )?{_PAIR_KIND} are {NAME}(?=,? and )",
            rf"\b(?:my|our) (?:two |three |2 |3 )?{_PAIR_KIND} are (?-i:[A-Z])[\w'’-]+,? and "
            r"(?P<v>(?-i:[A-Z])[\w'’-]+)(?=\s*(?:[,.;!]|$))",
        ),
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_pet,
    ),
    # "we adopted a rescue greyhound last month, his name's Bolt"
    *rules_of(
        (
            rf"\b(?:his|her|its) name(?:'s| is|s)? {NAME}",
            rf"\b(?:he|she|it)(?:'s| is) called {NAME}",
        ),
        "Has a {k} named {v}",
        None,
        "permanent",
        finish=named_in_context,
    ),
    # "Our family dog is a golden retriever named Biscuit"
    rule(
        rf"\b(?:our|my) (?:family )?(?:{PET_KIN}) is an? {_ANIMAL} (?:named|called) {NAME}",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_pet,
    ),
    *rules_of(
        (
            rf",? and (?:two|three) (?P<k>{_PLURALS})(?: (?:named|called)|,) {NAME}(?= and )",
            rf",? and (?:two|three) (?P<k>{_PLURALS})(?: (?:named|called)|,) (?-i:[A-Z])[\w'’-]+ "
            r"and "
            r"(?P<v>(?-i:[A-Z])[\w'’-]+)",
        ),
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=held_by_user,
    ),
]

RULES += [
    # "I've got two dogs: a German shepherd called Rex and …"
    rule(
        rf"{_HELD} (?:two|three|four|2|3|4) (?:{_PLURALS})\s*[:,–—-]\s*(?:an?|one) {_ANIMAL}"
        rf"(?: (?:named|called)|,) {NAME}",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_pet,
    ),
    # "Our orange tabby Simba is 9 now", "Our lab Bruno is 10 now", "my husky Storm is 3"
    rule(
        rf"\b(?:my|our) (?:(?:old|young|little|big|rescue|senior) )?(?:(?P<c>{COLOURS}) )?"
        rf"(?P<k>{BREEDS}|{PETS}),? {NAME},?\s+(?:is|was|has|just|loves|likes|hates|sleeps|"
        r"turns|turned|and|gets|needs|eats|goes|hides)\b",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=breed_named,
    ),
    # "Rex is our dog", "Bruno is our dog — Labrador"
    rule(
        rf"(?:^|(?<=[,.;] )){NAME} is our (?:family )?{_ANIMAL}\b",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_pet,
    ),
    # "my dogs name is Kong"
    rule(
        rf"\bmy (?P<k>{PET_KIN})s name is {NAME}",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_pet,
    ),
    # fostering: "I foster kittens for the local shelter", "We foster dogs for a rescue in Leeds"
    rule(
        r"\b(?:i|we)(?: also| still| now)? foster (?P<v>(?:rescue |street |shelter )?(?:kittens|"
        r"puppies|cats|dogs|animals|pets|rabbits)(?: for (?:an?|the|our) [^,.;:!?()]{2,60}?)?)"
        r"(?=\s*(?:[,.;:!?()]|$)|\s+(?:and|but|so|usually|when|whenever|most|at)\b)",
        "Fosters {v}",
        finish=_no_here,
    ),
    # livestock and flocks: "We keep about 15 chickens in the backyard", "Ive got 6 hens", "I keep
    # bees"
    rule(
        rf"\b(?:i|we)(?: keep| raise| have|(?:'ve| have) got) (?P<v>{_FLOCK_COUNT}(?:{_FLOCK})"
        rf"{_FLOCK_WHERE}){_FLOCK_END}",
        "Keeps {v}",
        finish=_count,
    ),
    rule(
        rf"\b(?:i|we) (?:keep|raise) (?P<v>(?:backyard )?(?:{_FLOCK}){_FLOCK_WHERE}){_FLOCK_END}",
        "Keeps {v}",
        finish=_count,
    ),
]

RULES += [
    # a name typed in lower case, as on a phone: "i have an african grey called koko", "our lab
    # bruno is 11 now"
    rule(
        rf"{_HELD} (?:a|an|another|a new|one|our|my) {_ANIMAL} (?:named|called|caled) "
        rf"(?P<v>{_LOWER_NAME}){_LOWER_END}",
        "Has a {k} named {v}",
        None,
        "permanent",
        finish=lambda f: _lower_name(f, named=True),
    ),
    rule(
        rf"\bmy (?P<k>{PET_KIN})(?:'s|s)? name is (?P<v>{_LOWER_NAME}){_LOWER_END}",
        "Has a {k} named {v}",
        None,
        "permanent",
        finish=lambda f: _lower_name(f, named=True),
    ),
    # "we got a rescue greyhound last spring his name is bolt": the pet the message holds
    rule(
        rf"\b(?:his|her|its) name(?:'s| is|s)? (?P<v>{_LOWER_NAME}){_LOWER_END}",
        "Has a {k} named {v}",
        None,
        "permanent",
        finish=_lower_named_in_context,
    ),
    # its death typed the same way, so the line it gave leaves: "nibbles died last wk"
    rule(
        rf"^(?:our |my )?(?:(?:{PET_KIN}) )?(?P<v>{_LOWER_NAME})(?: sadly| recently| just)? "
        r"(?:died|passed away|passed on|was put down)\b",
        "Gone: pet {v}",
        None,
        "correction",
        change=True,
        finish=_lower_gone,
    ),
    rule(
        rf"\b(?:my|our) (?:(?P<c>{COLOURS}) )?(?P<k>{BREEDS}|{PETS}) (?P<v>{_LOWER_NAME}),?\s+"
        r"(?:is|was|has|just|loves|likes|hates|sleeps|turns|turned)\b",
        "Has a {k} named {v}",
        None,
        "permanent",
        finish=lambda f: _lower_name(f, named=False),
    ),
]

#: One name in a list of pets, typed in either case ("mochi", "Kopi").
_LIST_NAME = r"[A-Za-z][a-z'’-]{1,20}"
#: A list of two to five names: "mochi, kopi and teh", "Miso + Tofu", "Rex & Bela".
_NAME_LIST = rf"{_LIST_NAME}(?:(?:\s*,\s*(?:and\s+)?|\s*[+&]\s*|\s+and\s+){_LIST_NAME}){{1,4}}"
_LIST_COUNT = r"(?P<n>two|three|four|five|2|3|4|5|a pair of)"
_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "a pair of": 2}


def pet_names(f: Filling) -> bool:
    """The names of a list of pets ("i have 3 cats: mochi, kopi and teh"): as many as the count
    says, each a given name or, after its colon, "named" or "called", a word that is no English
    noun (a name typed in lower case) or a capitalised one that is no kind of pet; "cats: food,
    litter and toys" names none."""
    names = re.split(r"\s*,\s*(?:and\s+)?|\s*[+&]\s*|\s+and\s+", f.groups["v"].strip())
    count = (f.groups.get("n") or "").lower()
    if count and _NUMBERS.get(count, int(count) if count.isdigit() else 0) != len(names):
        return False
    if len({n.lower() for n in names}) != len(names):
        return False
    for name in names:
        low = name.lower()
        kind = _SINGULAR.get(low, low.removesuffix("s"))
        if low in NOT_NAMES or re.fullmatch(rf"(?:{BREEDS}|{PETS}|{_PLURALS})", kind):
            return False
        if given_name(name):
            continue
        if name[:1].islower() and noun(low):
            return False  # "cats: food, litter and toys"
        if name[:1].isupper() and noun(low) and not (f.groups.get("t") or count):
            return False  # a capitalised noun names a pet after "named", a colon or a count
    f.groups["v"] = f.values["v"] = ", ".join(n[:1].upper() + n[1:] for n in names)
    named_pet(f)  # the kind in the singular, with its article
    return True


def each_pet(line: str) -> list[str]:
    """ "Has a cat named Mochi, Kopi" → one line per pet."""
    head, _, names = line.partition(" named ")
    return [f"{head} named {n}" for n in names.split(", ")]


#: Where a list of pets is held: "i have 3 cats:", "ive got 2 dogs", "cats:", "two cats at home,",
#: "my three cats are called".
_LIST_HELD = (
    r"(?:\b(?:we|i)(?:'ve| have|ve)? (?:also )?(?:got|have) |^|\b(?:my|our) )"
    rf"(?:{_LIST_COUNT} )?"
)

RULES += [
    # a list of named pets: "i have 3 cats: mochi, kopi and teh", "cats: Miso + Tofu", "my two
    # dogs are called Rex and Bela", "two cats at home, Miso and Tofu"
    rule(
        rf"{_LIST_HELD}(?P<k>{_PLURALS}|huskies|greyhounds|beagles|labradors|labs|terriers|"
        r"collies|budgies)(?: at home)?(?:(?P<t>\s*:\s*|\s+(?:are )?(?:called|named)\s+)|\s*,\s*)"
        rf"(?P<v>{_NAME_LIST})(?=\s*(?:[.!;]|$)|\s*,\s*(?:both|they|all|yes|and they|indoor|"
        r"outdoor)\b|\s+(?:both|they|lol|haha)\b)",
        "Has a {k} named {v}",
        None,
        "permanent",
        finish=pet_names,
        split=each_pet,
    ),
]


# -- a pet by name, however the sentence goes on ---------------------------------------------------
#
# "my shiba mochi keeps losing it at the delivery guy", "My cat Mango is diabetic so she gets
# insulin", "my mare Luna is stabled just outside Christchurch": a pet's kind or breed of the
# user's ("my", "our") with a name right after it is a pet, whatever the sentence says of it next
# (the tables above list the verbs that follow; this reads any). The name is checked as they check
# it (``breed_named``, ``_lower_name``), and never a word a verb takes ("my dog ate it").

#: Words after a verb, never after a name ("my cat knocked it over").
_OBJECT_WORDS = frozenset(
    "it me us them him her a an the my our that this so to for up out".split()
)


#: A verb in the past right after the name: one event ("chewed", "knocked"), no lasting fact.
_ONE_OFF = lazy(r"[a-z]{2,}(?<!ne)(?<!fe)(?<!ee)ed", re.I)

#: Nouns that make one thing with a pet's word ("cat Food", "dog Walker"): no name after it.
_PET_THINGS = frozenset(
    "food foods walker walkers sitter sitters bed beds toy toys bowl bowls treats treat park "
    "house door flap hair fur owner owners trainer groomer insurance people lady guy person years "
    "days months weeks show shows breeder shelter rescue litter leash lead collar crate cage tank "
    "hutch stuff thing things meds medicine vet vets".split()
)


def a_pet_named(f: Filling) -> bool:
    """A name as ``breed_named`` reads one, or a capitalised word mid-sentence that is no noun and
    makes no one thing with the pet's word ("my shiba Mochi keeps barking")."""
    rest = f.match.string[f.match.end() :].split()
    after = rest[0] if rest else ""
    name = f.groups.get("v", "")
    if after.lower() in _OBJECT_WORDS or after[:1].isupper():
        return False  # "my dog ate it"; "my dog Walker Tom": a verb, or a name of two words
    if _ONE_OFF.fullmatch(after):
        return False  # "My dog Max chewed through a charger": one event, told as chit-chat
    if name[:1].islower():
        return False  # "my dog will be fine": the clause stage capitalises a name it is sure of
    if breed_named(f):
        return True
    low = name.lower()
    kind = f.groups.get("k", "").lower()
    if low in NOT_NAMES or low in _PET_THINGS or noun(low) or kind in _AMBIGUOUS:
        return False  # "My parrot Squawk is loud" may name the sound; "our lab Director"
    if not (after[:1].islower() or not after):
        return False
    named_pet(f)  # the article and the kind's name
    return True


RULES += [
    rule(
        r"\b(?:my|our) (?:(?:old|young|little|big|rescue|senior|new) )?(?:(?P<c>"
        rf"{COLOURS}) )?(?P<k>{BREEDS}|{PETS}),? (?P<v>[A-Za-z][a-z'’-]{{1,20}})(?![\w'’-])",
        "Has a {k} named {v}",
        None,
        "permanent",
        finish=a_pet_named,
    )
]

CANON = [
    (r"^(?:Keeps|Fosters) (.+)$", USER, None),
    (r"^Has an? (.+?) named (.+)$", USER, None),
    (rf"^Has (?:an? (?:{PETS})|(?:two|three|four|five) (?:{PETS_PLURAL}))$", USER, None),
]


def by_kind(text: str) -> str:
    """ "Has a pup" → "Has a dog": a pet held is written by its kind."""
    m = re.fullmatch(r"Has (an? |two |three |four |five )(\w+)", text)
    if m and m.group(2).lower() in PET_TALK:
        return f"Has {m.group(1)}{PET_TALK[m.group(2).lower()]}"
    return text
