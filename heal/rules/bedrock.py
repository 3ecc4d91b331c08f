"""Rules for the AWS Bedrock Converse API (every model family).

Converse is strict about turns: the conversation starts with a user message, roles alternate,
the user turn after a ``toolUse`` turn holds exactly one ``toolResult`` per ``toolUse``, and no
block is empty. Tool messages are the user turn on the wire (every Converse client, the AI SDK
included, puts tool results into a user message). Reasoning is replayed only with the
signature Bedrock issued (``providerOptions.bedrock``).

Order: system-message position first (it decides where the first turn is), then the first
turn, the reasoning drop (it can empty an assistant message), provider-executed calls, then
alternation, and last the tool-result content. Tool names, ids (at most 64 characters) and
inputs are the shared rules' job, with the Bedrock profile.

Claude on Converse applies Anthropic's thinking rules, so every rule here protects the latest
assistant message holding Bedrock-signed thinking.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from heal.messages import (
    FilePart,
    TextPart,
    UserMessage,
)
from heal.repairs import Action, Scope
from heal.rules._base import (
    AddMessage,
    AddPart,
    Context,
    DropMessage,
    DropPart,
    Example,
    Finding,
    Rejection,
    Rule,
)
from heal.rules.anthropic import (
    EMPTY_ERROR_TEXT,
    EmptyToolResult,
    ForeignServerTool,
    MidConversationSystem,
    ProtectSigned,
    foreign_namespaces,
    merge_run,
    runs,
)

__all__ = [
    "BEDROCK_SIGNATURE_KEYS",
    "BedrockDocumentWithoutText",
    "BedrockEmptyToolResult",
    "BedrockFirstMessage",
    "BedrockMidConversationSystem",
    "BedrockRoleAlternation",
    "BedrockToolResultCount",
    "BedrockUnsignedReasoning",
    "RULES",
]

BEDROCK = "bedrock"
"""The provider-options namespace the AI SDK bedrock adapter reads reasoning signatures from."""

BEDROCK_SIGNATURE_KEYS = ("signature", "redactedData", "redactedContent")
"""Keys whose non-empty string value makes a reasoning part replayable to Converse."""

PLACEHOLDER_USER_TEXT = "(continued)"
"""The text of the user turn ``bedrock-first-message`` inserts under ``placeholder-user``."""

DOCUMENT_TEXT = "(document attached)"
"""The text ``bedrock-document-without-text`` adds next to a document."""

SYNTHESIZED = {"heal": {"synthesized": True}}


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def _call(cid: str, name: str = "lookup", **extra: Any) -> dict[str, Any]:
    return {"type": "tool-call", "toolCallId": cid, "toolName": name, "input": {}, **extra}


def _result(cid: str, output: dict[str, Any], name: str = "lookup") -> dict[str, Any]:
    return {"type": "tool-result", "toolCallId": cid, "toolName": name, "output": output}


class _BedrockRule(ProtectSigned):
    providers = frozenset({BEDROCK})
    signature_namespace = BEDROCK
    signature_keys = BEDROCK_SIGNATURE_KEYS


class BedrockMidConversationSystem(MidConversationSystem, _BedrockRule):
    """A system message after the start of the conversation, sent to Bedrock Converse.

    Converse has one ``system`` field for the whole request; the AI SDK bedrock adapter throws
    rather than send a system message that follows user or assistant messages.
    """

    id = "bedrock-mid-conversation-system"
    summary = "system message after the start of the conversation"
    rejections = (
        Rejection(
            "bedrock (AI SDK, before any request)",
            "AI_UnsupportedFunctionalityError: 'Multiple system messages that are separated by "
            "user/assistant messages' functionality not supported.",
            "@ai-sdk/amazon-bedrock 4.0.186 convertToBedrockChatMessages (observed locally)",
        ),
    )
    example = Example(
        before=[
            {"role": "system", "content": "Be brief."},
            _user("weather?"),
            {"role": "assistant", "content": [_call("tooluse_1", "getWeather")]},
            {
                "role": "tool",
                "content": [_result("tooluse_1", {"type": "text", "value": "sunny"}, "getWeather")],
            },
            {"role": "system", "content": "Answer in French."},
            {"role": "assistant", "content": "Ensoleillé."},
        ],
        after=[
            {"role": "system", "content": "Be brief."},
            _user("weather?"),
            {"role": "assistant", "content": [_call("tooluse_1", "getWeather")]},
            {
                "role": "tool",
                "content": [_result("tooluse_1", {"type": "text", "value": "sunny"}, "getWeather")],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "<system-reminder>\nAnswer in French.\n</system-reminder>",
                    }
                ],
            },
            {"role": "assistant", "content": "Ensoleillé."},
        ],
        provider=BEDROCK,
    )


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
        ),
    )
    example = Example(
        before=[
            {"role": "system", "content": "Be brief."},
            {"role": "assistant", "content": "Hi! How can I help?"},
            _user("weather?"),
        ],
        after=[{"role": "system", "content": "Be brief."}, _user("weather?")],
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


class BedrockUnsignedReasoning(_BedrockRule):
    """A reasoning part without a Bedrock signature or redacted content.

    Converse replays reasoning only as ``reasoningText`` with its ``signature`` or as redacted
    content, taken from ``providerOptions.bedrock``. Reasoning from other providers (even
    Anthropic-signed Claude thinking: the signature belongs to another platform) and reasoning
    that lost its signature are rejected. (AI SDK bedrock since PR#17602 omits it silently.)
    Such a part is removed from the latest message with Bedrock-signed thinking too, which no
    other rule edits: it is not one of the signed blocks that must go back unmodified, and it
    cannot be sent as one.
    """

    id = "bedrock-unsigned-reasoning"
    triggers = frozenset({"reasoning"})
    summary = "reasoning part has no providerOptions.bedrock signature or redacted content"
    scope = Scope.REQUEST
    choices = ("drop",)
    choice_docs = {
        "drop": "Remove the reasoning part from this request; never turn it into text. The "
        "part is kept in the repair record.",
    }
    rejections = (
        Rejection(
            "bedrock",
            "User messages cannot contain reasoning content.",
            "vercel/ai#7034 (unsigned reasoning from extractReasoningMiddleware); PR#17602",
        ),
        Rejection(
            "bedrock (Claude)",
            "messages.647.content.0.thinking.signature: Field required",
            "anomalyco/opencode#25005",
        ),
    )
    example = Example(
        before=[
            _user("Plan a trip"),
            {
                "role": "assistant",
                "content": [
                    {"type": "reasoning", "text": "The user wants a plan..."},
                    {"type": "text", "text": "Here is a plan."},
                ],
            },
            _user("Make it longer"),
        ],
        after=[
            _user("Plan a trip"),
            {"role": "assistant", "content": [{"type": "text", "text": "Here is a plan."}]},
            _user("Make it longer"),
        ],
        provider=BEDROCK,
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        if not ctx.index.reasoning:
            return
        protected = ctx.protected
        for m, p, part in ctx.index.reasoning:
            if self.is_signed(part):
                continue
            foreign = foreign_namespaces(part, (BEDROCK,))
            why = (
                f"reasoning from another provider ({', '.join(foreign)})"
                if foreign
                else "reasoning part without a Bedrock signature"
            )
            where = (
                " (the latest message with signed thinking keeps its signed blocks unchanged)"
                if m in protected
                else ""
            )
            yield Finding(
                Action.REMOVE,
                m,
                p,
                f"{why} cannot be replayed to Bedrock; removed from the request{where}",
                edits=(DropPart(m, p),),
                removed=part,
            )


class BedrockToolResultCount(ForeignServerTool, _BedrockRule):
    """A tool call whose result Converse cannot receive: a provider-executed call.

    Converse pairs every ``toolUse`` of an assistant turn with one ``toolResult`` in the next
    user turn. Converse runs no tools itself, so provider-executed calls in a history (another
    provider's web search or code execution) go out as ``toolUse`` blocks while their results,
    stored inside the assistant message, have no Converse block: the counts no longer match.
    (Client calls are paired by the shared pairing rules.)
    """

    id = "bedrock-tool-result-count"
    triggers = frozenset({"calls"})
    target = "Bedrock"
    summary = "provider-executed tool call (another provider's server tool) sent to Bedrock"
    rejections = (
        Rejection(
            "bedrock",
            "Expected toolResult blocks at messages.2.content for the following Ids: "
            "tooluse_jQ912rboYgzgLULQpRxWot, tooluse_...",
            "agno-agi/agno#6698; genkit-ai/aws-bedrock-js-plugin#664",
        ),
        Rejection(
            "bedrock",
            "The number of toolResult blocks at messages.2.content exceeds the number of "
            "toolUse blocks of previous turn.",
            "Just-Curieous/Curie#16; pydantic/pydantic-ai#2327",
        ),
    )
    example = Example(
        before=[
            _user("news?"),
            {
                "role": "assistant",
                "content": [
                    _call("srvtoolu_01", "web_search", providerExecuted=True),
                    _result("srvtoolu_01", {"type": "json", "value": []}, "web_search"),
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
        provider=BEDROCK,
    )


class BedrockRoleAlternation(_BedrockRule):
    """Two user messages, or two assistant messages, in a row.

    Converse requires user and assistant turns to alternate. The AI SDK bedrock adapter merges
    such runs itself (and puts tool messages into the user turn); other Converse clients send
    them as they are. Tool messages are not merged here: the canonical model keeps results in
    tool messages, and every client puts them into the user turn it sends.
    """

    id = "bedrock-role-alternation"
    summary = "two user messages or two assistant messages in a row"
    scope = Scope.REQUEST
    choices = ("merge",)
    choice_docs = {
        "merge": "Move the parts of each later message of the run, in order, to the end of the "
        "first one, and remove the emptied messages (string content becomes a text part). "
        "Runs that include the latest message with signed thinking are left alone. Loses "
        "nothing but message boundaries; message-level provider options of a removed message "
        "go to the first one when it has none, else into the repair record.",
    }
    rejections = (
        Rejection(
            "bedrock",
            "A conversation must alternate between user and assistant roles. Make sure the "
            "conversation alternates between user and assistant roles and try again.",
            "microsoft/semantic-kernel#10277, #10281; Portkey-AI/gateway#748; "
            "langchain-ai/langchain-aws#130",
        ),
    )
    example = Example(
        before=[
            _user("hi"),
            _user("are you there?"),
            {"role": "assistant", "content": "Yes."},
        ],
        after=[
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "hi"},
                    {"type": "text", "text": "are you there?"},
                ],
            },
            {"role": "assistant", "content": "Yes."},
        ],
        provider=BEDROCK,
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        for run in runs(ctx, ("user", "assistant")):
            yield from merge_run(ctx, run, "Bedrock requires alternating roles")


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
            _user("summarize it"),
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
            _user("summarize it"),
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


class BedrockEmptyToolResult(EmptyToolResult, _BedrockRule):
    """A tool result whose content would be empty or blank on the wire.

    Converse sends a tool result's output as its content blocks: an empty or whitespace-only
    text (or error text, or execution-denied reason), or a content list with nothing in it,
    becomes an empty or blank block, and an error result needs content.
    """

    id = "bedrock-empty-tool-result"
    triggers = frozenset({"outputs", "content_outputs"})
    summary = "tool result output is empty or whitespace only"
    rejections = (
        Rejection(
            "bedrock",
            "The content field at messages.<n>.content.0.toolResult cannot be empty when "
            "status value is error.",
            "aws-samples/sample-multi-agent-orchestration-chat-on-agentcore#15",
        ),
        Rejection(
            "bedrock (Claude)",
            "ValidationException: ... messages: text content blocks must be non-empty",
            "NousResearch/hermes-agent#55092",
        ),
    )
    example = Example(
        before=[
            _user("delete the file"),
            {"role": "assistant", "content": [_call("tooluse_1", "rm")]},
            {
                "role": "tool",
                "content": [_result("tooluse_1", {"type": "error-text", "value": ""}, "rm")],
            },
        ],
        after=[
            _user("delete the file"),
            {"role": "assistant", "content": [_call("tooluse_1", "rm")]},
            {
                "role": "tool",
                "content": [
                    _result("tooluse_1", {"type": "error-text", "value": EMPTY_ERROR_TEXT}, "rm")
                ],
            },
        ],
        provider=BEDROCK,
    )


RULES: tuple[Rule, ...] = (
    BedrockMidConversationSystem(),
    BedrockFirstMessage(),
    BedrockUnsignedReasoning(),
    BedrockToolResultCount(),
    BedrockRoleAlternation(),
    BedrockDocumentWithoutText(),
    BedrockEmptyToolResult(),
)
"""This pack's rules, in the order they run."""
