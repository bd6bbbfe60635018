"""Reverie as the memory of the agent frameworks people build on: one small adapter per framework,
each over ``reverie.open(...)``'s ``Memory`` (never Reverie's private modules), each an install
extra.

- ``reverie.integrations.anthropic``: ``ReverieMemoryTool``, Anthropic's memory tool (``/memories``)
  over the workspace's Markdown memory files (``pip install "reverie[anthropic]"``).
- ``reverie.integrations.openai_agents``: ``ReverieSession``, an OpenAI Agents SDK ``Session`` kept
  in ``sessions/<key>.jsonl`` (``reverie[openai-agents]``).
- ``reverie.integrations.pydantic_ai``: ``ReverieCapability``, a Pydantic AI capability: memory in
  the instructions, each run's turns recorded, ``search_memory`` and ``remember`` tools
  (``reverie[pydantic-ai]``).
- ``reverie.integrations.google_adk``: ``ReverieMemoryService``, a Google ADK ``BaseMemoryService``
  (``reverie[google-adk]``).
- ``reverie.integrations.agent_framework``: ``ReverieContextProvider``, a Microsoft Agent Framework
  context provider: memory in the instructions, the two tools, each run recorded
  (``reverie[agent-framework]``).

Nothing here is imported by ``import reverie`` or the CLI's fast paths: each module imports its
framework, so it is loaded only by a program that asks for it. docs/integrations.md says how each
maps.
"""
