"""Consecutive messages of one role that a provider wants as one turn, and how they merge.

:class:`SameRoleRun` is declared once per provider (``bedrock-role-alternation`` for user and
assistant runs, ``google-split-tool-results`` for tool runs, ``anthropic-split-thinking-turn``
for the assistant runs Anthropic rejects once it has joined them). :func:`runs` and
:func:`merge_run` also serve ``google-function-call-turn`` (:mod:`heal.rules.google`), which
merges a model turn split before its function calls.

:func:`lead_with_user` is the one fix for a history whose head was cut off (it starts with an
assistant message, often mid tool loop), shared by ``bedrock-first-message``
(:mod:`heal.rules.bedrock`) and ``google-function-call-turn``. Each provider keeps its own rule,
because each already had one that detects the head its own way (Bedrock: any non-user first
message; Gemini: a function-call turn with no user turn before it, which the same rule also
merges); only the fix, and its two choices, are shared.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from heal._construct import replaced
from heal.messages import ModelMessage, ReasoningPart, TextPart, UserMessage
from heal.repairs import Action, Scope
from heal.rules import _errors as err
from heal.rules import _examples as ex
from heal.rules._base import (
    AddMessage,
    AddPart,
    Context,
    DropMessage,
    DropPart,
    Edit,
    Example,
    FamilyRule,
    Finding,
    Rejection,
    SetMessage,
)
from heal.rules._options import SYNTHESIZED
from heal.rules.reasoning import ANTHROPIC_SIGNING, BEDROCK_SIGNING, Signing, signed_guard

__all__ = [
    "ANTHROPIC_SPLIT_THINKING_TURN",
    "BEDROCK_ROLE_ALTERNATION",
    "GOOGLE_SPLIT_TOOL_RESULTS",
    "LEAD_CHOICE_DOCS",
    "PLACEHOLDER_USER_TEXT",
    "SameRoleRun",
    "as_parts",
    "blank",
    "lead_with_user",
    "merge_run",
    "runs",
]


PLACEHOLDER_USER_TEXT = "(continued)"
"""The text of the user turn :func:`lead_with_user` puts in front of a history under
``placeholder-user``."""

LEAD_CHOICE_DOCS = {
    "placeholder-user": f"Insert a user message {PLACEHOLDER_USER_TEXT!r} in front of the "
    'first turn, for this request only, marked with providerOptions {"heal": {"synthesized": '
    "true}}. Loses nothing, and works when no user message is left at all; the model sees one "
    "turn the user never wrote.",
    "drop": "Remove the messages before the first user message from this request (when there "
    "is no user message at all, report instead: nothing would be left). The model no longer "
    "sees them (the calls it made, their results, what it said); the repair records keep them.",
}
"""What the two fixes of a cut-off head do and may lose, for the rules that offer them."""


def lead_with_user(ctx: Context, first: int, choice: str, why: str) -> Iterator[Finding]:
    """Findings that give a history whose first turn (message ``first``, after the system
    messages) is not a user turn one: a placeholder user message in front under
    ``placeholder-user``, else the removal of everything before the first user message."""
    roles = ctx.index.roles
    if choice == "placeholder-user":
        user = UserMessage(
            content=(TextPart(text=PLACEHOLDER_USER_TEXT, provider_options=SYNTHESIZED),)
        )
        yield Finding(
            Action.INSERT,
            None,
            None,
            f"{why}; inserted a placeholder user message in front",
            edits=(AddMessage(first - 1, user),),
            added=user,
            anchor=first - 1 if first > 0 else None,
        )
        return
    user_at = next((i for i in range(first, len(roles)) if roles[i] == "user"), None)
    if user_at is None:
        yield Finding(
            Action.REPORT,
            first,
            None,
            f"{why}, and there is no user message to start from; choose placeholder-user, or "
            "add a user message",
        )
        return
    for i in range(first, user_at):
        if roles[i] == "system":
            continue
        yield Finding(
            Action.REMOVE,
            i,
            None,
            f"{roles[i]} message before the first user message; removed from the request",
            edits=(DropMessage(i),),
            removed=ctx.messages[i],
        )


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


def runs(ctx: Context, roles: Collection[str], *, protected_too: bool = False) -> Iterator[range]:
    """Runs of two or more consecutive messages of the same role (one of ``roles``), leaving
    out runs with a blank message (``empty-message`` removes it first) or, unless
    ``protected_too``, a protected one."""
    kinds = ctx.index.roles
    messages = ctx.messages
    protected = frozenset() if protected_too else ctx.protected
    i, n = 0, len(kinds)
    while i < n:
        j = i + 1
        if kinds[i] in roles:
            while j < n and kinds[j] == kinds[i]:
                j += 1
        if j - i > 1 and not any(k in protected or blank(messages[k]) for k in range(i, j)):
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
            edits.append(SetMessage(target_index, replaced(target, update)))
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


@dataclass(frozen=True, slots=True)
class Run:
    """A provider's facts for :class:`SameRoleRun`."""

    roles: tuple[str, ...]
    """The roles whose runs the provider wants as one message."""
    why: str
    """Why, in findings."""
    signing: Signing | None = None
    """Whose latest signed thinking no edit may touch (None: the provider signs nothing)."""
    protected_too: bool = False
    """Whether a run holding that message is merged too: the provider rejects the run whatever
    it holds, and its clients merge it on the wire anyway (Bedrock)."""
    only: Callable[[Context, range], bool] | None = None
    """Which runs to merge (None: every run): for a provider that accepts runs, only those it
    rejects once joined."""


