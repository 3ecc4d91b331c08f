"""LangChain message histories (``langchain_core.messages``: ``SystemMessage``, ``HumanMessage``,
``AIMessage``, ``ToolMessage``).

::

    from heal.adapters.langchain import heal_langchain

    result = heal_langchain(state["messages"])
    result.messages   # healed message objects (your own list when nothing changed, your own
                      # messages wherever heal changed nothing)
    result.repairs    # message_index = index in YOUR list; part_index: see "Part indices"

``load_messages(native)`` reads a history into heal's canonical messages (AI SDK
``ModelMessage``) and ``dump_messages(messages)`` writes them back as LangChain message objects;
``dump_messages(load_messages(x)) == x`` (LangChain's own equality) for every valid history whose
fields hold JSON values. The adapter translates and never heals: what it cannot represent raises
:class:`~heal.errors.InputError` naming the native place, such as ``messages[3].content[1]``.

When a history needs a repair, ``heal_langchain`` converts only what the repair needs: the common
messages (string content; text blocks, and the ``tool_use`` blocks of ``ChatAnthropic``'s list
content; tool calls of JSON objects; a chat model's metadata) are read straight into canonical
models, and after the heal the messages it left alone are your own objects; one whose calls or
result only got new ids or tool names is a copy of yours with those replaced (in ``tool_calls``
and in the ``tool_use`` blocks that matched them); only the others are written anew. The result
equals the whole history written out.

``heal_langchain`` takes ``provider="auto"`` by default: the heal provider id is inferred from the
AI messages' ``response_metadata["model_provider"]`` (OpenAI's Chat and Responses APIs told apart
by the response id, ``chatcmpl-`` / ``resp_``) when EVERY AI message agrees on one, else ``None``
(the shared rules). Pass a provider id, or ``None``, to choose.

For Google, ``google-split-tool-results`` does not run: LangChain holds one result per
``ToolMessage``, and both Gemini integrations send the results of one ``AIMessage`` as one
function-response turn themselves (``_SETTLED``).

Mapping (native → canonical)
----------------------------
One canonical message per native one (so message indices are native indices).

* ``SystemMessage`` → system message; a list of text blocks is joined with ``"\\n"`` and split
  back on dump while the text keeps its shape.
* ``HumanMessage`` → user message; string content stays a string. Blocks: strings and ``text``
  → text parts; images (``image_url``; ``image`` with ``url`` / ``base64`` / legacy
  ``source_type`` / Anthropic ``source``) → image parts; files (``file``, ``audio``, ``video``,
  OpenAI ``file.file_data``, ``input_audio``, Anthropic ``document`` with a base64 or URL source)
  → file parts (URL or base64 data, ``mime_type`` as the media type, ``filename``).
* ``AIMessage`` → assistant message, parts in this order: ``additional_kwargs["reasoning_content"]``
  → reasoning; then ``content`` in order (a non-empty string → one text part; ``text`` → text;
  ``thinking`` → reasoning with ``anthropic.signature``; ``redacted_thinking`` → reasoning with
  ``anthropic.redactedData``; OpenAI ``reasoning`` items → reasoning with ``openai.itemId`` /
  ``openai.reasoningEncryptedContent`` (summaries joined with a blank line); standard ``reasoning``
  → reasoning, its ``extras.signature`` under the message's provider; ``tool_use`` / ``tool_call``
  / ``function_call`` blocks → the tool call of ``tool_calls`` with that id, at the block's place;
  Anthropic ``server_tool_use`` → provider-executed tool call and ``*_tool_result`` → its result;
  image / file blocks → file parts); then the other ``tool_calls``; then ``invalid_tool_calls``,
  whose ``args`` string is the raw input (heal's ``invalid-tool-input`` rule repairs it; a call
  whose input became an object dumps back into ``tool_calls``). A missing tool-call id or name is
  ``""`` (and dumps back as missing while it stays so).
* ``ToolMessage`` → tool message with one tool result: the name is ``name``, else the name of the
  call with that id (nearest before, else after), else ``unknown_tool``. String content → ``text``
  output, blocks (strings, text, images, files) → ``content`` output, any other list → ``json``;
  ``status="error"`` → ``error-text`` / ``error-json``.

On dump, a tool call's content block follows heal's changes to the call (id, name, input) for the
fields that matched ``tool_calls`` when loaded, and is removed with the call; the raw OpenAI
``additional_kwargs["tool_calls"]`` entries follow the same way (langchain-openai sends them when
``tool_calls`` is empty), and Gemini's map of tool-call id → signature,
``additional_kwargs["__gemini_function_call_thought_signatures__"]``, is
``providerOptions.google.thoughtSignature`` on each call.

Part indices
------------
A repair's ``part_index`` is the ``content`` index of the block a part came from (a string content
counts as one block), or, for a tool call with no block, ``len(content) + i`` for ``tool_calls[i]``
and ``len(content) + len(tool_calls) + i`` for ``invalid_tool_calls[i]``; reasoning from
``additional_kwargs`` has none. ``describe()`` names the place itself: ``messages[1].tool_calls[0]``
for a tool call (with a content block or not), ``messages[1].invalid_tool_calls[0]``,
``messages[1].additional_kwargs.reasoning_content``, ``messages[2]`` for a tool result (its whole
ToolMessage), ``messages[0].content[1]`` for a block.

Aborted turns
-------------
An ``AIMessage`` whose ``response_metadata`` says the token limit cut it off (``finish_reason``
``"length"`` from OpenAI-format integrations, ``stop_reason`` ``"max_tokens"`` from
langchain-anthropic, ``finish_reason`` ``"MAX_TOKENS"`` from langchain-google-genai,
``stopReason`` ``"max_tokens"`` from langchain-aws) becomes an assistant message marked
``providerOptions.heal.aborted`` (:data:`heal.rules.tool_pairing.ABORTED`), never written back.
``orphan-tool-call`` removes its calls that have no ``ToolMessage`` (``tool_calls`` and
``invalid_tool_calls`` alike: their arguments may be cut short) rather than answering them; its
choice ``placeholder-every-call`` answers them as it does any other call. ``tool_call_chunks``
live on message chunks, which are refused (see below).

Where native-only fields live
-----------------------------
Under ``providerOptions["heal"]["langchain"]`` of the canonical message or part: ``message`` (the
message's fields other than its content and tool calls, defaults left out: ``id``, ``name``,
``additional_kwargs``, ``response_metadata``, ``usage_metadata``, extra fields; on a tool result
also ``artifact`` and ``status``), ``block`` (a content block minus the values the part holds),
``at`` / ``tc`` / ``itc`` (its place in ``content``, ``tool_calls``, ``invalid_tool_calls``),
``sync`` (which block fields followed the tool call), ``content`` (``"str"`` for a string content)
and a few shape markers. Content blocks no AI SDK part can hold in an AI message (provider items
such as OpenAI ``web_search_call``) ride along verbatim under ``hidden`` at their place, when the
message has other content; heal does not check them. When healing removes all that other content,
they are removed with it (a repair each, under the rule that removed the last of it).

Not representable (raise :class:`~heal.errors.InputError`): content blocks whose ``type`` is a
list or an object (LangChain itself fails on them), message chunks (``AIMessageChunk``:
merge them with ``message_chunk_to_message`` first), ``ChatMessage``, ``FunctionMessage``,
``RemoveMessage``, unknown block types in system, human and tool messages (and an AI message made
only of them), files referenced by provider file id, and field values that are not JSON (an
``artifact`` holding a Python object, bytes, tuples). On dump, canonical parts with no LangChain
form raise too: tool approval requests and responses, and ``providerOptions`` other than the keys
above (and heal's own ``heal`` namespace).

Canonical → native for histories from elsewhere
-----------------------------------------------
System, user and assistant messages become ``SystemMessage`` / ``HumanMessage`` / ``AIMessage``
(a lone text part as a string); each tool result becomes one ``ToolMessage`` (JSON outputs as JSON
text, error outputs with ``status="error"``). Reasoning with an Anthropic signature becomes a
``thinking`` block, with an OpenAI item id or encrypted content an OpenAI ``reasoning`` block, and
unsigned reasoning ``additional_kwargs["reasoning_content"]`` (what DeepSeek and other
OpenAI-compatible servers read); images and files become standard (v1) ``image`` / ``file``
blocks.
"""

from __future__ import annotations

import base64
import copy
import json
import math
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, partial
from types import MappingProxyType
from typing import Any, Literal, cast

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    BaseMessageChunk,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.messages.ai import InputTokenDetails, OutputTokenDetails, UsageMetadata

from heal._construct import copied
from heal._engine import HealScope, IdRenamer
from heal._verdict import (
    AFTER,
    MAX_DEPTH,
    PLAIN_TERMS,
    Terms,
    asked_scope,
    ended,
    engine_reads_reasoning,
    plain_input,
    plain_inputs,
    plain_texts,
    plain_thoughts,
    plain_value,
    plain_values,
    terms_for,
    walked_clean,
    walked_verdict,
)
from heal.adapters._common import (
    Loaded,
    NativeHealResult,
    Sources,
    built_call,
    built_message,
    built_reasoning,
    built_result,
    built_text,
    built_text_output,
    collector_paused,
    format_policy,
    heal_native,
    native_path,
    native_target,
    settled,
    written_back,
)
from heal.errors import InputError
from heal.messages import AssistantMessage as _Assistant
from heal.messages import ModelMessage, ToolCallPart, shown
from heal.messages import SystemMessage as _System
from heal.messages import ToolMessage as _Tool
from heal.messages import UserMessage as _User
from heal.messages import dump_messages as _dump_canonical
from heal.messages import load_messages as _load_canonical
from heal.policy import Policy
from heal.providers import LANGCHAIN_MODEL_PROVIDERS, ProviderId, openai_api_by_response_id
from heal.repairs import Action, Repair, Scope
from heal.rules import Rule
from heal.rules._quick import NOT_PLAIN
from heal.rules.files import OPENAI_FILE_ID_PREFIX, PLAIN_IMAGE_TYPES
from heal.rules.tool_pairing import ABORTED
from heal.targets import Target

__all__ = [
    "UNKNOWN_TOOL_NAME",
    "dump_messages",
    "heal_langchain",
    "infer_provider",
    "load",
    "load_messages",
]

UNKNOWN_TOOL_NAME = "unknown_tool"
"""The canonical tool name of a result whose call is nowhere and whose message has no name."""

_NS = "langchain"
_GEMINI_SIGNATURES = "__gemini_function_call_thought_signatures__"
_SYSTEM_SEPARATOR = "\n"
_SUMMARY_SEPARATOR = "\n\n"
_OCTET = "application/octet-stream"
_DENIED_TEXT = "Tool execution denied."
_URL = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*:")
_DATA_URL = re.compile(r"data:([^;,]+)[;,]")
_AUDIO_FORMATS = {"wav": "audio/wav", "mp3": "audio/mpeg"}
_PARTIAL = True
"""Convert only what a heal needs: build the models of common messages directly from the
caller's objects (the loader's fast path) and write back only the messages a heal changed
(:class:`_Writer`). The tests switch it off to compare with converting everything through
``model_dump`` and the AI SDK dicts."""

_CALL_BLOCKS = {
    # block type: (id path, name path, input path, input is JSON text)
    "tool_use": (("id",), ("name",), ("input",), False),
    "tool_call": (("id",), ("name",), ("args",), False),
    "function_call": (("call_id",), ("name",), ("arguments",), True),
}

# Which AI SDK namespace a standard reasoning block's ``extras.signature`` belongs to.
_SIGNATURE_HOMES = {
    "anthropic": ("anthropic", "signature"),
    "bedrock": ("bedrock", "signature"),
    "bedrock_converse": ("bedrock", "signature"),
    "google_genai": ("google", "thoughtSignature"),
    "google_vertexai": ("google", "thoughtSignature"),
}

_SETTLED: dict[ProviderId | None, tuple[str, ...]] = {
    # One ToolMessage per result is this format's shape, and both Gemini integrations send the
    # results of an AIMessage as one function-response turn themselves: langchain-google-genai's
    # _parse_chat_history gathers the ToolMessages answering its tool_calls by id, and
    # langchain-google-vertexai's _parse_chat_history_gemini appends each ToolMessage to the
    # user turn before it (langchain-ai/langchain-google, libs/genai and libs/vertexai
    # chat_models.py at 75f7581). Merged, they would be written apart again (see
    # heal.adapters._common.format_policy).
    "google": ("google-split-tool-results",),
}
"""Rules whose problem this format cannot have, by provider."""

Json = dict[str, Any]
_CLASSES: dict[str, type[BaseMessage]] = {
    "system": SystemMessage,
    "user": HumanMessage,
    "assistant": AIMessage,
    "tool": ToolMessage,
}


# --- public API ------------------------------------------------------------------------------


def load(native: Iterable[BaseMessage]) -> Loaded:
    """Read LangChain messages; return canonical messages and their native origins (one
    canonical message per native one; part origins as the module docstring describes)."""
    return _Loader(_native_list(native)).run()


def load_messages(native: Iterable[BaseMessage]) -> list[ModelMessage]:
    """Read LangChain messages as heal's canonical messages (``load(native).messages``)."""
    return load(native).messages


def dump_messages(messages: Iterable[ModelMessage | Mapping[str, Any]]) -> list[BaseMessage]:
    """Write canonical messages as LangChain message objects.

    The inverse of :func:`load_messages` for everything it loaded; see the module docstring for
    canonical histories from elsewhere.
    """
    return _Dumper(_dump_canonical(_load_canonical(messages))).run()


def infer_provider(native: Iterable[BaseMessage]) -> ProviderId | None:
    """The heal provider id every AI message of a history agrees on, else None (see the module
    docstring). A history with no AI message gives None."""
    return _agreed_provider(_native_list(native))


def _agreed_provider(messages: list[BaseMessage]) -> ProviderId | None:
    """:func:`infer_provider` of a list :func:`_native_list` has already checked."""
    found: set[ProviderId | None] = set()
    for msg in messages:
        if type(msg) is AIMessage:  # exactly, as _native_list leaves them
            # No metadata, no provider (nearly always in a stored history): without the call.
            found.add(_message_provider(msg) if msg.__dict__["response_metadata"] else None)
    return found.pop() if len(found) == 1 else None


