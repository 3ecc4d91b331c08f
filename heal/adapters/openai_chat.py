"""OpenAI Chat Completions messages (``openai.types.chat.ChatCompletionMessageParam`` dicts).

::

    from heal.adapters.openai_chat import heal_openai_chat

    result = heal_openai_chat(messages)   # a list of Chat Completions message dicts
    result.messages                       # healed dicts (your own list when nothing changed,
                                          # your own dicts wherever heal changed nothing)
    result.repairs                        # message_index = index in YOUR list

``load_messages(native)`` reads a history into heal's canonical messages (AI SDK ``ModelMessage``)
and ``dump_messages(messages)`` writes them back; ``dump_messages(load_messages(x)) == x`` for
every valid history, optional and unknown fields included. The adapter translates and never
heals: what it cannot read raises :class:`~heal.errors.InputError` naming the native place, such
as ``messages[3].tool_calls[0].function.arguments``.

Mapping (native → canonical)
----------------------------
* ``system`` / ``developer`` → system message. String content stays a string. Array content
  becomes one system message per text part, all mapped to the same native index, regrouped on
  dump. ``developer`` is kept as ``heal.openai_chat.role``.
* ``user`` → user message: ``text`` → text part, ``image_url`` → image part (``detail`` ↔
  ``providerOptions.openai.imageDetail``, the AI SDK's name), ``input_audio`` → file part
  (``wav`` ↔ ``audio/wav``, ``mp3`` ↔ ``audio/mpeg``), ``file`` → file part (``file_data`` or
  ``file_id`` as its data, ``filename``).
* ``assistant`` → assistant message. A string content with nothing else stays a string; otherwise
  the parts are, in order: reasoning (``reasoning_content``, ``reasoning``, each
  ``reasoning_details`` item), text (the string content, or each ``text`` / ``refusal`` item of
  an array content), the ``refusal`` field, ``tool_calls``, the legacy ``function_call``.
* ``tool`` → one tool message with one tool-result part (one canonical message per native one,
  so repair indices are native indices). String content → ``text`` output, array content →
  ``content`` output. The tool name comes from the call with that id (the nearest one before,
  else after); a result whose call is nowhere is named ``unknown_tool`` (OpenAI results carry
  no name, and heal removes such orphans anyway).
* ``function`` (legacy) → tool message answering the legacy ``function_call`` before it, whose
  canonical id is ``call`` and the index of its assistant message in five digits (``call00003``;
  legacy calls have no id). Nine letters and digits: an id every provider takes as it is (Mistral
  wants exactly that), since a renamed id could not be written back.
* ``prompt_cache_breakpoint`` on a content part ↔ its
  ``providerOptions.openai.promptCacheBreakpoint`` (the AI SDK's name).
* ``extra_content.google.thought_signature`` on a tool call ↔ its
  ``providerOptions.google.thoughtSignature``: where Gemini's OpenAI-compatible endpoint returns
  and reads a call's thought signature, and where heal's Gemini rules read and write it.

Tool-call arguments
-------------------
``function.arguments`` is a JSON string; the canonical ``input`` is the parsed object. Arguments
that are not a JSON object (invalid JSON, an array, ``""``) stay the raw string, so heal's
``invalid-tool-input`` rule sees and fixes them; a canonical string input dumps as that string
unchanged, and any other input as JSON. The exact text survives: when re-serialising the object
compactly (``{"a":1}``, as OpenAI and ``JSON.stringify`` write it) would give different text,
the part records ``heal.openai_chat.argumentsFormat`` (``spaced`` ``{"a": 1}``, ``spaced-ascii``
as Python's ``json.dumps``, ``compact-ascii``), or failing those the raw string itself under
``heal.openai_chat.arguments``, used only while it still parses to the same input. Custom tool
calls (``type: "custom"``, free-form text) load as input ``{"input": "<text>"}`` marked
``heal.openai_chat.type = "custom"``: a bare string input would be "repaired" by heal.

Where native-only fields live
-----------------------------
Fields with no AI SDK equivalent are kept under ``providerOptions["heal"]["openai_chat"]`` of the
message or part, where no provider mistakes them for its own:

* ``extra``: unknown or unmapped fields, verbatim (``name``, ``audio``, ``refusal: null``,
  ``tool_calls: []`` or ``null``, ``index``, server-specific keys); ``inner``: unknown keys of a
  nested object (``image_url``, ``input_audio``, ``file``, ``function``, ``custom``);
  ``partExtra``: a system text part's own unknown keys.
* shape markers: ``content`` (``"array"``, ``""``, ``"absent"``, ``[]`` for an empty system
  array, ``null`` for a ``function`` message; without it, assistant text dumps as one string, or
  ``null`` beside tool calls), ``part`` (index of a system text part), ``role: "developer"``,
  ``type`` (``"refusal"`` content item, ``"custom"`` tool call, ``"file"`` for a file part whose
  media type would dump as an image or audio), ``noType`` (a tool call without ``type``),
  ``fileId``, ``format`` (an audio format the media type does not give back), ``raw`` (a URL
  kept as is although it does not look like one), ``name: true`` (a tool message's ``name``
  that equals its call's), ``legacy`` (``function_call`` / ``function`` messages).
* reasoning provenance: ``field`` (``reasoning_content``, ``reasoning``, ``reasoning_details``,
  or ``refusal`` for the refusal field's text part), ``detail`` (a ``reasoning_details`` item
  minus its text) and ``textKey`` (``"summary"``, or false when it has no text), ``mirror``
  (fields that repeated the first reasoning field verbatim, as vLLM and OpenRouter send; they
  are re-derived on dump, and vanish with it). Reasoning dumps back to the field it came from,
  and a signature inside a ``reasoning_details`` item stays there: it never becomes another
  provider's signature.

Repairs on tool calls, reasoning fields and string content have ``part_index`` None (they are
not items of ``content``); the ``tool_call_id`` of the repair names the call.

Canonical → native for foreign histories
----------------------------------------
Canonical histories from elsewhere dump as the AI SDK's OpenAI chat provider would send them
(assistant text joined into one string, ``content: null`` beside tool calls, JSON / error
outputs as JSON text, approval parts skipped), with two differences: reasoning parts are sent
as ``reasoning_content`` (the OpenAI-compatible servers' field) rather than dropped, and other
providers' ``providerOptions`` (signatures included) are not carried, as they belong to their
provider. The one exception is a Gemini thought signature on a tool call, which this format has
a place for (``extra_content.google.thought_signature``, above). Provider-executed tool calls
and results, and files in assistant messages, have no Chat Completions form and raise
:class:`~heal.errors.InputError`.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import partial
from json.scanner import make_scanner
from typing import Any, Literal, cast

from heal._engine import IdRenamer
from heal._verdict import (
    AFTER,
    MAX_DEPTH,
    PLAIN_TERMS,
    Terms,
    asked_scope,
    ended,
    plain_input,
    plain_texts,
    plain_thoughts,
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
    built_texts,
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
from heal.errors import InputError
from heal.messages import (
    AssistantMessage,
    ContentOutput,
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
    UserMessage,
    kind_of,
    shown,
)
from heal.messages import load_messages as _load_canonical
from heal.policy import Policy
from heal.providers import ProviderId
from heal.repairs import Repair
from heal.rules import Rule
from heal.rules._quick import NOT_PLAIN
from heal.rules.files import OPENAI_FILE_ID_PREFIX
from heal.rules.google import GOOGLE_NAMESPACES
from heal.targets import Target

__all__ = [
    "UNKNOWN_TOOL_NAME",
    "dump_messages",
    "heal_openai_chat",
    "load",
    "load_messages",
]

NativeMessage = dict[str, Any]
"""One Chat Completions message dict."""

UNKNOWN_TOOL_NAME = "unknown_tool"
"""The canonical tool name of a result whose call is nowhere in the history."""

_NS = "openai_chat"
_JSON_OBJECT: dict[str, Any] = {}
_REASONING_FIELDS = ("reasoning_details", "reasoning_content", "reasoning")
_ARG_FORMATS: dict[str, dict[str, Any]] = {
    # The default, as OpenAI writes arguments and as JSON.stringify (the AI SDK) does.
    "compact": {"separators": (",", ":"), "ensure_ascii": False},
    "spaced": {"separators": (", ", ": "), "ensure_ascii": False},
    "spaced-ascii": {"separators": (", ", ": "), "ensure_ascii": True},
    "compact-ascii": {"separators": (",", ":"), "ensure_ascii": True},
}
_AUDIO_FORMATS = {"wav": "audio/wav", "mp3": "audio/mpeg"}
_AUDIO_MEDIA = {"audio/wav": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3"}
_URL = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*:")
_DATA_URL = re.compile(r"data:([^;,]+)[;,]")
_LEGACY_ID = "call{:05d}"
_PARTIAL = True
"""Convert only what a heal needs: build the models of common messages directly (the
loader's ``fast`` path) and write back only the messages a heal changed (:class:`_Writer`).
The tests switch it off to compare with converting everything through dicts."""
_SETTLED: dict[ProviderId | None, tuple[str, ...]] = {
    # One tool message per result is this format's shape, and Gemini's OpenAI-compatible
    # endpoint groups consecutive ones into one function-response turn itself: merged, they
    # would be written apart again (see heal.adapters._common.format_policy).
    "google": ("google-split-tool-results",),
}
"""Rules whose problem this format cannot have, by provider."""


# --- public API ------------------------------------------------------------------------------


def load(native: Iterable[Any]) -> Loaded:
    """Read Chat Completions messages; return canonical messages and their native origins.

    ``origins[i]`` is the native index of canonical message ``i``; ``part_origins`` gives the
    native ``content`` index of each canonical part where it has one (array content items), and
    None for parts from other fields (tool calls, reasoning fields, string content).

    SDK response objects (pydantic models, such as a returned message or its content blocks) are
    read as ``model_dump(exclude_none=True)``, the dicts the SDK would send; they dump as dicts.
    """
    return _Loader(_as_list(native), fast=_PARTIAL).run()


def load_messages(native: Iterable[Any]) -> list[ModelMessage]:
    """Read Chat Completions messages as heal's canonical messages (``load(native).messages``)."""
    return load(native).messages


def dump_messages(messages: Iterable[ModelMessage | Mapping[str, Any]]) -> list[NativeMessage]:
    """Write canonical messages as Chat Completions message dicts.

    The inverse of :func:`load_messages` for everything it loaded; see the module docstring for
    canonical histories from elsewhere.
    """
    return _Dumper().run(_load_canonical(messages))


def heal_openai_chat(
    messages: Iterable[Any],
    *,
    provider: ProviderId | None = "openai-chat",
    model: str | None = None,
    thinking: bool | None = None,
    tools: Iterable[Any] | None = None,
    target: Target | None = None,
    policy: Policy | Mapping[str, str] | None = None,
    rules: Sequence[Rule] | None = None,
    on_repair: Callable[[Repair], object] | None = None,
    strict: bool = False,
    scope: Literal["request", "history"] = "request",
) -> NativeHealResult[list[NativeMessage]]:
    """Heal a Chat Completions history; repairs carry indices into ``messages``.

    A history that needs nothing comes back as the very object passed in; under the default
    policy and a target whose model and tools it fits (:func:`heal._verdict.terms_for`), a
    plainly clean one
    (:func:`_plainly_clean`: text, calls and their results) is answered so without building a
    canonical model, and one plain but for tool-call ids the target refuses has them renamed in
    the caller's dicts, without one either (:func:`_renamed_ids`). When something needs a
    repair, the messages it leaves alone come back as the caller's own objects and only the
    others are written (:class:`_Writer`). The target
    (``model``, ``thinking``, ``tools`` as names or definitions, or all of them as one
    ``target``, used as given) and the options are those of :func:`heal.heal_messages`.
    """
    goal = native_target(
        provider, "openai-chat", model=model, thinking=thinking, tools=tools, target=target
    )
    # The verdict is asked under the default options, for a target it knows (terms).
    asked = asked_scope(policy, rules, scope)
    terms = terms_for(goal) if asked else None
    if terms is not None:
        verdict = partial(_verdict, messages, goal.provider, terms)
        # A list, when the verdict reads it: the renaming is asked of nothing else.
        rename = partial(_renamed_ids, cast(list[Any], messages), goal)
        history_scope = asked == "history"
        _, done = settled(messages, verdict, rename, on_repair, strict, clean_only=history_scope)
        if done is not None:
            return done
        if history_scope:
            terms = None  # the request's verdict: the full path decides the rest
    native = _as_list(messages)
    original = messages if isinstance(messages, list) else native
    loader = _Loader(native, fast=_PARTIAL)
    with collector_paused(len(native)):
        loaded = loader.run()
        write = _Writer(native, loaded, legacy=loader.legacy_seen)
    return heal_native(
        loaded,
        write,
        target=goal,
        policy=format_policy(policy, skip=_SETTLED.get(goal.provider, ())),
        rules=rules,
        on_repair=on_repair,
        strict=strict,
        scope=scope,
        original=original,
        quick=terms is None,
        renames=False,  # tried in the caller's dicts (_renamed_ids) when terms is not None
    )


def _renamed_ids(
    messages: list[Any], goal: Target, ids: list[str]
) -> NativeHealResult[list[NativeMessage]] | None:
    """The result for a list of message dicts the verdict found plain but for tool-call ids
    the target refuses (Kimi's ``functions.search:3``; any id but Mistral's own, for Mistral;
    see :func:`_verdict`), whose calls' ids are ``ids`` (the verdict's walk gathered them),
    made from the caller's dicts, without models; None to heal it the full way, which then
    decides.

    The ids are renamed as the engine's id rules rename them
    (:class:`heal._engine.IdRenamer`), one to one, and the new ones must be accepted:
    the renamed list is then plainly clean (the walk reads ids for nothing else), and this is
    the full path's result, with the engine's records at native places (a call's and a
    result's message); the renamed messages are the caller's dicts with the new ids in place,
    as :class:`_Writer` writes a renamed call or result, made in one pass.
    ``tests/adapters/test_native_fast_path.py`` holds the two ways to one result."""
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
                return None  # an SDK message: the full path writes it
            role = message.get("role")
            if role == "assistant":
                calls = message.get("tool_calls")
                if calls is None:
                    continue
                if type(calls) is not list:
                    return None
                new_calls: list[Any] | None = None
                k = -1
                for call in calls:
                    k += 1
                    tid = call.get("id") if type(call) is dict else None
                    if type(tid) is not str:
                        return None  # the full path says what is wrong
                    new_id = renamed((i, None, None), "tool-call", tid)
                    if new_id != tid:
                        if new_calls is None:
                            new_calls = list(calls)
                            out[i] = {**message, "tool_calls": new_calls}
                        new_calls[k] = {**call, "id": new_id}
            elif role == "tool":
                tid = message.get("tool_call_id")
                if type(tid) is not str:
                    return None
                new_id = renamed((i, None, None), "tool-result", tid)
                if new_id != tid:
                    out[i] = {**message, "tool_call_id": new_id}
        return NativeHealResult(out, renamer.records())


def _verdict(
    messages: Any, provider: ProviderId | None, terms: Terms, ids: list[str] | None = None
) -> int:
    """:func:`_plainly_clean`, saying why (:func:`heal._verdict.walked_verdict`):
    ``REFUSED_IDS`` for a list plain but for its call ids' format, which the walk reads past
    (gathering the calls' ids in ``ids``, when given)."""
    if type(messages) is not list or not messages:
        return NOT_PLAIN
    return walked_verdict(provider, terms, _read_past_ids, messages, terms, ids=ids)


def _plainly_clean(messages: Any, provider: ProviderId | None, terms: Terms = PLAIN_TERMS) -> bool:
    """Whether a list of messages, as the caller gave it, is plainly clean for ``provider``:
    True only when healing it through canonical models (default policy, built-in rules, a
    target the ``terms`` are for) would return no repair at all, so
    :func:`heal_openai_chat` can hand the caller's own list back without building a model.
    False says nothing but "not plainly". Exact in that one direction (see
    :mod:`heal._verdict`).

    Plainly clean means the shapes that load as :func:`heal._json.clean_verdict`'s plain AI SDK
    history does, and nothing that would carry options into the models beyond heal's own
    shape markers:

    * a non-empty list of dicts (or SDK messages, read as the loader reads them: their
      ``model_dump``); ``system`` or ``developer`` and ``user`` messages with exactly
      ``role`` and ``content``: a non-blank string (or, for ``user``, text parts ``{type,
      text}`` and ``image_url`` parts that load as plain images: :func:`_plain_image`);
    * assistant messages with ``role`` and a non-blank string ``content`` or text parts, and
      maybe ``tool_calls`` (then ``content`` may also be null or absent): function calls with
      exactly ``id``, ``type: "function"`` and ``function: {name, arguments}``, whose arguments
      are JSON text of an object;
    * each assistant message with calls followed by one tool message per call (exactly
      ``role``, ``tool_call_id`` and a non-blank string ``content``), in any order;
    * no reasoning field, refusal, legacy function call, other media, name or unknown key but null
      ones (an SDK message's ``model_dump()`` writes null ``refusal``, ``annotations``,
      ``audio``, ``function_call``, and ``tool_calls`` without calls); the order of roles,
      texts, values and ids as :mod:`heal._verdict` says.
    """
    if type(messages) is not list or not messages:
        return False
    return walked_clean(provider, terms, _plain_messages, messages, terms)


_ABSENT: Any = object()


def _plain_messages(
    messages: list[Any], terms: Terms, ids: list[str], names: list[str], *, past_ids: bool = False
) -> str | None:
    """The one pass of :func:`_plainly_clean`: the canonical role of the last message when every
    message has a plain shape in a plain place (else None), with the call ids and tool names
    added to ``ids`` and ``names``. Exact key counts and indexing (a missing key raises
    KeyError) check each dict's keys. Under :attr:`heal._verdict.Terms.images` a user's content
    may hold images that load as plain ones (:func:`_plain_image`). Under
    :attr:`~heal._verdict.Terms.rich` (no rule of the plan reads reasoning or provider
    options), an assistant message with text or calls may
    carry its reasoning in one string field, ``reasoning_content`` or ``reasoning``, which
    loads as a reasoning part before them marked with its field (heal's mark, which no rule
    reads there), and a call Gemini's signature (``extra_content``). ``past_ids``: read past a
    call id with a colon (Kimi's, which no provider takes) rather than stop there
    (:func:`_verdict`)."""
    waiting: dict[str, str] | None = None  # the calls not answered yet: id -> name
    previous = ""
    final: Any = None  # the content of the last assistant message
    # Every text (contents, their text parts, tool results) is gathered and judged once at the
    # end: a call per text would cost more than the test.
    texts: list[Any] = []
    add_text = texts.append
    thoughts: list[Any] | None = None  # the reasoning texts (rich only)
    rich = terms.rich
    user_parts = _user_parts if terms.images else _text_parts
    for message in messages:
        if type(message) is not dict:
            # An SDK message (response.choices[0].message, stored as it came), as the loader
            # reads it (a dict goes on as it is: the common case pays nothing for this).
            message = sdk_dict(message)  # noqa: PLW2901
            if message is None:
                return None
        role = message["role"]
        if waiting is not None:
            # A tool message answering one of the calls of the assistant message before.
            if role != "tool" or len(message) != 3:
                return None
            call_id = message["tool_call_id"]
            if type(call_id) is not str or waiting.pop(call_id, None) is None:
                return None
            add_text(message["content"])
            if not waiting:
                waiting = None
            previous = "tool"
            continue
        if role == "developer":
            role = "system"
        follows = AFTER.get(role) if type(role) is str else None  # a list is unhashable
        if follows is None or previous not in follows:
            return None
        if role != "assistant":
            if len(message) != 2:
                return None
            content = message["content"]
            if type(content) is str:
                add_text(content)
            elif role == "system" or not user_parts(content, add_text):
                return None
            previous = role
            continue
        content = message.get("content", _ABSENT)
        calls = message.get("tool_calls", _ABSENT)
        size = 1 + (content is not _ABSENT) + (calls is not _ABSENT)
        if rich and len(message) != size:
            # One reasoning field (both, or reasoning_details, leave the size wrong below).
            thought = message.get("reasoning_content", _ABSENT)
            if thought is _ABSENT:
                thought = message.get("reasoning", _ABSENT)
            if thought is not _ABSENT:
                if type(thought) is not str:
                    return None
                size += 1
                if thoughts is None:
                    thoughts = [thought]
                else:
                    thoughts.append(thought)
        if len(message) != size:
            # Null fields beside them (an SDK message's model_dump()): kept as marks, which no
            # rule reads; null calls are none (alone beside the content, they are refused below,
            # which costs nothing but the full path).
            if _null_fields(message) is None or any(f in message for f in _REASONING_FIELDS):
                return None
            if calls is None:
                calls = _ABSENT
        # Text, or calls beside text or nothing (null or absent content).
        if type(content) is str:
            add_text(content)
        elif not _text_parts(content, add_text) and (
            calls is _ABSENT or not (content is _ABSENT or content is None)
        ):
            return None
        if calls is not _ABSENT:
            if type(calls) is not list or not calls:
                return None
            waiting = {}
            for call in calls:
                if type(call) is not dict or call["type"] != "function":
                    return None
                if len(call) != 3 and (
                    not rich or len(call) != 4 or _extra_signature(call["extra_content"]) is None
                ):
                    return None
                call_id = call["id"]
                function = call["function"]
                if type(call_id) is not str or type(function) is not dict or len(function) != 2:
                    return None
                name = function["name"]
                if type(name) is not str or _plain_object(function["arguments"]) is None:
                    return None
                waiting[call_id] = name
                if ":" in call_id and not past_ids:
                    return None  # Kimi's id form, which no provider takes: all renamed
                ids.append(call_id)
                names.append(name)
        final = content  # the last assistant message's (a history may end with it)
        previous = role
    if not plain_texts(texts) or (thoughts is not None and not plain_thoughts(thoughts)):
        return None
    if waiting is not None:
        return None
    return ended(previous, final[-1]["text"] if type(final) is list else final)


_read_past_ids = partial(_plain_messages, past_ids=True)
"""The walk of :func:`_verdict`."""


def _extra_signature(extra: Any) -> str | None:
    """Gemini's thought signature when a call's ``extra_content`` holds it alone (loaded as
    the call's ``providerOptions.google.thoughtSignature``); else None."""
    google = extra.get("google") if type(extra) is dict and len(extra) == 1 else None
    if type(google) is not dict or len(google) != 1:
        return None
    signature = google.get("thought_signature")
    return signature if type(signature) is str else None


def _text_parts(content: Any, add_text: Callable[[Any], object]) -> bool:
    """Whether a content is a non-empty list of text parts ``{type: "text", text}``; their
    texts go to ``add_text``, among those :func:`_plain_messages` judges at its end."""
    if type(content) is not list or not content:
        return False
    for part in content:
        if type(part) is not dict or len(part) != 2 or part["type"] != "text":
            return False
        add_text(part["text"])
    return True


def _user_parts(content: Any, add_text: Callable[[Any], object]) -> bool:
    """:func:`_text_parts` of a user's content, where images may stand beside the texts: those
    that load as plain images (:func:`_plain_image`)."""
    if type(content) is not list or not content:
        return False
    for part in content:
        if type(part) is not dict or len(part) != 2:
            return False
        if part["type"] == "text":
            add_text(part["text"])
        elif part["type"] != "image_url" or not _plain_image(part["image_url"]):
            return False
    return True


def _plain_image(inner: Any) -> bool:
    """Whether an ``image_url`` part's object loads as a plain image
    (:func:`heal.rules.files.plain_image`): a URL alone (a data URL or another scheme's, as the
    loader reads it without a mark), or with the ``detail`` the loader keeps as OpenAI's
    ``imageDetail`` option, which no rule reads."""
    if type(inner) is not dict:
        return False
    url = inner.get("url")
    if type(url) is not str or not _URL.match(url) or url.startswith(OPENAI_FILE_ID_PREFIX):
        return False
    return len(inner) == 1 or (len(inner) == 2 and type(inner.get("detail")) is str)


def _plain_object(raw: Any) -> dict[str, Any] | None:
    """Tool-call arguments parsed, when they are JSON text the loader reads as a plain object
    input (not kept as the raw string, which ``invalid-tool-input`` mends); else None. The
    verdict asks whether they are; the fast loader takes the object as the input.

    Decoded JSON holds JSON types alone, so what is left to check of a plain input is that the
    floats are finite (the decoder used here refuses a number that overflows to infinity) and
    the nesting: text with no more brackets than :data:`~heal._verdict.MAX_DEPTH` cannot nest
    deeper, and only deeper-looking text is walked (:func:`~heal._verdict.plain_input`)."""
    if type(raw) is not str:
        return None
    try:
        parsed = _decode_finite(raw)
    except (ValueError, RecursionError):
        return None
    if type(parsed) is not dict:
        return None
    if len(raw) <= MAX_DEPTH or raw.count("{") + raw.count("[") <= MAX_DEPTH or plain_input(parsed):
        return parsed
    return None


_NULLABLE = ("refusal", "tool_calls", "function_call")
"""The mapped fields of an assistant message the loader keeps, when null, in its ``extra``
mark, in the order it keeps them (unknown keys follow, in the message's order)."""

_MAPPED = frozenset({"role", "content", *_NULLABLE, *_REASONING_FIELDS})


def _null_fields(message: dict[str, Any]) -> dict[str, Any] | None:
    """The ``extra`` mark the loader gives an assistant message for its null fields
    (``refusal``, ``tool_calls``, ``function_call`` and unknown keys such as ``annotations``
    and ``audio``: the ``model_dump()`` of an SDK message holds them all) and its unknown keys
    holding an empty list (the API answers ``annotations: []``), in its order; None when one of
    them holds anything else (a refusal's text, a legacy call, an unknown value), or a
    reasoning field is there (the general path words those). An empty list is a new one, as
    loading the general path's dicts makes it."""
    extra: dict[str, Any] = {}
    for key in _NULLABLE:
        if key in message:
            value = message[key]
            if value is None:
                extra[key] = None
            elif key != "tool_calls":
                return None
    for key, value in message.items():
        if key not in _MAPPED:
            if value is None:
                extra[key] = None
            elif type(value) is list and not value:
                extra[key] = []
            else:
                return None
    return extra


class _Writer:
    """Writes a healed history back for :func:`heal_openai_chat`.

    Each native message whose canonical message came through the heal untouched
    (:class:`~heal.adapters._common.Sources`) is the caller's own object; one whose calls or
    result changed only their ids or tool names is a copy of the caller's with those fields
    replaced (:meth:`_renamed`); the others are written from their canonical messages, in the
    runs :func:`dump_messages` would write (:func:`_spans`). The result equals the whole
    history written out. A history with legacy function calls is written whole: whether a
    result is written as a ``function`` message depends on the calls written before it.
    """

    def __init__(self, native: list[Any], loaded: Loaded, *, legacy: bool) -> None:
        self.native = native
        self.loaded = loaded.messages
        self.sources = Sources.of(loaded)
        self.legacy = legacy

    def __call__(self, healed: list[ModelMessage]) -> list[Any]:
        dumper = _Dumper()
        if not _PARTIAL or self.legacy:
            return dumper.run(healed)
        return written_back(
            healed,
            _spans(healed),
            self.sources,
            self.native,
            renamed=self._renamed,
            dump=lambda start, end: dumper.span(healed, start, end),
        )

    def _renamed(
        self, healed: list[ModelMessage], start: int, end: int, origin: int
    ) -> dict[str, Any] | None:
        """A copy of native message ``origin`` with the new ids and tool names of its calls or
        result, when the run is its canonical message with no other change
        (:meth:`~heal.adapters._common.Sources.renamed`); else None. The dumper writes those
        fields as they are (``id`` and ``function.name`` of a call; ``tool_call_id`` of a
        result, and its ``name`` when that followed the call's), so the copy is what writing
        the run gives."""
        if not 0 <= origin < len(self.native) or end - start != 1:
            return None
        changes = self.sources.renamed(healed, start, end, origin)
        native = self.native[origin]
        if changes is None or type(native) is not dict:
            return None
        old = self.loaded[self.sources.loaded_from(origin)[0]]
        message = dict(native)
        if isinstance(old, ToolMessage):
            for _, p, update in changes:
                meta = _meta(old.content[p])
                if meta.get("legacy"):  # pragma: no cover - legacy histories are written whole
                    return None
                if "tool_call_id" in update:
                    message["tool_call_id"] = update["tool_call_id"]
                if "tool_name" in update and meta.get("name") is True:
                    message["name"] = update["tool_name"]
            return message
        calls = native.get("tool_calls")
        if not isinstance(old, AssistantMessage) or type(calls) is not list:
            return None
        calls = list(calls)
        positions = [p for p, part in enumerate(old.content) if type(part) is ToolCallPart]
        for _, p, update in changes:
            part = old.content[p]
            if type(part) is not ToolCallPart or p not in positions:
                return None
            k = positions.index(p)
            call = calls[k] if k < len(calls) else None
            if type(call) is not dict:
                return None
            call = dict(call)
            if "tool_call_id" in update:
                call["id"] = update["tool_call_id"]
            if "tool_name" in update:
                kind = "custom" if _custom(part, _meta(part)) else "function"
                body = call.get(kind)
                if type(body) is not dict:
                    return None
                call[kind] = {**body, "name": update["tool_name"]}
            calls[k] = call
        message["tool_calls"] = calls
        return message


# --- small helpers ---------------------------------------------------------------------------


def _as_list(native: Any) -> list[Any]:
    if isinstance(native, (str, bytes, bytearray)):
        raise InputError("expected a list of Chat Completions messages, got " + kind_of(native))
    if isinstance(native, Mapping):
        hint = " (did you mean its 'messages' field?)" if "messages" in native else ""
        raise InputError("expected a list of messages, got a single object" + hint)
    if not isinstance(native, Iterable):
        raise InputError(f"expected a list of Chat Completions messages, got {kind_of(native)}")
    return native if isinstance(native, list) else list(native)


def _rest(obj: Mapping[str, Any], *mapped: str) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in mapped}


