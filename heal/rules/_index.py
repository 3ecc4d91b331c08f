"""The history index: one scan of the messages that every rule consults.

Built once per pass (and again only after a rule changed something), so a registry of thirty
rules costs one scan plus whatever each rule does with the few items that concern it, not thirty
scans. References are plain tuples ``(message index, part index, part)`` for speed.

The pairing view (tool calls and results by id, and the block of tool messages after each
assistant message) is computed on first use only, so histories without tools never pay for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

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

_TEXT, _CALL, _RESULT, _REASONING, _REQUEST, _RESPONSE, _FILE, _IMAGE, _OTHER = range(9)
_KINDS: dict[type, int] = {
    TextPart: _TEXT,
    ToolCallPart: _CALL,
    ToolResultPart: _RESULT,
    ReasoningPart: _REASONING,
    ToolApprovalRequest: _REQUEST,
    ToolApprovalResponse: _RESPONSE,
    FilePart: _FILE,
    ImagePart: _IMAGE,
}


_PLAIN_OUTPUTS: frozenset[type] = frozenset[type]((JsonOutput, ErrorJsonOutput))
"""Tool output classes that hold no text of their own (see :attr:`HistoryIndex.outputs`)."""


def _kind(cls: type) -> int:
    # Subclasses of the part models (rare) take the slow path once per class.
    for base, kind in _KINDS.items():
        if issubclass(cls, base):
            _KINDS[cls] = kind
            return kind
    _KINDS[cls] = _OTHER
    return _OTHER


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

    def __init__(self, messages: Sequence[ModelMessage]) -> None:
        # The hot loop of healing: plain tuples, bound methods and class identity tests keep it
        # near the cost of merely iterating the parts.
        self.messages = messages
        roles: list[str] = []
        calls: list[CallRef] = []
        results: list[ResultRef] = []
        texts: list[TextRef] = []
        reasoning: list[ReasoningRef] = []
        requests: list[RequestRef] = []
        responses: list[ResponseRef] = []
        strings: list[int] = []
        empty: list[int] = []
        files: list[FileRef] = []
        images: list[ImageRef] = []
        call_ids: list[str] = []
        tool_names: set[str] = set()
        unusual_inputs: list[CallRef] = []
        outputs: list[ResultRef] = []
        content_outputs: list[ResultRef] = []
        texts_after_calls: list[int] = []
        call_at = text_after_call_at = -1  # the last message with a call, with text after one
        add_call, add_result, add_text = calls.append, results.append, texts.append
        add_id, add_name = call_ids.append, tool_names.add
        add_role = roles.append
        text_cls, call_cls, result_cls = TextPart, ToolCallPart, ToolResultPart
        text_output, error_output, plain_outputs = TextOutput, ErrorTextOutput, _PLAIN_OUTPUTS
        content_output, denied_output = ContentOutput, ExecutionDeniedOutput
        # Pairing, decided on the way (see _check_paired, which does it afterwards for the
        # histories this does not cover: provider-executed calls, results outside tool
        # messages): each client call waits in `waiting` for its result, which must come in a
        # tool message whose last non-tool message is the call's.
        waiting: dict[str, int] = {}
        paired = True
        simple = True
        last_non_tool = -1
        i = -1
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
                cls = type(part)
                if cls is text_cls:
                    text = part.text  # type: ignore[union-attr]
                    if not text.isascii() or text.isspace() or not text:
                        add_text((i, j, part))  # type: ignore[arg-type]
                    if call_at == i and text_after_call_at != i:
                        texts_after_calls.append(i)
                        text_after_call_at = i
                elif cls is call_cls:
                    # The facts the tool-shape rules need, gathered while the part is at hand:
                    # one pass over calls instead of one per rule.
                    ref = (i, j, part)
                    add_call(ref)  # type: ignore[arg-type]
                    call_at = i
                    tid = part.tool_call_id  # type: ignore[union-attr]
                    add_id(tid)
                    add_name(part.tool_name)  # type: ignore[union-attr]
                    if type(part.input) is not dict:  # type: ignore[union-attr]
                        unusual_inputs.append(ref)  # type: ignore[arg-type]
                    if part.provider_executed:  # type: ignore[union-attr]
                        simple = False
                    else:
                        waiting[tid] = i
                elif cls is result_cls:
                    ref = (i, j, part)
                    add_result(ref)  # type: ignore[arg-type]
                    add_name(part.tool_name)  # type: ignore[union-attr]
                    output = part.output  # type: ignore[union-attr]
                    output_cls = type(output)
                    if output_cls is text_output or output_cls is error_output:
                        value: str = output.value  # type: ignore[union-attr,assignment]
                        if not value.isascii() or value.isspace() or not value:
                            outputs.append(ref)  # type: ignore[arg-type]
                    elif output_cls is content_output:
                        content_outputs.append(ref)  # type: ignore[arg-type]
                    elif output_cls is denied_output:
                        outputs.append(ref)  # type: ignore[arg-type]
                    elif output_cls not in plain_outputs:  # a subclass: let the rules look
                        outputs.append(ref)  # type: ignore[arg-type]
                        content_outputs.append(ref)  # type: ignore[arg-type]
                    if is_tool:
                        if waiting.pop(part.tool_call_id, -2) != last_non_tool:  # type: ignore[union-attr]
                            paired = False  # no call waits for it right before
                    else:
                        simple = False
                else:
                    kind = _KINDS.get(cls)
                    if kind is None:
                        kind = _kind(cls)
                    ref = (i, j, part)
                    if kind == _REASONING:
                        reasoning.append(ref)  # type: ignore[arg-type]
                    elif kind == _REQUEST:
                        requests.append(ref)  # type: ignore[arg-type]
                    elif kind == _RESPONSE:
                        responses.append(ref)  # type: ignore[arg-type]
                    elif kind == _FILE:
                        files.append(ref)  # type: ignore[arg-type]
                    elif kind == _IMAGE:
                        images.append(ref)  # type: ignore[arg-type]
                    elif kind == _TEXT:  # subclasses of the common parts
                        add_text(ref)  # type: ignore[arg-type]
                        if call_at == i and text_after_call_at != i:
                            texts_after_calls.append(i)
                            text_after_call_at = i
                    elif kind == _CALL:
                        simple = False
                        add_call(ref)  # type: ignore[arg-type]
                        call_at = i
                        add_id(part.tool_call_id)  # type: ignore[union-attr]
                        add_name(part.tool_name)  # type: ignore[union-attr]
                        if type(part.input) is not dict:  # type: ignore[union-attr]
                            unusual_inputs.append(ref)  # type: ignore[arg-type]
                    elif kind == _RESULT:
                        simple = False
                        add_result(ref)  # type: ignore[arg-type]
                        outputs.append(ref)  # type: ignore[arg-type]
                        content_outputs.append(ref)  # type: ignore[arg-type]
                        add_name(part.tool_name)  # type: ignore[union-attr]
        self.roles = roles
        """The role of each message."""
        self.calls = calls
        """Every tool-call part, client- and provider-executed, in history order."""
        self.call_ids = call_ids
        """The id of each of :attr:`calls`, in the same order (read-only)."""
        self.tool_names = tool_names
        """Every tool name of a call or a result (read-only)."""
        self.unusual_inputs = unusual_inputs
        """The calls whose input is not a plain dict (missing, a string, an array, ...)."""
        self.outputs = outputs
        """Tool results whose output is text (or error text) that is blank or not pure ASCII,
        or an execution denial: the only text outputs the text rules need to look at."""
        self.content_outputs = content_outputs
        """Tool results whose output is content (a list of text, image and file items)."""
        self.texts_after_calls = texts_after_calls
        """Messages in which a text part comes after a tool-call part, in order."""
        self.results = results
        """Every tool-result part, in tool and assistant messages, in history order."""
        self.texts = texts
        """Text parts that are empty, whitespace only, or not pure ASCII: the only ones the
        text rules need to look at. (Rules that need every text part read the messages.)"""
        self.reasoning = reasoning
        """Every reasoning part."""
        self.requests = requests
        """Every tool-approval-request part."""
        self.responses = responses
        """Every tool-approval-response part."""
        self.strings = strings
        """Messages whose string content is empty, whitespace only, or not pure ASCII."""
        self.files = files
        """Every file part."""
        self.images = images
        """Every image part."""
        self.empty = empty
        """Indices of messages whose content is an empty list."""
        self._pairing: Pairing | None = None
        self._paired: bool | None = None
        if simple:
            # Also unpaired: a call still waiting at the end, two calls sharing an id.
            self._paired = paired and not waiting and len(set(call_ids)) == len(call_ids)
        self._calls_by_message: dict[int, list[tuple[int, ToolCallPart]]] | None = None
        present = []
        for name, items in (
            ("calls", calls),
            ("results", results),
            ("texts", texts),
            ("reasoning", reasoning),
            ("requests", requests),
            ("responses", responses),
            ("strings", strings),
            ("empty", empty),
            ("files", files),
            ("images", images),
            ("outputs", outputs),
            ("content_outputs", content_outputs),
            ("texts_after_calls", texts_after_calls),
        ):
            if items:
                present.append(name)
        self.present = frozenset(present)
        """The names of the lists above that are non-empty (what :attr:`Rule.triggers` names)."""

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
