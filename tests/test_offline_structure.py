"""Issue 26, fifth round: readings of structure that carry to speech no rule was written for — a
coordination of two nouns decided by a lexicon, fixed binomials kept whole, a love or passion that
a possessive presupposes ("my love for X") even under a plan, a determiner after "and" that opens a
noun phrase of its own. Each shape is checked with its framed and wrong-kind variants."""

from __future__ import annotations

import pytest

from reverie.llm.offline.rules import extract_facts


def _facts(sentence: str) -> list[str]:
    return [f.text for f in extract_facts(sentence)]


@pytest.mark.parametrize(
    "sentence, expected",
    [
        ("I love dance and fashion.", ["Likes dance", "Likes fashion"]),
        ("I'm passionate about dance and fashion.", ["Likes dance", "Likes fashion"]),
        ("I love painting and pottery.", ["Likes painting", "Likes pottery"]),
        ("I'm into chess and photography.", ["Likes chess", "Likes photography"]),
    ],
)
def test_two_nouns_that_stand_alone_are_two_likes(sentence: str, expected: list[str]) -> None:
    assert _facts(sentence) == expected


#: Fixed binomials, adjectives, broad words and framed coordinations: no pair of likes.
NO_PAIR = [
    "I love rock and roll.",  # a fixed binomial: one thing, and a like only when read whole
    "I love salt and pepper on everything.",
    "I love pros and cons lists.",
    "I love black and white photos.",  # adjectives, not two things
    "I love dance and fashion shows.",  # shows of both, maybe
    "I'm passionate about life and love.",  # too broad to be a like
    "She's passionate about dance and fashion.",
    "In my novel the hero loves dance and fashion.",
    "Do you love art and music?",
    "I used to love art and music.",
]


def test_binomials_adjectives_and_framed_coordinations_give_no_pair() -> None:
    assert _facts("I love dance and fashion.")  # the shape is read ...
    for sentence in NO_PAIR:  # ... and these are not
        facts = _facts(sentence)
        assert not [f for f in facts if f != "Likes rock and roll"], (sentence, facts)


@pytest.mark.parametrize(
    "sentence, expected",
    [
        (
            "Plus, I wanted to blend my love for dance and fashion, so it was a perfect match.",
            ["Likes dance", "Likes fashion"],
        ),
        (
            "I'm passionate about dance and fashion so combining them lets me show my creativity.",
            ["Likes dance", "Likes fashion"],
        ),
        (
            "It lets me combine my love for reading and the joy of sharing stories.",
            ["Likes reading"],
        ),
        ("I've always had a love for horses!", ["Likes horses"]),
    ],
)
def test_a_love_a_possessive_presupposes_holds_under_a_plan(
    sentence: str, expected: list[str]
) -> None:
    assert _facts(sentence) == expected


#: A love lost, sought again, someone else's, asked about, past or framed.
NOT_HELD = [
    "I lost my love for dance and fashion.",
    "I gave up my passion for music.",
    "I want to find my love for painting again.",
    "I'd like to rediscover my passion for music.",
    "I'm hoping to get back my love for cooking.",
    "I want to reconnect with my love for music.",
    "I'm trying to get in touch with my love for art again.",
    "I wanted to share her love for dance with you.",
    "If I had my love for painting back, I'd be happy.",
    "Would you share my love for painting?",
    "I used to want to share my love for painting.",
    "In my story, I wanted to blend my love for dance and fashion.",
    "I had a love for horses when I was a kid.",
    "I'd have a love for horses if I weren't allergic.",
    "I'm passionate about cooking so much that it hurts.",
]


def test_a_love_lost_sought_again_someone_elses_or_framed_gives_nothing() -> None:
    assert _facts("I wanted to share my love for painting.") == ["Likes painting"]
    for sentence in NOT_HELD:
        assert _facts(sentence) == [], sentence


#: A pet in a compound, a pest, one held once, wished for, someone else's or framed.
NOT_A_PET = [
    "I have a cat allergy.",
    "I have a dog walker who comes on Tuesdays.",
    "We've got a dog show this weekend.",
    "I have a bird's eye view from here.",
    "I have a cat on my lap right now, my neighbour's.",
    "We have a mouse in the kitchen.",
    "I had a dog when I was little.",
    "I wish I had a cat.",
    "My sister has a cat and a dog.",
    "Do you have a dog?",
    "I don't have a cat anymore.",
    "In my story, I have a dog named Rex and a cat.",
]


def test_a_pet_held_without_a_name_is_written_by_its_kind() -> None:
    assert _facts("We've got a pup and a kitty.") == ["Has a dog", "Has a cat"]
    assert _facts("I have two cats.") == ["Has two cats"]
    for sentence in NOT_A_PET:  # no pet ("I have a cat allergy" is an allergy, issue 36)
        assert not [f for f in _facts(sentence) if f.startswith("Has ")], sentence


