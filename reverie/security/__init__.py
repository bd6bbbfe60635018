"""Memory hygiene: credential redaction, SOUL.md change approval, purge of leaked text.

Modules: ``secrets`` (scan/redact), ``pending`` (staged SOUL.md changes, approve/reject), ``purge``
(remove a string from history, sessions and, through ``reverie.gitstore.purge``, every commit), ``scrub`` (what
a purge replaces in which format: text only, never structure), ``network`` (the loopback rule ``reverie mcp
--http`` and ``reverie ui`` share).
"""
