"""pydantic-ai message histories (``list[pydantic_ai.messages.ModelMessage]``, or its JSON).

::

    from heal.adapters.pydantic_ai import heal_pydantic_ai

    result = heal_pydantic_ai(agent_result.all_messages())
    result.messages   # healed ModelRequest / ModelResponse objects (your own list when unchanged,
                      # your own messages wherever heal changed nothing)
    result.repairs    # message_index / part_index = indices into YOUR list and ``.parts``

``load_messages(native)`` reads a history into heal's canonical messages (AI SDK
``ModelMessage``) and ``dump_messages(messages)`` writes them back as pydantic-ai objects;
``dump_messages(messages, as_json=True)`` writes the bytes ``ModelMessagesTypeAdapter.dump_json``
would. ``native`` is a list of ``ModelRequest`` / ``ModelResponse`` objects, or the JSON text or
bytes of one (``ModelMessagesTypeAdapter`` format). ``dump_messages(load_messages(x)) == x`` for
every history pydantic-ai itself can store: its tool-return contents, ``metadata`` and
``provider_details`` are JSON values (a pydantic model returned by a tool comes back as its JSON
form, as it does from pydantic-ai's own ``ModelMessagesTypeAdapter``). The adapter translates and
never heals: what it cannot represent raises :class:`~heal.errors.InputError` naming the native
place, such as ``messages[3].parts[1]``.

``heal_pydantic_ai`` takes ``provider="auto"`` by default: the heal provider id is inferred from
the responses (``canonical_system`` or ``provider_name``; OpenAI's Chat and Responses APIs told
apart by the ``provider_response_id`` prefix, ``chatcmpl-`` / ``resp_``) when EVERY response
agrees on one, else ``None`` (the shared rules). Pass a provider id, or ``None``, to choose.

Mapping (native → canonical)
----------------------------
One ``ModelRequest`` becomes several canonical messages, all with that request's index: first one
tool message holding its tool returns (so results sit right after the assistant message that
made the calls, as providers pair them by position), then one system or user message per system
prompt, user prompt or retry-feedback part, in part order. ``dump_messages`` regroups them into
ONE ``ModelRequest`` with the parts in their original order.

* ``SystemPromptPart`` → system message. ``UserPromptPart`` → user message; string content stays a
  string; list items: ``str`` / ``TextContent`` / ``StructuredContent`` → text part, ``ImageUrl``
  and image ``BinaryContent`` → image part, other URLs and binaries → file part (URL or base64
  data, with the media type).
* ``ToolReturnPart`` (and typed subclasses, kept by ``tool_kind``) → tool result: string content →
  ``text`` output, other JSON → ``json`` output, files (a file item, or a list of strings and file
  items) → ``content`` output (``text`` / ``image-data`` / ``file-data`` / ``image-url`` /
  ``file-url`` items). ``outcome`` ``"failed"`` / ``"retried"`` → ``error-text`` / ``error-json``;
  ``"denied"`` with a string → ``execution-denied`` with that reason.
* ``RetryPromptPart`` (deprecated; kept as one when held in memory): with a ``tool_name`` → an
  error tool result of that call; without → a user message whose text is what the model is shown
  (``model_response()``). ``RetryFeedbackPart`` → the same user message.
* ``ModelResponse`` → one assistant message: ``TextPart`` → text, ``ThinkingPart`` → reasoning,
  ``ToolCallPart`` → tool call, ``NativeToolCallPart`` / ``NativeToolReturnPart`` (pydantic-ai's
  "builtin" tools) → provider-executed tool call / tool result in the assistant message,
  ``FilePart`` → file part (base64 data).
* Tool-call ``args``: a dict is the input; a string holding a JSON object becomes that object (the
  original text is kept and dumped back while the object is unchanged); any other string stays the
  raw string, so heal's ``invalid-tool-input`` rule sees it; ``None`` and ``""`` (pydantic-ai's
  "no arguments") become ``{}`` and dump back as they were.

Provenance of signatures and item ids
-------------------------------------
A part's system is its ``provider_name`` (or the response's ``canonical_system`` when the part's
provider is the response's). ``ThinkingPart.signature`` goes to the AI SDK's key for that system,
and comes back from it: Anthropic → ``anthropic.signature`` (``anthropic.redactedData`` for a
``redacted_thinking`` part), OpenAI → ``openai.reasoningEncryptedContent``, Google (``google``,
``google-gla``, ``google-vertex``, ``google-cloud``) → ``google.thoughtSignature``, Bedrock →
``bedrock.signature`` (``bedrock.redactedData`` for ``redacted_content``). Google's
``provider_details["thought_signature"]`` on text and tool-call parts also goes to
``google.thoughtSignature``, and OpenAI parts' ``id`` to ``openai.itemId``. Any other system keeps
its signature under ``providerOptions.heal.pydantic_ai``, so no provider mistakes it for its own.
A canonical part from elsewhere with one of those keys dumps with ``provider_name`` set to that
provider (``anthropic``, ``openai``, ``google``, ``bedrock``).

When heal merges responses (a provider that wants one model turn), a thinking part keeps reading
as the system that signed it: one whose name the merged response's canonical system would
misread makes the response name no provider (its other parts that named it name the canonical
system instead), and one read through its old response's canonical system names that system.

Aborted turns
-------------
A ``ModelResponse`` cut off before the model finished, ``state == "interrupted"`` (a cancelled
stream, or a run stopped before acting on it) or ``finish_reason`` ``"length"`` / ``"error"``,
becomes an assistant message marked ``providerOptions.heal.aborted``
(:data:`heal.rules.tool_pairing.ABORTED`), never written back. ``orphan-tool-call`` removes its
calls that have no return, which may be partial, rather than answering them; its choice
``placeholder-every-call`` answers them as it does any other call.

Where native-only fields live
-----------------------------
Under ``providerOptions["heal"]["pydantic_ai"]`` of the canonical message or part, as
pydantic-ai's own JSON (datetimes as ISO 8601 with their UTC offset): ``message`` (the
request's / response's fields other than ``parts``: timestamps, ``instructions``, ``run_id``,
``usage``, ``model_name``, ``provider_details``, ``metadata``, ...), ``part`` / ``item`` (a part's
or content item's fields that have no AI SDK equivalent), ``index`` / ``at`` (native message and
part positions, for regrouping), ``class`` (a ``BinaryContent`` whose class pydantic-ai's
validation would change), and markers (``args``, ``legacy``, ``feedback``, ``single``, ...).
Fields equal to their (constant) defaults are left out. Parts no AI SDK message can hold and that
pydantic-ai does not send as message content (``ToolAvailabilityDeltaPart``,
``CapabilityLoadDeltaPart``, ``ModelSettingsDeltaPart``, ``InstructionDeltaPart``,
``InstructionBaselinePart``) and provider state (``CompactionPart``, ``CachePoint`` markers) ride
along verbatim under ``hidden`` at their native position; a message made only of them rides on the
next canonical message (``before``), or the last one (``after``). heal does not check them, and
they go where the message carrying them goes: if heal removes that message, they are in the
repair's ``removed`` value.

Repairs carry native locations: ``message_index`` is the index in your list, ``part_index`` the
index in that message's ``.parts`` (for a part of a list prompt, the prompt's index), and
``describe()`` names them so (``messages[2].parts[1]: ...``); a repair of a whole canonical
message made from one system or user prompt part points at that part. One
artifact of the split: when heal removes every tool result of a request, the emptied canonical
tool message is removed too, and that ``empty-message`` repair names the request (which keeps its
other parts) with no part index.

Binary data is standard base64 in the canonical parts, as the AI SDK writes it (pydantic's own
JSON uses the URL-safe alphabet); both are read back.

Not representable (raise :class:`~heal.errors.InputError`): ``SpeechPart``, ``UploadedFile``,
unknown part kinds, and a history made only of hidden parts. On dump, canonical parts with no
pydantic-ai form raise too: tool approval requests and responses, and ``providerOptions`` other
than the keys above (and heal's own ``heal`` namespace).

Canonical → native for histories from elsewhere
-----------------------------------------------
Consecutive system / user / tool messages with no pydantic-ai record become one ``ModelRequest``;
every assistant message one ``ModelResponse``. Timestamps pydantic-ai requires but heal does not
know are copied from the nearest earlier native timestamp (pydantic-ai's own repair does the same
for the returns it synthesizes), else ``1970-01-01T00:00:00Z``: never the clock. The same goes
for timestamps JSON input leaves out, which pydantic-ai's reader would take from the clock: the
same input always heals to the same output. Tool results heal synthesized get pydantic-ai's own
marker, ``metadata={"pydantic_ai_synthesized_tool_return": True}``.
"""

from __future__ import annotations

import base64
import binascii
import copy
import json
import re
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields, is_dataclass, replace
from datetime import datetime, timezone
from functools import cache
from typing import Any, Literal, TypeVar, cast, overload

import pydantic
import pydantic_core
from pydantic_ai import PydanticAIDeprecationWarning
from pydantic_ai import messages as pa
from pydantic_ai.usage import RequestUsage

from heal._engine import HealScope, IdRenamer
from heal._verdict import (
    AFTER,
    PLAIN_TERMS,
    Terms,
    asked_scope,
    calls_accepted,
    ended,
    engine_reads_reasoning,
    judge,
    plain_input,
    plain_inputs,
    plain_texts,
    plain_thoughts,
    plain_value,
    provider_terms,
    terms_for,
)
from heal.adapters._common import (
    Loaded,
    NativeHealResult,
    Sources,
    built_call,
    built_json_output,
    built_message,
    built_reasoning,
    built_result,
    built_text,
    built_text_output,
    collector_paused,
    delivered,
    heal_native,
    native_path,
    native_target,
)
from heal.errors import InputError
from heal.messages import (
    AssistantMessage,
    ModelMessage,
    SystemMessage,
    ToolMessage,
    ToolResultPart,
    UserMessage,
    shown,
)
from heal.messages import dump_messages as _dump_canonical
from heal.messages import load_messages as _load_canonical
from heal.policy import Policy
from heal.providers import PYDANTIC_AI_SYSTEMS, ProviderId, openai_api_by_response_id
from heal.repairs import Repair
from heal.rules import Rule
from heal.rules._quick import CLEAN, NOT_PLAIN, REFUSED_IDS
from heal.rules.files import ANTHROPIC_IMAGE_TYPES, OPENAI_FILE_ID_PREFIX
from heal.rules.tool_pairing import ABORTED
from heal.targets import Target

__all__ = [
    "dump_messages",
    "heal_pydantic_ai",
    "infer_provider",
    "load",
    "load_messages",
]

_NS = "pydantic_ai"
_EPOCH = "1970-01-01T00:00:00Z"
_EPOCH_TIME = datetime(1970, 1, 1, tzinfo=timezone.utc)
_BIG = 1 << 62
_PARTIAL = True
"""Convert only what a heal needs: build the models of common messages directly from the
caller's objects (the loader's fast path) and write back only the messages a heal changed
(:class:`_Writer`). The tests switch it off to compare with converting everything through
pydantic-ai's JSON."""
_URL = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*:")

_MESSAGES = pa.ModelMessagesTypeAdapter
_REQUEST_PART: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(pa.ModelRequestPart)
_RESPONSE_PART: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(pa.ModelResponsePart)
_REQUEST: pydantic.TypeAdapter[pa.ModelRequest] = pydantic.TypeAdapter(pa.ModelRequest)
_RESPONSE: pydantic.TypeAdapter[pa.ModelResponse] = pydantic.TypeAdapter(pa.ModelResponse)

_HIDDEN_KINDS = frozenset(
    {
        "tool-availability-delta",
        "capability-load-delta",
        "model-settings-delta",
        "instruction-delta",
        "instruction-baseline",
        "compaction",
    }
)
"""Part kinds carried verbatim: not message content an AI SDK message could hold."""

_ERROR_OUTCOMES = ("failed", "retried")
_DENIED_TEXT = "The tool call was denied."
_URL_KINDS = {"image-url", "audio-url", "video-url", "document-url"}

# Which AI SDK namespace holds a system's signatures: (signature key, redacted id, redacted key).
_SYSTEM_NAMESPACE = {
    "anthropic": "anthropic",
    "openai": "openai",
    "google": "google",
    "google-gla": "google",
    "google-vertex": "google",
    "google-cloud": "google",
    "bedrock": "bedrock",
}
_SIGNATURE_KEYS: dict[str, tuple[str, str | None, str | None]] = {
    "anthropic": ("signature", "redacted_thinking", "redactedData"),
    "bedrock": ("signature", "redacted_content", "redactedData"),
    "openai": ("reasoningEncryptedContent", None, None),
    "google": ("thoughtSignature", None, None),
}
_FOREIGN_ORDER = ("anthropic", "openai", "google", "bedrock")

T = TypeVar("T")
Json = dict[str, Any]


# --- public API ------------------------------------------------------------------------------


def load(native: Sequence[pa.ModelMessage] | str | bytes | bytearray) -> Loaded:
    """Read a pydantic-ai history; return canonical messages and their native origins.

    ``origins[i]`` is the index of the native message canonical message ``i`` came from;
    ``part_origins`` the index in its ``.parts`` of each canonical part (for a user message made
    from a list prompt, each item maps to that prompt's part). Repairs on a whole canonical
    message made from one request part (a system or user prompt) point at that part.
    """
    objects = _native_list(native)
    return _Loader(objects).run()


def load_messages(
    native: Sequence[pa.ModelMessage] | str | bytes | bytearray,
) -> list[ModelMessage]:
    """Read a pydantic-ai history (objects, or ``ModelMessagesTypeAdapter`` JSON) as heal's
    canonical messages: ``load(native).messages``."""
    return load(native).messages


@overload
def dump_messages(
    messages: Iterable[ModelMessage | Mapping[str, Any]], *, as_json: Literal[False] = False
) -> list[pa.ModelMessage]: ...
@overload
def dump_messages(
    messages: Iterable[ModelMessage | Mapping[str, Any]], *, as_json: Literal[True]
) -> bytes: ...
def dump_messages(
    messages: Iterable[ModelMessage | Mapping[str, Any]], *, as_json: bool = False
) -> list[pa.ModelMessage] | bytes:
    """Write canonical messages as pydantic-ai ``ModelRequest`` / ``ModelResponse`` objects, or,
    with ``as_json=True``, as the JSON bytes ``ModelMessagesTypeAdapter.dump_json`` writes.

    The inverse of :func:`load_messages` for everything it loaded; see the module docstring for
    canonical histories from elsewhere.
    """
    out = _Dumper(_dump_canonical(_load_canonical(messages))).run()
    return _json_bytes(out) if as_json else out


