"""JSON text in, JSON text out: heal a stored or received history without loading it when it
is plainly clean.

Most histories need nothing, and loading one into pydantic models, healing it and dumping it
back costs about six times what healing alone does (issue "Speed": 84% of the end-to-end time
went to loading, dumping and encoding). :func:`heal_json` decodes the text into plain dicts
(with orjson when the ``fast`` extra is installed, else the standard library) and asks
:func:`clean_verdict`, a pure-Python check over those dicts, first:

* when the verdict is clean, the caller's own ``str`` or ``bytes`` come back, the very same
  object, and no model is built;
* when it is plain but for tool-call ids the target refuses, or (for Anthropic, OpenAI's
  Responses API and Gemini) for other providers' reasoning, the ids are renamed and the
  reasoning removed in the decoded dicts, with the records heal_messages makes, and no model
  is built either (orjson writes the result when the walk found no float in it);
* otherwise the decoded dicts are loaded (the text is not read a second time) and healed by
  :func:`heal.heal_messages`, and the healed history is written as compact JSON text, exactly
  as :func:`dumps` writes it. heal_messages gives back every message it did not change as the
  very model it loaded: such a message, when its dict is in the form a dump writes, is written
  from that dict, and only the changed messages are dumped; orjson writes the whole when the
  text holds no float (it writes floats otherwise than the standard library). A text whose
  decoded form may differ from what pydantic reads (an integer past 64 bits, which orjson
  reads as a float), or that does not load, goes through heal_messages as text, as before.

The verdict is exact in one direction, and only that one: clean means ``heal_messages`` would
return no repair at all, for the provider at hand, under the default policy and the built-in
rules. It recognises the common shapes only (system, user and assistant text; tool calls each
answered by one result in the tool message right after; ids and names the provider accepts;
reasoning and provider options only as the target's rules keep them; no files, images or
approvals) and calls anything else unclean,
which costs nothing but the slow path. ``tests/test_json.py`` holds it to that promise with
property tests under every provider.
"""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import chain
from typing import Any, Generic, TypeVar

from pydantic import TypeAdapter

from heal._engine import (
    IdRenamer,
    PlainDropper,
    deliver,
    drop_record,
    escaped_json,
    heal_messages,
    heal_not_plain,
    plain_dropper,
    resolve_target,
)
from heal._verdict import (
    AFTER,
    Terms,
    asked_scope,
    ended,
    engine_reads_reasoning,
    flat_inputs,
    nested_inputs,
    plain_texts,
    plain_thoughts,
    plain_value,
    provider_terms,
    terms_for,
    walked_clean,
    walked_verdict,
)
from heal.errors import ConfigError, InputError
from heal.messages import (
    ModelMessage,
    Part,
    ToolCallPart,
    ToolResultPart,
    dump_messages,
    load_messages,
)
from heal.policy import Policy
from heal.providers import HEAL_NAMESPACE, ProviderId, get_profile
from heal.repairs import Repair
from heal.rules._options import foreign_options
from heal.rules._quick import CLEAN, DROPS, NOT_PLAIN, REFUSED_IDS
from heal.rules.files import ANTHROPIC_IMAGE_TYPES, OPENAI_FILE_ID_PREFIX
from heal.rules.google import GOOGLE_NAMESPACES, keeps_signatures, options_signed
from heal.rules.reasoning import ANTHROPIC_SIGNING, BEDROCK_SIGNING
from heal.targets import Target

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
_orjson_dumps: Callable[[Any], bytes] | None
try:
    from orjson import dumps as _orjson_dumps
    from orjson import loads as _orjson_loads
except ImportError:  # pragma: no cover - the optional ``fast`` extra
    _orjson_loads = _orjson_dumps = None

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


_SAFE_OPTIONS = frozenset({"strict", "on_repair", "model", "thinking", "tools", "rules", "scope"})
"""The keyword arguments of ``heal_messages`` a clean verdict may be asked under: ``strict``
raises and ``on_repair`` is called only when there is a repair, the verdict takes the target's
``model``, ``thinking`` and ``tools`` (see :func:`clean_verdict`), ``rules`` at its default
and ``scope`` request or history (:func:`heal._verdict.asked_scope`: at history scope it answers
a plainly clean history alone). Any other (``target=``) takes the full path."""


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
    the default policy and rules, with no keyword argument but ``strict``, ``on_repair`` and
    the target's ``model``, ``thinking`` and ``tools``. One that is plainly clean but for
    tool-call ids the target refuses (Kimi's ``functions.search:3``; any id but Mistral's own,
    for Mistral) is renamed in the decoded data, without models, as heal_messages renames it;
    for Anthropic, OpenAI's Responses API and Gemini, one plainly clean but for other
    providers' reasoning (a conversation moved from one of them to another) has that removed
    there too, as heal_messages removes it (for Bedrock too), and for Groq and Cerebras (which
    take no reasoning), every reasoning part.
    Any other is healed by :func:`heal.heal_messages` (which gets ``provider``, ``policy`` and
    every other keyword argument, such as ``rules``, ``strict`` or ``model=``) and written as
    :func:`dumps` writes it, even when nothing changed. Errors are ``heal_messages``' own: a
    text that is not a valid history raises :class:`~heal.errors.InputError`, an unknown provider
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
    decoded = _decode(data)
    # The scope the verdict is asked at ("history": it answers a plainly clean history alone).
    at = (
        "request"
        if policy is None and not target
        else asked_scope(policy, target.get("rules"), target.get("scope", "request"))
        if _SAFE_OPTIONS.issuperset(target)
        else None
    )
    asked = decoded is not _UNREADABLE and at is not None
    ids: list[str] = []  # the calls' ids, gathered by the verdict's walk
    drops: list[dict[str, Any]] = []  # other providers' reasoning, listed by the walk
    judged: list[Gathered] = []  # what the walk judged, for _edited's float test
    said = (
        _verdict(
            decoded,
            provider,
            target.get("model"),
            target.get("thinking"),
            target.get("tools"),
            past_ids=True,
            ids=ids,
            drops=drops,
            judged=judged,
        )
        if asked
        else NOT_PLAIN
    )
    if said == CLEAN:
        return JsonHealResult(data, ())
    if at == "history":
        asked = False  # the request's verdict: the full path decides the rest
    elif said in {REFUSED_IDS, DROPS}:
        edited = _edited(
            data,
            decoded,
            provider,
            target,
            ids=ids if said == REFUSED_IDS else (),
            drops=drops,
            judged=judged,
        )
        if edited is not None:
            return edited
    read = None if decoded is _UNREADABLE else _load_decoded(data, decoded)
    written = None
    if read is None:
        result = heal_messages(data, provider=provider, policy=policy, **target)
    else:
        loaded, canonical, by_orjson = read
        # A history the verdict refused is broken nearly always, and the engine's quick
        # verdict would refuse it too: heal_not_plain skips it (and the renaming, tried above).
        # A call the verdict was not asked about (a policy, extra rules) goes to
        # heal_messages, which asks it.
        if asked and not _engine_reads_reasoning(provider, target):
            result = heal_not_plain(
                loaded, provider=provider, policy=policy, renames=False, **target
            )
        else:
            result = heal_messages(loaded, provider=provider, policy=policy, **target)
        written = _write(result.messages, loaded, decoded, canonical, by_orjson)
    return JsonHealResult(_as_given(data, result.messages, written), result.repairs)


