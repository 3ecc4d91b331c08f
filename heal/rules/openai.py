"""Rules for OpenAI: the Responses API (items, reasoning) and Chat Completions (and the servers
that speak its wire format: DeepSeek, Cerebras, Groq, xAI, Mistral, OpenAI-compatible ones).

Responses replays a history as a flat list of ITEMS. In AI SDK terms a reasoning part carrying
``providerOptions.openai.itemId`` (or encrypted content) is a ``reasoning`` item; text and
tool-call parts with an ``itemId`` are sent as references to stored ``message`` and
``function_call`` items. Several parts of one message that share an ``itemId`` are ONE item
(the summary parts of one reasoning item, or the content parts of one message item). The API
ties items together: a reasoning item must be followed by the item it produced, an item replayed
by id needs its reasoning item, and no item may appear twice. Rules, in the order they run (the
registry, :mod:`heal.rules`, lists them; a module named after a rule declares it, as OpenAI's
instance of a rule other providers share):

First what the Responses API cannot take at all, removed from the request only (the stored
history keeps it for the provider that wrote it):

1. ``openai-foreign-reasoning``: reasoning that is not an OpenAI item; it is not an item, yet the
   AI SDK counts it as "preceding reasoning" for the text after it, which then goes out as a
   reference that needs its real reasoning item.
2. ``unverifiable-encrypted-reasoning`` (off by default; named by its error): encrypted reasoning
   the API could not verify is removed; the parts after it in its turn lose their item ids.
3. ``encrypted-reasoning-without-item-id``: encrypted reasoning that lost its item id, which a
   ``reasoning`` input item requires, with the same follow-up (after the rule above, so that
   when that error names it, it accounts for all encrypted reasoning).
4. ``openai-foreign-server-tool`` (:mod:`~heal.rules.server_tools`): another provider's
   provider-executed call (and its result) has no Responses item.
5. ``openai-assistant-file`` (:mod:`~heal.rules.files`; Responses and the Chat Completions
   servers): a file in an assistant message has no form in either wire format.

Then how the remaining items tie together. These run after the removals above, which can leave
reasoning without the item that followed it:

6. ``duplicate-item-id``: an item that a LATER message repeats is removed (reasoning) or sent
   inline (text, tool calls); the parts that followed a removed reasoning copy lose their ids.
7. ``reasoning-without-following-item``: reasoning with nothing after it in its turn (the same
   assistant message, or the assistant message right after it, which continues the turn) is
   removed (vercel/ai#8379).
8. ``openai-orphan-item-id`` (off by default; named by its error): text and tool calls replayed by
   id without any reasoning item before them in their turn lose their ids.

For Chat Completions the shared pairing rules already put every tool message right after its
assistant message (moving results and, with them, pushing intervening messages after the tool
block). What remains, besides ``openai-assistant-file`` above:

9. ``provider-executed-tool-call``: a provider-executed call (web search, code execution: from
   Responses, Anthropic, Google) has no Chat Completions form. The AI SDK chat adapters send it as
   an ordinary ``tool_calls`` entry without a tool message, which the API rejects; it is removed
   with its result (request only). (Responses has ``openai-foreign-server-tool`` instead: it can
   replay OpenAI's own server tools.)

Tool-call id length (OpenAI Chat: 40, Responses and OpenAI-compatible servers: 64) is a profile
fact (:mod:`heal.providers`), enforced by the shared ``invalid-tool-call-id`` rule.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, JsonValue

from heal.messages import (
    ModelMessage,
    Part,
    ReasoningPart,
    TextPart,
    ToolApprovalRequest,
    ToolCallPart,
    ToolResultPart,
)
from heal.providers import providers_where
from heal.repairs import Action, Scope
from heal.rules import _errors as err
from heal.rules._base import Context, DropPart, Example, Finding, Rejection, Rule, SetPart
from heal.rules._options import with_options

__all__ = [
    "CHAT_COMPLETIONS_PROVIDERS",
    "OPENAI_SERVER_ITEM",
    "RESPONSES",
    "DuplicateItemId",
    "EncryptedReasoningWithoutItemId",
    "OpenAIForeignReasoning",
    "OpenAIOrphanItemId",
    "ProviderExecutedToolCall",
    "ReasoningWithoutFollowingItem",
    "UnverifiableEncryptedReasoning",
    "item_id",
]

RESPONSES = frozenset({"openai-responses"})
"""The Responses API: where items, item ids and encrypted reasoning apply."""

CHAT_COMPLETIONS_PROVIDERS = providers_where(lambda p: p.wire == "chat-completions")
"""Providers whose AI SDK adapter sends a Chat Completions style ``messages`` array, in which a
tool call is a ``tool_calls`` entry that must be answered by a ``tool`` message."""

NATIVE_NAMESPACES = ("openai", "azure")
"""Provider-option keys under which the AI SDK's OpenAI adapters keep item ids and encrypted
reasoning (``@ai-sdk/openai`` reads ``openai``; ``@ai-sdk/azure`` reads ``azure``)."""

_P = TypeVar("_P", bound=BaseModel)


# --- provider options ------------------------------------------------------------------------


def _native(
    part: ReasoningPart | TextPart | ToolCallPart | ToolResultPart,
) -> Mapping[str, JsonValue] | None:
    return _native_options(part.provider_options)


def _native_options(options: Mapping[str, Any] | None) -> Mapping[str, JsonValue] | None:
    """The OpenAI adapters' namespace of a part's provider options (``openai``, else
    ``azure``), if it has one."""
    if not options:
        return None
    values = options.get("openai")
    return options.get("azure") if values is None else values


def item_id(part: ReasoningPart | TextPart | ToolCallPart) -> str | None:
    """The OpenAI item id of a part (``providerOptions.openai.itemId``), if it has one."""
    values = _native(part)
    value = values.get("itemId") if values is not None else None
    return value if isinstance(value, str) and value else None


def _encrypted(part: ReasoningPart) -> bool:
    values = _native(part)
    value = values.get("reasoningEncryptedContent") if values is not None else None
    return isinstance(value, str) and bool(value)


def is_reasoning_item(part: ReasoningPart) -> bool:
    """Whether the Responses adapter sends this reasoning part as a ``reasoning`` item: it has an
    OpenAI item id or encrypted content. Anything else is skipped by the adapter with the warning
    ``Non-OpenAI reasoning parts are not supported``."""
    return _is_item(_native(part))


def _is_item(values: Mapping[str, JsonValue] | None) -> bool:
    """:func:`is_reasoning_item` of a reasoning part whose OpenAI namespace is ``values``."""
    if values is None:
        return False
    item = values.get("itemId")
    if isinstance(item, str) and item:
        return True
    encrypted = values.get("reasoningEncryptedContent")
    return isinstance(encrypted, str) and bool(encrypted)


def without_item_id(part: _P) -> tuple[_P, dict[str, JsonValue]]:
    """``part`` without its OpenAI item id, and the removed options (for the repair record)."""
    options: dict[str, dict[str, JsonValue]] = getattr(part, "provider_options", None) or {}
    kept: dict[str, dict[str, JsonValue]] = {}
    removed: dict[str, JsonValue] = {}
    for namespace, values in options.items():
        if namespace in NATIVE_NAMESPACES and "itemId" in values:
            removed[namespace] = {"itemId": values["itemId"]}
            rest = {k: v for k, v in values.items() if k != "itemId"}
            if rest:
                kept[namespace] = rest
        else:
            kept[namespace] = values
    return with_options(part, kept or None), {"providerOptions": removed}


def _turn_parts(ctx: Context) -> Iterator[tuple[int, int, Part | None]]:
    """Each part of the assistant messages, in history order, as (message index, part index,
    part); any other message ends the turn, marked by ``(its index, -1, None)``. A turn's
    reasoning items cover the items after them, across the assistant messages of the turn."""
    roles = ctx.index.roles
    for m, message in enumerate(ctx.messages):
        content = message.content
        if roles[m] != "assistant":
            yield m, -1, None
        elif not isinstance(content, str):
            for p, part in enumerate(content):
                yield m, p, part


def _strip_finding(m: int, p: int, part: TextPart | ToolCallPart, why: str) -> Finding:
    new, removed = without_item_id(part)
    kind = "text" if isinstance(part, TextPart) else "tool call"
    return Finding(
        Action.REPLACE,
        m,
        p,
        f"{kind} item {item_id(part)!r} {why}; its item id removed, so it is sent inline",
        edits=(SetPart(m, p, new),),
        tool_call_id=part.tool_call_id if isinstance(part, ToolCallPart) else None,
        removed=removed,
    )


def _drop_reasoning(m: int, p: int, part: ReasoningPart, why: str) -> Finding:
    return _dropped(m, p, part, _removal(why))


def _removal(why: str) -> str:
    return f"reasoning {why}; removed"


def _dropped(m: int, p: int, part: ReasoningPart, reason: str) -> Finding:
    return Finding(Action.REMOVE, m, p, reason, edits=(DropPart(m, p),), removed=part)


def _assistant_parts(messages: Sequence[ModelMessage], m: int) -> Sequence[object]:
    message = messages[m]
    content = message.content
    if message.role != "assistant":
        return ()
    if isinstance(content, str):
        return (TextPart(text=content),) if content.strip() else ()
    return content


# --- shared examples -------------------------------------------------------------------------


def _reasoning(rid: str, text: str = "") -> dict[str, object]:
    return {
        "type": "reasoning",
        "text": text,
        "providerOptions": {"openai": {"itemId": rid, "reasoningEncryptedContent": None}},
    }


def _text(text: str, iid: str | None = None) -> dict[str, object]:
    part: dict[str, object] = {"type": "text", "text": text}
    if iid is not None:
        part["providerOptions"] = {"openai": {"itemId": iid}}
    return part


def _call(cid: str, name: str = "search", **extra: object) -> dict[str, object]:
    return {"type": "tool-call", "toolCallId": cid, "toolName": name, "input": {}, **extra}


def _result(cid: str, name: str = "search", value: str = "ok") -> dict[str, object]:
    return {
        "type": "tool-result",
        "toolCallId": cid,
        "toolName": name,
        "output": {"type": "text", "value": value},
    }


_ITEM_ORDER_REJECTION = Rejection(
    "openai-responses",
    "Item 'rs_06a2...' of type 'reasoning' was provided without its required following item.",
    "vercel/ai#8379, #7099, #11036; continuedev/continue#8933; mastra-ai/mastra#14048",
    pattern=err.OPENAI_REASONING_WITHOUT_FOLLOWING_ITEM,
)
_UNVERIFIED_REJECTION = Rejection(
    "openai-responses",
    "The encrypted content gAAA...Rg== could not be verified.",
    "openai/codex#8132, #8126, #8119 (code invalid_encrypted_content)",
    pattern=err.OPENAI_ENCRYPTED_CONTENT_NOT_VERIFIED,
)
_MISSING_REASONING_REJECTIONS = (
    Rejection(
        "openai-responses",
        "Item 'msg_07dd...' of type 'message' was provided without its required 'reasoning' item",
        "continuedev/continue#12620; Mastra ProviderHistoryCompat openai-orphan-item-id",
        pattern=err.OPENAI_ITEM_WITHOUT_REASONING,
    ),
    Rejection(
        "openai-responses",
        "Item 'fc_06124...' of type 'function_call' was provided without its required "
        "'reasoning' item: 'rs_0612...'.",
        "vercel/ai#11036 (after pruneMessages removed reasoning)",
        pattern=err.OPENAI_ITEM_WITHOUT_REASONING,
    ),
)


# --- Responses -------------------------------------------------------------------------------


def options_item(options: Mapping[str, Any] | None) -> tuple[str | None, bool]:
    """The OpenAI item id in a part's provider options (None without one: :func:`item_id`) and
    whether they carry encrypted reasoning: a reasoning part is an OpenAI reasoning item
    (:func:`is_reasoning_item`) when either is there."""
    values = _native_options(options)
    if values is None:
        return None, False
    value = values.get("itemId")
    encrypted = values.get("reasoningEncryptedContent")
    return (
        value if isinstance(value, str) and value else None,
        isinstance(encrypted, str) and bool(encrypted),
    )


def encrypted_without_id(part: ReasoningPart) -> bool:
    """Whether ``encrypted-reasoning-without-item-id`` removes ``part``: encrypted OpenAI
    reasoning without its item id (the index's fact ``encrypted_without_item_id``)."""
    return _encrypted(part) and item_id(part) is None


def unfollowed_item(messages: Sequence[ModelMessage], m: int, p: int, part: ReasoningPart) -> bool:
    """Whether ``reasoning-without-following-item`` removes reasoning part ``p`` of message
    ``m``: an OpenAI reasoning item with no other item after it in its turn (the index's fact
    ``reasoning_without_following_item``)."""
    return is_reasoning_item(part) and not _has_following_item(messages, m, p, item_id(part))


class OpenAIForeignReasoning(Rule):
    """Reasoning that the Responses API cannot take: another provider's (no ``openai`` options),
    or OpenAI's without an item id or encrypted content.

    Why: the AI SDK skips such a part with the warning ``Non-OpenAI reasoning parts are not
    supported. Skipping reasoning part: ...``, but still counts it as reasoning preceding the
    next text part, whose item id is then sent as a reference without its reasoning item, which
    the API rejects (``Item 'msg_...' of type 'message' was provided without its required
    'reasoning' item``). Replaying another organisation's or provider's reasoning is rejected
    outright (``could not be verified``).

    Fix: remove the part, for this request only (the reasoning stays valid for the provider that
    wrote it). Never turned into text: another model's thoughts presented as this model's words
    change the conversation.
    """

    id = "openai-foreign-reasoning"
    triggers = frozenset({"reasoning"})
    needs = frozenset({"non_item_reasoning"})
    summary = "reasoning that is not OpenAI's (no openai item id or encrypted content)"
    providers = RESPONSES
    scope = Scope.REQUEST
    choice_docs = {
        "fix": "Remove the reasoning part from this request (it stays in stored history for the "
        "provider that wrote it). The model loses that reasoning text, which the adapter would "
        "have skipped anyway; the part is kept in the repair record.",
    }
    rejections = (
        Rejection(
            "AI SDK (@ai-sdk/openai 3.0.141, Responses)",
            "Non-OpenAI reasoning parts are not supported. Skipping reasoning part: ...",
            "local @ai-sdk/openai 3.0.141 (provider-rules.md §3e)",
            pattern=err.AI_SDK_OPENAI_FOREIGN_REASONING,
        ),
        _MISSING_REASONING_REJECTIONS[0],
        _UNVERIFIED_REJECTION,
    )
    example = Example(
        provider="openai-responses",
        before=[
            {"role": "user", "content": "Plan a trip"},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "reasoning",
                        "text": "The user wants a plan...",
                        "providerOptions": {"anthropic": {"signature": "sig"}},
                    },
                    _text("Here is a 3-day plan."),
                ],
            },
            {"role": "user", "content": "Make it 5 days"},
        ],
        after=[
            {"role": "user", "content": "Plan a trip"},
            {"role": "assistant", "content": [_text("Here is a 3-day plan.")]},
            {"role": "user", "content": "Make it 5 days"},
        ],
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        for m, p, part in ctx.index.reasoning:
            reason = self.drop_reason(part.provider_options)
            if reason is not None:
                yield _dropped(m, p, part, reason)

    @staticmethod
    def drop_reason(options: Mapping[str, Any] | None) -> str | None:
        """Why a reasoning part whose provider options are ``options`` (a model's field, or a
        decoded part's ``providerOptions``: :func:`heal.heal_json` removes such parts from the
        decoded text) is removed; None when it is an OpenAI reasoning item."""
        values = _native_options(options)
        if _is_item(values):
            return None
        if values is not None:
            why = "has no OpenAI item id or encrypted content"
        else:
            names = sorted(options or ())
            why = f"from {', '.join(names)}" if names else "without provider options"
            why += " is not OpenAI's"
        return _removal(f"{why}; the Responses API cannot take it")


