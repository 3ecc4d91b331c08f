"""Rules for the Anthropic Messages API (direct, and Claude on Bedrock InvokeModel and Vertex).

Anthropic replays thinking only when it can verify it: a ``thinking`` block needs the
signature Anthropic issued (``providerOptions.anthropic.signature``, or ``redactedData`` for
redacted thinking), and the latest assistant message holding signed thinking must go back
byte-identical. So the rules run in this order, each on the output of the one before:

1. ``anthropic-tool-id-format``, ``anthropic-orphan-caller-reference``: ids and the references
   between calls first (the first a request-time safety net behind the shared rule);
2. ``anthropic-foreign-server-tool``, ``anthropic-strip-foreign-reasoning-content``,
   ``anthropic-unsigned-reasoning``, ``anthropic-assistant-file``: drop what Anthropic cannot
   take or verify;
3. ``anthropic-reasoning-only-message``: assistant messages those drops left with only
   reasoning (Anthropic rejects a final thinking block);
4. ``anthropic-reasoning-not-first``, ``anthropic-text-after-tool-call``: the block layout;
   ``anthropic-empty-tool-result``: blank text inside tool results;
5. ``anthropic-trailing-whitespace``, ``anthropic-tool-loop-thinking``,
   ``anthropic-assistant-prefill``, ``anthropic-mid-conversation-system``: the final message and
   the roles.

Every rule here protects the latest assistant message holding signed thinking (see
:func:`latest_signed`): no rule, shared ones included, edits its content, except to remove
reasoning that cannot go back as an Anthropic block at all (unsigned, or another provider's):
it is not one of the signed blocks Anthropic wants back unmodified.

The helpers for signatures, provenance and merging live here and are shared with the Bedrock
and Google packs.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel

from heal.messages import (
    ContentOutput,
    ErrorTextOutput,
    ExecutionDeniedOutput,
    FilePart,
    ModelMessage,
    Part,
    ReasoningPart,
    SystemMessage,
    TextOutput,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UserMessage,
)
from heal.repairs import Action, Scope
from heal.rules._base import (
    AddMessage,
    AddPart,
    Context,
    DropMessage,
    DropPart,
    Edit,
    Example,
    Finding,
    Rejection,
    Rule,
    SetMessage,
    SetPart,
)
from heal.rules.tool_shape import InvalidToolCallId

__all__ = [
    "AnthropicAssistantFile",
    "AnthropicAssistantPrefill",
    "AnthropicEmptyToolResult",
    "AnthropicForeignServerTool",
    "AnthropicForeignReasoning",
    "AnthropicMidConversationSystem",
    "AnthropicOrphanCaller",
    "AnthropicReasoningNotFirst",
    "AnthropicReasoningOnlyMessage",
    "AnthropicTextAfterToolCall",
    "AnthropicToolIdFormat",
    "AnthropicToolLoopThinking",
    "AnthropicTrailingWhitespace",
    "AnthropicUnsignedReasoning",
    "RULES",
]

ANTHROPIC = "anthropic"
"""The provider-options namespace Anthropic reads signatures from (the AI SDK anthropic
adapter parses ``providerOptions.anthropic`` and nothing else, for Vertex and Bedrock Claude
too)."""

ANTHROPIC_SIGNATURE_KEYS = ("signature", "redactedData")
"""Keys whose non-empty string value makes a reasoning part replayable to Anthropic."""

HEAL_NAMESPACE = "heal"
"""heal's own marker namespace (synthesized parts); never a provider."""

SYSTEM_REMINDER = "<system-reminder>\n{}\n</system-reminder>"
"""How a system message becomes user text: wrapped so the model can tell it from the user."""

_M = TypeVar("_M", bound=BaseModel)


# --- helpers shared by the provider packs ----------------------------------------------------


def namespaces(part: Part | ModelMessage) -> dict[str, Any]:
    """The part's provider options (an empty dict when it has none)."""
    options = part.provider_options
    return options if isinstance(options, dict) else {}


def signed(part: Part, namespace: str, keys: Sequence[str]) -> bool:
    """Whether ``providerOptions[namespace]`` holds a non-empty string under one of ``keys``."""
    all_options = part.provider_options
    if all_options is None:
        return False
    options = all_options.get(namespace)
    if not isinstance(options, dict):
        return False
    return any(isinstance(options.get(key), str) and options[key] for key in keys)


def foreign_namespaces(part: Part, native: Collection[str]) -> list[str]:
    """The provider namespaces of a part that came from another provider: every namespace, when
    none of them is ``native`` (heal's own marker does not count either way)."""
    options = part.provider_options
    if not options:
        return []
    found = [ns for ns in options if ns != HEAL_NAMESPACE]
    if not found or any(ns in native for ns in found):
        return []
    return sorted(found)


def reasoning_only(message: ModelMessage) -> bool:
    """Whether an assistant message holds reasoning parts and nothing else."""
    content = message.content
    return (
        message.role == "assistant"
        and not isinstance(content, str)
        and bool(content)
        and all(isinstance(part, ReasoningPart) for part in content)
    )


def latest_signed(ctx: Context, namespace: str, keys: Sequence[str]) -> tuple[int, ...]:
    """The index of the latest assistant message holding signed thinking, as a 1-tuple (or
    empty). A message of nothing but reasoning is skipped: it is never sent as it is (the
    reasoning-only rule removes it whole, which re-encodes none of its blocks)."""
    messages = ctx.messages
    skipped = -1
    for m, _, part in reversed(ctx.index.reasoning):
        if m == skipped or not signed(part, namespace, keys):
            continue
        if reasoning_only(messages[m]):
            skipped = m
            continue
        return (m,)
    return ()


def with_options(part: _M, options: Mapping[str, Any] | None) -> _M:
    """A copy of ``part`` with these provider options; ``None`` or empty removes the field (it
    then dumps as absent, not as null)."""
    if options:
        return part.model_copy(update={"provider_options": dict(options)})
    new = part.model_copy(update={"provider_options": None})
    new.__pydantic_fields_set__.discard("provider_options")
    return new


def as_parts(message: ModelMessage) -> tuple[Any, ...]:
    """A message's content as parts (string content becomes one text part)."""
    content = message.content
    if isinstance(content, str):
        return (TextPart(text=content),) if content else ()
    return tuple(content)


def blank(message: ModelMessage) -> bool:
    """Whether a message has no content (``empty-message`` removes it)."""
    content = message.content
    return not content.strip() if isinstance(content, str) else not content


def runs(ctx: Context, roles: Collection[str]) -> Iterator[range]:
    """Runs of two or more consecutive messages of the same role (one of ``roles``), leaving
    out runs with a blank message (``empty-message`` removes it first) or a protected one."""
    kinds = ctx.index.roles
    messages = ctx.messages
    i, n = 0, len(kinds)
    while i < n:
        j = i + 1
        if kinds[i] in roles:
            while j < n and kinds[j] == kinds[i]:
                j += 1
        if j - i > 1 and not any(k in ctx.protected or blank(messages[k]) for k in range(i, j)):
            yield range(i, j)
        i = j