def _engine_reads_reasoning(provider: ProviderId | None, target: dict[str, Any]) -> bool:
    """:func:`heal._verdict.engine_reads_reasoning` for heal_json's target, whose walk does not
    read reasoning itself (:func:`_reasoning_walk`): whether a history the JSON walk refused
    goes to :func:`heal.heal_messages` (whose quick verdict reads reasoning the walk refuses)
    rather than to :func:`heal._engine.heal_not_plain`. Where the walk reads the reasoning as
    that verdict does, a history it refused is refused there too: asking again costs a walk."""
    model, thinking, tools = target.get("model"), target.get("thinking"), target.get("tools")
    terms = _terms(provider, model, thinking, tools)[1]
    return terms is not None and engine_reads_reasoning(terms) and _reasoning_walk(terms) is None


def _reasoning_walk(terms: Terms) -> str | None:
    """How the verdict's walk reads reasoning parts for a target of these ``terms`` (see
    :func:`_verdict`): ``"rich"`` (taken as they are, and OpenAI's items checked after:
    :attr:`~heal._verdict.Terms.rich`, :attr:`~heal._verdict.Terms.items`), ``"thinking"``
    (Anthropic's), ``"rejects"`` (every one listed), ``"bedrock"`` or ``"signatures"``
    (Gemini's): :func:`_scan`'s modes. None: it refuses every one."""
    if terms.rich or terms.items:
        return "rich"
    if terms.thinking and terms.text_options and terms.result_options:
        return "thinking"
    if terms.rejects:
        return "rejects"
    if terms.bedrock:
        return "bedrock"
    if terms.signatures:
        return "signatures"
    return None


def _terms(
    provider: str | None, model: Any, thinking: Any, tools: Any
) -> tuple[str | None, Terms | None]:
    """The provider of heal_json's target and its verdict's terms (None: no verdict, or a
    target that is not one, which the full path raises)."""
    if model is None and thinking is None and tools is None:
        return provider, provider_terms(provider)
    try:
        target = Target.of(provider, model, thinking=thinking, tools=tools)
    except ConfigError:
        return provider, None
    return target.provider, terms_for(target)


def _edited(
    data: T,
    decoded: list[Any],
    provider: ProviderId | None,
    target: dict[str, Any],
    *,
    ids: Sequence[str],
    drops: list[dict[str, Any]],
    judged: list[Gathered],
) -> JsonHealResult[T] | None:
    """The result for a history the verdict found plain but for tool-call ids the target
    refuses (Kimi's ``functions.search:3``; any id but Mistral's own, for Mistral; see
    :func:`_verdict`), whose calls' ids are ``ids`` (the verdict's walk gathered them; empty
    when it accepted them), and for other providers' reasoning (the parts ``drops``, which it
    listed, for a thinking provider; every reasoning part, for an API that takes none), made
    from the decoded dicts, without models; None to heal it the full way, which then decides as
    always.

    The ids are renamed as the engine's id rules rename them (:class:`IdRenamer`), one to
    one, and the new ones must be accepted: the renamed history is then plainly clean, and this
    is ``heal_messages``' result for the history, with one record per renamed part (the
    engine's own, made as it makes them). The reasoning parts are removed as the engine's
    plain path removes them (:func:`heal._engine.plain_dropper`), each with its record, before
    or after the renamings' as the plan runs the rules. The text is what the full path writes:
    each message its decoded dict with the new ids in place and without the removed parts,
    so every dict must hold its keys in the models' order. ``tests/test_json.py`` holds the two
    ways to one result. ``judged``: what the walk judged (:data:`Gathered`), which tells
    whether orjson may write the text without reading it again."""
    model, thinking, tools = target.get("model"), target.get("thinking"), target.get("tools")
    try:
        goal = resolve_target(provider, model, thinking, tools, None)
    except ConfigError:
        return None  # the full path raises it
    # The history is plain but for its ids, which are renamed one to one (an id rule maps
    # each id to its own new one, which no other id is or becomes) to ids the profile accepts:
    # which calls and results share an id is as it was, so the renamed history is plainly
    # clean (the verdict's walk reads ids for nothing else).
    renamer = IdRenamer.of(ids, goal) if ids else None
    if ids and renamer is None:
        return None
    renamed = None if renamer is None else renamer.renamed
    touched = frozenset() if renamer is None else renamer.touched
    # The reasoning is removed as the rule that removes it would: the walk found every other
    # part as the target's reasoning rules keep it (see plain_dropper).
    dropper = plain_dropper(goal) if drops else None
    if drops and dropper is None:
        return None
    gone = {id(part) for part in drops}
    dropped: list[Repair] = []
    reasons: dict[tuple[str, ...], str] = {}  # each drop's reason, by its part's namespaces
    # One pass over the parts, plain ones (the verdict knows their keys): each id renamed, and
    # whether each dict's keys are in the order a dump writes them (_canonical's test, which
    # for such dicts is the order alone).
    orders = _PLAIN_ORDERS
    out = list(decoded)
    m = -1
    for message in decoded:
        m += 1
        if next(iter(message)) != "role":
            return None
        content = message["content"]
        if type(content) is str:
            continue
        edited: list[Any] | None = None
        p = -1
        for part in content:
            p += 1
            if tuple(part) not in orders:
                return None
            kind = part["type"]  # a string, in a plain part
            if kind in {"tool-call", "tool-result"}:
                if kind == "tool-result" and next(iter(part["output"])) != "type":
                    return None
                if renamed is None:
                    continue
                tid = part["toolCallId"]
                if tid not in touched:
                    continue  # no rule renames it
                new_id = renamed((m, p, None), kind, tid)
                if new_id != tid:
                    if edited is None:
                        edited = list(content)
                        out[m] = {**message, "content": edited}
                    new = dict(part)  # its keys in place, as the full path writes a renamed part
                    new["toolCallId"] = new_id
                    # Its place in the copy, which lacks the parts removed before it.
                    edited[p - len(content) + len(edited)] = new
            elif dropper is not None and id(part) in gone:
                if edited is None:
                    edited = list(content)
                    out[m] = {**message, "content": edited}
                del edited[p - len(content) + len(edited)]
                dropped.append(_drop_record(dropper, (m, p, None), part, reasons))
    by_orjson = False
    if _orjson_loads is not None:
        if judged and judged[-1]:
            by_orjson = True
        else:
            numbers = _numbers(data)
            if numbers == _LONG_INTEGERS:
                return None  # read from the text, such a history may load otherwise
            by_orjson = numbers == _PLAIN_NUMBERS
    if by_orjson and _orjson_dumps is not None:
        try:
            written: str | bytes = _orjson_dumps(out)
        except TypeError:  # orjson.JSONEncodeError
            return None
    else:
        written = _encode(out)
    repairs: tuple[Repair, ...] = () if renamer is None else renamer.records()
    if dropped:
        assert dropper is not None  # it made them
        repairs = (*dropped, *repairs) if dropper.first else (*repairs, *dropped)
    deliver(repairs, target.get("on_repair"), bool(target.get("strict")))
    return JsonHealResult(_as_given(data, [], written), repairs)


