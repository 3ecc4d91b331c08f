"""Small builders for the before/after examples rules declare (AI SDK JSON)."""

from __future__ import annotations

from typing import Any

__all__ = ["call", "result", "text", "thinking", "tool_result", "user"]


def user(content: str) -> dict[str, Any]:
    """A user message with string content."""
    return {"role": "user", "content": content}


def text(content: str) -> dict[str, Any]:
    """A text part."""
    return {"type": "text", "text": content}


def call(cid: str, name: str = "getWeather", **extra: Any) -> dict[str, Any]:
    """A tool call with empty input; ``extra`` adds fields (``providerExecuted=True``)."""
    return {"type": "tool-call", "toolCallId": cid, "toolName": name, "input": {}, **extra}


def tool_result(cid: str, name: str, output: dict[str, Any]) -> dict[str, Any]:
    """A tool result with this output."""
    return {"type": "tool-result", "toolCallId": cid, "toolName": name, "output": output}


def result(cid: str, name: str = "getWeather", value: str = "sunny") -> dict[str, Any]:
    """A tool result with a text output."""
    return tool_result(cid, name, {"type": "text", "value": value})


def thinking(content: str, signature: str = "EqQBCkYIBxgC") -> dict[str, Any]:
    """A reasoning part with an Anthropic signature."""
    return {
        "type": "reasoning",
        "text": content,
        "providerOptions": {"anthropic": {"signature": signature}},
    }
