"""A deterministic benchmark corpus of AI SDK histories (seeded, so every run sees the same data).

Three shapes (``corpus(shape=...)``), each a system message and then turns cut to the requested
length:

* ``"tools"`` (the default, the corpus every benchmark has used): user text -> assistant (text
  + one or two tool calls) -> tool results -> assistant text;
* ``"reasoning"``: the same turns from a thinking model, as Anthropic, OpenAI Responses or
  Gemini stored them: every assistant message starts with reasoning carrying that provider's
  signature (``signature``; ``itemId`` and encrypted content; ``thoughtSignature``, on the first
  call too), OpenAI's text and calls carry their item ids, and half the tool-call ids are in the
  style of Kimi's OpenAI-compatible server (``functions.search:3``), which every provider needs
  renamed. Healing it for one provider meets foreign reasoning, signatures to keep and ids to
  rename;
* ``"media"``: the ``tools`` turns, where a user sends a screenshot now and then (a PNG image
  part beside the question, in about a third of the turns), as a browser or computer-use
  agent's conversation holds them. Every provider takes such images as they are.

A fraction of conversations get one realistic defect each: an orphan call, an orphan result, a
duplicate result, a misplaced result, a string tool input, an invalid tool name or id, or an
empty message.
"""

from __future__ import annotations

import base64
import random
from typing import Any, Literal

Message = dict[str, Any]
Shape = Literal["tools", "reasoning", "media"]
SHAPES: tuple[Shape, ...] = ("tools", "reasoning", "media")

DEFECTS = (
    "orphan-call",
    "orphan-result",
    "duplicate-result",
    "misplaced-result",
    "string-input",
    "bad-name",
    "bad-id",
    "empty-message",
)


def conversation(rng: random.Random, length: int, tag: str) -> list[Message]:
    """One clean conversation of exactly ``length`` messages."""
    msgs: list[Message] = [{"role": "system", "content": "You are a helpful assistant."}]
    turn = 0
    while len(msgs) < length:
        turn += 1
        msgs.append(
            {"role": "user", "content": [{"type": "text", "text": f"question {turn} " * 4}]}
        )
        ncalls = 1 + (rng.random() < 0.3)
        calls = [
            {
                "type": "tool-call",
                "toolCallId": f"call_{tag}_{turn}_{k}",
                "toolName": rng.choice(("search", "weather", "calculator", "read_file")),
                "input": {"query": f"q{turn}", "limit": k + 1},
            }
            for k in range(ncalls)
        ]
        msgs.append(
            {"role": "assistant", "content": [{"type": "text", "text": "Let me check."}, *calls]}
        )
        msgs.append(
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": c["toolCallId"],
                        "toolName": c["toolName"],
                        "output": {"type": "text", "value": f"result {turn}"},
                    }
                    for c in calls
                ],
            }
        )
        msgs.append({"role": "assistant", "content": f"Answer {turn}."})
    del msgs[length:]
    if msgs[-1]["role"] == "assistant" and any(
        p.get("type") == "tool-call" for p in msgs[-1]["content"] if isinstance(p, dict)
    ):
        msgs[-1] = {"role": "assistant", "content": "Done."}
    return msgs


ORIGINS = ("anthropic", "openai", "google")
"""The providers a ``reasoning`` conversation may come from."""

_TOOLS = ("search", "weather", "calculator", "read_file")


def media_conversation(rng: random.Random, length: int, tag: str) -> list[Message]:
    """One ``media``-shaped conversation of exactly ``length`` messages: :func:`conversation`'s,
    with a screenshot beside the question of about a third of the user turns."""
    msgs = conversation(rng, length, tag)
    for message in msgs:
        if message["role"] == "user" and rng.random() < 0.35:
            message["content"].append(
                {"type": "image", "image": _png(rng), "mediaType": "image/png"}
            )
    return msgs


def _png(rng: random.Random) -> str:
    """A screenshot's base64: a PNG signature, then random bytes (nothing reads past it)."""
    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + rng.randbytes(1200)).decode("ascii")


def _token(rng: random.Random, size: int) -> str:
    """``size`` random bytes as standard base64 (what signatures and encrypted content look like)."""
    return base64.b64encode(rng.randbytes(size)).decode("ascii")


def _reasoning(rng: random.Random, origin: str, text: str) -> dict[str, Any]:
    if origin == "anthropic":
        options: dict[str, Any] = {"anthropic": {"signature": _token(rng, 96)}}
    elif origin == "openai":
        options = {
            "openai": {
                "itemId": f"rs_{rng.getrandbits(96):024x}",
                "reasoningEncryptedContent": "gAAAAA" + _token(rng, 120),
            }
        }
    else:
        options = {"google": {"thoughtSignature": _token(rng, 64)}}
    return {"type": "reasoning", "text": text, "providerOptions": options}


def _item(rng: random.Random, origin: str, prefix: str) -> dict[str, Any]:
    """Provider options of a text or call part: OpenAI's item id, nothing for the others."""
    if origin != "openai":
        return {}
    return {"providerOptions": {"openai": {"itemId": f"{prefix}_{rng.getrandbits(96):024x}"}}}


