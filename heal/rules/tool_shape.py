"""Rules on the shape of tool calls: their input, their ids, their names.

They run before the pairing rules, because pairing keys on ids: once ids are valid and unique,
"which result answers which call" has one answer.
"""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right
from collections.abc import Collection, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from heal._construct import replaced
from heal.messages import (
    JSON_NESTING_LIMIT,
    ToolApprovalRequest,
    ToolCallPart,
    ToolResultPart,
    nested_deeper_than,
)
from heal.repairs import Action
from heal.rules import _errors as err
from heal.rules._base import (
    Context,
    DropPart,
    Example,
    Finding,
    IdRenames,
    Rejection,
    Rule,
    SetPart,
)
from heal.rules._naming import rename_all

if TYPE_CHECKING:
    from heal.providers import ProviderProfile

__all__ = ["DuplicateToolCallId", "InvalidToolCallId", "InvalidToolInput", "InvalidToolName"]

_IdPart = ToolCallPart | ToolResultPart | ToolApprovalRequest


def _id_parts(ctx: Context) -> Iterator[tuple[int, int, _IdPart]]:
    """Every part that carries a tool-call id, in history order within each kind."""
    index = ctx.index
    yield from index.calls
    yield from index.results
    yield from index.requests


class InvalidToolInput(Rule):
    """A tool call whose input is not a JSON object."""

    id = "invalid-tool-input"
    edits_protected = True  # a call the provider rejects, protected or not
    triggers = frozenset({"calls"})
    needs = frozenset({"unusual_inputs"})
    summary = "tool-call input is not a JSON object (a raw string, array, scalar, null or missing)"
    choices = ("coerce-object", "empty-object")
    choice_docs = {
        "coerce-object": "A string holding a JSON object becomes that object; any other value "
        'is wrapped as {"raw": value}. Loses nothing.',
        "empty-object": "Same for strings holding a JSON object; anything else becomes {}. "
        "The old value is kept in the repair record only.",
    }
    rejections = (
        Rejection(
            "anthropic",
            "messages.61.content.0.tool_use.input: Input should be a valid dictionary",
            "anthropics/claude-code#6696; vercel/ai#13645",
            pattern=err.ANTHROPIC_TOOL_INPUT_NOT_OBJECT,
        ),
        Rejection(
            "openai-compatible (vLLM)",
            '{"error":{"message":"Expecting \',\' delimiter: line 1 column 54 (char 53)",'
            '"type":"BadRequestError","param":null,"code":400}}',
            "vllm-project/vllm#43995",
            pattern=err.COMPAT_TOOL_ARGUMENTS_NOT_JSON,
        ),
    )
    example = Example(
        before=[
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": '{"a": 1}'}
                ],
            },
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": "c1",
                        "toolName": "f",
                        "output": {"type": "text", "value": "ok"},
                    }
                ],
            },
        ],
        after=[
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {"a": 1}}
                ],
            },
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": "c1",
                        "toolName": "f",
                        "output": {"type": "text", "value": "ok"},
                    }
                ],
            },
        ],
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        for m, p, part in ctx.index.unusual_inputs:
            value = part.input
            missing = "input" not in part.model_fields_set
            new = _coerce(value, missing=missing, wrap=choice == "coerce-object")
            what = "has no input" if missing else f"has a {_json_kind(value)} as input"
            yield Finding(
                Action.REPLACE,
                m,
                p,
                f"tool call {part.tool_name!r} {what}; replaced with a JSON object",
                edits=(SetPart(m, p, replaced(part, {"input": new})),),
                tool_call_id=part.tool_call_id,
                removed=None if missing else {"input": value},
                added={"input": new},
            )


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_PARSED_DEPTH_LIMIT = JSON_NESTING_LIMIT - 2
"""How deeply a string's object may be nested for the rule to use it as the input: the models
take :data:`JSON_NESTING_LIMIT` levels, the repair record holds the input one level deeper (under
``"input"``), and pydantic's JSON writer counts the record itself as one more."""


