"""Where thinking sits in an assistant message, for Anthropic and Bedrock (Claude applies the
same layout rules on both): it must start the message and must not end the final one.

The families here, each declared once per provider:

* :class:`ReasoningOnlyMessage` (``anthropic-reasoning-only-message``,
  ``bedrock-reasoning-only-message``): a message of reasoning alone.
* :class:`ReasoningNotFirst` (``anthropic-reasoning-not-first``,
  ``bedrock-reasoning-not-first``): text or tool calls before the reasoning.
* :class:`TrailingReasoning` (``anthropic-trailing-reasoning``, ``bedrock-trailing-reasoning``):
  the final message ends with reasoning.

A message in a layout the provider rejects is fixed even when it is the protected one (the
latest message of signed thinking, :mod:`heal.rules.reasoning`): see :data:`OVER_PROTECTION`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from heal.messages import ReasoningPart
from heal.repairs import Action, Scope
from heal.rules import _errors as err
from heal.rules import _examples as ex
from heal.rules._base import (
    AddPart,
    Context,
    DropMessage,
    DropPart,
    Example,
    FamilyRule,
    Finding,
    Rejection,
)
from heal.rules._sendable import nothing_else
from heal.rules.reasoning import (
    ANTHROPIC_SIGNING,
    BEDROCK_SIGNING,
    Signing,
    reasoning_only,
    signed_guard,
)

__all__ = [
    "ANTHROPIC_REASONING_NOT_FIRST",
    "ANTHROPIC_REASONING_ONLY_MESSAGE",
    "ANTHROPIC_TRAILING_REASONING",
    "BEDROCK_REASONING_NOT_FIRST",
    "BEDROCK_REASONING_ONLY_MESSAGE",
    "BEDROCK_TRAILING_REASONING",
    "OVER_PROTECTION",
    "Placement",
    "ReasoningNotFirst",
    "ReasoningOnlyMessage",
    "TrailingReasoning",
]


# --- where thinking sits in an assistant message ---------------------------------------------


@dataclass(frozen=True, slots=True)
class Placement:
    """A provider's facts for the placement families (:class:`ReasoningOnlyMessage`,
    :class:`ReasoningNotFirst`, :class:`TrailingReasoning`)."""

    signing: Signing
    """Whose latest signed thinking the provider binds (the message these rules protect from
    other rules, and fix themselves when its layout is rejected: see :data:`OVER_PROTECTION`)."""
    target: str
    """The provider's name in findings ("Anthropic")."""


OVER_PROTECTION = (
    "The latest message with signed thinking is fixed too, although the other rules leave it "
    "alone. Two of the provider's constraints meet there: its thinking blocks must go back "
    "unmodified, and a message in this layout is rejected whatever is done to it. Keeping it "
    "makes the rejection certain, so heal fixes it: every block goes out byte-identical, and "
    "only its place in the message changes. (The provider writes thinking first in every "
    "response, so thinking found after text was moved there after the fact, and moving it "
    "first restores the order the provider sent.)"
)
"""Why the placement rules edit the protected message (each instance's documentation says so)."""


class ReasoningOnlyMessage(FamilyRule[Placement]):
    """An assistant message of reasoning alone: removed from the request; kept and reported
    when it is the last message with anything to send."""

    triggers = frozenset({"reasoning"})
    needs = frozenset({"reasoning_only_message"})
    scope = Scope.REQUEST
    choices = ("drop",)
    choice_docs = {
        "drop": "Remove the message from this request. Its reasoning is lost for the request; "
        "the message is kept in the repair record. When no other message has anything to "
        "send, it is kept and reported instead: healing must not leave nothing to send.",
    }

    def protects(self, ctx: Context) -> tuple[int, ...]:
        return signed_guard(ctx, self.facts.signing)

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        if not ctx.index.reasoning:
            return
        messages = ctx.messages
        protected = ctx.protected
        found = sorted(
            {
                m
                for m, _, _ in ctx.index.reasoning
                if m not in protected and reasoning_only(messages[m])
            }
        )
        if not found:
            return
        # Removing them all would leave nothing to send: the last one stays, reported.
        last = found[-1] if nothing_else(ctx, frozenset(found)) else None
        for m in found:
            if m == last:
                yield Finding(
                    Action.REPORT,
                    m,
                    None,
                    f"assistant message holds only reasoning, which {self.facts.target} "
                    "rejects, and no other message has anything to send: removing it would "
                    "leave nothing; kept (add a user message, or do not send this history)",
                )
                continue
            yield Finding(
                Action.REMOVE,
                m,
                None,
                "assistant message holds only reasoning; removed from the request",
                edits=(DropMessage(m),),
                removed=messages[m],
            )


