"""Reasoning a provider cannot take, and the signed thinking no rule may touch.

Anthropic (and Claude on Bedrock Converse) replays thinking only when it can verify it: a
reasoning part needs the signature the platform issued, under that platform's provider-options
namespace (:class:`Signing`), and the latest assistant message holding signed thinking must go
back byte-identical. So every rule for those providers protects that message (see
:func:`latest_signed`; :class:`ProtectSigned` for a provider's own rules, :func:`signed_guard`
in the family rules): no rule, shared ones included, edits its content, except to remove
reasoning that cannot go back as a signed block at all (unsigned, or another provider's): it is
not one of the signed blocks the provider wants back unmodified.

The families here, each declared once per provider:

* :class:`UnsignedReasoning` (``anthropic-unsigned-reasoning``, ``bedrock-unsigned-reasoning``):
  reasoning without the provider's signature.
* :class:`ForeignReasoning` (``anthropic-strip-foreign-reasoning-content``): reasoning that
  carries only other providers' namespaces. (Bedrock's unsigned rule removes such parts itself;
  ``google-foreign-thought-signature`` and ``openai-foreign-reasoning`` judge more than
  provenance and stay in their packs.)
* :class:`RejectedReasoning` (``cerebras-strip-reasoning-content``,
  ``groq-unsupported-reasoning``, ``mistral-reasoning-input``): every reasoning part, for APIs
  that reject reasoning input.

And where thinking sits in an assistant message, for Anthropic and Bedrock (Claude applies the
same layout rules on both): it must start the message and must not end the final one.

* :class:`ReasoningOnlyMessage` (``anthropic-reasoning-only-message``,
  ``bedrock-reasoning-only-message``): a message of reasoning alone.
* :class:`ReasoningNotFirst` (``anthropic-reasoning-not-first``,
  ``bedrock-reasoning-not-first``): text or tool calls before the reasoning.
* :class:`TrailingReasoning` (``anthropic-trailing-reasoning``, ``bedrock-trailing-reasoning``):
  the final message ends with reasoning.

A message in a layout the provider rejects is fixed even when it is the protected one: see
:data:`OVER_PROTECTION`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from heal.messages import ModelMessage, Part, ReasoningPart
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
    Rule,
    SetPart,
)
from heal.rules._options import foreign_namespaces, with_options
from heal.rules._sendable import nothing_else

if TYPE_CHECKING:
    from heal.targets import Target

__all__ = [
    "ANTHROPIC_FOREIGN_REASONING",
    "ANTHROPIC_REASONING_NOT_FIRST",
    "ANTHROPIC_REASONING_ONLY_MESSAGE",
    "ANTHROPIC_SIGNING",
    "ANTHROPIC_TRAILING_REASONING",
    "ANTHROPIC_UNSIGNED_REASONING",
    "BEDROCK_REASONING_NOT_FIRST",
    "BEDROCK_REASONING_ONLY_MESSAGE",
    "BEDROCK_SIGNING",
    "BEDROCK_TRAILING_REASONING",
    "BEDROCK_UNSIGNED_REASONING",
    "CEREBRAS_STRIP_REASONING_CONTENT",
    "GROQ_UNSUPPORTED_REASONING",
    "MISTRAL_REASONING_INPUT",
    "OVER_PROTECTION",
    "ForeignReasoning",
    "Placement",
    "ProtectSigned",
    "ReasoningNotFirst",
    "ReasoningOnlyMessage",
    "RejectedReasoning",
    "Signing",
    "TrailingReasoning",
    "UnsignedReasoning",
    "latest_signed",
    "reasoning_only",
    "signed_guard",
]


# --- signatures and the protected message ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Signing:
    """Where a provider reads the signatures that make reasoning replayable."""

    namespace: str
    """The provider-options namespace its adapter reads signatures from."""
    keys: tuple[str, ...]
    """Keys whose non-empty string value makes a reasoning part replayable."""

    def signs(self, part: Part) -> bool:
        """Whether ``providerOptions[namespace]`` holds a non-empty string under one of
        ``keys``."""
        all_options = part.provider_options
        if all_options is None:
            return False
        options = all_options.get(self.namespace)
        if not isinstance(options, dict):
            return False
        return any(isinstance(options.get(key), str) and options[key] for key in self.keys)


ANTHROPIC_SIGNING = Signing("anthropic", ("signature", "redactedData"))
"""Anthropic's signatures: the AI SDK anthropic adapter parses ``providerOptions.anthropic`` and
nothing else (for Vertex and Bedrock Claude too), and replays ``signature`` (or ``redactedData``
for redacted thinking)."""

BEDROCK_SIGNING = Signing("bedrock", ("signature", "redactedData", "redactedContent"))
"""Bedrock Converse's signatures: the AI SDK bedrock adapter reads them from
``providerOptions.bedrock``."""


def reasoning_only(message: ModelMessage) -> bool:
    """Whether an assistant message holds reasoning parts and nothing else."""
    content = message.content
    return (
        message.role == "assistant"
        and not isinstance(content, str)
        and bool(content)
        and all(isinstance(part, ReasoningPart) for part in content)
    )


def latest_signed(ctx: Context, signing: Signing) -> tuple[int, ...]:
    """The index of the latest assistant message holding signed thinking, as a 1-tuple (or
    empty). A message of nothing but reasoning is skipped: it is never sent as it is (the
    reasoning-only rule removes it whole, which re-encodes none of its blocks)."""
    messages = ctx.messages
    skipped = -1
    for m, _, part in reversed(ctx.index.reasoning):
        if m == skipped or not signing.signs(part):
            continue
        if reasoning_only(messages[m]):
            skipped = m
            continue
        return (m,)
    return ()


def signed_guard(ctx: Context, signing: Signing | None) -> tuple[int, ...]:
    """What a rule for a provider that verifies signatures protects (its :meth:`Rule.protects`):
    the latest message with signed thinking; nothing when ``signing`` is None (a provider that
    signs nothing) or the history has no reasoning."""
    if signing is None or not ctx.index.reasoning:
        return ()
    return latest_signed(ctx, signing)


class ProtectSigned(Rule):
    """Base of a provider's own rules when that provider wants its latest signed thinking back
    byte-identical: set ``signing``."""

    signing: Signing

    def protects(self, ctx: Context) -> tuple[int, ...]:
        return signed_guard(ctx, self.signing)

    def is_signed(self, part: Part) -> bool:
        """Whether the part carries this provider's signature (or redacted data)."""
        return self.signing.signs(part)


