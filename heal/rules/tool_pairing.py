"""Positional pairing of tool calls and results: the heart of history healing.

Providers pair by POSITION, not just by id: each call's result must be in the tool message(s)
directly after the assistant message that made the call (its "result block"). A result before its
call, after an intervening user turn, or split off by another message is as fatal as a missing
one. These rules run in this order, each on the output of the one before:

1. ``orphan-tool-result``: results whose call appears nowhere are removed (or, under
   ``as-text``, turned into user text after their tool messages);
2. ``duplicate-tool-result``: extra copies are removed, keeping the one in the result block;
3. ``misplaced-tool-result``: the remaining result of each call moves into its result block;
4. ``orphan-tool-call``: calls still without a result get a placeholder (or are removed); a call
   of an ABORTED turn (:data:`ABORTED`) is removed by default, since its call may be partial.

Provider-executed calls (``providerExecuted: true``) keep their results inside the assistant
message and are never given a placeholder.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from functools import partial

from pydantic import JsonValue

from heal._construct import construct_trusted
from heal.messages import (
    ContentOutput,
    ErrorJsonOutput,
    ErrorTextOutput,
    ExecutionDeniedOutput,
    JsonOutput,
    ModelMessage,
    TextOutput,
    TextPart,
    ToolApprovalResponse,
    ToolCallPart,
    ToolMessage,
    ToolPart,
    ToolResultPart,
    UserMessage,
)
from heal.providers import HEAL_NAMESPACE, SYNTHESIZED
from heal.repairs import Action, _json_text
from heal.rules import _errors as err
from heal.rules._base import (
    AddMessage,
    AddPart,
    Context,
    DropMessage,
    DropPart,
    Edit,
    Example,
    Finding,
    FreshJson,
    Rejection,
    Rule,
    SetMessage,
)
from heal.rules._index import FACTS, users_after_tool
from heal.rules._options import results_not_first, without_block_order

__all__ = [
    "ABORTED",
    "PLACEHOLDER_TEXT",
    "DuplicateToolResult",
    "MisplacedToolResult",
    "OrphanToolCall",
    "OrphanToolResult",
]

PLACEHOLDER_TEXT = "Tool result unavailable: no result for this call was recorded."
"""The neutral text of a placeholder result (no clock, no randomness: healing is deterministic)."""

ABORTED = "aborted"
"""The key, under heal's own ``providerOptions`` namespace (``{"heal": {"aborted": true}}``), that
marks an assistant message, or one tool-call part of it, as cut off before the model finished:
a turn stopped by the output-token limit, a cancelled stream, a run interrupted or errored before
it acted on the turn. The adapters set it where the native format records it (a Responses item's
``status``, pydantic-ai's ``ModelResponse.state`` / ``finish_reason``, LangChain's
``response_metadata`` finish or stop reason) and never write it back to the native format; a
canonical history may carry it too. ``orphan-tool-call`` reads it: only ``true`` counts."""

# SYNTHESIZED (heal.providers): the provider options that mark a part heal made up; providers
# ignore unknown namespaces.

_ANTHROPIC_MISSING_RESULT = Rejection(
    "anthropic",
    "messages.33: `tool_use` ids were found without `tool_result` blocks immediately after: "
    "toolu_vrtx_01KKMxh6V7Kx6g5tZbQBfQ9b. Each `tool_use` block must have a corresponding "
    "`tool_result` block in the next message.",
    "Kilo-Org/kilocode#5163; anthropics/claude-code#5989",
    pattern=err.ANTHROPIC_TOOL_USE_WITHOUT_RESULT,
)
_ANTHROPIC_UNEXPECTED_RESULT = Rejection(
    "anthropic",
    "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: "
    "toolu_015cqXRmSf7tsfMgJ9ibV1z3. Each `tool_result` block must have a corresponding "
    "`tool_use` block in the previous message.",
    "decocms/studio#1803; continuedev/continue#4751",
    pattern=err.ANTHROPIC_UNEXPECTED_TOOL_RESULT,
)
_OPENAI_MISSING_RESULT = Rejection(
    "openai-chat",
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
    "'tool_call_id'. The following tool_call_ids did not have response messages: "
    "call_jJATmoUduQWxi4tRwcQjsodM",
    "aliasrobotics/cai#111; BerriAI/litellm#10083",
    pattern=err.OPENAI_TOOL_CALLS_WITHOUT_RESULTS,
)
_OPENAI_ORPHAN_RESULT = Rejection(
    "openai-chat",
    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
    "with 'tool_calls'.",
    "miurla/morphic#136; pydantic/pydantic-ai#2050",
    pattern=err.OPENAI_TOOL_MESSAGE_WITHOUT_CALL,
)
_AI_SDK_MISSING_RESULT = Rejection(
    "AI SDK (before any provider)",
    "AI_MissingToolResultsError: Tool result is missing for tool call tool-example-123.",
    "ai 6.0.x convertToLanguageModelPrompt; vercel/ai#8516",
    pattern=err.AI_SDK_MISSING_TOOL_RESULTS,
)
_ANTHROPIC_RESULT_NOT_FIRST = Rejection(
    "anthropic (older API)",
    "messages.27: Did not find 1 tool_result block(s) at the beginning of this message. Messages "
    "following tool_use blocks must begin with a matching number of tool_result blocks.",
    "apify/tester-mcp-client#12 (provider-rules.md §1a)",
    pattern=err.ANTHROPIC_TOOL_RESULT_NOT_FIRST,
)
_OPENAI_CALL_ID_NOT_FOUND = Rejection(
    "openai-chat",
    "Invalid parameter: 'tool_call_id' of 'call_XXXXXXXXX' not found in 'tool_calls' of previous "
    "message.",
    "dapr/dapr-agents#145",
    pattern=err.OPENAI_TOOL_CALL_ID_NOT_FOUND,
)
_OPENAI_NO_TOOL_OUTPUT = Rejection(
    "openai-responses",
    "No tool output found for function call call_***.",
    "openai/openai-agents-python#673, #1061; gptme/gptme#3293",
    pattern=err.OPENAI_NO_TOOL_OUTPUT,
)
_OPENAI_NO_CALL_FOR_OUTPUT = Rejection(
    "openai-responses",
    "No tool call found for function call output with call_id call_x0jSANyYfXIjJkd5ftBlNxf5.",
    "continuedev/continue#10092; can1357/oh-my-pi#106",
    pattern=err.OPENAI_NO_TOOL_CALL_FOR_OUTPUT,
)
_GOOGLE_CALL_TURN_ORDER = Rejection(
    "google",
    "Please ensure that function call turn comes immediately after a user turn or after a "
    "function response turn.",
    "google-gemini/gemini-cli#11814, #26486; continuedev/continue#11164",
    pattern=err.GOOGLE_FUNCTION_CALL_TURN_ORDER,
)
_GOOGLE_RESPONSE_TURN_ORDER = Rejection(
    "google",
    "Please ensure that function response turn comes immediately after a function call turn.",
    "langchain-ai/langchain#27799",
    pattern=err.GOOGLE_FUNCTION_RESPONSE_TURN_ORDER,
)
_GOOGLE_RESPONSE_COUNT = Rejection(
    "google",
    "Please ensure that the number of function response parts is equal to the number of "
    "function call parts of the function call turn.",
    "google-gemini/gemini-cli#4217, #5443, #16415, #13292",
    pattern=err.GOOGLE_FUNCTION_RESPONSE_COUNT,
)
_BEDROCK_MISSING_RESULTS = Rejection(
    "bedrock",
    "Expected toolResult blocks at messages.2.content for the following Ids: "
    "tooluse_jQ912rboYgzgLULQpRxWot, tooluse_...",
    "agno-agi/agno#6698; genkit-ai/aws-bedrock-js-plugin#664",
    pattern=err.BEDROCK_MISSING_TOOL_RESULTS,
)
_BEDROCK_EXTRA_RESULTS = Rejection(
    "bedrock",
    "The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks "
    "of previous turn.",
    "Just-Curieous/Curie#16; pydantic/pydantic-ai#2327",
    pattern=err.BEDROCK_EXTRA_TOOL_RESULTS,
)
_MISTRAL_TOOL_AFTER_USER = Rejection(
    "mistral",
    "Unexpected role 'tool' after role 'user'",
    "charmbracelet/crush#279; mistralai/mistral-inference#135",
    pattern=err.MISTRAL_TOOL_AFTER_USER,
)
_MISTRAL_CALL_RESPONSE_COUNT = Rejection(
    "mistral",
    "Not the same number of function calls and responses",
    "mistralai/client-ts#106; camel-ai/camel#1467; mistralai/client-python#234",
    pattern=err.MISTRAL_CALL_RESPONSE_COUNT,
)


def _call(cid: str, name: str = "f") -> dict[str, object]:
    return {"type": "tool-call", "toolCallId": cid, "toolName": name, "input": {}}


def _result(cid: str, value: str = "ok", name: str = "f") -> dict[str, object]:
    return {
        "type": "tool-result",
        "toolCallId": cid,
        "toolName": name,
        "output": {"type": "text", "value": value},
    }


def _deliver(ctx: Context, call_message: int, parts: Sequence[ToolResultPart]) -> list[Edit]:
    """Edits that put ``parts`` into the result block of ``call_message``, in call order.

    Into the first tool message of the block when there is one (each part before the first
    result of a later call, so existing order is kept), else into a new tool message.
    """
    target = call_message + 1
    new_message = ctx.index.pairing.block_end[call_message] == target
    if new_message and len(parts) == 1:
        return [AddMessage(call_message, _tool_message(parts))]
    rank = {call.tool_call_id: p for p, call in ctx.index.calls_in(call_message)}
    ordered = sorted(parts, key=lambda part: rank.get(part.tool_call_id, len(rank)))
    if new_message:
        return [AddMessage(call_message, _tool_message(ordered))]
    existing = ctx.messages[target].content
    edits: list[Edit] = []
    for part in ordered:
        r = rank.get(part.tool_call_id, len(rank))
        before = next(
            (
                q
                for q, other in enumerate(existing)
                if isinstance(other, ToolResultPart) and rank.get(other.tool_call_id, -1) > r
            ),
            len(existing),
        )
        edits.append(AddPart(target, before, part))
    return edits


class OrphanToolResult(Rule):
    """A tool result whose call appears nowhere in the history.

    ``as-text`` keeps what the tool returned, for histories whose calls were cut away (a
    compacted or trimmed conversation) but whose results the model should still read. A tool
    message can only hold results, so the text goes into a new user message right after the
    run of tool messages the result sat in: every provider takes a user message after tool
    results (Anthropic's and Bedrock's adapters send it in the user turn that carries the
    results; Chat Completions, Responses and Gemini as the next user input), and the provider
    rules that want more do the rest (``bedrock-role-alternation`` merges two user messages in
    a row, ``mistral-user-after-tool`` adds the assistant message Mistral needs before it).
    Inserting it before the end of the run would split the results of the calls that are
    there from their calls.

    A provider-executed result in an assistant message is removed under either choice: it is
    the provider's own record of its tool (often encrypted), and as user text it would be
    attributed to the user.
    """

    id = "orphan-tool-result"
    edits_protected = True  # a result the provider rejects, protected or not
    triggers = frozenset({"results"})
    needs = frozenset({"unpaired"})
    summary = "tool result answers a call that is not in the history"
    choices = ("fix", "as-text")
    choice_docs = {
        "fix": "Remove the result (it cannot be sent without its call). The removed part is "
        "kept in the repair record.",
        "as-text": "Turn a result in a tool message into a user text part (marked synthesized) "
        "that names the tool and the call: 'Result of tool get_weather (call call_1), whose "
        "call is not in this history: ...', in a user message inserted right after its run "
        "of tool messages. Text outputs are kept as they are, JSON outputs JSON-encoded; of "
        "a content output, text items are kept, URLs and file ids named, and inline media or "
        "file data left out (the model would read it as sent by the user). The whole result "
        "is kept in the repair record. A provider-executed result in an assistant message is "
        "removed, as under fix.",
    }
    rejections = (
        _ANTHROPIC_UNEXPECTED_RESULT,
        _OPENAI_ORPHAN_RESULT,
        _OPENAI_CALL_ID_NOT_FOUND,
        _OPENAI_NO_CALL_FOR_OUTPUT,
        _GOOGLE_CALL_TURN_ORDER,
        _GOOGLE_RESPONSE_TURN_ORDER,
        _BEDROCK_EXTRA_RESULTS,
        _MISTRAL_TOOL_AFTER_USER,
        _MISTRAL_CALL_RESPONSE_COUNT,
    )
    example = Example(
        before=[
            {"role": "user", "content": "hi"},
            {"role": "tool", "content": [_result("gone")]},
            {"role": "assistant", "content": "hello"},
        ],
        after=[
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello"},
        ],
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        if not ctx.index.results or ctx.index.paired:
            return
        pairing = ctx.index.pairing
        roles = ctx.index.roles
        as_text: dict[int, list[tuple[int, int, ToolResultPart, str, TextPart]]] = {}
        run_ends: dict[int, int] = {}
        for m, p, result in ctx.index.results:
            tid = result.tool_call_id
            # A tool message answers client calls; an assistant message carries the results of
            # the provider-executed calls it made. Anything else cannot be sent as it is.
            if roles[m] == "tool":
                if tid in pairing.calls:
                    continue
                provider_call = tid in pairing.provider_calls
                why = (
                    "a provider-executed call, whose result belongs in its assistant message"
                    if provider_call
                    else "not in the history"
                )
                if choice == "as-text":
                    end = _tool_run_end(roles, m, run_ends)
                    text = _orphan_text(result, provider_call=provider_call)
                    as_text.setdefault(end, []).append((m, p, result, why, text))
                    continue
            else:
                if any(ref[0] == m for ref in pairing.provider_calls.get(tid, ())):
                    continue
                why = "not a provider-executed call of the same assistant message"
            yield Finding(
                Action.REMOVE,
                m,
                p,
                f"result for tool call {tid!r}, which is {why}; removed",
                edits=(DropPart(m, p),),
                tool_call_id=tid,
                removed=result,
            )
        for end in sorted(as_text):
            items = as_text[end]
            added = UserMessage(content=tuple(text for *_, text in items))
            for n, (m, p, result, why, text) in enumerate(items):
                edits: tuple[Edit, ...] = (DropPart(m, p),)
                if n == 0:
                    edits += (AddMessage(end, added),)
                yield Finding(
                    Action.REPLACE,
                    m,
                    p,
                    f"result for tool call {result.tool_call_id!r}, which is {why}; turned into "
                    "user text after its tool messages",
                    edits=edits,
                    tool_call_id=result.tool_call_id,
                    removed=result,
                    added=text,
                    anchor=end,
                )


def _tool_run_end(roles: Sequence[str], m: int, known: dict[int, int]) -> int:
    """The last message of the run of tool messages that message ``m`` is in (``known``: the
    ends found so far, by message, so a long run is walked once)."""
    end = known.get(m)
    if end is None:
        end = m
        while end + 1 < len(roles) and roles[end + 1] == "tool":
            end += 1
        known.update(dict.fromkeys(range(m, end + 1), end))
    return end


def _orphan_text(result: ToolResultPart, *, provider_call: bool = False) -> TextPart:
    """The user text part ``orphan-tool-result`` (``as-text``) makes of ``result``: a line naming
    the tool and the call, then what the tool returned (see the choice's documentation)."""
    whose = (
        "whose call the provider executed itself"
        if provider_call
        else "whose call is not in this history"
    )
    output = result.output
    kind = "Error result" if isinstance(output, (ErrorTextOutput, ErrorJsonOutput)) else "Result"
    head = f"{kind} of tool {result.tool_name} (call {result.tool_call_id}), {whose}"
    return TextPart(text=f"{head}: {_output_text(output)}", provider_options=SYNTHESIZED)


def _output_text(output: object) -> str:
    if isinstance(output, (TextOutput, ErrorTextOutput)):
        return output.value if output.value.strip() else "(empty)"
    if isinstance(output, (JsonOutput, ErrorJsonOutput)):
        return _json(output.value)
    if isinstance(output, ExecutionDeniedOutput):
        return "execution denied" + (f" ({output.reason})" if output.reason else "")
    if isinstance(output, ContentOutput):
        return "\n".join(_content_item_text(item) for item in output.value) or "(empty)"
    raise TypeError(f"unknown tool output {output!r}")  # pragma: no cover - a closed union


def _content_item_text(item: Mapping[str, JsonValue]) -> str:
    """One item of a content output as text: its text, the place a URL or file id names, or a
    note that inline data was left out (kept in the repair record)."""
    kind = item.get("type")
    media = item.get("mediaType")
    of = f" ({media})" if isinstance(media, str) else ""
    if kind == "text" and isinstance(item.get("text"), str):
        return str(item["text"])
    if isinstance(item.get("url"), str):
        return f"[{kind}{of}: {item['url']}]"
    if "fileId" in item:
        file_id = item["fileId"]
        return f"[{kind}{of}: {file_id if isinstance(file_id, str) else _json(file_id)}]"
    if "data" in item:
        return f"[{kind}{of} not included]"
    return _json(dict(item))


def _json(value: JsonValue) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except ValueError:  # an integer past str()'s digit limit: the record's writer takes it
        return _json_text(value)


class DuplicateToolResult(Rule):
    """Two or more results for one call, as when a retry recorded the result again."""

    id = "duplicate-tool-result"
    triggers = frozenset({"results"})
    needs = frozenset({"unpaired"})
    summary = "a tool call has more than one result"
    choices = ("fix", "keep-success")
    choice_docs = {
        "fix": "Keep the copy in the tool messages right after the call (else the first copy) "
        "and remove the others. Removed copies are kept in the repair records.",
        "keep-success": "Keep a successful copy (output not error-text, error-json or "
        "execution-denied), the one right after the call if it is one, else the first; it "
        "then goes where the result belongs (misplaced-tool-result moves it). When every copy "
        "is an error, as fix. May lose an error copy the model had seen next to its call, and "
        "with it the history of the failed attempt; removed copies are kept in the repair "
        "records.",
    }
    rejections = (
        Rejection(
            "anthropic",
            "messages.52.content.1: each tool_use must have a single result. Found multiple "
            "`tool_result` blocks with id: toolu_01EhoCqFHBzACzsL2SJFpPzS",
            "router-for-me/CLIProxyAPI PR#4998; vercel/eve PR#1246",
            pattern=err.ANTHROPIC_MULTIPLE_TOOL_RESULTS,
        ),
        _GOOGLE_RESPONSE_COUNT,
        _BEDROCK_EXTRA_RESULTS,
        _MISTRAL_CALL_RESPONSE_COUNT,
    )
    example = Example(
        before=[
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [_call("c1")]},
            {"role": "tool", "content": [_result("c1", "first")]},
            {"role": "user", "content": "again"},
            {"role": "tool", "content": [_result("c1", "retry")]},
        ],
        after=[
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [_call("c1")]},
            {"role": "tool", "content": [_result("c1", "first")]},
            {"role": "user", "content": "again"},
        ],
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        if not ctx.index.results or ctx.index.paired:
            return
        pairing = ctx.index.pairing
        for tid, results in pairing.results.items():
            if len(results) < 2:
                continue
            calls = pairing.calls.get(tid)
            if calls is None or len(calls) != 1:
                continue  # orphans and shared ids belong to other rules
            i = calls[0][0]
            keep = next((r for r in results if pairing.in_block(i, r[0])), results[0])
            if choice == "keep-success" and _failed(keep[2]):
                # A retry that succeeded after a failed attempt: the model should see the
                # success, wherever the retry was recorded.
                keep = next((r for r in results if not _failed(r[2])), keep)
            for m, p, result in results:
                if (m, p) == (keep[0], keep[1]):
                    continue
                yield Finding(
                    Action.REMOVE,
                    m,
                    p,
                    f"another result for tool call {tid!r} is kept; this copy removed",
                    edits=(DropPart(m, p),),
                    tool_call_id=tid,
                    removed=result,
                )


