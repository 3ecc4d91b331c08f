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
:mod:`~heal.rules.roles`), blank text beside signed thinking
(``bedrock-blank-text-beside-signed-thinking``), then where thinking sits
(``bedrock-reasoning-only-message``, ``bedrock-reasoning-not-first``,
``bedrock-trailing-reasoning``, :mod:`~heal.rules.reasoning`: after the merge and the removal
before them, which make those layouts), documents (``bedrock-document-without-text``), and last
the tool-result content (``bedrock-empty-tool-result``, :mod:`~heal.rules.content`). Tool names,
ids (at most 64 characters) and inputs are the shared rules' job, with the Bedrock profile.

Claude on Converse applies Anthropic's thinking rules, so every rule here protects the latest
assistant message holding Bedrock-signed thinking, except where Converse rejects that message
whatever heal does: a blank text block is rejected wherever it is, so
``bedrock-blank-text-beside-signed-thinking`` removes it from that message too (its docstring
gives the evidence); a run of assistant messages is rejected, so ``bedrock-role-alternation``
merges it even when it holds that message; and thinking must start a message and must not end
the final one, so the placement rules move its blocks, unchanged
(:data:`~heal.rules.thinking.OVER_PROTECTION`).
"""

from __future__ import annotations

from collections.abc import Iterator

from heal.messages import (
    FilePart,
    TextPart,
)
from heal.repairs import Action, Scope
from heal.rules import _errors as err
from heal.rules import _examples as ex
from heal.rules._base import (
    AddPart,
    Context,
    DropMessage,
    DropPart,
    Example,
    Finding,
    Rejection,
)
from heal.rules._options import SYNTHESIZED
from heal.rules._sendable import nothing_else, placeholder_text
from heal.rules.reasoning import BEDROCK_SIGNING, ProtectSigned, latest_signed, reasoning_only
from heal.rules.roles import LEAD_CHOICE_DOCS, PLACEHOLDER_USER_TEXT, blank, lead_with_user

__all__ = [
    "BedrockBlankTextBesideSignedThinking",
    "BedrockDocumentWithoutText",
    "BedrockFirstMessage",
]

BEDROCK = "bedrock"

DOCUMENT_TEXT = "(document attached)"
"""The text ``bedrock-document-without-text`` adds next to a document."""


class _BedrockRule(ProtectSigned):
    providers = frozenset({BEDROCK})
    signing = BEDROCK_SIGNING


class BedrockFirstMessage(_BedrockRule):
    """A conversation whose first message (after the system messages) is not a user message.

    Converse requires the conversation to start with a user turn. Histories start with an
    assistant message after truncation (context trimming cut the head off, often mid tool loop:
    the first message is a tool call, or a result whose call was cut, which
    ``orphan-tool-result`` removes first) or when the app stores its greeting.

    The default is ``placeholder-user``: it makes every such request acceptable (dropping cannot
    when no user message is left, the usual state of a trimmed agent loop) and loses nothing the
    model had seen, at the price of one marked turn that exists only in this request. ``drop``
    keeps the request to what was said, but the model loses the calls it made and their results.

    The placeholder is never all there is to send (:mod:`heal.rules._sendable`): a request of
    heal's own words only would ask the model to answer what nobody said, and a native format
    with no place for heal's ``synthesized`` marker (Anthropic, Responses) would write it as the
    user's words, which the next heal would keep while removing the empty message after it. So
    a history with nothing to send gets none (``empty-message`` keeps it as it is and reports
    it). When the rules after this one leave nothing else (a lone assistant message of another
    provider's server tool or reasoning, whose parts Converse cannot take), the next pass takes
    the placeholder back (a ``remove`` repair after the ``insert``), and ``empty-message`` keeps
    the emptied message and reports the history. A reasoning-only message left alone is kept
    and reported by ``bedrock-reasoning-only-message``, with the placeholder in front.
    """

    id = "bedrock-first-message"
    needs = frozenset({"empty", "head_not_user", "strings", "texts"})
    summary = "conversation does not start with a user message"
    scope = Scope.REQUEST
    choices = ("placeholder-user", "drop")
    choice_docs = LEAD_CHOICE_DOCS
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
            {"role": "assistant", "content": [ex.call("c1")]},
            {"role": "tool", "content": [ex.result("c1")]},
        ],
        after=[
            {"role": "system", "content": "Be brief."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": PLACEHOLDER_USER_TEXT, "providerOptions": SYNTHESIZED}
                ],
            },
            {"role": "assistant", "content": [ex.call("c1")]},
            {"role": "tool", "content": [ex.result("c1")]},
        ],
        provider=BEDROCK,
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        roles = ctx.index.roles
        # A message of reasoning alone is never sent (bedrock-reasoning-only-message removes it,
        # or keeps and reports it when nothing else is left): it is no reason for a placeholder.
        unsendable = frozenset(
            m for m, message in enumerate(ctx.messages) if reasoning_only(message)
        )
        if nothing_else(ctx, unsendable):
            yield from _take_back_placeholder(ctx)
            return
        # A blank message in front is empty-message's to remove; a placeholder put before it
        # would outlive it and end up merged into the user's own first turn.
        first = next(
            (i for i, role in enumerate(roles) if role != "system" and not blank(ctx.messages[i])),
            None,
        )
        if first is None or roles[first] == "user":
            return
        yield from lead_with_user(
            ctx,
            first,
            choice,
            f"the conversation starts with a {roles[first]!r} message, not a user message",
        )


def _take_back_placeholder(ctx: Context) -> Iterator[Finding]:
    """The removal of the placeholder :class:`BedrockFirstMessage` put in front (a user message
    of heal's placeholder text alone, the first one past the system and blank messages), in a
    history with nothing else to send."""
    roles = ctx.index.roles
    first = next(
        (i for i, role in enumerate(roles) if role != "system" and not blank(ctx.messages[i])),
        None,
    )
    if first is None or roles[first] != "user":
        return
    message = ctx.messages[first]
    content = message.content
    if isinstance(content, str) or not content or not all(map(placeholder_text, content)):
        return
    yield Finding(
        Action.REMOVE,
        first,
        None,
        "nothing but heal's placeholder user message is left to send; removed it (the "
        "history is reported instead)",
        edits=(DropMessage(first),),
        removed=message,
    )


class BedrockDocumentWithoutText(_BedrockRule):
    """A user message with a document and no text.

    Converse rejects a document block without a text block in the same message (a bare PDF
    upload, or a message whose text was blank and removed).
    """

    id = "bedrock-document-without-text"
    triggers = frozenset({"files"})
    needs = frozenset({"unplain_files"})  # a user's plain images read as nothing: plain_image_file
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


class BedrockBlankTextBesideSignedThinking(_BedrockRule):
    """A blank text part in the latest assistant message holding Bedrock-signed thinking.

    ``empty-text`` removes blank text everywhere but in that message, which the signed-thinking
    guard protects. On Bedrock the two rules conflict, and acceptance decides: Converse rejects
    a blank text block in any message, the protected one included (the rejection below names
    ``messages.3.content.2`` of such a message), so keeping it is a certain rejection. Removing
    it leaves every signed block byte-identical and in its order: Converse carries the signature
    inside the ``reasoningContent`` block (``reasoningText.signature``), not on text blocks, and
    the only recorded modification error names ``thinking`` blocks ("`thinking` or
    `redacted_thinking` blocks in the latest assistant message cannot be modified"). Whether
    Bedrock also checks the positions of the other blocks is unverified; no source shows a
    rejection after a text block was removed. Anthropic keeps the guard: its pack has no
    instance of this rule.
    """

    id = "bedrock-blank-text-beside-signed-thinking"
    edits_protected = True  # Converse rejects the blank part in the protected message too
    triggers = frozenset({"reasoning"})
    # It finds blank text parts alone, which the index lists among its texts (a history
    # without reasoning has no signed message either, but the texts are the finer hint: a
    # quick verdict reads them and takes Bedrock's signed thinking).
    needs = frozenset({"texts"})
    summary = "latest message with signed thinking holds an empty or whitespace-only text part"
    scope = Scope.REQUEST
    choices = ("drop",)
    choice_docs = {
        "drop": "Remove the text part from this request. Only whitespace is lost; the part is "
        "kept in the repair record. The signed reasoning parts are not touched.",
    }
    rejections = (
        Rejection(
            "bedrock",
            "The text field in the ContentBlock object at messages.3.content.2 is blank. Add text "
            "to the text field, and try again.",
            "aws-samples/bedrock-engineer#8 (messages.15.content.0); issue 14 (messages.3, "
            "beside signed thinking)",
            pattern=err.BEDROCK_BLANK_TEXT,
        ),
    )
    example = Example(
        before=[
            ex.user("hi"),
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "reasoning",
                        "text": "Greet.",
                        "providerOptions": {"bedrock": {"signature": "sig"}},
                    },
                    {"type": "text", "text": "Hello."},
                    {"type": "text", "text": " "},
                ],
            },
            ex.user("bye"),
        ],
        after=[
            ex.user("hi"),
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "reasoning",
                        "text": "Greet.",
                        "providerOptions": {"bedrock": {"signature": "sig"}},
                    },
                    {"type": "text", "text": "Hello."},
                ],
            },
            ex.user("bye"),
        ],
        provider=BEDROCK,
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        # Only the protected message: everywhere else ``empty-text`` removes blank text.
        for m in latest_signed(ctx, self.signing):
            content = ctx.messages[m].content
            if isinstance(content, str):
                continue
            for p, part in enumerate(content):
                if not isinstance(part, TextPart) or (part.text and not part.text.isspace()):
                    continue
                yield Finding(
                    Action.REMOVE,
                    m,
                    p,
                    "text part is "
                    + ("empty" if not part.text else "whitespace only")
                    + " in the latest message with signed thinking; removed (Bedrock rejects a "
                    "blank text block there too; the signed blocks are unchanged)",
                    edits=(DropPart(m, p),),
                    removed=part,
                )
