"""Targets: model ids in every style, the facts of each model family, the target keywords of
``heal_messages``, and the guarantees (idempotent, output validates) for any target.

What each capability changes is in the case files (``tests/cases/target/``, and the cases with a
``model`` in the packs' files); this module checks the machinery around them.
"""

from __future__ import annotations

import copy
import dataclasses
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heal import (
    PROVIDERS,
    Action,
    ConfigError,
    Target,
    dump_messages,
    heal_messages,
    validate_messages,
)
from heal.providers import infer_provider
from heal.rules import BUILTIN_RULES
from heal.targets import (
    BUILTIN_FAMILIES,
    UNKNOWN,
    ModelFacts,
    ModelFamily,
    model_facts,
    model_name,
    register_model_family,
    signature_scope,
    tool_names,
    unregister_model_family,
)
from tests.strategies import histories, policies

History = list[dict[str, Any]]


# --- model ids ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "name", "provider"),
    [
        ("claude-sonnet-4-5", "claude-sonnet-4-5", "anthropic"),
        ("anthropic/claude-sonnet-4.5", "claude-sonnet-4-5", "anthropic"),  # AI Gateway
        ("anthropic:claude-sonnet-4-5", "claude-sonnet-4-5", "anthropic"),  # pydantic-ai
        ("gateway/anthropic:claude-sonnet-4-5", "claude-sonnet-4-5", "anthropic"),
        ("claude-sonnet-4-5@20250929", "claude-sonnet-4-5@20250929", "anthropic"),  # Vertex
        # Bedrock ids name a model, not a wire format (Converse or InvokeModel): no provider.
        ("anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5-20250929", None),
        ("us.anthropic.claude-opus-4-8-v1:0", "claude-opus-4-8", None),
        (
            "arn:aws:bedrock:us-east-1:1:inference-profile/us.anthropic.claude-3-7-sonnet-v1:0",
            "claude-3-7-sonnet",
            None,
        ),
        (
            "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "claude-sonnet-4-5-20250929",
            "bedrock",
        ),
        ("mistral/mistral-large-latest", "mistral-large-latest", "mistral"),  # LiteLLM
        ("mistral-large-latest", "mistral-large-latest", "mistral"),
        ("magistral-medium-2506", "magistral-medium-2506", "mistral"),
        ("gemini-2.5-flash", "gemini-2.5-flash", "google"),
        ("models/gemini-3-pro-preview", "gemini-3-pro-preview", "google"),
        ("google-gla:gemini-3-flash", "gemini-3-flash", "google"),
        ("o4-mini", "o4-mini", "openai-chat"),
        ("deepseek-chat", "deepseek-chat", "deepseek"),
        ("llama3.1:8b", "llama3.1:8b", None),  # Ollama tag, not a pydantic-ai prefix
    ],
)
def test_model_ids_in_every_style(model: str, name: str, provider: str | None) -> None:
    assert model_name(model) == name
    assert infer_provider(model) == provider
    assert Target.of(model=model).provider == provider


@pytest.mark.parametrize(
    ("model", "fact", "value"),
    [
        ("claude-sonnet-4-5-20250929", "prefill", True),
        ("claude-sonnet-4-6", "prefill", False),
        ("claude-opus-4-8", "mid_conversation_system", True),
        ("claude-opus-4-5", "mid_conversation_system", False),
        ("claude-opus-5-5", "binds_thinking_prefix", True),
        ("claude-opus-5-5", "thinking", "always"),
        ("claude-opus-4-9", "prefill", None),  # a Claude heal has no facts for: unknown
        ("claude-opus-4-9", "image_input", True),
        ("gemini-3-pro-preview", "thought_signatures_required", True),
        ("gemini-2.5-flash", "thought_signatures_required", False),
        ("magistral-small-latest", "reasoning_input", True),
        ("mistral-large-latest", "reasoning_input", False),
        ("codestral-latest", "reasoning_input", False),
        ("o3-mini", "image_input", False),
        ("o3", "image_input", True),
        ("gpt-4o-mini", "image_input", True),
        ("deepseek-reasoner", "image_input", False),
        ("my-local-model", "image_input", None),
    ],
)
def test_model_facts(model: str, fact: str, value: object) -> None:
    assert getattr(model_facts(model), fact) == value


