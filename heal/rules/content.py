"""Rules on text and on messages as containers: lone surrogates, empty text, empty messages, a
history with no message to send; and tool results whose content would be blank on the wire.

The shared rules run after the tool and provider rules, because those can leave text or messages
empty (a moved result empties its tool message; a dropped call empties its assistant message).
No rule heals a history down to nothing: ``empty-message`` reports a history of only empty
messages instead of emptying it, rules that remove messages keep the last one with anything in
it (:mod:`heal.rules._sendable`), and ``empty-history`` reports a history that has no message to
send at all. :class:`EmptyToolResult` is declared once per provider that rejects blank blocks
(``anthropic-empty-tool-result``, ``bedrock-empty-tool-result``) and runs with that provider's
pack.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from heal._construct import cleared, replaced
from heal.messages import (
    ContentOutput,
    ErrorTextOutput,
    ExecutionDeniedOutput,
    ReasoningPart,
    TextOutput,
    TextPart,
    ToolResultPart,
)
from heal.repairs import Action, Scope
from heal.rules import _errors as err
from heal.rules import _examples as ex
from heal.rules._base import (
    Context,
    DropMessage,
    DropPart,
    Example,
    FamilyRule,
    Finding,
    Rejection,
    Rule,
    SetMessage,
    SetPart,
)
from heal.rules._sendable import nothing_else
from heal.rules.reasoning import ANTHROPIC_SIGNING, BEDROCK_SIGNING, Signing, signed_guard

__all__ = [
    "ANTHROPIC_EMPTY_TOOL_RESULT",
    "BEDROCK_EMPTY_TOOL_RESULT",
    "EMPTY_ERROR_TEXT",
    "EMPTY_OUTPUT_TEXT",
    "EmptyHistory",
    "EmptyMessage",
    "EmptyText",
    "EmptyToolResult",
    "LoneSurrogate",
    "every_message_blank",
]

_SURROGATE = re.compile("[\ud800-\udfff]")


def _has_surrogate(text: str) -> bool:
    return not text.isascii() and _SURROGATE.search(text) is not None


def _mend(text: str) -> str:
    return _SURROGATE.sub("\ufffd", text)


def _blank(text: str) -> bool:
    return not text or text.isspace()


def every_message_blank(ctx: Context) -> bool:
    """Whether there are user, assistant or tool messages and none holds anything but
    whitespace text (string content, or only text parts) or heal's own placeholder text:
    healing would leave nothing to send (see :mod:`heal.rules._sendable`). Stops at the first
    message with content, so it costs little on ordinary histories."""
    roles = ctx.index.roles
    return any(role != "system" for role in roles) and nothing_else(ctx, frozenset())


class LoneSurrogate(Rule):
    """Text holding a lone UTF-16 surrogate, which is not valid Unicode."""

    id = "lone-surrogate"
    edits_protected = True  # invalid text cannot be sent, protected or not
    triggers = frozenset({"outputs", "reasoning", "strings", "texts"})
    # The scan lists only texts that are blank or not ASCII; reasoning it lists whole.
    needs = frozenset({"outputs", "strings", "texts", "non_ascii_reasoning"})
    summary = "text holds a lone UTF-16 surrogate (often a cut emoji), which is not valid Unicode"
    choice_docs = {
        "fix": "Replace each lone surrogate with U+FFFD (the replacement character). The "
        "original text is kept in the repair record.",
    }
    rejections = (
        Rejection(
            "every provider (JSON encoding)",
            "UnicodeEncodeError: 'utf-8' codec can't encode character '\\ud83d' in position 5: "
            "surrogates not allowed",
            "Python's json/httpx encoding of the request body; JSON parsers reject lone "
            "surrogates (RFC 8259 §8.2)",
            pattern=err.PYTHON_LONE_SURROGATE,
        ),
    )
    example = Example(
        before=[{"role": "user", "content": "cut emoji \ud83d"}],
        after=[{"role": "user", "content": "cut emoji \ufffd"}],
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        index = ctx.index
        messages = ctx.messages
        for i in index.strings:
            message = messages[i]
            text = message.content
            if isinstance(text, str) and _has_surrogate(text):
                yield self._finding(
                    i,
                    None,
                    text,
                    SetMessage(i, replaced(message, {"content": _mend(text)})),
                )
        text_refs: list[tuple[int, int, TextPart | ReasoningPart]] = [
            *index.texts,
            *index.reasoning,
        ]
        for m, p, part in text_refs:
            text = part.text
            if not text.isascii() and _has_surrogate(text):  # ASCII (most) told without a call
                fixed = replaced(part, {"text": _mend(text)})
                yield self._finding(m, p, part.text, SetPart(m, p, fixed))
        for m, p, result in index.outputs:
            output = result.output
            value = getattr(output, "value", None)
            if (
                value.__class__ is str
                and not value.isascii()
                and isinstance(output, (TextOutput, ErrorTextOutput))
                and _SURROGATE.search(output.value) is not None
            ):
                fixed_output = replaced(output, {"value": _mend(output.value)})
                fixed_result = replaced(result, {"output": fixed_output})
                yield self._finding(m, p, output.value, SetPart(m, p, fixed_result))

    def _finding(self, m: int, p: int | None, text: str, edit: SetMessage | SetPart) -> Finding:
        # The surrogate itself cannot go into JSON; the record keeps it as an escape sequence.
        escaped = text.encode("utf-8", "backslashreplace").decode("utf-8")
        return Finding(
            Action.REPLACE,
            m,
            p,
            "text holds a lone UTF-16 surrogate; replaced with U+FFFD",
            edits=(edit,),
            removed={"text": escaped},
            added={"text": _mend(text)},
        )


class EmptyText(Rule):
    """A text part that is empty or only whitespace.

    A message whose content is an empty or whitespace string is ``empty-message``'s, as is a
    history in which no message holds anything else: then no text part is removed either (a
    blank string and a blank text part are the same content, and formats such as Gemini's write
    one as the other), and ``empty-message`` reports the history instead.
    """

    id = "empty-text"
    triggers = frozenset({"texts"})
    summary = "text part is empty or whitespace only"
    choice_docs = {
        "fix": "Remove the part. Only whitespace is lost; the part is kept in the repair record. "
        "When every message is empty or blank text, nothing is removed (``empty-message`` "
        "reports the history).",
    }
    rejections = (
        Rejection(
            "anthropic",
            "messages: text content blocks must be non-empty",
            "anthropics/claude-code#59812; HKUDS/nanobot PR#949",
            pattern=err.ANTHROPIC_EMPTY_TEXT,
        ),
        Rejection(
            "anthropic",
            "messages: text content blocks must contain non-whitespace text",
            "anthropics/claude-code#23440; continuedev/continue#9605",
            pattern=err.ANTHROPIC_EMPTY_TEXT,
        ),
        Rejection(
            "bedrock",
            "The text field in the ContentBlock object at messages.15.content.0 is blank. Add "
            "text to the text field, and try again.",
            "aws-samples/bedrock-engineer#8",
            pattern=err.BEDROCK_BLANK_TEXT,
        ),
        Rejection(
            "google (Vertex)",
            "Unable to submit request because it has an empty text parameter. Add a value to the "
            "parameter and try again.",
            "FoundationAgents/OpenManus PR#876",
            pattern=err.GOOGLE_EMPTY_CONTENT,
        ),
    )
    example = Example(
        before=[
            {
                "role": "user",
                "content": [{"type": "text", "text": "hi"}, {"type": "text", "text": " \n"}],
            },
        ],
        after=[{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        protected = ctx.protected if ctx.index.texts else frozenset()
        findings: list[Finding] = []
        for m, p, part in ctx.index.texts:
            text = part.text
            # A message the provider forbids editing keeps its blank text: Anthropic sends the
            # latest signed-thinking message back byte-identical, blank separators between
            # signed blocks included (provider-rules.md §1(e), §1(g)).
            if (text and not text.isspace()) or m in protected:
                continue
            findings.append(
                Finding(
                    Action.REMOVE,
                    m,
                    p,
                    "text part is empty" if not text else "text part is whitespace only",
                    edits=(DropPart(m, p),),
                    removed=part,
                )
            )
        # Nothing to send either way: empty-message reports the history, which stays as it is
        # (removing the parts would only change its form, and not the same way for content "").
        if findings and not every_message_blank(ctx):
            yield from findings


class EmptyMessage(Rule):
    """A user, assistant or tool message with no content."""

    id = "empty-message"
    triggers = frozenset({"empty", "strings", "texts"})
    summary = "user, assistant or tool message has no content (or only whitespace text)"
    choice_docs = {
        "fix": "Remove the message. Nothing but whitespace is lost; the message is kept in the "
        "repair record. When every message is empty (no content, only blank text as a string "
        "or as parts, or only heal's own placeholder text), nothing is removed and the history "
        "is reported instead: a history healed down to nothing cannot be sent either.",
    }
    rejections = (
        Rejection(
            "anthropic",
            "messages.0: all messages must have non-empty content except for the optional final "
            "assistant message",
            "anthropics/claude-code#6774; vercel/ai PR#5783",
            pattern=err.ANTHROPIC_EMPTY_MESSAGE,
        ),
        Rejection(
            "bedrock",
            "The content field in the Message object at messages.N is empty. Add a ContentBlock "
            "object to the content field and try again.",
            "vercel/ai#15248",
            pattern=err.BEDROCK_EMPTY_MESSAGE,
        ),
        Rejection(
            "google",
            "* GenerateContentRequest.contents[41].parts: contents.parts must not be empty.",
            "langchain-ai/langchain-google#691; vercel/ai#3775",
            pattern=err.GOOGLE_EMPTY_CONTENT,
        ),
        Rejection(
            "google (an empty request; why this rule reports instead of emptying a history)",
            "* GenerateContentRequest.contents: contents is not specified",
            "vercel/ai#3775",
            pattern=err.GOOGLE_CONTENTS_NOT_SPECIFIED,
        ),
        Rejection(
            "xai",
            "Invalid request content: Each message must have at least one content element.",
            "langchain-ai/langchain#34140; n8n-io/n8n#14797",
            pattern=err.XAI_EMPTY_CONTENT,
        ),
    )
    example = Example(
        before=[
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": []},
            {"role": "user", "content": "  "},
            {"role": "assistant", "content": "hello"},
        ],
        after=[
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello"},
        ],
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        index = ctx.index
        messages = ctx.messages
        blank = [
            i
            for i in index.strings
            if index.roles[i] != "system"
            and (not messages[i].content or str(messages[i].content).isspace())
        ]
        remove = sorted({*index.empty, *blank})
        blank_parts = any(_blank(part.text) for _, _, part in index.texts)
        if (remove or blank_parts) and every_message_blank(ctx):
            # Healing must not turn a history into nothing to send (Google: "contents is not
            # specified"; the AI SDK: "messages must not be empty"): say so instead.
            yield Finding(
                Action.REPORT,
                None,
                None,
                "every message is empty: there is nothing to send; the history was left as it "
                "is (add a user message, or do not send this history)",
            )
            return
        for i in remove:
            message = messages[i]
            yield Finding(
                Action.REMOVE,
                i,
                None,
                f"{message.role} message has no content; removed",
                edits=(DropMessage(i),),
                removed=message,
            )


_SYSTEM_APART = frozenset({"anthropic-messages", "bedrock-converse", "gemini"})
"""Wire formats whose request carries the system prompt beside the messages, not among them:
a history of system messages alone is a request without messages there."""


class EmptyHistory(Rule):
    """A history with no message to send: no messages at all, or only system messages for a
    provider that takes the system prompt apart from the messages.

    Every provider rejects a request without messages, and the AI SDK refuses one before any
    provider sees it (the rejections below). No edit can make up a conversation, so this is
    reported, and it fails validation: an empty list is not a healed history. heal never
    produces one either: ``empty-message`` reports a history of only empty messages instead of
    emptying it, and the rules that remove messages keep the last one with anything in it and
    report it instead (:mod:`heal.rules._sendable`).

    With no provider named (``provider=None``), an empty list is reported too: the shared rules
    hold what every provider requires, and every provider (and the AI SDK) rejects it. A
    history of system messages alone is reported for Anthropic, Bedrock and Gemini, whose
    requests carry the system prompt outside the message list (the list would be empty:
    Gemini "contents is not specified", Bedrock "A conversation must start with a user
    message"). Chat Completions and Responses servers take system messages in the list, and no
    rejection of a list of system messages alone is on record for them: it is not reported for
    them, nor with no provider named.
    """

    id = "empty-history"
    needs = frozenset({"only_system"})
    summary = (
        "history has no message to send (none at all, or only system messages for a provider "
        "that takes the system prompt apart)"
    )
    scope = Scope.REQUEST
    choices = ("report",)
    choice_docs = {
        "report": "Report it; change nothing. There is no conversation to heal: add a user "
        "message, or do not send the request.",
    }
    rejections = (
        Rejection(
            "AI SDK (AI_InvalidPromptError, before any request)",
            "InvalidPromptError [AI_InvalidPromptError]: Invalid prompt: messages must not be "
            "empty",
            "vercel/ai#10003; zebbern/Devonz#4",
            pattern=err.AI_SDK_EMPTY_MESSAGES,
        ),
        Rejection(
            "anthropic",
            '{"type":"error","error":{"type":"invalid_request_error","message":"messages: at '
            'least one message is required"}}',
            "devoxx/DevoxxGenieIDEAPlugin#567; automazeio/vibeproxy#81",
            pattern=err.ANTHROPIC_NO_MESSAGES,
        ),
        Rejection(
            "openai",
            "Error code: 400 - {'error': {'message': \"[] is too short - 'messages'\", 'type': "
            "'invalid_request_error', 'param': None, 'code': None}}",
            "run-llama/llama_index#9373; sashabaranov/go-openai#605",
            pattern=err.OPENAI_NO_MESSAGES,
        ),
        Rejection(
            "openai (newer wording)",
            "Invalid 'messages': empty array. Expected an array with minimum length 1, but got "
            "an empty array instead.",
            "CopilotKit/CopilotKit#529",
            pattern=err.OPENAI_NO_MESSAGES,
        ),
        Rejection(
            "google",
            "* GenerateContentRequest.contents: contents is not specified",
            "vercel/ai#3775; NousResearch/hermes-agent PR#57942 (system messages alone, or none)",
            pattern=err.GOOGLE_CONTENTS_NOT_SPECIFIED,
        ),
        Rejection(
            "bedrock",
            "A conversation must start with a user message.",
            "pydantic/pydantic-ai#4495, PR#4498 (a system prompt or instructions alone)",
            pattern=err.BEDROCK_FIRST_MESSAGE,
        ),
    )
    example = Example(
        before=[{"role": "system", "content": "Be brief."}],
        after=[{"role": "system", "content": "Be brief."}],
        provider="anthropic",
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        roles = ctx.index.roles
        if any(role != "system" for role in roles):
            return
        if not roles:
            reason = (
                "the history has no messages, and every provider rejects a request without "
                "any; heal does not make a conversation up: add a user message"
            )
        elif ctx.profile.wire in _SYSTEM_APART:
            reason = (
                "the history holds only system messages, which this provider takes apart from "
                "the messages, so the request would have none; add a user message"
            )
        else:
            return
        yield Finding(Action.REPORT, None, None, reason)


# --- tool results blank on the wire ----------------------------------------------------------

EMPTY_OUTPUT_TEXT = "(no output)"
"""What an empty tool result says instead (providers reject blank text blocks)."""

EMPTY_ERROR_TEXT = "(the tool failed without an error message)"
"""What an empty error result says instead (error results need content)."""


class EmptyToolResult(FamilyRule[Signing]):
    """A tool result whose content would be blank on the wire, for a provider that rejects
    blank blocks (its ``facts``: the signatures whose latest message no edit may touch)."""

    triggers = frozenset({"outputs", "content_outputs"})
    choices = ("placeholder",)
    choice_docs = {
        "placeholder": f"Give an empty text output the text {EMPTY_OUTPUT_TEXT!r}, an empty "
        f"error text {EMPTY_ERROR_TEXT!r}, an empty content list one such text item; drop a "
        "blank execution-denied reason (the default reason is sent). Only whitespace is lost; "
        "the old output is kept in the repair record.",
    }

    def protects(self, ctx: Context) -> tuple[int, ...]:
        return signed_guard(ctx, self.facts)

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
                edits=(SetPart(m, p, replaced(result, {"output": fixed})),),
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
        return replaced(output, {"value": text})
    if isinstance(output, ContentOutput):
        if any(_has_content(item) for item in output.value):
            return None
        return replaced(output, {"value": ({"type": "text", "text": EMPTY_OUTPUT_TEXT},)})
    if isinstance(output, ExecutionDeniedOutput):
        if output.reason is None or output.reason.strip():
            return None
        return cleared(output, "reason")
    return None


def _ran(output: dict[str, Any], name: str, cid: str) -> list[dict[str, Any]]:
    """``name`` is called and answers with ``output`` (before and after the placeholder)."""
    return [
        {"role": "assistant", "content": [ex.call(cid, name)]},
        {"role": "tool", "content": [ex.tool_result(cid, name, output)]},
    ]


ANTHROPIC_EMPTY_TOOL_RESULT = EmptyToolResult(
    id="anthropic-empty-tool-result",
    doc="""A tool result whose content would be blank in a request to Anthropic.

    Anthropic rejects empty or whitespace-only text, including the text inside a
    ``tool_result``; the AI SDK adapter sends an empty text output as ``content: ""``.
    """,
    summary="tool result output is empty or whitespace only",
    providers=frozenset({"anthropic"}),
    rejections=(
        Rejection(
            "anthropic",
            "messages: text content blocks must be non-empty",
            "anthropics/claude-code#59812, #62150; provider-rules.md §1(g) (text inside "
            "tool_result content counts)",
            pattern=err.ANTHROPIC_EMPTY_TEXT,
        ),
        Rejection(
            "anthropic",
            "messages: text content blocks must contain non-whitespace text",
            "anthropics/claude-code#23440; continuedev/continue#9605",
            pattern=err.ANTHROPIC_EMPTY_TEXT,
        ),
    ),
    example=Example(
        before=[ex.user("run it"), *_ran({"type": "text", "value": ""}, "run", "toolu_1")],
        after=[
            ex.user("run it"),
            *_ran({"type": "text", "value": EMPTY_OUTPUT_TEXT}, "run", "toolu_1"),
        ],
        provider="anthropic",
    ),
    facts=ANTHROPIC_SIGNING,
)

BEDROCK_EMPTY_TOOL_RESULT = EmptyToolResult(
    id="bedrock-empty-tool-result",
    doc="""A tool result whose content would be empty or blank on the wire.

    Converse sends a tool result's output as its content blocks: an empty or whitespace-only
    text (or error text, or execution-denied reason), or a content list with nothing in it,
    becomes an empty or blank block, and an error result needs content.
    """,
    summary="tool result output is empty or whitespace only",
    providers=frozenset({"bedrock"}),
    rejections=(
        Rejection(
            "bedrock",
            "The content field at messages.<n>.content.0.toolResult cannot be empty when "
            "status value is error.",
            "aws-samples/sample-multi-agent-orchestration-chat-on-agentcore#15",
            pattern=err.BEDROCK_EMPTY_ERROR_RESULT,
        ),
        Rejection(
            "bedrock (Claude)",
            "ValidationException: ... messages: text content blocks must be non-empty",
            "NousResearch/hermes-agent#55092",
            pattern=err.ANTHROPIC_EMPTY_TEXT,
        ),
    ),
    example=Example(
        before=[
            ex.user("delete the file"),
            *_ran({"type": "error-text", "value": ""}, "rm", "tooluse_1"),
        ],
        after=[
            ex.user("delete the file"),
            *_ran({"type": "error-text", "value": EMPTY_ERROR_TEXT}, "rm", "tooluse_1"),
        ],
        provider="bedrock",
    ),
    facts=BEDROCK_SIGNING,
)
