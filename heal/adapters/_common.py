"""What every adapter shares: a source map from canonical messages back to native items, the
one-call heal that reports repairs at native locations, and the target a native call heals for."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, PrivateAttr

from heal._engine import HealScope, heal_messages
from heal.errors import ConfigError, InputError
from heal.messages import ModelMessage, kind_of
from heal.policy import KEEP, Policy
from heal.providers import ProviderId, infer_provider
from heal.repairs import Repair
from heal.rules import Rule
from heal.targets import Target

__all__ = [
    "NO_FACTS",
    "Loaded",
    "NativeHealResult",
    "NativeRepair",
    "RequestFacts",
    "expect_object",
    "expect_string",
    "format_policy",
    "heal_native",
    "native_path",
    "native_repair",
    "native_target",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Loaded:
    """Canonical messages plus where each came from in the native history.

    ``origins[i]`` is the index of the native message (or item) canonical message ``i`` came
    from. ``part_origins[i]``, when given, holds for each canonical part of message ``i`` the
    index of the native part (content block) it came from, or None where there is no
    one-to-one counterpart. Several canonical messages may come from one native message (an
    Anthropic user message holding tool results becomes a tool message and a user message).
    """

    messages: list[ModelMessage]
    origins: list[int]
    part_origins: list[tuple[int | None, ...] | None] | None = None

    def native_location(
        self, message: int | None, part: int | None
    ) -> tuple[int | None, int | None]:
        """Map a canonical (message, part) location to the native one."""
        if message is None:
            return None, None
        native_message = self.origins[message]
        if part is None:
            return native_message, None
        parts = self.part_origins[message] if self.part_origins is not None else None
        if parts is None:
            return native_message, part
        return native_message, parts[part] if part < len(parts) else None

    def describe_location(self, repair: Repair) -> str | None:
        """Name the native place of ``repair`` (at canonical locations), such as
        ``messages[3].parts[1]``; None when :meth:`Repair.describe`'s own
        ``messages[i].content[j]`` already names it (the base class: formats shaped that way).

        Adapters whose format names its places otherwise override this; the repairs they return
        are then :class:`NativeRepair`, whose ``describe()`` says it.
        """
        return None


def native_path(
    message: int | None,
    part: int | None,
    anchor: int | None,
    *,
    root: str = "messages",
    parts: str = "content",
) -> str:
    """A native location as :meth:`Repair.describe` words a canonical one, with the format's own
    names for the message list (``root``) and a message's parts (``parts``)."""
    if message is not None:
        return f"{root}[{message}]" if part is None else f"{root}[{message}].{parts}[{part}]"
    return root if anchor is None else f"after {root}[{anchor}]"


class NativeRepair(Repair):
    """A repair at native locations whose :meth:`describe` names the native place, such as
    ``messages[3].parts[1]`` (what logs, :class:`~heal.errors.HealingError` and the CLI show).

    The place is derived from the fields and the native history, so it is left out of the JSON
    and of equality: a ``NativeRepair`` dumps as, and equals, the plain :class:`Repair` with the
    same fields. ``model_copy`` keeps the place: a repair moved elsewhere needs :meth:`at`.
    """

    _location: str = PrivateAttr(default="messages")

    @property
    def location(self) -> str:
        """The native place, such as ``messages[3].parts[1]`` or ``after input[4]``."""
        return self._location

    def describe(self) -> str:
        """A one-line, human-readable summary: native location, rule and reason."""
        return f"{self._location}: {self.rule}: {self.reason}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Repair):
            return dict(self) == dict(other)
        return NotImplemented

    # Hash as a plain Repair does (defining __eq__ would otherwise drop it).
    __hash__ = Repair.__hash__

    @classmethod
    def at(cls, repair: Repair, location: str) -> NativeRepair:
        """``repair`` (already at native indices) with its native place."""
        out = cls.model_construct(repair.model_fields_set, **dict(repair))
        out._location = location
        return out