BESIDE_SIGNED = (
    " (it sits in the latest message with signed thinking, whose signed blocks go out "
    "unchanged: this part is not one of them and cannot be sent as one)"
)
"""Added to the reason when reasoning a provider cannot take is removed from the latest message
with signed thinking (which no rule edits otherwise)."""


# --- unsigned reasoning ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Unsigned:
    """A provider's facts for :class:`UnsignedReasoning`."""

    signing: Signing
    unsigned: str
    """What an unsigned part is, in its finding: ``{part}`` reads "reasoning part" or "empty
    reasoning part", ``{stray}`` names a signature kept outside ``providerOptions``."""
    foreign: str | None = None
    """What another provider's reasoning is, in its finding (``{namespaces}``); None when a
    :class:`ForeignReasoning` rule removes it instead."""
    beside_signed: str = BESIDE_SIGNED
    """Added to the finding when the part sits in the protected message."""


class UnsignedReasoning(FamilyRule[Unsigned]):
    """Reasoning without the target's signature: removed from the request (or, under
    ``empty-signature``, sent with an empty one)."""

    triggers = frozenset({"reasoning"})
    scope = Scope.REQUEST
    edits_protected = True  # removes what the provider cannot take, beside signed thinking
    choices = ("drop",)
    choice_docs = {
        "drop": "Remove the reasoning part from this request; never turn it into text. The "
        "part is kept in the repair record.",
    }

    def protects(self, ctx: Context) -> tuple[int, ...]:
        return signed_guard(ctx, self.facts.signing)

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        if not ctx.index.reasoning:
            return
        facts = self.facts
        signing = facts.signing
        protected = ctx.protected
        for m, p, part in ctx.index.reasoning:
            if signing.signs(part):
                continue
            foreign = foreign_namespaces(part, (signing.namespace,))
            if foreign:
                if facts.foreign is None:
                    continue  # the foreign-reasoning rule's finding
                what = facts.foreign.format(namespaces=", ".join(foreign))
            elif choice == "empty-signature" and part.text:
                yield from self._mark(m, p, part)
                continue
            else:
                what = facts.unsigned.format(
                    part="empty reasoning part" if not part.text else "reasoning part",
                    stray=_stray_signature(part, signing.namespace),
                )
            yield Finding(
                Action.REMOVE,
                m,
                p,
                f"{what}; removed from the request"
                + (facts.beside_signed if m in protected else ""),
                edits=(DropPart(m, p),),
                removed=part,
            )

    def _mark(self, m: int, p: int, part: ReasoningPart) -> Iterator[Finding]:
        namespace = self.facts.signing.namespace
        values = (part.provider_options or {}).get(namespace) or {}
        if values.get("signature") == "":
            return  # already marked for a server that does not sign
        marked = with_options(
            part, {**(part.provider_options or {}), namespace: {**values, "signature": ""}}
        )
        yield Finding(
            Action.REPLACE,
            m,
            p,
            'reasoning part has no signature; sent with signature "" for a server '
            "that does not sign thinking",
            edits=(SetPart(m, p, marked),),
            removed={"providerOptions": part.provider_options},
            added={"providerOptions": marked.provider_options},
        )