def merge_run(ctx: Context, run: Sequence[int], why: str) -> Iterator[Finding]:
    """Findings that move every part of messages ``run[1:]`` to the end of message ``run[0]``
    and remove the emptied messages, keeping each part's origin for later repairs.

    A string content becomes one text part. Message-level provider options of a removed message
    go to the target when it has none; otherwise they are kept in the repair record.
    """
    messages = ctx.messages
    target_index = run[0]
    target = messages[target_index]
    update: dict[str, Any] = {}
    if isinstance(target.content, str):
        update["content"] = as_parts(target)
    options = target.provider_options
    lost: dict[int, Any] = {}
    for j in run[1:]:
        extra = messages[j].provider_options
        if extra is None:
            continue
        if options is None:
            options = update["provider_options"] = extra
        else:
            lost[j] = {"providerOptions": extra}
    end = len(update.get("content", target.content))
    for n, j in enumerate(run[1:]):
        message = messages[j]
        edits: list[Edit] = []
        if n == 0 and update:
            edits.append(SetMessage(target_index, target.model_copy(update=update)))
        content = message.content
        if isinstance(content, str):
            edits.extend(AddPart(target_index, end, part) for part in as_parts(message))
        else:
            for p, part in enumerate(content):
                edits.append(DropPart(j, p))
                edits.append(AddPart(target_index, end, part))
        edits.append(DropMessage(j))
        yield Finding(
            Action.MOVE,
            j,
            None,
            f"{message.role} message follows another {message.role} message ({why}); "
            "its parts were moved into the one before"
            + (
                "; its message-level provider options could not join the other's and are kept "
                "in this record"
                if j in lost
                else ""
            ),
            edits=tuple(edits),
            removed=lost.get(j),
            anchor=target_index,
        )


class ProtectSigned(Rule):
    """Base of rules for providers whose latest signed thinking must stay byte-identical."""

    signature_namespace: ClassVar[str] = ANTHROPIC
    signature_keys: ClassVar[tuple[str, ...]] = ANTHROPIC_SIGNATURE_KEYS

    def protects(self, ctx: Context) -> Iterable[int]:
        if not ctx.index.reasoning:
            return ()
        return latest_signed(ctx, self.signature_namespace, self.signature_keys)

    def is_signed(self, part: Part) -> bool:
        """Whether the part carries this provider's signature (or redacted data)."""
        return signed(part, self.signature_namespace, self.signature_keys)


EMPTY_OUTPUT_TEXT = "(no output)"
"""What an empty tool result says instead (providers reject blank text blocks)."""

EMPTY_ERROR_TEXT = "(the tool failed without an error message)"
"""What an empty error result says instead (error results need content)."""


class EmptyToolResult(Rule):
    """Base of the rules for tool results whose content would be blank on the wire."""

    choices = ("placeholder",)
    choice_docs = {
        "placeholder": f"Give an empty text output the text {EMPTY_OUTPUT_TEXT!r}, an empty "
        f"error text {EMPTY_ERROR_TEXT!r}, an empty content list one such text item; drop a "
        "blank execution-denied reason (the default reason is sent). Only whitespace is lost; "
        "the old output is kept in the repair record.",
    }

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        index = ctx.index
        # Only text outputs that are blank (or not ASCII), denials and content lists can be
        # empty on the wire; in history order.
        refs = {(ref[0], ref[1]): ref for ref in (*index.outputs, *index.content_outputs)}
        for key in sorted(refs):
            m, p, result = refs[key]
            fixed = _filled(result)
            if fixed is None or m in ctx.protected:
                continue
            yield Finding(
                Action.REPLACE,
                m,
                p,
                (
                    "execution-denied tool result has a blank reason; removed (the default "
                    "reason is sent)"
                    if isinstance(result.output, ExecutionDeniedOutput)
                    else f"{result.output.type} tool result is empty; replaced with placeholder "
                    "text"
                ),
                edits=(SetPart(m, p, result.model_copy(update={"output": fixed})),),
                tool_call_id=result.tool_call_id,
                removed={"output": result.output.model_dump(mode="json", exclude_unset=True)},
                added={"output": fixed.model_dump(mode="json", exclude_unset=True)},
            )


def _has_content(item: dict[str, Any]) -> bool:
    text = item.get("text")
    return item.get("type") != "text" or (isinstance(text, str) and bool(text.strip()))


def _filled(result: ToolResultPart) -> Any:
    """The output with a placeholder in place of empty content, or None if it has content."""
    output = result.output
    if isinstance(output, (TextOutput, ErrorTextOutput)):
        if output.value.strip():
            return None
        text = EMPTY_ERROR_TEXT if isinstance(output, ErrorTextOutput) else EMPTY_OUTPUT_TEXT
        return output.model_copy(update={"value": text})
    if isinstance(output, ContentOutput):
        if any(_has_content(item) for item in output.value):
            return None
        return output.model_copy(update={"value": ({"type": "text", "text": EMPTY_OUTPUT_TEXT},)})
    if isinstance(output, ExecutionDeniedOutput):
        if output.reason is None or output.reason.strip():
            return None
        new = output.model_copy(update={"reason": None})
        new.__pydantic_fields_set__.discard("reason")
        return new
    return None


class ForeignServerTool(Rule):
    """Base of the rules for provider-executed tool calls the target cannot take.

    Another provider's server tool (web search, code execution) is stored as a
    provider-executed call with its result inside the assistant message. A provider that did not
    run it has no block for it: its adapter sends it as a client call with no result, or drops
    it, which can leave a message empty. The call, its results and its approval request are
    removed from the request.
    """

    target: ClassVar[str] = "this provider's"
    scope = Scope.REQUEST
    choices = ("drop",)
    choice_docs = {
        "drop": "Remove the provider-executed call, its results and its approval request from "
        "this request (the stored history keeps them). The removed parts are kept in the "
        "repair records.",
    }

    def native(self, call: ToolCallPart) -> bool:
        """Whether the target provider ran (and can replay) this provider-executed call."""
        del call
        return False

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        index = ctx.index
        if not index.calls:
            return
        dropped: set[str] = set()
        for m, p, call in index.calls:
            if not call.provider_executed or self.native(call):
                continue
            if m in ctx.protected:
                # The adapter drops such a call on its own, but this message must not change:
                # no edit is safe, so say so instead of letting the request fail.
                yield Finding(
                    Action.REPORT,
                    m,
                    p,
                    f"provider-executed call to {call.tool_name!r} ran elsewhere and cannot be "
                    f"sent to {self.target}, but it sits in a message that must not be edited "
                    "(the latest with signed thinking); end the turn with a user message first",
                    tool_call_id=call.tool_call_id,
                )
                continue
            dropped.add(call.tool_call_id)
            yield Finding(
                Action.REMOVE,
                m,
                p,
                f"provider-executed call to {call.tool_name!r} has no {self.target} server-tool "
                "block to go back as (it ran elsewhere); removed from the request with its result",
                edits=(DropPart(m, p),),
                tool_call_id=call.tool_call_id,
                removed=call,
            )
        if not dropped:
            return
        others: list[tuple[int, int, Any]] = [*index.results, *index.requests]
        for m, p, part in sorted(others, key=lambda ref: (ref[0], ref[1])):
            if part.tool_call_id not in dropped or m in ctx.protected:
                continue
            yield Finding(
                Action.REMOVE,
                m,
                p,
                f"{part.type} of a removed provider-executed call",
                edits=(DropPart(m, p),),
                tool_call_id=part.tool_call_id,
                removed=part,
            )


