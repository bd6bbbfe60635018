"""Word tables the rules of several kinds of fact share: languages, job titles, time words,
technologies, people and pets, and the words that make a value vague or a like insincere.

Each table is a closed class of the engine's own (where real data exists, ``kinds`` checks against
it instead). A table used by one kind of fact only lives in that kind's module (``pets.PET_TALK``,
``likes.GENRES`` …).
"""

from __future__ import annotations

from .core import word_set

LANGUAGES = word_set(
    "english german french spanish italian portuguese dutch japanese chinese mandarin cantonese "
    "korean russian polish "
    "swedish norwegian danish finnish greek turkish arabic hebrew hindi ukrainian czech hungarian "
    "romanian catalan "
    "basque welsh irish vietnamese thai indonesian swahili"
)


NATIONALITIES = word_set(
    "american british canadian australian irish scottish welsh german french spanish italian "
    "portuguese dutch "
    "belgian swiss austrian polish swedish norwegian danish finnish greek turkish russian "
    "ukrainian indian chinese "
    "japanese korean brazilian mexican argentinian nigerian kenyan egyptian moroccan israeli "
    "iranian european "
    "asian african latin catholic jewish muslim christian buddhist hindu atheist"
)


#: Job titles: "I work as a …" / "I'm a …" only gives a role when the phrase ends in one of these.
ROLES = word_set(
    "engineer developer programmer designer teacher professor lecturer doctor physician nurse "
    "surgeon dentist "
    "pharmacist manager director scientist researcher student writer author journalist editor "
    "lawyer attorney "
    "consultant analyst architect artist musician photographer accountant founder co-founder cto "
    "ceo cfo coo vp "
    "intern freelancer contractor carpenter electrician plumber chef cook baker farmer pilot "
    "translator "
    "therapist psychologist librarian economist mechanic technician administrator sysadmin tester "
    "recruiter "
    "salesperson marketer entrepreneur veterinarian paramedic firefighter officer lead "
    "postdoc counselor counsellor paralegal cpa associate specialist coordinator clerk cashier "
    "gp anaesthetist anesthetist pediatrician paediatrician cardiologist plasterer barber butcher "
    "violinist pianist joiner "
    "driver "
    "caregiver carer midwife optometrist radiologist physiotherapist physio dietitian nutritionist "
    "barista "
    "bartender waiter waitress hairdresser stylist tailor welder machinist surveyor planner "
    "producer animator "
    "illustrator copywriter tutor instructor trainer coach principal dean statistician actuary "
    "auditor banker "
    "broker trader realtor solicitor barrister notary secretary receptionist nanny gardener "
    "landscaper builder "
    "bricklayer roofer painter sculptor dancer singer actor actress comedian streamer blogger "
    "podcaster "
    "homemaker retiree pensioner owner worker strategist sre swe sde dba devops "
    # twelfth round: titles of trades and services people outside tech hold
    "servant hygienist postman postwoman cleaner courier porter supervisor foreman labourer "
    "laborer housekeeper caretaker janitor sonographer radiographer chemist biologist physicist "
    "historian interpreter curator archivist inspector dispatcher executive priest pastor vicar "
    "rabbi imam soldier apprentice florist jeweller optician podiatrist chiropractor osteopath "
    "childminder vet assistant "
    # clipped, as people type them; a line writes them whole (``CLIPPED_ROLES``)
    "dev sparky"
)

#: Job titles as people clip them, and the word a line writes for each ("backend dev" → "Works as
#: backend developer", "self-employed sparky" → "… electrician").
CLIPPED_ROLES = {"dev": "developer", "sparky": "electrician"}


#: Words a proper name (place, organisation, person, project) never is: times, greetings,
#: nationalities, feelings.
TIME_WORDS = word_set(
    "monday tuesday wednesday thursday friday saturday sunday january february march april may "
    "june july august "
    "september october november december jan feb mar apr jun jul aug sep sept oct nov dec "
    "christmas easter "
    "today tomorrow tonight yesterday noon midnight morning evening night weekend weekends am pm "
    "now then"
)