def _options(
    heal: Mapping[str, Any] | None = None, openai: Mapping[str, Any] | None = None
) -> dict[str, Any] | None:
    """Canonical providerOptions from the native-only fields (``heal``) and AI SDK ones."""
    out: dict[str, Any] = {}
    if openai:
        out["openai"] = dict(openai)
    # None means "nothing to record", except for "content", where null is the recorded shape.
    marks = {k: v for k, v in (heal or {}).items() if v is not None or k == "content"}
    if marks:
        out["heal"] = {_NS: marks}
    return out or None


def _meta(model: Any) -> dict[str, Any]:
    """The ``heal.openai_chat`` options of a canonical message, part or output item."""
    options = model.get("providerOptions") if isinstance(model, dict) else model.provider_options
    if not isinstance(options, dict):
        return _JSON_OBJECT
    heal = options.get("heal")
    found = heal.get(_NS) if isinstance(heal, dict) else None
    return found if isinstance(found, dict) else _JSON_OBJECT


def _openai(model: Any) -> dict[str, Any]:
    options = model.get("providerOptions") if isinstance(model, dict) else model.provider_options
    found = options.get("openai") if isinstance(options, dict) else None
    return found if isinstance(found, dict) else _JSON_OBJECT


def _breakpoint(part: Mapping[str, Any]) -> dict[str, Any] | None:
    if "prompt_cache_breakpoint" in part:
        return {"promptCacheBreakpoint": part["prompt_cache_breakpoint"]}
    return None