class AssistantFile(Rule):
    """Base of the rules for file parts in assistant messages that the target cannot take."""

    scope = Scope.REQUEST
    choices = ("drop",)
    choice_docs = {
        "drop": "Remove the file part from this request (the stored history keeps it); a "
        "message left empty is then removed. The part is kept in the repair record. In the "
        "latest message with signed reasoning, which no rule edits, it is reported instead.",
    }

    def unsendable(self, part: FilePart) -> bool:
        """Whether the target cannot take this file in an assistant message."""
        del part
        return True

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        roles = ctx.index.roles
        for m, p, part in ctx.index.files:
            if roles[m] != "assistant" or not self.unsendable(part):
                continue
            what = f"{part.media_type} file in an assistant message cannot be sent to this provider"
            if m in ctx.protected:
                # The message must go back as it was (its signed blocks): say so, change nothing.
                yield Finding(
                    Action.REPORT,
                    m,
                    p,
                    f"{what}, but it sits in a message heal must not edit (the latest with "
                    "signed reasoning); end the turn with a user message, or remove the file",
                )
                continue
            yield Finding(
                Action.REMOVE,
                m,
                p,
                f"{what}; removed from the request",
                edits=(DropPart(m, p),),
                removed=part,
            )


# --- small builders for the examples ----------------------------------------------------------


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def _call(cid: str, name: str = "getWeather", **extra: Any) -> dict[str, Any]:
    return {"type": "tool-call", "toolCallId": cid, "toolName": name, "input": {}, **extra}


def _result(cid: str, name: str = "getWeather", value: str = "sunny") -> dict[str, Any]:
    return {
        "type": "tool-result",
        "toolCallId": cid,
        "toolName": name,
        "output": {"type": "text", "value": value},
    }


def _thinking(text: str, signature: str = "EqQBCkYIBxgC") -> dict[str, Any]:
    return {
        "type": "reasoning",
        "text": text,
        "providerOptions": {"anthropic": {"signature": signature}},
    }


_TOOL_LOOP_ERROR = (
    "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
    "`tool_use`. When `thinking` is enabled, a final `assistant` message must start with a "
    "thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We "
    "recommend you include thinking blocks from previous turns. To avoid this requirement, "
    "disable `thinking`. Please consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
)


# --- rules -----------------------------------------------------------------------------------


class AnthropicToolIdFormat(InvalidToolCallId):
    """A tool-call id outside ``[a-zA-Z0-9_-]`` in a request to Anthropic.

    The same check and collision-free rewrite as the shared ``invalid-tool-call-id``, offered
    under the id Mastra's ProviderHistoryCompat uses, so that policies written for it carry
    over. It is request-scoped and runs after the shared rule: with default policies the shared
    rule has already fixed every id and this one finds nothing; when the shared rule is
    disabled or set to ``keep`` (say, to leave stored ids alone), this one still rewrites the
    ids of the request, before it is sent (Mastra only fixes them after a rejection, and maps
    ``call:1/x`` and ``call.1:x`` to the same id).
    """

    id = "anthropic-tool-id-format"
    triggers = frozenset({"calls", "requests", "results"})
    summary = "tool-call id sent to Anthropic has characters outside [a-zA-Z0-9_-] (request-time)"
    providers = frozenset({ANTHROPIC})
    scope = Scope.REQUEST
    choice_docs = {
        "fix": "Replace each forbidden character with '_' in the call, its results and its "
        "approval request, for this request only; ids that would collide take a digest suffix. "
        "The old id is kept in the repair record.",
    }
    rejections = (
        Rejection(
            "anthropic",
            "messages.1.content.1.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
            "CommandCodeAI/command-code#323; HKUDS/nanobot PR#4356; Mastra "
            "ProviderHistoryCompat anthropic-tool-id-format",
        ),
    )
    example = Example(
        before=[
            _user("weather?"),
            {"role": "assistant", "content": [_call("functions.getWeather:0")]},
            {"role": "tool", "content": [_result("functions.getWeather:0")]},
        ],
        after=[
            _user("weather?"),
            {"role": "assistant", "content": [_call("functions_getWeather_0")]},
            {"role": "tool", "content": [_result("functions_getWeather_0")]},
        ],
        provider=ANTHROPIC,
        # The shared rule fixes the same ids first; this alias is what runs when it is kept.
        policy={"invalid-tool-call-id": "keep"},
    )


