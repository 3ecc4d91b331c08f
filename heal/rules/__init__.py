"""The rule registry, in the order rules run.

Order matters, and each step has a reason:

1. ``invalid-tool-input``: shape first; nothing below reads inputs, but a later provider rule
   may serialize them.
2. ``invalid-tool-call-id``, then ``duplicate-tool-call-id``: pairing keys on ids, so ids must
   be valid (a rewrite can create a duplicate, hence this order) and unique before any
   pairing decision.
3. ``invalid-tool-name``: may remove call/result pairs under ``drop-pair``, before pairing looks.
4. ``orphan-tool-result``, ``orphan-tool-approval``, ``duplicate-tool-result``,
   ``misplaced-tool-approval``, ``misplaced-tool-result``, ``orphan-tool-call``: positional
   pairing (see :mod:`heal.rules.tool_pairing`); approvals before the placeholder decision,
   which depends on them.
5. Provider packs (Anthropic, Bedrock, Google, OpenAI, Mistral, and the OpenAI-compatible
   servers), each only for its providers: they may drop reasoning or reorder parts, which can
   leave text or messages empty. Then the file rules (:mod:`heal.rules.files`), for the
   providers each names: a file given by an OpenAI file id before the media type (an id has
   no bytes to judge), the media type before decoding a text file, decoding before a text
   file becomes a text part. They may leave a message or a tool output empty too. Each
   provider module's docstring gives the order within its pack.
6. ``lone-surrogate``, ``empty-text``, ``empty-message``: content last, because the tool and
   provider rules can empty a message, and removing an empty message must be the final word.
   Then ``empty-history``: a history with no message to send, which it reports (no rule heals
   a history down to nothing, see :mod:`heal.rules._sendable`; this one finds the histories
   that came in that way).

Where the rules live: a rule that exists for one provider alone is in that provider's module
(:mod:`~heal.rules.anthropic`, :mod:`~heal.rules.bedrock`, :mod:`~heal.rules.google`,
:mod:`~heal.rules.openai`, :mod:`~heal.rules.mistral`, :mod:`~heal.rules.compat`); a problem
several providers share is one :class:`FamilyRule`, declared once per provider in its family's
module: :mod:`~heal.rules.reasoning` (unsigned, foreign and rejected reasoning, and the signed
thinking no rule may touch), :mod:`~heal.rules.thinking` (where thinking sits in a message),
:mod:`~heal.rules.system` (system messages after the start), :mod:`~heal.rules.server_tools`
(another provider's server tools), :mod:`~heal.rules.roles` (runs of one role),
:mod:`~heal.rules.files` (files in assistant messages, with the file rules) and
:mod:`~heal.rules.content` (blank tool results, with the content rules). Rules that read the
target's model or the request's tools are in :mod:`~heal.rules.target`. :data:`PACKS` below is
the one list of them all, in order.

User rules (``rules=`` or :meth:`RuleRegistry.register`) run after all built-ins. The engine
repeats the whole sequence until nothing changes, so a later rule's change is seen by earlier
rules on the next pass.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType

from heal.errors import ConfigError
from heal.rules import (
    anthropic,
    bedrock,
    compat,
    content,
    files,
    google,
    mistral,
    openai,
    reasoning,
    roles,
    server_tools,
    system,
    target,
    thinking,
)
from heal.rules._base import (
    AddMessage,
    AddPart,
    Context,
    DropMessage,
    DropPart,
    Edit,
    Example,
    FamilyRule,
    Finding,
    Rejection,
    RejectionPattern,
    Rule,
    SetMessage,
    SetPart,
)
from heal.rules._index import HistoryIndex, Pairing
from heal.rules.content import EmptyHistory, EmptyMessage, EmptyText, LoneSurrogate
from heal.rules.tool_pairing import (
    DuplicateToolResult,
    MisplacedToolApproval,
    MisplacedToolResult,
    OrphanToolApproval,
    OrphanToolCall,
    OrphanToolResult,
)
from heal.rules.tool_shape import (
    DuplicateToolCallId,
    InvalidToolCallId,
    InvalidToolInput,
    InvalidToolName,
)

__all__ = [
    "AddMessage",
    "AddPart",
    "Context",
    "DropMessage",
    "DropPart",
    "Edit",
    "Example",
    "FamilyRule",
    "Finding",
    "HistoryIndex",
    "Pairing",
    "Rejection",
    "RejectionPattern",
    "Rule",
    "RuleRegistry",
    "BUILTIN_RULES",
    "PACKS",
    "PROVIDER_RULES",
    "SHARED_RULES",
    "SetMessage",
    "SetPart",
    "default_registry",
    "register_rule",
]

_SHARED_TOOL_RULES: tuple[Rule, ...] = (
    InvalidToolInput(),
    InvalidToolCallId(),
    DuplicateToolCallId(),
    InvalidToolName(),
    OrphanToolResult(),
    OrphanToolApproval(),
    DuplicateToolResult(),
    MisplacedToolApproval(),
    MisplacedToolResult(),
    OrphanToolCall(),
)
_SHARED_CONTENT_RULES: tuple[Rule, ...] = (
    LoneSurrogate(),
    EmptyText(),
    EmptyMessage(),
    EmptyHistory(),
)

SHARED_RULES: tuple[Rule, ...] = _SHARED_TOOL_RULES + _SHARED_CONTENT_RULES
"""The rules that apply to every provider, in order."""

PACKS: Mapping[str, tuple[Rule, ...]] = MappingProxyType(
    {
        "anthropic": (
            anthropic.AnthropicToolIdFormat(),
            anthropic.AnthropicOrphanCaller(),
            server_tools.ANTHROPIC_FOREIGN_SERVER_TOOL,
            reasoning.ANTHROPIC_FOREIGN_REASONING,
            reasoning.ANTHROPIC_UNSIGNED_REASONING,
            files.ANTHROPIC_ASSISTANT_FILE,
            thinking.ANTHROPIC_REASONING_ONLY_MESSAGE,
            roles.ANTHROPIC_SPLIT_THINKING_TURN,
            thinking.ANTHROPIC_REASONING_NOT_FIRST,
            anthropic.AnthropicTextAfterToolCall(),
            thinking.ANTHROPIC_TRAILING_REASONING,
            content.ANTHROPIC_EMPTY_TOOL_RESULT,
            anthropic.AnthropicTrailingWhitespace(),
            anthropic.AnthropicToolLoopThinking(),
            anthropic.AnthropicAssistantPrefill(),
            system.ANTHROPIC_MID_CONVERSATION_SYSTEM,
        ),
        "bedrock": (
            system.BEDROCK_MID_CONVERSATION_SYSTEM,
            bedrock.BedrockFirstMessage(),
            reasoning.BEDROCK_UNSIGNED_REASONING,
            server_tools.BEDROCK_TOOL_RESULT_COUNT,
            roles.BEDROCK_ROLE_ALTERNATION,
            bedrock.BedrockBlankTextBesideSignedThinking(),
            thinking.BEDROCK_REASONING_ONLY_MESSAGE,
            thinking.BEDROCK_REASONING_NOT_FIRST,
            thinking.BEDROCK_TRAILING_REASONING,
            bedrock.BedrockDocumentWithoutText(),
            content.BEDROCK_EMPTY_TOOL_RESULT,
        ),
        "google": (
            system.GOOGLE_MID_CONVERSATION_SYSTEM,
            server_tools.GOOGLE_FOREIGN_SERVER_TOOL,
            google.GoogleForeignThoughtSignature(),
            files.GOOGLE_ASSISTANT_FILE_URL,
            google.GoogleEmptyPart(),
            google.GoogleContentToolResult(),
            roles.GOOGLE_SPLIT_TOOL_RESULTS,
            google.GoogleFunctionCallTurn(),
            google.GoogleMissingThoughtSignature(),
        ),
        "openai": (
            openai.OpenAIForeignReasoning(),
            openai.UnverifiableEncryptedReasoning(),
            openai.EncryptedReasoningWithoutItemId(),
            server_tools.OPENAI_FOREIGN_SERVER_TOOL,
            files.OPENAI_ASSISTANT_FILE,
            openai.DuplicateItemId(),
            openai.ReasoningWithoutFollowingItem(),
            openai.OpenAIOrphanItemId(),
            openai.ProviderExecutedToolCall(),
        ),
        "mistral": (
            reasoning.MISTRAL_REASONING_INPUT,
            mistral.MistralToolCallId(),
            mistral.MistralUserAfterTool(),
        ),
        "compat": (
            reasoning.CEREBRAS_STRIP_REASONING_CONTENT,
            reasoning.GROQ_UNSUPPORTED_REASONING,
            compat.XaiEncryptedReasoning(),
            compat.MissingReasoningContent(),
        ),
        "files": (
            files.OPENAI_TOOL_RESULT_MEDIA,
            files.OpenAIFileId(),
            files.AnthropicUnsupportedMediaType(),
            files.UndecodableTextFile(),
            files.TextFileAttachment(),
            files.MISTRAL_ASSISTANT_FILE,
        ),
        "target": (
            target.ToolNotOffered(),
            target.ModelWithoutImageInput(),
            target.ClaudeForeignModelSignature(),
            target.ClaudeThinkingPrefixBinding(),
        ),
    }
)
"""Every provider rule, by pack, in the order they run (the docstring of each provider module,
and of :mod:`heal.rules.files`, says why). A pack is named after its provider module; its rules
come from that module and, for the problems providers share, from the family modules."""

PROVIDER_RULES: tuple[Rule, ...] = tuple(rule for pack in PACKS.values() for rule in pack)
"""The provider packs' rules, each applying only to its providers."""

