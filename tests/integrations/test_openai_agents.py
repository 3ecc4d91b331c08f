"""The OpenAI Agents SDK input filter, run with ``Runner.run`` and the SDK's own scripted test
model (``agents.testing.ScriptedModel``), which records the input of every model call."""

from __future__ import annotations

import asyncio
import copy
import logging
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner, function_tool
from agents.models import get_default_model
from agents.models.openai_chatcompletions import OpenAIChatCompletionsModel
from agents.models.openai_responses import OpenAIResponsesModel
from agents.run_config import CallModelData, ModelInputData
from agents.testing import ScriptedModel, assistant_message, function_call
from openai import AsyncOpenAI

from heal import ConfigError, HealingError, ProviderId, Repair, validate_messages
from heal.adapters import openai_responses as responses_adapter
from heal.adapters.openai_responses import load_messages
from heal.integrations.openai_agents import (
    agent_tool_names,
    heal_input_filter,
    model_name,
    provider_for_model,
)

from .loads import counted_loads

LONG_ID = "call_" + "x" * 45  # 50 characters: Responses takes 64, Chat Completions 40

Item = dict[str, Any]


def user(text: str) -> Item:
    return {"role": "user", "content": text}


def call(call_id: str) -> Item:
    return {
        "type": "function_call",
        "call_id": call_id,
        "name": "get_weather",
        "arguments": '{"city": "Paris"}',
    }


def output(call_id: str, text: str = "sunny") -> Item:
    return {"type": "function_call_output", "call_id": call_id, "output": text}


BROKEN: list[Any] = [
    user("weather in Paris?"),
    call("c1"),
    user("hurry up"),  # between the call and its output
    output("c1"),
    output("c1", "sunny, again"),  # duplicated
    output("gone"),  # its call is nowhere
    call("c2"),  # never answered
    user("and tomorrow?"),
]

CLEAN: list[Any] = [
    user("weather in Paris?"),
    call("c1"),
    output("c1"),
    {"role": "assistant", "content": "It is sunny."},
    user("and tomorrow?"),
]


@function_tool
def get_weather(city: str) -> str:
    """The weather in a city (the tool the histories here call)."""
    return "sunny"


def run(
    items: list[Any],
    *,
    steps: int = 1,
    model: Any = None,
    tools: Any = (),
    **options: Any,
) -> tuple[ScriptedModel, Any]:
    scripted = ScriptedModel([[assistant_message("ok")] for _ in range(steps)])
    agent = Agent(name="assistant", model=model or scripted, tools=list(tools))
    config = RunConfig(call_model_input_filter=heal_input_filter(**options), tracing_disabled=True)
    result = asyncio.run(Runner.run(agent, copy.deepcopy(items), run_config=config))
    return scripted, result


def assert_valid(items: list[Any], provider: ProviderId | None = None) -> None:
    result = validate_messages(load_messages(items), provider=provider)
    assert result.valid, result.report()


def shape(items: list[Any]) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for item in items:
        kind = item.get("type", "message")
        if kind == "message":
            out.append((item["role"], item["content"]))
        elif kind == "function_call_output":
            out.append(("output", (item["call_id"], item["output"])))
        else:
            out.append((kind, item.get("call_id")))
    return out


def test_broken_input_reaches_the_model_healed_and_the_run_keeps_its_items() -> None:
    repairs: list[Repair] = []
    model, result = run(BROKEN, on_repair=repairs.append)

    sent = model.calls[0].input
    assert_valid(sent)
    assert shape(sent) == [
        ("user", "weather in Paris?"),
        ("function_call", "c1"),
        ("output", ("c1", "sunny")),
        ("user", "hurry up"),
        ("function_call", "c2"),
        ("output", ("c2", sent[5]["output"])),  # heal's placeholder output
        ("user", "and tomorrow?"),
    ]
    assert {r.rule for r in repairs} >= {
        "misplaced-tool-result",
        "duplicate-tool-result",
        "orphan-tool-result",
        "orphan-tool-call",
    }
    # Only the request is healed: the run's own items are what was passed in.
    assert result.to_input_list()[: len(BROKEN)] == BROKEN


def test_clean_input_goes_out_unchanged() -> None:
    repairs: list[Repair] = []
    model, _ = run(CLEAN, tools=[get_weather], on_repair=repairs.append)
    assert repairs == []
    assert model.calls[0].input == CLEAN


def test_filter_returns_the_sdk_objects_it_did_not_change() -> None:
    heal = heal_input_filter()
    agent: Agent[Any] = Agent(name="assistant")

    clean = ModelInputData(input=list(CLEAN), instructions="Be brief.")
    assert asyncio.run(heal(CallModelData(clean, agent, None))) is clean

    broken = ModelInputData(input=list(BROKEN), instructions="Be brief.")
    healed = asyncio.run(heal(CallModelData(broken, agent, None)))
    assert healed.instructions == "Be brief."
    # The SDK tracks sent items by identity: untouched items are its own objects.
    assert healed.input[0] is BROKEN[0]
    assert healed.input[1] is BROKEN[1]
    assert healed.input[2] is BROKEN[3]


