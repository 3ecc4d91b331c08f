"""The raw-client integration: real ``openai`` and ``anthropic`` clients over a mock HTTP
transport that captures each request body and answers with a valid canned response."""

from __future__ import annotations

import asyncio
import copy
import json
import logging
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from anthropic import Anthropic, AsyncAnthropic
from anthropic.types import MessageParam, ToolParam
from openai import AsyncOpenAI, AzureOpenAI, OpenAI

from heal import ConfigError, HealingError, ProviderId, Repair, Target, validate_messages
from heal.adapters import anthropic as anthropic_adapter
from heal.adapters import openai_chat, openai_responses
from heal.integrations.clients import heal_anthropic, heal_openai
from heal.rules import Context, Finding, Rule

from .loads import counted_loads

Json = dict[str, Any]
LONG_ID = "call_" + "x" * 45  # 50 characters: OpenAI Chat Completions takes at most 40


class Wire:
    """A mock transport that records every request and answers like the real API."""

    def __init__(self) -> None:
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        path = request.url.path
        if path.endswith("/chat/completions"):
            return httpx2.Response(200, json=CHAT_COMPLETION)
        if path.endswith("/responses"):
            return httpx2.Response(200, json=RESPONSE)
        if path.endswith("/messages/count_tokens"):
            return httpx2.Response(200, json={"input_tokens": 12})
        if path.endswith("/messages"):
            return httpx2.Response(200, json=MESSAGE)
        if path.endswith("/embeddings"):
            return httpx2.Response(200, json=EMBEDDINGS)
        return httpx2.Response(404, json={"error": {"message": f"no route {path}"}})

    @property
    def body(self) -> Json:
        """The JSON body of the last request."""
        body: Json = json.loads(self.requests[-1].content)
        return body

    def sync(self) -> httpx2.Client:
        return httpx2.Client(transport=httpx2.MockTransport(self))

    def async_(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=httpx2.MockTransport(self))


def openai_client(wire: Wire, base_url: str | None = None) -> OpenAI:
    return OpenAI(api_key="test", base_url=base_url, http_client=wire.sync(), max_retries=0)


def anthropic_client(wire: Wire) -> Anthropic:
    return Anthropic(api_key="test", http_client=wire.sync(), max_retries=0)


def assert_valid(history: Any, adapter: Any, provider: ProviderId) -> None:
    result = validate_messages(adapter.load_messages(history), provider=provider)
    assert result.valid, result.report()


# --- Chat Completions ------------------------------------------------------------------------


def chat_call(call_id: str, arguments: str = '{"city": "Paris"}') -> Any:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": "get_weather", "arguments": arguments},
            }
        ],
    }


def chat_result(call_id: str, content: str = "sunny") -> Any:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


CHAT_TOOL: Any = {
    "type": "function",
    "function": {"name": "get_weather", "parameters": {"type": "object"}},
}
"""The tool the histories here call: a request that offers it gets no ``tool-not-offered``."""

RESPONSES_TOOL: Any = {"type": "function", "name": "get_weather", "parameters": {"type": "object"}}

CHAT_BROKEN: list[Any] = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "weather in Paris?"},
    chat_call("c1", arguments="{city: Paris"),  # not JSON
    {"role": "user", "content": "hurry up"},  # between the call and its result
    chat_result("c1"),
    chat_result("gone"),  # its call is nowhere
    chat_call("c2"),  # never answered
    {"role": "user", "content": "and tomorrow?"},
]

CHAT_CLEAN: list[Any] = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "weather in Paris?"},
    chat_call("c1"),
    chat_result("c1"),
    {"role": "assistant", "content": "It is sunny."},
    {"role": "user", "content": "and tomorrow?"},
]