def _json_bytes(messages: list[pa.ModelMessage]) -> bytes:
    """``ModelMessagesTypeAdapter.dump_json`` of pydantic-ai messages."""
    try:
        return _MESSAGES.dump_json(messages, warnings=False)
    except ValueError as exc:  # pydantic's serialization error: a lone surrogate in some text
        reason = str(exc).splitlines()[0]
        raise InputError(
            f"cannot be written as JSON ({reason}); heal the history first: the lone-surrogate "
            "rule mends text that is not valid Unicode"
        ) from None


def infer_provider(
    native: Sequence[pa.ModelMessage] | str | bytes | bytearray,
) -> ProviderId | None:
    """The heal provider id every response of a history agrees on, else None (see the module
    docstring). A history with no response gives None."""
    return _agreed_provider(_native_list(native))


def _agreed_provider(objects: list[pa.ModelMessage]) -> ProviderId | None:
    """:func:`infer_provider` of a list :func:`_native_list` checked."""
    found: set[ProviderId | None] = set()
    systems: set[str | None] = set()  # the systems seen, other than OpenAI's
    for msg in objects:
        if type(msg) is pa.ModelRequest or not isinstance(msg, pa.ModelResponse):
            continue
        # Every call reads every response (provider="auto" is the default): a system other
        # than OpenAI's names the same provider every time, so it is looked up once.
        system = msg.canonical_system or msg.provider_name
        if system == "openai":
            found.add(_response_provider(msg))
        elif system in systems:
            continue
        else:
            systems.add(system)
            found.add(_response_provider(msg))
        if len(found) > 1:
            return None
    return found.pop() if found else None


@overload
def heal_pydantic_ai(
    messages: str,
    *,
    provider: ProviderId | Literal["auto"] | None = "auto",
    model: str | None = None,
    thinking: bool | None = None,
    tools: Iterable[Any] | None = None,
    target: Target | None = None,
    policy: Policy | Mapping[str, str] | None = None,
    rules: Sequence[Rule] | None = None,
    on_repair: Callable[[Repair], object] | None = None,
    strict: bool = False,
    scope: HealScope = "request",
) -> NativeHealResult[str]: ...
@overload
def heal_pydantic_ai(
    messages: bytes,
    *,
    provider: ProviderId | Literal["auto"] | None = "auto",
    model: str | None = None,
    thinking: bool | None = None,
    tools: Iterable[Any] | None = None,
    target: Target | None = None,
    policy: Policy | Mapping[str, str] | None = None,
    rules: Sequence[Rule] | None = None,
    on_repair: Callable[[Repair], object] | None = None,
    strict: bool = False,
    scope: HealScope = "request",
) -> NativeHealResult[bytes]: ...
@overload
def heal_pydantic_ai(
    messages: Sequence[pa.ModelMessage],
    *,
    provider: ProviderId | Literal["auto"] | None = "auto",
    model: str | None = None,
    thinking: bool | None = None,
    tools: Iterable[Any] | None = None,
    target: Target | None = None,
    policy: Policy | Mapping[str, str] | None = None,
    rules: Sequence[Rule] | None = None,
    on_repair: Callable[[Repair], object] | None = None,
    strict: bool = False,
    scope: HealScope = "request",
) -> NativeHealResult[list[pa.ModelMessage]]: ...
def heal_pydantic_ai(
    messages: Sequence[pa.ModelMessage] | str | bytes,
    *,
    provider: ProviderId | Literal["auto"] | None = "auto",
    model: str | None = None,
    thinking: bool | None = None,
    tools: Iterable[Any] | None = None,
    target: Target | None = None,
    policy: Policy | Mapping[str, str] | None = None,
    rules: Sequence[Rule] | None = None,
    on_repair: Callable[[Repair], object] | None = None,
    strict: bool = False,
    scope: HealScope = "request",
) -> NativeHealResult[list[pa.ModelMessage]] | NativeHealResult[bytes] | NativeHealResult[str]:
    """Heal a pydantic-ai history; repairs carry indices into ``messages`` and their ``.parts``.

    Objects in, objects out; JSON text or bytes in, the same out. A history that needs nothing
    comes back as the very object passed in; a list of objects that is plainly clean
    (:func:`_plainly_clean`: prompts, text, calls and their returns), under the default policy
    and a target whose model and tools it fits (:func:`heal._verdict.terms_for`), is answered so
    without serializing or loading it. When something needs a repair, the messages it leaves
    alone come back as the caller's own objects (those whose calls and returns it only renamed,
    as copies with the new ids and names), and only the others are written (:class:`_Writer`).

    The target is what :func:`heal.heal_messages` takes: ``model`` (a model id in any style,
    ``"anthropic:claude-sonnet-4-5"`` as pydantic-ai spells it, or a ``Model``'s
    ``model_name``), ``thinking`` (whether the request thinks), ``tools`` (names, or
    ``ToolDefinition`` objects), or all of them as one ``target`` (used as given).
    ``provider="auto"`` follows the model id when it names a provider, else infers the provider
    from the responses when they all agree (see :func:`infer_provider`). The other options are
    those of :func:`heal.heal_messages`.
    """
    objects = _native_list(messages)
    asked = asked_scope(policy, rules, scope)
    defaults = asked is not None
    history_scope = asked == "history"  # the verdict answers a plainly clean history alone
    # The call as most callers write it (no keyword but the history): the target is the
    # history's own provider, which one pass over the responses finds as it judges them.
    own = (
        defaults
        and provider == "auto"
        and model is None
        and thinking is None
        and tools is None
        and target is None
    )
    said = NOT_PLAIN
    ids: list[str] = []  # the calls' ids, when the verdict read them all
    inferred: list[ProviderId | None] = []  # the history's own provider, when it found one
    if own:
        said = _verdict(messages, _ITS_OWN, past_ids=True, ids=ids, inferred=inferred)
        if said == CLEAN:
            return NativeHealResult(cast(list[pa.ModelMessage], messages), ())
    goal = native_target(
        provider,
        "auto",
        model=model,
        thinking=thinking,
        tools=tools,
        target=target,
        infer=(lambda: inferred[0]) if inferred else lambda: _agreed_provider(objects),
    )
    terms = terms_for(goal) if defaults and not own else None
    if terms is not None:
        said = _verdict(messages, goal.provider, terms, past_ids=True, ids=ids)
        if said == CLEAN:
            return NativeHealResult(cast(list[pa.ModelMessage], messages), ())
    if history_scope:
        said = NOT_PLAIN  # the request's verdict: the full path decides the rest
    if said == REFUSED_IDS and type(messages) is list:  # a list, once the verdict read it
        renamed = delivered(_renamed_ids(messages, goal, ids), on_repair, strict)
        if renamed is not None:
            return renamed
    loader = _Loader(objects)
    with collector_paused(len(objects)):
        loaded = loader.run()
        write = _Writer(objects, loaded, loader.carried)
    options: dict[str, Any] = {
        "target": goal,
        "policy": policy,
        "rules": rules,
        "on_repair": on_repair,
        "strict": strict,
        "scope": scope,
        # A history the plain verdict refused (asked for its own provider or the target's)
        # is healed without the engine's quick verdict: see heal_native; unless that verdict
        # reads reasoning this walk does not (the target's own, and other providers' to
        # remove: engine_reads_reasoning). A list it found not plain for more than its ids,
        # without the engine's renaming of such a history either.
        "quick": history_scope
        or (not own and terms is None)
        or engine_reads_reasoning(terms_for(goal)),
        "renames": said != NOT_PLAIN or type(messages) is not list,
    }
    if isinstance(messages, str):
        return heal_native(
            loaded,
            lambda m: _json_bytes(write(m)).decode(),
            original=messages,
            **options,
        )
    if isinstance(messages, (bytes, bytearray)):
        return heal_native(
            loaded, lambda m: _json_bytes(write(m)), original=bytes(messages), **options
        )
    return heal_native(
        loaded,
        write,
        original=messages if isinstance(messages, list) else None,
        **options,
    )


_ITS_OWN: Any = object()
"""A provider for :func:`_plainly_clean` that stands for the one the history's responses agree
on (:func:`infer_provider`), found in the same pass."""


def _plainly_clean(messages: Any, provider: ProviderId | None, terms: Terms = PLAIN_TERMS) -> bool:
    """Whether a list of pydantic-ai messages, as the caller gave it, is plainly clean for
    ``provider`` (``_ITS_OWN``: the provider the history's responses agree on): True only when
    healing it through canonical models (default policy, built-in rules, a target the
    ``terms`` are for) would return no repair at all, so :func:`heal_pydantic_ai` can
    hand the caller's own list back without serializing or loading it. False says nothing but
    "not plainly". Exact in that one direction (see :mod:`heal._verdict`).

    Plainly clean means the parts that load as :func:`heal._json.clean_verdict`'s plain AI SDK
    history does, and nothing that would carry options into the models (the fields that go to
    heal's own namespace, such as timestamps, usage or ``run_id``, are not read):

    * a non-empty list of ``ModelRequest`` and ``ModelResponse`` objects (those classes exactly,
      and the part classes below exactly: no subclass); one without parts is passed over (it
      loads as no canonical message: the loader carries it beside its neighbour, as it does
      bookkeeping parts, and it comes back as it was);
    * requests of ``SystemPromptPart`` and ``UserPromptPart`` parts (non-blank string content,
      or for a user prompt a list of non-blank strings and images that load as plain ones:
      :func:`_plain_image`), or of ``ToolReturnPart`` parts alone
      answering every call of the response before, one each (same id and tool name; content a
      non-blank string or a JSON value; outcome ``success``, ``failed`` or ``retried``);
    * responses that were not cut off, of ``TextPart`` parts (non-blank) followed by
      ``ToolCallPart`` parts (``args`` a JSON object, the JSON text of one, or nothing), with
      no item id, ``provider_details`` or citations: no thinking, file, builtin-tool or retry
      part; for a target whose rules read neither reasoning nor provider options
      (:attr:`heal._verdict.Terms.rich`: provider None, OpenAI Chat, xAI, ...), also
      ``ThinkingPart`` parts before the calls, beside a text or a call, and item ids and
      ``provider_details`` (JSON objects) on any of them (see :func:`_plain_messages`);
    * the order of roles, texts, values and ids as :mod:`heal._verdict` says.
    """
    return _verdict(messages, provider, terms) == CLEAN


def _verdict(
    messages: Any,
    provider: ProviderId | None,
    terms: Terms = PLAIN_TERMS,
    *,
    past_ids: bool = False,
    ids: list[str] | None = None,
    inferred: list[ProviderId | None] | None = None,
) -> int:
    """:func:`_plainly_clean`, saying why: ``CLEAN``, ``NOT_PLAIN`` or ``REFUSED_IDS``, which
    with ``past_ids`` (the walk reads past Kimi's ids rather than stop) says the history is
    plain but for its call ids' format (:func:`heal_pydantic_ai` renames them in the caller's
    objects). The walk adds the calls' ids to ``ids`` when given (in a history it found plain,
    every return's id is its call's), and for ``_ITS_OWN`` the provider the responses agree on
    to ``inferred`` once it read them all."""
    if type(messages) is not list or not messages:
        return NOT_PLAIN
    if ids is None:
        ids = []
    names: list[str] = []
    if provider is _ITS_OWN:
        systems: set[str | None] = set()
        rich: list[Any] = []
        images: list[Any] = []
        last = _plain_messages(
            messages, ids, names, systems=systems, rich=rich, images=images, past_ids=past_ids
        )
        if last is None:
            return NOT_PLAIN
        provider = _systems_provider(systems, messages)
        if inferred is not None:
            inferred.append(provider)
        if rich or images:  # the provider's rules must read neither, nor a user's plain images
            found = provider_terms(provider)
            if found is None or (rich and not found.rich) or (images and not found.images):
                return NOT_PLAIN
            terms = found
    else:
        last = _plain_messages(
            messages,
            ids,
            names,
            rich=[] if terms.rich else None,
            images=[] if terms.images else None,
            past_ids=past_ids,
        )
        if last is None:
            return NOT_PLAIN
    profile = judge(provider)
    if profile is None or not calls_accepted(
        provider, profile, ids, names, last, terms=terms, judge_ids=False
    ):
        return NOT_PLAIN
    return CLEAN if profile.all_accepted_tool_call_ids(ids) else REFUSED_IDS


def _renamed_ids(
    messages: list[Any], goal: Target, ids: list[str]
) -> NativeHealResult[list[pa.ModelMessage]] | None:
    """The result for a history the verdict found plain but for tool-call ids the target
    refuses (Kimi's ``functions.search:3``; any id but Mistral's own, for Mistral; see
    :func:`_verdict`), whose calls' ids are ``ids`` (the verdict's walk gathered them), made
    from the caller's objects, without models; None to heal it the full way, which then decides.

    The ids are renamed as the engine's id rules rename them
    (:class:`heal._engine.IdRenamer`), one to one, and the new ones must be accepted:
    the renamed history is then plainly clean (the walk reads ids for nothing else), and this
    is the full path's result, with the engine's records at native places (a call's or a
    return's message and part; each rule's together, in history order); each message with a
    renamed part is a copy of the caller's with copies of those parts holding the new ids, as
    :class:`_Writer` writes a renamed message, made in the same pass.
    ``tests/adapters/test_native_fast_path.py`` holds the two ways to one result."""
    renamer = IdRenamer.of(ids, goal)
    if renamer is None:
        return None
    renamed, touched = renamer.renamed, renamer.touched
    with collector_paused(len(messages)):
        out = list(messages)
        call_cls, return_cls = pa.ToolCallPart, pa.ToolReturnPart
        i = -1
        for message in messages:
            i += 1
            parts: list[Any] | None = None
            j = -1
            for part in message.parts:
                j += 1
                kind = type(part)
                if kind is not call_cls and kind is not return_cls:
                    continue
                old = part.tool_call_id
                if old not in touched:
                    continue  # an id no rule renames
                new_id = renamed(
                    (i, j, None), "tool-call" if kind is call_cls else "tool-result", old
                )
                if new_id != old:
                    if parts is None:
                        parts = list(message.parts)
                    new = _copied(part)
                    new.tool_call_id = new_id
                    parts[j] = new
            if parts is not None:
                copied = _copied(message)
                copied.parts = tuple(parts) if isinstance(message.parts, tuple) else parts
                out[i] = copied
        return NativeHealResult(out, renamer.records())