class ReasoningNotFirst(FamilyRule[Placement]):
    """An assistant message that holds reasoning but does not start with it: its reasoning
    parts move to the front."""

    triggers = frozenset({"reasoning"})
    needs = frozenset({"reasoning_not_first"})
    edits_protected = True  # rejected in this layout either way (OVER_PROTECTION)
    choices = ("move",)
    choice_docs = {
        "move": "Move the reasoning parts to the front of the message, keeping their relative "
        "order and the order of the other parts, in the latest message with signed thinking "
        "too (its blocks unchanged). Loses nothing.",
    }

    def protects(self, ctx: Context) -> tuple[int, ...]:
        return signed_guard(ctx, self.facts.signing)

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
            note = _protected_note(ctx, m, self.facts.target)
            for p in range(1, len(content)):
                part = content[p]
                if not isinstance(part, ReasoningPart):
                    continue
                yield Finding(
                    Action.MOVE,
                    m,
                    p,
                    "reasoning part comes after other parts; moved to the front of the message"
                    + note,
                    edits=(DropPart(m, p), AddPart(m, 0, part)),
                    anchor=m,
                )


class TrailingReasoning(FamilyRule[Placement]):
    """The final message of the history, an assistant message with other parts, ends with
    reasoning: the trailing reasoning moves in front of its last other part."""

    triggers = frozenset({"reasoning"})
    needs = frozenset({"trailing_reasoning"})
    scope = Scope.REQUEST
    edits_protected = True  # rejected in this layout either way (OVER_PROTECTION)
    choices = ("move",)
    choice_docs = {
        "move": "Move the reasoning parts at the end of the final message, in order, in front "
        "of its last part that is not reasoning (in the latest message with signed thinking "
        "too, its blocks unchanged), for this request only. Loses nothing.",
    }

    def protects(self, ctx: Context) -> tuple[int, ...]:
        return signed_guard(ctx, self.facts.signing)

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        messages = ctx.messages
        if not ctx.index.reasoning or not messages:
            return
        last = len(messages) - 1
        content = messages[last].content
        if ctx.index.roles[last] != "assistant" or isinstance(content, str) or not content:
            return
        if not isinstance(content[-1], ReasoningPart):
            return
        # The last part that is not reasoning; none: reasoning alone, ReasoningOnlyMessage's.
        others = [p for p, part in enumerate(content) if not isinstance(part, ReasoningPart)]
        if not others:
            return
        before = others[-1]
        note = _protected_note(ctx, last, self.facts.target)
        for p in range(before + 1, len(content)):
            yield Finding(
                Action.MOVE,
                last,
                p,
                f"the final assistant message ends with reasoning, which {self.facts.target} "
                "rejects; moved in front of its last other part" + note,
                edits=(DropPart(last, p), AddPart(last, before, content[p])),
                anchor=last,
            )


def _protected_note(ctx: Context, m: int, target: str) -> str:
    if m not in ctx.protected:
        return ""
    return (
        f" (in the latest message with signed thinking, which {target} rejects in this layout "
        "either way; its blocks are unchanged, only their place)"
    )


def _bedrock_thinking(text: str) -> dict[str, Any]:
    """A reasoning part with a Bedrock signature (for the examples)."""
    return {
        "type": "reasoning",
        "text": text,
        "providerOptions": {"bedrock": {"signature": "EqQBCkYIBxgC"}},
    }