class AnthropicOrphanCaller(ProtectSigned):
    """A tool call whose ``caller`` names a code-execution call that is not in the history.

    With programmatic tool calling, a client ``tool_use`` records the server tool that called it
    in ``providerOptions.anthropic.caller.toolId``. When pruning removes that server call
    (vercel/ai#12504: ``pruneMessages`` after ``convertToModelMessages`` split the step), every
    later request fails. The AI SDK anthropic adapter (3.0.138) omits such ``caller`` metadata
    before the last user message; other clients send it.
    """

    id = "anthropic-orphan-caller-reference"
    triggers = frozenset({"calls"})
    summary = "tool call's providerOptions.anthropic.caller names a server tool call not in history"
    providers = frozenset({ANTHROPIC})
    scope = Scope.REQUEST
    choices = ("drop-caller", "drop-pair")
    choice_docs = {
        "drop-caller": "Remove the caller reference from the call (and its results), so it is "
        "sent as a direct tool call. Loses only the link to the missing server call; the old "
        "options are kept in the repair record.",
        "drop-pair": "Remove the call and its results from the request. The removed parts are "
        "kept in the repair records.",
    }
    rejections = (
        Rejection(
            "anthropic",
            "source tool `srvtoolu_...` not found for tool use block `toolu_...`",
            "vercel/ai#12504; PRs #12602, #12610",
        ),
    )
    example = Example(
        before=[
            _user("Look up orders 1-3 and total them"),
            {
                "role": "assistant",
                "content": [
                    _call(
                        "toolu_XYZ",
                        "lookup",
                        providerOptions={
                            "anthropic": {
                                "caller": {
                                    "type": "code_execution_20250825",
                                    "toolId": "srvtoolu_ABC",
                                }
                            }
                        },
                    )
                ],
            },
            {"role": "tool", "content": [_result("toolu_XYZ", "lookup", "42")]},
            _user("thanks, now summarize"),
        ],
        after=[
            _user("Look up orders 1-3 and total them"),
            {"role": "assistant", "content": [_call("toolu_XYZ", "lookup")]},
            {"role": "tool", "content": [_result("toolu_XYZ", "lookup", "42")]},
            _user("thanks, now summarize"),
        ],
        provider=ANTHROPIC,
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        index = ctx.index
        if not index.calls:
            return
        refs_all: list[tuple[int, int, ToolCallPart | ToolResultPart]] = [
            *index.calls,
            *index.results,
        ]
        referenced = [
            ref
            for ref in refs_all
            if ref[2].provider_options is not None
            and ANTHROPIC in ref[2].provider_options
            and _caller_id(ref[2])
        ]
        if not referenced:
            return
        ids = {call.tool_call_id for _, _, call in index.calls}
        orphans = {ref[2].tool_call_id for ref in referenced if _caller_id(ref[2]) not in ids}
        protected = ctx.protected
        refs = sorted(
            (ref for ref in refs_all if ref[2].tool_call_id in orphans),
            key=lambda ref: (ref[0], ref[1]),
        )
        for m, p, part in refs:
            if m in protected:
                continue
            missing = _caller_id(part)
            if choice == "drop-pair":
                yield Finding(
                    Action.REMOVE,
                    m,
                    p,
                    f"{part.type} belongs to a call whose caller "
                    f"{_caller_of(ctx, part.tool_call_id)!r} is not in the history; removed",
                    edits=(DropPart(m, p),),
                    tool_call_id=part.tool_call_id,
                    removed=part,
                )
                continue
            if missing is None:
                continue
            options = dict(namespaces(part))
            options[ANTHROPIC] = {
                key: value for key, value in options[ANTHROPIC].items() if key != "caller"
            }
            if not options[ANTHROPIC]:
                del options[ANTHROPIC]
            yield Finding(
                Action.REPLACE,
                m,
                p,
                f"{part.type} names caller {missing!r}, which is not in the history; caller "
                "reference removed",
                edits=(SetPart(m, p, with_options(part, options)),),
                tool_call_id=part.tool_call_id,
                removed={
                    "providerOptions": {
                        ANTHROPIC: {"caller": namespaces(part)[ANTHROPIC]["caller"]}
                    }
                },
            )


def _caller_id(part: Part) -> str | None:
    options = namespaces(part).get(ANTHROPIC)
    caller = options.get("caller") if isinstance(options, dict) else None
    if not isinstance(caller, dict):
        return None
    tool_id = caller.get("toolId")
    return tool_id if isinstance(tool_id, str) and tool_id else None


def _caller_of(ctx: Context, tool_call_id: str) -> str | None:
    for _, _, call in ctx.index.calls:
        if call.tool_call_id == tool_call_id:
            return _caller_id(call)
    return None


_BESIDE_SIGNED = (
    " (it sits in the latest message with signed thinking, whose signed blocks go out "
    "unchanged: this part is not one of them and cannot be sent as one)"
)
"""Added to the reason when reasoning Anthropic cannot take is removed from the latest message
with signed thinking (which no rule edits otherwise)."""


class AnthropicForeignReasoning(ProtectSigned):
    """A reasoning part that another provider produced, replayed to Anthropic.

    Provenance is the part's provider options: only ``providerOptions.anthropic`` is Anthropic's.
    Reasoning that carries only other namespaces (``openai``, ``google``, ``bedrock``, ...) has
    no signature Anthropic can verify, and a foreign signature is rejected outright. The part is
    removed, never turned into text: Anthropic refuses reasoning replayed as assistant text
    (``stop_reason: refusal``, ``reasoning_extraction``; can1357/oh-my-pi#7241).

    It is removed from the latest message with signed thinking too, which no other rule edits:
    Anthropic wants that message's ``thinking`` and ``redacted_thinking`` blocks back unmodified
    (provider-rules.md §1(e)), and this part is not one of them. It cannot go back as a thinking
    block at all (it has no Anthropic signature), so the AI SDK anthropic adapter leaves it out
    of every request anyway (warning "unsupported reasoning metadata"); heal does the same with
    a record, and the signed blocks around it go out byte-identical.
    """

    id = "anthropic-strip-foreign-reasoning-content"
    triggers = frozenset({"reasoning"})
    summary = (
        "reasoning part from another provider (no providerOptions.anthropic) sent to Anthropic"
    )
    providers = frozenset({ANTHROPIC})
    scope = Scope.REQUEST
    choices = ("drop",)
    choice_docs = {
        "drop": "Remove the reasoning part from this request (the stored history keeps it for "
        "its own provider). The part is kept in the repair record.",
    }
    rejections = (
        Rejection(
            "anthropic",
            "messages.1.content.0: Invalid `signature` in `thinking` block",
            "ding113/claude-code-hub#518; anomalyco/opencode#6418 (GLM/MiniMax to Opus); "
            "can1357/oh-my-pi#6379 (Kimi to Anthropic); genkit-dart PR#400 (a Gemini "
            "thoughtSignature sent as an Anthropic signature)",
        ),
        Rejection(
            "anthropic",
            "messages.1.content.0.thinking.signature: Field required",
            "vercel/ai#7729 (reasoning from another provider has no Anthropic signature)",
        ),
    )
    example = Example(
        before=[
            _user("Plan a trip"),
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "reasoning",
                        "text": "The user wants a plan...",
                        "providerOptions": {
                            "openai": {"itemId": "rs_X", "reasoningEncryptedContent": "gAAAA"}
                        },
                    },
                    {"type": "text", "text": "Here is a 3-day plan."},
                ],
            },
            _user("Make it 5 days"),
        ],
        after=[
            _user("Plan a trip"),
            {"role": "assistant", "content": [{"type": "text", "text": "Here is a 3-day plan."}]},
            _user("Make it 5 days"),
        ],
        provider=ANTHROPIC,
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        if not ctx.index.reasoning:
            return
        protected = ctx.protected
        for m, p, part in ctx.index.reasoning:
            foreign = foreign_namespaces(part, (ANTHROPIC,))
            if not foreign:
                continue
            yield Finding(
                Action.REMOVE,
                m,
                p,
                f"reasoning from another provider ({', '.join(foreign)}) cannot be verified by "
                "Anthropic; removed from the request" + (_BESIDE_SIGNED if m in protected else ""),
                edits=(DropPart(m, p),),
                removed=part,
            )