def _put_extra(out: dict[str, Any], meta: Mapping[str, Any], key: str = "extra") -> dict[str, Any]:
    extra = meta.get(key)
    if isinstance(extra, dict):
        for k, v in extra.items():
            out.setdefault(k, v)
    return out


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)
"""Parses JSON text as the API would; NaN and Infinity are not JSON. One decoder, built once
(``json.loads`` with an option builds one per call)."""


def _reader(decoder: json.JSONDecoder) -> Callable[[str], Any]:
    """``decoder.decode``, faster on the usual text. Arguments are nearly always one value
    with no space around it, which the decoder's own scanner reads at once (``decode`` wraps it
    in two Python calls and two whitespace matches: half the time of parsing a small object,
    and every call's arguments are parsed on every heal). Anything else, and every error,
    takes ``decode`` itself."""
    scan: Callable[[str, int], tuple[Any, int]] = cast(Any, make_scanner)(decoder)
    decode = decoder.decode

    def read(raw: str) -> Any:
        try:
            value, end = scan(raw, 0)
        except (StopIteration, ValueError):
            return decode(raw)
        return value if end == len(raw) else decode(raw)

    return read


_decode_json = _reader(_DECODER)
"""``_DECODER.decode``, as :func:`_reader` reads."""


def _finite_float(text: str) -> float:
    value = float(text)
    if value - value != 0:  # infinity: a literal too large for a float
        raise ValueError(f"{text} is not a finite number")
    return value