_ONLY_LAST = """

    When no other message has anything to send (the message alone, or beside a system prompt,
    blank messages or heal's own placeholder), removing it would leave a request without
    messages, which every provider rejects too (``empty-history``). A caller then expects the
    history back with the reason it cannot be sent, not an empty list that looks healed: the
    message is kept and reported, which fails validation. No edit makes it sendable: reasoning
    is never turned into text, and a placeholder turn in its place would ask the model to answer
    words nobody said.
    """

ANTHROPIC_REASONING_ONLY_MESSAGE = ReasoningOnlyMessage(
    id="anthropic-reasoning-only-message",
    doc="""An assistant message that holds reasoning and nothing else.

    It comes from pruning (vercel/ai#13430: ``pruneMessages`` removed the tool calls and left
    their reasoning) or from the reasoning drops before it. Anthropic rejects it in final
    position; in the middle it has nothing to answer and is removed too (vercel/ai PRs #13435,
    #13901). It is never the protected message (:func:`latest_signed` skips it), and it is
    removed whole, which re-encodes none of its blocks."""
    + _ONLY_LAST,
    summary="assistant message holds only reasoning parts",
    providers=frozenset({"anthropic"}),
    rejections=(
        Rejection(
            "anthropic",
            "messages.1: The final block in an assistant message cannot be `thinking`.",
            "tailcallhq/forgecode#2107; router-for-me/CLIProxyAPI#5321; vercel/ai#13430",
            pattern=err.ANTHROPIC_FINAL_BLOCK_THINKING,
        ),
        Rejection(
            "anthropic",
            "all messages must have non-empty content except for the optional final assistant "
            "message",
            "CoreInfraAI/opencode-plugin PR#6 (a reasoning-only turn sent as content: [])",
            pattern=err.ANTHROPIC_EMPTY_MESSAGE,
        ),
    ),
    example=Example(
        before=[
            ex.user("what's broken?"),
            {"role": "assistant", "content": [ex.thinking("Let me check for errors...", "abc")]},
            ex.user("anything?"),
        ],
        after=[ex.user("what's broken?"), ex.user("anything?")],
        provider="anthropic",
    ),
    facts=Placement(ANTHROPIC_SIGNING, "Anthropic"),
)

BEDROCK_REASONING_ONLY_MESSAGE = ReasoningOnlyMessage(
    id="bedrock-reasoning-only-message",
    doc="""An assistant message that holds reasoning and nothing else, sent to Bedrock.

    Converse rejects such a turn with newer Claude models as a prefill, even with a user turn
    after it (NousResearch/hermes-agent#105780: Sonnet 5 and Fable 5.1; Sonnet 4.6 tolerated
    it), and Claude rejects a final thinking block on any model (Anthropic's validation, which
    Claude on Bedrock applies). It comes from pruning, or from ``bedrock-unsigned-reasoning``
    dropping the rest of the message. It runs after ``bedrock-role-alternation``, so a
    reasoning-only message right after another assistant message joins that one instead (its
    reasoning kept); any other is removed whole, which re-encodes none of its blocks, as on
    Anthropic (``anthropic-reasoning-only-message``)."""
    + _ONLY_LAST,
    summary="assistant message holds only reasoning parts",
    providers=frozenset({"bedrock"}),
    rejections=(
        Rejection(
            "bedrock (Claude Sonnet 5, Fable 5.1)",
            "ValidationException: This model does not support assistant message prefill. The "
            "conversation must end with a user message.",
            "NousResearch/hermes-agent#105780, PR#105798 (a reasoning-only assistant turn, "
            "even with a user turn after it)",
            pattern=err.ANTHROPIC_PREFILL,
        ),
    ),
    example=Example(
        before=[
            ex.user("what's broken?"),
            {"role": "assistant", "content": [_bedrock_thinking("Check the logs."), ex.text("A.")]},
            ex.user("anything else?"),
            {"role": "assistant", "content": [_bedrock_thinking("Let me check...")]},
        ],
        after=[
            ex.user("what's broken?"),
            {"role": "assistant", "content": [_bedrock_thinking("Check the logs."), ex.text("A.")]},
            ex.user("anything else?"),
        ],
        provider="bedrock",
    ),
    facts=Placement(BEDROCK_SIGNING, "Bedrock"),
)