class AnthropicUnsignedReasoning(ProtectSigned):
    """A reasoning part without an Anthropic signature or redacted data.

    Anthropic replays a thinking block only with the signature it issued
    (``providerOptions.anthropic.signature``) or as redacted thinking
    (``providerOptions.anthropic.redactedData``). A signature stored anywhere else (say a
    ``providerMetadata`` field kept from a response) is not sent, so it does not count. This
    also covers empty unsigned thinking; signed thinking with empty text is valid (Opus 4.7+
    omits thinking text) and is kept. Typical causes: vercel/ai#11602 (multi-step responses
    lost their signatures), ``extractReasoningMiddleware``, metadata dropped in storage.

    The latest message with signed thinking is no exception, although no other rule edits it:
    Anthropic wants its ``thinking`` and ``redacted_thinking`` blocks back unmodified
    (provider-rules.md §1(e)), and an unsigned part cannot go back as such a block at all (the
    signature is required). The AI SDK anthropic adapter leaves it out of every request (warning
    "unsupported reasoning metadata"); heal does the same with a record, so the signed blocks go
    out byte-identical. If the part was Anthropic's own thinking that lost its signature,
    Anthropic may still see that message as modified; only the stored signature can fix that.
    """

    id = "anthropic-unsigned-reasoning"
    triggers = frozenset({"reasoning"})
    summary = "reasoning part has no providerOptions.anthropic signature or redactedData"
    providers = frozenset({ANTHROPIC})
    scope = Scope.REQUEST
    choices = ("drop", "empty-signature")
    choice_docs = {
        "drop": "Remove the reasoning part from this request; never turn it into text "
        "(Anthropic refuses replayed reasoning as text). The part is kept in the repair record.",
        "empty-signature": "For Anthropic-compatible servers that do not sign thinking but "
        "require it back (DeepSeek's /anthropic endpoint, Kimi): keep the part and send it with "
        'signature "" (provider-rules.md §7, §14 R1). Loses nothing; empty thinking is still '
        "removed (a thinking block must contain thinking). Anthropic itself rejects it.",
    }
    rejections = (
        Rejection(
            "anthropic",
            "messages.2.content.1.thinking.signature: Field required",
            "JohnnyZ93/oai-compatible-copilot#217; anomalyco/opencode#25005 (via Bedrock)",
        ),
        Rejection(
            "anthropic",
            "messages.1.content.0.thinking: each thinking block must contain thinking",
            "caozhiyuan/copilot-api#54; anomalyco/opencode#11571",
        ),
    )
    example = Example(
        before=[
            _user("think about this"),
            {
                "role": "assistant",
                "content": [
                    {"type": "reasoning", "text": "hmm the user wants..."},
                    {"type": "text", "text": "here you go"},
                ],
            },
        ],
        after=[
            _user("think about this"),
            {"role": "assistant", "content": [{"type": "text", "text": "here you go"}]},
        ],
        provider=ANTHROPIC,
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        if not ctx.index.reasoning:
            return
        protected = ctx.protected
        for m, p, part in ctx.index.reasoning:
            if self.is_signed(part):
                continue
            if foreign_namespaces(part, (ANTHROPIC,)):
                continue  # anthropic-strip-foreign-reasoning-content's finding
            if choice == "empty-signature" and part.text:
                values = (part.provider_options or {}).get(ANTHROPIC) or {}
                if values.get("signature") == "":
                    continue  # already marked for a server that does not sign
                marked = with_options(
                    part,
                    {**(part.provider_options or {}), ANTHROPIC: {**values, "signature": ""}},
                )
                yield Finding(
                    Action.REPLACE,
                    m,
                    p,
                    'reasoning part has no signature; sent with signature "" for a server '
                    "that does not sign thinking",
                    edits=(SetPart(m, p, marked),),
                    removed={"providerOptions": part.provider_options},
                    added={"providerOptions": marked.provider_options},
                )
                continue
            what = "empty reasoning part" if not part.text else "reasoning part"
            where = _stray_signature(part)
            yield Finding(
                Action.REMOVE,
                m,
                p,
                f"{what} has no Anthropic signature{where}; removed from the request"
                + (_BESIDE_SIGNED if m in protected else ""),
                edits=(DropPart(m, p),),
                removed=part,
            )


def _stray_signature(part: ReasoningPart) -> str:
    extra = part.model_extra or {}
    for field, value in extra.items():
        if (
            isinstance(value, dict)
            and isinstance(value.get(ANTHROPIC), dict)
            and value[ANTHROPIC].get("signature")
        ):
            return f" (the one in {field} is not sent: only providerOptions counts)"
    return ""


class AnthropicForeignServerTool(ForeignServerTool, ProtectSigned):
    """A provider-executed call sent to Anthropic that Anthropic did not run.

    Anthropic's own server tools have ``srvtoolu_`` ids (``mcptoolu_`` for MCP), and their
    blocks are only valid with those ids; another provider's web search or code execution
    (``ws_...``, ``fc-...``) is rejected, or dropped by the AI SDK adapter, which can leave an
    empty message.
    """

    id = "anthropic-foreign-server-tool"
    triggers = frozenset({"calls"})
    target = "Anthropic"
    summary = "provider-executed tool call that Anthropic did not run (id not srvtoolu_/mcptoolu_)"
    providers = frozenset({ANTHROPIC})
    rejections = (
        Rejection(
            "anthropic",
            "***.content.2.server_tool_use.id: String should match pattern "
            "'^srvtoolu_[a-zA-Z0-9_]+$'",
            "ding113/claude-code-hub#470",
        ),
        Rejection(
            "anthropic",
            "messages.0: all messages must have non-empty content except for the optional final "
            "assistant message",
            "anthropics/claude-code#6774 (an assistant message emptied by the adapter's drops)",
        ),
    )
    example = Example(
        before=[
            _user("news?"),
            {
                "role": "assistant",
                "content": [
                    _call("ws_01", "web_search", providerExecuted=True),
                    {
                        "type": "tool-result",
                        "toolCallId": "ws_01",
                        "toolName": "web_search",
                        "output": {"type": "json", "value": []},
                    },
                    {"type": "text", "text": "Nothing new."},
                ],
            },
            _user("ok"),
        ],
        after=[
            _user("news?"),
            {"role": "assistant", "content": [{"type": "text", "text": "Nothing new."}]},
            _user("ok"),
        ],
        provider=ANTHROPIC,
    )

    def native(self, call: ToolCallPart) -> bool:
        return _ANTHROPIC_SERVER_ID.fullmatch(call.tool_call_id) is not None


_ANTHROPIC_SERVER_ID = re.compile(r"(?:srvtoolu|mcptoolu)_[a-zA-Z0-9_]+")


class AnthropicAssistantFile(AssistantFile, ProtectSigned):
    """A file (image, document) in an assistant message sent to Anthropic.

    Anthropic takes images and documents in user turns only; the AI SDK anthropic adapter drops
    assistant files silently, which can leave an empty message.
    """

    id = "anthropic-assistant-file"
    triggers = frozenset({"files"})
    summary = "file part in an assistant message (Anthropic takes files in user turns only)"
    providers = frozenset({ANTHROPIC})
    rejections = (
        Rejection(
            "anthropic (Claude on Bedrock)",
            "messages.1.content: 'image' blocks are not permitted within assistant turns.",
            "epam/ai-dial-adapter-bedrock PR#306",
        ),
    )
    example = Example(
        before=[
            _user("draw a cat"),
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Here it is."},
                    {"type": "file", "data": "iVBORw0KGgo=", "mediaType": "image/png"},
                ],
            },
            _user("thanks"),
        ],
        after=[
            _user("draw a cat"),
            {"role": "assistant", "content": [{"type": "text", "text": "Here it is."}]},
            _user("thanks"),
        ],
        provider=ANTHROPIC,
    )


