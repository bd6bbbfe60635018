"""``reverie.dream.proposal`` by its first name, kept for code written against it.

The glossary (docs/glossary.md) gives "pending" to history Dream has not read yet; a SOUL.md change
waiting for a person is a *proposal*: ``SoulProposal``, ``load_proposal``, ``proposal_path``.
"""

from __future__ import annotations

from .proposal import FILE_NAME, SoulProposal, load_proposal, proposal_path, stage_soul_change

PendingChange = SoulProposal
load_pending = load_proposal
pending_path = proposal_path

__all__ = ["PendingChange", "pending_path", "stage_soul_change", "load_pending", "FILE_NAME"]