class SameRoleRun(FamilyRule[Run]):
    """Consecutive messages of one role that the provider wants as one: merged into the first."""

    needs = frozenset({"same_role_runs"})
    scope = Scope.REQUEST
    choices = ("merge",)
    # Only an instance whose facts say ``protected_too`` merges a protected message; the others
    # leave its runs alone (``runs``).
    edits_protected = True

    def protects(self, ctx: Context) -> tuple[int, ...]:
        return signed_guard(ctx, self.facts.signing)

    @property
    def may_protect(self) -> bool:
        return self.facts.signing is not None  # a provider that signs nothing: no guard

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        facts = self.facts
        for run in runs(ctx, facts.roles, protected_too=facts.protected_too):
            if facts.only is None or facts.only(ctx, run):
                yield from merge_run(ctx, run, facts.why)


BEDROCK_ROLE_ALTERNATION = SameRoleRun(
    id="bedrock-role-alternation",
    doc="""Two user messages, or two assistant messages, in a row.

    Converse requires user and assistant turns to alternate. The AI SDK bedrock adapter merges
    such runs itself (and puts tool messages into the user turn); other Converse clients send
    them as they are. Tool messages are not merged here: the canonical model keeps results in
    tool messages, and every client puts them into the user turn it sends.

    A run that holds the latest message with signed thinking is merged too, although no other
    rule edits that message: Converse rejects the run whatever it holds, and the AI SDK merges
    it on the wire anyway, so keeping it apart only makes the request fail for other clients.
    The signed blocks are unchanged. A merged message can start with text and then hold
    thinking, or end with thinking: ``bedrock-reasoning-not-first`` and
    ``bedrock-trailing-reasoning`` run after this rule and put its blocks in order.
    """,
    summary="two user messages or two assistant messages in a row",
    providers=frozenset({"bedrock"}),
    choice_docs={
        "merge": "Move the parts of each later message of the run, in order, to the end of the "
        "first one, and remove the emptied messages (string content becomes a text part), "
        "runs that include the latest message with signed thinking too (its blocks "
        "unchanged). Loses nothing but message boundaries; message-level provider options of "
        "a removed message go to the first one when it has none, else into the repair record.",
    },
    rejections=(
        Rejection(
            "bedrock",
            "A conversation must alternate between user and assistant roles. Make sure the "
            "conversation alternates between user and assistant roles and try again.",
            "microsoft/semantic-kernel#10277, #10281; Portkey-AI/gateway#748; "
            "langchain-ai/langchain-aws#130",
            pattern=err.BEDROCK_ROLE_ALTERNATION,
        ),
    ),
    example=Example(
        before=[
            ex.user("hi"),
            ex.user("are you there?"),
            {"role": "assistant", "content": "Yes."},
        ],
        after=[
            {"role": "user", "content": [ex.text("hi"), ex.text("are you there?")]},
            {"role": "assistant", "content": "Yes."},
        ],
        provider="bedrock",
    ),
    facts=Run(
        ("user", "assistant"),
        "Bedrock requires alternating roles",
        BEDROCK_SIGNING,
        protected_too=True,
    ),
)