class AnthropicEmptyToolResult(EmptyToolResult, ProtectSigned):
    """A tool result whose content would be blank in a request to Anthropic.

    Anthropic rejects empty or whitespace-only text, including the text inside a
    ``tool_result``; the AI SDK adapter sends an empty text output as ``content: ""``.
    """

    id = "anthropic-empty-tool-result"
    triggers = frozenset({"outputs", "content_outputs"})
    summary = "tool result output is empty or whitespace only"
    providers = frozenset({ANTHROPIC})
    rejections = (
        Rejection(
            "anthropic",
            "messages: text content blocks must be non-empty",
            "anthropics/claude-code#59812, #62150; provider-rules.md §1(g) (text inside "
            "tool_result content counts)",
        ),
        Rejection(
            "anthropic",
            "messages: text content blocks must contain non-whitespace text",
            "anthropics/claude-code#23440; continuedev/continue#9605",
        ),
    )
    example = Example(
        before=[
            _user("run it"),
            {"role": "assistant", "content": [_call("toolu_1", "run")]},
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": "toolu_1",
                        "toolName": "run",
                        "output": {"type": "text", "value": ""},
                    }
                ],
            },
        ],
        after=[
            _user("run it"),
            {"role": "assistant", "content": [_call("toolu_1", "run")]},
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": "toolu_1",
                        "toolName": "run",
                        "output": {"type": "text", "value": EMPTY_OUTPUT_TEXT},
                    }
                ],
            },
        ],
        provider=ANTHROPIC,
    )


class AnthropicReasoningOnlyMessage(ProtectSigned):
    """An assistant message that holds reasoning and nothing else.

    It comes from pruning (vercel/ai#13430: ``pruneMessages`` removed the tool calls and left
    their reasoning) or from the reasoning drops above. Anthropic rejects it in final position;
    in the middle it has nothing to answer and is removed too (vercel/ai PRs #13435, #13901).
    """

    id = "anthropic-reasoning-only-message"
    triggers = frozenset({"reasoning"})
    summary = "assistant message holds only reasoning parts"
    providers = frozenset({ANTHROPIC})
    scope = Scope.REQUEST
    choices = ("drop",)
    choice_docs = {
        "drop": "Remove the message from this request. Its reasoning is lost for the request; "
        "the message is kept in the repair record.",
    }
    rejections = (
        Rejection(
            "anthropic",
            "messages.1: The final block in an assistant message cannot be `thinking`.",
            "tailcallhq/forgecode#2107; router-for-me/CLIProxyAPI#5321; vercel/ai#13430",
        ),
    )
    example = Example(
        before=[
            _user("what's broken?"),
            {"role": "assistant", "content": [_thinking("Let me check for errors...", "abc")]},
            _user("anything?"),
        ],
        after=[_user("what's broken?"), _user("anything?")],
        provider=ANTHROPIC,
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        if not ctx.index.reasoning:
            return
        messages = ctx.messages
        seen: set[int] = set()
        for m, _, _ in ctx.index.reasoning:
            if m in seen:
                continue
            seen.add(m)
            if not reasoning_only(messages[m]) or m in ctx.protected:
                continue
            yield Finding(
                Action.REMOVE,
                m,
                None,
                "assistant message holds only reasoning; removed from the request",
                edits=(DropMessage(m),),
                removed=messages[m],
            )


class AnthropicReasoningNotFirst(ProtectSigned):
    """An assistant message that holds reasoning but does not start with it.

    Anthropic wants a message with thinking blocks to start with one. This shape appears when
    assistant messages are merged or parts are appended in storage. The reasoning parts move to
    the front, keeping their order. A message that already starts with reasoning is left alone,
    interleaved thinking included. The latest assistant message with signed thinking is never
    reordered: Anthropic forbids modifying it, while the first-block error was a regression
    fixed the day it appeared (anthropics/claude-code#20705), so the guard wins.
    """

    id = "anthropic-reasoning-not-first"
    triggers = frozenset({"reasoning"})
    summary = "assistant message holds reasoning but does not start with it"
    providers = frozenset({ANTHROPIC})
    choices = ("move",)
    choice_docs = {
        "move": "Move the reasoning parts to the front of the message, keeping their relative "
        "order and the order of the other parts (never in the latest message with signed "
        "thinking). Loses nothing.",
    }
    rejections = (
        Rejection(
            "anthropic",
            "messages.51.content.0: If an assistant message contains any thinking blocks, the "
            "first block must be thinking or redacted_thinking. Found text.",
            "anthropics/claude-code#20705, #20691",
        ),
    )
    example = Example(
        before=[
            _user("hi"),
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "Hello."}, _thinking("Greet back.")],
            },
            _user("bye"),
            {
                "role": "assistant",
                "content": [_thinking("Done."), {"type": "text", "text": "Bye."}],
            },
            _user("?"),
        ],
        after=[
            _user("hi"),
            {
                "role": "assistant",
                "content": [_thinking("Greet back."), {"type": "text", "text": "Hello."}],
            },
            _user("bye"),
            {
                "role": "assistant",
                "content": [_thinking("Done."), {"type": "text", "text": "Bye."}],
            },
            _user("?"),
        ],
        provider=ANTHROPIC,
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        if not ctx.index.reasoning:
            return
        messages = ctx.messages
        seen: set[int] = set()
        for m, _, _ in ctx.index.reasoning:
            if m in seen:
                continue
            seen.add(m)
            content = messages[m].content
            if isinstance(content, str) or isinstance(content[0], ReasoningPart):
                continue
            if m in ctx.protected:
                continue
            for p in range(1, len(content)):
                part = content[p]
                if not isinstance(part, ReasoningPart):
                    continue
                yield Finding(
                    Action.MOVE,
                    m,
                    p,
                    "reasoning part comes after other parts; moved to the front of the message",
                    edits=(DropPart(m, p), AddPart(m, 0, part)),
                    anchor=m,
                )


class AnthropicTextAfterToolCall(ProtectSigned):
    """Text after a tool call in an assistant message.

    Anthropic reads it as coming between the ``tool_use`` and its ``tool_result``, so the call
    looks unanswered (recorded in the anomalyco/opencode cassette
    ``rejects-malformed-assistant-tool-order-without-patch.json``; the patched order got HTTP
    200). Calls the provider executed itself (web search, code execution) are followed by their
    results and by text legitimately; only client tool calls count. (The AI SDK anthropic
    adapter, 3.0.138, moves ``tool_use`` blocks last itself; other clients do not, and the fix
    belongs in stored history anyway.)
    """

    id = "anthropic-text-after-tool-call"
    triggers = frozenset({"texts_after_calls"})
    summary = "assistant message has text after a (client) tool call"
    providers = frozenset({ANTHROPIC})
    choices = ("move",)
    choice_docs = {
        "move": "Move the text parts in front of the first tool call, keeping their order, so "
        "tool calls come last. Loses nothing.",
    }
    rejections = (
        Rejection(
            "anthropic",
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately "
            "after: call_1. Each `tool_use` block must have a corresponding `tool_result` block "
            "in the next message.",
            "anomalyco/opencode packages/llm/test/fixtures/recordings/anthropic-messages/"
            "rejects-malformed-assistant-tool-order-without-patch.json (claude-haiku-4-5); "
            "vercel/ai#8516",
        ),
    )
    example = Example(
        before=[
            _user("weather?"),
            {
                "role": "assistant",
                "content": [_call("call_1"), {"type": "text", "text": "Checking the weather."}],
            },
            {"role": "tool", "content": [_result("call_1")]},
        ],
        after=[
            _user("weather?"),
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "Checking the weather."}, _call("call_1")],
            },
            {"role": "tool", "content": [_result("call_1")]},
        ],
        provider=ANTHROPIC,
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        index = ctx.index
        messages = ctx.messages
        roles = index.roles
        for m in index.texts_after_calls:
            if roles[m] != "assistant":
                continue
            first_call = next(
                (p for p, call in index.calls_in(m) if not call.provider_executed), None
            )
            if first_call is None:
                continue
            content = messages[m].content
            if isinstance(content, str):
                continue
            if not any(part.__class__ is TextPart for part in content[first_call + 1 :]):
                continue
            if m in ctx.protected:
                continue
            for p in range(first_call + 1, len(content)):
                part = content[p]
                if not isinstance(part, TextPart):
                    continue
                yield Finding(
                    Action.MOVE,
                    m,
                    p,
                    "text comes after a tool call; moved in front of the tool calls",
                    edits=(DropPart(m, p), AddPart(m, first_call, part)),
                    anchor=m,
                )