_FINITE_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float)
"""``_DECODER``, refusing the numbers it would read as infinity too (a verdict's decoder: what
it reads is a plain value as it is)."""
_decode_finite = _reader(_FINITE_DECODER)


def _loads_json(raw: str) -> Any:
    """Parse JSON text as the API would (:data:`_decode_json`)."""
    return _decode_json(raw)


_ENCODERS = {fmt: json.JSONEncoder(**options).encode for fmt, options in _ARG_FORMATS.items()}
"""``json.dumps(value, **options)`` for each format, with the encoder built once (``json.dumps``
with options builds one per call)."""


def _dumps_json(value: Any, fmt: str = "compact") -> str:
    return _ENCODERS.get(fmt, _ENCODERS["compact"])(value)


def _parsed_encoder(options: dict[str, Any]) -> Callable[[Any], str]:
    """``json.dumps(value, **options)`` for a value just parsed from JSON text, which holds no
    cycle: the C encoder is built once, without the cycle check (its shared bookkeeping is
    what ``JSONEncoder.encode`` builds a new encoder for on every call, half the cost of
    encoding a call's arguments). The pure-Python encoder where the C one is missing."""
    encoder = json.JSONEncoder(**options, check_circular=False)
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # pragma: no cover - CPython has the C encoder
        return encoder.encode
    chunks = make(
        None,
        encoder.default,
        json.encoder.encode_basestring_ascii
        if encoder.ensure_ascii
        else json.encoder.encode_basestring,
        None,
        encoder.key_separator,
        encoder.item_separator,
        False,
        False,
        True,
    )
    return lambda value: "".join(chunks(value, 0))


_PARSED_ENCODERS = {fmt: _parsed_encoder(options) for fmt, options in _ARG_FORMATS.items()}
""":func:`_dumps_json` for values parsed from JSON text (:func:`_arguments`), each format's in
order."""


# --- load ------------------------------------------------------------------------------------