class EncryptedReasoningWithoutItemId(Rule):
    """Encrypted OpenAI reasoning (``reasoningEncryptedContent``) without its OpenAI item id
    (``providerOptions.openai.itemId``): the id was lost on the way while the encrypted blob
    was kept (a pydantic-ai ``ThinkingPart(signature=..., provider_name="openai")`` without
    ``id``, ids stripped for ``store: false``, a gateway).

    Why: a ``reasoning`` input item requires its ``id`` in the Responses API's published
    schema (the OpenAI SDK's ``ResponseReasoningItemParam``, generated from it, marks ``id``
    ``Required``; pydantic-ai sends no reasoning item without it), so a history with such a part
    cannot be written as a valid Responses request. Azure's Responses endpoints enforce it:
    replaying encrypted reasoning without its ``id`` fails with HTTP 400 ``invalid_payload``
    (dotnet/extensions#7628, Azure/azure-sdk-for-net#59967; those threads quote only the error
    code). provider-rules.md records no OpenAI error text for it, and the evidence for
    api.openai.com itself is mixed: the AI SDK sends such a part as a reasoning item without
    ``id`` since vercel/ai#12869, whose description says the API accepts it.

    Fix: remove the part from this request (the stored history keeps it), and strip the item ids
    of the text and tool calls that followed it in its turn, as
    ``unverifiable-encrypted-reasoning`` does. The model loses that earlier reasoning for this
    call; the conversation text is intact. Choose ``keep`` to send it as the AI SDK does, to an
    endpoint known to accept it.
    """

    id = "encrypted-reasoning-without-item-id"
    triggers = frozenset({"reasoning"})
    needs = frozenset({"encrypted_without_item_id"})
    summary = "encrypted OpenAI reasoning without the item id a Responses reasoning item requires"
    providers = RESPONSES
    scope = Scope.REQUEST
    choice_docs = {
        "fix": "Remove the reasoning part from this request (the stored history keeps it) and "
        "send the text and tool calls after it in its turn without their item ids. The model's "
        "earlier reasoning is lost for this call; the parts and ids are kept in the repair "
        "records.",
    }
    rejections = (
        Rejection(
            "openai-responses (Azure AI Foundry project Responses endpoint)",
            "invalid_payload",
            "dotnet/extensions#7628, Azure/azure-sdk-for-net#59967 (HTTP 400 when encrypted "
            "reasoning is replayed without its item id; only the error code is quoted)",
            pattern=err.AZURE_INVALID_PAYLOAD,
        ),
    )
    example = Example(
        provider="openai-responses",
        before=[
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "reasoning",
                        "text": "",
                        "providerOptions": {"openai": {"reasoningEncryptedContent": "gAAAA"}},
                    },
                    _text("hello"),
                ],
            },
            {"role": "user", "content": "again"},
        ],
        after=[
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [_text("hello")]},
            {"role": "user", "content": "again"},
        ],
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        dropped = {
            (m, p)
            for m, p, part in ctx.index.reasoning
            if _encrypted(part) and item_id(part) is None
        }
        yield from _drop_with_followers(
            ctx,
            dropped,
            "with encrypted content but no OpenAI item id (a Responses reasoning item "
            "requires its id)",
        )


