"""The LiteLLM integration, with the real ``litellm`` package: each request LiteLLM writes for
the provider is captured by a mock HTTP transport (no network), so the tests see the body the
provider would get, after LiteLLM's own translation of heal's output."""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import os
import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest

# LiteLLM's bundled model list and prices, not a download when litellm is imported.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import httpx
import litellm
from litellm.caching.dual_cache import DualCache
from litellm.integrations.custom_logger import CustomLogger
from litellm.llms.bedrock.common_utils import BedrockModelInfo
from litellm.llms.custom_httpx.http_handler import AsyncHTTPHandler, HTTPHandler
from litellm.proxy._types import UserAPIKeyAuth
from litellm.router import Router

from heal import HealingError, Repair, Target
from heal.integrations.litellm import (
    HealCallback,
    acompletion,
    completion,
    heal_litellm,
    litellm_route,
)
from heal.rules import Context, Finding, Rule

Json = dict[str, Any]
CLAUDE = "anthropic/claude-sonnet-4-6"
MISTRAL = "mistral/mistral-large-latest"
GEMINI = "gemini/gemini-3-pro-preview"
KEYS: Json = {"api_key": "test"}

ANTHROPIC_MESSAGE: Json = {
    "id": "msg_01",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-6",
    "content": [
        {"type": "thinking", "thinking": "Two and two.", "signature": "EqQBCkYIBxgCKkA"},
        {"type": "text", "text": "4"},
    ],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 10, "output_tokens": 5},
}
CHAT_COMPLETION: Json = {
    "id": "cmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": "mistral-large-latest",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "4"}, "finish_reason": "stop"}
    ],
    "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11},
}
GEMINI_RESPONSE: Json = {
    "candidates": [
        {"content": {"role": "model", "parts": [{"text": "4"}]}, "finishReason": "STOP", "index": 0}
    ],
    "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 1, "totalTokenCount": 11},
}