def test_no_model_means_every_fact_unknown() -> None:
    assert model_facts(None) is UNKNOWN
    assert UNKNOWN.known() == {}
    assert Target().facts is UNKNOWN


def test_every_built_in_fact_has_a_source() -> None:
    for family in BUILTIN_FAMILIES:
        assert family.facts.known(), family.name
        assert set(family.sources) == set(family.facts.known()), family.name
        assert all(source.strip() for source in family.sources.values()), family.name


def test_a_family_needs_a_source_for_each_fact() -> None:
    with pytest.raises(ConfigError, match="image_input"):
        ModelFamily("mine", r"mine-", ModelFacts(image_input=False))
    with pytest.raises(ConfigError, match="bad pattern"):
        ModelFamily("mine", r"(", ModelFacts())


def test_signature_scope_ignores_dates_not_models() -> None:
    assert signature_scope("claude-sonnet-4-5-20250929") == signature_scope("claude-sonnet-4-5")
    assert signature_scope("anthropic/claude-sonnet-4.5") == "claude-sonnet-4-5"
    assert signature_scope("claude-opus-4-5") != signature_scope("claude-sonnet-4-5")


def test_tool_names_from_definitions_of_every_sdk() -> None:
    definitions = [
        "plain",
        {"name": "anthropic_style", "input_schema": {}},
        {"type": "function", "function": {"name": "chat_style"}},
        {"functionDeclarations": [{"name": "gemini_style"}]},
        {"type": "web_search_20250305"},  # a server tool without a name
        type("Tool", (), {"name": "object_style"})(),
    ]
    assert tool_names(definitions) == [
        "plain",
        "anthropic_style",
        "chat_style",
        "gemini_style",
        "object_style",
    ]
    with pytest.raises(ConfigError):
        tool_names("get_weather")  # a string, not a list of names
    with pytest.raises(ConfigError):
        tool_names([{"name": 3}])


# --- the target keywords ---------------------------------------------------------------------

PREFILL: History = [
    {"role": "user", "content": "Name a color"},
    {"role": "assistant", "content": "Blue"},
]


def test_model_keyword_and_target_agree() -> None:
    by_keywords = heal_messages(PREFILL, model="claude-sonnet-4-6")
    by_target = heal_messages(PREFILL, target=Target.of(model="claude-sonnet-4-6"))
    assert dump_messages(by_keywords.messages) == dump_messages(by_target.messages)
    assert [r.rule for r in by_keywords.repairs] == ["anthropic-assistant-prefill"]
    # The same history for a model that takes a prefill, and for no model: unchanged.
    assert heal_messages(PREFILL, model="claude-sonnet-4-5").repairs == ()
    assert heal_messages(PREFILL, provider="anthropic").repairs == ()


def test_the_provider_given_wins_over_the_model() -> None:
    target = Target.of("openai-compatible", "claude-sonnet-4-5")
    assert target.provider == "openai-compatible"
    assert target.facts.prefill is True


def test_bad_targets_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="either target"):
        heal_messages(PREFILL, provider="anthropic", target=Target("anthropic"))
    with pytest.raises(ConfigError, match="unknown provider"):
        Target.of("no-such-provider")
    with pytest.raises(ConfigError, match="model"):
        heal_messages(PREFILL, model="  ")
    with pytest.raises(ConfigError, match="thinking"):
        heal_messages(PREFILL, thinking="yes")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="target must be"):
        heal_messages(PREFILL, target="anthropic")  # type: ignore[arg-type]


def test_a_user_family_overrides_a_built_in_fact() -> None:
    sonnet_45 = next(f for f in BUILTIN_FAMILIES if f.name == "Claude 3 to 4.5")
    strict = dataclasses.replace(
        sonnet_45,
        name="Claude 3 to 4.5, my gateway rejects prefill",
        facts=dataclasses.replace(sonnet_45.facts, prefill=False),
        sources={**sonnet_45.sources, "prefill": "our gateway's error log"},
    )
    assert heal_messages(PREFILL, model="claude-sonnet-4-5").repairs == ()
    register_model_family(strict)
    try:
        healed = heal_messages(PREFILL, model="claude-sonnet-4-5")
        assert [r.rule for r in healed.repairs] == ["anthropic-assistant-prefill"]
    finally:
        unregister_model_family(strict)
    assert heal_messages(PREFILL, model="claude-sonnet-4-5").repairs == ()


