"""The LangChain middleware, run inside real ``create_agent`` graphs with a fake chat model that
records what it receives."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import ModelFallbackMiddleware
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatResult
from langchain_core.tools import tool
from pydantic import Field

from heal import ConfigError, HealingError, ProviderId, Repair, validate_messages
from heal.adapters import langchain as langchain_adapter
from heal.adapters.langchain import load_messages
from heal.integrations.langchain import HealMiddleware, provider_for_model

from .loads import counted_loads

LONG_ID = "toolu_" + "x" * 50  # OpenAI Chat Completions takes ids of at most 40 characters


class RecordingChatModel(GenericFakeChatModel):
    """LangChain's generic fake chat model, recording the messages of every call."""

    received: list[list[BaseMessage]] = Field(default_factory=list)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.received.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        """The fake model answers from its script whatever the tools: binding changes nothing."""
        return self


class ChatOpenAI(RecordingChatModel):
    """Stands in for langchain_openai.ChatOpenAI (matched by class name)."""

    use_responses_api: bool | None = None
    openai_api_base: str | None = None


class ChatAnthropic(RecordingChatModel):
    """Stands in for langchain_anthropic.ChatAnthropic (matched by class name), with its
    ``model`` and ``thinking`` fields."""

    model: str | None = None
    thinking: dict[str, Any] | None = None


class ChatMistralAI(RecordingChatModel):
    """Stands in for langchain_mistralai.ChatMistralAI (matched by class name)."""

    model: str | None = None


class FailingChatOpenAI(ChatOpenAI):
    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.received.append(list(messages))
        raise RuntimeError("rate limited")


@tool
def get_weather(city: str) -> str:
    """The weather in a city (the tool the histories here call)."""
    return "sunny"


def replies(n: int = 3) -> Iterator[AIMessage | str]:
    return iter(["ok"] * n)


def tool_call(tool_call_id: str) -> AIMessage:
    return AIMessage(
        "",
        tool_calls=[{"id": tool_call_id, "name": "get_weather", "args": {"city": "Paris"}}],
        id=f"ai-{tool_call_id}",
    )


def tool_result(tool_call_id: str, content: str = "sunny") -> ToolMessage:
    return ToolMessage(content, tool_call_id=tool_call_id, id=f"tool-{tool_call_id}-{content}")


BROKEN: list[AnyMessage] = [
    HumanMessage("weather in Paris?", id="h1"),
    tool_call("c1"),
    HumanMessage("hurry up", id="h2"),  # between the call and its result
    tool_result("c1"),
    tool_result("c1", "sunny, again"),  # duplicated
    tool_result("gone"),  # its call is nowhere
    tool_call("c2"),  # never answered
    HumanMessage("and tomorrow?", id="h3"),
]

CLEAN: list[AnyMessage] = [
    HumanMessage("weather in Paris?", id="h1"),
    tool_call("c1"),
    tool_result("c1"),
    AIMessage("It is sunny.", id="a2"),
    HumanMessage("and tomorrow?", id="h3"),
]


def given(messages: list[AnyMessage] | list[BaseMessage]) -> Any:
    """The input state of an agent run (typed loosely: the graph's input type is a TypedDict)."""
    return {"messages": messages}


def shape(messages: list[BaseMessage]) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for m in messages:
        if isinstance(m, ToolMessage):
            out.append(("tool", (m.tool_call_id, m.content)))
        elif isinstance(m, AIMessage) and m.tool_calls:
            out.append(("call", [c["id"] for c in m.tool_calls]))
        else:
            out.append((m.type, m.content))
    return out


def assert_valid(messages: Sequence[BaseMessage], provider: ProviderId | None = None) -> None:
    result = validate_messages(load_messages(messages), provider=provider)
    assert result.valid, result.report()


