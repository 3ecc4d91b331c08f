"""Counting an adapter's loader in the integration tests: whether heal read a history into models
or its plain verdict answered without."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest


def counted_loads(monkeypatch: pytest.MonkeyPatch, module: ModuleType, name: str) -> list[Any]:
    """The calls of ``module.name`` (an adapter's loader class) from now on, each as its
    positional arguments; the loader still runs."""
    calls: list[Any] = []
    real = getattr(module, name)

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return calls
