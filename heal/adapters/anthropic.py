"""Anthropic Messages API histories (``anthropic.types.MessageParam`` dicts, and ``system``).

::

    from heal.adapters.anthropic import heal_anthropic

    result = heal_anthropic({"system": system, "messages": messages})   # or just messages
    result.messages     # the same shape back (your own object when nothing changed, and your
                        # own message objects wherever heal changed nothing)
    result.repairs      # message_index = index in YOUR messages list

The input is either the request parameters ``{"system": ..., "messages": [...]}`` (``system``
optional, a string or a list of text blocks; other keys such as ``model`` or ``tools`` are not
history: :func:`load` ignores them and :func:`heal_anthropic` passes them through, after reading
the request's ``model``, ``thinking`` and ``tools`` for its target: :func:`read_request`) or
just the ``messages`` list. ``dump_messages(load_messages(x)) == x`` for every valid history,
optional and unknown fields included; pass ``shape="params"`` to get the dict back when ``x``
was a dict without a ``system`` (``shape="auto"``, the default, returns a dict only when there
is a system prompt to put in it). The adapter translates and never heals: what it cannot read raises
:class:`~heal.errors.InputError` naming the native place, such as ``messages[3].content[1].type``.

Mapping (native → canonical)
----------------------------
* ``system`` parameter → system messages before the rest: a string becomes one; a list becomes
  one per text block (``heal.anthropic.block`` = its index), regrouped on dump. System messages
  inside ``messages`` (mid-conversation) are marked ``heal.anthropic.message``.
* ``user`` → user message (text, image, document parts). A user message holding ``tool_result``
  blocks becomes a TOOL message (the results) followed by a USER message (the other blocks, if
  any), both mapped to the same native index; the user message is marked
  ``heal.anthropic.merge = true`` (and ``order``, a string of ``r``/``u`` per block, when the
  results were not all first), so the two dump back to ONE message in the original block order.
  Anthropic rejects results after other blocks; the ``misplaced-tool-result`` rule drops such
  an ``order`` under every provider (:func:`heal.rules._options.results_not_first`), so a
  healed history dumps with its results first.
  Canonical tool messages followed by a user message merge on dump, as the AI SDK groups them;
  a native user message that really followed a results-only one is marked ``merge = false``.
* ``assistant`` → assistant message, one part per block in block order: ``text`` (citations ↔
  ``providerOptions.anthropic.citations``), ``thinking`` → reasoning (``signature`` ↔
  ``providerOptions.anthropic.signature``), ``redacted_thinking`` → reasoning with empty text
  and ``providerOptions.anthropic.redactedData``, ``tool_use`` → tool call, server blocks
  (``server_tool_use``, ``mcp_tool_use``) → provider-executed tool calls and their results
  (``web_search_tool_result``, ``code_execution_tool_result``, ...) → tool results in the same
  assistant message, output ``json`` (``error-json`` when the content is an ``*_error`` object)
  holding the native content verbatim, block type in ``heal.anthropic.type``.
* ``tool_result`` → tool-result part: string content → ``text`` output, ``is_error: true`` →
  ``error-text``, a block list → ``content`` output (``text``, ``image-data``, ``image-url``,
  ``file-data``, ``file-url``, ``tool_reference`` as the AI SDK's ``custom`` item; other blocks
  kept whole in a ``custom`` item under ``heal.anthropic.block``). No content → empty text,
  marked ``heal.anthropic.content = "absent"``.
* ``image`` → image part (base64 data + media type, a URL, or a file id marked
  ``sourceType: "file"``); ``document`` → file part (``title`` ↔ ``filename``, ``context`` and
  ``citations`` ↔ ``providerOptions.anthropic``; a ``text`` source's text is base64-encoded,
  as the AI SDK expects). ``search_result`` and ``container_upload`` blocks have no canonical
  part: they load as a file part with no data, the block kept whole under
  ``heal.anthropic.block``. On dump, inline data written as a data URL (as other formats
  load it) goes out as its payload, its media type filling a missing one, as the AI SDK does.
* ``cache_control`` on any block ↔ its part's ``providerOptions.anthropic.cacheControl``;
  ``caller`` ↔ ``providerOptions.anthropic.caller`` (``tool_id`` ↔ ``toolId``).

The tool name of a ``tool_result`` comes from the ``tool_use`` with its id (nearest before, else
after); a result whose call is nowhere is named ``unknown_tool`` (heal removes such orphans).

Where native-only fields live
-----------------------------
Under ``providerOptions["heal"]["anthropic"]`` of the message or part: ``extra`` holds unknown or
unmapped fields verbatim (``is_error`` where the output type does not say it, ``toolset_name``,
a ``null`` ``cache_control``, ...), ``source`` the unknown keys of a ``source``, and the
markers named above. A signature stays in the ``anthropic`` namespace it came from; dumping
refuses a reasoning part that has neither an Anthropic signature nor redacted data (heal with
``provider="anthropic"`` drops those first) rather than invent a thinking block. One exception:
the empty reasoning part ``missing-reasoning-content`` adds for DeepSeek (marked synthesized) is
written as a thinking block with an empty ``signature``, what DeepSeek's ``/anthropic`` endpoint
takes (see ``_dump_reasoning``).

What heal cannot write here it does not claim to fix: a ``tool_use`` block has no field for a
Gemini thought signature, so ``google-missing-thought-signature`` only reports (``_UNWRITABLE``).

Repairs on the ``system`` parameter (it has no index in ``messages``) have ``message_index``
None and, for a list of blocks, ``part_index`` the block index.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any, Literal, cast, overload
from urllib.parse import unquote_to_bytes

from heal._engine import IdRenamer
from heal._verdict import (
    AFTER,
    PLAIN_TERMS,
    Terms,
    asked_scope,
    ended,
    plain_input,
    plain_inputs,
    plain_texts,
    plain_thoughts,
    plain_value,
    terms_for,
    walked_clean,
    walked_verdict,
)
from heal.adapters._common import (
    NO_FACTS,
    Loaded,
    NativeHealResult,
    RequestFacts,
    Sources,
    built_call,
    built_message,
    built_reasoning,
    built_result,
    built_text,
    built_text_output,
    collector_paused,
    expect_object,
    expect_string,
    format_policy,
    heal_native,
    native_target,
    sdk_dict,
    settled,
    written_back,
)
from heal.errors import ConfigError, HealingError, InputError
from heal.messages import (
    AssistantMessage,
    ErrorJsonOutput,
    ErrorTextOutput,
    ExecutionDeniedOutput,
    FilePart,
    ImagePart,
    JsonOutput,
    ModelMessage,
    ReasoningPart,
    SystemMessage,
    TextOutput,
    TextPart,
    ToolApprovalRequest,
    ToolApprovalResponse,
    ToolCallPart,
    ToolMessage,
    ToolResultPart,
    UserMessage,
    kind_of,
    shown,
)
from heal.messages import load_messages as _load_canonical
from heal.policy import Policy
from heal.providers import HEAL_NAMESPACE, ProviderId
from heal.repairs import Repair
from heal.rules import Rule
from heal.rules._options import ANTHROPIC_FORMAT, BLOCK_ORDER
from heal.rules._quick import NOT_PLAIN
from heal.rules.files import ANTHROPIC_IMAGE_TYPES, OPENAI_FILE_ID_PREFIX
from heal.targets import Target, tool_names

__all__ = [
    "UNKNOWN_TOOL_NAME",
    "Shape",
    "dump_messages",
    "heal_anthropic",
    "load",
    "load_messages",
    "read_request",
    "thinking_enabled",
]

NativeMessage = dict[str, Any]
"""One Messages API message dict."""

Shape = Literal["auto", "params", "messages"]
"""What :func:`dump_messages` returns: ``"params"`` the dict ``{"system"?, "messages"}``,
``"messages"`` the list alone (a system prompt becomes leading ``role: "system"`` messages),
``"auto"`` the dict when there is a system prompt, else the list."""

UNKNOWN_TOOL_NAME = "unknown_tool"
"""The canonical tool name of a result whose call is nowhere in the history."""

_NS = ANTHROPIC_FORMAT
_EMPTY: dict[str, Any] = {}
_ABSENT: Any = object()
_CALL_TYPES = ("tool_use", "server_tool_use", "mcp_tool_use")
_SERVER_RESULTS = {
    "web_search": "web_search_tool_result",
    "web_fetch": "web_fetch_tool_result",
    "code_execution": "code_execution_tool_result",
    "bash_code_execution": "bash_code_execution_tool_result",
    "text_editor_code_execution": "text_editor_code_execution_tool_result",
    "tool_search_tool_regex": "tool_search_tool_result",
    "tool_search_tool_bm25": "tool_search_tool_result",
    "advisor": "advisor_tool_result",
}
_OPAQUE_USER_BLOCKS = ("search_result", "container_upload")
_UNWRITABLE: dict[ProviderId | None, tuple[str, ...]] = {
    # A tool_use block has no field for a Gemini thought signature (only id, name, input,
    # cache_control, caller, toolset_name), and an unknown field would be sent to the API: the
    # rule reports the unsigned call and changes nothing (heal.adapters._common.format_policy).
    "google": ("google-missing-thought-signature",),
}
"""Rules whose fix this format cannot write, by provider."""
_PARTIAL = True
"""Convert only what a heal needs: build the models of common messages directly (the
loader's ``fast`` path) and write back only the messages a heal changed (:class:`_Writer`).
The tests switch it off to compare with converting everything through dicts."""
_HTTP = re.compile(r"https?://", re.IGNORECASE)
_DATA_URL = re.compile(r"data:([^,]*?)(;base64)?,(.*)", re.DOTALL)


# --- public API ------------------------------------------------------------------------------


def load(native: Any) -> Loaded:
    """Read a history (``{"system"?, "messages"}`` or a messages list) as canonical messages.

    ``origins[i]`` is the index in ``messages`` of canonical message ``i``; the system parameter
    has none and gets ``-1 - block index`` there (:func:`heal_anthropic` reports those repairs
    with ``message_index`` None). ``part_origins`` gives each part's native block index.

    SDK response objects (pydantic models, such as a returned message or its content blocks) are
    read as ``model_dump(exclude_none=True)``, the dicts the SDK would send; they dump as dicts.
    """
    messages, system, has_system = _split(native)
    return _Loader(messages, system, has_system, fast=_PARTIAL).run()


def load_messages(native: Any) -> list[ModelMessage]:
    """Read an Anthropic history as heal's canonical messages (``load(native).messages``)."""
    return load(native).messages


@overload
def dump_messages(
    messages: Iterable[ModelMessage | Mapping[str, Any]], *, shape: Literal["params"]
) -> dict[str, Any]: ...
@overload
def dump_messages(
    messages: Iterable[ModelMessage | Mapping[str, Any]], *, shape: Literal["messages"]
) -> list[NativeMessage]: ...
@overload
def dump_messages(
    messages: Iterable[ModelMessage | Mapping[str, Any]], *, shape: Shape = "auto"
) -> dict[str, Any] | list[NativeMessage]: ...
def dump_messages(
    messages: Iterable[ModelMessage | Mapping[str, Any]], *, shape: Shape = "auto"
) -> dict[str, Any] | list[NativeMessage]:
    """Write canonical messages as an Anthropic history.

    Leading system messages (not marked as coming from ``messages``) form the ``system``
    parameter: one unmarked message as a string, else a list of text blocks. ``shape`` says
    whether to return ``{"system"?, "messages"}`` or the list alone; see :data:`Shape`.
    """
    if shape not in ("auto", "params", "messages"):
        raise ValueError(f"shape must be 'auto', 'params' or 'messages', got {shape!r}")
    system, native = _Dumper(_load_canonical(messages), param=shape != "messages").run()
    if shape == "messages" or (shape == "auto" and system is None):
        return native
    return {"system": system, "messages": native} if system is not None else {"messages": native}


def heal_anthropic(
    history: Any,
    *,
    provider: ProviderId | None = "anthropic",
    model: str | None = None,
    thinking: bool | None = None,
    tools: Iterable[Any] | None = None,
    target: Target | None = None,
    policy: Policy | Mapping[str, str] | None = None,
    rules: Sequence[Rule] | None = None,
    on_repair: Callable[[Repair], object] | None = None,
    strict: bool = False,
    scope: Literal["request", "history"] = "request",
) -> NativeHealResult[Any]:
    """Heal an Anthropic history; return it in the shape given, with repairs at native indices.

    ``history`` is ``{"system"?, "messages", ...}`` (other request keys pass through unchanged)
    or a messages list. A history that needs nothing comes back as the very object passed in;
    under the default policy and a target whose model and tools it fits
    (:func:`heal._verdict.terms_for`), a plainly clean one (:func:`_plainly_clean`: text, calls
    and their results) is answered so without building a canonical model, and one plain but
    for tool-call ids the target refuses has them renamed in the caller's dicts, without one
    either (:func:`_renamed_ids`). When something needs a repair, the messages it leaves
    alone (and the ``system`` parameter) come back as the caller's own objects and only the
    others are written (:class:`_Writer`); the repairs name places in the history passed in.

    The target is what :func:`heal.heal_messages` takes: ``model`` (``"claude-sonnet-4-6"``),
    ``thinking`` (whether the request enables thinking), ``tools`` (names or definitions), or
    all of them as one ``target``. When ``history`` is the request parameters, their own
    ``model``, ``thinking`` and ``tools`` say what the keywords leave out (a keyword given wins;
    see :func:`read_request`): the parameters of a request are healed for that request. A
    ``target`` is used as given, and nothing is read from the parameters then. The other
    options are those of :func:`heal.heal_messages`.
    """
    goal = native_target(
        provider,
        "anthropic",
        model=model,
        thinking=thinking,
        tools=tools,
        target=target,
        request=read_request(history) if target is None else NO_FACTS,
    )
    # The verdict is asked under the default options, for a target it knows (terms).
    asked = asked_scope(policy, rules, scope)
    terms = terms_for(goal) if asked else None
    if terms is not None:
        verdict = partial(_verdict, history, goal.provider, terms)
        rename = partial(_renamed_ids, history, goal)
        history_scope = asked == "history"
        _, done = settled(history, verdict, rename, on_repair, strict, clean_only=history_scope)
        if done is not None:
            return done
        if history_scope:
            terms = None  # the request's verdict: the full path decides the rest
    native_messages, original_system, has_system = _split(history)
    params = isinstance(history, Mapping)
    blocks = params and isinstance(original_system, list)
    with collector_paused(len(native_messages)):
        loaded = _Loader(native_messages, original_system, has_system, fast=_PARTIAL).run()
        write = _Writer(native_messages, loaded, param=params, system=original_system)

    def dump(messages: list[ModelMessage]) -> Any:
        system, out = write(messages)
        if not params:
            return out
        merged: dict[str, Any] = {}
        for key, value in history.items():
            if key == "system":
                if system is not None:
                    merged["system"] = system
            else:
                merged[key] = out if key == "messages" else value
        if system is not None and "system" not in merged:
            merged = {"system": system, **merged}
        return merged

    def native(repair: Repair) -> Repair:
        return _system_location(repair, blocks=blocks)

    def notify(repair: Repair) -> object:
        return on_repair(native(repair)) if on_repair is not None else None

    try:
        result = heal_native(
            loaded,
            dump,
            target=goal,
            policy=format_policy(policy, keep=_UNWRITABLE.get(goal.provider, ())),
            rules=rules,
            on_repair=notify if on_repair is not None else None,
            strict=strict,
            scope=scope,
            original=history,
            quick=terms is None,
            renames=False,  # tried in the caller's dicts (_renamed_ids) when terms is not None
        )
    except HealingError as exc:
        raise HealingError([native(r) for r in exc.repairs]) from None
    return NativeHealResult(result.messages, tuple(native(r) for r in result.repairs))


_ID_KEYS = {"tool_use": ("id", "tool-call"), "tool_result": ("tool_use_id", "tool-result")}
"""The key of each block kind's tool-call id, and the canonical part it loads as."""


def _renamed_ids(history: Any, goal: Target, ids: list[str]) -> NativeHealResult[Any] | None:
    """The result for a history the verdict found plain but for tool-call ids the target
    refuses (Kimi's ``functions.search:3``; see :func:`_verdict`), whose calls' ids are ``ids``
    (the verdict's walk gathered them), made from the caller's dicts, without models; None to
    heal it the full way, which then decides.

    The ids are renamed as the engine's id rules rename them
    (:class:`heal._engine.IdRenamer`), one to one, and the new ones must be accepted:
    the renamed history is then plainly clean (the walk reads ids for nothing else), and this
    is the full path's result, with the engine's records at native places (a block of
    ``messages``); each renamed block is the caller's dict with the new id in place, in a copy
    of its message (and of the parameters), as :class:`_Writer` writes it, made in one pass.
    ``tests/adapters/test_native_fast_path.py`` holds the two ways to one result."""
    messages = history.get("messages") if type(history) is dict else history
    if type(messages) is not list:
        return None
    renamer = IdRenamer.of(ids, goal)
    if renamer is None:
        return None
    renamed = renamer.renamed
    with collector_paused(len(messages)):
        out = list(messages)
        i = -1
        for message in messages:
            i += 1
            if type(message) is not dict:
                return None  # an SDK object, which the full path writes
            content = message.get("content")
            if type(content) is not list:
                continue  # a string
            edited: list[Any] | None = None
            j = -1
            for block in content:
                j += 1
                # Every block is read (the new ids are judged, not the history again): an SDK
                # block object goes the full path too.
                if type(block) is not dict:
                    return None
                name = block.get("type")
                kind = _ID_KEYS.get(name) if type(name) is str else None  # a dict is unhashable
                if kind is None:
                    continue
                key = kind[0]
                tid = block.get(key)
                if type(tid) is not str:
                    return None  # the full path says what is wrong
                new_id = renamed((i, j, None), kind[1], tid)
                if new_id != tid:
                    if edited is None:
                        edited = list(content)
                        out[i] = {**message, "content": edited}
                    edited[j] = {**block, key: new_id}
        result = {**history, "messages": out} if type(history) is dict else out
    return NativeHealResult(result, renamer.records())


def _plainly_clean(history: Any, provider: ProviderId | None, terms: Terms = PLAIN_TERMS) -> bool:
    """Whether a history, as the caller gave it, is plainly clean for ``provider``: True only
    when healing it through canonical models (default policy, built-in rules, a target the
    ``terms`` are for) would return no repair at all, so :func:`heal_anthropic`
    can hand the caller's own object back without building a model. False says nothing but
    "not plainly". Exact in that one direction (see :mod:`heal._verdict`).

    Plainly clean means the shapes that load as :func:`heal._json.clean_verdict`'s plain AI SDK
    history does, and nothing that would carry options into the models:

    * ``{"system"?, "messages", ...}`` (a ``system`` that is a non-blank string or non-empty
      text blocks ``{type, text}``, maybe with ``cache_control``) or the messages list, of
      dicts with exactly ``role`` and ``content`` (``system`` messages, as
      :func:`dump_messages` writes a system prompt into a list, only first and with string
      content);
    * user content a non-blank string or text blocks; assistant content a non-blank string or
      text blocks followed by ``tool_use`` blocks (``id``, ``name``, an object ``input``);
    * each assistant message with calls followed by a user message of ``tool_result`` blocks
      alone, one per call (``tool_use_id`` and non-blank string ``content``, ``is_error: true``
      or nothing), which the loader reads as a tool message;
    * a prompt-caching breakpoint (``cache_control``, a JSON object) only on a text block of
      the system prompt, a user or an assistant message, or on a tool_result block, and only
      where no rule of the target reads such a block's options (:attr:`heal._verdict.Terms.
      text_options`, :attr:`~heal._verdict.Terms.result_options`: Google's and Bedrock's rules
      read a first user message's, and a breakpoint on a text goes the full path for them);
    * thinking only as Claude returns it, and only where the target's rules that read
      reasoning are Anthropic's (:attr:`heal._verdict.Terms.thinking`): ``thinking`` blocks
      with a non-empty ``signature`` and ``redacted_thinking`` blocks with non-empty ``data``,
      first in an assistant message and followed by its text or calls; a history with
      thinking that ends in an open tool loop only when one of the loop's assistant messages
      (those since the last user message) starts with it, as ``anthropic-tool-loop-thinking``
      wants;
    * a user's image blocks where they load as plain images (:func:`_plain_image`);
    * no ``citations``, other image, document or server block, no unknown key; the order of
      roles, texts, values and ids as :mod:`heal._verdict` says.
    """
    messages, system = _walked(history)
    if type(messages) is not list or not messages:
        return False
    return walked_clean(provider, terms, _plain_messages, messages, system, terms)


def _verdict(
    history: Any, provider: ProviderId | None, terms: Terms, ids: list[str] | None = None
) -> int:
    """:func:`_plainly_clean`, saying why (:func:`heal._verdict.walked_verdict`):
    ``REFUSED_IDS`` for a history plain but for its call ids' format, which the walk reads
    past (gathering the calls' ids in ``ids``, when given)."""
    messages, system = _walked(history)
    if type(messages) is not list or not messages:
        return NOT_PLAIN
    return walked_verdict(provider, terms, _read_past_ids, messages, system, terms, ids=ids)


def _walked(history: Any) -> tuple[Any, Any]:
    """What the verdict walks of a history given as request parameters or as a list: its
    messages and its system prompt (``_ABSENT`` when it has none)."""
    if type(history) is dict:
        return history.get("messages"), history.get("system", _ABSENT)
    return history, _ABSENT


def _plain_messages(
    messages: list[Any],
    system: Any,
    terms: Terms,
    ids: list[str],
    names: list[str],
    *,
    past_ids: bool = False,
) -> str | None:
    """The one pass of :func:`_plainly_clean`: the canonical role of the last message when every
    message has a plain shape in a plain place (else None), with the call ids and tool names
    added to ``ids`` and ``names``. Exact key counts and indexing (a missing key raises
    KeyError) check each dict's keys.

    A prompt-caching breakpoint (``cache_control``, a JSON object: the loader makes it the
    part's ``providerOptions.anthropic.cacheControl``) may stand on a text block of the system
    prompt, a user or an assistant message when no rule of the target reads a text's options
    (:attr:`heal._verdict.Terms.text_options`), and on a tool_result block when none reads a
    result's but for a call's ``caller`` (:attr:`~heal._verdict.Terms.result_options`).
    Signed thinking is read under :attr:`~heal._verdict.Terms.thinking` (see
    :func:`_plainly_clean`). ``past_ids``: read past a call id with a colon (Kimi's, which no
    provider takes) rather than stop there (:func:`_verdict`)."""
    text_cache = 3 if terms.text_options else 2  # the size of a text block with one
    images = terms.images
    result_cache = terms.result_options
    thinking = terms.thinking
    thought = False  # a thinking block came
    turn_thought = False  # an assistant message since the last user message starts with one
    thoughts: list[Any] = []  # the thinking texts, judged at the end
    previous = ""
    # Texts and tool inputs are gathered and judged once at the end: a call per value would
    # cost more than the test (nearly every block holds one).
    texts: list[Any] = []
    inputs: list[Any] = []
    # The breakpoints, judged at the end likewise (rare: a few a history).
    breakpoints: list[Any] = []
    add_text = texts.append
    if system is not _ABSENT:
        if type(system) is list and system:
            for block in system:
                if type(block) is not dict or block["type"] != "text":
                    return None
                if len(block) != 2:
                    if len(block) != text_cache:
                        return None
                    breakpoints.append(block["cache_control"])
                add_text(block["text"])
        else:
            add_text(system)
        previous = "system"
    waiting: dict[str, str] | None = None  # the previous message's calls: id -> name
    for message in messages:
        if type(message) is not dict or len(message) != 2:
            return None
        role = message["role"]
        content = message["content"]
        if waiting is not None:
            # The user message of results that must answer the assistant message before it.
            if role != "user" or type(content) is not list or len(content) != len(waiting):
                return None
            for block in content:
                if type(block) is not dict or block["type"] != "tool_result":
                    return None
                size = len(block)
                if result_cache and "cache_control" in block:
                    breakpoints.append(block["cache_control"])
                    size -= 1
                if size == 4:
                    if block["is_error"] is not True:  # false is kept as an unmapped field
                        return None
                elif size != 3:
                    return None
                call_id = block["tool_use_id"]
                if type(call_id) is not str or waiting.pop(call_id, None) is None:
                    return None
                add_text(block["content"])
            waiting = None
            previous = "tool"
            continue
        follows = AFTER.get(role) if type(role) is str else None  # a list is unhashable
        if follows is None or previous not in follows:
            return None
        if role == "user":
            turn_thought = False  # a new turn: the tool loop after it is the one that counts
        if type(content) is str:
            add_text(content)
        elif role == "system" or type(content) is not list or not content:
            return None
        elif role == "user":
            for block in content:
                if type(block) is not dict:
                    return None
                if block["type"] != "text":
                    # A screenshot or a photo the user sent, where it loads as a plain image.
                    if not images or block["type"] != "image" or not _plain_image(block):
                        return None
                    continue
                size = len(block)
                if size != 2:
                    if size != text_cache:
                        return None
                    breakpoints.append(block["cache_control"])
                add_text(block["text"])
        else:
            said = False  # a text or call came: no thinking after it
            for block in content:
                if type(block) is not dict:
                    # An SDK block (response.content, stored as it came), as the loader reads
                    # it (a dict goes on as it is: the common case pays nothing for this).
                    block = sdk_dict(block)  # noqa: PLW2901
                    if block is None:
                        return None
                kind = block["type"]
                size = len(block)
                # Texts and calls first: nearly every block is one.
                if kind == "text":
                    # Text after a call is moved before it for Anthropic.
                    if waiting is not None:
                        return None
                    if size != 2 and not _null_rest(block, 2):
                        if size != text_cache or block.get("cache_control") is None:
                            return None
                        breakpoints.append(block["cache_control"])
                    add_text(block["text"])
                    said = True
                elif kind == "tool_use" and (size == 4 or _null_rest(block, 4)):
                    call_id = block["id"]
                    name = block["name"]
                    if type(call_id) is not str or type(name) is not str:
                        return None
                    inputs.append(block["input"])
                    if waiting is None:
                        waiting = {}
                    waiting[call_id] = name
                    if ":" in call_id and not past_ids:
                        return None  # Kimi's id form, which no provider takes: all renamed
                    ids.append(call_id)
                    names.append(name)
                    said = True
                elif kind in _THINKING:
                    # Signed, first in its message (reasoning-not-first), and followed by a text
                    # or a call (trailing-reasoning, reasoning-only-message, checked below).
                    if not thinking or said:
                        return None
                    if kind == "thinking":
                        signed = block["signature"]
                        if size != 3 or type(signed) is not str or not signed:
                            return None
                        thoughts.append(block["thinking"])
                    else:
                        signed = block["data"]
                        if size != 2 or type(signed) is not str or not signed:
                            return None
                    thought = turn_thought = True  # first in its message
                else:
                    return None
            if not said:
                return None  # thinking alone, or a message without blocks
        previous = role
    if not (plain_texts(texts) and plain_inputs(inputs) and plain_thoughts(thoughts)):
        return None
    if thought and previous == "tool" and not turn_thought:
        # A tool loop still open in a history that thinks: one of its assistant messages (those
        # since the last user message) must start with signed thinking, or
        # anthropic-tool-loop-thinking reports it.
        return None
    for found in breakpoints:
        # An object the models take as it is (another value stays an unmapped field).
        if type(found) is not dict or not plain_value(found):
            return None
    # Calls left unanswered are the last message's, an assistant message: not an end.
    return None if waiting is not None else ended(previous, texts[-1] if texts else None)


def _plain_image(block: dict[str, Any]) -> bool:
    """Whether an image block (its ``type`` read) loads as a plain image
    (:func:`heal.rules.files.plain_image`): exactly a ``source`` of base64 data of a media type
    every provider takes, or of a URL, as the loader reads them without a mark (the data's own
    kind, :func:`_image_source_kind`), and no other key (``cache_control`` loads as options)."""
    if len(block) != 2:
        return False
    source = block["source"]
    if type(source) is not dict:
        return False
    kind = source.get("type")
    if kind == "base64":
        data = source.get("data")
        return (
            len(source) == 3
            and source.get("media_type") in ANTHROPIC_IMAGE_TYPES
            and type(data) is str
            and data != ""
            and _image_source_kind(data) == "base64"
            and not data.startswith(OPENAI_FILE_ID_PREFIX)
        )
    if kind == "url":
        url = source.get("url")
        return len(source) == 2 and type(url) is str and _image_source_kind(url) == "url"
    return False


_THINKING = ("thinking", "redacted_thinking")
"""A tuple, not a set: a block's type may be any JSON value, and a list cannot be hashed."""

_MAPPED_KEYS: dict[str, frozenset[str]] = {
    "text": frozenset({"type", "text"}),
    "tool_use": frozenset({"type", "id", "name", "input"}),
}
"""The keys of a text and a tool_use block that the loader maps to the part's own fields."""


_read_past_ids = partial(_plain_messages, past_ids=True)
"""The walk of :func:`_verdict`."""


def _null_rest(block: dict[str, Any], size: int) -> dict[str, Any] | None:
    """The other keys of a text or tool_use block (whose ``size`` mapped keys, all present,
    :data:`_MAPPED_KEYS` names) when each is null, as the ``model_dump()`` of an SDK block
    writes ``citations``, ``caller`` and ``toolset_name``: the loader keeps them verbatim as
    the part's extra mark, in the block's order. None when there are none, a mapped key is
    missing, or one is not null (a citation or a cache breakpoint: the general path words
    those)."""
    mapped = _MAPPED_KEYS[block["type"]]
    rest = {key: value for key, value in block.items() if key not in mapped}
    if not rest or len(block) != size + len(rest):
        return None
    for value in rest.values():
        if value is not None:
            return None
    return rest


def read_request(native: Any) -> RequestFacts:
    """What Anthropic request parameters say about their target: ``model`` (a model id),
    ``thinking`` (:func:`thinking_enabled`; its ``block_binding.prefix_mismatch_behavior`` too)
    and ``tools`` (their names). A messages list, or a key that is absent or not of its
    documented type (the SDK's "not given" sentinel), says nothing.

    Raises :class:`~heal.errors.InputError` for a tool definition whose name is not a string.
    """
    if not isinstance(native, Mapping):
        return NO_FACTS
    model = native.get("model")
    config = native.get("thinking")
    binding = config.get("block_binding") if isinstance(config, Mapping) else None
    behavior = binding.get("prefix_mismatch_behavior") if isinstance(binding, Mapping) else None
    tools = native.get("tools")
    names: tuple[str, ...] | None = None
    if isinstance(tools, (list, tuple)):
        try:
            names = tuple(tool_names(tools))
        except ConfigError as exc:
            raise InputError(str(exc), path="tools") from None
    return RequestFacts(
        model=model if isinstance(model, str) and model.strip() else None,
        thinking=thinking_enabled(config),
        tools=names,
        prefix_mismatch_behavior=behavior if isinstance(behavior, str) else None,
    )


def thinking_enabled(config: object) -> bool | None:
    """Whether an Anthropic ``thinking`` request parameter enables thinking.

    ``{"type": "enabled"}`` (extended thinking with a budget) and ``{"type": "adaptive"}`` (the
    form of extended thinking recommended from Claude 4.6 on, where the model decides how much
    to think: docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-adaptive-thinking.html)
    are on; ``{"type": "disabled"}`` is off. None for anything else:
    no parameter (the model's default, which heal's model facts settle where they can), or
    ``between_tools``, documented as thinking turned off while the model's progress updates
    between tool calls come back as thinking blocks, so neither answer is safe.
    """
    kind = config.get("type") if isinstance(config, Mapping) else None
    if kind in ("enabled", "adaptive"):
        return True
    if kind == "disabled":
        return False
    return None


def _system_location(repair: Repair, *, blocks: bool) -> Repair:
    """Repairs on the system parameter: no message index; the block index as the part."""
    update: dict[str, Any] = {}
    if repair.message_index is not None and repair.message_index < 0:
        update["message_index"] = None
        update["part_index"] = -1 - repair.message_index if blocks else None
    if repair.anchor_index is not None and repair.anchor_index < 0:
        update["anchor_index"] = None
    return repair.model_copy(update=update) if update else repair


class _Writer:
    """Writes a healed history back for :func:`heal_anthropic`: ``(system, messages)``.

    Each native message whose canonical messages came through the heal untouched
    (:class:`~heal.adapters._common.Sources`) is the caller's own object; one whose calls or
    results changed only their ids or names is a copy of the caller's with those fields
    replaced (:meth:`_renamed`); the others are written from their canonical messages, in the
    runs :func:`dump_messages` would write (:func:`_spans`). The result equals the whole
    history written out. So does the ``system`` parameter: the caller's own value while its
    messages are untouched.
    """

    def __init__(self, native: list[Any], loaded: Loaded, *, param: bool, system: Any) -> None:
        self.native = native
        self.loaded = loaded.messages
        self.part_origins = loaded.part_origins or [None] * len(loaded.messages)
        self.sources = Sources.of(loaded)
        self.system_size = sum(1 for origin in loaded.origins if origin < 0)
        self.param = param
        self.system = system

    def __call__(
        self, healed: list[ModelMessage]
    ) -> tuple[str | list[dict[str, Any]] | None, list[Any]]:
        dumper = _Dumper(healed, param=self.param)
        if not _PARTIAL:
            return dumper.run()
        lead = _lead(healed) if self.param else 0
        system: str | list[dict[str, Any]] | None = None
        if lead:
            loaded = self.loaded
            if lead == self.system_size and all(healed[k] is loaded[k] for k in range(lead)):
                system = self.system
            else:
                system = dumper._system_param(cast(list[SystemMessage], healed[:lead]))
        out = written_back(
            healed,
            _spans(healed, lead),
            self.sources,
            self.native,
            renamed=self._renamed,
            dump=lambda start, end: (dumper.span(start, end),),
        )
        return system, out

    def _renamed(
        self, healed: list[ModelMessage], start: int, end: int, origin: int
    ) -> dict[str, Any] | None:
        """A copy of native message ``origin`` with the new ids and names of its ``tool_use``
        and ``tool_result`` blocks, when the run is its canonical messages with no other
        change (:meth:`~heal.adapters._common.Sources.renamed`); else None. The dumper writes
        those fields as they are (``id`` and ``name`` of a call, ``tool_use_id`` of a result,
        which has no name), so the copy is what writing the run gives."""
        if not 0 <= origin < len(self.native):
            return None
        changes = self.sources.renamed(healed, start, end, origin)
        native = self.native[origin]
        if changes is None or type(native) is not dict or type(native.get("content")) is not list:
            return None
        at = self.sources.loaded_from(origin)
        content = list(native["content"])
        for t, p, update in changes:
            old = self.loaded[at[t]]
            blocks = self.part_origins[at[t]]
            j = blocks[p] if blocks is not None else None
            if j is None or j >= len(content) or type(content[j]) is not dict:
                return None
            block = content[j]
            part = cast(tuple[Any, ...], old.content)[p]
            kind = block.get("type")
            if type(part) is ToolCallPart and kind == "tool_use":
                names = {"tool_call_id": "id", "tool_name": "name"}
            elif type(part) is ToolResultPart and isinstance(old, ToolMessage):
                if kind != "tool_result":
                    return None
                names = {"tool_call_id": "tool_use_id"}  # the block holds no name
            else:
                return None
            block = dict(block)
            for field, value in update.items():
                if field in names:
                    block[names[field]] = value
            content[j] = block
        return {**native, "content": content}


# --- small helpers ---------------------------------------------------------------------------


def _split(native: Any) -> tuple[list[Any], Any, bool]:
    if isinstance(native, (str, bytes, bytearray)):
        raise InputError(f"expected an Anthropic history, got {kind_of(native)}")
    if isinstance(native, Mapping):
        if "messages" not in native:
            raise InputError("expected {'system'?, 'messages'} or a list of messages; no messages")
        messages = native["messages"]
        if isinstance(messages, (str, bytes, bytearray, Mapping)) or not isinstance(
            messages, Iterable
        ):
            raise InputError(f"messages must be a list, got {kind_of(messages)}")
        return list(messages), native.get("system"), "system" in native
    if not isinstance(native, Iterable):
        raise InputError(f"expected an Anthropic history, got {kind_of(native)}")
    return list(native), None, False


def _rest(obj: Mapping[str, Any], *mapped: str) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in mapped}


