"""litellm costs 2–3 s to import: the library and CLI must not load it until a model is called."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def _modules_after(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=str(ROOT), timeout=120
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_importing_reverie_does_not_import_litellm() -> None:
    code = (
        "import sys, reverie, reverie.storage.store, reverie.cli, reverie.llm, reverie.llm.client,"
        " reverie.llm.scripted, reverie.llm.offline, reverie.llm.prompts, reverie.llm.tokens\nfrom"
        " reverie.storage.config import Config\nfrom reverie.llm import ModelClient, load_prompt\nc"
        " = ModelClient(Config())\nc.count_tokens([{'role': 'user', 'content': 'hello'}],"
        " model='openai/gpt-4o-mini')\nload_prompt('archive')\nprint(sorted(m for m in sys.modules"
        " if m.split('.')[0] in ('litellm', 'openai', 'tiktoken')))"
    )
    assert _modules_after(code).strip() == "[]"


def test_in_process_models_are_called_without_litellm() -> None:
    code = (
        "import asyncio, sys\n"
        "from reverie.storage.config import Config\n"
        "from reverie.llm import ModelClient, ScriptedModel\n"
        "c = ModelClient(Config())\n"
        "r = asyncio.run(c.complete([{'role': 'user', 'content': 'hi'}]))\n"
        "ScriptedModel.register('x').enqueue('scripted reply')\n"
        "s = asyncio.run(c.complete([{'role': 'user', 'content': 'hi'}], model='scripted/x'))\n"
        "print('litellm' in sys.modules, r.model, r.usage.cost, s.content.replace(' ', '_'))"
    )
    assert _modules_after(code).split() == ["False", "reverie/offline", "0.0", "scripted_reply"]


def test_a_remote_call_imports_litellm_without_overwriting_the_hosts_environment() -> None:
    """litellm's switches are set only where the host left them unset (issue 15):
    LITELLM_MODE=DEV stays."""
    code = (
        "import asyncio, os, sys\nos.environ['LITELLM_MODE'] ="
        " 'DEV'\nos.environ.pop('HF_HUB_OFFLINE', None)\nfrom reverie.storage.config import"
        " Config\nfrom reverie.errors import ModelUnavailableError\nfrom reverie.llm import"
        " ModelClient\ncfg = Config.model_validate({'providers': {'openai': {'apiBase':"
        " 'http://127.0.0.1:9/v1', 'apiKey': 'k'}}})\ntry:\n   "
        " asyncio.run(ModelClient(cfg).complete([{'role': 'user', 'content': 'hi'}],"
        " model='openai/x'))\nexcept ModelUnavailableError as e:\n    kind ="
        " e.kind\nprint('litellm' in sys.modules, os.environ['LITELLM_MODE'],"
        " os.environ['LITELLM_LOCAL_MODEL_COST_MAP'], os.environ['HF_HUB_OFFLINE'], kind)"
    )
    assert _modules_after(code).split() == ["True", "DEV", "True", "1", "unreachable"]


def test_the_offline_demo_and_a_dream_run_import_no_litellm(tmp_path) -> None:
    """Issue 15: the offline engine is called in-process; `reverie demo` (which consolidates and
    dreams) and a Dream run on it never load litellm. Issue 36: nor does the demo load dulwich's
    merge or the legacy-history migration, which it never runs, nor, rendered, pygments' Markdown
    lexer (seven more lexers). (The search stack is loaded: a Dream keeps the search index in step
    after its commit, so that queries never write it.)"""
    code = (
        "import sys\nfrom reverie.cli import main\nrc = main(['demo', '--json',"
        f" {str(tmp_path / 'demo')!r}])\nimport contextlib, io\nwith"
        " contextlib.redirect_stdout(io.StringIO()):\n    assert main(['demo',"
        f" {str(tmp_path / 'rendered')!r}]) == 0\nprint(sorted(m for m in sys.modules if m in"
        " ('dulwich.merge', 'reverie.storage.migrate', 'pygments.lexers.markup')),"
        " file=sys.stderr)\n"
        "from reverie.memory.runtime import Runtime\nimport"
        f" asyncio\nrt = Runtime({str(tmp_path / 'demo')!r})\nrt.store.append_history('- [durable]"
        " Lives in Porto', 'cli:t')\nr = asyncio.run(rt.dream.run())\nprint(rc, r.status, sorted(m"
        " for m in sys.modules if m.split('.')[0] in ('litellm', 'openai', 'tiktoken')),"
        " file=sys.stderr)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=str(ROOT), timeout=300
    )
    assert out.returncode == 0, out.stderr
    searched, last = out.stderr.strip().splitlines()[-2:]
    rc, status, modules = last.split(" ", 2)
    assert rc == "0" and status in ("ok", "no-change") and modules == "[]", out.stderr
    assert searched == "[]", out.stderr
