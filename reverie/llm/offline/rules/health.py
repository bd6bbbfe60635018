"""What the user eats and cannot eat: allergies, intolerances, diets.

An allergy is to something people are allergic to (``ALLERGENS``): "allergic to drama" is a figure
of speech.
"""

from __future__ import annotations

import re

from ....text.lazyre import lazy
from .core import USER, Filling, rule, word_set
from .phrases import VAL
from .values import is_thing

#: What people are allergic to: food allergens, animals and insects, plants, medicines, materials.
#: "Allergic to drama" is a figure of speech: an allergy to anything else gives no fact.
ALLERGENS = word_set(
    "nut nuts peanut peanuts tree almond almonds cashew cashews walnut walnuts hazelnut hazelnuts "
    "pecan pecans "
    "pistachio pistachios shellfish shrimp prawn prawns crab crabs lobster crustaceans crustacean "
    "fish seafood egg eggs milk dairy lactose "
    "gluten wheat soy soya sesame mustard celery lupin sulphites sulfites corn strawberries "
    "strawberry kiwi "
    "banana bananas tomato tomatoes chocolate garlic onion onions avocado mango "
    "pollen grass hay ragweed birch trees flowers dust mites mold mould latex nickel wool perfume "
    "fragrance "
    "penicillin aspirin ibuprofen antibiotics sulfa codeine morphine anaesthetic anesthetic "
    "bee bees wasp wasps hornet hornets mosquito mosquitoes insect insects cockroach cockroaches "
    "ant ants "
    "cat cats dog dogs horse horses rabbit rabbits hamster hamsters guinea pigs bird birds "
    "feathers fur pets "
    "animals reptiles rodents mice dander"
)


def is_allergen(value: str) -> bool:
    """Something a person can be allergic to ("peanuts", "most reptiles", "cat hair"), not a figure
    of speech."""
    words = [w.lower().strip(".,!") for w in value.split()]
    return (
        bool(words) and is_thing(value, unpleasant_ok=True) and any(w in ALLERGENS for w in words)
    )


#: Conditions people tell their assistant about, as a closed class (a headache, a cold, "tired" are
#: passing and are none).
CONDITIONS = (
    r"(?:type [12] |type one |type two )?diabetes|asthma|mild asthma|adhd|add|autism|dyslexia|"
    r"dyspraxia|ibs|"
    r"c[oe]?eliac(?: disease)?|crohn'?s(?: disease)?|epilepsy|migraines|arthritis|rheumatoid "
    r"arthritis|lupus|"
    r"multiple sclerosis|ms|hypertension|high blood pressure|anxiety|depression|ptsd|ocd|"
    r"bipolar(?: disorder)?|"
    r"tinnitus|eczema|psoriasis|endometriosis|pcos|hypothyroidism|sleep apnea|sleep apnoea|"
    r"insomnia|"
    r"long covid|chronic fatigue|fibromyalgia|a heart condition|hearing loss|colou?r ?blindness|a "
    r"peanut allergy|"
    r"gout|glaucoma|cataracts"
)

#: A diet held only on some days or in some places ("I don't eat meat on Wednesdays and Fridays",
#: "… during Lent", "… at work"): the line would drop its condition, so the rule reads none.
UNCONDITIONED = (
    r"(?!,?\s+(?:on (?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|weekdays|weekends|the weekend|"
    r"fast(?:ing)? days|holy days|workdays|school days)|during|in (?:the )?(?:fasts?|lent|ramadan|"
    r"morning|evening|week)|at (?:work|home|night|school|lunch|dinner)|before|after|when|while|"
    r"unless|except|until|for lent|for ramadan|some days|most days)\b)"
)
_ADJECTIVES = {
    "diabetic": "diabetes",
    "asthmatic": "asthma",
    "epileptic": "epilepsy",
    "celiac": "celiac disease",
    "coeliac": "coeliac disease",
    "prediabetic": "prediabetes",
    "pre-diabetic": "prediabetes",
    "dyslexic": "dyslexia",
    "autistic": "autism",
}


