"""Memory hygiene: credential redaction, SOUL.md change approval, purge of leaked text.

Modules: ``secrets`` (scan/redact), ``untrusted`` (SOUL.md rules laundered from untrusted text),
``scrub`` (what a purge replaces in which format: text only, never structure). The verbs built on
them live in ``reverie.operations``: ``approve`` (staged SOUL.md changes, approve/reject) and
``purge`` (remove a string from history, sessions and, through ``reverie.gitstore.purge``, every
commit).
"""