def heal_langchain(
    messages: Iterable[BaseMessage],
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
) -> NativeHealResult[list[BaseMessage]]:
    """Heal a LangChain history; repairs carry indices into ``messages``.

    A history that needs nothing comes back as the very object passed in; under the default
    policy and a target whose model and tools it fits (:func:`heal._verdict.terms_for`), a
    plainly clean one (:func:`_plainly_clean`: text, calls and their results, as strings or
    as ``ChatAnthropic``'s text and ``tool_use`` blocks) is answered so without building a
    canonical model. When something needs a repair, the common messages are read straight
    into canonical models (:meth:`_Loader._fast`), and the messages the heal leaves alone come
    back as the caller's own objects, only the others written (:class:`_Writer`). The target
    is what
    :func:`heal.heal_messages` takes: ``model`` (a chat model's ``model_name`` / ``model``),
    ``thinking`` (whether the request thinks), ``tools`` (names, ``BaseTool`` objects or tool
    dicts), or all of them as one ``target`` (used as given). ``provider="auto"`` follows the
    model id when it names a provider, else infers the provider from the AI messages when they
    all agree (see :func:`infer_provider`). The other options are those of
    :func:`heal.heal_messages`.
    """
    native = _native_list(messages)
    goal = native_target(
        provider,
        "auto",
        model=model,
        thinking=thinking,
        tools=tools,
        target=target,
        infer=lambda: _agreed_provider(native),
    )
    # The verdict is asked of a list under the default options, for a target it knows (terms).
    asked = asked_scope(policy, rules, scope) if type(messages) is list else None
    terms = terms_for(goal) if asked else None
    said = NOT_PLAIN
    if terms is not None and type(messages) is list:  # known, but the type checker sees it here
        verdict = partial(_verdict, native, goal.provider, terms)
        rename = partial(_renamed_ids, native, goal)
        history_scope = asked == "history"
        said, done = settled(messages, verdict, rename, on_repair, strict, clean_only=history_scope)
        if done is not None:
            return done
        if history_scope:
            terms = None  # the request's verdict: the full path decides the rest
    loader = _Loader(native)
    with collector_paused(len(native)):
        loaded = loader.run()
        write = _Writer(native, loaded, loader.kept, loader.listed)
    return heal_native(
        loaded,
        write,
        target=goal,
        policy=format_policy(policy, skip=_SETTLED.get(goal.provider, ())),
        rules=rules,
        on_repair=on_repair,
        strict=strict,
        scope=scope,
        original=messages if isinstance(messages, list) else None,
        # Refused by the walk: healed without the engine's quick verdict, unless that verdict
        # reads reasoning this walk does not (see engine_reads_reasoning).
        quick=terms is None or engine_reads_reasoning(terms),
        renames=said != NOT_PLAIN,  # else tried in the caller's objects, or not plain at all
        # The passthrough blocks a healed AI message can no longer carry are taken out (and
        # reported) before writing back: see _strand_hidden.
        after=lambda healed, repairs: _strand_hidden(healed, loaded, repairs),
    )


_PLAIN_ROLES: dict[type, str] = {
    SystemMessage: "system",
    HumanMessage: "user",
    AIMessage: "assistant",
}
"""The message classes a plainly clean history holds beside ``ToolMessage`` (those exactly:
a subclass or a chunk takes the full path), by canonical role."""

_KWARGS_READ = frozenset({"reasoning_content", _GEMINI_SIGNATURES, "tool_calls"})
"""The ``additional_kwargs`` of an AI message the loader reads (reasoning, Gemini signatures,
the raw calls of OpenAI's format); any other it keeps as it is, in the message's record."""


def _plainly_clean(
    messages: list[BaseMessage], provider: ProviderId | None, terms: Terms = PLAIN_TERMS
) -> bool:
    """Whether a history, as the caller gave it, is plainly clean for ``provider``: True only
    when healing it through canonical models (default policy, built-in rules, a target the
    ``terms`` are for) would return no repair at all, so :func:`heal_langchain`
    can hand the caller's own list back without building a model. False says nothing but "not
    plainly". Exact in that one direction (see :mod:`heal._verdict`).

    Plainly clean means the shapes that load as :func:`heal._json.clean_verdict`'s plain AI SDK
    history does:

    * ``SystemMessage``, ``HumanMessage`` and ``AIMessage`` (those classes exactly) with string
      content, non-blank but for an AI message with tool calls; a human message's may be a
      list of such strings, ``text`` blocks and images that load as plain ones
      (:func:`_plain_image`); an AI message's a list of strings and ``text``
      blocks followed by ``tool_use`` blocks that mirror its calls (the same id, name and
      input: what ``ChatAnthropic`` returns; see :func:`_plain_ai_blocks`), with at least one
      text or call; no invalid tool calls;
    * each AI message with calls (exactly ``name``, ``args`` an object, ``id``, ``type``)
      followed by one ``ToolMessage`` per call (string content, ``status`` ``"success"``, a
      ``name``, if any, the call's), in any order;
    * no reasoning, Gemini signatures or raw calls in ``additional_kwargs``, no cut-off turn
      (:func:`_cut_off`), no extra field; for a target whose rules read neither reasoning nor
      provider options (:attr:`heal._verdict.Terms.rich`: provider None, OpenAI Chat, xAI,
      ...), also reasoning (a ``reasoning_content`` string, ``thinking`` blocks and
      ``reasoning`` blocks without a summary, before the message's texts and calls, beside
      one) and Gemini's signature map; every other field (``additional_kwargs``,
      ``response_metadata``, ``usage_metadata``, an artifact...) plain JSON, which the loader
      keeps as the message's record and no rule reads (so are the blocks' other keys, such as
      ``cache_control``, which ride in heal's namespace);
    * the order of roles, texts, values and ids as :mod:`heal._verdict` says.
    """
    if not messages:
        return False
    return walked_clean(provider, terms, _plain_messages, messages, terms)


def _verdict(
    messages: list[BaseMessage], provider: ProviderId | None, terms: Terms, ids: list[str]
) -> int:
    """:func:`_plainly_clean`, saying why (:func:`heal._verdict.walked_verdict`):
    ``REFUSED_IDS`` for a history plain but for its call ids' format, which the walk reads past
    (gathering the calls' ids in ``ids``)."""
    if not messages:
        return NOT_PLAIN
    return walked_verdict(provider, terms, _read_past_ids, messages, terms, ids=ids)


def _plain_messages(
    messages: list[BaseMessage],
    terms: Terms,
    ids: list[str],
    names: list[str],
    *,
    past_ids: bool = False,
) -> str | None:
    """The one pass of :func:`_plainly_clean`: the canonical role of the last message when every
    message has a plain shape in a plain place (else None), with the call ids and tool names
    added to ``ids`` and ``names``. It reads each message's fields as pydantic keeps them.
    Under :attr:`heal._verdict.Terms.rich`, an AI message may also hold reasoning before its
    texts and calls, and Gemini's signature map; under :attr:`~heal._verdict.Terms.images`, a
    human message images that load as plain ones (:func:`_plain_image`). ``past_ids``: read
    past a call id with a colon (Kimi's, which no provider takes) rather than stop there
    (:func:`_verdict`)."""
    rich, images = terms.rich, terms.images
    waiting: dict[str, str] | None = None  # the calls not answered yet: id -> name
    previous = ""
    texts: list[Any] = []
    inputs: list[Any] = []
    kept: list[Any] = []  # what the loader keeps as records: plain JSON, or it raises
    thoughts: list[Any] | None = [] if rich else None  # reasoning texts (rich terms only)
    add_id, add_name = ids.append, names.append
    for message in messages:
        kind = type(message)
        if message.__pydantic_extra__:
            return None
        fields = message.__dict__
        if kind is ToolMessage:
            call_id = fields["tool_call_id"]
            name = waiting.pop(call_id, None) if waiting is not None else None
            given = fields["name"]  # the tool's name, when the message gives one
            if name is None or (given is not None and given != name):
                return None
            if fields["status"] != "success":
                return None
            texts.append(fields["content"])
            artifact = fields["artifact"]
            if artifact is not None:
                kept.append(artifact)
            if not waiting:
                waiting = None
            previous = "tool"
        else:
            role = _PLAIN_ROLES.get(kind)
            if waiting is not None or role is None or previous not in AFTER[role]:
                return None
            content = fields["content"]
            calls = fields["tool_calls"] if kind is AIMessage else None
            if kind is AIMessage:
                kwargs = fields["additional_kwargs"]
                if fields["invalid_tool_calls"]:
                    return None
                metadata = fields["response_metadata"]
                if metadata and _cut_off(metadata):
                    return None
                if kwargs and not _KWARGS_READ.isdisjoint(kwargs):
                    # Reasoning (a string loads as the message's first part) and Gemini's
                    # signatures (options of the calls with their ids) for rich terms alone;
                    # OpenAI's raw calls never (the loader links them to the calls).
                    if thoughts is None or "tool_calls" in kwargs:
                        return None
                    reasoning = kwargs.get("reasoning_content")
                    if type(reasoning) is str:  # the message's first part
                        thoughts.append(reasoning)
                usage = fields["usage_metadata"]
                if usage is not None:
                    kept.append(usage)
            if calls:
                waiting = {}
                for call in calls:
                    # Exactly name, args, id and type: four keys, each read below (a KeyError
                    # is not plain).
                    if type(call) is not dict or len(call) != 4:
                        return None
                    call_id = call["id"]
                    name = call["name"]
                    if type(call_id) is not str or type(name) is not str:
                        return None
                    if call["type"] != "tool_call":
                        return None
                    inputs.append(call["args"])
                    waiting[call_id] = name
                    if ":" in call_id and not past_ids:
                        return None  # Kimi's id form, which no provider takes: all renamed
                    add_id(call_id)
                    add_name(name)
            if type(content) is str:
                if content or not calls:
                    texts.append(content)  # a blank one is not plain, after reasoning too
            elif type(content) is not list:
                return None
            elif kind is AIMessage:
                if not _plain_ai_blocks(content, calls, texts, inputs, kept, thoughts=thoughts):
                    return None
            elif kind is not HumanMessage or not content:
                return None
            else:
                for block in content:
                    if type(block) is dict:
                        if block["type"] != "text":
                            # A screenshot or a photo the user sent, where it loads as a plain
                            # image.
                            if not images or not _plain_image(block):
                                return None
                            kept.append(block)  # its other keys load as heal's marks
                            continue
                        texts.append(block["text"])
                        if len(block) != 2:  # other keys than type and text
                            kept.append(block)
                    else:
                        texts.append(block)  # a string, one text part (any other is not plain)
            previous = role
        # Empty, nearly always: plain as they are, without a call each.
        kwargs, metadata = fields["additional_kwargs"], fields["response_metadata"]
        if type(kwargs) is not dict or kwargs:
            kept.append(kwargs)
        if type(metadata) is not dict or metadata:
            kept.append(metadata)
    if waiting is not None or not (plain_texts(texts) and plain_inputs(inputs)):
        return None
    if thoughts and not plain_thoughts(thoughts):
        return None
    if kept and not plain_values(kept):
        return None
    return ended(previous, texts[-1] if texts else None)


def _renamed_ids(
    messages: list[BaseMessage], goal: Target, ids: list[str]
) -> NativeHealResult[list[BaseMessage]] | None:
    """The result for a history the verdict found plain but for tool-call ids the target
    refuses (Kimi's ``functions.search:3``; any id but Mistral's own, for Mistral; see
    :func:`_verdict`), whose calls' ids are ``ids`` (the verdict's walk gathered them), made
    from the caller's messages, without canonical models; None to heal it the full way, which
    then decides.

    The ids are renamed as the engine's id rules rename them
    (:class:`heal._engine.IdRenamer`), one to one, and the new ones must be accepted: the
    renamed history is then plainly clean (the walk reads ids for nothing else), and this is
    the full path's result, with the engine's records at native places (a call's
    ``tool_calls`` entry after the message's blocks, or the ``tool_use`` block it is linked
    to; a result's message), in the order of the canonical parts. Each renamed message is the
    copy :meth:`_Writer._renamed` makes (``model_copy`` with the new ``tool_calls``, their
    blocks and ``tool_call_id``, and Gemini's signature map by the new ids); an AI message
    whose ``additional_kwargs`` hold more that the loader reads is left to the full path.
    ``tests/adapters/test_native_fast_path.py`` holds the two ways to one result."""
    renamer = IdRenamer.of(ids, goal)
    if renamer is None:
        return None
    renamed, touched = renamer.renamed, renamer.touched
    with collector_paused(len(messages)):
        out = list(messages)
        i = -1
        for message in messages:
            i += 1
            kind = type(message)
            if kind is not ToolMessage and kind is not AIMessage:
                continue
            fields = message.__dict__  # read as the walk read them
            if kind is ToolMessage:
                tid = fields["tool_call_id"]
                if tid in touched:
                    new_id = renamed((i, 0, None), "tool-result", tid)
                    if new_id != tid:
                        out[i] = copied(message, {"tool_call_id": new_id})
                continue
            calls: list[Any] = fields["tool_calls"]
            for call in calls:
                if call["id"] in touched:
                    break
            else:
                continue  # no call renamed (or none at all)
            calls = list(calls)
            content = fields["content"]
            patched: dict[str, Any] = {}
            at: dict[str, int] = {}  # a call's tool_use block, by its id (the walk linked them)
            if type(content) is list:
                blocks: list[Any] = content
                k = -1
                for block in blocks:
                    k += 1
                    if type(block) is dict and block["type"] == "tool_use":
                        at[block["id"]] = k
                base = len(blocks)
            else:
                base = 1  # a string counts as one block
            # In the canonical parts' order: the linked calls where their blocks are, then
            # the others in the order of tool_calls.
            order: Iterable[int] = (
                sorted(range(len(calls)), key=lambda n: at.get(calls[n]["id"], base + n))
                if at
                else range(len(calls))
            )
            for n in order:
                call = calls[n]
                tid = call["id"]
                if tid not in touched:
                    continue
                k = at.get(tid, -1)
                new_id = renamed((i, base + n if k < 0 else k, None), "tool-call", tid)
                if new_id == tid:
                    continue
                calls[n] = {**call, "id": new_id}
                patched["tool_calls"] = calls
                if k >= 0:
                    new_content = patched.get("content")
                    if new_content is None:
                        new_content = patched["content"] = list(blocks)
                    new_content[k] = {**new_content[k], "id": new_id}
            if not patched:
                continue
            kwargs = fields["additional_kwargs"]
            signatures = _signature_map(kwargs) if kwargs else None  # none, nearly always
            if signatures is _UNMAPPED:
                return None  # what follows the ids there: the full path writes it
            if signatures is not None:
                old_ids: dict[str, str] = {
                    call["id"]: new["id"]
                    for call, new in zip(fields["tool_calls"], calls, strict=True)
                }
                remapped = _remapped(kwargs, signatures, old_ids)
                if remapped is None:
                    return None
                patched["additional_kwargs"] = remapped
            out[i] = copied(message, patched)
        return NativeHealResult(out, renamer.records())