def as_condition(f: Filling) -> bool:
    """ "I'm type 2 diabetic" → "Has type 2 diabetes"; "celiac" → "celiac disease"."""
    value = f.values["v"].lower()
    words = value.split()
    if words and words[-1] in _ADJECTIVES:
        words[-1] = _ADJECTIVES[words[-1]]
    f.values["v"] = " ".join(words).replace("adhd", "ADHD").replace("ibs", "IBS")
    return True


def allergen_noun(f: Filling) -> bool:
    """ "a peanut allergy" → "Allergic to peanuts" (the plural people write, where one is
    listed)."""
    value = f.values["v"].lower()
    if value + "s" in ALLERGENS:
        value += "s"
    f.values["v"] = value
    return True


_CANNOT_EAT = lazy(
    r"\bi (?:can'?t|cannot) (?:eat|have|touch) (?P<v>[a-z]+(?: [a-z]+)?)\s*,\s*(?:because |since |"
    r"as |cause )?i'?m (?:(?:very|severely|really|badly|super) )?allergic\s*[.!]*$",
    re.I,
)


def _cannot_eat(f: Filling) -> bool:
    """ "i cant eat sesame, im allergic": the thing the user cannot eat, when it is an allergen."""
    m = _CANNOT_EAT.search(" ".join((f.message or "").split()).replace("cant", "can't"))
    if m is None or not is_allergen(m.group("v")):
        return False
    f.values["v"] = m.group("v").lower()
    return True


def wholly(f: Filling) -> bool:
    """ "mostly vegan" is no diet the user keeps; nor one said with what the diet leaves out eaten
    anyway ("I'm vegan but I eat honey", "vegetarian but I eat fish sometimes"): the line would
    drop the exception. Vegetarian but eating fish, with no "sometimes", is pescatarian ("I'm
    vegetarian but I eat fish so pescatarian I guess"); eating what the diet allows changes
    nothing ("vegetarian but I eat eggs and dairy")."""
    if "mostly" in f.match.group(0).lower():
        return False
    message = f.message or f.match.string
    m = _EXCEPTION.search(message)
    if m is None:
        return True
    diet, eaten = f.values["v"].lower(), set(re.findall(r"[a-z]+", m.group("x").lower()))
    outside = eaten & (_MEAT | _FISH if diet == "vegetarian" else _MEAT | _FISH | _ANIMAL)
    if diet == "pescatarian":
        outside = eaten & _MEAT
    if not outside:
        return True
    if _FISH_PRODUCT.search(m.group(0)):
        return False  # the diet with a fish product, neither kept whole nor pescatarian
    now_and_then = _NOW_AND_THEN.search(message[m.start() :].split(".")[0])
    if diet == "vegetarian" and outside <= _FISH and not now_and_then:
        f.values["v"] = "pescatarian"
        return True
    return False


def a_veggie(f: Filling) -> bool:
    """ "I'm veggie" is vegetarian, kept whole as ``wholly`` says."""
    f.values["v"] = "vegetarian"
    return wholly(f)


#: A diet, then what the user eats anyway: "vegetarian but I eat fish", "vegan, but I do eat
#: honey", "veggie although I eat chicken at weddings".
_EXCEPTION = lazy(
    r"\b(?:vegetarian|vegan|pescatarian|veggie)\b[^.!?;]{0,30}?\b(?:but|except|although|though)\b"
    r"[,\s]*(?:i |we )?(?:do |still |also |will |sometimes |occasionally )*"
    r"(?:eat|make an exception for)\s+(?P<x>[a-z][a-z -]{1,30}?)"
    r"(?=\s*(?:[,.;!?]|$|\s(?:so|but|too|sometimes|now|though|occasionally|at|when|whenever|if|"
    r"on)\b))",
    re.I,
)
#: What each diet leaves out, by the words people eat it by.
_MEAT = word_set(
    "meat chicken beef pork lamb bacon ham turkey steak sausages sausage duck venison mince burgers"
)
_FISH = word_set("fish seafood shellfish prawns shrimp salmon tuna sushi mussels oysters")
_ANIMAL = word_set("eggs egg dairy cheese milk honey butter yoghurt yogurt cream")
#: What is eaten only now and then: the diet said, not kept whole ("… but I eat fish sometimes").
_NOW_AND_THEN = lazy(
    r"\b(?:sometimes|occasionally|now and then|now and again|once in a while|rarely|on occasion|"
    r"at (?:weddings|christmas|parties|family)|-ish)\b|-ish\b|"
    # a condition: "when my mum cooks it", "on Fridays", "at my gran's"
    r"\b(?:when|whenever|if|on (?:\w+days|weekends|holiday)|at (?:my|our|his|her|their|\w+'s))\b",
    re.I,
)
#: Fish as what a thing is made of, not eaten as fish ("fish oil capsules", "fish sauce").
_FISH_PRODUCT = lazy(
    r"\b(?:fish|cod liver|krill) (?:oil|sauce|stock|gelatine?|capsules?|supplements?|pills?)\b",
    re.I,
)