def test_a_user_rule_for_some_models_only() -> None:
    from heal.rules import Context, Finding, Rule

    class NoEmojiForExample(Rule):
        """Reports a 🙂 for example-provider's models."""

        id = "example-no-emoji"
        summary = "a smiley in a history sent to example-provider's models"
        models = r"example-"
        choice_docs = {"fix": "report only"}

        def check(self, ctx: Context, choice: str) -> Any:
            assert ctx.target.model is not None
            for m, p, part in ctx.index.texts:
                if "🙂" in part.text:
                    yield Finding(Action.KEEP, m, p, f"smiley for {ctx.target.model}")

    rule = NoEmojiForExample()
    history = [{"role": "user", "content": [{"type": "text", "text": "hi 🙂"}]}]
    assert [r.rule for r in heal_messages(history, rules=[rule], model="example-1").repairs] == [
        "example-no-emoji"
    ]
    assert heal_messages(history, rules=[rule], model="other-1").repairs == ()
    assert heal_messages(history, rules=[rule]).repairs == ()


def test_rules_that_read_the_target_stay_off_without_one() -> None:
    """No model, no tools, no thinking setting: the target rules do not run at all."""
    bare = Target()
    off = [r.id for r in BUILTIN_RULES if r.enabled_for(bare) is False]
    assert {
        "tool-not-offered",
        "model-without-image-input",
        "claude-foreign-model-signature",
        "claude-thinking-prefix-binding",
    } <= set(off)


# --- guarantees for any target -------------------------------------------------------------

MODELS = [
    None,
    "claude-sonnet-4-5",
    "claude-sonnet-4-6",
    "claude-opus-5-5",
    "us.anthropic.claude-opus-4-5-20251101-v1:0",
    "mistral-large-latest",
    "magistral-medium-latest",
    "gemini-2.5-flash",
    "gemini-3-pro-preview",
    "o3-mini",
    "gpt-4o",
    "deepseek-chat",
]


@st.composite
def targets(draw: st.DrawFn) -> Target:
    provider = draw(st.sampled_from([None, *PROVIDERS]))
    model = draw(st.sampled_from(MODELS))
    thinking = draw(st.sampled_from([None, True, False]))
    tools = draw(
        st.one_of(
            st.none(),
            st.lists(st.sampled_from(("search", "get_weather", "f", "run-code")), max_size=3),
        )
    )
    binding = draw(st.sampled_from([None, "drop_block"]))
    return Target.of(
        provider, model, thinking=thinking, tools=tools, prefix_mismatch_behavior=binding
    )


@given(x=histories(), target=targets(), policy=policies)
def test_any_target_heals_idempotently_to_a_valid_history(
    x: History, target: Target, policy: Any
) -> None:
    before = copy.deepcopy(x)
    h1 = heal_messages(x, target=target, policy=policy)
    assert x == before, "the input was mutated"
    h2 = heal_messages(h1.messages, target=target, policy=policy)
    assert dump_messages(h2.messages) == dump_messages(h1.messages)
    assert not [r for r in h2.repairs if r.changed], [r.describe() for r in h2.repairs]
    check = validate_messages(h1.messages, target=target, policy=policy)
    reported = sorted((r.rule, r.reason) for r in h1.repairs if r.action is Action.REPORT)
    left = sorted((r.rule, r.reason) for r in check.issues if r.action is not Action.KEEP)
    assert left == reported, check.report()


# --- the real AI SDK judges the target cases ----------------------------------------------------