_read_past_ids = partial(_plain_messages, past_ids=True)
"""The walk of :func:`_verdict`."""


def _plain_ai_blocks(
    content: list[Any],
    calls: list[Any] | None,
    texts: list[Any],
    inputs: list[Any],
    kept: list[Any],
    *,
    thoughts: list[Any] | None = None,
) -> bool:
    """Whether the list ``content`` of an AI message whose ``calls`` the walk found plain loads
    as the plain AI SDK shape does (texts, then calls): strings and ``text`` blocks, then
    ``tool_use`` blocks each of which the loader links to the call of ``calls`` with its id,
    holding the call's own name and input (:func:`_call_block`); at least one text or call. A
    block of any other type (reasoning, images, other calls), a text after a call (Anthropic's
    rule moves it), a block no call answers to (the loader makes it a call of its own) or one
    that disagrees with its call is not plain. The texts are added to ``texts``, the inputs of
    ``tool_use`` blocks of their four keys alone to ``inputs``, and the blocks with other keys
    to ``kept`` (plain JSON, or the loader raises); a missing key raises KeyError (not plain).
    (A block's input equals its call's, but a value such as ``Decimal(1)`` equals ``1`` and the
    loader refuses it: each block's input is judged too.) With ``thoughts`` (a list: rich
    terms), ``thinking`` blocks and ``reasoning`` blocks without a summary, of a string text,
    may come first, before a text or a call: their texts are added to ``thoughts``."""
    pending: dict[Any, Any] | None = None  # the calls no block has linked yet, by id
    after_call = False
    said = False  # a text or a call block came (reasoning must come before)
    for block in content:
        if type(block) is str:
            if after_call:
                return False
            texts.append(block)
            said = True
            continue
        if type(block) is not dict:
            return False
        kind = block["type"]
        if kind in ("thinking", "reasoning") and thoughts is not None and not said:
            text = block.get("thinking" if kind == "thinking" else "reasoning")
            if type(text) is not str or "summary" in block:
                return False
            thoughts.append(text)
            kept.append(block)
            continue
        said = True
        if kind == "text":
            if after_call:
                return False
            texts.append(block["text"])
            if len(block) == 2:  # type and text alone: the text is judged with the others
                continue
        elif kind == "tool_use" and calls:
            if pending is None:  # the first one (most messages have none)
                pending = {call["id"]: call for call in calls}
            call_id = block["id"]
            call = pending.pop(call_id, None) if type(call_id) is str else None
            if call is None or block["name"] != call["name"] or block["input"] != call["args"]:
                return False
            after_call = True
            if len(block) == 4:  # type, id, name and input alone
                inputs.append(block["input"])
                continue
        else:
            return False
        kept.append(block)
    return said or bool(calls)  # not reasoning alone


def _strand_hidden(
    healed: list[ModelMessage], loaded: Loaded, repairs: Sequence[Repair]
) -> tuple[list[ModelMessage], tuple[Repair, ...]]:
    """Remove, with a repair each, the ``hidden`` blocks of AI messages healing left empty.

    Blocks with no AI SDK equivalent ride along under ``hidden`` beside an AI message's other
    content, and loading refuses an AI message made only of them: heal would see an empty
    assistant message, and ``empty-message`` would delete it for having "no content" though it
    holds something (an OpenAI Responses ``web_search_call`` turn is valid to send). So when
    healing removes all the content they rode along with and still keeps the message (every
    message empty, ``empty-message`` off), they go too: the rules judged the message empty, and
    writing the blocks back alone would give a history heal cannot read again. The repair takes
    the rule and scope of the last part removal in that message.
    """
    if not any(r.changed for r in repairs):
        return healed, ()  # nothing was removed, so nothing was stranded
    out = list(healed)
    found: list[Repair] = []
    used: set[int] = set()
    for h, msg in enumerate(healed):
        if msg.role != "assistant" or msg.content:
            continue
        meta = _meta({"providerOptions": msg.provider_options})
        hidden = meta.get("hidden")
        if not hidden:
            continue
        j = _hidden_origin(msg, hidden, loaded, used)
        if j is not None:
            used.add(j)
        emptied = [
            r
            for r in repairs
            if j is not None and r.message_index == j and r.part_index is not None and r.changed
        ]
        rule = emptied[-1].rule if emptied else "empty-message"
        scope = emptied[-1].scope if emptied else Scope.HISTORY
        for k, block in hidden:
            found.append(
                Repair(
                    rule=rule,
                    action=Action.REMOVE,
                    message_index=None if j is None else loaded.origins[j],
                    part_index=k,
                    reason=(
                        f"{shown(block.get('type'))} block (no AI SDK equivalent) rode along with "
                        "content that was all removed; removed with it"
                    ),
                    removed=block,
                    scope=scope,
                )
            )
        options = dict(msg.provider_options or {})
        heal = dict(options["heal"])
        rest = {key: v for key, v in meta.items() if key != "hidden"}
        if rest:
            heal[_NS] = rest
        else:
            del heal[_NS]
        if heal:
            options["heal"] = heal
        else:
            del options["heal"]
        out[h] = msg.model_copy(update={"provider_options": options or None})
    return out, tuple(found)


def _hidden_origin(msg: ModelMessage, hidden: Any, loaded: Loaded, used: set[int]) -> int | None:
    """The index in ``loaded.messages`` of the AI message a healed one with ``hidden`` came from:
    the one it shares its options with, else the first unused one with the same blocks."""
    candidates = [
        j
        for j, m in enumerate(loaded.messages)
        if j not in used and _meta({"providerOptions": m.provider_options}).get("hidden") == hidden
    ]
    same = [j for j in candidates if loaded.messages[j].provider_options is msg.provider_options]
    return next(iter(same or candidates), None)


class _Writer:
    """Writes a healed history back for :func:`heal_langchain`.

    Each native message whose canonical message came through the heal untouched
    (:class:`~heal.adapters._common.Sources`) is the caller's own object; one whose calls or
    result changed only their ids or tool names is a copy of the caller's with those fields
    replaced (:meth:`_renamed`); the others are written from their canonical messages (a tool
    message as one ``ToolMessage`` per result, as :func:`dump_messages` writes it). The result
    equals the whole history written out. A message read by the general path whose fields
    LangChain's validation would not keep as they are (``kept`` False: see
    :func:`_as_written`) is always written, as the full conversion writes it.
    """

    def __init__(
        self,
        native: list[BaseMessage],
        loaded: Loaded,
        kept: Sequence[bool],
        listed: Collection[int] = (),
    ) -> None:
        self.native = native
        self.loaded = loaded.messages
        self.kept = kept
        self.listed = listed
        # A message that is not to be handed back stands under a negative origin, as a system
        # parameter does in heal.adapters._common.written_back: it is written, never reused.
        # (When every one is, as the fast path reads a history, the origins are the loader's.)
        origins = loaded.origins
        if not all(kept):
            origins = [o if kept[o] else -1 - o for o in origins]
        self.sources = Sources(loaded.messages, origins)

    def __call__(self, healed: list[ModelMessage]) -> list[BaseMessage]:
        if not _PARTIAL or not self.kept:
            return dump_messages(healed)
        try:
            return written_back(
                healed,
                [(c, c + 1) for c in range(len(healed))],  # one native run per canonical message
                self.sources,
                self.native,
                renamed=self._renamed,
                dump=lambda start, end: _Dumper(_dump_canonical(healed[start:end])).run(),
            )
        except InputError:  # located in the whole history, as writing it all does
            return dump_messages(healed)

    def _renamed(
        self, healed: list[ModelMessage], start: int, end: int, origin: int
    ) -> BaseMessage | None:
        """A copy of native message ``origin`` with the new ids and tool names of its calls or
        result, when the run is its canonical message with no other change
        (:meth:`~heal.adapters._common.Sources.renamed`) and those fields are written as they
        are: ``tool_call_id`` (and ``name``, unless it was derived and still is) of a tool
        result; ``id`` and ``name`` of a ``tool_calls`` entry of an AI message of string
        content, or of list content the fast path read (``listed``: text and ``tool_use``
        blocks), whose calls nothing else mirrors but their ``tool_use`` blocks (no raw OpenAI
        call or Gemini signature map, which follow the call's id); a block takes the new id,
        and the new name where it had the call's (``sync``), as :func:`_linked_block` writes
        it. Else None: the run is written."""
        if not 0 <= origin < len(self.native) or not self.kept[origin]:
            return None
        changes = self.sources.renamed(healed, start, end, origin)
        if changes is None:
            return None
        native = self.native[origin]
        old = self.loaded[origin]  # one canonical message per native one
        if type(native) is ToolMessage and isinstance(old, _Tool):
            derived = _meta({"providerOptions": old.content[0].provider_options}).get(
                "derived_name"
            )
            update: Json = {}
            for _, _, fields in changes:
                if "tool_call_id" in fields:
                    update["tool_call_id"] = fields["tool_call_id"]
                name = fields.get("tool_name")
                if name is not None and name != derived:
                    update["name"] = name
            return copied(native, update)
        if type(native) is not AIMessage or not isinstance(old, _Assistant):
            return None
        meta = _meta({"providerOptions": old.provider_options})
        listed = meta.get("content") == "list" and origin in self.listed
        signatures = _signature_map(native.additional_kwargs)
        if signatures is _UNMAPPED:
            return None
        known = _PLAIN_AI_META if signatures is None else _MAPPED_AI_META
        if not (listed or meta.get("content") == "str") or not known.issuperset(meta):
            return None
        calls: list[Any] = list(native.tool_calls)
        content: Any = list(native.content) if listed else None
        renamed: dict[str, str] = {}  # each renamed call's old id, and its new one
        for _, p, fields in changes:
            part = old.content[p]
            options = part.provider_options if type(part) is ToolCallPart else None
            count = 0 if options is None else len(options) - ("google" in options)
            found = options.get("heal") if options is not None and count == 1 else None
            own: Any = found.get(_NS) if type(found) is dict and len(found) == 1 else None
            n = own.get("tc") if type(own) is dict else None
            if type(n) is not int or not 0 <= n < len(calls):
                return None
            if len(own) != 1 and not (listed and own.keys() == _LINKED_META):
                return None
            call = calls[n]
            if type(call) is not dict or list(call) != _CALL_ORDER or call["type"] != "tool_call":
                return None
            new = dict(call)
            if "tool_call_id" in fields:
                new["id"] = fields["tool_call_id"]
                if options is not None and "google" in options:
                    # It took the map's entry for its id (the loader gives that to the first
                    # call of the id): the entry follows it. Another call of the same id
                    # (which the duplicate rule renames) leaves it where it is.
                    renamed[call["id"]] = fields["tool_call_id"]
            if "tool_name" in fields:
                new["name"] = fields["tool_name"]
            calls[n] = new
            if len(own) != 1:  # its tool_use block follows, where it matched (see _fast_blocks)
                at, sync = own["at"], own["sync"]
                block = dict(content[at])
                if "tool_call_id" in fields and sync.get("id"):
                    block["id"] = fields["tool_call_id"]
                if "tool_name" in fields and sync.get("name"):
                    block["name"] = fields["tool_name"]
                content[at] = block
        patched: Json = {"tool_calls": calls}
        if content is not None:
            patched["content"] = content
        if signatures is not None and renamed:
            kwargs = _remapped(native.additional_kwargs, signatures, renamed)
            if kwargs is None:
                return None
            patched["additional_kwargs"] = kwargs
        return copied(native, patched)


_PLAIN_AI_META = frozenset({"content", "message"})
"""The marks of an AI message whose renamed calls :meth:`_Writer._renamed` patches."""
_MAPPED_AI_META = _PLAIN_AI_META | {"kwargs_emptied"}
"""The same, for a message with Gemini's signature map (which may have been all the
``additional_kwargs`` the loader took its signatures from)."""
_UNMAPPED: Any = object()


def _signature_map(kwargs: Mapping[str, Any]) -> Any:
    """The Gemini signature map of an AI message's ``additional_kwargs`` (a dict by call id)
    when that is all the loader reads there; None when it reads nothing there; ``_UNMAPPED``
    when it reads more (reasoning, OpenAI's raw calls) or a map that is not a dict: a renamed
    call of such a message is written from its canonical message."""
    if _KWARGS_READ.isdisjoint(kwargs):
        return None
    found = kwargs.get(_GEMINI_SIGNATURES)
    if type(found) is not dict or "reasoning_content" in kwargs or "tool_calls" in kwargs:
        return _UNMAPPED
    return found


def _remapped(
    kwargs: Mapping[str, Any], signatures: Mapping[str, Any], renamed: Mapping[str, str]
) -> Json | None:
    """``kwargs`` with its Gemini signature map keyed by the renamed calls' new ids, as writing
    the message gives it (the loader moved each call's signature to its options, and the
    writer puts it back under the call's id, after the entries no call took); None when a new
    id is a key of an entry no call took (writing gives the call's signature there)."""
    remapped = {renamed.get(key, key): value for key, value in signatures.items()}
    if len(remapped) != len(signatures):
        return None
    return {**kwargs, _GEMINI_SIGNATURES: remapped}


_LINKED_META = frozenset({"tc", "at", "block", "sync"})
"""The marks of a call the fast path read with its ``tool_use`` block
(:meth:`_Loader._fast_blocks`)."""
_CALL_ORDER = ["name", "args", "id", "type"]
"""A ``tool_calls`` entry as LangChain's validation makes it (``tool_call()``), as written."""