def _systems_provider(
    systems: set[str | None], objects: list[pa.ModelMessage]
) -> ProviderId | None:
    """:func:`_agreed_provider` of responses whose systems (``canonical_system or
    provider_name``) are ``systems``: the provider of a system other than OpenAI's is the
    system's alone; OpenAI's responses are told apart by their ids, read again."""
    if "openai" in systems:
        return _agreed_provider(objects)
    found = {None if system is None else PYDANTIC_AI_SYSTEMS.get(system) for system in systems}
    return found.pop() if len(found) == 1 else None


_PLAIN_OUTCOMES = frozenset({"success", *_ERROR_OUTCOMES})
"""Tool-return outcomes that load as a text or error-text output (``denied`` is an
execution-denied output)."""


def _plain_messages(
    messages: list[Any],
    ids: list[str],
    names: list[str],
    *,
    systems: set[str | None] | None = None,
    rich: list[Any] | None = None,
    images: list[Any] | None = None,
    past_ids: bool = False,
) -> str | None:
    """The one pass of :func:`_plainly_clean`: the canonical role of the last message when every
    message has a plain shape in a plain place (else None), with the call ids and tool names
    added to ``ids`` and ``names``, and each response's system to ``systems`` when given.

    ``rich`` (a list, for a target whose rules read neither reasoning nor provider options:
    :attr:`heal._verdict.Terms.rich`): a response may also hold ``ThinkingPart`` parts before
    its calls, beside a text or a call, and its parts item ids and ``provider_details`` (a JSON
    object), which load as reasoning parts and provider options; each such part's thinking
    (or an empty text, for another part) is added to ``rich``, so that a caller who asked for
    the history's own provider sees whether its terms must let them stand. ``past_ids``: read
    past a call id with a colon (Kimi's, which no provider takes) rather than stop there
    (:func:`_verdict`). ``images`` (a list, for a target whose quick verdict takes a user's
    plain images: :attr:`heal._verdict.Terms.images`): a user prompt's list may also hold
    images that load as plain ones (:func:`_plain_image`), each added to ``images``."""
    waiting: dict[str, str] | None = None  # the previous response's calls: id -> name
    previous = ""
    # Every text that must be plain (plain_text), judged at the end in one loop: a call per
    # text was a sixth of the walk.
    texts: list[Any] = []
    add_text, add_texts = texts.append, texts.extend
    inputs: list[Any] = []  # the calls' dict arguments, judged at the end likewise
    add_input = inputs.append
    # The classes, read once (a module attribute per message and part: 3% of the walk).
    request_cls, response_cls = pa.ModelRequest, pa.ModelResponse
    text_cls, call_cls, thinking_cls = pa.TextPart, pa.ToolCallPart, pa.ThinkingPart
    return_cls, system_cls, user_cls = pa.ToolReturnPart, pa.SystemPromptPart, pa.UserPromptPart
    for message in messages:
        kind = type(message)
        if kind is request_cls:
            parts = message.parts
            if not parts:
                continue  # no canonical message: the loader carries it beside the next one
            if waiting is not None:
                # Tool returns alone, answering the response before (they load as one tool
                # message; a prompt beside them would be a user message right after it).
                if len(parts) != len(waiting):
                    return None
                for part in parts:
                    if type(part) is not return_cls or part.outcome not in _PLAIN_OUTCOMES:
                        return None
                    call_id = part.tool_call_id
                    if type(call_id) is not str or waiting.pop(call_id, None) != part.tool_name:
                        return None
                    content = part.content
                    if type(content) is str:
                        add_text(content)
                    elif not plain_value(content):
                        return None
                waiting = None
                previous = "tool"
                continue
            for part in parts:
                part_kind = type(part)
                if part_kind is system_cls:
                    role = "system"
                    add_text(part.content)
                elif part_kind is user_cls:
                    role = "user"
                    content = part.content
                    if type(content) is str:
                        add_text(content)
                    elif type(content) is list and content:
                        if images is None:
                            # Strings alone load as text (other items are media, cache points
                            # or structured content: not plain, and not strings).
                            add_texts(content)
                        else:
                            for item in content:
                                if type(item) is str:
                                    add_text(item)
                                elif _plain_image(item):
                                    images.append(item)
                                else:
                                    return None
                    else:
                        return None
                else:
                    return None
                if previous not in AFTER[role]:
                    return None
                previous = role
        elif kind is response_cls:
            parts = message.parts
            if systems is not None:  # every response's, as _agreed_provider reads them
                systems.add(message.canonical_system or message.provider_name)
            if not parts:
                continue  # as an empty request: carried, aborted or not
            if previous not in AFTER["assistant"]:
                return None
            if message.state == "interrupted" or message.finish_reason in _CUT_OFF_REASONS:
                return None  # _aborted, without the call
            thinking = False  # the response's last part so far is a thinking part
            for part in parts:
                part_kind = type(part)
                if part_kind is text_cls:
                    # Text after a call is moved before it for Anthropic.
                    if waiting is not None or part.citations is not None:
                        return None
                    add_text(part.content)
                    thinking = False
                elif part_kind is call_cls:
                    call_id = part.tool_call_id
                    name = part.tool_name
                    if type(call_id) is not str or type(name) is not str:
                        return None
                    args = part.args
                    if type(args) is dict:
                        add_input(args)
                    elif not _plain_args(args):
                        return None
                    if waiting is None:
                        waiting = {}
                    waiting[call_id] = name
                    if ":" in call_id and not past_ids:
                        return None  # Kimi's id form, which no provider takes: all renamed
                    ids.append(call_id)
                    names.append(name)
                    thinking = False
                elif part_kind is thinking_cls and rich is not None and waiting is None:
                    signature = part.signature
                    if signature is not None and type(signature) is not str:
                        return None
                    rich.append(part.content)
                    thinking = True
                else:
                    return None
                # An item id (OpenAI's), a signature and provider details (a Gemini thought
                # signature lives there) load as provider options.
                item = part.id
                details = part.provider_details
                if item is not None or details is not None:
                    if (
                        rich is None
                        or (item is not None and type(item) is not str)
                        or (details is not None and not plain_input(details))
                    ):
                        return None
                    rich.append("")
            if thinking:
                return None  # a response that ends with thinking is none of the plain shapes
            previous = "assistant"
        else:
            return None
    if not (plain_texts(texts) and plain_inputs(inputs)) or (rich and not plain_thoughts(rich)):
        return None
    # Calls left unanswered are the last message's, a response: not an end.
    return None if waiting is not None else ended(previous, texts[-1] if texts else None)


def _plain_image(item: Any) -> bool:
    """Whether a user prompt's item loads as a plain image (:func:`heal.rules.files.
    plain_image`): an ``ImageUrl`` or an image ``BinaryContent`` (or ``BinaryImage``) of a media
    type every provider takes, with its data (the loader keeps their other fields in heal's
    marks, which no rule reads)."""
    kind = type(item)
    if kind is pa.ImageUrl:
        data = item.url
    elif kind is pa.BinaryContent or kind is pa.BinaryImage:
        data = item.data
    else:
        return False
    try:
        media = item.media_type  # a URL's is inferred from it, which may fail
    except ValueError:
        return False
    metadata = item.vendor_metadata  # loads into heal's marks: JSON, or the loader refuses it
    return (
        (metadata is None or plain_value(metadata))
        and media in ANTHROPIC_IMAGE_TYPES
        and (type(data) is str or type(data) is bytes)
        and len(data) > 0
        and not (type(data) is str and data.startswith(OPENAI_FILE_ID_PREFIX))
    )


def _plain_args(args: Any) -> bool:
    """Whether tool-call arguments load as a plain input: a JSON object, the JSON text of one,
    or nothing (``None`` or blank text, pydantic-ai's "no arguments", which load as ``{}``)."""
    if args is None:
        return True
    if type(args) is str:
        if not args.strip():
            return True
        args = _loads_object(args)
    return plain_input(args)


class _Reuse:
    """The parts of the caller's messages whose canonical form a heal may hand back untouched
    inside a message it changed: each response part and tool return (one canonical part each)
    and each system or user prompt part (one canonical message each)."""

    __slots__ = ("loaded", "native", "records", "sources")

    def __init__(self, native: list[pa.ModelMessage], loaded: _Loaded, sources: Sources) -> None:
        self.native = native
        self.loaded = loaded
        self.sources = sources
        self.records: dict[int, Json] = {}

    def part(self, model: Any, index: Any, record: Json | None) -> Any:
        """The caller's part canonical ``model`` (a part, or a prompt's message) was loaded
        from, when it came from native message ``index`` and sits in a message of the same
        record (whose fields a part's provider is read from); else None."""
        if type(index) is not int:
            return None
        loaded = self.loaded
        for j in self.sources.loaded_from(index):
            message: Any = loaded.messages[j]
            unit = loaded.unit_parts[j]
            if unit is not None:
                if message is model:
                    return self._same_record(index, record, unit)
                continue
            if isinstance(message.content, str) or loaded.part_origins is None:
                continue
            for part, at in zip(message.content, loaded.part_origins[j] or (), strict=True):
                if part is model:
                    return None if at is None else self._same_record(index, record, at)
        return None

    def _same_record(self, index: int, record: Json | None, at: int) -> Any:
        own = self.records.get(index)
        if own is None:
            j = self.sources.loaded_from(index)[0]
            own = self.records[index] = _model_meta(self.loaded.messages[j]).get("message") or {}
        if own is not record and own != (record or {}):
            return None
        return self.native[index].parts[at]


class _Writer:
    """Writes a healed history back for :func:`heal_pydantic_ai`.

    Each native message whose canonical messages came through the heal untouched
    (:class:`~heal.adapters._common.Sources`) is the caller's own object, with the bookkeeping
    messages it carried; the others are written from their canonical messages, in the runs
    :func:`dump_messages` would write (:func:`_spans`), so the result equals the whole history
    written out (as pydantic-ai's JSON: a message handed back keeps what the caller gave, such
    as a tool's return value as the object it was, where writing it out gives its JSON form).
    The timestamps a written message takes from the messages before it (see
    :class:`_Dumper`) see the caller's messages as if they had been written too.
    """

    def __init__(
        self,
        native: list[pa.ModelMessage],
        loaded: Loaded,
        carried: dict[int, tuple[list[int], list[int]]],
    ) -> None:
        self.native = native
        self.loaded = loaded
        self.sources = Sources.of(loaded)
        self.carried = carried

    def __call__(self, healed: list[ModelMessage]) -> list[pa.ModelMessage]:
        if not _PARTIAL:
            return dump_messages(healed)
        metas = [_model_meta(m) for m in healed]
        nodes: list[Json | None] = [None] * len(healed)
        loaded = self.loaded
        reuse = _Reuse(self.native, loaded, self.sources) if isinstance(loaded, _Loaded) else None
        dumper = _Dumper(nodes, metas, healed, reuse)
        out: list[pa.ModelMessage] = []
        untouched = self.sources.untouched
        skipped: list[tuple[int, int, Json]] = []  # since the last span written
        for start, end in _spans(metas, [m.role for m in healed]):
            origin = untouched(healed, start, end)
            renamed: pa.ModelMessage | None = None
            if origin is None and reuse is not None:
                renamed = self._renamed(healed, start, end, metas[start].get("index"))
                if renamed is not None:
                    origin = metas[start]["index"]
            carried = _EMPTY_JSON
            if origin is not None and not _CARRIES.isdisjoint(metas[start]):
                carried = dumper._once(metas[start])
                if not carried:  # written already, beside a piece of the same message
                    origin = renamed = None
            if origin is None:
                try:
                    nodes[start:end] = _dump_canonical(healed[start:end])
                except InputError:  # located in the whole history, as writing it all does
                    return dump_messages(healed)
                if skipped:
                    dumper.skipped(skipped, healed)
                    skipped = []
                out.extend(dumper.span(start, end))
                continue
            skipped.append((start, end, carried))
            if not carried:  # most messages: the caller's own, and nothing beside it
                out.append(self.native[origin] if renamed is None else renamed)
                continue
            before, after = self.carried.get(origin, ((), ()))
            if "before" in carried:
                out.extend(self.native[j] for j in before)
            out.append(self.native[origin] if renamed is None else renamed)
            if "after" in carried:
                out.extend(self.native[j] for j in after)
        return out

    def _renamed(
        self, healed: list[ModelMessage], start: int, end: int, index: Any
    ) -> pa.ModelMessage | None:
        """The caller's message ``index`` with its tool calls' and returns' new ids and names,
        when the span ``start`` to ``end`` is its canonical messages with no other change
        (:meth:`~heal.adapters._common.Sources.renamed`); else None. The fields are the same
        in pydantic-ai's parts, written as they are: the copy is what writing the span gives,
        at a fraction of its cost (no dict, no validation)."""
        if type(index) is not int:
            return None
        changes = self.sources.renamed(healed, start, end, index)
        if changes is None:
            return None
        loaded = cast(_Loaded, self.loaded)
        at_loaded = self.sources.loaded_from(index)
        native = self.native[index]
        message: Any = _copied(native)
        parts: list[Any] = list(native.parts)
        for t, p, update in changes:
            part_origins = loaded.part_origins[at_loaded[t]] if loaded.part_origins else None
            at = part_origins[p] if part_origins is not None else None
            if at is None or loaded.unit_parts[at_loaded[t]] is not None:
                return None
            part = _copied(parts[at])
            for name, value in update.items():
                setattr(part, name, value)
            parts[at] = part
        message.parts = tuple(parts) if isinstance(native.parts, tuple) else parts
        return cast(pa.ModelMessage, message)