class Wire:
    """A mock transport that records every request and answers like the provider's API."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        host = request.url.host
        if host == "api.anthropic.com":
            return httpx.Response(200, json=ANTHROPIC_MESSAGE)
        if host == "api.mistral.ai":
            return httpx.Response(200, json=CHAT_COMPLETION)
        if host == "generativelanguage.googleapis.com":
            return httpx.Response(200, json=GEMINI_RESPONSE)
        return httpx.Response(404, json={"error": {"message": f"no route {request.url}"}})

    @property
    def body(self) -> Json:
        """The JSON body of the last request."""
        body: Json = json.loads(self.requests[-1].content)
        return body

    def sync(self) -> HTTPHandler:
        return HTTPHandler(client=httpx.Client(transport=httpx.MockTransport(self)))

    def async_(self) -> AsyncHTTPHandler:
        return AsyncHTTPHandler(transport=httpx.MockTransport(self))


@pytest.fixture
def wire() -> Wire:
    return Wire()


def sent(wire: Wire, model: str, messages: list[Any], **call: Any) -> Json:
    """The body plain ``litellm.completion`` sends for this call: what LiteLLM does alone."""
    litellm.completion(model=model, messages=messages, client=wire.sync(), **KEYS, **call)
    return wire.body


def call(call_id: str, **extra: Any) -> Json:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                **extra,
            }
        ],
    }


def result(call_id: str) -> Json:
    return {"role": "tool", "tool_call_id": call_id, "content": "sunny"}


TOOLS: list[Any] = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}
]

ORPHAN_CALL: list[Any] = [
    {"role": "user", "content": "Weather in Paris?"},
    call("toolu_01"),  # never answered
    {"role": "user", "content": "Never mind. Say hi."},
]
PREFILL: list[Any] = [
    {"role": "user", "content": "Write a haiku."},
    {"role": "assistant", "content": "Autumn"},  # claude-sonnet-4-6 rejects a prefill
]
REASONING: list[Any] = [
    {"role": "user", "content": "2+2?"},
    {"role": "assistant", "content": "4", "reasoning_content": "Two and two make four."},
    {"role": "user", "content": "And 3+3?"},
]
CLEAN_CHAT: list[Any] = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Weather in Paris?"},
    call("a1B2c3D4e"),  # an id both Anthropic and Mistral take
    result("a1B2c3D4e"),
    {"role": "assistant", "content": "It is sunny."},
    {"role": "user", "content": "Thanks!"},
]


def tool_results(body: Json) -> list[Any]:
    """The tool_result blocks of an Anthropic body."""
    return [
        block
        for message in body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


# --- the body LiteLLM sends, for each routed provider --------------------------------------------


def test_anthropic_orphan_tool_call_is_answered_in_the_body(wire: Wire) -> None:
    before = sent(wire, CLAUDE, ORPHAN_CALL, tools=TOOLS)
    assert tool_results(before) == []  # LiteLLM alone sends the call unanswered

    repairs: list[Repair] = []
    healed = heal_litellm(litellm.completion, on_repair=repairs.append)
    healed(model=CLAUDE, messages=ORPHAN_CALL, tools=TOOLS, client=wire.sync(), **KEYS)

    assert [r.rule for r in repairs] == ["orphan-tool-call"]
    (answer,) = tool_results(wire.body)
    assert answer["tool_use_id"] == "toolu_01"
    assert wire.body["messages"][-1]["content"][-1] == {
        "type": "text",
        "text": "Never mind. Say hi.",
    }


def test_anthropic_prefill_is_dropped_for_claude_sonnet_4_6(wire: Wire) -> None:
    assert sent(wire, CLAUDE, PREFILL)["messages"][-1]["role"] == "assistant"

    repairs: list[Repair] = []
    heal_litellm(litellm.completion, on_repair=repairs.append)(
        model=CLAUDE, messages=PREFILL, client=wire.sync(), **KEYS
    )

    assert [r.rule for r in repairs] == ["anthropic-assistant-prefill"]
    assert [m["role"] for m in wire.body["messages"]] == ["user"]
    # The model that takes a prefill keeps it: the rule follows the routed model.
    repairs.clear()
    heal_litellm(litellm.completion, on_repair=repairs.append)(
        model="anthropic/claude-sonnet-4-5", messages=PREFILL, client=wire.sync(), **KEYS
    )
    assert repairs == []
    assert wire.body["messages"][-1]["role"] == "assistant"


def test_mistral_orphan_tool_call_and_its_ids_are_healed_in_the_body(wire: Wire) -> None:
    before = sent(wire, MISTRAL, ORPHAN_CALL, tools=TOOLS)
    assert before["messages"][1]["tool_calls"][0]["id"] == "toolu_01"  # Mistral rejects it
    assert [m["role"] for m in before["messages"]] == ["user", "assistant", "user"]

    repairs: list[Repair] = []
    heal_litellm(litellm.completion, on_repair=repairs.append)(
        model=MISTRAL, messages=ORPHAN_CALL, tools=TOOLS, client=wire.sync(), **KEYS
    )

    assert {r.rule for r in repairs} == {
        "orphan-tool-call",
        "mistral-tool-call-id",
        "mistral-user-after-tool",
    }
    messages = wire.body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant", "user"]
    new_id = messages[1]["tool_calls"][0]["id"]
    assert len(new_id) == 9 and new_id.isalnum()
    assert messages[2]["tool_call_id"] == new_id


def test_mistral_reasoning_is_removed_for_mistral_large(wire: Wire) -> None:
    repairs: list[Repair] = []
    heal_litellm(litellm.completion, on_repair=repairs.append)(
        model=MISTRAL, messages=REASONING, client=wire.sync(), **KEYS
    )
    assert [r.rule for r in repairs] == ["mistral-reasoning-input"]
    assert repairs[0].removed is not None  # the reasoning is in the record, not lost
    assert wire.body["messages"][1] == {"role": "assistant", "content": "4"}
    # Magistral takes reasoning: kept, and LiteLLM sends it as Mistral's thinking chunk.
    repairs.clear()
    heal_litellm(litellm.completion, on_repair=repairs.append)(
        model="mistral/magistral-medium-latest", messages=REASONING, client=wire.sync(), **KEYS
    )
    assert repairs == []
    assert "Two and two make four." in json.dumps(wire.body["messages"][1])


@pytest.mark.parametrize("model", [CLAUDE, MISTRAL])
def test_a_clean_history_goes_out_unchanged(wire: Wire, model: str) -> None:
    history = copy.deepcopy(CLEAN_CHAT)
    before = sent(wire, model, history, tools=TOOLS)
    passed: list[Any] = []

    def send(**kwargs: Any) -> Any:
        passed.append(kwargs["messages"])
        return litellm.completion(**kwargs)

    repairs: list[Repair] = []
    heal_litellm(send, on_repair=repairs.append)(
        model=model, messages=history, tools=TOOLS, client=wire.sync(), **KEYS
    )
    assert repairs == []
    assert passed[0] is history  # the very list
    assert wire.body == before
    assert history == CLEAN_CHAT


def test_claude_thinking_litellm_returned_goes_back_unchanged(wire: Wire) -> None:
    thinking = {"type": "enabled", "budget_tokens": 1024}
    response = litellm.completion(
        model=CLAUDE,
        messages=[{"role": "user", "content": "2+2?"}],
        thinking=thinking,
        client=wire.sync(),
        **KEYS,
    )
    reply = response.choices[0].message  # a LiteLLM Message: thinking_blocks, reasoning_content
    assert reply.thinking_blocks and reply.reasoning_content
    history = [{"role": "user", "content": "2+2?"}, reply, {"role": "user", "content": "And 3+3?"}]
    before = sent(wire, CLAUDE, history, thinking=thinking)

    repairs: list[Repair] = []
    healed = heal_litellm(litellm.completion, on_repair=repairs.append)
    healed(model=CLAUDE, messages=history, thinking=thinking, client=wire.sync(), **KEYS)
    # reasoning_content only repeats the signed blocks LiteLLM sends: not unsigned reasoning.
    assert repairs == []
    assert wire.body == before
    assert wire.body["messages"][1]["content"][0]["signature"] == "EqQBCkYIBxgCKkA"

    # Healing something else keeps the message's LiteLLM fields as they were.
    passed: list[Any] = []

    def send(**kwargs: Any) -> Any:
        passed.append(kwargs["messages"])
        return litellm.completion(**kwargs)

    heal_litellm(send, on_repair=repairs.append)(
        model=CLAUDE, messages=[*history, PREFILL[1]], client=wire.sync(), **KEYS
    )
    assert [r.rule for r in repairs] == ["anthropic-assistant-prefill"]
    assert passed[0][1]["reasoning_content"] == reply.reasoning_content
    assert passed[0][1]["thinking_blocks"] == reply.thinking_blocks
    assert wire.body["messages"][1]["content"][0]["type"] == "thinking"


def test_gemini_thought_signature_where_litellm_keeps_it(wire: Wire) -> None:
    signed = [
        {"role": "user", "content": "Weather in Paris?"},
        call("call_1", provider_specific_fields={"thought_signature": "c2lnbmF0dXJl"}),
        result("call_1"),
    ]
    repairs: list[Repair] = []
    passed: list[Any] = []

    def send(**kwargs: Any) -> Any:
        passed.append(kwargs["messages"])
        return litellm.completion(**kwargs)

    heal_litellm(send, on_repair=repairs.append)(
        model=GEMINI, messages=signed, tools=TOOLS, client=wire.sync(), **KEYS
    )
    assert repairs == []  # the signature LiteLLM keeps is the call's signature
    assert passed[0] is signed

    unsigned = [signed[0], call("call_1"), signed[2]]
    heal_litellm(send, on_repair=repairs.append)(
        model=GEMINI, messages=unsigned, tools=TOOLS, client=wire.sync(), **KEYS
    )
    assert [r.rule for r in repairs] == ["google-missing-thought-signature"]
    healed_call = passed[1][1]["tool_calls"][0]
    assert "extra_content" not in healed_call
    placeholder = healed_call["provider_specific_fields"]["thought_signature"]
    parts = wire.body["contents"][1]["parts"]
    assert parts[0]["thoughtSignature"] == placeholder


# --- the SDK API --------------------------------------------------------------------------------


def test_completion_and_acompletion_are_litellm_s_with_the_history_healed(
    wire: Wire, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="heal"):
        response = completion(CLAUDE, PREFILL, client=wire.sync(), **KEYS)  # positional too
    assert response.choices[0].message.content == "4"
    assert [m["role"] for m in wire.body["messages"]] == ["user"]
    assert any("anthropic-assistant-prefill" in r.getMessage() for r in caplog.records)

    response = asyncio.run(
        acompletion(model=CLAUDE, messages=PREFILL, client=wire.async_(), **KEYS)
    )
    assert response.choices[0].message.content == "4"
    assert [m["role"] for m in wire.body["messages"]] == ["user"]
    assert PREFILL[-1] == {"role": "assistant", "content": "Autumn"}  # not mutated


def test_heal_litellm_wraps_async_functions_and_keeps_their_name(wire: Wire) -> None:
    healed = heal_litellm(litellm.acompletion)
    assert healed.__name__ == "acompletion"
    asyncio.run(healed(model=MISTRAL, messages=ORPHAN_CALL, client=wire.async_(), **KEYS))
    assert [m["role"] for m in wire.body["messages"]][2] == "tool"


def test_strict_raises_before_sending(wire: Wire) -> None:
    with pytest.raises(HealingError):
        heal_litellm(litellm.completion, strict=True)(
            model=CLAUDE, messages=PREFILL, client=wire.sync(), **KEYS
        )
    assert wire.requests == []


def test_an_unreadable_history_is_sent_unchanged_with_a_warning(
    wire: Wire, caplog: pytest.LogCaptureFixture
) -> None:
    odd: list[Any] = [{"role": "user", "content": "hi"}, {"role": "wizard", "content": "boo"}]
    passed: list[Any] = []

    def send(**kwargs: Any) -> Any:
        passed.append(kwargs["messages"])
        return None

    with caplog.at_level(logging.WARNING, logger="heal"):
        heal_litellm(send)(model=CLAUDE, messages=odd)
    assert passed[0] is odd
    assert any("could not heal" in r.getMessage() for r in caplog.records)


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


def probed(call: Json) -> Target:
    probe = TargetProbe()
    heal_litellm(lambda **kwargs: None, rules=[probe])(
        messages=[{"role": "user", "content": "hi"}], **call
    )
    (target,) = probe.seen
    return target


@pytest.mark.parametrize(
    ("call", "thinking"),
    [
        ({"thinking": {"type": "enabled", "budget_tokens": 1024}}, True),
        ({"thinking": {"type": "disabled"}}, False),
        ({"reasoning_effort": "none"}, False),
        ({"reasoning_effort": "low"}, True),
        ({"reasoning_effort": {"effort": "high", "summary": "auto"}}, True),
        ({}, None),
    ],
)
def test_thinking_from_the_call(call: Json, thinking: bool | None) -> None:
    assert probed({"model": CLAUDE, **call}).thinking is thinking


def test_tools_from_the_call() -> None:
    assert probed({"model": CLAUDE, "tools": TOOLS}).tools == frozenset({"get_weather"})
    legacy = [{"name": "lookup", "parameters": {"type": "object"}}]
    assert probed({"model": CLAUDE, "functions": legacy}).tools == frozenset({"lookup"})
    # No tools: LiteLLM adds a placeholder tool where the provider needs one, or refuses.
    assert probed({"model": CLAUDE}).tools is None


def bedrock_provider(model_id: str) -> str:
    """The provider of a Bedrock model id, by the route the installed LiteLLM takes."""
    return {"converse": "bedrock", "invoke": "anthropic"}[
        str(BedrockModelInfo.get_bedrock_route(model_id))
    ]


@pytest.mark.parametrize(
    ("call", "provider", "model_name"),
    [
        ({"model": CLAUDE}, "anthropic", "claude-sonnet-4-6"),
        ({"model": MISTRAL}, "mistral", "mistral-large-latest"),
        ({"model": "claude-sonnet-4-6"}, "anthropic", "claude-sonnet-4-6"),
        ({"model": "claude-sonnet-4-6", "custom_llm_provider": "anthropic"}, "anthropic", None),
        ({"model": "vertex_ai/gemini-3-pro"}, "google", "gemini-3-pro"),
        ({"model": "vertex_ai/claude-sonnet-4-6"}, "anthropic", "claude-sonnet-4-6"),
        ({"model": "bedrock/converse/us.anthropic.claude-sonnet-4-6"}, "bedrock", None),
        ({"model": "bedrock/invoke/us.anthropic.claude-sonnet-4-6"}, "anthropic", None),
        (
            {"model": "openai/llama-3.3-70b", "api_base": "https://api.groq.com/openai/v1"},
            "groq",
            None,
        ),
        (
            {"model": "openai/my-model", "api_base": "http://localhost:8000/v1"},
            "openai-compatible",
            None,
        ),
        ({"model": "gpt-4o"}, "openai-chat", None),
    ],
)
def test_provider_and_model_as_litellm_routes_them(
    call: Json, provider: str, model_name: str | None
) -> None:
    from heal.targets import model_name as read_name

    target = probed(call)
    assert target.provider == provider
    if model_name is not None:
        assert target.model is not None and read_name(target.model) == model_name


@pytest.mark.parametrize(
    "model_id", ["us.anthropic.claude-sonnet-4-6-v1:0", "anthropic.claude-sonnet-4-5-20250929-v1:0"]
)
def test_a_bare_bedrock_id_follows_the_route_litellm_takes(model_id: str) -> None:
    provider, spelled = litellm_route(f"bedrock/{model_id}")
    assert provider == bedrock_provider(model_id)
    assert spelled.endswith(model_id)


def test_a_forced_provider_wins() -> None:
    probe = TargetProbe()
    heal_litellm(lambda **kwargs: None, provider="openai-compatible", rules=[probe])(
        model=CLAUDE, messages=[{"role": "user", "content": "hi"}]
    )
    assert probe.seen[0].provider == "openai-compatible"
    assert probe.seen[0].model == CLAUDE


# --- the proxy ----------------------------------------------------------------------------------


async def proxy_pre_call(callback: CustomLogger, data: Json, call_type: str) -> Json:
    """What ``ProxyLogging.pre_call_hook`` (litellm/proxy/utils.py) does with one callback:
    it calls a class's own ``async_pre_call_hook`` with these keywords, and a dict it returns
    becomes the request (a str rejects it, None keeps it)."""
    cls = type(callback)
    assert "async_pre_call_hook" in vars(cls)
    assert cls.async_pre_call_hook is not CustomLogger.async_pre_call_hook
    # call_type is any route name the proxy has, some outside the hook's Literal on purpose
    # ("embeddings" in test_other_routes_pass_untouched).
    response = await callback.async_pre_call_hook(
        user_api_key_dict=UserAPIKeyAuth(),
        cache=DualCache(),
        data=data,
        call_type=call_type,  # type: ignore[arg-type]
    )
    if isinstance(response, dict):
        return response
    assert response is None
    return data


def proxy_data(model: str, messages: list[Any], **extra: Any) -> Json:
    """A request as the proxy holds it at the pre-call hook: the client's body plus the
    proxy's metadata (no deployment is picked yet)."""
    return {
        "model": model,
        "messages": messages,
        "metadata": {"user_api_key": "hashed", "headers": {}, "endpoint": "/chat/completions"},
        "litellm_call_id": "call-1",
        **extra,
    }