def test_chat_completions_messages_are_healed_before_sending() -> None:
    wire, repairs = Wire(), list[Repair]()
    client = heal_openai(openai_client(wire), on_repair=repairs.append)
    messages = copy.deepcopy(CHAT_BROKEN)

    completion = client.chat.completions.create(model="gpt-4o", messages=messages, temperature=0)

    assert completion.choices[0].message.content == "ok"
    body = wire.body
    assert body["model"] == "gpt-4o" and body["temperature"] == 0
    sent = body["messages"]
    assert_valid(sent, openai_chat, "openai-chat")
    assert [m["role"] for m in sent] == [
        "system", "user", "assistant", "tool", "user", "assistant", "tool", "user",
    ]  # fmt: skip
    # Each result right after its call; the call's input is a JSON object now.
    assert sent[3] == chat_result("c1")
    assert json.loads(sent[2]["tool_calls"][0]["function"]["arguments"]) == {"raw": "{city: Paris"}
    assert sent[6]["tool_call_id"] == "c2"
    assert {r.rule for r in repairs} >= {
        "invalid-tool-input",
        "misplaced-tool-result",
        "orphan-tool-result",
        "orphan-tool-call",
    }
    assert messages == CHAT_BROKEN  # the caller's list is not touched


def test_a_valid_request_goes_out_byte_for_byte_unchanged() -> None:
    plain_wire, healed_wire = Wire(), Wire()
    repairs: list[Repair] = []
    tools = [CHAT_TOOL]
    openai_client(plain_wire).chat.completions.create(
        model="gpt-4o", messages=CHAT_CLEAN, tools=tools
    )
    healed = heal_openai(openai_client(healed_wire), on_repair=repairs.append)
    healed.chat.completions.create(model="gpt-4o", messages=CHAT_CLEAN, tools=tools)
    assert repairs == []
    assert healed_wire.requests[0].content == plain_wire.requests[0].content


def test_the_healed_client_keeps_its_type_and_the_original_is_untouched() -> None:
    wire = Wire()
    original = openai_client(wire)
    healed = heal_openai(original)
    assert isinstance(healed, OpenAI) and healed is not original
    assert type(original) is OpenAI

    original.chat.completions.create(model="gpt-4o", messages=CHAT_BROKEN)
    assert wire.body["messages"] == CHAT_BROKEN

    # Copies of the healed client heal too, and so do the raw-response wrappers.
    copied = healed.with_options(timeout=5)
    raw = copied.chat.completions.with_raw_response.create(model="gpt-4o", messages=CHAT_BROKEN)
    assert raw.parse().choices[0].message.content == "ok"
    assert_valid(wire.body["messages"], openai_chat, "openai-chat")


def test_other_endpoints_are_untouched() -> None:
    plain_wire, healed_wire = Wire(), Wire()
    for client in (openai_client(plain_wire), heal_openai(openai_client(healed_wire))):
        client.embeddings.create(model="text-embedding-3-small", input=["a", "b"])
    assert healed_wire.requests[0].content == plain_wire.requests[0].content


@pytest.mark.parametrize(
    ("base_url", "shortened"),
    [
        (None, True),  # api.openai.com: ids of at most 40 characters
        ("http://localhost:8000/v1", False),  # openai-compatible: at most 64
    ],
)
def test_provider_follows_the_endpoint(base_url: str | None, shortened: bool) -> None:
    wire = Wire()
    client = heal_openai(openai_client(wire, base_url))
    client.chat.completions.create(model="m", messages=[chat_call(LONG_ID), chat_result(LONG_ID)])
    sent = wire.body["messages"]
    assert (sent[0]["tool_calls"][0]["id"] != LONG_ID) is shortened
    assert sent[1]["tool_call_id"] == sent[0]["tool_calls"][0]["id"]


def test_provider_can_be_forced() -> None:
    wire = Wire()
    client = heal_openai(openai_client(wire, "http://localhost:8000/v1"), provider="openai-chat")
    client.chat.completions.create(model="m", messages=[chat_call(LONG_ID), chat_result(LONG_ID)])
    assert len(wire.body["messages"][0]["tool_calls"][0]["id"]) <= 40