def _plainly_copied(cls: type) -> bool:
    """Whether ``copy.copy`` of a ``cls`` instance is a new instance holding the same
    ``__dict__`` and nothing else: no copy or pickle hook of its own, no slot holding a value."""
    inherited = ("__new__", "__reduce_ex__", "__reduce__", "__getstate__")  # none before 3.11
    return (
        all(getattr(cls, name, None) is getattr(object, name, None) for name in inherited)
        and not hasattr(cls, "__copy__")
        and not hasattr(cls, "__setstate__")
        and all(not getattr(base, "__slots__", ()) for base in cls.__mro__ if base is not object)
    )


_PLAIN_COPIES = frozenset(
    cls
    for cls in (pa.ModelRequest, pa.ModelResponse, pa.ToolCallPart, pa.ToolReturnPart)
    if _plainly_copied(cls)
)
"""The classes :func:`_copied` copies itself: those whose calls and returns a heal renames."""


def _copied(obj: Any) -> Any:
    """``copy.copy(obj)``, at a quarter of its cost for the classes in ``_PLAIN_COPIES`` (a
    history whose every call id a provider refuses copies a message and a part per turn)."""
    cls = type(obj)
    if cls not in _PLAIN_COPIES:
        return copy.copy(obj)
    new = object.__new__(cls)
    new.__dict__ = obj.__dict__.copy()  # a third cheaper than updating the new one's
    return new


# --- reading native input --------------------------------------------------------------------


def _native_list(native: Any) -> list[pa.ModelMessage]:
    if isinstance(native, (str, bytes, bytearray)):
        try:
            objects = _MESSAGES.validate_json(native)
        except pydantic.ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            raise InputError(
                f"not a pydantic-ai history: {first['msg']}", path=_loc_path(first["loc"])
            ) from None
        _restamp(objects, json.loads(native))
        return objects
    if isinstance(native, Mapping) or not isinstance(native, Iterable):
        raise InputError(
            "expected a list of pydantic-ai ModelRequest / ModelResponse objects, or their JSON; "
            f"got {_kind(native)}"
        )
    out = list(native)
    if _MESSAGE_CLASSES.issuperset(map(type, out)):
        return out
    for i, msg in enumerate(out):
        if not isinstance(msg, (pa.ModelRequest, pa.ModelResponse)):
            hint = (
                " (a dict: validate it with ModelMessagesTypeAdapter, or pass the JSON text)"
                if isinstance(msg, Mapping)
                else ""
            )
            raise InputError(
                f"expected a ModelRequest or ModelResponse, got {_kind(msg)}{hint}",
                path=f"messages[{i}]",
            )
    return out


_MESSAGE_CLASSES = frozenset({pa.ModelRequest, pa.ModelResponse})
"""The message classes exactly (a subclass is checked one message at a time)."""


def _restamp(objects: list[pa.ModelMessage], data: Any) -> None:
    """Give each timestamp the JSON left out a value that depends on the history alone.

    pydantic-ai's reader fills a missing timestamp (a part's, a response's) from the clock, which
    would make heal's output differ from one run to the next for the same input. Such a
    timestamp becomes the nearest earlier one of the history instead, else the epoch: the rule
    :class:`_Dumper` follows for histories from elsewhere, and the one pydantic-ai's own repair
    follows for the returns it synthesizes (their response's). Timestamps that are optional
    (``ModelRequest.timestamp``) stay as read; a present one sets the clock for what follows.
    """
    clock: Any = None

    def visit(obj: Any, raw: Any) -> None:
        nonlocal clock
        if not isinstance(raw, Mapping) or not _clock_stamped(obj.__class__):
            known = getattr(obj, "timestamp", None)
            clock = known if known is not None else clock
        elif raw.get("timestamp") is None:
            obj.timestamp = clock if clock is not None else _EPOCH_TIME
        else:
            clock = obj.timestamp

    for msg, raw in zip(objects, data, strict=True):
        visit(msg, raw)
        raw_parts = raw.get("parts") if isinstance(raw, Mapping) else None
        if isinstance(raw_parts, list) and len(raw_parts) == len(msg.parts):
            for part, raw_part in zip(msg.parts, raw_parts, strict=True):
                visit(part, raw_part)


@cache
def _clock_stamped(cls: type) -> bool:
    """Whether pydantic-ai fills ``cls.timestamp`` from a factory (the clock) when it is absent."""
    return is_dataclass(cls) and any(
        f.name == "timestamp" and f.default_factory is not MISSING for f in fields(cls)
    )


def _message_json(objects: list[pa.ModelMessage], first: int = 0) -> list[Json]:
    """pydantic-ai's own JSON of each message (one call; per message only to locate a failure,
    named by its index, ``first`` for the first one)."""
    try:
        return cast(list[Json], _MESSAGES.dump_python(objects, mode="json", warnings=False))
    except (pydantic_core.PydanticSerializationError, TypeError, ValueError):
        for i, msg in enumerate(objects):
            try:
                _MESSAGES.dump_python([msg], mode="json", warnings=False)
            except (pydantic_core.PydanticSerializationError, TypeError, ValueError) as exc:
                raise InputError(
                    f"pydantic-ai cannot serialize this message ({exc})",
                    path=f"messages[{first + i}]",
                ) from None
        raise  # pragma: no cover - the whole list failed but no single message did


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, (str, bytes, bytearray)):
        return "a string"
    if isinstance(value, Mapping):
        return "a dict"
    if isinstance(value, (list, tuple)):
        return "a list"
    return f"a {type(value).__name__}"


# Union tags pydantic puts in error locations (the request / response kinds, and the part kinds
# without a hyphen: those with one are skipped by their hyphen).
_LOC_TAGS = frozenset({"request", "response", "text", "thinking", "file", "speech", "compaction"})


def _loc_path(loc: tuple[int | str, ...]) -> str:
    out = "messages"
    for item in loc:
        if isinstance(item, int):
            out += f"[{item}]"
        elif item in _LOC_TAGS or "[" in item or "-" in item:
            continue  # union tags (``request``, part kinds such as ``user-prompt``)
        else:
            out += f".{item}"
    return out


def _prune(data: Json, cls: type, *drop: str) -> Json:
    """``data`` without ``drop`` keys and without fields equal to their default."""
    defaults = _defaults(cls)
    return {
        key: value
        for key, value in data.items()
        if key not in drop and not (key in defaults and _same_json(value, defaults[key]))
    }


@cache
def _defaults(cls: type) -> dict[str, Any]:
    """The JSON of each field default that is a constant or an empty container / plain class
    (never a clock or random factory: those values are always kept)."""
    out: dict[str, Any] = {}
    if not is_dataclass(cls):
        return out
    for f in fields(cls):
        if f.default is not MISSING and isinstance(f.default, (str, int, float, bool, type(None))):
            out[f.name] = f.default
        elif f.default_factory is not MISSING:
            factory: Any = f.default_factory
            if isinstance(factory, type) or getattr(factory, "__origin__", None) in (list, dict):
                out[f.name] = pydantic_core.to_jsonable_python(factory())
    return out


