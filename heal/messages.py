"""The canonical message model: the Vercel AI SDK v6 ``ModelMessage``, as frozen pydantic models.

The JSON form is exactly the AI SDK's (camelCase names such as ``toolCallId``), so a history
stored by a TypeScript service loads here and dumps back unchanged::

    >>> from heal import load_messages, dump_messages
    >>> data = [{"role": "user", "content": "hi", "customField": 1}]
    >>> dump_messages(load_messages(data)) == data
    True

Three promises make ``dump_messages(load_messages(x)) == x`` hold for every valid history:
string content stays a string, fields that were absent stay absent (dumps use
``exclude_unset``), and fields heal does not know are kept (``extra="allow"``): stored
histories carry them, and losing them in a migration would be data loss.

Models are frozen and content is a tuple, so a healed history can share every untouched message
and part with its input. JSON values inside parts (tool inputs, provider options) are plain
dicts and lists: treat them as read-only; heal never mutates them.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    PlainSerializer,
    TypeAdapter,
    ValidationError,
)
from pydantic.alias_generators import to_camel

from heal._detect import describe, foreign_evidence, foreign_key
from heal.errors import InputError

__all__ = [
    "AssistantMessage",
    "AssistantPart",
    "ContentOutput",
    "ErrorJsonOutput",
    "ErrorTextOutput",
    "ExecutionDeniedOutput",
    "FilePart",
    "ImagePart",
    "JsonOutput",
    "ModelMessage",
    "Part",
    "ProviderOptions",
    "ReasoningPart",
    "SystemMessage",
    "TextOutput",
    "TextPart",
    "ToolApprovalRequest",
    "ToolApprovalResponse",
    "ToolCallPart",
    "ToolMessage",
    "ToolPart",
    "ToolResultOutput",
    "ToolResultPart",
    "UserMessage",
    "UserPart",
    "dump_messages",
    "load_messages",
]

ProviderOptions: TypeAlias = dict[str, dict[str, JsonValue]]
"""Provider-specific options, keyed by provider name (``{"anthropic": {"signature": "..."}}``)."""


def _standard_base64(data: bytes) -> str:
    # The AI SDK writes standard base64 (+ and /); pydantic's default for bytes is URL-safe.
    return base64.b64encode(data).decode("ascii")


DataContent: TypeAlias = (
    str | Annotated[bytes, PlainSerializer(_standard_base64, return_type=str, when_used="json")]
)
"""Inline data: a base64 string, a URL string, or raw bytes (dumped to JSON as standard
base64, as the AI SDK writes it)."""

_TAG_FIELDS = ("type", "role")


class _Model(BaseModel):
    model_config = ConfigDict(
        frozen=True,
        extra="allow",
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )

    def __init__(self, **data: Any) -> None:
        super().__init__(**data)
        # The discriminator has a default so that Python callers need not repeat it, but dumps
        # exclude unset fields: count it as set, or ``TextPart(text="x")`` would dump without
        # its "type". Data validated from dicts or JSON always carries its tag.
        fields_set = self.__pydantic_fields_set__
        fields = type(self).__pydantic_fields__  # model_fields goes through a descriptor each time
        for tag in _TAG_FIELDS:
            if tag in fields:
                fields_set.add(tag)

    # Pydantic calls a model's own ``__init__`` for every object it validates, which would
    # validate each message and part twice. This flag (pydantic's mark on ``BaseModel.__init__``)
    # tells it the override is only for direct construction; loading then runs in pydantic-core
    # alone, more than twice as fast. tests/test_messages.py checks that the flag takes effect.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]


# --- tool result outputs ---------------------------------------------------------------------


class TextOutput(_Model):
    """A tool result given as plain text."""

    type: Literal["text"] = "text"
    value: str
    """The text the tool returned."""
    provider_options: ProviderOptions | None = None
    """Provider-specific options for this output."""


class JsonOutput(_Model):
    """A tool result given as a JSON value."""

    type: Literal["json"] = "json"
    value: JsonValue
    """The JSON value the tool returned."""
    provider_options: ProviderOptions | None = None
    """Provider-specific options for this output."""


class ErrorTextOutput(_Model):
    """A tool failure described as text."""

    type: Literal["error-text"] = "error-text"
    value: str
    """The error message."""
    provider_options: ProviderOptions | None = None
    """Provider-specific options for this output."""


class ErrorJsonOutput(_Model):
    """A tool failure described as a JSON value."""

    type: Literal["error-json"] = "error-json"
    value: JsonValue
    """The error as JSON."""
    provider_options: ProviderOptions | None = None
    """Provider-specific options for this output."""


class ExecutionDeniedOutput(_Model):
    """The tool was not run because its approval was denied."""

    type: Literal["execution-denied"] = "execution-denied"
    reason: str | None = None
    """Why execution was denied, if known."""
    provider_options: ProviderOptions | None = None
    """Provider-specific options for this output."""


class ContentOutput(_Model):
    """A tool result made of content items (text, media, files), kept as the AI SDK writes them."""

    type: Literal["content"] = "content"
    value: tuple[dict[str, JsonValue], ...]
    """The content items, each a JSON object with a ``type`` (``text``, ``media``, ...)."""
    provider_options: ProviderOptions | None = None
    """Provider-specific options for this output."""


ToolResultOutput: TypeAlias = Annotated[
    TextOutput
    | JsonOutput
    | ErrorTextOutput
    | ErrorJsonOutput
    | ExecutionDeniedOutput
    | ContentOutput,
    Field(discriminator="type"),
]
"""What a tool returned, discriminated by ``type``."""


# --- parts -----------------------------------------------------------------------------------


class TextPart(_Model):
    """Text content."""

    type: Literal["text"] = "text"
    text: str
    """The text."""
    provider_options: ProviderOptions | None = None
    """Provider-specific options for this part."""


class ImagePart(_Model):
    """An image in a user message."""

    type: Literal["image"] = "image"
    image: DataContent
    """The image: base64 data, a URL, or bytes."""
    media_type: str | None = None
    """IANA media type, such as ``image/png``."""
    provider_options: ProviderOptions | None = None
    """Provider-specific options for this part."""


class FilePart(_Model):
    """A file in a user or assistant message."""

    type: Literal["file"] = "file"
    data: DataContent
    """The file: base64 data, a URL, or bytes."""
    media_type: str
    """IANA media type, such as ``application/pdf``."""
    filename: str | None = None
    """The file's name, if known."""
    provider_options: ProviderOptions | None = None
    """Provider-specific options for this part."""