ANTHROPIC_REASONING_NOT_FIRST = ReasoningNotFirst(
    id="anthropic-reasoning-not-first",
    doc="""An assistant message that holds reasoning but does not start with it.

    Anthropic wants a message with thinking blocks to start with one (the rejection below; the
    wave of reports in anthropics/claude-code#20705 was a client writing text before thinking,
    and Vertex answered the same before it, lbjlaq/Antigravity-Manager#690). The shape appears
    when assistant messages are merged or parts are appended in storage. The reasoning parts
    move to the front, keeping their order. A message that already starts with reasoning is
    left alone, interleaved thinking included: what Anthropic wrote never changes.

    """
    + OVER_PROTECTION,
    summary="assistant message holds reasoning but does not start with it",
    providers=frozenset({"anthropic"}),
    rejections=(
        Rejection(
            "anthropic",
            "messages.51.content.0: If an assistant message contains any thinking blocks, the "
            "first block must be thinking or redacted_thinking. Found text.",
            "anthropics/claude-code#20705, #20691",
            pattern=err.ANTHROPIC_THINKING_NOT_FIRST,
        ),
    ),
    example=Example(
        before=[
            ex.user("hi"),
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "Hello."}, ex.thinking("Greet back.")],
            },
            ex.user("bye"),
            {
                "role": "assistant",
                "content": [ex.thinking("Done."), {"type": "text", "text": "Bye."}],
            },
            ex.user("?"),
        ],
        after=[
            ex.user("hi"),
            {
                "role": "assistant",
                "content": [ex.thinking("Greet back."), {"type": "text", "text": "Hello."}],
            },
            ex.user("bye"),
            {
                "role": "assistant",
                "content": [ex.thinking("Done."), {"type": "text", "text": "Bye."}],
            },
            ex.user("?"),
        ],
        provider="anthropic",
    ),
    facts=Placement(ANTHROPIC_SIGNING, "Anthropic"),
)

BEDROCK_REASONING_NOT_FIRST = ReasoningNotFirst(
    id="bedrock-reasoning-not-first",
    doc="""An assistant message that holds reasoning but does not start with it, sent to
    Bedrock.

    Claude on Converse wants a message with reasoning blocks to start with one (the rejection
    below: a session store that reloaded the blocks out of order, strands-agents/harness-sdk
    PR#1889; a converter that appended reasoning last, aws/bedrock-agentcore-sdk-python
    PR#419). heal's own ``bedrock-role-alternation`` makes the shape too, when it merges a
    text-only assistant message with the next one, which starts with thinking; this rule runs
    after it. The reasoning parts move to the front, keeping their order; a message that
    already starts with reasoning is left alone, interleaved thinking included.

    """
    + OVER_PROTECTION,
    summary="assistant message holds reasoning but does not start with it",
    providers=frozenset({"bedrock"}),
    rejections=(
        Rejection(
            "bedrock (Claude)",
            "ValidationException: If an assistant message contains any thinking blocks, the "
            "first block must be thinking. Found text",
            "aws/bedrock-agentcore-sdk-python PR#419 (issue #416); strands-agents/harness-sdk "
            "PR#1889 (issue #1698)",
            pattern=err.ANTHROPIC_THINKING_NOT_FIRST,
        ),
    ),
    example=Example(
        before=[
            ex.user("hi"),
            {"role": "assistant", "content": [ex.text("Let me check.")]},
            {
                "role": "assistant",
                "content": [_bedrock_thinking("Look it up."), ex.text("Found it.")],
            },
            ex.user("thanks"),
        ],
        after=[
            ex.user("hi"),
            {
                "role": "assistant",
                "content": [
                    _bedrock_thinking("Look it up."),
                    ex.text("Let me check."),
                    ex.text("Found it."),
                ],
            },
            ex.user("thanks"),
        ],
        provider="bedrock",
    ),
    facts=Placement(BEDROCK_SIGNING, "Bedrock"),
)