# --- helpers ---------------------------------------------------------------------------------


def _native_list(native: Any) -> list[BaseMessage]:
    if isinstance(native, (str, bytes, bytearray, Mapping)) or not isinstance(native, Iterable):
        raise InputError(f"expected a list of LangChain messages, got {_kind(native)}")
    out = list(native)
    for i, msg in enumerate(out):
        if type(msg) in _NATIVE_CLASSES:
            continue  # none of them is a chunk; the ABC check below costs several times this
        path = f"messages[{i}]"
        if isinstance(msg, BaseMessageChunk):
            raise InputError(
                f"{type(msg).__name__} is a stream chunk: merge chunks into a message first "
                "(langchain_core.messages.message_chunk_to_message)",
                path=path,
            )
        what = type(msg).__name__ if isinstance(msg, BaseMessage) else _kind(msg)
        raise InputError(
            f"expected a SystemMessage, HumanMessage, AIMessage or ToolMessage, got {what}",
            path=path,
        )
    return out


_NATIVE_CLASSES = (SystemMessage, HumanMessage, AIMessage, ToolMessage)
"""The message classes :func:`_native_list` takes, those exactly: after it, ``type(msg) is
AIMessage`` says what ``isinstance`` would (an ABC check through pydantic's metaclass)."""


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


def _check_json(value: Any, path: str) -> None:
    """Raise unless ``value`` is JSON as heal stores it (what survives a trip through JSON)."""
    if value is None or isinstance(value, (str, bool, int)):
        return
    if isinstance(value, float):
        if math.isfinite(value):
            return
    elif isinstance(value, list):
        for k, item in enumerate(value):
            _check_json(item, f"{path}[{k}]")
        return
    elif isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise InputError(f"object key {shown(key)} is not a string", path=path)
            _check_json(item, f"{path}.{key}")
        return
    raise InputError(f"{_kind(value)} is not a JSON value; heal cannot carry it", path=path)


@cache
def _defaults(cls: type[BaseMessage]) -> Mapping[str, Any]:
    """The default of each optional field of a message class, to leave out of its record what
    the class would give anyway; only compared with, never handed out. Once per class: asking
    pydantic for a default factory's value inspects the factory's signature each time (for
    ``dict`` or ``list``, by parsing its text signature), which was three quarters of healing
    a LangChain history."""
    return MappingProxyType(
        {
            name: info.get_default(call_default_factory=True)
            for name, info in cls.model_fields.items()
            if not info.is_required()
        }
    )


def _message_rest(msg: BaseMessage, path: str, *drop: str) -> Json:
    data = msg.model_dump()
    defaults = _defaults(type(msg))
    out: Json = {}
    for key, value in data.items():
        if key in drop or key == "type":
            continue
        if key in defaults and value == defaults[key] and type(value) is type(defaults[key]):
            continue
        _check_json(value, f"{path}.{key}")
        out[key] = value
    return out


_FIELD_KINDS: dict[str, str] = {
    "additional_kwargs": "dict",
    "response_metadata": "dict",
    "name": "string",
    "id": "string",
    "usage_metadata": "usage",
    "artifact": "json",
    "status": "status",
}
"""What :func:`_fast_record` takes in each field of a message it reads (beside its defaults):
a plain JSON object, a string, a usage (:func:`_plain_usage`), any plain JSON value, a tool's
``"error"`` status. A field not named here (one a later LangChain adds) only at its default."""

_NO_DEFAULT: Any = object()

_Plan = tuple[tuple[str, Any, str], ...]


@cache
def _record_plan(cls: type[BaseMessage], drop: frozenset[str]) -> _Plan:
    """The fields of ``cls`` but ``drop`` and ``type``, in their order (that of ``model_dump``),
    each with its default (:func:`_defaults`) and its kind (``_FIELD_KINDS``)."""
    defaults = _defaults(cls)
    return tuple(
        (name, defaults.get(name, _NO_DEFAULT), _FIELD_KINDS.get(name, "default"))
        for name in cls.model_fields
        if name not in drop and name != "type"
    )


def _fast_record(fields: Mapping[str, Any], plan: _Plan) -> Json | None:
    """:func:`_message_rest` made from a message's fields directly (``__dict__``, with the
    ``plan`` of its class): the fields that differ from their defaults, in order; None when a
    field holds anything but its declared type in plain JSON (:func:`heal._verdict.plain_value`),
    whose ``model_dump`` this does not make (or which :func:`_check_json` refuses, or pydantic
    warns of), so the general path reads the message.

    Plain JSON is what ``model_dump`` returns as it is (a copy of it, which this does not
    make: the canonical models are frozen and validation copies them anyway on the general
    path, so the values are shared with the caller's message only until written)."""
    out: Json = {}
    for name, default, kind in plan:
        value = fields[name]
        if value is default:
            continue
        value_type = type(value)
        if value_type is type(default) and value == default:
            continue
        if kind == "dict":
            if value_type is not dict or not plain_value(value):
                return None
        elif kind == "string":
            if value_type is not str:
                return None
        elif kind == "json":
            if not plain_value(value):
                return None
        elif kind == "usage":
            if not _plain_usage(value):
                return None
        elif kind != "status" or value != "error":
            return None
        out[name] = value
    return out


_TOKEN_COUNTS = ("input_tokens", "output_tokens", "total_tokens")
_USAGE_ORDER = {key: at for at, key in enumerate(UsageMetadata.__annotations__)}
_DETAILS_ORDER = {
    "input_token_details": {key: at for at, key in enumerate(InputTokenDetails.__annotations__)},
    "output_token_details": {key: at for at, key in enumerate(OutputTokenDetails.__annotations__)},
}


def _plain_usage(value: Any) -> bool:
    """Whether an ``AIMessage.usage_metadata`` is plain JSON that ``model_dump`` returns, and
    validation keeps, as it is: its token counts integers (pydantic warns of other values, and
    validation converts them), its details objects of integers, each object's keys in the
    order validation puts them (the declared ones in their order, then any other).

    One pass over the keys judges all of that (each AI message of a history loaded for a repair
    comes through here, and judging the JSON, the order and the counts apart took half of its
    record): the keys it does not declare hold any plain JSON, nested below the usage."""
    if type(value) is not dict:
        return False
    last = -1
    for key, item in value.items():
        if type(key) is not str:
            return False
        last = _placed(_USAGE_ORDER, key, last)
        if last < 0:
            return False
        order = _DETAILS_ORDER.get(key)
        if order is not None:
            if not _plain_counts(item, order):
                return False
        elif key in _TOKEN_COUNTS:
            if type(item) is not int:
                return False
        elif not plain_value(item, MAX_DEPTH - 1):
            return False
    return True


def _plain_counts(value: Any, order: Mapping[str, int]) -> bool:
    """Whether a usage's token details are an object of integers under string keys, in the
    ``order`` validating its TypedDict puts them: the declared keys in order, then the others."""
    if type(value) is not dict:
        return False
    last = -1
    for key, count in value.items():
        if type(key) is not str or type(count) is not int:
            return False
        last = _placed(order, key, last)
        if last < 0:
            return False
    return True


def _placed(order: Mapping[str, int], key: str, last: int) -> int:
    """Where ``key`` stands in a TypedDict's value whose keys so far reached place ``last``
    (validation puts the declared keys in ``order``, then the others); -1 when it comes out of
    that order."""
    at = order.get(key)
    if at is None:
        return len(order)
    return at if at >= last else -1


_PLAN_SYSTEM = _record_plan(SystemMessage, frozenset({"content"}))
_PLAN_HUMAN = _record_plan(HumanMessage, frozenset({"content"}))
_PLAN_AI = _record_plan(AIMessage, frozenset({"content", "tool_calls", "invalid_tool_calls"}))
_PLAN_TOOL = _record_plan(ToolMessage, frozenset({"content", "tool_call_id"}))


_PLANS = {
    SystemMessage: _PLAN_SYSTEM,
    HumanMessage: _PLAN_HUMAN,
    AIMessage: _PLAN_AI,
    ToolMessage: _PLAN_TOOL,
}
_TYPE_TAGS: dict[type, str] = {
    SystemMessage: "system",
    HumanMessage: "human",
    AIMessage: "ai",
    ToolMessage: "tool",
}


def _as_written(msg: BaseMessage) -> bool:
    """Whether writing a message the general path read gives back the caller's object: its
    ``type`` tag, the fields of its record (:func:`_fast_record`) and its ``tool_calls``
    entries hold what LangChain's validation keeps as it is. A message given values past that
    validation (``model_copy`` with an update, ``model_construct``: a status LangChain refuses,
    a float token count, a call's keys in another order...) would be written otherwise, or
    refused, so :class:`_Writer` writes it as the full conversion does. (The messages the fast
    path reads hold such values only.) So is an AI message with a ``tool_use`` or ``tool_call``
    block whose input equals a call's by ``==`` but not in its types (``1.0`` for ``1``): the
    block follows its call's input when written (:func:`_linked_block`)."""
    kind = type(msg)
    fields = msg.__dict__
    plan = _PLANS.get(kind)
    if plan is None or fields.get("type") != _TYPE_TAGS[kind] or _fast_record(fields, plan) is None:
        return False
    if kind is not AIMessage:
        return True
    calls = fields["tool_calls"]
    if not all(
        type(call) is dict and list(call) == _CALL_ORDER and call["type"] == "tool_call"
        for call in calls
    ):
        return False
    content = fields["content"]
    if type(content) is not list or not calls:
        return True
    for block in content:
        block_type = block.get("type") if type(block) is dict else None
        if block_type in ("tool_use", "tool_call"):
            found = block.get("input" if block_type == "tool_use" else "args")
            for call in calls:
                if found == call["args"] and not _same_json(found, call["args"]):
                    return False
    return True


_CUT_OFF: dict[str, tuple[str, ...]] = {
    "finish_reason": (
        "length",  # OpenAI-format integrations (langchain-openai, Groq, ...)
        "MAX_TOKENS",  # langchain-google-genai (Gemini's finish reason name)
    ),
    "stop_reason": ("max_tokens",),  # langchain-anthropic; langchain_core's tool parsers read it
    "stopReason": ("max_tokens",),  # langchain-aws ChatBedrockConverse (Converse's stopReason)
}
"""``response_metadata`` entries of an AI message cut off by the output-token limit: each key
with the reasons that say so (one look-up a key, for every AI message loaded)."""


def _cut_off(metadata: Mapping[str, Any]) -> bool:
    """Whether an AI message's ``response_metadata`` says the model was cut off (``_CUT_OFF``;
    a Gemini reason may be written as its enum, ``FinishReason.MAX_TOKENS``). Its canonical
    message then carries heal's aborted marker (:data:`heal.rules.tool_pairing.ABORTED`), which
    is never written back."""
    if not metadata:
        return False  # nearly always, in a stored history: one test instead of a look-up a key
    for key, reasons in _CUT_OFF.items():
        found = metadata.get(key)
        # endswith first: it answers most reasons ("stop", "tool_use") without a split
        if (
            isinstance(found, str)
            and found.endswith(reasons)
            and found.rsplit(".", 1)[-1] in reasons
        ):
            return True
    return False


def _options(meta: Json | None, others: Json | None = None) -> Json | None:
    out: Json = {k: v for k, v in (others or {}).items() if v}
    if meta:
        out["heal"] = {_NS: meta}
    return out or None


def _node(node: Json, meta: Json | None, others: Json | None = None) -> Json:
    options = _options(meta, others)
    if options is not None:
        node["providerOptions"] = options
    return node


def _meta(node: Mapping[str, Any]) -> Json:
    options = node.get("providerOptions")
    heal = options.get("heal") if isinstance(options, dict) else None
    found = heal.get(_NS) if isinstance(heal, dict) else None
    return found if isinstance(found, dict) else {}


def _foreign(node: Mapping[str, Any]) -> Json:
    options = node.get("providerOptions")
    if not isinstance(options, dict):
        return {}
    out = {}
    for ns, values in options.items():
        if ns == "heal" or not isinstance(values, dict):
            continue
        kept = {k: v for k, v in values.items() if v is not None}  # None: a key heal cleared
        if kept:
            out[ns] = kept
    return out


def _check_consumed(options: Json, path: str) -> None:
    for ns, values in options.items():
        for key in values:
            raise InputError(
                f"providerOptions.{ns}.{key} has no LangChain equivalent",
                path=f"{path}.providerOptions.{ns}.{key}",
            )


def _take(options: Json, ns: str, key: str) -> Any:
    values = options.get(ns)
    if not values or key not in values:
        return None
    value = values.pop(key)
    if not values:
        del options[ns]
    return value


def _get_path(block: Mapping[str, Any], path: Sequence[str]) -> Any:
    value: Any = block
    for key in path:
        if not isinstance(value, Mapping) or key not in value:
            return None
        value = value[key]
    return value


def _pop_path(block: Json, path: Sequence[str]) -> None:
    target: Any = block
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]


def _set_path(block: Json, path: Sequence[str], value: Any) -> None:
    target = block
    for key in path[:-1]:
        target = target.setdefault(key, {})
    target[path[-1]] = value


def _loads(text: str) -> Any:
    """The JSON value ``text`` holds, or ``_NOT_JSON``: no JSON, a NaN or infinity, or JSON
    nested deeper than Python's reader goes (RecursionError), which stays text as in every
    other format."""

    def reject(name: str) -> Any:
        raise ValueError(name)

    try:
        return json.loads(text, parse_constant=reject)
    except (ValueError, RecursionError):
        return _NOT_JSON


_NOT_JSON = object()


def _text_of(text: str, blocks: Sequence[Any], separator: str) -> list[str] | None:
    """Split ``text`` back into texts of the given lengths, or None when it changed shape."""
    out: list[str] = []
    pos = 0
    for k, length in enumerate(blocks):
        if k:
            if text[pos : pos + len(separator)] != separator:
                return None
            pos += len(separator)
        out.append(text[pos : pos + length])
        pos += length
    return out if pos == len(text) else None