def _stray_signature(part: ReasoningPart, namespace: str) -> str:
    extra = part.model_extra or {}
    for field, value in extra.items():
        if (
            isinstance(value, dict)
            and isinstance(value.get(namespace), dict)
            and value[namespace].get("signature")
        ):
            return f" (the one in {field} is not sent: only providerOptions counts)"
    return ""


ANTHROPIC_UNSIGNED_REASONING = UnsignedReasoning(
    id="anthropic-unsigned-reasoning",
    doc="""A reasoning part without an Anthropic signature or redacted data.

    Anthropic replays a thinking block only with the signature it issued
    (``providerOptions.anthropic.signature``) or as redacted thinking
    (``providerOptions.anthropic.redactedData``). A signature stored anywhere else (say a
    ``providerMetadata`` field kept from a response) is not sent, so it does not count. This
    also covers empty unsigned thinking; signed thinking with empty text is valid (Opus 4.7+
    omits thinking text) and is kept. Typical causes: vercel/ai#11602 (multi-step responses
    lost their signatures), ``extractReasoningMiddleware``, metadata dropped in storage.

    The latest message with signed thinking is no exception, although no other rule edits it:
    Anthropic wants its ``thinking`` and ``redacted_thinking`` blocks back unmodified
    (provider-rules.md §1(e)), and an unsigned part cannot go back as such a block at all (the
    signature is required). The AI SDK anthropic adapter leaves it out of every request (warning
    "unsupported reasoning metadata"); heal does the same with a record, so the signed blocks go
    out byte-identical. If the part was Anthropic's own thinking that lost its signature,
    Anthropic may still see that message as modified; only the stored signature can fix that.
    """,
    summary="reasoning part has no providerOptions.anthropic signature or redactedData",
    providers=frozenset({"anthropic"}),
    choices=("drop", "empty-signature"),
    choice_docs={
        "drop": "Remove the reasoning part from this request; never turn it into text "
        "(Anthropic refuses replayed reasoning as text). The part is kept in the repair record.",
        "empty-signature": "For Anthropic-compatible servers that do not sign thinking but "
        "require it back (DeepSeek's /anthropic endpoint, Kimi): keep the part and send it with "
        'signature "" (provider-rules.md §7, §14 R1). Loses nothing; empty thinking is still '
        "removed (a thinking block must contain thinking). Anthropic itself rejects it.",
    },
    rejections=(
        Rejection(
            "anthropic",
            "messages.2.content.1.thinking.signature: Field required",
            "JohnnyZ93/oai-compatible-copilot#217; anomalyco/opencode#25005 (via Bedrock)",
            pattern=err.ANTHROPIC_THINKING_SIGNATURE_REQUIRED,
        ),
        Rejection(
            "anthropic",
            "messages.1.content.0.thinking: each thinking block must contain thinking",
            "caozhiyuan/copilot-api#54; anomalyco/opencode#11571",
            pattern=err.ANTHROPIC_EMPTY_THINKING,
        ),
        Rejection(
            "anthropic",
            "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
            "`text`. When `thinking` is enabled, a final `assistant` message must start with a "
            "thinking block (preceeding the lastmost set of `tool_use` and `tool_result` "
            "blocks). We recommend you include thinking blocks from previous turns. To avoid "
            "this requirement, disable `thinking`. Please consult our documentation at "
            "https://docs.claude.com/en/docs/build-with-claude/extended-thinking",
            "vercel/ai#8865; OpenRouterTeam/ai-sdk-provider#162",
            pattern=err.ANTHROPIC_EXPECTED_THINKING_FIRST,
        ),
        Rejection(
            "anthropic",
            "all messages must have non-empty content except for the optional final assistant "
            "message",
            "CoreInfraAI/opencode-plugin PR#6 (an unsigned reasoning-only turn sent as "
            "content: [])",
            pattern=err.ANTHROPIC_EMPTY_MESSAGE,
        ),
    ),
    example=Example(
        before=[
            ex.user("think about this"),
            {
                "role": "assistant",
                "content": [
                    {"type": "reasoning", "text": "hmm the user wants..."},
                    ex.text("here you go"),
                ],
            },
        ],
        after=[
            ex.user("think about this"),
            {"role": "assistant", "content": [ex.text("here you go")]},
        ],
        provider="anthropic",
    ),
    facts=Unsigned(ANTHROPIC_SIGNING, unsigned="{part} has no Anthropic signature{stray}"),
)