Gathered = bool
"""What :func:`_scan` judged of a history it found plain: whether it holds no float anywhere,
as orjson decoded it (tool inputs and provider options of scalars but floats alone, no JSON
output). orjson reads an integer past 64 bits as a float, so a float-free history holds none
either, and orjson writes it as the standard library does (:func:`_write`): the text need not
be read again for its numbers (:func:`_numbers`)."""


def _drop_record(
    dropper: PlainDropper,
    where: tuple[int, int, None],
    part: dict[str, Any],
    reasons: dict[tuple[str, ...], str],
) -> Repair:
    """The engine's record of the reasoning part ``part``, a canonical decoded dict at
    ``where`` (its message and part), which ``dropper`` removes (:func:`_edited`). The reason
    of another provider's part follows from its namespaces alone: ``reasons`` keeps each one's.
    orjson decodes no lone surrogate; the standard library may, which the record escapes as the
    engine does."""
    options = part.get("providerOptions")
    key = () if options is None else tuple(options)
    reason = reasons.get(key)
    if reason is None:
        reason = dropper.reason(options)
        assert reason is not None  # the walk listed other providers' reasoning alone
        reasons[key] = reason
    removed = part if _orjson_loads is not None else escaped_json(part)
    return drop_record(dropper.by, where, removed, reason)


def _as_given(data: T, messages: list[ModelMessage], written: str | bytes | None) -> T:
    """The healed history as the type of ``data``: ``written`` (bytes when orjson wrote them)
    or, when None, :func:`dumps` of ``messages``."""
    if isinstance(written, bytes):
        return written if type(data) is bytes else written.decode("utf-8")  # type: ignore[return-value]
    text = dumps(messages) if written is None else written
    return text if type(data) is str else _utf8(text)  # type: ignore[return-value]


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(
            f"the healed history cannot be written as UTF-8 ({exc.reason} at character "
            f"{exc.start} of its JSON text)"
        ) from None


_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode
"""One encoder, built once (``json.dumps`` with options builds one per call). A dump is made of
new containers, and decoded JSON of containers of its own, so neither can be circular."""


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


# --- writing back what was read --------------------------------------------------------------
#
# A healed history is mostly the input's own messages: heal_messages hands back every message it
# did not change as the very model it loaded. Dumping such a model gives back the dict it was
# loaded from, exactly, when that dict is in canonical form: its keys the model's fields by
# their JSON names, in the models' order, and nothing else (an unknown key, a field by its
# Python name or in another order comes out of a dump moved or renamed), each boolean field a
# real boolean (a dump writes ``"true"`` as ``true``). Strings and JSON values (tool inputs and
# outputs, provider options) come out of a dump as they went in. Such a message is written from
# its decoded dict; only the others are dumped, and of those only the parts heal changed: a part
# it left as it was is its decoded dict, and a call or result it only renamed (a new id or tool
# name, the foreign ids of every turn) is that dict with the new values.

_Layout = dict[tuple[str, ...], tuple[str, ...]]
"""Each key tuple a canonical dict of one model may have, with the boolean fields among its
keys (a dump writes a boolean given as ``"true"`` or ``1`` as ``true``)."""


def _layout(tag: str, *fields: str, booleans: tuple[str, ...] = ()) -> _Layout:
    """A model's canonical layout: the tag, then any of its other fields in the models' order
    (which of them a valid dict must have, loading has checked already)."""
    orders: list[tuple[str, ...]] = [(tag,)]
    for name in (*fields, "providerOptions"):
        orders += [(*order, name) for order in orders]
    return {order: tuple(name for name in order if name in booleans) for order in orders}


_MESSAGE_ORDERS = _layout("role", "content")

_PART_LAYOUTS: dict[str, _Layout] = {
    "text": _layout("type", "text"),
    "reasoning": _layout("type", "text"),
    "image": _layout("type", "image", "mediaType"),
    "file": _layout("type", "data", "mediaType", "filename"),
    "tool-call": _layout(
        "type",
        "toolCallId",
        "toolName",
        "input",
        "providerExecuted",
        booleans=("providerExecuted",),
    ),
    "tool-result": _layout("type", "toolCallId", "toolName", "output"),
    "tool-approval-request": _layout("type", "approvalId", "toolCallId"),
    "tool-approval-response": _layout(
        "type",
        "approvalId",
        "approved",
        "reason",
        "providerExecuted",
        booleans=("approved", "providerExecuted"),
    ),
}
"""Each part's fields by their JSON names, in the models' order (``tests/test_json_write.py``
holds these tables to the models)."""

_OUTPUT_LAYOUTS: dict[str, _Layout] = {
    "text": _layout("type", "value"),
    "error-text": _layout("type", "value"),
    "json": _layout("type", "value"),
    "error-json": _layout("type", "value"),
    "execution-denied": _layout("type", "reason"),
    "content": _layout("type", "value"),
}
"""Each tool output's fields by their JSON names, in the models' order."""


_PLAIN_ORDERS = frozenset(
    order
    for kind in ("text", "reasoning", "tool-call", "tool-result")
    for order, booleans in _PART_LAYOUTS[kind].items()
    if not booleans
)
"""The keys of a plain part (:func:`clean_verdict`'s) in the order a dump writes them."""


def _canonical(message: dict[str, Any]) -> bool:
    """Whether a dump of the model loaded from ``message`` gives ``message`` back as it is (see
    above). Asked of data that loading may still refuse: a shape it does not know (a missing
    key, a list where a dict belongs) is False."""
    try:
        if tuple(message) not in _MESSAGE_ORDERS:
            return False
        content = message["content"]
        if type(content) is str:
            return True
        for part in content:
            if not _canonical_part(part):
                return False
    except (KeyError, TypeError, AttributeError):
        return False
    return True


