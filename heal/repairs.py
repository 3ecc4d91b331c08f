"""Repair records: the audit trail of every change heal makes (or would make).

A :class:`Repair` is frozen and JSON-serializable (``repair.model_dump(mode="json")``). Its
locations are indices into the CALLER'S input, whatever intermediate edits happened, and it
carries the content it removed or replaced, so an audit can show exactly what changed and nothing
is ever lost silently.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from decimal import Decimal
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, JsonValue
from pydantic_core import to_jsonable_python

__all__ = ["Action", "Repair", "Scope"]


class Action(str, Enum):
    """What a repair did."""

    REMOVE = "remove"
    """Removed a part or message (``removed`` holds it)."""
    INSERT = "insert"
    """Inserted a part or message (``added`` holds it, ``anchor_index`` says where)."""
    REPLACE = "replace"
    """Replaced a part or message, or one of its fields (``removed`` old, ``added`` new)."""
    MOVE = "move"
    """Moved a part to another place (``anchor_index`` says where); nothing was lost."""
    KEEP = "keep"
    """Found a problem and left it, because the policy chose ``keep``. Does not fail validation."""
    REPORT = "report"
    """Found a problem that no edit can fix safely; the reason says what to do. Fails validation."""


class Scope(str, Enum):
    """Where a rule's change belongs."""

    HISTORY = "history"
    """The change fixes the stored history itself: a migration may write it back."""
    REQUEST = "request"
    """The change only suits one request to one provider (such as stripping another provider's
    reasoning): send it, but never write it back to storage."""


class Repair(BaseModel):
    """One change heal made, or, from ``validate_messages``, one problem it found."""

    model_config = ConfigDict(frozen=True)

    rule: str
    """The id of the rule that found the problem, such as ``orphan-tool-call``."""
    action: Action
    """What was done."""
    message_index: int | None
    """Index of the affected message in the caller's input (None for inserted items)."""
    part_index: int | None
    """Index of the affected part in that message's content (None for whole messages)."""
    anchor_index: int | None = None
    """For inserts and moves: the input index of the message the item was put into or after."""
    tool_call_id: str | None = None
    """The tool call concerned, where one applies."""
    reason: str
    """One line saying what was wrong and what was done."""
    removed: JsonValue = None
    """What was removed or replaced, as AI SDK JSON (None when nothing was)."""
    added: JsonValue = None
    """What was inserted or put in its place, as AI SDK JSON (None when nothing was)."""
    scope: Scope = Scope.HISTORY
    """Whether this change belongs in stored history or only in the outgoing request."""

    @property
    def changed(self) -> bool:
        """True when the repair changed the history (not a kept or reported finding)."""
        return self.action not in (Action.KEEP, Action.REPORT)

    def describe(self) -> str:
        """A one-line, human-readable summary: location, rule and reason."""
        where = "messages"
        if self.message_index is not None:
            where = f"messages[{self.message_index}]"
            if self.part_index is not None:
                where += f".content[{self.part_index}]"
        elif self.anchor_index is not None:
            where = f"after messages[{self.anchor_index}]"
        return f"{where}: {self.rule}: {self.reason}"


# --- records of what JSON cannot hold as it is (error path only) -----------------------------

_RECORD_DEPTH = 253
"""How deeply a record's ``removed`` or ``added`` may be nested: pydantic's JSON writer takes 255
levels, counting the record itself and the innermost value among them (measured: 254 fails).
Deeper content is kept as its JSON text."""


class _Text(str):
    """A piece of JSON text to write as it is (see :func:`_json_text`)."""


def record_json(value: Any) -> JsonValue:
    """``value`` (a message or part model, or JSON-like data) as JSON data for a record's
    ``removed`` or ``added``, whatever it holds; for the content pydantic's JSON dump refuses or
    garbles, and only for it (this is several times slower).

    For a model pydantic dumps faithfully, the result equals its ``model_dump(mode="json",
    exclude_unset=True)``. What JSON cannot hold is written so that nothing is lost: a lone
    surrogate, in a key too, as a ``\\udxxx`` escape (as the engine writes it in values); bytes
    as standard base64 (as the models write file data); a key that is not a string as its JSON
    text; anything nested deeper than a record holds, as its JSON text; any other object as
    pydantic writes it, or as its ``repr``. Integers of any size stay integers: pydantic's JSON
    writer takes them.
    """
    return _plain(value, _RECORD_DEPTH)  # type: ignore[no-any-return]


