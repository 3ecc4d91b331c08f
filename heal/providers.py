"""Provider ids and the profile of what differs between providers.

A provider id names a WIRE FORMAT, not a vendor: Claude served through Vertex AI speaks the
Anthropic Messages API and is ``anthropic``; Bedrock's Converse API is ``bedrock``. ``None``
means "no particular provider": only the shared rules run.

A :class:`ProviderProfile` holds the facts rules consult (which tool names and tool-call ids
are accepted), so adding a provider means adding a profile and its rules, not editing rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal, get_args

from heal.errors import ConfigError

__all__ = ["PROVIDERS", "ProviderId", "ProviderProfile", "get_profile"]

ProviderId = Literal[
    "anthropic",
    "bedrock",
    "openai-chat",
    "openai-responses",
    "google",
    "mistral",
    "deepseek",
    "cerebras",
    "groq",
    "xai",
    "openai-compatible",
]
PROVIDERS: tuple[ProviderId, ...] = get_args(ProviderId)
"""Every known provider id."""


@dataclass(frozen=True, slots=True)
class ProviderProfile:
    """What a provider accepts in a history, as data the rules consult."""

    id: ProviderId | None
    """The provider id, or None for the shared profile."""
    tool_name_chars: str = "a-zA-Z0-9_-"
    """The characters it accepts in tool names, as a regex character class body."""
    tool_name_max: int = 64
    """Longest tool name it accepts."""
    tool_call_id_chars: str = "a-zA-Z0-9_-"
    """The characters it accepts in tool-call ids, as a regex character class body."""
    tool_call_id_max: int | None = None
    """Longest tool-call id it accepts, if limited."""
    tool_name_pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)
    tool_name_forbidden: re.Pattern[str] = field(init=False, repr=False, compare=False)
    tool_call_id_pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)
    tool_call_id_forbidden: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _names_pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _ids_pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        id_max = "" if self.tool_call_id_max is None else str(self.tool_call_id_max)
        compiled = {
            "tool_name_pattern": rf"[{self.tool_name_chars}]{{1,{self.tool_name_max}}}",
            "tool_name_forbidden": rf"[^{self.tool_name_chars}]",
            "tool_call_id_pattern": rf"[{self.tool_call_id_chars}]{{1,{id_max}}}",
            "tool_call_id_forbidden": rf"[^{self.tool_call_id_chars}]",
        }
        # One regex call checks a whole set of values joined by NUL (never valid in either):
        # far cheaper than one call per value on the hot path.
        compiled["_names_pattern"] = rf"{compiled['tool_name_pattern']}(?:\x00{compiled['tool_name_pattern']})*"
        compiled["_ids_pattern"] = rf"{compiled['tool_call_id_pattern']}(?:\x00{compiled['tool_call_id_pattern']})*"
        for name, pattern in compiled.items():
            object.__setattr__(self, name, re.compile(pattern))

    def valid_tool_name(self, name: str) -> bool:
        """Whether a tool name is accepted in history."""
        return self.tool_name_pattern.fullmatch(name) is not None

    def all_valid_tool_names(self, names: Iterable[str]) -> bool:
        """Whether every name is accepted (True for none)."""
        values = list(names)
        return not values or self._names_pattern.fullmatch("\x00".join(values)) is not None

    def all_valid_tool_call_ids(self, ids: Iterable[str]) -> bool:
        """Whether every id is accepted (True for none)."""
        values = list(ids)
        return not values or self._ids_pattern.fullmatch("\x00".join(values)) is not None

    def valid_tool_call_id(self, tool_call_id: str) -> bool:
        """Whether a tool-call id is accepted in history."""
        return self.tool_call_id_pattern.fullmatch(tool_call_id) is not None


SHARED_PROFILE = ProviderProfile(id=None)
"""The profile of the shared rules: the strictest name and id rules every provider agrees on
(Anthropic ``^[a-zA-Z0-9_-]{1,64}$`` names and ``^[a-zA-Z0-9_-]+$`` ids, OpenAI and Bedrock
``[a-zA-Z0-9_-]+``)."""

_PROFILES: dict[str | None, ProviderProfile] = {None: SHARED_PROFILE}
_PROFILES.update({p: ProviderProfile(id=p) for p in PROVIDERS})


def get_profile(provider: str | None) -> ProviderProfile:
    """Return the profile of a provider id; raise ConfigError for an unknown id."""
    try:
        return _PROFILES[provider]
    except KeyError:
        raise ConfigError(
            f"unknown provider {provider!r}; expected None or one of: {', '.join(PROVIDERS)}"
        ) from None