def _coerce(value: Any, *, missing: bool, wrap: bool) -> dict[str, Any]:
    if missing:
        return {}
    if isinstance(value, dict):  # a dict subclass: copy it into a plain dict
        return dict(value)
    if isinstance(value, str):
        try:
            # NaN and Infinity are not JSON: a string holding them stays wrapped, not parsed.
            parsed = json.loads(value, parse_constant=_reject_constant)
        except (ValueError, RecursionError):
            # The parser recurses once per level: JSON nested about a thousand levels deep
            # exhausts the stack, and is no more a usable input than text that is not JSON.
            parsed = None
        if isinstance(parsed, dict) and not _too_deep(value, parsed):
            return parsed
    return {"raw": value} if wrap else {}


def _too_deep(text: str, parsed: dict[str, Any]) -> bool:
    # An object nested too deeply for the models would make a history that cannot be dumped or
    # loaded again: it is kept as text, as unparseable input is. Every level takes a bracket, so
    # counting them (at C speed) spares the walk for every input an agent writes.
    if text.count("{") + text.count("[") <= _PARSED_DEPTH_LIMIT:
        return False
    return nested_deeper_than(parsed, _PARSED_DEPTH_LIMIT)


class InvalidToolCallId(Rule):
    """A tool-call id with characters providers reject, or an empty one."""

    id = "invalid-tool-call-id"
    edits_protected = True  # an id the provider rejects, protected or not
    triggers = frozenset({"calls", "requests", "results"})
    needs = frozenset({"invalid_tool_call_ids"})
    summary = "tool-call id is empty or has characters outside [a-zA-Z0-9_-]"
    choice_docs = {
        "fix": "Replace each forbidden character with '_' in the call, its results and its "
        "approval request, deterministically; ids that would collide take a digest suffix. "
        "The old id is kept in the repair record.",
    }
    # Typed as the base's: a subclass (anthropic-tool-id-format) cites fewer rejections.
    rejections: tuple[Rejection, ...] = (
        Rejection(
            "anthropic",
            "messages.1.content.1.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
            "CommandCodeAI/command-code#323; HKUDS/nanobot PR#4356",
            pattern=err.ANTHROPIC_TOOL_USE_ID_PATTERN,
        ),
        Rejection(
            "openai-chat",
            "Invalid 'messages[10].tool_calls[0].id': string too long. Expected a string with "
            "maximum length 40, but got a string with length 53 instead.",
            "agno-agi/agno#5382; vercel/ai#8132; Portkey-AI/gateway#1062",
            pattern=err.OPENAI_TOOL_CALL_ID_TOO_LONG,
        ),
        Rejection(
            "openai-responses",
            "Invalid 'input[95].call_id': string too long. Expected a string with maximum "
            "length 64",
            "AnswerDotAI/fastllm#45; decolua/9router#393 (heal.providers openai-responses profile)",
            pattern=err.OPENAI_CALL_ID_TOO_LONG,
        ),
    )
    example = Example(
        before=[
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool-call",
                        "toolCallId": "functions.search:0",
                        "toolName": "search",
                        "input": {},
                    }
                ],
            },
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": "functions.search:0",
                        "toolName": "search",
                        "output": {"type": "text", "value": "ok"},
                    }
                ],
            },
        ],
        after=[
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool-call",
                        "toolCallId": "functions_search_0",
                        "toolName": "search",
                        "input": {},
                    }
                ],
            },
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": "functions_search_0",
                        "toolName": "search",
                        "output": {"type": "text", "value": "ok"},
                    }
                ],
            },
        ],
    )

    def check(self, ctx: Context, choice: str) -> Iterable[Finding]:
        profile = ctx.profile
        index = ctx.index
        ids = set(index.call_ids)
        if not index.paired:  # when paired, every result id is a call id
            ids.update(ref[2].tool_call_id for ref in index.results)
        ids.update(ref[2].tool_call_id for ref in index.requests)
        if profile.all_valid_tool_call_ids(ids):
            return ()
        if index.paired:
            ids.update(ref[2].tool_call_id for ref in index.results)
        mapping = self._renaming(ids, profile)
        # Each part to rename with its id, in history order (a place is never repeated, so the
        # sort compares places alone).
        bad = [
            (m, p, part, tid)
            for m, p, part in _id_parts(ctx)
            if (tid := part.tool_call_id) in mapping
        ]
        bad.sort()
        return IdRenames.mapped(bad, mapping, self.renamed_why)

    renamed_why = "is not a valid tool-call id"
    """What is wrong with each id :meth:`renamed_ids` renames (its records' reason)."""

    def renamed_ids(self, ids: Collection[str], profile: ProviderProfile) -> dict[str, str] | None:
        """Each of ``ids`` (every id of a history) the rule renames, with its new id: the
        renaming its ``check`` makes, which the engine also makes of a history plain but for
        its ids, without the index. None when every id is valid. Each id to one no other
        value of ``ids`` is or becomes (``rename_all``)."""
        if profile.all_valid_tool_call_ids(ids):  # nearly always: at C speed over them all
            return None
        return self._renaming(ids, profile)

    def _renaming(self, ids: Collection[str], profile: ProviderProfile) -> dict[str, str]:
        """:meth:`renamed_ids` of ids not all valid."""
        fits = profile.tool_call_id_pattern.fullmatch  # valid_tool_call_id, without its call
        bad = [tid for tid in ids if fits(tid) is None]
        good = set(ids).difference(bad)
        return rename_all(
            bad, good, profile.tool_call_id_forbidden, profile.tool_call_id_max, "call"
        )