class _Loader:
    def __init__(self, native: list[Any], *, fast: bool) -> None:
        self.native = native
        self.fast = fast
        self.out: list[dict[str, Any] | ModelMessage] = []
        self.origins: list[int] = []
        self.part_origins: list[tuple[int | None, ...] | None] = []
        self.messages: list[dict[str, Any]] = []
        # id -> [(native index, tool name)] of every tool call, for naming results: the whole
        # history's (:meth:`_index_calls`), once ``indexed``. Until then the fast path names a
        # result from ``latest``: id -> name of the last call read so far (see _tool_name).
        self.calls: dict[str, list[tuple[int, str]]] = {}
        self.legacy: list[int] = []
        self.indexed = False
        self.latest: dict[str, str] = {}
        self.legacy_seen = False  # a function_call or function message: see _Writer

    def run(self) -> Loaded:
        for i, raw in enumerate(self.native):
            # The caller's own dicts are only read, never changed: no copy needed.
            msg = raw if type(raw) is dict else expect_object(raw, f"messages[{i}]", "a message")
            self.messages.append(msg)
        if not self.fast:
            self._index_calls()
        fast = self._fast if self.fast else None
        for i, msg in enumerate(self.messages):
            if fast is None or not fast(i, msg):
                self._message(i, msg)
                if not self.indexed:
                    self._note_calls(msg)
        try:
            canonical = _load_canonical(self.out)
        except InputError as exc:
            if self.fast:  # locate the error as the plain path does, on dicts alone
                return _Loader(self.native, fast=False).run()
            found = re.match(r"messages\[(\d+)\]", exc.path)
            where = f"messages[{self.origins[int(found.group(1))]}]" if found else "messages"
            raise InputError(f"cannot be represented: {exc.reason}", path=where) from None
        return Loaded(canonical, self.origins, self.part_origins)

    def _fast(self, i: int, msg: dict[str, Any]) -> bool:
        """Build the canonical models of a message of the common shapes directly, as loading
        its dicts and validating them would (``tests/adapters/test_partial_conversion.py``
        holds the two equal); False, having built nothing, for any other message, which the
        general path reads.

        The shapes: ``system`` / ``developer`` and ``user`` messages of exactly ``role`` and
        ``content`` (a string, or for ``user`` text parts ``{type, text}``); assistant messages
        of ``role``, ``content`` (a string, text parts, null or absent), maybe ``tool_calls``
        (function calls of exactly ``id``, ``type``, ``function: {name, arguments}`` and maybe
        a Gemini ``extra_content`` signature alone) and maybe one of ``reasoning_content`` or
        ``reasoning`` (a string); tool messages of ``role``, ``tool_call_id``, a string
        ``content`` and maybe the call's ``name``. No refusal, media, legacy function call,
        cache breakpoint or unknown key: those carry options the general path words.
        """
        role = msg.get("role")
        size = len(msg)
        if role == "assistant":
            return self._fast_assistant(i, msg, size)
        if role == "tool":
            call_id = msg.get("tool_call_id")
            content = msg.get("content")
            if type(call_id) is not str or type(content) is not str:
                return False
            name = self._tool_name(call_id, i)
            if size == 3:
                options: dict[str, Any] | None = None
            elif size == 4 and msg.get("name") == name:
                options = {"heal": {_NS: {"name": True}}}
            else:
                return False
            part = built_result(call_id, name, built_text_output(content), options)
            self._put(built_message(ToolMessage, (part,)), i, (None,))
            return True
        if size != 2:
            return False
        content = msg.get("content")
        if role == "user":
            if type(content) is str:
                self._put(built_message(UserMessage, content), i, ())
                return True
            parts = built_texts(content, "text")
            if parts is None:
                return False
            self._put(built_message(UserMessage, parts), i, range(len(parts)))
            return True
        if type(content) is not str or role not in ("system", "developer"):
            return False
        options = None if role == "system" else {"heal": {_NS: {"role": "developer"}}}
        self._put(built_message(SystemMessage, content, options), i, ())
        return True

    def _fast_assistant(self, i: int, msg: dict[str, Any], size: int) -> bool:
        """:meth:`_fast` for an assistant message."""
        content = msg.get("content", _ABSENT)
        calls = msg.get("tool_calls", _ABSENT)
        field = "reasoning_content" if "reasoning_content" in msg else "reasoning"
        reasoning = msg.get(field, _ABSENT)
        known = 1 + (content is not _ABSENT) + (calls is not _ABSENT) + (reasoning is not _ABSENT)
        extra: dict[str, Any] | None = None
        if size != known or calls is None:
            # Null fields, as an SDK message's model_dump() writes them, kept as the general
            # path keeps them (null calls are none).
            extra = _null_fields(msg)
            if extra is None:
                return False
            if calls is None:
                calls = _ABSENT
                known -= 1
            if size != known + len(extra):
                return False
        parts: list[Any] = []
        origins: list[int | None] = []
        if reasoning is not _ABSENT:
            if type(reasoning) is not str:
                return False
            options: Any = {"heal": {_NS: {"field": field}}}
            parts.append(built_reasoning(reasoning, options))
            origins.append(None)
        mark: str | None = None
        if content is _ABSENT:
            mark = "absent"
        elif type(content) is str:
            if content:
                parts.append(built_text(content))
                origins.append(None)
            else:
                mark = ""
        elif type(content) is list:
            texts = built_texts(content, "text")
            if texts is None:
                return False
            mark = "array"
            parts.extend(texts)
            origins.extend(range(len(texts)))
        elif content is not None:
            return False
        if calls is not _ABSENT:
            if type(calls) is not list or not calls:
                return False
            latest = self.latest
            for call in calls:
                part = _fast_call(call)
                if part is None:
                    return False
                latest[part.tool_call_id] = part.tool_name
                parts.append(part)
                origins.append(None)
        options = None if mark is None else {"heal": {_NS: {"content": mark}}}
        if extra:
            marks = {"extra": extra} if mark is None else {"content": mark, "extra": extra}
            options = {"heal": {_NS: marks}}
        if mark is None and len(parts) == 1 and type(content) is str:
            # Text alone stays a string, as it came.
            self._put(built_message(AssistantMessage, content, options), i, ())
            return True
        self._put(built_message(AssistantMessage, tuple(parts), options), i, origins)
        return True

    def _put(self, message: ModelMessage, origin: int, parts: Iterable[int | None]) -> None:
        self.out.append(message)
        self.origins.append(origin)
        self.part_origins.append(tuple(parts))

    def _index_calls(self) -> None:
        """Index every call of the history (``calls``, ``legacy``): the general path's, and
        the fast path's once a result names a call it has not read yet (see _tool_name)."""
        self.indexed = True
        for i, msg in enumerate(self.messages):
            for call_id, name in _named_calls(msg):
                self.calls.setdefault(call_id, []).append((i, name))
            if msg.get("role") == "assistant" and isinstance(msg.get("function_call"), Mapping):
                self.legacy.append(i)
                self.legacy_seen = True

    def _note_calls(self, msg: dict[str, Any]) -> None:
        """Note what :meth:`_index_calls` would index of a message the general path read,
        while the fast path reads the history without the index."""
        latest = self.latest
        for call_id, name in _named_calls(msg):
            latest[call_id] = name
        if msg.get("role") == "assistant" and isinstance(msg.get("function_call"), Mapping):
            self.legacy_seen = True

    def _emit(self, message: dict[str, Any], origin: int, parts: Sequence[int | None]) -> None:
        self.out.append(message)
        self.origins.append(origin)
        self.part_origins.append(tuple(parts))

    def _message(self, i: int, msg: dict[str, Any]) -> None:
        path = f"messages[{i}]"
        if "role" not in msg:
            raise InputError("message has no role", path=path)
        role = msg["role"]
        if role in ("system", "developer"):
            self._system(i, msg, role, path)
        elif role == "user":
            self._user(i, msg, path)
        elif role == "assistant":
            self._assistant(i, msg, path)
        elif role == "tool":
            self._tool(i, msg, path)
        elif role == "function":
            self._function(i, msg, path)
        else:
            raise InputError(
                f"unknown role {shown(role)} (expected one of system, developer, user, assistant, "
                "tool, function)",
                path=f"{path}.role",
            )

    def _content(self, msg: Mapping[str, Any], role: str, path: str) -> Any:
        if "content" not in msg:
            raise InputError(f"{role} message has no content", path=path)
        content = msg["content"]
        if content is None:
            raise InputError(f"content is null in a {role} message", path=f"{path}.content")
        if not isinstance(content, (str, list)):
            raise InputError(
                f"content must be a string or a list of parts, got {kind_of(content)}",
                path=f"{path}.content",
            )
        return content

    def _system(self, i: int, msg: dict[str, Any], role: str, path: str) -> None:
        content = self._content(msg, role, path)
        extra = _rest(msg, "role", "content")
        marks: dict[str, Any] = {"role": "developer" if role == "developer" else None}
        if isinstance(content, str):
            marks["extra"] = extra or None
            options = _options(marks)
            self._emit(
                _drop_none({"role": "system", "content": content, "providerOptions": options}),
                i,
                (),
            )
            return
        if not content:
            marks.update(extra=extra or None, content=[])
            self._emit({"role": "system", "content": "", "providerOptions": _options(marks)}, i, ())
            return
        for j, raw in enumerate(content):
            ppath = f"{path}.content[{j}]"
            part = expect_object(raw, ppath, "a content part")
            if part.get("type") != "text":
                raise InputError(
                    f"{role} message content parts must be text, got {shown(part.get('type'))}",
                    path=f"{ppath}.type" if "type" in part else ppath,
                )
            text = expect_string(part, "text", ppath, "text part")
            rest = _rest(part, "type", "text", "prompt_cache_breakpoint")
            part_marks = {
                **marks,
                "part": j,
                "extra": (extra or None) if j == 0 else None,
                "partExtra": rest or None,
            }
            options = _options(part_marks, _breakpoint(part))
            self._emit({"role": "system", "content": text, "providerOptions": options}, i, (j,))

    def _user(self, i: int, msg: dict[str, Any], path: str) -> None:
        content = self._content(msg, "user", path)
        extra = _rest(msg, "role", "content")
        options = _options({"extra": extra or None})
        if isinstance(content, str):
            self._emit(
                _drop_none({"role": "user", "content": content, "providerOptions": options}), i, ()
            )
            return
        parts = [
            _user_part(
                expect_object(raw, f"{path}.content[{j}]", "a content part"), f"{path}.content[{j}]"
            )
            for j, raw in enumerate(content)
        ]
        message = {"role": "user", "content": parts, "providerOptions": options}
        self._emit(_drop_none(message), i, range(len(parts)))

    def _assistant(self, i: int, msg: dict[str, Any], path: str) -> None:
        mapped = {"role"}
        extra: dict[str, Any] = {}
        marks: dict[str, Any] = {}
        parts: list[dict[str, Any]] = []
        origins: list[int | None] = []

        def add(part: dict[str, Any], origin: int | None = None) -> None:
            parts.append(part)
            origins.append(origin)

        # Reasoning first, as models produce it. A field that repeats the first one verbatim
        # (vLLM sends reasoning and reasoning_content; OpenRouter reasoning and reasoning_details)
        # is re-derived on dump instead of becoming a second copy.
        primary: str | None = None
        mirrors: list[str] = []
        for field in _REASONING_FIELDS:
            if field not in msg:
                continue
            mapped.add(field)
            value = msg[field]
            fpath = f"{path}.{field}"
            if value is None:
                extra[field] = None
                continue
            if field == "reasoning_details":
                if not isinstance(value, list):
                    raise InputError(
                        f"reasoning_details must be a list, got {kind_of(value)}", path=fpath
                    )
                for k, item in enumerate(value):
                    add(
                        _reasoning_detail(
                            expect_object(item, f"{fpath}[{k}]", "a reasoning detail")
                        )
                    )
                primary = _joined_details(value)
                continue
            if not isinstance(value, str):
                raise InputError(f"{field} must be a string, got {kind_of(value)}", path=fpath)
            if primary is not None and value == primary:
                mirrors.append(field)
                continue
            add({"type": "reasoning", "text": value, "providerOptions": _options({"field": field})})
            if primary is None:
                primary = value
        if mirrors:
            marks["mirror"] = mirrors

        mapped.add("content")
        text_only = False
        if "content" not in msg:
            marks["content"] = "absent"
        else:
            content = msg["content"]
            if isinstance(content, str):
                if content:
                    add({"type": "text", "text": content})
                    text_only = True
                else:
                    marks["content"] = ""
            elif isinstance(content, list):
                marks["content"] = "array"
                for j, raw in enumerate(content):
                    ppath = f"{path}.content[{j}]"
                    add(_assistant_part(expect_object(raw, ppath, "a content part"), ppath), j)
            elif content is not None:
                raise InputError(
                    f"content must be a string, a list of parts or null, got {kind_of(content)}",
                    path=f"{path}.content",
                )

        if "refusal" in msg:
            mapped.add("refusal")
            refusal = msg["refusal"]
            if isinstance(refusal, str):
                add(
                    {
                        "type": "text",
                        "text": refusal,
                        "providerOptions": _options({"field": "refusal"}),
                    }
                )
                text_only = False
            elif refusal is None:
                extra["refusal"] = None
            else:
                raise InputError(
                    f"refusal must be a string, got {kind_of(refusal)}", path=f"{path}.refusal"
                )

        if "tool_calls" in msg:
            mapped.add("tool_calls")
            calls = msg["tool_calls"]
            if isinstance(calls, list) and calls:
                for k, raw in enumerate(calls):
                    cpath = f"{path}.tool_calls[{k}]"
                    add(_tool_call(expect_object(raw, cpath, "a tool call"), cpath))
            elif calls is None or calls == []:
                extra["tool_calls"] = calls
            else:
                raise InputError(
                    f"tool_calls must be a list, got {kind_of(calls)}", path=f"{path}.tool_calls"
                )

        if "function_call" in msg:
            mapped.add("function_call")
            call = msg["function_call"]
            if call is None:
                extra["function_call"] = None
            else:
                fpath = f"{path}.function_call"
                add(_function_call(expect_object(call, fpath, "a function call"), fpath, i))

        extra.update(_rest(msg, *mapped))
        marks["extra"] = extra or None
        if text_only and len(parts) == 1 and not marks.get("content"):
            message = {"role": "assistant", "content": msg["content"]}
            self._emit(_drop_none({**message, "providerOptions": _options(marks)}), i, ())
            return
        message = {"role": "assistant", "content": parts, "providerOptions": _options(marks)}
        self._emit(_drop_none(message), i, origins)

    def _tool_name(self, tool_call_id: str, i: int) -> str:
        """The name of the call ``tool_call_id`` that result ``i`` answers: the nearest one
        before it, else the first after it, else :data:`UNKNOWN_TOOL_NAME`.

        Read in order, the fast path knows the calls before ``i`` without an index (``latest``,
        the last of each id read so far, is the nearest one before); only a result whose call
        comes later, or none at all, has the whole history indexed (once)."""
        if not self.indexed:
            name = self.latest.get(tool_call_id)
            if name is not None:
                return name
            self._index_calls()
        calls = self.calls.get(tool_call_id)
        if not calls:
            return UNKNOWN_TOOL_NAME
        before = [name for m, name in calls if m < i]
        return before[-1] if before else calls[0][1]

    def _tool(self, i: int, msg: dict[str, Any], path: str) -> None:
        tool_call_id = expect_string(msg, "tool_call_id", path, "tool message")
        content = self._content(msg, "tool", path)
        name = self._tool_name(tool_call_id, i)
        marks: dict[str, Any] = {}
        extra = _rest(msg, "role", "content", "tool_call_id", "name")
        if "name" in msg:
            # Some clients send the tool name on results; it follows the call's name on dump
            # (so a renamed tool stays consistent) unless it already differed.
            if msg["name"] == name:
                marks["name"] = True
            else:
                extra["name"] = msg["name"]
        marks["extra"] = extra or None
        output = _tool_output(content, f"{path}.content")
        part = {
            "type": "tool-result",
            "toolCallId": tool_call_id,
            "toolName": name,
            "output": output,
            "providerOptions": _options(marks),
        }
        self._emit({"role": "tool", "content": [_drop_none(part)]}, i, (None,))

    def _function(self, i: int, msg: dict[str, Any], path: str) -> None:
        self.legacy_seen = True
        name = expect_string(msg, "name", path, "function message")
        if "content" not in msg:
            raise InputError("function message has no content", path=path)
        content = msg["content"]
        marks: dict[str, Any] = {"legacy": True}
        if content is None:
            content = ""
            marks["content"] = None
        elif not isinstance(content, str):
            raise InputError(
                f"function message content must be a string or null, got {kind_of(content)}",
                path=f"{path}.content",
            )
        marks["extra"] = _rest(msg, "role", "content", "name") or None
        if not self.indexed:
            self._index_calls()
        before = [m for m in self.legacy if m < i]
        after = [m for m in self.legacy if m > i]
        owner = before[-1] if before else after[0] if after else i
        part = {
            "type": "tool-result",
            "toolCallId": _LEGACY_ID.format(owner),
            "toolName": name,
            "output": {"type": "text", "value": content},
            "providerOptions": _options(marks),
        }
        self._emit({"role": "tool", "content": [part]}, i, (None,))