@pytest.mark.interop
def test_target_cases_pass_the_ai_sdk_for_the_model_they_name() -> None:
    """Every case of ``tests/cases/target`` (ok histories and healed outputs) goes through the
    real AI SDK: the schema, ai core, and the provider's own package building the request for
    the model the case names, whose body then passes the provider's wire checks."""
    from tests.case_runner import healed_or_ok, pack_cases
    from tests.interop.judge import ensure_node_modules, judge
    from tests.test_provider_anthropic import anthropic_wire_problems
    from tests.test_provider_bedrock import bedrock_wire_problems
    from tests.test_provider_google import google_wire_problems
    from tests.test_provider_openai import wire_problems

    if ensure_node_modules() is None:
        pytest.skip("node and npm are not installed; the interop judge cannot run")
    # Keyed by the case's provider, which may be None (such a case has no package of its own).
    packages: dict[str | None, tuple[str, Callable[[Any], list[str]]]] = {
        "anthropic": ("anthropic", anthropic_wire_problems),
        "bedrock": ("bedrock", bedrock_wire_problems),
        "google": ("google", google_wire_problems),
        "openai-chat": ("openai-chat", lambda body: wire_problems("openai-chat", body)),
        "mistral": ("mistral", lambda body: wire_problems("mistral", body)),
    }
    batch: list[dict[str, Any]] = []
    checks = []
    for param in pack_cases("target"):
        rule, case = param.values
        healed = healed_or_ok(case)
        provider = Target.of(case.get("provider"), case.get("model")).provider
        deliberate = any(r["action"] in ("report", "keep") for r in case.get("repairs", ()))
        targets = ["schema", "core"]
        if provider in packages and not deliberate:
            targets.append(packages[provider][0])
        for target in targets:
            item = {
                "id": f"{rule}: {case['name']} [{target}]",
                "target": target,
                "messages": healed,
            }
            if target not in ("schema", "core") and case.get("model"):
                item["model"] = case["model"]
            batch.append(item)
            checks.append(packages[provider][1] if target not in ("schema", "core") else None)
    results = judge(batch)
    failures = []
    for item, result, check in zip(batch, results, checks, strict=True):
        if not result["ok"]:
            failures.append(f"{item['id']}: {result['stage']}: {result['error']}")
        elif check is not None:
            failures += [f"{item['id']}: {p}" for p in check(result["body"])]
    assert len(batch) >= 60
    assert failures == []


# --- heal check on provider-made histories -------------------------------------------------------

CLEAN_ANTHROPIC = Path(__file__).parent / "data" / "anthropic_clean"
"""Histories as the Anthropic API produced and accepted them (request parameters with the
messages), carrying signed and redacted thinking; one whose last request forced a tool call,
which Anthropic allows only with thinking off, so its open tool loop starts with text."""


def _check(*argv: str) -> tuple[int, str]:
    from heal.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = main(["check", *argv], stdout=out, stderr=err)
    assert err.getvalue() == ""
    return code, out.getvalue()


def test_check_passes_provider_made_anthropic_histories_for_their_model() -> None:
    code, out = _check(
        "--provider", "anthropic", "--model", "claude-sonnet-4-5", str(CLEAN_ANTHROPIC)
    )
    assert code == 0, out
    assert out.endswith("3 histories checked: 0 invalid, 0 issue(s), 0 error(s)\n")
    # Told that the request thinks, the forced-tool history is one Anthropic would reject.
    code, out = _check(
        "--provider",
        "anthropic",
        "--model",
        "claude-sonnet-4-5",
        "--thinking",
        "on",
        str(CLEAN_ANTHROPIC),
    )
    assert code == 1
    assert "forced_tool_thinking_off.json" in out and "anthropic-tool-loop-thinking" in out


def test_stored_message_lists_need_the_model_to_pass(tmp_path: Path) -> None:
    """Stored as bare message lists, the histories no longer say which model made them: with no
    model heal keeps its conservative default (the tool-loop report), with one it does not."""
    for source in sorted(CLEAN_ANTHROPIC.glob("*.json")):
        params = json.loads(source.read_text(encoding="utf-8"))
        (tmp_path / source.name).write_text(json.dumps(params["messages"]), encoding="utf-8")
    code, out = _check("--provider", "anthropic", str(tmp_path))
    assert code == 1 and "anthropic-tool-loop-thinking" in out
    code, out = _check("--provider", "anthropic", "--model", "claude-sonnet-4-5", str(tmp_path))
    assert code == 0, out
    code, out = _check("--model", "anthropic/claude-sonnet-4.5", "--thinking", "off", str(tmp_path))
    assert code == 0 and "left as is" not in out, out