class UnverifiableEncryptedReasoning(Rule):
    """Encrypted OpenAI reasoning (``reasoningEncryptedContent``) that the API could not verify.

    Why: encrypted reasoning is bound to the organisation, key and model that produced it, and
    was rejected wholesale during the 2025-12-16 incident (openai/codex#8132):
    ``The encrypted content gAAA...Rg== could not be verified.`` There is no telling which part
    is at fault from the history, so the rule is off by default and runs when that error names
    it (see :func:`heal.reactive.heal_after_error`).

    Fix: remove every reasoning part with encrypted content, for this request only. The model
    loses its earlier reasoning; the conversation text is intact.
    """

    id = "unverifiable-encrypted-reasoning"
    triggers = frozenset({"reasoning"})
    summary = "encrypted reasoning that the Responses API could not verify (run on its error)"
    providers = RESPONSES
    scope = Scope.REQUEST
    default_enabled = False
    choice_docs = {
        "fix": "Remove every reasoning part that carries encrypted content from this request. "
        "The model's earlier reasoning is lost for this call; the parts are kept in the repair "
        "records.",
    }
    rejections = (
        _UNVERIFIED_REJECTION,
        Rejection(
            "openai-responses",
            "The encrypted content for item rs_0a18... could not be verified. Reason: Encrypted "
            "content could not be decrypted or parsed.",
            "openai/codex#35334; smallmain/vscode-unify-chat-provider#178",
            pattern=err.OPENAI_ENCRYPTED_CONTENT_NOT_VERIFIED,
        ),
    )
    example = Example(
        provider="openai-responses",
        before=[
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "reasoning",
                        "text": "",
                        "providerOptions": {
                            "openai": {"itemId": "rs_1", "reasoningEncryptedContent": "gAAAA"}
                        },
                    },
                    _text("hello"),
                ],
            },
            {"role": "user", "content": "again"},
        ],
        after=[
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [_text("hello")]},
            {"role": "user", "content": "again"},
        ],
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        dropped = {(m, p) for m, p, part in ctx.index.reasoning if _encrypted(part)}
        yield from _drop_with_followers(
            ctx, dropped, "with encrypted content that was not verified"
        )