BEDROCK_UNSIGNED_REASONING = UnsignedReasoning(
    id="bedrock-unsigned-reasoning",
    doc="""A reasoning part without a Bedrock signature or redacted content.

    Converse replays reasoning only as ``reasoningText`` with its ``signature`` or as redacted
    content, taken from ``providerOptions.bedrock``. Reasoning from other providers (even
    Anthropic-signed Claude thinking: the signature belongs to another platform) and reasoning
    that lost its signature are rejected. (AI SDK bedrock since PR#17602 omits it silently.)
    Such a part is removed from the latest message with Bedrock-signed thinking too, which no
    other rule edits: it is not one of the signed blocks that must go back unmodified, and it
    cannot be sent as one.
    """,
    summary="reasoning part has no providerOptions.bedrock signature or redacted content",
    providers=frozenset({"bedrock"}),
    rejections=(
        Rejection(
            "bedrock",
            "User messages cannot contain reasoning content.",
            "vercel/ai#7034 (unsigned reasoning from extractReasoningMiddleware); PR#17602",
            pattern=err.BEDROCK_REASONING_IN_USER_MESSAGE,
        ),
        Rejection(
            "bedrock (Claude)",
            "messages.647.content.0.thinking.signature: Field required",
            "anomalyco/opencode#25005",
            pattern=err.ANTHROPIC_THINKING_SIGNATURE_REQUIRED,
        ),
    ),
    example=Example(
        before=[
            ex.user("Plan a trip"),
            {
                "role": "assistant",
                "content": [
                    {"type": "reasoning", "text": "The user wants a plan..."},
                    ex.text("Here is a plan."),
                ],
            },
            ex.user("Make it longer"),
        ],
        after=[
            ex.user("Plan a trip"),
            {"role": "assistant", "content": [ex.text("Here is a plan.")]},
            ex.user("Make it longer"),
        ],
        provider="bedrock",
    ),
    facts=Unsigned(
        BEDROCK_SIGNING,
        unsigned="reasoning part without a Bedrock signature cannot be replayed to Bedrock",
        foreign="reasoning from another provider ({namespaces}) cannot be replayed to Bedrock",
        beside_signed=" (the latest message with signed thinking keeps its signed blocks "
        "unchanged)",
    ),
)