class ReasoningPart(_Model):
    """Model reasoning ("thinking"). Signatures live in ``provider_options``."""

    type: Literal["reasoning"] = "reasoning"
    text: str
    """The reasoning text (may be empty when the provider only returned a signature)."""
    provider_options: ProviderOptions | None = None
    """Provider-specific options, such as ``{"anthropic": {"signature": "..."}}``."""


class ToolCallPart(_Model):
    """A call of a tool by the model."""

    type: Literal["tool-call"] = "tool-call"
    tool_call_id: str
    """The id that pairs this call with its result."""
    tool_name: str
    """The name of the tool called."""
    input: JsonValue = None
    """The arguments: a JSON object for every provider (heal repairs anything else)."""
    provider_executed: bool | None = None
    """True when the provider ran the tool itself (its result is in the same assistant message)."""
    provider_options: ProviderOptions | None = None
    """Provider-specific options for this part."""


class ToolResultPart(_Model):
    """The result of a tool call."""

    type: Literal["tool-result"] = "tool-result"
    tool_call_id: str
    """The id of the call this answers."""
    tool_name: str
    """The name of the tool called."""
    output: ToolResultOutput
    """What the tool returned."""
    provider_options: ProviderOptions | None = None
    """Provider-specific options for this part (heal marks placeholders under ``heal``)."""


class ToolApprovalRequest(_Model):
    """The model's tool call needs the user's approval before it runs."""

    type: Literal["tool-approval-request"] = "tool-approval-request"
    approval_id: str
    """The id that pairs this request with its response."""
    tool_call_id: str
    """The call waiting for approval."""
    provider_options: ProviderOptions | None = None
    """Provider-specific options for this part."""


class ToolApprovalResponse(_Model):
    """The user's answer to a tool approval request."""

    type: Literal["tool-approval-response"] = "tool-approval-response"
    approval_id: str
    """The request this answers."""
    approved: bool
    """Whether the call may run."""
    reason: str | None = None
    """Why it was approved or denied, if given."""
    provider_executed: bool | None = None
    """True when the approved tool is executed by the provider."""
    provider_options: ProviderOptions | None = None
    """Provider-specific options for this part."""