def _canonical_part(part: dict[str, Any]) -> bool:
    """Whether a dump of the part loaded from ``part`` gives ``part`` back as it is; may raise
    KeyError, TypeError or AttributeError for a shape loading refuses."""
    kind = part["type"]
    booleans = _PART_LAYOUTS[kind].get(tuple(part))
    if booleans is None:
        return False
    for name in booleans:
        value = part[name]
        if value is not None and type(value) is not bool:
            return False
    if kind == "tool-result":
        output = part["output"]
        return tuple(output) in _OUTPUT_LAYOUTS[output["type"]]
    return True


def _numbers_table() -> bytes:
    table = bytearray(b"x" * 256)
    for byte in b"0123456789":
        table[byte] = ord("0")
    for byte in b".eE":
        table[byte] = ord(".")
    for byte in b":,[":
        table[byte] = ord(":")
    return bytes(table)


_NUMBERS = _numbers_table()
"""A byte table for :meth:`bytes.translate` that leaves a text's numbers findable: a digit
becomes ``0``, what makes a number a float (``.``, ``e``, ``E``) becomes ``.``, what a JSON
value follows (``:``, ``,``, ``[``) becomes ``:``, anything else ``x``; JSON whitespace and
``-`` are deleted (:data:`_SPACE`). Every number of the JSON text then reads ``:0...``, and a
float ``:0....``. Strings may read so too (``"1. a, 2.5"``): that only costs the slow way."""

_SPACE = b" \t\n\r-"

_FLOAT_OR_LONG = re.compile(rb":0(?:0*\.|0{18})").search
_LONG = re.compile(rb":0{19}").search
"""A float, or an integer of 19 digits or more (every integer up to 18 digits fits 64 bits)."""

_PLAIN_NUMBERS, _FLOATS, _LONG_INTEGERS = 0, 1, 2


def _numbers(data: str | bytes) -> int:
    """What numbers a JSON text holds, found at C speed: integers that fit 64 bits alone, a
    float, or an integer that may not fit 64 bits (orjson reads it as a float, where pydantic
    and the standard library read an int; a text with one is then read as heal_messages reads
    it). A string that looks like a number in the translated text (:data:`_NUMBERS`) counts as
    one."""
    raw = data if type(data) is bytes else data.encode("utf-8", "surrogatepass")  # type: ignore[union-attr]
    numbers = raw.translate(_NUMBERS, _SPACE)
    if _FLOAT_OR_LONG(numbers) is None:
        return _PLAIN_NUMBERS
    return _FLOATS if _LONG(numbers) is None else _LONG_INTEGERS


def _load_decoded(
    data: str | bytes, decoded: Any
) -> tuple[list[ModelMessage], list[bool], bool] | None:
    """The models :func:`heal.load_messages` reads from ``data``, loaded from what
    :func:`_decode` made of it (the text is not read twice); which decoded messages are
    canonical; and whether orjson may write the history (the text holds no float). None when
    that may differ from reading the text, or fails (the text is then read as heal_messages
    reads it, and raises its own error).

    Loading the decoded list validates Python values where the text was validated as JSON: for
    decoded JSON, pydantic takes the same values the same way in both modes
    (``tests/test_json_write.py`` holds heal_json to heal_messages' output on texts made to find
    a difference). Where reading the text fails and falls back to the standard library (a lone
    surrogate, a value nested too deeply for pydantic's parser), heal_messages skips the check
    for another format's keys that loading a list makes: any error here takes the text's own
    path, so that stays as it was.
    """
    if type(decoded) is not list:
        return None
    by_orjson = False
    if _orjson_loads is not None:
        numbers = _numbers(data)
        if numbers == _LONG_INTEGERS:
            return None
        by_orjson = numbers == _PLAIN_NUMBERS
    try:
        loaded = load_messages(decoded)
    except Exception:  # the text's own reading raises the same error, or succeeds the same way
        return None
    return loaded, [type(m) is dict and _canonical(m) for m in decoded], by_orjson


def _write(
    messages: list[ModelMessage],
    loaded: list[ModelMessage],
    decoded: list[Any],
    canonical: list[bool],
    by_orjson: bool,
) -> str | bytes | None:
    """The healed history as :func:`dumps` writes it (as UTF-8 bytes when orjson writes it),
    each message heal_messages left as it was loaded written from its decoded dict when that is
    canonical; None when only :func:`dumps` can write it (a dump fails, and dumps raises its
    error located in the whole history; or orjson refuses a value: a lone surrogate, an integer
    past 64 bits).

    orjson writes what the standard library's encoder writes (compact, non-ASCII as it is, the
    same escapes) for every JSON value but a float (``1e-05`` comes out as ``0.00001``, ``1e+16``
    as ``1e16``): it writes a history only when the text holds no float, and no changed message
    holds one (a repair may parse a string into a tool input)."""
    where = {id(model): i for i, model in enumerate(loaded)}
    out: list[Any] = []
    kept: set[int] = set()  # the loaded messages heal gave back as they were
    fresh: list[int] = []
    sources: list[int] = []  # for each of ``fresh``, the loaded message it most likely stands for
    stands = -1  # the loaded message the last message written stands for
    for model in messages:
        i = where.get(id(model))
        if i is not None:
            kept.add(i)
            if canonical[i]:
                out.append(decoded[i])
                stands = i
                continue
        # A changed message most likely stands for the one after the last message's (a
        # renamed id, a parsed input: messages keep their places); _shell checks each part.
        stands = stands + 1 if i is None else i
        fresh.append(len(out))
        sources.append(stands)
        out.append(model)
    if fresh:
        parts = _parts_to_reuse(loaded, decoded, canonical, kept)
        rest: list[int] = []
        new_parts: list[Any] = []  # (message position, part position) of each part to dump
        for j, source in zip(fresh, sources, strict=True):
            before = loaded[source].content if source < len(loaded) else ""
            written = _shell(out[j], parts, () if isinstance(before, str) else before)
            if written is None:
                rest.append(j)
                continue
            out[j] = written
            content = written["content"]
            new_parts += [(content, k) for k, part in enumerate(content) if type(part) is not dict]
        try:
            dumped = dump_messages([out[j] for j in rest]) if rest else []
            dumped_parts = (
                _PARTS.dump_python(
                    [content[k] for content, k in new_parts], mode="json", exclude_unset=True
                )
                if new_parts
                else []
            )
        except ValueError:  # InputError, pydantic's serialization errors
            return None  # dumps raises its own, located in the whole history
        for j, value in zip(rest, dumped, strict=True):
            out[j] = value
        for (content, k), value in zip(new_parts, dumped_parts, strict=True):
            content[k] = value
        if by_orjson and (_holds_float(dumped) or _holds_float(dumped_parts)):
            by_orjson = False
    if not by_orjson or _orjson_dumps is None:
        return _encode(out)
    try:
        return _orjson_dumps(out)
    except TypeError:  # orjson.JSONEncodeError
        return None