# --- foreign reasoning -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Foreign:
    """A provider's facts for :class:`ForeignReasoning`."""

    signing: Signing
    what: str
    """What the part is, in its finding (``{namespaces}``: the namespaces it carries)."""


class ForeignReasoning(FamilyRule[Foreign]):
    """Reasoning that carries only other providers' namespaces, for a provider that verifies
    signatures: removed from the request, from the protected message too."""

    triggers = frozenset({"reasoning"})
    scope = Scope.REQUEST
    edits_protected = True  # removes what the provider cannot take, beside signed thinking
    choices = ("drop",)
    choice_docs = {
        "drop": "Remove the reasoning part from this request (the stored history keeps it for "
        "its own provider). The part is kept in the repair record.",
    }

    def protects(self, ctx: Context) -> tuple[int, ...]:
        return signed_guard(ctx, self.facts.signing)

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        if not ctx.index.reasoning:
            return
        native = (self.facts.signing.namespace,)
        protected = ctx.protected
        for m, p, part in ctx.index.reasoning:
            foreign = foreign_namespaces(part, native)
            if not foreign:
                continue
            yield Finding(
                Action.REMOVE,
                m,
                p,
                self.facts.what.format(namespaces=", ".join(foreign))
                + "; removed from the request"
                + (BESIDE_SIGNED if m in protected else ""),
                edits=(DropPart(m, p),),
                removed=part,
            )


ANTHROPIC_FOREIGN_REASONING = ForeignReasoning(
    id="anthropic-strip-foreign-reasoning-content",
    doc="""A reasoning part that another provider produced, replayed to Anthropic.

    Provenance is the part's provider options: only ``providerOptions.anthropic`` is Anthropic's.
    Reasoning that carries only other namespaces (``openai``, ``google``, ``bedrock``, ...) has
    no signature Anthropic can verify, and a foreign signature is rejected outright. The part is
    removed, never turned into text: Anthropic refuses reasoning replayed as assistant text
    (``stop_reason: refusal``, ``reasoning_extraction``; can1357/oh-my-pi#7241).

    It is removed from the latest message with signed thinking too, which no other rule edits:
    Anthropic wants that message's ``thinking`` and ``redacted_thinking`` blocks back unmodified
    (provider-rules.md §1(e)), and this part is not one of them. It cannot go back as a thinking
    block at all (it has no Anthropic signature), so the AI SDK anthropic adapter leaves it out
    of every request anyway (warning "unsupported reasoning metadata"); heal does the same with
    a record, and the signed blocks around it go out byte-identical.
    """,
    summary=(
        "reasoning part from another provider (no providerOptions.anthropic) sent to Anthropic"
    ),
    providers=frozenset({"anthropic"}),
    rejections=(
        Rejection(
            "anthropic",
            "messages.1.content.0: Invalid `signature` in `thinking` block",
            "ding113/claude-code-hub#518; anomalyco/opencode#6418 (GLM/MiniMax to Opus); "
            "can1357/oh-my-pi#6379 (Kimi to Anthropic); genkit-dart PR#400 (a Gemini "
            "thoughtSignature sent as an Anthropic signature)",
            pattern=err.ANTHROPIC_INVALID_THINKING_SIGNATURE,
        ),
        Rejection(
            "anthropic",
            "messages.1.content.0.thinking.signature: Field required",
            "vercel/ai#7729 (reasoning from another provider has no Anthropic signature)",
            pattern=err.ANTHROPIC_THINKING_SIGNATURE_REQUIRED,
        ),
    ),
    example=Example(
        before=[
            ex.user("Plan a trip"),
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "reasoning",
                        "text": "The user wants a plan...",
                        "providerOptions": {
                            "openai": {"itemId": "rs_X", "reasoningEncryptedContent": "gAAAA"}
                        },
                    },
                    ex.text("Here is a 3-day plan."),
                ],
            },
            ex.user("Make it 5 days"),
        ],
        after=[
            ex.user("Plan a trip"),
            {"role": "assistant", "content": [ex.text("Here is a 3-day plan.")]},
            ex.user("Make it 5 days"),
        ],
        provider="anthropic",
    ),
    facts=Foreign(
        ANTHROPIC_SIGNING,
        what="reasoning from another provider ({namespaces}) cannot be verified by Anthropic",
    ),
)