def test_broken_history_reaches_the_model_healed_and_state_is_kept() -> None:
    model = RecordingChatModel(messages=replies())
    repairs: list[Repair] = []
    agent = create_agent(
        model, system_prompt="Be brief.", middleware=[HealMiddleware(on_repair=repairs.append)]
    )

    state = agent.invoke(given(BROKEN))

    (received,) = model.received
    assert received[0] == SystemMessage("Be brief.")
    assert_valid(received[1:])
    assert shape(received[1:]) == [
        ("human", "weather in Paris?"),
        ("call", ["c1"]),
        ("tool", ("c1", "sunny")),
        ("human", "hurry up"),
        ("call", ["c2"]),
        ("tool", ("c2", received[6].content)),  # heal's placeholder result
        ("human", "and tomorrow?"),
    ]
    assert {r.rule for r in repairs} >= {
        "misplaced-tool-result",
        "duplicate-tool-result",
        "orphan-tool-result",
        "orphan-tool-call",
    }
    # wrap_model_call changes the request only: the graph state keeps what happened.
    assert state["messages"][: len(BROKEN)] == BROKEN
    assert state["messages"][-1].content == "ok"


def test_clean_history_reaches_the_model_unchanged() -> None:
    model = RecordingChatModel(messages=replies())
    repairs: list[Repair] = []
    agent = create_agent(
        model, tools=[get_weather], middleware=[HealMiddleware(on_repair=repairs.append)]
    )
    agent.invoke(given(CLEAN))
    assert repairs == []
    (received,) = model.received
    assert received == CLEAN
    assert all(a is b for a, b in zip(received, CLEAN, strict=True))


@pytest.mark.parametrize(
    ("name", "tools", "loads"),
    [
        ("claude-sonnet-4-5", [get_weather], False),
        ("claude-sonnet-4-6", [get_weather], False),  # the history ends with the user's turn
        ("claude-sonnet-4-5", [], True),  # get_weather is not offered: tool-not-offered
    ],
)
def test_a_plain_history_is_judged_without_loading_for_the_call_s_model_and_tools(
    monkeypatch: pytest.MonkeyPatch, name: str, tools: list[Any], loads: bool
) -> None:
    loaded = counted_loads(monkeypatch, langchain_adapter, "_Loader")
    model = ChatAnthropic(messages=replies(), model=name)
    repairs: list[Repair] = []
    agent = create_agent(model, tools=tools, middleware=[HealMiddleware(on_repair=repairs.append)])
    agent.invoke(given(CLEAN))
    assert bool(loaded) is loads
    assert bool(repairs) is loads
    assert all(a is b for a, b in zip(model.received[0], CLEAN, strict=True))


def test_async_agents_are_healed() -> None:
    model = RecordingChatModel(messages=replies())
    agent = create_agent(model, middleware=[HealMiddleware()])
    asyncio.run(agent.ainvoke(given(BROKEN)))
    assert_valid(model.received[0])


def test_provider_follows_the_chat_model() -> None:
    history = [HumanMessage("hi"), tool_call(LONG_ID), tool_result(LONG_ID)]
    for model, shortened in (
        (ChatOpenAI(messages=replies()), True),
        (ChatAnthropic(messages=replies()), False),
    ):
        create_agent(model, middleware=[HealMiddleware()]).invoke(given(history))
        sent = model.received[0][1]
        assert isinstance(sent, AIMessage)
        assert (len(sent.tool_calls[0]["id"] or "") <= 40) is shortened, type(model).__name__
        sent_result = model.received[0][2]
        assert isinstance(sent_result, ToolMessage)
        assert sent_result.tool_call_id == sent.tool_calls[0]["id"]


def test_each_fallback_model_gets_its_own_provider_rules() -> None:
    # HealMiddleware last, inside ModelFallbackMiddleware: it heals each attempt for the model
    # that serves it.
    primary = FailingChatOpenAI(messages=replies())
    fallback = ChatAnthropic(messages=replies())
    agent = create_agent(primary, middleware=[ModelFallbackMiddleware(fallback), HealMiddleware()])
    agent.invoke(given([HumanMessage("hi"), tool_call(LONG_ID), tool_result(LONG_ID)]))
    to_openai, to_anthropic = primary.received[0][1], fallback.received[0][1]
    assert isinstance(to_openai, AIMessage) and isinstance(to_anthropic, AIMessage)
    assert len(to_openai.tool_calls[0]["id"] or "") <= 40
    assert to_anthropic.tool_calls[0]["id"] == LONG_ID