def _fast_call(call: Any) -> ToolCallPart | None:
    """A function call of the common shape (see :meth:`_Loader._fast`) as the general path
    loads it; None for any other call."""
    if type(call) is not dict:
        return None
    size = len(call)
    signature: str | None = None
    if size == 4:
        signature = _extra_signature(call.get("extra_content"))
        if signature is None:
            return None
    elif size != 3:
        return None
    call_id = call.get("id")
    function = call.get("function")
    if call.get("type") != "function" or type(call_id) is not str or type(function) is not dict:
        return None
    name = function.get("name")
    raw = function.get("arguments")
    if len(function) != 2 or type(name) is not str or type(raw) is not str:
        return None
    value: Any = _plain_object(raw)  # the common case: no plain_input walk
    if value is not None:
        marks = _arguments_format(value, raw)
    else:
        value, marks = _arguments(raw, "")
        if type(value) is not str and not plain_input(value):
            return None
    options: dict[str, Any] | None = {"heal": {_NS: marks}} if marks else None
    if signature is not None:
        options = {**(options or {}), "google": {"thoughtSignature": signature}}
    return built_call(call_id, name, value, options)


def _named_calls(msg: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """The id and name of each call of an assistant message that has both as strings (a
    function or custom call), in order: what names the results that answer them."""
    if msg.get("role") != "assistant":
        return
    calls = msg.get("tool_calls")
    if isinstance(calls, list):
        for call in calls:
            if not isinstance(call, Mapping) or not isinstance(call.get("id"), str):
                continue
            body = call.get("function", call.get("custom"))
            name = body.get("name") if isinstance(body, Mapping) else None
            if isinstance(name, str):
                yield call["id"], name


def _drop_none(obj: dict[str, Any]) -> dict[str, Any]:
    """Drop keys whose value is None: absent fields stay absent in the canonical form."""
    return {k: v for k, v in obj.items() if v is not None}


def _user_part(part: dict[str, Any], path: str) -> dict[str, Any]:
    kind = part.get("type")
    openai = _breakpoint(part) or {}
    marks: dict[str, Any] = {}
    if kind == "text":
        text = expect_string(part, "text", path, "text part")
        marks["extra"] = _rest(part, "type", "text", "prompt_cache_breakpoint") or None
        return _drop_none(
            {"type": "text", "text": text, "providerOptions": _options(marks, openai)}
        )
    if kind == "image_url":
        inner = expect_object(part.get("image_url"), f"{path}.image_url", "an image_url")
        url = expect_string(inner, "url", f"{path}.image_url", "image_url")
        if "detail" in inner:
            openai["imageDetail"] = inner["detail"]
        marks["raw"] = True if not _URL.match(url) else None
        marks["inner"] = _rest(inner, "url", "detail") or None
        marks["extra"] = _rest(part, "type", "image_url", "prompt_cache_breakpoint") or None
        return _drop_none(
            {"type": "image", "image": url, "providerOptions": _options(marks, openai)}
        )
    if kind == "input_audio":
        inner = expect_object(part.get("input_audio"), f"{path}.input_audio", "an input_audio")
        data = expect_string(inner, "data", f"{path}.input_audio", "input_audio")
        fmt = expect_string(inner, "format", f"{path}.input_audio", "input_audio")
        media_type = _AUDIO_FORMATS.get(fmt, f"audio/{fmt}")
        if _audio_format(media_type) != fmt:
            marks["format"] = fmt
        marks["inner"] = _rest(inner, "data", "format") or None
        marks["extra"] = _rest(part, "type", "input_audio", "prompt_cache_breakpoint") or None
        audio = {"type": "file", "data": data, "mediaType": media_type}
        return _drop_none({**audio, "providerOptions": _options(marks, openai)})
    if kind == "file":
        inner = expect_object(part.get("file"), f"{path}.file", "a file")
        fpath = f"{path}.file"
        if "file_data" in inner:
            data = expect_string(inner, "file_data", fpath, "file")
            rest = _rest(inner, "file_data", "filename")
        elif "file_id" in inner:
            data = expect_string(inner, "file_id", fpath, "file")
            rest = _rest(inner, "file_id", "filename")
            marks["fileId"] = True
        else:
            raise InputError("file part has neither file_data nor file_id", path=fpath)
        found = _DATA_URL.match(data) if not marks.get("fileId") else None
        media_type = found.group(1) if found else "application/pdf"
        if media_type.startswith(("image/", "audio/")):
            marks["type"] = "file"  # dump would otherwise pick image_url / input_audio
        if not marks.get("fileId") and not _URL.match(data):
            marks["raw"] = True
        filename = inner.get("filename")
        if "filename" in inner and not isinstance(filename, str):
            rest["filename"] = filename
            filename = None
        marks["inner"] = rest or None
        marks["extra"] = _rest(part, "type", "file", "prompt_cache_breakpoint") or None
        file_part = {
            "type": "file",
            "data": data,
            "mediaType": media_type,
            "filename": filename,
        }
        return _drop_none({**file_part, "providerOptions": _options(marks, openai)})
    raise InputError(
        f"unknown content part type {shown(kind)} in a user message "
        "(expected text, image_url, input_audio, file)",
        path=f"{path}.type" if "type" in part else path,
    )


def _assistant_part(part: dict[str, Any], path: str) -> dict[str, Any]:
    kind = part.get("type")
    marks: dict[str, Any]
    if kind == "text":
        text = expect_string(part, "text", path, "text part")
        marks = {"extra": _rest(part, "type", "text", "prompt_cache_breakpoint") or None}
    elif kind == "refusal":
        text = expect_string(part, "refusal", path, "refusal part")
        marks = {
            "type": "refusal",
            "extra": _rest(part, "type", "refusal", "prompt_cache_breakpoint") or None,
        }
    else:
        raise InputError(
            f"unknown content part type {shown(kind)} in an assistant message "
            "(expected text, refusal)",
            path=f"{path}.type" if "type" in part else path,
        )
    return _drop_none(
        {"type": "text", "text": text, "providerOptions": _options(marks, _breakpoint(part))}
    )


def _reasoning_detail(item: dict[str, Any]) -> dict[str, Any]:
    key = (
        "text"
        if isinstance(item.get("text"), str)
        else "summary"
        if isinstance(item.get("summary"), str)
        else None
    )
    text = item[key] if key is not None else ""
    marks: dict[str, Any] = {"field": "reasoning_details", "detail": _rest(item, key or "")}
    if key != "text":
        marks["textKey"] = key if key is not None else False
    return {"type": "reasoning", "text": text, "providerOptions": _options(marks)}


def _detail_text(item: Mapping[str, Any]) -> str:
    for key in ("text", "summary"):
        if isinstance(item.get(key), str):
            return cast(str, item[key])
    return ""


def _joined_details(items: Sequence[Any]) -> str:
    return "".join(_detail_text(item) for item in items if isinstance(item, Mapping))


def _arguments(raw: Any, path: str) -> tuple[Any, dict[str, Any]]:
    """Canonical input and markers for native ``arguments`` text."""
    if not isinstance(raw, str):
        raise InputError(
            f"arguments must be a JSON string, got {kind_of(raw)} (serialize it with json.dumps)",
            path=path,
        )
    try:
        parsed = _loads_json(raw)
    except (ValueError, RecursionError):
        return raw, {}
    if not isinstance(parsed, dict):
        return raw, {}
    return parsed, _arguments_format(parsed, raw)


def _arguments_format(parsed: dict[str, Any], raw: str) -> dict[str, Any]:
    """The markers that give back the exact ``raw`` text an object was parsed from."""
    for fmt, encode in _PARSED_ENCODERS.items():
        if encode(parsed) == raw:
            return {} if fmt == "compact" else {"argumentsFormat": fmt}
    return {"arguments": raw}


def _tool_call(call: dict[str, Any], path: str) -> dict[str, Any]:
    if "id" not in call:
        raise InputError("tool call has no id", path=path)
    if not isinstance(call["id"], str):
        raise InputError(
            f"tool call id must be a string, got {kind_of(call['id'])}", path=f"{path}.id"
        )
    marks: dict[str, Any] = {}
    kind = call.get("type")
    if "type" not in call:
        marks["noType"] = True
    if kind == "custom":
        body = expect_object(call.get("custom"), f"{path}.custom", "a custom tool call")
        name = expect_string(body, "name", f"{path}.custom", "custom tool call")
        text = expect_string(body, "input", f"{path}.custom", "custom tool call")
        tool_input: Any = {"input": text}
        marks["type"] = "custom"
        marks["inner"] = _rest(body, "name", "input") or None
        marks["extra"] = _rest(call, "id", "type", "custom") or None
    elif kind == "function" or "type" not in call:
        if "function" not in call:
            raise InputError("tool call has no function", path=path)
        fpath = f"{path}.function"
        body = expect_object(call["function"], fpath, "a function")
        name = expect_string(body, "name", fpath, "function")
        if "arguments" not in body:
            raise InputError("function has no arguments", path=fpath)
        tool_input, arg_marks = _arguments(body["arguments"], f"{fpath}.arguments")
        marks.update(arg_marks)
        marks["inner"] = _rest(body, "name", "arguments") or None
        marks["extra"] = _rest(call, "id", "type", "function") or None
    else:
        raise InputError(
            f"unknown tool call type {shown(kind)} (expected function or custom)",
            path=f"{path}.type",
        )
    signature = _take_signature(marks)
    part = {
        "type": "tool-call",
        "toolCallId": call["id"],
        "toolName": name,
        "input": tool_input,
        "providerOptions": _with_signature(_options(marks), signature),
    }
    return _drop_none(part)


def _take_signature(marks: dict[str, Any], key: str = "extra") -> str | None:
    """Gemini's thought signature out of a call's unmapped fields, and what remains of its
    ``extra_content`` back in them (``marks`` is updated).

    Gemini's OpenAI-compatible endpoint returns a call's signature in
    ``extra_content.google.thought_signature`` and reads it there on replay
    (ai.google.dev/gemini-api/docs/thought-signatures; report §4: the endpoint enforces the
    signature rule). It becomes ``providerOptions.google.thoughtSignature``, where heal's Gemini
    rules read it (and ``google-missing-thought-signature`` writes the documented dummy). A
    legacy ``function_call`` keeps it the same way inside its object (``key="inner"``), so that
    what heal sets there is written too."""
    extra = marks.get(key)
    content = extra.get("extra_content") if isinstance(extra, dict) else None
    google = content.get("google") if isinstance(content, dict) else None
    signature = google.get("thought_signature") if isinstance(google, dict) else None
    if not isinstance(signature, str) or not isinstance(extra, dict):
        return None
    assert isinstance(content, dict) and isinstance(google, dict)
    rest_google = _rest(google, "thought_signature")
    rest = {**_rest(content, "google"), **({"google": rest_google} if rest_google else {})}
    kept = {**_rest(extra, "extra_content"), **({"extra_content": rest} if rest else {})}
    marks[key] = kept or None
    return signature


def _with_signature(options: dict[str, Any] | None, signature: str | None) -> dict[str, Any] | None:
    if signature is None:
        return options
    return {**(options or {}), "google": {"thoughtSignature": signature}}


def _function_call(call: dict[str, Any], path: str, i: int) -> dict[str, Any]:
    name = expect_string(call, "name", path, "function call")
    if "arguments" not in call:
        raise InputError("function call has no arguments", path=path)
    tool_input, marks = _arguments(call["arguments"], f"{path}.arguments")
    marks = {**marks, "legacy": True, "inner": _rest(call, "name", "arguments") or None}
    signature = _take_signature(marks, "inner")
    return {
        "type": "tool-call",
        "toolCallId": _LEGACY_ID.format(i),
        "toolName": name,
        "input": tool_input,
        "providerOptions": _with_signature(_options(marks), signature),
    }


_MEDIA_PARTS = ("image_url", "input_audio", "file")
"""User content part types some clients also put in tool messages (an image a tool returned),
which OpenAI rejects there; see :func:`_tool_media`."""


def _tool_output(content: str | list[Any], path: str) -> dict[str, Any]:
    if isinstance(content, str):
        return {"type": "text", "value": content}
    items = []
    for j, raw in enumerate(content):
        ipath = f"{path}[{j}]"
        item = expect_object(raw, ipath, "a content part")
        if item.get("type") in _MEDIA_PARTS:
            items.append(_tool_media(item, ipath))
            continue
        if item.get("type") != "text":
            raise InputError(
                f"tool message content parts must be text or media, got {shown(item.get('type'))}",
                path=f"{ipath}.type" if "type" in item else ipath,
            )
        text = expect_string(item, "text", ipath, "text part")
        rest = _rest(item, "type", "text", "prompt_cache_breakpoint")
        options = _options({"extra": rest or None}, _breakpoint(item))
        items.append(_drop_none({"type": "text", "text": text, "providerOptions": options}))
    return {"type": "content", "value": items}


def _tool_media(item: dict[str, Any], path: str) -> dict[str, Any]:
    """A media part of a tool message (``image_url``, ``input_audio``, ``file``) as a content
    output item: read as a user part is, then an ``image-url`` item for an image and a
    ``file-data`` item for the rest, marked ``heal.openai_chat.toolPart`` so that it is written
    back as the part it was. OpenAI rejects media in a tool message (``Image URLs are only
    allowed for messages with role 'user'``), and ``openai-tool-result-media`` moves it into a
    user message, where the marks the part keeps write it back exactly."""
    part = _user_part(item, path)
    options = part.get("providerOptions") or {}
    marks = {**options.get("heal", {}).get(_NS, {}), "toolPart": True}
    options = {**options, "heal": {_NS: marks}}
    if part["type"] == "image":
        return {"type": "image-url", "url": part["image"], "providerOptions": options}
    out = {"type": "file-data", "data": part["data"], "mediaType": part["mediaType"]}
    if "filename" in part:
        out["filename"] = part["filename"]
    return {**out, "providerOptions": options}


def _tool_media_part(item: Mapping[str, Any]) -> ImagePart | FilePart | None:
    """The user part a content output item marked by :func:`_tool_media` was read from."""
    if not _meta(item).get("toolPart"):
        return None
    options = item.get("providerOptions")
    if item.get("type") == "image-url" and isinstance(item.get("url"), str):
        return ImagePart(image=item["url"], provider_options=options)
    if item.get("type") == "file-data" and isinstance(item.get("data"), str):
        filename = item.get("filename")
        return FilePart(
            data=item["data"],
            media_type=str(item.get("mediaType")),
            filename=filename if isinstance(filename, str) else None,
            provider_options=options,
        )
    return None


def _audio_format(media_type: str) -> str:
    return _AUDIO_MEDIA.get(media_type, media_type.removeprefix("audio/"))


# --- dump ------------------------------------------------------------------------------------


class _Dumper:
    """Writes canonical messages as native ones, one span of canonical messages at a time
    (:func:`_spans`): what :func:`dump_messages` writes whole, and :class:`_Writer` only where
    a heal changed something."""

    def __init__(self) -> None:
        self.legacy_ids: set[str] = set()

    def run(self, messages: list[ModelMessage]) -> list[NativeMessage]:
        out: list[NativeMessage] = []
        for start, end in _spans(messages):
            out.extend(self.span(messages, start, end))
        return out

    def span(self, messages: list[ModelMessage], start: int, end: int) -> list[NativeMessage]:
        """The native messages canonical messages ``start`` to ``end`` make: one, except for a
        tool message, which makes one per result."""
        message = messages[start]
        if isinstance(message, SystemMessage):
            native = self._system(message)
            for c in range(start + 1, end):
                native["content"].append(self._system_part(cast(SystemMessage, messages[c])))
            return [native]
        path = f"messages[{start}]"
        if isinstance(message, UserMessage):
            return [self._user(message, path)]
        if isinstance(message, AssistantMessage):
            return [self._assistant(message, path)]
        return self._tool(message)

    def _system_part(self, message: SystemMessage) -> dict[str, Any]:
        meta = _meta(message)
        part: dict[str, Any] = {"type": "text", "text": message.content}
        self._breakpoint(part, _openai(message))
        return _put_extra(part, meta, "partExtra")

    def _system(self, message: SystemMessage) -> NativeMessage:
        meta = _meta(message)
        role = _system_role(meta)
        if isinstance(meta.get("part"), int):
            return _put_extra({"role": role, "content": [self._system_part(message)]}, meta)
        if meta.get("content") == [] and not message.content:
            return _put_extra({"role": role, "content": []}, meta)
        content: Any = message.content
        point = _openai(message).get("promptCacheBreakpoint")
        if point is not None:  # the AI SDK's form: one text part carrying the breakpoint
            content = [{"type": "text", "text": content, "prompt_cache_breakpoint": point}]
        return _put_extra({"role": role, "content": content}, meta)

    @staticmethod
    def _breakpoint(native: dict[str, Any], openai: Mapping[str, Any]) -> None:
        if "promptCacheBreakpoint" in openai:
            native["prompt_cache_breakpoint"] = openai["promptCacheBreakpoint"]

    def _user(self, message: UserMessage, path: str) -> NativeMessage:
        meta = _meta(message)
        if isinstance(message.content, str):
            return _put_extra({"role": "user", "content": message.content}, meta)
        parts = [
            self._user_part(part, f"{path}.content[{p}]") for p, part in enumerate(message.content)
        ]
        return _put_extra({"role": "user", "content": parts}, meta)

    def _user_part(self, part: TextPart | ImagePart | FilePart, path: str) -> dict[str, Any]:
        meta = _meta(part)
        openai = _openai(part)
        native: dict[str, Any]
        if isinstance(part, TextPart):
            native = {"type": "text", "text": part.text}
        elif isinstance(part, ImagePart) or (
            part.media_type.startswith("image/") and meta.get("type") != "file"
        ):
            data = part.image if isinstance(part, ImagePart) else part.data
            media = part.media_type if part.media_type is not None else "image/*"
            inner: dict[str, Any] = {"url": _url(data, media, meta)}
            if "imageDetail" in openai:
                inner["detail"] = openai["imageDetail"]
            native = {"type": "image_url", "image_url": _put_extra(inner, meta, "inner")}
        elif part.media_type.startswith("audio/") and meta.get("type") != "file":
            fmt = meta.get("format")
            audio = {
                "data": _base64(part.data),
                "format": fmt if isinstance(fmt, str) else _audio_format(part.media_type),
            }
            native = {"type": "input_audio", "input_audio": _put_extra(audio, meta, "inner")}
        else:
            body: dict[str, Any]
            data = part.data
            if isinstance(data, str) and (
                meta.get("fileId") or (not meta and data.startswith("file-"))
            ):
                body = {"file_id": data}
            else:
                body = {"file_data": _url(part.data, part.media_type, meta)}
            if part.filename is not None:
                body["filename"] = part.filename
            native = {"type": "file", "file": _put_extra(body, meta, "inner")}
        self._breakpoint(native, openai)
        return _put_extra(native, meta)

    def _assistant(self, message: AssistantMessage, path: str) -> NativeMessage:
        meta = _meta(message)
        if isinstance(message.content, str):
            return _put_extra({"role": "assistant", "content": message.content}, meta)
        texts: list[dict[str, Any]] = []
        text = ""
        refusal: str | None = None
        calls: list[dict[str, Any]] = []
        function_call: dict[str, Any] | None = None
        reasoning: dict[str, Any] = {}
        as_array = meta.get("content") == "array"
        for p, part in enumerate(message.content):
            ppath = f"{path}.content[{p}]"
            pmeta = _meta(part)
            if isinstance(part, ReasoningPart):
                self._reasoning(part, pmeta, reasoning)
            elif isinstance(part, TextPart):
                if pmeta.get("field") == "refusal":
                    refusal = part.text if refusal is None else refusal + part.text
                    continue
                item: dict[str, Any]
                if pmeta.get("type") == "refusal":
                    item = {"type": "refusal", "refusal": part.text}
                    as_array = True
                else:
                    item = {"type": "text", "text": part.text}
                    text += part.text
                openai = _openai(part)
                if "promptCacheBreakpoint" in openai:
                    as_array = True
                self._breakpoint(item, openai)
                texts.append(_put_extra(item, pmeta))
            elif isinstance(part, ToolCallPart):
                if part.provider_executed:
                    raise InputError(
                        "a provider-executed tool call has no Chat Completions form", path=ppath
                    )
                if pmeta.get("legacy"):
                    if function_call is not None:
                        raise InputError(
                            "an assistant message can hold only one legacy function_call",
                            path=ppath,
                        )
                    self.legacy_ids.add(part.tool_call_id)
                    function_call = {
                        "name": part.tool_name,
                        "arguments": _dump_arguments(part, pmeta),
                    }
                    _put_signature(function_call, part, pmeta)
                    function_call = _put_extra(function_call, pmeta, "inner")
                else:
                    calls.append(_dump_call(part, pmeta))
            elif isinstance(part, ToolApprovalRequest):
                continue  # the AI SDK does not send approval requests to providers
            else:
                kind = "a file" if isinstance(part, FilePart) else "a provider-executed tool result"
                raise InputError(
                    f"{kind} in an assistant message has no Chat Completions form", path=ppath
                )
        native: dict[str, Any] = {"role": "assistant"}
        if as_array:
            native["content"] = texts
        elif texts:
            native["content"] = text
        elif meta.get("content") != "absent":
            native["content"] = "" if meta.get("content") == "" else None
        if refusal is not None:
            native["refusal"] = refusal
        if calls:
            native["tool_calls"] = calls
        if function_call is not None:
            native["function_call"] = function_call
        native.update(reasoning)
        mirrors = meta.get("mirror")
        if isinstance(mirrors, list) and reasoning:
            source = next(iter(reasoning.values()))
            primary = _joined_details(source) if isinstance(source, list) else source
            for field in mirrors:
                if isinstance(field, str):
                    native[field] = primary
        return _put_extra(native, meta)

    @staticmethod
    def _reasoning(part: ReasoningPart, meta: Mapping[str, Any], into: dict[str, Any]) -> None:
        field = meta.get("field")
        if field == "reasoning_details":
            detail = meta.get("detail")
            item = dict(detail) if isinstance(detail, dict) else {"type": "reasoning.text"}
            key = meta.get("textKey", "text")
            if isinstance(key, str):
                item[key] = part.text
            into.setdefault("reasoning_details", []).append(item)
            return
        if field not in ("reasoning", "reasoning_content"):
            field = "reasoning_content"  # the OpenAI-compatible servers' field
        into[field] = into.get(field, "") + part.text

    def _tool(self, message: ToolMessage) -> list[NativeMessage]:
        out: list[NativeMessage] = []
        for part in message.content:
            if isinstance(part, ToolApprovalResponse):
                continue  # not sent to providers, as in the AI SDK
            meta = _meta(part)
            if meta.get("legacy") or part.tool_call_id in self.legacy_ids:
                value = _output_text(part.output)
                content: Any = value
                if "content" in meta and meta["content"] is None and value == "":
                    content = None
                native = {"role": "function", "name": part.tool_name, "content": content}
            else:
                native = {
                    "role": "tool",
                    "tool_call_id": part.tool_call_id,
                    "content": _output_content(part.output),
                }
                name = meta.get("name")
                if name is True:
                    native["name"] = part.tool_name
            out.append(_put_extra(native, meta))
        return out


def _system_role(meta: Mapping[str, Any]) -> str:
    return "developer" if meta.get("role") == "developer" else "system"


def _spans(messages: Sequence[ModelMessage]) -> list[tuple[int, int]]:
    """The canonical messages cut into the runs that each make native messages, as
    ``(start, end)`` pairs: one message each, except a system message read from a later text
    part of a system message's array (``part`` above 0), which joins the run before it when
    that one made a system message of the same role from a text part."""
    spans: list[tuple[int, int]] = []
    open_role: str | None = None  # the role of the run before, when its array may continue
    for c, message in enumerate(messages):
        if isinstance(message, SystemMessage):
            meta = _meta(message)
            index = meta.get("part")
            if isinstance(index, int):
                role = _system_role(meta)
                if index > 0 and open_role == role:
                    spans[-1] = (spans[-1][0], c + 1)
                    continue
                open_role = role
            else:
                open_role = None
        else:
            open_role = None
        spans.append((c, c + 1))
    return spans


def _url(data: str | bytes, media_type: str, meta: Mapping[str, Any]) -> str:
    """A URL (or data URL) for image or file data: strings that are URLs pass unchanged."""
    if isinstance(data, str) and (meta.get("raw") or _URL.match(data)):
        return data
    mime = "image/jpeg" if media_type == "image/*" else media_type
    return f"data:{mime};base64,{_base64(data)}"


def _base64(data: str | bytes) -> str:
    return data if isinstance(data, str) else base64.b64encode(data).decode("ascii")


def _dump_arguments(part: ToolCallPart, meta: Mapping[str, Any]) -> str:
    value = part.input
    if isinstance(value, str):
        return value  # raw arguments text, as loaded (or as a caller wrote it)
    raw = meta.get("arguments")
    if isinstance(raw, str):
        try:
            if _dumps_json(_loads_json(raw)) == _dumps_json(value):
                return raw
        except (ValueError, RecursionError):
            pass
    fmt = meta.get("argumentsFormat")
    return _dumps_json(value, fmt if isinstance(fmt, str) else "compact")


def _custom(part: ToolCallPart, meta: Mapping[str, Any]) -> bool:
    """Whether a call is written as a custom tool call (free-form text input)."""
    return (
        meta.get("type") == "custom"
        and isinstance(part.input, dict)
        and isinstance(part.input.get("input"), str)
    )


def _dump_call(part: ToolCallPart, meta: Mapping[str, Any]) -> dict[str, Any]:
    native: dict[str, Any] = {"id": part.tool_call_id}
    if _custom(part, meta):
        native["type"] = "custom"
        body = {"name": part.tool_name, "input": cast(dict[str, Any], part.input)["input"]}
        native["custom"] = _put_extra(body, meta, "inner")
    else:
        if not meta.get("noType"):
            native["type"] = "function"
        body = {"name": part.tool_name, "arguments": _dump_arguments(part, meta)}
        native["function"] = _put_extra(body, meta, "inner")
    _put_signature(native, part, meta)
    return _put_extra(native, meta)


def _put_signature(native: dict[str, Any], part: ToolCallPart, meta: Mapping[str, Any]) -> None:
    """Write a call's Gemini thought signature where Gemini's OpenAI-compatible endpoint reads
    it (see _take_signature), merged into whatever else its ``extra_content`` held."""
    signature = _signature(part)
    if signature is None:
        return
    extra = meta.get("inner" if meta.get("legacy") else "extra")
    kept = extra.get("extra_content") if isinstance(extra, dict) else None
    content = dict(kept) if isinstance(kept, dict) else {}
    google = content.get("google")
    content["google"] = {
        **(google if isinstance(google, dict) else {}),
        "thought_signature": signature,
    }
    native["extra_content"] = content


def _signature(part: ToolCallPart) -> str | None:
    """The Gemini thought signature of a call, from the namespaces the AI SDK google adapter
    reads (``google`` first)."""
    options = part.provider_options or {}
    for namespace in GOOGLE_NAMESPACES:
        values = options.get(namespace)
        signature = values.get("thoughtSignature") if isinstance(values, dict) else None
        if isinstance(signature, str):
            return signature
    return None


def _output_text(output: Any) -> str:
    if isinstance(output, (TextOutput, ErrorTextOutput)):
        return output.value
    if isinstance(output, ExecutionDeniedOutput):
        return output.reason if output.reason is not None else "Tool call execution denied."
    if isinstance(output, (JsonOutput, ErrorJsonOutput)):
        return json.dumps(output.value, separators=(",", ":"), ensure_ascii=False)
    assert isinstance(output, ContentOutput)
    return json.dumps(list(output.value), separators=(",", ":"), ensure_ascii=False)


def _output_content(output: Any) -> str | list[dict[str, Any]]:
    if not isinstance(output, ContentOutput):
        return _output_text(output)
    media = [_tool_media_part(item) for item in output.value]
    if not all(
        part is not None or (item.get("type") == "text" and isinstance(item.get("text"), str))
        for item, part in zip(output.value, media, strict=True)
    ):
        return _output_text(output)
    items = []
    for k, (item, part) in enumerate(zip(output.value, media, strict=True)):
        if part is not None:
            # A media part read from a tool message goes back as it came (see _tool_media).
            items.append(_Dumper()._user_part(part, f"output.value[{k}]"))
            continue
        native: dict[str, Any] = {"type": "text", "text": item["text"]}
        _Dumper._breakpoint(native, _openai(item))
        items.append(_put_extra(native, _meta(item)))
    return items
