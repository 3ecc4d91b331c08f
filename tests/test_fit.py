"""``heal.fit`` (:mod:`heal.budget`): fitting a history to a token budget by whole turns.

Examples pin down what a turn is, what stays and how the records read; the properties (every
provider id) hold for any history the strategies draw: the result validates for its provider,
fits whenever what must stay fits, keeps every system and pinned message, drops whole turns
oldest first, never makes an orphan, and never mutates its input.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heal import (
    PROVIDERS,
    Action,
    ConfigError,
    FitResult,
    Scope,
    dump_messages,
    fit,
    heal_messages,
    load_messages,
    validate_messages,
)
from heal.budget import FIT_RULE, estimate_tokens, turns
from heal.repairs import record_json
from tests.strategies import histories, valid_histories

History = list[dict[str, Any]]
ALL_PROVIDERS: list[Any] = [None, *PROVIDERS]


def _call(cid: str, name: str = "search") -> dict[str, Any]:
    return {"type": "tool-call", "toolCallId": cid, "toolName": name, "input": {}}


def _result(cid: str, value: str = "ok", name: str = "search") -> dict[str, Any]:
    output = {"type": "text", "value": value}
    return {"type": "tool-result", "toolCallId": cid, "toolName": name, "output": output}


def _one(message: Any) -> int:
    """A counter that counts messages: the budget is then a message count."""
    del message
    return 1


HISTORY: History = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "weather in Paris?"},  # turn 0: 1-4
    {"role": "assistant", "content": [_call("c1")]},
    {"role": "tool", "content": [_result("c1", "sunny")]},
    {"role": "assistant", "content": "Sunny."},
    {"role": "user", "content": "and Rome?"},  # turn 1: 5-8
    {"role": "assistant", "content": [_call("c2")]},
    {"role": "tool", "content": [_result("c2", "rain")]},
    {"role": "assistant", "content": "Rain."},
    {"role": "user", "content": "thanks"},  # turn 2: 9-10
    {"role": "assistant", "content": "You're welcome."},
]


# --- turns -----------------------------------------------------------------------------------


def test_a_turn_runs_from_a_user_message_to_the_next_and_system_messages_are_in_none() -> None:
    assert turns(HISTORY) == [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10]]
    head_cut_off = [
        {"role": "assistant", "content": [_call("c0")]},
        {"role": "tool", "content": [_result("c0")]},
        {"role": "system", "content": "later instructions"},
        {"role": "user", "content": "go on"},
    ]
    assert turns(head_cut_off) == [[0, 1], [3]]


# --- examples --------------------------------------------------------------------------------


def test_a_history_within_budget_comes_back_whole_and_untouched() -> None:
    models = load_messages(HISTORY)
    result = fit(models, 1_000)
    assert result.repairs == ()
    assert result.kept == tuple(range(len(HISTORY)))
    assert all(out is model for out, model in zip(result.messages, models, strict=True))
    assert result.fits
    assert result.tokens == sum(estimate_tokens(m) for m in models)


def test_whole_turns_go_oldest_first_and_each_record_locates_what_it_removed() -> None:
    result = fit(HISTORY, 7, count=_one)
    assert result.kept == (0, 5, 6, 7, 8, 9, 10)
    assert result.dropped == (1, 2, 3, 4)
    assert (result.tokens, result.fits) == (7, True)
    assert dump_messages(result.messages) == [HISTORY[i] for i in result.kept]
    for repair, index in zip(result.repairs, (1, 2, 3, 4), strict=True):
        assert (repair.rule, repair.action, repair.message_index) == (
            FIT_RULE,
            Action.REMOVE,
            index,
        )
        assert repair.removed == HISTORY[index]
        assert repair.scope is Scope.REQUEST
        assert (
            repair.reason == "dropped with its turn (messages 1 to 4) to fit the budget of 7 tokens"
        )

    # One message fewer than the two newest turns take: both older turns go, not half of one.
    assert fit(HISTORY, 6, count=_one).kept == (0, 9, 10)


def test_the_estimate_is_a_quarter_token_per_character_of_json() -> None:
    [message] = load_messages([{"role": "user", "content": "x" * 100}])
    text = json.dumps({"role": "user", "content": "x" * 100}, separators=(",", ":"))
    assert estimate_tokens(message) == math.ceil(len(text) / 4)


def test_system_messages_stay_where_they_are() -> None:
    history = [*HISTORY[:5], {"role": "system", "content": "Answer in French."}, *HISTORY[5:]]
    result = fit(history, 0, count=_one)
    assert result.kept == (0, 5, 10, 11)
    assert [m.role for m in result.messages] == ["system", "system", "user", "assistant"]


def test_the_newest_turn_is_kept_over_budget_and_the_result_says_so() -> None:
    result = fit(HISTORY, 2, count=_one)
    assert result.kept == (0, 9, 10)
    assert not result.fits
    report = result.repairs[-1]
    assert (report.rule, report.action, report.message_index) == (FIT_RULE, Action.REPORT, None)
    assert "takes 3 tokens, over the budget of 2" in report.reason
    assert fit([{"role": "user", "content": "hi"}], 0).messages  # never an empty history


def test_a_result_recorded_after_the_next_user_message_joins_the_two_turns() -> None:
    history = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": [_call("c1")]},
        {"role": "user", "content": "hurry"},
        {"role": "tool", "content": [_result("c1", "sunny")]},
        {"role": "assistant", "content": "Sunny."},
        {"role": "user", "content": "thanks"},
        {"role": "assistant", "content": "Welcome."},
    ]
    # Turns 0 and 1 are one unit: dropping turn 0 alone would orphan the result in turn 1.
    assert fit(history, 3, count=_one).kept == (5, 6)
    assert fit(history, 10, count=_one).kept == tuple(range(7))


def test_ids_reused_in_every_turn_do_not_chain_the_turns() -> None:
    history: History = []
    for n in range(3):
        history += [
            {"role": "user", "content": f"question {n}"},
            {"role": "assistant", "content": [_call("call_0")]},
            {"role": "tool", "content": [_result("call_0", f"answer {n}")]},
        ]
    assert fit(history, 3, count=_one).kept == (6, 7, 8)


def test_a_signed_thinking_tool_loop_stays_whole() -> None:
    signed = {"anthropic": {"signature": "EqQBCkgIARAB"}}
    loop = [
        {"role": "user", "content": "plan a trip"},
        {
            "role": "assistant",
            "content": [
                {"type": "reasoning", "text": "flights first", "providerOptions": signed},
                _call("t1", "flights"),
            ],
        },
        {"role": "tool", "content": [_result("t1", "3 flights", "flights")]},
        {"role": "assistant", "content": [_call("t2", "hotels")]},
        {"role": "tool", "content": [_result("t2", "2 hotels", "hotels")]},
        {"role": "assistant", "content": "Booked."},
    ]
    history = [*loop, {"role": "user", "content": "thanks"}, {"role": "assistant", "content": "ok"}]
    for budget in range(len(history) + 1):
        kept = set(fit(history, budget, provider="anthropic", count=_one).kept)
        assert kept >= set(range(6)) or kept.isdisjoint(range(6)), (budget, kept)


def test_a_pinned_message_keeps_only_what_it_is_linked_to() -> None:
    result = fit(HISTORY, 0, count=_one, pinned=[3])
    assert result.kept == (0, 2, 3, 9, 10)
    assert dump_messages(result.messages) == [HISTORY[i] for i in result.kept]
    # The call's turn lost its user message and answer; healed for Anthropic, the pair is sent.
    healed = fit(HISTORY, 0, count=_one, pinned=[3], provider="anthropic")
    assert validate_messages(healed.messages, provider="anthropic").valid

    first_question = fit(HISTORY, 0, count=_one, pinned=[1, -1])
    assert first_question.kept == (0, 1, 9, 10)


def test_what_healing_changes_is_recorded_at_its_place_in_the_input() -> None:
    history = [
        *HISTORY[:9],
        {"role": "user", "content": "thanks"},
        {"role": "tool", "content": [_result("gone")]},  # an orphan in the newest turn
        {"role": "assistant", "content": "You're welcome."},
    ]
    result = fit(history, 5, count=_one)
    assert result.kept == (0, 9, 10, 11)
    orphan = next(r for r in result.repairs if r.rule == "orphan-tool-result")
    assert (orphan.message_index, orphan.part_index) == (10, 0)
    empty = next(r for r in result.repairs if r.rule == "empty-message")
    assert empty.message_index == 10
    assert [m.role for m in result.messages] == ["system", "user", "assistant"]


def test_the_target_heals_what_is_kept() -> None:
    # For Bedrock the kept history must start with a user message: a pinned call at the front
    # gets heal's placeholder user turn, and it is counted.
    result = fit(HISTORY, 0, count=_one, pinned=[2], provider="bedrock")
    assert result.kept == (0, 2, 3, 9, 10)
    assert validate_messages(result.messages, provider="bedrock").valid
    assert result.tokens == len(result.messages)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ConfigError, match="budget"):
        fit(HISTORY, -1)
    with pytest.raises(ConfigError, match="pinned index 11"):
        fit(HISTORY, 10, pinned=[11])
    with pytest.raises(ConfigError, match="count must return"):
        fit(HISTORY, 10, count=lambda m: -1)
    assert fit([], 0) == FitResult([], (), (), 0, 0)


# --- properties ------------------------------------------------------------------------------


def _pinned(draw: st.DrawFn, history: History) -> list[int]:
    if not history:
        return []
    return draw(st.lists(st.integers(0, len(history) - 1), max_size=2))


@st.composite
def _cases(draw: st.DrawFn) -> tuple[History, int, list[int]]:
    """A history, a budget and pinned indices; the budget is mostly between what must stay
    (without a provider) and the whole history, where fit has turns to choose from."""
    history = draw(histories())
    pinned = _pinned(draw, history)
    total = sum(estimate_tokens(m) for m in load_messages(history))
    least = fit(history, 0, pinned=pinned).tokens
    budget = draw(st.one_of(st.integers(min(least, total), total + 10), st.integers(0, total + 10)))
    return history, budget, pinned


@pytest.mark.parametrize("provider", ALL_PROVIDERS)
@settings(max_examples=40)
@given(case=_cases())
def test_the_fitted_history_validates_for_its_provider(
    provider: Any, case: tuple[History, int, list[int]]
) -> None:
    history, budget, pinned = case
    result = fit(history, budget, provider=provider, pinned=pinned)
    again = heal_messages(result.messages, provider=provider)
    assert not [r.describe() for r in again.repairs if r.changed]
    # Valid, but for what healing itself reports (no edit fixes it): those come again.
    check = validate_messages(result.messages, provider=provider)
    reported = sorted(r.rule for r in result.repairs if r.action is Action.REPORT)
    left = sorted(r.rule for r in check.issues if r.action is not Action.KEEP)
    assert set(left) <= set(reported), check.report()


@given(case=_cases(), provider=st.sampled_from(ALL_PROVIDERS))
def test_within_budget_whenever_what_must_stay_fits(
    case: tuple[History, int, list[int]], provider: Any
) -> None:
    history, budget, pinned = case
    least = fit(history, 0, provider=provider, pinned=pinned).tokens
    result = fit(history, budget, provider=provider, pinned=pinned)
    assert result.fits is (result.tokens <= budget)
    if budget >= least:
        assert result.fits, (budget, least, result.tokens)
        assert all(r.action is not Action.REPORT or r.rule != FIT_RULE for r in result.repairs)
    else:
        assert not result.fits
    assert result.tokens == sum(estimate_tokens(m) for m in result.messages)
    if history:
        assert result.messages


@given(case=_cases(), provider=st.sampled_from(ALL_PROVIDERS))
def test_system_and_pinned_messages_stay_and_the_input_is_untouched(
    case: tuple[History, int, list[int]], provider: Any
) -> None:
    history, budget, pinned = case
    before = copy.deepcopy(history)
    result = fit(history, budget, provider=provider, pinned=pinned)
    assert history == before, "fit mutated its input"
    systems = {i for i, m in enumerate(history) if m["role"] == "system"}
    assert systems | set(pinned) <= set(result.kept)
    assert set(result.kept).isdisjoint(result.dropped)
    assert set(result.kept) | set(result.dropped) == set(range(len(history)))
    models = load_messages(history)
    for repair in result.repairs:
        if repair.rule == FIT_RULE and repair.action is Action.REMOVE:
            # The message as a record holds it (a lone surrogate escaped, as in every record).
            assert repair.removed == record_json(models[repair.message_index])  # type: ignore[index]


@given(case=_cases())
def test_whole_turns_go_oldest_first(case: tuple[History, int, list[int]]) -> None:
    history, budget, _ = case
    result = fit(history, budget)
    dropped = set(result.dropped)
    gone = [bool(dropped & set(turn)) for turn in turns(history)]
    for turn, went in zip(turns(history), gone, strict=True):
        assert not went or set(turn) <= dropped, "a turn was split"
    assert gone == sorted(gone, reverse=True), "a newer turn went before an older one"
    assert not gone or not gone[-1], "the newest turn went"


def _orphans(
    history: Any, at: Sequence[int] | None = None
) -> set[tuple[str, int | None, int | None, int | None]]:
    """The pairing problems in ``history``, each by its rule and the place of the part it names
    (message, part, anchor), in the history ``at`` maps message indices into (when given).

    By place, not by tool-call id: an id that another call shares is renamed before pairing
    is judged, so one orphan is named ``call_3_2`` in a history and ``call_3`` in a part of it
    that has one ``call_3`` only."""
    pairing = {"orphan-tool-result", "orphan-tool-call", "orphan-tool-approval"}

    def place(i: int | None) -> int | None:
        return i if i is None or at is None else at[i]

    return {
        (r.rule, place(r.message_index), r.part_index, place(r.anchor_index))
        for r in validate_messages(history).issues
        if r.rule in pairing
    }


@given(case=_cases())
def test_nothing_kept_loses_its_call_or_its_result(case: tuple[History, int, list[int]]) -> None:
    history, budget, pinned = case
    result = fit(history, budget, pinned=pinned)
    kept = [history[i] for i in result.kept]
    assert _orphans(kept, result.kept) <= _orphans(history)


def test_an_orphan_is_the_same_whatever_its_id_is_renamed_to() -> None:
    # The second provider-executed call_3 has its result in a tool message: an orphan. In the
    # whole history call_3 is shared, so the orphan is named call_3_2; in the last turns alone
    # it keeps its id. It is the same orphan, in the same place (found by the deep profile).
    def call(call_id: str) -> dict[str, Any]:
        return {
            "type": "tool-call",
            "toolCallId": call_id,
            "toolName": "search",
            "input": {},
            "providerExecuted": True,
        }

    result = {
        "type": "tool-result",
        "toolCallId": "call_3",
        "toolName": "search",
        "output": {"type": "text", "value": "ok"},
    }
    history: History = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [call("call_3"), result]},
        {"role": "user", "content": "again"},
        {"role": "assistant", "content": [call("call_3")]},
        {"role": "tool", "content": [result]},
        {"role": "user", "content": "and"},
    ]
    kept = [2, 3, 4, 5]
    named = {
        r.tool_call_id for r in validate_messages(history).issues if r.rule == "orphan-tool-result"
    }
    assert named == {"call_3_2"}
    assert (
        _orphans([history[i] for i in kept], kept)
        == _orphans(history)
        == {("orphan-tool-result", 4, 0, None)}
    )


@given(history=valid_histories(), data=st.data())
def test_the_longest_tail_of_turns_that_fits_is_kept(history: History, data: st.DataObject) -> None:
    """For a valid history (heal changes nothing without a provider), any tail of whole turns
    with the system messages is a history within the rules: at its size, fit keeps at least it."""
    found = turns(history)
    start = found[data.draw(st.integers(0, len(found) - 1))][0]
    tail = [m for i, m in enumerate(history) if i >= start or m["role"] == "system"]
    budget = sum(estimate_tokens(m) for m in heal_messages(tail).messages)
    result = fit(history, budget)
    assert result.fits
    assert len(result.kept) >= len(tail)


def test_the_model_is_passed_on_to_the_healing() -> None:
    import inspect

    if "model" not in inspect.signature(heal_messages).parameters:
        with pytest.raises(ConfigError, match="model"):
            fit(HISTORY, 5, model="claude-sonnet-4-5")
        return
    # Without a provider, heal_messages infers it from the model (Anthropic here), whose rules
    # then heal what is kept: an unsigned reasoning part goes.
    history = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [{"type": "reasoning", "text": "hmm"}, {"type": "text", "text": "hello"}],
        },
        {"role": "user", "content": "again"},
    ]
    by_model = fit(history, 100, model="claude-sonnet-4-5")
    assert [r.rule for r in by_model.repairs] == ["anthropic-unsigned-reasoning"]
    assert [r.rule for r in fit(history, 100).repairs] == []