_TRAILING_WHY = """

    A thinking block ending an earlier message is accepted (the probes of
    router-for-me/CLIProxyAPI#5321: ``user, reasoning, user`` passes, ``user, reasoning`` does
    not), so only the final message is fixed and no accepted history changes. The trailing
    reasoning parts move in front of the message's last other part, the nearest place that is
    accepted (lossless; CLIProxyAPI PR#5322 drops them instead). A message of reasoning alone
    is the reasoning-only rule's.

    """

ANTHROPIC_TRAILING_REASONING = TrailingReasoning(
    id="anthropic-trailing-reasoning",
    doc="""The final message of the history, an assistant message, ends with reasoning.

    Anthropic rejects a thinking block as the last block of the message in final position (the
    rejection below). The shape comes from storage that appends thinking after the text, and
    from removals: an empty message after it (``empty-message``) or a reasoning-only message
    after it (``anthropic-reasoning-only-message``) removed."""
    + _TRAILING_WHY
    + OVER_PROTECTION,
    summary="final assistant message ends with reasoning",
    providers=frozenset({"anthropic"}),
    rejections=(
        Rejection(
            "anthropic",
            "messages.N: The final block in an assistant message cannot be `thinking`.",
            "router-for-me/CLIProxyAPI#5321, PR#5322 (user, assistant, reasoning: 400 on "
            "opus-5); tailcallhq/forgecode#2107, PR#3073",
            pattern=err.ANTHROPIC_FINAL_BLOCK_THINKING,
        ),
    ),
    example=Example(
        before=[
            ex.user("hi"),
            {
                "role": "assistant",
                "content": [ex.thinking("Greet."), ex.text("Hello."), ex.thinking("Ask more.")],
            },
        ],
        after=[
            ex.user("hi"),
            {
                "role": "assistant",
                "content": [ex.thinking("Greet."), ex.thinking("Ask more."), ex.text("Hello.")],
            },
        ],
        provider="anthropic",
    ),
    facts=Placement(ANTHROPIC_SIGNING, "Anthropic"),
)

BEDROCK_TRAILING_REASONING = TrailingReasoning(
    id="bedrock-trailing-reasoning",
    doc="""The final message of the history, an assistant message, ends with reasoning, sent to
    Bedrock.

    Claude on Converse applies Anthropic's validation (provider-rules.md §1: Claude on Bedrock
    returns the same validation messages), which rejects a thinking block as the last block of
    the message in final position; no Bedrock-worded text of it is on record, so the rejection
    below is Anthropic's. On Bedrock heal makes the shape itself: ``bedrock-role-alternation``
    joins a reasoning-only message to the one before it, and
    ``bedrock-blank-text-beside-signed-thinking`` removes a blank text after the last thinking
    block; this rule runs after both."""
    + _TRAILING_WHY
    + OVER_PROTECTION,
    summary="final assistant message ends with reasoning",
    providers=frozenset({"bedrock"}),
    rejections=(
        Rejection(
            "bedrock (Claude; Anthropic's validation)",
            "messages.1: The final block in an assistant message cannot be `thinking`.",
            "router-for-me/CLIProxyAPI#5321 (Anthropic's text); provider-rules.md §1 (Claude on "
            "Bedrock returns Anthropic's validation messages)",
            pattern=err.ANTHROPIC_FINAL_BLOCK_THINKING,
        ),
    ),
    example=Example(
        before=[
            ex.user("hi"),
            {
                "role": "assistant",
                "content": [
                    _bedrock_thinking("Greet."),
                    ex.text("Hello."),
                    _bedrock_thinking("Ask more."),
                    ex.text(" "),
                ],
            },
        ],
        after=[
            ex.user("hi"),
            {
                "role": "assistant",
                "content": [
                    _bedrock_thinking("Greet."),
                    _bedrock_thinking("Ask more."),
                    ex.text("Hello."),
                ],
            },
        ],
        provider="bedrock",
    ),
    facts=Placement(BEDROCK_SIGNING, "Bedrock"),
)