_PARTS: TypeAdapter[list[Part]] = TypeAdapter(list[Part])
"""Dumps parts alone, as a history's dump writes them (each part by its own model)."""


def _parts_to_reuse(
    loaded: list[ModelMessage], decoded: list[Any], canonical: list[bool], kept: set[int]
) -> dict[int, dict[str, Any]]:
    """The decoded dict of each part of a loaded message that heal did not give back as it
    was (``kept``: those it did), by the part model's ``id``, when that dict is canonical: a
    changed message is mostly its old parts (a call whose id was renamed beside the text and
    reasoning that were not). The parts of a canonical message are all canonical."""
    parts: dict[int, dict[str, Any]] = {}
    for i, model in enumerate(loaded):
        content = model.content
        if i in kept or type(content) is str:
            continue
        raws = decoded[i]["content"]
        if canonical[i]:
            parts.update(zip(map(id, content), raws, strict=True))
            continue
        for part, raw in zip(content, raws, strict=True):
            try:
                if _canonical_part(raw):
                    parts[id(part)] = raw
            except (KeyError, TypeError, AttributeError):
                continue
    return parts


def _shell(
    model: ModelMessage, parts: dict[int, dict[str, Any]], before: Sequence[Part]
) -> dict[str, Any] | None:
    """A changed message written as a dump writes it, each of its parts a decoded dict from
    ``parts``, such a dict with a new tool-call id or tool name (:func:`_renamed`), or, to be
    dumped, the part model itself; None when the message has more than a role and parts
    (provider options, an unknown key: it is dumped whole).

    ``before``: the parts of the loaded message it most likely stands for, which the parts it
    kept are found among, in order: a part that is none of them but differs from the one after
    the last found in its tool-call id or tool name alone (the repair of a foreign id in every
    turn) is that one's decoded dict with the new values."""
    content = model.content
    if (
        type(content) is str
        or model.__pydantic_extra__
        or model.__pydantic_fields_set__ != _ROLE_AND_CONTENT
    ):
        return None
    written: list[Any] = []
    at = 0  # the place in ``before`` after the last part found there
    for part in content:
        raw = parts.get(id(part))
        if raw is not None:
            written.append(raw)
            for k in range(at, len(before)):  # usually the very next one
                if before[k] is part:
                    at = k + 1
                    break
            continue
        if at < len(before):
            old = before[at]
            raw = parts.get(id(old))
            if raw is not None and _renamed(part, old):
                at += 1
                written.append(_with_new_names(raw, part, old))
                continue
        written.append(part)
    return {"role": model.role, "content": written}


def _renamed(new: Any, old: Any) -> bool:
    """Whether ``new`` is ``old`` with another tool-call id or tool name and nothing else: a
    call or result of the same class, holding the very same values in every other field, with
    the same fields set and the same extras."""
    kind = type(new)
    if (kind is not ToolCallPart and kind is not ToolResultPart) or type(old) is not kind:
        return False
    if (
        new.__pydantic_fields_set__ != old.__pydantic_fields_set__
        or new.__pydantic_extra__ != old.__pydantic_extra__
    ):
        return False
    values = old.__dict__
    for name, value in new.__dict__.items():
        if value is not values[name] and name not in _NAMES:
            return False
    return True


_NAMES = frozenset({"tool_call_id", "tool_name"})


def _with_new_names(raw: dict[str, Any], new: Any, old: Any) -> dict[str, Any]:
    """The canonical dict ``raw`` of ``old``, with the tool-call id and tool name of ``new``
    (a dump writes a field that is set, and both are set in both: :func:`_renamed`)."""
    patched = dict(raw)
    if new.tool_call_id != old.tool_call_id:
        patched["toolCallId"] = new.tool_call_id
    if new.tool_name != old.tool_name:
        patched["toolName"] = new.tool_name
    return patched


_ROLE_AND_CONTENT = frozenset({"role", "content"})
_DICT = frozenset({dict})
_STR = frozenset({str})