_ERROR_OUTPUTS = frozenset({"error-text", "error-json", "execution-denied"})


def _failed(result: ToolResultPart) -> bool:
    return result.output.type in _ERROR_OUTPUTS


class MisplacedToolResult(Rule):
    """A result whose call exists, but not in the assistant message right before it; or, in a
    history read from the Anthropic format, a result after another block of its user message.

    The second: the Anthropic adapter reads a user message ``[text, tool_result]`` as a tool
    message and a user message, and keeps the native block order on the user message (the
    ``order`` marker, :data:`heal.rules._options.BLOCK_ORDER`) so that the history dumps back
    as it was. Anthropic rejects that order ("Did not find 1 tool_result block(s) at the
    beginning of this message"), and the canonical rules never see it (results and text are
    separate messages here), so this rule drops the marker: dumped, the results come first and
    the other blocks after them, in their order. It reads the marker under every provider, as
    ``heal_anthropic`` does: whatever the target, the Anthropic format is what gets written.
    """

    id = "misplaced-tool-result"
    triggers = frozenset({"results"})
    needs = frozenset({"unpaired", "results_not_first"})
    summary = "tool result is not in the tool messages directly after its call"
    choice_docs = {
        "fix": "Move the result into the tool message right after its call, in call order; "
        "messages that sat between the call and the result end up after it. A user message "
        "read from the Anthropic format with its tool_result blocks after other blocks has "
        "them put first. Loses nothing.",
    }
    rejections = (
        _ANTHROPIC_MISSING_RESULT,
        _OPENAI_MISSING_RESULT,
        _AI_SDK_MISSING_RESULT,
        _ANTHROPIC_UNEXPECTED_RESULT,
        _ANTHROPIC_RESULT_NOT_FIRST,
        _OPENAI_ORPHAN_RESULT,
        _OPENAI_CALL_ID_NOT_FOUND,
        _OPENAI_NO_TOOL_OUTPUT,
        _GOOGLE_RESPONSE_TURN_ORDER,
        _GOOGLE_RESPONSE_COUNT,
        _BEDROCK_MISSING_RESULTS,
        _MISTRAL_TOOL_AFTER_USER,
    )
    example = Example(
        before=[
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": [_call("c1")]},
            {"role": "user", "content": "hurry"},
            {"role": "tool", "content": [_result("c1", "sunny")]},
        ],
        after=[
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": [_call("c1")]},
            {"role": "tool", "content": [_result("c1", "sunny")]},
            {"role": "user", "content": "hurry"},
        ],
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        if not ctx.index.results:
            return
        if ctx.index.holds((_RESULTS_NOT_FIRST,), ctx.target, ctx.profile):
            # Alone in its pass: the moves below may move these messages.
            yield from _results_first(ctx)
            return
        if ctx.index.paired:
            return
        pairing = ctx.index.pairing
        moves: dict[int, list[tuple[int, int, ToolResultPart]]] = {}
        for tid, results in pairing.results.items():
            calls = pairing.calls.get(tid)
            if calls is None or len(calls) != 1:
                continue
            i = calls[0][0]
            if any(pairing.in_block(i, m) for m, _, _ in results):
                continue
            moves.setdefault(i, []).append(results[0])
        delivered = {i: _deliver(ctx, i, [r[2] for r in moves[i]]) for i in sorted(moves)}
        # A tool message whose every part moves out goes with its last part when it holds
        # nothing else (no provider options, no unknown fields), rather than being left empty
        # for empty-message to remove: the record then says what happened, a move, and not a
        # removal. Not when this batch also fills it; and one with more to it is left to
        # empty-message, whose record keeps it whole.
        receiving = {
            e.message for edits in delivered.values() for e in edits if isinstance(e, AddPart)
        }
        leaving: dict[int, list[int]] = {}
        for items in moves.values():
            for m, p, _ in items:
                leaving.setdefault(m, []).append(p)
        last_out = {
            m: max(parts)
            for m, parts in leaving.items()
            if len(parts) == len(ctx.messages[m].content)
            and m not in receiving
            and _bare(ctx.messages[m])
        }
        for i, edits_in in delivered.items():
            for n, (m, p, result) in enumerate(moves[i]):
                edits: tuple[Edit, ...] = (DropPart(m, p),)
                if n == 0:
                    edits += tuple(edits_in)
                emptied = last_out.get(m) == p
                if emptied:
                    edits += (DropMessage(m),)
                yield Finding(
                    Action.MOVE,
                    m,
                    p,
                    f"result for tool call {result.tool_call_id!r} was not right after its call; "
                    "moved there"
                    + (" (the tool message it was in held nothing else)" if emptied else ""),
                    edits=edits,
                    tool_call_id=result.tool_call_id,
                    anchor=i,
                )


_RESULTS_NOT_FIRST = FACTS["results_not_first"]


def _results_first(ctx: Context) -> Iterator[Finding]:
    """The findings of Anthropic block orders with a result after another block."""
    messages = ctx.messages
    for i in users_after_tool(ctx.index):
        message = messages[i]
        if results_not_first(message):
            yield Finding(
                Action.MOVE,
                i,
                None,
                "user message has tool_result blocks after other blocks; moved the "
                "tool_result blocks to the start of the message (Anthropic requires them first)",
                edits=(SetMessage(i, without_block_order(message)),),
                anchor=i,
            )


class OrphanToolApproval(Rule):
    """An approval request naming no call of its message, or a response answering no request."""

    id = "orphan-tool-approval"
    edits_protected = True  # an approval the provider rejects, protected or not
    triggers = frozenset({"requests", "responses"})
    summary = (
        "tool approval request names no tool call of its assistant message, or an approval "
        "response answers no request"
    )
    choice_docs = {
        "fix": "Remove it (a pruned call leaves its approval behind); the part is kept in the "
        "repair record. A response whose request is removed goes with it.",
    }
    rejections = (
        Rejection(
            "AI SDK (before any provider)",
            "AI_InvalidToolApprovalError: Tool approval response references unknown "
            'approvalId: "a1"',
            "ai 6.0.326 generateText, observed with the interop judge (tests/interop)",
            pattern=err.AI_SDK_UNKNOWN_APPROVAL_ID,
        ),
        Rejection(
            "AI SDK (before any provider)",
            'AI_ToolCallNotFoundForApprovalError: Tool call "c9" not found',
            "ai 6.0.326 generateText, observed with the interop judge (tests/interop)",
            pattern=err.AI_SDK_APPROVAL_CALL_NOT_FOUND,
        ),
    )
    example = Example(
        before=[
            {"role": "user", "content": "hi"},
            {
                "role": "tool",
                "content": [
                    {"type": "tool-approval-response", "approvalId": "a1", "approved": True}
                ],
            },
            {"role": "assistant", "content": "hello"},
        ],
        after=[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        index = ctx.index
        if not index.requests and not index.responses:
            return
        known: set[str] = set()
        for m, p, request in index.requests:
            if any(call.tool_call_id == request.tool_call_id for _, call in index.calls_in(m)):
                known.add(request.approval_id)
                continue
            yield Finding(
                Action.REMOVE,
                m,
                p,
                f"approval request for tool call {request.tool_call_id!r}, which is not in its "
                "message; removed",
                edits=(DropPart(m, p),),
                tool_call_id=request.tool_call_id,
                removed=request,
            )
        for m, p, response in index.responses:
            if response.approval_id in known:
                continue
            yield Finding(
                Action.REMOVE,
                m,
                p,
                f"approval response {response.approval_id!r} answers no approval request; removed",
                edits=(DropPart(m, p),),
                removed=response,
            )


class MisplacedToolApproval(Rule):
    """An approval response that is not in the tool messages right after its request."""

    id = "misplaced-tool-approval"
    triggers = frozenset({"responses"})
    summary = "tool approval response is not in the tool messages right after its request"
    choice_docs = {
        "fix": "Move it into the tool message right after the request's assistant message. "
        "Loses nothing.",
    }
    rejections = (
        Rejection(
            "anthropic",
            "messages.52.content.1: each tool_use must have a single result. Found multiple "
            "`tool_result` blocks with id: toolu_01EhoCqFHBzACzsL2SJFpPzS",
            "router-for-me/CLIProxyAPI PR#4998; observed through the AI SDK, which re-runs a "
            "tool whose approval sits in the last message although its call was answered",
            pattern=err.ANTHROPIC_MULTIPLE_TOOL_RESULTS,
        ),
    )
    example = Example(
        before=[
            {"role": "user", "content": "delete it"},
            {
                "role": "assistant",
                "content": [
                    _call("c1", "rm"),
                    {"type": "tool-approval-request", "approvalId": "a1", "toolCallId": "c1"},
                ],
            },
            {"role": "user", "content": "next"},
            {
                "role": "tool",
                "content": [
                    {"type": "tool-approval-response", "approvalId": "a1", "approved": False}
                ],
            },
        ],
        after=[
            {"role": "user", "content": "delete it"},
            {
                "role": "assistant",
                "content": [
                    _call("c1", "rm"),
                    {"type": "tool-approval-request", "approvalId": "a1", "toolCallId": "c1"},
                ],
            },
            {
                "role": "tool",
                "content": [
                    {"type": "tool-approval-response", "approvalId": "a1", "approved": False},
                    {
                        "type": "tool-result",
                        "toolCallId": "c1",
                        "toolName": "rm",
                        "output": {"type": "execution-denied"},
                        "providerOptions": SYNTHESIZED,
                    },
                ],
            },
            {"role": "user", "content": "next"},
        ],
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        index = ctx.index
        if not index.responses:
            return
        pairing = index.pairing
        asked = {request.approval_id: m for m, _, request in index.requests}
        moves: dict[int, list[tuple[int, int, ToolApprovalResponse]]] = {}
        for m, p, response in index.responses:
            i = asked.get(response.approval_id)
            if i is None or pairing.in_block(i, m):
                continue
            moves.setdefault(i, []).append((m, p, response))
        for i in sorted(moves):
            parts = [r for _, _, r in moves[i]]
            if pairing.block_end[i] == i + 1:
                delivered: list[Edit] = [AddMessage(i, _tool_message(parts))]
            else:
                delivered = [AddPart(i + 1, 0, part) for part in parts]
            for n, (m, p, response) in enumerate(moves[i]):
                edits: tuple[Edit, ...] = (DropPart(m, p),)
                if n == 0:
                    edits += tuple(delivered)
                yield Finding(
                    Action.MOVE,
                    m,
                    p,
                    f"approval response {response.approval_id!r} was not right after its "
                    "request; moved there",
                    edits=edits,
                    anchor=i,
                )


class OrphanToolCall(Rule):
    """A tool call with no result anywhere after it.

    A call of an aborted turn (the message or the call part marked ``{"heal": {"aborted":
    true}}``, :data:`ABORTED`: the adapters set it where the native format records that the turn
    was cut off) is removed under the default choice rather than answered: its input may be
    partial, and a client or gateway that leaves such a call out of the request (as pi does with
    an aborted message) leaves a placeholder result behind it with no call, which the provider
    rejects anew: ``messages.244.content.1: unexpected tool_use_id found in tool_result blocks:
    toolu_01PfLjsziXFMs7pAQCtBLn1f. Each tool_result block must have a corresponding tool_use
    block in the previous message.`` (openclaw/openclaw#14322; also #4277, #12112, fixed by
    skipping aborted and errored turns in openclaw/openclaw PR#4598 and PR#25429). A history
    without the marker heals as it always did.
    """

    id = "orphan-tool-call"
    edits_protected = True  # drop-call: a call without a result is rejected, protected or not
    triggers = frozenset({"calls"})
    needs = frozenset({"unpaired"})
    summary = "tool call has no result"
    choices = ("placeholder-result", "drop-call", "placeholder-every-call")
    choice_docs = {
        "placeholder-result": "Add a result right after the call: an error-text output saying "
        "the result is unavailable (an execution-denied output when its approval was denied), "
        'marked with providerOptions {"heal": {"synthesized": true}}. Loses nothing. A call '
        'of an aborted turn (providerOptions {"heal": {"aborted": true}} on its message or on '
        "the call) is removed instead, with its approval request, as under drop-call.",
        "drop-call": "Remove the call and its approval request; a message left empty is then "
        "removed. The removed parts are kept in the repair records.",
        "placeholder-every-call": "Add a placeholder result, as placeholder-result does, to "
        "every call, those of aborted turns too (what heal did before it read the aborted "
        "marker). Loses nothing.",
    }
    rejections = (
        _ANTHROPIC_MISSING_RESULT,
        _OPENAI_MISSING_RESULT,
        _AI_SDK_MISSING_RESULT,
        _ANTHROPIC_RESULT_NOT_FIRST,
        _OPENAI_NO_TOOL_OUTPUT,
        _GOOGLE_RESPONSE_COUNT,
        _BEDROCK_MISSING_RESULTS,
        _MISTRAL_CALL_RESPONSE_COUNT,
    )
    example = Example(
        before=[
            {"role": "user", "content": "generate 10 items"},
            {"role": "assistant", "content": [_call("tool-example-123", "json")]},
            {"role": "user", "content": "generate 100 items"},
        ],
        after=[
            {"role": "user", "content": "generate 10 items"},
            {"role": "assistant", "content": [_call("tool-example-123", "json")]},
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": "tool-example-123",
                        "toolName": "json",
                        "output": {"type": "error-text", "value": PLACEHOLDER_TEXT},
                        "providerOptions": SYNTHESIZED,
                    }
                ],
            },
            {"role": "user", "content": "generate 100 items"},
        ],
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        index = ctx.index
        if not index.calls or index.paired:
            return
        pairing = index.pairing
        n = len(ctx.messages)
        stubs: dict[int, list[tuple[int, ToolCallPart, ToolApprovalResponse | None]]] = {}
        for tid, calls in pairing.calls.items():
            if tid in pairing.results or len(calls) != 1:
                continue
            i, p, call = calls[0]
            requests = pairing.requests.get(tid, ())
            response = None
            if requests:
                if pairing.block_end[i] == n:
                    # Awaiting approval, or approved and not yet run, at the end of the
                    # history: the caller's tool loop owns this call.
                    continue
                found = pairing.responses.get(requests[0][2].approval_id)
                response = found[2] if found is not None else None
            aborted = choice == "placeholder-result" and _aborted(ctx.messages[i], call)
            if choice == "drop-call" or aborted:
                why = " and its turn was aborted" if aborted else ""
                yield Finding(
                    Action.REMOVE,
                    i,
                    p,
                    f"tool call {tid!r} to {call.tool_name!r} has no result{why}; removed",
                    edits=(DropPart(i, p),),
                    tool_call_id=tid,
                    removed=call,
                )
                for m, q, request in requests:
                    yield Finding(
                        Action.REMOVE,
                        m,
                        q,
                        f"approval request of removed call {tid!r}",
                        edits=(DropPart(m, q),),
                        tool_call_id=tid,
                        removed=request,
                    )
                continue
            stubs.setdefault(i, []).append((p, call, response))
        for i in sorted(stubs):
            parts = [_placeholder(call, response) for _, call, response in stubs[i]]
            edits = tuple(_deliver(ctx, i, parts))
            for n_item, ((_, call, _), part) in enumerate(zip(stubs[i], parts, strict=True)):
                yield Finding(
                    Action.INSERT,
                    None,
                    None,
                    f"tool call {call.tool_call_id!r} to {call.tool_name!r} has no result; "
                    f"added a placeholder result",
                    edits=edits if n_item == 0 else (),
                    tool_call_id=call.tool_call_id,
                    added=_placeholder_record(part),
                    anchor=i,
                )


def _aborted(message: ModelMessage, call: ToolCallPart) -> bool:
    """Whether ``call``, or the assistant message holding it, carries heal's aborted marker."""
    return _marked(call.provider_options) or _marked(message.provider_options)


def _marked(options: Mapping[str, object] | None) -> bool:
    mine = options.get(HEAL_NAMESPACE) if options else None
    return isinstance(mine, Mapping) and mine.get(ABORTED) is True


def _bare(message: ModelMessage) -> bool:
    """Whether a message holds nothing but its role and content."""
    return message.provider_options is None and not message.__pydantic_extra__


def _placeholder(call: ToolCallPart, response: ToolApprovalResponse | None) -> ToolResultPart:
    output: ErrorTextOutput | ExecutionDeniedOutput
    if response is not None and not response.approved:
        output = (
            ExecutionDeniedOutput(reason=response.reason)
            if response.reason is not None
            else ExecutionDeniedOutput()
        )
    else:
        output = _PLACEHOLDER_OUTPUT
    # Built without re-validation (its values come from a validated call), sharing the
    # immutable output and marker: a long history with thousands of orphans then allocates far
    # fewer objects (and the garbage collector, which scans every live container, has less to do).
    return construct_trusted(
        ToolResultPart,
        _PLACEHOLDER_FIELDS,
        {
            "tool_call_id": call.tool_call_id,
            "tool_name": call.tool_name,
            "output": output,
            "provider_options": SYNTHESIZED,
        },
    )


def _placeholder_record(part: ToolResultPart) -> ToolResultPart | FreshJson:
    """What the record of an added placeholder holds: the part (the engine dumps it), or for the
    common one (the shared error text, an id and a name with nothing to escape) its dump as a
    literal, made new for each record at a fraction of a dump's cost: a long agent run that lost
    every result records one per turn (``tests/test_engine.py`` holds the two equal)."""
    fields = part.__dict__
    call_id, name = fields["tool_call_id"], fields["tool_name"]
    if fields["output"] is not _PLACEHOLDER_OUTPUT or not (call_id + name).isascii():
        return part
    return FreshJson(partial(_placeholder_json, call_id, name))


def _placeholder_json(call_id: str, name: str) -> dict[str, JsonValue]:
    return {
        "type": "tool-result",
        "toolCallId": call_id,
        "toolName": name,
        "output": {"type": "error-text", "value": PLACEHOLDER_TEXT},
        "providerOptions": {HEAL_NAMESPACE: {"synthesized": True}},
    }


def _tool_message(parts: Sequence[ToolPart]) -> ToolMessage:
    """A new tool message holding ``parts`` (valid parts: no need to validate them again)."""
    return construct_trusted(ToolMessage, _TOOL_MESSAGE_FIELDS, {"content": tuple(parts)})


# The fields counted as set on the parts and messages built above (one set each, shared).
_PLACEHOLDER_FIELDS = {"type", "tool_call_id", "tool_name", "output", "provider_options"}
_TOOL_MESSAGE_FIELDS = {"role", "content"}


_PLACEHOLDER_OUTPUT = ErrorTextOutput(value=PLACEHOLDER_TEXT)
