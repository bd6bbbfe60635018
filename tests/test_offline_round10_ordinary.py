"""Issue 36, tenth round: ordinary follow-up messages that are NOT corrections, yet share words (and
often a cue of change: "now", "moved", "new", "back to", "forget", "stop", "gave up", "done") with a
line already in memory. Each is run through the real path (the archive step and a real Dream per
turn) after the message that wrote the line; no line the first message wrote may change or leave.

Written before the tenth round's correction classes were built (a regression corpus for them): the
previous round's hostile tester found "the Atlas offsite standup", a book club "this month …
because of the holiday" and "I meant the 10th grade textbook" changing a true line; the rest are
look-alikes of the shapes this round reads (a retraction without a value, a new job or home said
without the old one's words, a rule undone, a count said as an event, a pet rehomed, a spelling, a
migration finished, a limit raised).
"""

from __future__ import annotations

import offline_statements as st
import pytest

# (the message that writes the line, an ordinary follow-up that must change no line)
ORDINARY: list[tuple[str, str]] = [
    # the hostile tester's three
    ("Our standup is at 9:15 every day.", "The Atlas offsite standup was at 11 because of travel."),
    (
        "Our team meeting is on the first Thursday of the month.",
        "The team meeting this month is on the second Thursday because of the holiday.",
    ),
    ("I teach 9th grade maths.", "sorry, I meant the 10th grade textbook for my nephew"),
    # homes
    ("I live in Leeds.", "Leeds was freezing this morning, the bus was late again."),
    ("I live in Leeds.", "Back to Leeds tonight after the conference, finally."),
    ("I live in Lisbon.", "My sister just moved to Lisbon too, so now we're neighbours."),
    ("We live in Puebla.", "Just got back from the market in Puebla, bought way too many peppers."),
    ("We live in Puebla.", "Just moved the sofa, my back hurts now."),
    ("We live in Puebla.", "Just moved desks at work, the new one is by the window."),
    ("I live in Bath.", "A new bakery opened in Bath near my flat, the croissants are great."),
    (
        "I live in Windhoek.",
        "Please delete the photos I sent of where I live, they're too big.",
    ),
    ("I live in Windhoek.", "Please delete that draft about the Windhoek trip, I sent it already."),
    ("I live in Lisbon.", "Lisbon is so hot now, 38 degrees in the shade."),
    # jobs
    (
        "I work at Paystack.",
        "New job posting at Paystack for my friend, help him with a cover letter.",
    ),
    ("I'm a QA engineer at Globex.", "New QA hire at Globex starts Monday, I'm onboarding her."),
    ("I work for Jumia in Lagos.", "Jumia's new office in Lagos is now open, it has a canteen."),
    ("I work at Acme.", "New job for my brother! He's at Globex now."),
    ("I work at Acme.", "new job ad at Acme is live, proofread it for me"),
    ("I'm head chef at Rosa's in Bristol.", "We opened a new terrace at Rosa's, it's packed now."),
    (
        "I'm head chef at Rosa's in Bristol.",
        "I've opened a new jar of saffron now, it smells amazing.",
    ),
    (
        "I'm head chef at Rosa's in Bristol.",
        "My friend opened her own place now, a small bistro in Bath.",
    ),
    ("I work at Siemens.", "Siemens now has a four-day week pilot and I'm in it."),
    ("I work at Deloitte.", "Deloitte's new office has a gym on the roof."),
    ("I'm a nurse at St Mary's.", "The night shift at St Mary's was calm for once."),
    # diets
    ("I'm vegan.", "Found a great bakery, fully vegan since January apparently."),
    ("I'm vegan.", "Stopped at a vegan place for lunch, it was great."),
    ("I'm vegetarian.", "My daughter gave up on being vegetarian, she eats chicken again."),
    ("I'm pescatarian.", "Fully booked since January, the fish restaurant is doing great."),
    ("I'm vegan.", "My vegan cookbook finally arrived now, the cover is gorgeous."),
    # rules for the assistant
    (
        "Answer me in German please.",
        "Back to the German grammar question: what's the dative of der Hund",
    ),
    ("Please reply in French.", "Stop the French verbs drill, my brain hurts."),
    ("Please reply in English.", "My English teacher switched to online classes now."),
    ("Please reply in English.", "Back to English class tonight, I'm exhausted."),
    ("Answer me in German please.", "Back to work now, talk later."),
    (
        "Use imperial units, I'm used to feet.",
        "I switched to the metric wrench set, the bolts are M8.",
    ),
    ("Use imperial units, I'm used to feet.", "My school switched to metric years ago."),
    (
        "Keep answers under 100 words.",
        "The abstract can go up to about 300 words, draft it please.",
    ),
    ("Keep answers under 100 words.", "The essay has to be 300 words now, the teacher changed it."),
    (
        "Please always include sources with links.",
        "Forget the links in that last email, the client can't open them.",
    ),
    ("Always use bullet points.", "The bullet points in my slides are now all aligned, thanks."),
    ("Never use emojis.", "My team started using emojis in Slack now, it's chaos."),
    ("Please always include sources with links.", "The links in my blog now open in a new tab."),
    # pets
    ("We have a rabbit named Pip.", "We had to rehome Pip's old hutch, it was falling apart."),
    ("We have a rabbit named Pip.", "Pip had to go to the vet now, he has a sore paw."),
    ("Our dog is called Biscuit.", "Biscuit with a bow tie is the cutest thing now."),
    ("Our dog is called Biscuit.", "Biscuits with a cup of tea, now that's a good afternoon."),
    ("I have a cat named Miso.", "Miso moved to the windowsill now that it's sunny."),
    ("We have two cats.", "The cats are now sleeping in the laundry basket."),
    ("We have a dog named Rex.", "Our neighbours had to rehome Rex's brother, so sad."),
    # counts
    ("I have two kids.", "We had our third parents' evening this term, exhausting."),
    ("I have two kids.", "We had our third wedding anniversary yesterday."),
    ("I have two kids.", "Now both kids are in school, I have mornings free."),
    ("We have two dogs.", "The two dogs are now best friends with the neighbour's cat."),
    # spellings
    ("Our dog is called Biscuit.", "its Biscuit's birthday lol, he's three now"),
    ("My daughter is called Sofia.", "Sofia spelled her name with a capital S for the first time!"),
    # stacks, projects, versions
    ("Our frontend is Vue 2.", "The Vue 3 conference talk is finally online, watching it now."),
    ("Our frontend is Vue 2.", "The Vue 3 migration guide finally finished downloading."),
    ("We use MongoDB for the new service.", "Our MongoDB backups now run nightly."),
    ("We're using Firebase for auth in the app.", "Firebase sent a new billing email now."),
    ("Our database is Postgres 14.", "Postgres 16 is out now, anything interesting in it"),
    ("Our backend runs on Python 3.10.", "Python 3.13 came out now and I'm reading the changelog."),
    ("The app targets iOS 15 and up.", "Apple released iOS 18 now, the beta was buggy."),
    ("We deploy on Heroku.", "Heroku's status page says they fixed the outage now."),
    ("We use Jira for tickets.", "I moved three Jira tickets to done."),
    ("We use Jira for tickets.", "Our Jira board is finally done, all columns cleaned up."),
    ("We use Stripe for payments.", "Stripe now supports Pix payments, interesting."),
    (
        "We're using Firebase for auth in the app.",
        "Forget the Firebase pricing question, I found the answer.",
    ),
    ("I use Neovim.", "Gave up on the Neovim plugin hunt, the defaults are fine."),
    # schedules
    ("Retro is every second Friday.", "Retro moved to the big meeting room."),
    (
        "Our team sync is on Tuesdays at 2pm.",
        "My manager moved her 1:1s to Thursdays at 3pm.",
    ),
    ("I go to the gym on Mondays.", "The gym on Mondays is packed now, new year resolutions."),
    ("Our standup is at 9:15 every day.", "Standup is now a video call for the remote folks."),
    ("Our standup is at 9:15 every day.", "The design team moved their standup to 10:30."),
    # health
    ("I'm allergic to peanuts.", "A new peanut-free bakery opened near work now."),
    ("I have type 2 diabetes.", "My dad's type 2 diabetes is now under control."),
    ("I have type 2 diabetes.", "Switched pharmacies for my diabetes meds, the new one is closer."),
    # likes, hobbies
    ("I love jazz.", "Went to a jazz gig now that the club reopened."),
    ("My favourite band is Radiohead.", "Radiohead's new album is out now."),
    ("I like hiking.", "Gave up on the hiking trip, the forecast was awful."),
    ("I play chess.", "I quit the chess tournament halfway, I was too tired."),
    (
        "I've got an allotment, plot 14.",
        "I gave the allotment tomatoes to my neighbour in the end.",
    ),
    ("I've got an allotment, plot 14.", "I gave up the allotment shed key to the committee."),
    ("I love jazz.", "Forget the jazz playlist, I made my own."),
    # families and people
    ("My wife is called Ana.", "Ana's sister moved to Porto now."),
    ("I have a son named Leo.", "Leo switched to the blue team at football now."),
    ("My brother Tom lives in Oslo.", "Just moved Tom's boxes into storage."),
    # students, titles
    ("I'm a second-year nursing student.", "Second-year exams are now in May."),
    ("I'm a third-year student at Leeds.", "My brother is now a first-year at the same uni."),
    ("I'm a sous chef at Lupo.", "New menu at Lupo is out now, all seasonal."),
]


@pytest.mark.parametrize(("first", "follow_up"), ORDINARY, ids=[f for _, f in ORDINARY])
def test_an_ordinary_follow_up_changes_no_line(first: str, follow_up: str) -> None:
    st.assert_follow_up_changes_no_line(first, follow_up)


def test_the_corpus_is_large_enough() -> None:
    assert len(ORDINARY) >= 80
    assert len({f for _, f in ORDINARY}) == len(ORDINARY)