def _holds_float(value: Any) -> bool:
    """Whether a dumped value holds a float anywhere (without recursion: a dump may nest
    :data:`~heal.messages.JSON_NESTING_LIMIT` levels deep)."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind is float:
            return True
    return False


# --- the verdict -----------------------------------------------------------------------------


def clean_verdict(
    history: Any,
    provider: str | None = None,
    *,
    model: Any = None,
    thinking: Any = None,
    tools: Any = None,
) -> bool:
    """Whether ``history``, decoded JSON (plain dicts and lists), is plainly clean for the
    target: True only when ``heal_messages`` on it with the same ``provider``, ``model``,
    ``thinking`` and ``tools`` would return no repair at all and give back the history as it is
    (the provider inferred from the model when None, as there). False says nothing but "not
    plainly".

    Clean means, all of:

    * a non-empty list of messages with exactly the keys ``role`` and ``content``;
    * system messages (non-blank strings) only at the start; then a user message first;
    * no two user or two assistant messages in a row; no user message right after tool results;
    * texts (string contents, text parts, text outputs) not blank and free of lone surrogates;
    * user content a non-blank string or non-blank text parts, beside which images that load
      as plain ones (:func:`_plain_image`) may stand; assistant content a non-blank
      string, or non-blank text parts followed by tool calls (``toolCallId``, ``toolName`` and an
      object ``input``, nothing else);
    * each assistant message with calls followed by one tool message holding exactly one result
      per call (same id and name; text or error-text output that is not blank, or JSON), and tool
      messages nowhere else;
    * call ids unique, ids and names the provider's profile accepts, names among ``tools``
      when given; no JSON value nested deeper than 64 levels, no float that is not finite;
    * for a target whose rules read neither reasoning nor provider options (provider None,
      OpenAI Chat, xAI, DeepSeek, Mistral, OpenAI-compatible: :attr:`heal._verdict.Terms.rich`),
      also: text, call and result parts with ``providerOptions`` (JSON objects by namespace,
      none of them heal's), and reasoning parts (``text`` free of lone surrogates, maybe
      ``providerOptions``) before an assistant message's calls, beside a text or a call: an
      AI SDK history from OpenAI's Responses API, with its item ids and encrypted reasoning;
      for ``openai-responses`` too when every reasoning part is an OpenAI item, each followed by
      a text or a call, and no item id repeats (:func:`_items_plain`);
    * the last message a user message, tool results, or an assistant message without calls
      whose last text does not end with whitespace (a stored history ends with the model's
      answer, unless the model refuses prefill), and no rule of the provider's own that fires
      on that plain shape (DeepSeek wants reasoning beside every call; Gemini a signature on
      the calls after the last user message);
    * the default registry holds the built-in rules alone, and the target turns on no rule
      that would read the history otherwise (:func:`heal._verdict.terms_for`).

    Pure Python over the dicts, in one pass: no model is built. What is the same in every
    format (texts, values, the order of roles, the final id and name check) is
    :mod:`heal._verdict`'s.
    """
    return _verdict(history, provider, model, thinking, tools, past_ids=False) == CLEAN


def _verdict(
    history: Any,
    provider: str | None,
    model: Any,
    thinking: Any,
    tools: Any,
    *,
    past_ids: bool,
    ids: list[str] | None = None,
    drops: list[dict[str, Any]] | None = None,
    judged: list[Gathered] | None = None,
) -> int:
    """:func:`clean_verdict`, saying why: ``CLEAN``, ``NOT_PLAIN``, or ``REFUSED_IDS`` when the
    history is plainly clean but for call ids the provider refuses. Without ``past_ids`` the
    walk stops at the first call id, or one with a colon, that the provider refuses, and that
    answer says nothing more than ``NOT_PLAIN``: the ids alone are judged when the walk read no
    further. With ``past_ids`` it reads on to the end, judging no id: ``REFUSED_IDS`` then
    says the history is plain but for the ids' format (:func:`heal_json` renames them).

    ``drops`` (with ``past_ids``): a list for the reasoning parts of other providers that a
    thinking provider's rules remove (Anthropic's and Gemini's: see :func:`_scan`; the
    Responses API's: :func:`_items_plain`), or every reasoning part, for an API that takes none
    (Groq's, Cerebras': :func:`_scan` under ``rejects``): ``DROPS`` then says the history is
    plain but for them, and ``REFUSED_IDS``, when the list is not empty, but for them and its
    ids. Without the list such a history is ``NOT_PLAIN``. ``judged``: a list for what the
    walk judged of a history it found plain (:data:`Gathered`)."""
    if type(history) is not list or not history:
        return NOT_PLAIN
    provider, terms = _terms(provider, model, thinking, tools)
    if terms is None:
        return NOT_PLAIN
    mode = _reasoning_walk(terms)
    rich = mode == "rich"
    # The reasoning of other providers that the target removes, listed here: where the walk
    # reads Anthropic's thinking or Gemini's signatures itself (see _scan), and where the items
    # check reads the Responses API's items (_items_plain).
    found: list[dict[str, Any]] = []
    signed: list[bool] | None = None  # Gemini's signatures on the current turn's calls
    walk: Callable[..., str | None] = _scan
    if mode == "thinking":
        walk = partial(_scan, drops=found)
    elif mode == "rejects":
        walk = partial(_scan, drops=found, rejects=True)
    elif mode == "bedrock":
        walk = partial(_scan, drops=found, bedrock=True)
    elif mode == "signatures":
        signed = []
        walk = partial(_scan, drops=found, signed=signed)
    if judged is not None:
        walk = partial(walk, judged=judged)
    if terms.images:
        walk = partial(walk, images=True, image_files=terms.image_files)
    if not past_ids:
        # The provider is known once it has terms: its profile judges the first call id.
        accepts = get_profile(provider).accepts_tool_call_id
        plain = walked_clean(provider, terms, walk, history, rich, accepts, signed=signed)
        return (
            CLEAN
            if plain and (not terms.items or _items_plain(history, found)) and not found
            else NOT_PLAIN
        )
    said = walked_verdict(provider, terms, walk, history, rich, _any_id, signed=signed, ids=ids)
    if said != NOT_PLAIN:
        if terms.items and not _items_plain(history, found):
            return NOT_PLAIN
        if found:
            if drops is None:
                return NOT_PLAIN
            drops.extend(found)
            return DROPS if said == CLEAN else REFUSED_IDS
    return said


def _plain_image(part: dict[str, Any]) -> bool:
    """Whether an image part (its ``type`` read) loads as a plain image
    (:func:`heal.rules.files.plain_image`): a string of data that names no file stored at
    OpenAI, maybe a media type every provider takes, nothing else."""
    data = part["image"]
    size = len(part)
    return (
        (size == 2 or (size == 3 and part.get("mediaType") in ANTHROPIC_IMAGE_TYPES))
        and type(data) is str
        and data != ""
        and not data.startswith(OPENAI_FILE_ID_PREFIX)
    )


def _plain_image_file(part: dict[str, Any]) -> bool:
    """Whether a file part (its ``type`` read) loads as a plain image given as a file
    (:func:`heal.rules.files.plain_image_file`): string data that names no file stored at
    OpenAI, a media type every provider takes, maybe a string file name, nothing else."""
    data = part["data"]
    size = len(part)
    return (
        (size == 3 or (size == 4 and type(part.get("filename")) is str))
        and part["mediaType"] in ANTHROPIC_IMAGE_TYPES
        and type(data) is str
        and data != ""
        and not data.startswith(OPENAI_FILE_ID_PREFIX)
    )


def _any_id(_tool_call_id: str) -> bool:
    """The walk's test of an id when the verdict reads past the ids (:func:`_verdict`)."""
    return True