def _message_provider(msg: AIMessage) -> ProviderId | None:
    fields = msg.__dict__  # one attribute read (through pydantic's hook) for both fields
    metadata = fields["response_metadata"]
    provider = metadata.get("model_provider")
    if not isinstance(provider, str):
        return None
    if provider == "openai":
        return openai_api_by_response_id((metadata.get("id"), fields["id"]))
    return LANGCHAIN_MODEL_PROVIDERS.get(provider)


# --- media blocks ----------------------------------------------------------------------------


def _plain_image(block: Json) -> bool:
    """Whether a human message's block loads as a plain image (:func:`heal.rules.files.
    plain_image`): an image the loader reads (:func:`_media`) with data that names no file
    stored at OpenAI, of a media type every provider takes or none (the block's other keys go
    to heal's marks, which no rule reads)."""
    try:
        found = _media(block, "")
    except InputError:
        return False
    if found is None:
        return False
    media, data, media_type, _ = found
    return (
        media == "image"
        and data != ""
        and not data.startswith(OPENAI_FILE_ID_PREFIX)
        and media_type in PLAIN_IMAGE_TYPES
    )


def _media(block: Json, path: str) -> tuple[str, Any, str | None, Json] | None:
    """Read an image / file block: (kind, data, media type, owned paths), or None if not one.

    ``owned`` maps "data", "mediaType" and "filename" to where the block keeps them.
    """
    kind = block.get("type")
    owned: Json = {}
    media_type: str | None = None
    if kind == "image_url":
        inner = block.get("image_url")
        owned["data"] = ["image_url", "url"] if isinstance(inner, dict) else ["image_url"]
        media = "image"
    elif kind == "input_audio":
        owned["data"] = ["input_audio", "data"]
        media_type = _AUDIO_FORMATS.get(str(_get_path(block, ["input_audio", "format"])))
        media = "file"
    elif kind == "file" and isinstance(block.get("file"), dict):
        if "file_data" not in block["file"]:
            raise InputError("a file referenced by provider file id has no AI SDK form", path=path)
        owned["data"] = ["file", "file_data"]
        if "filename" in block["file"]:
            owned["filename"] = ["file", "filename"]
        media = "file"
    elif kind in ("image", "file", "audio", "video", "document"):
        media = "image" if kind == "image" else "file"
        source = block.get("source")
        if isinstance(source, dict):
            if source.get("type") == "base64":
                owned["data"] = ["source", "data"]
                owned["mediaType"] = ["source", "media_type"]
            elif source.get("type") == "url":
                owned["data"] = ["source", "url"]
            else:
                raise InputError(
                    f"a {shown(source.get('type'))} source has no AI SDK form",
                    path=f"{path}.source",
                )
        elif "source_type" in block:
            found = {"base64": "data", "url": "url"}.get(block["source_type"])
            if found is None:
                raise InputError(
                    f"a {shown(block['source_type'])} source has no AI SDK form", path=path
                )
            owned["data"] = [found]
            if "mime_type" in block:
                owned["mediaType"] = ["mime_type"]
        elif "url" in block or "base64" in block:
            owned["data"] = ["url"] if "url" in block else ["base64"]
            if "mime_type" in block:
                owned["mediaType"] = ["mime_type"]
            if "filename" in block:
                owned["filename"] = ["filename"]
        else:
            raise InputError(
                f"a {kind} block without url or base64 data (a provider file id?) has no AI SDK "
                "form",
                path=path,
            )
    else:
        return None
    data = _get_path(block, owned["data"])
    if not isinstance(data, str):
        raise InputError(f"{kind} block data must be a string, got {_kind(data)}", path=path)
    if "mediaType" in owned:
        found_type = _get_path(block, owned["mediaType"])
        media_type = found_type if isinstance(found_type, str) else None
    if media_type is None and (found_url := _DATA_URL.match(data)):
        media_type = found_url.group(1)
    return media, data, media_type, owned


def _media_node(block: Json, path: str, *, assistant: bool) -> Json | None:
    found = _media(block, path)
    if found is None:
        return None
    media, data, media_type, owned = found
    image = media == "image" and not assistant
    if image and "filename" in owned:
        # An image part has no file name: the block keeps it, as it keeps its other keys.
        owned = {key: at for key, at in owned.items() if key != "filename"}
    rest = copy.deepcopy(block)
    meta: Json = {"owned": owned}
    for key in owned.values():
        _pop_path(rest, key)
    meta["block"] = rest
    if image:
        node: Json = {"type": "image", "image": data}
        if media_type is not None:
            node["mediaType"] = media_type
    else:
        if media_type is None:
            meta["no_media_type"] = True
        default = "image/*" if media == "image" else _OCTET
        node = {"type": "file", "data": data, "mediaType": media_type or default}
        filename = _get_path(block, owned["filename"]) if "filename" in owned else None
        if isinstance(filename, str):
            node["filename"] = filename
    return _node(node, meta)


def _dump_media(part: Json, meta: Json) -> Json:
    """A canonical image / file part as a LangChain block (its own style when it has one)."""
    if part["type"] == "image":
        data, media_type = part["image"], part.get("mediaType")
    else:
        data, media_type = part["data"], part.get("mediaType")
        if meta.get("no_media_type") and media_type in (_OCTET, "image/*"):
            media_type = None
    if not isinstance(data, str):
        data = base64.b64encode(data).decode()
    owned = meta.get("owned")
    if isinstance(owned, dict) and "block" in meta:
        block = copy.deepcopy(meta["block"])
        _set_path(block, owned["data"], data)
        if "mediaType" in owned and media_type is not None:
            _set_path(block, owned["mediaType"], media_type)
        if "filename" in owned and part.get("filename") is not None:
            _set_path(block, owned["filename"], part["filename"])
        return cast(Json, block)
    kind = "image" if part["type"] == "image" or (media_type or "").startswith("image/") else "file"
    block = {"type": kind}
    if _URL.match(data):
        block["url"] = data  # a URL, data URLs included
    else:
        block["base64"] = _standard_base64(data)
    if media_type is not None:
        block["mime_type"] = media_type
    if part.get("filename") is not None:
        block["filename"] = part["filename"]
    return block


def _standard_base64(data: str) -> str:
    """Base64 in the standard alphabet: heal's JSON writes bytes URL-safe (pydantic's default),
    which providers reading standard base64 reject."""
    if "-" not in data and "_" not in data:
        return data
    try:
        return base64.b64encode(base64.b64decode(data, altchars=b"-_", validate=True)).decode()
    except ValueError:
        return data


# --- load ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Loaded(Loaded):
    """A :class:`Loaded` naming LangChain's own places in repairs (see "Part indices")."""

    def describe_location(self, repair: Repair) -> str:
        """A tool call is its ``tool_calls[k]`` (or ``invalid_tool_calls[k]``) entry, block or
        not; a tool result its whole ToolMessage; reasoning from ``additional_kwargs`` that key;
        any other part its ``content`` block (``content`` itself when that is a string)."""
        m, p = repair.message_index, repair.part_index
        if m is None:
            anchor = None if repair.anchor_index is None else self.origins[repair.anchor_index]
            return native_path(None, None, anchor)
        where = f"messages[{self.origins[m]}]"
        message = self.messages[m]
        content = message.content
        if p is None or message.role == "tool" or isinstance(content, str) or p >= len(content):
            return where
        meta = _meta({"providerOptions": getattr(content[p], "provider_options", None)})
        if "tc" in meta:
            return f"{where}.tool_calls[{meta['tc']}]"
        if "itc" in meta:
            return f"{where}.invalid_tool_calls[{meta['itc']}]"
        if meta.get("from") == "reasoning_content":
            return f"{where}.additional_kwargs.reasoning_content"
        block = self.native_location(m, p)[1]
        if block is None:
            return where
        if _meta({"providerOptions": message.provider_options}).get("content") == "str":
            return f"{where}.content"
        return f"{where}.content[{block}]"