def router(*deployments: tuple[str, str], **settings: Any) -> Router:
    # mypy reads Router(...) as Any (litellm's type-checking stub): name what it builds.
    built: Router = Router(
        model_list=[
            {"model_name": name, "litellm_params": {"model": model, **KEYS}}
            for name, model in deployments
        ],
        **settings,
    )
    return built


def test_proxy_pre_call_hook_heals_for_the_model_group_s_deployment(wire: Wire) -> None:
    repairs: list[Repair] = []
    proxy_router = router(("claude", CLAUDE), model_group_alias={"smart": "claude"})
    callback = HealCallback(router=proxy_router, on_repair=repairs.append)
    for name in ("claude", "smart"):  # the group, and an alias of it
        repairs.clear()
        data = proxy_data(name, copy.deepcopy(PREFILL), tools=TOOLS)
        healed = asyncio.run(proxy_pre_call(callback, data, "acompletion"))
        assert [r.rule for r in repairs] == ["anthropic-assistant-prefill"]
        assert healed is not data and data["messages"] == PREFILL  # the request is not mutated
        assert healed["metadata"] is data["metadata"]
        # What the router then sends to the deployment.
        asyncio.run(
            proxy_router.acompletion(
                model=name, messages=healed["messages"], tools=TOOLS, client=wire.async_()
            )
        )
        assert wire.requests[-1].url.host == "api.anthropic.com"
        assert [m["role"] for m in wire.body["messages"]] == ["user"]


