"""Example-based tests of the engine's options: callbacks, strict mode, configuration errors,
``keep`` policies, user rules, and the convergence guard."""

from __future__ import annotations

import gc
import json
import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from heal import (
    PROVIDERS,
    Action,
    ConfigError,
    ConvergenceError,
    HealingError,
    Policy,
    Repair,
    dump_messages,
    heal_messages,
    load_messages,
    validate_messages,
)
from heal._engine import PAUSE_GC_FROM, heal_not_plain
from heal.errors import ProtectedEditError
from heal.messages import ModelMessage, TextPart, ToolApprovalResponse, UserMessage
from heal.providers import ProviderId
from heal.rules import BUILTIN_RULES, Context, Edit, Finding, Rule, SetMessage, SetPart
from heal.rules import _examples as ex
from heal.targets import Target
from tests.strategies import histories, policies

CALL = {"type": "tool-call", "toolCallId": "c1", "toolName": "search", "input": {}}
CLEAN: list[dict[str, Any]] = [
    {"role": "user", "content": "weather?"},
    {"role": "assistant", "content": [CALL]},
    {
        "role": "tool",
        "content": [
            {
                "type": "tool-result",
                "toolCallId": "c1",
                "toolName": "search",
                "output": {"type": "text", "value": "sunny"},
            }
        ],
    },
    {"role": "assistant", "content": "It is sunny."},
]
ORPHAN_CALL: list[dict[str, Any]] = [
    {"role": "user", "content": "weather?"},
    {"role": "assistant", "content": [CALL]},
    {"role": "user", "content": "hello?"},
]
BROKEN: list[dict[str, Any]] = [
    {"role": "user", "content": [{"type": "text", "text": " "}, {"type": "text", "text": "hi"}]},
    {"role": "assistant", "content": [CALL]},
    {"role": "assistant", "content": []},
    {"role": "user", "content": "hello?"},
]
"""An empty text, an orphan call and an empty message: three rules, at least two passes."""


# --- on_repair -------------------------------------------------------------------------------


def test_on_repair_exceptions_are_swallowed_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    seen: list[Repair] = []

    def callback(repair: Repair) -> None:
        seen.append(repair)
        raise RuntimeError("callback bug")

    with caplog.at_level(logging.WARNING, logger="heal"):
        result = heal_messages(BROKEN, on_repair=callback)

    assert len(result.repairs) >= 3
    assert seen == list(result.repairs), "every repair reaches the callback, in order"
    assert dump_messages(result.messages) == dump_messages(heal_messages(BROKEN).messages)
    logged = [r for r in caplog.records if r.name == "heal" and r.levelno == logging.WARNING]
    assert len(logged) == len(seen)
    assert all(r.exc_info is not None and r.exc_info[0] is RuntimeError for r in logged)


def test_on_repair_not_called_for_a_clean_history() -> None:
    seen: list[Repair] = []
    heal_messages(CLEAN, on_repair=seen.append)
    assert seen == []


# --- strict ----------------------------------------------------------------------------------


def test_strict_raises_healing_error_with_the_repairs() -> None:
    with pytest.raises(HealingError) as info:
        heal_messages(BROKEN, strict=True)
    expected = heal_messages(BROKEN).repairs
    assert info.value.repairs == expected
    assert isinstance(info.value.repairs, tuple)
    assert "orphan-tool-call" in str(info.value)


def test_strict_returns_for_a_clean_history() -> None:
    result = heal_messages(CLEAN, strict=True)
    assert result.repairs == ()
    assert dump_messages(result.messages) == CLEAN


def test_strict_ignores_kept_problems() -> None:
    result = heal_messages(ORPHAN_CALL, strict=True, policy={"orphan-tool-call": "keep"})
    assert [r.action for r in result.repairs] == [Action.KEEP]


# --- configuration errors --------------------------------------------------------------------


def test_unknown_policy_rule_lists_known_rules() -> None:
    with pytest.raises(ConfigError) as info:
        heal_messages(CLEAN, policy={"orphan-tool-cal": "drop-call"})
    message = str(info.value)
    assert "orphan-tool-cal" in message
    for rule in BUILTIN_RULES:
        assert rule.id in message
    with pytest.raises(ConfigError):
        validate_messages(CLEAN, policy={"orphan-tool-cal": "drop-call"})


def test_unknown_policy_choice_lists_valid_choices() -> None:
    with pytest.raises(ConfigError) as info:
        heal_messages(CLEAN, policy={"orphan-tool-call": "delete"})
    message = str(info.value)
    assert "delete" in message
    for choice in ("placeholder-result", "drop-call", "keep"):
        assert choice in message


def test_unknown_provider_lists_providers() -> None:
    with pytest.raises(ConfigError) as info:
        heal_messages(CLEAN, provider="antropic")  # type: ignore[arg-type]
    message = str(info.value)
    assert "antropic" in message
    for provider in PROVIDERS:
        assert provider in message
    with pytest.raises(ValueError, match="antropic"):
        validate_messages(CLEAN, provider="antropic")  # type: ignore[arg-type]


# --- keep ------------------------------------------------------------------------------------


def test_keep_policy_reports_once_and_validates() -> None:
    policy = {"orphan-tool-call": "keep"}
    models = load_messages(ORPHAN_CALL)
    result = heal_messages(models, policy=policy)
    assert [(r.rule, r.action, r.tool_call_id) for r in result.repairs] == [
        ("orphan-tool-call", Action.KEEP, "c1")
    ]
    assert not result.changed
    assert all(out is model for out, model in zip(result.messages, models, strict=True))
    assert validate_messages(ORPHAN_CALL, policy=policy).valid
    assert not validate_messages(ORPHAN_CALL).valid


