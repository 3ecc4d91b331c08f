"""Rules for Mistral (La Plateforme, and Mistral models behind vLLM or NIM).

Mistral speaks the Chat Completions format, so the OpenAI pack's ``provider-executed-tool-call``
applies to it too (``@ai-sdk/mistral`` throws on a provider-executed result). Its own rules, in
the order they run (the registry, :mod:`heal.rules`, lists them):

1. ``mistral-reasoning-input`` (off by default; named by its error): models without reasoning
   reject reasoning input, which ``@ai-sdk/mistral`` sends as ``thinking`` content. It is
   declared in :mod:`heal.rules.reasoning`, as an instance of the rule for APIs that reject
   reasoning input.
2. ``mistral-tool-call-id``: tool-call ids must be exactly nine letters and digits, which the
   shared id rule cannot reach (it replaces characters with ``_``, which Mistral rejects).
3. ``mistral-user-after-tool``: a user message may not follow a tool message directly.

``mistral-assistant-file`` (:mod:`heal.rules.files`) runs with the file rules, after these.

The AI SDK adapter already sets ``prefix: true`` on a final assistant message, which Mistral
requires (``Expected last role User or Tool (or Assistant with prefix True)``), so no rule does.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Iterator
from hashlib import blake2s
from typing import TYPE_CHECKING

from heal.messages import (
    AssistantMessage,
    ToolApprovalRequest,
    ToolCallPart,
    ToolResultPart,
)
from heal.repairs import Action, Scope
from heal.rules import _errors as err
from heal.rules import _examples as ex
from heal.rules._base import (
    AddMessage,
    Context,
    Example,
    Finding,
    FreshJson,
    IdRenames,
    Rejection,
    Rule,
)
from heal.rules._index import users_after_tool
from heal.rules._options import SYNTHESIZED

if TYPE_CHECKING:
    from heal.providers import ProviderProfile

__all__ = [
    "BRIDGE_TEXT",
    "MistralToolCallId",
    "MistralUserAfterTool",
    "mistral_tool_call_id",
]

MISTRAL = frozenset({"mistral"})

_BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase

BRIDGE_TEXT = "Done."
"""The text of the assistant message heal puts between a tool result and a user message for
Mistral (opencode's choice; avante writes "Ok, I understand."). Short and neutral: it claims
nothing about the tool results, which the model has just read."""

_BRIDGE = AssistantMessage(content=BRIDGE_TEXT, provider_options=SYNTHESIZED)
_BRIDGE_JSON = FreshJson(
    lambda: {
        "role": "assistant",
        "content": BRIDGE_TEXT,
        "providerOptions": {"heal": {"synthesized": True}},
    }
)
"""Its record form (``tests/test_engine.py`` holds it to the message's dump), made new
for each record."""

_IdPart = ToolCallPart | ToolResultPart | ToolApprovalRequest


def mistral_tool_call_id(tool_call_id: str, attempt: int = 0) -> str:
    """The nine-character base62 id heal gives ``tool_call_id`` for Mistral (deterministic: a
    digest of the id; ``attempt`` > 0 salts it after a collision).

    The digits are those of the digest's first 64 bits (every one of the nine is uniform),
    least significant first, written two at a time: a history moved to Mistral renames every
    id, and this is most of the rule's own cost. An ASCII id is encoded without naming the
    error handler, whose lookup costs as much as the digest (the bytes are the same)."""
    text = tool_call_id if attempt == 0 else f"{tool_call_id}\x00{attempt}"
    digest = _BLAKE2S_8.copy()  # a copy of an empty one: cheaper than a call with options
    digest.update(text.encode() if text.isascii() else text.encode("utf-8", "surrogatepass"))
    # The nine digits are those of the value below 62**9; its high and low parts (below 62**5
    # and 62**4) are small ints, whose arithmetic is cheaper than the 64-bit value's.
    high, low = divmod(int.from_bytes(digest.digest(), "big") % _NINE_DIGITS, _FOUR_DIGITS)
    pairs = _PAIRS
    return (
        pairs[low % _PAIR_BASE]
        + pairs[low // _PAIR_BASE]
        + pairs[high % _PAIR_BASE]
        + pairs[high // _PAIR_BASE % _PAIR_BASE]
        + _BASE62[high // _FOUR_DIGITS]
    )


_PAIR_BASE = 62 * 62
_FOUR_DIGITS = _PAIR_BASE * _PAIR_BASE
_NINE_DIGITS = _FOUR_DIGITS * _FOUR_DIGITS * 62
_PAIRS = tuple(low + high for high in _BASE62 for low in _BASE62)
"""Two base62 digits, least significant first, for each value below 62²."""
_BLAKE2S_8 = blake2s(digest_size=8)
"""An empty digest of 64 bits, copied for each id."""


class MistralToolCallId(Rule):
    """A tool-call id that is not exactly nine letters and digits, which is every id OpenAI,
    Anthropic and the AI SDK write (``call_...``, ``toolu_...``).

    Why: ``Tool call id was call_PTLP8xhu3uwZk4l3nlnrrJha but must be a-z, A-Z, 0-9, with a
    length of 9.`` (type ``invalid_function_call``, code 3280).

    Fix: map each id to nine base62 characters from a digest of the whole id (truncation, as
    opencode does, collides for ids like ``call_00_...``), in the call, its results and its
    approval request; a collision with another id takes a salted digest. For this request only:
    other providers take the original ids, which stay in stored history.
    """

    id = "mistral-tool-call-id"
    triggers = frozenset({"calls", "requests", "results"})
    needs = frozenset({"unaccepted_tool_call_ids"})  # the profile holds the nine-character format
    summary = "tool-call id is not exactly 9 letters and digits"
    providers = MISTRAL
    scope = Scope.REQUEST
    choice_docs = {
        "fix": "Replace the id with 9 base62 characters derived from it (deterministic, "
        "collision-checked) in the call, its results and its approval request, for this request "
        "only. Loses nothing; the old id is kept in the repair record.",
    }
    rejections = (
        Rejection(
            "mistral",
            "Tool call id was call_PTLP8xhu3uwZk4l3nlnrrJha but must be a-z, A-Z, 0-9, with a "
            "length of 9.",
            "anomalyco/opencode#1680; langchain-ai/langchain PR#24668; nearai/ironclaw#1241",
            pattern=err.MISTRAL_TOOL_CALL_ID,
        ),
        Rejection(
            "mistral (2024 envelope)",
            '{"object":"error","message":"Tool call id was abc123 but must be a-z, A-Z, 0-9, '
            'with a length of 9.","type":"invalid_request_error","param":null,"code":null}',
            "langchain-ai/langchain PR#24668",
            pattern=err.MISTRAL_TOOL_CALL_ID,
        ),
    )
    example = Example(
        provider="mistral",
        before=[
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": [ex.call("call_PTLP8xhu3uwZk4l3nlnrrJha", "weather")]},
            {"role": "tool", "content": [ex.result("call_PTLP8xhu3uwZk4l3nlnrrJha", "weather")]},
            {"role": "assistant", "content": "Sunny."},
        ],
        after=[
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": [ex.call("2TTSS1unq", "weather")]},
            {"role": "tool", "content": [ex.result("2TTSS1unq", "weather")]},
            {"role": "assistant", "content": "Sunny."},
        ],
    )

    def check(self, ctx: Context, choice: str) -> Iterable[Finding]:
        index = ctx.index
        # Each part with its id, read once from the model's fields (an attribute read on a
        # pydantic model costs several look-ups): every id of a history from another provider
        # is renamed, so this runs over every call and result.
        refs: list[tuple[int, int, _IdPart]] = [*index.calls, *index.results, *index.requests]
        found = [(m, p, part, part.__dict__["tool_call_id"]) for m, p, part in refs]
        found.sort()  # by place: a place is never repeated, so the parts are never compared
        mapping = self.renamed_ids({entry[3] for entry in found}, ctx.profile)
        return () if mapping is None else IdRenames.mapped(found, mapping, self.renamed_why)

    renamed_why = "is not 9 letters and digits"
    """What is wrong with each id :meth:`renamed_ids` renames (its records' reason)."""

    def renamed_ids(self, ids: Iterable[str], profile: ProviderProfile) -> dict[str, str] | None:
        """Each of ``ids`` (every id of a history) not in the profile's exact format, with its
        new id: the renaming its ``check`` makes, which the engine also makes of a history
        plain but for its ids, without the index (a history moved to Mistral is that, nearly
        always). None when there is none. Each id to one no other value of ``ids`` is or
        becomes."""
        exact = profile.tool_call_id_exact_pattern  # Mistral's: nine letters and digits
        if exact is None:
            return None
        fits = exact.fullmatch
        used = set(ids)
        foreign = [tid for tid in used if not fits(tid)]
        if not foreign:
            return None
        used.difference_update(foreign)
        mapping: dict[str, str] = {}
        for old in sorted(foreign):  # sorted: the result does not depend on history order
            attempt = 0
            new = mistral_tool_call_id(old)
            while new in used:
                attempt += 1
                new = mistral_tool_call_id(old, attempt)
            used.add(new)
            mapping[old] = new
        return mapping


class MistralUserAfterTool(Rule):
    """A user message right after a tool message: the model never answered the tool results
    (the turn was cut off, or the caller appended the next question directly).

    Why: ``Unexpected role 'user' after role 'tool'`` (type ``invalid_request_message_order``,
    code 3230). Mistral requires an assistant message between them.

    Fix: insert a short assistant message (``"Done."``, marked ``providerOptions: {"heal":
    {"synthesized": true}}``) between the tool message and the user message, for this request
    only: it is made up, and other providers do not need it.
    """

    id = "mistral-user-after-tool"
    needs = frozenset({"user_after_tool"})
    summary = "user message directly after a tool message"
    providers = MISTRAL
    scope = Scope.REQUEST
    choice_docs = {
        "fix": 'Insert an assistant message "Done." (marked synthesized) between the tool '
        "message and the user message, for this request only. Adds a made-up turn; removes "
        "nothing.",
    }
    rejections = (
        Rejection(
            "mistral",
            "Unexpected role 'user' after role 'tool'",
            "zed-industries/zed#37021; avante PR#2695; datapizza-labs/datapizza-ai#98; "
            "NousResearch/hermes-agent#20154",
            pattern=err.MISTRAL_USER_AFTER_TOOL,
        ),
    )
    example = Example(
        provider="mistral",
        before=[
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": [ex.call("abcDEF123", "weather")]},
            {"role": "tool", "content": [ex.result("abcDEF123", "weather")]},
            {"role": "user", "content": "and tomorrow?"},
        ],
        after=[
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": [ex.call("abcDEF123", "weather")]},
            {"role": "tool", "content": [ex.result("abcDEF123", "weather")]},
            {"role": "assistant", "content": BRIDGE_TEXT, "providerOptions": SYNTHESIZED},
            {"role": "user", "content": "and tomorrow?"},
        ],
    )

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        empty = ctx.index.empty  # an empty tool message is removed by empty-message instead
        for user in users_after_tool(ctx.index):
            i = user - 1  # the tool message
            if i not in empty:
                yield Finding(
                    Action.INSERT,
                    None,
                    None,
                    "user message right after a tool message; added an assistant message "
                    f"{BRIDGE_TEXT!r} between them",
                    edits=(AddMessage(i, _BRIDGE),),
                    added=_BRIDGE_JSON,
                    anchor=i,
                )
