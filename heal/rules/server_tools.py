"""Provider-executed tool calls the target did not run (``*-foreign-server-tool``).

Another provider's server tool (web search, code execution) is stored as a provider-executed
call with its result inside the assistant message. A provider that did not run it has no block
for it: its adapter sends it as a client call with no result, or drops it, which can leave a
message empty. One rule, :class:`ForeignServerTool`, declared once per provider with what makes
a call that provider's own (``native``): Anthropic's ``srvtoolu_`` ids, Gemini's server-tool
metadata, OpenAI's items; Bedrock Converse runs no tools itself, so no call is its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from heal.messages import ToolCallPart
from heal.repairs import Action, Scope
from heal.rules import _errors as err
from heal.rules import _examples as ex
from heal.rules._base import Context, DropPart, Example, FamilyRule, Finding, Rejection
from heal.rules._options import HEAL_NAMESPACE, namespaces
from heal.rules.google import GOOGLE_NAMESPACES
from heal.rules.openai import OPENAI_SERVER_ITEM, RESPONSES, item_id
from heal.rules.reasoning import ANTHROPIC_SIGNING, BEDROCK_SIGNING, Signing, signed_guard

__all__ = [
    "ANTHROPIC_FOREIGN_SERVER_TOOL",
    "BEDROCK_TOOL_RESULT_COUNT",
    "GOOGLE_FOREIGN_SERVER_TOOL",
    "OPENAI_FOREIGN_SERVER_TOOL",
    "ForeignServerTool",
]


@dataclass(frozen=True, slots=True)
class ServerTools:
    """A provider's facts for :class:`ForeignServerTool`."""

    target: str
    """The provider's name in findings ("Anthropic")."""
    native: Callable[[ToolCallPart], bool]
    """Whether the provider ran (and can replay) this provider-executed call."""
    signing: Signing | None = None
    """Whose latest signed thinking no edit may touch (None: the provider signs nothing)."""