def test_keep_repair_is_not_repeated_across_passes() -> None:
    """Other rules force a second pass; the kept problem is still reported once."""
    policy = {"orphan-tool-call": "keep"}
    result = heal_messages(BROKEN, policy=policy)
    kept = [r for r in result.repairs if r.action is Action.KEEP]
    assert [(r.rule, r.tool_call_id, r.anchor_index) for r in kept] == [
        ("orphan-tool-call", "c1", 1)
    ]
    assert {r.rule for r in result.repairs if r.changed} == {"empty-text", "empty-message"}
    assert validate_messages(result.messages, policy=policy).valid
    again = heal_messages(result.messages, policy=policy)
    assert [r.action for r in again.repairs] == [Action.KEEP]


# --- user rules ------------------------------------------------------------------------------


class Exclaim(Rule):
    """Test rule: user text parts must end with '!'."""

    id = "test-exclaim"
    summary = "user text part does not end with '!'"

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        for m, message in enumerate(ctx.messages):
            if message.role != "user" or isinstance(message.content, str):
                continue
            for p, part in enumerate(message.content):
                if isinstance(part, TextPart) and not part.text.endswith("!"):
                    new = part.model_copy(update={"text": part.text + "!"})
                    yield Finding(
                        Action.REPLACE,
                        m,
                        p,
                        "no '!'",
                        edits=(SetPart(m, p, new),),
                        removed={"text": part.text},
                        added={"text": new.text},
                    )


class Spy(Rule):
    """Test rule: records each history it is shown, finds nothing."""

    id = "test-spy"
    summary = "records what it sees"

    def __init__(self) -> None:
        self.seen: list[list[dict[str, Any]]] = []

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        self.seen.append(dump_messages(ctx.messages))
        return iter(())


def test_user_rules_run_after_builtins() -> None:
    spy = Spy()
    result = heal_messages(BROKEN, rules=[Exclaim(), spy])

    rules = [r.rule for r in result.repairs]
    assert "test-exclaim" in rules
    last_builtin = max(i for i, rule in enumerate(rules) if not rule.startswith("test-"))
    assert rules.index("test-exclaim") > last_builtin
    exclaim = next(r for r in result.repairs if r.rule == "test-exclaim")
    assert (exclaim.message_index, exclaim.part_index) == (0, 1), "located in the input"
    # In the first pass the spy already sees the built-ins' work (no blank text, no empty
    # message) and the user rule's before it.
    first = spy.seen[0]
    assert first[0]["content"] == [{"type": "text", "text": "hi!"}]
    assert all(message["content"] != [] for message in first)
    assert validate_messages(result.messages, rules=[Exclaim()]).valid


def test_user_rules_apply_to_one_call_only() -> None:
    heal_messages(BROKEN, rules=[Exclaim()])
    assert all(r.rule != "test-exclaim" for r in heal_messages(BROKEN).repairs)


def test_user_rule_id_must_not_clash_with_a_builtin() -> None:
    class Clash(Exclaim):
        id = "empty-text"

    with pytest.raises(ConfigError, match="empty-text"):
        heal_messages(CLEAN, rules=[Clash()])


class Restless(Rule):
    """Test rule: always proposes another change (a bug the engine must catch)."""

    id = "test-restless"
    summary = "never satisfied"

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        message = ctx.messages[0]
        assert isinstance(message, UserMessage) and isinstance(message.content, str)
        new = message.model_copy(update={"content": message.content + "."})
        yield Finding(Action.REPLACE, 0, None, "one more dot", edits=(SetMessage(0, new),))


def test_non_convergent_rule_raises_convergence_error() -> None:
    history = [{"role": "user", "content": "hi"}]
    with pytest.raises(ConvergenceError, match="test-restless"):
        heal_messages(history, rules=[Restless()])
    assert history == [{"role": "user", "content": "hi"}]
    # Validation reports what healing would do, so the same rule bug surfaces there too.
    with pytest.raises(ConvergenceError, match="test-restless"):
        validate_messages(history, rules=[Restless()])
    assert history == [{"role": "user", "content": "hi"}]


def test_validation_lists_what_healing_would_do_once() -> None:
    # Two Anthropic rules fix this id (the shared one and the Mastra-parity one); healing
    # applies the first, so the second has nothing left to do, and validation says the same.
    history = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool-call", "toolCallId": "functions.f:0", "toolName": "f", "input": {}}
            ],
        },
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": "functions.f:0",
                    "toolName": "f",
                    "output": {"type": "text", "value": "ok"},
                }
            ],
        },
    ]
    healed = heal_messages(history, provider="anthropic").repairs
    check = validate_messages(history, provider="anthropic")
    assert check.issues == healed
    assert [issue.rule for issue in check.issues] == ["invalid-tool-call-id"] * 2
    assert not check.valid