UserPart: TypeAlias = Annotated[TextPart | ImagePart | FilePart, Field(discriminator="type")]
AssistantPart: TypeAlias = Annotated[
    TextPart | FilePart | ReasoningPart | ToolCallPart | ToolResultPart | ToolApprovalRequest,
    Field(discriminator="type"),
]
ToolPart: TypeAlias = Annotated[ToolResultPart | ToolApprovalResponse, Field(discriminator="type")]
Part: TypeAlias = (
    TextPart
    | ImagePart
    | FilePart
    | ReasoningPart
    | ToolCallPart
    | ToolResultPart
    | ToolApprovalRequest
    | ToolApprovalResponse
)
"""Any content part."""


# --- messages --------------------------------------------------------------------------------


class SystemMessage(_Model):
    """Instructions for the model."""

    role: Literal["system"] = "system"
    content: str
    """The instructions."""
    provider_options: ProviderOptions | None = None
    """Provider-specific options for this message."""


class UserMessage(_Model):
    """A message from the user: a string, or text, image and file parts."""

    role: Literal["user"] = "user"
    content: str | tuple[UserPart, ...]
    """A string, or parts; a string stays a string through load and dump."""
    provider_options: ProviderOptions | None = None
    """Provider-specific options for this message."""


class AssistantMessage(_Model):
    """A message from the model: text, reasoning, files, tool calls, provider-run tool results."""

    role: Literal["assistant"] = "assistant"
    content: str | tuple[AssistantPart, ...]
    """A string, or parts; a string stays a string through load and dump."""
    provider_options: ProviderOptions | None = None
    """Provider-specific options for this message."""


class ToolMessage(_Model):
    """Tool results and approval responses, answering the assistant message before it."""

    role: Literal["tool"] = "tool"
    content: tuple[ToolPart, ...]
    """Tool results and approval responses (never a string)."""
    provider_options: ProviderOptions | None = None
    """Provider-specific options for this message."""


ModelMessage: TypeAlias = Annotated[
    SystemMessage | UserMessage | AssistantMessage | ToolMessage,
    Field(discriminator="role"),
]
"""Any message, discriminated by ``role``."""

_MESSAGE_TYPES = (SystemMessage, UserMessage, AssistantMessage, ToolMessage)
_MESSAGE_TYPE_SET = frozenset(_MESSAGE_TYPES)
_HISTORY = TypeAdapter(list[ModelMessage])


# --- load and dump ---------------------------------------------------------------------------


def load_messages(data: str | bytes | bytearray | Iterable[Any]) -> list[ModelMessage]:
    """Read a history: a list of AI SDK message dicts, JSON text or bytes, or message models.

    Models are passed through as they are (the same objects), so loading is free for histories
    that are already loaded. Raises :class:`~heal.errors.InputError` naming the first place that
    cannot be read, such as ``messages[3].content[1]: tool-call part has no toolCallId``.
    """
    if type(data) is not list:  # a list, the usual case, needs none of these tests
        if isinstance(data, (str, bytes, bytearray)):
            try:
                # pydantic-core parses and validates in one step, about twice as fast as
                # json.loads followed by validation. It refuses what the slow path below accepts
                # or explains: lone surrogate escapes (which the lone-surrogate rule mends), and
                # every invalid history (whose error the slow path words and locates).
                return _refuse_foreign(_HISTORY.validate_json(data))
            except ValidationError:
                pass
            try:
                raw = json.loads(data)
            except ValueError as exc:
                raise InputError(f"not valid JSON ({exc})") from None
            except RecursionError:
                raise InputError("JSON nested too deeply to read") from None
            return _refuse_foreign(_validate(raw))
        if isinstance(data, Mapping):
            raise InputError(
                "expected a list of messages, got a single object"
                + (" (did you mean its 'messages' field?)" if "messages" in data else "")
            )
        if not isinstance(data, Sequence):
            if not isinstance(data, Iterable):
                raise InputError(f"expected a list of messages, got {kind_of(data)}")
            data = list(data)
    if _MESSAGE_TYPE_SET.issuperset(map(type, data)):
        return list(data)
    return _refuse_foreign(_validate(data))


