"""The history index: one scan of the messages that every rule consults.

Built once per pass (and again only after a rule changed something), so a registry of thirty
rules costs one scan plus whatever each rule does with the few items that concern it, not thirty
scans. References are plain tuples ``(message index, part index, part)`` for speed.

The facts are computed in steps, each documented with the rules that read its facts:

1. :meth:`HistoryIndex._scan`, the one pass over every message and part. Whatever can be
   learnt from a part is learnt while the part is at hand: roles, suspect strings and texts,
   texts after calls, calls with their ids, names and unusual inputs, results with the outputs
   worth a look, reasoning, and the pairing verdict where it can be decided on the way.
2. :meth:`~HistoryIndex._sort_remaining_parts`: files, images and approvals (rarer, and left
   to the end); a subclassed part joins the lists and facts of its base class
   (:meth:`~HistoryIndex._merge_subclassed_parts`).
3. :meth:`~HistoryIndex._list_present`: which trigger lists are non-empty.
4. On demand, :data:`FACTS`: finer facts that rules declare they need (``Rule.needs``), read
   by :meth:`~HistoryIndex.clean`, the verdict that a plan has nothing to do.

Speed decided the split, by measurement on the benchmark corpus (issue 12). The scan tests exact
classes with ``type(x) is C`` (a specialized builtin call; attribute reads on pydantic models do
not specialize). Two tidier shapes cost more: handing each part or tool message to a small
function (a Python call each; +2.6% instructions for the tool messages alone), and deriving
the call and result facts afterwards in loops over the scan's lists (about +10% wall time
for about as many instructions: a second visit to each part costs more than the first).

The pairing view (tool calls and results by id, and the block of tool messages after each
assistant message) is computed on first use only, so histories without tools never pay for it.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress
from operator import eq, itemgetter
from typing import TYPE_CHECKING, TypeAlias, TypeVar

from heal.messages import (
    ContentOutput,
    ErrorJsonOutput,
    ErrorTextOutput,
    ExecutionDeniedOutput,
    FilePart,
    ImagePart,
    JsonOutput,
    ModelMessage,
    Part,
    ReasoningPart,
    TextOutput,
    TextPart,
    ToolApprovalRequest,
    ToolApprovalResponse,
    ToolCallPart,
    ToolResultPart,
)
from heal.providers import HEAL_NAMESPACE
from heal.rules._options import results_not_first

if TYPE_CHECKING:
    from heal.providers import ProviderProfile
    from heal.targets import Target

__all__ = ["FACTS", "CallRef", "HistoryIndex", "Pairing", "ResultRef"]

CallRef = tuple[int, int, ToolCallPart]
ResultRef = tuple[int, int, ToolResultPart]
TextRef = tuple[int, int, TextPart]
ReasoningRef = tuple[int, int, ReasoningPart]
RequestRef = tuple[int, int, ToolApprovalRequest]
ResponseRef = tuple[int, int, ToolApprovalResponse]
FileRef = tuple[int, int, FilePart]
ImageRef = tuple[int, int, ImagePart]
_PartRef = tuple[int, int, object]
"""A part the scan did not list (see :meth:`HistoryIndex._sort_remaining_parts`)."""
_Ref = TypeVar("_Ref", bound=_PartRef)
_Item = TypeVar("_Item")

_PLAIN_OUTPUTS: frozenset[type] = frozenset[type]((JsonOutput, ErrorJsonOutput))
"""Tool output classes that hold no text of their own (see :attr:`HistoryIndex.outputs`)."""

_BASES = (
    TextPart,
    ToolCallPart,
    ToolResultPart,
    ReasoningPart,
    ToolApprovalRequest,
    ToolApprovalResponse,
    FilePart,
    ImagePart,
)
"""The part classes, in the order that decides how a subclass of two of them is listed."""

TRIGGER_LISTS = (
    "calls",
    "results",
    "texts",
    "reasoning",
    "requests",
    "responses",
    "strings",
    "empty",
    "files",
    "images",
    "outputs",
    "content_outputs",
    "texts_after_calls",
)
"""The lists a rule may name in its triggers (``heal.rules._base.TRIGGERS`` is made from this),
in the order :meth:`HistoryIndex._list_present` reads them."""


@dataclass(slots=True)
class Pairing:
    """Tool calls and results by id, and where each assistant message's result block ends."""

    roles: list[str]
    """The role of each message."""
    calls: dict[str, list[CallRef]]
    """Client-executed tool calls by id, in history order."""
    provider_calls: dict[str, list[CallRef]]
    """Provider-executed tool calls by id."""
    results: dict[str, list[ResultRef]]
    """Tool results in tool messages, by call id, in history order."""
    requests: dict[str, list[RequestRef]]
    """Approval requests by tool call id."""
    responses: dict[str, ResponseRef]
    """Approval responses by approval id (the first of each)."""

    _block_end: list[int] | None = None

    @property
    def block_end(self) -> list[int]:
        """For message ``i``: the first index after ``i`` that is not a tool message. Messages
        ``i + 1 .. block_end[i] - 1`` are the tool messages directly after ``i``: its result
        block. Computed on first use."""
        if self._block_end is None:
            roles = self.roles
            n = len(roles)
            ends = [n] * n
            following = n
            for i in range(n - 1, -1, -1):
                ends[i] = following
                if roles[i] != "tool":
                    following = i
            self._block_end = ends
        return self._block_end

    def in_block(self, call_message: int, message: int) -> bool:
        """Whether ``message`` is in the result block of assistant message ``call_message``."""
        return call_message < message < self.block_end[call_message]