def _drop_with_followers(
    ctx: Context, dropped: Collection[tuple[int, int]], why: str
) -> Iterator[Finding]:
    """Remove the reasoning parts at ``dropped`` (message, part) and strip the item ids of the
    text and tool calls that followed them in their turn."""
    if not dropped:
        return
    # The text and tool calls that followed a removed reasoning item in its turn lose their
    # item ids too: sent as references (or with their ids) they would still need the item
    # ("Item 'msg_...' of type 'message' was provided without its required 'reasoning'
    # item"). A reasoning item that stays, later in the turn, covers what follows it.
    lost = False
    for m, p, part in _turn_parts(ctx):
        if part is None:
            lost = False
        elif isinstance(part, ReasoningPart):
            if (m, p) in dropped:
                lost = True
                yield _drop_reasoning(m, p, part, why)
            elif is_reasoning_item(part):
                lost = False
        elif lost and isinstance(part, (TextPart, ToolCallPart)) and item_id(part) is not None:
            yield _strip_finding(m, p, part, "followed a removed reasoning item")


OPENAI_SERVER_ITEM = re.compile(r"(?:ws|fs|ci|ig|mcp)_[a-zA-Z0-9]+")
"""The id of an item of a tool OpenAI runs itself (``web_search_call`` ``ws_``,
``file_search_call`` ``fs_``, ``code_interpreter_call`` ``ci_``, ``image_generation_call``
``ig_``, ``mcp_call`` ``mcp_``). The AI SDK uses it as the toolCallId of the provider-executed
call it reads from such an item, with no item id of its own, and sends the call's result back
as an ``item_reference`` to it."""


