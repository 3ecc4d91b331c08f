"""A deterministic benchmark corpus of AI SDK histories (seeded, so every run sees the same data).

Shape: a system message, then turns of user text -> assistant (text + one or two tool calls)
-> tool results -> assistant text, cut to the requested length. A fraction of conversations get
one realistic defect each: an orphan call, an orphan result, a duplicate result, a misplaced
result, a string tool input, an invalid tool name or id, or an empty message.
"""

from __future__ import annotations

import random
from typing import Any

Message = dict[str, Any]

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
    conversations: int = 1000, length: int = 50, broken: float = 0.1, seed: int = 7
) -> list[list[Message]]:
    """``conversations`` histories of ``length`` messages; a ``broken`` fraction has a defect."""
    rng = random.Random(seed)
    out = []
    for n in range(conversations):
        msgs = conversation(rng, length, str(n))
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