def test_proxy_pre_call_hook_finds_the_proxy_s_router(monkeypatch: pytest.MonkeyPatch) -> None:
    server = types.ModuleType("litellm.proxy.proxy_server")
    server.llm_router = router(("fast", MISTRAL))  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "litellm.proxy.proxy_server", server)
    repairs: list[Repair] = []
    data = proxy_data("fast", copy.deepcopy(ORPHAN_CALL))
    healed = asyncio.run(
        proxy_pre_call(HealCallback(on_repair=repairs.append), data, "acompletion")
    )
    assert "mistral-tool-call-id" in {r.rule for r in repairs}
    assert healed["messages"][1]["tool_calls"][0]["id"] != "toolu_01"


def test_proxy_pre_call_hook_reads_a_model_string_the_router_has_no_group_for() -> None:
    repairs: list[Repair] = []
    callback = HealCallback(router=router(("claude", CLAUDE)), on_repair=repairs.append)
    data = proxy_data(CLAUDE, copy.deepcopy(PREFILL))  # a wildcard route, say
    asyncio.run(proxy_pre_call(callback, data, "acompletion"))
    assert [r.rule for r in repairs] == ["anthropic-assistant-prefill"]


def test_a_group_of_several_providers_is_healed_for_the_deployment_picked(
    wire: Wire, monkeypatch: pytest.MonkeyPatch
) -> None:
    probe = TargetProbe()
    repairs: list[Repair] = []
    mixed = router(("chat", CLAUDE), ("chat", MISTRAL))
    callback = HealCallback(router=mixed, rules=[probe], on_repair=repairs.append)
    broken = [*ORPHAN_CALL, PREFILL[1]]
    healed = asyncio.run(proxy_pre_call(callback, proxy_data("chat", broken), "acompletion"))
    # Before routing: the shared rules only (the orphan call), as the deployments differ.
    assert probe.seen[-1].provider is None
    assert [r.rule for r in repairs] == ["orphan-tool-call"]
    assert healed["messages"][-1] == PREFILL[1]

    # Once the router picks a deployment, LiteLLM's deployment hook heals for it.
    monkeypatch.setattr(litellm, "callbacks", [callback])
    hosts: set[str] = set()
    for _ in range(64):  # the router shuffles: until it has picked each deployment
        if len(hosts) == 2:
            break
        asyncio.run(
            mixed.acompletion(model="chat", messages=healed["messages"], client=wire.async_())
        )
        hosts.add(wire.requests[-1].url.host)
        messages = wire.body["messages"]
        if wire.requests[-1].url.host == "api.anthropic.com":
            assert probe.seen[-1].provider == "anthropic"
            assert messages[-1]["role"] == "user"  # the prefill is gone
        else:
            assert probe.seen[-1].provider == "mistral"
            assert messages[-1] == {"role": "assistant", "content": "Autumn"}  # Mistral takes it
            assert all(c["id"].isalnum() for m in messages for c in m.get("tool_calls", []))
    assert hosts == {"api.anthropic.com", "api.mistral.ai"}


def test_the_deployment_hook_heals_plain_async_litellm_calls(
    wire: Wire, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(litellm, "callbacks", [HealCallback()])
    asyncio.run(litellm.acompletion(model=CLAUDE, messages=PREFILL, client=wire.async_(), **KEYS))
    assert [m["role"] for m in wire.body["messages"]] == ["user"]


@pytest.mark.parametrize("call_type", ["anthropic_messages", "aresponses", "embeddings"])
def test_other_routes_pass_untouched(call_type: str) -> None:
    repairs: list[Repair] = []
    data = proxy_data(CLAUDE, copy.deepcopy(PREFILL))
    callback = HealCallback(on_repair=repairs.append)
    assert asyncio.run(proxy_pre_call(callback, data, call_type)) is data
    assert asyncio.run(callback.async_pre_call_deployment_hook(data, call_type)) is None
    assert repairs == []


def test_a_clean_request_is_the_proxy_s_own_dict() -> None:
    data = proxy_data(MISTRAL, copy.deepcopy(CLEAN_CHAT), tools=TOOLS)
    assert asyncio.run(proxy_pre_call(HealCallback(), data, "acompletion")) is data
