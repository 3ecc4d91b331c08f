"""The clean verdict: when none of the facts that a plan's rules need holds, the engine runs no
rule at all (``Rule.needs``, :meth:`heal.rules._index.HistoryIndex.clean`).

The verdict must be exact, never a heuristic: a wrong declaration would hide problems silently.
So every built-in rule that declares its needs (or whose triggers stand in for them) is run,
with every choice it offers, on histories the verdict calls clean for it, and must find nothing:
for every provider and many targets, on generated histories (valid, broken, and healed, which
are the clean ones a broken history leads to) and on every case file's histories and every
documented example, as ``tests/test_triggers.py`` does for the trigger hints.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heal import PROVIDERS, heal_messages, load_messages, validate_messages
from heal._engine import _needs, _plan_for
from heal.errors import ConfigError
from heal.providers import ProviderId, get_profile
from heal.repairs import Action
from heal.rules import BUILTIN_RULES, Finding, Rule
from heal.rules import _examples as ex
from heal.rules._base import NEEDS, TRIGGERS, Context
from heal.rules._index import FACTS, HistoryIndex
from heal.targets import Target
from tests.case_runner import target_of
from tests.strategies import histories, valid_histories
from tests.test_targets import targets

CASES_DIR = Path(__file__).parent / "cases"
ALL_PROVIDERS: list[Any] = [None, *PROVIDERS]
DECLARED = [rule for rule in BUILTIN_RULES if _needs(rule) is not None]


def _verdict_for(rule: Rule) -> tuple[frozenset[str], list[Any]]:
    needs = _needs(rule)
    assert needs is not None
    return needs & TRIGGERS, [FACTS[name] for name in needs - TRIGGERS]


def _clean_rules_find_nothing(history: Any, target: Target) -> tuple[list[str], int]:
    """The rules that find something on ``history`` although the verdict says they cannot
    (should be none), and how many rules the verdict called clean."""
    messages = load_messages(history)
    index = HistoryIndex(messages)
    profile = get_profile(target.provider)
    guards = _plan_for(target, None, None, "request").guards
    ctx = Context(messages, index, target.provider, profile, guards, target=target)
    wrong = []
    clean = 0
    for rule in DECLARED:
        if not rule.applies(target) or not index.clean(*_verdict_for(rule), target, profile):
            continue
        clean += 1
        for choice in rule.choices:
            findings = list(rule.check(ctx, choice))
            if findings:
                wrong.append(f"{rule.id} ({choice}): {findings[0].reason}")
    return wrong, clean


def _case_histories() -> Iterator[tuple[list[dict[str, Any]], Target]]:
    """Every case file's histories (its ok history, input and healed output) for the case's
    own target, and every documented example's."""
    for path in sorted(CASES_DIR.rglob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            target = target_of(case)
            for key in ("ok", "input", "healed"):
                if key in case:
                    yield case[key], target
    for rule in BUILTIN_RULES:
        example = rule.example
        if example is not None:
            target = Target.of(
                example.provider, example.model, thinking=example.thinking, tools=example.tools
            )
            yield example.before, target
            yield example.after, target


@pytest.mark.parametrize("rule", DECLARED, ids=lambda r: r.id)
def test_needs_name_index_facts(rule: Rule) -> None:
    needs = _needs(rule)
    assert needs, "an empty declaration would call every history clean"
    assert needs <= NEEDS, needs - NEEDS


@pytest.mark.parametrize("provider", ALL_PROVIDERS, ids=str)
def test_clean_rules_find_nothing_in_the_case_files(provider: ProviderId | None) -> None:
    """Each case history for its own target, and for ``provider`` as well."""
    checked = clean = 0
    for history, target in _case_histories():
        for goal in {target, Target(provider)}:
            wrong, found = _clean_rules_find_nothing(history, goal)
            assert wrong == [], (goal, history)
            clean += found
        checked += 1
    assert checked > 100  # the case files were found
    assert clean > checked  # and the verdict calls many rules clean in them


@given(history=histories(), target=targets())
def test_clean_rules_find_nothing_in_generated_histories(
    history: list[dict[str, Any]], target: Target
) -> None:
    assert _clean_rules_find_nothing(history, target)[0] == []
    # The healed history is the clean one a broken history leads to: the verdict's usual case.
    healed = heal_messages(history, target=target).messages
    assert _clean_rules_find_nothing(healed, target)[0] == []


@pytest.mark.parametrize("provider", ALL_PROVIDERS, ids=str)
@given(history=valid_histories(), tools=st.one_of(st.none(), st.just(("search", "f"))))
def test_clean_rules_find_nothing_in_valid_histories(
    provider: ProviderId | None, history: list[dict[str, Any]], tools: Any
) -> None:
    target = Target.of(provider, tools=tools)
    assert _clean_rules_find_nothing(history, target)[0] == []


@pytest.mark.parametrize("provider", ALL_PROVIDERS, ids=str)
@given(history=histories())
def test_a_clean_verdict_means_no_repairs(provider: ProviderId | None, history: Any) -> None:
    """What the engine does with the verdict: a history it calls clean for the plan comes back
    as it is, with no repair, exactly as running every rule would leave it."""
    healed = heal_messages(history, provider=provider).messages
    plan = _plan_for(Target(provider), None, None, "request")
    if plan.verdict is None:
        return
    index = HistoryIndex(healed)
    if index.clean(*plan.verdict, Target(provider), plan.profile):
        ctx = Context(healed, index, provider, plan.profile, plan.guards)
        for rule, choice, *_ in plan.steps:
            assert list(rule.check(ctx, choice)) == [], rule.id
        assert heal_messages(healed, provider=provider).repairs == ()


class _Always(Rule):
    """A rule whose declaration is deliberately wrong: it reports what it says needs reasoning."""

    id = "always-but-needs-reasoning"
    summary = "reports every history"
    needs: frozenset[str] | None = frozenset({"reasoning"})

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        yield Finding(Action.REPORT, None, None, "always")


def test_the_engine_runs_no_rule_on_a_clean_history() -> None:
    plain = [{"role": "user", "content": "hi"}]
    thinking = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "reasoning", "text": "hmm"}]},
    ]
    # The wrong declaration hides the report: the engine trusts it, hence the tests above.
    assert validate_messages(plain, rules=[_Always()]).issues == ()
    assert [i.reason for i in validate_messages(thinking, rules=[_Always()]).issues] == ["always"]


