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

__all__ = ["HEAL_NAMESPACE", "SYNTHESIZED", "foreign_namespaces", "namespaces", "with_options"]

_M = TypeVar("_M", bound=BaseModel)


def namespaces(part: Part | ModelMessage) -> dict[str, Any]:
    """The part's provider options (an empty dict when it has none)."""
    options = part.provider_options
    return options if isinstance(options, dict) else {}


def foreign_namespaces(part: Part, native: Collection[str]) -> list[str]:
    """The provider namespaces of a part that came from another provider: every namespace, when
    none of them is ``native`` (heal's own marker does not count either way)."""
    options = part.provider_options
    if not options:
        return []
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
