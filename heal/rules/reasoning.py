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

Where thinking sits in an assistant message (it must start the message and must not end the
final one) is :mod:`heal.rules.thinking`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from heal.messages import ModelMessage, Part, ReasoningPart
from heal.repairs import Action, Scope
from heal.rules import _errors as err
from heal.rules import _examples as ex
from heal.rules._base import (
    Context,
    DropPart,
    DroppedParts,
    Example,
    FamilyRule,
    Finding,
    Rejection,
    Rule,
    SetPart,
)
from heal.rules._options import foreign_namespaces, foreign_options, with_options

if TYPE_CHECKING:
    from heal.targets import Target

__all__ = [
    "ANTHROPIC_FOREIGN_REASONING",
    "ANTHROPIC_SIGNING",
    "ANTHROPIC_UNSIGNED_REASONING",
    "BEDROCK_SIGNING",
    "BEDROCK_UNSIGNED_REASONING",
    "CEREBRAS_STRIP_REASONING_CONTENT",
    "GROQ_UNSUPPORTED_REASONING",
    "MISTRAL_REASONING_INPUT",
    "ForeignReasoning",
    "ProtectSigned",
    "RejectedReasoning",
    "Signing",
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
        return self.signs_options(part.provider_options)

    def signs_options(self, all_options: Mapping[str, Any] | None) -> bool:
        """:meth:`signs` of a part whose provider options are ``all_options`` (a model's field,
        or a decoded part's ``providerOptions``, which a JSON walk has found to be a dict)."""
        if all_options is None:
            return False
        options = all_options.get(self.namespace)
        if not isinstance(options, dict):
            return False
        for key in self.keys:  # a loop, not any() of a generator: each reasoning part asks
            value = options.get(key)
            if value and isinstance(value, str):
                return True
        return False


ANTHROPIC_SIGNING = Signing("anthropic", ("signature", "redactedData"))
"""Anthropic's signatures: the AI SDK anthropic adapter parses ``providerOptions.anthropic`` and
nothing else (for Vertex and Bedrock Claude too), and replays ``signature`` (or ``redactedData``
for redacted thinking)."""

BEDROCK_SIGNING = Signing("bedrock", ("signature", "redactedData", "redactedContent"))
"""Bedrock Converse's signatures: the AI SDK bedrock adapter reads them from
``providerOptions.bedrock``."""


SIGNINGS: dict[str, Signing] = {s.namespace: s for s in (ANTHROPIC_SIGNING, BEDROCK_SIGNING)}
"""The platforms that verify signatures, by namespace: each has an index fact,
``<namespace>_unsigned_reasoning`` (a reasoning part it would find unsigned), which its
unsigned and foreign reasoning rules need."""


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
    reasoning-only rule removes it whole, which re-encodes none of its blocks).

    Every rule of a plan for a provider that signs asks this (as what it protects), so it is
    computed once per history (``ctx.memo``)."""
    memo = ctx.memo
    found: tuple[int, ...] | None = memo.get(signing)
    if found is not None:
        return found
    found = ()
    messages = ctx.messages
    skipped = -1
    for m, _, part in reversed(ctx.index.reasoning):
        if m == skipped or not signing.signs(part):
            continue
        if reasoning_only(messages[m]):
            skipped = m
            continue
        found = (m,)
        break
    memo[signing] = found
    return found


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

    def needs_for(self, facts: Unsigned) -> frozenset[str]:
        # Only a part without this platform's signature can be found (a foreign one has none).
        return frozenset({f"{facts.signing.namespace}_unsigned_reasoning"})

    def protects(self, ctx: Context) -> tuple[int, ...]:
        return signed_guard(ctx, self.facts.signing)

    def check(self, ctx: Context, choice: str) -> Iterable[Finding]:
        if not ctx.index.reasoning:
            return ()
        if choice != "empty-signature":
            # Every part found is removed: a batch (another provider's reasoning replayed to
            # Bedrock or Anthropic is unsigned in every assistant turn).
            unsigned = self._unsigned(ctx, marking=False)  # a reason for each (none kept)
            return DroppedParts([(m, p, part, why) for m, p, part, why in unsigned if why])
        return self._marked_or_dropped(ctx)

    def _marked_or_dropped(self, ctx: Context) -> Iterator[Finding]:
        """The findings under ``empty-signature``: unsigned reasoning with text is marked,
        the rest removed."""
        for m, p, part, reason in self._unsigned(ctx, marking=True):
            if reason is None:
                yield from self._mark(m, p, part)
            else:
                yield Finding(Action.REMOVE, m, p, reason, edits=(DropPart(m, p),), removed=part)

    def _unsigned(
        self, ctx: Context, *, marking: bool
    ) -> Iterator[tuple[int, int, ReasoningPart, str | None]]:
        """Each reasoning part without the target's signature, in history order, with the
        reason it is removed for; None for one that ``marking`` keeps, to be sent with an
        empty signature."""
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
            elif marking and part.text:
                yield m, p, part, None
                continue
            else:
                what = facts.unsigned.format(
                    part="empty reasoning part" if not part.text else "reasoning part",
                    stray=_stray_signature(part, signing.namespace),
                )
            yield m, p, part, self._reason(what, beside_signed=m in protected)

    def options_drop_reason(
        self, options: Mapping[str, Any] | None, *, beside_signed: bool
    ) -> str | None:
        """Why a reasoning part whose provider options are ``options`` is removed when those
        are another provider's alone (``beside_signed``: it sits in the protected message);
        None for any other part, and when a :class:`ForeignReasoning` rule removes such parts
        instead (no ``foreign`` in the facts). The engine asks it too, removing other
        providers' reasoning without the index (``heal._engine._Plan.dropper``)."""
        facts = self.facts
        if facts.foreign is None:
            return None
        foreign = foreign_options(options, (facts.signing.namespace,))
        if not foreign:
            return None
        what = facts.foreign.format(namespaces=", ".join(foreign))
        return self._reason(what, beside_signed=beside_signed)

    def _reason(self, what: str, *, beside_signed: bool) -> str:
        """The reason of a removed part that is ``what``."""
        return f"{what}; removed from the request" + (
            self.facts.beside_signed if beside_signed else ""
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

    def needs_for(self, facts: Foreign) -> frozenset[str]:
        # Only a part without this platform's signature can be found (a foreign one has none).
        return frozenset({f"{facts.signing.namespace}_unsigned_reasoning"})

    def protects(self, ctx: Context) -> tuple[int, ...]:
        return signed_guard(ctx, self.facts.signing)

    def check(self, ctx: Context, choice: str) -> Iterable[Finding]:
        protected = ctx.protected
        drops: list[tuple[int, int, Part, str]] = []
        for m, p, part in ctx.index.reasoning:
            reason = self.drop_reason(part, beside_signed=m in protected)
            if reason is not None:
                drops.append((m, p, part, reason))
        return DroppedParts(drops)

    def drop_reason(self, part: Part, *, beside_signed: bool) -> str | None:
        """Why ``part`` is removed (its finding's reason; ``beside_signed``: it sits in the
        protected message), or None when it is not another provider's reasoning. The engine
        asks it too, removing such parts without the index (``heal._engine._Plan.dropper``)."""
        return self.options_drop_reason(part.provider_options, beside_signed=beside_signed)

    def options_drop_reason(
        self, options: Mapping[str, Any] | None, *, beside_signed: bool
    ) -> str | None:
        """:meth:`drop_reason` of a reasoning part whose provider options are ``options`` (a
        model's field, or a decoded part's ``providerOptions``: :func:`heal.heal_json` removes
        such parts from the decoded text)."""
        foreign = foreign_options(options, (self.facts.signing.namespace,))
        if not foreign:
            return None
        return _drop_text(self.facts.what, ", ".join(foreign), beside_signed)


@lru_cache(maxsize=256)
def _drop_text(what: str, namespaces: str, beside_signed: bool) -> str:
    """The reason :meth:`ForeignReasoning.options_drop_reason` gives: made once for each rule
    text, namespaces and place (a conversation moved between providers removes a part per
    turn, nearly all of one namespace; the cache is bounded, the namespaces being the
    caller's)."""
    return (
        what.format(namespaces=namespaces)
        + "; removed from the request"
        + (BESIDE_SIGNED if beside_signed else "")
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
    needs = frozenset({"any_reasoning"})  # as a fact: the quick verdict lists the parts
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

    def drop_reason(self, options: Mapping[str, Any] | None) -> str:
        """Why a reasoning part whose provider options are ``options`` is removed: every one
        is, for the same reason (the engine removes them without the index, see
        ``heal._engine._dropped_plainly``)."""
        return self.facts.reason

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