class DuplicateItemId(Rule):
    """An OpenAI item id that the request would carry twice: a turn replayed or stored twice, or
    one message item whose several content parts each became a text part with its id.

    Why: ``Duplicate item found with id rs_0468ed37bb668691006993cda255988190ac105e2c82965386.
    Remove duplicate items from your input and try again.`` The AI SDK merges reasoning parts of
    ONE message that share an item id (the summary parts of one reasoning item), but sends every
    text part with an item id as its own item (a reference, or an inline message with that id),
    and one reference per repeated reasoning item in another message.

    Fix: keep the first occurrence. A reasoning copy in a later message is removed, and the text
    and tool calls that followed it in its message lose their item ids (their reasoning item was
    the copy); a repeated text or tool call loses its item id, so it is sent inline instead of by
    reference. Nothing but the duplicate reference is lost.
    """

    id = "duplicate-item-id"
    needs = frozenset({"duplicate_item_ids"})
    summary = "an OpenAI item id (reasoning, message or function call) would be sent twice"
    providers = RESPONSES
    choice_docs = {
        "fix": "Keep the first occurrence; remove reasoning copies in later messages (and drop "
        "the item ids of the parts that followed them); send repeated text and tool calls "
        "inline, without their item id. Loses only the duplicate; removed parts are kept in the "
        "repair records.",
    }
    rejections = (
        Rejection(
            "openai-responses",
            "Duplicate item found with id rs_0468ed37bb668691006993cda255988190ac105e2c82965386. "
            "Remove duplicate items from your input and try again.",
            "continuedev/continue#10723; OpenRouterTeam/ai-sdk-provider#254; vercel/ai#7883",
            pattern=err.OPENAI_DUPLICATE_ITEM,
        ),
    )
    example = Example(
        provider="openai-responses",
        before=[
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [_reasoning("rs_1"), _text("hello", "msg_1")]},
            {"role": "user", "content": "again"},
            {"role": "assistant", "content": [_reasoning("rs_1"), _text("hello", "msg_1")]},
            {"role": "user", "content": "and?"},
        ],
        after=[
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [_reasoning("rs_1"), _text("hello", "msg_1")]},
            {"role": "user", "content": "again"},
            {"role": "assistant", "content": [_text("hello")]},
            {"role": "user", "content": "and?"},
        ],
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        return duplicate_item_findings(ctx.messages, ctx.index.roles)