GOOGLE_SPLIT_TOOL_RESULTS = SameRoleRun(
    id="google-split-tool-results",
    doc="""Function responses to one model turn split across several tool messages.

    Gemini wants all the responses to a function-call turn in the one turn right after it, and
    a client that maps each tool message to a turn splits them. (ai core 6 merges consecutive
    tool messages before the google adapter sees them; other clients do not.)
    """,
    summary="results of one assistant message are split across consecutive tool messages",
    providers=frozenset({"google"}),
    choice_docs={
        "merge": "Move the parts of each later tool message, in order, into the first one and "
        "remove the emptied messages. Loses nothing but message boundaries.",
    },
    rejections=(
        Rejection(
            "google",
            "Please ensure that the number of function response parts is equal to the number "
            "of function call parts of the function call turn.",
            "google-gemini/gemini-cli#4217, #5443, #16415; AstrBotDevs/AstrBot#5416",
            pattern=err.GOOGLE_FUNCTION_RESPONSE_COUNT,
        ),
        Rejection(
            "google",
            "Please ensure that function response turn comes immediately after a function call "
            "turn.",
            "langchain-ai/langchain#27799",
            pattern=err.GOOGLE_FUNCTION_RESPONSE_TURN_ORDER,
        ),
    ),
    example=Example(
        before=[
            ex.user("weather in Paris and Rome?"),
            {"role": "assistant", "content": [ex.call("c1"), ex.call("c2")]},
            {"role": "tool", "content": [ex.result("c1")]},
            {"role": "tool", "content": [ex.result("c2", value="rain")]},
            {"role": "assistant", "content": "Sunny in Paris, rain in Rome."},
            ex.user("thanks"),
        ],
        after=[
            ex.user("weather in Paris and Rome?"),
            {"role": "assistant", "content": [ex.call("c1"), ex.call("c2")]},
            {"role": "tool", "content": [ex.result("c1"), ex.result("c2", value="rain")]},
            {"role": "assistant", "content": "Sunny in Paris, rain in Rome."},
            ex.user("thanks"),
        ],
        provider="google",
    ),
    facts=Run(("tool",), "Gemini wants one function-response turn"),
)


def _thinking_after_text(ctx: Context, run: range) -> bool:
    """Whether a run of assistant messages, joined, holds thinking but does not start with it:
    its first message has no reasoning (a message that has some is
    ``anthropic-reasoning-not-first``'s), and a later one has."""
    messages = ctx.messages
    first = messages[run[0]].content
    if not isinstance(first, str) and any(isinstance(part, ReasoningPart) for part in first):
        return False
    return any(
        not isinstance(content, str) and any(isinstance(part, ReasoningPart) for part in content)
        for content in (messages[k].content for k in run[1:])
    )


ANTHROPIC_SPLIT_THINKING_TURN = SameRoleRun(
    id="anthropic-split-thinking-turn",
    doc="""Assistant messages in a row whose first holds no thinking and a later one does.

    Anthropic takes consecutive assistant messages as one turn: the AI SDK anthropic adapter
    joins them into one message before sending (observed with the interop judge,
    ``tests/interop``), and the API merges consecutive same-role messages itself. Joined, such a
    run holds thinking after text (``[text]`` then ``[thinking, text]`` is ``[text, thinking,
    text]``), and a message with thinking must start with it (the rejection below). Storage
    that keeps each step of a turn apart makes the shape. The run is merged into its first
    message here, as it goes out anyway, and ``anthropic-reasoning-not-first``, which runs next,
    moves the thinking to the front. A run that is accepted joined (no thinking, or thinking
    first) is left as it is.

    A run that holds the latest message with signed thinking is merged too: it goes out joined,
    and rejected, whatever heal does; the signed blocks are unchanged.
    """,
    summary="assistant messages in a row, sent as one, with thinking only after the first",
    providers=frozenset({"anthropic"}),
    choice_docs={
        "merge": "Move the parts of each later message of the run, in order, to the end of the "
        "first one (as the AI SDK and the API join them), and remove the emptied messages "
        "(string content becomes a text part), runs that include the latest message with "
        "signed thinking too (its blocks unchanged); the thinking then moves to the front "
        "(``anthropic-reasoning-not-first``). Loses nothing but message boundaries that are "
        "not sent anyway; message-level provider options of a removed message go to the first "
        "one when it has none, else into the repair record.",
    },
    rejections=(
        Rejection(
            "anthropic",
            "messages.5.content.0: If an assistant message contains any thinking blocks, the "
            "first block must be `thinking` or `redacted_thinking`. Found `text`.",
            "anthropics/claude-code#20691 (wording of 2026-01); @ai-sdk/anthropic 3.x joins "
            "consecutive assistant messages (groupIntoBlocks), observed with the interop judge",
            pattern=err.ANTHROPIC_THINKING_NOT_FIRST,
        ),
    ),
    example=Example(
        before=[
            ex.user("hi"),
            {"role": "assistant", "content": "Let me check."},
            {
                "role": "assistant",
                "content": [ex.thinking("Look it up."), ex.text("Found it.")],
            },
            ex.user("thanks"),
        ],
        after=[
            ex.user("hi"),
            {
                "role": "assistant",
                "content": [
                    ex.thinking("Look it up."),
                    ex.text("Let me check."),
                    ex.text("Found it."),
                ],
            },
            ex.user("thanks"),
        ],
        provider="anthropic",
    ),
    facts=Run(
        ("assistant",),
        "Anthropic joins them into one turn, which would hold thinking after text",
        ANTHROPIC_SIGNING,
        protected_too=True,
        only=_thinking_after_text,
    ),
)
