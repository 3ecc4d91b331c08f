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

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress
from typing import TypeVar

from heal.messages import (
    ContentOutput,
    ErrorJsonOutput,
    ErrorTextOutput,
    ExecutionDeniedOutput,
    FilePart,
    ImagePart,
    JsonOutput,
    ModelMessage,
    ReasoningPart,
    TextOutput,
    TextPart,
    ToolApprovalRequest,
    ToolApprovalResponse,
    ToolCallPart,
    ToolResultPart,
)

__all__ = ["CallRef", "HistoryIndex", "Pairing", "ResultRef"]

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
        "_paired",
        "_pairing",
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
        # tests keep it near the cost of merely iterating the parts.
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
        last_non_tool = i = -1
        for message in messages:
            i += 1
            role = message.role
            add_role(role)
            is_tool = role == "tool"
            if not is_tool:
                if waiting:
                    paired = False  # a call's result block ended without its result
                    waiting.clear()
                last_non_tool = i
            content = message.content
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
                    tid = part.tool_call_id
                    add_id(tid)
                    add_name(part.tool_name)
                    if type(part.input) is not dict:
                        unusual_inputs.append(ref)
                    if part.provider_executed:
                        simple = False
                    else:
                        waiting[tid] = i
                elif type(part) is result_cls:
                    result = (i, j, part)
                    add_result(result)
                    add_name(part.tool_name)
                    output = part.output
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
                    elif waiting.pop(part.tool_call_id, -2) != last_non_tool:
                        paired = False  # no call waits for it right before
                elif type(part) is reasoning_cls:
                    add_reasoning((i, j, part))
                else:
                    add_remaining((i, j, part))
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


def _base(part: object) -> type | None:
    """The class in ``_BASES`` that lists ``part``: its own, or its first base there."""
    for cls in _BASES:
        if isinstance(part, cls):
            return cls
    return None


def _position(ref: _PartRef) -> tuple[int, int]:
    return ref[0], ref[1]


def _merged(listed: list[_Ref], more: list[_Ref]) -> list[_Ref]:
    """Two lists of references as one, in history order."""
    # Positions are unique, so the sort never compares the parts themselves.
    return sorted(listed + more, key=_position) if more else listed