@dataclass(frozen=True, slots=True)
class NativeHealResult(Generic[T]):
    """What ``heal_<format>`` returns: the healed native history and the repairs, whose
    ``message_index`` / ``part_index`` / ``anchor_index`` are native locations."""

    messages: T
    repairs: tuple[Repair, ...]

    @property
    def changed(self) -> bool:
        """True when at least one repair changed the history."""
        return any(r.changed for r in self.repairs)


AfterHeal = Callable[
    [list[ModelMessage], tuple[Repair, ...]], tuple[list[ModelMessage], tuple[Repair, ...]]
]
"""An adapter's last step between healing and writing back (see :func:`heal_native`)."""


def heal_native(
    loaded: Loaded,
    dump: Callable[[list[ModelMessage]], T],
    *,
    provider: ProviderId | None = None,
    model: str | None = None,
    thinking: bool | None = None,
    tools: Iterable[Any] | None = None,
    target: Target | None = None,
    policy: Policy | Mapping[str, str] | None = None,
    rules: Sequence[Rule] | None = None,
    on_repair: Callable[[Repair], object] | None = None,
    strict: bool = False,
    scope: HealScope = "request",
    original: Any = None,
    after: AfterHeal | None = None,
) -> NativeHealResult[T]:
    """Heal loaded native messages and dump them back, with repairs at native locations.

    The target keywords (``provider``, ``model``, ``thinking``, ``tools`` or ``target``) and the
    options are those of :func:`heal.heal_messages`; adapters settle them with
    :func:`native_target` first.

    When nothing changed and ``original`` is given, it is returned as is (a valid history comes
    back identical, not merely equal). ``after``, for an adapter whose format needs a last
    step before writing back, gets the healed messages and the engine's repairs, and returns
    the messages to dump and any repairs of its own (already at native locations).
    """
    result = heal_messages(
        loaded.messages,
        provider=provider,
        model=model,
        thinking=thinking,
        tools=tools,
        target=target,
        policy=policy,
        rules=rules,
        on_repair=None,
        strict=False,
        scope=scope,
    )
    healed: list[ModelMessage] = result.messages
    extra: tuple[Repair, ...] = ()
    if after is not None:
        healed, extra = after(healed, result.repairs)
    repairs = (*(native_repair(r, loaded) for r in result.repairs), *extra)
    if on_repair is not None:
        from heal._engine import _notify

        _notify(on_repair, repairs)
    if strict and any(r.action.value != "keep" for r in repairs):
        from heal.errors import HealingError

        raise HealingError(repairs)
    if not result.changed and not extra and original is not None:
        return NativeHealResult(original, repairs)
    return NativeHealResult(dump(healed), repairs)


@dataclass(frozen=True, slots=True)
class RequestFacts:
    """What a native request says about the request it is: the parameters sent beside the
    history (an Anthropic params dict, a Gemini request), read by the adapter. ``None`` where the
    request says nothing."""

    model: str | None = None
    """The model id the request names."""
    thinking: bool | None = None
    """Whether the request turns thinking on (True) or off (False)."""
    tools: Sequence[Any] | None = None
    """The tools the request offers, as names or definitions (:func:`heal.targets.tool_names`)."""
    prefix_mismatch_behavior: str | None = None
    """Anthropic's ``thinking.block_binding.prefix_mismatch_behavior``."""


NO_FACTS = RequestFacts()
"""A request that says nothing (a bare message list)."""