def test_azure_clients_are_healed() -> None:
    wire = Wire()
    azure = AzureOpenAI(
        api_key="test",
        api_version="2024-10-21",
        azure_endpoint="https://example.openai.azure.com",
        http_client=wire.sync(),
    )
    client = heal_openai(azure)
    assert isinstance(client, AzureOpenAI)
    client.chat.completions.create(
        model="gpt-4o", messages=[chat_call(LONG_ID), chat_result(LONG_ID)]
    )
    assert len(wire.body["messages"][0]["tool_calls"][0]["id"]) <= 40  # openai-chat


def test_async_openai_clients_are_healed() -> None:
    wire = Wire()
    client = heal_openai(AsyncOpenAI(api_key="test", http_client=wire.async_()))
    assert isinstance(client, AsyncOpenAI)
    asyncio.run(client.chat.completions.create(model="gpt-4o", messages=CHAT_BROKEN))
    assert_valid(wire.body["messages"], openai_chat, "openai-chat")


# --- Responses -------------------------------------------------------------------------------


def fc(call_id: str) -> Any:
    return {
        "type": "function_call",
        "call_id": call_id,
        "name": "get_weather",
        "arguments": '{"city": "Paris"}',
    }


def fc_out(call_id: str, output: str = "sunny") -> Any:
    return {"type": "function_call_output", "call_id": call_id, "output": output}


RESPONSES_BROKEN: list[Any] = [
    {"role": "user", "content": "weather in Paris?"},
    fc("c1"),
    {"role": "user", "content": "hurry up"},
    fc_out("c1"),
    fc_out("c1", "sunny, again"),
    fc_out("gone"),
    {"role": "user", "content": "and tomorrow?"},
]


def test_responses_input_is_healed_before_sending() -> None:
    wire, repairs = Wire(), list[Repair]()
    client = heal_openai(openai_client(wire), on_repair=repairs.append)
    response = client.responses.create(model="gpt-4o", input=RESPONSES_BROKEN, store=False)
    assert response.output_text == "ok"
    body = wire.body
    assert body["store"] is False
    assert_valid(body["input"], openai_responses, "openai-responses")
    assert body["input"][:4] == [
        {"role": "user", "content": "weather in Paris?"},
        fc("c1"),
        fc_out("c1"),
        {"role": "user", "content": "hurry up"},
    ]
    assert {r.rule for r in repairs} >= {
        "misplaced-tool-result",
        "duplicate-tool-result",
        "orphan-tool-result",
    }


def test_responses_string_input_and_clean_input_are_untouched() -> None:
    wire, repairs = Wire(), list[Repair]()
    client = heal_openai(openai_client(wire), on_repair=repairs.append)
    client.responses.create(model="gpt-4o", input="hello")
    assert wire.body["input"] == "hello"
    clean = [{"role": "user", "content": "hi"}, fc("c1"), fc_out("c1")]
    client.responses.create(model="gpt-4o", input=clean, tools=[RESPONSES_TOOL])
    assert wire.body["input"] == clean
    assert repairs == []


@pytest.mark.parametrize(
    ("module", "loader", "endpoint"),
    [
        (openai_chat, "_Loader", "chat"),
        (openai_responses, "_Reader", "responses"),
    ],
)
def test_a_clean_openai_request_is_judged_without_loading(
    monkeypatch: pytest.MonkeyPatch, module: Any, loader: str, endpoint: str
) -> None:
    loaded = counted_loads(monkeypatch, module, loader)
    wire, repairs = Wire(), list[Repair]()
    client = heal_openai(openai_client(wire), on_repair=repairs.append)
    if endpoint == "chat":
        tools: list[Any] = [CHAT_TOOL]
        client.chat.completions.create(model="gpt-4o", messages=CHAT_CLEAN, tools=tools)
        sent = wire.body["messages"]
        clean: list[Any] = CHAT_CLEAN
    else:
        clean = [{"role": "user", "content": "hi"}, fc("c1"), fc_out("c1")]
        client.responses.create(model="gpt-4o", input=clean, tools=[RESPONSES_TOOL])
        sent = wire.body["input"]
    assert sent == clean and repairs == [] and loaded == []
    # Without the tool offered, the call is recorded: the history was read.
    if endpoint == "chat":
        client.chat.completions.create(model="gpt-4o", messages=CHAT_CLEAN, tools=[])
    else:
        client.responses.create(model="gpt-4o", input=clean, tools=[])
    assert loaded and [r.rule for r in repairs] == ["tool-not-offered"]


