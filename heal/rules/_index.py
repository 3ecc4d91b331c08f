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
    ModelMessage,
    ReasoningPart,
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

_TEXT, _CALL, _RESULT, _REASONING, _REQUEST, _RESPONSE, _OTHER = range(7)
_KINDS: dict[type, int] = {
    TextPart: _TEXT,
    ToolCallPart: _CALL,
    ToolResultPart: _RESULT,
    ReasoningPart: _REASONING,
    ToolApprovalRequest: _REQUEST,
    ToolApprovalResponse: _RESPONSE,
}


def _kind(cls: type) -> int:
    # Subclasses of the part models (rare) take the slow path once per class.
    for base, kind in _KINDS.items():
        if issubclass(cls, base):
            _KINDS[cls] = kind
            return kind
    _KINDS[cls] = _OTHER
    return _OTHER


@dataclass(frozen=True, slots=True)
class Pairing:
    """Tool calls and results by id, and where each assistant message's result block ends."""

    block_end: list[int]
    """For message ``i``: the first index after ``i`` that is not a tool message. The messages
    ``i + 1 .. block_end[i] - 1`` are the tool messages directly after ``i``: its result block."""
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

    def in_block(self, call_message: int, message: int) -> bool:
        """Whether ``message`` is in the result block of assistant message ``call_message``."""
        return call_message < message < self.block_end[call_message]


class HistoryIndex:
    """Facts about one history, gathered in a single scan."""

    __slots__ = (
        "_pairing",
        "calls",
        "empty",
        "messages",
        "reasoning",
        "requests",
        "responses",
        "results",
        "roles",
        "strings",
        "texts",
    )

    def __init__(self, messages: Sequence[ModelMessage]) -> None:
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
        kinds = _KINDS
        for i, message in enumerate(messages):
            roles.append(message.role)
            content = message.content
            if content.__class__ is str:
                strings.append(i)
                continue
            if not content:
                empty.append(i)
                continue
            for j, part in enumerate(content):
                cls = part.__class__
                kind = kinds[cls] if cls in kinds else _kind(cls)
                if kind == _TEXT:
                    texts.append((i, j, part))  # type: ignore[arg-type]
                elif kind == _CALL:
                    calls.append((i, j, part))  # type: ignore[arg-type]
                elif kind == _RESULT:
                    results.append((i, j, part))  # type: ignore[arg-type]
                elif kind == _REASONING:
                    reasoning.append((i, j, part))  # type: ignore[arg-type]
                elif kind == _REQUEST:
                    requests.append((i, j, part))  # type: ignore[arg-type]
                elif kind == _RESPONSE:
                    responses.append((i, j, part))  # type: ignore[arg-type]
        self.roles = roles
        """The role of each message."""
        self.calls = calls
        """Every tool-call part, client- and provider-executed, in history order."""
        self.results = results
        """Every tool-result part, in tool and assistant messages, in history order."""
        self.texts = texts
        """Every text part (string contents are in ``strings``)."""
        self.reasoning = reasoning
        """Every reasoning part."""
        self.requests = requests
        """Every tool-approval-request part."""
        self.responses = responses
        """Every tool-approval-response part."""
        self.strings = strings
        """Indices of messages whose content is a string (system messages included)."""
        self.empty = empty
        """Indices of messages whose content is an empty list."""
        self._pairing: Pairing | None = None

    @property
    def pairing(self) -> Pairing:
        """The pairing view, computed on first use."""
        if self._pairing is None:
            self._pairing = self._build_pairing()
        return self._pairing

    def _build_pairing(self) -> Pairing:
        roles = self.roles
        n = len(roles)
        block_end = [n] * n
        following = n
        for i in range(n - 1, -1, -1):
            block_end[i] = following
            if roles[i] != "tool":
                following = i
        calls: dict[str, list[CallRef]] = {}
        provider_calls: dict[str, list[CallRef]] = {}
        for ref in self.calls:
            target = provider_calls if ref[2].provider_executed else calls
            target.setdefault(ref[2].tool_call_id, []).append(ref)
        results: dict[str, list[ResultRef]] = {}
        for ref in self.results:
            if roles[ref[0]] == "tool":
                results.setdefault(ref[2].tool_call_id, []).append(ref)
        requests: dict[str, list[RequestRef]] = {}
        for req in self.requests:
            requests.setdefault(req[2].tool_call_id, []).append(req)
        responses: dict[str, ResponseRef] = {}
        for resp in self.responses:
            responses.setdefault(resp[2].approval_id, resp)
        return Pairing(block_end, calls, provider_calls, results, requests, responses)