@pytest.mark.parametrize("provider", [None, *PROVIDERS])
def test_a_clean_history_costs_one_index_whatever_the_registry(
    provider: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "Thirty rules must not cost thirty full scans": every rule of every provider pack reads
    # the one index; a history that needs nothing is scanned once, by the quick verdict when it
    # is plainly clean (no index then), else by the index. One that needs a repair is indexed
    # again after each rule that changed it (from the old index and the changed messages,
    # HistoryIndex.after_edit), and only then.
    import heal._engine as engine
    from benchmarks.corpus import corpus
    from heal.rules._index import HistoryIndex
    from heal.rules._quick import quickly_clean

    builds = 0
    real = HistoryIndex
    after_edit = HistoryIndex.after_edit

    def counting(messages: Any) -> Any:
        nonlocal builds
        builds += 1
        return real(messages)

    def counting_after_edit(
        self: HistoryIndex,
        messages: Any,
        kept: Any,
        renamed: Any = None,
        added: Any = None,
        **dropped: Any,
    ) -> HistoryIndex:
        nonlocal builds
        builds += 1
        return after_edit(self, messages, kept, renamed, added, **dropped)

    monkeypatch.setattr(engine, "HistoryIndex", counting)
    monkeypatch.setattr(HistoryIndex, "after_edit", counting_after_edit)
    history = heal_messages(corpus(conversations=1, length=50, broken=0.0)[0], provider=provider)
    target = Target(provider)
    plan = engine._plan_for(target, None, None, "request")
    assert plan.quick is not None
    indexed = 0 if quickly_clean(history.messages, plan.quick, target, plan.profile) else 1
    # Healed, the benchmark's tools history is plain for every provider (Mistral's ids renamed
    # to its format, DeepSeek's reasoning beside each call).
    assert indexed == 0
    builds = 0
    assert heal_messages(history.messages, provider=provider).repairs == ()
    assert builds == indexed
    builds = 0
    assert validate_messages(history.messages, provider=provider).valid
    assert builds == indexed
    if provider is None:
        builds = 0
        assert heal_messages(ORPHAN_CALL).changed
        assert builds == 2  # the first scan, then the index after the placeholder (the rules
        # that check the healed history all read that second index)


class CollectorProbe(Rule):
    """Test rule: records whether the cyclic garbage collector was enabled when it ran."""

    id = "test-collector-probe"
    summary = "records gc.isenabled()"

    def __init__(self, fail: bool = False) -> None:
        self.enabled: list[bool] = []
        self.fail = fail

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        self.enabled.append(gc.isenabled())
        if self.fail:
            raise RuntimeError("rule bug")
        return iter(())


def _history(length: int) -> list[dict[str, Any]]:
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": "x"} for i in range(length)]


@pytest.fixture
def collector_enabled() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:  # pragma: no cover - pytest runs with the collector on
        gc.disable()


@pytest.mark.usefixtures("collector_enabled")
@pytest.mark.parametrize("check", [heal_messages, validate_messages])
def test_long_histories_are_healed_with_the_collector_paused(check: Any) -> None:
    probe = CollectorProbe()
    check(_history(PAUSE_GC_FROM - 1), rules=[probe])
    check(_history(PAUSE_GC_FROM), rules=[probe])
    assert probe.enabled == [True, False]
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_enabled")
def test_the_collector_is_re_enabled_when_healing_raises() -> None:
    with pytest.raises(RuntimeError, match="rule bug"):
        heal_messages(_history(PAUSE_GC_FROM), rules=[CollectorProbe(fail=True)])
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_enabled")
def test_a_collector_the_caller_disabled_stays_disabled() -> None:
    probe = CollectorProbe()
    gc.disable()
    try:
        heal_messages(_history(PAUSE_GC_FROM), rules=[probe])
        assert probe.enabled == [False]
        assert not gc.isenabled()
    finally:
        gc.enable()  # the rest of the suite runs with the collector on


def test_a_rule_that_checked_the_final_history_is_not_asked_again() -> None:
    # The placeholder is the only change; the spy (a user rule, after every built-in) checked
    # the healed history once, so the confirming round stops before it.
    spy = Spy()
    assert heal_messages(ORPHAN_CALL, rules=[spy]).changed
    assert len(spy.seen) == 1
    assert any(m["role"] == "tool" for m in spy.seen[0])


@pytest.mark.parametrize("provider", [None, *PROVIDERS], ids=str)
@pytest.mark.parametrize("history", [ORPHAN_CALL, BROKEN], ids=["orphan-call", "broken"])
def test_the_loop_stops_at_an_edit_the_verdict_calls_clean(
    provider: ProviderId | None, history: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The verdict is asked again after each edit: when no rule of the plan can find anything in
    # the edited history, the loop stops there, instead of asking each rule's needs again (the
    # results are the pass loop's either way: the test below).
    import heal._engine as engine
    from heal.rules._index import HistoryIndex

    asked: list[Sequence[ModelMessage]] = []  # the history of each index asked for facts
    holds = HistoryIndex.holds

    def spy(self: HistoryIndex, *args: Any) -> bool:
        asked.append(self.messages)
        return holds(self, *args)

    monkeypatch.setattr(HistoryIndex, "holds", spy)
    target = Target(provider)
    plan = engine._plan_for(target, None, None, "request")
    assert plan.verdict is not None
    result = heal_messages(history, provider=provider)
    assert result.changed
    healed = [m for m in asked if m is result.messages]
    asked.clear()
    if HistoryIndex(result.messages).clean(*plan.verdict, target, plan.profile):
        assert len(healed) == 1  # the verdict's question, once
    else:  # each rule's, as the loop confirms the healed history rule by rule
        assert len(healed) > 1


def _pass_loop(messages: Any, target: Target, policy: Any) -> tuple[Any, Any]:
    """The engine's contract, written the plain way: every rule in order, whole passes, until a
    pass changes nothing (its reports are the reports). The engine must agree with it exactly."""
    import heal._engine as engine
    from heal.rules._index import HistoryIndex

    provider = target.provider
    plan = engine._plan_for(target, policy, None, "request")
    work = original = load_messages(messages)
    origin = engine._Origin(work)
    repairs: list[Repair] = []
    while True:
        changed = False
        reports: list[Repair] = []
        for rule, choice, keep, *_ in plan.steps:
            ctx = Context(
                work,
                HistoryIndex(work),
                provider,
                plan.profile,
                plan.guards,
                target=target,
                original=original,
            )
            edits: list[Edit] = []
            for finding in rule.check(ctx, choice):
                action = Action.KEEP if keep else finding.action
                record = origin.repair(rule, finding, action)
                if action in (Action.KEEP, Action.REPORT):
                    reports.append(record)
                else:
                    repairs.append(record)
                    edits.extend(finding.edits)
            if edits:
                work, origin, _ = engine._apply(work, origin, edits)
                changed = True
        if not changed:
            return dump_messages(work), [*repairs, *reports]


@settings(max_examples=60)
@given(data=st.data())
def test_the_engine_agrees_with_the_plain_pass_loop(data: st.DataObject) -> None:
    provider = data.draw(st.sampled_from([None, *PROVIDERS]), label="provider")
    history = data.draw(histories(), label="history")
    policy = data.draw(policies, label="policy")
    result = heal_messages(history, provider=provider, policy=policy)
    messages, repairs = _pass_loop(history, Target(provider), policy)
    assert dump_messages(result.messages) == messages
    assert list(result.repairs) == repairs


def _case_histories() -> list[Any]:
    from tests.test_cases import CASES

    params = []
    for param in CASES:
        _, case = param.values
        history = case.get("input", case.get("ok"))
        policy = Policy(case.get("policy") or {}, enable=case.get("enable", ()))
        params.append(pytest.param(history, case.get("provider"), policy, id=param.id))
    return params


@pytest.mark.parametrize(("history", "provider", "policy"), _case_histories())
def test_the_engine_agrees_with_the_plain_pass_loop_on_every_case(
    history: Any, provider: Any, policy: Policy
) -> None:
    # The case files hold the histories whose fixes take more than one pass (a rule's fix that
    # an earlier rule must then see), which generated histories rarely produce.
    result = heal_messages(history, provider=provider, policy=policy)
    messages, repairs = _pass_loop(history, Target(provider), policy)
    assert dump_messages(result.messages) == messages
    assert list(result.repairs) == repairs


# --- batches of findings -----------------------------------------------------------------------

_FOREIGN = {"type": "reasoning", "text": "a", "providerOptions": {"openai": {"itemId": "rs_1"}}}
_BATCHES: list[Any] = [
    # Every id foreign to Mistral: in results heal inserts (an orphan call's placeholder, in a
    # message of its own or at the start of the tool message, whose result moves along: their
    # records are anchored, or name the input's place), and beside an empty text.
    pytest.param(
        [
            ex.user("weather?"),
            {"role": "assistant", "content": [ex.text(""), ex.call("call_1"), ex.call("c2")]},
            {"role": "tool", "content": [ex.result("call_1")]},
            ex.user("and tomorrow?"),
            {"role": "assistant", "content": [ex.call("c3"), ex.call("c4")]},
            {"role": "tool", "content": [ex.result("c4")]},
            {"role": "assistant", "content": [ex.call("abcDEF123")]},
            {"role": "tool", "content": [ex.result("abcDEF123")]},
        ],
        "mistral",
        None,
        id="mistral",
    ),
    pytest.param(
        [ex.user("hi"), {"role": "assistant", "content": [ex.call("call_1")]}],
        "mistral",
        Policy({"mistral-tool-call-id": "keep"}),
        id="mistral-kept",
    ),
    # Replayed ids, two of them interleaved (records go id by id, each later call before the
    # results and approval request that follow it), one result misplaced after a later turn,
    # and a kept duplicate.
    pytest.param(
        [
            ex.user("a"),
            {"role": "assistant", "content": [ex.call("c1"), ex.call("c2")]},
            {"role": "tool", "content": [ex.result("c1"), ex.result("c2")]},
            ex.user("b"),
            {
                "role": "assistant",
                "content": [
                    ex.call("c2"),
                    ex.call("c1"),
                    {"type": "tool-approval-request", "approvalId": "a1", "toolCallId": "c1"},
                ],
            },
            {"role": "tool", "content": [ex.result("c1")]},
            ex.user("c"),
            {"role": "assistant", "content": [ex.call("c1")]},
            {"role": "tool", "content": [ex.result("c1"), ex.result("c2")]},
        ],
        None,
        None,
        id="duplicate-ids",
    ),
    pytest.param(
        [
            ex.user("a"),
            {"role": "assistant", "content": [ex.call("c1")]},
            {"role": "tool", "content": [ex.result("c1")]},
            ex.user("b"),
            {"role": "assistant", "content": [ex.call("c1")]},
            {"role": "tool", "content": [ex.result("c1")]},
        ],
        "anthropic",
        Policy({"duplicate-tool-call-id": "keep"}),
        id="duplicate-ids-kept",
    ),
    # Ids with text to escape in a record: a lone surrogate, a character beyond ASCII.
    pytest.param(
        [
            ex.user("hi"),
            {"role": "assistant", "content": [ex.call("call_\ud800"), ex.call("call_é")]},
            {"role": "tool", "content": [ex.result("call_\ud800"), ex.result("call_é")]},
        ],
        None,
        None,
        id="escaped",
    ),
    pytest.param(
        [
            ex.user("hi"),
            {"role": "assistant", "content": [ex.call("call.1"), ex.call("call_é")]},
            {"role": "tool", "content": [ex.result("call.1"), ex.result("call_é")]},
        ],
        "mistral",
        None,
        id="renamed-twice",
    ),
    # DeepSeek's empty reasoning before every call: in a message with an empty text, and in
    # messages after one heal inserts (an orphan call's result).
    pytest.param(
        [
            ex.user("weather?"),
            {"role": "assistant", "content": [ex.text(""), ex.call("c1"), ex.call("c2")]},
            {"role": "tool", "content": [ex.result("c1")]},
            ex.user("and tomorrow?"),
            {"role": "assistant", "content": [ex.text("Checking."), ex.call("c3")]},
            {"role": "tool", "content": [ex.result("c3")]},
        ],
        "deepseek",
        None,
        id="deepseek",
    ),
    pytest.param(
        [ex.user("hi"), {"role": "assistant", "content": [ex.call("c1")]}],
        "deepseek",
        Policy({"missing-reasoning-content": "keep"}),
        id="deepseek-kept",
    ),
    # Reasoning from other providers, replayed to Anthropic: removed before an empty text
    # (whose record names its place in the input), from every part of a message, and beside
    # Anthropic's signed thinking, with a namespace to escape in its record.
    pytest.param(
        [
            ex.user("plan"),
            {"role": "assistant", "content": [_FOREIGN, ex.text(""), ex.text("A plan.")]},
            ex.user("more"),
            {"role": "assistant", "content": [_FOREIGN, {**_FOREIGN, "text": "b"}]},
            ex.user("again"),
            {
                "role": "assistant",
                "content": [
                    ex.thinking("Signed."),
                    {**_FOREIGN, "providerOptions": {"openaï\ud800": {"itemId": "rs_2"}}},
                    ex.text("Done."),
                ],
            },
        ],
        "anthropic",
        None,
        id="anthropic-foreign-reasoning",
    ),
    # Unsigned reasoning, for Bedrock (another provider's too, which its rule removes itself)
    # and Anthropic: before a text, emptying a message, beside Bedrock's signed reasoning.
    pytest.param(
        [
            ex.user("plan"),
            {"role": "assistant", "content": [{"type": "reasoning", "text": "r"}, ex.text("A.")]},
            ex.user("more"),
            {"role": "assistant", "content": [_FOREIGN, {"type": "reasoning", "text": ""}]},
            ex.user("again"),
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "reasoning",
                        "text": "Signed.",
                        "providerOptions": {"bedrock": {"signature": "sig"}},
                    },
                    {"type": "reasoning", "text": "unsigned"},
                    ex.text("Done."),
                ],
            },
        ],
        "bedrock",
        None,
        id="bedrock-unsigned-reasoning",
    ),
    pytest.param(
        [
            ex.user("plan"),
            {"role": "assistant", "content": [{"type": "reasoning", "text": "r"}, ex.text("A.")]},
            ex.user("more"),
        ],
        "anthropic",
        None,
        id="anthropic-unsigned-reasoning",
    ),
]