def test_responses_continuing_a_server_conversation_keep_outputs_of_its_calls() -> None:
    # The call `call_prev` is in the stored response the request continues.
    wire = Wire()
    client = heal_openai(openai_client(wire))
    client.responses.create(
        model="gpt-4o", input=[fc_out("call_prev", "42")], previous_response_id="resp_1"
    )
    assert wire.body["input"] == [fc_out("call_prev", "42")]
    client.responses.create(model="gpt-4o", input=[fc_out("call_prev", "42")])
    assert wire.body["input"] == []


# --- Anthropic -------------------------------------------------------------------------------


def tool_use(tool_use_id: str, tool_input: Any = None) -> Any:
    return {
        "type": "tool_use",
        "id": tool_use_id,
        "name": "get_weather",
        "input": {"city": "Paris"} if tool_input is None else tool_input,
    }


def tool_result(tool_use_id: str, content: str = "sunny") -> Any:
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}


ANTHROPIC_BROKEN: list[Any] = [
    {"role": "user", "content": "weather in Paris?"},
    {
        "role": "assistant",
        "content": [{"type": "text", "text": "Checking."}, tool_use("t1", "Paris")],
    },
    {"role": "user", "content": "hurry up"},  # no tool_result for t1
    {"role": "assistant", "content": "Sorry."},
    {"role": "user", "content": [tool_result("gone"), {"type": "text", "text": "and tomorrow?"}]},
]


def test_anthropic_messages_are_healed_before_sending() -> None:
    wire, repairs = Wire(), list[Repair]()
    client = heal_anthropic(anthropic_client(wire), on_repair=repairs.append)

    message = client.messages.create(
        model="claude-test",
        max_tokens=100,
        system="Be brief.",
        messages=ANTHROPIC_BROKEN,
    )

    assert message.content[0].type == "text"
    body = wire.body
    assert body["system"] == "Be brief." and body["max_tokens"] == 100
    sent = body["messages"]
    assert_valid({"system": body["system"], "messages": sent}, anthropic_adapter, "anthropic")
    # The call's input is an object; its result comes first in the next user message.
    assert sent[1]["content"][1] == tool_use("t1", {"raw": "Paris"})
    assert sent[2]["content"][0]["type"] == "tool_result"
    assert sent[2]["content"][0]["tool_use_id"] == "t1"
    assert sent[2]["content"][1:] == [{"type": "text", "text": "hurry up"}]
    assert sent[4] == {"role": "user", "content": [{"type": "text", "text": "and tomorrow?"}]}
    assert {r.rule for r in repairs} >= {
        "invalid-tool-input",
        "orphan-tool-call",
        "orphan-tool-result",
    }


def test_anthropic_valid_request_goes_out_unchanged_with_sdk_objects() -> None:
    # The usual loop appends the SDK's response content blocks (pydantic models) as they are.
    plain_wire, healed_wire = Wire(), Wire()
    repairs: list[Repair] = []
    plain = anthropic_client(plain_wire)
    healed = heal_anthropic(anthropic_client(healed_wire), on_repair=repairs.append)
    reply = plain.messages.create(
        model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
    )
    history: list[Any] = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": reply.content},
        {"role": "user", "content": "more"},
    ]
    plain.messages.create(
        model="m", max_tokens=10, system=[{"type": "text", "text": "Be brief."}], messages=history
    )
    healed.messages.create(
        model="m", max_tokens=10, system=[{"type": "text", "text": "Be brief."}], messages=history
    )
    assert repairs == []
    assert healed_wire.requests[0].content == plain_wire.requests[1].content


