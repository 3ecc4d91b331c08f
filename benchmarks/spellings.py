"""The native entry points on the histories callers actually store, spelled as their SDKs give
them: microseconds per 50-message history, clean and with one repair.

    python -m benchmarks.spellings            # about half a minute
    python -m benchmarks.spellings --runs 9

``benchmarks.peers`` times the adapters on the corpus written by heal's own adapters: plain
dicts with nothing but the fields a message needs. Stored histories are rarely that plain, and
a verdict or a fast loader that refuses a spelling sends every history so spelled through the
general path (heal_pydantic_ai took it for every response a model returned; heal_openai_chat
and heal_anthropic for every message stored as its SDK gives it). Each row here is one spelling
of the same conversation (twelve turns of a question, a tool call, its result and an answer):

* OpenAI Chat: hand-written dicts; ``ChatCompletionMessage.model_dump()`` (null ``refusal``,
  ``annotations``, ``audio``...); the SDK's own objects (``response.choices[0].message``, as
  OpenAI's guide stores it);
* Anthropic: hand-written blocks; ``model_dump()`` of the SDK's blocks (null ``citations``,
  ``caller``, ``toolset_name``); the SDK's own blocks (``response.content``, as Anthropic's
  guide stores it);
* OpenAI Responses: ``response.output`` items stored as ``model_dump(exclude_none=True)``
  (dicts) or ``model_dump()`` (with the SDK's nulls: ``phase``, ``namespace``, ``logprobs``...),
  beside the caller's own user messages and function call outputs; and a reasoning model's
  (dicts), a reasoning item (summary, encrypted content) before each call;
* Gemini: ``google.genai.types.Content`` objects stored as ``model_dump(exclude_none=True)``
  (the Python SDK's ``snake_case`` dicts) or as the REST API's JSON (``camelCase``), with the
  system instruction beside the contents and function calls without ids (as Gemini 2.5 gives
  them: the adapter pairs their responses by name); and a thinking model's (Gemini 3, SDK
  dicts), a ``thought_signature`` (bytes, as the SDK dumps it) on each function call and answer;
* pydantic-ai: the history an ``Agent`` run stores (usage, model name, timestamps, run ids);
* LangChain: messages with a chat model's metadata (``response_metadata``, ``usage_metadata``,
  ids), string content; and as ``ChatAnthropic`` returns them, list content (a text block and
  a ``tool_use`` block beside ``tool_calls``, the answer a text block) with Anthropic's
  ``response_metadata``.

The pydantic-ai and LangChain histories are timed twice: as the history alone, and as
``heal.integrations`` heal every request, with the request's model and tools and the options
they hold (a verdict asked only for a target that named no model, and under no policy object,
left each of those to the general path).

"one repair" removes the first tool result (an orphan call, repaired in every format). Figures
are the median of ``--runs`` timings of 50 heals each, in one process; the load average is
printed before and after. Needs the ``bench`` extras (the SDKs, pydantic-ai, LangChain).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from heal import Policy

TURNS = 12
"""Turns of the conversation: a system or first user message, then four messages a turn (49
or 50 messages)."""


def _openai(style: str) -> list[Any]:
    from openai.types.chat import ChatCompletionMessage
    from openai.types.chat.chat_completion_message_tool_call import (
        ChatCompletionMessageToolCall,
        Function,
    )

    def stored(message: ChatCompletionMessage) -> Any:
        if style == "dicts":
            return message.model_dump(exclude_none=True)
        return message.model_dump() if style == "model_dump()" else message

    history: list[Any] = [{"role": "system", "content": "Be brief."}]
    for turn in range(TURNS):
        call_id = f"call_{turn}"
        arguments = json.dumps({"city": "Paris", "day": turn})
        history.append({"role": "user", "content": f"Weather on day {turn}?"})
        call = ChatCompletionMessageToolCall(
            id=call_id, type="function", function=Function(name="weather", arguments=arguments)
        )
        history.append(stored(ChatCompletionMessage(role="assistant", tool_calls=[call])))
        history.append({"role": "tool", "tool_call_id": call_id, "content": "sunny"})
        answer = ChatCompletionMessage(
            role="assistant", content=f"Sunny on day {turn}.", annotations=[]
        )  # as the API answers a text
        history.append(stored(answer))
    history.append({"role": "user", "content": "Thanks."})
    return history


def _anthropic(style: str) -> list[Any]:
    from anthropic.types import TextBlock, ToolUseBlock

    def stored(blocks: list[Any]) -> list[Any]:
        if style == "dicts":
            return [block.model_dump(exclude_none=True) for block in blocks]
        return [block.model_dump() for block in blocks] if style == "model_dump()" else blocks

    history: list[Any] = []
    for turn in range(TURNS):
        call_id = f"toolu_{turn:02d}"
        history.append({"role": "user", "content": f"Weather on day {turn}?"})
        call = ToolUseBlock(
            type="tool_use", id=call_id, name="weather", input={"city": "Paris", "day": turn}
        )
        intro = TextBlock(type="text", text="Let me check.")
        history.append({"role": "assistant", "content": stored([intro, call])})
        result = {"type": "tool_result", "tool_use_id": call_id, "content": "sunny"}
        history.append({"role": "user", "content": [result]})
        answer = TextBlock(type="text", text=f"Sunny on day {turn}.")
        history.append({"role": "assistant", "content": stored([answer])})
    history.append({"role": "user", "content": "Thanks."})
    return history


def _responses(style: str) -> list[Any]:
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
        ResponseReasoningItem,
    )
    from openai.types.responses.response_reasoning_item import Summary

    def stored(item: Any) -> Any:
        return item.model_dump(exclude_none=True) if style != "model_dump()" else item.model_dump()

    history: list[Any] = [{"role": "developer", "content": "Be brief."}]
    for turn in range(TURNS):
        call_id = f"call_{turn}"
        arguments = json.dumps({"city": "Paris", "day": turn})
        history.append({"role": "user", "content": f"Weather on day {turn}?"})
        if style == "reasoning":
            summary = [Summary(type="summary_text", text="The user asks for the weather.")]
            thought = ResponseReasoningItem(
                type="reasoning", id=f"rs_{turn}", summary=summary, encrypted_content="gAAAAB"
            )
            history.append(stored(thought))
        call = ResponseFunctionToolCall(
            type="function_call",
            id=f"fc_{turn}",
            call_id=call_id,
            name="weather",
            arguments=arguments,
            status="completed",
        )
        history.append(stored(call))
        history.append({"type": "function_call_output", "call_id": call_id, "output": "sunny"})
        text = ResponseOutputText(type="output_text", text=f"Sunny on day {turn}.", annotations=[])
        answer = ResponseOutputMessage(
            type="message", id=f"msg_{turn}", role="assistant", status="completed", content=[text]
        )
        history.append(stored(answer))
    history.append({"role": "user", "content": "Thanks."})
    return history


def _gemini(style: str) -> dict[str, Any]:
    from google.genai import types

    def stored(content: types.Content) -> dict[str, Any]:
        if style == "REST JSON":
            return content.model_dump(mode="json", by_alias=True, exclude_none=True)
        return content.model_dump(exclude_none=True)

    # A thinking model signs the first function call of each step and may sign its answer.
    signature = b"\x12\x8a" * 64 if style == "signed" else None

    contents: list[Any] = []
    for turn in range(TURNS):
        contents.append(
            stored(types.Content(role="user", parts=[types.Part(text=f"Weather on day {turn}?")]))
        )
        call = types.FunctionCall(name="weather", args={"city": "Paris", "day": turn})
        part = types.Part(function_call=call, thought_signature=signature)
        contents.append(stored(types.Content(role="model", parts=[part])))
        result = types.Part.from_function_response(name="weather", response={"result": "sunny"})
        contents.append(stored(types.Content(role="user", parts=[result])))
        answer = types.Part(text=f"Sunny on day {turn}.", thought_signature=signature)
        contents.append(stored(types.Content(role="model", parts=[answer])))
    contents.append(stored(types.Content(role="user", parts=[types.Part(text="Thanks.")])))
    key = "systemInstruction" if style == "REST JSON" else "system_instruction"
    return {"contents": contents, key: {"parts": [{"text": "Be brief."}]}}


def _pydantic_ai() -> list[Any]:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelRequest, UserPromptPart
    from pydantic_ai.models.test import TestModel

    agent = Agent(TestModel(), system_prompt="Be brief.")

    @agent.tool_plain
    def weather(city: str) -> str:
        return f"sunny in {city}"

    history: list[Any] = []
    for turn in range(TURNS):
        history = agent.run_sync(f"Weather on day {turn}?", message_history=history).all_messages()
    # The next request's prompt, as the other rows end (a stored history ends with the model's
    # answer, which a verdict does not call plain: some providers refuse or trim a last
    # assistant message).
    return [*history, ModelRequest(parts=[UserPromptPart("Thanks.")])]


def _langchain(style: str = "metadata") -> list[Any]:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    history: list[Any] = [SystemMessage("Be brief.")]
    for turn in range(TURNS):
        call_id = f"call_{turn}"
        args = {"city": "Paris"}
        history.append(HumanMessage(f"Weather on day {turn}?"))
        if style == "anthropic":
            call_id = f"toolu_01{turn:02d}"
            meta = {
                "id": f"msg_01{turn:02d}",
                "model": "claude-sonnet-4-5-20250929",
                "stop_reason": "tool_use",
                "stop_sequence": None,
                "model_name": "claude-sonnet-4-5-20250929",
                "model_provider": "anthropic",
            }
            content: Any = [
                {"type": "text", "text": "Let me look that up."},
                {"type": "tool_use", "id": call_id, "name": "weather", "input": dict(args)},
            ]
            answer: Any = [{"type": "text", "text": f"Sunny on day {turn}."}]
            done = {**meta, "id": f"msg_02{turn:02d}", "stop_reason": "end_turn"}
        else:
            meta = {"model_name": "gpt-4o", "finish_reason": "tool_calls"}
            content, answer = "", f"Sunny on day {turn}."
            done = {"model_name": "gpt-4o", "finish_reason": "stop"}
        history.append(
            AIMessage(
                content,
                tool_calls=[{"name": "weather", "args": args, "id": call_id}],
                response_metadata=meta,
                usage_metadata={"input_tokens": 40, "output_tokens": 9, "total_tokens": 49},
                id=f"run-{turn}",
            )
        )
        history.append(ToolMessage("sunny", tool_call_id=call_id))
        history.append(AIMessage(answer, response_metadata=done, id=f"run-{turn}-answer"))
    history.append(HumanMessage("Thanks."))
    return history


def _without_first_result(history: Any) -> Any:
    """The history without its first tool result (an orphan call every format repairs)."""
    if isinstance(history, dict):  # Gemini's request: the contents beside the system
        return {**history, "contents": _without_first_result(history["contents"])}
    for i, message in enumerate(history):
        if _holds_a_result(message):
            return history[:i] + history[i + 1 :]
    raise ValueError("no tool result")  # pragma: no cover - every history here has one


def _holds_a_result(message: Any) -> bool:
    if isinstance(message, dict):
        content = message.get("content")
        parts = message.get("parts")
        return (
            message.get("role") == "tool"
            or message.get("type") == "function_call_output"
            or (
                isinstance(content, list)
                and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
            )
            or (
                isinstance(parts, list)
                and any("function_response" in part or "functionResponse" in part for part in parts)
            )
        )
    kind = type(message).__name__
    if kind == "ToolMessage":
        return True
    request_parts = getattr(message, "parts", ())
    return kind == "ModelRequest" and any(
        type(p).__name__ == "ToolReturnPart" for p in request_parts
    )


_AS_THE_INTEGRATIONS_CALL: dict[str, Any] = {
    "model": "gpt-4o",
    "tools": ["weather"],
    "policy": Policy(),
    "rules": (),
}
"""The keywords ``heal.integrations`` heal a request with: the request's model and tools, and
the options as ``HealOptions`` holds them (a policy and a tuple of rules, empty by default)."""


def rows() -> list[tuple[str, Callable[[Any], Any], Any]]:
    """Each row: its name, the entry point, the clean history."""
    from heal.adapters.anthropic import heal_anthropic
    from heal.adapters.gemini import heal_gemini
    from heal.adapters.langchain import heal_langchain
    from heal.adapters.openai_chat import heal_openai_chat
    from heal.adapters.openai_responses import heal_openai_responses
    from heal.adapters.pydantic_ai import heal_pydantic_ai

    styles = ("dicts", "model_dump()", "SDK objects")
    return [
        *[(f"heal_openai_chat, {style}", heal_openai_chat, _openai(style)) for style in styles],
        *[(f"heal_anthropic, {style}", heal_anthropic, _anthropic(style)) for style in styles],
        *[
            (f"heal_openai_responses, {label}", heal_openai_responses, _responses(style))
            for style, label in (
                ("dicts", "output items' dicts"),
                ("model_dump()", "output items' model_dump()"),
                ("reasoning", "a reasoning model's items"),
            )
        ],
        *[
            (f"heal_gemini, {label}", heal_gemini, _gemini(style))
            for style, label in (
                ("SDK dicts", "SDK dicts"),
                ("REST JSON", "REST JSON"),
                ("signed", "a thinking model's (signed)"),
            )
        ],
        ("heal_pydantic_ai, an Agent's history", heal_pydantic_ai, _pydantic_ai()),
        (
            "  with the request's model and tools",
            partial(heal_pydantic_ai, **_AS_THE_INTEGRATIONS_CALL),
            _pydantic_ai(),
        ),
        ("heal_langchain, messages with metadata", heal_langchain, _langchain()),
        (
            "  with the request's model and tools",
            partial(heal_langchain, **_AS_THE_INTEGRATIONS_CALL),
            _langchain(),
        ),
        ("heal_langchain, ChatAnthropic's list content", heal_langchain, _langchain("anthropic")),
    ]


def _median_us(heal: Callable[[Any], Any], history: Any, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(50):
            heal(history)
        times.append((time.perf_counter() - start) / 50)
    return statistics.median(times) * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5, help="timings per row (median)")
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()}")
    print(f"{'entry point, spelling':<46} {'messages':>8} {'clean':>10} {'one repair':>12}")
    for name, heal, history in rows():
        broken = _without_first_result(history)
        if heal(history).repairs or not heal(broken).repairs:  # pragma: no cover - a bug here
            raise RuntimeError(f"{name}: the clean history needs a repair, or the broken none")
        clean = _median_us(heal, history, args.runs)
        repaired = _median_us(heal, broken, args.runs)
        size = len(history["contents"] if isinstance(history, dict) else history)
        print(f"{name:<46} {size:>8} {clean:>8,.0f} us {repaired:>9,.0f} us", flush=True)
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