def duplicate_item_findings(
    messages: Sequence[ModelMessage], roles: Sequence[str]
) -> Iterator[Finding]:
    """``duplicate-item-id``'s findings in ``messages`` (of ``roles``), in history order: the
    rule's check, and the index's fact ``duplicate_item_ids`` (whether there is a first)."""
    first: dict[str, int] = {}  # item id -> the message where it first appears
    for m, message in enumerate(messages):
        content = message.content
        if roles[m] != "assistant" or isinstance(content, str):
            continue
        after_copy = False  # inside the parts that followed a removed reasoning copy
        for p, part in enumerate(content):
            if part.provider_options is None:
                continue
            if isinstance(part, ReasoningPart):
                rid = item_id(part)
                if rid is None:
                    continue
                after_copy = first.setdefault(rid, m) != m
                if after_copy:
                    yield _drop_reasoning(
                        m, p, part, f"item {rid!r} already appeared in an earlier message"
                    )
            elif isinstance(part, (TextPart, ToolCallPart)):
                iid = item_id(part)
                if iid is None:
                    continue
                if (
                    isinstance(part, ToolCallPart)
                    and part.provider_executed
                    and _result_references(content, part.tool_call_id, iid)
                ):
                    # Its result, in this message, is sent as a reference to the same item:
                    # one reference is the whole item (the AI SDK's own web_search output
                    # puts no item id on the call).
                    new, removed = without_item_id(part)
                    yield Finding(
                        Action.REPLACE,
                        m,
                        p,
                        f"provider-executed call item {iid!r} is referenced by its result "
                        "too; its item id removed, so the item is sent once",
                        edits=(SetPart(m, p, new),),
                        tool_call_id=part.tool_call_id,
                        removed=removed,
                    )
                    continue
                if iid in first:
                    yield _strip_finding(m, p, part, "repeats an earlier item")
                elif after_copy:
                    yield _strip_finding(m, p, part, "followed a removed reasoning copy")
                first.setdefault(iid, m)


def _result_references(content: Sequence[object], call_id: str, iid: str) -> bool:
    """Whether a provider-executed result for ``call_id`` in ``content`` is sent as a reference
    to item ``iid`` (the AI SDK references a result by its item id, else by its call id)."""
    for part in content:
        if isinstance(part, ToolResultPart) and part.tool_call_id == call_id:
            values = _native(part)
            ref = values.get("itemId") if values is not None else None
            if (ref if isinstance(ref, str) and ref else part.tool_call_id) == iid:
                return True
    return False