def test_anthropic_count_tokens_beta_and_async_are_healed() -> None:
    wire = Wire()
    client = heal_anthropic(anthropic_client(wire))
    client.messages.count_tokens(model="m", messages=ANTHROPIC_BROKEN)
    assert wire.requests[-1].url.path.endswith("/v1/messages/count_tokens")
    assert_valid(wire.body, anthropic_adapter, "anthropic")
    client.beta.messages.create(model="m", max_tokens=10, messages=ANTHROPIC_BROKEN)
    assert wire.requests[-1].url.path.endswith("/v1/messages")
    assert_valid(wire.body, anthropic_adapter, "anthropic")

    async_client = heal_anthropic(AsyncAnthropic(api_key="test", http_client=wire.async_()))
    assert isinstance(async_client, AsyncAnthropic)
    asyncio.run(async_client.messages.create(model="m", max_tokens=10, messages=ANTHROPIC_BROKEN))
    assert_valid(wire.body, anthropic_adapter, "anthropic")


# --- reporting, strictness, options ----------------------------------------------------------


def test_repairs_are_logged_without_a_callback(caplog: pytest.LogCaptureFixture) -> None:
    wire = Wire()
    client = heal_openai(openai_client(wire))
    with caplog.at_level(logging.INFO, logger="heal"):
        client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": "hi"}, chat_result("gone")]
        )
    records = [r for r in caplog.records if r.name == "heal"]
    assert records and all(r.levelno == logging.INFO for r in records)
    assert "orphan-tool-result" in records[0].getMessage()


def test_strict_raises_before_anything_is_sent() -> None:
    wire = Wire()
    with pytest.raises(HealingError):
        heal_openai(openai_client(wire), strict=True).chat.completions.create(
            model="gpt-4o", messages=CHAT_BROKEN
        )
    with pytest.raises(HealingError):
        heal_anthropic(anthropic_client(wire), strict=True).messages.create(
            model="m",
            max_tokens=10,
            messages=ANTHROPIC_BROKEN,
        )
    assert wire.requests == []


def test_unreadable_history_is_sent_unchanged_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    wire = Wire()
    messages: Any = [{"role": "wizard", "content": "hi"}]
    with caplog.at_level(logging.WARNING, logger="heal"):
        heal_openai(openai_client(wire)).chat.completions.create(model="m", messages=messages)
    assert wire.body["messages"] == messages
    assert any(r.levelno == logging.WARNING and r.name == "heal" for r in caplog.records)


def test_bad_options_fail_when_built() -> None:
    with pytest.raises(ConfigError):
        heal_openai(openai_client(Wire()), provider="nope")  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        heal_anthropic(anthropic_client(Wire()), policy={"no-such-rule": "fix"})


CHAT_COMPLETION: Json = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 0,
    "model": "gpt-4o",
    "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}
    ],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}

RESPONSE: Json = {
    "id": "resp_1",
    "object": "response",
    "created_at": 0,
    "model": "gpt-4o",
    "status": "completed",
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
    "output": [
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "ok", "annotations": []}],
        }
    ],
}

MESSAGE: Json = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-test",
    "content": [{"type": "text", "text": "ok"}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
}

EMBEDDINGS: Json = {
    "object": "list",
    "model": "text-embedding-3-small",
    "data": [{"object": "embedding", "index": 0, "embedding": [0.0]}],
    "usage": {"prompt_tokens": 1, "total_tokens": 1},
}


def test_streamed_requests_are_healed() -> None:
    chunk = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "gpt-4o",
        "choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": None}],
    }
    sse = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n"
    requests: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        requests.append(request)
        return httpx2.Response(200, text=sse, headers={"content-type": "text/event-stream"})

    http = httpx2.Client(transport=httpx2.MockTransport(handler))
    client = heal_openai(OpenAI(api_key="test", http_client=http))
    stream = client.chat.completions.create(model="gpt-4o", messages=CHAT_BROKEN, stream=True)
    assert [c.choices[0].delta.content for c in stream] == ["ok"]
    assert_valid(json.loads(requests[0].content)["messages"], openai_chat, "openai-chat")


