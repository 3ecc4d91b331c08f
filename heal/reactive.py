"""Reactive repair: heal a history after a provider rejected it, from the error it returned.

Some problems cannot be seen in a history, only in the provider's answer: whether the model
takes reasoning input, whether encrypted reasoning still verifies, whether an item id needs a
reasoning item. The rules for them are off by default. :func:`heal_after_error` reads the error,
finds every known rejection in it (:data:`ERROR_PATTERNS`), and heals the history with the rules
those rejections name switched on, plus every rule that is on anyway::

    from heal.reactive import heal_after_error

    try:
        response = client.responses.create(input=to_openai(history), ...)
    except openai.BadRequestError as exc:
        result = heal_after_error(history, exc, provider="openai-responses")
        if result.retry:
            response = client.responses.create(input=to_openai(result.messages), ...)

The error may be an exception (its text, ``body``, ``response`` and causes are read), its
message, or a response body as a dict, JSON text or bytes; wrappers such as Bedrock's ``The model
returned the following errors:`` or a gateway's JSON envelope do not matter, because patterns are
searched for, never anchored. One error naming several problems (Cerebras joins its violations
with newlines) fixes them all. An error no pattern knows changes nothing: ``matched == ()``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from heal._engine import heal_messages
from heal.messages import ModelMessage, load_messages
from heal.policy import Policy
from heal.providers import ProviderId, providers_where
from heal.repairs import Repair
from heal.rules import Rule, default_registry

__all__ = ["ERROR_PATTERNS", "ErrorPattern", "ReactiveResult", "error_text", "heal_after_error"]


@dataclass(frozen=True, slots=True)
class ErrorPattern:
    """A provider rejection heal recognises, and the rules that repair it."""

    id: str
    """Kebab-case, provider first (``openai-reasoning-without-following-item``)."""
    regex: re.Pattern[str]
    """Searched for (``re.search``) in the error text, never anchored."""
    rules: tuple[str, ...]
    """The rules that repair it; run even when they are off by default."""
    provider: str
    """Who answers this way (providers, gateways, the AI SDK itself)."""
    source: str
    """Where the verbatim error text was observed (issues, PRs, documentation)."""
    implies: ProviderId | None = None
    """The provider id this text identifies, when only one provider writes it: used when the
    caller did not say which provider it called."""


def _p(
    id: str,
    regex: str,
    rules: Sequence[str],
    provider: str,
    source: str,
    *,
    implies: ProviderId | None = None,
) -> ErrorPattern:
    return ErrorPattern(id, re.compile(regex), tuple(rules), provider, source, implies)


_MISSING_RESULT = ("orphan-tool-call", "misplaced-tool-result")
_COMPATIBLE = providers_where(lambda profile: profile.refines_openai_compatible)
"""OpenAI-format servers with their own provider id: an error one of them writes refines a
call made with ``provider="openai-compatible"``."""
_STRAY_RESULT = ("orphan-tool-result", "misplaced-tool-result")

ERROR_PATTERNS: tuple[ErrorPattern, ...] = (
    # --- AI SDK (before any request) ---
    _p(
        "ai-sdk-missing-tool-results",
        r"Tool results? (is|are) missing for tool calls?",
        _MISSING_RESULT,
        "AI SDK (AI_MissingToolResultsError)",
        "ai 6.0.x convertToLanguageModelPrompt; vercel/ai#8516",
    ),
    # --- Anthropic (also Claude on Bedrock and Vertex) ---
    _p(
        "anthropic-tool-use-without-result",
        r"`?tool_use`? ids were found without `?tool_result`? blocks immediately after",
        (*_MISSING_RESULT, "anthropic-text-after-tool-call"),
        "Anthropic, Bedrock/Vertex Claude, DeepSeek /anthropic",
        "Kilo-Org/kilocode#5163; anthropics/claude-code#5989; agentscope-ai/agentscope#1892",
    ),
    _p(
        "anthropic-caller-source-tool-missing",
        r"source tool `?\S+`? not found for tool use block",
        ("anthropic-orphan-caller-reference",),
        "Anthropic (programmatic tool calling)",
        "vercel/ai#12504",
        implies="anthropic",
    ),
    _p(
        "anthropic-unexpected-tool-result",
        r"unexpected `?tool_use_id`? found in `?(advisor_)?tool_result`? blocks",
        _STRAY_RESULT,
        "Anthropic",
        "decocms/studio#1803; continuedev/continue#4751",
        implies="anthropic",
    ),
    _p(
        "anthropic-tool-result-not-first",
        r"Did not find \d+ tool_result block\(s\) at the beginning of this message",
        _MISSING_RESULT,
        "Anthropic (older API)",
        "provider-rules.md §1a",
        implies="anthropic",
    ),
    _p(
        "anthropic-multiple-tool-results",
        r"each tool_use must have a single result",
        ("duplicate-tool-result",),
        "Anthropic",
        "router-for-me/CLIProxyAPI PR#4998; vercel/eve PR#1246",
        implies="anthropic",
    ),
    _p(
        "anthropic-duplicate-tool-use-id",
        r"`?tool_use`? ids must be unique",
        ("duplicate-tool-call-id",),
        "Anthropic",
        "anthropics/claude-code#28515; BerriAI/litellm#23510",
        implies="anthropic",
    ),
    _p(
        "anthropic-tool-input-not-object",
        r"tool_use\.input: Input should be a valid dictionary",
        ("invalid-tool-input",),
        "Anthropic",
        "anthropics/claude-code#6696; vercel/ai#13645",
        implies="anthropic",
    ),
    _p(
        "anthropic-tool-use-id-pattern",
        r"tool_use\.id: String should match pattern",
        ("invalid-tool-call-id", "anthropic-tool-id-format"),
        "Anthropic",
        "CommandCodeAI/command-code#323; HKUDS/nanobot PR#4356",
        implies="anthropic",
    ),
    _p(
        "anthropic-assistant-image",
        # Claude's own text, also behind Bedrock's InvokeModel; not implied: both write it.
        r"'image' blocks are not permitted within assistant turns",
        ("anthropic-assistant-file",),
        "Anthropic (and Claude on Bedrock)",
        "epam/ai-dial-adapter-bedrock PR#306",
    ),
    _p(
        "anthropic-tool-name-pattern",
        r"tool_use\.name: String should (match pattern|have at most \d+ characters)",
        ("invalid-tool-name",),
        "Anthropic",
        "drorm/vmpilot docs (quoting the live API)",
        implies="anthropic",
    ),
    _p(
        "anthropic-tool-name-too-long",
        r"tool_name: String should have at most \d+ characters"
        r"|length of the tool name cannot exceed \d+",
        ("invalid-tool-name",),
        "Anthropic (tool_reference), DashScope/Qwen",
        "QwenLM/Qwen3-VL#2069",
    ),
    _p(
        "anthropic-thinking-signature-required",
        r"thinking\.signature: Field required",
        ("anthropic-unsigned-reasoning", "bedrock-unsigned-reasoning"),
        "Anthropic, Bedrock",
        "vercel/ai#7729 (per ai-sdk-heal); provider-rules.md §13.8",
    ),
    _p(
        "anthropic-invalid-thinking-signature",
        r"Invalid `?signature`? in `?thinking`? block",
        ("anthropic-strip-foreign-reasoning-content",),
        "Anthropic",
        "provider-rules.md §13.8 (foreign signature)",
        implies="anthropic",
    ),
    _p(
        "anthropic-expected-thinking-first",
        r"Expected `?thinking`? or `?redacted_thinking`?, but found"
        r"|Expected 'thinking' or 'redacted_thinking', but found",
        ("anthropic-unsigned-reasoning", "anthropic-tool-loop-thinking"),
        "Anthropic, Bedrock, DeepSeek /anthropic",
        "vercel/ai#11602; provider-rules.md §1e",
    ),
    _p(
        "anthropic-thinking-not-first",
        r"If an assistant message contains any thinking blocks, the first block must be",
        ("anthropic-reasoning-not-first",),
        "Anthropic",
        "provider-rules.md §1e",
        implies="anthropic",
    ),
    _p(
        "anthropic-final-block-thinking",
        r"The final block in an assistant message cannot be `?thinking`?",
        ("anthropic-reasoning-only-message",),
        "Anthropic",
        "provider-rules.md §1e, §14.3 R3",
        implies="anthropic",
    ),
    _p(
        "anthropic-empty-thinking",
        r"each thinking block must contain thinking",
        ("anthropic-unsigned-reasoning",),
        "Anthropic",
        "provider-rules.md §1e, §14.3 R12",
        implies="anthropic",
    ),
    _p(
        "anthropic-empty-text",
        r"text content blocks must be non-empty|text content blocks must contain non-whitespace",
        ("empty-text",),
        "Anthropic, Bedrock Claude",
        "anthropics/claude-code#59812, #23440; continuedev/continue#9605",
    ),
    _p(
        "anthropic-trailing-whitespace",
        r"final assistant content cannot end with trailing whitespace",
        ("anthropic-trailing-whitespace",),
        "Anthropic",
        "provider-rules.md §1g",
        implies="anthropic",
    ),
    _p(
        "anthropic-empty-message",
        r"all messages must have non-empty content except for the optional final assistant",
        ("empty-message", "anthropic-reasoning-only-message", "anthropic-unsigned-reasoning"),
        "Anthropic, DeepSeek /anthropic",
        "anthropics/claude-code#6774; vercel/ai PR#5783; CoreInfraAI/opencode-plugin PR#6",
    ),
    _p(
        "anthropic-prefill",
        r"does not support assistant message prefill|pre-fill the `?assistant`? response",
        ("anthropic-assistant-prefill",),
        "Anthropic, Bedrock (Claude)",
        "provider-rules.md §1f, §14.4 O4",
    ),
    _p(
        "anthropic-unexpected-system-role",
        r'Unexpected role "system"',
        ("anthropic-mid-conversation-system",),
        "Anthropic (older models)",
        "provider-rules.md §1f, §14.4 O3",
        implies="anthropic",
    ),
    # --- OpenAI Chat Completions and the servers that copy its wording ---
    _p(
        "openai-tool-calls-without-results",
        r"An assistant message with [\"']tool_calls[\"'] must be followed by tool messages",
        (*_MISSING_RESULT, "provider-executed-tool-call"),
        "OpenAI Chat, DeepSeek, DashScope/Qwen, Kimi",
        "aliasrobotics/cai#111; BerriAI/litellm#10083; langgenius/dify#32222",
    ),
    _p(
        "openai-tool-message-without-call",
        r"(?i)messages with role [\"']tool[\"'] must be a response to a prece+ding message "
        r"with [\"']tool_calls[\"']",
        _STRAY_RESULT,
        "OpenAI Chat, DeepSeek, DashScope/Qwen",
        "miurla/morphic#136; pydantic/pydantic-ai#2050; FoundationAgents/OpenManus#23",
    ),
    _p(
        "openai-tool-call-id-not-found",
        r"'tool_call_id' of '[^']*' not found in 'tool_calls' of previous message",
        _STRAY_RESULT,
        "OpenAI Chat",
        "dapr/dapr-agents#145",
    ),
    _p(
        "openai-function-name-pattern",
        r"function\.name': string does not match pattern",
        ("invalid-tool-name",),
        "OpenAI Chat",
        "mcp-use/mcp-use PR#94; coinbase/agentkit PR#217",
    ),
    _p(
        "openai-tool-call-id-too-long",
        r"tool_calls\[\d+\]\.id': string too long",
        ("invalid-tool-call-id",),
        "OpenAI Chat, Azure OpenAI",
        "agno-agi/agno#5382; vercel/ai#8132; Portkey-AI/gateway#1062",
        implies="openai-chat",
    ),
    _p(
        "openai-assistant-image",
        # The assistant role only: the same text for role 'tool' is an image in a tool result.
        r"Image URLs are only allowed for messages with role 'user', but this message with "
        r"role 'assistant'",
        ("openai-assistant-file",),
        "OpenAI Chat",
        "openai/openai-node#1030; onyx-dot-app/onyx PR#1964; OpenHands/OpenHands#7700",
    ),
    # --- OpenAI Responses ---
    _p(
        "openai-call-id-too-long",
        r"input\[\d+\]\.call_id': string too long",
        ("invalid-tool-call-id",),
        "OpenAI Responses",
        "AnswerDotAI/fastllm#45; decolua/9router#393 (heal.providers openai-responses profile)",
        implies="openai-responses",
    ),
    _p(
        "openai-reasoning-without-following-item",
        r"of type 'reasoning' was provided without its required following item",
        ("reasoning-without-following-item",),
        "OpenAI Responses",
        "vercel/ai#8379, #7099, #11036; continuedev/continue#8933; mastra-ai/mastra#14048",
        implies="openai-responses",
    ),
    _p(
        "openai-item-without-reasoning",
        r"was provided without its required 'reasoning' item",
        ("openai-orphan-item-id",),
        "OpenAI Responses",
        "continuedev/continue#12620; vercel/ai#11036",
        implies="openai-responses",
    ),
    _p(
        "openai-no-tool-output",
        r"No tool output found for function call",
        _MISSING_RESULT,
        "OpenAI Responses",
        "openai/openai-agents-python#673, #1061; gptme/gptme#3293",
        implies="openai-responses",
    ),
    _p(
        "openai-no-tool-call-for-output",
        r"No tool call found for function call output with call_id",
        ("orphan-tool-result",),
        "OpenAI Responses",
        "continuedev/continue#10092; can1357/oh-my-pi#106",
        implies="openai-responses",
    ),
    _p(
        "openai-duplicate-item",
        r"Duplicate item found with id",
        ("duplicate-item-id", "duplicate-tool-call-id"),
        "OpenAI Responses",
        "continuedev/continue#10723; OpenRouterTeam/ai-sdk-provider#254; vercel/ai#7883",
        implies="openai-responses",
    ),
    _p(
        "openai-encrypted-content-not-verified",
        r"encrypted content .{0,200}could not be verified",
        ("unverifiable-encrypted-reasoning", "openai-foreign-reasoning"),
        "OpenAI Responses",
        "openai/codex#8132, #8126, #8119, #35334",
        implies="openai-responses",
    ),
    # --- Google Gemini ---
    _p(
        "google-missing-thought-signature",
        r"Function call is missing a thought_signature",
        ("google-missing-thought-signature",),
        "Gemini",
        "provider-rules.md §4e",
        implies="google",
    ),
    _p(
        "google-invalid-thought-signature",
        r"thought_signature' \(TYPE_BYTES\), Base64 decoding failed"
        r"|Corrupted thought signature|Invalid thought signature",
        ("google-foreign-thought-signature", "google-missing-thought-signature"),
        "Gemini",
        "provider-rules.md §4e",
        implies="google",
    ),
    _p(
        "google-function-call-turn-order",
        r"function call turn comes immediately after a user turn or after a function response turn",
        ("google-function-call-turn", "orphan-tool-result"),
        "Gemini",
        "provider-rules.md §4a",
        implies="google",
    ),
    _p(
        "google-function-response-turn-order",
        r"function response turn comes immediately after a function call turn",
        _STRAY_RESULT,
        "Gemini",
        "provider-rules.md §4a",
        implies="google",
    ),
    _p(
        "google-function-response-count",
        r"number of function response parts is equal to the number of function call parts",
        (*_MISSING_RESULT, "duplicate-tool-result", "google-split-tool-results"),
        "Gemini",
        "provider-rules.md §4a",
        implies="google",
    ),
    _p(
        "google-empty-content",
        r"contents\.parts must not be empty|empty text parameter|required oneof field 'data'",
        ("empty-text", "empty-message", "google-empty-part"),
        "Gemini, Vertex AI",
        "langchain-ai/langchain-google#691; vercel/ai#3775; FoundationAgents/OpenManus PR#876",
        implies="google",
    ),
    _p(
        "google-invalid-function-name",
        r"Invalid function name\. Must start with a letter or an underscore",
        ("invalid-tool-name",),
        "Gemini",
        "google-gemini/gemini-cli#6704, #7878; BerriAI/litellm#12543",
        implies="google",
    ),
    # --- Bedrock Converse ---
    _p(
        "bedrock-missing-tool-results",
        r"Expected toolResult blocks at messages\.\d+\.content for the following Ids",
        (*_MISSING_RESULT, "bedrock-tool-result-count"),
        "Bedrock",
        "provider-rules.md §5a",
        implies="bedrock",
    ),
    _p(
        "bedrock-extra-tool-results",
        r"number of toolResult blocks at messages\.\d+\.content exceeds the number of toolUse",
        ("orphan-tool-result", "duplicate-tool-result", "bedrock-tool-result-count"),
        "Bedrock",
        "provider-rules.md §5a",
        implies="bedrock",
    ),
    _p(
        "bedrock-duplicate-tool-use-id",
        r"toolUse blocks at messages\.\d+\.content contain duplicate Ids",
        ("duplicate-tool-call-id",),
        "Bedrock",
        "bvcyber/Cyber-AutoAgent-ng#72",
        implies="bedrock",
    ),
    _p(
        "bedrock-tool-name-pattern",
        r"toolUse\.name' failed to satisfy constraint",
        ("invalid-tool-name",),
        "Bedrock",
        "vercel/ai#9173",
        implies="bedrock",
    ),
    _p(
        "bedrock-empty-error-result",
        r"cannot be empty when status value is error",
        ("bedrock-empty-tool-result",),
        "Bedrock",
        "provider-rules.md §5g",
        implies="bedrock",
    ),
    _p(
        "bedrock-first-message",
        r"A conversation must start with a user message",
        ("bedrock-first-message",),
        "Bedrock",
        "provider-rules.md §5f",
        implies="bedrock",
    ),
    _p(
        "bedrock-role-alternation",
        r"A conversation must alternate between user and assistant roles",
        ("bedrock-role-alternation",),
        "Bedrock",
        "provider-rules.md §5f",
        implies="bedrock",
    ),
    _p(
        "bedrock-blank-text",
        r"The text field in the ContentBlock object at messages\.\d+\.content\.\d+ is blank",
        ("empty-text",),
        "Bedrock",
        "aws-samples/bedrock-engineer#8",
        implies="bedrock",
    ),
    _p(
        "bedrock-empty-message",
        r"The content field in the Message object at messages\.\S+ is empty",
        ("empty-message",),
        "Bedrock",
        "vercel/ai#15248",
        implies="bedrock",
    ),
    _p(
        "bedrock-reasoning-in-user-message",
        r"User messages cannot contain reasoning content",
        ("bedrock-unsigned-reasoning",),
        "Bedrock",
        "vercel/ai#7034",
        implies="bedrock",
    ),
    _p(
        "bedrock-document-without-text",
        r"A text block must be included when using documents",
        ("bedrock-document-without-text",),
        "Bedrock",
        "archestra-ai/archestra PR#4220",
        implies="bedrock",
    ),
    # --- Mistral ---
    _p(
        "mistral-tool-call-id",
        r"Tool call id was .{1,120} but must be a-z, A-Z, 0-9, with a length of 9",
        ("mistral-tool-call-id",),
        "Mistral (API, vLLM, local tekken)",
        "anomalyco/opencode#1680; langchain-ai/langchain PR#24668; nearai/ironclaw#1241",
        implies="mistral",
    ),
    _p(
        "mistral-function-name",
        r"Function name was .{1,200} but must be a-z, A-Z, 0-9",
        ("invalid-tool-name",),
        "Mistral",
        "Kochava-Studios/witsy PR#164; BerriAI/litellm#2512",
        implies="mistral",
    ),
    _p(
        "mistral-user-after-tool",
        r"Unexpected role 'user' after role 'tool'",
        ("mistral-user-after-tool",),
        "Mistral",
        "zed-industries/zed#37021; avante PR#2695; NousResearch/hermes-agent#20154",
        implies="mistral",
    ),
    _p(
        "mistral-tool-after-user",
        r"Unexpected role 'tool' after role 'user'|Unexpected role RoleEnum\.tool",
        _STRAY_RESULT,
        "Mistral",
        "charmbracelet/crush#279; mistralai/mistral-inference#135",
        implies="mistral",
    ),
    _p(
        "mistral-call-response-count",
        r"Not the same number of function calls and responses",
        ("orphan-tool-call", "orphan-tool-result", "duplicate-tool-result"),
        "Mistral",
        "mistralai/client-ts#106; camel-ai/camel#1467; mistralai/client-python#234",
        implies="mistral",
    ),
    _p(
        "mistral-reasoning-input",
        r"Reasoning input is not enabled for this model",
        ("mistral-reasoning-input",),
        "Mistral",
        "suitenumerique/conversations#402",
        implies="mistral",
    ),
    # --- DeepSeek and Kimi thinking mode ---
    _p(
        "deepseek-missing-reasoning-content",
        r"Missing `?reasoning_content`? field in the assistant message",
        ("missing-reasoning-content",),
        "DeepSeek (V3.2 thinking mode)",
        "api-docs.deepseek.com/guides/thinking_mode; hotovo/aider-desk#529",
        implies="deepseek",
    ),
    _p(
        "deepseek-reasoning-content-passed-back",
        r"`?reasoning_content`? in the thinking mode must be passed back",
        ("missing-reasoning-content",),
        "DeepSeek (V4)",
        "JohnnyZ93/oai-compatible-copilot#215; borawong/AiMaMi#8",
        implies="deepseek",
    ),
    _p(
        "kimi-missing-reasoning-content",
        r"reasoning_content is missing in assistant tool call message",
        ("missing-reasoning-content",),
        "Kimi / Moonshot (thinking mode)",
        "axonhub PR#1755; open-webui/open-webui#23175",
        # Kimi's thinking mode has DeepSeek's wire convention (reasoning_content on every
        # assistant tool-call turn), so DeepSeek's rules are the ones that fit.
        implies="deepseek",
    ),
    # --- Cerebras, Groq, xAI ---
    _p(
        "cerebras-reasoning-content-unsupported",
        r"property 'messages\.\d+\.assistant\.reasoning(_content)?' is unsupported",
        ("cerebras-strip-reasoning-content",),
        "Cerebras",
        "Kilo-Org/kilocode#10375; anomalyco/opencode#48774; vercel/ai#15042",
        implies="cerebras",
    ),
    _p(
        "groq-reasoning-unsupported",
        r"property 'reasoning(_content)?' is unsupported",
        ("groq-unsupported-reasoning",),
        "Groq",
        "AstrBotDevs/AstrBot#5946; janhq/jan#8136; karthink/gptel#774",
        implies="groq",
    ),
    _p(
        "xai-empty-content",
        r"Each message must have at least one content element",
        ("empty-message", "xai-encrypted-reasoning"),
        "xAI",
        "langchain-ai/langchain#34140; n8n-io/n8n#14797; NousResearch/hermes-agent#30310",
        implies="xai",
    ),
    # --- OpenAI-compatible servers that parse tool arguments (vLLM, llama.cpp) ---
    _p(
        "compat-tool-arguments-not-json",
        r"Expecting ',' delimiter|Failed to parse tool call arguments as JSON|Invalid \\escape",
        ("invalid-tool-input",),
        "vLLM, llama.cpp",
        "vllm-project/vllm#43995; OpenHands/software-agent-sdk#2887",
    ),
)
"""Every rejection heal recognises, from the provider-rules report's error cheat sheet (§15).