#: Faiths people tell their assistant about (for food, fasting, holidays).
RELIGIONS = (
    "muslim|christian|catholic|orthodox christian|orthodox jewish|orthodox|jewish|jain|hindu|sikh|"
    "buddhist|mormon|protestant|evangelical|quaker|adventist"
)
#: Operations whose constraint people mention ("no running since my knee replacement").
_OPERATIONS = (
    r"(?:(?:left|right|partial|total) )?(?:knee|hip|shoulder) replacement|"
    r"(?:heart )?stent(?: put in| fitted)?|heart bypass|bypass surgery|"
    r"(?:knee|hip|back|spinal|shoulder|acl|heart|hernia|gallbladder|cataract) "
    r"(?:surgery|operation)|(?:an? )?acl reconstruction|spinal fusion|"
    r"(?:a )?hysterectomy|(?:a )?mastectomy"
)


def a_faith(f: Filling) -> bool:
    """ "I'm orthodox" → "Is Orthodox" (a faith is written with its capital)."""
    f.values["v"] = " ".join(w.capitalize() for w in f.groups["v"].split())
    return True


def an_operation(f: Filling) -> bool:
    value = re.sub(r" (?:put in|fitted)$", "", f.groups["v"].lower())
    value = re.sub(r"^an? ", "", value)
    f.values["v"] = ("an " if value[:1] in "aeiou" else "a ") + value
    return True


#: A question typed without its mark: "where can i eat halal near …", "should i eat keto?" ask,
#: they state no diet.
_ASKED = lazy(
    r"(?:\b(?:can|could|should|shall|may|might|do|would)\s+$)|(?:\b(?:where|what|how|which|when)\b"
    r"[^,.;!?]{0,30}\s+$)",
    re.I,
)


def not_asked(f: Filling) -> bool:
    """The user's own diet, not a question about one (the words before "i" ask)."""
    return not _ASKED.search(f.match.string[max(0, f.match.start() - 40) : f.match.start()])