def test_check_rejects_a_bad_thinking_value() -> None:
    from heal.cli import main

    err = io.StringIO()
    code = main(
        ["check", "--thinking", "maybe", str(CLEAN_ANTHROPIC)], stdout=io.StringIO(), stderr=err
    )
    assert code == 2
    assert "argument --thinking: expected on or off, got 'maybe'" in err.getvalue()


def test_migrate_reads_each_rows_model_from_its_column(tmp_path: Path) -> None:
    """``migrate --model-column``: each row heals for the model it was stored with (a row with
    none for ``--model``), and a row whose model cell is not an id fails alone."""
    import sqlite3

    from heal.cli import main

    path = tmp_path / "chats.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE chats (id INTEGER PRIMARY KEY, messages TEXT, model TEXT)")
    rows = [
        (1, json.dumps(PREFILL), "claude-sonnet-4-6"),  # rejects prefill: dropped
        (2, json.dumps(PREFILL), "claude-sonnet-4-5"),  # takes it: kept
        (3, json.dumps(PREFILL), None),  # --model applies: claude-opus-4-7 rejects it
        (4, json.dumps(PREFILL), "   "),  # not a model id: the row fails, unchanged
    ]
    conn.executemany("INSERT INTO chats VALUES (?, ?, ?)", rows)
    conn.commit()
    conn.close()
    out, err = io.StringIO(), io.StringIO()
    argv = [
        "migrate",
        f"sqlite:///{path}",
        "--table",
        "chats",
        "--column",
        "messages",
        "--model-column",
        "model",
        "--model",
        "claude-opus-4-7",
        "--all-rules",
    ]
    code = main(argv, stdout=out, stderr=err)
    assert code == 2, out.getvalue() + err.getvalue()  # the failed row
    assert "failed row 4: ConfigError: model must be a non-empty model id string" in out.getvalue()
    conn = sqlite3.connect(path)
    stored = {i: json.loads(m) for i, m in conn.execute("SELECT id, messages FROM chats")}
    conn.close()
    assert stored[1] == PREFILL[:1]
    assert stored[2] == PREFILL
    assert stored[3] == PREFILL[:1]
    assert stored[4] == PREFILL
    # A model column that is not there is named, as every other column is.
    code = main(
        [*argv[:7], "modell", *argv[8:]], stdout=io.StringIO(), stderr=(err := io.StringIO())
    )
    assert code == 2 and "--model-column" in err.getvalue()


READS_THE_TARGET = {
    "anthropic-tool-loop-thinking": "thinking (request), thinking (model: always thinks)",
    "anthropic-assistant-prefill": "prefill",
    "anthropic-mid-conversation-system": "mid_conversation_system",
    "bedrock-mid-conversation-system": "(family: none for Bedrock)",
    "google-mid-conversation-system": "(family: none for Gemini)",
    "google-missing-thought-signature": "thought_signatures_required",
    "mistral-reasoning-input": "reasoning_input",
    "cerebras-strip-reasoning-content": "(family: none for Cerebras)",
    "groq-unsupported-reasoning": "(family: none for Groq)",
    "tool-not-offered": "tools (request)",
    "model-without-image-input": "image_input",
    "claude-foreign-model-signature": "model (signature scope)",
    "claude-thinking-prefix-binding": "binds_thinking_prefix, prefix_mismatch_behavior",
}
"""The rules whose running depends on the target (they override ``Rule.enabled_for``), and what
each reads: the table in docs and notes. A rule that starts or stops depending on the target
must be added here on purpose."""


def test_the_rules_that_read_the_target_are_the_documented_ones() -> None:
    from heal.rules import Rule

    overriding = {r.id for r in BUILTIN_RULES if type(r).enabled_for is not Rule.enabled_for}
    assert overriding == set(READS_THE_TARGET)
    # A family's instances for providers without the fact never change with the model.
    for rule_id in ("bedrock-mid-conversation-system", "cerebras-strip-reasoning-content"):
        rule = next(r for r in BUILTIN_RULES if r.id == rule_id)
        assert {rule.enabled_for(Target.of(rule_id.split("-")[0], m)) for m in MODELS} == {None}