def native_target(
    provider: ProviderId | Literal["auto"] | None,
    default: ProviderId | Literal["auto"] | None,
    *,
    model: str | None = None,
    thinking: bool | None = None,
    tools: Iterable[Any] | None = None,
    target: Target | None = None,
    request: RequestFacts = NO_FACTS,
    infer: Callable[[], ProviderId | None] | None = None,
) -> Target:
    """The target a ``heal_<format>`` call heals for, from its keywords and its native request.

    * ``target`` given: it is used as given, and the keywords must be left out (``provider`` at
      the adapter's ``default``): ConfigError otherwise, as :func:`heal.heal_messages` raises.
    * Else each keyword the caller gave wins over what ``request`` says, and ``request`` fills
      in the rest (the caller knows the request being built; the native input may be a copy).
    * ``provider="auto"`` (the adapters that read a history's own record of its provider):
      the provider the model id names, else ``infer()`` (the history's), else None. The model
      comes first because it names where the request goes, and the history where it came from.
    * Otherwise ``provider`` is used as :func:`heal.heal_messages` uses it: None with a model
      infers the provider from the model id.
    """
    if target is not None:
        if not isinstance(target, Target):
            raise ConfigError(f"target must be a heal.Target, got {target!r}")
        if model is not None or thinking is not None or tools is not None or provider != default:
            raise ConfigError(
                "give either target= or provider/model/thinking/tools keywords, not both"
            )
        return target
    model = request.model if model is None else model
    thinking = request.thinking if thinking is None else thinking
    tools = request.tools if tools is None else tools
    if provider == "auto":
        found = infer_provider(model) if isinstance(model, str) else None
        provider = found if found is not None or infer is None else infer()
    return Target.of(
        provider,
        model,
        thinking=thinking,
        tools=tools,
        prefix_mismatch_behavior=request.prefix_mismatch_behavior,
    )


def format_policy(
    policy: Policy | Mapping[str, str] | None,
    *,
    keep: Iterable[str] = (),
    skip: Iterable[str] = (),
) -> Policy | Mapping[str, str] | None:
    """The caller's policy, with the say on the rules a native format cannot act on given to
    the format.

    * ``keep``: rules whose fix the format has no field to write (a Gemini thought signature in
      Responses input). Applied, the fix would be lost on writing and made again on every heal;
      kept, the problem is still reported (a ``keep`` repair) and nothing is claimed changed.
    * ``skip``: rules whose problem the format cannot have, because its own shape already
      settles it (separate Chat Completions tool messages, which Gemini's OpenAI-compatible
      endpoint groups itself). They do not run.

    Whatever the caller chose for these rules gives way, since no other choice can be written;
    the rest of the policy is untouched. With nothing to settle, ``policy`` comes back as is.
    """
    keep, skip = tuple(keep), frozenset(skip)
    if not keep and not skip:
        return policy
    base = Policy.coerce(policy)
    choices = {k: v for k, v in base.choices.items() if k not in skip}
    choices.update(dict.fromkeys(keep, KEEP))
    return Policy(choices, disable=base.disabled | skip, enable=base.enabled - skip)


def native_repair(repair: Repair, loaded: Loaded) -> Repair:
    """The same repair, with its locations in the native history of ``loaded`` (a
    :class:`NativeRepair` when ``loaded`` names native places its own way)."""
    message, part = loaded.native_location(repair.message_index, repair.part_index)
    anchor = None if repair.anchor_index is None else loaded.origins[repair.anchor_index]
    moved = repair.model_copy(
        update={"message_index": message, "part_index": part, "anchor_index": anchor}
    )
    location = loaded.describe_location(repair)
    return moved if location is None else NativeRepair.at(moved, location)


def expect_object(value: Any, path: str, what: str) -> dict[str, Any]:
    """A native object as a plain dict; SDK models are dumped as the SDK would send them."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, BaseModel):
        dumped: dict[str, Any] = value.model_dump(mode="json", exclude_none=True)
        return dumped
    raise InputError(f"expected {what} object, got {kind_of(value)}", path=path)


def expect_string(obj: Mapping[str, Any], key: str, path: str, what: str) -> str:
    if key not in obj:
        raise InputError(f"{what} has no {key}", path=path)
    value = obj[key]
    if not isinstance(value, str):
        raise InputError(
            f"{what} {key} must be a string, got {kind_of(value)}", path=f"{path}.{key}"
        )
    return value