class _Loader:
    def __init__(self, native: list[BaseMessage], *, fast: bool | None = None) -> None:
        self.native = native
        self.fast = _PARTIAL if fast is None else fast
        # Dicts of the general path, and models of the fast one.
        self.out: list[Json | ModelMessage] = []
        self.origins: list[int] = []
        self.part_origins: list[tuple[int | None, ...] | None] = []
        # tool-call id -> [(native index, name)], to name results whose message has no name.
        self.calls: dict[str, list[tuple[int, str]]] = {}
        # Per native message, whether writing it back gives the caller's object (see _Writer).
        self.kept: list[bool] = []
        # The AI messages of list content the fast path read (see _Writer._renamed).
        self.listed: set[int] = set()

    def run(self) -> Loaded:
        for i, msg in enumerate(self.native):
            if type(msg) is AIMessage:  # exactly, as _native_list leaves them
                fields = msg.__dict__
                for calls in (fields["tool_calls"], fields["invalid_tool_calls"]):
                    for call in calls:
                        cid, name = call.get("id"), call.get("name")
                        if isinstance(cid, str) and isinstance(name, str):
                            self.calls.setdefault(cid, []).append((i, name))
        fast = self._fast if self.fast else None
        kept = self.kept
        for i, msg in enumerate(self.native):
            if fast is not None:
                if fast(i, msg):
                    kept.append(True)
                    continue
                kept.append(_as_written(msg))
            path = f"messages[{i}]"
            parts: tuple[int | None, ...]
            if isinstance(msg, SystemMessage):
                node, parts = self._system(msg, path), ()
            elif isinstance(msg, HumanMessage):
                node, parts = self._human(msg, path)
            elif isinstance(msg, AIMessage):
                node, parts = self._ai(msg, path)
            else:
                node, parts = self._tool(cast(ToolMessage, msg), i, path), (0,)
            self.out.append(node)
            self.origins.append(i)
            self.part_origins.append(parts)
        try:
            canonical = _load_canonical(self.out)
        except InputError as exc:
            if self.fast:  # locate the error as the general path does, on dicts alone
                return type(self)(self.native, fast=False).run()
            found = re.match(r"messages\[(\d+)\]", exc.path)
            where = f"messages[{self.origins[int(found.group(1))]}]" if found else "messages"
            raise InputError(f"cannot be represented: {exc.reason}", path=where) from None
        return _Loaded(canonical, self.origins, self.part_origins)

    # -- the fast path --

    def _fast(self, i: int, msg: BaseMessage) -> bool:
        """Build the canonical model of a message of the common shapes directly from the
        caller's object, as dumping it, checking its JSON and validating the AI SDK dicts would
        (``tests/adapters/test_langchain_partial.py`` holds the two equal); False, having built
        nothing, for any other message, which the general path reads (and words what it
        refuses).

        The shapes, of those classes exactly and with no extra field: a ``SystemMessage`` of
        string content; a ``HumanMessage`` of string content or a list of strings and ``text``
        blocks (of plain JSON); an ``AIMessage`` of string content, or of a list of strings,
        ``text`` blocks and ``tool_use`` blocks each linked to one of its calls (what
        ``ChatAnthropic`` returns: :meth:`_fast_blocks`), and ``tool_calls`` of exactly
        ``name``, ``args`` (a plain JSON object), ``id`` and ``type`` (string ids and names),
        no invalid tool calls (reasoning, Gemini signatures and OpenAI's raw calls in
        ``additional_kwargs`` read as the general path reads them); a ``ToolMessage`` of
        string content. Reasoning, image and other blocks take the general path. Every other field
        holds its declared type and plain JSON (:func:`_fast_record`): a chat model's
        ``response_metadata``, ``usage_metadata``, ``id``, ``additional_kwargs`` such as
        ``refusal``, a tool's ``artifact`` and ``status``.
        """
        kind = type(msg)
        fields = msg.__dict__
        if msg.__pydantic_extra__ or fields["type"] != _TYPE_TAGS.get(kind):
            return False
        content = fields["content"]
        if kind is AIMessage:
            return self._fast_ai(i, fields, content)
        if kind is ToolMessage:
            return type(content) is str and self._fast_tool(i, fields, content)
        if kind is SystemMessage:
            if type(content) is not str:
                return False
            rest = _fast_record(fields, _PLAN_SYSTEM)
            if rest is None:
                return False
            options = {"heal": {_NS: {"message": rest}}} if rest else None
            self._put(built_message(_System, content, options), i, ())
            return True
        if kind is not HumanMessage:
            return False
        rest = _fast_record(fields, _PLAN_HUMAN)
        if rest is None:
            return False
        options = {"heal": {_NS: {"message": rest}}} if rest else None
        if type(content) is str:
            self._put(built_message(_User, content, options), i, ())
            return True
        if type(content) is not list:
            return False
        texts = []
        for item in content:
            if type(item) is str:
                texts.append(built_text(item))
                continue
            # A text block, as _user_block reads it: its other keys ride along.
            if type(item) is not dict or item.get("type") != "text" or not plain_value(item):
                return False
            text = item.get("text")
            if type(text) is not str:
                return False
            rest = dict(item)  # in the block's order, as _without copies it
            del rest["text"]
            texts.append(built_text(text, {"heal": {_NS: {"block": rest}}}))
        self._put(built_message(_User, tuple(texts), options), i, range(len(texts)))
        return True

    def _fast_ai(self, i: int, fields: Mapping[str, Any], content: Any) -> bool:
        """:meth:`_fast` for an ``AIMessage`` of string content or of a list of the blocks
        :meth:`_fast_blocks` reads, with what the loader reads in ``additional_kwargs`` read as
        :meth:`_ai` reads it: ``reasoning_content`` (as DeepSeek's and other OpenAI-compatible
        integrations set it), Gemini's signatures by call id, OpenAI's raw calls (as every
        OpenAI-format integration keeps them)."""
        if fields["invalid_tool_calls"]:
            return False
        listed = type(content) is list
        if not listed and type(content) is not str:
            return False
        rest = _fast_record(fields, _PLAN_AI)
        if rest is None:
            return False
        calls = fields["tool_calls"]
        if type(calls) is not list:
            return False
        meta: Json = {"content": "list" if listed else "str"}
        parts: list[Any] = []
        origins: list[int | None] = []
        given = rest.get("additional_kwargs")
        kwargs = given
        signatures: Json | None = None
        if given is not None and not _KWARGS_READ.isdisjoint(given):
            kwargs = dict(given)
            reasoning = kwargs.get("reasoning_content")
            if type(reasoning) is str:
                del kwargs["reasoning_content"]
                options: Json = {"heal": {_NS: {"from": "reasoning_content"}}}
                parts.append(built_reasoning(reasoning, options))
                origins.append(None)
            found = kwargs.get(_GEMINI_SIGNATURES)
            if type(found) is dict:
                signatures = dict(found)
        if content and not listed:
            parts.append(built_text(content))
            origins.append(0)
        read: list[tuple[str, str, Any, Json]] = []  # each call's id, name, input and options
        for n, call in enumerate(calls):
            if type(call) is not dict or list(call) != _CALL_ORDER or call["type"] != "tool_call":
                return False
            call_id = call["id"]
            name = call["name"]
            value = call["args"]
            if type(call_id) is not str or type(name) is not str or not plain_input(value):
                return False
            options = {"heal": {_NS: {"tc": n}}}
            if signatures is not None and call_id in signatures:
                options = {"google": {"thoughtSignature": signatures.pop(call_id)}, **options}
            read.append((call_id, name, value, options))
        linked: set[int] = set()
        base = 1  # a string content counts as one block
        if listed:
            provider = fields["response_metadata"].get("model_provider")
            found_links = self._fast_blocks(content, read, parts, origins, provider)
            if found_links is None:
                return False
            linked, base = found_links, len(content)
        for n, (call_id, name, value, options) in enumerate(read):
            if n not in linked:
                parts.append(built_call(call_id, name, value, options))
                origins.append(base + n)
        if kwargs is not given:
            assert kwargs is not None and given is not None
            if signatures is not None:
                kwargs[_GEMINI_SIGNATURES] = signatures
            raw = kwargs.get("tool_calls")
            if type(raw) is list:
                links = _raw_links(raw, calls, [])
                if links:
                    meta["raw_links"] = links
            if kwargs != given:
                if kwargs:
                    rest["additional_kwargs"] = kwargs
                else:
                    del rest["additional_kwargs"]
                    meta["kwargs_emptied"] = True
        if rest:
            meta["message"] = rest
        heal: Json = {_NS: meta}
        if _cut_off(fields["response_metadata"]):
            heal[ABORTED] = True
        self._put(built_message(_Assistant, tuple(parts), {"heal": heal}), i, origins)
        if listed:
            self.listed.add(i)
        return True

    @staticmethod
    def _fast_blocks(
        content: list[Any],
        calls: list[tuple[str, str, Any, Json]],
        parts: list[Any],
        origins: list[int | None],
        provider: Any = None,
    ) -> set[int] | None:
        """The parts of an AI message's list ``content``, added to ``parts`` and ``origins`` as
        :meth:`_ai_block` reads them, when every block is a string, a ``text`` block or a
        ``tool_use`` block linked to one of ``calls`` (the id, name, input and options read from
        ``tool_calls``; :func:`_call_block` links a block to the first call not linked yet
        with its id), each of plain JSON (judged whole where its strings and its call's input
        do not say so already); returns the calls linked, by index. A linked call
        takes the block's place, with the block's other keys and which of its fields matched
        the call (``sync``). None for any other block, a ``tool_use`` block no call answers to
        (a call of its own), or one whose input matches its call's by ``==`` but holds other
        types (``1.0`` for ``1``): writing it back gives the call's, not the caller's block."""
        linked: set[int] = set()
        for k, block in enumerate(content):
            if type(block) is str:
                parts.append(built_text(block, {"heal": {_NS: {"at": k}}}))
                origins.append(k)
                continue
            if type(block) is not dict:
                return None
            kind = block.get("type")
            if kind == "text":
                text = block.get("text")
                if type(text) is not str:
                    return None
                # Plain JSON, as the loader checks it: of type and text alone, those strings.
                if (len(block) != 2 or type(kind) is not str) and not plain_value(block):
                    return None
                rest = dict(block)  # in the block's order, as _without copies it
                del rest["text"]
                parts.append(built_text(text, {"heal": {_NS: {"at": k, "block": rest}}}))
                origins.append(k)
                continue
            if kind in ("thinking", "reasoning"):  # a tuple: the type may be unhashable
                part = _fast_reasoning(block, k, provider)
                if part is None:
                    return None
                parts.append(part)
                origins.append(k)
                continue
            if kind != "tool_use":
                return None
            call_id = block.get("id")
            if type(call_id) is not str:
                return None
            for n, call in enumerate(calls):  # a loop, not next() over a generator: cheaper
                if n not in linked and call[0] == call_id:
                    break
            else:
                return None
            linked.add(n)
            _, name, value, options = calls[n]
            rest = dict(block)
            sync: Json = {"id": True}
            del rest["id"]
            if block.get("name") == name:
                sync["name"] = True
                del rest["name"]
            found = block.get("input")
            if found == value and found is not None:
                if not _same_json(found, value):
                    return None
                sync["input"] = True
                del rest["input"]
            # Plain JSON, as the loader checks it: a block that matched its call in all, of
            # strings and the call's own input (plain, and the same in its types).
            if (
                len(rest) != 1 or type(kind) is not str or type(block.get("name")) is not str
            ) and not plain_value(block):
                return None
            own = options["heal"][_NS]
            own.update({"at": k, "block": rest, "sync": sync})
            parts.append(built_call(call_id, name, value, options))
            origins.append(k)
        return linked

    def _fast_tool(self, i: int, fields: Mapping[str, Any], content: str) -> bool:
        """:meth:`_fast` for a ``ToolMessage`` of string ``content``."""
        call_id = fields["tool_call_id"]
        if type(call_id) is not str:
            return False
        rest = _fast_record(fields, _PLAN_TOOL)
        if rest is None:
            return False
        meta: Json = {}
        name = fields["name"]
        if name is None:
            name = _nearest(self.calls.get(call_id, []), i) or UNKNOWN_TOOL_NAME
            meta["derived_name"] = name
        if rest:
            meta["message"] = rest
        output = built_text_output(content, error=fields["status"] == "error")
        part = built_result(call_id, name, output, {"heal": {_NS: meta}} if meta else None)
        self._put(built_message(_Tool, (part,)), i, (0,))
        return True

    def _put(self, message: ModelMessage, origin: int, parts: Iterable[int | None]) -> None:
        self.out.append(message)
        self.origins.append(origin)
        self.part_origins.append(tuple(parts))

    def _system(self, msg: SystemMessage, path: str) -> Json:
        meta: Json = {}
        rest = _message_rest(msg, path, "content")
        if rest:
            meta["message"] = rest
        content = msg.content
        if isinstance(content, str):
            return _node({"role": "system", "content": content}, meta)
        texts: list[str] = []
        blocks: list[Any] = []
        for k, block in enumerate(content):
            bpath = f"{path}.content[{k}]"
            if isinstance(block, str):
                texts.append(block)
                blocks.append(None)
            elif isinstance(block, dict) and block.get("type") == "text":
                text = block.get("text")
                if not isinstance(text, str):
                    raise InputError("text block has no text string", path=bpath)
                _check_json(block, bpath)
                texts.append(text)
                blocks.append(_without(block, "text"))
            else:
                raise InputError(
                    "system message content must be text, got "
                    + (repr(block.get("type")) if isinstance(block, dict) else _kind(block)),
                    path=bpath,
                )
        meta["blocks"] = blocks
        meta["lengths"] = [len(t) for t in texts]
        return _node({"role": "system", "content": _SYSTEM_SEPARATOR.join(texts)}, meta)

    def _human(self, msg: HumanMessage, path: str) -> tuple[Json, tuple[int | None, ...]]:
        meta: Json = {}
        rest = _message_rest(msg, path, "content")
        if rest:
            meta["message"] = rest
        content = msg.content
        if isinstance(content, str):
            return _node({"role": "user", "content": content}, meta), ()
        parts: list[Json] = []
        for k, block in enumerate(content):
            parts.append(self._user_block(block, f"{path}.content[{k}]"))
        return _node({"role": "user", "content": parts}, meta), tuple(range(len(parts)))

    def _user_block(self, block: Any, path: str, *, assistant: bool = False) -> Json:
        if isinstance(block, str):
            return {"type": "text", "text": block}
        if not isinstance(block, dict):
            raise InputError(f"expected a content block, got {_kind(block)}", path=path)
        _check_json(block, path)
        kind = _block_type(block, path)
        if kind == "text":
            text = block.get("text")
            if not isinstance(text, str):
                raise InputError("text block has no text string", path=path)
            return _node({"type": "text", "text": text}, {"block": _without(block, "text")})
        node = _media_node(block, path, assistant=assistant)
        if node is None:
            raise InputError(
                f"content block type {shown(kind)} has no AI SDK equivalent", path=path
            )
        return node

    def _ai(self, msg: AIMessage, path: str) -> tuple[Json, tuple[int | None, ...]]:
        rest = _message_rest(msg, path, "content", "tool_calls", "invalid_tool_calls")
        meta: Json = {}
        kwargs = dict(rest.get("additional_kwargs") or {})
        provider = (msg.response_metadata or {}).get("model_provider")  # None, set unvalidated
        parts: list[Json] = []
        origins: list[int | None] = []
        if isinstance(kwargs.get("reasoning_content"), str):
            parts.append(
                _node(
                    {"type": "reasoning", "text": kwargs.pop("reasoning_content")},
                    {"from": "reasoning_content"},
                )
            )
            origins.append(None)
        tool_calls = [dict(c) for c in msg.tool_calls]
        invalid = [dict(c) for c in msg.invalid_tool_calls]
        signatures = kwargs.get(_GEMINI_SIGNATURES)
        signatures = dict(signatures) if isinstance(signatures, dict) else None
        calls = [
            self._call(c, n, "tc", signatures, f"{path}.tool_calls[{n}]")
            for n, c in enumerate(tool_calls)
        ]
        bad = [
            self._call(c, n, "itc", signatures, f"{path}.invalid_tool_calls[{n}]")
            for n, c in enumerate(invalid)
        ]
        if signatures is not None:
            kwargs[_GEMINI_SIGNATURES] = signatures
        linked: set[int] = set()
        content = msg.content
        hidden: list[list[Any]] = []
        server_names: dict[str, str] = {}
        if isinstance(content, str):
            meta["content"] = "str"
            if content:
                parts.append({"type": "text", "text": content})
                origins.append(0)
            base = 1
        else:
            meta["content"] = "list"
            base = len(content)
            for k, block in enumerate(content):
                bpath = f"{path}.content[{k}]"
                node = self._ai_block(
                    block,
                    k,
                    bpath,
                    provider=provider,
                    calls=calls,
                    linked=linked,
                    server_names=server_names,
                    signatures=signatures,
                )
                if node is None:
                    _check_json(block, bpath)
                    hidden.append([k, block])
                    continue
                parts.append(node)
                origins.append(k)
        for n, node in enumerate(calls):
            if n not in linked:
                parts.append(node)
                origins.append(base + n)
        for n, node in enumerate(bad):
            parts.append(node)
            origins.append(base + len(calls) + n)
        if hidden:
            if not parts:
                raise InputError(
                    "the AI message holds only content blocks with no AI SDK equivalent "
                    f"(first: {shown(hidden[0][1].get('type'))})",
                    path=f"{path}.content[{hidden[0][0]}]",
                )
            meta["hidden"] = hidden
        raw = kwargs.get("tool_calls")
        if isinstance(raw, list):
            links = _raw_links(raw, tool_calls, invalid)
            if links:
                meta["raw_links"] = links
        if kwargs != (rest.get("additional_kwargs") or {}):
            if kwargs:
                rest["additional_kwargs"] = kwargs
            else:
                rest.pop("additional_kwargs", None)
                meta["kwargs_emptied"] = True
        if rest:
            meta["message"] = rest
        node = _node({"role": "assistant", "content": parts}, meta)
        if _cut_off(msg.response_metadata):
            node["providerOptions"]["heal"][ABORTED] = True
        return node, tuple(origins)

    def _call(self, call: Json, n: int, kind: str, signatures: Json | None, path: str) -> Json:
        _check_json(call, path)
        meta: Json = {kind: n}
        cid, name = call.get("id"), call.get("name")
        if cid is None:
            meta["no_id"] = True
        if name is None:
            meta["no_name"] = True
        args = call.get("args")
        extra = _without(call, "id", "name", "args", "type")
        if extra:
            meta["call"] = extra
        others: Json = {}
        if signatures is not None and isinstance(cid, str) and cid in signatures:
            others["google"] = {"thoughtSignature": signatures.pop(cid)}
        node = {
            "type": "tool-call",
            "toolCallId": cid if isinstance(cid, str) else "",
            "toolName": name if isinstance(name, str) else "",
            "input": args,
        }
        return _node(node, meta, others)

    def _ai_block(
        self,
        block: Any,
        k: int,
        path: str,
        *,
        provider: Any,
        calls: list[Json],
        linked: set[int],
        server_names: dict[str, str],
        signatures: Json | None,
    ) -> Json | None:
        if isinstance(block, str):
            return _node({"type": "text", "text": block}, {"at": k})
        if not isinstance(block, dict):
            raise InputError(f"expected a content block, got {_kind(block)}", path=path)
        kind = _block_type(block, path)
        if kind == "text":
            _check_json(block, path)
            text = block.get("text")
            if not isinstance(text, str):
                raise InputError("text block has no text string", path=path)
            return _node(
                {"type": "text", "text": text}, {"at": k, "block": _without(block, "text")}
            )
        if kind in ("thinking", "redacted_thinking", "reasoning"):
            _check_json(block, path)
            return _reasoning_block(block, k, provider)
        if kind in _CALL_BLOCKS:
            _check_json(block, path)
            return _call_block(block, k, calls, linked, signatures)
        if kind == "server_tool_use":
            _check_json(block, path)
            cid, name = block.get("id"), block.get("name")
            if not isinstance(cid, str) or not isinstance(name, str):
                raise InputError("server_tool_use block needs a string id and name", path=path)
            server_names[cid] = name
            node = {
                "type": "tool-call",
                "toolCallId": cid,
                "toolName": name,
                "input": block.get("input"),
                "providerExecuted": True,
            }
            return _node(node, {"at": k, "block": _without(block, "id", "name", "input")})
        if isinstance(kind, str) and kind.endswith("_tool_result") and "tool_use_id" in block:
            _check_json(block, path)
            cid = block["tool_use_id"]
            if not isinstance(cid, str):
                raise InputError("tool result block needs a string tool_use_id", path=path)
            meta: Json = {"at": k, "block": _without(block, "tool_use_id", "content")}
            name = server_names.get(cid)
            if name is None:
                meta["no_name"] = True
            node = {
                "type": "tool-result",
                "toolCallId": cid,
                "toolName": name or UNKNOWN_TOOL_NAME,
                "output": {"type": "json", "value": block.get("content")},
            }
            return _node(node, meta)
        if kind in ("image", "image_url", "file"):
            _check_json(block, path)
            media = _media_node(block, path, assistant=True)
            if media is not None:
                _meta(media)["at"] = k
            return media
        return None

    def _tool(self, msg: ToolMessage, i: int, path: str) -> Json:
        rest = _message_rest(msg, path, "content", "tool_call_id")
        meta: Json = {}
        cid = msg.tool_call_id
        name = msg.name
        if name is None:
            name = _nearest(self.calls.get(cid, []), i) or UNKNOWN_TOOL_NAME
            meta["derived_name"] = name
        error = msg.status == "error"
        content = msg.content
        if isinstance(content, str):
            output: Json = {"type": "error-text" if error else "text", "value": content}
        else:
            _check_json(content, f"{path}.content")
            items = _output_items(content)
            if items is None:
                output = {"type": "error-json" if error else "json", "value": content}
                meta["json_list"] = True
            else:
                output = {"type": "content", "value": items}
        if rest:
            meta["message"] = rest
        node = {"type": "tool-result", "toolCallId": cid, "toolName": name, "output": output}
        return {"role": "tool", "content": [_node(node, meta)]}