RULES = [
    rule(
        r"\bi(?:'m| am) (?:(?:severely|very|a bit|slightly|mildly) )?(?P<v>lactose|gluten) "
        r"intolerant\b",
        "Is {v} intolerant",
        None,
        "permanent",
    ),
    rule(
        r"\bi(?:'m| am) (?:(?:severely|seriously|very|mildly|deathly|extremely|really|highly|"
        r"also) )?"
        rf"allergic to {VAL}",
        "Allergic to {v}",
        {"v": is_allergen},
        "permanent",
    ),
    # an allergy given as the reason of a rule: "never suggest anything with peanuts, I'm
    # allergic", "no shellfish in recipes please, I'm allergic"
    rule(
        r"\b(?:never|don't|do not|no)\b[^.;]{0,40}?\b(?:with|containing|that has|that have)? ?"
        r"(?!with\b|containing\b)(?P<v>[a-z]+(?: [a-z]+)?)(?: in [a-z ]{2,20}?)?(?: please)?"
        r"\s*,?\s*(?:because |since |as |cause )?i(?:'m| am) "
        r"(?:(?:severely|seriously|very|deathly|badly|really|super) )?"
        r"allergic\b(?! to)",
        "Allergic to {v}",
        {"v": is_allergen},
        "permanent",
        negative=True,
    ),
    # "Allergic to shellfish, and to penicillin"
    rule(
        rf"\ballergic to [^,.;]{{2,40}}?,? and (?:also )?to {VAL}",
        "Allergic to {v}",
        {"v": is_allergen},
        "permanent",
    ),
    # "I have a severe peanut allergy", "severe peanut alergy"
    rule(
        r"(?:^|\bi(?: have|'ve got| have got) )(?:an? )?(?:(?:severe|serious|mild|bad|"
        r"life-threatening) )?"
        r"(?P<v>[a-z]+(?: [a-z]+)?) (?:allergy|alergy|allergie)\b",
        "Allergic to {v}",
        {"v": is_allergen},
        "permanent",
        finish=allergen_noun,
    ),
    rule(
        r"\bi(?:'m| am) (?:an? )?(?:(?:fully|strictly|completely|totally|100% |mostly )\s*)?"
        r"(?P<v>vegetarian|vegan|pescatarian)(?![\w-])",
        "Is {v}",
        finish=wholly,
    ),
    rule(
        r"\b(?:i(?:'ve| have)? )?(?:gone|went|switched|moved|am going|'m going) back to (?:being "
        r")?(?:an? )?"
        r"(?P<v>vegetarian|vegan|pescatarian)(?![\w-])",
        "Is {v}",
        None,
        "correction",
        change=True,
    ),
    rule(r"\bi(?:'m| am) (?:a )?veggie(?![\w-])", "Is {v}", finish=a_veggie),
    rule(
        r"\bi(?: have|'ve got| have got| was diagnosed with| got diagnosed with| live with) "
        rf"(?P<v>{CONDITIONS})\b",
        "Has {v}",
        None,
        "permanent",
        finish=as_condition,
    ),
    rule(
        r"\bi(?:'m| am) (?P<v>(?:type [12] )?diabetic|asthmatic|epileptic|c[oe]?eliac|"
        r"pre-?diabetic|dyslexic|"
        r"autistic)(?![\w-])",
        "Has {v}",
        None,
        "permanent",
        finish=as_condition,
    ),
    rule(r"\bi(?:'m| am) (?:\d+ weeks )?pregnant\b", "Is pregnant"),
    rule(
        r"\bi (?:don't|do not|never|no longer) drink(?: (?P<v>alcohol|coffee|caffeine|beer|wine))?"
        r"(?=\s*(?:[,.;!]|$)|\s+(?:anymore|at all)\b)",
        "Doesn't drink {v}",
        negative=True,
        finish=lambda f: f.values.setdefault("v", "alcohol") is not None,
    ),
    rule(
        r"\bi(?:'m| am) (?:(?:on )?an? |strictly |completely )?(?P<v>gluten-free|dairy-free|"
        r"lactose-free|keto|paleo|"
        r"kosher|halal|plant-based|low-carb|sugar-free)(?: diet)?\b",
        "Diet: {v}",
    ),
    rule(
        r"^(?P<v>gluten-free|dairy-free|lactose-free|sugar-free) (?:is|has to be) (?:a must|"
        r"non-negotiable|essential) "
        r"for me\b",
        "Diet: {v}",
    ),
    # "I can't have dairy, so no ice cream for me"; not "… in the house", "… before the race"
    rule(
        r"\bi (?:can't|cannot|can not) (?:have|eat|do|tolerate) (?P<v>dairy|gluten|lactose)"
        r"(?=\s*(?:[,.;!]|$)|\s+(?:anymore|any more|at all)\b)",
        "Diet: {v}-free",
        negative=True,
    ),
    rule(
        r"\bi (?:eat|follow|keep|stick to) (?:an? |strictly |only )?(?P<v>gluten-free|dairy-free|"
        r"keto|paleo|kosher|"
        r"halal|plant-based|low-carb|sugar-free|low-fodmap|low-sodium|low-fat|mediterranean)(?: "
        r"diet| food)?\b",
        "Diet: {v}",
        finish=not_asked,
    ),
    rule(
        r"\bi (?:don't|do not|never|no longer) eat (?P<v>meat|red meat|pork|beef|fish|seafood|"
        r"dairy|eggs|gluten|"
        rf"sugar|nuts|shellfish)\b{UNCONDITIONED}",
        "Doesn't eat {v}",
        negative=True,
    ),
]