def test_a_rule_without_a_declaration_is_always_run() -> None:
    class Undeclared(_Always):
        id = "always-undeclared"
        needs = None

    plain = [{"role": "user", "content": "hi"}]
    assert [i.reason for i in validate_messages(plain, rules=[Undeclared()]).issues] == ["always"]


def test_an_unknown_fact_is_refused() -> None:
    class Misspelt(_Always):
        id = "always-misspelt"
        needs = frozenset({"unpairde"})

    with pytest.raises(ConfigError, match="unpairde"):
        validate_messages([{"role": "user", "content": "hi"}], rules=[Misspelt()])


def test_a_fact_is_computed_for_the_target_asked() -> None:
    history = [
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {}}],
        },
    ]
    index = HistoryIndex(load_messages(history))
    unoffered = (FACTS["unoffered_tools"],)
    profile = get_profile(None)
    offered, other = Target.of(None, tools=["f"]), Target.of(None, tools=["g"])
    assert not index.holds(unoffered, offered, profile)
    assert index.holds(unoffered, other, profile)  # not the answer kept for the other target
    assert not index.holds(unoffered, offered, profile)


def test_only_anthropic_options_make_the_anthropic_options_fact() -> None:
    # heal's mark on a result it made up is an option of another namespace: the history an
    # orphan call is healed into is clean for Anthropic, where it used to run a rule per check.
    call = {"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {}}
    history = [{"role": "user", "content": "weather?"}, {"role": "assistant", "content": [call]}]
    healed = heal_messages(history, provider="anthropic").messages
    target, profile = Target("anthropic"), get_profile("anthropic")
    index = HistoryIndex(healed)
    assert index.holds((FACTS["tool_options"],), target, profile)  # the mark is there
    assert not index.holds((FACTS["anthropic_tool_options"],), target, profile)
    caller = {"anthropic": {"caller": {"type": "code_execution_20250825", "toolId": "srv_1"}}}
    history[1] = {"role": "assistant", "content": [{**call, "providerOptions": caller}]}
    index = HistoryIndex(load_messages(history))
    assert index.holds((FACTS["anthropic_tool_options"],), target, profile)


def test_reasoning_that_deepseek_accepts_leaves_its_history_clean() -> None:
    # A DeepSeek history from thinking mode: reasoning before each call. Neither the calls
    # (missing-reasoning-content needs a call without reasoning) nor the ASCII reasoning
    # (lone-surrogate needs text that is not ASCII) make the plan run a rule.
    reasoning = {"type": "reasoning", "text": "The user wants the weather."}
    call = ex.call("c1")
    history = [
        ex.user("weather?"),
        {"role": "assistant", "content": [reasoning, call]},
        {"role": "tool", "content": [ex.result("c1")]},
        {"role": "assistant", "content": "Sunny."},
    ]
    for provider in (None, "deepseek"):
        target = Target(provider)
        plan = _plan_for(target, None, None, "request")
        assert plan.verdict is not None
        clean = HistoryIndex(load_messages(history)).clean(*plan.verdict, target, plan.profile)
        assert clean, provider
    bare = [history[0], {"role": "assistant", "content": [call]}, *history[2:]]
    deepseek = _plan_for(Target("deepseek"), None, None, "request")
    assert deepseek.verdict is not None
    index = HistoryIndex(load_messages(bare))
    assert not index.clean(*deepseek.verdict, Target("deepseek"), deepseek.profile)
    cut = [history[0], {"role": "assistant", "content": [{**reasoning, "text": "\ud83d"}, call]}]
    index = HistoryIndex(load_messages([*cut, *history[2:]]))
    plan = _plan_for(Target(None), None, None, "request")
    assert plan.verdict is not None
    assert not index.clean(*plan.verdict, Target(None), plan.profile)


def test_ids_in_mistrals_format_leave_its_history_clean() -> None:
    # mistral-tool-call-id needs an id its profile does not accept (nine letters and digits):
    # a history healed for Mistral, or written by it, runs no rule.
    history = [
        ex.user("go"),
        {"role": "assistant", "content": [ex.call("call_1")]},
        {"role": "tool", "content": [ex.result("call_1")]},
        {"role": "assistant", "content": "done"},
    ]
    target = Target("mistral")
    plan = _plan_for(target, None, None, "request")
    assert plan.verdict is not None
    assert not HistoryIndex(load_messages(history)).clean(*plan.verdict, target, plan.profile)
    healed = heal_messages(history, provider="mistral")
    assert [r.rule for r in healed.repairs] == ["mistral-tool-call-id"] * 2
    assert HistoryIndex(healed.messages).clean(*plan.verdict, target, plan.profile)


def test_heals_own_marks_on_assistant_parts_leave_a_history_clean() -> None:
    # The adapters keep what a format has that the models do not in heal's namespace (the
    # Gemini reader marks a call that came without an id): no rule reads a signature or an
    # item id there, so the rules that need an assistant part's options find nothing.
    marked = {**ex.call("c0001p000"), "providerOptions": {"heal": {"gemini": {"noId": True}}}}
    history = [
        ex.user("go"),
        {"role": "assistant", "content": [marked]},
        {"role": "tool", "content": [ex.result("c0001p000")]},
        {"role": "assistant", "content": "done"},
        ex.user("thanks"),  # the call is not of the current turn (which Gemini wants signed)
    ]
    # Beside heal's namespace, what each provider's rules read, on the call and the answer:
    # Google's a signature Gemini did not issue, OpenAI's an item id (sent twice here).
    read: dict[ProviderId, dict[str, Any]] = {
        "google": {"anthropic": {"signature": "c2ln"}},
        "openai-responses": {"openai": {"itemId": "msg_1"}},
    }
    for provider, options in read.items():
        target = Target(provider)
        plan = _plan_for(target, None, None, "request")
        assert plan.verdict is not None
        assert HistoryIndex(load_messages(history)).clean(*plan.verdict, target, plan.profile)
        signed = {**marked, "providerOptions": {**marked["providerOptions"], **options}}
        own = {"role": "assistant", "content": [{**ex.text("done"), "providerOptions": options}]}
        other = [
            history[0],
            {"role": "assistant", "content": [signed]},
            history[2],
            own,
            *history[4:],
        ]
        assert not HistoryIndex(load_messages(other)).clean(*plan.verdict, target, plan.profile)


class _Text(str):
    """A string subclass: never plain (the models would load it as a plain ``str``)."""


_TEXTS = st.one_of(
    st.text(),
    st.sampled_from(["", " ", "\n\t", "ok", "caf\u00e9", "a\ud800b", "\udfff"]),
    st.none(),
    st.integers(),
    st.lists(st.text(max_size=3), max_size=2),
    st.builds(_Text, st.sampled_from(["ok", " ", ""])),
)


@given(values=st.lists(_TEXTS, max_size=6))
def test_plain_texts_is_plain_text_of_each(values: list[Any]) -> None:
    # The adapters' walks gather their texts and ask once; the answer must be the per-text
    # one's, blank, non-string and lone-surrogate texts included.
    from heal._verdict import plain_text, plain_texts

    assert plain_texts(values) == all(plain_text(value) for value in values)
    assert plain_texts(iter(values)) == plain_texts(values)


_INPUTS = st.one_of(
    st.dictionaries(st.text(max_size=2), st.one_of(st.integers(), st.text(max_size=2)), max_size=2),
    st.sampled_from([{}, {"a": {"b": [1, 2.5]}}, {"a": float("nan")}, {"a": (1, 2)}, {1: "x"}]),
    st.just({"deep": json.loads("[" * 70 + "]" * 70)}),
    st.none(),
    st.text(max_size=3),
    st.lists(st.integers(), max_size=2),
    st.sampled_from([{"a": 1.5}, {"a": True, "b": None}, {"a": _Text("x")}, {"a": [], "b": {}}]),
)


@given(values=st.lists(_INPUTS, max_size=5))
def test_plain_inputs_is_plain_input_of_each(values: list[Any]) -> None:
    # heal_json's walk gathers the tool inputs and asks once: the per-input answer, for
    # non-objects, non-JSON values (a NaN, a tuple, a non-string key) and nesting past the limit.
    from heal._verdict import plain_input, plain_inputs

    assert plain_inputs(values) == all(plain_input(value) for value in values)
    assert plain_inputs(iter(values)) == plain_inputs(values)


@pytest.mark.parametrize("provider", [None, *PROVIDERS])
@pytest.mark.parametrize(("call_id", "name"), [("call\x00x", "search"), ("c1", "get\x00weather")])
def test_a_nul_inside_an_id_or_a_name_is_never_plainly_clean(
    provider: ProviderId | None, call_id: str, name: str
) -> None:
    # The final check reads every id and name joined by NUL: one inside a value must not pass
    # as two valid ones (a history the provider refuses, called clean).
    from heal._json import clean_verdict

    history = [
        ex.user("go"),
        {"role": "assistant", "content": [ex.call(call_id, name)]},
        {"role": "tool", "content": [ex.result(call_id, name)]},
    ]
    assert not clean_verdict(json.loads(json.dumps(history)), provider)
    assert heal_messages(history, provider=provider).repairs