class AnthropicTrailingWhitespace(ProtectSigned):
    """The last text of a final assistant message ends with whitespace.

    A final assistant message is a prefill, and Anthropic rejects trailing whitespace in it.
    (The AI SDK anthropic adapter trims it too; other clients do not.)
    """

    id = "anthropic-trailing-whitespace"
    summary = "final assistant message's last text ends with whitespace"
    providers = frozenset({ANTHROPIC})
    scope = Scope.REQUEST
    choices = ("trim",)
    choice_docs = {
        "trim": "Remove the trailing whitespace of that text for this request. Only whitespace "
        "is lost; the old text is kept in the repair record.",
    }
    rejections = (
        Rejection(
            "anthropic",
            "messages: final assistant content cannot end with trailing whitespace",
            "tailcallhq/forgecode#1872; anomalyco/opencode#1295; aaif-goose/goose PR#5967",
        ),
    )
    example = Example(
        before=[_user("Write a haiku"), {"role": "assistant", "content": "Autumn moonlight \n"}],
        after=[_user("Write a haiku"), {"role": "assistant", "content": "Autumn moonlight"}],
        provider=ANTHROPIC,
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        messages = ctx.messages
        last = len(messages) - 1
        if last < 0 or ctx.index.roles[last] != "assistant":
            return
        message = messages[last]
        content = message.content
        if isinstance(content, str):
            text = content
            if not text.strip() or text == text.rstrip() or last in ctx.protected:
                return
            new_message = message.model_copy(update={"content": text.rstrip()})
            edit: Edit = SetMessage(last, new_message)
            part_index = None
        else:
            if not content or not isinstance(content[-1], TextPart):
                return
            part = content[-1]
            text = part.text
            if not text.strip() or text == text.rstrip() or last in ctx.protected:
                return
            part_index = len(content) - 1
            edit = SetPart(last, part_index, part.model_copy(update={"text": text.rstrip()}))
        yield Finding(
            Action.REPLACE,
            last,
            part_index,
            "final assistant text ends with whitespace; trimmed",
            edits=(edit,),
            removed={"text": text},
            added={"text": text.rstrip()},
        )


class AnthropicToolLoopThinking(ProtectSigned):
    """An unfinished tool loop whose assistant message does not start with signed thinking,
    in a history that uses thinking.

    With thinking enabled, the assistant message that opened the current tool loop (the history
    ends with its tool results) must start with its signed thinking block. When that block was
    lost (vercel/ai#11602: signatures missing from multi-step responses; then dropped as
    unsigned), no edit can restore it: heal never fabricates a signature. heal cannot see the
    request's thinking setting, so it reports this only when other signed thinking in the
    history shows that thinking is in use, and only when no assistant message of the loop
    starts with signed thinking (the error's "final assistant message" reads either way).
    """

    id = "anthropic-tool-loop-thinking"
    triggers = frozenset({"reasoning"})
    summary = (
        "with thinking in use, the open tool loop's assistant message does not start with "
        "signed thinking (cannot be fixed by editing)"
    )
    providers = frozenset({ANTHROPIC})
    scope = Scope.REQUEST
    choices = ("report",)
    choice_docs = {
        "report": "Report it; change nothing. Fix it outside heal: disable thinking for this "
        "request, restore the signed reasoning from storage, or end the tool loop (send a user "
        "message after the tool results).",
    }
    rejections = (
        Rejection("anthropic", _TOOL_LOOP_ERROR, "vercel/ai#11602; vercel/ai#8865 (found `text`)"),
        Rejection(
            "anthropic (Bedrock Converse)",
            "ValidationException: messages.X.content.0.type: Expected `thinking` or "
            "`redacted_thinking`, but found `text`",
            "langchain-ai/langchain-aws#844; NousResearch/hermes-agent#36260",
        ),
    )
    example = Example(
        before=[
            _user("Weather in Paris?"),
            {"role": "assistant", "content": [_thinking("Call the tool."), _call("toolu_01")]},
            {"role": "tool", "content": [_result("toolu_01")]},
            {"role": "assistant", "content": "It is sunny."},
            _user("And in Rome? Use the tool."),
            {
                "role": "assistant",
                "content": [{"type": "reasoning", "text": "Call it again."}, _call("toolu_02")],
            },
            {"role": "tool", "content": [_result("toolu_02")]},
        ],
        after=[
            _user("Weather in Paris?"),
            {"role": "assistant", "content": [_thinking("Call the tool."), _call("toolu_01")]},
            {"role": "tool", "content": [_result("toolu_01")]},
            {"role": "assistant", "content": "It is sunny."},
            _user("And in Rome? Use the tool."),
            {"role": "assistant", "content": [_call("toolu_02")]},
            {"role": "tool", "content": [_result("toolu_02")]},
        ],
        provider=ANTHROPIC,
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        index = ctx.index
        roles = index.roles
        if not roles or roles[-1] != "tool" or not index.reasoning:
            return
        if not any(self.is_signed(part) for _, _, part in index.reasoning):
            return
        start = len(roles) - 1
        while start >= 0 and roles[start] != "user":
            start -= 1
        turn = [i for i in range(start + 1, len(roles)) if roles[i] == "assistant"]
        if not turn:
            return
        # "A final assistant message must start with a thinking block (preceeding the lastmost
        # set of tool_use and tool_result blocks)": the turn's first message or its last one,
        # depending on the reading. Reports fail validation, so only report when neither does.
        firsts = [self._first(ctx.messages[i].content) for i in turn]
        if any(isinstance(f, ReasoningPart) and self.is_signed(f) for f in firsts):
            return
        first = firsts[0]
        if first is None or isinstance(first, TextPart):
            found = "text"
        elif isinstance(first, ReasoningPart):
            found = "unsigned reasoning"
        else:
            found = first.type
        yield Finding(
            Action.REPORT,
            turn[0],
            None,
            "thinking is in use (signed thinking elsewhere in the history), but the assistant "
            f"message that opened the unfinished tool loop starts with {found}, not signed "
            "thinking, and Anthropic rejects that; heal cannot restore a signature: disable "
            "thinking for this request, restore the signed reasoning from storage, or end the "
            "tool loop with a user message",
        )

    @staticmethod
    def _first(content: Any) -> Any:
        return content[0] if not isinstance(content, str) and content else None


class AnthropicAssistantPrefill(ProtectSigned):
    """A final assistant message of only text or reasoning: a prefill.

    Newer Claude models (claude-sonnet-4-6, claude-opus-4-6 and later, Sonnet 5) reject prefill;
    the ``*-4-5`` models accept it. heal cannot see the model, so this rule is off by default:
    enable it for models that reject prefill. A final assistant message with tool calls is not a
    prefill (its calls need results; see ``orphan-tool-call``). The message is removed whole,
    which re-encodes none of its thinking blocks.
    """

    id = "anthropic-assistant-prefill"
    summary = "history ends with an assistant message of only text or reasoning (a prefill)"
    providers = frozenset({ANTHROPIC})
    scope = Scope.REQUEST
    default_enabled = False
    choices = ("drop",)
    choice_docs = {
        "drop": "Remove the final assistant message from this request (again, if the message "
        "before it is one too). The message is kept in the repair record.",
    }
    rejections = (
        Rejection(
            "anthropic",
            "This model does not support assistant message prefill. The conversation must end "
            "with a user message.",
            "smallmain/vscode-unify-chat-provider#249; cortexkit/magic-context#511; "
            "XiaomiMiMo/MiMo-Code PR#1702 (Bedrock)",
        ),
        Rejection(
            "anthropic",
            "Your API request included an `assistant` message in the final position, which "
            "would pre-fill the `assistant` response. When using tools, pre-filling the "
            "`assistant` response is not supported.",
            "vercel/ai#4283",
        ),
    )
    example = Example(
        before=[_user("Name a color"), {"role": "assistant", "content": "Blue"}],
        after=[_user("Name a color")],
        provider=ANTHROPIC,
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        messages = ctx.messages
        last = len(messages) - 1
        if last < 0 or ctx.index.roles[last] != "assistant":
            return
        message = messages[last]
        content = message.content
        if not isinstance(content, str) and not all(
            isinstance(part, (TextPart, ReasoningPart)) for part in content
        ):
            return
        if not content:
            return  # empty-message removes it
        if "user" not in ctx.index.roles:
            yield Finding(
                Action.REPORT,
                last,
                None,
                "the history ends with an assistant prefill and has no user message to end on "
                "instead; add a user message",
            )
            return
        yield Finding(
            Action.REMOVE,
            last,
            None,
            "final assistant message is a prefill, which this model rejects; removed from the "
            "request",
            edits=(DropMessage(last),),
            removed=message,
        )


class MidConversationSystem(Rule):
    """Base of the rules for system messages after the start of the conversation."""

    scope = Scope.REQUEST
    choices = ("user-text", "hoist")
    choice_docs = {
        "user-text": "Turn it into a user message in the same place, its text wrapped in "
        "<system-reminder> tags (its provider options kept). Nothing is lost; the old message "
        "is kept in the repair record.",
        "hoist": "Move it, unchanged, to the end of the system messages at the start (changes "
        "when the instruction appears). Loses nothing.",
    }

    def skip(self, message: SystemMessage) -> bool:
        """Whether to leave this system message alone (a provider feature that needs it)."""
        del message
        return False

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        roles = ctx.index.roles
        lead = 0
        while lead < len(roles) and roles[lead] == "system":
            lead += 1
        if "system" not in roles[lead:]:
            return
        for i in range(lead, len(roles)):
            if roles[i] != "system":
                continue
            message = ctx.messages[i]
            assert isinstance(message, SystemMessage)
            if self.skip(message):
                continue
            if not message.content.strip():
                yield Finding(
                    Action.REMOVE,
                    i,
                    None,
                    "empty system message after the start of the conversation; removed",
                    edits=(DropMessage(i),),
                    removed=message,
                )
            elif choice == "hoist":
                yield Finding(
                    Action.MOVE,
                    i,
                    None,
                    "system message after the start of the conversation; moved to the "
                    "leading system messages",
                    edits=(DropMessage(i), AddMessage(lead - 1, message)),
                    anchor=lead - 1 if lead > 0 else None,
                )
            else:
                user = UserMessage(
                    content=(TextPart(text=SYSTEM_REMINDER.format(message.content)),)
                )
                if message.provider_options is not None:
                    user = user.model_copy(update={"provider_options": message.provider_options})
                yield Finding(
                    Action.REPLACE,
                    i,
                    None,
                    "system message after the start of the conversation; turned into user text",
                    edits=(SetMessage(i, user),),
                    removed=message,
                    added=user,
                )


_ANTHROPIC_SYSTEM_FEATURES = ("toolChanges", "clearAt", "effort")


class AnthropicMidConversationSystem(MidConversationSystem, ProtectSigned):
    """A system message after the start of the conversation, sent to Anthropic.

    The AI SDK anthropic adapter sends it as a mid-conversation system message (a beta), which
    Claude Opus 4.8 and later accept; older models, and clients that put ``role: system`` into
    ``messages`` without the beta, are rejected. So this rule is off by default (the message is
    kept); enable it for older models. System messages that carry Anthropic mid-conversation
    features (``toolChanges``, ``clearAt``, ``effort``) are always left alone.
    """

    id = "anthropic-mid-conversation-system"
    summary = "system message after the start of the conversation (older Claude models)"
    providers = frozenset({ANTHROPIC})
    default_enabled = False
    rejections = (
        Rejection(
            "anthropic",
            'messages: Unexpected role "system". The Messages API accepts a top-level `system` '
            'parameter, not "system" as an input message role.',
            "ianarawjo/ChainForge#271; Maol-1997/cursor-claude-connector#3",
        ),
    )
    example = Example(
        before=[
            {"role": "system", "content": "Be brief."},
            _user("hi"),
            {"role": "assistant", "content": "Hello."},
            {"role": "system", "content": "The user is on mobile."},
            _user("weather?"),
        ],
        after=[
            {"role": "system", "content": "Be brief."},
            _user("hi"),
            {"role": "assistant", "content": "Hello."},
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "<system-reminder>\nThe user is on mobile.\n</system-reminder>",
                    }
                ],
            },
            _user("weather?"),
        ],
        provider=ANTHROPIC,
    )

    def skip(self, message: SystemMessage) -> bool:
        options = namespaces(message).get(ANTHROPIC)
        return isinstance(options, dict) and any(
            options.get(key) is not None for key in _ANTHROPIC_SYSTEM_FEATURES
        )


RULES: tuple[Rule, ...] = (
    AnthropicToolIdFormat(),
    AnthropicOrphanCaller(),
    AnthropicForeignServerTool(),
    AnthropicForeignReasoning(),
    AnthropicUnsignedReasoning(),
    AnthropicAssistantFile(),
    AnthropicReasoningOnlyMessage(),
    AnthropicReasoningNotFirst(),
    AnthropicTextAfterToolCall(),
    AnthropicEmptyToolResult(),
    AnthropicTrailingWhitespace(),
    AnthropicToolLoopThinking(),
    AnthropicAssistantPrefill(),
    AnthropicMidConversationSystem(),
)
"""This pack's rules, in the order they run."""