#: Diets a doctor puts people on, by what they keep low ("a low-FODMAP diet", "low salt diet").
_LOW_DIET = (
    r"(?P<v>low[- ]?(?:fodmap|sodium|salt|fat|carb|sugar|residue|gi|histamine|protein|oxalate|"
    r"cholesterol|potassium))"
)
#: The user, as typed: "I'm", "I am", "im".
_I_AM = r"\b(?:i'm|i am|im)"


def _low_diet(f: Filling) -> bool:
    """ "low salt", "low-FODMAP": written "low-salt", "low-FODMAP"."""
    rest = re.sub(r"^low[- ]?", "", f.values["v"], flags=re.I)
    f.values["v"] = "low-" + (rest.upper() if rest.lower() in ("fodmap", "gi") else rest.lower())
    return True


def _a_diet_held(f: Filling) -> bool:
    """The diet's word as its line writes it: "veggie" is vegetarian, "low fodmap" low-FODMAP."""
    value = (f.values.get("v") or f.groups.get("w") or "").lower()
    f.values["v"] = "vegetarian" if value == "veggie" else value
    return _low_diet(f) if value.startswith("low") else True


RULES += [
    # a diet kept low, said with "on" or put on by a doctor: "I'm on a low-FODMAP diet for IBS",
    # "im on low salt diet", "Doctor has me on a low-sodium diet because of my blood pressure"
    rule(
        rf"(?:{_I_AM} (?:now |currently |strictly )?on|\b(?:my |the )?(?:doctor|doc|gp|dietitian|"
        r"dietician|cardiologist)(?: has| put| has put|'s put| keeps)? me on) (?:an? |the )?"
        r"(?:strict )?"
        rf"{_LOW_DIET} diet\b",
        "Diet: {v}",
        finish=_low_diet,
    ),
    # the reason given with such a diet: "… diet for IBS", "… diet because of my blood pressure"
    rule(
        r"\bdiet,? (?:for|because of|due to) (?:my )?(?P<v>ibs|crohn'?s|diabetes|"
        r"type [12] diabetes|"
        r"high blood pressure|hypertension|kidney disease|gout|coeliac disease|celiac disease)\b",
        "Has {v}",
        None,
        "permanent",
        finish=as_condition,
    ),
    rule(
        rf"(?:{_I_AM} (?:now |currently )?on|\b(?:doctor|doc|gp)(?: has| put| has put|'s put)? "
        r"me on) "
        rf"(?:an? )?{_LOW_DIET.replace('(?P<v>', '(?:')} diet,? (?:for|because of|due to) my "
        r"(?:blood pressure|bp)\b",
        "Has high blood pressure",
        None,
        "permanent",
    ),
    # "high BP", "high blood pressure" said as a note of the user's own ("im on low salt diet, high
    # BP")
    rule(
        r"^(?:and )?(?:i have )?(?:high bp|high blood pressure|hypertension)(?=\s*(?:[,.;!]|$))",
        "Has high blood pressure",
        None,
        "permanent",
    ),
    # a condition had for a long time: "I've had migraines since my twenties", "I've had asthma
    # since I was a kid" (never "all week": a passing state)
    rule(
        rf"\bi(?:'ve| have) had (?P<v>{CONDITIONS}) "
        r"(?=since (?:i was|my|childhood|birth|(?:19|20)\d\d)|"
        r"for (?:\d+|a few|many|several|two|three|four|five|ten|twenty) years|all my life|my whole "
        r"life)",
        "Has {v}",
        None,
        "permanent",
        finish=as_condition,
    ),
    # "I'm vegan and allergic to sesame": the allergy shares the subject of its clause
    rule(
        rf"{_I_AM} (?:an? )?[a-z-]+(?: [a-z-]+)? and (?:also )?(?:(?:severely|seriously|very|"
        r"mildly|"
        rf"deathly|extremely|really|highly) )?allergic to {VAL}",
        "Allergic to {v}",
        {"v": is_allergen},
        "permanent",
    ),
    # "vegan since 2019", "vegetarian for ten years now": a diet said first, with how long
    rule(
        r"^(?P<v>vegetarian|vegan|pescatarian) (?=since (?:i was|(?:19|20)\d\d|my|childhood)|for "
        r"(?:\d+|a few|many|several|two|three|four|five|six|seven|eight|nine|ten|fifteen|twenty|"
        r"about|over|almost|nearly) )",
        "Is {v}",
    ),
    # "i carry an epipen everywhere", "epipen always on me"
    rule(
        r"\b(?:i|and)(?: always| also)? (?:carry|cary|have|keep) an? epi-?pen(?!\s+for\b)\b"
        r"|\bepi-?pen (?:is )?(?:always )?(?:on me|with me)\b",
        "Carries an EpiPen",
        None,
        "permanent",
    ),
    # a faith: "I'm Muslim", "I'm Orthodox and fast on Wednesdays", "We are Jain"
    rule(
        r"\b(?:i(?:'m| am)|we(?:'re| are)) (?:an? )?(?:practi[cs]ing |devout |observant )?"
        rf"(?P<v>{RELIGIONS})(?![\w-])(?=\s*(?:[,.;!]|$)|\s+(?:and|but|so|too|myself|by|since|"
        r"now|here|btw)\b)",
        "Is {v}",
        finish=a_faith,
    ),
    # an operation with its date left out: "Had a knee replacement last year"
    rule(
        rf"(?:^|\bi(?:'ve| have)? )(?:had|got) (?:an? |my )?(?P<v>{_OPERATIONS})\b",
        "Had {v}",
        None,
        "permanent",
        finish=an_operation,
    ),
    # "i cant eat sesame, im allergic": the allergy given as the reason (its own clause: the thing
    # is read in the message)
    rule(
        r"^(?:because |since |as |cause )?i(?:'m| am) (?:(?:very|severely|really|badly|super) )?"
        r"allergic\s*[.!]*$",
        "Allergic to {v}",
        None,
        "permanent",
        negative=True,
        finish=_cannot_eat,
    ),
    # "Note please: sesame allergy."
    rule(
        r"^[a-z ]{2,20}:\s*(?:an? )?(?:(?:severe|serious|mild|bad) )?(?P<v>[a-z]+(?: [a-z]+)?) "
        r"(?:allergy|alergy|allergie)\b",
        "Allergic to {v}",
        {"v": is_allergen},
        "permanent",
        finish=allergen_noun,
    ),
    # "I get migraines fairly often"
    rule(
        r"\bi (?:get|suffer from) (?:frequent |regular |bad |chronic |occasional )?(?P<v>migraines|"
        r"cluster headaches|panic attacks|nosebleeds|cold sores|hay fever)\b",
        "Gets {v}",
        None,
        "permanent",
    ),
    # a condition said first: "Mild asthma, mostly flares up in winter", "asthmatic, on a daily
    # inhaler", "type 1 diabetic. when i ask about food …"
    rule(
        r"^(?P<v>(?:mild |severe |bad )?(?:asthma|eczema|ibs|adhd|epilepsy|tinnitus|psoriasis|"
        r"endometriosis|type [12] diabetes))(?=\s*(?:[,.;!]|$)|\s+(?:here|that|which)\b)",
        "Has {v}",
        None,
        "permanent",
        finish=as_condition,
    ),
    rule(
        r"^(?P<v>(?:type [12] )?diabetic|asthmatic|epileptic|dyslexic)"
        r"(?=\s*(?:[,.;!]|$)|\s+here\b)",
        "Has {v}",
        None,
        "permanent",
        finish=as_condition,
    ),
    rule(
        r"^(?P<v>lactose|gluten) intol[e]?rant\b",
        "Is {v} intolerant",
        None,
        "permanent",
    ),
    rule(
        r"\bi(?:'m| am) (?:(?:severely|very|a bit|slightly|mildly) )?(?P<v>lactose|gluten) "
        r"intolrant\b",
        "Is {v} intolerant",
        None,
        "permanent",
    ),
    # "strictly gluten free pls", "I only eat halal", "halal only for any food suggestions"
    rule(r"\b(?:strictly|strict) (?P<v>gluten|dairy)[- ]free\b", "Diet: {v}-free"),
    rule(
        r"\bi (?:only|strictly) (?:eat|keep) (?P<v>halal|kosher)\b|^(?P<w>halal|kosher) only\b",
        "Diet: {v}",
        finish=lambda f: (
            not_asked(f) and bool(f.values.setdefault("v", (f.groups.get("w") or "").lower()))
        ),
    ),
    # "Well — pescatarian really, I do eat fish": the diet said anew as the truer word for it
    rule(
        r"^(?:(?:well|ok|okay|hmm|so|actually|no)[,!]?\s+)*(?P<v>vegetarian|vegan|pescatarian),? "
        r"(?:really|actually|technically|to be exact|to be precise)(?=\s*(?:[,.;!—–]|$))",
        "Is {v}",
        None,
        "correction",
        change=True,
    ),
    # "vegetarian now": the diet said anew, with its cue of change
    rule(
        r"(?:^|^(?:i|i'm|i've|i have|we)\b[^:]{0,40}:\s*)(?:so |ok,? |okay,? )?"
        r"(?P<v>vegetarian|vegan|pescatarian) now"
        r"(?=\s*(?:[,.;!]|$))",
        "Is {v}",
        None,
        "correction",
        change=True,
    ),
    # "I've been vegan for about six years", "vegan since 2019", "been veggie about a decade",
    # "ive been veggie for years": a diet with how long, its subject typed or left out
    rule(
        r"(?:\bi(?:'ve| have)|\bive|^)\s*been (?:an? )?(?P<v>vegetarian|vegan|pescatarian|veggie) "
        r"(?:for|since|about|around|roughly|nearly|almost|over|most of)\b"
        r"|^(?P<w>vegetarian|vegan|pescatarian) (?:since|for)\b",
        "Is {v}",
        finish=_a_diet_held,
    ),
    # a diet one is on or doing, said by its name: "I'm on keto", "been doing keto since January",
    # "I'm on low FODMAP for my IBS" (not "… keto recipes", "… for a month", "my wife is on keto")
    rule(
        rf"(?:{_I_AM}|\bi(?:'ve| have)? been|\bive been|^been) "
        r"(?:now |currently |strictly |still )?"
        r"(?:on|doing) (?:the |a )?(?:strict )?"
        rf"(?:(?P<w>keto|paleo|whole30)|{_LOW_DIET})(?: diet)?"
        r"(?=\s*(?:[,.;!—–-]|$)|\s+(?:diet|for my|because|since|now|again|these days)\b)",
        "Diet: {v}",
        finish=_a_diet_held,
    ),
]


CANON = [
    (r"^Carries an EpiPen$", USER, None),
    (rf"^Is ({RELIGIONS})$", USER, "faith"),
    (r"^Had an? (.+)$", USER, None),
    (
        r"^Gets (migraines|cluster headaches|panic attacks|nosebleeds|cold sores|hay fever)$",
        USER,
        None,
    ),
    (r"^Allergic to (.+)$", USER, None),
    (r"^Is (vegetarian|vegan|pescatarian)$", USER, "diet"),
    (r"^Is (lactose|gluten) intolerant$", USER, None),
    (r"^Doesn't eat (.+)$", USER, None),
    (r"^Diet: (.+)$", USER, None),
    (r"^Is pregnant$", USER, None),
    (r"^Doesn't drink (.+)$", USER, None),
    (rf"^Has (?:mild |severe |bad )?({CONDITIONS}|prediabetes)$", USER, None),
]
