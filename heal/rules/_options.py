"""Provider options: reading a part's namespaces, and copying a part with new ones.

Every provider pack keys its facts on ``providerOptions`` (signatures, item ids, server-tool
metadata); these helpers are the one place that reads and writes that field generically.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

from heal._construct import cleared, replaced
from heal.messages import ModelMessage, Part
from heal.providers import HEAL_NAMESPACE, SYNTHESIZED

__all__ = [
    "ANTHROPIC_FORMAT",
    "BLOCK_ORDER",
    "HEAL_NAMESPACE",
    "SYNTHESIZED",
    "foreign_namespaces",
    "foreign_options",
    "namespaces",
    "results_not_first",
    "with_options",
    "without_block_order",
]

_M = TypeVar("_M", bound=BaseModel)


def namespaces(part: Part | ModelMessage) -> dict[str, Any]:
    """The part's provider options (an empty dict when it has none)."""
    options = part.provider_options
    return options if isinstance(options, dict) else {}


def foreign_namespaces(part: Part, native: Collection[str]) -> list[str]:
    """The provider namespaces of a part that came from another provider: every namespace, when
    none of them is ``native`` (heal's own marker does not count either way)."""
    return foreign_options(part.provider_options, native)


def foreign_options(options: Mapping[str, Any] | None, native: Collection[str]) -> list[str]:
    """:func:`foreign_namespaces` of a part whose provider options are ``options`` (a model's
    field, or a decoded part's ``providerOptions``, which a JSON walk has found to be a dict)."""
    if not options:
        return []
    if len(options) == 1:  # nearly always: one provider's options
        ns = next(iter(options))
        return [] if ns == HEAL_NAMESPACE or ns in native else [ns]
    found = [ns for ns in options if ns != HEAL_NAMESPACE]
    if not found or any(ns in native for ns in found):
        return []
    return sorted(found)


def with_options(part: _M, options: Mapping[str, Any] | None) -> _M:
    """A copy of ``part`` with these provider options; ``None`` or empty removes the field (it
    then dumps as absent, not as null: the AI SDK schema rejects ``providerOptions: null``)."""
    if options:
        return replaced(part, {"provider_options": dict(options)})
    return cleared(part, "provider_options")


ANTHROPIC_FORMAT = "anthropic"
"""The Anthropic adapter's key in heal's namespace (``providerOptions.heal.anthropic``)."""

BLOCK_ORDER = "order"
"""Its block-order marker: on the user message that holds the text of a native user message
whose ``tool_result`` blocks were not all first, a string of ``r`` (a result, from the tool
message right before) and ``u`` (a block of this message) per native block, so that dumping
gives the blocks back in their order."""


def results_not_first(message: ModelMessage) -> bool:
    """Whether ``message`` carries the Anthropic adapter's block order with a ``tool_result``
    after another block: the order Anthropic rejects, which dumping would write back."""
    options = message.provider_options
    if not options:
        return False
    mine = options.get(HEAL_NAMESPACE)
    marks = mine.get(ANTHROPIC_FORMAT) if isinstance(mine, Mapping) else None
    order = marks.get(BLOCK_ORDER) if isinstance(marks, Mapping) else None
    return isinstance(order, str) and "ur" in order


def without_block_order(message: _M) -> _M:
    """A copy of ``message`` without the Anthropic adapter's block-order marker (dumped, its
    results then come first and its other blocks after them, in their order)."""
    options = dict(message.provider_options)  # type: ignore[attr-defined]
    heal = dict(options[HEAL_NAMESPACE])
    marks = {k: v for k, v in heal[ANTHROPIC_FORMAT].items() if k != BLOCK_ORDER}
    if marks:
        heal[ANTHROPIC_FORMAT] = marks
    else:
        del heal[ANTHROPIC_FORMAT]
    if heal:
        options[HEAL_NAMESPACE] = heal
    else:
        del options[HEAL_NAMESPACE]
    return with_options(message, options)