@pytest.mark.parametrize(("history", "provider", "policy"), _BATCHES)
def test_a_batch_heals_as_its_findings_do(
    history: Any, provider: Any, policy: Policy | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The engine makes a batch's records and edits itself; the pass loop iterates it (a
    # renamed_id_finding per part, an insert per message), made into records and edits as any
    # finding is. heal_not_plain without renames takes the index's way (a history plain but
    # for its ids is renamed without it otherwise: tests/test_quick.py compares the two).
    import heal._engine as engine

    batches: list[int] = []

    def counted(made: Callable[..., list[Repair]]) -> Callable[..., list[Repair]]:
        def count(rule: Rule, batch: Any, origin: Any, action: Action) -> list[Repair]:
            batches.append(len(batch))
            return made(rule, batch, origin, action)

        return count

    for kind, (records_of, action, apply) in list(engine._BATCHES.items()):
        monkeypatch.setitem(engine._BATCHES, kind, (counted(records_of), action, apply))
    result = heal_not_plain(history, provider=provider, policy=policy, renames=False)
    assert batches  # the engine took the batch's own way
    messages, repairs = _pass_loop(history, Target(provider), policy)
    assert dump_messages(result.messages) == messages
    assert list(result.repairs) == repairs
    batched = (
        "mistral-tool-call-id",
        "invalid-tool-call-id",
        "duplicate-tool-call-id",
        "missing-reasoning-content",
        "anthropic-strip-foreign-reasoning-content",
        "anthropic-unsigned-reasoning",
        "bedrock-unsigned-reasoning",
    )
    assert sum(batches) == sum(r.rule in batched for r in result.repairs)
    assert heal_messages(history, provider=provider, policy=policy) == result


def test_a_rename_rule_returns_its_renames_as_one_batch() -> None:
    import heal._engine as engine
    from heal.rules._base import IdRenames
    from heal.rules._index import HistoryIndex

    history = load_messages(_BATCHES[0].values[0])
    target = Target("mistral")
    plan = engine._plan_for(target, None, None, "request")
    ctx = Context(
        history, HistoryIndex(history), "mistral", plan.profile, plan.guards, target=target
    )
    for rule_id in ("mistral-tool-call-id", "invalid-tool-call-id"):
        rule = next(r for r in BUILTIN_RULES if r.id == rule_id)
        found = rule.check(ctx, "fix")
        if rule_id == "mistral-tool-call-id":
            assert type(found) is IdRenames
            places = [(1, 1), (1, 2), (2, 0), (4, 0), (4, 1), (5, 0)]  # not abcDEF123's
            assert [(m, p) for m, p, _, _ in found.renames] == places
            assert [f.tool_call_id for f in found] == ["call_1", "c2", "call_1", "c3", "c4", "c4"]
        else:  # every id is valid for the shared rule: nothing to rename, no batch
            assert list(found) == []


# --- the protected message ----------------------------------------------------------------------

SIGNED_TURN: list[dict[str, Any]] = [
    {"role": "user", "content": "plan a trip"},
    {
        "role": "assistant",
        "content": [
            {
                "type": "reasoning",
                "text": "The user wants a plan.",
                "providerOptions": {"anthropic": {"signature": "EqQBCkYIBxgCKkA"}},
            },
            {"type": "text", "text": "Here is a plan."},
        ],
    },
]


class _Rewrite(Rule):
    """Replaces the assistant's text: a fix that edits the latest signed message."""

    id = "test-rewrite-signed"
    summary = "rewrites assistant text"

    def check(self, ctx: Context, choice: str) -> Iterable[Finding]:
        del choice
        for m, message in enumerate(ctx.messages):
            if message.role == "assistant" and isinstance(message.content, tuple):
                for p, part in enumerate(message.content):
                    if isinstance(part, TextPart) and part.text != "rewritten":
                        new = TextPart(text="rewritten")
                        yield Finding(Action.REPLACE, m, p, "rewrite", edits=(SetPart(m, p, new),))


def test_the_engine_refuses_a_rule_that_edits_the_protected_message() -> None:
    # Anthropic binds the latest signed message: no rule may change it, and the engine says so
    # instead of sending it (or of dropping the fix silently).
    with pytest.raises(ProtectedEditError, match="test-rewrite-signed"):
        heal_messages(SIGNED_TURN, provider="anthropic", rules=[_Rewrite()])
    # Nothing is protected for a provider that signs nothing: the fix applies.
    assert heal_messages(SIGNED_TURN, provider=None, rules=[_Rewrite()]).changed


def test_a_rule_that_declares_edits_protected_may_edit_it() -> None:
    rule = _Rewrite()
    rule.edits_protected = True
    result = heal_messages(SIGNED_TURN, provider="anthropic", rules=[rule])
    assert [r.rule for r in result.repairs] == ["test-rewrite-signed"]
    assert dump_messages(result.messages)[1]["content"][1] == {"type": "text", "text": "rewritten"}


# --- the engine's fast copies are pydantic's ---------------------------------------------------

_ODD_PARTS: list[dict[str, Any]] = [
    {"type": "text", "text": "plain"},
    {"type": "text", "text": "café ☕"},
    {"type": "text", "text": "replacement \ufffd char"},
    {"type": "text", "text": "lone \ud800 surrogate"},
    {"type": "text", "text": "x", "providerOptions": {"a": {"\udc80key": 1}}},
    {"type": "text", "text": "x", "big": 10**30, "nan": float("nan"), "deep": [[[[1]]]]},
    {"type": "tool-call", "toolCallId": "c", "toolName": "f", "input": {"k": ["v", 1.5, None]}},
]


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")  # the record_json path
@pytest.mark.parametrize("part", _ODD_PARTS, ids=range(len(_ODD_PARTS)))
def test_a_record_holds_what_the_standard_encoder_decides(
    part: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    import heal._engine as engine

    content = load_messages([{"role": "assistant", "content": [part]}])[0].content
    assert isinstance(content, tuple)
    (model,) = content
    fast = engine._to_json(model)
    monkeypatch.setattr(engine, "_fast_dumps", None)
    slow = engine._to_json(model)
    assert repr(fast) == repr(slow)  # repr: NaN is not equal to itself


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")
@given(history=histories())
def test_records_hold_what_the_standard_encoder_decides(history: Any) -> None:
    import heal._engine as engine

    for message in load_messages(history):
        parts = (message,) if isinstance(message.content, str) else (message, *message.content)
        for model in parts:
            fast = engine._to_json(model)
            real, engine._fast_dumps = engine._fast_dumps, None
            try:
                slow = engine._to_json(model)
            finally:
                engine._fast_dumps = real
            assert repr(fast) == repr(slow)


_option_values = st.one_of(
    st.text(max_size=4),
    st.text(alphabet="ab\u00e9\ud800", max_size=3),
    st.booleans(),
    st.none(),
    st.integers(),
    st.floats(),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)
_options = st.dictionaries(
    st.sampled_from(("anthropic", "openai", "google", "caf\u00e9")),
    st.dictionaries(st.sampled_from(("signature", "itemId", "k\u00e9y", "\udc80")), _option_values),
    max_size=2,
)


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")  # non-finite floats
@given(
    kind=st.sampled_from(("text", "reasoning")),
    text=st.one_of(st.text(max_size=5), st.sampled_from(("", "thinking", "caf\u00e9"))),
    options=st.one_of(st.none(), _options),
    extra=st.one_of(st.none(), st.dictionaries(st.sampled_from(("x", "cache")), st.integers())),
    loaded=st.booleans(),
)
# Lone surrogates, which the record escapes, in each place the hand-made dump reads.
@example(kind="text", text="\ud800", options=None, extra=None, loaded=True)
@example(kind="text", text="x", options={"\udc80": {"k": "v"}}, extra=None, loaded=True)
@example(kind="text", text="x", options={"a": {"\udc80": "v"}}, extra=None, loaded=True)
@example(kind="reasoning", text="x", options={"a": {"k": "\udc80"}}, extra=None, loaded=False)
def test_a_flat_part_is_dumped_as_pydantic_dumps_it(
    kind: str, text: str, options: Any, extra: Any, loaded: bool
) -> None:
    """The hand-made dump of a removed text or reasoning part is pydantic's, key for key and in
    its order, whenever it is made (None hands the part to pydantic)."""
    from heal._engine import _flat_part_json
    from heal.messages import ReasoningPart

    data: dict[str, Any] = {"type": kind, "text": text}
    if options is not None or loaded:
        data["providerOptions"] = options
    data.update(extra or {})
    if loaded:  # validated from the AI SDK's JSON: every key given counts as set
        (message,) = load_messages([{"role": "assistant", "content": [data]}])
        assert isinstance(message.content, tuple)
        (part,) = message.content
    else:  # built in Python, by field name: the type is counted as set, as the init does
        cls = TextPart if kind == "text" else ReasoningPart
        named = {("provider_options" if k == "providerOptions" else k): v for k, v in data.items()}
        part = cls(**{k: v for k, v in named.items() if k != "type"})
    import heal._engine as engine

    made = engine._to_json(part)
    real, engine._flat_part_json = engine._flat_part_json, lambda part: None
    try:
        assert repr(made) == repr(engine._to_json(part))  # the record pydantic's dump makes
    finally:
        engine._flat_part_json = real
    flat = _flat_part_json(part)  # type: ignore[arg-type]
    if flat is None:
        return
    dumped = part.model_dump(mode="json", exclude_unset=True)
    assert json.dumps(flat) == json.dumps(dumped)
    options_out = flat.get("providerOptions")
    if options_out is not None:  # new containers, as pydantic's dump makes them
        assert options_out is not part.provider_options
        for namespace, values in options_out.items():
            assert values is not part.provider_options[namespace]  # type: ignore[index]


def test_the_flat_parts_have_the_fields_their_dump_writes() -> None:
    """_flat_part_json writes a text or reasoning part's three fields by name, in order."""
    from heal.messages import ReasoningPart

    for cls in (TextPart, ReasoningPart):
        fields = cls.model_fields
        assert list(fields) == ["type", "text", "provider_options"]
        assert [f.serialization_alias or n for n, f in fields.items()] == [
            "type",
            "text",
            "providerOptions",
        ]


@pytest.mark.parametrize(
    ("part", "flat"),
    [
        ({"type": "text", "text": "plain"}, True),
        (
            {
                "type": "reasoning",
                "text": "hmm",
                "providerOptions": {"anthropic": {"signature": "s"}},
            },
            True,
        ),
        (
            {
                "type": "reasoning",
                "text": "",
                "providerOptions": {"openai": {"itemId": "rs_1", "x": None}},
            },
            True,
        ),
        ({"type": "text", "text": "caf\u00e9"}, False),
        ({"type": "text", "text": "x", "providerOptions": {"a": {"k": 1}}}, False),
        ({"type": "text", "text": "x", "providerOptions": {"a": {"k": "\u00e9"}}}, False),
        ({"type": "text", "text": "x", "providerOptions": {"a": {"k": ["v"]}}}, False),
        ({"type": "text", "text": "x", "cache": True}, False),
    ],
    ids=["text", "signed", "item", "non-ascii", "number", "non-ascii-option", "nested", "extra"],
)
def test_the_common_removed_parts_are_dumped_by_hand(part: dict[str, Any], flat: bool) -> None:
    from heal._engine import _flat_part_json, _to_json

    (message,) = load_messages([{"role": "assistant", "content": [part]}])
    assert isinstance(message.content, tuple)
    (model,) = message.content
    made = _flat_part_json(model)  # type: ignore[arg-type]
    assert (made is not None) == flat
    assert json.dumps(_to_json(model)) == json.dumps(part)


def _located(messages: Sequence[ModelMessage], edits: Sequence[Edit]) -> list[Any]:
    """Each message's parts after ``edits`` (part edits of ``messages``, the input), each as its
    identity and input location, by the definition: a part of the input, or one replacing it in
    its place, is where it was; a part dropped and added elsewhere in the batch (moved) too; a
    new part has none. A message of text is its text."""
    from heal.rules import AddPart, DropPart

    where = {
        id(part): (m, p)
        for m, message in enumerate(messages)
        if not isinstance(message.content, str)
        for p, part in enumerate(message.content)
    }
    out: list[Any] = []
    for m, message in enumerate(messages):
        content = message.content
        if isinstance(content, str):
            out.append(content)
            continue
        sets = {e.part: e.new for e in edits if isinstance(e, SetPart) and e.message == m}
        drops = {e.part for e in edits if isinstance(e, DropPart) and e.message == m}
        adds = [e for e in edits if isinstance(e, AddPart) and e.message == m]
        located: list[tuple[int, Any]] = []
        for p, part in enumerate(content):
            located += [(id(e.new), where.get(id(e.new))) for e in adds if e.before == p]
            if p not in drops:
                located.append((id(sets.get(p, part)), (m, p)))
        located += [(id(e.new), where.get(id(e.new))) for e in adds if e.before >= len(content)]
        out.append(located)
    return out


@settings(max_examples=80)
@given(history=histories(), data=st.data())
def test_part_edits_keep_each_parts_input_location(history: Any, data: st.DataObject) -> None:
    # The engine's copies of edited messages hold the very parts, each with its input location
    # (what a later repair's record names): renamed ids and parts added at the start of a
    # message take paths of their own, every other batch the general one.
    import heal._engine as engine
    from heal.rules import AddPart, DropPart

    messages = load_messages(history)
    with_parts = [m for m, message in enumerate(messages) if isinstance(message.content, tuple)]
    with_parts = [m for m in with_parts if messages[m].content]
    chosen = data.draw(st.lists(st.sampled_from(with_parts), unique=True)) if with_parts else []
    edits: list[Edit] = []
    for m in chosen:
        content = messages[m].content
        assert not isinstance(content, str)
        kind = data.draw(st.sampled_from(["add-first", "set", "drop", "add-last", "move"]))
        p = data.draw(st.integers(0, len(content) - 1))
        new = TextPart(text=f"new {m}")
        if kind == "add-first":
            edits += [AddPart(m, 0, new)] * data.draw(st.integers(1, 2))
        elif kind == "set":
            edits.append(SetPart(m, p, new))
        elif kind == "drop":
            edits.append(DropPart(m, p))
        elif kind == "add-last":
            edits.append(AddPart(m, len(content), new))
        else:  # dropped here, added at the start of a message (this one or another)
            edits += [
                DropPart(m, p),
                AddPart(data.draw(st.sampled_from(with_parts)), 0, content[p]),
            ]
    work, origin, _ = engine._apply(messages, engine._Origin(messages), edits)
    got: list[Any] = []
    for m, message in enumerate(work):
        content = message.content
        if isinstance(content, str):
            got.append(content)
        else:
            locations = origin.parts_of(m, len(content))
            got.append([(id(part), loc) for part, loc in zip(content, locations, strict=True)])
    assert got == _located(messages, edits)


@given(history=histories())
def test_a_message_with_new_content_is_pydantics_copy(history: Any) -> None:
    # The engine gives an edited message its new parts by ``replaced``.
    from heal._construct import replaced

    for message in load_messages(history):
        if isinstance(message.content, str):
            continue  # the engine edits the parts of messages that have parts
        parts = message.content[:1]
        want = message.model_copy(update={"content": parts})
        got = replaced(message, {"content": parts})
        assert type(got) is type(want)
        assert got.__dict__ == want.__dict__
        assert got.model_fields_set == want.model_fields_set
        assert got.__pydantic_extra__ == want.__pydantic_extra__
        assert (
            got.__pydantic_extra__ is not message.__pydantic_extra__
            or not message.__pydantic_extra__
        )
        assert got.__pydantic_private__ == want.__pydantic_private__
        assert dump_messages([got]) == dump_messages([want])


class _Text(str):
    pass


class _Mapping(dict):  # type: ignore[type-arg]
    pass


_STRINGS = st.text(alphabet=st.sampled_from(["a", "é", "\udc80", "\ud83d", "\\"]), max_size=4)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    _STRINGS,
    _STRINGS.map(_Text),
)
_RECORD_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(st.one_of(_STRINGS, _STRINGS.map(_Text)), inner, max_size=3),
        st.dictionaries(_STRINGS, inner, max_size=3).map(_Mapping),
    ),
    max_leaves=12,
)


