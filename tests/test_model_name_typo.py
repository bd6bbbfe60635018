"""A mistyped offline model name ("reverie/offlin") was answered by the offline engine all the same:
every ``reverie/<anything>`` reached it, and ``status`` showed the typo as the model in use. A
name the registry does not know is now an unavailable model, as a provider's unknown model is:
one line naming the right name, the batch left pending (no attempt counted), dreamed once the
name is right."""

from __future__ import annotations

import pytest

import reverie


@pytest.mark.parametrize("name", ["reverie/offlin", "reverie/offline-v2", "reverie/"])
def test_a_mistyped_offline_model_is_unavailable_and_keeps_the_batch(
    tmp_path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setenv("REVERIE_MODEL", name)
    with reverie.open(tmp_path / "ws") as m:
        m.remember("I live in Porto.")
        run = m.dream()
        assert run.status == "failed" and run.findings == ()
        assert "no such model; the offline engine is reverie/offline" in (run.reason or "")
        assert m.pending() == 1
        assert "Porto" not in m.read("USER.md")
    monkeypatch.setenv("REVERIE_MODEL", "Reverie/Offline")  # the name is not case-sensitive
    with reverie.open(tmp_path / "ws") as m:
        assert m.dream().status == "ok"
        assert "Lives in Porto" in m.read("USER.md") and m.pending() == 0