def _has_following_item(messages: Sequence[ModelMessage], m: int, p: int, rid: str | None) -> bool:
    """Whether reasoning part ``p`` of message ``m`` is followed by another item of its turn:
    the rest of its message, then the assistant messages right after it (a split turn)."""
    parts: Sequence[object] = messages[m].content[p + 1 :]
    k = m
    while True:
        for part in parts:
            if isinstance(part, ReasoningPart):
                if not is_reasoning_item(part) or (rid is not None and item_id(part) == rid):
                    continue  # skipped by the adapter, or another summary part of this item
                return False  # the next item is another reasoning item
            if isinstance(part, TextPart):
                if part.text.strip():
                    return True
            elif isinstance(part, (ToolCallPart, ToolResultPart)):
                return True
        k += 1
        if k >= len(messages) or messages[k].role != "assistant":
            return False
        parts = _assistant_parts(messages, k)


class ReasoningWithoutFollowingItem(Rule):
    """An OpenAI reasoning item with no item after it in its turn: trailing reasoning, or an
    assistant message of reasoning only (a stream that stopped after reasoning, pruning, or a
    provider-executed tool whose item was dropped).

    Why: ``Item 'rs_06a2...' of type 'reasoning' was provided without its required following
    item.`` (vercel/ai#8379). The turn may continue in the NEXT assistant message (histories
    split one response into several messages): reasoning followed there by text or a tool call
    is kept.

    Fix: remove the reasoning part; an assistant message left empty is then removed by
    ``empty-message``. What is lost is reasoning that produced nothing the history kept.
    """

    id = "reasoning-without-following-item"
    triggers = frozenset({"reasoning"})
    needs = frozenset({"reasoning_without_following_item"})
    summary = "OpenAI reasoning item with no text or tool call after it in its turn"
    providers = RESPONSES
    choice_docs = {
        "fix": "Remove the reasoning part (and, through empty-message, an assistant message left "
        "empty). Loses only reasoning whose output is not in the history; the part is kept in "
        "the repair record.",
    }
    rejections = (_ITEM_ORDER_REJECTION,)
    example = Example(
        provider="openai-responses",
        before=[
            {"role": "user", "content": "Find today's top AI headline"},
            {
                "role": "assistant",
                "content": [
                    _reasoning("rs_A"),
                    _call("call_1", providerOptions={"openai": {"itemId": "fc_A"}}),
                ],
            },
            {"role": "tool", "content": [_result("call_1", value="...")]},
            {"role": "assistant", "content": [_reasoning("rs_B")]},
            {"role": "user", "content": "Summarize it"},
        ],
        after=[
            {"role": "user", "content": "Find today's top AI headline"},
            {
                "role": "assistant",
                "content": [
                    _reasoning("rs_A"),
                    _call("call_1", providerOptions={"openai": {"itemId": "fc_A"}}),
                ],
            },
            {"role": "tool", "content": [_result("call_1", value="...")]},
            {"role": "user", "content": "Summarize it"},
        ],
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        messages = ctx.messages
        for m, p, part in ctx.index.reasoning:
            if not is_reasoning_item(part):
                continue
            rid = item_id(part)
            if _has_following_item(messages, m, p, rid):
                continue
            name = repr(rid) if rid is not None else "(encrypted)"
            yield _drop_reasoning(m, p, part, f"item {name} has no following item in its turn")


class OpenAIOrphanItemId(Rule):
    """Text or a tool call replayed by OpenAI item id with no reasoning item before it in its
    turn, typically because pruning removed the reasoning (vercel/ai#11036).

    Why: ``Item 'msg_07dd...' of type 'message' was provided without its required 'reasoning'
    item``. A turn without reasoning may also come from a non-reasoning model, whose items need
    none, and the history cannot tell the two apart: the rule is off by default and runs when
    that error names it (Mastra's reactive ``openai-orphan-item-id``).

    Fix: remove the item id (``providerOptions.openai.itemId``), so the part is sent inline as a
    new item rather than as a reference. The content is unchanged.
    """

    id = "openai-orphan-item-id"
    summary = "text or tool call with an OpenAI item id but no reasoning item before it (on error)"
    providers = RESPONSES
    default_enabled = False
    choice_docs = {
        "fix": "Remove the item id so the part is sent inline. Loses only the reference to the "
        "stored item; the old id is kept in the repair record.",
    }
    rejections = _MISSING_REASONING_REJECTIONS
    example = Example(
        provider="openai-responses",
        before=[
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [_text("hello", "msg_1")]},
            {"role": "user", "content": "again"},
        ],
        after=[
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [_text("hello")]},
            {"role": "user", "content": "again"},
        ],
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        reasoned = False  # an OpenAI reasoning item came earlier in this turn
        for m, p, part in _turn_parts(ctx):
            if part is None:
                reasoned = False
            elif isinstance(part, ReasoningPart):
                reasoned = reasoned or is_reasoning_item(part)
            elif (
                isinstance(part, (TextPart, ToolCallPart))
                and not reasoned
                and item_id(part) is not None
            ):
                yield _strip_finding(m, p, part, "has no reasoning item before it")