def _scan(
    history: list[Any],
    rich: bool,
    accepts: Callable[[str], bool],
    ids: list[str],
    names: list[str],
    *,
    drops: list[dict[str, Any]] | None = None,
    signed: list[bool] | None = None,
    rejects: bool = False,
    bedrock: bool = False,
    judged: list[Gathered] | None = None,
    images: bool = False,
    image_files: bool = False,
) -> str | None:
    """The one pass of :func:`clean_verdict` over the messages: the role of the last message
    when every message has a plain shape in a plain place (else None), with the call ids and
    tool names added to ``ids`` and ``names``. Exact key counts and indexing (a missing key
    raises KeyError) check each dict's keys. ``rich`` (:attr:`heal._verdict.Terms.rich`):
    parts may carry provider options and assistant messages reasoning before their texts and
    calls. ``accepts``: the provider's test of one call id, asked of the first call's alone (the
    others are judged together at the end): a history from a provider whose ids this one
    refuses (Kimi's ``functions.read_file:2``, anyone's for Mistral) has them from its first
    call on, and needs no more reading to be found not plain. A later id is asked too when it
    holds a colon (Kimi's form, which no provider takes): a history that changed provider mixes
    such ids with others, and one look for a character per call is all the others pay.

    ``drops``, for a target whose rules that read reasoning or options are Anthropic's
    (:attr:`heal._verdict.Terms.thinking`, with :attr:`~heal._verdict.Terms.text_options` and
    :attr:`~heal._verdict.Terms.result_options`; None otherwise): parts may carry provider
    options (calls and results none of Anthropic's, which ``anthropic-orphan-caller-reference``
    reads), and assistant messages reasoning as a Claude model writes it, the
    :class:`~heal.rules._quick.QuickTerms` ``placed`` and ``signed`` shape: each reasoning part
    in a message that opens with reasoning, before its calls, the message not ending with it,
    and either signed by Anthropic or another provider's alone
    (:func:`~heal.rules._options.foreign_options`), which the walk adds to ``drops``
    (``anthropic-strip-foreign-reasoning-content`` removes it); signed reasoning only where no
    other provider's is, in a history that ends with tool results only when an assistant
    message of that loop (since the last user message) opens with it, as
    ``anthropic-tool-loop-thinking`` wants. ``bedrock`` too, for a target whose rules that read
    reasoning or options are Bedrock's (:attr:`heal._verdict.Terms.bedrock`): the same, with
    Bedrock's signature, options on calls and results whatever their namespace, any open tool
    loop, and none on a user message's texts (``bedrock-unsigned-reasoning`` removes other
    providers' reasoning).

    ``signed`` too, for a target whose rules that read reasoning or options are Google's
    (:attr:`heal._verdict.Terms.signatures`): an assistant message's texts and calls may carry
    provider options that ``google-foreign-thought-signature`` keeps as they are (Gemini's
    thought signatures, other providers' options without a signature), and reasoning before its
    calls, Google's own (not empty: ``google-empty-part``) or another provider's alone, which the
    walk adds to ``drops`` (the same rule removes it); a user message's texts and tool results
    none. The walk adds True to ``signed`` when the first call of every assistant message after
    the last user message carries Gemini's signature, as :func:`heal._verdict.calls_accepted`
    takes it (``google-missing-thought-signature``).

    ``rejects`` too, for a target that takes no reasoning (:attr:`heal._verdict.Terms.rejects`:
    Groq, Cerebras), whose rules read no provider options: parts may carry options, and each
    reasoning part, anywhere in an assistant message that does not end with reasoning, is added
    to ``drops`` (the rule removes every one).

    ``judged``: a list to which the walk adds what it judged of a history it found plain
    (:data:`Gathered`), for :func:`_edited`. ``images`` (:attr:`heal._verdict.Terms.images`):
    a user message may hold images that load as plain ones (:func:`_plain_image`), and under
    ``image_files`` images given as files likewise (:func:`_plain_image_file`)."""
    gemini = signed is not None
    rejects = rejects and drops is not None
    thinking = drops is not None and not gemini and not rejects
    options_ok = rich or thinking or rejects
    user_options_ok = options_ok and not bedrock
    # Anthropic's programmatic tool calls (a call's or result's ``caller``), which its rules read.
    caller = thinking and not bedrock
    signing = BEDROCK_SIGNING if bedrock else ANTHROPIC_SIGNING
    signs, native = signing.signs_options, (signing.namespace,)
    kept: list[Any] = []  # the options google-foreign-thought-signature must keep (gemini)
    signed_thinking = False  # the platform's signed thinking came (under ``drops``)
    waiting: dict[str, str] | None = None  # the previous message's calls: id -> name
    previous = ""
    # Texts, tool inputs and JSON outputs are gathered and judged once at the end: a call per
    # value would cost more than the test (nearly every part holds one).
    texts: list[Any] = []
    inputs: list[Any] = []
    values: list[Any] = []
    options: list[Any] = []  # the parts' provider options (where the terms take them)
    thoughts: list[Any] = []  # the reasoning parts (likewise)
    add_text = texts.append
    add_options = options.append
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
                if type(part) is not dict or part["type"] != "tool-result":
                    return None
                if len(part) != 4:
                    if not options_ok or len(part) != 5:
                        return None
                    found = part["providerOptions"]
                    if caller and type(found) is dict and _THINKING_NAMESPACE in found:
                        return None
                    add_options(found)
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
                    add_text(output["value"])
                elif kind in {"json", "error-json"}:
                    values.append(output["value"])
                else:
                    return None
            waiting = None
            previous = "tool"
            continue
        follows = AFTER.get(role)
        if follows is None or previous not in follows:
            return None  # a tool message that answers no calls, or no known role
        if type(content) is str:
            add_text(content)
        elif role == "system" or type(content) is not list or not content:
            return None
        elif role == "user":
            for part in content:
                if type(part) is not dict:
                    return None
                if part["type"] != "text":
                    # A screenshot or a photo the user sent, where it loads as a plain image.
                    kind = part["type"]
                    if kind == "image":
                        if not images or not _plain_image(part):
                            return None
                    elif kind != "file" or not image_files or not _plain_image_file(part):
                        return None
                    continue
                if len(part) != 2:
                    if not user_options_ok or len(part) != 3:
                        return None
                    add_options(part["providerOptions"])
                add_text(part["text"])
        else:
            for part in content:
                if type(part) is not dict:
                    return None
                kind = part["type"]
                if kind == "text":
                    # Text after a call is moved before it for Anthropic.
                    if waiting is not None:
                        return None
                    if len(part) != 2:
                        if not (options_ok or gemini) or len(part) != 3:
                            return None
                        found = part["providerOptions"]
                        add_options(found)
                        if gemini:
                            kept.append(found)
                    add_text(part["text"])
                elif kind == "tool-call":
                    if len(part) != 4:
                        if not (options_ok or gemini) or len(part) != 5:
                            return None
                        found = part["providerOptions"]
                        if caller and type(found) is dict and _THINKING_NAMESPACE in found:
                            return None
                        add_options(found)
                        if gemini:
                            kept.append(found)
                    call_id = part["toolCallId"]
                    name = part["toolName"]
                    if type(call_id) is not str or type(name) is not str:
                        return None
                    inputs.append(part["input"])
                    if (not ids or ":" in call_id) and not accepts(call_id):
                        return None  # a foreign id format: every call id is renamed
                    if waiting is None:
                        waiting = {}
                    waiting[call_id] = name
                    ids.append(call_id)
                    names.append(name)
                elif kind == "reasoning" and rejects and drops is not None:
                    # Every reasoning part is removed, wherever it stands in its message (which
                    # must keep a text or a call: see below).
                    if len(part) != 2:
                        if len(part) != 3:
                            return None
                        add_options(part["providerOptions"])
                    thoughts.append(part)
                    drops.append(part)
                elif kind == "reasoning" and rich and waiting is None:
                    if len(part) != 2:
                        if len(part) != 3:
                            return None
                        add_options(part["providerOptions"])
                    thoughts.append(part)
                elif (
                    kind == "reasoning"
                    and signed is not None
                    and drops is not None
                    and waiting is None
                ):
                    # Google's own (not empty), or another provider's alone (removed), before
                    # its message's calls.
                    if len(part) != 2:
                        if len(part) != 3:
                            return None
                        found = part["providerOptions"]
                        if type(found) is not dict:
                            return None
                        add_options(found)
                        if foreign_options(found, GOOGLE_NAMESPACES):
                            drops.append(part)
                            thoughts.append(part)
                            continue
                        kept.append(found)
                    if part["text"] == "":
                        return None
                    thoughts.append(part)
                elif kind == "reasoning" and drops is not None and waiting is None:
                    # Opening its message, or after reasoning that does (reasoning_not_first),
                    # signed (the unsigned-reasoning rule) or another provider's alone.
                    if len(part) != 3 or content[0]["type"] != "reasoning":
                        return None
                    found = part["providerOptions"]
                    if type(found) is not dict:
                        return None
                    add_options(found)
                    thoughts.append(part)
                    if signs(found):
                        # Its message opens with signed thinking (with another provider's
                        # reasoning first, the history is not plain: see below).
                        signed_thinking = True
                    elif foreign_options(found, native):
                        drops.append(part)
                    else:
                        return None
                else:
                    return None
            # A message that ends with reasoning (of reasoning alone, or after its text) is
            # none of the plain shapes.
            if thoughts and part is thoughts[-1]:
                return None
        previous = role
    if not plain_texts(texts):
        return None
    flat = flat_inputs(inputs)  # plain, of scalars but floats alone
    if not flat and not nested_inputs(inputs):
        return None
    for value in values:
        if not plain_value(value):
            return None
    if options or thoughts:
        spread = _rich_plain(options, thoughts)
        if spread is None:
            return None
        flat = flat and spread
    if signed is not None:
        for found in kept:
            if not keeps_signatures(found):
                return None
        if _turn_calls_signed(history):
            signed.append(True)
    if signed_thinking and (drops or (caller and previous == "tool" and not _turn_thinks(history))):
        # Signed thinking beside other providers' reasoning (its latest message is protected,
        # which words the removals otherwise), or, for Anthropic, in a history ending in an
        # open tool loop none of whose assistant messages opens with it
        # (anthropic-tool-loop-thinking).
        return None
    if judged is not None:
        # No float anywhere, as orjson decoded it: every other value is a string (texts, ids,
        # names, kinds), so this is the inputs and options holding scalars but floats alone,
        # and no JSON output.
        judged.append(flat and not values)
    # Calls left unanswered are the last message's, an assistant message: not an end.
    return None if waiting is not None else ended(previous, texts[-1] if texts else None)


