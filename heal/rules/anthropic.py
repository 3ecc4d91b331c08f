"""Rules for the Anthropic Messages API (direct, and Claude on Bedrock InvokeModel and Vertex).

Anthropic replays thinking only when it can verify it: a ``thinking`` block needs the
signature Anthropic issued (``providerOptions.anthropic.signature``, or ``redactedData`` for
redacted thinking), and the latest assistant message holding signed thinking must go back
byte-identical. So the rules run in this order, each on the output of the one before (the
registry, :mod:`heal.rules`, lists them; a module named after a rule declares it, as
Anthropic's instance of a rule other providers share):

1. ``anthropic-tool-id-format``, ``anthropic-orphan-caller-reference``: ids and the references
   between calls first (the first a request-time safety net behind the shared rule);
2. ``anthropic-foreign-server-tool`` (:mod:`~heal.rules.server_tools`),
   ``anthropic-strip-foreign-reasoning-content``, ``anthropic-unsigned-reasoning``
   (:mod:`~heal.rules.reasoning`), ``anthropic-assistant-file`` (:mod:`~heal.rules.files`): drop
   what Anthropic cannot take or verify;
3. ``anthropic-reasoning-only-message`` (:mod:`~heal.rules.reasoning`): assistant messages
   those drops left with only reasoning (Anthropic rejects a final thinking block);
4. the block layout: ``anthropic-split-thinking-turn`` (:mod:`~heal.rules.roles`: assistant
   messages in a row go out as one, which must start with its thinking),
   ``anthropic-reasoning-not-first`` (:mod:`~heal.rules.reasoning`),
   ``anthropic-text-after-tool-call``, then ``anthropic-trailing-reasoning``
   (:mod:`~heal.rules.reasoning`), after the moves before it; ``anthropic-empty-tool-result``
   (:mod:`~heal.rules.content`): blank text inside tool results;
5. ``anthropic-trailing-whitespace``, ``anthropic-tool-loop-thinking``,
   ``anthropic-assistant-prefill``, ``anthropic-mid-conversation-system``
   (:mod:`~heal.rules.system`): the final message and the roles.

Every one of them protects the latest assistant message holding signed thinking (see
:func:`~heal.rules.reasoning.latest_signed`): no rule, shared ones included, edits its content,
except to remove reasoning that cannot go back as an Anthropic block at all (unsigned, or
another provider's): it is not one of the signed blocks Anthropic wants back unmodified; and
except to put its blocks where Anthropic accepts them (thinking first, not last in the final
message): in any other layout the message is rejected whatever heal does, so its blocks move,
unchanged (:data:`~heal.rules.thinking.OVER_PROTECTION`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from heal._construct import replaced
from heal.messages import (
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from heal.repairs import Action, Scope
from heal.rules import _errors as err
from heal.rules import _examples as ex
from heal.rules._base import (
    AddPart,
    Context,
    DropMessage,
    DropPart,
    Edit,
    Example,
    Finding,
    Rejection,
    SetMessage,
    SetPart,
)
from heal.rules._options import namespaces, with_options
from heal.rules.reasoning import ANTHROPIC_SIGNING, ProtectSigned
from heal.rules.tool_shape import InvalidToolCallId

if TYPE_CHECKING:
    from heal.targets import Target

__all__ = [
    "AnthropicAssistantPrefill",
    "AnthropicOrphanCaller",
    "AnthropicTextAfterToolCall",
    "AnthropicToolIdFormat",
    "AnthropicToolLoopThinking",
    "AnthropicTrailingWhitespace",
]

ANTHROPIC = "anthropic"


class _AnthropicRule(ProtectSigned):
    signing = ANTHROPIC_SIGNING


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
    needs = frozenset({"invalid_tool_call_ids"})
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
            pattern=err.ANTHROPIC_TOOL_USE_ID_PATTERN,
        ),
    )
    example = Example(
        before=[
            ex.user("weather?"),
            {"role": "assistant", "content": [ex.call("functions.getWeather:0")]},
            {"role": "tool", "content": [ex.result("functions.getWeather:0")]},
        ],
        after=[
            ex.user("weather?"),
            {"role": "assistant", "content": [ex.call("functions_getWeather_0")]},
            {"role": "tool", "content": [ex.result("functions_getWeather_0")]},
        ],
        provider=ANTHROPIC,
        # The shared rule fixes the same ids first; this alias is what runs when it is kept.
        policy={"invalid-tool-call-id": "keep"},
    )


class AnthropicOrphanCaller(_AnthropicRule):
    """A tool call whose ``caller`` names a code-execution call that is not in the history.

    With programmatic tool calling, a client ``tool_use`` records the server tool that called it
    in ``providerOptions.anthropic.caller.toolId``. When pruning removes that server call
    (vercel/ai#12504: ``pruneMessages`` after ``convertToModelMessages`` split the step), every
    later request fails. The AI SDK anthropic adapter (3.0.138) omits such ``caller`` metadata
    before the last user message; other clients send it.
    """

    id = "anthropic-orphan-caller-reference"
    triggers = frozenset({"calls"})
    needs = frozenset({"anthropic_tool_options"})
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
            pattern=err.ANTHROPIC_CALLER_SOURCE_TOOL_MISSING,
        ),
    )
    example = Example(
        before=[
            ex.user("Look up orders 1-3 and total them"),
            {
                "role": "assistant",
                "content": [
                    ex.call(
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
            {"role": "tool", "content": [ex.result("toolu_XYZ", "lookup", "42")]},
            ex.user("thanks, now summarize"),
        ],
        after=[
            ex.user("Look up orders 1-3 and total them"),
            {"role": "assistant", "content": [ex.call("toolu_XYZ", "lookup")]},
            {"role": "tool", "content": [ex.result("toolu_XYZ", "lookup", "42")]},
            ex.user("thanks, now summarize"),
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


class AnthropicTextAfterToolCall(_AnthropicRule):
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
            pattern=err.ANTHROPIC_TOOL_USE_WITHOUT_RESULT,
        ),
    )
    example = Example(
        before=[
            ex.user("weather?"),
            {
                "role": "assistant",
                "content": [ex.call("call_1"), {"type": "text", "text": "Checking the weather."}],
            },
            {"role": "tool", "content": [ex.result("call_1")]},
        ],
        after=[
            ex.user("weather?"),
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "Checking the weather."}, ex.call("call_1")],
            },
            {"role": "tool", "content": [ex.result("call_1")]},
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


class AnthropicTrailingWhitespace(_AnthropicRule):
    """The last text of a final assistant message ends with whitespace.

    A final assistant message is a prefill, and Anthropic rejects trailing whitespace in it.
    (The AI SDK anthropic adapter trims it too; other clients do not.)
    """

    id = "anthropic-trailing-whitespace"
    needs = frozenset({"final_assistant"})
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
            pattern=err.ANTHROPIC_TRAILING_WHITESPACE,
        ),
    )
    example = Example(
        before=[ex.user("Write a haiku"), {"role": "assistant", "content": "Autumn moonlight \n"}],
        after=[ex.user("Write a haiku"), {"role": "assistant", "content": "Autumn moonlight"}],
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
            new_message = replaced(message, {"content": text.rstrip()})
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
            edit = SetPart(last, part_index, replaced(part, {"text": text.rstrip()}))
        yield Finding(
            Action.REPLACE,
            last,
            part_index,
            "final assistant text ends with whitespace; trimmed",
            edits=(edit,),
            removed={"text": text},
            added={"text": text.rstrip()},
        )


class AnthropicToolLoopThinking(_AnthropicRule):
    """An unfinished tool loop whose assistant message does not start with signed thinking,
    in a history that uses thinking.

    With thinking enabled, the assistant message that opened the current tool loop (the history
    ends with its tool results) must start with its signed thinking block. When that block was
    lost (vercel/ai#11602: signatures missing from multi-step responses; then dropped as
    unsigned), no edit can restore it: heal never fabricates a signature. heal cannot see the
    request's thinking setting, so it reports this only when other signed thinking in the
    history shows that thinking is in use, and only when no assistant message of the loop
    starts with signed thinking (the error's "final assistant message" reads either way).

    The request's thinking setting decides (:class:`heal.targets.Target`): ``thinking=False``,
    the rule does not run (Anthropic requires nothing then); ``thinking=True``, it reports, which
    fails validation. Unknown (``thinking=None``): with no model either, it reports as well (the
    conservative default, from before heal knew targets); with a model given, it reports only
    when that model always thinks (Opus 5.5, which cannot turn thinking off), and otherwise
    records a ``keep`` note that does not fail validation: a history a provider produced with
    thinking off for its last request is valid, and a CI check must not fail it on a guess.
    """

    id = "anthropic-tool-loop-thinking"
    triggers = frozenset({"reasoning"})
    needs = frozenset({"tool_loop_reasoning"})  # what check() looks for first
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
        Rejection(
            "anthropic",
            _TOOL_LOOP_ERROR,
            "vercel/ai#11602; vercel/ai#8865 (found `text`)",
            pattern=err.ANTHROPIC_EXPECTED_THINKING_FIRST,
        ),
        Rejection(
            "anthropic (Bedrock Converse)",
            "ValidationException: messages.X.content.0.type: Expected `thinking` or "
            "`redacted_thinking`, but found `text`",
            "langchain-ai/langchain-aws#844; NousResearch/hermes-agent#36260",
            pattern=err.ANTHROPIC_EXPECTED_THINKING_FIRST,
        ),
    )
    example = Example(
        before=[
            ex.user("Weather in Paris?"),
            {"role": "assistant", "content": [ex.thinking("Call the tool."), ex.call("toolu_01")]},
            {"role": "tool", "content": [ex.result("toolu_01")]},
            {"role": "assistant", "content": "It is sunny."},
            ex.user("And in Rome? Use the tool."),
            {
                "role": "assistant",
                "content": [{"type": "reasoning", "text": "Call it again."}, ex.call("toolu_02")],
            },
            {"role": "tool", "content": [ex.result("toolu_02")]},
        ],
        after=[
            ex.user("Weather in Paris?"),
            {"role": "assistant", "content": [ex.thinking("Call the tool."), ex.call("toolu_01")]},
            {"role": "tool", "content": [ex.result("toolu_01")]},
            {"role": "assistant", "content": "It is sunny."},
            ex.user("And in Rome? Use the tool."),
            {"role": "assistant", "content": [ex.call("toolu_02")]},
            {"role": "tool", "content": [ex.result("toolu_02")]},
        ],
        provider=ANTHROPIC,
    )

    def enabled_for(self, target: Target) -> bool | None:
        return False if target.thinking is False else None

    @staticmethod
    def _thinking_known(target: Target) -> bool:
        """Whether the request thinks for sure, or heal keeps today's default (no model)."""
        if target.thinking is not None:
            return target.thinking
        return target.model is None or target.facts.thinking == "always"

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
        if self._thinking_known(ctx.target):
            yield Finding(
                Action.REPORT,
                turn[0],
                None,
                "thinking is in use (signed thinking elsewhere in the history), but the "
                f"assistant message that opened the unfinished tool loop starts with {found}, "
                "not signed thinking, and Anthropic rejects that; heal cannot restore a "
                "signature: disable thinking for this request, restore the signed reasoning "
                "from storage, or end the tool loop with a user message",
            )
            return
        yield Finding(
            Action.KEEP,
            turn[0],
            None,
            f"the assistant message that opened the unfinished tool loop starts with {found}, "
            "not signed thinking: Anthropic rejects that if this request enables thinking "
            "(say thinking=True or thinking=False to settle it); kept",
        )

    @staticmethod
    def _first(content: Any) -> Any:
        return content[0] if not isinstance(content, str) and content else None


class AnthropicAssistantPrefill(_AnthropicRule):
    """A final assistant message of only text or reasoning: a prefill.

    Newer Claude models (claude-sonnet-4-6, claude-opus-4-6 and later, Sonnet 5) reject prefill;
    the ``*-4-5`` models accept it. The target's model decides (its ``prefill`` fact in
    :mod:`heal.targets`): on for a model that rejects prefill, off for one that takes it. With
    no model (or one heal has no fact for) the rule is off by default: enable it for models
    that reject prefill. A final assistant message with tool calls is not a
    prefill (its calls need results; see ``orphan-tool-call``). The message is removed whole,
    which re-encodes none of its thinking blocks.
    """

    id = "anthropic-assistant-prefill"
    needs = frozenset({"final_assistant"})
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
            pattern=err.ANTHROPIC_PREFILL,
        ),
        Rejection(
            "anthropic",
            "Your API request included an `assistant` message in the final position, which "
            "would pre-fill the `assistant` response. When using tools, pre-filling the "
            "`assistant` response is not supported.",
            "vercel/ai#4283",
            pattern=err.ANTHROPIC_PREFILL,
        ),
    )
    example = Example(
        before=[ex.user("Name a color"), {"role": "assistant", "content": "Blue"}],
        after=[ex.user("Name a color")],
        provider=ANTHROPIC,
    )

    def enabled_for(self, target: Target) -> bool | None:
        takes = target.facts.prefill
        return None if takes is None else not takes

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