NOT_NAMES = (
    TIME_WORDS
    | NATIONALITIES
    | LANGUAGES
    | word_set(
        "i me you he she it we they the a an this that so not no yes ok okay fine good great sorry "
        "sure here there "
        "back done ready tired happy sad busy home work just very really also still well hi hello "
        "hey thanks "
        "it's i'm im user assistant someone somebody nobody everyone god lol haha"
    )
)


#: The first word of a liked or used "thing" that makes it no thing at all ("I like that", "we use
#: it daily").
VAGUE = word_set(
    "it it's its that this these those them they you your yours he him she her his hers we our "
    "ours their theirs "
    "i my mine me not no never "
    "what how when where why who whom whatever whenever which something anything nothing "
    "everything "
    "someone anyone nobody everyone all some any none one ones to a an the being doing going "
    "getting having "
    "feeling thinking working living trying when if here there so too such more most less least "
    "same other "
    "each every either neither both lots much many few little bit way idea whichever still up down "
    "out "
    "around alone back anymore again already"
)


#: A "like" of something unpleasant is usually sarcasm ("I just love waiting in traffic"): unsure,
#: so no fact.
UNPLEASANT = word_set(
    "waiting wait queue queues traffic stuck delay delays delayed broken bug bugs crash crashes "
    "crashing outage "
    "outages taxes tax paperwork overtime deadline deadlines mondays meetings spam ads hold "
    "debugging rain "
    "commute commuting lag failing fails failure errors flu headache headaches hangover hangovers "
    "crying screaming yelling shouting venting sobbing "  # ways to let off steam, not pastimes
    "fighting arguing bickering teasing quarreling quarrelling "  # done to someone, not a pastime
    # harm, said in jest
    "war violence pain suffering hate hatred spite misery doom gloom cruelty abuse"
)


#: Technologies: a tool in use is one of these or a capitalised name ("we use Slack", not "we use a
#: hack").
TECH = word_set(
    "python rust go golang java kotlin swift scala ruby php perl haskell elixir erlang clojure "
    "typescript "
    "javascript node nodejs deno bun c c++ c# sql bash zsh fish docker podman kubernetes k8s helm "
    "terraform "
    "ansible postgres postgresql mysql mariadb sqlite mongodb redis cassandra clickhouse duckdb "
    "timescaledb "
    "elasticsearch opensearch kafka rabbitmq nats grpc graphql rest react vue svelte angular "
    "django flask fastapi "
    "rails spring laravel express nextjs nginx apache caddy linux ubuntu debian fedora arch macos "
    "windows git "
    "github gitlab bitbucket jenkins circleci aws gcp azure vim neovim emacs vscode jira slack "
    "notion figma "
    "airflow dbt spark pandas numpy pytorch tensorflow alembic pytest celery s3 bigquery snowflake "
    "dynamodb "
    # test runners and bundlers, said in lower case ("switched to vitest, jest is gone")
    "jest vitest mocha cypress playwright vite webpack mongo "
    # stacks as people type them in lower case ("next.js 14 + supabase", "tidyverse")
    "next.js node.js vue.js nuxt flutter firebase firestore supabase vercel netlify heroku "
    "hetzner digitalocean wordpress woocommerce shopify godot sqlc pnpm turborepo tailwind "
    "prometheus grafana sidekiq hotwire tidyverse quickbooks"
)


DATABASES = word_set(
    "postgres postgresql mysql mariadb sqlite mongodb redis cassandra clickhouse duckdb "
    "timescaledb "
    "elasticsearch opensearch dynamodb bigquery snowflake oracle couchdb neo4j influxdb firestore "
    "supabase "
    "cockroachdb s3"
)