_CYCLE = "[circular reference]"
"""Written for a container found inside itself, which JSON cannot hold (Python's repr writes
``[...]``)."""

_LEAVE: Any = object()
"""Marks, in the walk below, the point where a container's contents are all converted."""


def _plain(value: Any, limit: int | None) -> Any:
    """``value`` as plain JSON data; containers below ``limit`` levels as JSON text. Without
    recursion: content nested a thousand levels deep is what brings us here."""
    root: list[Any] = [None]
    todo: list[tuple[Any, Any, Any, int]] = [(value, root, 0, 0)]
    inside: set[int] = set()  # the containers being converted: the path from the root
    while todo:
        item, parent, key, depth = todo.pop()
        if item is _LEAVE:
            inside.discard(key)
            continue
        ident = id(item)
        if isinstance(item, BaseModel):
            item = _fields(item)
        if isinstance(item, (Mapping, list, tuple, set, frozenset)):
            if ident in inside:
                parent[key] = _CYCLE
                continue
            if limit is not None and depth >= limit and item:
                parent[key] = _json_text(_plain(item, None))
                continue
            inside.add(ident)
            todo.append((_LEAVE, None, ident, depth))
            out: Any
            if isinstance(item, Mapping):
                # Keys go in now, in order; their values are filled in as the walk reaches them.
                out = {}
                for k, v in item.items():
                    name = _key(k)
                    out[name] = None
                    todo.append((v, out, name, depth + 1))
            else:
                out = [None] * len(item)
                todo.extend((v, out, n, depth + 1) for n, v in enumerate(item))
            parent[key] = out
        elif item is None or isinstance(item, (bool, int, float)):
            parent[key] = item
        elif isinstance(item, str):
            parent[key] = _escape(item)
        elif isinstance(item, (bytes, bytearray, memoryview)):
            parent[key] = base64.b64encode(item).decode("ascii")
        else:
            try:
                todo.append((to_jsonable_python(item), parent, key, depth))
            except Exception:  # nothing pydantic can write: its repr still says what it was
                parent[key] = _escape(_repr(item))
    return root[0]


def _fields(model: BaseModel) -> dict[str, Any]:
    """A model's fields as ``model_dump(exclude_unset=True)`` names them (its aliases), then
    its unknown fields, as pydantic writes them."""
    fields = type(model).model_fields
    found = {
        field.alias or name: getattr(model, name)
        for name, field in fields.items()
        if name in model.model_fields_set
    }
    found.update(model.__pydantic_extra__ or {})
    return found


def _escape(text: str) -> str:
    # Lone surrogates cannot be encoded as UTF-8; backslashreplace writes each as \udxxx.
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _key(key: Any) -> str:
    if isinstance(key, str):
        return _escape(key)
    if isinstance(key, (bool, int, float)) or key is None:
        return _json_text(key)
    return _escape(_repr(key))


def _repr(value: Any) -> str:
    try:
        return repr(value)
    except Exception:  # a broken __repr__ (or one that recurses without end)
        return object.__repr__(value)


def _json_text(value: Any) -> str:
    """Compact JSON text of plain JSON data, without recursion (json.dumps recurses once per
    level) and with integers of any size (str() refuses more than 4,300 digits)."""
    out: list[str] = []
    todo: list[Any] = [value]
    while todo:
        item = todo.pop()
        if type(item) is _Text:
            out.append(item)
        elif isinstance(item, dict):
            pieces: list[Any] = []
            for k, v in item.items():
                pieces += (
                    _Text("," if pieces else "{"),
                    _Text(json.dumps(k, ensure_ascii=False) + ":"),
                    v,
                )
            pieces.append(_Text("}" if pieces else "{}"))
            todo.extend(reversed(pieces))
        elif isinstance(item, list):
            pieces = []
            for v in item:
                pieces += (_Text("," if pieces else "["), v)
            pieces.append(_Text("]" if pieces else "[]"))
            todo.extend(reversed(pieces))
        elif isinstance(item, bool) or item is None or isinstance(item, (float, str)):
            out.append(json.dumps(item, ensure_ascii=False))
        else:  # an int
            out.append(str(Decimal(item)))
    return "".join(out)