def test_every_model_call_of_a_run_is_healed() -> None:
    scripted = ScriptedModel(
        [[function_call("get_weather", {"city": "Paris"}, call_id="c9")], [assistant_message("ok")]]
    )
    agent = Agent(name="assistant", model=scripted, tools=[get_weather])
    config = RunConfig(call_model_input_filter=heal_input_filter(), tracing_disabled=True)
    result = asyncio.run(Runner.run(agent, copy.deepcopy(BROKEN), run_config=config))
    assert result.final_output == "ok"
    first, second = scripted.calls
    assert_valid(first.input)
    assert_valid(second.input)
    assert shape(second.input)[-2:] == [("function_call", "c9"), ("output", ("c9", "sunny"))]


def test_a_clean_run_is_judged_without_loading(monkeypatch: pytest.MonkeyPatch) -> None:
    loaded = counted_loads(monkeypatch, responses_adapter, "_Reader")
    scripted = ScriptedModel(
        [[function_call("get_weather", {"city": "Rome"}, call_id="c9")], [assistant_message("ok")]]
    )
    agent = Agent(name="assistant", model=scripted, tools=[get_weather])
    repairs: list[Repair] = []
    config = RunConfig(
        call_model_input_filter=heal_input_filter(on_repair=repairs.append), tracing_disabled=True
    )
    result = asyncio.run(Runner.run(agent, copy.deepcopy(CLEAN), run_config=config))
    assert result.final_output == "ok"
    _, second = scripted.calls
    # The second request holds the SDK's own items of the first answer, as the run keeps them.
    assert shape(second.input)[-2:] == [("function_call", "c9"), ("output", ("c9", "sunny"))]
    assert loaded == [] and repairs == []


def test_streamed_runs_are_healed() -> None:
    scripted = ScriptedModel([[assistant_message("ok")]])
    agent = Agent(name="assistant", model=scripted)
    config = RunConfig(call_model_input_filter=heal_input_filter(), tracing_disabled=True)

    async def stream() -> None:
        result = Runner.run_streamed(agent, copy.deepcopy(BROKEN), run_config=config)
        async for _ in result.stream_events():
            pass

    asyncio.run(stream())
    assert_valid(scripted.calls[0].input)


def test_provider_can_be_forced() -> None:
    items = [user("hi"), call(LONG_ID), output(LONG_ID)]
    for provider, shortened in (("openai-chat", True), ("openai-responses", False), (None, False)):
        model, _ = run(items, provider=provider)
        sent = model.calls[0].input
        assert (sent[1]["call_id"] != LONG_ID) is shortened, provider
        assert sent[2]["call_id"] == sent[1]["call_id"]


def client(base_url: str | None = None) -> AsyncOpenAI:
    return AsyncOpenAI(api_key="test", base_url=base_url)


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        (None, "openai-responses"),
        ("gpt-4o", "openai-responses"),
        ("openai/gpt-4o", "openai-responses"),
        ("litellm/anthropic/claude-sonnet-4-5", "anthropic"),
        ("litellm/gemini/gemini-2.5-pro", "google"),
        ("any-llm/openrouter/openai/gpt-4o", None),
        (OpenAIResponsesModel("gpt-4o", client()), "openai-responses"),
        (OpenAIChatCompletionsModel("gpt-4o", client()), "openai-chat"),
        (OpenAIChatCompletionsModel("x", client("https://api.deepseek.com/v1")), "deepseek"),
        (OpenAIChatCompletionsModel("x", client("http://localhost:8000/v1")), "openai-compatible"),
        (ScriptedModel(), None),
    ],
)
def test_provider_for_model(model: Any, expected: ProviderId | None) -> None:
    assert provider_for_model(model) == expected


def test_provider_follows_the_agent_model_or_the_run_config_model() -> None:
    # The filter sees the agent, not the RunConfig: a chat-completions agent model (40-character
    # ids) decides, unless the filter is told the RunConfig's model. The scripted model serves
    # the run and records what it gets.
    items: list[Any] = [user("hi"), call(LONG_ID), output(LONG_ID)]
    for told, shortened in ((None, True), ("gpt-4o", False)):
        scripted = ScriptedModel([[assistant_message("ok")]])
        agent = Agent(name="assistant", model=OpenAIChatCompletionsModel("gpt-4o", client()))
        heal = heal_input_filter(model=told)
        config = RunConfig(model=scripted, call_model_input_filter=heal, tracing_disabled=True)
        asyncio.run(Runner.run(agent, copy.deepcopy(items), run_config=config))
        assert (scripted.calls[0].input[1]["call_id"] != LONG_ID) is shortened, told