def dump_messages(messages: Iterable[ModelMessage]) -> list[dict[str, Any]]:
    """Return the history as JSON-compatible dicts in the AI SDK's shape (absent fields omitted).

    Raises :class:`~heal.errors.InputError` naming the first field that JSON cannot hold (bytes
    that are not UTF-8 or a key with a lone surrogate in an unknown field, a value nested more
    than :data:`JSON_NESTING_LIMIT` levels deep, an object pydantic cannot write).
    """
    history = list(messages)
    try:
        return _HISTORY.dump_python(history, mode="json", exclude_unset=True)  # type: ignore[no-any-return]
    except ValueError as exc:  # pydantic's errors here, and UnicodeError, are ValueErrors
        raise _dump_error(history, exc) from None


def _refuse_foreign(messages: list[ModelMessage]) -> list[ModelMessage]:
    # The models keep unknown keys, so a message in another format can load; the keys only that
    # format writes (OpenAI Chat's ``tool_calls`` on an assistant message whose ``content`` is
    # "") would be kept but never read, and healing would remove the message they belong to.
    for i, message in enumerate(messages):
        extra = message.__pydantic_extra__
        if extra:
            evidence = foreign_key(extra)
            if evidence is not None:
                raise InputError(describe(*evidence), path=f"messages[{i}]")
    return messages


def _validate(raw: Any) -> list[ModelMessage]:
    if not isinstance(raw, list):
        raise InputError(f"expected a list of messages, got {kind_of(raw)}")
    try:
        return _HISTORY.validate_python(raw)
    except ValidationError as exc:
        # Only on failure: walk the raw data ourselves for a message a person can act on.
        problem = _diagnose(raw) or _depth_problem(raw)
        if problem is not None:
            raise InputError(problem[1], path=problem[0]) from None
        first = exc.errors(include_url=False)[0]
        raise InputError(first["msg"], path=_loc_path(first["loc"])) from None


# --- diagnostics (error path only) -----------------------------------------------------------

_ROLES = ("system", "user", "assistant", "tool")
_PART_TYPES: dict[str, tuple[str, ...]] = {
    "user": ("text", "image", "file"),
    "assistant": (
        "text",
        "file",
        "reasoning",
        "tool-call",
        "tool-result",
        "tool-approval-request",
    ),
    "tool": ("tool-result", "tool-approval-response"),
}
_REQUIRED: dict[str, tuple[tuple[str, type | tuple[type, ...]], ...]] = {
    "text": (("text", str),),
    "image": (("image", (str, bytes)),),
    "file": (("data", (str, bytes)), ("mediaType", str)),
    "reasoning": (("text", str),),
    "tool-call": (("toolCallId", str), ("toolName", str)),
    "tool-result": (("toolCallId", str), ("toolName", str), ("output", dict)),
    "tool-approval-request": (("approvalId", str), ("toolCallId", str)),
    "tool-approval-response": (("approvalId", str), ("approved", bool)),
}
_OUTPUT_TYPES = ("text", "json", "error-text", "error-json", "execution-denied", "content")