def _current_turn(history: list[Any]) -> Iterator[list[Any]]:
    """The contents of the assistant messages after the last user message, from the last
    back, that are lists of parts (a history :func:`_scan` found plain)."""
    for message in reversed(history):
        role = message["role"]
        if role == "user":
            return
        content = message["content"]
        if role == "assistant" and type(content) is list:
            yield content


def _turn_thinks(history: list[Any]) -> bool:
    """Whether an assistant message of the current turn opens with Anthropic's signed thinking
    (``anthropic-tool-loop-thinking`` then finds its open tool loop as Claude writes it)."""
    for content in _current_turn(history):
        first = content[0]
        if first["type"] == "reasoning" and ANTHROPIC_SIGNING.signs_options(
            first.get("providerOptions")
        ):
            return True
    return False


def _turn_calls_signed(history: list[Any]) -> bool:
    """Whether the first call of every assistant message of the current turn carries Gemini's
    thought signature (true too when none has a call), as ``google-missing-thought-signature``
    wants the calls of the turn being answered."""
    for content in _current_turn(history):
        for part in content:
            if part["type"] == "tool-call":
                options = part.get("providerOptions")
                if type(options) is not dict or not options_signed(options):
                    return False
                break
    return True


_THINKING_NAMESPACE = ANTHROPIC_SIGNING.namespace
"""The namespace of the signatures :func:`_scan` reads under ``drops`` (Anthropic's thinking)."""


def _items_plain(history: list[Any], drops: list[dict[str, Any]] | None = None) -> bool:
    """For a target whose plan reads reasoning and options only through the Responses API's
    item rules (:attr:`heal._verdict.Terms.items`), over a history the rich walk found plain:
    whether those rules find nothing. Every reasoning part is an OpenAI item (an ``openai``
    ``itemId``: ``openai-foreign-reasoning``, ``encrypted-reasoning-without-item-id``); the
    reasoning parts in a row are one item's, followed by a text or a call (the walk ends no
    message with reasoning: ``reasoning-without-following-item``); every item is sent once, its
    reasoning in one run (``duplicate-item-id``). Azure's namespace, which the rules read too,
    is not plain.

    ``drops``: a list for the reasoning parts of no OpenAI namespace at all (other providers',
    or without options), which ``openai-foreign-reasoning``, the first of those rules, removes:
    True then says the history is plain without them (the rules after it find nothing in
    what it leaves; the walk placed every reasoning part before its message's text or call)."""
    seen: set[str] = set()
    for message in history:
        content = message["content"]
        if message["role"] != "assistant" or type(content) is not list:
            continue
        run = None  # the item id of the reasoning just before
        for part in content:
            options = part.get("providerOptions")
            native = None
            if options is not None:
                if "azure" in options:
                    return False
                native = options.get("openai")
            if native is None and drops is not None and part["type"] == "reasoning":
                drops.append(part)  # as if it were not there: the run goes on past it
                continue
            item = None if native is None else native.get("itemId")
            if part["type"] == "reasoning":
                if type(item) is not str or not item:
                    return False
                if run is None:
                    if item in seen:
                        return False
                    seen.add(item)
                    run = item
                elif item != run:
                    return False  # another item where this one's text or call belongs
                continue
            run = None
            if item is not None:
                if type(item) is not str or not item or item in seen:
                    return False
                seen.add(item)
    return True


def _rich_plain(options: list[Any], thoughts: list[Any]) -> bool | None:
    """Whether the provider options of a rich walk load as they are and hold nothing of heal's
    (which rules read whatever they need), and the reasoning texts are strings without a lone
    surrogate (``lone-surrogate`` mends them); a part without ``text`` raises KeyError. None
    when not; else whether the options are flat (:func:`heal._verdict.flat_inputs`: every
    namespace of scalars but floats alone).

    The options are judged together, in passes at C speed over all of them (a rich history
    holds some in nearly every part), as :func:`heal._verdict.plain_inputs` judges inputs: each
    a dict of namespaces (strings, none of them heal's), each namespace a dict of plain
    values."""
    flat = True
    if options:
        if set(map(type, options)) != _DICT:
            return None
        namespaces = set(chain.from_iterable(options))
        if HEAL_NAMESPACE in namespaces or not set(map(type, namespaces)) <= _STR:
            return None
        spaces = list(chain.from_iterable(map(dict.values, options)))
        flat = flat_inputs(spaces)
        if not flat and not nested_inputs(spaces):
            return None
    return flat if plain_thoughts([part["text"] for part in thoughts]) else None
