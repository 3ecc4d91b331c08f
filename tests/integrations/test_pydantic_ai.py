"""The pydantic-ai integration, run inside real agents: a FunctionModel records what it receives,
and an OpenAIChatModel over a mock HTTP transport shows what goes on the wire."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from anthropic import AsyncAnthropic
from openai import AsyncOpenAI
from pydantic_ai import Agent
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import (
    BinaryContent,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.anthropic import AnthropicModel, AnthropicModelSettings
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.anthropic import AnthropicProvider
from pydantic_ai.providers.openai import OpenAIProvider

from heal import ConfigError, HealingError, Repair, validate_messages
from heal.adapters import pydantic_ai as pydantic_ai_adapter
from heal.adapters.pydantic_ai import load_messages
from heal.integrations.pydantic_ai import HealHistory, heal_history

from .loads import counted_loads

LONG_ID = "toolu_" + "x" * 50  # OpenAI Chat Completions takes ids of at most 40 characters


class Recorder:
    """A FunctionModel function that records the messages of every request."""

    def __init__(self) -> None:
        self.received: list[list[ModelMessage]] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.received.append(list(messages))
        return ModelResponse(parts=[TextPart("ok")])


def call(tool_call_id: str, name: str = "get_weather") -> ToolCallPart:
    return ToolCallPart(name, {"city": "Paris"}, tool_call_id=tool_call_id)


def ret(tool_call_id: str, content: str = "sunny", name: str = "get_weather") -> ToolReturnPart:
    return ToolReturnPart(name, content, tool_call_id=tool_call_id)


def history(*tool_returns: ToolReturnPart, calls: tuple[str, ...] = ("c1",)) -> list[ModelMessage]:
    return [
        ModelRequest(parts=[UserPromptPart("weather in Paris?")]),
        ModelResponse(parts=[call(c) for c in calls]),
        ModelRequest(parts=list(tool_returns)),
        ModelResponse(parts=[TextPart("It is sunny.")]),
    ]


def returns(message: ModelMessage) -> list[tuple[str, Any]]:
    return [(p.tool_call_id, p.content) for p in message.parts if isinstance(p, ToolReturnPart)]


def get_weather(city: str) -> str:
    """The weather in a city."""
    return "sunny"


def weather_agent(model: Any, *capabilities: Any) -> Agent[None, str]:
    """An agent that offers the tool the histories here call (``get_weather``): a call to a
    tool the request does not offer is recorded (``tool-not-offered``), and these tests are
    about other repairs."""
    return Agent(model, capabilities=list(capabilities), tools=[get_weather])


def run(agent: Agent[None, str], messages: list[ModelMessage]) -> list[ModelMessage]:
    return agent.run_sync("and tomorrow?", message_history=messages).all_messages()


def assert_valid(received: list[ModelMessage], provider: Any = None) -> None:
    result = validate_messages(load_messages(received), provider=provider)
    assert result.valid, result.report()


# --- HealHistory (capability) ----------------------------------------------------------------


def test_duplicated_tool_return_is_removed_before_the_model_sees_it() -> None:
    recorder, repairs = Recorder(), list[Repair]()
    agent = weather_agent(FunctionModel(recorder), HealHistory(on_repair=repairs.append))
    broken = history(ret("c1", "sunny"), ret("c1", "sunny, again"))

    stored = run(agent, broken)

    (received,) = recorder.received
    assert returns(received[2]) == [("c1", "sunny")]
    assert_valid(received)
    assert [(r.rule, r.message_index, r.part_index, r.tool_call_id) for r in repairs] == [
        ("duplicate-tool-result", 2, 1, "c1")
    ]
    # The capability heals the request only: the run's history keeps what was passed in.
    assert returns(stored[2]) == [("c1", "sunny"), ("c1", "sunny, again")]


@pytest.mark.parametrize(
    "broken",
    [
        pytest.param(history(ret("c1"), calls=("c1", "c2")), id="orphan-call"),
        pytest.param(history(ret("c1"), ret("gone")), id="orphan-return"),
    ],
)
def test_orphans_reach_the_model_paired(broken: list[ModelMessage]) -> None:
    # pydantic-ai itself drops orphan returns and answers orphan calls before any hook runs
    # (_clean_message_history); with heal on top, the model still gets a paired history.
    recorder = Recorder()
    agent = Agent(FunctionModel(recorder), capabilities=[HealHistory()])
    run(agent, broken)
    (received,) = recorder.received
    assert_valid(received)
    call_ids = [p.tool_call_id for p in received[1].parts if isinstance(p, ToolCallPart)]
    assert [tool_call_id for tool_call_id, _ in returns(received[2])] == call_ids


def test_clean_history_reaches_the_model_unchanged() -> None:
    clean = history(ret("c1"))
    plain, healed = Recorder(), Recorder()
    repairs: list[Repair] = []
    run(Agent(FunctionModel(plain)), clean)
    run(weather_agent(FunctionModel(healed), HealHistory(on_repair=repairs.append)), clean)
    assert repairs == []
    assert healed.received[0][:4] == plain.received[0][:4] == clean
    # Not only equal: the very objects of the caller's history.
    assert all(a is b for a, b in zip(healed.received[0][:4], clean, strict=True))


def test_a_plain_history_is_judged_without_loading_for_the_request_s_tools(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loaded = counted_loads(monkeypatch, pydantic_ai_adapter, "_Loader")
    repairs: list[Repair] = []
    run(
        weather_agent(FunctionModel(Recorder()), HealHistory(on_repair=repairs.append)),
        history(ret("c1")),
    )
    assert loaded == [] and repairs == []
    # The same history sent by an agent that offers no tool: its call is recorded.
    agent = Agent(FunctionModel(Recorder()), capabilities=[HealHistory(on_repair=repairs.append)])
    run(agent, history(ret("c1")))
    assert loaded and [r.rule for r in repairs] == ["tool-not-offered"]


def test_every_request_of_a_run_is_healed() -> None:
    calls = 0

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        nonlocal calls
        calls += 1
        assert_valid(messages)
        assert all(len(returns(m)) <= 1 for m in messages)
        if calls == 1:
            return ModelResponse(parts=[ToolCallPart("echo", {"text": "hi"}, tool_call_id="c9")])
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(FunctionModel(model), capabilities=[HealHistory()])

    @agent.tool_plain
    def echo(text: str) -> str:
        return text

    result = agent.run_sync("go", message_history=history(ret("c1"), ret("c1", "dup")))
    assert result.output == "done"
    assert calls == 2


def test_provider_is_inferred_from_the_model_and_the_wire_body_is_healed() -> None:
    bodies: list[dict[str, Any]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        bodies.append(json.loads(request.content))
        return httpx2.Response(200, json=CHAT_COMPLETION)

    client = AsyncOpenAI(
        api_key="test", http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    )
    model = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(openai_client=client))
    repairs: list[Repair] = []
    agent = weather_agent(model, HealHistory(on_repair=repairs.append))

    agent.run_sync("and tomorrow?", message_history=history(ret(LONG_ID), calls=(LONG_ID,)))

    (body,) = bodies
    sent_call_id = body["messages"][1]["tool_calls"][0]["id"]
    assert len(sent_call_id) <= 40
    assert body["messages"][2] == {"role": "tool", "tool_call_id": sent_call_id, "content": "sunny"}
    assert {r.rule for r in repairs} == {"invalid-tool-call-id"}


def test_provider_can_be_forced() -> None:
    broken = history(ret(LONG_ID), calls=(LONG_ID,))
    for provider, changed in (("openai-chat", True), ("anthropic", False), (None, False)):
        recorder, repairs = Recorder(), list[Repair]()
        hook = HealHistory(provider=provider, on_repair=repairs.append)  # type: ignore[arg-type]
        run(weather_agent(FunctionModel(recorder), hook), broken)
        assert bool(repairs) is changed, provider
        sent = recorder.received[0][1].parts[0]
        assert isinstance(sent, ToolCallPart)
        assert (sent.tool_call_id != LONG_ID) is changed


def test_repairs_are_logged_without_a_callback(caplog: pytest.LogCaptureFixture) -> None:
    agent = weather_agent(FunctionModel(Recorder()), HealHistory())
    with caplog.at_level(logging.INFO, logger="heal"):
        run(agent, history(ret("c1"), ret("c1", "dup")))
    (record,) = [r for r in caplog.records if r.name == "heal"]
    assert record.levelno == logging.INFO
    assert "duplicate-tool-result" in record.getMessage()
    assert getattr(record, "heal_repair").rule == "duplicate-tool-result"  # noqa: B009
    # The place is named in pydantic-ai's terms: the request's ``.parts``.
    assert record.getMessage().startswith(
        "healed request: messages[2].parts[1]: duplicate-tool-result: "
    )


def test_strict_fails_the_run_instead_of_sending() -> None:
    recorder = Recorder()
    agent = weather_agent(FunctionModel(recorder), HealHistory(strict=True))
    with pytest.raises(HealingError) as raised:
        run(agent, history(ret("c1"), ret("c1", "dup")))
    assert [r.rule for r in raised.value.repairs] == ["duplicate-tool-result"]
    assert recorder.received == []


def test_bad_options_fail_when_built() -> None:
    with pytest.raises(ConfigError):
        HealHistory(provider="nope")  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        HealHistory(policy={"no-such-rule": "fix"})


def test_async_runs_are_healed() -> None:
    recorder = Recorder()
    agent = Agent(FunctionModel(recorder), capabilities=[HealHistory()])
    asyncio.run(agent.run("next", message_history=history(ret("c1"), ret("c1", "dup"))))
    assert returns(recorder.received[0][2]) == [("c1", "sunny")]


def pending_calls() -> list[ModelMessage]:
    """A stored history whose last response made a call that never got its result (the process
    stopped, the user walked away): the main case for healing a stored history."""
    return [
        ModelRequest(parts=[UserPromptPart("weather in Paris?")]),
        ModelResponse(parts=[TextPart("Checking."), call("c1")]),
    ]


def test_new_prompt_after_unanswered_calls_fails_without_heal() -> None:
    # What HealHistory has to cover: pydantic-ai refuses before any request hook runs.
    agent = Agent(FunctionModel(Recorder()))
    with pytest.raises(UserError, match="unprocessed tool calls"):
        agent.run_sync("and Rome?", message_history=pending_calls())


def test_new_prompt_after_unanswered_calls_is_answered() -> None:
    recorder, repairs = Recorder(), list[Repair]()
    agent = weather_agent(FunctionModel(recorder), HealHistory(on_repair=repairs.append))
    stored = pending_calls()

    result = agent.run_sync("and Rome?", message_history=stored)

    assert result.output == "ok"
    (received,) = recorder.received
    assert_valid(received)
    assert received[:2] == stored
    ((tool_call_id, content),) = returns(received[2])
    assert tool_call_id == "c1" and "unavailable" in content
    last = received[-1].parts[-1]
    assert isinstance(last, UserPromptPart) and last.content == "and Rome?"
    assert [(r.rule, r.anchor_index, r.describe().split(": ")[0]) for r in repairs] == [
        ("orphan-tool-call", 1, "after messages[1]")
    ]
    # pydantic-ai only runs a history whose calls are answered, so the answer stays in the run's
    # history; the caller's list is not changed.
    assert returns(result.all_messages()[2]) == [(tool_call_id, content)]
    assert len(stored) == 2


def test_new_prompt_after_unanswered_calls_is_answered_when_streamed() -> None:
    received: list[list[ModelMessage]] = []

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        received.append(list(messages))
        yield "ok"

    agent = Agent(FunctionModel(stream_function=stream), capabilities=[HealHistory()])

    async def go() -> str:
        async with agent.run_stream("and Rome?", message_history=pending_calls()) as result:
            return await result.get_output()

    assert asyncio.run(go()) == "ok"
    assert [tool_call_id for tool_call_id, _ in returns(received[0][2])] == ["c1"]


def test_pending_calls_still_run_when_no_new_prompt_is_given() -> None:
    # Without a new prompt pydantic-ai executes the pending calls: nothing to close out.
    recorder, repairs = Recorder(), list[Repair]()
    agent = Agent(FunctionModel(recorder), capabilities=[HealHistory(on_repair=repairs.append)])
    cities: list[str] = []

    @agent.tool_plain
    def get_weather(city: str) -> str:
        cities.append(city)
        return "sunny"

    agent.run_sync(message_history=pending_calls())
    assert cities == ["Paris"]
    assert returns(recorder.received[0][2]) == [("c1", "sunny")]
    assert repairs == []


def test_unanswered_calls_follow_the_policy_and_strict() -> None:
    agent = Agent(FunctionModel(Recorder()), capabilities=[HealHistory(strict=True)])
    with pytest.raises(HealingError) as raised:
        agent.run_sync("and Rome?", message_history=pending_calls())
    assert [r.rule for r in raised.value.repairs] == ["orphan-tool-call"]
    # "keep" leaves the calls as they are (reported as kept): pydantic-ai's own refusal stands.
    kept: list[Repair] = []
    keep = HealHistory(policy={"orphan-tool-call": "keep"}, on_repair=kept.append)
    with pytest.raises(UserError):
        Agent(FunctionModel(Recorder()), capabilities=[keep]).run_sync(
            "and Rome?", message_history=pending_calls()
        )
    assert [(r.rule, r.action.value) for r in kept] == [("orphan-tool-call", "keep")]
    recorder = Recorder()
    drop = HealHistory(policy={"orphan-tool-call": "drop-call"})
    Agent(FunctionModel(recorder), capabilities=[drop]).run_sync(
        "and Rome?", message_history=pending_calls()
    )
    assert recorder.received[0][1].parts == [TextPart("Checking.")]


# --- heal_history (history processor) --------------------------------------------------------


def test_history_processor_heals_and_persists() -> None:
    recorder, repairs = Recorder(), list[Repair]()
    processor = heal_history(on_repair=repairs.append)
    agent = Agent(FunctionModel(recorder), capabilities=[ProcessHistory(processor)])

    stored = run(agent, history(ret("c1"), ret("c1", "dup")))

    assert returns(recorder.received[0][2]) == [("c1", "sunny")]
    assert [r.rule for r in repairs] == ["duplicate-tool-result"]
    # ProcessHistory writes a processor's result back to the run's history.
    assert returns(stored[2]) == [("c1", "sunny")]


def anthropic_thinking() -> list[ModelMessage]:
    thinking = ModelResponse(
        parts=[ThinkingPart("hmm", signature="sig", provider_name="anthropic"), TextPart("hi")],
        provider_name="anthropic",
    )
    return [ModelRequest(parts=[UserPromptPart("hi")]), thinking]


def test_history_processor_runs_history_scope_rules_only_by_default() -> None:
    # Another provider's reasoning is stripped for one request (a request-scope repair), never
    # from stored history: the processor, whose output is stored, leaves it by default.
    for scope, expected in (("history", 2), ("request", 1)):
        recorder = Recorder()
        processor = heal_history(provider="openai-responses", scope=scope)  # type: ignore[arg-type]
        capability = ProcessHistory(processor)
        run(Agent(FunctionModel(recorder), capabilities=[capability]), anthropic_thinking())
        assert len(recorder.received[0][1].parts) == expected, scope


def test_capability_applies_request_scope_repairs_without_storing_them() -> None:
    recorder, repairs = Recorder(), list[Repair]()
    hook = HealHistory(provider="openai-responses", on_repair=repairs.append)
    stored = run(Agent(FunctionModel(recorder), capabilities=[hook]), anthropic_thinking())
    assert recorder.received[0][1].parts == [TextPart("hi")]
    assert [(r.rule, r.scope.value) for r in repairs] == [("openai-foreign-reasoning", "request")]
    assert isinstance(stored[1].parts[0], ThinkingPart)


CHAT_COMPLETION = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 0,
    "model": "gpt-4o",
    "choices": [
        {
            "index": 0,
            "finish_reason": "stop",
            "message": {"role": "assistant", "content": "ok"},
        }
    ],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}


def test_streamed_runs_are_healed() -> None:
    received: list[list[ModelMessage]] = []

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        received.append(list(messages))
        yield "ok"

    agent = Agent(FunctionModel(stream_function=stream), capabilities=[HealHistory()])

    async def go() -> str:
        broken = history(ret("c1"), ret("c1", "dup"))
        async with agent.run_stream("next", message_history=broken) as result:
            return await result.get_output()

    assert asyncio.run(go()) == "ok"
    assert returns(received[0][2]) == [("c1", "sunny")]


# --- the target of the request ----------------------------------------------------------------

IMAGE = BinaryContent(data=b"\x89PNG\r\n\x1a\n", media_type="image/png")


def openai_chat_model(name: str, bodies: list[dict[str, Any]]) -> OpenAIChatModel:
    def handler(request: httpx2.Request) -> httpx2.Response:
        bodies.append(json.loads(request.content))
        return httpx2.Response(200, json=CHAT_COMPLETION)

    transport = httpx2.MockTransport(handler)
    client = AsyncOpenAI(api_key="test", http_client=httpx2.AsyncClient(transport=transport))
    return OpenAIChatModel(name, provider=OpenAIProvider(openai_client=client))


def test_the_request_is_healed_for_the_model_that_serves_it() -> None:
    # o3-mini takes no images (heal.targets): the image becomes a text marker for it alone.
    looked: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart(["what is this?", IMAGE])]),
        ModelResponse(parts=[TextPart("A logo.")]),
    ]
    sent: dict[str, list[Any]] = {}
    for name in ("o3-mini", "gpt-4o"):
        bodies: list[dict[str, Any]] = []
        repairs: list[Repair] = []
        agent = Agent(
            openai_chat_model(name, bodies), capabilities=[HealHistory(on_repair=repairs.append)]
        )
        agent.run_sync("and now?", message_history=looked)
        sent[name] = [part["type"] for part in bodies[0]["messages"][0]["content"]]
        assert [r.rule for r in repairs] == (
            ["model-without-image-input"] if name == "o3-mini" else []
        )
    assert sent == {"o3-mini": ["text", "text"], "gpt-4o": ["text", "image_url"]}


@pytest.mark.parametrize("form", ["capability", "processor"])
def test_a_forced_provider_still_heals_for_the_model(form: str) -> None:
    # Mistral takes reasoning input from Magistral models only (heal.targets).
    said: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("hi")]),
        ModelResponse(parts=[ThinkingPart("greet back"), TextPart("hello")]),
    ]
    for name, kept in (("mistral-large-latest", False), ("magistral-medium-latest", True)):
        recorder = Recorder()
        hook: Any = (
            HealHistory(provider="mistral")
            if form == "capability"
            else ProcessHistory(heal_history(provider="mistral", scope="request"))
        )
        run(Agent(FunctionModel(recorder, model_name=name), capabilities=[hook]), said)
        parts = recorder.received[0][1].parts
        assert isinstance(parts[0], ThinkingPart) is kept, name


MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-6",
    "content": [{"type": "text", "text": "ok"}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
}


def anthropic_model(bodies: list[dict[str, Any]]) -> AnthropicModel:
    def handler(request: httpx2.Request) -> httpx2.Response:
        bodies.append(json.loads(request.content))
        return httpx2.Response(200, json=MESSAGE)

    transport = httpx2.MockTransport(handler)
    client = AsyncAnthropic(api_key="test", http_client=httpx2.AsyncClient(transport=transport))
    return AnthropicModel("claude-sonnet-4-6", provider=AnthropicProvider(anthropic_client=client))


def open_tool_loop() -> list[ModelMessage]:
    """Signed thinking earlier; the open tool loop's response starts with text (its thinking
    was lost): tests/cases/target/anthropic-tool-loop-thinking.json, as pydantic-ai holds it."""
    signed = ThinkingPart("call the tool", signature="c2lnbmF0dXJl", provider_name="anthropic")
    return [
        ModelRequest(parts=[UserPromptPart("weather in Paris?")]),
        ModelResponse(parts=[signed, call("t1")], provider_name="anthropic"),
        ModelRequest(parts=[ret("t1")]),
        ModelResponse(parts=[TextPart("Sunny.")], provider_name="anthropic"),
        ModelRequest(parts=[UserPromptPart("and Rome?")]),
        ModelResponse(parts=[TextPart("Checking."), call("t2")], provider_name="anthropic"),
        ModelRequest(parts=[ret("t2")]),
    ]


@pytest.mark.parametrize(
    ("settings", "reported"),
    [
        ({"anthropic_thinking": {"type": "enabled", "budget_tokens": 1024}}, True),
        ({"anthropic_thinking": {"type": "disabled"}}, False),
        ({"thinking": True}, True),
        ({"thinking": False}, False),
    ],
)
def test_the_thinking_setting_decides_the_tool_loop_report(
    settings: AnthropicModelSettings, reported: bool
) -> None:
    bodies: list[dict[str, Any]] = []
    repairs: list[Repair] = []
    model_settings: AnthropicModelSettings = {"max_tokens": 2048, **settings}
    agent = Agent(
        anthropic_model(bodies),
        capabilities=[HealHistory(on_repair=repairs.append)],
        tools=[get_weather],
        model_settings=model_settings,
    )
    agent.run_sync(message_history=open_tool_loop())
    assert len(bodies) == 1
    expected = [("anthropic-tool-loop-thinking", "report", 5)] if reported else []
    assert [(r.rule, r.action.value, r.message_index) for r in repairs] == expected


def test_calls_to_tools_the_request_does_not_offer_are_recorded() -> None:
    repairs: list[Repair] = []
    old = history(ret("c1", name="old_tool"), calls=())
    old[1] = ModelResponse(parts=[call("c1", name="old_tool")])
    agent = weather_agent(FunctionModel(Recorder()), HealHistory(on_repair=repairs.append))
    run(agent, old)
    assert [(r.rule, r.action.value, r.tool_call_id) for r in repairs] == [
        ("tool-not-offered", "keep", "c1")
    ]