def test_responses_with_sdk_output_items_go_out_unchanged() -> None:
    # The usual loop appends `response.output` (pydantic models) to the next input.
    plain_wire, healed_wire = Wire(), Wire()
    repairs: list[Repair] = []
    plain = openai_client(plain_wire)
    healed = heal_openai(openai_client(healed_wire), on_repair=repairs.append)
    first = plain.responses.create(model="gpt-4o", input="hi")
    items: list[Any] = [
        {"role": "user", "content": "hi"},
        *first.output,
        {"role": "user", "content": "more"},
    ]
    plain.responses.create(model="gpt-4o", input=items)
    healed.responses.create(model="gpt-4o", input=items)
    assert repairs == []
    assert healed_wire.requests[0].content == plain_wire.requests[1].content


# --- the target of the call ------------------------------------------------------------------

ANTHROPIC_TOOL: Any = {"name": "get_weather", "input_schema": {"type": "object"}}

PREFILL: list[Any] = [
    {"role": "user", "content": "Name a color"},
    {"role": "assistant", "content": "Blue"},
]


def test_anthropic_history_is_healed_for_the_model_of_the_call() -> None:
    # claude-sonnet-4-6 rejects a prefill, claude-opus-4-1 takes one (heal.targets).
    for model, sent in (("claude-sonnet-4-6", PREFILL[:1]), ("claude-opus-4-1", PREFILL)):
        wire = Wire()
        client = heal_anthropic(anthropic_client(wire))
        client.messages.create(model=model, max_tokens=10, messages=PREFILL)
        assert wire.body["messages"] == sent, model
    # provider=None (the shared rules only) is not re-inferred from the model id.
    wire = Wire()
    client = heal_anthropic(anthropic_client(wire), provider=None)
    client.messages.create(model="claude-sonnet-4-6", max_tokens=10, messages=PREFILL)
    assert wire.body["messages"] == PREFILL


def anthropic_tool_loop() -> list[Any]:
    """Signed thinking earlier; the open tool loop's assistant message starts with text (its
    thinking was lost): tests/cases/target/anthropic-tool-loop-thinking.json, natively."""
    signed = {"type": "thinking", "thinking": "call the tool", "signature": "c2lnbmF0dXJl"}
    return [
        {"role": "user", "content": "weather in Paris?"},
        {"role": "assistant", "content": [signed, tool_use("t1")]},
        {"role": "user", "content": [tool_result("t1")]},
        {"role": "assistant", "content": "Sunny."},
        {"role": "user", "content": "and Rome?"},
        {"role": "assistant", "content": [{"type": "text", "text": "Checking."}, tool_use("t2")]},
        {"role": "user", "content": [tool_result("t2")]},
    ]


@pytest.mark.parametrize(
    ("thinking", "reported"),
    [
        ({"type": "enabled", "budget_tokens": 1024}, True),
        ({"type": "adaptive"}, True),
        ({"type": "disabled"}, False),
    ],
)
def test_anthropic_thinking_of_the_call_decides_the_tool_loop_report(
    thinking: Any, reported: bool
) -> None:
    wire, repairs = Wire(), list[Repair]()
    client = heal_anthropic(anthropic_client(wire), on_repair=repairs.append)
    client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=2048,
        thinking=thinking,
        tools=[ANTHROPIC_TOOL],
        messages=anthropic_tool_loop(),
    )
    expected = [("anthropic-tool-loop-thinking", "report", 5)] if reported else []
    assert [(r.rule, r.action.value, r.message_index) for r in repairs] == expected