def _escaped_by_definition(value: Any) -> Any:
    if isinstance(value, str):
        if not any("\ud800" <= c <= "\udfff" for c in value):
            return value
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {_escaped_by_definition(k): _escaped_by_definition(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_escaped_by_definition(v) for v in value]
    return value


@given(_RECORD_VALUES)
def test_record_values_are_copied_with_lone_surrogates_escaped(value: Any) -> None:
    # The engine's copy of what a record keeps: new containers (lists for tuples), every lone
    # surrogate escaped, every other value the very object given.
    from heal._engine import escaped_json

    got = escaped_json(value)
    expected = _escaped_by_definition(value)
    assert repr(got) == repr(expected)
    assert _shape(got) == _shape(expected)


def _shape(value: Any) -> Any:
    """The classes and, for values kept as they are, the identities in ``value``."""
    if isinstance(value, dict):
        return ("dict", [(_shape(k), _shape(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [_shape(v) for v in value])
    return (type(value).__name__, id(value) if type(value) is _Text else None)


def test_a_placeholder_results_record_is_its_dump_made_new_each_time() -> None:
    # An orphan call in every turn records a placeholder result per turn: the common one (the
    # shared text, an id and name with nothing to escape) as a literal, the others as dumps.
    from heal._engine import _to_json
    from heal.rules._base import FreshJson
    from heal.rules.tool_pairing import _placeholder, _placeholder_record

    def call(tid: str, name: str) -> Any:
        return load_messages([{"role": "assistant", "content": [ex.call(tid, name)]}])[0].content[0]

    plain = _placeholder(call("call_1", "get_weather"), None)
    fresh = _placeholder_record(plain)
    assert type(fresh) is FreshJson
    first, second = _to_json(fresh), _to_json(fresh)
    assert json.dumps(first) == json.dumps(second) == json.dumps(_to_json(plain))
    assert first is not second and first["output"] is not second["output"]
    assert first["providerOptions"]["heal"] is not second["providerOptions"]["heal"]
    denied = load_messages(
        [
            {
                "role": "tool",
                "content": [
                    {"type": "tool-approval-response", "approvalId": "a", "approved": False}
                ],
            }
        ]
    )[0].content[0]
    assert isinstance(denied, ToolApprovalResponse)
    for other in (
        _placeholder(call("call_\ud800", "f"), None),  # a lone surrogate, escaped in a dump
        _placeholder(call("call_1", "météo"), None),
        _placeholder(call("call_1", "f"), denied),
    ):
        assert _placeholder_record(other) is other


def test_fresh_record_json_is_the_dump_of_what_it_stands_for_and_new_each_time() -> None:
    from heal._engine import _to_json
    from heal.rules import compat, mistral

    for fresh, model in (
        (compat._EMPTY_REASONING_JSON, compat._EMPTY_REASONING),
        (mistral._BRIDGE_JSON, mistral._BRIDGE),
    ):
        first, second = _to_json(fresh), _to_json(fresh)
        assert first == second == model.model_dump(mode="json", exclude_unset=True)
        assert first is not second
        assert first["providerOptions"] is not second["providerOptions"]
        assert first["providerOptions"]["heal"] is not second["providerOptions"]["heal"]