def _same_json(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _heal_options(meta: Json, others: Json | None = None) -> Json | None:
    options: Json = dict(others or {})
    if meta:
        options["heal"] = {_NS: meta}
    return options or None


def _with_options(node: Json, meta: Json, others: Json | None = None) -> Json:
    options = _heal_options(meta, others)
    if options is not None:
        node["providerOptions"] = options
    return node


def _loads_object(text: str) -> Json | None:
    """The JSON object ``text`` holds, or None: other JSON, no JSON, or JSON nested deeper than
    Python's reader goes (RecursionError), which stays text as in every other format."""

    def reject(name: str) -> Any:
        raise ValueError(name)

    try:
        value = json.loads(text, parse_constant=reject)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _response_provider(msg: pa.ModelResponse) -> ProviderId | None:
    system = msg.canonical_system or msg.provider_name
    if system is None:
        return None
    if system == "openai":
        return openai_api_by_response_id((msg.provider_response_id,))
    return PYDANTIC_AI_SYSTEMS.get(system)


def _binary_class(item: Any) -> str | None:
    """The class to restore, when pydantic-ai's validation would produce another one."""
    if not isinstance(item, pa.BinaryContent):
        return None
    expected = pa.BinaryImage if item.is_image else pa.BinaryContent
    return None if type(item) is expected else type(item).__name__


# --- load ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Loaded(Loaded):
    """A :class:`Loaded` whose whole-message repairs on a message made from one request part
    point at that part."""

    unit_parts: list[int | None] = field(default_factory=list)

    def native_location(
        self, message: int | None, part: int | None
    ) -> tuple[int | None, int | None]:
        if message is not None and part is None and message < len(self.unit_parts):
            unit = self.unit_parts[message]
            if unit is not None:
                return self.origins[message], unit
        return Loaded.native_location(self, message, part)

    def describe_location(self, repair: Repair) -> str:
        """``messages[i].parts[j]``: a pydantic-ai message holds ``parts``, not ``content``."""
        message, part = self.native_location(repair.message_index, repair.part_index)
        anchor = None if repair.anchor_index is None else self.origins[repair.anchor_index]
        return native_path(message, part, anchor, parts="parts")


class _Loader:
    def __init__(self, native: list[pa.ModelMessage]) -> None:
        self.native = native
        self.fast = _PARTIAL
        # pydantic-ai's own JSON of each message, made only for the messages the fast path
        # does not read (all of them when it is off: one call then).
        self.raw: list[Json] | None = None if self.fast else _message_json(native)
        # Dicts of the general path, and the models the fast one built.
        self.out: list[Any] = []
        # The general path's dicts, each with its native message's record and its own keys:
        # their records are complete once the whole history is read (see run).
        self.general: list[tuple[Json, Json, Json]] = []
        self.origins: list[int] = []
        self.part_origins: list[tuple[int | None, ...] | None] = []
        self.unit_parts: list[int | None] = []
        self.pending: list[Json] = []
        self.pending_at: list[int] = []
        self.last_record: Json | None = None
        self.last_index: int | None = None
        # The canonical messages the fast path built of the last native message read (where
        # the first one is, and what it built), for a record that takes "after" (see run).
        self.last_built: tuple[int, list[_Entry]] | None = None
        # The JSON of each timestamp the fast path read (see _datetime_json).
        self.stamps: _Stamps = {}
        # native index of a message that carries bookkeeping messages -> (their native
        # indices before it, after it): what _Writer hands back beside the caller's message.
        self.carried: dict[int, tuple[list[int], list[int]]] = {}

    def run(self) -> _Loaded:
        for i, msg in enumerate(self.native):
            record: Json = {"index": i}
            before = len(self.out)
            if self.fast and self._fast(i, msg, record):
                continue
            raw = self.raw[i] if self.raw is not None else _message_json([msg], i)[0]
            rest = _prune(raw, type(msg), "parts")
            if rest:
                record["message"] = rest
            if isinstance(msg.parts, tuple):
                record["parts_tuple"] = True
            if isinstance(msg, pa.ModelRequest):
                self._request(i, msg, raw, record)
            else:
                self._response(i, msg, raw, record)
            if len(self.out) == before:
                carried: Json = {"message": raw}
                if isinstance(msg.parts, tuple):
                    carried["parts_tuple"] = True
                self.pending.append(carried)
                self.pending_at.append(i)
                continue
            self._emitted(i, record)
        if self.pending:
            if self.last_record is None or self.last_index is None:
                raise InputError(
                    "the history holds no message a model reads (only bookkeeping parts such as "
                    "ToolAvailabilityDeltaPart): there is nothing to heal"
                )
            self.last_record["after"] = self.pending
            before_at, _ = self.carried.get(self.last_index, ([], []))
            self.carried[self.last_index] = (before_at, self.pending_at)
            if self.last_built is not None:  # built before its record was complete
                start, entries = self.last_built
                self.out[start : start + len(entries)] = [
                    _built(node, self.last_record, meta) for node, meta, _, _ in entries
                ]
        for node, record, meta in self.general:
            merged = {**record, **meta}
            options = node.get("providerOptions") or {}
            options["heal"] = {**options.get("heal", {}), _NS: merged}
            node["providerOptions"] = options
        try:
            canonical = _load_canonical(self.out)
        except InputError as exc:  # pragma: no cover - a bug in this adapter
            found = re.match(r"messages\[(\d+)\]", exc.path)
            where = f"messages[{self.origins[int(found.group(1))]}]" if found else "messages"
            raise InputError(f"cannot be represented: {exc.reason}", path=where) from None
        return _Loaded(canonical, self.origins, self.part_origins, self.unit_parts)

    def _emitted(self, i: int, record: Json) -> None:
        """Native message ``i`` made canonical messages: it takes the bookkeeping messages
        before it."""
        if self.pending:
            record["before"], self.pending = self.pending, []
            self.carried[i] = (self.pending_at, [])
            self.pending_at = []
        self.last_record = record
        self.last_index = i
        self.last_built = None

    # -- the fast path --

    def _fast(self, i: int, msg: Any, record: Json) -> bool:
        """Build the canonical models of a message of the common shapes directly from the
        caller's objects, as serializing it, reading its JSON and validating the dicts would
        (``tests/adapters/test_partial_conversion.py`` holds the two equal); False, having
        built nothing, for any other message, which the general path reads.

        The shapes: a ``ModelRequest`` of system prompts, user prompts (a string or strings)
        and tool returns (a string or plain JSON content; ``success``, ``failed`` or
        ``retried``); a ``ModelResponse`` of text, thinking and tool calls (``args`` plain
        JSON, text or nothing). Those classes exactly; every other field a JSON scalar, plain
        JSON, a datetime, or a usage (:func:`_fast_record`). No file, retry prompt,
        builtin tool, bookkeeping part or citation: those take the general path.
        """
        kind = type(msg)
        if kind is pa.ModelRequest:
            made = self._fast_request(i, msg)
        elif kind is pa.ModelResponse:
            made = self._fast_response(msg)
        else:
            return False
        if made is None:
            return False
        rest, entries = made
        if rest:
            record["message"] = rest
        if isinstance(msg.parts, tuple):
            record["parts_tuple"] = True
        self._emitted(i, record)
        # The record is complete (but for "after", which only the last message may take): the
        # models are built now, as run builds the general path's.
        self.last_built = (len(self.out), entries)
        for node, meta, parts, unit in entries:
            self.out.append(_built(node, record, meta))
            self.origins.append(i)
            self.part_origins.append(parts)
            self.unit_parts.append(unit)
        return True

    def _fast_request(self, i: int, msg: pa.ModelRequest) -> _Made | None:
        stamps = self.stamps
        rest = _fast_record(msg, _PLAN_REQUEST, stamps)
        if rest is None:
            return None
        results: list[tuple[str, str, Any, Json]] = []
        result_at: list[int] = []
        units: list[tuple[_Built, Json, tuple[int | None, ...], int | None]] = []
        part: Any
        for j, part in enumerate(msg.parts):
            kind = type(part)
            if kind is pa.SystemPromptPart:
                content = part.content
                found = _fast_record(part, _PLAN_SYSTEM, stamps)
                if type(content) is not str or found is None:
                    return None
                units.append((_Built(SystemMessage, content), {"at": j, "part": found}, (), j))
            elif kind is pa.UserPromptPart:
                unit = _fast_user(part, j, stamps)
                if unit is None:
                    return None
                units.append(unit)
            elif kind is pa.ToolReturnPart:
                result = _fast_return(part, stamps)
                if result is None:
                    return None
                results.append(result)
                result_at.append(j)
            else:
                return None
        entries: list[tuple[_Built, Json, tuple[int | None, ...], int | None]] = []
        if results:
            if units:
                parts = tuple(
                    built_result(call_id, name, output, {"heal": {_NS: _return_meta(i, j, found)}})
                    for (call_id, name, output, found), j in zip(results, result_at, strict=True)
                )
            else:  # nothing to interleave with: the native positions are dropped
                parts = tuple(
                    built_result(
                        call_id, name, output, {"heal": {_NS: {"part": found}}} if found else None
                    )
                    for call_id, name, output, found in results
                )
            entries.append((_Built(ToolMessage, parts), {}, tuple(result_at), None))
        entries.extend(units)
        if not entries:
            return None  # bookkeeping only: carried as its JSON, by the general path
        return rest, entries

    def _fast_response(self, msg: pa.ModelResponse) -> _Made | None:
        stamps = self.stamps
        rest = _fast_record(msg, _PLAN_RESPONSE, stamps)
        if rest is None:
            return None
        canonical = msg.canonical_system
        content: list[Any] = []
        part: Any
        for part in msg.parts:
            kind = type(part)
            if kind not in _FAST_RESPONSE_PARTS:
                # Any other part, a request's among them (which has no provider name), takes
                # the general path, which words what it refuses.
                return None
            # A response read here has no hidden part, so its parts' native positions are
            # dropped (_drop_at): the record starts without them.
            meta: Json = {}
            if kind is pa.TextPart or kind is pa.ThinkingPart:
                text = part.content
                plan = _PLAN_TEXT if kind is pa.TextPart else _PLAN_THINKING
                found = _fast_record(part, plan, stamps)
                if type(text) is not str or found is None:
                    return None
                # A part holding nothing but its defaults carries no provenance, nor options.
                options = None
                if found:
                    system = _part_system(part, msg, canonical)
                    others = _provenance_out(found, system, part.part_kind, meta)
                    if found:  # not when the signature it moved out was all it held
                        meta["part"] = found
                    options = _part_options(meta, others)
                if kind is pa.TextPart:
                    content.append(built_text(text, options))
                else:
                    content.append(built_reasoning(text, options))
            elif kind is pa.ToolCallPart:
                call_id = part.tool_call_id
                tool = part.tool_name
                args = part.args
                found = _fast_record(part, _PLAN_CALL, stamps)
                if type(call_id) is not str or type(tool) is not str or found is None:
                    return None
                if type(args) is dict:
                    if not plain_input(args):
                        return None
                elif not (args is None or type(args) is str):
                    return None
                others = None
                if found:
                    system = _part_system(part, msg, canonical)
                    others = _provenance_out(found, system, "tool-call", meta)
                value = args if type(args) is dict else _load_args(args, meta)
                if type(value) is dict and value is not args and not plain_input(value):
                    return None  # parsed from text: validation words what it refuses
                if found:
                    meta["part"] = found
                options = _part_options(meta, others) if meta or others else None
                content.append(built_call(call_id, tool, value, options))
            else:  # pragma: no cover - _FAST_RESPONSE_PARTS names the three above
                return None
        if not content:
            return None
        options = {"heal": {ABORTED: True}} if _aborted(msg) else None
        return rest, [
            (
                _Built(AssistantMessage, tuple(content), options),
                {},
                tuple(range(len(content))),
                None,
            )
        ]

    def _emit(
        self,
        node: Json,
        origin: int,
        *,
        record: Json,
        meta: Json,
        parts: tuple[int | None, ...],
        unit: int | None = None,
    ) -> None:
        self.general.append((node, record, meta))
        self.out.append(node)
        self.origins.append(origin)
        self.part_origins.append(parts)
        self.unit_parts.append(unit)

    # -- requests --

    def _request(self, i: int, msg: pa.ModelRequest, raw: Json, record: Json) -> None:
        results: list[Json] = []
        result_origins: list[int | None] = []
        units: list[tuple[Json, Json, int, tuple[int | None, ...]]] = []
        hidden: list[list[Any]] = []
        for j, (part, pj) in enumerate(zip(msg.parts, raw["parts"], strict=True)):
            path = f"messages[{i}].parts[{j}]"
            kind = pj.get("part_kind")
            if kind == "system-prompt":
                meta = {"at": j, "part": _prune(pj, type(part), "content")}
                units.append(({"role": "system", "content": pj["content"]}, meta, j, ()))
            elif kind == "user-prompt":
                node, meta, origins = self._user(cast(pa.UserPromptPart, part), pj, path, j)
                units.append((node, meta, j, origins))
            elif kind == "tool-return":
                results.append(self._result(part, pj, path, (i, j)))
                result_origins.append(j)
            elif kind == "retry-prompt" and pj.get("tool_name") is not None:
                results.append(self._legacy_result(part, pj, path, (i, j)))
                result_origins.append(j)
            elif kind in ("retry-prompt", "retry-feedback"):
                feedback = cast(pa.RetryFeedbackPart, part)
                meta = {"at": j, "feedback": _prune(pj, type(part))}
                if kind == "retry-prompt":
                    meta["legacy"] = True
                text = {"role": "user", "content": feedback.model_response()}
                units.append((text, meta, j, ()))
            elif kind in _HIDDEN_KINDS:
                hidden.append([j, pj])
            else:
                raise InputError(f"{type(part).__name__} has no AI SDK equivalent", path=path)
        if hidden:
            record["hidden"] = hidden
        if results:
            if not units and not hidden:
                for result in results:
                    _drop_at(result)
            self._emit(
                {"role": "tool", "content": results},
                i,
                record=record,
                meta={},
                parts=tuple(result_origins),
            )
        for node, meta, j, origins in units:
            self._emit(node, i, record=record, meta=meta, parts=origins, unit=j)

    def _user(
        self, part: pa.UserPromptPart, pj: Json, path: str, j: int
    ) -> tuple[Json, Json, tuple[int | None, ...]]:
        meta: Json = {"at": j}
        rest = _prune(pj, type(part), "content")
        if rest:
            meta["part"] = rest
        content = pj["content"]
        if isinstance(content, str):
            return {"role": "user", "content": content}, meta, ()
        if isinstance(part.content, tuple):
            meta["content_tuple"] = True
        items: list[Json] = []
        hidden: list[list[Any]] = []
        for k, (item, ij) in enumerate(zip(part.content, content, strict=True)):
            ipath = f"{path}.content[{k}]"
            if isinstance(item, str):
                items.append(_with_options({"type": "text", "text": item}, {"at": k}))
                continue
            kind = ij.get("kind")
            if kind in ("text-content", "structured-content"):
                node = {"type": "text", "text": ij["content"]}
                items.append(_with_options(node, {"at": k, "item": _rest(ij, "content")}))
            elif kind == "cache-point":
                hidden.append([k, ij])
            elif kind == "binary" or kind in _URL_KINDS:
                items.append(self._user_media(item, ij, k))
            else:
                raise InputError(f"{type(item).__name__} has no AI SDK equivalent", path=ipath)
        if hidden:
            meta["items_hidden"] = hidden
        else:
            for node in items:
                _drop_at(node)
        return {"role": "user", "content": items}, meta, tuple(j for _ in items)

    def _user_media(self, item: Any, ij: Json, k: int) -> Json:
        meta: Json = {"at": k}
        media_type = ij.get("media_type")
        if ij["kind"] == "binary":
            data = item.base64  # standard base64, as the AI SDK writes (pydantic's is URL-safe)
            rest = _rest(ij, "data", "media_type")
            cls = _binary_class(item)
            if cls is not None:
                meta["class"] = cls
        else:
            data = ij["url"]
            rest = _rest(ij, "url", "media_type")
            if media_type is None:
                rest["media_type"] = None
        meta["item"] = rest
        is_image = ij["kind"] == "image-url" or (
            ij["kind"] == "binary"
            and isinstance(media_type, str)
            and media_type.startswith("image/")
        )
        if is_image:
            node: Json = {"type": "image", "image": data}
            if media_type is not None:
                node["mediaType"] = media_type
        else:
            node = {"type": "file", "data": data, "mediaType": media_type or _OCTET}
        return _with_options(node, meta)

    def _result(self, part: Any, pj: Json, path: str, at: tuple[int, int]) -> Json:
        meta: Json = {"at": list(at)}
        rest = _prune(pj, type(part), "tool_name", "tool_call_id", "content")
        output = _output(part.content, pj["content"], pj.get("outcome", "success"), meta, path)
        if rest:
            meta["part"] = rest
        node = {
            "type": "tool-result",
            "toolCallId": pj["tool_call_id"],
            "toolName": pj["tool_name"],
            "output": output,
        }
        return _with_options(node, meta)

    def _legacy_result(self, part: Any, pj: Json, path: str, at: tuple[int, int]) -> Json:
        content = pj["content"]
        output = (
            {"type": "error-text", "value": content}
            if isinstance(content, str)
            else {"type": "error-json", "value": content}
        )
        meta: Json = {"at": list(at), "legacy": True}
        rest = _prune(pj, type(part), "tool_name", "tool_call_id", "content")
        if rest:
            meta["part"] = rest
        node = {
            "type": "tool-result",
            "toolCallId": pj["tool_call_id"],
            "toolName": pj["tool_name"],
            "output": output,
        }
        return _with_options(node, meta)

    # -- responses --

    def _response(self, i: int, msg: pa.ModelResponse, raw: Json, record: Json) -> None:
        content: list[Json] = []
        origins: list[int | None] = []
        hidden: list[list[Any]] = []
        for j, (part, pj) in enumerate(zip(msg.parts, raw["parts"], strict=True)):
            path = f"messages[{i}].parts[{j}]"
            kind = pj.get("part_kind")
            system = part_system(pj, raw)
            if kind in _HIDDEN_KINDS:
                hidden.append([j, pj])
                continue
            meta: Json = {"at": [i, j]}
            if kind == "text":
                rest = _prune(pj, type(part), "content")
                others = _provenance_out(rest, system, kind, meta)
                node: Json = {"type": "text", "text": pj["content"]}
            elif kind == "thinking":
                rest = _prune(pj, type(part), "content")
                others = _provenance_out(rest, system, kind, meta)
                node = {"type": "reasoning", "text": pj["content"]}
            elif kind in ("tool-call", "builtin-tool-call"):
                rest = _prune(pj, type(part), "tool_name", "tool_call_id", "args")
                others = _provenance_out(rest, system, kind, meta)
                node = {
                    "type": "tool-call",
                    "toolCallId": pj["tool_call_id"],
                    "toolName": pj["tool_name"],
                    "input": _load_args(pj.get("args"), meta),
                }
                if kind == "builtin-tool-call":
                    node["providerExecuted"] = True
            elif kind == "builtin-tool-return":
                content.append(self._result(part, pj, path, (i, j)))
                origins.append(j)
                continue
            elif kind == "file":
                rest = _prune(pj, type(part), "content")
                others = _provenance_out(rest, system, kind, meta)
                item = pj["content"]
                item_rest = _rest(item, "data", "media_type")
                cls = _binary_class(cast(pa.FilePart, part).content)
                if cls is not None:
                    meta["class"] = cls
                if item_rest:
                    meta["item"] = item_rest
                node = {
                    "type": "file",
                    "data": cast(pa.FilePart, part).content.base64,
                    "mediaType": item["media_type"],
                }
            else:
                raise InputError(f"{type(part).__name__} has no AI SDK equivalent", path=path)
            if rest:
                meta["part"] = rest
            content.append(_with_options(node, meta, others))
            origins.append(j)
        if hidden:
            record["hidden"] = hidden
        else:
            for node in content:
                _drop_at(node)
        if content:
            node = {"role": "assistant", "content": content}
            if _aborted(msg):
                node["providerOptions"] = {"heal": {ABORTED: True}}
            self._emit(node, i, record=record, meta={}, parts=tuple(origins))


class _Built:
    """A canonical message the fast path read, but for the record its ``providerOptions`` take
    (:func:`_built` builds it once its native message's record is complete)."""

    __slots__ = ("cls", "content", "options")

    def __init__(self, cls: type[Any], content: Any, options: Json | None = None) -> None:
        self.cls = cls
        self.content = content
        self.options = options


_Entry = tuple[_Built, Json, tuple[int | None, ...], int | None]
_Made = tuple[Json, list[_Entry]]
"""What the fast path makes of a message: its record's fields, and per canonical message the
message, its own record keys, its parts' native positions and the part it stands for."""


def _built(node: _Built, record: Json, meta: Json) -> Any:
    """The canonical message the fast path built, with its native message's ``record`` and its
    own keys as ``providerOptions.heal.pydantic_ai`` (beside heal's own marks, if any)."""
    merged = {**record, **meta}
    options = node.options
    if not options:
        return built_message(node.cls, node.content, {"heal": {_NS: merged}})
    heal = {**options.get("heal", {}), _NS: merged}
    return built_message(node.cls, node.content, {**options, "heal": heal})


_PARTS = frozenset({"parts"})
_CONTENT = frozenset({"content"})
_CALL_KEYS = frozenset({"tool_name", "tool_call_id", "args"})
_RETURN_KEYS = frozenset({"tool_name", "tool_call_id", "content"})
_FAST_OUTCOMES = {"success": False, "failed": True, "retried": True}
"""The tool-return outcomes the fast path reads, and whether each is an error."""
_DEFAULT_USAGE = vars(RequestUsage())
"""A default usage's fields (those set apart from the class's own defaults)."""


_NO_DEFAULT: Any = object()


_Plan = tuple[tuple[str, Any], ...]


@cache
def _record_plan(cls: type, drop: frozenset[str]) -> _Plan:
    """The fields of ``cls`` but ``drop``, in order, each with the JSON of its constant
    default (:func:`_defaults`), or ``_NO_DEFAULT``: what :func:`_fast_record` reads."""
    defaults = _defaults(cls)
    return tuple(
        (f.name, defaults.get(f.name, _NO_DEFAULT)) for f in fields(cls) if f.name not in drop
    )


_FAST_RESPONSE_PARTS = frozenset({pa.TextPart, pa.ThinkingPart, pa.ToolCallPart})
"""The response parts :meth:`_Loader._fast_response` reads (those classes exactly)."""


def _fast_record(obj: Any, plan: _Plan, stamps: _Stamps) -> Json | None:
    """``_prune`` of pydantic-ai's JSON of ``obj`` without the fields its ``plan`` leaves out
    (:func:`_record_plan` of its class), made from the object's fields directly; None when a
    field holds anything but a JSON scalar, plain JSON (:func:`heal._verdict.plain_value`), a
    datetime (:func:`_datetime_json`, memo ``stamps``) or a usage, whose JSON this does not
    make.

    Every message and part of a history loaded for a repair comes through here, so each call
    site holds its class's plan (one of the ``_PLAN_*`` below) rather than looking it up."""
    try:
        values = obj.__dict__
    except AttributeError:  # pragma: no cover - pydantic-ai's message classes keep a __dict__
        return None
    out: Json = {}
    for name, default in plan:
        try:
            value = values[name]
        except KeyError:  # a field the object does not hold: the general path reads it
            return None
        if value is default:  # None, or the class's own constant: _prune leaves it out
            continue
        kind = type(value)
        if value is None or kind is str or kind is int or kind is bool:
            pass
        elif kind is datetime:
            out[name] = _datetime_json(value, stamps)  # no default is a datetime
            continue
        elif kind is dict or kind is list or kind is float:
            if not plain_value(value):
                return None
        elif kind is RequestUsage:
            if vars(value) == _DEFAULT_USAGE:
                continue  # the default's JSON, which _prune leaves out
            # Tokens counted: every response a model returned has them. Its JSON is what
            # pydantic-ai's adapter writes for it (a float that is not finite as null, too).
            usage = pydantic_core.to_jsonable_python(value)
            if not _same_json(usage, default):
                out[name] = usage
            continue
        else:
            return None
        if kind is not type(default) or value != default:  # _prune's _same_json
            out[name] = value
    return out


_PLAN_REQUEST = _record_plan(pa.ModelRequest, _PARTS)
_PLAN_RESPONSE = _record_plan(pa.ModelResponse, _PARTS)
_PLAN_SYSTEM = _record_plan(pa.SystemPromptPart, _CONTENT)
_PLAN_USER = _record_plan(pa.UserPromptPart, _CONTENT)
_PLAN_RETURN = _record_plan(pa.ToolReturnPart, _RETURN_KEYS)
_PLAN_CALL = _record_plan(pa.ToolCallPart, _CALL_KEYS)
_PLAN_TEXT = _record_plan(pa.TextPart, _CONTENT)
_PLAN_THINKING = _record_plan(pa.ThinkingPart, _CONTENT)

_Stamps = dict[tuple[datetime, Any, type], str]
_FIXED_ZONES = frozenset({type(None), timezone, pydantic_core.TzInfo})
"""The zones whose instances are equal only when their offsets are (no daylight saving), and
naive datetimes': the zones :func:`_datetime_json` remembers datetimes in."""


def _datetime_json(value: datetime, stamps: _Stamps) -> str:
    """``pydantic_core.to_jsonable_python(value)``, made once per history for each timestamp
    (``stamps`` holds those made): nearly every part and message has one, and histories repeat
    them (a return pydantic-ai synthesizes takes its response's; a stored or generated history
    may hold one time throughout). A conversion was the costliest line of the fast path.

    Two equal datetimes in equal zones of one class ``_FIXED_ZONES`` names, or both naive, have
    the same offset and the same local time, so the same JSON (the class is part of the key:
    pydantic's ``TzInfo(0)`` equals a zone one microsecond off UTC); datetimes of any other
    zone (whose offset may differ between equal ones, across a fold) are converted each time.
    ``tests/adapters/test_partial_conversion.py`` holds this to pydantic_core for any
    sequence of datetimes."""
    zone = value.tzinfo
    kind = type(zone)
    if kind not in _FIXED_ZONES:
        return cast(str, pydantic_core.to_jsonable_python(value))
    key = (value, zone, kind)
    found = stamps.get(key)
    if found is None:
        found = stamps[key] = pydantic_core.to_jsonable_python(value)
    return found


def _fast_user(
    part: pa.UserPromptPart, j: int, stamps: _Stamps
) -> tuple[_Built, Json, tuple[int | None, ...], int | None] | None:
    """A user prompt of a string or strings, as :meth:`_Loader._user` reads it."""
    found = _fast_record(part, _PLAN_USER, stamps)
    if found is None:
        return None
    meta: Json = {"at": j}
    if found:
        meta["part"] = found
    content = part.content
    if type(content) is str:
        return _Built(UserMessage, content), meta, (), j
    if type(content) is not list and type(content) is not tuple:
        return None
    items = []
    for item in content:
        if type(item) is not str:
            return None
        items.append(built_text(item))
    if type(content) is tuple:
        meta["content_tuple"] = True
    return _Built(UserMessage, tuple(items)), meta, (j,) * len(items), j


def _fast_return(part: pa.ToolReturnPart, stamps: _Stamps) -> tuple[str, str, Any, Json] | None:
    """A tool return of string or plain JSON content, as :meth:`_Loader._result` reads it:
    (call id, tool name, output, the part's record of fields, see :func:`_return_meta`)."""
    call_id = part.tool_call_id
    name = part.tool_name
    content = part.content
    error = _FAST_OUTCOMES.get(part.outcome)
    if type(call_id) is not str or type(name) is not str or error is None:
        return None
    found = _fast_record(part, _PLAN_RETURN, stamps)
    if found is None:
        return None
    if type(content) is str:
        output: Any = built_text_output(content, error=error)
    elif plain_value(content):
        output = built_json_output(content, error=error)
        if not isinstance(content, (int, float, bool, type(None))):
            # pydantic-ai records the files of non-scalar content (none here) beside it.
            found["content_file_digests"] = []
    else:
        return None
    return call_id, name, output, found


def _return_meta(i: int, j: int, found: Json) -> Json:
    """The ``heal.pydantic_ai`` record of tool return ``j`` of native message ``i`` whose
    part's record is ``found``, as :meth:`_Loader._result` makes it (the native position kept:
    the request's prompts are interleaved with its returns)."""
    return {"at": [i, j], "part": found} if found else {"at": [i, j]}


def _part_system(part: Any, msg: pa.ModelResponse, canonical: str | None) -> str | None:
    """:func:`part_system` of a response part read by the fast path, from the objects
    (``canonical``: the response's ``canonical_system``)."""
    name = part.provider_name
    if canonical and name is not None and name == msg.provider_name:
        return canonical
    return cast("str | None", name)


def _part_options(meta: Json, others: Json | None) -> Json | None:
    """A response part's ``providerOptions`` as ``_with_options`` and then ``_drop_at`` make
    them."""
    if not others:
        return {"heal": {_NS: meta}} if meta else None
    options: Json = dict(others)
    if meta:
        options["heal"] = {_NS: meta}
    return options


_OCTET = "application/octet-stream"

_CUT_OFF_REASONS = ("length", "error")
"""``ModelResponse.finish_reason`` values of a turn cut off before the model finished: the token
limit (pydantic-ai's own ``IncompleteToolCall`` check reads ``"length"`` as a tool call whose
arguments may be incomplete) or an error (such as Gemini's ``MALFORMED_FUNCTION_CALL``)."""


def _aborted(msg: pa.ModelResponse) -> bool:
    """Whether a response was cut off: ``state == "interrupted"`` (a cancelled stream, or a run
    stopped before acting on the response) or a finish reason in ``_CUT_OFF_REASONS``. Its
    canonical message carries heal's aborted marker (:data:`heal.rules.tool_pairing.ABORTED`),
    which is never written back."""
    return msg.state == "interrupted" or msg.finish_reason in _CUT_OFF_REASONS


def _only_fields(rest: Any, cls: type) -> Json:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in (rest or {}).items() if k in names}