def _drop_none(obj: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if v is not None}


def _options(
    heal: Mapping[str, Any] | None = None, anthropic: Mapping[str, Any] | None = None
) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    if anthropic:
        out["anthropic"] = dict(anthropic)
    marks = {k: v for k, v in (heal or {}).items() if v is not None}
    if marks:
        out["heal"] = {_NS: marks}
    return out or None


def _meta(model: Any) -> dict[str, Any]:
    """The ``heal.anthropic`` options of a canonical message, part or output item."""
    options = model.get("providerOptions") if isinstance(model, dict) else model.provider_options
    heal = options.get("heal") if isinstance(options, dict) else None
    found = heal.get(_NS) if isinstance(heal, dict) else None
    return found if isinstance(found, dict) else _EMPTY


def _anthropic(model: Any) -> dict[str, Any]:
    options = model.get("providerOptions") if isinstance(model, dict) else model.provider_options
    found = options.get("anthropic") if isinstance(options, dict) else None
    return found if isinstance(found, dict) else _EMPTY


def _put_extra(out: dict[str, Any], meta: Mapping[str, Any], key: str = "extra") -> dict[str, Any]:
    extra = meta.get(key)
    if isinstance(extra, dict):
        for k, v in extra.items():
            out.setdefault(k, v)
    return out


