"""A dream commit's ``Reverie-Last-Entry`` names the entry at its cursor by a digest of its content.
A crash between that commit and the Dream cursor's write leaves ``.dream_cursor`` behind the commit,
and Dream's next start-up moves it on only when the log still holds that exact entry. A rewrite of
the log that Reverie itself makes between the two (``reverie purge`` redacting a string the last
entry held: the leak a person purges is most often in what was just said) changed that entry's
digest, so the commit was taken for one made on another copy of the log and its batch was dreamed a
second time; so did ``reverie import`` of a bundle of that workspace, whose credential purge redacts
a key another tool (nanobot's own append) wrote to the log. What rewrites the log's entries now
first settles the Dream cursor."""

from __future__ import annotations

import pytest

import reverie
from reverie.dream import transaction
from reverie.storage.history import HistoryLog

_KEY = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"  # a GitHub token, as the secret scanner sees it


class _Killed(Exception):
    pass


def _crash_after_commit(monkeypatch, ws):
    """A run that commits and dies before it writes the Dream cursor (the ``committed`` fault)."""

    def fault(point: str) -> None:
        if point == "committed":
            raise _Killed(point)

    with reverie.open(ws) as memory:
        memory.remember("User: I live in Lisbon.")
        # written as nanobot appends: no redaction on the way in
        log = HistoryLog(ws / "memory" / "history.jsonl", ws / "memory" / ".cursor")
        log.append(f"User: my dog is called Rex, my key is {_KEY}.")
        monkeypatch.setattr(transaction, "fault", fault)
        with pytest.raises(_Killed):
            memory.dream()
        monkeypatch.undo()
        assert memory.runtime.store.dream_cursor() == 0


def test_a_purge_after_a_crash_does_not_dream_the_batch_again(tmp_path, monkeypatch):
    ws = tmp_path / "ws"
    _crash_after_commit(monkeypatch, ws)
    with reverie.open(ws) as memory:
        memory.purge(_KEY)
        assert "[REDACTED:purged]" in memory.history()[-1].content
        memory.remember("User: I work as a nurse.")
        result = memory.dream()
        assert (result.first, result.last) == (3, 3)
        assert memory.read("USER.md").count("Lisbon") == 1


def test_an_import_of_the_workspace_does_not_dream_the_batch_again(tmp_path, monkeypatch):
    ws = tmp_path / "ws"
    _crash_after_commit(monkeypatch, ws)
    reverie.export_bundle(ws, tmp_path / "ws.tar.gz")
    result = reverie.import_from(tmp_path / "ws.tar.gz", workspace=tmp_path / "copy")
    assert result.redacted == 1
    with reverie.open(tmp_path / "copy") as memory:
        assert _KEY not in memory.history()[-1].content
        memory.remember("User: I work as a nurse.")
        dreamed = memory.dream()
        assert (dreamed.first, dreamed.last) == (3, 3)