class ForeignServerTool(FamilyRule[ServerTools]):
    """A provider-executed call the target did not run: removed from the request with its
    results and its approval request."""

    triggers = frozenset({"calls"})
    needs = frozenset({"provider_executed"})
    scope = Scope.REQUEST
    choices = ("drop",)
    choice_docs = {
        "drop": "Remove the provider-executed call, its results and its approval request from "
        "this request (the stored history keeps them). The removed parts are kept in the "
        "repair records.",
    }

    def protects(self, ctx: Context) -> tuple[int, ...]:
        return signed_guard(ctx, self.facts.signing)

    @property
    def may_protect(self) -> bool:
        return self.facts.signing is not None  # a provider that signs nothing: no guard

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        index = ctx.index
        if not index.calls:
            return
        target, native = self.facts.target, self.facts.native
        dropped: set[str] = set()
        for m, p, call in index.calls:
            if not call.provider_executed or native(call):
                continue
            if m in ctx.protected:
                # The adapter drops such a call on its own, but this message must not change:
                # no edit is safe, so say so instead of letting the request fail.
                yield Finding(
                    Action.REPORT,
                    m,
                    p,
                    f"provider-executed call to {call.tool_name!r} ran elsewhere and cannot "
                    f"be sent to {target}, but it sits in a message that must not be edited "
                    "(the latest with signed thinking); end the turn with a user message first",
                    tool_call_id=call.tool_call_id,
                )
                continue
            dropped.add(call.tool_call_id)
            yield Finding(
                Action.REMOVE,
                m,
                p,
                f"provider-executed call to {call.tool_name!r} has no {target} server-tool "
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


def _web_search(cid: str) -> list[dict[str, Any]]:
    """An assistant message's content: a web search ``cid`` that found nothing, and text."""
    return [
        ex.call(cid, "web_search", providerExecuted=True),
        ex.tool_result(cid, "web_search", {"type": "json", "value": []}),
        ex.text("Nothing new."),
    ]


def _example(cid: str, provider: str) -> Example:
    """The web search ``cid`` ran elsewhere, replayed to ``provider``: call and result go."""
    return Example(
        before=[
            ex.user("news?"),
            {"role": "assistant", "content": _web_search(cid)},
            ex.user("ok"),
        ],
        after=[
            ex.user("news?"),
            {"role": "assistant", "content": [ex.text("Nothing new.")]},
            ex.user("ok"),
        ],
        provider=provider,
    )


# --- Anthropic -------------------------------------------------------------------------------

_ANTHROPIC_SERVER_ID = re.compile(r"(?:srvtoolu|mcptoolu)_[a-zA-Z0-9_]+")


def _anthropic_ran(call: ToolCallPart) -> bool:
    return _ANTHROPIC_SERVER_ID.fullmatch(call.tool_call_id) is not None


ANTHROPIC_FOREIGN_SERVER_TOOL = ForeignServerTool(
    id="anthropic-foreign-server-tool",
    doc="""A provider-executed call sent to Anthropic that Anthropic did not run.

    Anthropic's own server tools have ``srvtoolu_`` ids (``mcptoolu_`` for MCP), and their
    blocks are only valid with those ids; another provider's web search or code execution
    (``ws_...``, ``fc-...``) is rejected, or dropped by the AI SDK adapter, which can leave an
    empty message.
    """,
    summary="provider-executed tool call that Anthropic did not run (id not srvtoolu_/mcptoolu_)",
    providers=frozenset({"anthropic"}),
    rejections=(
        Rejection(
            "anthropic",
            "***.content.2.server_tool_use.id: String should match pattern "
            "'^srvtoolu_[a-zA-Z0-9_]+$'",
            "ding113/claude-code-hub#470",
            pattern=err.ANTHROPIC_TOOL_USE_ID_PATTERN,
        ),
        Rejection(
            "anthropic",
            "messages.0: all messages must have non-empty content except for the optional final "
            "assistant message",
            "anthropics/claude-code#6774 (an assistant message emptied by the adapter's drops)",
            pattern=err.ANTHROPIC_EMPTY_MESSAGE,
        ),
    ),
    example=_example("ws_01", "anthropic"),
    facts=ServerTools("Anthropic", _anthropic_ran, ANTHROPIC_SIGNING),
)


# --- Google ----------------------------------------------------------------------------------


def _gemini_ran(call: ToolCallPart) -> bool:
    options = namespaces(call)
    heal = options.get(HEAL_NAMESPACE)
    if isinstance(heal, dict) and isinstance(heal.get("gemini"), dict):
        return True  # a native Gemini part kept by heal.adapters.gemini
    return any(
        isinstance(options.get(ns), dict)
        and options[ns].get("serverToolCallId") is not None
        and options[ns].get("serverToolType") is not None
        for ns in GOOGLE_NAMESPACES
    )


GOOGLE_FOREIGN_SERVER_TOOL = ForeignServerTool(
    id="google-foreign-server-tool",
    doc="""A provider-executed call sent to Gemini that Gemini did not run.

    Gemini's own server tools carry ``serverToolCallId`` and ``serverToolType`` in their Google
    provider options and go back as ``toolCall``/``toolResponse`` parts (parts loaded by
    :mod:`heal.adapters.gemini` keep their native form and count too). Any other
    provider-executed call (Anthropic web search, OpenAI code interpreter, and the AI SDK's own
    ``code_execution`` calls, which keep no such metadata) is sent by the AI SDK google adapter
    as a ``functionCall`` whose result, kept in the assistant message, it drops: a function
    call with no function response.
    """,
    summary="provider-executed tool call that cannot go back to Gemini as a server-tool part",
    providers=frozenset({"google"}),
    rejections=(
        Rejection(
            "google",
            "Please ensure that the number of function response parts is equal to the number "
            "of function call parts of the function call turn.",
            "google-gemini/gemini-cli#4217, #5443 (a function call without its response)",
            pattern=err.GOOGLE_FUNCTION_RESPONSE_COUNT,
        ),
    ),
    example=_example("srvtoolu_01", "google"),
    facts=ServerTools("Gemini", _gemini_ran),
)


# --- OpenAI Responses ------------------------------------------------------------------------


def _openai_ran(call: ToolCallPart) -> bool:
    if item_id(call) is not None:
        return True
    mine = namespaces(call).get(HEAL_NAMESPACE)
    # "openai_responses" is heal.adapters.openai_responses.NAMESPACE (not imported: the
    # adapters import the rules); "item" holds a server-tool item read verbatim.
    kept = mine.get("openai_responses") if isinstance(mine, dict) else None
    if isinstance(kept, dict) and isinstance(kept.get("item"), dict):
        return True
    return OPENAI_SERVER_ITEM.fullmatch(call.tool_call_id) is not None


OPENAI_FOREIGN_SERVER_TOOL = ForeignServerTool(
    id="openai-foreign-server-tool",
    doc="""A provider-executed call sent to the Responses API that OpenAI did not run: another
    provider's server tool (Anthropic's web search, Gemini's code execution).

    OpenAI's own server-tool calls go back as items: a call read from Responses input (kept
    verbatim by :mod:`heal.adapters.openai_responses`), one carrying an OpenAI item id, or one
    whose toolCallId is the id of an OpenAI server-tool item (``ws_...``, ``ci_...``: how the AI
    SDK keeps them). Anything else has no Responses item: the AI SDK skips the call without a
    warning and, with ``store: true``, sends its result as an ``item_reference`` to the other
    provider's id, which names no OpenAI item (with ``store: false`` it skips the result with a
    warning, or writes a web search result as a ``web_search_call`` carrying that id).
    provider-rules.md records no OpenAI error text for these requests; heal's own Responses
    dump has no form for such a call and refuses it.

    Fix (``drop``): remove the call, its results and its approval request from this request
    (the stored history keeps them for the provider that ran the tool). The model no longer sees
    that the tool ran; the text around it is kept. A call from a Responses conversation whose
    toolCallId is not an item id and that carries no item id (the AI SDK's MCP calls after an
    approval, which keep the item id on the result only) counts as foreign too, and is lost
    the same way.
    """,
    summary="provider-executed tool call that OpenAI did not run (no OpenAI item behind it)",
    providers=RESPONSES,
    rejections=(
        Rejection(
            "AI SDK (@ai-sdk/openai 3.0.141, Responses, store: false)",
            "Results for OpenAI tool web_search are not sent to the API when store is false",
            "local @ai-sdk/openai 3.0.141 (convertToOpenAIResponsesInput; the call itself is "
            "skipped without a warning)",
            pattern=err.AI_SDK_OPENAI_SERVER_TOOL_RESULTS,
        ),
        Rejection(
            "openai-responses (heal.adapters.openai_responses)",
            "a provider-executed tool call without an OpenAI item id cannot be represented as "
            "a Responses input item",
            "heal's own Responses dump (tests/adapters/test_cross_format.py): the wire format "
            "has no item for another provider's server tool",
            pattern=err.HEAL_RESPONSES_FOREIGN_SERVER_TOOL,
        ),
    ),
    example=_example("srvtoolu_01", "openai-responses"),
    facts=ServerTools("OpenAI Responses", _openai_ran),
)


# --- Bedrock Converse ------------------------------------------------------------------------


def _converse_ran(call: ToolCallPart) -> bool:
    del call
    return False  # Converse runs no tools itself


BEDROCK_TOOL_RESULT_COUNT = ForeignServerTool(
    id="bedrock-tool-result-count",
    doc="""A tool call whose result Converse cannot receive: a provider-executed call.

    Converse pairs every ``toolUse`` of an assistant turn with one ``toolResult`` in the next
    user turn. Converse runs no tools itself, so provider-executed calls in a history (another
    provider's web search or code execution) go out as ``toolUse`` blocks while their results,
    stored inside the assistant message, have no Converse block: the counts no longer match.
    (Client calls are paired by the shared pairing rules.)
    """,
    summary="provider-executed tool call (another provider's server tool) sent to Bedrock",
    providers=frozenset({"bedrock"}),
    rejections=(
        Rejection(
            "bedrock",
            "Expected toolResult blocks at messages.2.content for the following Ids: "
            "tooluse_jQ912rboYgzgLULQpRxWot, tooluse_...",
            "agno-agi/agno#6698; genkit-ai/aws-bedrock-js-plugin#664",
            pattern=err.BEDROCK_MISSING_TOOL_RESULTS,
        ),
        Rejection(
            "bedrock",
            "The number of toolResult blocks at messages.2.content exceeds the number of "
            "toolUse blocks of previous turn.",
            "Just-Curieous/Curie#16; pydantic/pydantic-ai#2327",
            pattern=err.BEDROCK_EXTRA_TOOL_RESULTS,
        ),
    ),
    example=_example("srvtoolu_01", "bedrock"),
    facts=ServerTools("Bedrock", _converse_ran, BEDROCK_SIGNING),
)
