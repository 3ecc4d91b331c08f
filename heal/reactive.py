"""Reactive repair: heal a history after a provider rejected it, from the error it returned.

Some problems cannot be seen in a history, only in the provider's answer: whether the model
takes reasoning input, whether encrypted reasoning still verifies, whether an item id needs a
reasoning item. The rules for them are off by default. :func:`heal_after_error` reads the error,
finds every known rejection in it (:data:`ERROR_PATTERNS`), and heals the history with the rules
that cite those rejections switched on, plus every rule that is on anyway::

    from heal.reactive import heal_after_error

    try:
        response = client.responses.create(input=to_openai(history), ...)
    except openai.BadRequestError as exc:
        result = heal_after_error(history, exc, provider="openai-responses")
        if result.retry:
            response = client.responses.create(input=to_openai(result.messages), ...)

The error may be an exception (its text, ``body``, ``response`` and causes are read), its
message, or a response body as a dict, JSON text or bytes; wrappers such as Bedrock's ``The model
returned the following errors:`` or a gateway's JSON envelope do not matter, because patterns are
searched for, never anchored. One error naming several problems (Cerebras joins its violations
with newlines) fixes them all. An error no pattern knows changes nothing: ``matched == ()``.

Nothing here is declared by hand: each rule cites the errors it prevents
(:attr:`~heal.rules.Rule.rejections`), each citation names the pattern that recognises its text
(declared once, in :mod:`heal.rules._errors`), and the catalogue is derived from those citations.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from heal._engine import heal_messages
from heal.errors import ConfigError
from heal.messages import ModelMessage, load_messages
from heal.policy import Policy
from heal.providers import ProviderId, providers_where
from heal.repairs import Repair
from heal.rules import BUILTIN_RULES, Rejection, RejectionPattern, Rule, default_registry
from heal.rules._errors import CATALOGUE
from heal.targets import Target

__all__ = ["ERROR_PATTERNS", "ErrorPattern", "ReactiveResult", "error_text", "heal_after_error"]


@dataclass(frozen=True, slots=True)
class ErrorPattern:
    """A provider rejection heal recognises, and the rules that repair it.

    Derived, never declared: the fields of a :class:`~heal.rules.RejectionPattern`, and as
    ``rules`` the rules whose :attr:`~heal.rules.Rule.rejections` name that pattern."""

    id: str
    """Kebab-case, provider first (``openai-reasoning-without-following-item``)."""
    regex: re.Pattern[str]
    """Searched for (``re.search``) in the error text, never anchored."""
    rules: tuple[str, ...]
    """The rules that repair it (those citing the text), in registry order; run even when
    they are off by default."""
    provider: str
    """Who answers this way (providers, gateways, the AI SDK itself, heal's adapters)."""
    source: str
    """Where the verbatim error text was observed (issues, PRs, documentation)."""
    implies: ProviderId | None = None
    """The provider id this text identifies, when only one provider writes it: used when the
    caller did not say which provider it called."""


_COMPATIBLE = providers_where(lambda profile: profile.refines_openai_compatible)
"""OpenAI-format servers with their own provider id: an error one of them writes refines a
call made with ``provider="openai-compatible"``."""


def _derive(rules: Iterable[Rule]) -> tuple[ErrorPattern, ...]:
    """The patterns the rules' rejections name, each with the rules that name it (in the order
    given): built-in patterns in catalogue order, any others after them as first named."""
    found: dict[str, RejectionPattern] = {}
    named: dict[str, dict[str, None]] = {}
    for rule in rules:
        if not isinstance(rule, Rule) or not isinstance(getattr(rule, "id", None), str):
            continue  # heal_messages refuses a malformed extra rule, with its own message
        for rejection in rule.rejections:
            pattern = rejection.pattern if isinstance(rejection, Rejection) else None
            if pattern is None:
                continue
            if found.setdefault(pattern.id, pattern) != pattern:
                raise ConfigError(f"two different error patterns share the id {pattern.id!r}")
            named.setdefault(pattern.id, {})[rule.id] = None
    position = {pattern.id: i for i, pattern in enumerate(CATALOGUE)}
    ordered = sorted(found.values(), key=lambda p: position.get(p.id, len(position)))
    return tuple(
        ErrorPattern(p.id, p.regex, tuple(named[p.id]), p.provider, p.source, p.implies)
        for p in ordered
    )


ERROR_PATTERNS: tuple[ErrorPattern, ...] = _derive(BUILTIN_RULES)
"""Every provider rejection the built-in rules cite, as :func:`heal_after_error` recognises it:
each pattern (declared once, in :mod:`heal.rules._errors`) with the rules whose
:attr:`~heal.rules.Rule.rejections` name it, in registry order. Catalogue order is the
declaration order there.

A text no rule cites is not recognised. Left out on purpose: rejections no rule can repair from
the history (request parameters, tool definitions, ``store: false`` item references, the
healer's own immutability guard)."""


@lru_cache(maxsize=1)
def _registry_patterns(version: int) -> tuple[ErrorPattern, ...]:
    """The default registry's catalogue; ``version`` is the cache key (the registry changed)."""
    del version
    return _derive(default_registry)


def _catalogue(extra: Sequence[Rule]) -> tuple[ErrorPattern, ...]:
    """The patterns of the default registry's rules, then those of ``extra``: a registered or
    passed rule whose rejections name a pattern runs when that pattern is found, as a built-in
    does."""
    if extra:
        return _derive((*default_registry, *extra))
    return _registry_patterns(default_registry.version)


@dataclass(frozen=True, slots=True)
class ReactiveResult:
    """What :func:`heal_after_error` returns."""

    messages: list[ModelMessage]
    """The healed history (the input, loaded, when nothing matched)."""
    repairs: tuple[Repair, ...]
    """Every change made, as :func:`~heal.heal_messages` reports them."""
    matched: tuple[str, ...]
    """The ids of the :data:`ERROR_PATTERNS` found in the error, in catalogue order."""
    rules: tuple[str, ...]
    """The rules those patterns name (run even when off by default)."""
    provider: ProviderId | None
    """The provider healed for: the one given, or the one the error text identifies."""

    @property
    def changed(self) -> bool:
        """True when at least one repair changed the history."""
        return any(r.changed for r in self.repairs)

    @property
    def retry(self) -> bool:
        """True when the error was recognised and the history changed: retrying is worthwhile."""
        return bool(self.matched) and self.changed


def heal_after_error(
    messages: Any,
    error: BaseException | str | bytes | bytearray | Mapping[str, Any] | Sequence[Any],
    *,
    provider: ProviderId | None = None,
    model: str | None = None,
    thinking: bool | None = None,
    tools: Iterable[Any] | None = None,
    policy: Policy | Mapping[str, str] | None = None,
    rules: Sequence[Rule] | None = None,
    on_repair: Callable[[Repair], object] | None = None,
) -> ReactiveResult:
    """Heal ``messages`` after a provider rejected them with ``error``.

    Finds every :data:`ERROR_PATTERNS` entry in the error (and every pattern the rejections of
    registered rules and of ``rules`` name) and heals with the rules that cite it enabled (even
    rules that are off by default) plus every rule that is on anyway. A rule the
    ``policy`` disables stays disabled. When ``provider`` is None and the error text identifies
    one provider (Mistral's id message, say), healing is for that provider. No match: the
    history is returned unchanged, with ``matched == ()`` and no repairs.

    Args:
        messages: as for :func:`~heal.heal_messages`.
        error: the exception, its message, or the response body (dict, JSON text or bytes).
        provider, model, thinking, tools, policy, rules, on_repair: as for
            :func:`~heal.heal_messages` (the provider is inferred from the model when not
            given, before the error's own hint).
    """
    if provider is None and model is not None:
        provider = Target.of(None, model).provider
    text = error_text(error)
    catalogue = _catalogue(rules or ())
    matched = tuple(pattern for pattern in catalogue if pattern.regex.search(text))
    loaded = load_messages(messages)
    if not matched:
        return ReactiveResult(loaded, (), (), (), provider)
    implied = {pattern.implies for pattern in matched if pattern.implies is not None}
    # "openai-compatible" is the generic answer for an unknown OpenAI-format server; an error
    # only one server family writes (Kimi's, DeepSeek's) says which conventions it follows.
    if len(implied) == 1 and (
        provider is None or (provider == "openai-compatible" and implied <= _COMPATIBLE)
    ):
        provider = implied.pop()
    # Every rule a catalogue pattern names is in the registry or in ``rules``: no unknown id.
    named = tuple(dict.fromkeys(rule for pattern in matched for rule in pattern.rules))
    base = Policy.coerce(policy)
    merged = Policy(base.choices, disable=base.disabled, enable=base.enabled | set(named))
    result = heal_messages(
        loaded,
        provider=provider,
        model=model,
        thinking=thinking,
        tools=tools,
        policy=merged,
        rules=rules,
        on_repair=on_repair,
    )
    return ReactiveResult(
        result.messages, result.repairs, tuple(p.id for p in matched), named, provider
    )


# --- reading the error -----------------------------------------------------------------------

_MAX_DEPTH = 12
_ATTRIBUTES = ("body", "response_body", "responseBody", "data", "message", "error", "detail")


def error_text(error: object) -> str:
    """All the text in an error, one piece per line: the exception's message, ``body`` and
    response text and those of its causes, or every string inside a response body (JSON text
    inside strings is unpacked too)."""
    out: list[str] = []
    _collect(error, out, set(), 0)
    return "\n".join(dict.fromkeys(out))


def _collect(value: object, out: list[str], seen: set[int], depth: int) -> None:
    if value is None or depth > _MAX_DEPTH:
        return
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode("utf-8", "replace")
    if isinstance(value, str):
        if value.strip():
            out.append(value)
            _collect_json(value, out, seen, depth)
        return
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, BaseException):
        _collect(str(value), out, seen, depth + 1)
        for arg in value.args:
            if not isinstance(arg, str):
                _collect(arg, out, seen, depth + 1)
        for name in _ATTRIBUTES:
            _collect(_attribute(value, name), out, seen, depth + 1)
        response = _attribute(value, "response")
        if response is not None:
            _collect(_attribute(response, "text"), out, seen, depth + 1)
        _collect(value.__cause__, out, seen, depth + 1)
        _collect(value.__context__, out, seen, depth + 1)
    elif isinstance(value, Mapping):
        for item in value.values():
            _collect(item, out, seen, depth + 1)
    elif isinstance(value, Iterable):
        for item in value:
            _collect(item, out, seen, depth + 1)


def _collect_json(text: str, out: list[str], seen: set[int], depth: int) -> None:
    stripped = text.strip()
    if stripped[:1] not in ("{", "["):
        return
    try:
        parsed = json.loads(stripped)
    except (ValueError, RecursionError):
        # Not JSON, or nested too deeply for the parser (it recurses once per level): the text
        # itself is already collected, and the patterns are searched for in it.
        return
    _collect(parsed, out, seen, depth + 1)


def _attribute(value: object, name: str) -> object:
    # SDK exceptions expose lazily computed properties (httpx raises ResponseNotRead for a
    # streamed response's .text): a failure to read one is no reason to fail the repair.
    try:
        found = getattr(value, name, None)
    except Exception:
        return None
    if isinstance(found, (str, bytes, bytearray, Mapping, list, tuple, BaseException)):
        return found
    if name == "response":
        return found
    return None