Left out on purpose: rejections no rule can repair from the history (request parameters,
tool definitions, ``store: false`` references, the healer's own immutability guard) and those
the AI SDK adapters already handle."""


@dataclass(frozen=True, slots=True)
class ReactiveResult:
    """What :func:`heal_after_error` returns."""

    messages: list[ModelMessage]
    """The healed history (the input, loaded, when nothing matched)."""
    repairs: tuple[Repair, ...]
    """Every change made, as :func:`~heal.heal_messages` reports them."""
    matched: tuple[str, ...]
    """The ids of the :data:`ERROR_PATTERNS` found in the error, in catalogue order."""
    rules: tuple[str, ...]
    """The rules those patterns name (run even when off by default)."""
    provider: ProviderId | None
    """The provider healed for: the one given, or the one the error text identifies."""

    @property
    def changed(self) -> bool:
        """True when at least one repair changed the history."""
        return any(r.changed for r in self.repairs)

    @property
    def retry(self) -> bool:
        """True when the error was recognised and the history changed: retrying is worthwhile."""
        return bool(self.matched) and self.changed


def heal_after_error(
    messages: Any,
    error: BaseException | str | bytes | bytearray | Mapping[str, Any] | Sequence[Any],
    *,
    provider: ProviderId | None = None,
    policy: Policy | Mapping[str, str] | None = None,
    rules: Sequence[Rule] | None = None,
    on_repair: Callable[[Repair], object] | None = None,
) -> ReactiveResult:
    """Heal ``messages`` after a provider rejected them with ``error``.

    Finds every :data:`ERROR_PATTERNS` entry in the error and heals with the rules they name
    enabled (even rules that are off by default) plus every rule that is on anyway. A rule the
    ``policy`` disables stays disabled. When ``provider`` is None and the error text identifies
    one provider (Mistral's id message, say), healing is for that provider. No match: the
    history is returned unchanged, with ``matched == ()`` and no repairs.

    Args:
        messages: as for :func:`~heal.heal_messages`.
        error: the exception, its message, or the response body (dict, JSON text or bytes).
        provider, policy, rules, on_repair: as for :func:`~heal.heal_messages`.
    """
    text = error_text(error)
    matched = tuple(pattern for pattern in ERROR_PATTERNS if pattern.regex.search(text))
    loaded = load_messages(messages)
    if not matched:
        return ReactiveResult(loaded, (), (), (), provider)
    implied = {pattern.implies for pattern in matched if pattern.implies is not None}
    # "openai-compatible" is the generic answer for an unknown OpenAI-format server; an error
    # only one server family writes (Kimi's, DeepSeek's) says which conventions it follows.
    if len(implied) == 1 and (
        provider is None or (provider == "openai-compatible" and implied <= _COMPATIBLE)
    ):
        provider = implied.pop()
    named = tuple(dict.fromkeys(rule for pattern in matched for rule in pattern.rules))
    known = {rule.id for rule in default_registry} | {rule.id for rule in rules or ()}
    base = Policy.coerce(policy)
    merged = Policy(
        base.choices,
        disable=base.disabled,
        enable=base.enabled | {rule for rule in named if rule in known},
    )
    result = heal_messages(
        loaded, provider=provider, policy=merged, rules=rules, on_repair=on_repair
    )
    return ReactiveResult(
        result.messages, result.repairs, tuple(p.id for p in matched), named, provider
    )


# --- reading the error -----------------------------------------------------------------------

_MAX_DEPTH = 12
_ATTRIBUTES = ("body", "response_body", "responseBody", "data", "message", "error", "detail")


def error_text(error: object) -> str:
    """All the text in an error, one piece per line: the exception's message, ``body`` and
    response text and those of its causes, or every string inside a response body (JSON text
    inside strings is unpacked too)."""
    out: list[str] = []
    _collect(error, out, set(), 0)
    return "\n".join(dict.fromkeys(out))


def _collect(value: object, out: list[str], seen: set[int], depth: int) -> None:
    if value is None or depth > _MAX_DEPTH:
        return
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode("utf-8", "replace")
    if isinstance(value, str):
        if value.strip():
            out.append(value)
            _collect_json(value, out, seen, depth)
        return
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, BaseException):
        _collect(str(value), out, seen, depth + 1)
        for arg in value.args:
            if not isinstance(arg, str):
                _collect(arg, out, seen, depth + 1)
        for name in _ATTRIBUTES:
            _collect(_attribute(value, name), out, seen, depth + 1)
        response = _attribute(value, "response")
        if response is not None:
            _collect(_attribute(response, "text"), out, seen, depth + 1)
        _collect(value.__cause__, out, seen, depth + 1)
        _collect(value.__context__, out, seen, depth + 1)
    elif isinstance(value, Mapping):
        for item in value.values():
            _collect(item, out, seen, depth + 1)
    elif isinstance(value, Iterable):
        for item in value:
            _collect(item, out, seen, depth + 1)


def _collect_json(text: str, out: list[str], seen: set[int], depth: int) -> None:
    stripped = text.strip()
    if stripped[:1] not in ("{", "["):
        return
    try:
        parsed = json.loads(stripped)
    except (ValueError, RecursionError):
        # Not JSON, or nested too deeply for the parser (it recurses once per level): the text
        # itself is already collected, and the patterns are searched for in it.
        return
    _collect(parsed, out, seen, depth + 1)


def _attribute(value: object, name: str) -> object:
    # SDK exceptions expose lazily computed properties (httpx raises ResponseNotRead for a
    # streamed response's .text): a failure to read one is no reason to fail the repair.
    try:
        found = getattr(value, name, None)
    except Exception:
        return None
    if isinstance(found, (str, bytes, bytearray, Mapping, list, tuple, BaseException)):
        return found
    if name == "response":
        return found
    return None