def test_anthropic_calls_to_tools_the_request_does_not_define() -> None:
    history: list[MessageParam] = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": [tool_use("t1")]},
        {"role": "user", "content": [tool_result("t1"), {"type": "text", "text": "thanks"}]},
    ]
    wire, repairs = Wire(), list[Repair]()
    client = heal_anthropic(anthropic_client(wire), on_repair=repairs.append)
    get_time: ToolParam = {"name": "get_time", "input_schema": {"type": "object"}}
    client.messages.create(
        model="claude-sonnet-4-6", max_tokens=10, messages=history, tools=[get_time]
    )
    assert [(r.rule, r.action.value, r.tool_call_id) for r in repairs] == [
        ("tool-not-offered", "keep", "t1")
    ]
    # Tools the SDK has yet to read (an iterator) are not consumed: they are sent as given.
    client.messages.create(
        model="claude-sonnet-4-6", max_tokens=10, messages=history, tools=iter([get_time])
    )
    assert wire.body["tools"] == [get_time]
    # No tools at all: Anthropic rejects the tool blocks ("Requests which include tool_use or
    # tool_result blocks must define tools."), so strict fails before anything is sent.
    strict = heal_anthropic(anthropic_client(wire), strict=True)
    with pytest.raises(HealingError) as raised:
        strict.messages.create(model="claude-sonnet-4-6", max_tokens=10, messages=history)
    assert [(r.rule, r.action.value) for r in raised.value.repairs] == [
        ("tool-not-offered", "report")
    ]
    assert len(wire.requests) == 2


PNG = "data:image/png;base64,iVBORw0KGgo="


def test_openai_history_is_healed_for_the_model_of_the_call() -> None:
    # o3-mini takes no images (heal.targets): the image becomes a text marker for it alone.
    looked: list[Any] = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is this?"},
                {"type": "image_url", "image_url": {"url": PNG}},
            ],
        },
        {"role": "assistant", "content": "A logo."},
        {"role": "user", "content": "and now?"},
    ]
    for model, kinds in (("o3-mini", ["text", "text"]), ("gpt-4o", ["text", "image_url"])):
        wire = Wire()
        heal_openai(openai_client(wire)).chat.completions.create(model=model, messages=looked)
        assert [part["type"] for part in wire.body["messages"][0]["content"]] == kinds, model


class TargetProbe(Rule):
    """Records the target of every request it sees (a test probe, changes nothing)."""

    id = "test-target-probe"
    summary = "records the target of the request"
    choice_docs = {"fix": "record only"}

    def __init__(self) -> None:
        self.seen: list[Target] = []

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        if ctx.messages:
            self.seen.append(ctx.target)
        return iter(())


@pytest.mark.parametrize(
    ("call", "thinking"),
    [
        ({"reasoning_effort": "none"}, False),
        ({"reasoning_effort": "minimal"}, True),
        ({"reasoning_effort": "high"}, True),
        ({}, None),
    ],
)
def test_openai_chat_target_from_the_call(call: dict[str, Any], thinking: bool | None) -> None:
    probe = TargetProbe()
    client = heal_openai(openai_client(Wire()), rules=[probe])
    client.chat.completions.create(model="o4-mini", messages=CHAT_CLEAN, tools=[CHAT_TOOL], **call)
    assert probe.seen[-1] == Target("openai-chat", "o4-mini", thinking, frozenset({"get_weather"}))


def test_openai_responses_target_from_the_call() -> None:
    probe = TargetProbe()
    client = heal_openai(openai_client(Wire()), rules=[probe])
    clean = [{"role": "user", "content": "hi"}, fc("c1"), fc_out("c1")]
    client.responses.create(
        model="gpt-5", input=clean, reasoning={"effort": "none"}, tools=[RESPONSES_TOOL]
    )
    client.responses.create(model="gpt-5", input=clean)
    assert probe.seen == [
        Target("openai-responses", "gpt-5", False, frozenset({"get_weather"})),
        Target("openai-responses", "gpt-5", None, frozenset()),
    ]
