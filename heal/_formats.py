"""Stored history formats: which adapter reads each, and where a history sits in a stored value.

Shared by ``heal-messages check``, ``heal-messages migrate`` and :mod:`heal.testing`, so that all
three read a stored history the same way.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from typing import Any

from heal.adapters._common import Loaded
from heal.errors import ConfigError
from heal.messages import ModelMessage
from heal.messages import load_messages as load_ai_sdk

__all__ = ["FORMATS", "REQUEST_FIELDS", "history_field", "loader", "native_input"]

FORMATS: dict[str, str] = {
    "ai-sdk": "heal.messages",
    "openai-chat": "heal.adapters.openai_chat",
    "anthropic": "heal.adapters.anthropic",
    "openai-responses": "heal.adapters.openai_responses",
    "gemini": "heal.adapters.gemini",
    "pydantic-ai": "heal.adapters.pydantic_ai",
}
"""Input formats and the module whose ``load_messages`` reads each."""


def loader(fmt: str) -> Callable[[Any], Loaded]:
    """A function reading one native history into canonical messages plus its source map."""
    if fmt == "ai-sdk":
        return lambda data: _identity_map(load_ai_sdk(data))
    try:
        module = importlib.import_module(FORMATS[fmt])
    except ImportError as exc:
        raise ConfigError(f"format {fmt!r} needs an optional dependency: {exc}") from None
    loader: Callable[[Any], Loaded] = module.load
    return loader


def _identity_map(messages: list[ModelMessage]) -> Loaded:
    return Loaded(messages, list(range(len(messages))))


REQUEST_FIELDS: dict[str, str] = {
    "ai-sdk": "messages",
    "openai-chat": "messages",
    "openai-responses": "input",
}
"""The field holding the history in a stored request object (``{"model", "messages", ...}``).
The Anthropic, Gemini and pydantic-ai adapters read a whole request themselves (Anthropic's
``system`` parameter, Gemini's ``system_instruction``), so it reaches them whole."""


def history_field(data: Any, key: str | None, fmt: str) -> str | None:
    """The field of a stored JSON value holding the history, or None when the value is the
    history (or a request its format's adapter reads whole). Raises ValueError when ``key`` is
    given and missing."""
    if key is not None:
        if not isinstance(data, dict) or key not in data:
            raise ValueError(f"no {key!r} field in this record")
        return key
    field = REQUEST_FIELDS.get(fmt)
    if (
        field is not None
        and isinstance(data, dict)
        and field in data
        and not isinstance(data.get("role"), str)
    ):
        return field
    return None


def native_input(fmt: str, history: Any) -> Any:
    """What the format's adapter reads: pydantic-ai's adapter takes its stored JSON as text
    (``ModelMessagesTypeAdapter.validate_json``: base64 bytes and the rest read exactly as
    pydantic-ai wrote them), not as parsed dicts."""
    if fmt == "pydantic-ai" and not isinstance(history, str):
        return json.dumps(history)
    return history