def test_provider_can_be_forced() -> None:
    history = [HumanMessage("hi"), tool_call(LONG_ID), tool_result(LONG_ID)]
    model = ChatAnthropic(messages=replies())
    middleware = HealMiddleware(provider="openai-chat")
    create_agent(model, middleware=[middleware]).invoke(given(history))
    sent = model.received[0][1]
    assert isinstance(sent, AIMessage)
    assert sent.tool_calls[0]["id"] != LONG_ID


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        (ChatOpenAI(messages=replies()), "openai-chat"),
        (ChatOpenAI(messages=replies(), use_responses_api=True), "openai-responses"),
        (ChatOpenAI(messages=replies(), openai_api_base="https://api.groq.com/openai/v1"), "groq"),
        (
            ChatOpenAI(messages=replies(), openai_api_base="http://localhost:8000/v1"),
            "openai-compatible",
        ),
        (ChatAnthropic(messages=replies()), "anthropic"),
        (RecordingChatModel(messages=replies()), None),
    ],
)
def test_provider_for_model(model: object, expected: ProviderId | None) -> None:
    assert provider_for_model(model) == expected


def test_repairs_are_logged_without_a_callback(caplog: pytest.LogCaptureFixture) -> None:
    agent = create_agent(RecordingChatModel(messages=replies()), middleware=[HealMiddleware()])
    with caplog.at_level(logging.INFO, logger="heal"):
        agent.invoke(given([HumanMessage("hi"), tool_result("gone")]))
    record, *_ = [r for r in caplog.records if r.name == "heal"]
    assert record.levelno == logging.INFO
    assert "orphan-tool-result" in record.getMessage()


def test_strict_fails_instead_of_calling_the_model() -> None:
    model = RecordingChatModel(messages=replies())
    agent = create_agent(model, middleware=[HealMiddleware(strict=True)])
    with pytest.raises(HealingError):
        agent.invoke(given(BROKEN))
    assert model.received == []


def test_unreadable_history_is_sent_unchanged_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from langchain_core.messages import ChatMessage

    model = RecordingChatModel(messages=replies())
    history: list[AnyMessage] = [ChatMessage(content="hi", role="critic"), HumanMessage("hello")]
    agent = create_agent(model, middleware=[HealMiddleware()])
    with caplog.at_level(logging.WARNING, logger="heal"):
        agent.invoke(given(history))
    assert model.received[0] == history
    assert any(r.levelno == logging.WARNING and r.name == "heal" for r in caplog.records)


def test_bad_options_fail_when_built() -> None:
    with pytest.raises(ConfigError):
        HealMiddleware(provider="nope")  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        HealMiddleware(policy={"orphan-tool-call": "no-such-choice"})


def test_message_chunks_are_read_as_the_messages_they_make() -> None:
    # The graph's reducer turns chunks into messages; a middleware before heal may not.
    from langchain.agents.middleware import ModelRequest
    from langchain_core.messages import AIMessageChunk

    chunk = AIMessageChunk(
        content="",
        tool_call_chunks=[
            {"id": "c1", "name": "get_weather", "args": '{"city": "Paris"}', "index": 0}
        ],
        id="chunk-1",
    )
    clean: list[AnyMessage] = [HumanMessage("hi"), chunk, tool_result("c1")]
    model = RecordingChatModel(messages=replies())
    repairs: list[Repair] = []
    middleware = HealMiddleware(on_repair=repairs.append)

    request = ModelRequest(model=model, messages=clean, tools=[get_weather])
    assert middleware.heal_request(request) is request  # nothing to heal: sent as it was
    assert repairs == []

    healed = middleware.heal_request(
        ModelRequest(model=model, messages=[*clean, tool_result("gone")], tools=[get_weather])
    )
    assert [r.rule for r in repairs][:1] == ["orphan-tool-result"]
    assert_valid(healed.messages)
    sent = healed.messages[1]
    assert isinstance(sent, AIMessage) and sent.tool_calls[0]["id"] == "c1"