class HistoryIndex:
    """Facts about one history, gathered in a single scan."""

    __slots__ = (
        "_calls_by_message",
        "_executed",
        "_held",
        "_held_for",
        "_paired",
        "_pairing",
        "_tool_options",
        "_user_after_tool",
        "call_ids",
        "calls",
        "content_outputs",
        "empty",
        "files",
        "images",
        "messages",
        "outputs",
        "present",
        "reasoning",
        "requests",
        "responses",
        "results",
        "roles",
        "strings",
        "texts",
        "texts_after_calls",
        "tool_names",
        "unusual_inputs",
    )

    messages: Sequence[ModelMessage]
    """The history indexed."""
    roles: list[str]
    """The role of each message."""
    strings: list[int]
    """Messages whose string content is empty, whitespace only, or not pure ASCII."""
    empty: list[int]
    """Indices of messages whose content is an empty list."""
    texts: list[TextRef]
    """Text parts that are empty, whitespace only, or not pure ASCII: the only ones the text
    rules need to look at. (Rules that need every text part read the messages.)"""
    texts_after_calls: list[int]
    """Messages in which a text part comes after a tool-call part, in order."""
    calls: list[CallRef]
    """Every tool-call part, client- and provider-executed, in history order."""
    call_ids: list[str]
    """The id of each of :attr:`calls`, in the same order (read-only)."""
    tool_names: set[str]
    """Every tool name of a call or a result (read-only)."""
    unusual_inputs: list[CallRef]
    """The calls whose input is not a plain dict (missing, a string, an array, ...)."""
    results: list[ResultRef]
    """Every tool-result part, in tool and assistant messages, in history order."""
    outputs: list[ResultRef]
    """Tool results whose output is text (or error text) that is blank or not pure ASCII, or an
    execution denial: the only text outputs the text rules need to look at."""
    content_outputs: list[ResultRef]
    """Tool results whose output is content (a list of text, image and file items)."""
    reasoning: list[ReasoningRef]
    """Every reasoning part."""
    requests: list[RequestRef]
    """Every tool-approval-request part."""
    responses: list[ResponseRef]
    """Every tool-approval-response part."""
    files: list[FileRef]
    """Every file part."""
    images: list[ImageRef]
    """Every image part."""
    present: frozenset[str]
    """The names of the lists above that are non-empty (what :attr:`Rule.triggers` names)."""
    _paired: bool | None
    _executed: bool
    """Whether a call is provider-executed (the ``provider_executed`` fact)."""
    _user_after_tool: bool | None
    """Whether a user message comes right after a tool message (``user_after_tool``)..."""
    _tool_options: bool | None
    """... and whether a call or result has provider options (``tool_options``): noted by the
    scan; None where an index was made otherwise and did not carry them (the fact computes
    itself then)."""
    _held: dict[Fact, bool] | None
    """The facts computed so far (see :meth:`holds`)..."""
    _held_for: tuple[Target, ProviderProfile]
    """... for this target and profile."""
    _pairing: Pairing | None
    _calls_by_message: dict[int, list[tuple[int, ToolCallPart]]] | None

    def __init__(self, messages: Sequence[ModelMessage]) -> None:
        self.messages = messages
        remaining = self._scan(messages)
        if remaining:
            self._sort_remaining_parts(remaining)
        else:  # the usual case, spared a call
            self.requests, self.responses, self.files, self.images = [], [], [], []
        self.present = self._list_present()
        self._pairing = None
        self._calls_by_message = None
        self._held = None

    def after_edit(
        self,
        messages: Sequence[ModelMessage],
        kept: Sequence[tuple[int, int, int]],
        renamed: Sequence[tuple[int, int, Part]] | None = None,
        reasoning_added: Mapping[int, int] | None = None,
        *,
        reasoning_dropped: Mapping[int, Collection[int]] | None = None,
        ids_one_to_one: bool = False,
    ) -> HistoryIndex:
        """The index of ``messages``, which an edit made from the history indexed here, equal
        to ``HistoryIndex(messages)`` (``tests/test_index.py`` compares the two after every
        edit the engine makes in the test histories).

        ``kept`` lists the runs of messages the edit carried over as they are, as ``(old start,
        new start, count)``, in order: their facts are taken from this index (moved by the
        messages inserted or removed before them), and only the other messages, new or changed,
        are scanned. A history with a repair in a few places is then indexed again at the cost
        of those places. When the runs are many and short (a repair in every turn), or cover
        little of the history, moving their facts costs as much as a scan: it scans.

        What depends on the whole history is computed anew, when asked: the pairing verdict and
        view, the calls by message.

        ``renamed`` (optional) lists ``(message, part, new part)`` for each part the edit gave
        a new tool-call id, when it did nothing else (see :meth:`_after_renames`).
        ``ids_one_to_one``: the renames map ids one to one (see :class:`~heal.rules._base.
        IdRenames`), which keeps the pairing verdict.
        ``reasoning_added`` (optional) names the messages into which the edit inserted
        reasoning parts, when it did nothing else, each with how many it put at the start of
        the message, or 0 when one went elsewhere (see :meth:`_after_reasoning_added`).
        ``reasoning_dropped`` (optional) maps each message the edit removed parts from to the
        places of those parts, when it did nothing else (see :meth:`_after_reasoning_dropped`).
        """
        if renamed is not None:
            return self._after_renames(messages, renamed, ids_one_to_one)
        if reasoning_added is not None:
            return self._after_reasoning_added(messages, reasoning_added)
        if reasoning_dropped is not None:
            followed = self._after_reasoning_dropped(messages, reasoning_dropped)
            if followed is not None:
                return followed
        n = len(messages)
        if _rescan(n, kept):
            return HistoryIndex(messages)
        fresh: list[int] = []  # the positions of the messages to scan, in order
        at = 0
        for _, start, count in kept:
            fresh += range(at, start)
            at = start + count
        fresh += range(at, n)
        sub = HistoryIndex([messages[i] for i in fresh])
        new = HistoryIndex.__new__(HistoryIndex)
        new.messages = messages
        splice = _Splice(kept, fresh)
        new.roles = splice.values(self.roles, sub.roles)
        new.strings = splice.positions(self.strings, sub.strings)
        new.empty = splice.positions(self.empty, sub.empty)
        new.texts_after_calls = splice.positions(self.texts_after_calls, sub.texts_after_calls)
        new.texts = splice.refs(self.texts, sub.texts)
        new.calls, new.call_ids = splice.refs_with(
            self.calls, self.call_ids, sub.calls, sub.call_ids
        )
        new.unusual_inputs = splice.refs(self.unusual_inputs, sub.unusual_inputs)
        new.results = splice.refs(self.results, sub.results)
        new.outputs = splice.refs(self.outputs, sub.outputs)
        new.content_outputs = splice.refs(self.content_outputs, sub.content_outputs)
        new.reasoning = splice.refs(self.reasoning, sub.reasoning)
        new.requests = splice.refs(self.requests, sub.requests)
        new.responses = splice.refs(self.responses, sub.responses)
        new.files = splice.refs(self.files, sub.files)
        new.images = splice.refs(self.images, sub.images)
        # A name or a provider-executed call of a message the edit changed may be gone.
        calls_kept = len(new.calls) - len(sub.calls) == len(self.calls)
        if calls_kept and len(new.results) - len(sub.results) == len(self.results):
            new.tool_names = self.tool_names | sub.tool_names
        else:
            new.tool_names = {ref[2].tool_name for ref in new.calls}
            new.tool_names.update([ref[2].tool_name for ref in new.results])
        if calls_kept or not self._executed:
            new._executed = self._executed or sub._executed
        else:
            new._executed = any(ref[2].provider_executed for ref in new.calls)
        new.present = new._list_present()
        new._user_after_tool = new._tool_options = None  # asked of the facts
        new._paired = None
        new._pairing = None
        new._calls_by_message = None
        new._held = None
        return new

    def _scan(self, messages: Sequence[ModelMessage]) -> list[_PartRef]:
        """The one pass over every message and part. It computes:

        * :attr:`roles` (most provider rules, the pairing view);
        * :attr:`strings` and :attr:`empty` (empty-message, lone-surrogate,
          mistral-user-after-tool);
        * :attr:`texts` (empty-text, empty-message, lone-surrogate) and
          :attr:`texts_after_calls` (anthropic-text-after-tool-call);
        * :attr:`calls`, :attr:`call_ids`, :attr:`tool_names` and :attr:`unusual_inputs` (the
          tool-shape rules: invalid-tool-input, invalid-tool-call-id, duplicate-tool-call-id,
          invalid-tool-name; and the pairing rules);
        * :attr:`results`, :attr:`outputs` and :attr:`content_outputs` (the pairing rules,
          lone-surrogate, the empty-tool-result rules, openai-file-id,
          anthropic-unsupported-media-type, google-content-tool-result);
        * :attr:`reasoning` (the reasoning rules, lone-surrogate);
        * the pairing verdict, where it can be decided on the way (see :attr:`paired`).

        It tests each part's exact class; the parts of every other class, and subclasses, are
        returned in order for :meth:`_sort_remaining_parts`.
        """
        # The hot loop of healing: plain tuples, local names, bound methods and class identity
        # tests keep it near the cost of merely iterating the parts. Fields are read from the
        # model's ``__dict__`` where more than one is read: an attribute read on a pydantic
        # model goes through the ``__getattr__`` hook of ``BaseModel`` and is never specialized
        # (callgrind: about 400 instructions, against about 100 for a look-up in the dict,
        # where a pydantic model keeps every field; the values are the same).
        roles = self.roles = []
        strings = self.strings = []
        empty = self.empty = []
        texts = self.texts = []
        texts_after_calls = self.texts_after_calls = []
        calls = self.calls = []
        call_ids = self.call_ids = []
        tool_names = self.tool_names = set()
        unusual_inputs = self.unusual_inputs = []
        results = self.results = []
        outputs = self.outputs = []
        content_outputs = self.content_outputs = []
        reasoning = self.reasoning = []
        remaining: list[_PartRef] = []
        add_role, add_text = roles.append, texts.append
        add_text_after_call = texts_after_calls.append
        add_call, add_id, add_name = calls.append, call_ids.append, tool_names.add
        add_result, add_reasoning = results.append, reasoning.append
        add_remaining = remaining.append
        text_cls, call_cls, result_cls = TextPart, ToolCallPart, ToolResultPart
        reasoning_cls = ReasoningPart
        text_output, error_output = TextOutput, ErrorTextOutput
        content_output, denied_output = ContentOutput, ExecutionDeniedOutput
        call_at = text_after_call_at = -1  # the last message with a call, with text after one
        # Pairing, decided on the way (see _check_paired, which does it afterwards for the
        # histories this does not cover: provider-executed calls, results outside tool
        # messages): each client call waits in `waiting` for its result, which must come in a
        # tool message whose last non-tool message is the call's.
        waiting: dict[str, int] = {}
        paired = simple = True
        executed = user_after_tool = tool_options = False
        last_non_tool = i = -1
        for message in messages:
            i += 1
            fields = message.__dict__
            role = fields["role"]
            add_role(role)
            is_tool = role == "tool"
            if not is_tool:
                if waiting:
                    paired = False  # a call's result block ended without its result
                    waiting.clear()
                if last_non_tool < i - 1 and role == "user":
                    user_after_tool = True  # the message before was a tool message
                last_non_tool = i
            content = fields["content"]
            if type(content) is str:
                # Only blank or non-ASCII strings can concern a text rule; these tests are O(1)
                # for ordinary text (isspace stops at the first visible character).
                if not content.isascii() or content.isspace() or not content:
                    strings.append(i)
                continue
            if not content:
                empty.append(i)
                continue
            j = -1
            for part in content:
                j += 1
                if type(part) is text_cls:
                    text = part.text
                    if not text.isascii() or text.isspace() or not text:
                        add_text((i, j, part))
                    if call_at == i and text_after_call_at != i:
                        add_text_after_call(i)
                        text_after_call_at = i
                elif type(part) is call_cls:
                    ref = (i, j, part)
                    add_call(ref)
                    call_at = i
                    fields = part.__dict__
                    tid = fields["tool_call_id"]
                    add_id(tid)
                    add_name(fields["tool_name"])
                    if type(fields["input"]) is not dict:
                        unusual_inputs.append(ref)
                    if fields["provider_options"] is not None:
                        tool_options = True
                    if fields["provider_executed"]:
                        simple = False
                        executed = True
                    else:
                        waiting[tid] = i
                elif type(part) is result_cls:
                    result = (i, j, part)
                    add_result(result)
                    fields = part.__dict__
                    add_name(fields["tool_name"])
                    if fields["provider_options"] is not None:
                        tool_options = True
                    output = fields["output"]
                    if type(output) is text_output or type(output) is error_output:
                        value = output.value
                        if not value.isascii() or value.isspace() or not value:
                            outputs.append(result)
                    elif type(output) is content_output:
                        content_outputs.append(result)
                    elif type(output) is denied_output:
                        outputs.append(result)
                    elif type(output) not in _PLAIN_OUTPUTS:  # a subclass: let the rules look
                        outputs.append(result)
                        content_outputs.append(result)
                    if not is_tool:
                        simple = False  # a provider-executed result, in the assistant message
                    elif waiting.pop(fields["tool_call_id"], -2) != last_non_tool:
                        paired = False  # no call waits for it right before
                elif type(part) is reasoning_cls:
                    add_reasoning((i, j, part))
                else:
                    add_remaining((i, j, part))
        self._executed = executed
        self._user_after_tool = user_after_tool
        self._tool_options = tool_options
        # Also unpaired: a call still waiting at the end, two calls sharing an id.
        self._paired = (
            (paired and not waiting and len(set(call_ids)) == len(call_ids)) if simple else None
        )
        return remaining

    def _sort_remaining_parts(self, remaining: list[_PartRef]) -> None:
        """:attr:`files` and :attr:`images` (the file rules), :attr:`requests` and
        :attr:`responses` (the approval rules, the tool-id rules): the parts the scan left,
        by class.

        A subclass is listed as its first base class in ``_BASES``; a subclass of a class the
        scan lists goes to :meth:`_merge_subclassed_parts`."""
        requests: list[RequestRef] = []
        responses: list[ResponseRef] = []
        files: list[FileRef] = []
        images: list[ImageRef] = []
        subclassed: list[_PartRef] = []
        # isinstance alone: these parts are few, and the scan's classes come first so that a
        # subclass of two of them is listed as before.
        for ref in remaining:
            m, p, part = ref
            if isinstance(part, (TextPart, ToolCallPart, ToolResultPart, ReasoningPart)):
                subclassed.append(ref)
            elif isinstance(part, ToolApprovalRequest):
                requests.append((m, p, part))
            elif isinstance(part, ToolApprovalResponse):
                responses.append((m, p, part))
            elif isinstance(part, FilePart):
                files.append((m, p, part))
            elif isinstance(part, ImagePart):
                images.append((m, p, part))
        self.requests = requests
        self.responses = responses
        self.files = files
        self.images = images
        if subclassed:
            self._merge_subclassed_parts(subclassed)

    def _merge_subclassed_parts(self, subclassed: list[_PartRef]) -> None:
        """Add subclassed text, tool-call, tool-result and reasoning parts to the scan's lists,
        in history order, and to the facts they change: :attr:`call_ids`, :attr:`tool_names`,
        :attr:`unusual_inputs`, :attr:`outputs`, :attr:`content_outputs`,
        :attr:`texts_after_calls`, and the pairing verdict, which is left to
        :meth:`_check_paired` once a subclassed call or result is in the history.

        A subclassed text or result is always listed as one to look at: its class may carry
        more than its fields say."""
        texts: list[TextRef] = []
        calls: list[CallRef] = []
        results: list[ResultRef] = []
        reasoning: list[ReasoningRef] = []
        for m, p, part in subclassed:
            if isinstance(part, TextPart):
                texts.append((m, p, part))
            elif isinstance(part, ToolCallPart):
                calls.append((m, p, part))
            elif isinstance(part, ToolResultPart):
                results.append((m, p, part))
            elif isinstance(part, ReasoningPart):
                reasoning.append((m, p, part))
        self.texts = _merged(self.texts, texts)
        self.reasoning = _merged(self.reasoning, reasoning)
        if calls:
            self.calls = _merged(self.calls, calls)
            self._executed = any(call.provider_executed for _, _, call in self.calls)
            self.call_ids = [call.tool_call_id for _, _, call in self.calls]
            self.tool_names.update([call.tool_name for _, _, call in calls])
            unusual = [ref for ref in calls if type(ref[2].input) is not dict]
            self.unusual_inputs = _merged(self.unusual_inputs, unusual)
        if results:
            self.results = _merged(self.results, results)
            self.tool_names.update([result.tool_name for _, _, result in results])
            self.outputs = _merged(self.outputs, results)
            self.content_outputs = _merged(self.content_outputs, results)
        if calls or results:
            self._tool_options = None  # the scan did not see these parts' options
            self._paired = None
        if texts or calls:
            self.texts_after_calls = self._find_texts_after_calls()

    def _find_texts_after_calls(self) -> list[int]:
        """:attr:`texts_after_calls` by its definition, for the histories with subclassed
        parts."""
        found: list[int] = []
        for m in dict.fromkeys(m for m, _, _ in self.calls):
            call_seen = False
            for part in self.messages[m].content:
                base = _base(part)
                if base is ToolCallPart:
                    call_seen = True
                elif base is TextPart and call_seen:
                    found.append(m)
                    break
        return found

    def _list_present(self) -> frozenset[str]:
        """:attr:`present`, which the engine reads to skip the rules whose triggers are all
        absent."""
        # compress tests the lists in C: a Python loop here cost about 2% of the index.
        return frozenset(
            compress(
                TRIGGER_LISTS,
                (
                    self.calls,
                    self.results,
                    self.texts,
                    self.reasoning,
                    self.requests,
                    self.responses,
                    self.strings,
                    self.empty,
                    self.files,
                    self.images,
                    self.outputs,
                    self.content_outputs,
                    self.texts_after_calls,
                ),
            )
        )

    def clean(
        self,
        lists: frozenset[str],
        facts: Sequence[Fact],
        target: Target,
        profile: ProviderProfile,
    ) -> bool:
        """The verdict that a plan has nothing to do: none of ``lists`` (trigger lists) is
        non-empty and none of ``facts`` holds. ``lists`` and ``facts`` are what the plan's rules
        need (``Rule.needs``); each rule declares that it finds nothing without one of them, so
        a clean verdict means no rule of the plan would find anything."""
        return lists.isdisjoint(self.present) and not self.holds(facts, target, profile)

    def _after_renames(
        self,
        messages: Sequence[ModelMessage],
        renamed: Sequence[tuple[int, int, Part]],
        one_to_one: bool = False,
    ) -> HistoryIndex:
        """The index of ``messages``, made from this one without a scan, when the edit only gave
        parts new tool-call ids (a history moved to Mistral renames every id; a foreign id
        format renames many); ``renamed`` lists each ``(message, part, new part)``.

        The engine passes them only for edits of :class:`~heal.rules._base.RenamedId` alone,
        whose new part differs from the old in its ``tool_call_id`` alone, by construction.
        Then the facts of every part stay as they are but for the references to the parts
        renamed and the call ids; the pairing verdict is left to be computed when asked (the
        new ids may pair otherwise), unless the renames map ids ``one_to_one``: which parts
        share an id is then as it was, and so is the verdict.
        """
        new_part = {(m, p): new for m, p, new in renamed}
        get = new_part.get
        new_index = self._carried(messages)
        new_index.calls = calls = _swapped_refs(self.calls, get)
        new_index.call_ids = [ref[2].tool_call_id for ref in calls]
        new_index.unusual_inputs = _swapped_refs(self.unusual_inputs, get)
        new_index.results = _swapped_refs(self.results, get)
        new_index.outputs = _swapped_refs(self.outputs, get)
        new_index.content_outputs = _swapped_refs(self.content_outputs, get)
        new_index.requests = _swapped_refs(self.requests, get)
        if one_to_one:
            new_index._paired = self._paired
            # Whether the ids pair, or repeat, holds as it did; what the ids are like does not.
            self._keep_facts(new_index, lambda fact: fact not in _READ_ID_TEXT)
        else:
            # A fact that reads no id holds of the renamed history as it did of this one.
            self._keep_facts(new_index, lambda fact: fact not in _READ_IDS)
        return new_index

    def _carried(self, messages: Sequence[ModelMessage]) -> HistoryIndex:
        """An index of ``messages`` holding this one's lists and facts as they are (an index's
        lists are never changed in place), for an edit that changes only what its caller
        replaces; what depends on the whole history (the pairing verdict and view, the calls
        by message, the facts) is left to be computed when asked."""
        new_index = HistoryIndex.__new__(HistoryIndex)
        new_index.messages = messages
        new_index.roles = self.roles
        new_index.strings = self.strings
        new_index.empty = self.empty
        new_index.texts = self.texts
        new_index.texts_after_calls = self.texts_after_calls
        new_index.calls = self.calls
        new_index.call_ids = self.call_ids
        new_index.tool_names = self.tool_names
        new_index.unusual_inputs = self.unusual_inputs
        new_index.results = self.results
        new_index.outputs = self.outputs
        new_index.content_outputs = self.content_outputs
        new_index.reasoning = self.reasoning
        new_index.requests = self.requests
        new_index.responses = self.responses
        new_index.files = self.files
        new_index.images = self.images
        new_index.present = self.present
        new_index._executed = self._executed
        # Roles and the tool parts' options: what an edit that makes this index keeps.
        new_index._user_after_tool = self._user_after_tool
        new_index._tool_options = self._tool_options
        new_index._paired = None
        new_index._pairing = None
        new_index._calls_by_message = None
        new_index._held = None
        return new_index

    def _keep_facts(self, new_index: HistoryIndex, holds_still: Callable[[Fact], bool]) -> None:
        """Give ``new_index`` the facts computed here that ``holds_still`` says the edit that
        made it cannot change (``tests/test_index.py`` compares each with a scan's)."""
        held = self._held
        if held is None:
            new_index._held = None
        else:
            new_index._held = {fact: value for fact, value in held.items() if holds_still(fact)}
            new_index._held_for = self._held_for

    def _after_reasoning_added(
        self, messages: Sequence[ModelMessage], edited: Mapping[int, int]
    ) -> HistoryIndex:
        """The index of ``messages``, made from this one without a scan, when the edit only
        inserted reasoning parts (of the class itself) into the messages ``edited``, each of
        which held parts (DeepSeek's empty reasoning before every call), every message staying
        in its place. Such a part joins :attr:`reasoning` alone; the parts after it in its
        message move along, in every list; what a message or its role says stays. Anything
        else (a message that held a string or nothing, a part that is not where an insertion
        leaves it) is indexed by a scan.

        ``edited`` maps each message to how many parts the edit put at its start: its other
        parts moved along by as many (the engine inserts them so). 0: some went elsewhere, and
        the message is compared with the old one, part by part."""
        old_messages = self.messages
        moves: dict[int, list[int] | int] = {}  # by message: the new place of each old part
        added: list[ReasoningRef] = []
        empty = self.empty
        for m, count in edited.items():
            new = messages[m].content
            if count:
                if type(new) is str or (empty and m in empty):
                    return HistoryIndex(messages)
                for q in range(count):
                    part = new[q]
                    if type(part) is not ReasoningPart:
                        return HistoryIndex(messages)
                    added.append((m, q, part))
                moves[m] = count  # every old part moves along by as many
                continue
            old = old_messages[m].content
            if type(old) is str or not old or type(new) is str:
                return HistoryIndex(messages)
            places: list[int] = []
            k = 0
            size = len(old)
            for q, part in enumerate(new):
                if k < size and part is old[k]:
                    places.append(q)
                    k += 1
                elif type(part) is ReasoningPart:
                    added.append((m, q, part))
                else:
                    return HistoryIndex(messages)
            if k != size:
                return HistoryIndex(messages)
            moves[m] = places
        new_index = self._parts_moved(messages, moves)
        new_index.reasoning = _merged(_moved_refs(self.reasoning, moves), added)
        if added:
            new_index.present = self.present | {"reasoning"}
        return new_index

    def _after_reasoning_dropped(
        self, messages: Sequence[ModelMessage], dropped: Mapping[int, Collection[int]]
    ) -> HistoryIndex | None:
        """The index of ``messages``, made from this one without a scan, when the edit only
        removed parts from the messages ``dropped`` names (each mapped to the places of its
        parts removed), every message staying in its place: when each part removed was
        reasoning (of the class itself) and each message keeps a part, as when another
        provider's reasoning is stripped from every turn. Such a part leaves :attr:`reasoning`;
        the parts after it in its message move back, in every list; what a message or its role
        says stays. None for any other removal (a message left without parts is empty now),
        which the runs the edit kept index."""
        old_messages = self.messages
        moves: dict[int, list[int] | int] = {}  # by message: the new place of each old part
        for m, gone in dropped.items():
            old = old_messages[m].content
            if type(old) is str or len(gone) >= len(old):
                return None
            places: list[int] = []
            q = 0
            for p, part in enumerate(old):
                if p in gone:
                    if type(part) is not ReasoningPart:
                        return None
                    places.append(-1)
                else:
                    places.append(q)
                    q += 1
            moves[m] = places
        new_index = self._parts_moved(messages, moves)
        reasoning = _moved_refs(self.reasoning, moves)
        new_index.reasoning = [ref for ref in reasoning if ref[1] >= 0]  # the removed: -1
        if not new_index.reasoning:
            new_index.present = self.present - {"reasoning"}
        return new_index

    def _parts_moved(
        self, messages: Sequence[ModelMessage], moves: dict[int, list[int] | int]
    ) -> HistoryIndex:
        """The index of ``messages``, an edit of this history that only moved parts within
        their messages as ``moves`` says (see :func:`_moved_refs`) and added or removed
        reasoning parts: every list but :attr:`reasoning` (its caller's) moved along, the
        pairing verdict and the facts of roles, calls and results kept."""
        new_index = self._carried(messages)
        # The lists it carries are this index's: an empty one (most are) stays as it is.
        if self.texts:
            new_index.texts = _moved_refs(self.texts, moves)
        new_index.calls = _moved_refs(self.calls, moves)
        if self.unusual_inputs:
            new_index.unusual_inputs = _moved_refs(self.unusual_inputs, moves)
        new_index.results = _moved_refs(self.results, moves)
        if self.outputs:
            new_index.outputs = _moved_refs(self.outputs, moves)
        if self.content_outputs:
            new_index.content_outputs = _moved_refs(self.content_outputs, moves)
        if self.requests:
            new_index.requests = _moved_refs(self.requests, moves)
        if self.responses:
            new_index.responses = _moved_refs(self.responses, moves)
        if self.files:
            new_index.files = _moved_refs(self.files, moves)
        if self.images:
            new_index.images = _moved_refs(self.images, moves)
        new_index._paired = self._paired  # messages, roles and ids as they were
        # The facts of roles, calls and results alone hold as they did.
        self._keep_facts(new_index, _OF_ROLES_AND_TOOLS.__contains__)
        return new_index

    def holds(self, facts: Sequence[Fact], target: Target, profile: ProviderProfile) -> bool:
        """Whether one of ``facts`` holds, for the target. Each fact is computed once per
        index and target, and only when asked: the engine asks, rule after rule, the facts each
        needs."""
        held = self._held
        if held is None or self._held_for[0] is not target or self._held_for[1] is not profile:
            # Nothing known yet (every clean verdict): each fact is computed, none looked up.
            held = self._held = {}
            self._held_for = (target, profile)
            for fact in facts:
                found = held[fact] = fact(self, target, profile)
                if found:
                    return True
            return False
        for fact in facts:
            value = held.get(fact)
            if value is None:
                value = held[fact] = fact(self, target, profile)
            if value:
                return True
        return False

    def calls_in(self, message: int) -> list[tuple[int, ToolCallPart]]:
        """The tool calls of one message, as (part index, part), in part order."""
        by_message = self._calls_by_message
        if by_message is None:
            by_message = {}
            for m, p, call in self.calls:
                found = by_message.get(m)
                if found is None:
                    by_message[m] = [(p, call)]
                else:
                    found.append((p, call))
            self._calls_by_message = by_message
        return list(by_message.get(message, ()))

    @property
    def pairing(self) -> Pairing:
        """The pairing view, computed on first use."""
        if self._pairing is None:
            self._pairing = self._build_pairing()
        return self._pairing

    def _build_pairing(self) -> Pairing:
        roles = self.roles
        calls: dict[str, list[CallRef]] = {}
        provider_calls: dict[str, list[CallRef]] = {}
        for ref in self.calls:
            target = provider_calls if ref[2].provider_executed else calls
            target.setdefault(ref[2].tool_call_id, []).append(ref)
        results: dict[str, list[ResultRef]] = {}
        for result_ref in self.results:
            if roles[result_ref[0]] == "tool":
                results.setdefault(result_ref[2].tool_call_id, []).append(result_ref)
        requests: dict[str, list[RequestRef]] = {}
        for req in self.requests:
            requests.setdefault(req[2].tool_call_id, []).append(req)
        responses: dict[str, ResponseRef] = {}
        for resp in self.responses:
            responses.setdefault(resp[2].approval_id, resp)
        return Pairing(roles, calls, provider_calls, results, requests, responses)

    @property
    def paired(self) -> bool:
        """True when every client call has exactly one result, in the tool messages right after
        it, and every result in a tool message answers such a call: the pairing rules have
        nothing to do. Cheaper than building :attr:`pairing`, which clean histories never need."""
        if self._paired is None:
            self._paired = self._check_paired()
        return self._paired

    def _check_paired(self) -> bool:
        roles = self.roles
        open_calls: dict[str, int] = {}
        provider_calls: set[tuple[str, int]] = set()
        count = 0
        for m, _, call in self.calls:
            if call.provider_executed:
                provider_calls.add((call.tool_call_id, m))
            else:
                open_calls[call.tool_call_id] = m
                count += 1
        if len(open_calls) != count:
            return False  # two calls share an id
        for m, _, result in self.results:
            if roles[m] != "tool":
                # A provider-executed result: its call must be in the same assistant message.
                if (result.tool_call_id, m) not in provider_calls:
                    return False
                continue
            call_at = open_calls.pop(result.tool_call_id, None)
            if call_at is None or m <= call_at:
                return False
            for k in range(call_at + 1, m):  # only tool messages may sit in between
                if roles[k] != "tool":
                    return False
        return not open_calls


