"""What the user eats and cannot eat: allergies, intolerances, diets.

An allergy is to something people are allergic to (``ALLERGENS``): "allergic to drama" is a figure
of speech.
"""

from __future__ import annotations

from .core import USER, rule, word_set
from .phrases import VAL
from .values import is_thing

#: What people are allergic to: food allergens, animals and insects, plants, medicines, materials.
#: "Allergic to drama" is a figure of speech: an allergy to anything else gives no fact.
ALLERGENS = word_set(
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
    words = [w.lower().strip(".,!") for w in value.split()]
    return (
        bool(words) and is_thing(value, unpleasant_ok=True) and any(w in ALLERGENS for w in words)
    )


RULES = [
    rule(
        r"\bi(?:'m| am) (?:(?:severely|very|a bit|slightly|mildly) )?(?P<v>lactose|gluten) intolerant\b",
        "Is {v} intolerant",
        None,
        "permanent",
    ),
    rule(rf"\bi(?:'m| am) allergic to {VAL}", "Allergic to {v}", {"v": is_allergen}, "permanent"),
    rule(r"\bi(?:'m| am) (?:an? )?(?P<v>vegetarian|vegan|pescatarian)(?![\w-])", "Is {v}"),
    rule(
        r"\bi(?:'m| am) (?:(?:on )?an? |strictly |completely )?(?P<v>gluten-free|dairy-free|lactose-free|keto|paleo|"
        r"kosher|halal|plant-based|low-carb|sugar-free)(?: diet)?\b",
        "Diet: {v}",
    ),
    rule(
        r"^(?P<v>gluten-free|dairy-free|lactose-free|sugar-free) (?:is|has to be) (?:a must|non-negotiable|essential) "
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
        r"\bi (?:eat|follow|keep) (?:an? |strictly )?(?P<v>gluten-free|dairy-free|keto|paleo|kosher|halal|plant-based|"
        r"low-carb|sugar-free)(?: diet| food)?\b",
        "Diet: {v}",
    ),
    rule(
        r"\bi (?:don't|do not|never|no longer) eat (?P<v>meat|red meat|pork|beef|fish|seafood|dairy|eggs|gluten|"
        r"sugar|nuts|shellfish)\b",
        "Doesn't eat {v}",
        negative=True,
    ),
]

CANON = [
    (r"^Allergic to (.+)$", USER, None),
    (r"^Is (vegetarian|vegan|pescatarian)$", USER, "diet"),
    (r"^Is (lactose|gluten) intolerant$", USER, None),
    (r"^Doesn't eat (.+)$", USER, None),
    (r"^Diet: (.+)$", USER, None),
]