def _common(block: Mapping[str, Any], *mapped: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Split a block's ``cache_control`` and ``caller`` (AI SDK options) from its other fields.

    Returns (anthropic options, unmapped fields). A field that does not have the AI SDK's shape
    (a null ``cache_control``, a ``caller`` with unknown keys) stays unmapped, verbatim.
    """
    anthropic: dict[str, Any] = {}
    rest = _rest(block, "type", *mapped)
    control = rest.get("cache_control")
    if isinstance(control, dict):
        anthropic["cacheControl"] = rest.pop("cache_control")
    caller = rest.get("caller")
    if isinstance(caller, dict) and set(caller) <= {"type", "tool_id"}:
        rest.pop("caller")
        anthropic["caller"] = {("toolId" if k == "tool_id" else k): v for k, v in caller.items()}
    return anthropic, rest


def _put_common(native: dict[str, Any], anthropic: Mapping[str, Any]) -> dict[str, Any]:
    if "cacheControl" in anthropic:
        native["cache_control"] = anthropic["cacheControl"]
    caller = anthropic.get("caller")
    if isinstance(caller, dict):
        native["caller"] = {("tool_id" if k == "toolId" else k): v for k, v in caller.items()}
    return native


def _text_to_base64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8", "surrogatepass")).decode("ascii")


def _base64_to_text(data: str | bytes) -> str | None:
    try:
        raw = data if isinstance(data, bytes) else base64.b64decode(data, validate=True)
        return raw.decode("utf-8", "surrogatepass")
    except (binascii.Error, ValueError):
        return None


def _b64(data: str | bytes) -> str:
    return data if isinstance(data, str) else base64.b64encode(data).decode("ascii")


def _split_data_url(data: str | bytes) -> tuple[str | bytes, str | None]:
    """Inline data written as a data URL (another spelling of inline data, which the AI SDK
    splits before any provider sees it): its payload (base64, or the bytes of a percent-encoded
    one) and its media type. Any other data comes back as it is, with None."""
    found = _DATA_URL.fullmatch(data) if isinstance(data, str) else None
    if found is None:
        return data, None
    media = found.group(1) or None
    if found.group(2):
        return found.group(3), media
    return unquote_to_bytes(found.group(3)), media


# --- sources: image and document blocks ------------------------------------------------------


def _image_source_kind(data: str | bytes) -> str:
    """The source type dump picks for image data: a URL for http(s) strings, else base64."""
    return "url" if isinstance(data, str) and _HTTP.match(data) else "base64"


def _document_source_kind(data: str | bytes, media_type: str) -> str:
    if isinstance(data, str) and _HTTP.match(data):
        return "url"
    return "text" if media_type == "text/plain" else "base64"


def _load_source(
    source: dict[str, Any], path: str, *, document: bool
) -> tuple[str, str | None, dict[str, Any]]:
    """(data, media type, markers) of an image or document source."""
    kind = source.get("type")
    marks: dict[str, Any] = {}
    media: str | None = None
    if kind in ("base64", "text"):
        data = expect_string(source, "data", path, f"{kind} source")
        if "media_type" in source:
            media = expect_string(source, "media_type", path, f"{kind} source")
        rest = _rest(source, "type", "data", "media_type")
        if "media_type" not in source:
            marks["noMediaType"] = True
        if kind == "text":
            data = _text_to_base64(data)
    elif kind == "url":
        data = expect_string(source, "url", path, "url source")
        rest = _rest(source, "type", "url")
    elif kind == "file":
        data = expect_string(source, "file_id", path, "file source")
        rest = _rest(source, "type", "file_id")
    elif kind == "content" and document:
        data = ""
        rest = _rest(source, "type")
    else:
        expected = "base64, text, url, file, content" if document else "base64, url, file"
        raise InputError(
            f"unknown source type {shown(kind)} (expected {expected})",
            path=f"{path}.type" if "type" in source else path,
        )
    if media is None and document:
        media = "text/plain" if kind in ("text", "content") else "application/pdf"
    inferred = _document_source_kind(data, media or "") if document else _image_source_kind(data)
    if kind != inferred:
        marks["sourceType"] = kind
    marks["source"] = rest or None
    return data, media, marks


def _dump_source(
    data: str | bytes, media_type: str | None, meta: Mapping[str, Any], *, document: bool
) -> dict[str, Any]:
    kind = meta.get("sourceType")
    if not isinstance(kind, str):
        kind = (
            _document_source_kind(data, media_type or "") if document else _image_source_kind(data)
        )
    source: dict[str, Any] = {"type": kind}
    if kind == "url":
        source["url"] = data if isinstance(data, str) else _b64(data)
    elif kind == "file":
        source["file_id"] = data if isinstance(data, str) else _b64(data)
    elif kind == "text":
        if not meta.get("noMediaType"):
            source["media_type"] = media_type or "text/plain"
        text = _base64_to_text(_split_data_url(data)[0])
        if text is None:
            raise InputError("a text/plain document's data is not base64 UTF-8 text")
        source["data"] = text
    elif kind == "base64":
        data, url_media = _split_data_url(data)
        if not meta.get("noMediaType"):
            mime = media_type or url_media or "image/jpeg"
            source["media_type"] = "image/jpeg" if mime == "image/*" else mime
        source["data"] = _b64(data)
    return _put_extra(source, meta, "source")


# --- load ------------------------------------------------------------------------------------


class _Loader:
    def __init__(self, native: list[Any], system: Any, has_system: bool, *, fast: bool) -> None:
        self.native = native
        self.system = system
        self.has_system = has_system
        self.fast = fast
        self.out: list[dict[str, Any] | ModelMessage] = []
        self.origins: list[int] = []
        self.part_origins: list[tuple[int | None, ...] | None] = []
        self.messages: list[dict[str, Any]] = []
        # id -> [(native index, tool name)] of every tool call, for naming results: the whole
        # history's (:meth:`_index_calls`), once ``indexed``. Until then the fast path names a
        # result from ``latest``: id -> name of the last call read so far (see _tool_name).
        self.calls: dict[str, list[tuple[int, str]]] = {}
        self.indexed = False
        self.latest: dict[str, str] = {}

    def run(self) -> Loaded:
        if self.has_system:
            self._system_param(self.system)
        for i, raw in enumerate(self.native):
            # The caller's own dicts are only read, never changed: no copy needed.
            msg = raw if type(raw) is dict else expect_object(raw, f"messages[{i}]", "a message")
            self.messages.append(msg)
        if not self.fast:
            self._index_calls()
        results_only = False
        fast = self._fast if self.fast else None
        for i, msg in enumerate(self.messages):
            found = fast(i, msg, results_only) if fast is not None else None
            if found is None:
                if not self.indexed:  # first: a server result names a call of its own message
                    for call_id, name in _named_calls(msg):
                        self.latest[call_id] = name
                found = self._message(i, msg, after_results=results_only)
            results_only = found
        try:
            canonical = _load_canonical(self.out)
        except InputError as exc:
            if self.fast:  # locate the error as the plain path does, on dicts alone
                return _Loader(self.native, self.system, self.has_system, fast=False).run()
            found_at = re.match(r"messages\[(\d+)\]", exc.path)
            origin = self.origins[int(found_at.group(1))] if found_at else None
            where = "system" if origin is not None and origin < 0 else f"messages[{origin}]"
            raise InputError(
                f"cannot be represented: {exc.reason}", path=where if found_at else "messages"
            ) from None
        return Loaded(canonical, self.origins, self.part_origins)

    def _fast(self, i: int, msg: dict[str, Any], after_results: bool) -> bool | None:
        """Build the canonical models of a message of the common shapes directly, as loading
        its dicts and validating them would (``tests/adapters/test_partial_conversion.py``
        holds the two equal); None, having built nothing, for any other message, which the
        general path reads. Returns whether the message held tool results alone.

        The shapes: a user or assistant message of exactly ``role`` and ``content``; string
        content, or blocks of exactly the keys of ``text``, ``tool_result`` (string content,
        ``is_error: true`` or none), ``thinking`` (signed), ``redacted_thinking`` and
        ``tool_use`` (an input of plain JSON, or a string). No ``cache_control``, citations,
        media, server block or unknown key: those carry options the general path words.
        """
        if len(msg) != 2:
            return None
        role = msg.get("role")
        content = msg.get("content")
        if role == "assistant":
            if type(content) is str:
                self._put(built_message(AssistantMessage, content), i, ())
                return False
            if type(content) is not list:
                return None
            parts: list[Any] = []
            named: list[tuple[str, str]] = []  # the calls that name results (_named_calls)
            for block in content:
                own = type(block) is dict
                if not own:
                    # An SDK block (response.content, stored as it came), as the general path
                    # reads it.
                    block = sdk_dict(block)  # noqa: PLW2901
                    if block is None:
                        return None
                kind = block.get("type")
                size = len(block)
                if kind == "text":
                    text = block.get("text")
                    if type(text) is not str:
                        return None
                    if size == 2:
                        parts.append(built_text(text))
                        continue
                    rest = _null_rest(block, 2)
                    if rest is None:
                        return None
                    parts.append(built_text(text, {"heal": {_NS: {"extra": rest}}}))
                elif kind == "tool_use":
                    call_id = block.get("id")
                    name = block.get("name")
                    value = block.get("input", _ABSENT)
                    if type(call_id) is not str or type(name) is not str:
                        return None
                    if type(value) is not str and not plain_input(value):
                        return None  # a string is kept as it is, for invalid-tool-input
                    if own:
                        named.append((call_id, name))
                    if size == 4:
                        parts.append(built_call(call_id, name, value))
                        continue
                    rest = _null_rest(block, 4)
                    if rest is None:
                        return None
                    parts.append(built_call(call_id, name, value, {"heal": {_NS: {"extra": rest}}}))
                elif kind == "thinking":
                    text = block.get("thinking")
                    signature = block.get("signature")
                    if size != 3 or type(text) is not str or type(signature) is not str:
                        return None
                    options = {_NS: {"signature": signature}}
                    parts.append(built_reasoning(text, options))
                elif kind == "redacted_thinking":
                    data = block.get("data")
                    if size != 2 or type(data) is not str:
                        return None
                    options = {_NS: {"redactedData": data}}
                    parts.append(built_reasoning("", options))
                else:
                    return None
            message = built_message(AssistantMessage, tuple(parts))
            self._put(message, i, range(len(parts)))
            self.latest.update(named)
            return False
        if role != "user":
            return None
        merge = {"heal": {_NS: {"merge": False}}} if after_results else None
        if type(content) is str:
            self._put(built_message(UserMessage, content, merge), i, ())
            return False
        if type(content) is not list:
            return None
        results: list[Any] = []
        result_at: list[int] = []
        texts: list[Any] = []
        text_at: list[int] = []
        for j, block in enumerate(content):
            if type(block) is not dict:
                return None
            kind = block.get("type")
            size = len(block)
            if kind == "text":
                text = block.get("text")
                if size != 2 or type(text) is not str:
                    return None
                texts.append(built_text(text))
                text_at.append(j)
            elif kind == "tool_result":
                call_id = block.get("tool_use_id")
                value = block.get("content")
                if type(call_id) is not str or type(value) is not str:
                    return None
                if size == 4:
                    if block.get("is_error") is not True:  # false is kept as an unmapped field
                        return None
                    output: Any = built_text_output(value, error=True)
                elif size == 3:
                    output = built_text_output(value)
                else:
                    return None
                name = self._tool_name(call_id, i)
                results.append(built_result(call_id, name, output))
                result_at.append(j)
            else:
                return None
        if not results:
            self._put(built_message(UserMessage, tuple(texts), merge), i, text_at)
            return False
        self._put(built_message(ToolMessage, tuple(results)), i, result_at)
        if not texts:
            return True
        marks: dict[str, Any] = {"merge": True}
        if result_at[-1] > text_at[0]:  # a text block before a result: the order is kept
            kinds = ("r" if j in result_at else "u" for j in range(len(content)))
            marks[BLOCK_ORDER] = "".join(kinds)
        self._put(built_message(UserMessage, tuple(texts), {"heal": {_NS: marks}}), i, text_at)
        return False

    def _put(self, message: ModelMessage, origin: int, parts: Iterable[int | None]) -> None:
        self.out.append(message)
        self.origins.append(origin)
        self.part_origins.append(tuple(parts))

    def _emit(self, message: dict[str, Any], origin: int, parts: Sequence[int | None]) -> None:
        self.out.append(_drop_none(message))
        self.origins.append(origin)
        self.part_origins.append(tuple(parts))

    def _index_calls(self) -> None:
        """Index every call of the history (``calls``): the general path's, and the fast
        path's once a result names a call it has not read yet (see _tool_name)."""
        self.indexed = True
        for i, msg in enumerate(self.messages):
            for call_id, name in _named_calls(msg):
                self.calls.setdefault(call_id, []).append((i, name))

    def _tool_name(self, tool_call_id: str, i: int) -> str:
        """The name of the call ``tool_call_id`` that result ``i`` answers: the nearest one in
        or before its message, else the first after it, else :data:`UNKNOWN_TOOL_NAME`.

        Read in order, the fast path knows the calls before ``i`` without an index (``latest``,
        the last of each id read so far, is the nearest one; a message the general path reads
        has its own calls noted first); only a result whose call comes later, or none at all,
        has the whole history indexed (once)."""
        if not self.indexed:
            found = self.latest.get(tool_call_id)
            if found is not None:
                return found
            self._index_calls()
        calls = self.calls.get(tool_call_id)
        if not calls:
            return UNKNOWN_TOOL_NAME
        before = [name for m, name in calls if m <= i]
        return before[-1] if before else calls[0][1]

    # system ----------------------------------------------------------------------------------

    def _system_param(self, system: Any) -> None:
        if isinstance(system, str):
            self._emit({"role": "system", "content": system}, -1, ())
            return
        if not isinstance(system, list):
            raise InputError(
                f"system must be a string or a list of text blocks, got {kind_of(system)}",
                path="system",
            )
        if not system:
            options = _options({"emptyList": True})
            self._emit({"role": "system", "content": "", "providerOptions": options}, -1, ())
        for k, raw in enumerate(system):
            text, anthropic, rest = self._system_block(raw, f"system[{k}]")
            options = _options({"block": k, "extra": rest or None}, anthropic)
            self._emit({"role": "system", "content": text, "providerOptions": options}, -1 - k, ())

    @staticmethod
    def _system_block(raw: Any, path: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
        block = expect_object(raw, path, "a text block")
        if block.get("type") != "text":
            raise InputError(
                f"system blocks must be text blocks, got {shown(block.get('type'))}",
                path=f"{path}.type" if "type" in block else path,
            )
        text = expect_string(block, "text", path, "text block")
        anthropic, rest = _common(block, "text")
        return text, anthropic, rest

    def _system_message(self, i: int, msg: dict[str, Any], path: str) -> None:
        content = msg["content"]
        extra = _rest(msg, "role", "content") or None
        if isinstance(content, str):
            options = _options({"message": True, "extra": extra})
            self._emit({"role": "system", "content": content, "providerOptions": options}, i, ())
            return
        if not content:
            options = _options({"message": True, "emptyList": True, "extra": extra})
            self._emit({"role": "system", "content": "", "providerOptions": options}, i, ())
        for j, raw in enumerate(content):
            text, anthropic, rest = self._system_block(raw, f"{path}.content[{j}]")
            # "extra" is the message's unmapped fields (kept on its first block), "blockExtra"
            # the block's own.
            marks = {
                "message": True,
                "block": j,
                "extra": extra if j == 0 else None,
                "blockExtra": rest or None,
            }
            options = _options(marks, anthropic)
            self._emit({"role": "system", "content": text, "providerOptions": options}, i, (j,))

    # messages --------------------------------------------------------------------------------

    def _message(self, i: int, msg: dict[str, Any], *, after_results: bool) -> bool:
        """Load one native message; return whether it was a user message of results only."""
        path = f"messages[{i}]"
        if "role" not in msg:
            raise InputError("message has no role", path=path)
        role = msg["role"]
        if role not in ("user", "assistant", "system"):
            raise InputError(
                f"unknown role {shown(role)} (expected one of user, assistant, system)",
                path=f"{path}.role",
            )
        if "content" not in msg:
            raise InputError(f"{role} message has no content", path=path)
        content = msg["content"]
        if content is None:
            raise InputError(f"content is null in a {role} message", path=f"{path}.content")
        if not isinstance(content, (str, list)):
            raise InputError(
                f"content must be a string or a list of blocks, got {kind_of(content)}",
                path=f"{path}.content",
            )
        if role == "system":
            self._system_message(i, msg, path)
            return False
        if role == "assistant":
            self._assistant(i, msg, content, path)
            return False
        return self._user(i, msg, content, path, after_results=after_results)

    def _user(
        self,
        i: int,
        msg: dict[str, Any],
        content: str | list[Any],
        path: str,
        *,
        after_results: bool,
    ) -> bool:
        extra = _rest(msg, "role", "content") or None
        merge = False if after_results else None
        if isinstance(content, str):
            options = _options({"extra": extra, "merge": merge})
            self._emit({"role": "user", "content": content, "providerOptions": options}, i, ())
            return False
        results: list[tuple[int, dict[str, Any]]] = []
        others: list[tuple[int, dict[str, Any]]] = []
        for j, raw in enumerate(content):
            bpath = f"{path}.content[{j}]"
            block = expect_object(raw, bpath, "a content block")
            if block.get("type") == "tool_result":
                results.append((j, self._tool_result(block, bpath, i)))
            else:
                others.append((j, _user_part(block, bpath)))
        if not results:
            options = _options({"extra": extra, "merge": merge})
            parts = [part for _, part in others]
            self._emit(
                {"role": "user", "content": parts, "providerOptions": options},
                i,
                [j for j, _ in others],
            )
            return False
        self._emit(
            {
                "role": "tool",
                "content": [part for _, part in results],
                "providerOptions": _options({"extra": extra}),
            },
            i,
            [j for j, _ in results],
        )
        if not others:
            return True
        order = "".join("r" if block_is_result else "u" for block_is_result in _kinds(content))
        first = len(results) * "r" + len(others) * "u"
        options = _options({"merge": True, BLOCK_ORDER: order if order != first else None})
        self._emit(
            {"role": "user", "content": [part for _, part in others], "providerOptions": options},
            i,
            [j for j, _ in others],
        )
        return False

    def _tool_result(self, block: dict[str, Any], path: str, i: int) -> dict[str, Any]:
        tool_call_id = expect_string(block, "tool_use_id", path, "tool_result block")
        anthropic, rest = _common(block, "tool_use_id", "content", "is_error")
        marks: dict[str, Any] = {}
        error = block.get("is_error") is True
        output: dict[str, Any]
        content = block.get("content")
        if "content" not in block or isinstance(content, str):
            if "content" not in block:
                marks["content"] = "absent"
            value = content if isinstance(content, str) else ""
            output = {"type": "error-text" if error else "text", "value": value}
            if "is_error" in block and not error:
                rest["is_error"] = block["is_error"]
        elif isinstance(content, list):
            items = [
                _result_item(
                    expect_object(raw, f"{path}.content[{k}]", "a content block"),
                    f"{path}.content[{k}]",
                )
                for k, raw in enumerate(content)
            ]
            output = {"type": "content", "value": items}
            if "is_error" in block:
                rest["is_error"] = block["is_error"]
        else:
            raise InputError(
                f"tool_result content must be a string or a list of blocks, got {kind_of(content)}",
                path=f"{path}.content",
            )
        marks["extra"] = rest or None
        return _drop_none(
            {
                "type": "tool-result",
                "toolCallId": tool_call_id,
                "toolName": self._tool_name(tool_call_id, i),
                "output": output,
                "providerOptions": _options(marks, anthropic),
            }
        )

    def _assistant(self, i: int, msg: dict[str, Any], content: str | list[Any], path: str) -> None:
        extra = _rest(msg, "role", "content") or None
        options = _options({"extra": extra})
        if isinstance(content, str):
            self._emit({"role": "assistant", "content": content, "providerOptions": options}, i, ())
            return
        parts = []
        for j, raw in enumerate(content):
            bpath = f"{path}.content[{j}]"
            parts.append(
                self._assistant_part(expect_object(raw, bpath, "a content block"), bpath, i)
            )
        message = {"role": "assistant", "content": parts, "providerOptions": options}
        self._emit(message, i, range(len(parts)))

    def _assistant_part(self, block: dict[str, Any], path: str, i: int) -> dict[str, Any]:
        kind = block.get("type")
        if kind == "text":
            return _text_part(block, path)
        if kind == "compaction":  # the AI SDK's form: a text part typed "compaction"
            text = expect_string(block, "content", path, "compaction block")
            anthropic, rest = _common(block, "content")
            anthropic["type"] = "compaction"
            options = _options({"extra": rest or None}, anthropic)
            return _drop_none({"type": "text", "text": text, "providerOptions": options})
        if kind == "thinking":
            text = expect_string(block, "thinking", path, "thinking block")
            anthropic, rest = _common(block, "thinking", "signature")
            marks: dict[str, Any] = {}
            if "signature" in block:
                anthropic["signature"] = expect_string(block, "signature", path, "thinking block")
            else:
                marks["type"] = "thinking"  # unsigned: kept so heal can see and drop it
            marks["extra"] = rest or None
            options = _options(marks, anthropic)
            return _drop_none({"type": "reasoning", "text": text, "providerOptions": options})
        if kind == "redacted_thinking":
            data = expect_string(block, "data", path, "redacted_thinking block")
            anthropic, rest = _common(block, "data")
            anthropic["redactedData"] = data
            options = _options({"extra": rest or None}, anthropic)
            return {"type": "reasoning", "text": "", "providerOptions": options}
        if kind in _CALL_TYPES:
            return _tool_call(block, kind, path)
        if isinstance(kind, str) and kind.endswith("_tool_result") and kind != "tool_result":
            return self._server_result(block, kind, path, i)
        if kind in ("image", "document"):
            part = _user_part(block, path)
            if part["type"] == "image":  # assistant messages hold files, not images
                # "image/*" stands in for an unknown media type, as in the AI SDK; a URL or
                # file source has none to write back.
                data = part.pop("image")
                part = {**part, "type": "file", "data": data}
                part.setdefault("mediaType", "image/*")
            return part
        raise InputError(
            f"unknown block type {shown(kind)} in an assistant message (expected text, thinking, "
            "redacted_thinking, tool_use, server_tool_use, mcp_tool_use, *_tool_result, image, "
            "document)",
            path=f"{path}.type" if "type" in block else path,
        )

    def _server_result(self, block: dict[str, Any], kind: str, path: str, i: int) -> dict[str, Any]:
        tool_call_id = expect_string(block, "tool_use_id", path, f"{kind} block")
        anthropic, rest = _common(block, "tool_use_id", "content")
        marks: dict[str, Any] = {"type": kind}
        content = block.get("content")
        if "content" not in block:
            marks["content"] = "absent"
        error = isinstance(content, Mapping) and str(content.get("type", "")).endswith("_error")
        error = error or block.get("is_error") is True
        marks["extra"] = rest or None
        return {
            "type": "tool-result",
            "toolCallId": tool_call_id,
            "toolName": self._tool_name(tool_call_id, i),
            "output": {"type": "error-json" if error else "json", "value": content},
            "providerOptions": _options(marks, anthropic),
        }


def _named_calls(msg: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """The id and name of each call block of an assistant message (``tool_use``, server and
    MCP calls) that has both as strings, in order: what names the results that answer them."""
    content = msg.get("content")
    if msg.get("role") != "assistant" or not isinstance(content, list):
        return
    for block in content:
        if not isinstance(block, Mapping) or block.get("type") not in _CALL_TYPES:
            continue
        call_id, name = block.get("id"), block.get("name")
        if isinstance(call_id, str) and isinstance(name, str):
            yield call_id, name


def _kinds(content: list[Any]) -> list[bool]:
    return [isinstance(b, Mapping) and b.get("type") == "tool_result" for b in content]


def _text_part(block: dict[str, Any], path: str) -> dict[str, Any]:
    text = expect_string(block, "text", path, "text block")
    anthropic, rest = _common(block, "text")
    if "citations" in rest and rest["citations"] is not None:
        anthropic["citations"] = rest.pop("citations")
    options = _options({"extra": rest or None}, anthropic)
    return _drop_none({"type": "text", "text": text, "providerOptions": options})


def _user_part(block: dict[str, Any], path: str) -> dict[str, Any]:
    kind = block.get("type")
    if kind == "text":
        return _text_part(block, path)
    if kind == "image":
        source = expect_object(block.get("source"), f"{path}.source", "a source")
        data, media, marks = _load_source(source, f"{path}.source", document=False)
        anthropic, rest = _common(block, "source")
        marks["extra"] = rest or None
        part = {"type": "image", "image": data, "mediaType": media}
        return _drop_none({**part, "providerOptions": _options(marks, anthropic)})
    if kind == "document":
        source = expect_object(block.get("source"), f"{path}.source", "a source")
        data, media, marks = _load_source(source, f"{path}.source", document=True)
        anthropic, rest = _common(block, "source", "title")
        for key in ("context", "citations"):
            if rest.get(key) is not None:
                anthropic[key] = rest.pop(key)
        title = block.get("title")
        if "title" in block and not isinstance(title, str):
            rest["title"] = title
            title = None
        if media is not None and media.startswith("image/"):
            marks["kind"] = "document"  # dump would otherwise write an image block
        marks["extra"] = rest or None
        part = {"type": "file", "data": data, "mediaType": media, "filename": title}
        return _drop_none({**part, "providerOptions": _options(marks, anthropic)})
    if kind in _OPAQUE_USER_BLOCKS:
        anthropic, rest = _common(block)
        marks = {"block": {"type": kind, **rest}}
        part = {"type": "file", "data": "", "mediaType": "application/octet-stream"}
        return {**part, "providerOptions": _options(marks, anthropic)}
    raise InputError(
        f"unknown block type {shown(kind)} in a user message (expected text, image, document, "
        "tool_result, search_result, container_upload)",
        path=f"{path}.type" if "type" in block else path,
    )


def _tool_call(block: dict[str, Any], kind: str, path: str) -> dict[str, Any]:
    tool_call_id = expect_string(block, "id", path, f"{kind} block")
    name = expect_string(block, "name", path, f"{kind} block")
    mapped = ["id", "name", "input"]
    if kind == "mcp_tool_use":
        mapped.append("server_name")
    anthropic, rest = _common(block, *mapped)
    part: dict[str, Any] = {"type": "tool-call", "toolCallId": tool_call_id, "toolName": name}
    if "input" in block:
        part["input"] = block["input"]  # anything: heal's invalid-tool-input rule judges it
    if kind != "tool_use":
        part["providerExecuted"] = True
    if kind == "mcp_tool_use":
        anthropic["type"] = "mcp-tool-use"
        anthropic["serverName"] = expect_string(block, "server_name", path, "mcp_tool_use block")
    options = _options({"extra": rest or None}, anthropic)
    if options is not None:
        part["providerOptions"] = options
    return part


def _result_item(block: dict[str, Any], path: str) -> dict[str, Any]:
    """A tool_result content block as an AI SDK content item."""
    kind = block.get("type")
    anthropic, rest = _common(block, *_ITEM_KEYS.get(str(kind), ()))
    marks: dict[str, Any] = {}
    item: dict[str, Any]
    source = block.get("source")
    source_kind = source.get("type") if isinstance(source, Mapping) else None
    simple_source = isinstance(source, Mapping) and set(source) == _SOURCE_KEYS.get(
        str(source_kind)
    )
    if kind == "text" and isinstance(block.get("text"), str):
        item = {"type": "text", "text": block["text"]}
        if rest.get("citations") is not None:
            anthropic["citations"] = rest.pop("citations")
    elif kind == "image" and simple_source and isinstance(source, Mapping):
        if source_kind == "base64":
            item = {"type": "image-data", "data": source["data"], "mediaType": source["media_type"]}
        elif source_kind == "url" and _HTTP.match(str(source["url"])):
            item = {"type": "image-url", "url": source["url"]}
        else:
            return _opaque_item(block)
    elif kind == "document" and simple_source and isinstance(source, Mapping) and not rest:
        if source_kind == "base64" and source.get("media_type") == "application/pdf":
            item = {"type": "file-data", "data": source["data"], "mediaType": "application/pdf"}
        elif source_kind == "url" and _HTTP.match(str(source["url"])):
            item = {"type": "file-url", "url": source["url"]}
        else:
            return _opaque_item(block)
    elif kind == "tool_reference" and isinstance(block.get("tool_name"), str):
        anthropic.update(type="tool-reference", toolName=block["tool_name"])
        item = {"type": "custom"}
    else:
        return _opaque_item(block)
    if not all(isinstance(v, str) for k, v in item.items() if k != "type"):
        return _opaque_item(block)
    marks["extra"] = rest or None
    options = _options(marks, anthropic)
    return {**item, "providerOptions": options} if options else item


_ITEM_KEYS: dict[str, tuple[str, ...]] = {
    "text": ("text",),
    "image": ("source",),
    "document": ("source",),
    "tool_reference": ("tool_name",),
}
_SOURCE_KEYS: dict[str, set[str]] = {
    "base64": {"type", "media_type", "data"},
    "url": {"type", "url"},
}


def _opaque_item(block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "custom", "providerOptions": {"heal": {_NS: {"block": block}}}}


# --- dump ------------------------------------------------------------------------------------


class _Dumper:
    """Writes canonical messages as native ones, one span of canonical messages at a time
    (:func:`_spans`): what :func:`dump_messages` writes whole, and :func:`_write_back` only
    where a heal changed something."""

    def __init__(self, messages: list[ModelMessage], *, param: bool) -> None:
        self.messages = messages
        self.param = param

    def run(self) -> tuple[str | list[dict[str, Any]] | None, list[NativeMessage]]:
        messages = self.messages
        lead = _lead(messages) if self.param else 0
        system = self._system_param(cast(list[SystemMessage], messages[:lead])) if lead else None
        return system, [self.span(start, end) for start, end in _spans(messages, lead)]

    def span(self, start: int, end: int) -> NativeMessage:
        """The native message canonical messages ``start`` to ``end`` make (see :func:`_spans`)."""
        message = self.messages[start]
        path = f"messages[{start}]"
        if isinstance(message, SystemMessage):
            native = self._system_message(message)
            for c in range(start + 1, end):
                part = self._system_block(cast(SystemMessage, self.messages[c]), "blockExtra")
                native["content"].append(part)
            return native
        if isinstance(message, AssistantMessage):
            return self._assistant(message, path)
        if isinstance(message, UserMessage):
            return self._user(message, [], path, {})
        assert isinstance(message, ToolMessage)
        blocks = self._results(message, path)
        if end - start == 2:
            follow = cast(UserMessage, self.messages[start + 1])
            return self._user(follow, blocks, f"messages[{start + 1}]", _meta(message))
        return _put_extra({"role": "user", "content": blocks}, _meta(message))

    # system ----------------------------------------------------------------------------------

    @staticmethod
    def _system_block(message: SystemMessage, extra_key: str) -> dict[str, Any]:
        block = _put_common({"type": "text", "text": message.content}, _anthropic(message))
        return _put_extra(block, _meta(message), extra_key)

    def _system_param(self, messages: list[SystemMessage]) -> str | list[dict[str, Any]]:
        if len(messages) == 1:
            meta = _meta(messages[0])
            if "block" not in meta and not meta.get("emptyList") and not _anthropic(messages[0]):
                return messages[0].content
        return [self._system_block(m, "extra") for m in messages if not _meta(m).get("emptyList")]

    def _system_message(self, message: SystemMessage) -> NativeMessage:
        meta = _meta(message)
        if meta.get("emptyList"):
            return _put_extra({"role": "system", "content": []}, meta)
        if not isinstance(meta.get("block"), int):
            if _anthropic(message):  # cache control needs a block
                content: Any = [self._system_block(message, "blockExtra")]
            else:
                content = message.content
            return _put_extra({"role": "system", "content": content}, meta)
        part = self._system_block(message, "blockExtra")
        return _put_extra({"role": "system", "content": [part]}, meta)

    # user and tool ---------------------------------------------------------------------------

    def _user(
        self,
        message: UserMessage,
        results: list[dict[str, Any]],
        path: str,
        first_meta: Mapping[str, Any],
    ) -> NativeMessage:
        meta = _meta(message)
        content = message.content
        if isinstance(content, str) and not results:
            return _put_extra(_put_extra({"role": "user", "content": content}, first_meta), meta)
        if isinstance(content, str):
            blocks = [{"type": "text", "text": content}]
        else:
            blocks = [_dump_user_part(p, f"{path}.content[{k}]") for k, p in enumerate(content)]
        order = meta.get(BLOCK_ORDER)
        merged: list[dict[str, Any]]
        if (
            results
            and isinstance(order, str)
            and order.count("r") == len(results)
            and order.count("u") == len(blocks)
            and len(order) == len(results) + len(blocks)
        ):
            r, u = iter(results), iter(blocks)
            merged = [next(r) if kind == "r" else next(u) for kind in order]
        else:
            merged = results + blocks
        return _put_extra(_put_extra({"role": "user", "content": merged}, first_meta), meta)

    @staticmethod
    def _results(message: ToolMessage, path: str) -> list[dict[str, Any]]:
        blocks = []
        for p, part in enumerate(message.content):
            if isinstance(part, ToolApprovalResponse):
                continue  # not sent to providers, as in the AI SDK
            blocks.append(_dump_tool_result(part, f"{path}.content[{p}]"))
        return blocks

    # assistant -------------------------------------------------------------------------------

    def _assistant(self, message: AssistantMessage, path: str) -> NativeMessage:
        meta = _meta(message)
        if isinstance(message.content, str):
            return _put_extra({"role": "assistant", "content": message.content}, meta)
        blocks: list[dict[str, Any]] = []
        mcp: set[str] = set()
        for p, part in enumerate(message.content):
            ppath = f"{path}.content[{p}]"
            if isinstance(part, TextPart):
                blocks.append(_dump_text(part))
            elif isinstance(part, ReasoningPart):
                blocks.append(_dump_reasoning(part, ppath))
            elif isinstance(part, ToolCallPart):
                block = _dump_call(part)
                if block["type"] == "mcp_tool_use":
                    mcp.add(part.tool_call_id)
                blocks.append(block)
            elif isinstance(part, ToolResultPart):
                blocks.append(_dump_server_result(part, ppath, mcp))
            elif isinstance(part, FilePart):
                blocks.append(_dump_file(part, ppath))
            else:
                assert isinstance(part, ToolApprovalRequest)
                continue  # not sent to providers, as in the AI SDK
        return _put_extra({"role": "assistant", "content": blocks}, meta)


def _lead(messages: Sequence[ModelMessage]) -> int:
    """How many messages at the start form the ``system`` parameter: the system messages not
    marked as coming from ``messages``."""
    lead = 0
    while (
        lead < len(messages)
        and isinstance(messages[lead], SystemMessage)
        and not _meta(messages[lead]).get("message")
    ):
        lead += 1
    return lead


def _spans(messages: Sequence[ModelMessage], start: int) -> list[tuple[int, int]]:
    """The canonical messages from ``start`` on, cut into the runs that each make one native
    message, as ``(start, end)`` pairs.

    A run is one message, except: tool results with the user message after them (unless it is
    marked ``merge = false``), which share one native user message; and a system message read
    from a later text block of a system message's list (``block`` above 0), which joins the
    native message before it when that one is a system message whose content is a list.
    """
    spans: list[tuple[int, int]] = []
    opens_list = False  # whether the last run makes a system message with list content
    c, n = start, len(messages)
    while c < n:
        message = messages[c]
        if isinstance(message, SystemMessage):
            meta = _meta(message)
            block = meta.get("block")
            empty = bool(meta.get("emptyList"))
            if not empty and isinstance(block, int) and block > 0 and opens_list:
                spans[-1] = (spans[-1][0], c + 1)
            else:
                spans.append((c, c + 1))
                opens_list = empty or isinstance(block, int) or bool(_anthropic(message))
            c += 1
            continue
        opens_list = False
        end = c + 1
        if isinstance(message, ToolMessage) and end < n:
            follow = messages[end]
            if isinstance(follow, UserMessage) and _meta(follow).get("merge") is not False:
                end += 1
        spans.append((c, end))
        c = end
    return spans


def _dump_text(part: TextPart) -> dict[str, Any]:
    anthropic = _anthropic(part)
    meta = _meta(part)
    if anthropic.get("type") == "compaction":
        block: dict[str, Any] = {"type": "compaction", "content": part.text}
    else:
        block = {"type": "text", "text": part.text}
        if "citations" in anthropic:
            block["citations"] = anthropic["citations"]
    return _put_extra(_put_common(block, anthropic), meta)


def _dump_reasoning(part: ReasoningPart, path: str) -> dict[str, Any]:
    anthropic = _anthropic(part)
    meta = _meta(part)
    block: dict[str, Any]
    if isinstance(anthropic.get("signature"), str):
        block = {"type": "thinking", "thinking": part.text, "signature": anthropic["signature"]}
    elif isinstance(anthropic.get("redactedData"), str):
        block = {"type": "redacted_thinking", "data": anthropic["redactedData"]}
    elif meta.get("type") == "thinking":
        block = {"type": "thinking", "thinking": part.text}
    elif not part.text and _synthesized(part):
        block = {"type": "thinking", "thinking": "", "signature": ""}
    else:
        raise InputError(
            "reasoning has no Anthropic signature or redacted data, so it cannot be sent as a "
            "thinking block (heal with provider='anthropic' removes such reasoning)",
            path=path,
        )
    return _put_extra(_put_common(block, anthropic), meta)


def _synthesized(part: ReasoningPart) -> bool:
    """Whether heal made the part up (marked ``{"heal": {"synthesized": true}}``).

    The only reasoning heal makes up is the empty part ``missing-reasoning-content`` adds for
    DeepSeek, whose ``/anthropic`` endpoint wants a tool-call turn's thinking passed back
    (``The `content[].thinking` in the thinking mode must be passed back to the API.``,
    leookun/cursor-byok#268) and signs none of it: it takes ``signature: ""``
    (can1357/oh-my-pi PR#908; QuantumNous/new-api#4763; provider-rules.md §7). Written so, it
    reads back as reasoning with an (empty) Anthropic signature, and a second heal finds the
    turn's reasoning and changes nothing.
    """
    mark = (part.provider_options or {}).get(HEAL_NAMESPACE)
    return isinstance(mark, dict) and mark.get("synthesized") is True


def _dump_call(part: ToolCallPart) -> dict[str, Any]:
    anthropic = _anthropic(part)
    meta = _meta(part)
    kind = "tool_use"
    if part.provider_executed:
        kind = "mcp_tool_use" if anthropic.get("type") == "mcp-tool-use" else "server_tool_use"
    block: dict[str, Any] = {"type": kind, "id": part.tool_call_id, "name": part.tool_name}
    if "input" in part.model_fields_set:
        block["input"] = part.input
    if kind == "mcp_tool_use" and "serverName" in anthropic:
        block["server_name"] = anthropic["serverName"]
    return _put_extra(_put_common(block, anthropic), meta)


def _dump_server_result(part: ToolResultPart, path: str, mcp: set[str]) -> dict[str, Any]:
    meta = _meta(part)
    output = part.output
    kind = meta.get("type")
    if not isinstance(kind, str):
        kind = (
            "mcp_tool_result" if part.tool_call_id in mcp else _SERVER_RESULTS.get(part.tool_name)
        )
    if kind is None:
        raise InputError(
            f"a tool result for {part.tool_name!r} in an assistant message has no Anthropic form "
            "(only server and MCP tools run inside the assistant turn)",
            path=path,
        )
    block: dict[str, Any] = {"type": kind, "tool_use_id": part.tool_call_id}
    if isinstance(output, (JsonOutput, ErrorJsonOutput)):
        if meta.get("content") != "absent":
            block["content"] = output.value
    elif isinstance(output, (TextOutput, ErrorTextOutput)):
        block["content"] = output.value
    else:
        raise InputError(f"a {output.type} output has no {kind} form", path=f"{path}.output")
    if kind == "mcp_tool_result" and isinstance(output, (ErrorJsonOutput, ErrorTextOutput)):
        block["is_error"] = True
    return _put_extra(_put_common(block, _anthropic(part)), meta)


def _dump_tool_result(part: ToolResultPart, path: str) -> dict[str, Any]:
    meta = _meta(part)
    output = part.output
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": part.tool_call_id}
    if isinstance(output, (TextOutput, ErrorTextOutput)):
        if not (meta.get("content") == "absent" and output.value == ""):
            block["content"] = output.value
    elif isinstance(output, (JsonOutput, ErrorJsonOutput)):
        block["content"] = json.dumps(output.value, separators=(",", ":"), ensure_ascii=False)
    elif isinstance(output, ExecutionDeniedOutput):
        block["content"] = (
            output.reason if output.reason is not None else "Tool call execution denied."
        )
    else:
        block["content"] = [
            _dump_item(item, f"{path}.output.value[{k}]") for k, item in enumerate(output.value)
        ]
    if isinstance(output, (ErrorTextOutput, ErrorJsonOutput)):
        block["is_error"] = True
    return _put_extra(_put_common(block, _anthropic(part)), meta)


def _dump_item(item: Mapping[str, Any], path: str) -> dict[str, Any]:
    meta = _meta(item)
    anthropic = _anthropic(item)
    kind = item.get("type")
    opaque = meta.get("block")
    block: dict[str, Any]
    if isinstance(opaque, dict):
        return dict(opaque)
    if kind == "text":
        block = {"type": "text", "text": item.get("text")}
        if "citations" in anthropic:
            block["citations"] = anthropic["citations"]
    elif kind == "image-data" or (
        kind == "media" and str(item.get("mediaType")).startswith("image/")
    ):
        source = {"type": "base64", "media_type": item.get("mediaType"), "data": item.get("data")}
        block = {"type": "image", "source": source}
    elif kind == "image-url":
        block = {"type": "image", "source": {"type": "url", "url": item.get("url")}}
    elif kind in ("file-data", "media"):
        source = {"type": "base64", "media_type": item.get("mediaType"), "data": item.get("data")}
        block = {"type": "document", "source": source}
    elif kind == "file-url":
        block = {"type": "document", "source": {"type": "url", "url": item.get("url")}}
    elif kind == "custom" and anthropic.get("type") == "tool-reference":
        block = {"type": "tool_reference", "tool_name": anthropic.get("toolName")}
    else:
        raise InputError(f"tool output content item {shown(kind)} has no Anthropic form", path=path)
    return _put_extra(_put_common(block, anthropic), meta)


def _dump_user_part(part: TextPart | ImagePart | FilePart, path: str) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return _dump_text(part)
    if isinstance(part, ImagePart):
        meta = _meta(part)
        source = _dump_source(part.image, part.media_type, meta, document=False)
        block = {"type": "image", "source": source}
        return _put_extra(_put_common(block, _anthropic(part)), meta)
    return _dump_file(part, path)


def _dump_file(part: FilePart, path: str) -> dict[str, Any]:
    meta = _meta(part)
    anthropic = _anthropic(part)
    opaque = meta.get("block")
    if isinstance(opaque, dict):
        return _put_common(dict(opaque), anthropic)
    if part.media_type.startswith("image/") and meta.get("kind") != "document":
        media = None if meta.get("noMediaType") else part.media_type
        source = _dump_source(part.data, media, meta, document=False)
        block: dict[str, Any] = {"type": "image", "source": source}
        return _put_extra(_put_common(block, anthropic), meta)
    try:
        source = _dump_source(part.data, part.media_type, meta, document=True)
    except InputError as exc:
        raise InputError(exc.reason, path=f"{path}.data") from None
    block = {"type": "document", "source": source}
    if part.filename is not None:
        block["title"] = part.filename
    for key in ("context", "citations"):
        if key in anthropic:
            block[key] = anthropic[key]
    return _put_extra(_put_common(block, anthropic), meta)