def _drop_at(node: Json) -> None:
    """Forget a node's native position (only needed to interleave hidden parts or units)."""
    options = node["providerOptions"]
    meta = options["heal"][_NS]
    del meta["at"]
    if not meta:
        del options["heal"]
        if not options:
            del node["providerOptions"]


def _rest(data: Json, *drop: str) -> Json:
    return {k: v for k, v in data.items() if k not in drop}


def part_system(pj: Json, message: Json) -> str | None:
    """The system whose keys verify a response part's signed data."""
    name = pj.get("provider_name")
    canonical = message.get("canonical_system")
    if canonical and name is not None and name == message.get("provider_name"):
        return cast(str, canonical)
    return cast("str | None", name)


def _provenance_out(rest: Json, system: str | None, kind: str, meta: Json) -> Json | None:
    """Move a response part's signature and item id to the AI SDK's keys (mutates ``rest``).

    ``provider_details["thought_signature"]`` is Google's wherever it sits: pydantic-ai writes it
    for Gemini parts only, and heal's Google rules may put one on another provider's call.
    """
    ns = _SYSTEM_NAMESPACE.get(system or "")
    out: dict[str, Json] = {}
    if ns is not None:
        sig_key, redacted_id, redacted_key = _SIGNATURE_KEYS[ns]
        if kind == "thinking" and rest.get("signature") is not None:
            redacted = redacted_id is not None and rest.get("id") == redacted_id
            key = cast(str, redacted_key if redacted else sig_key)
            out.setdefault(ns, {})[key] = rest.pop("signature")
        if ns == "openai" and rest.get("id") is not None:
            out.setdefault(ns, {})["itemId"] = rest.pop("id")
    details = rest.get("provider_details")
    if (
        "thoughtSignature" not in out.get("google", {})
        and isinstance(details, dict)
        and details.get("thought_signature") is not None
    ):
        out.setdefault("google", {})["thoughtSignature"] = details["thought_signature"]
        remaining = _rest(details, "thought_signature")
        if remaining:
            rest["provider_details"] = remaining
        else:
            del rest["provider_details"]
        meta["details_signature"] = True
    return out or None


def _load_args(args: Any, meta: Json) -> Any:
    if args is None or (isinstance(args, str) and not args.strip()):
        # pydantic-ai sends both as "no arguments"; heal would wrap them as {"raw": ...}.
        meta["args"] = args
        return {}
    if isinstance(args, str):
        parsed = _loads_object(args)
        if parsed is None:
            return args
        meta["args"] = args
        return parsed
    return args


def _is_file(value: Any) -> bool:
    return isinstance(value, pa.MULTI_MODAL_CONTENT_TYPES)


def _output(obj: Any, content: Any, outcome: str, meta: Json, path: str) -> Json:
    files = _is_file(obj) or (
        isinstance(obj, (list, tuple))
        and any(_is_file(x) for x in obj)
        and all(isinstance(x, str) or _is_file(x) for x in obj)
    )
    if files:
        # Items are named inside the part's ``content``: the file itself, or a list entry.
        if _is_file(obj):
            meta["single"] = True
            items = [_output_item(obj, content, f"{path}.content")]
        else:
            if isinstance(obj, tuple):
                meta["content_tuple"] = True
            items = [
                _output_item(x, xj, f"{path}.content[{k}]")
                for k, (x, xj) in enumerate(zip(obj, content, strict=True))
            ]
        return {"type": "content", "value": items}
    if outcome == "denied" and isinstance(content, str):
        return {"type": "execution-denied", "reason": content}
    error = outcome in _ERROR_OUTCOMES
    if isinstance(content, str):
        return {"type": "error-text" if error else "text", "value": content}
    return {"type": "error-json" if error else "json", "value": content}


def _output_item(item: Any, ij: Any, path: str) -> Json:
    if isinstance(item, str):
        return {"type": "text", "text": item}
    if isinstance(item, pa.UploadedFile):
        raise InputError("UploadedFile has no AI SDK equivalent", path=path)
    meta: Json = {}
    if ij["kind"] == "binary":
        image = item.is_image
        node: Json = {
            "type": "image-data" if image else "file-data",
            "data": item.base64,
            "mediaType": ij["media_type"],
        }
        meta["item"] = _rest(ij, "data", "media_type")
        cls = _binary_class(item)
        if cls is not None:
            meta["class"] = cls
    else:
        node = {"type": "image-url" if ij["kind"] == "image-url" else "file-url", "url": ij["url"]}
        meta["item"] = _rest(ij, "url")
    return _with_options(node, meta)


# --- dump ------------------------------------------------------------------------------------


def _meta(node: Mapping[str, Any]) -> Json:
    options = node.get("providerOptions")
    if not isinstance(options, dict):
        return {}
    heal = options.get("heal")
    found = heal.get(_NS) if isinstance(heal, dict) else None
    return found if isinstance(found, dict) else {}


def _foreign(node: Mapping[str, Any]) -> Json:
    """A copy of a node's providerOptions without heal's namespace (consumed as mapped)."""
    options = node.get("providerOptions")
    if not isinstance(options, dict):
        return {}
    return {k: dict(v) for k, v in options.items() if k != "heal" and isinstance(v, dict)}


