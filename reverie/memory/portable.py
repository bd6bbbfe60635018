"""A ``Memory`` sent to a worker process (``reverie.memory.offload``'s process mode): what it is
rebuilt from there (its class, workspace, config and scope, pickled), and whether its models
resolve the same way in a fresh interpreter."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from .runtime import Identity, Runtime

if TYPE_CHECKING:
    from ..storage.config import Config

__all__ = ["rebuilder", "models_portable"]

M = TypeVar("M")


def rebuilder(cls: type, rt: Runtime) -> bytes | None:
    """A ``cls`` (a ``Memory`` class) over ``rt`` as ``_rebuild``'s pickled call, or None when it
    cannot be sent (see ``Memory._portable``)."""
    import functools
    import pickle

    if rt.activity is not None or cls.__module__ == "__main__" or "<locals>" in cls.__qualname__:
        return None
    try:
        factory = functools.partial(
            _rebuild, cls, rt.workspace.root, rt._config, rt.scope, rt.identity
        )
        data = pickle.dumps(factory, protocol=5)
        pickle.loads(data)
    except Exception:  # noqa: BLE001 - whatever does not pickle stays in this process
        return None
    return data


def _rebuild(
    cls: Callable[[Runtime], M],
    root: Path,
    config: Config | None,
    scope: Any,
    identity: Identity | None = None,
) -> M:
    """A worker process's ``Memory`` of the same workspace (the one this process opened, by its
    ``Identity``: one replaced since is refused there too), config and scope."""
    return cls(Runtime(root, config=config, scope=scope, identity=identity))


def models_portable(config: Config) -> bool:
    """True when every model ``config`` names is one a fresh interpreter resolves the same way: the
    offline engine, or a remote provider (not one registered in this process, nor the scripted fake
    whose queue lives here)."""
    from ..llm import registry

    for model in {config.model, config.dream_model}:
        if registry.resolve(model) is not None and registry.prefix_of(model) != "reverie":
            return False
    return True
