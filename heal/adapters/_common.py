"""What every adapter shares: a source map from canonical messages back to native items (and
back to the caller's own objects, :class:`Sources`), the one-call heal that reports repairs at
native locations, the target a native call heals for, and builders of canonical models from
values an adapter checked itself (``built_*``)."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, PrivateAttr

from heal._construct import (
    construct_message,
    new_instance,
    set_dict,
    set_extra,
    set_fields,
    set_private,
)
from heal._engine import PAUSE_GC_FROM, HealScope, deliver, heal_messages, heal_not_plain
from heal.errors import ConfigError, InputError
from heal.messages import (
    AssistantMessage,
    ErrorJsonOutput,
    ErrorTextOutput,
    JsonOutput,
    ModelMessage,
    ReasoningPart,
    SystemMessage,
    TextOutput,
    TextPart,
    ToolCallPart,
    ToolMessage,
    ToolResultPart,
    UserMessage,
    kind_of,
)
from heal.policy import KEEP, Policy
from heal.providers import ProviderId, infer_provider
from heal.repairs import Repair
from heal.rules import Rule
from heal.rules._quick import CLEAN, REFUSED_IDS
from heal.targets import Target

__all__ = [
    "NO_FACTS",
    "Loaded",
    "NativeHealResult",
    "NativeRepair",
    "RequestFacts",
    "Sources",
    "built_call",
    "built_json_output",
    "built_message",
    "built_reasoning",
    "built_result",
    "built_text",
    "built_text_output",
    "built_texts",
    "collector_paused",
    "delivered",
    "written_back",
    "expect_object",
    "expect_string",
    "format_policy",
    "heal_native",
    "native_path",
    "native_repair",
    "native_target",
]

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

# --- canonical models built without validation -------------------------------------------------
#
# Loading a native history that needs a repair means building a canonical model of every
# message (the rules look across messages). Validating the AI SDK dicts that stand for them
# costs about three times building the models directly, and was most of an adapter's time. The
# builders below are for values an adapter read from the caller's data and checked itself: the
# exact types the models declare (``str``; plain JSON; ``provider_options`` dicts the adapter
# made; parts and outputs built here), which validation would keep as they are. Each sets what
# validation sets: the fields in declaration order, the fields counted as set (the keys the
# AI SDK dict would have; one set per shape, shared as heal._construct allows, since the models
# are frozen), empty extras. tests/adapters/test_partial_conversion.py holds every adapter's
# fast shapes equal to its validated ones, field order and fields set included.

_MESSAGE = {"role", "content"}
_MESSAGE_OPTIONS = {"role", "content", "provider_options"}
_TEXT = {"type", "text"}
_TEXT_OPTIONS = {"type", "text", "provider_options"}
_CALL = {"type", "tool_call_id", "tool_name", "input"}
_CALL_OPTIONS = {"type", "tool_call_id", "tool_name", "input", "provider_options"}
_RESULT = {"type", "tool_call_id", "tool_name", "output"}
_RESULT_OPTIONS = {"type", "tool_call_id", "tool_name", "output", "provider_options"}
_OUTPUT = {"type", "value"}

_ROLES: dict[type[BaseModel], str] = {
    SystemMessage: "system",
    UserMessage: "user",
    AssistantMessage: "assistant",
    ToolMessage: "tool",
}


def built_message(cls: type[M], content: Any, options: dict[str, Any] | None = None) -> M:
    """A system, user, assistant or tool message of ``content`` (a string, or a tuple of parts
    built here) and maybe ``providerOptions``."""
    values = {"role": _ROLES[cls], "content": content, "provider_options": options}
    return construct_message(cls, _MESSAGE if options is None else _MESSAGE_OPTIONS, values)


def built_text(text: str, options: dict[str, Any] | None = None) -> TextPart:
    """A text part."""
    values = {"type": "text", "text": text, "provider_options": options}
    return construct_message(TextPart, _TEXT if options is None else _TEXT_OPTIONS, values)


def built_texts(content: Any, kind: str) -> tuple[TextPart, ...] | None:
    """The text parts of a list of plain ``{"type": kind, "text"}`` elements (``text`` in OpenAI
    Chat, ``input_text`` in the Responses API), as the general path loads them; None for any
    other content."""
    if type(content) is not list:
        return None
    parts = []
    for element in content:
        if type(element) is not dict or len(element) != 2 or element.get("type") != kind:
            return None
        text = element.get("text")
        if type(text) is not str:
            return None
        parts.append(built_text(text))
    return tuple(parts)


def built_reasoning(text: str, options: dict[str, Any] | None = None) -> ReasoningPart:
    """A reasoning part."""
    values = {"type": "reasoning", "text": text, "provider_options": options}
    return construct_message(ReasoningPart, _TEXT if options is None else _TEXT_OPTIONS, values)


def built_call(
    call_id: str, name: str, value: Any, options: dict[str, Any] | None = None
) -> ToolCallPart:
    """A tool call whose ``input`` is given (a string, or a JSON object of plain values)."""
    values = {
        "type": "tool-call",
        "tool_call_id": call_id,
        "tool_name": name,
        "input": value,
        "provider_executed": None,
        "provider_options": options,
    }
    return construct_message(ToolCallPart, _CALL if options is None else _CALL_OPTIONS, values)


def built_result(
    call_id: str, name: str, output: Any, options: dict[str, Any] | None = None
) -> ToolResultPart:
    """A tool result of an output built here."""
    values = {
        "type": "tool-result",
        "tool_call_id": call_id,
        "tool_name": name,
        "output": output,
        "provider_options": options,
    }
    fields = _RESULT if options is None else _RESULT_OPTIONS
    return construct_message(ToolResultPart, fields, values)


def built_json_output(value: Any, *, error: bool = False) -> JsonOutput | ErrorJsonOutput:
    """A ``json`` output of plain JSON, or an ``error-json`` one."""
    if error:
        values = {"type": "error-json", "value": value, "provider_options": None}
        return construct_message(ErrorJsonOutput, _OUTPUT, values)
    values = {"type": "json", "value": value, "provider_options": None}
    return construct_message(JsonOutput, _OUTPUT, values)


def built_text_output(value: str, *, error: bool = False) -> TextOutput | ErrorTextOutput:
    """A ``text`` output, or an ``error-text`` one."""
    if error:
        values = {"type": "error-text", "value": value, "provider_options": None}
        return construct_message(ErrorTextOutput, _OUTPUT, values)
    values = {"type": "text", "value": value, "provider_options": None}
    return construct_message(TextOutput, _OUTPUT, values)


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


@contextmanager
def collector_paused(size: int) -> Iterator[None]:
    """Python's cyclic garbage collector paused while a native history of ``size`` messages is
    read, healed and written, from the size :func:`heal.heal_messages` pauses it at
    (:data:`heal._engine.PAUSE_GC_FROM`, whose docstring says why): loading builds a few
    acyclic objects per message, which reference counting frees, and the collector, triggered
    by allocation counts, would rescan every live object of the process again and again. It is
    enabled again on leaving only if it was on entering."""
    if size < PAUSE_GC_FROM or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


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
    quick: bool = True,
    renames: bool = True,
) -> NativeHealResult[T]:
    """Heal loaded native messages and dump them back, with repairs at native locations.

    The target keywords (``provider``, ``model``, ``thinking``, ``tools`` or ``target``) and the
    options are those of :func:`heal.heal_messages`; adapters settle them with
    :func:`native_target` first.

    When nothing changed and ``original`` is given, it is returned as is (a valid history comes
    back identical, not merely equal). ``after``, for an adapter whose format needs a last
    step before writing back, gets the healed messages and the engine's repairs, and returns
    the messages to dump and any repairs of its own (already at native locations).
    ``quick=False``, for a history the adapter's plain verdict has just refused: healed
    without the engine's quick verdict (:func:`heal._engine.heal_not_plain`), which would
    refuse it too (a history plain but for ids the target refuses is still renamed without
    the index, unless not ``renames``: the adapter tried that in the caller's objects).
    """
    heal = heal_messages if quick else partial(heal_not_plain, renames=renames)
    with collector_paused(len(loaded.messages)):
        result = heal(
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
    deliver(repairs, on_repair, strict)
    if not result.changed and not extra and original is not None:
        return NativeHealResult(original, repairs)
    with collector_paused(len(healed)):
        written = dump(healed)
    return NativeHealResult(written, repairs)


def settled(
    native: Any,
    verdict: Callable[[list[str]], int],
    rename: Callable[[list[str]], NativeHealResult[Any] | None],
    on_repair: Callable[[Repair], object] | None,
    strict: bool,
    *,
    clean_only: bool = False,
) -> tuple[int, NativeHealResult[Any] | None]:
    """What an adapter's plain verdict settles before anything is loaded: the verdict
    (``verdict``, which adds the history's call ids to the list it is given) and, when that
    settles the heal, its result: ``native`` itself for a plainly clean history; ``rename``'s
    result (its repairs delivered as :func:`heal_native` delivers them) for one plain but for
    call ids the target refuses, unless the renaming declines or ``clean_only`` (the verdict
    asked at history scope: :func:`heal._verdict.asked_scope`). None: the full path heals it."""
    ids: list[str] = []
    said = verdict(ids)
    if said == CLEAN:
        return said, NativeHealResult(native, ())
    if said == REFUSED_IDS and not clean_only:
        return said, delivered(rename(ids), on_repair, strict)
    return said, None


def delivered(
    result: NativeHealResult[T] | None, on_repair: Callable[[Repair], object] | None, strict: bool
) -> NativeHealResult[T] | None:
    """``result`` (made without :func:`heal_native`, as an adapter's renaming in the caller's
    objects is) once its repairs went to ``on_repair`` and ``strict`` as heal_native sends
    them; None stays None."""
    if result is not None:
        deliver(result.repairs, on_repair, strict)
    return result


class Sources:
    """Which native message each loaded canonical message came from, found by identity.

    The engine returns the very model objects of the messages it did not change, so after a
    heal the canonical messages of a native message that came through untouched are still its
    loaded objects, in order and all of them. Such a native message needs no writing back: the
    caller's own object goes out as it came in (writing it would give an equal one, since the
    formats round-trip losslessly). Only the messages around a repair are written, which is
    what makes a repair cost the messages it touches rather than the whole history.
    """

    __slots__ = ("_first", "_messages", "_origins", "_size", "_where")

    def __init__(self, messages: Sequence[ModelMessage], origins: Sequence[int]) -> None:
        self._messages = messages
        self._origins = origins
        self._where = {id(message): j for j, message in enumerate(messages)}
        first: dict[int, int] = {}
        size: dict[int, int] = {}
        for j, origin in enumerate(origins):
            if origin in size:
                size[origin] += 1
            else:
                first[origin] = j
                size[origin] = 1
        self._first = first
        self._size = size

    @classmethod
    def of(cls, loaded: Loaded) -> Sources:
        """The sources of a loaded history (before any adapter step changed its messages)."""
        return cls(loaded.messages, loaded.origins)

    def loaded_from(self, origin: int) -> range:
        """Where the canonical messages of native message ``origin`` are among the loaded ones
        (empty when it made none)."""
        first = self._first.get(origin)
        return range(0) if first is None else range(first, first + self._size[origin])

    def renamed(
        self, healed: Sequence[ModelMessage], start: int, end: int, origin: int
    ) -> list[tuple[int, int, dict[str, str]]] | None:
        """The tool calls and results of ``healed[start:end]`` that differ from those loaded
        from native message ``origin`` in their id and tool name alone, when everything else
        is the same (the same messages, or copies with the same options and parts, each part
        the loaded one or such a call or result); else None.

        The change heal makes in every turn of a history whose ids a provider refuses. Those
        fields are written as they are (an id is an id in every format), so the caller's
        message with them replaced is what writing the span would give: each format's writer
        patches a copy instead. Returns (position in the span, part index, new fields).
        """
        at = self.loaded_from(origin)
        if len(at) != end - start:
            return None
        messages = self._messages
        changes: list[tuple[int, int, dict[str, str]]] = []
        for t, j in enumerate(at):
            new, old = healed[start + t], messages[j]
            if new is old:
                continue
            if type(new) is not type(old) or not _same_value(
                new.provider_options, old.provider_options
            ):
                return None
            if not _same_value(new.__pydantic_extra__, old.__pydantic_extra__):
                return None
            if not _same_value(new.__pydantic_fields_set__, old.__pydantic_fields_set__):
                return None  # a field now unset (or set) is written otherwise
            new_parts, old_parts = new.content, old.content
            if isinstance(new_parts, str) or isinstance(old_parts, str):
                return None
            if len(new_parts) != len(old_parts):
                return None
            for p, (part, before) in enumerate(zip(new_parts, old_parts, strict=True)):
                if part is before:
                    continue
                fields = _renamed_fields(part, before)
                if fields is None:
                    return None
                changes.append((t, p, fields))
        return changes or None

    def untouched(self, healed: Sequence[ModelMessage], start: int, end: int) -> int | None:
        """The native index whose canonical messages are exactly ``healed[start:end]`` (the
        same objects, every one of them, in their loaded order), else None."""
        j = self._where.get(id(healed[start]))
        if j is None:
            return None
        messages = self._messages
        if messages[j] is not healed[start]:  # pragma: no cover - ids of live objects are unique
            return None
        origin = self._origins[j]
        if self._first[origin] != j or self._size[origin] != end - start:
            return None
        for k in range(1, end - start):
            if healed[start + k] is not messages[j + k]:
                return None
        return origin


_RENAMED = frozenset({"tool_call_id", "tool_name"})


def written_back(
    healed: list[ModelMessage],
    spans: Iterable[tuple[int, int]],
    sources: Sources,
    native: Sequence[Any],
    *,
    renamed: Callable[[list[ModelMessage], int, int, int], Any | None],
    dump: Callable[[int, int], Iterable[Any]],
) -> list[Any]:
    """The native messages of a healed history, run by run (``spans``: the canonical messages
    that make one native message): a run that is exactly a native message's loaded messages is
    that message, the caller's own object; a run that only renamed ids or names in one is
    ``renamed``'s patched copy of it; any other is ``dump``'s writing of it."""
    out: list[Any] = []
    untouched = sources.untouched
    last = -1  # the native message of the last run handed back
    for start, end in spans:
        origin = untouched(healed, start, end)
        if origin is not None and origin >= 0:  # a negative origin is a system parameter
            out.append(native[origin])
            last = origin
            continue
        # The native message a changed run most likely stands for: the next one (a message
        # heal changed), or the one after (a message it put before it).
        for candidate in (last + 1, last + 2):
            patched = renamed(healed, start, end, candidate)
            if patched is not None:
                out.append(patched)
                last = candidate
                break
        else:
            out.extend(dump(start, end))
    return out


def _renamed_fields(new: Any, old: Any) -> dict[str, str] | None:
    """The new ``tool_call_id`` and ``tool_name`` of a canonical call or result that differs
    from the loaded one in those alone; None for any other change."""
    if type(new) is not type(old) or not isinstance(new, (ToolCallPart, ToolResultPart)):
        return None
    if not _same_value(new.__pydantic_extra__, old.__pydantic_extra__):
        return None
    set_now, set_before = new.__pydantic_fields_set__, old.__pydantic_fields_set__
    if set_now is not set_before and set_now - _RENAMED != set_before - _RENAMED:
        return None  # a field now unset (or set) is written otherwise
    fields: dict[str, str] = {}
    old_values = old.__dict__
    for name, value in new.__dict__.items():
        before = old_values.get(name, _NO_VALUE)
        if value is before:
            continue
        if name in _RENAMED:
            fields[name] = value
        elif not _same_value(value, before):
            return None
    return fields


_NO_VALUE: Any = object()


def _same_value(a: Any, b: Any) -> bool:
    return a is b or (type(a) is type(b) and a == b)


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
    if (
        model is None
        and thinking is None
        and tools is None
        and request.prefix_mismatch_behavior is None
        and (provider is None or type(provider) is str)
    ):
        return bare_target(provider)
    return Target.of(
        provider,
        model,
        thinking=thinking,
        tools=tools,
        prefix_mismatch_behavior=request.prefix_mismatch_behavior,
    )


_BARE_TARGETS: dict[str | None, Target] = {}
"""The target of each provider that names nothing else, made once: most calls heal for one."""


def bare_target(provider: str | None) -> Target:
    """``Target.of(provider)``, shared between calls (a target is frozen); an unknown provider
    raises as ``Target.of`` does, every time, and is never kept."""
    found = _BARE_TARGETS.get(provider)
    if found is None:
        found = _BARE_TARGETS[provider] = Target.of(provider)
    return found


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
    update = {"message_index": message, "part_index": part, "anchor_index": anchor}
    location = loaded.describe_location(repair)
    if type(repair) is not Repair:  # pragma: no cover - the engine makes plain repairs
        moved = repair.model_copy(update=update)
        return moved if location is None else NativeRepair.at(moved, location)
    # What ``model_copy(update=...)`` and then :meth:`NativeRepair.at` make, built directly:
    # a history with a repair in every turn moves thousands (tests/adapters/
    # test_partial_conversion.py holds the two equal).
    values = repair.__dict__.copy()
    values.update(update)
    fields = repair.__pydantic_fields_set__
    if not fields.issuperset(update):
        fields = fields | update.keys()
    if location is None:
        obj = new_instance(Repair)
        set_private(obj, None)
    else:
        obj = new_instance(NativeRepair)
        set_private(obj, {"_location": location})
    set_dict(obj, values)
    set_fields(obj, fields)
    set_extra(obj, None)
    return obj


def sdk_dict(value: Any) -> dict[str, Any] | None:
    """What :func:`expect_object` reads an SDK model as (its ``model_dump``, as the SDK would
    send it), for a verdict walking the caller's objects: ``response.choices[0].message`` or
    ``response.content``, stored as they came; None for anything else."""
    if isinstance(value, BaseModel):
        dumped: dict[str, Any] = value.model_dump(mode="json", exclude_none=True)
        return dumped
    return None


def expect_object(value: Any, path: str, what: str) -> dict[str, Any]:
    """A native object as a plain dict; SDK models are dumped as the SDK would send them."""
    if isinstance(value, Mapping):
        return dict(value)
    dumped = sdk_dict(value)
    if dumped is None:
        raise InputError(f"expected {what} object, got {kind_of(value)}", path=path)
    return dumped


def expect_string(obj: Mapping[str, Any], key: str, path: str, what: str) -> str:
    if key not in obj:
        raise InputError(f"{what} has no {key}", path=path)
    value = obj[key]
    if not isinstance(value, str):
        raise InputError(
            f"{what} {key} must be a string, got {kind_of(value)}", path=f"{path}.{key}"
        )
    return value