class DuplicateToolCallId(Rule):
    """Two tool calls share one id, as when a turn is replayed or a provider reuses ids."""

    id = "duplicate-tool-call-id"
    edits_protected = True  # an id the provider rejects, protected or not
    triggers = frozenset({"calls"})
    needs = frozenset({"duplicate_call_ids"})
    summary = "two tool calls in the history share one id"
    choice_docs = {
        "fix": "Keep the first call's id; give each later call a new deterministic id "
        "(<id>_2, <id>_3, ...) and move its own results (those in the tool messages right after "
        "it, else those after it) and its approval request to the new id. Loses nothing.",
    }
    rejections = (
        Rejection(
            "anthropic",
            "messages.43.content.2: tool_use ids must be unique",
            "anthropics/claude-code#28515; BerriAI/litellm#23510",
            pattern=err.ANTHROPIC_DUPLICATE_TOOL_USE_ID,
        ),
        Rejection(
            "bedrock",
            "The toolUse blocks at messages.2.content contain duplicate Ids: http_request",
            "bvcyber/Cyber-AutoAgent-ng#72",
            pattern=err.BEDROCK_DUPLICATE_TOOL_USE_ID,
        ),
        Rejection(
            "openai-responses",
            "Duplicate item found with id rs_0468ed37bb668691006993cda255988190ac105e2c82965386. "
            "Remove duplicate items from your input and try again.",
            "continuedev/continue#10723; OpenRouterTeam/ai-sdk-provider#254; vercel/ai#7883",
            pattern=err.OPENAI_DUPLICATE_ITEM,
        ),
    )
    example = Example(
        before=[
            {"role": "user", "content": "a"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool-call", "toolCallId": "call_0", "toolName": "f", "input": {}}
                ],
            },
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": "call_0",
                        "toolName": "f",
                        "output": {"type": "text", "value": "1"},
                    }
                ],
            },
            {"role": "user", "content": "b"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool-call", "toolCallId": "call_0", "toolName": "f", "input": {}}
                ],
            },
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": "call_0",
                        "toolName": "f",
                        "output": {"type": "text", "value": "2"},
                    }
                ],
            },
        ],
        after=[
            {"role": "user", "content": "a"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool-call", "toolCallId": "call_0", "toolName": "f", "input": {}}
                ],
            },
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": "call_0",
                        "toolName": "f",
                        "output": {"type": "text", "value": "1"},
                    }
                ],
            },
            {"role": "user", "content": "b"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool-call", "toolCallId": "call_0_2", "toolName": "f", "input": {}}
                ],
            },
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": "call_0_2",
                        "toolName": "f",
                        "output": {"type": "text", "value": "2"},
                    }
                ],
            },
        ],
    )

    def check(self, ctx: Context, choice: str) -> Iterable[Finding]:
        index = ctx.index
        if len(set(index.call_ids)) == len(index.call_ids):
            return ()
        by_id: dict[str, list[tuple[int, int, ToolCallPart]]] = {}
        for ref in index.calls:
            by_id.setdefault(ref[2].tool_call_id, []).append(ref)
        dupes = {tid: refs for tid, refs in by_id.items() if len(refs) > 1}
        if not dupes:
            return ()
        used = {ref[2].tool_call_id for ref in _id_parts(ctx)}
        owners = _assign_owners(ctx, dupes)
        # Id by id, each later call and then what follows it (its results and approval
        # request) to the call's new id: a batch, its records in that order. A history that
        # replays one id in every turn renames two parts a turn.
        renames: list[tuple[int, int, _IdPart, str]] = []
        whys: list[str] = []
        for tid, refs in dupes.items():
            for k, (m, p, call) in enumerate(refs[1:], start=2):
                new_id, n = f"{tid}_{k}", k
                while new_id in used:
                    n += 1
                    new_id = f"{tid}_{k}_{n}"
                used.add(new_id)
                renames.append((m, p, call, new_id))
                whys.append(_REUSED)
                for om, op, part in owners.get((m, p), ()):
                    renames.append((om, op, part, new_id))
                    whys.append(_FOLLOWED)
        return IdRenames(renames, _REUSED, whys=whys)