# --- facts for the clean verdict --------------------------------------------------------------

Fact: TypeAlias = "Callable[[HistoryIndex, Target, ProviderProfile], bool]"
"""A fact about one history, for one target: True when it holds (see :data:`FACTS`)."""


def _unpaired(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    return not index.paired


def _unusual_inputs(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    return bool(index.unusual_inputs)


def _duplicate_call_ids(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    if index._paired is True and not index._executed:
        return False  # paired client calls have an id each (_check_paired counts them)
    ids = index.call_ids
    return len(set(ids)) != len(ids)


def _tool_call_ids(index: HistoryIndex) -> list[str]:
    """Every id of a call, result or approval request (a result's only when the pairing is not
    known to hold: then every result's id is a call's)."""
    ids = index.call_ids
    if index._paired is not True:
        ids = [*ids, *[ref[2].tool_call_id for ref in index.results]]
    if index.requests:
        ids = [*ids, *[ref[2].tool_call_id for ref in index.requests]]
    return ids


def _invalid_tool_call_ids(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    return not profile.all_valid_tool_call_ids(_tool_call_ids(index))


def _unaccepted_tool_call_ids(
    index: HistoryIndex, target: Target, profile: ProviderProfile
) -> bool:
    return not profile.all_accepted_tool_call_ids(_tool_call_ids(index))


def _invalid_tool_names(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    return not profile.all_valid_tool_names(index.tool_names)


def _provider_executed(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    return index._executed  # noted by the scan


def _tool_options(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    noted = index._tool_options
    if noted is not None:
        return noted
    options = [ref[2].provider_options for ref in index.calls]
    options += [ref[2].provider_options for ref in index.results]
    return options.count(None) != len(options)


def _anthropic_tool_options(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    if index._tool_options is False:  # the commonest answer, noted by the scan
        return False
    options = [ref[2].provider_options for ref in index.calls]
    options += [ref[2].provider_options for ref in index.results]
    # Options of other namespaces alone (heal's mark on a result it made up, OpenAI's item ids)
    # leave nothing to find.
    return any(found is not None and "anthropic" in found for found in options)


def _unoffered_tools(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    offered = target.tools
    return offered is not None and any(
        not ref[2].provider_executed and ref[2].tool_name not in offered for ref in index.calls
    )


def _final_assistant(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    roles = index.roles
    return bool(roles) and roles[-1] == "assistant"


def _same_role_runs(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    roles = index.roles
    return any(map(eq, roles, roles[1:]))  # compared in C


def _only_system(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    roles = index.roles
    if roles and roles[-1] != "system":
        return False  # the commonest answer (a history ends with a turn), without counting
    return roles.count("system") == len(roles)


def _late_system(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    roles = index.roles
    lead = 0
    n = len(roles)
    while lead < n and roles[lead] == "system":
        lead += 1
    return "system" in roles[lead:]


def users_after_tool(index: HistoryIndex) -> Iterator[int]:
    """The positions of user messages right after a tool message, in order. Rare in a history
    (a tool message is answered by the model), so one search over the roles joined, at C speed,
    says when there is none: half the cost of looking after every tool message."""
    text = "\n".join(index.roles)  # the roles are the four names, none a part of another
    at = text.find(_TOOL_THEN_USER)
    counted = line = 0  # the line count up to ``counted``: each stretch of text counted once
    while at >= 0:
        line += text.count("\n", counted, at)
        counted = at
        yield line + 1
        at = text.find(_TOOL_THEN_USER, at + 1)


_TOOL_THEN_USER = "tool\nuser"


def _user_after_tool(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    noted = index._user_after_tool
    if noted is not None:
        return noted
    return next(users_after_tool(index), None) is not None


def _results_not_first(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    if index._user_after_tool is False:
        return False
    messages = index.messages
    return any(results_not_first(messages[i]) for i in users_after_tool(index))


def _turn_with_calls(index: HistoryIndex) -> int | None:
    """The index of the last user message (-1 without one) when a tool call comes after it,
    in the current turn; else None."""
    calls = index.calls
    if not calls:
        return None
    roles = index.roles
    last_user = len(roles) - 1 - roles[::-1].index("user") if "user" in roles else -1
    return last_user if calls[-1][0] > last_user else None  # the calls are in history order


def _calls_after_last_user(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    return _turn_with_calls(index) is not None


def _unsigned_turn_calls(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    last_user = _turn_with_calls(index)
    if last_user is None:
        return False
    from heal.rules.google import has_signature  # which imports this module

    roles = index.roles
    seen = -1  # the last message whose first call was read
    for m, _, call in index.calls:
        if m <= last_user or m == seen or roles[m] != "assistant" or call.provider_executed:
            continue
        seen = m
        if not has_signature(call):
            return True
    return False


def _head_not_user(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    roles = index.roles
    n = len(roles)
    first = 0
    while first < n and roles[first] == "system":
        first += 1
    if first == n:
        return False
    if roles[first] != "user":
        return True
    content = index.messages[first].content
    # A user message of marked text alone may be heal's own placeholder.
    return (
        not isinstance(content, str)
        and bool(content)
        and all(isinstance(part, TextPart) and part.provider_options for part in content)
    )


def _assistant_options(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    roles = index.roles
    messages = index.messages
    for m in [m for m, role in enumerate(roles) if role == "assistant"]:
        content = messages[m].content
        if not isinstance(content, str):
            for part in content:
                options = part.provider_options
                # heal's own marks alone (an adapter's: a Gemini call that came without an id)
                # hold no signature or item id, which is all the rules that need this read.
                if options is not None and (len(options) != 1 or HEAL_NAMESPACE not in options):
                    return True
    return False


def _google_unissued_signatures(
    index: HistoryIndex, target: Target, profile: ProviderProfile
) -> bool:
    if not _assistant_options(index, target, profile):
        return False  # no signature nor reasoning of another provider without options
    from heal.rules.google import unissued  # which imports this module

    messages = index.messages
    m = -1
    for role in index.roles:
        m += 1
        if role == "assistant":
            content = messages[m].content
            if not isinstance(content, str) and any(map(unissued, content)):
                return True
    return False


def _reasoning_only_message(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    reasoning = index.reasoning
    if not reasoning:
        return False
    messages, roles = index.messages, index.roles
    seen = -1
    for m, _, _ in reasoning:
        if m == seen:
            continue
        seen = m
        content = messages[m].content
        if roles[m] == "assistant" and all(isinstance(part, ReasoningPart) for part in content):
            return True
    return False


def _reasoning_not_first(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    reasoning = index.reasoning
    if not reasoning:
        return False
    messages = index.messages
    return any(
        p > 0 and not isinstance(messages[m].content[0], ReasoningPart) for m, p, _ in reasoning
    )


def _trailing_reasoning(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    reasoning = index.reasoning
    if not reasoning:
        return False
    last = len(index.messages) - 1
    m, p, _ = reasoning[-1]
    return m == last and p == len(index.messages[last].content) - 1


def _tool_loop_reasoning(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    roles = index.roles
    return bool(index.reasoning) and roles[-1] == "tool"


def _calls_without_reasoning(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    calls = index.calls
    if not calls:
        return False
    with_reasoning = {ref[0] for ref in index.reasoning}
    roles = index.roles
    for m, _, call in calls:
        if m not in with_reasoning and roles[m] == "assistant" and not call.provider_executed:
            return True
    return False


def _non_ascii_reasoning(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    # str.isascii reads a flag CPython keeps: O(1) whatever the reasoning's length. A loop, not
    # any() over a generator: most histories have no reasoning, and this asks nothing then.
    for ref in index.reasoning:  # noqa: SIM110
        if not ref[2].text.isascii():
            return True
    return False


def _non_item_reasoning(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    reasoning = index.reasoning
    if not reasoning:
        return False
    from heal.rules.openai import is_reasoning_item  # which imports this module

    return not all(is_reasoning_item(ref[2]) for ref in reasoning)


def _encrypted_without_item_id(
    index: HistoryIndex, target: Target, profile: ProviderProfile
) -> bool:
    reasoning = index.reasoning
    if not reasoning:
        return False
    from heal.rules.openai import encrypted_without_id  # which imports this module

    return any(encrypted_without_id(ref[2]) for ref in reasoning)


def _reasoning_without_following_item(
    index: HistoryIndex, target: Target, profile: ProviderProfile
) -> bool:
    reasoning = index.reasoning
    if not reasoning:
        return False
    from heal.rules.openai import unfollowed_item  # which imports this module

    messages = index.messages
    return any(unfollowed_item(messages, m, p, part) for m, p, part in reasoning)


def _duplicate_item_ids(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    if not _assistant_options(index, target, profile):
        return False  # no item id
    from heal.rules.openai import duplicate_item_findings  # which imports this module

    return next(duplicate_item_findings(index.messages, index.roles), None) is not None


def _any_reasoning(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    return bool(index.reasoning)


def _unplain_images(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    return bool(index.images) and _unplain(index, index.images, "plain_image")


def _unplain_files(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    return bool(index.files) and _unplain(index, index.files, "plain_image_file")


def _unplain(index: HistoryIndex, refs: Sequence[tuple[int, int, Part]], test: str) -> bool:
    """Whether one of the media parts ``refs`` stands outside a user message or fails ``test``
    (:func:`heal.rules.files.plain_image` or ``plain_image_file``, looked up here: that module
    imports this one)."""
    from heal.rules import files

    plain: Callable[[object], bool] = getattr(files, test)
    roles = index.roles
    return any(roles[m] != "user" or not plain(part) for m, _, part in refs)


def _empty_reasoning(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    for ref in index.reasoning:  # noqa: SIM110 - most histories have none
        if not ref[2].text:
            return True
    return False


def _other_model_thinking(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
    reasoning = index.reasoning
    model = target.model
    if not reasoning or model is None:
        return False
    from heal.rules.target import other_models_thinking  # which imports this module

    found = other_models_thinking(index.messages, reasoning, target.provider, model)
    return next(found, None) is not None


def _unsigned_for(namespace: str) -> Fact:
    signs: Callable[[ReasoningPart], bool] | None = None

    def unsigned(index: HistoryIndex, target: Target, profile: ProviderProfile) -> bool:
        nonlocal signs
        reasoning = index.reasoning
        if not reasoning:
            return False
        if signs is None:
            # The rules' module, which imports this one: looked up once, on first use.
            from heal.rules.reasoning import SIGNINGS

            signs = SIGNINGS[namespace].signs
        return not all(signs(ref[2]) for ref in reasoning)

    unsigned.__name__ = unsigned.__qualname__ = f"_{namespace}_unsigned_reasoning"
    return unsigned


_READ_IDS = frozenset(
    {_unpaired, _duplicate_call_ids, _invalid_tool_call_ids, _unaccepted_tool_call_ids}
)
"""The facts that read tool-call ids: after a batch of renames (:meth:`HistoryIndex.
_after_renames`) they are computed again; every other fact is kept, as the renamed parts differ
from the old in their id alone (``tests/test_index.py`` compares each kept fact with the fact
of a scan)."""

_READ_ID_TEXT = frozenset({_invalid_tool_call_ids, _unaccepted_tool_call_ids})
"""The facts that read what tool-call ids are (their characters, length, format), not which
parts share one: after a one-to-one renaming only these are computed again."""


_OF_ROLES_AND_TOOLS = frozenset(
    {
        _unpaired,
        _unusual_inputs,
        _duplicate_call_ids,
        _invalid_tool_call_ids,
        _unaccepted_tool_call_ids,
        _invalid_tool_names,
        _provider_executed,
        _tool_options,
        _anthropic_tool_options,
        _unoffered_tools,
        _final_assistant,
        _same_role_runs,
        _only_system,
        _late_system,
        _user_after_tool,
        _calls_after_last_user,
        _unsigned_turn_calls,
    }
)
"""The facts that read nothing but the roles and the calls and results (their ids, names,
inputs, options and messages): reasoning parts inserted in place (:meth:`HistoryIndex.
_after_reasoning_added`) or removed (:meth:`HistoryIndex._after_reasoning_dropped`) leave them
as they were."""


FACTS: dict[str, Fact] = {
    "unusual_inputs": _unusual_inputs,
    "final_assistant": _final_assistant,
    "unpaired": _unpaired,
    "only_system": _only_system,
    "same_role_runs": _same_role_runs,
    "late_system": _late_system,
    "user_after_tool": _user_after_tool,
    "results_not_first": _results_not_first,
    "head_not_user": _head_not_user,
    "calls_after_last_user": _calls_after_last_user,
    "unsigned_turn_calls": _unsigned_turn_calls,
    "duplicate_call_ids": _duplicate_call_ids,
    "provider_executed": _provider_executed,
    "tool_options": _tool_options,
    "anthropic_tool_options": _anthropic_tool_options,
    "unoffered_tools": _unoffered_tools,
    "invalid_tool_names": _invalid_tool_names,
    "invalid_tool_call_ids": _invalid_tool_call_ids,
    "unaccepted_tool_call_ids": _unaccepted_tool_call_ids,
    "assistant_options": _assistant_options,
    "google_unissued_signatures": _google_unissued_signatures,
    "duplicate_item_ids": _duplicate_item_ids,
    "tool_loop_reasoning": _tool_loop_reasoning,
    "trailing_reasoning": _trailing_reasoning,
    "reasoning_not_first": _reasoning_not_first,
    "reasoning_only_message": _reasoning_only_message,
    "calls_without_reasoning": _calls_without_reasoning,
    "non_ascii_reasoning": _non_ascii_reasoning,
    "any_reasoning": _any_reasoning,
    "other_model_thinking": _other_model_thinking,
    "empty_reasoning": _empty_reasoning,
    "unplain_images": _unplain_images,
    "unplain_files": _unplain_files,
    "non_item_reasoning": _non_item_reasoning,
    "encrypted_without_item_id": _encrypted_without_item_id,
    "reasoning_without_following_item": _reasoning_without_following_item,
    "anthropic_unsigned_reasoning": _unsigned_for("anthropic"),
    "bedrock_unsigned_reasoning": _unsigned_for("bedrock"),
}
"""The facts a rule may name in ``Rule.needs`` beside the trigger lists, each computed when a
plan's verdict asks for it (:meth:`HistoryIndex.clean`), for the plan's target:

* ``unpaired``: not :attr:`HistoryIndex.paired` (some call lacks its result where it belongs,
  or some result its call);
* ``unusual_inputs``: a call whose input is not a plain dict;
* ``duplicate_call_ids``: two calls share an id;
* ``invalid_tool_call_ids``: an id of a call, result or approval request that the target's
  provider profile refuses (its shared id rule: characters and length);
* ``unaccepted_tool_call_ids``: the same, by the whole rule of the profile, its exact id format
  too (Mistral's nine letters and digits);
* ``invalid_tool_names``: a tool name of a call or result that the profile refuses;
* ``provider_executed``: a provider-executed call;
* ``tool_options``: a call or result with provider options;
* ``anthropic_tool_options``: a call or result with provider options for Anthropic (other
  namespaces alone, such as heal's mark on a result it made, leave it false);
* ``unoffered_tools``: the target names its tools, and a client call names another;
* ``final_assistant``: the last message is an assistant message;
* ``same_role_runs``: two consecutive messages of the same role;
* ``only_system``: no message other than system messages (or none at all);
* ``late_system``: a system message after the first message of another role;
* ``user_after_tool``: a user message right after a tool message;
* ``results_not_first``: a user message right after a tool message carries the Anthropic
  adapter's block order with a result after another block (see
  :func:`heal.rules._options.results_not_first`);
* ``head_not_user``: the first message that is not a system message is not a user message, or
  is one of text parts that all carry provider options (heal's placeholder is one);
* ``calls_after_last_user``: a tool call after the last user message (in the current turn);
* ``unsigned_turn_calls``: an assistant message after the last user message whose first call
  (not provider-executed) carries no Google thought signature
  (:func:`heal.rules.google.has_signature`);
* ``assistant_options``: a part of an assistant message with provider options other than
  heal's own marks;
* ``google_unissued_signatures``: a part of an assistant message holding reasoning of another
  provider alone, or a signature Gemini did not issue (:func:`heal.rules.google.unissued`);
* ``duplicate_item_ids``: an OpenAI item id the request would carry twice
  (``duplicate-item-id`` finds it: :func:`heal.rules.openai.duplicate_item_findings`);
* ``tool_loop_reasoning``: the history holds reasoning and ends with a tool message (an open
  tool loop, which Anthropic wants opened by signed thinking);
* ``trailing_reasoning``: the last part of the last message is reasoning;
* ``reasoning_not_first``: a message holds reasoning after a first part that is not reasoning;
* ``reasoning_only_message``: an assistant message holds reasoning and nothing else;
* ``calls_without_reasoning``: an assistant message with a client tool call holds no reasoning;
* ``non_ascii_reasoning``: a reasoning part's text is not ASCII (only such text can hold a lone
  surrogate);
* ``any_reasoning``: a reasoning part (the ``reasoning`` list, as a fact: a rule that removes
  every reasoning part needs it, so that the quick verdict lists the parts for it);
* ``other_model_thinking``: reasoning signed for the target's platform in a message that
  records another model as its writer than the target's (bound to another signature scope:
  :func:`heal.rules.target.other_models_thinking`);
* ``empty_reasoning``: a reasoning part's text is empty;
* ``unplain_images``: an image part outside a user message, or one that is not plain
  (:func:`heal.rules.files.plain_image`: a file stored at OpenAI, an unusual media type, no
  data, provider options, a subclass);
* ``unplain_files``: a file part outside a user message, or one that is not a plain image
  (:func:`heal.rules.files.plain_image_file`: any other media type, a file stored at OpenAI,
  no data, provider options, a subclass);
* ``non_item_reasoning``: a reasoning part that is not an OpenAI reasoning item (no OpenAI item
  id nor encrypted content: another provider's, or none;
  :func:`heal.rules.openai.is_reasoning_item`);
* ``encrypted_without_item_id``: encrypted OpenAI reasoning without its item id;
* ``reasoning_without_following_item``: an OpenAI reasoning item with no other item after it in
  its turn (:func:`heal.rules.openai.unfollowed_item`);
* ``anthropic_unsigned_reasoning``, ``bedrock_unsigned_reasoning``: a reasoning part without
  that platform's signature (:data:`heal.rules.reasoning.SIGNINGS`).

Each is True whenever its problem may be there: a rule that needs one finds nothing when it is
False. They are listed cheapest first, the order in which a verdict asks them."""


_RUN_SPAN = 6
"""The mean length of the runs an edit keeps below which :meth:`HistoryIndex.after_edit`
scans the whole history instead. Measured on the benchmark corpus, every message after each run
of L changed: the runs cost 2.3x a scan at L = 1, as much at L = 4 or 5, 0.7x at L = 8, 0.2x
at L = 64 (an orphan call in every turn gives the same figures)."""


_R = TypeVar("_R", bound=tuple[int, int, object])


def _swapped_refs(refs: list[_R], new_part: Callable[[tuple[int, int]], object | None]) -> list[_R]:
    """``refs`` with each part ``new_part`` gives a replacement for (by its place) replaced by
    it; ``refs`` itself when none is (an index's lists are never changed)."""
    out: list[_R] | None = None
    i = -1
    for ref in refs:
        i += 1
        new = new_part((ref[0], ref[1]))
        if new is not None:
            if out is None:
                out = refs.copy()
            out[i] = (ref[0], ref[1], new)  # type: ignore[assignment]
    return refs if out is None else out


def _moved_refs(refs: list[_R], moves: dict[int, list[int] | int]) -> list[_R]:
    """``refs`` with each reference in a message ``moves`` maps moved: to the new index of each
    of its old parts (a list), or along by a number of places (an int); ``refs`` itself when
    none moved."""
    out: list[_R] | None = None
    i = -1
    for ref in refs:
        i += 1
        m = ref[0]
        if m in moves:
            if out is None:
                out = refs.copy()
            move = moves[m]
            p = ref[1] + move if type(move) is int else move[ref[1]]  # type: ignore[index]
            out[i] = (m, p, ref[2])  # type: ignore[assignment]
    return refs if out is None else out


def _rescan(n: int, kept: Sequence[tuple[int, int, int]]) -> bool:
    """Whether to index an edited history of ``n`` messages by a scan of it all, rather than
    from the runs ``kept``: when they are many and short, or cover less than half of it."""
    return len(kept) * _RUN_SPAN > n or sum(run[2] for run in kept) * 2 < n


class _Splice:
    """The facts of an edited history, from the runs of messages an edit kept (facts of the old
    index, moved) and the messages it scanned (facts of an index of those alone, placed)."""

    __slots__ = ("fresh", "kept")

    def __init__(self, kept: Sequence[tuple[int, int, int]], fresh: list[int]) -> None:
        self.kept = kept
        self.fresh = fresh
        """The position in the edited history of each scanned message."""

    def values(self, old: list[str], scanned: list[str]) -> list[str]:
        """A list with one value per message."""
        out: list[str] = []
        j = 0
        for start, new_start, count in self.kept:
            stop = j + (new_start - (len(out)))
            out += scanned[j:stop]
            j = stop
            out += old[start : start + count]
        out += scanned[j:]
        return out

    def positions(self, old: list[int], scanned: list[int]) -> list[int]:
        """A list of message positions, in order."""
        if not old and not scanned:
            return []
        fresh = self.fresh
        out: list[int] = []
        j, n_scanned, lo = 0, len(scanned), 0
        for start, new_start, count in self.kept:
            while j < n_scanned and fresh[scanned[j]] < new_start:
                out.append(fresh[scanned[j]])
                j += 1
            lo = bisect_left(old, start, lo)
            hi = bisect_left(old, start + count, lo)
            shift = new_start - start
            out += old[lo:hi] if not shift else [m + shift for m in old[lo:hi]]
            lo = hi
        out += [fresh[m] for m in scanned[j:]]
        return out

    def refs(
        self, old: list[tuple[int, int, _Item]], scanned: list[tuple[int, int, _Item]]
    ) -> list[tuple[int, int, _Item]]:
        """A list of references ``(message, part, item)``, in history order."""
        if not old and not scanned:
            return []
        return self.refs_with(old, [], scanned, [])[0]

    def refs_with(
        self,
        old: list[tuple[int, int, _Item]],
        old_more: list[str],
        scanned: list[tuple[int, int, _Item]],
        scanned_more: list[str],
    ) -> tuple[list[tuple[int, int, _Item]], list[str]]:
        """:meth:`refs`, and a list parallel to them (the call ids), if given (else empty)."""
        fresh = self.fresh
        parallel = bool(old_more or scanned_more)
        out: list[tuple[int, int, _Item]] = []
        more: list[str] = []
        j, n_scanned, lo = 0, len(scanned), 0
        for start, new_start, count in self.kept:
            j0 = j
            while j < n_scanned and fresh[scanned[j][0]] < new_start:
                j += 1
            if j > j0:
                out += [(fresh[m], p, x) for m, p, x in scanned[j0:j]]
                if parallel:
                    more += scanned_more[j0:j]
            lo = bisect_left(old, start, lo, key=_message_of)
            hi = bisect_left(old, start + count, lo, key=_message_of)
            if hi > lo:
                shift = new_start - start
                out += old[lo:hi] if not shift else [(m + shift, p, x) for m, p, x in old[lo:hi]]
                if parallel:
                    more += old_more[lo:hi]
            lo = hi
        if j < n_scanned:
            out += [(fresh[m], p, x) for m, p, x in scanned[j:]]
            if parallel:
                more += scanned_more[j:]
        return out, more


_message_of = itemgetter(0)
"""The message index of a reference (a C-level key for ``bisect``)."""


def _base(part: object) -> type | None:
    """The class in ``_BASES`` that lists ``part``: its own, or its first base there."""
    for cls in _BASES:
        if isinstance(part, cls):
            return cls
    return None


_position: Callable[[_PartRef], tuple[int, int]] = itemgetter(0, 1)
"""A reference's place: (message, part)."""


def _merged(listed: list[_Ref], more: list[_Ref]) -> list[_Ref]:
    """Two lists of references as one, in history order."""
    # Positions are unique, so the sort never compares the parts themselves.
    return sorted(listed + more, key=_position) if more else listed