# --- reasoning the API rejects outright ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rejected:
    """A provider's facts for :class:`RejectedReasoning`."""

    reason: str
    """The finding's reason: why the provider takes no reasoning, and what was done."""
    by_model: bool = False
    """Whether it depends on the model (Mistral: only Magistral takes reasoning input): then
    the target's ``reasoning_input`` fact turns the rule on (False) or off (True)."""


class RejectedReasoning(FamilyRule[Rejected]):
    """Every reasoning part, for an API that rejects reasoning input: removed from the
    request."""

    triggers = frozenset({"reasoning"})
    scope = Scope.REQUEST
    choice_docs = {
        "fix": "Remove every reasoning part from this request (it stays in stored history). The "
        "model loses its earlier reasoning; the parts are kept in the repair records.",
    }

    def enabled_for(self, target: Target) -> bool | None:
        takes = target.facts.reasoning_input
        if not self.facts.by_model or takes is None:
            return None
        return not takes

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        for m, p, part in ctx.index.reasoning:
            yield Finding(
                Action.REMOVE,
                m,
                p,
                self.facts.reason,
                edits=(DropPart(m, p),),
                removed=part,
            )


# A tool turn with reasoning, before and after its removal (the Cerebras and Groq examples).
_THINKING_TURN_BEFORE: list[dict[str, Any]] = [
    ex.user("weather?"),
    {
        "role": "assistant",
        "content": [
            {"type": "reasoning", "text": "I should call weather."},
            ex.call("call_1", "weather"),
        ],
    },
    {"role": "tool", "content": [ex.result("call_1", "weather")]},
    {"role": "assistant", "content": "Sunny."},
    ex.user("thanks"),
]
_THINKING_TURN_AFTER: list[dict[str, Any]] = [
    ex.user("weather?"),
    {"role": "assistant", "content": [ex.call("call_1", "weather")]},
    {"role": "tool", "content": [ex.result("call_1", "weather")]},
    {"role": "assistant", "content": "Sunny."},
    ex.user("thanks"),
]

CEREBRAS_STRIP_REASONING_CONTENT = RejectedReasoning(
    id="cerebras-strip-reasoning-content",
    doc="""Reasoning parts in a history sent to Cerebras, which the AI SDK serializes as
    ``reasoning_content`` on assistant messages.

    Why: Cerebras rejects the field (one line per message, joined with ``\\n``):
    ``{"message":"messages.2.assistant.reasoning_content: property
    'messages.2.assistant.reasoning_content' is unsupported","type":"invalid_request_error",
    "param":"validation_error","code":"wrong_api_format"}``. Cerebras does accept ``reasoning``
    on input, but ``@ai-sdk/openai-compatible`` has no way to write that field from a reasoning
    part.

    Fix: remove the reasoning parts from this request (Mastra's preemptive
    ``cerebras-strip-reasoning-content``, whose id this rule keeps).
    """,
    summary="reasoning parts sent to Cerebras, which rejects reasoning_content",
    providers=frozenset({"cerebras"}),
    rejections=(
        Rejection(
            "cerebras",
            '{"message":"messages.2.assistant.reasoning_content: property '
            '\'messages.2.assistant.reasoning_content\' is unsupported","type":'
            '"invalid_request_error","param":"validation_error","code":"wrong_api_format"}',
            "Kilo-Org/kilocode#10375; anomalyco/opencode#48774; vercel/ai#15042 / PR#15416",
            pattern=err.CEREBRAS_REASONING_CONTENT_UNSUPPORTED,
        ),
    ),
    example=Example(provider="cerebras", before=_THINKING_TURN_BEFORE, after=_THINKING_TURN_AFTER),
    facts=Rejected(
        "Cerebras rejects reasoning_content on assistant messages; reasoning part removed from "
        "this request"
    ),
)

