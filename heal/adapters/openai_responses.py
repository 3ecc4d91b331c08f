"""OpenAI Responses API input items, to and from heal's canonical messages.

Heal a ``client.responses.create(input=...)`` list in one call::

    from heal.adapters.openai_responses import heal_openai_responses

    result = heal_openai_responses(items)
    result.messages   # the healed input items (the same list object when nothing changed,
                      # your own dicts wherever heal changed nothing)
    result.repairs    # message_index = the item's index in ``items``

Or translate: ``load_messages(items)`` gives canonical messages, ``dump_messages(messages)``
gives input items back, and ``dump_messages(load_messages(items)) == items`` for every valid
list of input items (dicts, as the API takes them). OpenAI SDK output items (pydantic models,
as in ``response.output``) are read too, as their JSON; they come back as dicts.

How items map (the AI SDK's conventions where it has one):

=============================  ==================================================================
native item                    canonical
=============================  ==================================================================
user message                   ``UserMessage`` (string content stays a string; ``input_text`` →
                               text part, ``input_image`` → image part, its ``detail`` →
                               ``openai.imageDetail``, ``input_file`` → file part); an image
                               from elsewhere without ``imageDetail`` is written with
                               ``detail: "auto"`` (the API default, required by the SDK types)
system / developer message     ``SystemMessage`` (a one-element ``[input_text]`` content too)
assistant message              text parts of an assistant message (``output_text`` and
                               ``refusal`` alike); ``id`` → ``providerOptions.openai.itemId``
                               (on the first part only: every text part with an id is an item
                               to the API and to heal's ``duplicate-item-id`` rule), ``phase`` →
                               ``openai.phase``
reasoning                      one reasoning part per ``summary`` entry (one empty part when the
                               summary is empty), each carrying ``openai.itemId`` and
                               ``openai.reasoningEncryptedContent``, as the AI SDK reads them
function_call                  tool-call part: ``call_id`` → ``toolCallId``, ``arguments`` → the
                               parsed JSON object (a string that is not a JSON object stays the
                               raw string, for heal's ``invalid-tool-input`` rule)
function_call_output           tool-result part in a tool message (string output → text output,
                               list output → content output)
``custom_tool_call``,          tool-call parts that pair, place and deduplicate like function
``local_shell_call``,          calls: ``call_id`` → ``toolCallId``; the custom tool's ``name``, or
``tool_search_call`` run by    ``local_shell`` / ``tool_search`` (the AI SDK's names); input
the client (a ``call_id``, not ``{"input": <text>}``, ``{"action": {...}}``, ``{"arguments":
``execution: "server"``)       ...}``; the item type in ``heal.openai_responses.kind``
their outputs                  tool-result parts, as ``function_call_output``; a local shell
                               output names its call by ``id`` (the SDK types) or ``call_id``
                               (the AI SDK), kept as it came; a tool search output's ``tools`` →
                               JSON output ``{"tools": [...]}``. A result heal makes up for such
                               a call is written as that call's output kind
item_reference to ``rs_…``     a reasoning part with ``openai.itemId`` and empty text (what the
                               AI SDK turns into an ``item_reference`` itself)
any other item                 kept verbatim as an opaque provider-executed tool-call part
(``web_search_call``,          (``toolName`` = the item type, ``toolCallId`` = ``<type>_<index>``)
``file_search_call``, ``mcp_…``,  that no pairing rule touches, and written back unchanged
a server-run tool search,
other item references, ...)
=============================  ==================================================================

Consecutive assistant-side items (reasoning, assistant messages, calls, opaque items) form ONE
assistant message; consecutive output items form one tool message.

When something needs a repair, the whole list is still read (the rules look across messages),
but only what the repair touches is converted: the common items (messages, function calls and
their string outputs, reasoning items as the API returns them) are built as canonical models
directly rather than validated (``_Reader._fast``), and after the heal only the items of the
canonical messages it changed are written back; the items of the others are the caller's own
dicts, and a function call or output whose id or tool name alone changed is a copy of the
caller's with those fields replaced (:class:`_Writer`).

Two things heal may add have no Responses form of their own: the empty reasoning
``missing-reasoning-content`` adds for DeepSeek is written as a reasoning item with an empty
``reasoning_text`` (see ``_EMPTY_REASONING_ITEM``), and a Gemini thought signature has no field
at all, so ``google-missing-thought-signature`` only reports here (see ``_UNWRITABLE``).

Everything the canonical model has no field for (``status``, ``type: "message"``, annotations,
logprobs, ``caller``, the exact ``arguments`` text when it is not compact JSON, ...) rides in
``providerOptions["heal"]["openai_responses"]`` of the message or part, where no provider reads it.
Item-level data of an item that became several parts is on each of them, so it survives when heal
removes one.

Repairs name native places: ``message_index`` is the index of the input ITEM (of the item a part
came from, for part-level repairs), and ``part_index`` the index inside that item (its
``content`` element, or its ``summary`` entry), or None where the part is the whole item (a
function call, an output). ``anchor_index`` of an insert is the first item of the assistant turn
the new item follows. ``describe()`` names the places in ``input``: ``input[3]``,
``input[4].content[0]``, ``input[1].summary[0]``, and ``after input[5]`` for an insert (the LAST
item of that turn, which the new item follows).

Not represented (``InputError``): images and files inside assistant messages, system messages
whose content list is not exactly one ``input_text``, content element types the API does not
define. Canonical parts from other providers that have no Responses form (another provider's
reasoning without an OpenAI item id or encrypted content, another provider's server-tool calls,
approval requests, files in assistant messages) raise ``InputError`` from :func:`dump_messages`;
heal such histories with ``provider="openai-responses"`` first.

A tool output holding content with no output element (another provider's: an Anthropic search
result) is written as the output's JSON text, as :mod:`heal.adapters.openai_chat` writes it.

OpenAI's own server-tool calls from elsewhere (a provider-executed call with an OpenAI item id,
or, as the AI SDK keeps them, whose toolCallId is the item's id: ``ws_...``, ``ci_...``) are
written as an ``item_reference`` to that item; the item holds the call's result, so a result
part of such a call in an assistant message adds nothing.

Aborted turns: a call item whose ``status`` is ``incomplete`` (the response was cut off, by
``max_output_tokens`` or a stop) or ``in_progress`` (stored from a stream that never finished it)
carries heal's aborted marker, ``providerOptions.heal.aborted``
(:data:`heal.rules.tool_pairing.ABORTED`), and so does the whole canonical assistant message when
one of its assistant message or reasoning items has such a status. ``orphan-tool-call`` then
removes such a call if it has no output, rather than answering a call that may be partial (its
``placeholder-every-call`` choice answers it instead). The marker is never written back; the
``status`` is, as it came.

Delta mode (``previous_response_id``)
-------------------------------------
With ``previous_response_id`` (or ``store=True`` and the Agents SDK's ``previous_response_id`` /
``auto_previous_response_id``) the server holds the earlier items and the client sends only the
new ones. Two rejections come of it: a call of the previous response left unanswered, ``No tool
output found for function call call_WdnUUKXKvwy3jksn4I9ERdRT.`` (openai/openai-agents-python#1061,
#673), and an item sent again, ``Duplicate item found with id
fc_68d25eda79d481959bd7e424738091a006b9ae17d036a0e7. Remove duplicate items from your input and
try again.`` (openai/openai-agents-python#1789; microsoft/agent-framework PR#5690). Heal the new
items against the previous response::

    result = heal_openai_responses(new_items, previous=response)  # or response.output
    client.responses.create(previous_response_id=response.id, input=result.messages, ...)

``previous`` is the ``Response`` (the SDK object, or its JSON: anything with ``output``) or its
output items. What comes back is the delta to send, and the repairs name places in
``new_items``:

* pending calls: the previous response's client-run calls (``function_call``, and the
  ``custom_tool_call``, ``local_shell_call`` and client ``tool_search_call`` items this adapter
  pairs) that no output in the new items answers. Each gets a placeholder output of its kind
  (``orphan-tool-call``), at the start of the delta among the outputs there, in call order; the
  repair has no ``message_index`` and no ``anchor_index`` and ``describe()`` says ``start of
  input``. Under ``keep`` it is reported instead; ``drop-call`` answers it all the same, since the
  server holds the call (aborted or not) and only an output answers it (in delta mode
  ``drop-call`` is read as ``placeholder-result``, for a call among the new items too);
* an output answering no call of the previous response or of the new items is removed
  (``orphan-tool-result``); an output after a user message moves to the start
  (``misplaced-tool-result``), as in a whole history;
* a new item that repeats the previous response (an item or ``item_reference`` with the id of
  one of its items, or a call with the call id of one of its calls) is removed: the server has
  it (a ``duplicate-item-id`` repair, scope ``request``, whose ``removed`` is the item as given).
  So is a resent reasoning item: the previous response's own items are never sent again;
* every other rule runs on the new items as on any input. The previous response's calls are only
  context: nothing of them is sent, and a repair of them alone is not reported.

When nothing needed changing and ``new_items`` is a list of dicts, that same list comes back.
docs/responses-delta.md has a worked example.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from heal._construct import construct_complete
from heal._engine import HealScope, IdRenamer, heal_messages
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
    Loaded,
    NativeHealResult,
    NativeRepair,
    Sources,
    built_call,
    built_message,
    built_reasoning,
    built_result,
    built_text,
    built_text_output,
    built_texts,
    collector_paused,
    format_policy,
    heal_native,
    native_repair,
    native_target,
    settled,
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
from heal.messages import (
    load_messages as _load_canonical,
)
from heal.policy import Policy
from heal.providers import HEAL_NAMESPACE, ProviderId, get_profile
from heal.repairs import Action, Repair, Scope, record_json
from heal.rules import Rule
from heal.rules._quick import NOT_PLAIN
from heal.rules.files import OPENAI_FILE_ID_PREFIX
from heal.rules.openai import OPENAI_SERVER_ITEM
from heal.rules.tool_pairing import ABORTED
from heal.targets import Target

__all__ = [
    "NAMESPACE",
    "ResponsesLoaded",
    "dump_messages",
    "heal_openai_responses",
    "load",
    "load_messages",
]

NAMESPACE = "openai_responses"
"""The key under ``providerOptions["heal"]`` that holds what only this format has."""

UNKNOWN_TOOL = "unknown_tool"
"""The canonical tool name of an output whose call is nowhere in the input and that has no
``name`` of its own (heal removes such outputs as orphans; the name is never written back)."""

_UNWRITABLE: dict[ProviderId | None, tuple[str, ...]] = {
    # A Gemini thought signature has no field in Responses input (Gemini has no Responses API;
    # a gateway that translates one to Gemini must sign calls itself): the rule reports the
    # unsigned call and changes nothing (see heal.adapters._common.format_policy).
    "google": ("google-missing-thought-signature",),
}
"""Rules whose fix this format cannot write, by provider."""

Item = dict[str, Any]
_M = TypeVar("_M", bound=BaseModel)
_ABSENT: Any = object()
_DATA_URL = re.compile(r"data:([^;,]+);base64,(.*)", re.DOTALL)
_URL = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*:")
_UNSAFE_ID = re.compile(r"[^a-zA-Z0-9_-]")
_ASSISTANT_TEXT_TYPES = ("output_text", "input_text", "refusal")
_PARTIAL = True
"""Convert only what a heal needs: build the models of the common items directly (the
reader's ``fast`` path) and write back only the items whose canonical messages a heal changed
(:class:`_Writer`). The tests switch it off to compare with converting everything through
validation and writing the whole history."""


@dataclass(frozen=True, slots=True)
class ResponsesLoaded(Loaded):
    """A :class:`~heal.adapters._common.Loaded` whose native places are (item, index in item).

    ``origins[i]`` is the first item of canonical message ``i``; ``part_origins[i][p]`` is the
    item part ``p`` came from, and ``sub_origins[i][p]`` its index inside that item (content
    element or summary entry), or None when the part is the whole item.
    """

    sub_origins: list[tuple[int | None, ...]] | None = None

    def native_location(
        self, message: int | None, part: int | None
    ) -> tuple[int | None, int | None]:
        """Map a canonical (message, part) location to (item index, index inside the item)."""
        if message is None:
            return None, None
        if part is None or self.part_origins is None or self.sub_origins is None:
            return self.origins[message], None
        items = self.part_origins[message]
        subs = self.sub_origins[message]
        if items is None or part >= len(items):
            return self.origins[message], None
        return items[part], subs[part]

    def describe_location(self, repair: Repair) -> str:
        """``input[i]`` for an item, ``input[i].content[j]`` / ``input[i].summary[j]`` inside
        one; an insert is ``after input[i]``, the LAST item of the canonical message it follows
        (``anchor_index`` keeps the first, as documented), which is where the new item goes."""
        m, p = repair.message_index, repair.part_index
        if m is None:
            anchor = repair.anchor_index
            if anchor is None:
                return "input"
            items = self.part_origins[anchor] if self.part_origins is not None else None
            last = max((i for i in items or () if i is not None), default=self.origins[anchor])
            return f"after input[{last}]"
        item, sub = self.native_location(m, p)
        if sub is None or p is None:
            return f"input[{item}]"
        part = self.messages[m].content[p]
        # Sub-indices count a reasoning item's summary entries, or a message's content elements.
        return f"input[{item}].{'summary' if isinstance(part, ReasoningPart) else 'content'}[{sub}]"


# --- public API ------------------------------------------------------------------------------


def load(native: Iterable[Any]) -> ResponsesLoaded:
    """Read Responses input items: canonical messages plus where each part came from.

    Raises :class:`~heal.errors.InputError` naming the item, such as ``input[3].arguments``.
    """
    return _Reader(_as_items(native), fast=_PARTIAL).read()


def load_messages(native: Iterable[Any]) -> list[ModelMessage]:
    """Read Responses input items as canonical messages (see the module docstring)."""
    return load(native).messages


def dump_messages(messages: Iterable[ModelMessage | Mapping[str, Any]]) -> list[Item]:
    """Write canonical messages as Responses input items (JSON-compatible dicts).

    Takes message models or AI SDK message JSON. Exact inverse of :func:`load_messages` for
    histories it read; messages from elsewhere follow the AI SDK's conversion (item ids and
    encrypted reasoning are read from the ``openai`` or ``azure`` provider options, and nothing
    else: another provider's reasoning or signatures are never sent as OpenAI's). Raises
    :class:`~heal.errors.InputError` (``messages[2].content[0]``) for a part with no Responses
    form.
    """
    return _dump(_load_canonical(list(messages)), {})


def _dump(history: Sequence[ModelMessage], kinds: dict[str, str]) -> list[Item]:
    """Write canonical messages; ``kinds`` maps the tool call id of each call written (or held
    elsewhere: the previous response's, in delta mode) to its item type."""
    out: list[Item] = []
    replayed: set[str] = set()  # tool call ids of server-tool calls written as items
    for i, message in enumerate(history):
        out.extend(_dump_message(message, i, replayed, kinds))
    return out


def _dump_message(
    message: ModelMessage, i: int, replayed: set[str], kinds: dict[str, str]
) -> list[Item]:
    """The items of canonical message ``i``. Its writing depends on the messages before it
    through ``replayed`` and ``kinds`` alone, which it adds its own calls to (see
    :class:`_Writer`)."""
    path = f"messages[{i}]"
    if isinstance(message, SystemMessage):
        return [_dump_system(message)]
    if isinstance(message, UserMessage):
        return [_dump_user(message, path)]
    if isinstance(message, AssistantMessage):
        return _dump_assistant(message, path, replayed, kinds)
    return _dump_tool(message, path, kinds)


class _Writer:
    """Writes a healed history back for :func:`heal_openai_responses`.

    Each canonical message comes from a run of items (one item, or the consecutive
    assistant-side items or outputs of one group). A message that came through the heal
    untouched (:class:`~heal.adapters._common.Sources`) is its run of the caller's own items; one
    whose function calls or outputs changed only their ids or tool names is the run with those
    items copied and the fields replaced (:meth:`_renamed`); the others are written from their
    canonical messages. The result equals the whole history written out:

    * a message's items depend on nothing around it but the calls written before it
      (:func:`_dump_message`): the output kind of a result heal made up follows its call's
      kind, and a server tool's result parts are written as nothing. A history with a paired
      call or a server-run item (``_Reader.context``) is written whole; in any other, every
      call before is a function call, whose result is a ``function_call_output`` either way;
    * a run holding an SDK object (``response.output`` items as they came) is written, since
      the full conversion writes it as a dict.
    """

    def __init__(self, items: list[Any], loaded: ResponsesLoaded, *, whole: bool) -> None:
        self.items = items
        self.loaded = loaded
        self.whole = whole
        # Loaded message k is the k-th run of items: Sources counts runs, not items.
        self.sources = Sources(loaded.messages, range(len(loaded.messages)))
        self.dicts = all(type(item) is dict for item in items)

    def _run(self, k: int) -> list[Any] | None:
        """The caller's items loaded message ``k`` came from, or None when one of them is not
        a dict."""
        starts = self.loaded.origins
        end = starts[k + 1] if k + 1 < len(starts) else len(self.items)
        run = self.items[starts[k] : end]
        return run if self.dicts or all(type(item) is dict for item in run) else None

    def __call__(self, healed: list[ModelMessage]) -> list[Item]:
        kinds: dict[str, str] = {}
        if not _PARTIAL or self.whole:
            return _dump(healed, kinds)
        replayed: set[str] = set()
        untouched = self.sources.untouched
        out: list[Item] = []
        last = -1  # the run last handed back
        for k, message in enumerate(healed):
            origin = untouched(healed, k, k + 1)
            if origin is not None:
                run = self._run(origin)
                out.extend(run if run is not None else _dump_message(message, k, replayed, kinds))
                last = origin
                continue
            # The run a changed message most likely stands for: the next one (a message heal
            # changed), or the one after (a message it put before it).
            for candidate in (last + 1, last + 2):
                patched = self._renamed(healed, k, candidate)
                if patched is not None:
                    out.extend(patched)
                    last = candidate
                    break
            else:
                out.extend(_dump_message(message, k, replayed, kinds))
        return out

    def _renamed(self, healed: list[ModelMessage], k: int, origin: int) -> list[Item] | None:
        """Run ``origin`` with the new ids and tool names of its function calls and outputs,
        when ``healed[k]`` is its canonical message with no other change
        (:meth:`~heal.adapters._common.Sources.renamed`); else None. The writer writes those
        fields as they are (``call_id`` and ``name`` of a call; ``call_id`` of an output, and
        its ``name`` when it had one), so the copy is what writing the message gives."""
        if not 0 <= origin < len(self.loaded.messages):
            return None
        changes = self.sources.renamed(healed, k, k + 1, origin)
        run = self._run(origin) if changes is not None else None
        if run is None or changes is None:
            return None
        old = self.loaded.messages[origin]
        parts = self.loaded.part_origins[origin] if self.loaded.part_origins else None
        subs = self.loaded.sub_origins[origin] if self.loaded.sub_origins else None
        if isinstance(old.content, str) or parts is None or subs is None:
            return None
        start = self.loaded.origins[origin]
        out = list(run)
        for _, p, update in changes:
            at = parts[p]
            if at is None or subs[p] is not None:
                return None
            item = out[at - start]
            part = old.content[p]
            if item is not run[at - start]:
                return None  # two parts of one item (not a call or an output)
            mine = _mine(part.provider_options)
            if "kind" in mine:
                return None
            item = dict(item)
            if type(part) is ToolCallPart and item.get("type") == "function_call":
                if part.provider_executed or "item" in mine:
                    return None
                if "tool_call_id" in update:
                    item["call_id"] = update["tool_call_id"]
                if "tool_name" in update:
                    item["name"] = update["tool_name"]
            elif type(part) is ToolResultPart and item.get("type") == "function_call_output":
                if "tool_call_id" in update:
                    item["call_id"] = update["tool_call_id"]
                if "tool_name" in update and mine.get("name"):
                    item["name"] = update["tool_name"]
            else:
                return None
            out[at - start] = item
        return out


def heal_openai_responses(
    native: Iterable[Any],
    *,
    previous: Any = None,
    provider: ProviderId | None = "openai-responses",
    model: str | None = None,
    thinking: bool | None = None,
    tools: Iterable[Any] | None = None,
    target: Target | None = None,
    policy: Policy | Mapping[str, str] | None = None,
    rules: Sequence[Rule] | None = None,
    on_repair: Callable[[Repair], object] | None = None,
    strict: bool = False,
    scope: HealScope = "request",
) -> NativeHealResult[list[Item]]:
    """Heal Responses input items; repairs name item indices (see the module docstring).

    When nothing needed changing and ``native`` is a list of dicts, that same list comes back;
    under the default policy and a target whose model and tools it fits
    (:func:`heal._verdict.terms_for`), a plainly clean one (:func:`_plainly_clean`: messages,
    function calls and their outputs, and a reasoning model's reasoning items when the target
    is the Responses API) is answered so without building a canonical model. When something
    needs a repair, the items of the messages it leaves alone come back as the caller's own
    dicts and only the others are written (:class:`_Writer`). The
    keyword arguments are those of :func:`heal.heal_messages`: the target (``model``,
    ``thinking``, ``tools`` as names or definitions, or all of them as one ``target``, used as
    given) and the options.

    ``previous``: the response a ``previous_response_id`` request continues (the ``Response``
    object, its JSON, or its ``output`` items). ``native`` is then the NEW items alone, and what
    comes back is the delta to send with ``previous_response_id`` (see "Delta mode" in the
    module docstring).
    """
    goal = native_target(
        provider, "openai-responses", model=model, thinking=thinking, tools=tools, target=target
    )
    if previous is not None:
        return _heal_delta(
            native,
            previous,
            goal=goal,
            policy=policy,
            rules=rules,
            on_repair=on_repair,
            strict=strict,
            scope=scope,
        )
    # The verdict is asked of a list under the default options, for a target it knows (terms).
    asked = asked_scope(policy, rules, scope) if type(native) is list else None
    terms = terms_for(goal) if asked else None
    said = NOT_PLAIN
    if terms is not None and type(native) is list:  # known, but the type checker sees it here
        verdict = partial(_verdict, native, goal.provider, terms)
        rename = partial(_renamed_ids, native, goal)
        history_scope = asked == "history"
        said, done = settled(native, verdict, rename, on_repair, strict, clean_only=history_scope)
        if done is not None:
            return done
        if history_scope:
            terms = None  # the request's verdict: the full path decides the rest
    items = _as_items(native)
    reader = _Reader(items, fast=_PARTIAL)
    with collector_paused(len(items)):
        loaded = reader.read()
        write = _Writer(items, loaded, whole=reader.context)
    original = native if isinstance(native, list) and all(type(x) is dict for x in native) else None
    return heal_native(
        loaded,
        write,
        target=goal,
        policy=format_policy(policy, keep=_UNWRITABLE.get(goal.provider, ())),
        rules=rules,
        on_repair=on_repair,
        strict=strict,
        scope=scope,
        original=original,
        quick=terms is None,
        renames=said != NOT_PLAIN,  # else tried in the caller's items, or not plain at all
    )


# --- the plain verdict -----------------------------------------------------------------------


def _plainly_clean(
    items: list[Any], provider: ProviderId | None, terms: Terms = PLAIN_TERMS
) -> bool:
    """Whether input items, as the caller gave them, are plainly clean for ``provider``: True
    only when healing them through canonical models (default policy, built-in rules, a target
    the ``terms`` are for) would return no repair at all, so :func:`heal_openai_responses` can
    hand the caller's own list back without building a model. False says nothing but "not
    plainly". Exact in that one direction (see :mod:`heal._verdict`).

    Plainly clean means the items that load as :func:`heal._json.clean_verdict`'s plain AI SDK
    history does, spelled as the API and the SDK's ``model_dump()`` write them (dicts only):

    * system or developer messages (a non-blank string), at the start; user messages (a
      non-blank string, or ``input_text`` elements and ``input_image`` ones that load as plain
      images: :func:`_plain_image`); each maybe with ``type: "message"``;
    * assistant messages: a non-blank string, or exactly one ``output_text`` element (with
      ``annotations`` and ``logprobs`` empty or null, if there), maybe with ``type: "message"``,
      an ``id`` and ``status: "completed"``; then ``function_call`` items (``arguments`` the JSON
      text of a plain object; maybe an ``id`` and ``status: "completed"``), and no text after
      them in the same run;
    * each run of calls answered by the ``function_call_output`` items right after it, one per
      call (a non-blank string output; maybe an ``id`` and ``status: "completed"``);
    * for a target whose plan reads reasoning only through the item rules (``openai-responses``:
      :attr:`heal._verdict.Terms.items`), reasoning items as a reasoning model returns them: an
      id, ``summary_text`` entries without a lone surrogate, encrypted content or none, not cut
      off, each right before the message or call of its turn it led to (no reasoning after a
      call of the same turn, before an output or at the end: ``reasoning-without-following-item``);
    * item ids unique (``duplicate-item-id``), reasoning items' too; no item reference,
      server-tool or other item; any other key of an item or element null (as ``model_dump()``
      writes them);
    * the order of roles, texts, values and ids as :mod:`heal._verdict` says.
    """
    return bool(items) and walked_clean(provider, terms, _plain_items, items, terms)


def _verdict(items: list[Any], provider: ProviderId | None, terms: Terms, ids: list[str]) -> int:
    """:func:`_plainly_clean`, saying why (:func:`heal._verdict.walked_verdict`):
    ``REFUSED_IDS`` for items plain but for their call ids' format, which the walk reads past
    (gathering the calls' ids in ``ids``)."""
    if not items:
        return NOT_PLAIN
    return walked_verdict(provider, terms, _read_past_ids, items, terms, ids=ids)


def _renamed_ids(
    items: list[Any], goal: Target, ids: list[str]
) -> NativeHealResult[list[Item]] | None:
    """The result for items the verdict found plain but for tool-call ids the target refuses
    (Kimi's ``functions.search:3``; any id but Mistral's own, for Mistral; see
    :func:`_verdict`), whose calls' ids are ``ids`` (the verdict's walk gathered them), made
    from the caller's dicts, without models; None to heal them the full way, which then
    decides.

    The ids are renamed as the engine's id rules rename them
    (:class:`heal._engine.IdRenamer`), one to one, and the new ones must be accepted: the
    renamed items are then plainly clean (the walk reads ids for nothing else), and this is the
    full path's result, with the engine's records at native places (each call's and output's
    item, in order); a renamed item is the caller's dict with the new ``call_id`` in place, as
    :class:`_Writer` writes it. ``tests/adapters/test_native_fast_path.py`` holds the two ways
    to one result."""
    renamer = IdRenamer.of(ids, goal)
    if renamer is None:
        return None
    renamed = renamer.renamed
    with collector_paused(len(items)):
        out = list(items)
        i = -1
        for item in items:
            i += 1
            kind = item.get("type")
            if kind == "function_call":
                what = "tool-call"
            elif kind == "function_call_output":
                what = "tool-result"
            else:
                continue
            tid = item["call_id"]
            new_id = renamed((i, None, None), what, tid)
            if new_id != tid:
                out[i] = {**item, "call_id": new_id}
        return NativeHealResult(out, renamer.records())


_USER_KEYS = (frozenset({"role", "content"}), frozenset({"type", "role", "content"}))
_ASSISTANT_KEYS = frozenset({"type", "role", "content", "id", "status"})
_TEXT_KEYS = frozenset({"type", "text", "annotations", "logprobs"})
_CALL_KEYS = frozenset({"type", "call_id", "name", "arguments", "id", "status"})
_OUTPUT_KEYS = frozenset({"type", "call_id", "output", "id", "status"})
_REASONING_KEYS = frozenset({"type", "id", "summary", "encrypted_content", "status"})
_SYSTEM_ROLES = ("system", "developer")
"""A tuple, not a set: a role may be any JSON value, and a list or dict cannot be hashed."""
_EMPTY: tuple[Any, ...] = ((), [], None)
"""Annotations or log probabilities that are nothing: absent, empty, or null."""
_UNCUT = (None, "completed")
"""A reasoning item's status when it is finished (absent, as the API leaves it, or null, as
``model_dump()`` writes it); ``incomplete`` and ``in_progress`` mark a cut-off turn."""
_ENCRYPTED = frozenset({str, type(None)})
"""What a reasoning item's ``encrypted_content`` may be (absent: None)."""


def _finished(item: Item, known: frozenset[str]) -> bool:
    """Whether an item's keys are ``known`` (:func:`_keys_known`) and its status, if any, says
    it was finished (``incomplete`` and ``in_progress`` mark a cut-off turn)."""
    return _keys_known(item, known) and item.get("status", "completed") == "completed"


def _keys_known(item: Item, known: frozenset[str]) -> bool:
    """Whether every key of ``item`` is one of ``known`` or holds null, as the SDK's
    ``model_dump()`` writes the fields an item does not have (``phase``, ``namespace``,
    ``caller``...): the loader keeps those in the part's record, which no rule reads."""
    return known.issuperset(item) or all(
        value is None for key, value in item.items() if key not in known
    )


def _plain_items(
    items: list[Any], terms: Terms, ids: list[str], names: list[str], *, past_ids: bool = False
) -> str | None:
    """The one pass of :func:`_plainly_clean`: the canonical role of the last message when every
    item has a plain shape in a plain place (else None), with the call ids and tool names added
    to ``ids`` and ``names``. Items are grouped as :class:`_Reader` groups them: a run of
    assistant messages and calls is one assistant message, a run of outputs one tool message.
    Under :attr:`heal._verdict.Terms.items` (the target's plan reads reasoning through the item
    rules alone) reasoning items may be plain; under :attr:`~heal._verdict.Terms.images` a
    user's ``input_image`` elements that load as plain images (:func:`_plain_image`).
    ``past_ids``: read past a call id with a colon (Kimi's, which no provider takes) rather
    than stop there (:func:`_verdict`)."""
    reasoning, images = terms.items, terms.images
    previous = ""  # the canonical role of the message being read (the last one at the end)
    waiting: dict[str, str] | None = None  # the calls of that message left to answer: id -> name
    texts: list[Any] = []
    add_text = texts.append
    inputs: list[Any] = []
    item_ids: list[Any] = []
    thoughts: list[Any] = []  # the summary texts of reasoning items
    thinking = False  # the item before was reasoning: a message or a call must follow it
    for item in items:
        if type(item) is not dict:
            return None
        kind = item.get("type", "message")
        if thinking:
            if kind != "function_call" and (kind != "message" or item["role"] != "assistant"):
                return None  # reasoning-without-following-item
            thinking = False
        if kind == "function_call_output":
            if previous == "assistant" and waiting:
                previous = "tool"  # the outputs of the calls before
            elif previous != "tool":
                return None  # an output that answers no call
            if (
                not _keys_known(item, _OUTPUT_KEYS)
                or item.get("status", "completed") != "completed"
            ):
                return None
            call_id, output = item["call_id"], item["output"]
            if (
                type(call_id) is not str
                or waiting is None
                or waiting.pop(call_id, None) is None
                or type(output) is not str
            ):
                return None
            add_text(output)
            if "id" in item:
                item_ids.append(item["id"])
            continue
        if previous == "tool":
            if waiting:
                return None  # a call left unanswered
            waiting = None
        if kind == "reasoning":
            # An OpenAI reasoning item as the API returns it: the item rules find nothing in
            # one with an id, sent once and followed by the message or call it led to.
            if not reasoning or waiting is not None:
                return None  # another plan reads it, or reasoning after a call of its run
            if previous != "assistant":
                if previous not in AFTER["assistant"]:
                    return None
                previous = "assistant"
            if (
                not _keys_known(item, _REASONING_KEYS)
                or item.get("status") not in _UNCUT
                or type(item.get("encrypted_content")) not in _ENCRYPTED
            ):
                return None
            item_id, summary = item["id"], item["summary"]
            if type(item_id) is not str or not item_id or type(summary) is not list:
                return None
            item_ids.append(item_id)
            for entry in summary:
                if type(entry) is not dict or len(entry) != 2 or entry["type"] != "summary_text":
                    return None
                thoughts.append(entry["text"])
            thinking = True
            continue
        if kind == "function_call":
            if previous != "assistant":
                if previous not in AFTER["assistant"]:
                    return None
                previous = "assistant"
            if waiting is None:
                waiting = {}
            if not _finished(item, _CALL_KEYS):
                return None
            call_id, name, arguments = item["call_id"], item["name"], item["arguments"]
            if type(call_id) is not str or type(name) is not str or type(arguments) is not str:
                return None
            value = _arguments_object(arguments)
            if type(value) is not dict:
                return None
            inputs.append(value)
            waiting[call_id] = name
            if ":" in call_id and not past_ids:
                return None  # Kimi's id form, which no provider takes: all renamed
            ids.append(call_id)
            names.append(name)
            if "id" in item:
                item_ids.append(item["id"])
            continue
        if kind != "message":
            return None
        role = item["role"]
        content = item["content"]
        if role == "assistant":
            if previous == "assistant":
                if waiting is not None:
                    return None  # text after a call (moved before it for Anthropic)
            elif previous not in AFTER["assistant"]:
                return None
            if type(content) is str:
                # Role, content and maybe the type and an item id (as list content's).
                if len(item) != 2 + ("type" in item) + ("id" in item):
                    return None
                if "id" in item:
                    item_ids.append(item["id"])
            else:
                if (
                    not _finished(item, _ASSISTANT_KEYS)
                    or type(content) is not list
                    or len(content) != 1
                ):
                    return None
                element = content[0]
                if (
                    type(element) is not dict
                    or not _keys_known(element, _TEXT_KEYS)
                    or element["type"] != "output_text"
                    or element.get("annotations", ()) not in _EMPTY
                    or element.get("logprobs", ()) not in _EMPTY
                ):
                    return None
                content = element["text"]
                if "id" in item:
                    item_ids.append(item["id"])
            add_text(content)
            previous = "assistant"
            continue
        if waiting:
            return None  # calls left unanswered
        if role == "user":
            if frozenset(item) not in _USER_KEYS:
                return None
            if type(content) is str:
                add_text(content)
            elif type(content) is list and content:
                for element in content:
                    if type(element) is not dict:
                        return None
                    if element["type"] != "input_text" or len(element) != 2:
                        # A screenshot or a photo the user sent, where it loads as a plain
                        # image.
                        if not images or not _plain_image(element):
                            return None
                        continue
                    add_text(element["text"])
            else:
                return None
        elif role in _SYSTEM_ROLES:
            if frozenset(item) not in _USER_KEYS or type(content) is not str:
                return None
            add_text(content)
            role = "system"
        else:
            return None
        if previous not in AFTER[role]:
            return None
        previous = role
    if waiting or thinking:
        return None  # calls left unanswered, or reasoning, at the end
    if not (plain_texts(texts) and plain_inputs(inputs)):
        return None
    if not plain_thoughts(thoughts):
        return None
    if item_ids and (
        any(type(item_id) is not str for item_id in item_ids) or len(set(item_ids)) != len(item_ids)
    ):
        return None
    return ended(previous, texts[-1] if texts else None)


_read_past_ids = partial(_plain_items, past_ids=True)


def _plain_image(element: dict[str, Any]) -> bool:
    """Whether a user's content element loads as a plain image (:func:`heal.rules.files.
    plain_image`): an ``input_image`` of an ``image_url`` (a URL the loader reads without a
    mark: ``data:`` or another scheme's), maybe with a string ``detail`` (OpenAI's
    ``imageDetail`` option, which no rule reads); nothing else."""
    if element["type"] != "input_image":
        return False
    url = element.get("image_url")
    size = len(element)
    return (
        (size == 2 or (size == 3 and type(element.get("detail")) is str))
        and type(url) is str
        and _URL.match(url) is not None
        and not url.startswith(OPENAI_FILE_ID_PREFIX)
    )


"""The walk of :func:`_verdict`."""


# --- delta mode (previous_response_id) -------------------------------------------------------

_CONTEXT = "context"
"""Marks (under this format's namespace) a call of the previous response that delta mode puts in
front of the new items, so that their outputs pair with it; never written."""

_DELTA_START = "start of input"
"""Where a delta repair anchored at the previous response's calls puts its item."""


def _heal_delta(
    native: Iterable[Any],
    previous: Any,
    *,
    goal: Target,
    policy: Policy | Mapping[str, str] | None,
    rules: Sequence[Rule] | None,
    on_repair: Callable[[Repair], object] | None,
    strict: bool,
    scope: HealScope,
) -> NativeHealResult[list[Item]]:
    """Heal the new items of a ``previous_response_id`` request (see "Delta mode")."""
    if goal.provider is not None and get_profile(goal.provider).wire != "responses":
        raise ConfigError(
            f"previous= is for a Responses request (previous_response_id); provider "
            f"{goal.provider!r} is sent {get_profile(goal.provider).wire!r}"
        )
    held = _previous_items(previous)
    held_ids = {item["id"] for item in held if isinstance(item.get("id"), str)}
    held_calls: dict[str, ToolCallPart] = {}
    for item in held:
        call = _held_call(item)
        if call is not None:
            held_calls.setdefault(call.tool_call_id, call)
    raw = _as_items(native)
    items = [_as_item(x, f"input[{i}]") for i, x in enumerate(raw)]
    kept: list[int] = []
    repeats: list[Repair] = []
    for i, item in enumerate(items):
        why = _repeat(item, held_ids, held_calls)
        if why is None:
            kept.append(i)
            continue
        repair = Repair(
            rule="duplicate-item-id",
            action=Action.REMOVE,
            message_index=i,
            part_index=None,
            tool_call_id=item.get("call_id") if isinstance(item.get("call_id"), str) else None,
            reason=f"{why} of the previous response, which the server holds "
            "(previous_response_id); removed",
            removed=record_json(item),
            scope=Scope.REQUEST,
        )
        repeats.append(NativeRepair.at(repair, f"input[{i}]"))
    loaded = _Reader([items[i] for i in kept], fast=_PARTIAL).read()
    context = tuple(held_calls.values())
    offset = 1 if context else 0
    combined = ResponsesLoaded(
        [AssistantMessage(content=context)] if context else [],
        [0] * offset,
        [None] * offset,
        [()] * offset,
    )
    combined.messages.extend(loaded.messages)
    combined.origins.extend(kept[o] for o in loaded.origins)
    assert combined.part_origins is not None and combined.sub_origins is not None
    assert loaded.part_origins is not None and loaded.sub_origins is not None
    for parts in loaded.part_origins:
        combined.part_origins.append(
            None if parts is None else tuple(None if o is None else kept[o] for o in parts)
        )
    combined.sub_origins.extend(loaded.sub_origins)
    result = heal_messages(
        combined.messages,
        target=goal,
        policy=_delta_policy(format_policy(policy, keep=_UNWRITABLE.get(goal.provider, ()))),
        rules=rules,
        scope=scope,
    )
    repairs = list(repeats)
    for repair in result.repairs:
        if offset and repair.message_index == 0:
            continue  # an edit of a call the server holds: nothing of it is sent
        if offset and repair.anchor_index == 0:
            moved = native_repair(repair.model_copy(update={"anchor_index": None}), combined)
            if moved.message_index is None:
                moved = NativeRepair.at(moved, _DELTA_START)
            repairs.append(moved)
            continue
        repairs.append(native_repair(repair, combined))
    if on_repair is not None:
        from heal._engine import _notify

        _notify(on_repair, tuple(repairs))
    if strict and any(r.action is not Action.KEEP for r in repairs):
        from heal.errors import HealingError

        raise HealingError(tuple(repairs))
    if not result.changed and not repeats:
        if isinstance(native, list) and all(type(x) is dict for x in native):
            return NativeHealResult(native, tuple(repairs))
        return NativeHealResult(_dump(loaded.messages, {}), tuple(repairs))
    kinds: dict[str, str] = {}
    return NativeHealResult(_dump(_without_context(result.messages, kinds), kinds), tuple(repairs))


def _previous_items(previous: Any) -> list[Item]:
    """The output items of the previous response: a ``Response`` (an SDK object or its JSON:
    anything with ``output``) or the output items themselves."""
    if isinstance(previous, BaseModel):
        output = getattr(previous, "output", _ABSENT)
        if output is _ABSENT:
            raise InputError(
                f"expected the previous response or its output items, got a single "
                f"{type(previous).__name__}",
                path="previous",
            )
        previous = output
    elif isinstance(previous, Mapping):
        if not isinstance(previous.get("output"), list):
            raise InputError(
                "expected the previous response (with its 'output' list) or its output items",
                path="previous",
            )
        previous = previous["output"]
    if isinstance(previous, (str, bytes, bytearray)) or not isinstance(previous, Iterable):
        raise InputError(
            f"expected the previous response or its output items, got {_kind(previous)}",
            path="previous",
        )
    return [_as_item(raw, f"previous.output[{i}]") for i, raw in enumerate(previous)]


def _held_call(item: Item) -> ToolCallPart | None:
    """A client-run call item of the previous response as the context part its outputs pair
    with (see ``_CONTEXT``): its call id, tool name and item type, and nothing else (its input
    is never sent; its ``status`` is not read: the server holds the call, aborted or not, and
    only an output answers it)."""
    kind = item.get("type")
    if kind == "function_call":
        name = item.get("name")
    elif kind in _PAIRED_CALLS and (kind != "tool_search_call" or _client_search(item)):
        name = _PAIRED_CALLS[kind] or item.get("name")
    else:
        return None
    call_id = item.get("call_id")
    if not isinstance(call_id, str) or not isinstance(name, str):
        return None
    mine: dict[str, Any] = {_CONTEXT: True}
    if kind != "function_call":
        mine["kind"] = kind
    return ToolCallPart(
        tool_call_id=call_id, tool_name=name, input={}, provider_options=_options({}, mine)
    )


def _repeat(item: Item, held_ids: set[str], held_calls: Mapping[str, ToolCallPart]) -> str | None:
    """What a new item repeats of the previous response, or None: an item (or an item
    reference) with the id of one of its items, or a call with the call id of one of its
    calls. Outputs never repeat it (a response holds no outputs of client calls)."""
    kind = item.get("type")
    if kind in _PAIRED_OUTPUTS:
        return None
    item_id = item.get("id")
    if isinstance(item_id, str) and item_id in held_ids:
        what = "a reference to item" if kind == "item_reference" or "type" not in item else "item"
        return f"{what} {item_id}"
    call_id = item.get("call_id")
    is_call = kind == "function_call" or kind in _PAIRED_CALLS
    if is_call and isinstance(call_id, str) and call_id in held_calls:
        return f"call {call_id}"
    return None


def _delta_policy(policy: Policy | Mapping[str, str] | None) -> Policy:
    """The policy for a delta: ``orphan-tool-call``'s ``drop-call`` gives way to
    ``placeholder-result``, since a call the server holds cannot be removed from it; only an
    output answers it (``keep`` still reports it). The rule cannot tell those calls from a call
    among the new items, which is answered too."""
    base = Policy.coerce(policy)
    if base.choices.get("orphan-tool-call") != "drop-call":
        return base
    choices = {**base.choices, "orphan-tool-call": "placeholder-result"}
    return Policy(choices, disable=base.disabled, enable=base.enabled)


def _without_context(history: Sequence[ModelMessage], kinds: dict[str, str]) -> list[ModelMessage]:
    """``history`` without the previous response's calls (whose item types go to ``kinds``, so
    that a placeholder answering one is written as that call's output kind)."""
    out: list[ModelMessage] = []
    for message in history:
        if isinstance(message, AssistantMessage) and not isinstance(message.content, str):
            held = [p for p in message.content if isinstance(p, ToolCallPart) and _held(p)]
            if held:
                for part in held:
                    kinds[part.tool_call_id] = _mine(part.provider_options).get(
                        "kind", "function_call"
                    )
                rest = tuple(p for p in message.content if not any(p is h for h in held))
                if rest:
                    out.append(message.model_copy(update={"content": rest}))
                continue
        out.append(message)
    return out


def _held(part: ToolCallPart) -> bool:
    return _mine(part.provider_options).get(_CONTEXT) is True


# --- reading ---------------------------------------------------------------------------------


def _as_items(native: Any) -> list[Any]:
    if isinstance(native, BaseModel):  # iterable as (field, value) pairs: not a history
        raise InputError(
            f"expected a list of input items, got a single {type(native).__name__} "
            "(for a response, pass response.output)",
            path="input",
        )
    if isinstance(native, (str, bytes, bytearray)):
        raise InputError("expected a list of input items, got a string", path="input")
    if isinstance(native, Mapping):
        hint = " (did you mean its 'input' field?)" if "input" in native else ""
        raise InputError(f"expected a list of input items, got a single object{hint}", path="input")
    if not isinstance(native, Iterable):
        raise InputError(f"expected a list of input items, got {_kind(native)}", path="input")
    return list(native)


_Parts = list[tuple[Any, int | None]]
"""Canonical parts of one item, each with its index inside the item (None: the whole item)."""


class _Reader:
    """One pass over the items, grouping assistant-side items and outputs into messages.

    With ``fast``, the items of the common shapes (:meth:`_fast`) are built as canonical models
    directly, the rest through validation as before; either way the models are the same
    (``tests/adapters/test_responses_partial.py`` holds them equal, fields set and order
    included). ``context`` says, once read, whether an item was read whose writing back makes
    the writing of later messages depend on it (see :class:`_Writer`).
    """

    def __init__(self, items: list[Any], *, fast: bool) -> None:
        self.items = items
        self.fast = fast
        self.messages: list[ModelMessage] = []
        self.origins: list[int] = []
        self.part_origins: list[tuple[int | None, ...] | None] = []
        self.sub_origins: list[tuple[int | None, ...]] = []
        self.group: str | None = None
        self.parts: list[Any] = []
        self.part_items: list[int] = []
        self.part_subs: list[int | None] = []
        self.names: dict[str, str] = {}
        self.aborted = False  # an item of the open assistant group was cut off (_CUT_OFF)
        self.context = False

    def read(self) -> ResponsesLoaded:
        fast = self.fast
        # The caller's own dicts are only read by the fast path, never changed: no copy needed
        # there (the general path gets a copy of each item it reads, as before).
        items = [
            raw if fast and type(raw) is dict else _as_item(raw, f"input[{i}]")
            for i, raw in enumerate(self.items)
        ]
        for item in items:
            kind = item.get("type")
            if kind in _NAMED_CALLS or (kind in _SEARCHES and _client_search(item)):
                cid = item.get("call_id")
                name = _PAIRED_CALLS.get(kind) if isinstance(kind, str) else None
                name = name or item.get("name")
                if isinstance(cid, str) and isinstance(name, str):
                    self.names.setdefault(cid, name)
        for i, given in enumerate(items):
            if fast and self._fast(i, given):
                continue
            item = dict(given) if given is self.items[i] else given
            path = f"input[{i}]"
            kind = _classify(item, path)
            if kind == "user":
                self._single(i, _read_user(item, path))
            elif kind == "system":
                self._single(i, _read_system(item, path))
            elif kind == "output":
                self._add("tool", i, [(_read_output(item, path, self.names), None)])
            else:
                parts = _read_assistant_item(kind, item, i, path)
                self._add("assistant", i, parts)
                if kind in ("assistant", "reasoning") and item.get("status") in _CUT_OFF:
                    self.aborted = True
                if not self.context:
                    self.context = any(_in_context(part) for part, _ in parts)
        self._flush()
        return ResponsesLoaded(self.messages, self.origins, self.part_origins, self.sub_origins)

    def _fast(self, i: int, item: Item) -> bool:
        """Build the canonical models of an item of a common shape directly, as reading it
        through validation would; False, having built nothing, for any other item, which the
        general path reads.

        The shapes:

        * user, system and developer messages of exactly ``role``, ``content`` and maybe
          ``type: "message"``: string content, or for a user ``input_text`` elements of exactly
          ``type`` and ``text``;

        and, with the keys named and any other key null (as ``model_dump()`` writes the fields an
        item does not have) or a string or a boolean, which the general path keeps in the part's
        record (``status``, ``type: "message"``...):

        * assistant messages of string content, or as the API returns them: one ``output_text``
          element whose other keys are null or empty (``annotations``, ``logprobs``), an ``id``,
          a ``status`` and maybe a ``phase``;
        * ``function_call`` items (``call_id``, ``name``, ``arguments`` text; maybe an ``id``,
          a ``namespace``, ``async``) whose arguments are a JSON object of plain values (see
          :func:`heal._verdict.plain_input`) or no JSON object at all;
        * ``function_call_output`` items of a string output, maybe with a ``name``;
        * reasoning items with an id and ``summary_text`` entries of exactly ``type`` and
          ``text``, maybe encrypted content.

        No item cut off (``status`` ``incomplete`` or ``in_progress``: the general path marks
        it aborted), no cache breakpoint, refusal, media, annotation or other value that
        validation would copy or refuse.
        """
        kind = item.get("type", _ABSENT)
        if kind == "function_call":
            call = _fast_call(item)
            if call is None:
                return False
            self._add_one("assistant", i, call)
            return True
        if kind == "function_call_output":
            result = _fast_output(item, self.names)
            if result is None:
                return False
            self._add_one("tool", i, result)
            return True
        if kind == "reasoning":
            parts = _fast_reasoning(item)
            if parts is None:
                return False
            self._add("assistant", i, parts)
            return True
        if kind is not _ABSENT and kind != "message":
            return False
        role = item.get("role")
        if role == "assistant":
            parts = _fast_assistant(item)
            if parts is None:
                return False
            self._add("assistant", i, parts)
            return True
        if len(item) != 2 + (kind is not _ABSENT):
            return False
        message: ModelMessage | None
        if role == "user":
            message = _fast_user(item)
        elif role in ("system", "developer"):
            message = _fast_system(item, role)
        else:
            return False
        if message is None:
            return False
        self._single(i, message)
        return True

    def _single(self, i: int, message: ModelMessage) -> None:
        if self.group is not None:
            self._flush()
        count = 0 if isinstance(message.content, str) else len(message.content)
        self.messages.append(message)
        self.origins.append(i)
        self.part_origins.append((i,) * count)
        self.sub_origins.append(tuple(range(count)))

    def _add(self, group: str, i: int, parts: _Parts) -> None:
        if self.group != group:
            self._flush()
            self.group = group
        for part, sub in parts:
            self.parts.append(part)
            self.part_items.append(i)
            self.part_subs.append(sub)

    def _add_one(self, group: str, i: int, part: Any) -> None:
        """:meth:`_add` of the one part that is a whole item (a call or an output)."""
        if self.group != group:
            if self.group is not None:
                self._flush()
            self.group = group
        self.parts.append(part)
        self.part_items.append(i)
        self.part_subs.append(None)

    def _flush(self) -> None:
        if self.group is None:
            return
        content = tuple(self.parts)
        message: ModelMessage
        if not self.fast:
            message = (
                AssistantMessage(
                    content=content, provider_options=_ABORTED if self.aborted else None
                )
                if self.group == "assistant"
                else ToolMessage(content=content)
            )
        elif self.group == "assistant":
            # As validation builds it: the options given (None too) count as set.
            options = {HEAL_NAMESPACE: {ABORTED: True}} if self.aborted else None
            values = {"role": "assistant", "content": content, "provider_options": options}
            message = construct_complete(AssistantMessage, _GROUP_FIELDS, values)
        else:
            message = built_message(ToolMessage, content)
        self.aborted = False
        self.messages.append(message)
        self.origins.append(self.part_items[0])
        self.part_origins.append(tuple(self.part_items))
        self.sub_origins.append(tuple(self.part_subs))
        self.group = None
        self.parts, self.part_items, self.part_subs = [], [], []


_NAMED_CALLS = ("function_call", "custom_tool_call", "local_shell_call")
_SEARCHES = ("tool_search_call", "tool_search_output")
"""The item types that name a call (with :func:`_client_search`, which takes only these two)."""

_GROUP_FIELDS = {"role", "content", "provider_options"}
"""The fields an assistant message of items counts as set (its options are given, None or not)."""


def _in_context(part: Any) -> bool:
    """Whether writing ``part`` back tells how later messages are written: a call of a paired
    kind (a result heal makes up for it is written as that kind's output) or a server-run item
    (its result parts are written as nothing). See :class:`_Writer`."""
    if type(part) is not ToolCallPart:
        return False
    mine = _mine(part.provider_options)
    return bool(part.provider_executed) or "kind" in mine or "item" in mine


# --- the fast path: common items built directly (see _Reader._fast) ---------------------------


def _plain_rest(obj: Mapping[str, Any], consumed: frozenset[str]) -> dict[str, Any] | None:
    """What :func:`_rest` keeps of ``obj`` (in its order), when each value is null, a string or
    a boolean under a string key, which validation keeps as it is; else None."""
    rest: dict[str, Any] = {}
    for key, value in obj.items():
        if key in consumed:
            continue
        if type(key) is not str or (
            value is not None and type(value) is not str and type(value) is not bool
        ):
            return None
        rest[key] = value
    return rest


def _plain_string(value: Any) -> bool | None:
    """True for a string, False for anything that is not one, None for a string of a subclass
    (which the general path takes as a string and validation may not keep as it is)."""
    if type(value) is str:
        return True
    return None if isinstance(value, str) else False


def _fast_user(item: Item) -> UserMessage | None:
    """:func:`_read_user` of ``{role: "user", content}`` (maybe ``type: "message"``): string
    content, or ``input_text`` elements of exactly ``type`` and ``text``."""
    content = item.get("content")
    fields = _plain_rest(item, _USER_CONSUMED)
    if fields is None:
        return None
    options = {"heal": {NAMESPACE: {"fields": fields}}} if fields else None
    if type(content) is str:
        return built_message(UserMessage, content, options)
    parts = built_texts(content, "input_text")
    return None if parts is None else built_message(UserMessage, parts, options)


_USER_CONSUMED = _SYSTEM_CONSUMED = frozenset({"role", "content"})
_DEVELOPER_CONSUMED = frozenset({"content"})


def _fast_system(item: Item, role: str) -> SystemMessage | None:
    """:func:`_read_system` of a system or developer message of string content."""
    content = item.get("content")
    if type(content) is not str:
        return None
    fields = _plain_rest(item, _SYSTEM_CONSUMED if role == "system" else _DEVELOPER_CONSUMED)
    if fields is None:
        return None
    options = {"heal": {NAMESPACE: {"fields": fields}}} if fields else None
    return built_message(SystemMessage, content, options)


def _fast_assistant(item: Item) -> _Parts | None:
    """:func:`_read_assistant_message` of an assistant message of string content or of one
    ``output_text`` element (see :meth:`_Reader._fast`), not cut off."""
    if item.get("status") in _CUT_OFF:
        return None
    openai: dict[str, Any] = {}
    consumed = _ASSISTANT_CONSUMED
    item_id = _plain_string(item.get("id"))
    phase = _plain_string(item.get("phase"))
    if item_id is None or phase is None:
        return None
    if item_id:
        openai["itemId"] = item["id"]
    if phase:
        openai["phase"] = item["phase"]
    if item_id or phase:
        consumed = _ASSISTANT_CONSUMED_IDS[item_id, phase]
    fields = _plain_rest(item, consumed)
    if fields is None:
        return None
    item_mine: dict[str, Any] = {"fields": fields} if fields else {}
    content = item.get("content")
    if type(content) is str:
        return [(built_text(content, _options(openai, item_mine)), None)]
    if type(content) is not list or len(content) != 1:
        return None
    el = content[0]
    if type(el) is not dict or el.get("type") != "output_text":
        return None
    text = el.get("text")
    if type(text) is not str:
        return None
    rest: dict[str, Any] = {}
    for key, value in el.items():
        if key in _TEXT_CONSUMED:
            continue
        if key == "prompt_cache_breakpoint" or type(key) is not str:
            return None
        if value is None or type(value) is str or type(value) is bool:
            rest[key] = value
        elif type(value) is list and not value:
            rest[key] = []  # a list of its own, as validation copies it
        else:
            return None
    mine: dict[str, Any] = {**item_mine, "contentIndex": 0}
    if rest:
        mine["contentFields"] = rest
    return [(built_text(text, _options(openai, mine)), 0)]


_ASSISTANT_CONSUMED = frozenset({"role", "content"})
_TEXT_CONSUMED = frozenset({"type", "text"})
_ASSISTANT_CONSUMED_IDS = {
    (True, False): _ASSISTANT_CONSUMED | {"id"},
    (False, True): _ASSISTANT_CONSUMED | {"phase"},
    (True, True): _ASSISTANT_CONSUMED | {"id", "phase"},
}


def _fast_call(item: Item) -> ToolCallPart | None:
    """:func:`_read_function_call` of a function call whose arguments validation keeps as
    they parse (see :meth:`_Reader._fast`), not cut off."""
    if item.get("status") in _CUT_OFF:
        return None
    call_id, name, arguments = item.get("call_id"), item.get("name"), item.get("arguments")
    if type(call_id) is not str or type(name) is not str or type(arguments) is not str:
        return None
    value, raw = _parse_arguments(arguments)
    if type(value) is not str and not plain_input(value):
        return None
    openai: dict[str, Any] = {}
    item_id = _plain_string(item.get("id"))
    namespace = _plain_string(item.get("namespace"))
    if item_id is None or namespace is None:
        return None
    if item_id:
        openai["itemId"] = item["id"]
    if namespace:
        openai["namespace"] = item["namespace"]
    is_async = type(item.get("async")) is bool
    if is_async:
        openai["async"] = item["async"]
    fields = _plain_rest(item, _CALL_CONSUMED[item_id, namespace, is_async])
    if fields is None:
        return None
    mine: dict[str, Any] = {}
    if raw is not None:
        mine["arguments"] = raw
    if fields:
        mine["fields"] = fields
    return built_call(call_id, name, value, _options(openai, mine))


_CALL_CONSUMED = {
    (item_id, namespace, is_async): frozenset(
        {"type", "call_id", "name", "arguments"}
        | ({"id"} if item_id else set())
        | ({"namespace"} if namespace else set())
        | ({"async"} if is_async else set())
    )
    for item_id in (False, True)
    for namespace in (False, True)
    for is_async in (False, True)
}
"""The keys :func:`_read_function_call` consumes, by whether the item has an ``id``, a
``namespace`` and an ``async`` it reads."""


def _fast_output(item: Item, names: Mapping[str, str]) -> ToolResultPart | None:
    """:func:`_read_output` of a ``function_call_output`` of a string output."""
    call_id, output = item.get("call_id"), item.get("output")
    if type(call_id) is not str or type(output) is not str:
        return None
    mine: dict[str, Any] = {}
    consumed = _OUTPUT_CONSUMED
    named = _plain_string(item.get("name"))
    if named is None:
        return None
    if named:
        name = item["name"]
        consumed = _OUTPUT_CONSUMED_NAME
        mine["name"] = True
    else:
        name = names.get(call_id, UNKNOWN_TOOL)
        if type(name) is not str:
            return None
    fields = _plain_rest(item, consumed)
    if fields is None:
        return None
    if fields:
        mine["fields"] = fields
    return built_result(call_id, name, built_text_output(output), _options({}, mine))


_OUTPUT_CONSUMED = frozenset({"type", "call_id", "output"})
_OUTPUT_CONSUMED_NAME = _OUTPUT_CONSUMED | {"name"}


def _fast_reasoning(item: Item) -> _Parts | None:
    """:func:`_read_reasoning` of a reasoning item with an id and a summary of ``summary_text``
    entries of exactly ``type`` and ``text`` (maybe none), not cut off."""
    if item.get("status") in _CUT_OFF:
        return None
    item_id, summary = item.get("id"), item.get("summary")
    if type(item_id) is not str or type(summary) is not list:
        return None
    openai: dict[str, Any] = {"itemId": item_id}
    consumed = _REASONING_CONSUMED
    enc = item.get("encrypted_content", _ABSENT)
    if enc is None or type(enc) is str:
        openai["reasoningEncryptedContent"] = enc
        consumed = _REASONING_CONSUMED_ENC
    # Any other value stays in ``fields``, as the general path leaves it (_plain_rest sends a
    # string of a subclass there to the general path).
    fields = _plain_rest(item, consumed)
    if fields is None:
        return None
    item_mine: dict[str, Any] = {"fields": fields} if fields else {}
    if not summary:
        options = _options(openai, {**item_mine, "summaryIndex": None})
        return [(built_reasoning("", options), None)]
    parts: _Parts = []
    for j, el in enumerate(summary):
        if type(el) is not dict or len(el) != 2 or el.get("type") != "summary_text":
            return None
        text = el.get("text")
        if type(text) is not str:
            return None
        options = _options(openai, {**item_mine, "summaryIndex": j})
        parts.append((built_reasoning(text, options), j))
    return parts


_REASONING_CONSUMED = frozenset({"type", "summary", "id"})
_REASONING_CONSUMED_ENC = _REASONING_CONSUMED | {"encrypted_content"}


def _as_item(raw: Any, path: str) -> Item:
    if isinstance(raw, BaseModel):
        # OpenAI SDK output items (response.output): their JSON, as the SDK itself sends them.
        raw = raw.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if not isinstance(raw, Mapping):
        raise InputError(f"expected an input item object, got {_kind(raw)}", path=path)
    return dict(raw)


def _classify(item: Item, path: str) -> str:
    kind = item.get("type", _ABSENT)
    if kind is _ABSENT or kind == "message":
        role = item.get("role", _ABSENT)
        if role is _ABSENT:
            if kind is _ABSENT and isinstance(item.get("id"), str):
                return "item_reference"  # the one item whose "type" is optional and role-less
            raise InputError("item has no type and no role", path=path)
        if role == "user":
            return "user"
        if role in ("system", "developer"):
            return "system"
        if role == "assistant":
            return "assistant"
        raise InputError(
            f"unknown role {shown(role)} (expected user, assistant, system or developer)",
            path=f"{path}.role",
        )
    if not isinstance(kind, str):
        raise InputError(f"item type must be a string, got {_kind(kind)}", path=f"{path}.type")
    if kind in _PAIRED_OUTPUTS:
        return "output" if kind != "tool_search_output" or _client_search(item) else "opaque"
    if kind in _PAIRED_CALLS:
        return "paired_call" if kind != "tool_search_call" or _client_search(item) else "opaque"
    if kind in ("function_call", "reasoning", "item_reference"):
        return kind
    return "opaque"


_PAIRED_CALLS: dict[str, str | None] = {
    "custom_tool_call": None,  # the item's own name
    "local_shell_call": "local_shell",
    "tool_search_call": "tool_search",
}
"""Call items that pair with an output by ``call_id`` as a function call does, and the tool
name each gets (the AI SDK's names for the built-in tools)."""

_PAIRED_OUTPUTS: dict[str, str] = {
    "function_call_output": "function_call",
    "custom_tool_call_output": "custom_tool_call",
    "local_shell_call_output": "local_shell_call",
    "tool_search_output": "tool_search_call",
}
"""Output items, each with the kind of call it answers."""

_OUTPUT_OF = {call: output for output, call in _PAIRED_OUTPUTS.items()}


def _client_search(item: Mapping[str, Any]) -> bool:
    """Whether a tool search item is the client's to answer: it has a ``call_id`` and is not
    marked ``execution: "server"`` (a server-run search carries its own output, like a web
    search, and stays an opaque item)."""
    return (
        item.get("type") in ("tool_search_call", "tool_search_output")
        and isinstance(item.get("call_id"), str)
        and item.get("execution") != "server"
    )


def _read_user(item: Item, path: str) -> UserMessage:
    content = item.get("content", _ABSENT)
    fields = _rest(item, {"role", "content"})
    options = _options({}, {"fields": fields} if fields else {})
    if isinstance(content, str):
        return _make(UserMessage, path, content=content, provider_options=options)
    if not isinstance(content, list):
        raise InputError(
            f"content must be a string or a list, got {_kind(content)}", path=f"{path}.content"
        )
    parts = [_read_user_part(el, f"{path}.content[{j}]") for j, el in enumerate(content)]
    return _make(UserMessage, path, content=tuple(parts), provider_options=options)


def _read_user_part(raw: Any, path: str) -> TextPart | ImagePart | FilePart:
    el = _as_element(raw, path)
    kind = el.get("type")
    mine: dict[str, Any] = {}
    openai: dict[str, Any] = {}
    if "prompt_cache_breakpoint" in el:
        openai["promptCacheBreakpoint"] = el["prompt_cache_breakpoint"]
    if kind in ("input_text", "output_text"):
        text = _str_field(el, "text", path)
        if kind != "input_text":
            mine["contentType"] = kind
        _keep_rest(mine, el, {"type", "text", "prompt_cache_breakpoint"})
        return _make(TextPart, path, text=text, provider_options=_options(openai, mine))
    if kind == "input_image":
        key = _source(el, ("image_url", "file_id"), path)
        value = el[key]
        consumed = {"type", key, "prompt_cache_breakpoint"}
        if key != "image_url" or not _URL.match(value):
            mine["source"] = key
        if isinstance(el.get("detail"), str):
            openai["imageDetail"] = el["detail"]
            consumed.add("detail")
        elif "detail" not in el:
            mine["noDetail"] = True  # written back without one (see _dump_user_part)
        _keep_rest(mine, el, consumed)
        return _make(ImagePart, path, image=value, provider_options=_options(openai, mine))
    if kind == "input_file":
        key = _source(el, ("file_data", "file_url", "file_id"), path)
        value = el[key]
        consumed = {"type", key, "prompt_cache_breakpoint"}
        if key != "file_data" or not value.startswith("data:"):
            mine["source"] = key
        match = _DATA_URL.fullmatch(value) if key == "file_data" else None
        media_type = match.group(1) if match else "application/octet-stream"
        filename = el.get("filename")
        if isinstance(filename, str):
            consumed.add("filename")
        _keep_rest(mine, el, consumed)
        return _make(
            FilePart,
            path,
            data=value,
            media_type=media_type,
            filename=filename if isinstance(filename, str) else None,
            provider_options=_options(openai, mine),
        )
    raise InputError(f"content type {shown(kind)} cannot be represented", path=f"{path}.type")


def _read_system(item: Item, path: str) -> SystemMessage:
    content = item.get("content", _ABSENT)
    consumed = {"content"} | ({"role"} if item.get("role") == "system" else set())
    mine: dict[str, Any] = {}
    openai: dict[str, Any] = {}
    if isinstance(content, list):
        if len(content) != 1:
            raise InputError(
                f"a system message with {len(content)} content elements cannot be represented "
                "(only a string or one input_text)",
                path=f"{path}.content",
            )
        el = _as_element(content[0], f"{path}.content[0]")
        if el.get("type") != "input_text":
            raise InputError(
                f"a system message with {shown(el.get('type'))} content cannot be represented",
                path=f"{path}.content[0].type",
            )
        content = _str_field(el, "text", f"{path}.content[0]")
        mine["contentList"] = True
        if "prompt_cache_breakpoint" in el:
            openai["promptCacheBreakpoint"] = el["prompt_cache_breakpoint"]
        _keep_rest(mine, el, {"type", "text", "prompt_cache_breakpoint"})
    elif not isinstance(content, str):
        raise InputError(
            f"content must be a string or a list, got {_kind(content)}", path=f"{path}.content"
        )
    fields = _rest(item, consumed)
    if fields:
        mine["fields"] = fields
    return _make(SystemMessage, path, content=content, provider_options=_options(openai, mine))


def _read_assistant_item(kind: str, item: Item, i: int, path: str) -> _Parts:
    if kind == "assistant":
        return _read_assistant_message(item, path)
    if kind == "reasoning":
        return _read_reasoning(item, path)
    if kind == "function_call":
        return [(_read_function_call(item, path), None)]
    if kind == "paired_call":
        return [(_read_paired_call(item, path), None)]
    if kind == "item_reference" and str(item.get("id", "")).startswith("rs_"):
        fields = _rest(item, {"id"})
        mine: dict[str, Any] = {"itemReference": True}
        if fields:
            mine["fields"] = fields
        options = _options({"itemId": item["id"]}, mine)
        return [(_make(ReasoningPart, path, text="", provider_options=options), None)]
    return [(_read_opaque(item, i, path), None)]


def _read_assistant_message(item: Item, path: str) -> _Parts:
    content = item.get("content", _ABSENT)
    openai: dict[str, Any] = {}
    consumed = {"role", "content"}
    if isinstance(item.get("id"), str):
        openai["itemId"] = item["id"]
        consumed.add("id")
    if isinstance(item.get("phase"), str):
        openai["phase"] = item["phase"]
        consumed.add("phase")
    item_mine: dict[str, Any] = {}
    fields = _rest(item, consumed)
    if fields:
        item_mine["fields"] = fields
    if isinstance(content, str):
        options = _options(openai, item_mine)
        return [(_make(TextPart, path, text=content, provider_options=options), None)]
    if not isinstance(content, list):
        raise InputError(
            f"content must be a string or a list, got {_kind(content)}", path=f"{path}.content"
        )
    if not content:
        options = _options(openai, {**item_mine, "contentIndex": None})
        return [(_make(TextPart, path, text="", provider_options=options), None)]
    parts: _Parts = []
    for j, raw in enumerate(content):
        el_path = f"{path}.content[{j}]"
        el = _as_element(raw, el_path)
        el_type = el.get("type")
        if el_type not in _ASSISTANT_TEXT_TYPES:
            raise InputError(
                f"{shown(el_type)} content in an assistant message cannot be represented",
                path=f"{el_path}.type",
            )
        key = "refusal" if el_type == "refusal" else "text"
        text = _str_field(el, key, el_path)
        mine: dict[str, Any] = {**item_mine, "contentIndex": j}
        part_openai = dict(openai)
        if len(content) > 1 and "itemId" in openai:
            # One item, several text parts: only the first carries the item id, as heal's
            # duplicate-item-id rule (and the API) count every text part with an id as an item.
            mine["itemId"] = openai["itemId"]
            if j > 0:
                del part_openai["itemId"]
        if el_type != "output_text":
            mine["contentType"] = el_type
        if "prompt_cache_breakpoint" in el:
            part_openai["promptCacheBreakpoint"] = el["prompt_cache_breakpoint"]
        _keep_rest(mine, el, {"type", key, "prompt_cache_breakpoint"})
        options = _options(part_openai, mine)
        parts.append((_make(TextPart, el_path, text=text, provider_options=options), j))
    return parts


def _read_reasoning(item: Item, path: str) -> _Parts:
    openai: dict[str, Any] = {}
    consumed = {"type", "summary"}
    if isinstance(item.get("id"), str):
        openai["itemId"] = item["id"]
        consumed.add("id")
    enc = item.get("encrypted_content", _ABSENT)
    if enc is None or isinstance(enc, str):
        openai["reasoningEncryptedContent"] = enc
        consumed.add("encrypted_content")
    item_mine: dict[str, Any] = {}
    fields = _rest(item, consumed)
    if fields:
        item_mine["fields"] = fields
    summary = item.get("summary", _ABSENT)
    if summary is _ABSENT or summary == []:
        mine = {**item_mine, "summaryIndex": None}
        if summary is _ABSENT:
            mine["noSummary"] = True
        options = _options(openai, mine)
        return [(_make(ReasoningPart, path, text="", provider_options=options), None)]
    if not isinstance(summary, list):
        raise InputError(f"summary must be a list, got {_kind(summary)}", path=f"{path}.summary")
    parts: _Parts = []
    for j, raw in enumerate(summary):
        el_path = f"{path}.summary[{j}]"
        el = _as_element(raw, el_path)
        if el.get("type") != "summary_text":
            raise InputError(
                f"summary entry of type {shown(el.get('type'))} cannot be represented "
                "(expected summary_text)",
                path=f"{el_path}.type",
            )
        text = _str_field(el, "text", el_path)
        mine = {**item_mine, "summaryIndex": j}
        _keep_rest(mine, el, {"type", "text"})
        options = _options(openai, mine)
        parts.append((_make(ReasoningPart, el_path, text=text, provider_options=options), j))
    return parts


def _read_function_call(item: Item, path: str) -> ToolCallPart:
    call_id = _str_field(item, "call_id", path)
    name = _str_field(item, "name", path)
    arguments = _str_field(item, "arguments", path)
    value, raw = _parse_arguments(arguments)
    openai: dict[str, Any] = {}
    consumed = {"type", "call_id", "name", "arguments"}
    if isinstance(item.get("id"), str):
        openai["itemId"] = item["id"]
        consumed.add("id")
    if isinstance(item.get("namespace"), str):
        openai["namespace"] = item["namespace"]
        consumed.add("namespace")
    if isinstance(item.get("async"), bool):
        openai["async"] = item["async"]
        consumed.add("async")
    mine: dict[str, Any] = {}
    if raw is not None:
        mine["arguments"] = raw
    _keep_rest(mine, item, consumed, key="fields")
    return _make(
        ToolCallPart,
        path,
        tool_call_id=call_id,
        tool_name=name,
        input=value,
        provider_options=_call_options(item, openai, mine),
    )


_PAIRED_INPUTS = {"custom_tool_call": "input", "local_shell_call": "action"}
"""The field of a paired call item that becomes its canonical input, wrapped in an object under
the same key (``{"input": "<text>"}``, ``{"action": {...}}``) since heal repairs any tool input
that is not a JSON object; a tool search's ``arguments`` go under ``arguments``."""


def _read_paired_call(item: Item, path: str) -> ToolCallPart:
    """A ``custom_tool_call``, ``local_shell_call`` or client ``tool_search_call``: a tool call
    that its output answers by ``call_id``, as a function call is (so the pairing rules apply).
    ``providerOptions.heal.openai_responses.kind`` keeps the item type, and ``fields`` what the
    canonical part has no place for, so it writes back unchanged."""
    kind = item["type"]
    call_id = _str_field(item, "call_id", path)
    name = _PAIRED_CALLS[kind] or _str_field(item, "name", path)
    key = _PAIRED_INPUTS.get(kind, "arguments")
    if key not in item:
        raise InputError(f"{kind} has no {key}", path=path)
    if kind == "custom_tool_call":
        _str_field(item, key, path)
    openai: dict[str, Any] = {}
    consumed = {"type", "call_id", key} | ({"name"} if kind == "custom_tool_call" else set())
    if isinstance(item.get("id"), str):
        openai["itemId"] = item["id"]
        consumed.add("id")
    for field in ("namespace", "async"):
        if kind == "custom_tool_call" and field in item:
            openai[field] = item[field]
            consumed.add(field)
    mine: dict[str, Any] = {"kind": kind}
    _keep_rest(mine, item, consumed, key="fields")
    return _make(
        ToolCallPart,
        path,
        tool_call_id=call_id,
        tool_name=name,
        input={key: item[key]},
        provider_options=_call_options(item, openai, mine),
    )


_CUT_OFF = ("incomplete", "in_progress")
"""Item statuses of a turn cut off before the model finished: ``incomplete`` (the response hit
``max_output_tokens`` or was stopped, as ``response.incomplete_details`` says), and
``in_progress`` kept in a history (an item stored from a stream that never finished it)."""

_ABORTED: ProviderOptions = {HEAL_NAMESPACE: {ABORTED: True}}
"""heal's aborted marker (:data:`heal.rules.tool_pairing.ABORTED`) on a canonical assistant
message; never written back (it is not under this format's namespace)."""


def _call_options(
    item: Item, openai: Mapping[str, Any], mine: Mapping[str, Any]
) -> ProviderOptions | None:
    """A call item's provider options, with heal's aborted marker when its status says the call
    was cut off (the ``status`` itself stays in ``fields``, written back as it came)."""
    options = _options(openai, mine)
    if item.get("status") not in _CUT_OFF:
        return options
    out = dict(options or {})
    out[HEAL_NAMESPACE] = {**out.get(HEAL_NAMESPACE, {}), ABORTED: True}
    return out


def _parse_arguments(arguments: str) -> tuple[Any, str | None]:
    """The tool input for an ``arguments`` string, and the string itself when the input does not
    serialize back to it exactly (compact JSON is what the API and the AI SDK write)."""
    value = _arguments_object(arguments)
    if value is None:
        return arguments, None
    return value, (None if _compact(value) == arguments else arguments)


def _arguments_object(arguments: str) -> dict[str, Any] | None:
    """The JSON object an ``arguments`` string holds, or None when it holds none (what
    ``json.loads`` refuses, ``NaN`` and the other constants JSON does not have, any other
    value). The one decoder is built once: ``json.loads`` with an option builds one a call."""
    if arguments.startswith("\ufeff"):
        return None  # json.loads refuses a string that starts with a byte order mark
    try:
        value = _DECODE_ARGUMENTS(arguments)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_DECODE_ARGUMENTS = json.JSONDecoder(parse_constant=_reject_constant).decode


def _compact(value: Any) -> str:
    return _COMPACT(value)


_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
"""``json.dumps(value, separators=(",", ":"), ensure_ascii=False)``, with the encoder built once
(``json.dumps`` with options builds one a call, a third of reading a call's arguments)."""


def _read_opaque(item: Item, i: int, path: str) -> ToolCallPart:
    kind = str(item.get("type", "item_reference"))
    openai = {"itemId": item["id"]} if isinstance(item.get("id"), str) else {}
    # A positional id: unique, valid for every provider, and never rewritten by a rule, so that
    # no repair is reported on an item that is written back verbatim.
    call_id = f"{_UNSAFE_ID.sub('_', kind)}_{i}"
    return _make(
        ToolCallPart,
        path,
        tool_call_id=call_id,
        tool_name=kind,
        input={},
        provider_executed=True,
        provider_options=_options(openai, {"item": item}),
    )


def _read_output(item: Item, path: str, names: Mapping[str, str]) -> ToolResultPart:
    """An output item: a tool-result part of a tool message. Besides ``function_call_output``,
    the outputs of the paired calls (``_PAIRED_OUTPUTS``), marked with their ``kind``: a
    ``local_shell_call_output`` names its call by ``call_id`` or, as the SDK types have it, by
    ``id`` (``idKey`` records which); a ``tool_search_output``'s ``tools`` become a JSON output
    ``{"tools": [...]}``."""
    kind = item["type"]
    key = "call_id"
    if kind == "local_shell_call_output" and "call_id" not in item:
        key = "id"
    call_id = _str_field(item, key, path)
    value = "tools" if kind == "tool_search_output" else "output"
    output = item.get(value, _ABSENT)
    consumed = {"type", key, value}
    mine: dict[str, Any] = {}
    if kind != "function_call_output":
        mine["kind"] = kind
        if key != "call_id":
            mine["idKey"] = key
    name = item.get("name") if kind == "function_call_output" else None
    if isinstance(name, str):
        consumed.add("name")
        mine["name"] = True
    else:
        name = names.get(call_id, UNKNOWN_TOOL)
    if kind == "tool_search_output":
        if not isinstance(output, list):
            raise InputError(f"tools must be a list, got {_kind(output)}", path=f"{path}.tools")
        result: ToolResultOutput = JsonOutput(value={"tools": output})
    elif kind == "local_shell_call_output" and not isinstance(output, str):
        raise InputError(f"output must be a string, got {_kind(output)}", path=f"{path}.output")
    elif isinstance(output, str):
        result = TextOutput(value=output)
    elif isinstance(output, list):
        result = _make(
            ContentOutput,
            f"{path}.output",
            value=tuple(
                _read_output_element(el, f"{path}.output[{j}]") for j, el in enumerate(output)
            ),
        )
    else:
        raise InputError(
            f"output must be a string or a list, got {_kind(output)}", path=f"{path}.output"
        )
    _keep_rest(mine, item, consumed, key="fields")
    return _make(
        ToolResultPart,
        path,
        tool_call_id=call_id,
        tool_name=name,
        output=result,
        provider_options=_options({}, mine),
    )


def _read_output_element(raw: Any, path: str) -> dict[str, Any]:
    el = _as_element(raw, path)
    kind = el.get("type")
    openai: dict[str, Any] = {}
    mine: dict[str, Any] = {}
    consumed = {"type", "prompt_cache_breakpoint"}
    if "prompt_cache_breakpoint" in el:
        openai["promptCacheBreakpoint"] = el["prompt_cache_breakpoint"]
    out: dict[str, Any]
    if kind == "input_text":
        out = {"type": "text", "text": _str_field(el, "text", path)}
        consumed.add("text")
    elif kind == "input_image":
        key = _source(el, ("image_url", "file_id"), path)
        out = (
            {"type": "image-url", "url": el[key]}
            if key == "image_url"
            else {"type": "image-file-id", "fileId": el[key]}
        )
        consumed.add(key)
        if isinstance(el.get("detail"), str):
            openai["imageDetail"] = el["detail"]
            consumed.add("detail")
    elif kind == "input_file":
        key = _source(el, ("file_data", "file_url", "file_id"), path)
        consumed.add(key)
        if key == "file_data":
            match = _DATA_URL.fullmatch(el[key])
            if match:
                out = {"type": "file-data", "data": match.group(2), "mediaType": match.group(1)}
            else:
                out = {
                    "type": "file-data",
                    "data": el[key],
                    "mediaType": "application/octet-stream",
                }
                mine["rawData"] = True
            if isinstance(el.get("filename"), str):
                out["filename"] = el["filename"]
                consumed.add("filename")
        elif key == "file_url":
            out = {"type": "file-url", "url": el[key]}
        else:
            out = {"type": "file-id", "fileId": el[key]}
    else:
        raise InputError(
            f"output content type {shown(kind)} cannot be represented", path=f"{path}.type"
        )
    _keep_rest(mine, el, consumed)
    options = _options(openai, mine)
    if options is not None:
        out["providerOptions"] = options
    return out


# --- writing ---------------------------------------------------------------------------------


def _dump_system(message: SystemMessage) -> Item:
    mine, openai = _mine(message.provider_options), _openai(message.provider_options)
    item: Item = {"role": "system"}
    if mine.get("contentList") or "promptCacheBreakpoint" in openai:
        el: Item = {"type": "input_text", "text": message.content}
        if "promptCacheBreakpoint" in openai:
            el["prompt_cache_breakpoint"] = openai["promptCacheBreakpoint"]
        el.update(mine.get("contentFields", {}))
        item["content"] = [el]
    else:
        item["content"] = message.content
    item.update(mine.get("fields", {}))
    return item


def _dump_user(message: UserMessage, path: str) -> Item:
    item: Item = {"role": "user"}
    if isinstance(message.content, str):
        item["content"] = message.content
    else:
        item["content"] = [
            _dump_user_part(part, f"{path}.content[{j}]") for j, part in enumerate(message.content)
        ]
    # A system message a rule turned into user text keeps its fields, "role": "developer"
    # among them: the message is the user's now.
    fields = _mine(message.provider_options).get("fields", {})
    item.update({k: v for k, v in fields.items() if k != "role"})
    return item


def _dump_user_part(part: TextPart | ImagePart | FilePart, path: str) -> Item:
    mine, openai = _mine(part.provider_options), _openai(part.provider_options)
    el: Item
    if isinstance(part, TextPart):
        el = {"type": mine.get("contentType", "input_text"), "text": part.text}
    elif isinstance(part, ImagePart):
        el = {"type": "input_image"}
        source = mine.get("source")
        if source is not None:
            el[source] = part.image
        else:
            el["image_url"] = _as_url(part.image, part.media_type or "image/jpeg")
        if "imageDetail" in openai:
            el["detail"] = openai["imageDetail"]
        elif not mine.get("noDetail"):
            # The SDK's ResponseInputImageParam requires ``detail``; "auto" is the API's default,
            # so an image from another format (or the AI SDK, which leaves it out without
            # ``imageDetail``) means the same with it. An input_image read from Responses input
            # without one is marked ``noDetail`` and goes back as it came (dump(load(x)) == x).
            el["detail"] = "auto"
    else:
        el = {"type": "input_file"}
        source = mine.get("source")
        if source is not None:
            el[source] = part.data
        else:
            url = _as_url(part.data, part.media_type)
            el["file_data" if url.startswith("data:") else "file_url"] = url
        if part.filename is not None:
            el["filename"] = part.filename
    if "promptCacheBreakpoint" in openai:
        el["prompt_cache_breakpoint"] = openai["promptCacheBreakpoint"]
    el.update(mine.get("contentFields", {}))
    return el


def _as_url(data: str | bytes, media_type: str) -> str:
    if isinstance(data, bytes):
        import base64

        return f"data:{media_type};base64,{base64.b64encode(data).decode('ascii')}"
    if _URL.match(data):
        return data
    return f"data:{media_type};base64,{data}"


def _dump_assistant(
    message: AssistantMessage, path: str, replayed: set[str], kinds: dict[str, str]
) -> list[Item]:
    if isinstance(message.content, str):
        return [{"role": "assistant", "content": message.content}]
    out: list[Item] = []
    # The item still open for continuation parts (later content elements / summary entries).
    open_kind: str | None = None
    open_item: Item = {}
    open_id: Any = None
    for j, part in enumerate(message.content):
        ppath = f"{path}.content[{j}]"
        mine, openai = _mine(part.provider_options), _openai(part.provider_options)
        item_id = openai.get("itemId")
        if isinstance(part, TextPart):
            index = mine.get("contentIndex", _ABSENT)
            group = mine.get("itemId")
            if isinstance(index, int) and index > 0 and open_kind == "message" and open_id == group:
                open_item["content"].append(_dump_text_element(part, mine, openai))
                continue
            item: Item = {"role": "assistant"}
            if isinstance(index, int) and index > 0 and isinstance(group, str):
                # The first content elements were removed: the rest is still that item.
                item_id = group
            if isinstance(item_id, str):
                item["id"] = item_id
            if "phase" in openai:
                item["phase"] = openai["phase"]
            open_kind = None
            if index is _ABSENT:
                item["content"] = part.text
            elif index is None:
                item["content"] = []
            else:
                item["content"] = [_dump_text_element(part, mine, openai)]
                open_kind, open_item, open_id = "message", item, group
            item.update(mine.get("fields", {}))
            out.append(item)
        elif isinstance(part, ReasoningPart):
            if mine.get("itemReference"):
                out.append({"id": item_id, **mine.get("fields", {})})
                open_kind = None
                continue
            index = mine.get("summaryIndex", _ABSENT)
            foreign = index is _ABSENT
            continues = (index > 0) if isinstance(index, int) else foreign and item_id is not None
            if continues and open_kind == "reasoning" and open_id == item_id:
                if not foreign or part.text:
                    open_item["summary"].append(_dump_summary(part, mine))
                if foreign and openai.get("reasoningEncryptedContent") is not None:
                    open_item["encrypted_content"] = openai["reasoningEncryptedContent"]
                continue
            if foreign and item_id is None and openai.get("reasoningEncryptedContent") is None:
                if _synthesized(part) and not part.text:
                    out.append(dict(_EMPTY_REASONING_ITEM))
                    open_kind = None
                    continue
                raise InputError(
                    "reasoning without an OpenAI item id or encrypted content (another "
                    "provider's reasoning) cannot be sent to the Responses API; heal with "
                    "provider='openai-responses' or remove it",
                    path=ppath,
                )
            item = {"type": "reasoning"}
            if isinstance(item_id, str):
                item["id"] = item_id
            if "reasoningEncryptedContent" in openai:
                item["encrypted_content"] = openai["reasoningEncryptedContent"]
            if not mine.get("noSummary"):
                has_entry = isinstance(index, int) or (foreign and part.text)
                item["summary"] = [_dump_summary(part, mine)] if has_entry else []
            item.update(mine.get("fields", {}))
            out.append(item)
            open_kind, open_item, open_id = "reasoning", item, item_id
        elif isinstance(part, ToolCallPart):
            open_kind = None
            if isinstance(mine.get("item"), dict):
                out.append(dict(mine["item"]))
                replayed.add(part.tool_call_id)
            elif part.provider_executed:
                if isinstance(item_id, str):
                    reference = item_id
                elif OPENAI_SERVER_ITEM.fullmatch(part.tool_call_id):
                    # How the AI SDK keeps OpenAI's own server-tool call: the item id is the
                    # toolCallId (it sends the result as the reference; one reference is enough).
                    reference = part.tool_call_id
                else:
                    raise InputError(
                        "a provider-executed tool call without an OpenAI item id cannot be "
                        "represented as a Responses input item",
                        path=ppath,
                    )
                out.append({"type": "item_reference", "id": reference})
                replayed.add(part.tool_call_id)
            else:
                out.append(_dump_call(part, mine, openai, kinds))
        elif isinstance(part, ToolResultPart) and part.tool_call_id in replayed:
            # A server tool's item holds its result: the call's item (or the reference to it)
            # already stands for both, and Responses input has no separate item for it.
            continue
        else:
            raise InputError(
                f"a {part.type} part in an assistant message cannot be represented as a "
                "Responses input item",
                path=ppath,
            )
    return out


_EMPTY_REASONING_ITEM: Item = {
    "type": "reasoning",
    "summary": [],
    "content": [{"type": "reasoning_text", "text": ""}],
}
"""How the empty reasoning part heal adds for DeepSeek (``missing-reasoning-content``) is written.

DeepSeek's Responses endpoint (``api.deepseek.com/v1/responses``, live since 2026-07-31:
api-docs.deepseek.com/guides/responses_api; anomalyco/opencode#39992, HKUDS/nanobot PR#5197)
keeps the rule of its Chat Completions one: a tool-call turn in thinking mode must come back
with its reasoning, which it reads from a reasoning item's ``reasoning_text`` content (``The
`reasoning_text` in the thinking mode must be passed back to the API.``, rikkahub/rikkahub#1629),
as its chat endpoint reads ``reasoning_content``. An empty text is what heal has: the field must
be present, as ``""`` is on the chat endpoint. The item has no ``id``: heal issues none, and the
endpoint is stateless (the caller replays items, nanobot PR#5197). It reads back as an empty
reasoning part with its ``content`` kept verbatim, so a second heal finds the turn's reasoning
and changes nothing. Only synthesized, empty parts take this form: the rule adds them for
DeepSeek alone, and any other reasoning without an OpenAI item id is another provider's."""


def _synthesized(part: ReasoningPart) -> bool:
    mark = (part.provider_options or {}).get(HEAL_NAMESPACE)
    return isinstance(mark, dict) and mark.get("synthesized") is True


def _dump_text_element(part: TextPart, mine: Mapping[str, Any], openai: Mapping[str, Any]) -> Item:
    kind = mine.get("contentType", "output_text")
    el: Item = {"type": kind, "refusal" if kind == "refusal" else "text": part.text}
    if "promptCacheBreakpoint" in openai:
        el["prompt_cache_breakpoint"] = openai["promptCacheBreakpoint"]
    el.update(mine.get("contentFields", {}))
    return el


def _dump_summary(part: ReasoningPart, mine: Mapping[str, Any]) -> Item:
    return {"type": "summary_text", "text": part.text, **mine.get("contentFields", {})}


def _dump_call(
    part: ToolCallPart, mine: Mapping[str, Any], openai: Mapping[str, Any], kinds: dict[str, str]
) -> Item:
    """A tool call as the item it was read from: a function call, or a paired call of the kind
    it records (whose output kind ``kinds`` then remembers, for a result heal made up)."""
    kind = mine.get("kind")
    if kind not in _PAIRED_CALLS:
        kinds[part.tool_call_id] = "function_call"
        return _dump_function_call(part, mine, openai)
    kinds[part.tool_call_id] = kind
    key = _PAIRED_INPUTS.get(kind, "arguments")
    value = part.input.get(key) if isinstance(part.input, dict) else None
    item: Item = {"type": kind, "call_id": part.tool_call_id}
    if kind == "custom_tool_call":
        item["name"] = part.tool_name
        if not isinstance(value, str):  # an input heal replaced: its JSON text
            value = _compact({} if part.input is None else part.input)
    elif value is None:
        value = {}
    item[key] = value
    if isinstance(openai.get("itemId"), str):
        item["id"] = openai["itemId"]
    if kind == "custom_tool_call":
        for field in ("namespace", "async"):
            if field in openai:
                item[field] = openai[field]
    item.update(mine.get("fields", {}))
    return item


def _dump_function_call(
    part: ToolCallPart, mine: Mapping[str, Any], openai: Mapping[str, Any]
) -> Item:
    item: Item = {
        "type": "function_call",
        "call_id": part.tool_call_id,
        "name": part.tool_name,
        "arguments": _arguments(part.input, mine.get("arguments")),
    }
    if isinstance(openai.get("itemId"), str):
        item["id"] = openai["itemId"]
    for key in ("namespace", "async"):
        if key in openai:
            item[key] = openai[key]
    item.update(mine.get("fields", {}))
    return item


def _arguments(value: Any, raw: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(raw, str):
        # The exact text as it was read, unless a repair has changed the input since.
        parsed, _ = _parse_arguments(raw)
        if parsed == value:
            return raw
    return _compact({} if value is None else value)


def _dump_tool(message: ToolMessage, path: str, kinds: Mapping[str, str]) -> list[Item]:
    out: list[Item] = []
    for j, part in enumerate(message.content):
        if isinstance(part, ToolApprovalResponse):
            response: Item = {
                "type": "mcp_approval_response",
                "approval_request_id": part.approval_id,
                "approve": part.approved,
            }
            if part.reason is not None:
                response["reason"] = part.reason
            out.append(response)
            continue
        mine = _mine(part.provider_options)
        kind = mine.get("kind")
        if not isinstance(kind, str) or kind not in _PAIRED_OUTPUTS:
            # A result heal made up answers its call with that call's output kind.
            kind = _OUTPUT_OF.get(kinds.get(part.tool_call_id, ""), "function_call_output")
        opath = f"{path}.content[{j}].output"
        if kind == "function_call_output":
            item: Item = {
                "type": kind,
                "call_id": part.tool_call_id,
                "output": _dump_output(part.output, opath),
            }
            if mine.get("name"):
                item["name"] = part.tool_name
        else:
            item = _dump_paired_output(part, kind, mine, opath)
        item.update(mine.get("fields", {}))
        out.append(item)
    return out


def _dump_paired_output(
    part: ToolResultPart, kind: str, mine: Mapping[str, Any], path: str
) -> Item:
    """The output item of a paired call (see ``_read_output``). A tool search's ``tools`` come
    from a JSON output ``{"tools": [...]}``; a result heal made up for one (which has no tools
    to give) is written as a client search that found none, since the item has no field for
    text. A local shell's output is text (JSON, as the shell tool writes it)."""
    if kind == "tool_search_output":
        value = part.output.value if isinstance(part.output, JsonOutput) else None
        tools = value.get("tools") if isinstance(value, dict) else None
        item: Item = {"type": kind, "call_id": part.tool_call_id}
        if not mine:
            item.update(execution="client", status="completed")
        item["tools"] = tools if isinstance(tools, list) else []
        return item
    output = _dump_output(part.output, path)
    if kind == "local_shell_call_output":
        if not isinstance(output, str):
            output = _compact(output)
        # The SDK types name the call by ``id``; the AI SDK writes ``call_id``: as it came, and
        # ``id`` for a result heal made up.
        key = mine.get("idKey") or ("call_id" if mine else "id")
        return {"type": kind, key: part.tool_call_id, "output": output}
    return {"type": kind, "call_id": part.tool_call_id, "output": output}


def _dump_output(output: ToolResultOutput, path: str) -> str | list[Item]:
    if isinstance(output, (TextOutput, ErrorTextOutput)):
        return output.value
    if isinstance(output, (JsonOutput, ErrorJsonOutput)):
        return _compact(output.value)
    if isinstance(output, ExecutionDeniedOutput):
        return output.reason if output.reason is not None else "Tool call execution denied."
    if any(el.get("type") not in _OUTPUT_ELEMENT_KINDS for el in output.value):
        # Content with no output element (another provider's, such as an Anthropic search
        # result: a "custom" item) goes as the output's JSON text, as heal.adapters.openai_chat
        # writes such outputs (the AI SDK would drop the item). Responses input never has it.
        return _compact(list(output.value))
    return [_dump_output_element(el, f"{path}.value[{k}]") for k, el in enumerate(output.value)]


_OUTPUT_ELEMENT_KINDS = frozenset(
    {"text", "image-url", "image-file-id", "image-data", "file-data", "file-url", "file-id"}
)
"""Content output items that have a function_call_output element (see _dump_output_element)."""


def _dump_output_element(el: Mapping[str, Any], path: str) -> Item:
    options = el.get("providerOptions")
    mine, openai = _mine(options), _openai(options)
    kind = el.get("type")
    out: Item
    if kind == "text":
        out = {"type": "input_text", "text": el.get("text")}
    elif kind == "image-url":
        out = {"type": "input_image", "image_url": el.get("url")}
    elif kind == "image-file-id":
        out = {"type": "input_image", "file_id": el.get("fileId")}
    elif kind == "image-data":
        out = {
            "type": "input_image",
            "image_url": f"data:{el.get('mediaType')};base64,{el.get('data')}",
        }
    elif kind == "file-data":
        data = el.get("data")
        out = {
            "type": "input_file",
            "file_data": data
            if mine.get("rawData")
            else f"data:{el.get('mediaType')};base64,{data}",
        }
        if isinstance(el.get("filename"), str):
            out["filename"] = el["filename"]
    elif kind == "file-url":
        out = {"type": "input_file", "file_url": el.get("url")}
    elif kind == "file-id":
        out = {"type": "input_file", "file_id": el.get("fileId")}
    else:
        raise InputError(
            f"tool output content of type {shown(kind)} cannot be represented", path=path
        )
    if "imageDetail" in openai and out["type"] == "input_image":
        out["detail"] = openai["imageDetail"]
    if "promptCacheBreakpoint" in openai:
        out["prompt_cache_breakpoint"] = openai["promptCacheBreakpoint"]
    out.update(mine.get("contentFields", {}))
    return out


# --- helpers ---------------------------------------------------------------------------------


def _options(openai: Mapping[str, Any], mine: Mapping[str, Any]) -> ProviderOptions | None:
    out: dict[str, Any] = {}
    if openai:
        out["openai"] = dict(openai)
    if mine:
        out["heal"] = {NAMESPACE: dict(mine)}
    return out or None


def _mine(options: Mapping[str, Any] | None) -> dict[str, Any]:
    heal = options.get("heal") if options else None
    found = heal.get(NAMESPACE) if isinstance(heal, Mapping) else None
    return found if isinstance(found, dict) else {}


def _openai(options: Mapping[str, Any] | None) -> dict[str, Any]:
    # @ai-sdk/azure keeps the same item ids and encrypted reasoning under "azure".
    for namespace in ("openai", "azure"):
        found = options.get(namespace) if options else None
        if isinstance(found, dict):
            return found
    return {}


def _rest(obj: Mapping[str, Any], consumed: Iterable[str]) -> dict[str, Any]:
    skip = set(consumed)
    return {k: v for k, v in obj.items() if k not in skip}


def _keep_rest(
    mine: dict[str, Any],
    obj: Mapping[str, Any],
    consumed: Iterable[str],
    key: str = "contentFields",
) -> None:
    rest = _rest(obj, consumed)
    if rest:
        mine[key] = rest


def _as_element(raw: Any, path: str) -> Item:
    if not isinstance(raw, Mapping):
        raise InputError(f"expected a content object, got {_kind(raw)}", path=path)
    return dict(raw)


def _str_field(obj: Mapping[str, Any], key: str, path: str) -> str:
    value = obj.get(key, _ABSENT)
    if value is _ABSENT:
        raise InputError(f"{obj.get('type', 'item')} has no {key}", path=path)
    if not isinstance(value, str):
        raise InputError(f"{key} must be a string, got {_kind(value)}", path=f"{path}.{key}")
    return value


def _source(el: Mapping[str, Any], keys: tuple[str, ...], path: str) -> str:
    for key in keys:
        if isinstance(el.get(key), str):
            return key
    raise InputError(f"{el.get('type')} has none of {', '.join(keys)}", path=path)


def _make(cls: type[_M], path: str, **fields: Any) -> _M:
    values = {k: v for k, v in fields.items() if v is not None or k == "input"}
    try:
        return cls(**values)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        raise InputError(f"cannot be represented: {first['msg']}", path=path) from None


def _kind(value: Any) -> str:
    return "nothing" if value is _ABSENT else kind_of(value)
