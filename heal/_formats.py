"""Stored history formats: which adapter reads each, and where a history sits in a stored value.

Shared by ``heal-messages check``, ``heal-messages migrate`` and :mod:`heal.testing`, so that all
three read a stored history the same way.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from typing import Any

from heal._detect import detect_format
from heal._engine import heal_messages
from heal._json import clean_verdict
from heal._verdict import asked_scope
from heal.adapters._common import NativeHealResult
from heal.errors import ConfigError, InputError
from heal.messages import dump_messages, load_messages

__all__ = [
    "AUTO",
    "FORMATS",
    "FORMAT_CHOICES",
    "REQUEST_FIELDS",
    "healer",
    "history_field",
    "native_input",
    "resolve_format",
]

FORMATS: dict[str, str] = {
    "ai-sdk": "heal.messages",
    "openai-chat": "heal.adapters.openai_chat",
    "anthropic": "heal.adapters.anthropic",
    "openai-responses": "heal.adapters.openai_responses",
    "gemini": "heal.adapters.gemini",
    "pydantic-ai": "heal.adapters.pydantic_ai",
    "langchain": "heal.adapters.langchain",
}
"""Input formats and the module whose ``heal_<format>`` heals each. LangChain histories are
stored as ``messages_to_dict`` writes them (``{"type": "ai", "data": {...}}``)."""

AUTO = "auto"
"""The format name that picks each stored history's format from its own keys (the command
line's default): see :func:`heal._detect.detect_format`."""

FORMAT_CHOICES: tuple[str, ...] = (AUTO, *sorted(FORMATS))
"""What ``--format`` accepts."""


def resolve_format(fmt: str, document: Any, key: str | None = None) -> str:
    """``fmt``, or for ``"auto"`` the format of this stored value. Raises ValueError when the
    value mixes the marks of two formats (the row is then reported, never healed as either)."""
    return detect_format(document, key) if fmt == AUTO else fmt


def healer(fmt: str) -> Callable[..., NativeHealResult[Any]]:
    """The format's ``heal_<format>``: heals a native history and returns it in the shape given
    (a request keeps its other keys), with repairs at native locations. ``heal-messages check``
    reads its repairs (the issues), ``migrate`` also its messages."""
    if fmt == "ai-sdk":
        return _heal_ai_sdk
    if fmt == "langchain":
        return _heal_langchain_dicts
    if fmt not in FORMATS:
        raise ConfigError(f"unknown format {fmt!r}; expected one of {', '.join(sorted(FORMATS))}")
    try:
        module = importlib.import_module(FORMATS[fmt])
    except ImportError as exc:
        raise ConfigError(f"format {fmt!r} needs an optional dependency: {exc}") from None
    heal: Callable[..., NativeHealResult[Any]] = getattr(module, f"heal_{fmt.replace('-', '_')}")
    return heal


def _heal_ai_sdk(history: Any, **options: Any) -> NativeHealResult[Any]:
    if _plainly_clean(history, options):
        return NativeHealResult(history, ())
    result = heal_messages(load_messages(history), **options)
    healed = dump_messages(result.messages) if result.changed else history
    return NativeHealResult(healed, result.repairs)


_VERDICT_OPTIONS = frozenset(
    {"provider", "model", "thinking", "tools", "policy", "rules", "scope", "strict", "on_repair"}
)
"""The options of an AI SDK heal under which its clean verdict may be asked (the others, such
as ``target=``, take the full path)."""


def _plainly_clean(history: Any, options: dict[str, Any]) -> bool:
    """Whether ``history`` (decoded JSON) is plainly clean for the heal ``options`` ask for
    (:func:`heal._json.clean_verdict`): then healing it returns no repair and the history as it
    is, and it need not be loaded into models. Asked under the default policy and rules, at
    request scope and at history scope too (``migrate``'s: :func:`heal._verdict.asked_scope`)."""
    if not _VERDICT_OPTIONS.issuperset(options):
        return False
    scope = options.get("scope", "request")
    if asked_scope(options.get("policy"), options.get("rules"), scope) is None:
        return False
    return clean_verdict(
        history,
        options.get("provider"),
        model=options.get("model"),
        thinking=options.get("thinking"),
        tools=options.get("tools"),
    )


def _heal_langchain_dicts(history: Any, **options: Any) -> NativeHealResult[Any]:
    try:
        from langchain_core.messages import messages_from_dict, messages_to_dict

        from heal.adapters.langchain import heal_langchain
    except ImportError as exc:
        raise ConfigError(f"format 'langchain' needs an optional dependency: {exc}") from None
    if not isinstance(history, list):
        raise InputError("expected a list of LangChain message dicts")
    native = []
    for i, item in enumerate(history):
        try:
            native.extend(messages_from_dict([item]))
        except (KeyError, TypeError, ValueError) as exc:
            # ValueError covers pydantic's ValidationError; the first line names the problem.
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise InputError(
                f"not a LangChain message dict ({reason})", path=f"messages[{i}]"
            ) from None
    result = heal_langchain(native, **options)
    healed = messages_to_dict(result.messages) if result.changed else history
    return NativeHealResult(healed, result.repairs)


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
