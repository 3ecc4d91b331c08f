"""heal_row pauses the cyclic garbage collector for long rows, and only for them.

Reading a long row builds its objects all at once (the decoded JSON, then the models), and
every full collection that triggers on the way rescans them: benchmarks measure what that costs
(see ``PAUSE_GC_FROM_BYTES``). These tests check the behaviour, not the speed.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import heal.migrate as migrate_module
from heal._formats import healer
from heal.migrate import PAUSE_GC_FROM_BYTES, heal_row


def _history(messages: int) -> list[dict[str, Any]]:
    history: list[dict[str, Any]] = []
    for n in range(messages // 2):
        history.append({"role": "user", "content": f"question {n}"})
        history.append({"role": "assistant", "content": f"answer {n}"})
    history.append({"role": "assistant", "content": []})  # one repair: an empty message
    return history


LONG = json.dumps(_history(PAUSE_GC_FROM_BYTES // 40))
SHORT = json.dumps(_history(10))


@pytest.fixture
def collector_seen(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Whether the collector was enabled while each row was healed."""
    seen: list[bool] = []
    real = healer  # what heal.migrate imports and calls

    def spying(fmt: str) -> Callable[..., Any]:
        heal = real(fmt)

        def wrapped(*args: Any, **kwargs: Any) -> Any:
            seen.append(gc.isenabled())
            return heal(*args, **kwargs)

        return wrapped

    monkeypatch.setattr(migrate_module, "healer", spying)
    enabled = gc.isenabled()
    yield seen
    if enabled:
        gc.enable()


def test_a_long_row_is_healed_with_the_collector_paused(collector_seen: list[bool]) -> None:
    assert len(LONG) >= PAUSE_GC_FROM_BYTES
    outcome = heal_row(1, LONG)
    assert collector_seen == [False]
    assert gc.isenabled()
    assert outcome.error is None and outcome.healed is not None
    assert [r["rule"] for r in outcome.repairs] == ["empty-message"]
    assert json.loads(outcome.healed) == json.loads(LONG)[:-1]
    # The same row, as bytes, is long too.
    heal_row(2, LONG.encode())
    assert collector_seen == [False, False] and gc.isenabled()


def test_a_short_row_leaves_the_collector_alone(collector_seen: list[bool]) -> None:
    outcome = heal_row(1, SHORT)
    assert collector_seen == [True]
    assert outcome.healed is not None


def test_a_collector_the_caller_disabled_stays_disabled(collector_seen: list[bool]) -> None:
    gc.disable()
    try:
        heal_row(1, LONG)
        assert not gc.isenabled()
    finally:
        gc.enable()
    assert collector_seen == [False]


def test_the_collector_comes_back_when_a_long_row_fails(collector_seen: list[bool]) -> None:
    outcome = heal_row(1, LONG[:-1])  # no longer JSON
    assert outcome.error is not None and outcome.error.startswith("JSONDecodeError")
    assert gc.isenabled()