_REUSED = "was already used by an earlier call"
_FOLLOWED = "followed its renamed call"


def _assign_owners(
    ctx: Context, dupes: dict[str, list[tuple[int, int, ToolCallPart]]]
) -> dict[tuple[int, int], list[tuple[int, int, _IdPart]]]:
    """For calls sharing an id, decide which results and approval requests belong to which.

    A result in the tool messages right after an assistant message belongs to that message's
    calls with its id, in order; an approval request, to the calls of its own message, in order;
    anything else (a provider-executed result, a misplaced result) to the nearest call before
    it, or to the first call when it comes before all of them.

    Each candidate group is a contiguous run of an id's calls (which are in history order),
    found by bisection: a history that replays one id in every turn has as many calls with it
    as turns, and scanning them all for each result made this quadratic.
    """
    block_end = ctx.index.pairing.block_end
    roles = ctx.index.roles
    owners: dict[tuple[int, int], list[tuple[int, int, _IdPart]]] = {}
    seen: dict[tuple[int, str, str], int] = {}
    groups: dict[str, _Calls] = {}
    refs: list[tuple[int, int, _IdPart]] = [*ctx.index.results, *ctx.index.requests]
    for ref in refs:
        m, p, part = ref
        tid = part.tool_call_id
        calls = dupes.get(tid)
        if calls is None:
            continue
        by_id = groups.get(tid)
        if by_id is None:
            by_id = groups[tid] = _Calls(calls, block_end)
        in_tool = roles[m] == "tool"
        group: list[tuple[int, int, ToolCallPart]]
        if isinstance(part, ToolApprovalRequest):
            # The calls of its own message.
            group, lo = calls, bisect_left(by_id.messages, m)
            hi = bisect_right(by_id.messages, m, lo)
        elif in_tool:
            # Tool messages answer client calls only; provider-run calls keep their results.
            # The client calls before it whose result block reaches it: those before ``m`` with
            # ``block_end`` past it, a final run of them as ``block_end`` never decreases.
            group, hi = by_id.client, bisect_left(by_id.client_messages, m)
            lo = bisect_right(by_id.client_ends, m, 0, hi)
        else:
            group, lo, hi = calls, 0, 0
        if lo < hi:
            key = (group[lo][0], tid, part.type)
            k = seen.get(key, 0)
            seen[key] = k + 1
            owner = group[lo + min(k, hi - lo - 1)]
        else:
            # A result in an assistant message answers a provider-run call; elsewhere, a client
            # call. Prefer the nearest such call before it.
            kind = by_id.client if in_tool else by_id.provider
            positions = by_id.client_positions if in_tool else by_id.provider_positions
            if not kind:
                kind, positions = calls, by_id.positions
            before = bisect_left(positions, (m, p))
            owner = kind[before - 1] if before else kind[0]
        owners.setdefault((owner[0], owner[1]), []).append(ref)
    return owners