#: An instrument that is part of another noun, one given up, someone else's, started days ago, or
#: framed.
NOT_PLAYED = [
    "I play Guitar Hero with my kids.",
    "I play guitar hero every weekend.",
    "I play air guitar when nobody's looking.",
    "My son plays acoustic guitar.",
    "I used to play acoustic guitar.",
    "I started playing guitar five years ago but quit last year.",
    "I started playing the drums ten years ago and stopped when I moved.",
    "I started playing piano a week ago.",
    "My daughter started playing cello three years ago.",
    "I wish I'd started playing guitar years ago.",
    "In my story I play electric guitar in a band.",
]


def test_an_instrument_with_its_kind_ends_its_noun_phrase_and_lasts() -> None:
    assert _facts("I play acoustic guitar.") == ["Plays the acoustic guitar"]
    assert _facts("I started playing acoustic guitar about five years ago.") == [
        "Plays the acoustic guitar"
    ]
    assert _facts("I started playing tennis years ago.") == ["Plays tennis"]
    for sentence in NOT_PLAYED:
        assert _facts(sentence) == [], sentence


def test_a_semicolon_between_clauses_of_prose_is_no_code() -> None:
    assert _facts("I play the guitar; it's great.") == ["Plays the guitar"]
    for sentence in ("x = 1; I live in Paris;", "int count; I work at Google;"):
        assert _facts(sentence) == [], sentence


def test_a_participle_after_the_users_own_clause_is_the_users() -> None:
    assert _facts("I'm doing my part too, volunteering at a homeless shelter.") == [
        "Volunteers at a homeless shelter"
    ]
    for sentence in (
        "I'm so proud of you, volunteering at a homeless shelter.",
        "I'm so proud of my sister, volunteering at the food bank.",
        "I'm proud of Sarah, volunteering at the shelter like that.",
        "I'm sure he's fine, volunteering at the shelter.",
        "I was doing my part too, volunteering at a homeless shelter.",
        "I'd be doing my part, volunteering at a homeless shelter.",
        "I'm doing my part too, volunteering at a shelter this weekend.",
    ):
        assert _facts(sentence) == [], sentence


def test_a_negated_negation_gives_no_dislike() -> None:
    assert _facts("I'm not into hiking.") == ["Dislikes hiking"]
    assert _facts("It's not that I'm not into hiking.") == []
    # "not really into" is a hedge in the hand corpus (its held-out negatives): still unsure
    assert _facts("I'm not really into hiking.") == []


def test_a_later_clauses_plan_reaches_no_earlier_clause() -> None:
    assert _facts("I've always liked Under Armour, working with them would be really cool.") == [
        "Likes Under Armour"
    ]
    for sentence in (
        "I love PHP, maybe.",
        "I work at Google, well, I might soon.",
        "I love sushi, I think it would be fun to try.",
        "I love sushi, trying it would be fun.",
        "I'm allergic to cats, I might be wrong though.",
        "I work at Google, assuming I'd pass the interview.",
        "My brother loves Paris, living there would be his dream.",
        "I'd love Paris, living there would be a dream.",
        "In my story I live in Paris, it would be fun to visit.",
    ):
        assert _facts(sentence) == [], sentence


def test_people_and_harm_in_a_coordination_are_no_likes() -> None:
    assert _facts("I love beer and pizza.") == ["Likes beer", "Likes pizza"]
    for sentence in (
        "I love Mom and Dad.",  # wrong on the engine before the round too
        "I love mom and dad.",
        "I love Jesus and Mary.",
        "I love kids and dogs.",
        "I love husband and kids.",
        "I love pain and suffering.",
        "I love war and violence.",
    ):
        assert _facts(sentence) == [], sentence


@pytest.mark.parametrize(
    "sentence, expected",
    [
        ("This made me appreciate my love of hiking even more.", ["Likes hiking"]),
        ("I love baking more than ever.", ["Likes baking"]),
        ("I love chess so much more now.", ["Likes chess"]),
        ("I enjoy gardening even more now.", ["Likes gardening"]),
    ],
)
def test_a_degree_said_after_a_like_is_not_its_object(sentence: str, expected: list[str]) -> None:
    """A comparative of degree qualifies the liking, as "too" does: it is no part of the thing."""
    assert _facts(sentence) == expected


def test_a_degree_leaves_framed_likes_refused() -> None:
    for sentence in (
        "My sister loves hiking even more.",
        "I used to love hiking even more.",
        "In my novel, she loves baking more than ever.",
    ):
        assert _facts(sentence) == [], sentence
