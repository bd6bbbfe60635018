"""litellm costs 2–3 s to import: the library and CLI must not load it until a model is called."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def _modules_after(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(ROOT), timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_importing_reverie_does_not_import_litellm() -> None:
    code = (
        "import sys, reverie, reverie.store, reverie.cli, reverie.llm, reverie.llm.client, reverie.llm.scripted,"
        " reverie.llm.offline, reverie.llm.prompts, reverie.llm.tokens\n"
        "from reverie.config import Config\n"
        "from reverie.llm import ModelClient, load_prompt\n"
        "c = ModelClient(Config())\n"
        "c.count_tokens([{'role': 'user', 'content': 'hello'}], model='openai/gpt-4o-mini')\n"
        "load_prompt('archive')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('litellm', 'openai', 'tiktoken')))"
    )
    assert _modules_after(code).strip() == "[]"


def test_calling_a_model_imports_litellm_with_offline_switches() -> None:
    code = (
        "import asyncio, os, sys\n"
        "os.environ['LITELLM_MODE'] = 'DEV'\n"
        "from reverie.config import Config\n"
        "from reverie.llm import ModelClient\n"
        "r = asyncio.run(ModelClient(Config()).complete([{'role': 'user', 'content': 'hi'}]))\n"
        "print('litellm' in sys.modules, os.environ['LITELLM_MODE'], os.environ['LITELLM_LOCAL_MODEL_COST_MAP'],"
        " os.environ['HF_HUB_OFFLINE'], r.model)"
    )
    assert _modules_after(code).split() == ["True", "PRODUCTION", "True", "1", "reverie/offline"]
