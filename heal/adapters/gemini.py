"""Gemini ``contents`` (google-genai), to and from heal's canonical messages.

Heal a history in one call::

    from heal.adapters.gemini import heal_gemini

    result = heal_gemini(contents)      # or {"contents": [...], "system_instruction": ...}
    result.messages   # the same shape back (the same object when nothing changed)
    result.repairs    # message_index = index in ``contents``, part_index = index in its parts

Or translate: ``load_messages(native)`` gives canonical messages, ``dump_messages(messages)``
gives contents back, and ``dump_messages(load_messages(x)) == x`` for every valid ``x``:

* a list of ``Content`` dicts, in the Python SDK's ``snake_case`` or the REST API's
  ``camelCase`` spelling (kept per part), with bytes or base64 strings;
* ``{"contents": [...], "system_instruction": ...}`` (or ``systemInstruction``); ``dump_messages``
  returns this dict whenever the messages hold a system message, and the bare list otherwise;
* ``google.genai.types.Content`` objects: ``dump_messages(messages, sdk=True)`` returns SDK
  objects equal to them (``sdk=False``, the default, returns JSON-compatible dicts with base64
  strings). :func:`heal_gemini` returns SDK objects when it was given them.

How parts map (the AI SDK's conventions where it has one):

==================================  ===============================================================
native                              canonical
==================================  ===============================================================
``user`` content                    a ``UserMessage``; its ``function_response`` parts become a
                                    ``ToolMessage`` (a content mixing both becomes several
                                    messages, written back into one content)
``model`` content                   an ``AssistantMessage``
``text`` / ``thought: true`` text   text part / reasoning part
``thought_signature`` (any part)    ``providerOptions.google.thoughtSignature`` (base64 string)
``inline_data`` / ``file_data``     file part (``mime_type`` → ``mediaType``, ``display_name`` →
                                    ``filename``)
``function_call``                   tool-call part; ``args`` → ``input``
``function_response``               tool-result part with a JSON output holding ``response``
``executable_code`` /               provider-executed ``code_execution`` tool call / its result
``code_execution_result``           in the same assistant message
``tool_call`` / ``tool_response``   provider-executed ``server_<toolType>`` call / its result
                                    (``google.serverToolCallId`` / ``serverToolType``)
``system_instruction``              one ``SystemMessage`` per text part (or for a string)
==================================  ===============================================================

Tool-call ids: a ``function_call`` without an ``id`` (every Gemini API response before ids) gets
``c<content index>p<part index>``, the numbers zero-padded to four and three digits
(``c0001p000``): stable for a given history, unique, and nine letters and digits, an id every
provider takes as it is (Mistral takes no other form). A ``function_response`` without an ``id``
answers the first unanswered call of the same name, nearest call turn first (how Gemini pairs
them). An ``id`` is written back only where the native part had one, so an id heal made up must
be one no rule renames: a new one would be lost on writing and made again on every heal.

Everything else (the key spelling, ``will_continue``, ``video_metadata``, function-response
``parts``, ...) rides in ``providerOptions["heal"]["gemini"]`` of the message or part, where no
provider reads it; provider-executed parts are written back from the copy kept there (with the id
the history now has, where they had one). Results from elsewhere (heal's placeholders, AI SDK
histories) are written as the AI SDK writes them: ``response: {"name": ..., "content": ...}``.

Repairs name native places: ``message_index`` is the index in ``contents`` and ``part_index`` the
index in that content's ``parts``; :data:`SYSTEM_INDEX` (``-1``) is the system instruction.

Not represented (``InputError``): roles other than ``user`` and ``model``, function calls in user
contents or function responses in model contents, parts with no data field or two of them,
non-text system-instruction parts, and bytes anywhere but ``thought_signature`` and
``inline_data.data`` in dict input (SDK objects are fine). :func:`dump_messages` raises it for a
system message after the first content and for parts with no Gemini form (approval responses,
another source's provider-executed calls).

Most histories need nothing, and reading them into canonical models costs far more than the
healing does: :func:`heal_gemini` first asks a pure-Python pass over the caller's own dicts
(``_plainly_clean``: texts, function calls and the responses right after them, read as the
reader reads them) and, under the default policy, hands plainly clean contents back as they are
without building a model. The pass is exact in one direction (see :mod:`heal._verdict`): when
it says clean, the full path would find no repair; anything it does not fully understand (thought
parts, media, SDK objects, unknown keys) takes the full path. Thought signatures on the model's
texts and calls, which every Gemini 2.5 and 3 history with thinking carries, are plain when
healing for Google (whose rules drop only a signature that cannot be Gemini's, which the pass
looks for itself) and not for another provider; so is a request that ends with the function
responses of a current turn whose steps are signed (a Gemini 3 tool loop's every request).

When something needs a repair, every content is still read (the rules look across contents),
but only what the repair touches is converted: contents of the common shapes (texts, thought
texts, function calls and responses, signed or not) are built as canonical models directly
rather than validated (``_Reader._fast``), and after the heal only the contents whose canonical
messages it changed are written back; the others are the caller's own dicts (the system
instruction its own value), and a content whose function calls or responses changed only an id
or a name is a copy of the caller's with those fields replaced (:class:`_Rewriter`). SDK objects
are written whole.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from enum import Enum
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypeVar, cast, overload

from pydantic import BaseModel, ValidationError

from heal._engine import HealScope, IdRenamer
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
    built_json_output,
    built_message,
    built_reasoning,
    built_result,
    built_text,
    collector_paused,
    heal_native,
    native_target,
    settled,
    written_back,
)
from heal.errors import ConfigError, InputError
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
    ProviderOptions,
    ReasoningPart,
    SystemMessage,
    TextOutput,
    TextPart,
    ToolApprovalResponse,
    ToolCallPart,
    ToolMessage,
    ToolResultOutput,
    ToolResultPart,
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
from heal.rules.files import ANTHROPIC_IMAGE_TYPES, OPENAI_FILE_ID_PREFIX
from heal.rules.google import valid_signature
from heal.targets import Target, tool_names

if TYPE_CHECKING:
    from google.genai import types

__all__ = [
    "NAMESPACE",
    "SYSTEM_INDEX",
    "dump_messages",
    "heal_gemini",
    "load",
    "load_messages",
    "read_request",
    "thinking_enabled",
]

NAMESPACE = "gemini"
"""The key under ``providerOptions["heal"]`` that holds what only this format has."""

SYSTEM_INDEX = -1
"""The native message index of system-instruction messages in the source map and repairs."""

Part = dict[str, Any]
Content = dict[str, Any]
GeminiNative: TypeAlias = list[Content] | dict[str, Any]
"""What :func:`dump_messages` returns: the contents, or a dict that also holds the system
instruction."""

_M = TypeVar("_M", bound=BaseModel)
_ABSENT: Any = object()
_UNSAFE_ID = re.compile(r"[^a-zA-Z0-9_-]")
_DATA_URL = re.compile(r"data:([^;,]+);base64,(.*)", re.DOTALL)
_URL_SCHEMES = ("http://", "https://", "gs://", "data:")
_CAMEL = {
    "inline_data": "inlineData",
    "file_data": "fileData",
    "function_call": "functionCall",
    "function_response": "functionResponse",
    "executable_code": "executableCode",
    "code_execution_result": "codeExecutionResult",
    "tool_call": "toolCall",
    "tool_response": "toolResponse",
    "thought_signature": "thoughtSignature",
    "mime_type": "mimeType",
    "display_name": "displayName",
    "file_uri": "fileUri",
    "tool_type": "toolType",
    "system_instruction": "systemInstruction",
}
_DATA_KEYS = (
    "text",
    "inline_data",
    "file_data",
    "function_call",
    "function_response",
    "executable_code",
    "code_execution_result",
    "tool_call",
    "tool_response",
)
_PROVIDER_SIDE = ("executable_code", "code_execution_result", "tool_call", "tool_response")
_PARTIAL = True
"""Convert only what a heal needs: build the models of the common contents directly (the
reader's fast path, :meth:`_Reader._fast`) and write back only the contents whose canonical
messages a heal changed (:class:`_Rewriter`). The tests switch it off to compare with reading
every content through validation and writing the whole history."""
_GOOGLE_NAMESPACES = ("google", "vertex", "googleVertex")


# --- public API ------------------------------------------------------------------------------


def load(native: Any) -> Loaded:
    """Read Gemini contents (a list, or a dict with ``contents`` and a system instruction).

    Raises :class:`~heal.errors.InputError` naming the place, such as ``contents[2].parts[1]``.
    """
    contents, system, system_key = _split(native)
    return _Reader().read(contents, system, system_key)


def load_messages(native: Any) -> list[ModelMessage]:
    """Read Gemini contents as canonical messages (see the module docstring)."""
    return load(native).messages


@overload
def dump_messages(
    messages: Iterable[ModelMessage | Mapping[str, Any]], *, sdk: Literal[False] = False
) -> GeminiNative: ...
@overload
def dump_messages(
    messages: Iterable[ModelMessage | Mapping[str, Any]], *, sdk: Literal[True]
) -> list[types.Content] | dict[str, Any]: ...
def dump_messages(
    messages: Iterable[ModelMessage | Mapping[str, Any]], *, sdk: bool = False
) -> GeminiNative | list[types.Content]:
    """Write canonical messages as Gemini contents.

    Returns the list of contents, or ``{"contents": [...], "system_instruction": ...}`` when
    there are system messages. With ``sdk=True`` the contents (and the system instruction, unless
    it was a string) are ``google.genai.types.Content`` objects. Raises
    :class:`~heal.errors.InputError` (``messages[2].content[0]``) for a part with no Gemini form.
    """
    contents, system, system_key = _Writer().write(_load_canonical(list(messages)))
    if sdk:
        return _wrap([_to_sdk(c) for c in contents], _system_to_sdk(system), system_key)
    return _wrap(contents, system, system_key)


@overload
def heal_gemini(
    native: list[types.Content],
    *,
    provider: ProviderId | None = "google",
    model: str | None = None,
    thinking: bool | None = None,
    tools: Iterable[Any] | None = None,
    target: Target | None = None,
    policy: Policy | Mapping[str, str] | None = None,
    rules: Sequence[Rule] | None = None,
    on_repair: Callable[[Repair], object] | None = None,
    strict: bool = False,
    scope: HealScope = "request",
) -> NativeHealResult[list[types.Content]]: ...
@overload
def heal_gemini(
    native: list[Content],
    *,
    provider: ProviderId | None = "google",
    model: str | None = None,
    thinking: bool | None = None,
    tools: Iterable[Any] | None = None,
    target: Target | None = None,
    policy: Policy | Mapping[str, str] | None = None,
    rules: Sequence[Rule] | None = None,
    on_repair: Callable[[Repair], object] | None = None,
    strict: bool = False,
    scope: HealScope = "request",
) -> NativeHealResult[list[Content]]: ...
@overload
def heal_gemini(
    native: Mapping[str, Any],
    *,
    provider: ProviderId | None = "google",
    model: str | None = None,
    thinking: bool | None = None,
    tools: Iterable[Any] | None = None,
    target: Target | None = None,
    policy: Policy | Mapping[str, str] | None = None,
    rules: Sequence[Rule] | None = None,
    on_repair: Callable[[Repair], object] | None = None,
    strict: bool = False,
    scope: HealScope = "request",
) -> NativeHealResult[dict[str, Any]]: ...
def heal_gemini(
    native: Any,
    *,
    provider: ProviderId | None = "google",
    model: str | None = None,
    thinking: bool | None = None,
    tools: Iterable[Any] | None = None,
    target: Target | None = None,
    policy: Policy | Mapping[str, str] | None = None,
    rules: Sequence[Rule] | None = None,
    on_repair: Callable[[Repair], object] | None = None,
    strict: bool = False,
    scope: HealScope = "request",
) -> NativeHealResult[Any]:
    """Heal Gemini contents; the result has the shape it was given (see the module docstring).

    A dict keeps its other keys (``tools``, ``generation_config``, ...). When nothing needed
    changing, ``native`` itself comes back; under the default policy and a target whose model
    and tools it fits (:func:`heal._verdict.terms_for`), plainly clean contents
    (:func:`_plainly_clean`: texts, function calls and their responses, as dicts, signed for
    Google) are answered so without building a canonical model. When something needs a repair,
    the contents it leaves alone come back as the caller's own dicts and only the others are
    written (:class:`_Rewriter`). The keyword arguments are those of
    :func:`heal.heal_messages`: the target is ``model`` (``"gemini-3-pro-preview"``),
    ``thinking``, ``tools`` (names or definitions) or all of them as one ``target``. A request
    dict says what the caller leaves out: its ``model``, its ``tools`` and its thinking
    configuration (:func:`read_request`; a keyword given wins). A ``target`` is used as given.
    """
    goal = native_target(
        provider,
        "google",
        model=model,
        thinking=thinking,
        tools=tools,
        target=target,
        request=read_request(native) if target is None else NO_FACTS,
    )
    # The verdict is asked under the default options, for a target it knows (terms).
    asked = asked_scope(policy, rules, scope)
    terms = terms_for(goal) if asked else None
    said = NOT_PLAIN
    if terms is not None:
        verdict = partial(_verdict, native, goal.provider, terms)
        rename = partial(_renamed_ids, native, goal)
        history_scope = asked == "history"
        said, done = settled(native, verdict, rename, on_repair, strict, clean_only=history_scope)
        if done is not None:
            return done
        if history_scope:
            terms = None  # the request's verdict: the full path decides the rest
    contents, system, system_key = _split(native)
    sdk = any(isinstance(c, BaseModel) for c in contents)
    sdk_system = isinstance(system, BaseModel)
    with collector_paused(len(contents)):
        loaded = _Reader().read(contents, system, system_key)
        write = _Rewriter(contents, system, system_key, loaded, whole=sdk)

    def dump(messages: list[ModelMessage]) -> Any:
        new_contents, new_system, new_key = write(messages)
        out_contents: list[Any] = [_to_sdk(c) for c in new_contents] if sdk else new_contents
        out_system = _system_to_sdk(new_system) if sdk_system else new_system
        if not isinstance(native, Mapping):
            return _wrap(out_contents, out_system, new_key)
        out = dict(native)
        out["contents"] = out_contents
        if out_system is not None:
            out.pop("system_instruction", None)
            out.pop(_CAMEL["system_instruction"], None)
            out[new_key] = out_system
        return out

    return heal_native(
        loaded,
        dump,
        target=goal,
        policy=policy,
        rules=rules,
        on_repair=on_repair,
        strict=strict,
        scope=scope,
        original=native,
        quick=terms is None,
        renames=said != NOT_PLAIN,  # else tried in the caller's dicts, or not plain at all
    )


# --- the plain verdict -----------------------------------------------------------------------


def _plainly_clean(native: Any, provider: ProviderId | None, terms: Terms = PLAIN_TERMS) -> bool:
    """Whether Gemini contents, as the caller gave them, are plainly clean for ``provider``:
    True only when healing them through canonical models (default policy, built-in rules, a
    target the ``terms`` are for) would return no repair at all, so :func:`heal_gemini` can
    hand the caller's own object back without building a model. False says nothing but "not
    plainly". Exact in that one direction (see :mod:`heal._verdict`).

    Plainly clean means the shapes that load as :func:`heal._json.clean_verdict`'s plain AI SDK
    history does, read as :class:`_Reader` reads them (dicts only: SDK objects take the full
    path):

    * a non-empty list of contents, or a dict with one (its other keys are the request's, read
      by :func:`read_request` before), maybe with a ``system_instruction`` or
      ``systemInstruction`` (not both) that is a non-blank string or ``{"parts": [...]}`` of
      ``{"text"}`` parts alone;
    * contents of exactly ``role`` and a non-empty list of ``parts``, each part a one-key dict:
      a ``user`` content of ``{"text"}`` parts; a ``model`` content of ``{"text"}`` parts
      followed by ``function_call`` (or ``functionCall``) parts whose body holds a string
      ``name``, maybe an object ``args`` and maybe a string ``id``;
    * each model content with calls followed by a ``user`` content of ``function_response`` (or
      ``functionResponse``) parts alone, one per call (``name``, an object ``response`` and
      maybe a string ``id``), which the loader reads as a tool message: a response with an id
      answers the call with that id, one without answers the first call of its name still
      waiting, as :meth:`_Reader._answer` pairs them, and always with the call's name;
    * for a target whose rules read signatures only as Google's do
      (:attr:`heal._verdict.Terms.signatures`: provider ``google``), a model content's text and
      function-call parts may carry a ``thought_signature`` (or ``thoughtSignature``) that
      ``google-foreign-thought-signature`` keeps (:func:`_plain_signatures`), as a thinking
      model signs them; no other target takes one (another provider's rules drop or replace
      it), nor a signature in a user content. Signed so on the first call of every model
      content after the last user text, contents may end with the function responses (or the
      model's answer) for Google too: ``google-missing-thought-signature`` finds nothing then;
    * no ``thought`` part (reasoning) but, for Google, thoughts (not empty, maybe signed) first
      in a model content, before its text or calls (:func:`_plain_contents`); no media,
      code-execution or server-tool part, no unknown key, no content without a role; the
      order of roles, texts, values and ids as :mod:`heal._verdict` says, the ids those the
      loader gives (a call's own, or :func:`_positional_id`).
    """
    found = _walked(native)
    if found is None:
        return False
    contents, system = found
    walk = partial(_plain_contents, image_files=True) if terms.image_files else _plain_contents
    if not terms.signatures:
        return walked_clean(provider, terms, walk, contents, system, None)
    signed: list[bool] = []
    return walked_clean(provider, terms, walk, contents, system, signed, signed=signed)


def _verdict(native: Any, provider: ProviderId | None, terms: Terms, ids: list[str]) -> int:
    """:func:`_plainly_clean`, saying why (:func:`heal._verdict.walked_verdict`):
    ``REFUSED_IDS`` for contents plain but for their call ids' format, which the walk reads
    past (gathering the calls' ids, as the loader gives them, in ``ids``)."""
    found = _walked(native)
    if found is None:
        return NOT_PLAIN
    contents, system = found
    walk = partial(_plain_contents, past_ids=True, image_files=terms.image_files)
    if not terms.signatures:
        return walked_verdict(provider, terms, walk, contents, system, None, ids=ids)
    signed: list[bool] = []
    return walked_verdict(provider, terms, walk, contents, system, signed, signed=signed, ids=ids)


def _walked(native: Any) -> tuple[list[Any], Any] | None:
    """What the verdict walks of a request dict or a list of contents: the contents and the
    system instruction (``_ABSENT`` when there is none); None when they are not plain (the
    full path reads them, and raises where they are wrong)."""
    system: Any = _ABSENT
    if type(native) is dict:
        contents = native.get("contents")
        snake = native.get("system_instruction")
        camel = native.get(_CAMEL["system_instruction"])
        if snake is not None and camel is not None:
            return None  # the full path raises
        if snake is not None or camel is not None:
            system = camel if snake is None else snake
    else:
        contents = native
    if type(contents) is not list or not contents:
        return None
    return contents, system


def _renamed_ids(native: Any, goal: Target, ids: list[str]) -> NativeHealResult[Any] | None:
    """The result for contents the verdict found plain but for tool-call ids the target refuses
    (Kimi's ``functions.search:3``; any id but Mistral's own, for Mistral; see
    :func:`_verdict`), whose calls' ids are ``ids`` (as the loader gives them: a call's own, or
    :func:`_positional_id`), made from the caller's dicts, without models; None to heal them the
    full way, which then decides.

    The ids are renamed as the engine's id rules rename them
    (:class:`heal._engine.IdRenamer`), one to one, and the new ones must be accepted: the
    renamed contents are then plainly clean (the walk reads ids for nothing else), and this is
    the full path's result, with the engine's records at native places (each call's and
    response's part, in order); each part gets the new id in a copy of its body, as
    :meth:`_Rewriter._renamed` writes it. Contents with a call or response without an id of its
    own (a made-up id, or a response paired by name) are left to the full path.
    ``tests/adapters/test_native_fast_path.py`` holds the two ways to one result."""
    found = _walked(native)
    if found is None:
        return None
    contents = found[0]
    renamer = IdRenamer.of(ids, goal)
    if renamer is None:
        return None
    renamed = renamer.renamed
    with collector_paused(len(contents)):
        out = list(contents)
        ci = -1
        for content in contents:
            ci += 1
            parts = content["parts"]
            new_parts: list[Any] | None = None
            model = content["role"] == "model"
            pi = -1
            for part in parts:
                pi += 1
                if model:
                    key = "function_call" if "function_call" in part else "functionCall"
                    what = "tool-call"
                else:
                    key = "function_response" if "function_response" in part else "functionResponse"
                    what = "tool-result"
                body = part.get(key)
                if body is None:
                    continue  # a text (the walk let nothing else pass)
                own = body.get("id")
                if own is None:
                    # A call's made-up id, or a response paired by its name: the full path
                    # (which renames and records such ids too, writing them nowhere).
                    return None
                new_id = renamed((ci, pi, None), what, own)
                if new_id != own:
                    if new_parts is None:
                        new_parts = list(parts)
                        out[ci] = {**content, "parts": new_parts}
                    new_parts[pi] = {**part, key: {**body, "id": new_id}}
        result = {**native, "contents": out} if type(native) is dict else out
        return NativeHealResult(result, renamer.records())


def _plain_contents(
    contents: list[Any],
    system: Any,
    signed: list[bool] | None,
    ids: list[str],
    names: list[str],
    *,
    past_ids: bool = False,
    image_files: bool = False,
) -> str | None:
    """The one pass of :func:`_plainly_clean`: the canonical role of the last message when every
    content has a plain shape in a plain place (else None), with the call ids (as the loader
    gives them) and tool names added to ``ids`` and ``names``. Exact key counts and indexing (a
    missing key raises KeyError) check each dict's keys. ``signed``, a list under
    :attr:`heal._verdict.Terms.signatures` (else None): a model content's text and call parts
    may carry a thought signature, which :func:`_plain_signatures` judges, and the pass adds
    True to the list when the first call of every model content after the last user text is
    signed so (``google-missing-thought-signature`` wants it of the current turn; true too when
    none has a call). Under the same terms a model content may also begin with thoughts
    (``{"text", "thought": true}``, maybe signed; not empty, which ``google-empty-part``
    drops) before a text or a call: the plan's rules that read reasoning are Google's alone
    (see :attr:`heal._verdict.Terms.signatures`), and none finds anything in such a thought.
    ``image_files`` (:attr:`heal._verdict.Terms.image_files`): a user content may hold images
    as ``inline_data`` that load as plain image files (:func:`_plain_blob`). ``past_ids``:
    read past a call id with a colon (Kimi's, which no provider takes) rather than stop there
    (:func:`_verdict`)."""
    previous = ""
    unsigned = False  # a model content since the last user text has an unsigned first call
    # Texts, call arguments, responses and signatures are gathered and judged once at the end:
    # a call per value would cost more than the test (nearly every part holds one).
    texts: list[Any] = []
    values: list[Any] = []
    signatures: list[Any] = []
    thoughts: list[Any] = []
    add_text = texts.append
    add_value = values.append
    add_signature = signatures.append
    if system is not _ABSENT:
        if type(system) is str:
            add_text(system)
        elif type(system) is dict and len(system) == 1:
            parts = system["parts"]
            if type(parts) is not list or not parts:
                return None
            for part in parts:
                if type(part) is not dict or len(part) != 1:
                    return None
                add_text(part["text"])
        else:
            return None
        previous = "system"
    # The calls of the model content before, not answered yet: (id, name, whether the id is the
    # call's own), in call order.
    waiting: list[tuple[str, str, bool]] | None = None
    ci = -1
    for content in contents:
        ci += 1
        if type(content) is not dict or len(content) != 2:
            return None
        role = content["role"]
        parts = content["parts"]
        if type(parts) is not list or not parts:
            return None
        if waiting is not None:
            # The user content of responses that must answer the model content before it.
            if role != "user" or len(parts) != len(waiting):
                return None
            for part in parts:
                if type(part) is not dict or len(part) != 1:
                    return None
                body = part.get("function_response", _ABSENT)
                if body is _ABSENT:
                    body = part["functionResponse"]
                if type(body) is not dict:
                    return None
                name = body["name"]
                add_value(body["response"])
                if type(name) is not str:
                    return None
                size = len(body)
                if size == 3:
                    # By its own id, only a call's own (a response whose id no waiting call has
                    # is paired by name with a call without one: the full path words that).
                    found = body["id"]
                    if type(found) is not str:
                        return None
                elif size == 2:
                    found = None  # as Gemini pairs one without an id: the first call of its name
                else:
                    return None
                k = 0
                for call in waiting:
                    if (call[2] and call[0] == found) if found is not None else call[1] == name:
                        break
                    k += 1
                else:
                    return None
                if call[1] != name:
                    return None
                del waiting[k]
            waiting = None
            previous = "tool"
            continue
        if role == "user":
            if previous not in AFTER["user"]:
                return None
            for part in parts:
                if type(part) is not dict or len(part) != 1:
                    return None
                if "text" in part:
                    add_text(part["text"])
                elif not image_files or not _plain_blob(part):
                    return None  # media of another kind, or a part of no known kind
            previous = "user"
            unsigned = False
            continue
        if role != "model" or previous not in AFTER["assistant"]:
            return None
        pi = -1
        said = False  # a text or a call of this content came (thoughts come before them)
        for part in parts:
            pi += 1
            if type(part) is not dict:
                return None
            size = len(part)
            if size != 1:
                if signed is None:
                    return None
                if "thought" in part:
                    # A thought, maybe signed, first in its content.
                    if part["thought"] is not True or said:
                        return None
                    thought = part["text"]
                    if type(thought) is not str or not thought:
                        return None
                    thoughts.append(thought)
                    if size == 2:
                        continue
                    size -= 1
                # A signed text, call or thought: its one other key is the signature, in either
                # spelling.
                if size != 2:
                    return None
                signature = part.get("thought_signature", _ABSENT)
                if signature is _ABSENT:
                    signature = part["thoughtSignature"]
                add_signature(signature)
                if "thought" in part:
                    continue
            said = True
            if "text" in part:
                if waiting is not None:
                    return None  # text after a call (moved before it for Anthropic)
                add_text(part["text"])
                continue
            body = part.get("function_call", _ABSENT)
            if body is _ABSENT:
                body = part["functionCall"]
            if type(body) is not dict:
                return None
            name = body["name"]
            size = len(body)
            if "args" in body:
                add_value(body["args"])
                size -= 1
            if "id" in body:
                call_id = body["id"]
                own = True
                size -= 1
            else:
                call_id = _positional_id(ci, pi)
                own = False
            if size != 1 or type(name) is not str or type(call_id) is not str:
                return None
            if waiting is None:  # the first call of the content
                waiting = []
                if len(part) == 1:
                    unsigned = True
            waiting.append((call_id, name, own))
            if ":" in call_id and not past_ids:
                return None  # Kimi's id form, which no provider takes: all renamed
            ids.append(call_id)
            names.append(name)
        if not said:
            return None  # thoughts alone
        previous = "assistant"
    if not (plain_texts(texts) and plain_inputs(values)):
        return None
    if signatures and not _plain_signatures(signatures):
        return None
    if thoughts and not plain_thoughts(thoughts):
        return None
    if signed is not None and not unsigned:
        signed.append(True)
    # Calls left unanswered are the last content's, a model content: not an end.
    return None if waiting is not None else ended(previous, texts[-1] if texts else None)


def _plain_blob(part: dict[str, Any]) -> bool:
    """Whether a user's part (of one key, not ``text``) is an ``inline_data`` blob that loads as
    a plain image given as a file (:func:`heal.rules.files.plain_image_file`): exactly a media
    type every provider takes and its data (a base64 string or bytes), in either spelling, the
    data naming no URL nor file stored at OpenAI (the loader marks a URL's, which no rule
    reads, but the walk does not read that far)."""
    blob = part.get("inline_data", _ABSENT)
    if blob is _ABSENT:
        blob = part.get("inlineData", _ABSENT)
    if type(blob) is not dict or len(blob) != 2:
        return False
    media = blob.get("mime_type", _ABSENT)
    if media is _ABSENT:
        media = blob.get("mimeType")
    data = blob.get("data")
    if type(data) is bytes:
        return media in ANTHROPIC_IMAGE_TYPES and len(data) > 0
    return (
        media in ANTHROPIC_IMAGE_TYPES
        and type(data) is str
        and data != ""
        and not data.startswith(_URL_SCHEMES)
        and not data.startswith(OPENAI_FILE_ID_PREFIX)
    )


"""The walk of :func:`_verdict`."""


def _plain_signatures(signatures: list[Any]) -> bool:
    """Whether ``google-foreign-thought-signature`` keeps every one of the signatures, as the
    reader reads them: a string it takes as Gemini's (:func:`heal.rules.google.valid_signature`:
    base64 or a documented dummy), or bytes that are not empty. The reader reads bytes as their
    standard base64, which the rule takes whenever it is not empty (padded to a multiple of four,
    of the base64 alphabet; ``tests/adapters/test_gemini_fast_path.py`` holds the two equal):
    encoding a Python SDK dump's signatures to learn that costs more than the rest of the pass.
    Anything else the reader refuses, or the rule drops."""
    for signature in signatures:
        kind = type(signature)
        if kind is bytes:
            if not signature:
                return False
        elif kind is not str or not valid_signature(signature):
            return False
    return True


def read_request(native: Any) -> RequestFacts:
    """What a Gemini request dict says about its target; a bare list of contents says nothing.

    * ``model``: a model id string (the SDK's ``generate_content(model=...)`` keyword; the REST
      body has none, its model is in the URL).
    * ``tools`` (or ``config.tools``): the names of the function declarations, from dicts in
      either spelling, ``google.genai.types.Tool`` objects, or Python functions (the SDK calls
      those itself). Tools without declarations (``google_search``, ``code_execution``) run on
      Google's side and name nothing. A tool heal cannot read (an MCP session) leaves the tools
      unknown, not short.
    * thinking, from ``thinking_config`` (either spelling) of ``generation_config`` or
      ``config``: ``thinking_budget`` 0 turns thinking off, any other budget (``-1``: dynamic)
      or a ``thinking_level`` turns it on (ai.google.dev/gemini-api/docs/thinking).

    Raises :class:`~heal.errors.InputError` for a declaration whose name is not a string.
    """
    if not isinstance(native, Mapping):
        return NO_FACTS
    model = native.get("model")
    configs = [
        c for c in (native.get(k) for k in ("generation_config", "generationConfig", "config")) if c
    ]
    tools = native.get("tools")
    for config in configs:
        if tools is None:
            tools = _field(config, "tools")
    thinking = None
    for config in configs:
        thinking_config = _field(config, "thinking_config")
        if thinking_config is not None:
            thinking = thinking_enabled(thinking_config)
            break
    return RequestFacts(
        model=model if isinstance(model, str) and model.strip() else None,
        thinking=thinking,
        tools=_tool_names(tools),
    )


def _field(obj: Any, key: str) -> Any:
    """A request field in either spelling, from a dict or an SDK object."""
    if isinstance(obj, Mapping):
        value = obj.get(key)
        return obj.get(_camel(key)) if value is None else value
    return getattr(obj, key, None)


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word.title() for word in rest)


def thinking_enabled(config: Any) -> bool | None:
    """Whether a Gemini ``thinking_config`` (a dict in either spelling, or the SDK's
    ``ThinkingConfig``) turns thinking on: see :func:`read_request`. None when it sets neither a
    budget nor a level."""
    budget = _field(config, "thinking_budget")
    if isinstance(budget, int) and not isinstance(budget, bool):
        return budget != 0
    level = _field(config, "thinking_level")
    level = getattr(level, "value", level)  # the SDK's ThinkingLevel enum
    if isinstance(level, str) and level.upper() != "THINKING_LEVEL_UNSPECIFIED":
        return True
    return None


def _tool_names(tools: Any) -> tuple[str, ...] | None:
    if not isinstance(tools, (list, tuple)):
        return None
    definitions: list[Any] = []
    for tool in tools:
        if isinstance(tool, BaseModel):
            definitions.append(tool.model_dump(exclude_none=True))
        elif isinstance(tool, Mapping):
            definitions.append(tool)
        elif callable(tool) and isinstance(getattr(tool, "__name__", None), str):
            definitions.append(tool.__name__)
        else:
            return None
    try:
        return tuple(tool_names(definitions))
    except ConfigError as exc:
        raise InputError(str(exc), path="tools") from None


# --- shapes ----------------------------------------------------------------------------------


def _split(native: Any) -> tuple[list[Any], Any, str]:
    """(contents, system instruction or _ABSENT, the key it was under)."""
    if isinstance(native, BaseModel):  # iterable as (field, value) pairs: not a history
        raise InputError(
            f"expected a list of contents, got a single {type(native).__name__}", path="contents"
        )
    if isinstance(native, Mapping):
        if "contents" not in native:
            raise InputError(
                "expected a list of contents or a dict with 'contents'", path="contents"
            )
        contents = native["contents"]
        system_key = "system_instruction"
        system = _ABSENT
        for key in ("system_instruction", _CAMEL["system_instruction"]):
            if native.get(key) is not None:
                if system is not _ABSENT:
                    raise InputError(
                        "both system_instruction and systemInstruction are given",
                        path="system_instruction",
                    )
                system, system_key = native[key], key
    else:
        contents, system, system_key = native, _ABSENT, "system_instruction"
    if isinstance(contents, (str, bytes, bytearray, Mapping)) or not isinstance(contents, Iterable):
        raise InputError(f"expected a list of contents, got {kind_of(contents)}", path="contents")
    return list(contents), system, system_key


def _wrap(contents: list[Any], system: Any, system_key: str) -> list[Any] | dict[str, Any]:
    if system is None:
        return contents
    return {"contents": contents, system_key: system}


def _to_sdk(content: Content) -> types.Content:
    from google.genai import types

    try:
        return types.Content.model_validate(content)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        raise InputError(
            f"not a valid google.genai Content: {first['msg']}", path="contents"
        ) from None


def _system_to_sdk(system: Any) -> Any:
    return _to_sdk(system) if isinstance(system, dict) else system


def _plain(value: Any) -> Any:
    """An SDK object's python dump as JSON: enums as their values, bytes as standard base64."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, Enum):
        return value.value
    return value


def _as_dict(raw: Any, path: str, what: str) -> dict[str, Any]:
    if isinstance(raw, BaseModel):
        return dict(_plain(raw.model_dump(exclude_none=True)))
    if not isinstance(raw, Mapping):
        raise InputError(f"expected {what} object, got {kind_of(raw)}", path=path)
    return dict(raw)


# --- reading ---------------------------------------------------------------------------------


class _Spelling:
    """Which spelling (snake_case or camelCase) each multi-word key of one part used."""

    def __init__(self) -> None:
        self.camel: list[str] = []
        self.snake: list[str] = []

    def pick(self, obj: Mapping[str, Any], snake: str, path: str) -> tuple[str | None, Any]:
        camel = _CAMEL.get(snake, snake)
        has_snake, has_camel = snake in obj, camel != snake and camel in obj
        if has_snake and has_camel:
            raise InputError(f"both {snake} and {camel} are given", path=path)
        if has_camel:
            self.camel.append(snake)
            return camel, obj[camel]
        if has_snake:
            if camel != snake:
                self.snake.append(snake)
            return snake, obj[snake]
        return None, _ABSENT

    def marker(self) -> dict[str, Any]:
        if not self.camel:
            return {}
        if not self.snake:
            return {"camel": True}
        return {"camelKeys": sorted(set(self.camel))}


class _Reader:
    """One pass over the contents, pairing function responses with the calls before them.

    With :data:`_PARTIAL`, the contents of the common shapes (:meth:`_fast`) are built as
    canonical models directly, the rest through validation; either way the models are the same
    (``tests/adapters/test_gemini_partial.py`` holds them equal, fields set and order included).
    """

    def __init__(self) -> None:
        self.fast = _PARTIAL
        self.messages: list[ModelMessage] = []
        self.origins: list[int] = []
        self.part_origins: list[tuple[int | None, ...] | None] = []
        # Unanswered function calls: (content index, name, canonical id, has a native id).
        self.pending: list[tuple[int, str, str, bool]] = []
        self.native_ids: dict[str, str] = {}

    def read(self, contents: list[Any], system: Any, system_key: str) -> Loaded:
        if system is not _ABSENT:
            for message in _read_system(system, system_key):
                self.messages.append(message)
                self.origins.append(SYSTEM_INDEX)
                self.part_origins.append(None)
        fast = self.fast
        for ci, raw in enumerate(contents):
            # The caller's own dicts are only read by the fast path, never changed: no copy.
            if fast and type(raw) is dict and self._fast(ci, raw):
                continue
            self._content(ci, _as_dict(raw, f"contents[{ci}]", "a content"))
        return Loaded(self.messages, self.origins, self.part_origins)

    def _fast(self, ci: int, content: Content) -> bool:
        """Build the canonical messages of a content of a common shape directly, as reading it
        through validation would (the same models, fields set, marks and pairing); False,
        having built and paired nothing, for any other content, which :meth:`_content` reads.

        The shape: exactly ``role`` (``user`` or ``model``) and a non-empty list of ``parts``,
        each a dict of exactly one of

        * ``text`` (a string), in a model content maybe with ``thought: true`` (reasoning);
        * ``function_call`` or ``functionCall`` in a model content: a string ``name``, maybe
          ``args`` (a JSON object of plain values, see :func:`heal._verdict.plain_input`) and a
          string ``id``;
        * ``function_response`` or ``functionResponse`` in a user content: a string ``name``,
          maybe ``response`` (a JSON object of plain values) and a string ``id``;

        and maybe a ``thought_signature`` or ``thoughtSignature`` (a string, or bytes). No
        media, code execution, server tool, unknown key or value validation would copy or
        refuse: those carry marks the general path words.
        """
        if len(content) != 2:
            return False
        role = content.get("role")
        parts = content.get("parts")
        if type(parts) is not list or not parts:
            return False
        model = role == "model"
        if not model and role != "user":
            return False
        # Read every part first: nothing is paired until the whole content is known plain.
        read: list[tuple[int, Any, dict[str, Any] | None, dict[str, Any]]] = []
        responses = 0
        for part in parts:
            if type(part) is dict and len(part) == 1 and type(part.get("text")) is str:
                read.append((_TEXT, part["text"], None, _NO_MARKS))  # the commonest part
                continue
            found = _fast_part(part, model)
            if found is None:
                return False
            if found[0] == _RESPONSE:
                responses += 1
            read.append(found)
        built_parts: list[Any] = []
        pi = -1
        for kind, body, google, mine in read:
            pi += 1
            if kind == _TEXT:
                options = _fast_options(google, mine) if google or mine else None
                built_parts.append(built_text(body, options))
            elif kind == _THOUGHT:
                built_parts.append(built_reasoning(body, _fast_options(google, mine)))
            elif kind == _CALL:
                built_parts.append(self._fast_call(body, ci, pi, google, mine))
            else:
                built_parts.append(self._fast_response(body, ci, pi, google, mine))
        if not responses or responses == len(read):  # one message, of every part
            cls: type[ModelMessage] = (
                AssistantMessage if model else ToolMessage if responses else UserMessage
            )
            self.messages.append(built_message(cls, tuple(built_parts)))
            self.origins.append(ci)
            self.part_origins.append(tuple(range(len(built_parts))))
            return True
        # A user content of texts and responses: a message per run of either.
        runs: list[tuple[int, list[Any], list[int]]] = []  # (kind, parts, part indices)
        for pi, (kind, *_) in enumerate(read):
            group = _TOOL if kind == _RESPONSE else _TEXT
            if runs and runs[-1][0] == group:
                runs[-1][1].append(built_parts[pi])
                runs[-1][2].append(pi)
            else:
                runs.append((group, [built_parts[pi]], [pi]))
        first = True
        for group, run_parts, indices in runs:
            options = None if first else {"heal": {NAMESPACE: {"sameContent": True}}}
            first = False
            cls = ToolMessage if group == _TOOL else UserMessage
            self.messages.append(built_message(cls, tuple(run_parts), options))
            self.origins.append(ci)
            self.part_origins.append(tuple(indices))
        return True

    def _fast_call(
        self,
        call: dict[str, Any],
        ci: int,
        pi: int,
        google: dict[str, Any] | None,
        mine: dict[str, Any],
    ) -> ToolCallPart:
        """:meth:`_function_call` of a call :func:`_fast_part` took."""
        name = call["name"]
        native_id = call.get("id")
        marks: dict[str, Any] = {}
        if native_id is not None:
            call_id = native_id
            self.native_ids.setdefault(native_id, call_id)
        else:
            call_id = _positional_id(ci, pi)
            marks["noId"] = True
        args = call.get("args", _ABSENT)
        if args is _ABSENT:
            args = {}
            marks["noArgs"] = True
        self.pending.append((ci, name, call_id, native_id is not None))
        return built_call(call_id, name, args, _fast_options(google, mine, marks))

    def _fast_response(
        self,
        response: dict[str, Any],
        ci: int,
        pi: int,
        google: dict[str, Any] | None,
        mine: dict[str, Any],
    ) -> ToolResultPart:
        """:meth:`_function_response` of a response :func:`_fast_part` took."""
        name = response["name"]
        native_id = response.get("id")
        marks: dict[str, Any] = {}
        target = self._answer(native_id, name)
        if native_id is not None:
            call_id = target[1] if target is not None else native_id
            if call_id != native_id:
                marks["id"] = native_id
        else:
            call_id = target[1] if target is not None else _positional_id(ci, pi)
            marks["noId"] = True
        body = response.get("response", _ABSENT)
        if body is _ABSENT:
            body = {}
            marks["noResponse"] = True
        output = built_json_output(body)
        return built_result(call_id, name, output, _fast_options(google, mine, marks))

    def _content(self, ci: int, content: Content) -> None:
        path = f"contents[{ci}]"
        mine: dict[str, Any] = {}
        role = content.get("role", _ABSENT)
        if role is _ABSENT:
            mine["noRole"] = True
            role = "user"
        elif role not in ("user", "model"):
            raise InputError(
                f"unknown role {shown(role)} (expected user or model)", path=f"{path}.role"
            )
        parts = content.get("parts", _ABSENT)
        if parts is _ABSENT:
            mine["noParts"] = True
            parts = []
        elif not isinstance(parts, list):
            raise InputError(f"parts must be a list, got {kind_of(parts)}", path=f"{path}.parts")
        fields = {k: v for k, v in content.items() if k not in ("role", "parts")}
        if fields:
            mine["fields"] = fields
        # Runs of (group, [(part, part index)]): model contents are one assistant message; user
        # contents split into user and tool messages at each change between them.
        runs: list[tuple[str, list[tuple[Any, int]]]] = []
        state = _ContentState()
        for pi, raw in enumerate(parts):
            ppath = f"{path}.parts[{pi}]"
            part_dict = _as_dict(raw, ppath, "a part")
            group, part = self._part(part_dict, role, ci=ci, pi=pi, path=ppath, state=state)
            if runs and runs[-1][0] == group:
                runs[-1][1].append((part, pi))
            else:
                runs.append((group, [(part, pi)]))
        if not runs:
            runs.append(("assistant" if role == "model" else "user", []))
        for k, (group, items) in enumerate(runs):
            message_mine = mine if k == 0 else {"sameContent": True}
            options = _options({}, message_mine)
            content_parts = tuple(part for part, _ in items)
            message: ModelMessage
            if group == "assistant":
                message = _make(
                    AssistantMessage, path, content=content_parts, provider_options=options
                )
            elif group == "tool":
                message = _make(ToolMessage, path, content=content_parts, provider_options=options)
            else:
                message = _make(UserMessage, path, content=content_parts, provider_options=options)
            self.messages.append(message)
            self.origins.append(ci)
            self.part_origins.append(tuple(pi for _, pi in items))

    def _part(
        self, part: Part, role: str, *, ci: int, pi: int, path: str, state: _ContentState
    ) -> tuple[str, Any]:
        spelling = _Spelling()
        found: list[tuple[str, str, Any]] = []
        for snake in _DATA_KEYS:
            key, value = spelling.pick(part, snake, path)
            if key is not None:
                found.append((snake, key, value))
        if len(found) != 1:
            names = ", ".join(key for _, key, _ in found) or "none"
            raise InputError(
                f"a part needs exactly one of text, inline_data, file_data, function_call, "
                f"function_response, executable_code, code_execution_result, tool_call or "
                f"tool_response (found: {names})",
                path=path,
            )
        snake, key, value = found[0]
        consumed = {key}
        mine: dict[str, Any] = {}
        google: dict[str, Any] = {}
        sig_key, sig = spelling.pick(part, "thought_signature", path)
        if sig_key is not None:
            consumed.add(sig_key)
            if isinstance(sig, bytes):
                google["thoughtSignature"] = base64.b64encode(sig).decode("ascii")
                mine["signatureBytes"] = True
            elif isinstance(sig, str):
                google["thoughtSignature"] = sig
            else:
                raise InputError(
                    f"thought_signature must be bytes or a base64 string, got {kind_of(sig)}",
                    path=f"{path}.{sig_key}",
                )
        thought = part.get("thought", _ABSENT)
        group = "assistant" if role == "model" else "user"
        result: Any
        if snake == "text":
            text = _str(value, f"{path}.text")
            if role == "model" and thought is True:
                consumed.add("thought")
                result = (ReasoningPart, {"text": text})
            else:
                result = (TextPart, {"text": text})
        elif snake in ("inline_data", "file_data"):
            if isinstance(thought, bool):
                google["thought"] = thought
                consumed.add("thought")
            result = (FilePart, _read_blob(snake, value, f"{path}.{key}", spelling, mine))
        elif snake == "function_call":
            if role != "model":
                raise InputError("a function_call part in a user content", path=f"{path}.{key}")
            result = (ToolCallPart, self._function_call(value, ci, pi, f"{path}.{key}", mine))
        elif snake == "function_response":
            if role != "user":
                raise InputError(
                    "a function_response part in a model content", path=f"{path}.{key}"
                )
            group = "tool"
            result = (ToolResultPart, self._function_response(value, ci, pi, f"{path}.{key}", mine))
        else:
            if role != "model":
                raise InputError(f"a {snake} part in a user content", path=f"{path}.{key}")
            result = _read_provider_side(
                snake,
                key,
                value,
                ci=ci,
                pi=pi,
                path=f"{path}.{key}",
                state=state,
                mine=mine,
                google=google,
            )
        mine.update(spelling.marker())
        rest = {k: v for k, v in part.items() if k not in consumed}
        if rest:
            mine["fields"] = rest
        cls, fields = result
        return group, _make(cls, path, **fields, provider_options=_options(google, mine))

    def _function_call(
        self, value: Any, ci: int, pi: int, path: str, mine: dict[str, Any]
    ) -> dict[str, Any]:
        call = _mapping(value, path, "function_call")
        name = call.get("name")
        if not isinstance(name, str):
            raise InputError("function_call has no name", path=path)
        consumed = {"name", "args"}
        native_id = call.get("id")
        if isinstance(native_id, str):
            consumed.add("id")
            call_id = native_id
            self.native_ids.setdefault(native_id, call_id)
        else:
            call_id = _positional_id(ci, pi)
            mine["noId"] = True
        args = call.get("args", _ABSENT)
        if args is _ABSENT:
            args = {}
            mine["noArgs"] = True
        _keep(mine, "callFields", call, consumed)
        self.pending.append((ci, name, call_id, isinstance(native_id, str)))
        return {"tool_call_id": call_id, "tool_name": name, "input": args}

    def _function_response(
        self, value: Any, ci: int, pi: int, path: str, mine: dict[str, Any]
    ) -> dict[str, Any]:
        response = _mapping(value, path, "function_response")
        name = response.get("name")
        native_id = response.get("id")
        consumed = {"response"}
        target = self._answer(native_id if isinstance(native_id, str) else None, name)
        if isinstance(native_id, str):
            consumed.add("id")
            call_id = target[1] if target is not None else native_id
            if call_id != native_id:
                mine["id"] = native_id
        else:
            call_id = target[1] if target is not None else _positional_id(ci, pi)
            mine["noId"] = True
        if isinstance(name, str):
            consumed.add("name")
        elif target is not None:
            name = target[0]
            mine["noName"] = True
        else:
            raise InputError("function_response has no name and answers no call", path=path)
        body = response.get("response", _ABSENT)
        if body is _ABSENT:
            body = {}
            mine["noResponse"] = True
        elif not isinstance(body, dict):
            mine["rawResponse"] = True
        _keep(mine, "responseFields", response, consumed)
        return {
            "tool_call_id": call_id,
            "tool_name": name,
            "output": _make(JsonOutput, path, value=body),
        }

    def _answer(self, native_id: str | None, name: Any) -> tuple[str, str] | None:
        """The (name, canonical id) of the call a response answers, taking it off the list.

        By id when both have one; otherwise as Gemini pairs calls without ids: by name, the
        nearest call turn first, in call order (a response with an id only answers a call
        without one that way).
        """
        if native_id is not None and native_id in self.native_ids:
            call_id = self.native_ids[native_id]
            for k, entry in enumerate(self.pending):
                if entry[2] == call_id:
                    del self.pending[k]
                    return entry[1], call_id
        if not isinstance(name, str):
            return None
        pending = self.pending
        candidates: Iterable[int]
        if pending and pending[0][0] == pending[-1][0]:
            # The calls are pending in history order: all of one content, they are in call
            # order already (the common case: the model content right before).
            candidates = range(len(pending))
        else:
            candidates = sorted(range(len(pending)), key=lambda k: (-pending[k][0], k))
        for k in candidates:
            _, call_name, call_id, has_id = self.pending[k]
            if call_name == name and not (has_id and native_id is not None):
                del self.pending[k]
                return call_name, call_id
        return None


# --- the fast path: common contents built directly (see _Reader._fast) -------------------------

_TEXT, _THOUGHT, _CALL, _RESPONSE = 0, 1, 2, 3
_TOOL = 4
"""The kinds of part :func:`_fast_part` reads, and the group of a run of responses."""

_NO_MARKS: dict[str, Any] = {}
"""Heal's marks of a part that has none (never changed: each part with marks gets its own)."""
_CALL_KEYS = frozenset({"name", "args", "id"})
_RESPONSE_KEYS = frozenset({"name", "response", "id"})


def _fast_part(
    part: Any, model: bool
) -> tuple[int, Any, dict[str, Any] | None, dict[str, Any]] | None:
    """A part of :meth:`_Reader._fast`'s shapes, read as :meth:`_Reader._part` reads it: its
    kind, its text or body, its ``google`` options (the signature) and heal's marks so far (a
    signature's bytes, the spelling: the marks a call or response adds come after these); None
    for any other part."""
    if type(part) is not dict:
        return None
    size = len(part)
    google: dict[str, Any] | None = None
    mine: dict[str, Any] = {}
    camel: list[str] = []  # the multi-word keys spelled in camelCase, snake_case
    snake: list[str] = []
    signature = part.get("thought_signature", _ABSENT)
    if signature is _ABSENT:
        signature = part.get("thoughtSignature", _ABSENT)
        signature_camel = True
    elif "thoughtSignature" in part:
        return None  # both spellings: the general path raises
    else:
        signature_camel = False
    if signature is not _ABSENT:
        size -= 1
        kind = type(signature)
        if kind is str:
            google = {"thoughtSignature": signature}
        elif kind is bytes:
            google = {"thoughtSignature": base64.b64encode(signature).decode("ascii")}
            mine["signatureBytes"] = True
        else:
            return None
    text = part.get("text", _ABSENT)
    if text is not _ABSENT:
        if type(text) is not str:
            return None
        found = _TEXT
        if size == 2:
            if not model or part.get("thought") is not True:
                return None
            found = _THOUGHT
        elif size != 1:
            return None
        if signature is not _ABSENT:
            (camel if signature_camel else snake).append("thought_signature")
        mine.update(_marker(camel, snake))
        return found, text, google, mine
    if size != 1:
        return None
    if model:
        found, keys, snake_key = _CALL, _CALL_KEYS, "function_call"
    else:
        found, keys, snake_key = _RESPONSE, _RESPONSE_KEYS, "function_response"
    body = part.get(snake_key, _ABSENT)
    if body is _ABSENT:
        body = part.get(_CAMEL[snake_key], _ABSENT)
        if body is _ABSENT:
            return None
        camel.append(snake_key)
    else:
        snake.append(snake_key)
    if type(body) is not dict or type(body.get("name")) is not str or not keys.issuperset(body):
        return None
    if "id" in body and type(body["id"]) is not str:
        return None
    value = body.get("args" if model else "response", _ABSENT)
    if value is not _ABSENT and not plain_input(value):
        return None
    if signature is not _ABSENT:
        (camel if signature_camel else snake).append("thought_signature")
    mine.update(_marker(camel, snake))
    return found, body, google, mine


def _marker(camel: list[str], snake: list[str]) -> dict[str, Any]:
    """:meth:`_Spelling.marker` of a part whose multi-word keys were spelled so."""
    if not camel:
        return {}
    if not snake:
        return {"camel": True}
    return {"camelKeys": sorted(set(camel))}


def _fast_options(
    google: dict[str, Any] | None, mine: dict[str, Any], marks: dict[str, Any] | None = None
) -> dict[str, Any] | None:
    """:func:`_options` of a part read by the fast path: ``marks`` (a call's or response's) go
    after a signature's and before the spelling's, as :meth:`_Reader._part` adds them."""
    if marks:
        heal = {"signatureBytes": True} if "signatureBytes" in mine else {}
        heal.update(marks)
        heal.update((key, value) for key, value in mine.items() if key != "signatureBytes")
    else:
        heal = mine
    out: dict[str, Any] = {}
    if google:
        out["google"] = google
    if heal:
        out["heal"] = {NAMESPACE: heal}
    return out or None


class _ContentState:
    """Within one content: the latest provider-side call, which a result without an id answers."""

    def __init__(self) -> None:
        self.last_code: str | None = None
        self.last_server: str | None = None


def _read_provider_side(
    snake: str,
    key: str,
    value: Any,
    *,
    ci: int,
    pi: int,
    path: str,
    state: _ContentState,
    mine: dict[str, Any],
    google: dict[str, Any],
) -> tuple[type[BaseModel], dict[str, Any]]:
    body = _mapping(value, path, snake)
    mine["raw"] = {key: body}
    native_id = body.get("id") if isinstance(body.get("id"), str) else None
    if snake == "executable_code":
        call_id = native_id or f"code_execution_{ci}_{pi}"
        state.last_code = call_id
        return ToolCallPart, {
            "tool_call_id": call_id,
            "tool_name": "code_execution",
            "input": body,
            "provider_executed": True,
        }
    if snake == "code_execution_result":
        call_id = native_id or state.last_code or f"code_execution_{ci}_{pi}"
        return ToolResultPart, {
            "tool_call_id": call_id,
            "tool_name": "code_execution",
            "output": _make(JsonOutput, path, value=body),
        }
    tool_type = body.get("tool_type", body.get("toolType"))
    name = "server_" + _UNSAFE_ID.sub("_", str(tool_type or "tool"))
    if snake == "tool_call":
        call_id = native_id or f"tool_call_{ci}_{pi}"
        state.last_server = call_id
        args = body.get("args")
        google.update({"serverToolCallId": call_id, "serverToolType": tool_type})
        return ToolCallPart, {
            "tool_call_id": call_id,
            "tool_name": name,
            "input": args if isinstance(args, dict) else {},
            "provider_executed": True,
        }
    call_id = native_id or state.last_server or f"tool_call_{ci}_{pi}"
    state.last_server = None
    google.update({"serverToolCallId": call_id, "serverToolType": tool_type})
    response = body.get("response")
    return ToolResultPart, {
        "tool_call_id": call_id,
        "tool_name": name,
        "output": _make(JsonOutput, path, value=response if isinstance(response, dict) else {}),
    }


def _read_blob(
    snake: str, value: Any, path: str, spelling: _Spelling, mine: dict[str, Any]
) -> dict[str, Any]:
    blob = _mapping(value, path, snake)
    consumed: set[str] = set()
    out: dict[str, Any] = {}
    if snake == "file_data":
        mine["fileData"] = True
        key, data = spelling.pick(blob, "file_uri", path)
        if key is None or not isinstance(data, str):
            raise InputError("file_data has no file_uri", path=path)
    else:
        key, data = ("data", blob["data"]) if "data" in blob else (None, _ABSENT)
        if key is None or not isinstance(data, (str, bytes)):
            raise InputError("inline_data has no data", path=path)
        if isinstance(data, str) and data.startswith(_URL_SCHEMES):
            mine["inlineData"] = True  # would otherwise be written back as file_data
    consumed.add(key)
    out["data"] = data
    key, mime = spelling.pick(blob, "mime_type", path)
    if isinstance(mime, str) and key is not None:
        consumed.add(key)
        out["media_type"] = mime
    else:
        out["media_type"] = "application/octet-stream"
        mine["noMimeType"] = True
    key, name = spelling.pick(blob, "display_name", path)
    if isinstance(name, str) and key is not None:
        consumed.add(key)
        out["filename"] = name
    _keep(mine, "blobFields", blob, consumed)
    return out


def _read_system(system: Any, key: str) -> list[SystemMessage]:
    path = key
    top: dict[str, Any] = {"camel": True} if key != "system_instruction" else {}
    if isinstance(system, str):
        return [
            _make(
                SystemMessage,
                path,
                content=system,
                provider_options=_options({}, {**top, "string": True}),
            )
        ]
    content = _as_dict(system, path, "a system instruction")
    parts = content.get("parts", _ABSENT)
    if not isinstance(parts, list):
        raise InputError(
            "a system instruction must be a string or a content with a list of parts",
            path=f"{path}.parts",
        )
    fields = {k: v for k, v in content.items() if k != "parts"}
    if fields:
        top["fields"] = fields
    if not parts:
        return [
            _make(
                SystemMessage,
                path,
                content="",
                provider_options=_options({}, {**top, "noParts": True}),
            )
        ]
    messages = []
    for j, raw in enumerate(parts):
        ppath = f"{path}.parts[{j}]"
        part = _as_dict(raw, ppath, "a part")
        if not isinstance(part.get("text"), str):
            raise InputError(
                "only text parts can be represented in a system instruction", path=ppath
            )
        mine: dict[str, Any] = dict(top) if j == 0 else {}
        rest = {k: v for k, v in part.items() if k != "text"}
        if rest:
            mine["partFields"] = rest
        messages.append(
            _make(SystemMessage, ppath, content=part["text"], provider_options=_options({}, mine))
        )
    return messages


def _positional_id(ci: int, pi: int) -> str:
    """The id of an id-less function call or response at ``contents[ci].parts[pi]``.

    Nine letters and digits up to content 9999 and part 999, which Mistral requires (``Tool
    call id was ... but must be a-z, A-Z, 0-9, with a length of 9.``) and every other provider
    accepts, so no rule renames it (the rename could not be written: the native part has no
    id). Past that it grows, unique still: ``p`` separates the two numbers.
    """
    return f"c{ci:04d}p{pi:03d}"


# --- writing ---------------------------------------------------------------------------------


class _Rewriter:
    """Writes a healed history back for :func:`heal_gemini`: ``(contents, system, key)``.

    Each content whose canonical messages came through the heal untouched
    (:class:`~heal.adapters._common.Sources`) is the caller's own object; one whose function
    calls or responses changed only their ids or names is a copy of the caller's with those
    fields replaced (:meth:`_renamed`); the others are written from their canonical messages,
    in the runs :class:`_Writer` would write as one content (:func:`_spans`). So is the system
    instruction: the caller's own value while its messages are untouched. The result equals the
    whole history written out:

    * a content's writing depends on nothing around it but whether the call each function
      response answers wrote an id (:attr:`_Writer.call_has_id`, over the whole history): a
      response that came with the id of a call that had none (one the reader made up) is
      written without it, so a history holding one is written whole (:meth:`_context_free`);
    * SDK objects and mappings other than dicts are written whole (the full conversion gives
      new SDK objects, and dicts), and so is a system message after the first content (the
      writer's error).
    """

    def __init__(
        self, contents: list[Any], system: Any, key: str, loaded: Loaded, *, whole: bool
    ) -> None:
        self.contents = contents
        self.system = system
        self.key = key
        self.loaded = loaded
        self.whole = whole or not _PARTIAL or not all(type(c) is dict for c in contents)
        self.sources = Sources.of(loaded)
        self.system_size = sum(1 for origin in loaded.origins if origin == SYSTEM_INDEX)

    def __call__(self, healed: list[ModelMessage]) -> tuple[list[Any], Any, str]:
        writer = _Writer()
        if self.whole:
            return writer.write(healed)
        writer.note_calls(healed)
        lead = 0
        while lead < len(healed) and isinstance(healed[lead], SystemMessage):
            lead += 1
        if not self._context_free(healed, lead, writer.call_has_id):
            return writer.write(healed)
        system: Any = None
        key = "system_instruction"
        loaded = self.loaded.messages
        if (
            lead
            and lead == self.system_size
            and type(self.system) in (str, dict)
            and all(healed[k] is loaded[k] for k in range(lead))
        ):
            system, key = self.system, self.key
        else:
            for k in range(lead):
                system, key = _write_system(cast(SystemMessage, healed[k]), system, key)
        contents = written_back(
            healed,
            _spans(healed, lead),
            self.sources,
            self.contents,
            renamed=partial(self._renamed, writer.call_has_id),
            dump=partial(writer.span, healed),
        )
        return contents, system, key

    def _context_free(
        self, healed: list[ModelMessage], lead: int, call_has_id: dict[str, bool]
    ) -> bool:
        """Whether every content after the ``lead`` system messages is written as its messages
        alone say: no system message among them, and every function response read with its
        call's id (the reader's marks say neither ``noId`` nor another ``id``) answers a call
        that writes one, as the caller's content has it."""
        for k in range(lead, len(healed)):
            if isinstance(healed[k], SystemMessage):
                return False
        for message in self.loaded.messages:
            if type(message) is ToolMessage:
                for part in message.content:
                    if type(part) is ToolResultPart and not call_has_id.get(
                        part.tool_call_id, True
                    ):
                        mine = _mine(part.provider_options)
                        if "id" not in mine and not mine.get("noId"):
                            return False
        return True

    def _renamed(
        self,
        call_has_id: dict[str, bool],
        healed: list[ModelMessage],
        start: int,
        end: int,
        origin: int,
    ) -> Content | None:
        """A copy of content ``origin`` with the new ids and names of its function calls and
        responses, when the run is its canonical messages with no other change
        (:meth:`~heal.adapters._common.Sources.renamed`); else None. The writer writes a call's
        ``name`` and its ``id`` (where the call had one), a response's ``name`` (where it had
        one) and its ``id`` (where it had its call's, and the call it now answers writes one),
        so the copy is what writing the run gives (the caller's own content when none of those
        fields is written)."""
        if not 0 <= origin < len(self.contents):
            return None
        changes = self.sources.renamed(healed, start, end, origin)
        native = self.contents[origin]
        if changes is None or type(native) is not dict or type(native.get("parts")) is not list:
            return None
        at = self.sources.loaded_from(origin)
        origins = self.loaded.part_origins
        parts = list(native["parts"])
        patched = False
        for t, p, update in changes:
            old = self.loaded.messages[at[t]]
            indices = origins[at[t]] if origins is not None else None
            pi = indices[p] if indices is not None else None
            if pi is None or pi >= len(parts) or type(parts[pi]) is not dict:
                return None
            part = cast(tuple[Any, ...], old.content)[p]
            mine = _mine(part.provider_options)
            if "raw" in mine:
                return None  # a provider-side part
            if type(part) is ToolCallPart:
                snake = "function_call"
            elif type(part) is ToolResultPart and type(old) is ToolMessage:
                snake = "function_response"
            else:
                return None
            native_part = parts[pi]
            key = snake if snake in native_part else _CAMEL[snake]
            body = native_part.get(key)
            if type(body) is not dict:
                return None
            fields: dict[str, str] = {}
            if "tool_name" in update and not mine.get("noName"):
                fields["name"] = update["tool_name"]
            if "tool_call_id" in update and not mine.get("noId") and "id" not in mine:
                if snake == "function_response" and not call_has_id.get(
                    update["tool_call_id"], True
                ):
                    return None  # written without an id: the call it now answers wrote none
                fields["id"] = update["tool_call_id"]
            if fields:  # else the field is not written (a call's made-up id): nothing to patch
                parts[pi] = {**native_part, key: {**body, **fields}}
                patched = True
        return {**native, "parts": parts} if patched else native


def _spans(healed: list[ModelMessage], lead: int) -> list[tuple[int, int]]:
    """The runs of canonical messages after the ``lead`` system messages that :class:`_Writer`
    writes as one content each: a user or tool message marked as from the same content joins
    the user-side message before it."""
    spans: list[tuple[int, int]] = []
    start = lead
    user_side = False
    for k in range(lead, len(healed)):
        message = healed[k]
        if isinstance(message, AssistantMessage):
            joins = False
            user_side_now = False
        else:
            joins = user_side and bool(_mine(message.provider_options).get("sameContent"))
            user_side_now = True
        if k > lead and not joins:
            spans.append((start, k))
            start = k
        user_side = user_side_now
    if len(healed) > lead:
        spans.append((start, len(healed)))
    return spans


class _Writer:
    def __init__(self) -> None:
        self.contents: list[Content] = []
        self.last_user_side = False
        # Whether each call writes an id, so that results heal synthesized for id-less calls
        # write none either.
        self.call_has_id: dict[str, bool] = {}

    def note_calls(self, messages: list[ModelMessage]) -> None:
        """Note whether each call of the history writes an id (the first call of an id says)."""
        for message in messages:
            if isinstance(message, AssistantMessage) and not isinstance(message.content, str):
                for part in message.content:
                    if isinstance(part, ToolCallPart) and not part.provider_executed:
                        has_id = not _mine(part.provider_options).get("noId")
                        self.call_has_id.setdefault(part.tool_call_id, has_id)

    def span(self, messages: list[ModelMessage], start: int, end: int) -> list[Content]:
        """The content of ``messages[start:end]``, one of :func:`_spans` (the calls noted)."""
        self.contents = []
        self.last_user_side = False
        for i in range(start, end):
            message = messages[i]
            if isinstance(message, AssistantMessage):
                self._assistant(message, f"messages[{i}]")
            else:
                self._user_side(cast(UserMessage | ToolMessage, message), f"messages[{i}]")
        return self.contents

    def write(self, messages: list[ModelMessage]) -> tuple[list[Content], Any, str]:
        self.note_calls(messages)
        system: Any = None
        system_key = "system_instruction"
        for i, message in enumerate(messages):
            path = f"messages[{i}]"
            if isinstance(message, SystemMessage):
                if self.contents:
                    raise InputError(
                        "a system message after the first content cannot be represented "
                        "(Gemini has one system instruction, before all contents)",
                        path=path,
                    )
                system, system_key = _write_system(message, system, system_key)
            elif isinstance(message, AssistantMessage):
                self._assistant(message, path)
            else:
                self._user_side(message, path)
        return self.contents, system, system_key

    def _open(self, message: ModelMessage, role: str) -> Content:
        mine = _mine(message.provider_options)
        content: Content = {} if mine.get("noRole") else {"role": role}
        content["parts"] = []
        content.update(mine.get("fields", {}))
        self.contents.append(content)
        return content

    def _assistant(self, message: AssistantMessage, path: str) -> None:
        self.last_user_side = False
        content = self._open(message, "model")
        if isinstance(message.content, str):
            content["parts"].append({"text": message.content})
        else:
            for j, part in enumerate(message.content):
                content["parts"].append(self._part(part, "model", f"{path}.content[{j}]"))
        self._close(message, content)

    def _user_side(self, message: UserMessage | ToolMessage, path: str) -> None:
        mine = _mine(message.provider_options)
        if mine.get("sameContent") and self.last_user_side and self.contents:
            content = self.contents[-1]
            content.setdefault("parts", [])
        else:
            content = self._open(message, "user")
        self.last_user_side = True
        if isinstance(message.content, str):
            content["parts"].append({"text": message.content})
        else:
            for j, part in enumerate(message.content):
                content["parts"].append(self._part(part, "user", f"{path}.content[{j}]"))
        self._close(message, content)

    def _close(self, message: ModelMessage, content: Content) -> None:
        if _mine(message.provider_options).get("noParts") and not content["parts"]:
            del content["parts"]

    def _part(self, part: Any, role: str, path: str) -> Part:
        mine = _mine(part.provider_options)
        google = _google(part.provider_options, loaded=bool(mine))
        out: Part = {}
        reasoning = False
        if isinstance(mine.get("raw"), dict):
            out.update(_raw_with_id(mine["raw"], part))
        elif isinstance(part, TextPart):
            out["text"] = part.text
        elif isinstance(part, ReasoningPart):
            out["text"] = part.text
            out["thought"] = True
            reasoning = True
        elif isinstance(part, (FilePart, ImagePart)):
            _write_file(part, mine, out)
        elif isinstance(part, ToolCallPart):
            if part.provider_executed:
                out.update(_write_server(part, google, "tool_call", path))
            else:
                out[_spell("function_call", mine)] = self._function_call(part, mine)
        elif isinstance(part, ToolResultPart):
            if role == "model":
                out.update(_write_server(part, google, "tool_response", path))
            else:
                out[_spell("function_response", mine)] = self._function_response(part, mine)
        elif isinstance(part, ToolApprovalResponse):
            raise InputError("a tool approval response has no Gemini form", path=path)
        else:
            raise InputError(f"a {part.type} part has no Gemini form", path=path)
        if not reasoning and isinstance(google.get("thought"), bool):
            out["thought"] = google["thought"]
        signature = google.get("thoughtSignature")
        if isinstance(signature, str):
            out[_spell("thought_signature", mine)] = (
                _decode(signature) if mine.get("signatureBytes") else signature
            )
        out.update(mine.get("fields", {}))
        return out

    def _function_call(self, part: ToolCallPart, mine: Mapping[str, Any]) -> dict[str, Any]:
        call: dict[str, Any] = {"name": part.tool_name}
        if not mine.get("noId"):
            call["id"] = part.tool_call_id
        if not (mine.get("noArgs") and part.input == {}):
            call["args"] = {} if "input" not in part.model_fields_set else part.input
        call.update(mine.get("callFields", {}))
        return call

    def _function_response(self, part: ToolResultPart, mine: Mapping[str, Any]) -> dict[str, Any]:
        response: dict[str, Any] = {}
        if "id" in mine:
            response["id"] = mine["id"]
        elif not mine.get("noId") and self.call_has_id.get(part.tool_call_id, True):
            response["id"] = part.tool_call_id
        if not mine.get("noName"):
            response["name"] = part.tool_name
        output = part.output
        if not (mine.get("noResponse") and isinstance(output, JsonOutput) and output.value == {}):
            response["response"] = _response_body(part, bool(mine.get("rawResponse")))
        parts = _response_media(output)
        if parts:
            response["parts"] = parts
        response.update(mine.get("responseFields", {}))
        return response


def _response_body(part: ToolResultPart, raw: bool) -> Any:
    output: ToolResultOutput = part.output
    if isinstance(output, JsonOutput) and (raw or isinstance(output.value, dict)):
        return output.value
    content: Any
    if isinstance(output, (TextOutput, ErrorTextOutput, JsonOutput, ErrorJsonOutput)):
        content = output.value
    elif isinstance(output, ExecutionDeniedOutput):
        content = output.reason if output.reason is not None else "Tool call execution denied."
    else:
        texts = [str(item.get("text", "")) for item in output.value if item.get("type") == "text"]
        content = "\n".join(texts) if texts else "Tool executed successfully."
    return {"name": part.tool_name, "content": content}


def _response_media(output: ToolResultOutput) -> list[dict[str, Any]]:
    """Media items of a content output, as function-response parts (the AI SDK's Gemini 3
    form)."""
    if not isinstance(output, ContentOutput):
        return []
    media: list[dict[str, Any]] = []
    for item in output.value:
        kind = item.get("type")
        if kind in ("image-data", "file-data"):
            media.append(
                {"inline_data": {"mime_type": item.get("mediaType"), "data": item.get("data")}}
            )
        elif kind in ("image-url", "file-url") and isinstance(item.get("mediaType"), str):
            media.append(
                {"file_data": {"mime_type": item["mediaType"], "file_uri": item.get("url")}}
            )
    return media


def _raw_with_id(raw: Mapping[str, Any], part: Any) -> dict[str, Any]:
    """A provider-side part as it was read, with its id as the history now has it (a repair may
    have renamed a duplicate id; an id the native part did not have is never added)."""
    out = dict(raw)
    for key, body in raw.items():
        if isinstance(body, dict) and "id" in body and body["id"] != part.tool_call_id:
            out[key] = {**body, "id": part.tool_call_id}
    return out


def _write_file(part: FilePart | ImagePart, mine: Mapping[str, Any], out: Part) -> None:
    data = part.data if isinstance(part, FilePart) else part.image
    media_type = part.media_type
    blob: dict[str, Any] = {}
    as_file = bool(mine.get("fileData"))
    if not mine.get("fileData") and not mine.get("inlineData") and isinstance(data, str):
        match = _DATA_URL.fullmatch(data)
        if match:
            data, media_type = match.group(2), media_type or match.group(1)
        elif data.startswith(_URL_SCHEMES):
            as_file = True
    blob[_spell("file_uri", mine) if as_file else "data"] = data
    if not mine.get("noMimeType"):
        blob[_spell("mime_type", mine)] = media_type or "image/jpeg"
    filename = part.filename if isinstance(part, FilePart) else None
    if filename is not None:
        blob[_spell("display_name", mine)] = filename
    blob.update(mine.get("blobFields", {}))
    out[_spell("file_data" if as_file else "inline_data", mine)] = blob


def _write_server(
    part: ToolCallPart | ToolResultPart, google: Mapping[str, Any], kind: str, path: str
) -> Part:
    call_id, tool_type = google.get("serverToolCallId"), google.get("serverToolType")
    if call_id is None or tool_type is None:
        raise InputError(
            f"a provider-executed {part.type} from another source has no Gemini form", path=path
        )
    if isinstance(part, ToolCallPart):
        return {kind: {"tool_type": tool_type, "args": part.input, "id": call_id}}
    value = part.output.value if isinstance(part.output, JsonOutput) else {}
    return {kind: {"tool_type": tool_type, "response": value, "id": call_id}}


def _write_system(message: SystemMessage, system: Any, key: str) -> tuple[Any, str]:
    mine = _mine(message.provider_options)
    if system is None:
        key = "systemInstruction" if mine.get("camel") else "system_instruction"
        if mine.get("string"):
            return message.content, key
        system = {"parts": []}
        system.update(mine.get("fields", {}))
        if mine.get("noParts") and not message.content:
            return system, key
    elif isinstance(system, str):
        system = {"parts": [{"text": system}]}
    part: Part = {"text": message.content}
    part.update(mine.get("partFields", {}))
    system["parts"].append(part)
    return system, key


# --- helpers ---------------------------------------------------------------------------------


def _spell(snake: str, mine: Mapping[str, Any]) -> str:
    if mine.get("camel") or snake in mine.get("camelKeys", ()):
        return _CAMEL.get(snake, snake)
    return snake


def _decode(signature: str) -> bytes | str:
    """The bytes of a base64 signature, or the string itself when a repair put a non-base64
    value there (such as Google's documented ``skip_thought_signature_validator``)."""
    try:
        data = base64.b64decode(signature, validate=True)
    except (binascii.Error, ValueError):
        return signature
    return data if base64.b64encode(data).decode("ascii") == signature else signature


def _options(google: Mapping[str, Any], mine: Mapping[str, Any]) -> ProviderOptions | None:
    out: dict[str, Any] = {}
    if google:
        out["google"] = dict(google)
    if mine:
        out["heal"] = {NAMESPACE: dict(mine)}
    return out or None


def _mine(options: Mapping[str, Any] | None) -> dict[str, Any]:
    heal = options.get("heal") if options else None
    found = heal.get(NAMESPACE) if isinstance(heal, Mapping) else None
    return found if isinstance(found, dict) else {}


def _google(options: Mapping[str, Any] | None, *, loaded: bool) -> dict[str, Any]:
    if not options:
        return {}
    # Parts heal read carry only "google"; others may come from the AI SDK's Vertex provider.
    for namespace in ("google",) if loaded else _GOOGLE_NAMESPACES:
        found = options.get(namespace)
        if isinstance(found, dict):
            return found
    return {}


def _keep(mine: dict[str, Any], key: str, obj: Mapping[str, Any], consumed: Iterable[str]) -> None:
    skip = set(consumed)
    rest = {k: v for k, v in obj.items() if k not in skip}
    if rest:
        mine[key] = rest


def _mapping(value: Any, path: str, what: str) -> dict[str, Any]:
    if isinstance(value, BaseModel):
        return dict(_plain(value.model_dump(exclude_none=True)))
    if not isinstance(value, Mapping):
        raise InputError(f"{what} must be an object, got {kind_of(value)}", path=path)
    return dict(value)


def _str(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"expected a string, got {kind_of(value)}", path=path)
    return value


def _make(cls: type[_M], path: str, **fields: Any) -> _M:
    values = {k: v for k, v in fields.items() if v is not None or k in ("input", "value")}
    try:
        return cls(**values)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(x) for x in first["loc"])
        raise InputError(f"cannot be represented ({where}: {first['msg']})", path=path) from None