def _check_consumed(options: Json, path: str) -> None:
    for ns, values in options.items():
        for key in values:
            raise InputError(
                f"providerOptions.{ns}.{key} has no pydantic-ai equivalent",
                path=f"{path}.providerOptions.{ns}.{key}",
            )


def _synthesized(node: Mapping[str, Any]) -> bool:
    options = node.get("providerOptions")
    heal = options.get("heal") if isinstance(options, dict) else None
    return isinstance(heal, dict) and heal.get("synthesized") is True


def _merge(
    sequences: Sequence[tuple[Sequence[tuple[int | None, T]], bool]],
    hidden: Sequence[tuple[int, T]],
) -> list[T]:
    """Interleave canonical sequences and hidden items by native position.

    Each sequence keeps its own order (heal may have reordered it); an item with no native
    position follows the item before it in its sequence (or precedes the one after), and a
    sequence with no positions at all goes first when ``lead`` else last.
    """
    if len(sequences) == 1 and not hidden:
        return [item for _, item in sequences[0][0]]  # one queue: its own order
    queues: list[list[tuple[float, T]]] = []
    for seq, lead in sequences:
        keys: list[float] = []
        prev: float | None = None
        for idx, (k, _) in enumerate(seq):
            if k is not None:
                prev = k
                keys.append(k)
            elif prev is not None:
                keys.append(prev)
            else:
                nxt = next((x for x, _ in seq[idx:] if x is not None), None)
                keys.append(nxt if nxt is not None else (-1 if lead else _BIG))
        queues.append([(key, item) for key, (_, item) in zip(keys, seq, strict=True)])
    queues.extend([(float(k), item)] for k, item in hidden)
    heads = [0] * len(queues)
    out: list[T] = []
    while True:
        best: int | None = None
        for q, queue in enumerate(queues):
            if heads[q] < len(queue) and (
                best is None or queue[heads[q]][0] < queues[best][heads[best]][0]
            ):
                best = q
        if best is None:
            return out
        out.append(queues[best][heads[best]][1])
        heads[best] += 1