# --- Chat Completions ------------------------------------------------------------------------


class ProviderExecutedToolCall(Rule):
    """A provider-executed tool call (``providerExecuted: true``: web search, code execution)
    in a history sent to a Chat Completions style API, which has no form for it.

    Why: the AI SDK chat adapters (``@ai-sdk/openai`` chat, ``openai-compatible``, ``deepseek``,
    ``xai``) send it as an ordinary ``tool_calls`` entry and drop its result, so the request has
    a call without a tool message: ``An assistant message with 'tool_calls' must be followed by
    tool messages responding to each 'tool_call_id'. ...``. ``@ai-sdk/mistral`` throws before
    sending: ``Unsupported content type in assistant message: tool-result``.

    Fix: remove the call, its results and its approval request from this request (they stay in
    stored history for the provider that ran the tool). The model no longer sees that the tool
    ran; the surrounding text is kept.
    """

    id = "provider-executed-tool-call"
    triggers = frozenset({"calls"})
    needs = frozenset({"provider_executed"})
    summary = "provider-executed tool call (and its result) sent to a Chat Completions style API"
    providers = CHAT_COMPLETIONS_PROVIDERS
    scope = Scope.REQUEST
    choice_docs = {
        "fix": "Remove the call, its results and its approval request from this request. The "
        "model no longer sees that the provider ran the tool; the parts are kept in the repair "
        "records.",
    }
    rejections = (
        Rejection(
            "openai-chat",
            "An assistant message with 'tool_calls' must be followed by tool messages responding "
            "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
            "call_jJATmoUduQWxi4tRwcQjsodM",
            "aliasrobotics/cai#111; BerriAI/litellm#10083 (the chat adapter sends a provider-"
            "executed call as tool_calls without a tool message: @ai-sdk/openai 3.0.141)",
            pattern=err.OPENAI_TOOL_CALLS_WITHOUT_RESULTS,
        ),
        Rejection(
            "mistral (AI SDK adapter)",
            "Unsupported content type in assistant message: tool-result",
            "local @ai-sdk/mistral 3.0.69 (the interop judge)",
            pattern=err.AI_SDK_MISTRAL_ASSISTANT_TOOL_RESULT,
        ),
    )
    example = Example(
        provider="openai-chat",
        before=[
            {"role": "user", "content": "news?"},
            {
                "role": "assistant",
                "content": [
                    _call("ws_1", "web_search", providerExecuted=True),
                    _result("ws_1", "web_search", "3 results"),
                    _text("Here is the news."),
                ],
            },
            {"role": "user", "content": "thanks"},
        ],
        after=[
            {"role": "user", "content": "news?"},
            {"role": "assistant", "content": [_text("Here is the news.")]},
            {"role": "user", "content": "thanks"},
        ],
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        index = ctx.index
        executed = {
            call.tool_call_id: m for m, _, call in index.calls if call.provider_executed is True
        }
        if not executed:
            return
        client_ids = {call.tool_call_id for _, _, call in index.calls if not call.provider_executed}
        roles = index.roles
        refs: list[tuple[int, int, ToolCallPart | ToolResultPart | ToolApprovalRequest]] = [
            *(ref for ref in index.calls if ref[2].provider_executed is True),
            *(
                ref
                for ref in index.results
                if ref[2].tool_call_id in executed
                and (roles[ref[0]] == "assistant" or ref[2].tool_call_id not in client_ids)
            ),
            *(ref for ref in index.requests if ref[2].tool_call_id in executed),
        ]
        refs.sort(key=lambda ref: (ref[0], ref[1]))
        for m, p, part in refs:
            what = {
                "tool-call": "provider-executed tool call",
                "tool-result": "result of a provider-executed tool call",
            }.get(part.type, "approval request of a provider-executed tool call")
            name = f" to {part.tool_name!r}" if isinstance(part, ToolCallPart) else ""
            yield Finding(
                Action.REMOVE,
                m,
                p,
                f"{what}{name} has no Chat Completions form; removed from this request",
                edits=(DropPart(m, p),),
                tool_call_id=part.tool_call_id,
                removed=part,
            )
