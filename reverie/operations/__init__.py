"""Actions that cross packages: purge (history, sessions, memory files and git), approving or
rejecting a staged SOUL.md change, and restore/revert with ``--replay`` (the memory repo and Dream's
cursor together).

Above the memory pipeline (consolidator, dream, recall) and below the front-ends (commands, cli,
mcp), which call these functions and only render their results.
"""
