"""Which stored format a history is in, from the keys and part types only one format uses.

heal reads AI SDK ``ModelMessage`` JSON by default, and its models keep unknown keys. A history in
another format can therefore load as AI SDK messages and lose what the AI SDK has no field for:
an OpenAI Chat assistant message ``{"content": "", "tool_calls": [...]}`` loads as an empty
assistant message, and healing removes it with its calls. :func:`foreign_evidence` finds the
marks of the other formats heal has adapters for, so that :func:`heal.load_messages` refuses
such a message (naming the format and the adapter to use) instead of healing it as something it
is not; :func:`detect_format` picks the format of a whole stored value for ``--format auto``.

Only marks no AI SDK message can carry count: a plain ``{"role": "user", "content": "hi"}`` reads
the same in most formats, and is left to the AI SDK reader.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["ADVICE", "describe", "detect_format", "foreign_evidence", "foreign_key"]

ADVICE: dict[str, str] = {
    "openai-chat": "heal.adapters.openai_chat.heal_openai_chat",
    "openai-responses": "heal.adapters.openai_responses.heal_openai_responses",
    "anthropic": "heal.adapters.anthropic.heal_anthropic",
    "gemini": "heal.adapters.gemini.heal_gemini",
    "pydantic-ai": "heal.adapters.pydantic_ai.heal_pydantic_ai",
    "langchain": "heal.adapters.langchain.heal_langchain",
}
"""Each foreign format and the function that heals it (the command line's ``--format`` name is
the key)."""

_NAMES = {
    "openai-chat": "an OpenAI Chat Completions message",
    "openai-responses": "an OpenAI Responses input item",
    "anthropic": "an Anthropic Messages message",
    "gemini": "a Gemini content",
    "pydantic-ai": "a pydantic-ai message",
    "langchain": "a LangChain message (messages_to_dict)",
    "ai-sdk-ui": "an AI SDK UI message",
}

# Message keys the AI SDK never writes, and the one format that does.
_MESSAGE_KEYS: dict[str, str] = {
    "tool_calls": "openai-chat",
    "tool_call_id": "openai-chat",
    "function_call": "openai-chat",
    "reasoning_content": "openai-chat",
    "refusal": "openai-chat",
}
# Not ``kind``: pydantic-ai's messages have no ``role``, so a message with one that also holds a
# ``kind`` is more likely an application's own field than pydantic-ai's (see _roleless).

_ROLES: dict[str, str] = {
    "model": "gemini",
    "function": "openai-chat",
    "developer": "openai-chat",
}

# Part (content block) types the AI SDK does not have.
_PART_TYPES: dict[str, str] = {
    "tool_use": "anthropic",
    "tool_result": "anthropic",
    "thinking": "anthropic",
    "redacted_thinking": "anthropic",
    "server_tool_use": "anthropic",
    "web_search_tool_result": "anthropic",
    "web_fetch_tool_result": "anthropic",
    "code_execution_tool_result": "anthropic",
    "mcp_tool_use": "anthropic",
    "mcp_tool_result": "anthropic",
    "document": "anthropic",
    "image_url": "openai-chat",
    "input_audio": "openai-chat",
    "input_text": "openai-responses",
    "output_text": "openai-responses",
    "input_image": "openai-responses",
    "input_file": "openai-responses",
    "summary_text": "openai-responses",
}

# Responses items that are not messages: they carry a ``type`` and no ``role``.
_ITEM_TYPES = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "reasoning",
        "item_reference",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "local_shell_call_output",
        "computer_call",
        "computer_call_output",
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
        "tool_search_call",
        "tool_search_output",
        "compaction",
    }
)

_LANGCHAIN_TYPES = frozenset(
    {
        "human",
        "ai",
        "system",
        "tool",
        "function",
        "chat",
        "remove",
        "HumanMessageChunk",
        "AIMessageChunk",
        "SystemMessageChunk",
        "ToolMessageChunk",
        "FunctionMessageChunk",
        "ChatMessageChunk",
    }
)


def foreign_evidence(message: Any) -> tuple[str, str] | None:
    """(format, what shows it) when a raw message is in a format other than the AI SDK's, else
    None. Reads only the message's own keys and its parts' ``type``."""
    if not isinstance(message, Mapping):
        return None
    role = message.get("role")
    if role is None:
        return _roleless(message)
    if isinstance(role, str) and role in _ROLES:
        return _ROLES[role], f"role {role!r}"
    for key, fmt in _MESSAGE_KEYS.items():
        if key in message:
            return fmt, f"a {key!r} field"
    if "parts" in message and "content" not in message:
        parts = message["parts"]
        if isinstance(parts, list) and any(isinstance(p, Mapping) and "type" in p for p in parts):
            return "ai-sdk-ui", "'parts' with typed parts instead of 'content'"
        return "gemini", "'parts' instead of 'content'"
    content = message.get("content")
    if isinstance(content, list):
        for part in content:
            if isinstance(part, Mapping):
                ptype = part.get("type")
                if isinstance(ptype, str) and ptype in _PART_TYPES:
                    return _PART_TYPES[ptype], f"a {ptype!r} part"
                if ptype == "image" and "source" in part:
                    return "anthropic", "an 'image' block with a 'source'"
    return None


def foreign_key(keys: Any) -> tuple[str, str] | None:
    """(format, what shows it) for the first of a loaded message's unknown keys that only another
    format writes, else None."""
    for key in keys:
        fmt = _MESSAGE_KEYS.get(key)
        if fmt is not None:
            return fmt, f"a {key!r} field"
    return None


def _roleless(message: Mapping[str, Any]) -> tuple[str, str] | None:
    if "kind" in message and "parts" in message:
        return "pydantic-ai", f"'kind': {message['kind']!r} with 'parts'"
    mtype = message.get("type")
    if isinstance(mtype, str):
        if mtype in _LANGCHAIN_TYPES and ("data" in message or "content" in message):
            return "langchain", f"'type': {mtype!r}"
        if mtype in _ITEM_TYPES:
            return "openai-responses", f"a {mtype!r} item"
    if "lc" in message and "kwargs" in message:
        return "langchain", "a LangChain serialized object ('lc')"
    if "parts" in message:
        return "gemini", "'parts' with no role"
    return None


def describe(fmt: str, evidence: str) -> str:
    """The reason an AI SDK reader gives for refusing a message in another format."""
    name = _NAMES.get(fmt, fmt)
    if fmt == "ai-sdk-ui":
        return (
            f"this looks like {name} ({evidence}), not a ModelMessage: convert it with the AI "
            "SDK's convertToModelMessages first"
        )
    return (
        f"this looks like {name} ({evidence}), not an AI SDK message: use {ADVICE[fmt]} "
        f"(command line: --format {fmt})"
    )


def detect_format(document: Any, key: str | None = None) -> str:
    """The stored format of ``document`` (a history, or a request object holding one): the one
    foreign format whose marks appear, else ``"ai-sdk"``. Raises ValueError when marks of two
    formats appear, or of a format heal has no reader for."""
    value = document
    if key is not None and isinstance(document, Mapping) and key in document:
        value = document[key]
    if isinstance(value, Mapping):
        if "contents" in value:
            return "gemini"
        if "input" in value and "messages" not in value:
            return "openai-responses"
        if "system" in value and isinstance(value.get("messages"), list):
            # Anthropic's request puts the system prompt beside the messages; OpenAI Chat and the
            # AI SDK put it in them.
            return _from_messages(value["messages"], default="anthropic")
        value = value.get("messages", value)
    if isinstance(value, (str, bytes, bytearray)):
        return "pydantic-ai" if _looks_like_pydantic_ai_json(value) else "ai-sdk"
    if not isinstance(value, list):
        return "ai-sdk"
    return _from_messages(value, default="ai-sdk")


def _from_messages(messages: list[Any], *, default: str) -> str:
    found: dict[str, str] = {}
    for i, message in enumerate(messages):
        evidence = foreign_evidence(message)
        if evidence is not None:
            found.setdefault(evidence[0], f"messages[{i}]: {evidence[1]}")
    if not found:
        if default != "ai-sdk" and any(_ai_sdk_only(message) for message in messages):
            return "ai-sdk"  # an AI SDK request holds ``system`` beside its messages too
        return default
    if len(found) > 1:
        shown = "; ".join(f"{fmt} ({where})" for fmt, where in sorted(found.items()))
        raise ValueError(f"the history mixes formats: {shown}; pass --format")
    (fmt,) = found
    if fmt == "ai-sdk-ui":
        raise ValueError(f"{found[fmt]}: {describe(fmt, 'parts')}")
    return fmt


_AI_SDK_PART_TYPES = frozenset(
    {"tool-call", "tool-result", "tool-approval-request", "tool-approval-response", "reasoning"}
)


def _ai_sdk_only(message: Any) -> bool:
    """Whether a raw message has what only the AI SDK writes: a ``tool`` role, or a part type
    such as ``tool-call`` (Anthropic's blocks are ``tool_use``, ``thinking``...)."""
    if not isinstance(message, Mapping):
        return False
    if message.get("role") == "tool":
        return True
    content = message.get("content")
    return isinstance(content, list) and any(
        isinstance(part, Mapping) and part.get("type") in _AI_SDK_PART_TYPES for part in content
    )


def _looks_like_pydantic_ai_json(text: str | bytes | bytearray) -> bool:
    head = text[:200]
    needle: Any = b'"kind"' if isinstance(head, (bytes, bytearray)) else '"kind"'
    return needle in head
