"""System messages after the start of the conversation (``*-mid-conversation-system``).

Anthropic, Gemini and Bedrock Converse take their instructions in one field for the whole
request, so a system message that follows user or assistant messages has no place on the wire.
One rule, :class:`MidConversationSystem`, declared once per provider: it turns the message into
user text wrapped in ``<system-reminder>`` tags, or moves it to the leading system messages.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from heal._construct import replaced
from heal.messages import SystemMessage, TextPart, UserMessage
from heal.repairs import Action, Scope
from heal.rules import _errors as err
from heal.rules import _examples as ex
from heal.rules._base import (
    AddMessage,
    Context,
    DropMessage,
    Example,
    FamilyRule,
    Finding,
    Rejection,
    SetMessage,
)
from heal.rules._options import namespaces
from heal.rules.reasoning import ANTHROPIC_SIGNING, BEDROCK_SIGNING, Signing, signed_guard

if TYPE_CHECKING:
    from heal.targets import Target

__all__ = [
    "ANTHROPIC_MID_CONVERSATION_SYSTEM",
    "BEDROCK_MID_CONVERSATION_SYSTEM",
    "GOOGLE_MID_CONVERSATION_SYSTEM",
    "SYSTEM_REMINDER",
    "MidConversationSystem",
]

SYSTEM_REMINDER = "<system-reminder>\n{}\n</system-reminder>"
"""How a system message becomes user text: wrapped so the model can tell it from the user."""


@dataclass(frozen=True, slots=True)
class System:
    """A provider's facts for :class:`MidConversationSystem`."""

    signing: Signing | None = None
    """Whose latest signed thinking no edit may touch (None: the provider signs nothing)."""
    features: tuple[str, ...] = ()
    """Provider-option keys (under ``features_namespace``) that make a system message a provider
    feature that needs its place: such a message is left alone."""
    features_namespace: str = ""
    by_model: bool = False
    """Whether it depends on the model (Anthropic: Opus 4.8 and later take a system message right
    after a user turn): then the target's ``mid_conversation_system`` fact decides (see
    :meth:`MidConversationSystem.enabled_for`)."""


class MidConversationSystem(FamilyRule[System]):
    """A system message after the start of the conversation."""

    needs = frozenset({"late_system"})
    scope = Scope.REQUEST
    choices = ("user-text", "hoist")
    choice_docs = {
        "user-text": "Turn it into a user message in the same place, its text wrapped in "
        "<system-reminder> tags (its provider options kept). Nothing is lost; the old message "
        "is kept in the repair record.",
        "hoist": "Move it, unchanged, to the end of the system messages at the start (changes "
        "when the instruction appears). Loses nothing.",
    }

    def protects(self, ctx: Context) -> tuple[int, ...]:
        return signed_guard(ctx, self.facts.signing)

    @property
    def may_protect(self) -> bool:
        return self.facts.signing is not None  # a provider that signs nothing: no guard

    def enabled_for(self, target: Target) -> bool | None:
        # A model that takes no mid-conversation system message: on. One that takes it after a
        # user turn: on too, for the ones placed elsewhere. Unknown: the rule's default.
        if not self.facts.by_model or target.facts.mid_conversation_system is None:
            return None
        return True

    def _taken_after_user(self, ctx: Context) -> bool:
        return self.facts.by_model and ctx.target.facts.mid_conversation_system is True

    def _feature(self, message: SystemMessage) -> bool:
        """Whether this system message carries a provider feature that needs it where it is."""
        options = namespaces(message).get(self.facts.features_namespace)
        return isinstance(options, dict) and any(
            options.get(key) is not None for key in self.facts.features
        )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        roles = ctx.index.roles
        lead = 0
        while lead < len(roles) and roles[lead] == "system":
            lead += 1
        if "system" not in roles[lead:]:
            return
        after_user = self._taken_after_user(ctx)
        for i in range(lead, len(roles)):
            if roles[i] != "system" or (after_user and roles[i - 1] == "user"):
                continue
            message = ctx.messages[i]
            assert isinstance(message, SystemMessage)
            if self.facts.features and self._feature(message):
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
                    user = replaced(user, {"provider_options": message.provider_options})
                yield Finding(
                    Action.REPLACE,
                    i,
                    None,
                    "system message after the start of the conversation; turned into user text",
                    edits=(SetMessage(i, user),),
                    removed=message,
                    added=user,
                )


