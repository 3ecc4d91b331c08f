"""Rules for the AWS Bedrock Converse API (every model family).

Converse is strict about turns: the conversation starts with a user message, roles alternate,
the user turn after a ``toolUse`` turn holds exactly one ``toolResult`` per ``toolUse``, and no
block is empty. Tool messages are the user turn on the wire (every Converse client, the AI SDK
included, puts tool results into a user message). Reasoning is replayed only with the
signature Bedrock issued (``providerOptions.bedrock``).

Order (the registry, :mod:`heal.rules`, lists the rules; a module named after a rule declares
it, as Bedrock's instance of a rule other providers share): system-message position first
(``bedrock-mid-conversation-system``, :mod:`~heal.rules.system`: it decides where the first turn
is), then the first turn (``bedrock-first-message``), the reasoning drop
(``bedrock-unsigned-reasoning``, :mod:`~heal.rules.reasoning`: it can empty an assistant
message), provider-executed calls (``bedrock-tool-result-count``,
:mod:`~heal.rules.server_tools`), then alternation (``bedrock-role-alternation``,
:mod:`~heal.rules.roles`), documents (``bedrock-document-without-text``), and last the
tool-result content (``bedrock-empty-tool-result``, :mod:`~heal.rules.content`). Tool names, ids
(at most 64 characters) and inputs are the shared rules' job, with the Bedrock profile.

Claude on Converse applies Anthropic's thinking rules, so every rule here protects the latest
assistant message holding Bedrock-signed thinking.
"""

from __future__ import annotations

from collections.abc import Iterator

from heal.messages import (
    FilePart,
    TextPart,
    UserMessage,
)
from heal.repairs import Action, Scope
from heal.rules import _errors as err
from heal.rules import _examples as ex
from heal.rules._base import (
    AddMessage,
    AddPart,
    Context,
    DropMessage,
    Example,
    Finding,
    Rejection,
)
from heal.rules._options import SYNTHESIZED
from heal.rules.reasoning import BEDROCK_SIGNING, ProtectSigned

__all__ = [
    "BedrockDocumentWithoutText",
    "BedrockFirstMessage",
]

BEDROCK = "bedrock"

PLACEHOLDER_USER_TEXT = "(continued)"
"""The text of the user turn ``bedrock-first-message`` inserts under ``placeholder-user``."""

DOCUMENT_TEXT = "(document attached)"
"""The text ``bedrock-document-without-text`` adds next to a document."""


class _BedrockRule(ProtectSigned):
    providers = frozenset({BEDROCK})
    signing = BEDROCK_SIGNING


class BedrockFirstMessage(_BedrockRule):
    """A conversation whose first message (after the system messages) is not a user message.

    Converse requires the conversation to start with a user turn. Histories start with an
    assistant message after truncation or when the app stores its greeting.
    """

    id = "bedrock-first-message"
    summary = "conversation does not start with a user message"
    scope = Scope.REQUEST
    choices = ("drop", "placeholder-user")
    choice_docs = {
        "drop": "Remove the assistant and tool messages before the first user message from "
        "this request (when there is no user message at all, report instead: nothing would be "
        "left). The removed messages are kept in the repair records.",
        "placeholder-user": f"Insert a user message {PLACEHOLDER_USER_TEXT!r} in front, marked "
        'with providerOptions {"heal": {"synthesized": true}}. Loses nothing but adds a turn '
        "the user never wrote.",
    }
    rejections = (
        Rejection(
            "bedrock",
            "A conversation must start with a user message. Try again with a conversation that "
            "starts with a user message.",
            "langgenius/dify#12340; elastic/kibana PR#246393; strands-agents/harness-sdk#2085",
            pattern=err.BEDROCK_FIRST_MESSAGE,
        ),
    )
    example = Example(
        before=[
            {"role": "system", "content": "Be brief."},
            {"role": "assistant", "content": "Hi! How can I help?"},
            ex.user("weather?"),
        ],
        after=[{"role": "system", "content": "Be brief."}, ex.user("weather?")],
        provider=BEDROCK,
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        roles = ctx.index.roles
        first = next((i for i, role in enumerate(roles) if role != "system"), None)
        if first is None or roles[first] == "user":
            return
        if choice == "placeholder-user":
            user = UserMessage(
                content=(TextPart(text=PLACEHOLDER_USER_TEXT, provider_options=SYNTHESIZED),)
            )
            yield Finding(
                Action.INSERT,
                None,
                None,
                f"the conversation starts with a {roles[first]!r} message, not a user message; "
                "inserted a placeholder user message in front",
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
                "conversation has no user message, and Bedrock requires one first; choose "
                "placeholder-user for bedrock-first-message, or add a user message",
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


class BedrockDocumentWithoutText(_BedrockRule):
    """A user message with a document and no text.

    Converse rejects a document block without a text block in the same message (a bare PDF
    upload, or a message whose text was blank and removed).
    """

    id = "bedrock-document-without-text"
    triggers = frozenset({"files"})
    summary = "user message has a document but no text"
    scope = Scope.REQUEST
    choices = ("placeholder-text",)
    choice_docs = {
        "placeholder-text": f"Add the text {DOCUMENT_TEXT!r} after the message's parts, for this "
        'request only, marked with providerOptions {"heal": {"synthesized": true}}. Loses '
        "nothing.",
    }
    rejections = (
        Rejection(
            "bedrock",
            "A text block must be included when using documents.",
            "archestra-ai/archestra PR#4220",
            pattern=err.BEDROCK_DOCUMENT_WITHOUT_TEXT,
        ),
    )
    example = Example(
        before=[
            {
                "role": "user",
                "content": [
                    {"type": "file", "data": "JVBERi0xLjQ=", "mediaType": "application/pdf"}
                ],
            },
            {"role": "assistant", "content": "A one-page PDF."},
            ex.user("summarize it"),
        ],
        after=[
            {
                "role": "user",
                "content": [
                    {"type": "file", "data": "JVBERi0xLjQ=", "mediaType": "application/pdf"},
                    {"type": "text", "text": DOCUMENT_TEXT, "providerOptions": SYNTHESIZED},
                ],
            },
            {"role": "assistant", "content": "A one-page PDF."},
            ex.user("summarize it"),
        ],
        provider=BEDROCK,
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        roles = ctx.index.roles
        for m, message in enumerate(ctx.messages):
            content = message.content
            if roles[m] != "user" or isinstance(content, str):
                continue
            if not any(
                isinstance(part, FilePart) and not part.media_type.startswith("image/")
                for part in content
            ):
                continue
            if any(isinstance(part, TextPart) and part.text.strip() for part in content):
                continue
            text = TextPart(text=DOCUMENT_TEXT, provider_options=SYNTHESIZED)
            yield Finding(
                Action.INSERT,
                m,
                None,
                "user message has a document but no text, which Bedrock requires; added "
                "placeholder text",
                edits=(AddPart(m, len(content), text),),
                added=text,
                anchor=m,
            )
