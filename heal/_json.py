"""JSON text in, JSON text out: heal a stored or received history without loading it when it
is plainly clean.

Most histories need nothing, and loading one into pydantic models, healing it and dumping it
back costs about six times what healing alone does (issue "Speed": 84% of the end-to-end time
went to loading, dumping and encoding). :func:`heal_json` decodes the text into plain dicts
(with orjson when the ``fast`` extra is installed, else the standard library) and asks
:func:`clean_verdict`, a pure-Python check over those dicts, first:

* when the verdict is clean, the caller's own ``str`` or ``bytes`` come back, the very same
  object, and no model is built;
* otherwise the text goes through :func:`heal.heal_messages` as usual and the healed history is
  written as compact JSON text (:func:`dumps`).

The verdict is exact in one direction, and only that one: clean means ``heal_messages`` would
return no repair at all, for the provider at hand, under the default policy and the built-in
rules. It recognises the common shapes only (system, user and assistant text; tool calls each
answered by one result in the tool message right after; ids and names the provider accepts;
no reasoning, files, images, approvals or provider options) and calls anything else unclean,
which costs nothing but the slow path. ``tests/test_json.py`` holds it to that promise with
property tests under every provider.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from heal._engine import heal_messages
from heal._verdict import AFTER, ENDS, calls_accepted, judge, plain_input, plain_text, plain_value
from heal.errors import InputError
from heal.messages import ModelMessage, dump_messages
from heal.policy import Policy
from heal.providers import ProviderId
from heal.repairs import Repair

__all__ = [
    "FAST_DECODER",
    "PAUSE_GC_FROM_BYTES",
    "JsonHealResult",
    "clean_verdict",
    "dumps",
    "heal_json",
]

T = TypeVar("T", str, bytes)

_orjson_loads: Callable[[str | bytes], Any] | None
try:
    from orjson import loads as _orjson_loads
except ImportError:  # pragma: no cover - the optional ``fast`` extra
    _orjson_loads = None

FAST_DECODER = _orjson_loads is not None
"""Whether orjson (the ``fast`` extra) decodes the text; the standard library does otherwise."""


@dataclass(frozen=True, slots=True)
class JsonHealResult(Generic[T]):
    """What :func:`heal_json` returns: the healed history as JSON text, and the repairs."""

    data: T
    """The healed history, of the type given (``str`` or ``bytes``); the caller's own object
    when the history was plainly clean."""
    repairs: tuple[Repair, ...]
    """Every change made (and every kept or reported problem), as ``heal_messages`` gives
    them: located in the input history."""

    @property
    def changed(self) -> bool:
        """True when at least one repair changed the history."""
        return any(r.changed for r in self.repairs)


_SAFE_OPTIONS = frozenset({"strict", "on_repair"})
"""The keyword arguments of ``heal_messages`` that cannot turn a clean verdict into a repair:
``strict`` raises and ``on_repair`` is called only when there is a repair. Any other (``rules``,
``scope``, or a target such as ``model`` or ``tools``) takes the full path."""


def heal_json(
    data: T,
    *,
    provider: ProviderId | None = None,
    policy: Policy | Mapping[str, str] | None = None,
    **target: Any,
) -> JsonHealResult[T]:
    """Heal a history given as JSON text (``str``) or UTF-8 bytes; return the same type::

        result = heal_json(body, provider="anthropic")
        result.data      # bytes in, bytes out: the very object when nothing needed healing
        result.repairs   # as heal_messages gives them

    A history that :func:`clean_verdict` finds plainly clean comes back as the very object
    passed in, with no repairs, and is never loaded into models; the verdict is asked only under
    the default policy, with no keyword argument but ``strict`` and ``on_repair``. Any other is
    healed by
    :func:`heal.heal_messages` (which gets ``provider``, ``policy`` and every other keyword
    argument, such as ``rules``, ``strict`` or a target like ``model=``) and written as
    :func:`dumps` writes it, even when nothing changed. Errors are ``heal_messages``' own: a text
    that is not a valid history raises :class:`~heal.errors.InputError`, an unknown provider
    :class:`~heal.errors.ConfigError`. A healed history that bytes cannot hold (a lone surrogate
    left in a tool input) raises :class:`~heal.errors.InputError` for ``bytes`` input.
    """
    if type(data) is not str and type(data) is not bytes:
        raise TypeError(f"heal_json takes JSON text as str or bytes, got {type(data).__name__}")
    if len(data) < PAUSE_GC_FROM_BYTES or not gc.isenabled():
        return _heal_json(data, provider, policy, target)
    gc.disable()
    try:
        return _heal_json(data, provider, policy, target)
    finally:
        gc.enable()


PAUSE_GC_FROM_BYTES = 1 << 18
"""Texts at least this long (256 KiB, about 2,000 messages) are healed with Python's cyclic
garbage collector paused, as ``heal.migrate.heal_row`` heals long rows: decoding and loading
build all of a history's objects at once, and every full collection on the way rescanned them
(a 50,000-message history took 190 ms clean and 2.0 s broken, against 90 ms and 0.56 s paused).
What healing allocates is freed by reference counting. The collector is re-enabled on return
(or on an exception) only if it was enabled on entry."""


def _heal_json(
    data: T,
    provider: ProviderId | None,
    policy: Policy | Mapping[str, str] | None,
    target: dict[str, Any],
) -> JsonHealResult[T]:
    if policy is None and _SAFE_OPTIONS.issuperset(target):
        decoded = _decode(data)
        if decoded is not _UNREADABLE and clean_verdict(decoded, provider):
            return JsonHealResult(data, ())
    result = heal_messages(data, provider=provider, policy=policy, **target)
    text = dumps(result.messages)
    if type(data) is str:
        return JsonHealResult(text, result.repairs)
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(
            f"the healed history cannot be written as UTF-8 ({exc.reason} at character "
            f"{exc.start} of its JSON text)"
        ) from None
    return JsonHealResult(encoded, result.repairs)  # type: ignore[arg-type]


_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode
"""One encoder, built once (``json.dumps`` with options builds one per call). A dump is made of
new containers, so it cannot be circular."""


def dumps(messages: Iterable[ModelMessage]) -> str:
    """The history as compact JSON text: :func:`heal.dump_messages` written with ``","`` and
    ``":"`` separators and non-ASCII characters as they are (``ensure_ascii=False``)."""
    return _encode(dump_messages(messages))


# --- decoding --------------------------------------------------------------------------------

_UNREADABLE: Any = object()
"""What :func:`_decode` returns for a text it will not judge (heal_messages then reads it, and
raises its own error if it cannot)."""


def _refuse(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


_stdlib_decode = json.JSONDecoder(parse_constant=_refuse).decode
"""The standard library's decoder, refusing ``NaN`` and ``Infinity`` (pydantic's JSON reader
does not take them either)."""


def _decode(data: str | bytes) -> Any:
    """The decoded JSON, or :data:`_UNREADABLE` for a text that does not decode (not UTF-8, not
    JSON, ``NaN``; orjson also refuses lone surrogates). orjson reads an integer past 64 bits
    as a float: the verdict reads no number but to see that it is finite, and a clean text
    comes back as it was."""
    try:
        if _orjson_loads is not None:
            return _orjson_loads(data)
        return _stdlib_decode(data if type(data) is str else data.decode("utf-8"))  # type: ignore[union-attr]
    except (ValueError, RecursionError):  # JSONDecodeError and UnicodeDecodeError included
        return _UNREADABLE


# --- the verdict -----------------------------------------------------------------------------


def clean_verdict(history: Any, provider: str | None = None) -> bool:
    """Whether ``history``, decoded JSON (plain dicts and lists), is plainly clean for
    ``provider``: True only when ``heal_messages(history, provider=provider)`` would return no
    repair at all and give back the history as it is. False says nothing but "not plainly".

    Clean means, all of:

    * a non-empty list of messages with exactly the keys ``role`` and ``content``;
    * system messages (non-blank strings) only at the start; then a user message first;
    * no two user or two assistant messages in a row; no user message right after tool results;
    * texts (string contents, text parts, text outputs) not blank and free of lone surrogates;
    * user content a non-blank string or non-blank text parts; assistant content a non-blank
      string, or non-blank text parts followed by tool calls (``toolCallId``, ``toolName`` and an
      object ``input``, nothing else);
    * each assistant message with calls followed by one tool message holding exactly one result
      per call (same id and name; text or error-text output that is not blank, or JSON), and tool
      messages nowhere else;
    * call ids unique, and ids and names the provider's profile accepts; no JSON value nested
      deeper than 64 levels, no float that is not finite;
    * the last message a user message or tool results, and no rule of the provider's own that
      fires on that plain shape (DeepSeek wants reasoning beside every call; Gemini wants a
      signature on the calls after the last user message);
    * the default registry holds the built-in rules alone.

    Pure Python over the dicts, in one pass: no model is built. What is the same in every
    format (texts, values, the order of roles, the final id and name check) is
    :mod:`heal._verdict`'s.
    """
    if type(history) is not list or not history:
        return False
    profile = judge(provider)
    if profile is None:
        return False
    ids: list[str] = []
    names: list[str] = []
    try:
        last = _scan(history, ids, names)
    except KeyError:  # a message or part without a key its kind needs
        return False
    return last is not None and calls_accepted(provider, profile, ids, names, last)


def _scan(history: list[Any], ids: list[str], names: list[str]) -> str | None:
    """The one pass of :func:`clean_verdict` over the messages: the role of the last message
    when every message has a plain shape in a plain place (else None), with the call ids and
    tool names added to ``ids`` and ``names``. Exact key counts and indexing (a missing key
    raises KeyError) check each dict's keys."""
    waiting: dict[str, str] | None = None  # the previous message's calls: id -> name
    previous = ""
    for message in history:
        if type(message) is not dict or len(message) != 2:
            return None
        role = message["role"]
        content = message["content"]
        if waiting is not None:
            # The tool message that must answer the assistant message before it.
            if role != "tool" or type(content) is not list or len(content) != len(waiting):
                return None
            for part in content:
                if type(part) is not dict or len(part) != 4 or part["type"] != "tool-result":
                    return None
                call_id = part["toolCallId"]
                # A name of the calls, never the default: a result must answer one of them.
                if (
                    type(call_id) is not str
                    or waiting.pop(call_id, _UNREADABLE) != part["toolName"]
                ):
                    return None
                output = part["output"]
                if type(output) is not dict or len(output) != 2:
                    return None
                kind = output["type"]
                if kind in {"text", "error-text"}:
                    if not plain_text(output["value"]):
                        return None
                elif kind not in {"json", "error-json"} or not plain_value(output["value"]):
                    return None
            waiting = None
            previous = "tool"
            continue
        follows = AFTER.get(role)
        if follows is None or previous not in follows:
            return None  # a tool message that answers no calls, or no known role
        if type(content) is str:
            if not plain_text(content):
                return None
        elif role == "system" or type(content) is not list or not content:
            return None
        elif role == "user":
            for part in content:
                if type(part) is not dict or len(part) != 2 or part["type"] != "text":
                    return None
                if not plain_text(part["text"]):
                    return None
        else:
            for part in content:
                if type(part) is not dict:
                    return None
                kind = part["type"]
                if kind == "text":
                    # Text after a call is moved before it for Anthropic.
                    if waiting is not None or len(part) != 2 or not plain_text(part["text"]):
                        return None
                elif kind == "tool-call" and len(part) == 4:
                    call_id = part["toolCallId"]
                    name = part["toolName"]
                    if type(call_id) is not str or type(name) is not str:
                        return None
                    if not plain_input(part["input"]):
                        return None
                    if waiting is None:
                        waiting = {}
                    waiting[call_id] = name
                    ids.append(call_id)
                    names.append(name)
                else:
                    return None
        previous = role
    # Calls left unanswered are the last message's, an assistant message: not an end.
    return previous if previous in ENDS else None