class _Calls:
    """The calls sharing one id (in history order), split and keyed for bisection."""

    __slots__ = (
        "client",
        "client_ends",
        "client_messages",
        "client_positions",
        "messages",
        "positions",
        "provider",
        "provider_positions",
    )

    def __init__(self, calls: list[tuple[int, int, ToolCallPart]], block_end: list[int]) -> None:
        self.messages = [c[0] for c in calls]
        self.positions = [(c[0], c[1]) for c in calls]
        self.client = [c for c in calls if not c[2].provider_executed]
        self.provider = [c for c in calls if c[2].provider_executed]
        self.client_messages = [c[0] for c in self.client]
        self.client_ends = [block_end[c[0]] for c in self.client]
        self.client_positions = [(c[0], c[1]) for c in self.client]
        self.provider_positions = [(c[0], c[1]) for c in self.provider]


class InvalidToolName(Rule):
    """A tool name with characters providers reject, or longer than 64 characters."""

    id = "invalid-tool-name"
    edits_protected = True  # a name the provider rejects, protected or not
    triggers = frozenset({"calls", "results"})
    needs = frozenset({"invalid_tool_names"})
    summary = (
        "tool name is empty, longer than 64 characters, or has characters outside [a-zA-Z0-9_-]"
    )
    choices = ("rename", "drop-pair")
    choice_docs = {
        "rename": "Replace forbidden characters with '_' and shorten to 64 (with a digest "
        "suffix), in the call and its results; names that would collide with another name take "
        "a digest suffix. The old name is kept in the repair record.",
        "drop-pair": "Remove the call, its results and its approval request. The removed parts "
        "are kept in the repair records.",
    }
    rejections = (
        Rejection(
            "anthropic",
            "messages.1.content.1.tool_use.name: String should match pattern "
            "'^[a-zA-Z0-9_-]{1,64}$'",
            "drorm/vmpilot docs (quoting the live API)",
            pattern=err.ANTHROPIC_TOOL_NAME_PATTERN,
        ),
        Rejection(
            "openai-chat",
            "Invalid 'messages[9].tool_calls[0].function.name': string does not match pattern. "
            "Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
            "mcp-use/mcp-use PR#94",
            pattern=err.OPENAI_FUNCTION_NAME_PATTERN,
        ),
        Rejection(
            "bedrock",
            "1 validation error detected: Value at "
            "'messages.N.member.content.M.member.toolUse.name' "
            "failed to satisfy constraint: Member must satisfy regular expression pattern: "
            "[a-zA-Z0-9_-]+",
            "vercel/ai#9173",
            pattern=err.BEDROCK_TOOL_NAME_PATTERN,
        ),
        Rejection(
            "anthropic",
            "messages.18.content.0.tool_result.content.0.tool_reference.tool_name: String "
            "should have at most 64 characters",
            "mims-harvard/ToolUniverse#65",
            pattern=err.ANTHROPIC_TOOL_NAME_TOO_LONG,
        ),
        Rejection(
            "openai-compatible (DashScope/Qwen)",
            "<400> InternalError.Algo.InvalidParameter: The length of the tool name cannot "
            "exceed 64.",
            "QwenLM/Qwen3-VL#2069",
            pattern=err.ANTHROPIC_TOOL_NAME_TOO_LONG,
        ),
        Rejection(
            "google",
            "Invalid function name. Must start with a letter or an underscore. Must be "
            "alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), "
            "with a maximum length of 64.",
            "google-gemini/gemini-cli#6704, #7878; BerriAI/litellm#12543",
            pattern=err.GOOGLE_INVALID_FUNCTION_NAME,
        ),
        Rejection(
            "mistral",
            "Function name was add_newam_task_with_due_date___8c498bee-e833-49a9-8a88-"
            "0ab59fa26cb8 but must be a-z, A-Z, 0-9, or contain underscores and dashes, with a "
            "maximum length of 64.",
            "Kochava-Studios/witsy PR#164; BerriAI/litellm#2512",
            pattern=err.MISTRAL_FUNCTION_NAME,
        ),
    )
    example = Example(
        before=[
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool-call", "toolCallId": "c1", "toolName": "web search", "input": {}}
                ],
            },
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": "c1",
                        "toolName": "web search",
                        "output": {"type": "text", "value": "ok"},
                    }
                ],
            },
        ],
        after=[
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool-call", "toolCallId": "c1", "toolName": "web_search", "input": {}}
                ],
            },
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": "c1",
                        "toolName": "web_search",
                        "output": {"type": "text", "value": "ok"},
                    }
                ],
            },
        ],
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        index = ctx.index
        profile = ctx.profile
        if profile.all_valid_tool_names(index.tool_names):
            return
        names = index.tool_names
        valid = profile.valid_tool_name
        bad = {name for name in names if not valid(name)}
        good = names - bad
        named: list[tuple[int, int, ToolCallPart | ToolResultPart]] = [*index.calls, *index.results]
        refs = sorted(named, key=lambda ref: (ref[0], ref[1]))
        dropped: set[str] = set()
        if choice == "drop-pair":
            for m, p, call in index.calls:
                if call.tool_name in bad:
                    dropped.add(call.tool_call_id)
                    yield Finding(
                        Action.REMOVE,
                        m,
                        p,
                        f"tool call has an invalid name {call.tool_name!r}; "
                        "removed with its results",
                        edits=(DropPart(m, p),),
                        tool_call_id=call.tool_call_id,
                        removed=call,
                    )
            for m, p, req in index.requests:
                if req.tool_call_id in dropped:
                    yield Finding(
                        Action.REMOVE,
                        m,
                        p,
                        "approval request of a removed call",
                        edits=(DropPart(m, p),),
                        tool_call_id=req.tool_call_id,
                        removed=req,
                    )
        mapping = rename_all(bad, good, profile.tool_name_forbidden, profile.tool_name_max, "tool")
        for m, p, part in refs:
            name = part.tool_name
            if name not in bad:
                continue
            if part.tool_call_id in dropped:
                if isinstance(part, ToolResultPart):
                    yield Finding(
                        Action.REMOVE,
                        m,
                        p,
                        f"result of removed call to {name!r}",
                        edits=(DropPart(m, p),),
                        tool_call_id=part.tool_call_id,
                        removed=part,
                    )
                continue
            new_name = mapping[name]
            what = "tool call" if isinstance(part, ToolCallPart) else "tool result"
            yield Finding(
                Action.REPLACE,
                m,
                p,
                f"{what} name {name!r} is not a valid tool name; now {new_name!r}",
                edits=(SetPart(m, p, replaced(part, {"tool_name": new_name})),),
                tool_call_id=part.tool_call_id,
                removed={"toolName": name},
                added={"toolName": new_name},
            )