def _same_json(a: Any, b: Any) -> bool:
    """Whether two plain JSON values are the same, types included all the way down (``==``
    takes ``1`` for ``1.0`` and ``True``)."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict:
        return len(a) == len(b) and all(key in b and _same_json(v, b[key]) for key, v in a.items())
    if kind is list:
        return len(a) == len(b) and all(map(_same_json, a, b))
    return bool(a == b)


def _block_type(block: Json, path: str) -> Any:
    """A content block's ``type``. A list or an object there is refused: LangChain itself looks
    the type up in dicts (``content_blocks``, ``convert_to_openai_messages``) and fails with a
    TypeError, so no such message can be sent. Other non-string values are unknown types, which
    LangChain keeps as ``non_standard`` blocks and this adapter as unknown blocks."""
    kind = block.get("type")
    if isinstance(kind, (list, dict)):
        raise InputError(
            f"content block type must be a string, got {_kind(kind)}", path=f"{path}.type"
        )
    return kind


def _without(block: Mapping[str, Any], *keys: str) -> Json:
    return {k: v for k, v in block.items() if k not in keys}


def _nearest(found: list[tuple[int, str]], i: int) -> str | None:
    """The name of the call nearest before message ``i`` in ``found`` (in message order), else
    of the first after it."""
    before = after = None
    for j, name in found:
        if j < i:
            before = name
        elif j > i and after is None:
            after = name
    return after if before is None else before


def _reasoning_block(block: Json, k: int, provider: Any) -> Json:
    kind = block["type"]
    meta: Json = {"at": k}
    others: Json = {}
    if kind == "thinking":
        text = block.get("thinking")
        rest = _without(block, "thinking")
        if isinstance(block.get("signature"), str):
            others["anthropic"] = {"signature": rest.pop("signature")}
    elif kind == "redacted_thinking":
        text = ""
        rest = _without(block, "data")
        others["anthropic"] = {"redactedData": block.get("data")}
    elif isinstance(block.get("summary"), list):
        summaries = block["summary"]
        texts = [s.get("text") if isinstance(s, dict) else None for s in summaries]
        if not all(isinstance(t, str) for t in texts):
            raise InputError("reasoning summary items need text", path=f"content[{k}]")
        text = _SUMMARY_SEPARATOR.join(cast(list[str], texts))
        rest = _without(block, "summary")
        meta["summary"] = [_without(s, "text") for s in summaries]
        meta["lengths"] = [len(t) for t in cast(list[str], texts)]
        openai: Json = {}
        if isinstance(block.get("id"), str):
            openai["itemId"] = rest.pop("id")
        if isinstance(block.get("encrypted_content"), str):
            openai["reasoningEncryptedContent"] = rest.pop("encrypted_content")
        if openai:
            others["openai"] = openai
    else:
        text = block.get("reasoning", "")
        rest = _without(block, "reasoning")
        if "reasoning" not in block:
            meta["no_text"] = True
        extras = rest.get("extras")
        home = _SIGNATURE_HOMES.get(provider) if isinstance(provider, str) else None
        if (
            home is not None
            and isinstance(extras, dict)
            and isinstance(extras.get("signature"), str)
        ):
            extras = dict(extras)
            others[home[0]] = {home[1]: extras.pop("signature")}
            rest["extras"] = extras
    if not isinstance(text, str):
        raise InputError("reasoning block has no text string", path=f"content[{k}]")
    meta["block"] = rest
    return _node({"type": "reasoning", "text": text}, meta, others)


def _fast_reasoning(block: Json, k: int, provider: Any) -> Any:
    """The reasoning part :func:`_reasoning_block` reads of a ``thinking`` block (its text, and
    a string signature as Anthropic's) or of a ``reasoning`` block with its text and without a
    summary (a string signature in its ``extras`` as the provider's, as ``_SIGNATURE_HOMES``
    says), built for :meth:`_Loader._fast_blocks`; None for any other, or a block that is not
    plain JSON: the general path reads it, and words what it refuses."""
    kind = block["type"]
    key = "thinking" if kind == "thinking" else "reasoning"
    text = block.get(key)
    if type(text) is not str or not plain_value(block):
        return None
    rest = _without(block, key)
    others: Json = {}
    if kind == "thinking":
        if type(rest.get("signature")) is str:
            others["anthropic"] = {"signature": rest.pop("signature")}
    else:
        if "summary" in block:
            return None  # OpenAI's summaries: the general path reads them
        extras = rest.get("extras")
        home = _SIGNATURE_HOMES.get(provider) if type(provider) is str else None
        if home is not None and type(extras) is dict and type(extras.get("signature")) is str:
            extras = dict(extras)
            others[home[0]] = {home[1]: extras.pop("signature")}
            rest["extras"] = extras
    options: Json = others
    options["heal"] = {_NS: {"at": k, "block": rest}}
    return built_reasoning(text, options)


def _call_block(
    block: Json, k: int, calls: list[Json], linked: set[int], signatures: Json | None
) -> Json:
    id_path, name_path, input_path, textual = _CALL_BLOCKS[block["type"]]
    cid = _get_path(block, id_path)
    target = next(
        (
            n
            for n, node in enumerate(calls)
            if n not in linked and node["toolCallId"] == cid and not _meta(node).get("no_id")
        ),
        None,
    )
    rest = copy.deepcopy(block)
    others: Json = {}
    if block["type"] == "function_call" and isinstance(block.get("id"), str):
        others["openai"] = {"itemId": rest.pop("id")}
    if target is None:  # a call in content only
        raw_input = _get_path(block, input_path)
        value = raw_input
        if textual and isinstance(raw_input, str):
            parsed = _loads(raw_input)
            value = parsed if isinstance(parsed, dict) else raw_input
        for p in (id_path, name_path):
            if _get_path(block, p) is not None:
                _pop_path(rest, p)
        meta: Json = {"at": k, "block": rest, "block_only": True}
        if not isinstance(cid, str):
            meta["no_id"] = True
        if not isinstance(_get_path(block, name_path), str):
            meta["no_name"] = True
        if signatures is not None and isinstance(cid, str) and cid in signatures:
            others["google"] = {"thoughtSignature": signatures.pop(cid)}
        node = {
            "type": "tool-call",
            "toolCallId": cid if isinstance(cid, str) else "",
            "toolName": name if isinstance(name := _get_path(block, name_path), str) else "",
            "input": value,
        }
        return _node(node, meta, others)
    linked.add(target)
    node = calls[target]
    sync: Json = {}
    if _get_path(block, id_path) == node["toolCallId"]:
        sync["id"] = True
        _pop_path(rest, id_path)
    if _get_path(block, name_path) == node["toolName"]:
        sync["name"] = True
        _pop_path(rest, name_path)
    raw_input = _get_path(block, input_path)
    if textual:
        if isinstance(raw_input, str) and _loads(raw_input) == node["input"]:
            sync["input"] = True  # the text stays in the block: its exact spelling
    elif raw_input == node["input"] and raw_input is not None:
        sync["input"] = True
        _pop_path(rest, input_path)
    meta = _meta(node)
    meta.update({"at": k, "block": rest, "sync": sync})
    if others:
        options = node.setdefault("providerOptions", {})
        for ns, values in others.items():
            options[ns] = {**options.get(ns, {}), **values}
    if "providerOptions" not in node or "heal" not in node["providerOptions"]:
        node.setdefault("providerOptions", {})["heal"] = {_NS: meta}
    return node


def _raw_links(raw: list[Any], calls: list[Json], invalid: list[Json]) -> list[list[Any]]:
    """Link OpenAI's raw ``additional_kwargs["tool_calls"]`` entries to the parsed calls."""
    links: list[list[Any]] = []
    used: set[tuple[str, int]] = set()
    for q, entry in enumerate(raw):
        if not isinstance(entry, dict) or not isinstance(entry.get("function"), dict):
            continue
        cid = entry.get("id")
        for kind, group in (("tc", calls), ("itc", invalid)):
            n = next(
                (n for n, c in enumerate(group) if c.get("id") == cid and (kind, n) not in used),
                None,
            )
            if n is None:
                continue
            used.add((kind, n))
            function = entry["function"]
            same_name = function.get("name") == group[n].get("name")
            arguments = function.get("arguments")
            args = group[n].get("args")
            same_args = isinstance(arguments, str) and (
                _loads(arguments) == args if kind == "tc" else arguments == args
            )
            links.append([q, kind, n, same_name, same_args])
            break
    return links


def _output_items(content: list[Any]) -> list[Json] | None:
    """Tool content as AI SDK content items, or None when it is not content blocks."""
    items: list[Json] = []
    for block in content:
        if isinstance(block, str):
            items.append({"type": "text", "text": block, "providerOptions": _str_marker()})
            continue
        if not isinstance(block, dict):
            return None
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            items.append(
                _node({"type": "text", "text": block["text"]}, {"block": _without(block, "text")})
            )
            continue
        try:
            found = _media(block, "content")
        except InputError:
            return None
        if found is None:
            return None
        media, data, media_type, owned = found
        rest = copy.deepcopy(block)
        for key in owned.values():
            _pop_path(rest, key)
        meta: Json = {"owned": owned, "block": rest}
        is_url = _URL.match(data) is not None and not data.startswith("data:")
        if is_url:
            node: Json = {"type": "image-url" if media == "image" else "file-url", "url": data}
            if media_type is not None:
                meta["media_type"] = media_type
        else:
            if data.startswith("data:"):
                # file-data items hold base64: the data URL's head is kept to rebuild it
                head, _, data = data.partition(",")
                meta["data_url"] = head + ","
            if media_type is None:
                meta["no_media_type"] = True
            node = {
                "type": "image-data" if media == "image" else "file-data",
                "data": data,
                "mediaType": media_type or _OCTET,
            }
            filename = _get_path(block, owned["filename"]) if "filename" in owned else None
            if isinstance(filename, str):
                node["filename"] = filename
        items.append(_node(node, meta))
    return items


def _str_marker() -> Json:
    return {"heal": {_NS: {"str": True}}}


# --- dump ------------------------------------------------------------------------------------


class _Dumper:
    def __init__(self, messages: list[Json]) -> None:
        self.messages = messages

    def run(self) -> list[BaseMessage]:
        out: list[BaseMessage] = []
        for k, msg in enumerate(self.messages):
            path = f"messages[{k}]"
            role = msg["role"]
            if role == "tool":
                out.extend(
                    self._tool(part, f"{path}.content[{p}]")
                    for p, part in enumerate(msg["content"])
                )
                continue
            meta = _meta(msg)
            _check_consumed(_foreign(msg), path)
            data: Json = dict(meta.get("message") or {})
            if role == "system":
                data["content"] = _system_content(msg["content"], meta)
            elif role == "user":
                data["content"] = self._user_content(msg["content"], path)
            else:
                self._ai(msg, meta, data, path)
            out.append(_build(_CLASSES[role], data, path))
        return out

    def _user_content(self, content: Any, path: str) -> str | list[Any]:
        if isinstance(content, str):
            return content
        blocks: list[Any] = []
        for p, part in enumerate(content):
            ppath = f"{path}.content[{p}]"
            meta = _meta(part)
            _check_consumed(_foreign(part), ppath)
            if part["type"] == "text":
                blocks.append(
                    {**meta["block"], "text": part["text"]} if "block" in meta else part["text"]
                )
            else:
                blocks.append(_dump_media(part, meta))
        return blocks

    def _tool(self, part: Json, path: str) -> ToolMessage:
        if part.get("type") != "tool-result":
            raise InputError(f"{part.get('type')} parts have no LangChain equivalent", path=path)
        meta = _meta(part)
        _check_consumed(_foreign(part), path)
        data: Json = dict(meta.get("message") or {})
        data["tool_call_id"] = part["toolCallId"]
        if "derived_name" not in meta or part["toolName"] != meta["derived_name"]:
            data["name"] = part["toolName"]
        output = part["output"]
        kind = output["type"]
        status = "success"
        if kind in ("text", "error-text"):
            data["content"] = output["value"]
        elif kind in ("json", "error-json"):
            value = output["value"]
            keep = meta.get("json_list") and isinstance(value, list)
            data["content"] = value if keep else json.dumps(value)
        elif kind == "execution-denied":
            reason = output.get("reason")
            data["content"] = f"{_DENIED_TEXT} {reason}" if reason else _DENIED_TEXT
        else:
            data["content"] = [
                _dump_output_item(item, f"{path}.output.value[{q}]")
                for q, item in enumerate(output["value"])
            ]
            status = data.get("status", "success")
        if kind in ("error-text", "error-json", "execution-denied"):
            status = "error"
        if status == "success":
            data.pop("status", None)
        else:
            data["status"] = status
        return cast(ToolMessage, _build(ToolMessage, data, path))

    def _ai(self, msg: Json, meta: Json, data: Json, path: str) -> None:
        content = msg["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}] if content else []
        kwargs: Json = dict(data.get("additional_kwargs") or {})
        blocks: list[tuple[int | None, Any]] = []
        calls: list[tuple[int | None, Json, Json]] = []
        bad: list[tuple[int | None, Json, Json]] = []
        text_only = True
        reasoning_content: list[str] = []
        signatures: Json = {}
        for p, part in enumerate(content):
            ppath = f"{path}.content[{p}]"
            pmeta = _meta(part)
            options = _foreign(part)
            kind = part["type"]
            at = pmeta.get("at")
            if kind == "text":
                block: Any = (
                    {**pmeta["block"], "text": part["text"]} if "block" in pmeta else part["text"]
                )
                if "block" in pmeta:
                    text_only = False
                blocks.append((at, block))
            elif kind == "reasoning":
                if pmeta.get("from") == "reasoning_content" or (
                    not pmeta
                    and not options
                    and not reasoning_content
                    and "reasoning_content" not in kwargs
                ):
                    reasoning_content.append(part["text"])
                else:
                    blocks.append((at, _dump_reasoning(part, pmeta, options)))
                    text_only = False
            elif kind == "tool-call":
                sig = _take(options, "google", "thoughtSignature")
                if sig is not None:
                    signatures[part["toolCallId"]] = sig
                item_id = _take(options, "openai", "itemId")
                if part.get("providerExecuted"):
                    block = {
                        **(pmeta.get("block") or {"type": "server_tool_use"}),
                        "id": part["toolCallId"],
                        "name": part["toolName"],
                        "input": part.get("input"),
                    }
                    blocks.append((at, block))
                    text_only = False
                elif pmeta.get("block_only"):
                    blocks.append((at, _call_block_out(part, pmeta, item_id)))
                    text_only = False
                else:
                    entry, is_valid = _call_entry(part, pmeta)
                    if "block" in pmeta:
                        blocks.append((at, _linked_block(part, pmeta, item_id)))
                        text_only = False
                    elif item_id is not None:
                        options.setdefault("openai", {})["itemId"] = item_id
                    (calls if is_valid else bad).append(
                        (pmeta.get("tc" if is_valid else "itc"), entry, part)
                    )
            elif kind == "tool-result":
                block = {
                    **(pmeta.get("block") or {"type": "tool_result"}),
                    "tool_use_id": part["toolCallId"],
                    "content": _output_value(part["output"]),
                }
                blocks.append((at, block))
                text_only = False
            elif kind == "file":
                block = _dump_media(part, pmeta)
                blocks.append((at, block))
                text_only = False
            else:
                raise InputError(f"{kind} parts have no LangChain equivalent", path=ppath)
            _check_consumed(options, ppath)
        hidden = [(k, b) for k, b in meta.get("hidden") or []]
        merged = _merge_blocks(blocks, hidden)
        as_string = meta.get("content") == "str" if meta else True
        if as_string and text_only and not hidden and len(merged) <= 1:
            data["content"] = merged[0] if merged else ""
        else:
            data["content"] = [
                {"type": "text", "text": b} if isinstance(b, str) and not meta else b
                for b in merged
            ]
        data["tool_calls"] = [entry for _, entry, _ in _sorted(calls)]
        data["invalid_tool_calls"] = [entry for _, entry, _ in _sorted(bad)]
        if reasoning_content:
            kwargs["reasoning_content"] = "".join(reasoning_content)
        if signatures or _GEMINI_SIGNATURES in kwargs:
            kwargs[_GEMINI_SIGNATURES] = {**(kwargs.get(_GEMINI_SIGNATURES) or {}), **signatures}
        if meta.get("raw_links") and isinstance(kwargs.get("tool_calls"), list):
            kwargs["tool_calls"] = _sync_raw(kwargs["tool_calls"], meta["raw_links"], calls, bad)
        if kwargs or "additional_kwargs" in data:
            data["additional_kwargs"] = kwargs


def _build(cls: type[BaseMessage], data: Json, path: str) -> BaseMessage:
    try:
        return cls(**data)
    except (ValueError, TypeError) as exc:
        raise InputError(f"LangChain rejects the message: {exc}", path=path) from None


def _system_content(text: str, meta: Json) -> str | list[Any]:
    blocks = meta.get("blocks")
    if not isinstance(blocks, list):
        return text
    texts = _text_of(text, meta.get("lengths") or [], _SYSTEM_SEPARATOR)
    if texts is None:
        first = next((b for b in blocks if b is not None), None)
        return [{**first, "text": text}] if first is not None else [text]
    return [t if b is None else {**b, "text": t} for b, t in zip(blocks, texts, strict=True)]


def _sorted(items: list[tuple[int | None, Json, Json]]) -> list[tuple[int | None, Json, Json]]:
    """Order tool calls by their native index; an added one follows the one before it."""
    keyed: list[tuple[float, int, tuple[int | None, Json, Json]]] = []
    prev = -1.0
    for pos, item in enumerate(items):
        key = item[0]
        if key is not None:
            prev = float(key)
            keyed.append((prev, pos, item))
        else:
            keyed.append((prev + 0.5, pos, item))
    return [item for _, _, item in sorted(keyed, key=lambda x: (x[0], x[1]))]


def _merge_blocks(blocks: list[tuple[int | None, Any]], hidden: list[tuple[int, Any]]) -> list[Any]:
    """Content blocks in canonical order, with hidden blocks back at their native place."""
    if not hidden:
        return [b for _, b in blocks]
    out: list[Any] = []
    queue = sorted(hidden, key=lambda h: h[0])
    for at, block in blocks:
        while queue and at is not None and queue[0][0] < at:
            out.append(queue.pop(0)[1])
        out.append(block)
    out.extend(b for _, b in queue)
    return out


def _call_entry(part: Json, meta: Json) -> tuple[Json, bool]:
    value = part.get("input")
    cid: Any = None if meta.get("no_id") and part["toolCallId"] == "" else part["toolCallId"]
    name: Any = None if meta.get("no_name") and part["toolName"] == "" else part["toolName"]
    extra = meta.get("call") or {}
    if isinstance(value, dict):
        entry = {"name": name, "args": value, "id": cid, "type": "tool_call"}
        if "tc" in meta:
            entry.update(extra)
        return entry, True
    if "itc" in meta:
        args = value if isinstance(value, str) or value is None else json.dumps(value)
        return {
            "name": name,
            "args": args,
            "id": cid,
            "error": None,
            **extra,
            "type": "invalid_tool_call",
        }, False
    args = value if isinstance(value, str) else json.dumps(value)
    return {
        "name": name,
        "args": args,
        "id": cid,
        "error": None,
        "type": "invalid_tool_call",
    }, False


def _call_id(part: Json) -> Any:
    """A tool call's native id: None again when it had none and heal gave it none."""
    if _meta(part).get("no_id") and part["toolCallId"] == "":
        return None
    return part["toolCallId"]


def _linked_block(part: Json, meta: Json, item_id: Any) -> Json:
    rest = copy.deepcopy(meta["block"])
    kind = rest.get("type")
    id_path, name_path, input_path, textual = _CALL_BLOCKS[kind]
    sync = meta.get("sync") or {}
    if sync.get("id"):
        _set_path(rest, id_path, part["toolCallId"])
    if sync.get("name"):
        _set_path(rest, name_path, part["toolName"])
    if sync.get("input"):
        value = part.get("input")
        if textual:
            current = _get_path(rest, input_path)
            if not (isinstance(current, str) and _loads(current) == value):
                _set_path(rest, input_path, value if isinstance(value, str) else json.dumps(value))
        else:
            _set_path(rest, input_path, value)
    if item_id is not None:
        rest["id"] = item_id
    return cast(Json, rest)


def _call_block_out(part: Json, meta: Json, item_id: Any) -> Json:
    rest = copy.deepcopy(meta["block"])
    id_path, name_path, input_path, textual = _CALL_BLOCKS[rest["type"]]
    if _call_id(part) is not None:
        _set_path(rest, id_path, part["toolCallId"])
    if not (meta.get("no_name") and part["toolName"] == ""):
        _set_path(rest, name_path, part["toolName"])
    value = part.get("input")
    current = _get_path(rest, input_path)
    if textual:
        if not (isinstance(current, str) and (current == value or _loads(current) == value)):
            _set_path(rest, input_path, value if isinstance(value, str) else json.dumps(value))
    else:
        _set_path(rest, input_path, value)
    if item_id is not None:
        rest["id"] = item_id
    return cast(Json, rest)


def _sync_raw(
    raw: list[Any],
    links: list[list[Any]],
    calls: list[tuple[int | None, Json, Json]],
    bad: list[tuple[int | None, Json, Json]],
) -> list[Any]:
    """OpenAI's raw tool calls, following heal's changes to the calls they mirror."""
    by_key: dict[tuple[str, int], Json] = {}
    for _, _, part in [*calls, *bad]:
        meta = _meta(part)
        for key in ("tc", "itc"):
            if key in meta:
                by_key[(key, meta[key])] = part
    linked = {q: (kind, n, same_name, same_args) for q, kind, n, same_name, same_args in links}
    out: list[Any] = []
    for q, entry in enumerate(raw):
        if q not in linked:
            out.append(entry)
            continue
        kind, n, same_name, same_args = linked[q]
        found = by_key.get((kind, n))
        if found is None:
            continue  # heal removed the call: its raw copy goes too
        part = found
        new = copy.deepcopy(entry)
        new["id"] = _call_id(part)
        if same_name:
            new["function"]["name"] = part["toolName"]
        if same_args:
            value = part.get("input")
            current = new["function"].get("arguments")
            if not (isinstance(current, str) and (current == value or _loads(current) == value)):
                new["function"]["arguments"] = (
                    value if isinstance(value, str) else json.dumps(value)
                )
        out.append(new)
    return out


def _dump_reasoning(part: Json, meta: Json, options: Json) -> Json:
    text = part["text"]
    block = copy.deepcopy(meta.get("block")) if "block" in meta else None
    kind = block.get("type") if isinstance(block, dict) else None
    if kind is None:
        if (options.get("anthropic") or {}).get("redactedData") is not None:
            kind, block = "redacted_thinking", {"type": "redacted_thinking"}
        elif options.get("anthropic"):
            kind, block = "thinking", {"type": "thinking"}
        elif options.get("openai"):
            kind, block = "reasoning", {"type": "reasoning"}
            meta = {"summary": [{"type": "summary_text"}] if text else []}
        else:
            kind, block = "reasoning", {"type": "reasoning"}
    assert isinstance(block, dict)
    if kind == "thinking":
        block["thinking"] = text
        signature = _take(options, "anthropic", "signature")
        if signature is not None:
            block["signature"] = signature
    elif kind == "redacted_thinking":
        block["data"] = _take(options, "anthropic", "redactedData")
    elif "summary" in meta:
        summaries = copy.deepcopy(meta["summary"])
        texts = _text_of(text, meta.get("lengths") or [], _SUMMARY_SEPARATOR)
        if texts is None or len(texts) != len(summaries):
            texts = _split_summaries(text, summaries)
        block["summary"] = [{**s, "text": t} for s, t in zip(summaries, texts, strict=True)]
        item_id = _take(options, "openai", "itemId")
        if item_id is not None:
            block["id"] = item_id
        encrypted = _take(options, "openai", "reasoningEncryptedContent")
        if encrypted is not None:
            block["encrypted_content"] = encrypted
    else:
        if not (meta.get("no_text") and text == ""):
            block["reasoning"] = text
        for ns, key in _SIGNATURE_HOMES.values():
            signature = _take(options, ns, key)
            if signature is not None:
                block["extras"] = {**(block.get("extras") or {}), "signature": signature}
                break
    return cast(Json, block)


def _split_summaries(text: str, summaries: list[Any]) -> list[str]:
    """The summary texts: split on blank lines into as many as there were, else one."""
    if not summaries:
        return [text] if text else []
    pieces = text.split(_SUMMARY_SEPARATOR)
    if len(pieces) == len(summaries):
        return pieces
    if len(pieces) > len(summaries):
        head = pieces[: len(summaries) - 1]
        return [*head, _SUMMARY_SEPARATOR.join(pieces[len(summaries) - 1 :])]
    return [text] + [""] * (len(summaries) - 1)


def _output_value(output: Json) -> Any:
    kind = output["type"]
    if kind in ("text", "json", "error-text", "error-json"):
        return output["value"]
    if kind == "execution-denied":
        return output.get("reason") or _DENIED_TEXT
    return output["value"]


def _dump_output_item(item: Json, path: str) -> Any:
    meta = _meta(item)
    _check_consumed(_foreign(item), path)
    kind = item.get("type")
    if kind == "text":
        if meta.get("str"):
            return item["text"]
        return {**(meta.get("block") or {"type": "text"}), "text": item["text"]}
    owned = meta.get("owned")
    if isinstance(owned, dict) and "block" in meta:
        block = copy.deepcopy(meta["block"])
        if kind in ("image-url", "file-url"):
            _set_path(block, owned["data"], item["url"])
            if "mediaType" in owned and "media_type" in meta:
                _set_path(block, owned["mediaType"], meta["media_type"])
        else:
            _set_path(block, owned["data"], meta.get("data_url", "") + item["data"])
            media_type = item.get("mediaType")
            if "mediaType" in owned and not (meta.get("no_media_type") and media_type == _OCTET):
                _set_path(block, owned["mediaType"], media_type)
            if "filename" in owned and item.get("filename") is not None:
                _set_path(block, owned["filename"], item["filename"])
        return block
    if kind in ("image-url", "file-url"):
        return {"type": "image" if kind == "image-url" else "file", "url": item["url"]}
    if kind in ("image-data", "file-data", "media"):
        media_type = item.get("mediaType") or _OCTET
        out = {
            "type": "image" if kind == "image-data" or media_type.startswith("image/") else "file",
            "base64": _standard_base64(item["data"]),
            "mime_type": media_type,
        }
        if item.get("filename") is not None:
            out["filename"] = item["filename"]
        return out
    raise InputError(f"{shown(kind)} tool output items have no LangChain equivalent", path=path)