GROQ_UNSUPPORTED_REASONING = RejectedReasoning(
    id="groq-unsupported-reasoning",
    doc="""Reasoning parts in a history sent to Groq, whose strict schema rejects both
    ``reasoning_content`` and ``reasoning`` on assistant messages.

    Why: ``'messages.2' : for 'role:assistant' the following must be satisfied[('messages.2' :
    property 'reasoning_content' is unsupported)]`` and, for some models, the same with
    ``property 'reasoning' is unsupported, did you mean 'role'?``.

    Fix: remove the reasoning parts from this request.
    """,
    summary="reasoning parts sent to Groq, which rejects reasoning fields",
    providers=frozenset({"groq"}),
    rejections=(
        Rejection(
            "groq",
            "'messages.2' : for 'role:assistant' the following must be satisfied[('messages.2' : "
            "property 'reasoning_content' is unsupported)]",
            "AstrBotDevs/AstrBot#5946; janhq/jan#8136; agentjido/req_llm#772",
            pattern=err.GROQ_REASONING_UNSUPPORTED,
        ),
        Rejection(
            "groq",
            "'messages.2' : for 'role:assistant' the following must be satisfied[('messages.2' : "
            "property 'reasoning' is unsupported, did you mean 'role'?)]",
            "karthink/gptel#774; musistudio/claude-code-router PR#1204",
            pattern=err.GROQ_REASONING_UNSUPPORTED,
        ),
    ),
    example=Example(provider="groq", before=_THINKING_TURN_BEFORE, after=_THINKING_TURN_AFTER),
    facts=Rejected(
        "Groq rejects reasoning fields on assistant messages; reasoning part removed from this "
        "request"
    ),
)

MISTRAL_REASONING_INPUT = RejectedReasoning(
    id="mistral-reasoning-input",
    doc="""Reasoning parts sent to a Mistral model that does not take reasoning input (only the
    Magistral models do; ``@ai-sdk/mistral`` sends reasoning as ``thinking`` content).

    Why: ``Reasoning input is not enabled for this model``. The provider id does not say which
    model is called, so the rule is off by default and runs when that error names it, or when
    the target's model is known not to take reasoning input (``model="mistral-large-latest"``:
    on; ``model="magistral-medium-latest"``: off; see :mod:`heal.targets`).

    Fix: remove every reasoning part from this request. The model loses its earlier reasoning;
    the conversation text is intact.
    """,
    summary="reasoning parts sent to a Mistral model without reasoning input (run on its error)",
    providers=frozenset({"mistral"}),
    default_enabled=False,
    choice_docs={
        "fix": "Remove every reasoning part from this request. The earlier reasoning is lost for "
        "this call; the parts are kept in the repair records.",
    },
    rejections=(
        Rejection(
            "mistral",
            "Reasoning input is not enabled for this model",
            "suitenumerique/conversations#402",
            pattern=err.MISTRAL_REASONING_INPUT,
        ),
    ),
    example=Example(
        provider="mistral",
        before=[
            ex.user("hi"),
            {
                "role": "assistant",
                "content": [{"type": "reasoning", "text": "greet back"}, ex.text("hello")],
            },
            ex.user("bye"),
        ],
        after=[
            ex.user("hi"),
            {"role": "assistant", "content": [ex.text("hello")]},
            ex.user("bye"),
        ],
    ),
    facts=Rejected("reasoning input is not enabled for this Mistral model; removed", by_model=True),
)


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