def reasoning_conversation(rng: random.Random, length: int, tag: str) -> list[Message]:
    """One ``reasoning``-shaped conversation of exactly ``length`` messages (see the module
    docstring): a thinking model from one of :data:`ORIGINS`, with foreign-style tool-call ids."""
    origin = rng.choice(ORIGINS)
    msgs: list[Message] = [{"role": "system", "content": "You are a helpful assistant."}]
    turn = calls_made = 0
    while len(msgs) < length:
        turn += 1
        msgs.append(
            {"role": "user", "content": [{"type": "text", "text": f"question {turn} " * 4}]}
        )
        calls = []
        for k in range(1 + (rng.random() < 0.3)):
            name = rng.choice(_TOOLS)
            if rng.random() < 0.5:
                call_id = f"functions.{name}:{calls_made}"
            elif origin == "anthropic":
                call_id = f"toolu_01{rng.getrandbits(96):024x}"
            else:
                call_id = f"call_{tag}_{turn}_{k}"
            calls_made += 1
            call: dict[str, Any] = {
                "type": "tool-call",
                "toolCallId": call_id,
                "toolName": name,
                "input": {"query": f"q{turn}", "limit": k + 1},
                **_item(rng, origin, "fc"),
            }
            if origin == "google" and k == 0:
                call["providerOptions"] = {"google": {"thoughtSignature": _token(rng, 64)}}
            calls.append(call)
        msgs.append(
            {
                "role": "assistant",
                "content": [
                    _reasoning(rng, origin, f"The user asks question {turn}; a tool can answer."),
                    {"type": "text", "text": "Let me check.", **_item(rng, origin, "msg")},
                    *calls,
                ],
            }
        )
        msgs.append(
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": c["toolCallId"],
                        "toolName": c["toolName"],
                        "output": {"type": "text", "value": f"result {turn}"},
                    }
                    for c in calls
                ],
            }
        )
        msgs.append(
            {
                "role": "assistant",
                "content": [
                    _reasoning(rng, origin, f"The tool answered question {turn}."),
                    {"type": "text", "text": f"Answer {turn}.", **_item(rng, origin, "msg")},
                ],
            }
        )
    del msgs[length:]
    if msgs[-1]["role"] == "assistant" and any(
        p.get("type") == "tool-call" for p in msgs[-1]["content"] if isinstance(p, dict)
    ):
        msgs[-1] = {"role": "assistant", "content": "Done."}
    return msgs


def break_conversation(rng: random.Random, msgs: list[Message], defect: str) -> None:
    """Introduce one defect in place (the corpus is built fresh, so this mutates only it)."""
    tool_idx = [i for i, m in enumerate(msgs) if m["role"] == "tool"]
    asst_idx = [
        i for i, m in enumerate(msgs) if m["role"] == "assistant" and isinstance(m["content"], list)
    ]
    if not tool_idx:
        return
    t = rng.choice(tool_idx)
    a = t - 1
    call = next(p for p in msgs[a]["content"] if p["type"] == "tool-call")
    if defect == "orphan-call":
        del msgs[t]
    elif defect == "orphan-result":
        msgs[t]["content"][0] = {**msgs[t]["content"][0], "toolCallId": "call_missing"}
        msgs[t]["content"][0]["toolCallId"] = f"gone_{t}"
    elif defect == "duplicate-result":
        msgs.insert(
            t + 2 if t + 2 <= len(msgs) else t + 1,
            {"role": "tool", "content": list(msgs[t]["content"])},
        )
    elif defect == "misplaced-result":
        moved = msgs.pop(t)
        msgs.insert(min(t + 1, len(msgs)), moved)
    elif defect == "string-input":
        call["input"] = '{"query": "raw"}'
    elif defect == "bad-name":
        name = call["toolName"]
        for m in (msgs[a], msgs[t]):
            for p in m["content"]:
                if p.get("toolName") == name and p.get("toolCallId") == call["toolCallId"]:
                    p["toolName"] = name + ".v2 tool"
    elif defect == "bad-id":
        old = call["toolCallId"]
        for m in (msgs[a], msgs[t]):
            for p in m["content"]:
                if p.get("toolCallId") == old:
                    p["toolCallId"] = "functions." + old + ":0"
    elif defect == "empty-message":
        msgs.insert(rng.choice(asst_idx or [1]), {"role": "assistant", "content": []})


def corpus(
    conversations: int = 1000,
    length: int = 50,
    broken: float = 0.1,
    seed: int = 7,
    shape: Shape = "tools",
) -> list[list[Message]]:
    """``conversations`` histories of ``length`` messages in ``shape`` (see the module
    docstring); a ``broken`` fraction has a defect. The default shape's output never changes
    (``benchmarks.identity`` and every recorded figure rely on it)."""
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {', '.join(SHAPES)}, got {shape!r}")
    build = {
        "tools": conversation,
        "reasoning": reasoning_conversation,
        "media": media_conversation,
    }[shape]
    rng = random.Random(seed)
    out = []
    for n in range(conversations):
        msgs = build(rng, length, str(n))
        if rng.random() < broken:
            break_conversation(rng, msgs, rng.choice(DEFECTS))
        out.append(msgs)
    return out


def orphan_every_turn(length: int) -> list[Message]:
    """A long history where every turn's tool call lost its result (the stub-insertion stress)."""
    msgs: list[Message] = []
    turn = 0
    while len(msgs) < length:
        turn += 1
        msgs.append({"role": "user", "content": f"step {turn}"})
        msgs.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "tool-call", "toolCallId": f"c{turn}", "toolName": "run", "input": {}}
                ],
            }
        )
    return msgs[:length]