BUILTIN_RULES: tuple[Rule, ...] = _SHARED_TOOL_RULES + PROVIDER_RULES + _SHARED_CONTENT_RULES
"""Every built-in rule, in the order they run."""


class RuleRegistry:
    """An ordered set of rules with unique ids: built-ins first, then registered user rules."""

    def __init__(self, rules: Sequence[Rule] = ()) -> None:
        self._rules: list[Rule] = []
        self._ids: dict[str, Rule] = {}
        self._version = 0
        for rule in rules:
            self.register(rule)

    def register(self, rule: Rule) -> Rule:
        """Add a rule after the existing ones. Raises ConfigError when its id is taken or bad."""
        _check_rule(rule)
        if rule.id in self._ids:
            raise ConfigError(f"a rule with id {rule.id!r} is already registered")
        self._rules.append(rule)
        self._ids[rule.id] = rule
        self._version += 1
        return rule

    def unregister(self, rule_id: str) -> None:
        """Remove a registered rule by id (built-ins included). Raises ConfigError if unknown."""
        rule = self.get(rule_id)
        self._rules.remove(rule)
        del self._ids[rule_id]
        self._version += 1

    def get(self, rule_id: str) -> Rule:
        """The rule with this id; ConfigError listing the known ids if there is none."""
        try:
            return self._ids[rule_id]
        except KeyError:
            raise ConfigError(
                f"unknown rule {rule_id!r}; known rules: {', '.join(sorted(self._ids))}"
            ) from None

    @property
    def version(self) -> int:
        """Changes on every register/unregister (plans cached by the engine key on it)."""
        return self._version

    def __iter__(self) -> Iterator[Rule]:
        return iter(tuple(self._rules))

    def __len__(self) -> int:
        return len(self._rules)

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self._ids


def _check_rule(rule: Rule) -> None:
    if not isinstance(rule, Rule):
        raise ConfigError(f"rules must be heal.rules.Rule instances, got {rule!r}")
    rule_id = getattr(rule, "id", None)
    if not isinstance(rule_id, str) or not rule_id:
        raise ConfigError(f"rule {type(rule).__name__} has no id")
    if not rule.choices or "keep" in rule.choices:
        raise ConfigError(
            f"rule {rule_id!r}: choices must be non-empty and must not list 'keep' "
            "(every rule accepts it)"
        )


default_registry = RuleRegistry(BUILTIN_RULES)
"""The registry ``heal_messages`` uses: the built-in rules, plus any registered ones."""


def register_rule(rule: Rule) -> Rule:
    """Register a rule in the default registry (runs after the built-ins). Usable as a call or
    on an instance: ``register_rule(MyRule())``."""
    return default_registry.register(rule)