# --- the target of the call ----------------------------------------------------------------------


def test_each_call_is_healed_for_the_chat_model_that_serves_it() -> None:
    # Mistral takes reasoning input from Magistral models only (heal.targets).
    history: list[AnyMessage] = [
        HumanMessage("hi", id="h1"),
        AIMessage(
            [{"type": "reasoning", "reasoning": "greet back"}, {"type": "text", "text": "hello"}],
            id="a1",
        ),
        HumanMessage("bye", id="h2"),
    ]
    for name, kept in (("mistral-large-latest", False), ("magistral-medium-latest", True)):
        model = ChatMistralAI(messages=replies(), model=name)
        create_agent(model, middleware=[HealMiddleware()]).invoke(given(history))
        sent = model.received[0][1]
        assert isinstance(sent, AIMessage)
        assert (len(sent.content) == 2) is kept, name


def open_tool_loop() -> list[AnyMessage]:
    """Signed thinking earlier; the open tool loop's AI message starts with text (its thinking
    was lost): tests/cases/target/anthropic-tool-loop-thinking.json, as LangChain holds it."""
    signed = {"type": "thinking", "thinking": "call the tool", "signature": "c2lnbmF0dXJl"}
    checking = {"type": "text", "text": "Checking."}
    first, second = tool_call("t1"), tool_call("t2")
    return [
        HumanMessage("weather in Paris?", id="h1"),
        first.model_copy(update={"content": [signed]}),
        tool_result("t1"),
        AIMessage("Sunny.", id="a1"),
        HumanMessage("and Rome?", id="h2"),
        second.model_copy(update={"content": [checking]}),
        tool_result("t2"),
    ]


@pytest.mark.parametrize(
    ("thinking", "settings", "reported"),
    [
        ({"type": "enabled", "budget_tokens": 1024}, {}, True),
        ({"type": "disabled"}, {}, False),
        # What the call binds wins over the chat model's own field.
        ({"type": "enabled", "budget_tokens": 1024}, {"thinking": {"type": "disabled"}}, False),
    ],
)
def test_thinking_of_the_chat_model_decides_the_tool_loop_report(
    thinking: dict[str, Any], settings: dict[str, Any], reported: bool
) -> None:
    from langchain.agents.middleware import ModelRequest

    repairs: list[Repair] = []
    model = ChatAnthropic(messages=replies(), model="claude-sonnet-4-6", thinking=thinking)
    middleware = HealMiddleware(on_repair=repairs.append)
    request = ModelRequest(
        model=model, messages=open_tool_loop(), tools=[get_weather], model_settings=settings
    )
    middleware.heal_request(request)
    expected = [("anthropic-tool-loop-thinking", "report", 5)] if reported else []
    assert [(r.rule, r.action.value, r.message_index) for r in repairs] == expected


def test_thinking_of_the_chat_model_in_an_agent_run() -> None:
    repairs: list[Repair] = []
    model = ChatAnthropic(
        messages=replies(), model="claude-sonnet-4-6", thinking={"type": "enabled"}
    )
    middleware = HealMiddleware(on_repair=repairs.append)
    create_agent(model, tools=[get_weather], middleware=[middleware]).invoke(
        given(open_tool_loop())
    )
    assert [(r.rule, r.action.value) for r in repairs] == [
        ("anthropic-tool-loop-thinking", "report")
    ]


def test_calls_to_tools_the_call_does_not_bind_are_recorded() -> None:
    history = [HumanMessage("weather?"), tool_call("c1"), tool_result("c1"), HumanMessage("ok?")]
    repairs: list[Repair] = []

    @tool
    def get_time() -> str:
        """The time."""
        return "noon"

    model = RecordingChatModel(messages=replies())
    middleware = HealMiddleware(on_repair=repairs.append)
    create_agent(model, tools=[get_time], middleware=[middleware]).invoke(given(history))
    assert [(r.rule, r.action.value, r.tool_call_id) for r in repairs] == [
        ("tool-not-offered", "keep", "c1")
    ]
    # The call is kept (the default choice): the model sees the history as it was.
    assert model.received[0] == history