def test_server_managed_runs_keep_outputs_of_calls_made_on_the_server() -> None:
    # With previous_response_id the SDK sends only new items: this output answers a call made in
    # the previous response, which the server holds.
    items: list[Any] = [output("call_prev", "42")]
    for server_managed, kept in ((True, True), (False, False)):
        scripted = ScriptedModel([[assistant_message("ok")]])
        agent = Agent(name="assistant", model=scripted)
        heal = heal_input_filter(server_managed=server_managed)
        config = RunConfig(call_model_input_filter=heal, tracing_disabled=True)
        asyncio.run(
            Runner.run(
                agent, copy.deepcopy(items), run_config=config, previous_response_id="resp_1"
            )
        )
        assert scripted.calls[0].previous_response_id == "resp_1"
        assert (scripted.calls[0].input == items) is kept, server_managed


def test_then_runs_another_filter_first() -> None:
    seen: list[int] = []

    async def add_orphan(data: CallModelData[Any]) -> ModelInputData:
        seen.append(len(data.model_data.input))
        items: list[Any] = [*data.model_data.input, output("gone")]
        return ModelInputData(input=items, instructions=data.model_data.instructions)

    model, _ = run(CLEAN, then=add_orphan)
    assert seen == [len(CLEAN)]
    assert model.calls[0].input == CLEAN


def test_repairs_are_logged_without_a_callback(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="heal"):
        run([user("hi"), output("gone")])
    records = [r for r in caplog.records if r.name == "heal"]
    assert records and all(r.levelno == logging.INFO for r in records)
    assert "orphan-tool-result" in records[0].getMessage()


def test_strict_fails_the_run_instead_of_sending() -> None:
    with pytest.raises(HealingError):
        run(BROKEN, strict=True)


def test_bad_options_fail_when_built() -> None:
    with pytest.raises(ConfigError):
        heal_input_filter(provider="nope")  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        heal_input_filter(policy={"no-such-rule": "fix"})


# --- the target of the call ----------------------------------------------------------------------

PNG = "data:image/png;base64,iVBORw0KGgo="
LOOKED: list[Any] = [
    {
        "role": "user",
        "content": [
            {"type": "input_text", "text": "what is this?"},
            {"type": "input_image", "image_url": PNG, "detail": "auto"},
        ],
    },
    {"role": "assistant", "content": "A logo."},
    user("and now?"),
]


@pytest.mark.parametrize("told", [False, True])
def test_input_is_healed_for_the_model_of_the_agent_or_the_run(told: bool) -> None:
    # o3-mini takes no images (heal.targets): the image becomes a text marker for it alone. The
    # model is the agent's (a Model object), or the RunConfig's that the filter is told of.
    sent: dict[str, list[str]] = {}
    for name in ("o3-mini", "gpt-4o"):
        scripted = ScriptedModel([[assistant_message("ok")]])
        own: Any = "gpt-4o" if told else OpenAIResponsesModel(name, client())
        agent = Agent(name="assistant", model=own)
        heal = heal_input_filter(model=name if told else None)
        config = RunConfig(model=scripted, call_model_input_filter=heal, tracing_disabled=True)
        asyncio.run(Runner.run(agent, copy.deepcopy(LOOKED), run_config=config))
        sent[name] = [part["type"] for part in scripted.calls[0].input[0]["content"]]
    assert sent == {
        "o3-mini": ["input_text", "input_text"],
        "gpt-4o": ["input_text", "input_image"],
    }


def test_calls_to_tools_the_agent_does_not_offer_are_recorded() -> None:
    @function_tool
    def get_time() -> str:
        """The time."""
        return "noon"

    history: list[Any] = [
        user("weather, then billing"),
        call("c1"),
        output("c1"),
        {**call("c2"), "name": "transfer_to_billing", "arguments": "{}"},
        output("c2", "{'assistant': 'billing'}"),
        user("thanks"),
    ]
    repairs: list[Repair] = []
    scripted = ScriptedModel([[assistant_message("ok")]])
    billing = Agent(name="billing", model=scripted)
    agent = Agent(name="assistant", model=scripted, tools=[get_time], handoffs=[billing])
    config = RunConfig(
        call_model_input_filter=heal_input_filter(on_repair=repairs.append), tracing_disabled=True
    )
    asyncio.run(Runner.run(agent, copy.deepcopy(history), run_config=config))
    # The handoff is a tool the agent offers; get_weather is not (kept, and recorded).
    assert [(r.rule, r.action.value, r.tool_call_id) for r in repairs] == [
        ("tool-not-offered", "keep", "c1")
    ]
    assert agent_tool_names(agent) == ["get_time", "transfer_to_billing"]
    assert model_name(None) == get_default_model()
    assert model_name(OpenAIResponsesModel("o3-mini", client())) == "o3-mini"