#: Relatives and colleagues (people, whose names are given names), as opposed to pets.
PEOPLE = frozenset(
    "wife husband partner girlfriend boyfriend fiancé fiancée fiance son daughter brother sister "
    "mother father mom "
    "mum dad grandmother grandfather grandma grandpa uncle aunt cousin niece nephew boss "
    "manager".split()
)


PETS = (
    "dog|cat|puppy|kitten|parrot|hamster|rabbit|horse|turtle|tortoise|snake|lizard|guinea pig|"
    "ferret|bird|fish"
)


PETS_PLURAL = (
    "dogs|cats|puppies|kittens|parrots|hamsters|rabbits|horses|turtles|tortoises|snakes|lizards|"
    "guinea pigs|"
    "ferrets|birds|fish|pups|kitties"
)


INSTRUMENTS = (
    "guitar|bass|piano|keyboard|violin|viola|cello|double bass|clarinet|flute|oboe|bassoon|"
    "saxophone|sax|"
    "trumpet|trombone|tuba|french horn|drums|ukulele|harp|banjo|mandolin|harmonica|accordion|organ"
)


SPORTS = (
    "tennis|basketball|football|soccer|volleyball|baseball|hockey|golf|rugby|cricket|badminton|"
    "squash|"
    "table tennis|ping pong|chess|padel|pickleball|handball|water polo|softball"
)


#: What a topic can be liked in: "I love books about personal development".
MEDIA = (
    "books|novels|stories|movies|films|documentaries|podcasts|shows|series|comics|articles|songs"
)


#: Time words that point at one moment: never the start of a lasting preference ("tonight's game").
DEICTIC = word_set(
    "today today's tomorrow tomorrow's tonight tonight's yesterday yesterday's now then"
)


CONNECTORS = word_set(
    "of de da do del della di la le van von der den am upon on sur and & y en the"
)


TOOL_TAIL = word_set("for with in on at as to and via over instead from than rather")


NOT_PRESENT = frozenset(
    "am is are was were be been have has had do does did don't can could will would shall should "
    "must might may "
    "ought used to a an the".split()
)


PROJECT_NOUN = r"(?:app|service|backend|frontend|project|system|api|website|site|pipeline|platform)"


#: Quantifiers and qualifiers that make a like one occasion's ("playing different songs", "a few
#: recipes").
QUALIFIERS = word_set(
    "different some certain few many several various other another every each any all"
)


GENERIC_THE = word_set(
    "ocean oceans sea beach mountains outdoors countryside woods forest snow rain sun desert "
    "wilderness"
)

#: How often a team or a person does something ("every other Monday", "twice a week", "daily").
CADENCE = (
    r"(?:every|each) (?:other |second |single )?(?:day|weekday|week|month|quarter|year|morning|"
    r"afternoon|evening|"
    r"sprint|release|\w+day|two|three|four|six|\d+)|(?:once|twice|three times|four times|two times|"
    r"\d+ times) a "
    r"(?:day|week|month|quarter|year|sprint)|weekly|daily|monthly|biweekly|bi-weekly|fortnightly|"
    r"quarterly|"
    r"(?:on )?(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)"
)


#: Music genres said as one word ("Fela Kuti and afrobeat", "jazz and highlife"): each stands alone
#: as a liked thing in a coordination (``coordination``), though no lexicon files them as nouns.
MUSIC_GENRES = word_set(
    "afrobeat afrobeats amapiano highlife reggaeton k-pop kpop j-pop jpop cumbia bachata salsa "
    "fado jazz blues metal punk techno house hip-hop hiphop rap grime drill country folk opera "
    "soul funk disco reggae ska classical ambient edm dubstep trance gospel grunge emo synthwave "
    "lo-fi bluegrass flamenco tango samba bossa"
)

#: Kinds said in slang, written as what they are ("a small mutt called Bobik" → "Has a mixed-breed
#: dog named Bobik").
KIND_OF = {
    "lab": "labrador",
    "mutt": "mixed-breed dog",
    "mongrel": "mixed-breed dog",
    "moggy": "cat",
    "moggie": "cat",
}
