"""Issue 36, eleventh round: ordinary follow-ups that must retire and change nothing, written before
the round's correction classes were built, in the shapes those classes read but in another sense.

T's and U's stale corrections carry a marker ("now", "actually", "update:", "new X:", "sorry,",
"scratch that", "push/move X to Y", "X with an h") on a slot memory holds. Each marker has ordinary
senses too, and each is here: "now" of a thought or a duration ("I'm now thinking about …", "five
years now"), "new host" of a party, "push … to" of git, "actually" as emphasis, "update:" of news,
"sorry" with no value, a count of someone else's children, a title held by someone else, a time of
another event. Each is run through the real path (the archive step and a real Dream per turn) after
the message that wrote the line; no line the first message wrote may change or leave.
``tests/test_offline_round10_ordinary.py`` holds the tenth round's 90.
"""

from __future__ import annotations

import offline_statements as st
import pytest
from test_offline_round10_ordinary import ORDINARY as TENTH_ROUND

# (the message that writes the line, an ordinary follow-up that must change no line)
ORDINARY: list[tuple[str, str]] = [
    # "now" that changes nothing: a thought, a duration, a cause, someone else's
    ("I work at Acme.", "I'm now thinking about leaving Acme, but nothing's decided."),
    ("I work at Acme.", "I've been at Acme for five years now."),
    ("I live in Leeds.", "I'm now thinking about moving to York someday."),
    ("I'm a sous chef at Dishoom.", "The head chef now is a woman from Goa, she's brilliant."),
    ("I'm a nurse at St Mary's.", "Head nurse now is Maria, she's lovely."),
    ("We have two kids.", "Three kids now at the birthday party and it's only 2pm."),
    ("We have two kids.", "My sister has three kids now, the baby came on Monday."),
    ("Our standup is at 9:30 every day.", "Lunch is at twelve now on Fridays."),
    ("Our standup is at 9:30 every day.", "Sorry I was late to standup, got there at ten."),
    (
        "Our backend runs on Python 3.10.",
        "python is 3.12 on my laptop, not sure about the servers.",
    ),
    ("Our backend runs on Python 3.10.", "My brother's python is 3.12 now, he keeps bragging."),
    # "new X:" of something else than the slot
    ("We deploy on Heroku.", "New host for the party on Friday: Sam."),
    ("We deploy on Heroku.", "New podcast host: Jamie, she's great."),
    ("We live in Vancouver.", "New address for the office party: 12 Main Street."),
    ("I work at Acme.", "New job for my cousin: Globex. Proud of her."),
    ("I work at Acme.", "Just started at a new gym near the office."),
    # "push / move X to Y" of git, notes and chores
    ("We deploy on Heroku.", "Push the fix to Heroku now please."),
    ("Launch is on the 10th of June.", "Push the launch branch to the remote, then tag it."),
    ("Launch is on the 10th of June.", "Push the launch announcement to the team channel."),
    ("The release deadline is March 3.", "Moved the release notes to the wiki."),
    ("Our standup is at 9:30 every day.", "Push standup notes to the wiki after the call."),
    ("Our standup is at 9:30 every day.", "Moved my dentist to 10 so I don't miss standup."),
    # "actually" as emphasis
    ("Our backend runs on Python 3.10.", "Python is actually really nice for scripting."),
    ("I'm allergic to peanuts.", "Actually, peanuts are in almost everything here, it's annoying."),
    (
        "I'm allergic to peanuts and shellfish.",
        "Just checked the menu actually, no shellfish in anything.",
    ),
    ("I love jazz.", "Actually, jazz is the only thing I listen to at work."),
    ("I'm vegetarian.", "Actually vegetarian food here is amazing."),
    # "update:", "sorry,", "scratch that" with no change of the line
    ("I work at Acme.", "Update: Acme's office moves to the new building next month."),
    ("I'm single.", "Update: my sister is engaged to Rafael!"),
    ("I'm single.", "Update: I'm going to a wedding, my friend is engaged."),
    ("Call me Jon.", "Sorry, I meant to ask about the weather."),
    ("Call me Jon.", "My boss is John with an h, always confusing."),
    ("I have a cat named Luna.", "Sorry, Luna with a bell on her collar is adorable."),
    ("Our standup is at 9:30 every day.", "Scratch that, the standup question is solved."),
    ("Our team writes all docs in Confluence.", "Scratch that last question about Confluence."),
    # leaving, dropping, taking off: not the slot itself
    ("I work at Acme.", "I left Acme at 6 yesterday, long day."),
    ("I work at Acme.", "I left my laptop at Acme, ugh."),
    ("I work at Acme.", "My wife left Acme, she's at Globex now."),
    ("We use Jenkins for CI.", "Drop the Jenkins logs from your answer, too long."),
    ("I love country music.", "Take the country songs off the party playlist, please."),
    ("I have a bad knee.", "Ignore the part about the weather in my last message."),
    ("I have a broken wrist.", "My wrist is fine now for short notes, the cast stays on."),
    ("I'm lactose intolerant.", "Turns out it's not the lactose-free milk that upset me."),
    ("My favourite band is Radiohead.", "These days it's more like rain every afternoon here."),
    ("I'm a product designer at Acme.", "They made me lead the redesign project, exciting."),
    ("I'm a junior developer at Spotify.", "Made dinner for the team now that we shipped."),
    # look-alikes of the round's own classes, written after them
    ("I'm a nurse at St Mary's.", "They made me team captain for the charity match."),
    ("I'm a nurse at St Mary's.", "They made me captain of the pub quiz team."),
    ("I work at Acme.", "New job: Globex is hiring, tell my brother."),
    ("I work at Acme.", "I left Acme, I'm at Heathrow now for the flight."),
    ("I work at Acme.", "Left Acme early, I'm at the pub now."),
    ("Our standup is at 9:30 every day.", "My standup buddy is now at ten push-ups a day."),
    ("The release deadline is March 3.", "We're up to the 20th release candidate now."),
    ("I have a bad knee.", "My knee is better now but still sore on stairs."),
    ("I'm allergic to peanuts.", "My son's peanut test came back negative."),
    ("I love country music.", "Take country off the list of genres for the party playlist."),
    ("I work at Siemens.", "Siemens let me go to the conference in Berlin!"),
    ("I'm team lead for payments.", "My manager stepped down as lead, so I might get it."),
    ("We have two kids.", "We had a third round of interviews for the nanny."),
]


@pytest.mark.parametrize(("first", "follow_up"), ORDINARY, ids=[f for _, f in ORDINARY])
def test_an_ordinary_follow_up_changes_no_line(first: str, follow_up: str) -> None:
    st.assert_follow_up_changes_no_line(first, follow_up)


def test_the_corpus_is_large_enough() -> None:
    assert len(ORDINARY) >= 40
    assert len({f for _, f in ORDINARY}) == len(ORDINARY)
    assert not {f for _, f in ORDINARY} & {f for _, f in TENTH_ROUND}, (
        "new shapes, not the tenth round's"
    )
