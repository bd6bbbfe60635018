"""nanobot's names, kept for agents written against nanobot: ``MemoryStore`` (``memory_store``) with
nanobot's MemoryStore calls (``nanobot_api``) over Reverie's ``WorkspaceStore``. (GitStore's nanobot
names stay in ``reverie.gitstore``, which mixes them into its one class.) New code uses
``reverie.open``."""
