"""What a Dream run keeps of the model replies it did not take as they came, and the reasons it
records for a batch consumed without a commit.

Every reply of a run that was refused (an unusable analysis, an edit turn with a refused tool
call), repaired or taken leniently (findings beside other lines, a ``[SKIP]`` over facts the files
do not hold, an edit step that made no edit) is kept in ``reverie.llm.replylog`` about the run's
batch, and a run's reason names it (``reverie why --reply ID``). A batch moves past the cursor
without a commit only with a recorded reason: ``[SKIP]`` ("nothing to keep"), or findings the edit
step did not turn into a change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..llm import protocol
from ..llm.output import content_words
from ..llm.replylog import Verdict, keep_reply
from ..llm.types import ModelResponse
from ..storage.history import HistoryEntry
from .agent import EditOutcome
from .analyze import Analysis
from .edit_tools import MemoryTools
from .result import Finding

__all__ = ["Evidence", "kept_note", "new_facts", "unheld_findings"]


def kept_note(reply_id: str | None) -> str:
    """What a run's reason says of a kept reply."""
    return f" (reply kept: {reply_id}; `reverie why --reply {reply_id}`)" if reply_id else ""


def new_facts(entries: Sequence[HistoryEntry], files: Mapping[str, str]) -> list[str]:
    """The batch's permanent, durable and correction fact lines with a content word none of the
    memory files holds: what a ``[SKIP]`` leaves in history alone."""
    held = content_words("\n".join(files.values()))
    out = []
    for entry in entries:
        for line in entry.content.splitlines():
            parsed = protocol.parse_fact_line(line)
            if parsed and parsed[0] in ("permanent", "durable", "correction"):
                if content_words(parsed[1]) - held:
                    out.append(parsed[1])
    return out


def unheld_findings(findings: Sequence[Finding], files: Mapping[str, str]) -> list[str]:
    """The findings with a content word none of the memory files holds: what an edit step that
    made no edit left unwritten (a finding the files already say is not one)."""
    held = content_words("\n".join(files.values()))
    return [f.text for f in findings if content_words(f.text) - held]


def _verdict(value: str) -> Verdict:
    return "refused" if value == "refused" else "lenient" if value == "lenient" else "repaired"


@dataclass
class Evidence:
    """The kept replies of one run over one batch (``first``–``last``); nothing is kept in a dry
    run."""

    state_dir: Path
    model: str
    first: int
    last: int
    dry_run: bool = False

    @property
    def ref(self) -> dict[str, Any]:
        return {"batch": [self.first, self.last]}

    def keep(
        self,
        task: str,
        verdict: Verdict,
        reason: str,
        messages: Sequence[Mapping[str, Any]],
        response: ModelResponse | None,
    ) -> str | None:
        """Keep one reply; returns its id (None in a dry run, or when it could not be written)."""
        if self.dry_run:
            return None
        return keep_reply(
            self.state_dir,
            task=task,
            model=self.model,
            verdict=verdict,
            reason=reason,
            messages=messages,
            response=response,
            ref=self.ref,
        )

    def refused_edit(
        self, response: ModelResponse, asked: Sequence[dict[str, Any]], why: str
    ) -> None:
        """An edit turn with a refused tool call (the edit loop's ``on_refused``)."""
        self.keep(protocol.TASK_DREAM_EDIT, "refused", why, asked, response)

    def analysis(
        self, analysis: Analysis, entries: Sequence[HistoryEntry], files: Mapping[str, str]
    ) -> str | None:
        """Keep an analysis not trusted as it came; for a whole-reply ``[SKIP]``, the reason the
        batch moves on unchanged (its reply kept when the batch held facts the files do not)."""
        if not analysis.skipped:
            if analysis.verdict != "trusted":
                self.keep(
                    protocol.TASK_DREAM_ANALYZE,
                    _verdict(analysis.verdict),
                    analysis.note,
                    analysis.messages,
                    analysis.response,
                )
            return None
        new = new_facts(entries, files)
        if not new:
            return "nothing to keep: the analysis answered [SKIP]"
        note = (
            f"[SKIP] over {len(new)} fact line(s) the files do not hold (first: {new[0][:60]!r}); "
            "the entries stay in history"
        )
        kept = self.keep(
            protocol.TASK_DREAM_ANALYZE, "lenient", note, analysis.messages, analysis.response
        )
        return (
            f"nothing to keep: the analysis answered [SKIP] over {len(new)} new fact line(s)"
            f"{kept_note(kept)}"
        )

    def unchanged(
        self, findings: Sequence[Finding], tools: MemoryTools, edited: EditOutcome | None
    ) -> str:
        """Why a batch with findings left the files as they were; the edit step's last reply is
        kept when it made no edit at all."""
        if not findings:
            return "nothing to keep"
        if tools.edits:
            return f"{len(findings)} finding(s); the edits left the files as they were"
        kept = None
        if edited is not None and edited.last is not None:
            kept = self.keep(
                protocol.TASK_DREAM_EDIT,
                "lenient",
                f"{len(findings)} finding(s) and no edit made",
                edited.messages,
                edited.last,
            )
        return f"{len(findings)} finding(s); the edit step made no edit{kept_note(kept)}"
