"""Per-rule choices: which fix a rule applies, and which rules run at all.

Defaults come from the rules themselves (a rule's first choice). A policy names only what
differs::

    Policy({"orphan-tool-call": "drop-call"}, disable=["empty-text"])

Every rule also accepts the choice ``keep``: report the problem (as a ``keep`` repair that does
not fail validation) and change nothing. A plain ``dict`` of choices works wherever a ``Policy``
does. Unknown rule ids and choices raise :class:`~heal.errors.ConfigError` listing the valid ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from heal.errors import ConfigError

__all__ = ["KEEP", "Policy"]

KEEP = "keep"
"""The choice every rule accepts: report, change nothing."""


class Policy:
    """Per-rule choices, plus rules to turn off or to turn on (rules that are off by default).

    Immutable and hashable, so healing can cache the plan it builds from a policy.
    """

    __slots__ = ("_choices", "_disable", "_enable", "_hash")

    def __init__(
        self,
        choices: Mapping[str, str] | None = None,
        /,
        *,
        disable: Iterable[str] = (),
        enable: Iterable[str] = (),
    ) -> None:
        items = dict(choices or {})
        for rule_id, choice in items.items():
            if not isinstance(rule_id, str) or not isinstance(choice, str):
                raise ConfigError(
                    "policy entries must map a rule id to a choice string, "
                    f"got {rule_id!r}: {choice!r}"
                )
        self._choices: tuple[tuple[str, str], ...] = tuple(sorted(items.items()))
        self._disable = frozenset(disable)
        self._enable = frozenset(enable)
        self._hash = hash((self._choices, self._disable, self._enable))

    @property
    def choices(self) -> Mapping[str, str]:
        """The choices this policy sets, by rule id."""
        return dict(self._choices)

    @property
    def disabled(self) -> frozenset[str]:
        """Rule ids that do not run."""
        return self._disable

    @property
    def enabled(self) -> frozenset[str]:
        """Rule ids that run although they are off by default."""
        return self._enable

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Policy):
            return NotImplemented
        return (self._choices, self._disable, self._enable) == (
            other._choices,
            other._disable,
            other._enable,
        )

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        parts = [repr(dict(self._choices))] if self._choices else []
        if self._disable:
            parts.append(f"disable={sorted(self._disable)!r}")
        if self._enable:
            parts.append(f"enable={sorted(self._enable)!r}")
        return f"Policy({', '.join(parts)})"

    @classmethod
    def coerce(cls, value: Policy | Mapping[str, str] | None) -> Policy:
        """Accept a Policy, a plain dict of choices, or None."""
        if value is None:
            return _EMPTY
        if isinstance(value, Policy):
            return value
        if isinstance(value, Mapping):
            return cls(value)
        raise ConfigError(f"policy must be a Policy or a dict of rule id to choice, got {value!r}")


_EMPTY = Policy()