class _Dumper:
    """Writes canonical messages (their AI SDK dicts) as pydantic-ai messages, one span at a
    time (:func:`_spans`): what :func:`dump_messages` writes whole, and :class:`_Writer` only
    where a heal changed something, stepping over the rest (:meth:`skipped`).

    ``messages`` holds the dict of each canonical message to write; :class:`_Writer` leaves
    the others out (None) and gives their ``metas`` (their ``heal.pydantic_ai`` records), the
    ``models`` themselves and ``reuse``: the caller's parts that came through untouched, which
    a message written around them takes back as they are (:meth:`_reused`)."""

    def __init__(
        self,
        messages: Sequence[Json | None],
        metas: Sequence[Json] | None = None,
        models: Sequence[ModelMessage] | None = None,
        reuse: _Reuse | None = None,
    ) -> None:
        self.messages = messages
        self.metas = metas if metas is not None else [_meta(cast(Json, m)) for m in messages]
        self.models = models
        self.reuse = reuse
        self.clock = _EPOCH
        self.emitted: set[str] = set()

    def _once(self, meta: Json) -> Json:
        """The parts and messages a native message carries, the first time it is written.

        heal may split a request's canonical messages apart (a system message moved among the
        leading ones): each piece becomes a request, and only the first carries them.
        """
        if "index" not in meta or _CARRIES.isdisjoint(meta):
            # Nothing carried: nothing to give, and nothing to hold back from a later piece
            # of the same message (whose key, made of these values, would carry nothing too).
            return {}
        key = json.dumps(
            [meta.get(k) for k in ("index", "message", "hidden", "before", "after")],
            sort_keys=True,
        )
        if key in self.emitted:
            return {}
        self.emitted.add(key)
        return {k: meta[k] for k in ("hidden", "before", "after") if k in meta}

    def run(self) -> list[pa.ModelMessage]:
        roles = [cast(Json, m)["role"] for m in self.messages]
        out: list[pa.ModelMessage] = []
        for start, end in _spans(self.metas, roles):
            out.extend(self.span(start, end))
        return out

    def span(self, start: int, end: int) -> list[pa.ModelMessage]:
        """The native message canonical messages ``start`` to ``end`` make, with the
        bookkeeping messages it carries (:meth:`_once`) before and after it."""
        first = self.metas[start]
        carried = self._once(first)
        out = self._carried(carried.get("before"))
        msg = cast(Json, self.messages[start])
        if msg["role"] == "assistant":
            out.append(self._response(msg, start, carried.get("hidden")))
        else:
            out.append(self._request(start, end, carried.get("hidden")))
        out.extend(self._carried(carried.get("after")))
        return out

    def skipped(self, spans: list[tuple[int, int, Json]], messages: Sequence[ModelMessage]) -> None:
        """Step over ``spans`` of ``messages`` (start, end, what each carried), written
        elsewhere (the caller's own messages): the clock moves as :meth:`span` would move it.

        The clock is the last timestamp written, so the spans are read from the last one back,
        and only until one holds a timestamp (the first place looked at, as a rule)."""
        for start, end, carried in reversed(spans):
            found = self._last_stamp(start, end, messages, carried)
            if found is not None:
                self.clock = found
                return

    def _last_stamp(
        self, start: int, end: int, messages: Sequence[ModelMessage], carried: Json
    ) -> str | None:
        """The last timestamp :meth:`span` would tick on the span ``start`` to ``end`` (in its
        order: the messages carried before it, the record, each part or unit, the messages
        carried after it), or None."""
        for item in reversed(carried.get("after") or ()):
            found = _stamp(item["message"])
            if found is not None:
                return found
        for k in range(end - 1, start - 1, -1):
            message = messages[k]
            if isinstance(message, (AssistantMessage, ToolMessage)):
                if isinstance(message.content, str):
                    continue
                for part in reversed(message.content):
                    if isinstance(part, ToolResultPart):
                        found = _stamp(_model_meta(part).get("part"))
                        if found is not None:
                            return found
            else:
                meta = self.metas[k]
                found = _stamp(meta.get("part") or meta.get("feedback"))
                if found is not None:
                    return found
        found = _stamp(self.metas[start].get("message"))
        if found is not None:
            return found
        for item in reversed(carried.get("before") or ()):
            found = _stamp(item["message"])
            if found is not None:
                return found
        return None

    def _reused(self, k: int, p: int | None, record: Json | None, index: Any) -> Any:
        """The caller's own part that canonical message ``k`` (its part ``p``, or the whole
        message standing for one prompt part when None) came through the heal as, untouched,
        in a message with the record it came in (whose fields a part's provider is read from):
        writing it would give an equal part. None for any other."""
        reuse, models = self.reuse, self.models
        if reuse is None or models is None:
            return None
        model: Any = models[k]
        if p is not None:
            content = model.content
            if isinstance(content, str):
                return None
            model = content[p]
        return reuse.part(model, index, record)

    # -- helpers --

    def _tick(self, data: Mapping[str, Any] | None) -> None:
        found = _stamp(data)
        if found is not None:
            self.clock = found

    def _stamped(self, data: Json) -> Json:
        if data.get("timestamp") is None:
            data["timestamp"] = self.clock
        else:
            self._tick(data)
        return data

    def _carried(self, items: Any) -> list[pa.ModelMessage]:
        out: list[pa.ModelMessage] = []
        for carried in items or ():
            self._tick(carried["message"])
            (msg,) = _MESSAGES.validate_python([carried["message"]])
            if carried.get("parts_tuple"):
                msg.parts = tuple(cast(list[Any], msg.parts))
            out.append(msg)
        return out

    @staticmethod
    def _validate(adapter: pydantic.TypeAdapter[Any], data: Json, path: str) -> Any:
        try:
            if adapter is not _RETRY_PROMPT and data.get("part_kind") != "retry-prompt":
                return adapter.validate_python(data)
            with warnings.catch_warnings():
                # Restoring a RetryPromptPart the caller held must not warn them again.
                warnings.simplefilter("ignore", DeprecationWarning)
                warnings.simplefilter("ignore", PydanticAIDeprecationWarning)
                return adapter.validate_python(data)
        except pydantic.ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where = _loc_path(first["loc"]).removeprefix("messages")
            raise InputError(
                f"pydantic-ai rejects the part: {first['msg']}", path=f"{path}{where}"
            ) from None

    def _shell(
        self, cls: type[Any], adapter: pydantic.TypeAdapter[Any], meta: Json, path: str
    ) -> Any:
        data = dict(meta.get("message") or {})
        data["parts"] = []
        if cls is pa.ModelResponse:
            data = self._stamped(data)
        else:
            self._tick(data)
        return self._validate(adapter, data, path)

    # -- requests --

    def _request(self, start: int, end: int, hidden_raw: Any) -> pa.ModelRequest:
        first = self.metas[start]
        shell = self._shell(pa.ModelRequest, _REQUEST, first, f"messages[{start}]")
        index = first.get("index")
        sequences: list[tuple[list[tuple[int | None, Any]], bool]] = []
        for k in range(start, end):
            msg = cast(Json, self.messages[k])
            path = f"messages[{k}]"
            meta = self.metas[k]
            _check_consumed(_foreign(msg), path)
            role = msg["role"]
            kept = self._reused(k, None, first.get("message"), index)
            if kept is not None:  # a prompt part of the caller's, untouched
                self._tick(meta.get("part") or meta.get("feedback"))
                sequences.append(([(meta.get("at"), kept)], False))
            elif role == "tool":
                seq: list[tuple[int | None, Any]] = []
                for p, part in enumerate(msg["content"]):
                    ppath = f"{path}.content[{p}]"
                    pmeta = _meta(part)
                    at = pmeta.get("at")
                    pos = at[1] if isinstance(at, list) and at[0] == index else None
                    kept = self._reused(k, p, first.get("message"), index)
                    if kept is not None:
                        self._tick(pmeta.get("part"))
                    else:
                        kept = self._tool_result(part, pmeta, ppath, in_response=False)
                    seq.append((pos, kept))
                sequences.append((seq, True))
            elif role == "system":
                data = _only_fields(meta.get("part"), pa.SystemPromptPart)
                data["content"] = msg["content"]
                data["part_kind"] = "system-prompt"
                part_obj = self._validate(_REQUEST_PART, self._stamped(data), path)
                sequences.append(([(meta.get("at"), part_obj)], False))
            else:
                sequences.append(([(meta.get("at"), self._user(msg, meta, path))], False))
        hidden = [
            (j, self._validate(_REQUEST_PART, pj, f"messages[{start}]"))
            for j, pj in hidden_raw or []
        ]
        parts = _merge(sequences, hidden)
        shell.parts = tuple(parts) if first.get("parts_tuple") else parts
        return cast(pa.ModelRequest, shell)

    def _user(self, msg: Json, meta: Json, path: str) -> Any:
        content = msg["content"]
        texts = [content] if isinstance(content, str) else [p.get("text") for p in content]
        if "feedback" in meta and all(isinstance(t, str) for t in texts):
            return self._feedback("".join(cast(list[str], texts)), meta, path)
        # The part record may be a system prompt's (heal turned one into user text) or a retry
        # feedback's (heal merged other user content into it): only a user prompt's fields fit.
        data = _only_fields(meta.get("part") or meta.get("feedback"), pa.UserPromptPart)
        data["part_kind"] = "user-prompt"
        if isinstance(content, str):
            data["content"] = content
            return self._validate(_REQUEST_PART, self._stamped(data), path)
        seq: list[tuple[int | None, tuple[Any, str | None]]] = []
        for p, item in enumerate(content):
            ipath = f"{path}.content[{p}]"
            imeta = _meta(item)
            _check_consumed(_foreign(item), ipath)
            seq.append((imeta.get("at"), _user_item(item, imeta, ipath)))
        hidden = [(k, (ij, None)) for k, ij in meta.get("items_hidden") or []]
        items = _merge([(seq, False)], hidden)
        data["content"] = [built for built, _ in items]
        part = self._validate(_REQUEST_PART, self._stamped(data), path)
        # Validation narrows an image BinaryContent to BinaryImage: restore the class held.
        for pos, (built, cls) in enumerate(items):
            if cls is not None:
                part.content[pos] = self._validate(_adapter(cls), built, f"{path}.content[{pos}]")
        if meta.get("content_tuple"):
            part.content = tuple(part.content)
        return part

    def _feedback(self, content: str, meta: Json, path: str) -> Any:
        data = dict(meta["feedback"])
        legacy = bool(meta.get("legacy"))
        adapter = _adapter("RetryPromptPart") if legacy else _REQUEST_PART
        if not legacy:
            data["part_kind"] = "retry-feedback"
        part = self._validate(adapter, self._stamped(data), path)
        if part.model_response() != content:
            data["content"] = content
            part = self._validate(adapter, data, path)
        return part

    def _tool_result(self, node: Json, meta: Json, path: str, *, in_response: bool) -> Any:
        if node.get("type") != "tool-result":
            raise InputError(f"{node.get('type')} parts have no pydantic-ai equivalent", path=path)
        _check_consumed(_foreign(node), path)
        data: Json = dict(meta.get("part") or {})
        data["tool_name"] = node["toolName"]
        data["tool_call_id"] = node["toolCallId"]
        output = node["output"]
        if meta.get("legacy"):
            data["content"] = output.get("value")
            return self._validate(_adapter("RetryPromptPart"), self._stamped(data), path)
        data["content"], outcome, fixes = _dump_output(output, meta, data.get("outcome"), path)
        if outcome == "success":
            data.pop("outcome", None)
        else:
            data["outcome"] = outcome
        if not meta and _synthesized(node):
            data["metadata"] = {pa.SYNTHESIZED_TOOL_RETURN_METADATA_KEY: True}
        data["part_kind"] = "builtin-tool-return" if in_response else "tool-return"
        adapter = _RESPONSE_PART if in_response else _REQUEST_PART
        part = self._validate(adapter, self._stamped(data), path)
        for pos, cls, built in fixes:
            value = self._validate(_adapter(cls), built, path)
            if pos is None:
                part.content = value
            else:
                part.content[pos] = value
        if meta.get("content_tuple") and isinstance(part.content, list):
            part.content = tuple(part.content)
        return part

    # -- responses --

    def _response(self, msg: Json, k: int, hidden_raw: Any) -> pa.ModelResponse:
        path = f"messages[{k}]"
        meta = _meta(msg)
        _check_consumed(_foreign(msg), path)
        shell = self._shell(pa.ModelResponse, _RESPONSE, meta, path)
        message_rest = meta.get("message") or {}
        index = meta.get("index")
        content = msg["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        seq: list[tuple[int | None, Any]] = []
        own_name: list[Any] = []  # parts that must read as their provider_name
        for p, part in enumerate(content):
            ppath = f"{path}.content[{p}]"
            pmeta = _meta(part)
            at = pmeta.get("at")
            pos = at[1] if isinstance(at, list) and at[0] == index else None
            kept = self._reused(k, p, meta.get("message"), index)
            if kept is None:
                kept, canonical_misreads = self._response_part(part, pmeta, message_rest, ppath)
                if canonical_misreads:
                    own_name.append(kept)
            elif part.get("type") == "tool-result":
                self._tick(pmeta.get("part"))
            seq.append((pos, kept))
        hidden = [(j, self._validate(_RESPONSE_PART, pj, path)) for j, pj in hidden_raw or []]
        parts = _merge([(seq, False)], hidden)
        if own_name:
            parts = _read_by_name(shell, parts, own_name)
        shell.parts = tuple(parts) if meta.get("parts_tuple") else parts
        return cast(pa.ModelResponse, shell)

    def _response_part(
        self, node: Json, meta: Json, message_rest: Json, path: str
    ) -> tuple[Any, bool]:
        """The part, and whether the response's canonical system would misread its provider."""
        kind = node["type"]
        if kind == "tool-result":
            return self._tool_result(node, meta, path, in_response=True), False
        options = _foreign(node)
        data: Json = dict(meta.get("part") or {})
        fix: str | None = None
        if kind == "text":
            data["content"] = node["text"]
            data["part_kind"] = "text"
        elif kind == "reasoning":
            data["content"] = node["text"]
            data["part_kind"] = "thinking"
        elif kind == "tool-call":
            data["tool_name"] = node["toolName"]
            data["tool_call_id"] = node["toolCallId"]
            data["args"] = _dump_args(node.get("input"), meta)
            data["part_kind"] = "builtin-tool-call" if node.get("providerExecuted") else "tool-call"
        elif kind == "file":
            item = dict(meta.get("item") or {})
            item.setdefault("kind", "binary")
            item["data"] = _bytes(node["data"], f"{path}.data")
            item["media_type"] = node["mediaType"]
            data["content"] = item
            data["part_kind"] = "file"
            fix = meta.get("class")
        else:
            raise InputError(f"{kind} parts have no pydantic-ai equivalent", path=path)
        misread = _provenance_in(data, options, meta, message_rest, data["part_kind"])
        _check_consumed(options, path)
        part = self._validate(_RESPONSE_PART, data, path)
        if fix is not None:
            part.content = self._validate(_adapter(fix), data["content"], f"{path}.data")
        return part, misread


def _read_by_name(shell: Any, parts: list[Any], own_name: list[Any]) -> list[Any]:
    """Parts of a merged response, each read as the system that signed it.

    pydantic-ai reads a part naming the response's provider as the response's canonical system.
    When heal merged a response whose parts that rule misreads (thinking signed by "anthropic"
    under a response named "anthropic" with the canonical system "openai"), the response stops
    naming a provider and every other part naming it names the canonical system instead: each
    part then reads as it did before the merge. The response keeps its canonical system.
    """
    name, canonical = shell.provider_name, shell.canonical_system
    shell.provider_name = None
    keep = {id(part) for part in own_name}
    return [
        replace(part, provider_name=canonical)
        if id(part) not in keep and getattr(part, "provider_name", None) == name
        else part
        for part in parts
    ]


def _spans(metas: Sequence[Json], roles: Sequence[str]) -> list[tuple[int, int]]:
    """The canonical messages cut into the runs that each make one native message, as
    ``(start, end)`` pairs: each assistant message alone (a response); consecutive other
    messages with the same native record (index and message fields) and no native position
    twice (a request), or with no record at all (from elsewhere)."""
    spans: list[tuple[int, int]] = []
    k, n = 0, len(metas)
    while k < n:
        if roles[k] == "assistant":
            spans.append((k, k + 1))
            k += 1
            continue
        end = k + 1
        first = metas[k]
        seen = {first.get("at")} if "at" in first else set()
        while end < n and roles[end] != "assistant":
            other = metas[end]
            if first and other:
                same = (
                    other.get("index") == first.get("index")
                    and other.get("message") == first.get("message")
                    and ("at" not in other or other["at"] not in seen)
                )
            else:
                same = not first and not other
            if not same:
                break
            if "at" in other:
                seen.add(other["at"])
            end += 1
        spans.append((k, end))
        k = end
    return spans


def _stamp(data: Mapping[str, Any] | None) -> str | None:
    """The timestamp a record ticks the dumper's clock to, if it holds one."""
    found = data.get("timestamp") if data is not None else None
    return found if isinstance(found, str) else None


def _model_meta(model: Any) -> Json:
    """The ``heal.pydantic_ai`` record of a canonical model (message or part)."""
    options = model.provider_options
    heal = options.get("heal") if options is not None else None
    found = heal.get(_NS) if isinstance(heal, dict) else None
    return found if isinstance(found, dict) else _EMPTY_JSON


_EMPTY_JSON: Json = {}
_CARRIES = frozenset({"hidden", "before", "after"})
"""The record keys of what a native message carries besides its canonical messages."""


def _user_item(item: Json, meta: Json, path: str) -> tuple[Any, str | None]:
    """A user prompt item as pydantic-ai validates it, and the class to restore on it, if any."""
    kind = item["type"]
    rest = dict(meta.get("item") or {})
    if kind == "text":
        return ({**rest, "content": item["text"]} if rest else item["text"]), None
    if kind == "image":
        data, media_type = item["image"], item.get("mediaType")
        url_kind = "image-url"
    else:
        data, media_type = item["data"], item["mediaType"]
        url_kind = _url_kind(media_type)
    if "kind" not in rest:  # from elsewhere: bytes, a data URL, another URL, or base64
        if isinstance(data, str) and data.startswith("data:"):
            try:
                binary = pa.BinaryContent.from_data_uri(data)
            except ValueError as exc:
                raise InputError(f"not a usable data URL ({exc})", path=path) from None
            return {"kind": "binary", "data": binary.data, "media_type": binary.media_type}, None
        rest["kind"] = url_kind if isinstance(data, str) and _URL.match(data) else "binary"
    if rest["kind"] == "binary":
        rest["data"] = _bytes(data, path)
        rest["media_type"] = media_type or _sniff_image(rest["data"])
        if rest["media_type"] is None:
            raise InputError("inline data needs a mediaType for pydantic-ai", path=path)
        return rest, meta.get("class")
    rest["url"] = data
    if not ("media_type" in rest and rest["media_type"] is None and media_type == _OCTET):
        rest["media_type"] = media_type  # None: pydantic-ai infers it from the URL
    return rest, None


def _url_kind(media_type: str | None) -> str:
    for prefix, kind in (("image/", "image-url"), ("audio/", "audio-url"), ("video/", "video-url")):
        if media_type is not None and media_type.startswith(prefix):
            return kind
    return "document-url"


_MAGIC = ((b"\x89PNG", "image/png"), (b"\xff\xd8\xff", "image/jpeg"), (b"GIF8", "image/gif"))


def _sniff_image(data: bytes) -> str | None:
    for magic, media_type in _MAGIC:
        if data.startswith(magic):
            return media_type
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


@cache
def _adapter(cls: str) -> pydantic.TypeAdapter[Any]:
    return pydantic.TypeAdapter(getattr(pa, cls))


_RETRY_PROMPT = _adapter("RetryPromptPart")
"""The adapter of the deprecated part, which warns when it is built (see _Dumper._validate)."""


def _bytes(data: Any, path: str) -> bytes:
    if isinstance(data, bytes):
        return data
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        pass
    try:
        return base64.b64decode(data, altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        raise InputError("data is neither a URL nor base64", path=path) from None


def _dump_args(value: Any, meta: Json) -> Any:
    if "args" in meta:
        original = meta["args"]
        if original is None or (isinstance(original, str) and not original.strip()):
            if value == {}:
                return original
        elif isinstance(original, str) and _loads_object(original) == value:
            return original
    if value is None or isinstance(value, (dict, str)):
        return value
    return json.dumps(value)


_GOOGLE_NAMESPACES = ("google", "vertex", "googleVertex")
_OPENAI_NAMESPACES = ("openai", "azure")
_NAMESPACE_SYSTEM = {"anthropic": "anthropic", "openai": "openai", "azure": "openai"}
_NAMESPACE_SYSTEM.update(dict.fromkeys(_GOOGLE_NAMESPACES, "google") | {"bedrock": "bedrock"})


def _provenance_in(
    data: Json, options: Json, meta: Json, message_rest: Json, part_kind: str
) -> bool:
    """Put signatures and item ids back into their pydantic-ai fields (consumes ``options``).

    A part keeps the provider it came from; one from elsewhere gets the provider of the first
    namespace it had a signature or item id in. Keys heal's provider rules add (such as Google's
    documented ``skip_thought_signature_validator`` on a tool call) map the same way.

    True when the part's signature belongs to the system its ``provider_name`` names, but the
    response's canonical system would read it as another's (a part heal merged in from another
    response).
    """
    own = _SYSTEM_NAMESPACE.get(part_system(data, message_rest) or "") if meta else None
    misread = False
    used: list[str] = []
    for ns in options:  # None carries nothing: a key heal cleared
        for key in [k for k, v in options[ns].items() if v is None]:
            del options[ns][key]
    if part_kind == "thinking":
        order = [own] if own is not None else []
        order += [n for n in _FOREIGN_ORDER if n != own]
        for ns in order:
            found = options.get(ns) or {}
            sig_key, redacted_id, redacted_key = _SIGNATURE_KEYS[ns]
            if redacted_key is not None and redacted_key in found:
                data["signature"] = found.pop(redacted_key)
                data.setdefault("id", redacted_id)
            elif sig_key in found and not (ns == "google" and meta.get("details_signature")):
                data["signature"] = found.pop(sig_key)
            else:
                continue
            used.append(ns)
            break
        if meta:
            misread = _read_as_signed(data, message_rest, own, used[0] if used else None)
    for ns in _GOOGLE_NAMESPACES:
        found = options.get(ns) or {}
        if "thoughtSignature" not in found:
            continue
        details = dict(data.get("provider_details") or {})
        signature = found["thoughtSignature"]
        if details.get("thought_signature", signature) != signature:
            continue  # two different signatures: the second has nowhere to go
        found.pop("thoughtSignature")
        details["thought_signature"] = signature
        data["provider_details"] = details
        used.append(ns)
    for ns in _OPENAI_NAMESPACES:
        found = options.get(ns) or {}
        if "itemId" in found and data.get("id") in (None, found["itemId"]):
            data["id"] = found.pop("itemId")
            used.append(ns)
    for ns in [ns for ns, values in options.items() if not values]:
        del options[ns]
    if used and not meta and data.get("provider_name") is None:
        data["provider_name"] = _NAMESPACE_SYSTEM[used[0]]
    return misread


def _read_as_signed(data: Json, message_rest: Json, own: str | None, signed: str | None) -> bool:
    """Make a thinking part read as the system that signed it; True when only the response can.

    The part may sit in another response than the one it was read from (heal merged them), so
    its ``provider_name`` under this response's canonical system may name another system. A
    part whose signature is in a system's namespace names that system. A signature kept in
    heal's namespace was read under a system without one: the part must not read as one now.
    """
    if signed is None:
        # Kept in heal's namespace on load: the system it read as had no namespace.
        named = _SYSTEM_NAMESPACE.get(data.get("provider_name") or "")
        return own is not None and data.get("signature") is not None and named is None
    if own == signed:
        return False
    if _SYSTEM_NAMESPACE.get(data.get("provider_name") or "") != signed:
        data["provider_name"] = _NAMESPACE_SYSTEM[signed]
    return _SYSTEM_NAMESPACE.get(part_system(data, message_rest) or "") != signed


def _dump_output(
    output: Json, meta: Json, outcome: Any, path: str
) -> tuple[Any, str, list[tuple[int | None, str, Json]]]:
    """Tool-return content, outcome, and items whose class to restore: (position, class, data)."""
    kind = output["type"]
    fixes: list[tuple[int | None, str, Json]] = []
    if kind == "content":
        items: list[Any] = []
        single = bool(meta.get("single")) and len(output["value"]) == 1
        for p, item in enumerate(output["value"]):
            built, cls = _dump_output_item(item, f"{path}.output.value[{p}]")
            if cls is not None:
                fixes.append((None if single else p, cls, built))
            items.append(built)
        return (items[0] if single else items), outcome or "success", fixes
    if kind == "execution-denied":
        reason = output.get("reason")
        return (_DENIED_TEXT if reason is None else reason), "denied", fixes
    value = output.get("value")
    if kind in ("error-text", "error-json"):
        return value, outcome if outcome in _ERROR_OUTCOMES else "failed", fixes
    if outcome in ("interrupted", "denied"):
        return value, cast(str, outcome), fixes
    return value, "success", fixes


def _dump_output_item(item: Json, path: str) -> tuple[Any, str | None]:
    kind = item.get("type")
    meta = _meta(item)
    _check_consumed(_foreign(item), path)
    if kind == "text":
        return item["text"], None
    rest = dict(meta.get("item") or {})
    if kind in ("image-data", "file-data", "media"):
        rest.setdefault("kind", "binary")
        rest["data"] = _bytes(item["data"], f"{path}.data")
        rest["media_type"] = item["mediaType"]
        return rest, meta.get("class")
    if kind in ("image-url", "file-url"):
        rest.setdefault("kind", "image-url" if kind == "image-url" else "document-url")
        rest["url"] = item["url"]
        return rest, None
    raise InputError(f"{shown(kind)} tool output items have no pydantic-ai equivalent", path=path)