def kind_of(value: Any) -> str:
    """What a JSON-ish value is, for error messages ("null", "a string", "a list", ...)."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return f"a {type(value).__name__}"


def shown(value: Any) -> str:
    """A value from the input, for an error message: its repr when that is short and safe, else
    what it is. ``repr`` itself may fail on input (an integer past ``str()``'s digit limit, a
    list nested thousands deep) and must never turn a clear error into another exception."""
    if isinstance(value, str):
        return repr(value) if len(value) <= 60 else repr(value[:60]) + "..."
    if value is None or isinstance(value, (bool, float)):
        return repr(value)
    if isinstance(value, int):
        return repr(value) if value.bit_length() <= 64 else "a very large number"
    return kind_of(value)


def _diagnose(raw: list[Any]) -> tuple[str, str] | None:
    """Find the first problem in raw message data, as (path, message)."""
    for i, msg in enumerate(raw):
        path = f"messages[{i}]"
        if isinstance(msg, _MESSAGE_TYPES):
            continue
        if not isinstance(msg, Mapping):
            return path, f"expected a message object, got {kind_of(msg)}"
        evidence = foreign_evidence(msg)
        if evidence is not None:
            return path, describe(*evidence)
        role = msg.get("role")
        if role is None:
            return path, "message has no role"
        if role not in _ROLES:
            return (
                f"{path}.role",
                f"unknown role {shown(role)} (expected one of {', '.join(_ROLES)})",
            )
        if "content" not in msg:
            return path, f"{role} message has no content"
        content = msg["content"]
        if content is None:
            return f"{path}.content", f"content is null in a {role} message"
        if role == "system":
            if not isinstance(content, str):
                return (
                    f"{path}.content",
                    f"system message content must be a string, got {kind_of(content)}",
                )
            continue
        if isinstance(content, str):
            if role == "tool":
                return (
                    f"{path}.content",
                    "tool message content must be a list of parts, got a string",
                )
            continue
        if not isinstance(content, (list, tuple)):
            return (
                f"{path}.content",
                f"content must be a string or a list of parts, got {kind_of(content)}",
            )
        for j, part in enumerate(content):
            found = _diagnose_part(part, role, f"{path}.content[{j}]")
            if found is not None:
                return found
    return None


def _diagnose_part(part: Any, role: str, path: str) -> tuple[str, str] | None:
    if isinstance(part, BaseModel):
        return None
    if not isinstance(part, Mapping):
        return path, f"expected a part object, got {kind_of(part)}"
    ptype = part.get("type")
    if ptype is None:
        return path, "part has no type"
    allowed = _PART_TYPES[role]
    if ptype not in allowed:
        return (
            f"{path}.type",
            f"{shown(ptype)} part is not allowed in a {role} message "
            f"(allowed: {', '.join(allowed)})",
        )
    for field, expected in _REQUIRED[ptype]:
        if field not in part or part[field] is None:
            return path, f"{ptype} part has no {field}"
        if not isinstance(part[field], expected) or (
            expected is not bool and isinstance(part[field], bool)
        ):
            return (
                f"{path}.{field}",
                f"{ptype} part has {field} of the wrong type ({kind_of(part[field])})",
            )
    if ptype == "tool-result":
        out_type = part["output"].get("type")
        if out_type not in _OUTPUT_TYPES:
            return (
                f"{path}.output.type",
                f"unknown tool output type {shown(out_type)} "
                f"(expected one of {', '.join(_OUTPUT_TYPES)})",
            )
    return None


def _loc_path(loc: tuple[int | str, ...]) -> str:
    # pydantic locations carry union labels ("tuple[...]") and tags; keep indices and field names.
    out = "messages"
    for item in loc:
        if isinstance(item, int):
            out += f"[{item}]"
        elif "[" not in item and item not in _ROLES and item not in _REQUIRED:
            out += f".{item}"
    return out


# --- nesting limit and values JSON cannot hold (error paths only) ---------------------------

JSON_NESTING_LIMIT = 254
"""How deeply a JSON value in a message (a tool input, a tool output's value, a provider option)
may be nested: pydantic refuses deeper ones, loading and dumping alike (its recursion guard). A
value is nested one level deeper than the array or object holding it: in ``{"a": [1]}``, ``1``
is nested two levels deep; an empty array or object adds no level."""

_TOO_DEEP = f"nested more than {JSON_NESTING_LIMIT} levels deep, the most heal reads"


def nested_deeper_than(value: Any, limit: int) -> bool:
    """Whether some value inside ``value`` is nested more than ``limit`` levels deep (as
    :data:`JSON_NESTING_LIMIT` counts). Without recursion, so any depth is safe to ask about; a
    cycle counts as too deep, and a container shared within a level is visited once."""
    level = [value] if _holds_items(value) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        inner: dict[int, Any] = {}
        for container in level:
            for item in container.values() if isinstance(container, Mapping) else container:
                if _holds_items(item):
                    inner[id(item)] = item
        level = list(inner.values())
    return False


def _holds_items(value: Any) -> bool:
    return isinstance(value, (Mapping, list, tuple)) and len(value) > 0


def _depth_problem(raw: Any) -> tuple[str, str] | None:
    """The first JSON value in raw message data nested deeper than :data:`JSON_NESTING_LIMIT`,
    as (path, message), for a history that failed validation: pydantic's own error for it reads
    "Input should be a valid string" (the last branch of a union it tried). Data of any other
    shape is left to the rest of the diagnosis."""
    if not isinstance(raw, (list, tuple)):
        return None
    for i, msg in enumerate(raw):
        if not isinstance(msg, Mapping):
            continue
        path = f"messages[{i}]"
        found = _options_too_deep(msg, path)
        if found is not None:
            return found
        content = msg.get("content")
        if not isinstance(content, (list, tuple)):
            continue
        for j, part in enumerate(content):
            if isinstance(part, Mapping):
                found = _part_too_deep(part, f"{path}.content[{j}]")
                if found is not None:
                    return found
    return None


def _part_too_deep(part: Mapping[str, Any], path: str) -> tuple[str, str] | None:
    if part.get("type") == "tool-call" and nested_deeper_than(
        part.get("input"), JSON_NESTING_LIMIT
    ):
        return f"{path}.input", f"tool-call input is {_TOO_DEEP}"
    found = _options_too_deep(part, path)
    if found is not None:
        return found
    output = part.get("output")
    if not isinstance(output, Mapping):
        return None
    value = output.get("value")
    if output.get("type") == "content" and isinstance(value, (list, tuple)):
        # Each item is an object of JSON values: one level more than a value of its own.
        for k, item in enumerate(value):
            if nested_deeper_than(item, JSON_NESTING_LIMIT + 1):
                return f"{path}.output.value[{k}]", f"tool output item holds a value {_TOO_DEEP}"
    elif nested_deeper_than(value, JSON_NESTING_LIMIT):
        return f"{path}.output.value", f"tool output value is {_TOO_DEEP}"
    return _options_too_deep(output, f"{path}.output")


def _options_too_deep(item: Mapping[str, Any], path: str) -> tuple[str, str] | None:
    # Provider options are objects (by provider) of objects (by option) of JSON values. Models
    # are read by field name too, so either spelling may hold them.
    for key in ("providerOptions", "provider_options"):
        if nested_deeper_than(item.get(key), JSON_NESTING_LIMIT + 2):
            return f"{path}.{key}", f"{key} holds a value {_TOO_DEEP}"
    return None


def _dump_error(history: list[Any], exc: ValueError) -> InputError:
    """The error for a history pydantic could not dump: the first field that fails alone."""
    for i, message in enumerate(history):
        if isinstance(message, BaseModel):
            found = _undumpable(message, f"messages[{i}]")
            if found is not None:
                return InputError(found[1], path=found[0])
    return InputError(f"cannot be written as JSON ({_printable(exc)})")


def _undumpable(model: BaseModel, path: str) -> tuple[str, str] | None:
    """The first field of ``model`` (or of a part or output inside it) that pydantic cannot
    dump, as (path, message); None when the model dumps."""
    try:
        model.model_dump(mode="json", exclude_unset=True)
    except ValueError as exc:
        return _undumpable_field(model, path) or (
            path,
            f"cannot be written as JSON ({_printable(exc)})",
        )
    return None


def _undumpable_field(model: BaseModel, path: str) -> tuple[str, str] | None:
    fields = type(model).model_fields
    extra = model.__pydantic_extra__ or {}
    for name in [*(n for n in fields if n in model.model_fields_set), *extra]:
        try:
            model.model_dump(mode="json", exclude_unset=True, include={name})
        except ValueError as exc:
            field = fields.get(name)
            where = f"{path}.{(field.alias or name) if field is not None else name}"
            value = getattr(model, name)
            found: tuple[str, str] | None = None
            if isinstance(value, BaseModel):
                found = _undumpable(value, where)
            elif isinstance(value, tuple):  # a message's parts
                for j, item in enumerate(value):
                    if isinstance(item, BaseModel):
                        found = _undumpable(item, f"{where}[{j}]")
                        if found is not None:
                            break
            return found or (where, _dump_reason(value, exc))
    return None


def _dump_reason(value: Any, exc: ValueError) -> str:
    # pydantic says only "Maximum serialization depth exceeded": say what the limit is. (A
    # cycle is too deep as well, but pydantic names it, and so does its message.)
    if "depth" in str(exc) and nested_deeper_than(value, JSON_NESTING_LIMIT):
        return f"nested more than {JSON_NESTING_LIMIT} levels deep, the most heal writes"
    return f"cannot be written as JSON ({_printable(exc)})"


def _printable(exc: BaseException) -> str:
    # A UnicodeEncodeError's text quotes the lone surrogate it met, which would make the
    # error message itself unprintable.
    return str(exc).encode("utf-8", "backslashreplace").decode("utf-8")
