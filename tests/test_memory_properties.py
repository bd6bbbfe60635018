"""The proof of issue 25: a hypothesis state machine over memory files and their history.

Steps: a fact learned by Dream (some about another subject that look alike, some repeating a label,
some correcting a single-valued attribute), a person's hand edit, a pin, an approved SOUL.md change,
a batch set aside and requeued, a restore with replay of the last Dream run, a damaged archive file
(invalid UTF-8, a lost header, a directory in its place). After every step:

- every line that left a prompt file is in the archive with a reason, and ``reverie why`` finds it
  there;
- no fact that nothing retired is missing: each line ever in a prompt file is in one or in the
  archive, except what a restore took back (the person's own evidence);
- a fact about another subject, or a second value of a multi-valued label, never leaves but under
  budget pressure.

Dream runs on the scripted model (its edits append the batch's lines), so what is checked is Dream's
own lifecycle and the writers' protocol, whatever a model would say. The example count is kept
small: the whole machine runs in well under a minute.
"""

from __future__ import annotations

import os
import tempfile
from asyncio import run
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from support.dream_helpers import MEM, edit, make_env

from reverie.dream.archive import archive_path, parse_entry
from reverie.dream.pins import pin
from reverie.dream.proposal import stage_soul_change
from reverie.errors import DreamError
from reverie.operations.approve import approve
from reverie.operations.restore import restore_memory
from reverie.storage.workspace import SOUL, USER
from reverie.text.memline import line_key

PROMPT_FILES = (USER, MEM)
REASONS = ("archived", "expired", "superseded", "merged", "removed")
LEAK = "- key sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6\n"

_LOOKALIKE = [
    ("Is vegetarian", "Wife is vegetarian"),
    ("Speaks German", "Manager speaks German"),
    ("Plays chess on Sundays", "Son plays chess on Sundays"),
    ("Is allergic to nuts", "Dog is allergic to nuts"),
]
_LABELS = ("Sister", "Child", "Bug", "Lesson", "Repository", "Language", "Pet")
_NAMES = ("Ana", "Maria", "Tiago", "Rui", "Lea", "Tom", "Bolota", "kestrel", "osprey", "heron")
_HOMES = ("Lisbon", "Porto", "Braga", "Faro", "Evora")
_TOPICS = (
    "kafka",
    "postgres",
    "rust",
    "redis",
    "nginx",
    "terraform",
    "grafana",
    "sqlite",
    "celery",
    "dulwich",
)


def _keys(text: str) -> set[str]:
    return {line_key(ln) for ln in text.splitlines() if ln.lstrip().startswith("- ")}


class MemoryMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self._tmp = tempfile.TemporaryDirectory(prefix="reverie-props-")
        self.env = make_env(
            Path(self._tmp.name) / "ws",
            max_attempts=1,
            max_batch_size=100,
            user_max_chars=700,
            memory_max_chars=900,
        )
        self.env.ws.write(USER, "# User\n\n- Name: Ana Ferreira\n")
        self.env.ws.write(MEM, "# Memory\n\n- Uses git for everything\n")
        self.env.git.commit("seed", kind="manual")
        self.lines_of: dict[
            int, list[tuple[str, str]]
        ] = {}  # history cursor -> (file, line) Dream learns from it
        self.seen: set[str] = set()  # every key that has been in a prompt file
        self.taken_back: set[str] = set()  # keys a restore removed (the person's evidence)
        self.guarded: set[str] = (
            set()
        )  # look-alike and repeated-label lines: leave only under budget pressure
        self.counter = 0
        self._observe()

    def teardown(self) -> None:
        self._tmp.cleanup()

    # -- helpers -----------------------------------------------------------------------------------
    def _prompt(self) -> set[str]:
        return set().union(*(_keys(self.env.read(rel)) for rel in PROMPT_FILES))

    def _archive(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for rel in PROMPT_FILES:
            path = self.env.ws.root / archive_path(rel)
            if path.is_file():
                text = path.read_bytes().decode("utf-8", "replace")
                out.update(
                    {line_key(e[0]): e[1] for ln in text.splitlines() if (e := parse_entry(ln))}
                )
        return out

    def _observe(self) -> None:
        self.seen |= self._prompt()

    def _learn(self, lines: list[tuple[str, str]], *, fail: bool = False) -> str:
        """One history entry whose batch Dream learns (``fail``: its edit leaks a credential: set
        aside)."""
        self.counter += 1
        self.env.add("- [durable] " + "; ".join(text for _rel, text in lines))
        cursor = self.env.store.last_cursor()
        self.lines_of[cursor] = lines
        if fail:
            self.env.fake.enqueue("[MEMORY] a fact", [edit(MEM, "", LEAK)], "done")
        else:
            self._enqueue(lines)
        result = run(self.env.dream().run())
        assert result.status in ("ok", "no-change", "dead-lettered"), result.reason
        return result.status

    def _enqueue(self, lines: list[tuple[str, str]]) -> None:
        calls = [
            edit(rel, "", f"- {text}\n", call_id=f"e{i}") for i, (rel, text) in enumerate(lines)
        ]
        self.env.fake.enqueue("[MEMORY] facts", calls, "done")

    # -- rules -------------------------------------------------------------------------------------
    @rule(topic=st.sampled_from(_TOPICS))
    def append_fact(self, topic):
        self._learn([(MEM, f"Uses {topic} for job number {self.counter:03d}")])
        self._observe()

    @rule(pair=st.sampled_from(_LOOKALIKE))
    def lookalike_facts(self, pair):
        mine, theirs = pair
        self._learn([(USER, mine), (USER, theirs)])
        self.guarded |= {line_key(mine), line_key(theirs)}
        self._observe()

    @rule(
        label=st.sampled_from(_LABELS),
        names=st.lists(st.sampled_from(_NAMES), min_size=2, max_size=2, unique=True),
    )
    def repeated_label(self, label, names):
        lines = [(USER, f"{label}: {name}") for name in names]
        self._learn(lines)
        self.guarded |= {line_key(text) for _rel, text in lines}
        self._observe()

    @rule(home=st.sampled_from(_HOMES))
    def correction(self, home):
        self._learn([(USER, f"Lives in {home}")])  # a newer home supersedes the older one, archived
        self._observe()

    @rule(topic=st.sampled_from(_TOPICS))
    def hand_edit(self, topic):
        self.counter += 1
        text = self.env.read(MEM).rstrip("\n") + f"\n- Hand note {self.counter:03d} about {topic}\n"
        self.env.ws.write(MEM, text)  # committed as the person's own by the next write

    @precondition(lambda self: self._prompt() - {"name: ana ferreira"})
    @rule(data=st.data())
    def pin_a_line(self, data):
        candidates = sorted(
            ln.strip()[2:]
            for rel in PROMPT_FILES
            for ln in self.env.read(rel).splitlines()
            if ln.startswith("- ") and "[pinned]" not in ln
        )
        if not candidates:
            return
        text = data.draw(st.sampled_from(candidates))
        try:
            pin(self.env.ws, self.env.git, text)
        except DreamError as exc:  # several lines contain it: a clear refusal, nothing written
            assert "lines contain" in str(exc)
        self._observe()

    @rule()
    def approve_soul_change(self):
        self.counter += 1
        base = self.env.read(SOUL)
        stage_soul_change(
            self.env.ws,
            base=base,
            proposed=base.rstrip("\n") + f"\n- Rule {self.counter:03d}\n",
            meta={"first": None, "last": None, "model": "test", "reason": "test", "head": None},
        )
        approve(self.env.store, self.env.git)

    @rule(topic=st.sampled_from(_TOPICS))
    def set_aside_then_requeue(self, topic):
        lines = [(MEM, f"Uses {topic} for requeued job {self.counter:03d}")]
        assert self._learn(lines, fail=True) == "dead-lettered"
        dream = self.env.dream()
        assert [d.first for d in dream.requeue()] == [self.env.store.last_cursor()]
        self._enqueue(lines)
        assert run(dream.run()).status == "ok"
        self._observe()

    @precondition(lambda self: bool(self.lines_of))
    @rule()
    def restore_with_replay(self):
        last = next(
            (
                c
                for c in self.env.git.log(limit=50)
                if c.kind == "dream" and "Reverie-Batch" in c.trailers
            ),
            None,
        )
        if last is None:
            return
        before = self._prompt()
        result = restore_memory(self.env.store, self.env.git, last.sha, replay=True)
        self.taken_back |= before - self._prompt()
        cursor = (
            result.cursor_rewound_to
            if result.cursor_rewound_to is not None
            else self.env.store.dream_cursor()
        )
        replayed = [line for c in sorted(self.lines_of) if c > cursor for line in self.lines_of[c]]
        if replayed:
            self._enqueue(replayed)
            assert run(self.env.dream().run()).status in ("ok", "no-change")
            assert (
                self.env.store.dream_cursor() == self.env.store.last_cursor()
            )  # every batch after it ran again
        self.taken_back -= self._prompt()  # what the replay re-learned is back
        self._observe()

    @rule(
        how=st.sampled_from(("utf8", "header", "directory")), source=st.sampled_from(PROMPT_FILES)
    )
    def damage_an_archive_file(self, how, source):
        path = self.env.ws.root / archive_path(source)
        if not path.is_file():
            return
        if how == "utf8":
            path.write_bytes(path.read_bytes() + b"\n- caf\xe9 noted by hand\n")
        elif how == "header":
            path.write_text(path.read_text().split("\n", 2)[-1])
        else:
            text = path.read_bytes()
            path.unlink()
            path.mkdir()
            (path / "kept.txt").write_bytes(text)  # whatever happens, it must not be lost
        run(self.env.dream().run())  # nothing pending: the lifecycle alone repairs and goes on
        self._observe()

    # -- the invariants ----------------------------------------------------------------------------
    @invariant()
    def every_line_that_left_is_archived_with_a_reason_and_why_finds_it(self):
        prompt, archive = self._prompt(), self._archive()
        left = self.seen - prompt - self.taken_back
        missing = sorted(k for k in left if k not in archive)
        assert missing == [], f"left a prompt file without an archive entry: {missing}"
        assert all(archive[k].startswith(REASONS) for k in left), {k: archive[k] for k in left}
        for key in sorted(left)[
            :2
        ]:  # `why` reads the committed archive (a blame each: two per step)
            found = [
                p
                for p in self.env.git.why(_text_of(self.env, key))
                if p.path.startswith("memory/archive/")
            ]
            assert found, f"why does not find {key!r} in the archive"

    @invariant()
    def a_fact_about_another_subject_or_a_repeated_label_leaves_only_under_budget_pressure(self):
        archive = self._archive()
        for key in self.guarded - self._prompt() - self.taken_back:
            note = archive.get(key, "")
            into = (
                line_key(note.split(' into "', 1)[1])
                if note.startswith("merged") and ' into "' in note
                else None
            )
            same_fact = into is not None and (
                into == key or into.startswith(key + " ")
            )  # itself, said again
            assert note.startswith("archived") or same_fact, (key, note)

    @invariant()
    def the_files_on_disk_are_committed_or_a_persons_pending_edit(self):
        assert not list(
            (self.env.ws.root / "memory").glob("archive/*.md/")
        )  # no directory left in place


def _text_of(env, key: str) -> str:
    """The archive entry's line text for ``key`` (``why`` searches the raw text)."""
    for rel in PROMPT_FILES:
        path = env.ws.root / archive_path(rel)
        if path.is_file():
            for ln in path.read_bytes().decode("utf-8", "replace").splitlines():
                entry = parse_entry(ln)
                if entry and line_key(entry[0]) == key:
                    return entry[0]
    raise AssertionError(f"no archive entry for {key!r}")


#: Modest by default (well under a minute); REVERIE_PROPERTY_EXAMPLES / _STEPS search deeper by
#: hand.
EXAMPLES = int(os.environ.get("REVERIE_PROPERTY_EXAMPLES", "10"))
STEPS = int(os.environ.get("REVERIE_PROPERTY_STEPS", "15"))
MemoryMachine.TestCase.settings = settings(
    max_examples=EXAMPLES,
    stateful_step_count=STEPS,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
TestMemoryMachine = MemoryMachine.TestCase