def _reminder(content: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": SYSTEM_REMINDER.format(content)}]}


def _late_system(content: str, provider: str) -> Example:
    """A system message ``content`` after the first exchange becomes a reminder."""
    start = [{"role": "system", "content": "Be brief."}, ex.user("hi")]
    answer = {"role": "assistant", "content": "Hello."}
    return Example(
        before=[*start, answer, {"role": "system", "content": content}, ex.user("weather?")],
        after=[*start, answer, _reminder(content), ex.user("weather?")],
        provider=provider,
    )


ANTHROPIC_MID_CONVERSATION_SYSTEM = MidConversationSystem(
    id="anthropic-mid-conversation-system",
    doc="""A system message after the start of the conversation, sent to Anthropic.

    The AI SDK anthropic adapter sends it as a mid-conversation system message (a beta), which
    Claude Opus 4.8 and later accept right after a user turn; older models, and clients that put
    ``role: system`` into ``messages`` without the beta, are rejected. The target's model
    decides (its ``mid_conversation_system`` fact, :mod:`heal.targets`): for an older model
    every such message is converted; for Opus 4.8 and later only those that do not follow a
    user turn. With no model the rule is off by default (the message is kept); enable it for
    older models. System messages that carry Anthropic mid-conversation features
    (``toolChanges``, ``clearAt``, ``effort``) are always left alone.
    """,
    summary="system message after the start of the conversation (older Claude models)",
    providers=frozenset({"anthropic"}),
    default_enabled=False,
    rejections=(
        Rejection(
            "anthropic",
            'messages: Unexpected role "system". The Messages API accepts a top-level `system` '
            'parameter, not "system" as an input message role.',
            "ianarawjo/ChainForge#271; Maol-1997/cursor-claude-connector#3",
            pattern=err.ANTHROPIC_UNEXPECTED_SYSTEM_ROLE,
        ),
    ),
    example=_late_system("The user is on mobile.", "anthropic"),
    facts=System(
        signing=ANTHROPIC_SIGNING,
        features=("toolChanges", "clearAt", "effort"),
        features_namespace="anthropic",
        by_model=True,
    ),
)

GOOGLE_MID_CONVERSATION_SYSTEM = MidConversationSystem(
    id="google-mid-conversation-system",
    doc="""A system message after the start of the conversation, sent to Gemini.

    Gemini has one ``systemInstruction``; the AI SDK google adapter throws rather than send a
    system message that follows other messages.
    """,
    summary="system message after the start of the conversation",
    providers=frozenset({"google"}),
    rejections=(
        Rejection(
            "google (AI SDK, before any request)",
            "AI_UnsupportedFunctionalityError: 'system messages are only supported at the "
            "beginning of the conversation' functionality not supported.",
            "@ai-sdk/google 3.0.141 convertToGoogleGenerativeAIMessages (observed locally)",
            pattern=err.AI_SDK_GOOGLE_SYSTEM_NOT_FIRST,
        ),
    ),
    example=_late_system("Answer in French.", "google"),
    facts=System(),
)

BEDROCK_MID_CONVERSATION_SYSTEM = MidConversationSystem(
    id="bedrock-mid-conversation-system",
    doc="""A system message after the start of the conversation, sent to Bedrock Converse.

    Converse has one ``system`` field for the whole request; the AI SDK bedrock adapter throws
    rather than send a system message that follows user or assistant messages.
    """,
    summary="system message after the start of the conversation",
    providers=frozenset({"bedrock"}),
    rejections=(
        Rejection(
            "bedrock (AI SDK, before any request)",
            "AI_UnsupportedFunctionalityError: 'Multiple system messages that are separated by "
            "user/assistant messages' functionality not supported.",
            "@ai-sdk/amazon-bedrock 4.0.186 convertToBedrockChatMessages (observed locally)",
            pattern=err.AI_SDK_BEDROCK_SYSTEM_NOT_FIRST,
        ),
    ),
    example=Example(
        before=[
            {"role": "system", "content": "Be brief."},
            ex.user("weather?"),
            {"role": "assistant", "content": [ex.call("tooluse_1")]},
            {"role": "tool", "content": [ex.result("tooluse_1")]},
            {"role": "system", "content": "Answer in French."},
            {"role": "assistant", "content": "Ensoleillé."},
        ],
        after=[
            {"role": "system", "content": "Be brief."},
            ex.user("weather?"),
            {"role": "assistant", "content": [ex.call("tooluse_1")]},
            {"role": "tool", "content": [ex.result("tooluse_1")]},
            _reminder("Answer in French."),
            {"role": "assistant", "content": "Ensoleillé."},
        ],
        provider="bedrock",
    ),
    facts=System(signing=BEDROCK_SIGNING),
)
