"""The provider error texts heal recognises: every pattern, declared once.

A :class:`~heal.rules._base.Rejection` quotes one provider error verbatim and names the
:class:`~heal.rules._base.RejectionPattern` that recognises it. A text several rules prevent has
one pattern, named by each of their rejections (Anthropic's "tool_use ids were found without
tool_result blocks" by ``orphan-tool-call``, ``misplaced-tool-result`` and
``anthropic-text-after-tool-call``). :mod:`heal.reactive` derives its catalogue from the registry:
a pattern's rules are the rules whose rejections name it. So citing a text in a rule is what
makes ``heal_after_error`` run that rule on it, and the registry test searches every cited text
with its pattern: a pattern cannot drift from the text it was written for, nor name a rule that
does not cite it.

The patterns are declared in catalogue order, grouped by who writes the text:
``heal_after_error`` reports matches in this order (:data:`CATALOGUE`). A regex is searched for,
never anchored, and generalises the ids, indices and numbers its texts carry.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from heal.rules._base import RejectionPattern

if TYPE_CHECKING:
    from heal.providers import ProviderId

_DECLARED: list[RejectionPattern] = []


def _pattern(
    id: str, regex: str, provider: str, source: str, *, implies: ProviderId | None = None
) -> RejectionPattern:
    pattern = RejectionPattern(id, re.compile(regex), provider, source, implies)
    _DECLARED.append(pattern)
    return pattern


# --- AI SDK (before any request) ---
AI_SDK_MISSING_TOOL_RESULTS = _pattern(
    "ai-sdk-missing-tool-results",
    r"Tool results? (is|are) missing for tool calls?",
    "AI SDK (AI_MissingToolResultsError)",
    "ai 6.0.x convertToLanguageModelPrompt; vercel/ai#8516",
)

AI_SDK_UNKNOWN_APPROVAL_ID = _pattern(
    "ai-sdk-unknown-approval-id",
    r"Tool approval response references unknown approvalId",
    "AI SDK (AI_InvalidToolApprovalError)",
    "ai 6.0.326 generateText, observed with the interop judge (tests/interop)",
)

AI_SDK_APPROVAL_CALL_NOT_FOUND = _pattern(
    "ai-sdk-approval-call-not-found",
    # The error's name too: the text observed was cut after "not found".
    r'ToolCallNotFoundForApprovalError|Tool call "[^"]*" not found for approval request',
    "AI SDK (AI_ToolCallNotFoundForApprovalError)",
    "ai 6.0.326 generateText, observed with the interop judge (tests/interop)",
)

AI_SDK_EMPTY_MESSAGES = _pattern(
    "ai-sdk-empty-messages",
    r"messages must not be empty",
    "AI SDK (AI_InvalidPromptError)",
    "vercel/ai#10003; zebbern/Devonz#4",
)

# --- AI SDK provider adapters (before any request; warnings included) ---
AI_SDK_BEDROCK_SYSTEM_NOT_FIRST = _pattern(
    "ai-sdk-bedrock-system-not-first",
    r"Multiple system messages that are separated by user/assistant messages",
    "AI SDK (@ai-sdk/amazon-bedrock)",
    "@ai-sdk/amazon-bedrock 4.0.186 convertToBedrockChatMessages",
    implies="bedrock",
)

AI_SDK_GOOGLE_SYSTEM_NOT_FIRST = _pattern(
    "ai-sdk-google-system-not-first",
    r"system messages are only supported at the beginning of the conversation",
    "AI SDK (@ai-sdk/google)",
    "@ai-sdk/google 3.0.141 convertToGoogleGenerativeAIMessages",
    implies="google",
)

AI_SDK_GOOGLE_ASSISTANT_FILE_URL = _pattern(
    "ai-sdk-google-assistant-file-url",
    r"File data URLs in assistant messages are not supported",
    "AI SDK (@ai-sdk/google)",
    "@ai-sdk/google 3.0.141 convertToGoogleGenerativeAIMessages",
    implies="google",
)

AI_SDK_OPENAI_FOREIGN_REASONING = _pattern(
    "ai-sdk-openai-foreign-reasoning",
    r"Non-OpenAI reasoning parts are not supported",
    "AI SDK (@ai-sdk/openai Responses, a warning)",
    "@ai-sdk/openai 3.0.141 convertToOpenAIResponsesInput (provider-rules.md §3e)",
    implies="openai-responses",
)

AI_SDK_OPENAI_SERVER_TOOL_RESULTS = _pattern(
    "ai-sdk-openai-server-tool-results",
    r"Results for OpenAI tool \S+ are not sent to the API when store is false",
    "AI SDK (@ai-sdk/openai Responses, store: false, a warning)",
    "@ai-sdk/openai 3.0.141 convertToOpenAIResponsesInput",
    implies="openai-responses",
)

AI_SDK_OPENAI_TEXT_FILE = _pattern(
    "ai-sdk-openai-text-file",
    # Chat and Responses both write it: not implied.
    r"'file part media type text/[^']*' functionality not supported",
    "AI SDK (@ai-sdk/openai Chat and Responses)",
    "@ai-sdk/openai 3.0.141, observed with the interop judge (tests/interop)",
)

AI_SDK_FILE_ID_TOOL_CONTENT = _pattern(
    "ai-sdk-file-id-tool-content",
    # Observed from Bedrock's adapter; the Anthropic and OpenAI adapters share the wording.
    r"unsupported tool content part type: [\w-]*file-id",
    "AI SDK (@ai-sdk/amazon-bedrock)",
    "@ai-sdk/amazon-bedrock 4.0.186, observed with the interop judge (tests/interop)",
)

AI_SDK_ANTHROPIC_MEDIA_TYPE = _pattern(
    "ai-sdk-anthropic-media-type",
    # Also the Anthropic adapter inside @ai-sdk/amazon-bedrock: not implied.
    r"'media type: [^']*' functionality not supported",
    "AI SDK (@ai-sdk/anthropic)",
    "@ai-sdk/anthropic 3.0.138, observed with the interop judge (tests/interop)",
)

AI_SDK_MISTRAL_ASSISTANT_TOOL_RESULT = _pattern(
    "ai-sdk-mistral-assistant-tool-result",
    r"Unsupported content type in assistant message: tool-result",
    "AI SDK (@ai-sdk/mistral)",
    "@ai-sdk/mistral 3.0.69, observed with the interop judge (tests/interop)",
    implies="mistral",
)

AI_SDK_MISTRAL_ASSISTANT_FILE = _pattern(
    "ai-sdk-mistral-assistant-file",
    r"Unsupported content type in assistant message: file\b",
    "AI SDK (@ai-sdk/mistral)",
    "@ai-sdk/mistral 3.0.69, observed with the interop judge (tests/interop)",
    implies="mistral",
)

AI_SDK_MISTRAL_FILE_TYPE = _pattern(
    "ai-sdk-mistral-file-type",
    r"Only images and PDF file parts are supported",
    "AI SDK (@ai-sdk/mistral)",
    "@ai-sdk/mistral 3.0.69, observed with the interop judge (tests/interop)",
    implies="mistral",
)

# --- Anthropic (also Claude on Bedrock and Vertex) ---
ANTHROPIC_TOOL_USE_WITHOUT_RESULT = _pattern(
    "anthropic-tool-use-without-result",
    r"`?tool_use`? ids were found without `?tool_result`? blocks immediately after",
    "Anthropic, Bedrock/Vertex Claude, DeepSeek /anthropic",
    "Kilo-Org/kilocode#5163; anthropics/claude-code#5989; agentscope-ai/agentscope#1892",
)

ANTHROPIC_CALLER_SOURCE_TOOL_MISSING = _pattern(
    "anthropic-caller-source-tool-missing",
    r"source tool `?\S+`? not found for tool use block",
    "Anthropic (programmatic tool calling)",
    "vercel/ai#12504",
    implies="anthropic",
)

ANTHROPIC_UNEXPECTED_TOOL_RESULT = _pattern(
    "anthropic-unexpected-tool-result",
    r"unexpected `?tool_use_id`? found in `?(advisor_)?tool_result`? blocks",
    "Anthropic",
    "decocms/studio#1803; continuedev/continue#4751",
    implies="anthropic",
)

ANTHROPIC_TOOL_RESULT_NOT_FIRST = _pattern(
    "anthropic-tool-result-not-first",
    r"Did not find \d+ tool_result block\(s\) at the beginning of this message",
    "Anthropic (older API)",
    "provider-rules.md §1a",
    implies="anthropic",
)

ANTHROPIC_MULTIPLE_TOOL_RESULTS = _pattern(
    "anthropic-multiple-tool-results",
    r"each tool_use must have a single result",
    "Anthropic",
    "router-for-me/CLIProxyAPI PR#4998; vercel/eve PR#1246",
    implies="anthropic",
)

ANTHROPIC_DUPLICATE_TOOL_USE_ID = _pattern(
    "anthropic-duplicate-tool-use-id",
    r"`?tool_use`? ids must be unique",
    "Anthropic",
    "anthropics/claude-code#28515; BerriAI/litellm#23510",
    implies="anthropic",
)

ANTHROPIC_TOOL_INPUT_NOT_OBJECT = _pattern(
    "anthropic-tool-input-not-object",
    r"tool_use\.input: Input should be a valid dictionary",
    "Anthropic",
    "anthropics/claude-code#6696; vercel/ai#13645",
    implies="anthropic",
)

ANTHROPIC_TOOL_USE_ID_PATTERN = _pattern(
    "anthropic-tool-use-id-pattern",
    r"tool_use\.id: String should match pattern",
    "Anthropic",
    "CommandCodeAI/command-code#323; HKUDS/nanobot PR#4356",
    implies="anthropic",
)

ANTHROPIC_ASSISTANT_IMAGE = _pattern(
    "anthropic-assistant-image",
    # Claude's own text, also behind Bedrock's InvokeModel; not implied: both write it.
    r"'image' blocks are not permitted within assistant turns",
    "Anthropic (and Claude on Bedrock)",
    "epam/ai-dial-adapter-bedrock PR#306",
)

ANTHROPIC_MEDIA_TYPE = _pattern(
    "anthropic-media-type",
    r"(image|document)\.source\.base64\.media_type: Input should be",
    "Anthropic",
    "danny-avila/LibreChat#14485; anthropics/claude-code#8184",
    implies="anthropic",
)

ANTHROPIC_TOOL_NAME_PATTERN = _pattern(
    "anthropic-tool-name-pattern",
    r"tool_use\.name: String should (match pattern|have at most \d+ characters)",
    "Anthropic",
    "drorm/vmpilot docs (quoting the live API)",
    implies="anthropic",
)

ANTHROPIC_TOOL_NAME_TOO_LONG = _pattern(
    "anthropic-tool-name-too-long",
    r"tool_name: String should have at most \d+ characters"
    r"|length of the tool name cannot exceed \d+",
    "Anthropic (tool_reference), DashScope/Qwen",
    "QwenLM/Qwen3-VL#2069",
)

ANTHROPIC_THINKING_SIGNATURE_REQUIRED = _pattern(
    "anthropic-thinking-signature-required",
    r"thinking\.signature: Field required",
    "Anthropic, Bedrock",
    "vercel/ai#7729 (per ai-sdk-heal); provider-rules.md §13.8",
)

ANTHROPIC_INVALID_THINKING_SIGNATURE = _pattern(
    "anthropic-invalid-thinking-signature",
    # Not the variant that says why (a block bound to another prefix: its own pattern below).
    r"Invalid `?signature`? in `?thinking`? block(?!\. The block is bound)",
    "Anthropic",
    "provider-rules.md §13.8 (foreign signature)",
    implies="anthropic",
)

ANTHROPIC_EXPECTED_THINKING_FIRST = _pattern(
    "anthropic-expected-thinking-first",
    r"Expected `?thinking`? or `?redacted_thinking`?, but found"
    r"|Expected 'thinking' or 'redacted_thinking', but found",
    "Anthropic, Bedrock, DeepSeek /anthropic",
    "vercel/ai#11602; provider-rules.md §1e",
)

ANTHROPIC_THINKING_NOT_FIRST = _pattern(
    "anthropic-thinking-not-first",
    r"If an assistant message contains any thinking blocks, the first block must be",
    # Not implied: Claude on Bedrock Converse writes it too (strands-agents/harness-sdk PR#1889).
    "Anthropic, Bedrock (Claude)",
    "provider-rules.md §1e; strands-agents/harness-sdk PR#1889",
)

ANTHROPIC_FINAL_BLOCK_THINKING = _pattern(
    "anthropic-final-block-thinking",
    r"The final block in an assistant message cannot be `?thinking`?",
    "Anthropic",
    "provider-rules.md §1e, §14.3 R3",
    implies="anthropic",
)

ANTHROPIC_EMPTY_THINKING = _pattern(
    "anthropic-empty-thinking",
    r"each thinking block must contain thinking",
    "Anthropic",
    "provider-rules.md §1e, §14.3 R12",
    implies="anthropic",
)

ANTHROPIC_EMPTY_TEXT = _pattern(
    "anthropic-empty-text",
    r"text content blocks must be non-empty|text content blocks must contain non-whitespace",
    "Anthropic, Bedrock Claude",
    "anthropics/claude-code#59812, #23440; continuedev/continue#9605",
)

ANTHROPIC_TRAILING_WHITESPACE = _pattern(
    "anthropic-trailing-whitespace",
    r"final assistant content cannot end with trailing whitespace",
    "Anthropic",
    "provider-rules.md §1g",
    implies="anthropic",
)

ANTHROPIC_EMPTY_MESSAGE = _pattern(
    "anthropic-empty-message",
    r"all messages must have non-empty content except for the optional final assistant",
    "Anthropic, DeepSeek /anthropic",
    "anthropics/claude-code#6774; vercel/ai PR#5783; CoreInfraAI/opencode-plugin PR#6",
)

ANTHROPIC_PREFILL = _pattern(
    "anthropic-prefill",
    r"does not support assistant message prefill|pre-fill the `?assistant`? response",
    "Anthropic, Bedrock (Claude)",
    "provider-rules.md §1f, §14.4 O4",
)

ANTHROPIC_UNEXPECTED_SYSTEM_ROLE = _pattern(
    "anthropic-unexpected-system-role",
    r'Unexpected role "system"',
    "Anthropic (older models)",
    "provider-rules.md §1f, §14.4 O3",
    implies="anthropic",
)

ANTHROPIC_THINKING_BOUND_TO_PREFIX = _pattern(
    "anthropic-thinking-bound-to-prefix",
    r"The block is bound to a different conversation",
    "Anthropic (Claude Opus 5.5, Fable 5.1)",
    "anomalyco/opencode#48637; provider-rules.md §1(e), R15",
    implies="anthropic",
)

ANTHROPIC_TOOLS_UNDEFINED = _pattern(
    "anthropic-tools-undefined",
    r"Requests which include `?tool_use`? or `?tool_result`? blocks must define tools",
    "Anthropic",
    "anthropics/anthropic-sdk-python#494",
    implies="anthropic",
)

ANTHROPIC_NO_MESSAGES = _pattern(
    "anthropic-no-messages",
    r"at least one message is required",
    "Anthropic",
    "devoxx/DevoxxGenieIDEAPlugin#567; automazeio/vibeproxy#81",
)

# --- OpenAI Chat Completions and the servers that copy its wording ---
OPENAI_TOOL_CALLS_WITHOUT_RESULTS = _pattern(
    "openai-tool-calls-without-results",
    r"An assistant message with [\"']tool_calls[\"'] must be followed by tool messages",
    "OpenAI Chat, DeepSeek, DashScope/Qwen, Kimi",
    "aliasrobotics/cai#111; BerriAI/litellm#10083; langgenius/dify#32222",
)

OPENAI_TOOL_MESSAGE_WITHOUT_CALL = _pattern(
    "openai-tool-message-without-call",
    r"(?i)messages with role [\"']tool[\"'] must be a response to a prece+ding message "
    r"with [\"']tool_calls[\"']",
    "OpenAI Chat, DeepSeek, DashScope/Qwen",
    "miurla/morphic#136; pydantic/pydantic-ai#2050; FoundationAgents/OpenManus#23",
)

OPENAI_TOOL_CALL_ID_NOT_FOUND = _pattern(
    "openai-tool-call-id-not-found",
    r"'tool_call_id' of '[^']*' not found in 'tool_calls' of previous message",
    "OpenAI Chat",
    "dapr/dapr-agents#145",
)

OPENAI_FUNCTION_NAME_PATTERN = _pattern(
    "openai-function-name-pattern",
    r"function\.name': string does not match pattern",
    "OpenAI Chat",
    "mcp-use/mcp-use PR#94; coinbase/agentkit PR#217",
)

OPENAI_TOOL_CALL_ID_TOO_LONG = _pattern(
    "openai-tool-call-id-too-long",
    r"tool_calls\[\d+\]\.id': string too long",
    "OpenAI Chat, Azure OpenAI",
    "agno-agi/agno#5382; vercel/ai#8132; Portkey-AI/gateway#1062",
    implies="openai-chat",
)

OPENAI_ASSISTANT_IMAGE = _pattern(
    "openai-assistant-image",
    # The assistant role only: the same text for role 'tool' is an image in a tool result.
    r"Image URLs are only allowed for messages with role 'user', but this message with "
    r"role 'assistant'",
    "OpenAI Chat",
    "openai/openai-node#1030; onyx-dot-app/onyx PR#1964; OpenHands/OpenHands#7700",
)

OPENAI_IMAGE_NOT_SUPPORTED = _pattern(
    "openai-image-not-supported",
    r"image_url is only supported by certain models",
    "OpenAI (models without vision)",
    "nextcloud/integration_openai#282; doitandbedone/ispyagentdvr-docker#677",
)

OPENAI_NO_MESSAGES = _pattern(
    "openai-no-messages",
    r"\[\] is too short - 'messages'|Invalid 'messages': empty array",
    "OpenAI Chat",
    "run-llama/llama_index#9373; sashabaranov/go-openai#605; CopilotKit/CopilotKit#529",
)

OPENAI_TOOL_IMAGE = _pattern(
    "openai-tool-image",
    r"Image URLs are only allowed for messages with role 'user', but this message with "
    r"role 'tool'",
    "OpenAI Chat",
    "OpenHands/OpenHands#7700 (through LiteLLM); OpenHands/OpenHands PR#10200",
)

# --- OpenAI Responses ---
OPENAI_CALL_ID_TOO_LONG = _pattern(
    "openai-call-id-too-long",
    r"input\[\d+\]\.call_id': string too long",
    "OpenAI Responses",
    "AnswerDotAI/fastllm#45; decolua/9router#393 (heal.providers openai-responses profile)",
    implies="openai-responses",
)

OPENAI_REASONING_WITHOUT_FOLLOWING_ITEM = _pattern(
    "openai-reasoning-without-following-item",
    r"of type 'reasoning' was provided without its required following item",
    "OpenAI Responses",
    "vercel/ai#8379, #7099, #11036; continuedev/continue#8933; mastra-ai/mastra#14048",
    implies="openai-responses",
)

OPENAI_ITEM_WITHOUT_REASONING = _pattern(
    "openai-item-without-reasoning",
    r"was provided without its required 'reasoning' item",
    "OpenAI Responses",
    "continuedev/continue#12620; vercel/ai#11036",
    implies="openai-responses",
)

OPENAI_NO_TOOL_OUTPUT = _pattern(
    "openai-no-tool-output",
    r"No tool output found for function call",
    "OpenAI Responses",
    "openai/openai-agents-python#673, #1061; gptme/gptme#3293",
    implies="openai-responses",
)

OPENAI_NO_TOOL_CALL_FOR_OUTPUT = _pattern(
    "openai-no-tool-call-for-output",
    r"No tool call found for function call output with call_id",
    "OpenAI Responses",
    "continuedev/continue#10092; can1357/oh-my-pi#106",
    implies="openai-responses",
)

OPENAI_DUPLICATE_ITEM = _pattern(
    "openai-duplicate-item",
    r"Duplicate item found with id",
    "OpenAI Responses",
    "continuedev/continue#10723; OpenRouterTeam/ai-sdk-provider#254; vercel/ai#7883",
    implies="openai-responses",
)

OPENAI_ENCRYPTED_CONTENT_NOT_VERIFIED = _pattern(
    "openai-encrypted-content-not-verified",
    r"encrypted content .{0,200}could not be verified",
    "OpenAI Responses",
    "openai/codex#8132, #8126, #8119, #35334",
    implies="openai-responses",
)

AZURE_INVALID_PAYLOAD = _pattern(
    "azure-invalid-payload",
    # Only the error code is on record, and Azure uses it for other payload problems too: not
    # implied, and it names a rule that runs for openai-responses anyway.
    r"\binvalid_payload\b",
    "Azure AI Foundry (Responses)",
    "dotnet/extensions#7628; Azure/azure-sdk-for-net#59967",
)

# --- Google Gemini ---
GOOGLE_MISSING_THOUGHT_SIGNATURE = _pattern(
    "google-missing-thought-signature",
    r"Function call is missing a thought_signature",
    "Gemini",
    "provider-rules.md §4e",
    implies="google",
)

GOOGLE_INVALID_THOUGHT_SIGNATURE = _pattern(
    "google-invalid-thought-signature",
    r"thought_signature' \(TYPE_BYTES\), Base64 decoding failed"
    r"|Corrupted thought signature|Invalid thought signature",
    "Gemini",
    "provider-rules.md §4e",
    implies="google",
)

GOOGLE_INLINE_DATA_NOT_BASE64 = _pattern(
    "google-inline-data-not-base64",
    r"inline_data\.data' \(TYPE_BYTES\), Base64 decoding failed",
    "Gemini",
    "bobrware/bobrchat#135",
    implies="google",
)

GOOGLE_FUNCTION_CALL_TURN_ORDER = _pattern(
    "google-function-call-turn-order",
    r"function call turn comes immediately after a user turn or after a function response turn",
    "Gemini",
    "provider-rules.md §4a",
    implies="google",
)

GOOGLE_FUNCTION_RESPONSE_TURN_ORDER = _pattern(
    "google-function-response-turn-order",
    r"function response turn comes immediately after a function call turn",
    "Gemini",
    "provider-rules.md §4a",
    implies="google",
)

GOOGLE_FUNCTION_RESPONSE_COUNT = _pattern(
    "google-function-response-count",
    r"number of function response parts is equal to the number of function call parts",
    "Gemini",
    "provider-rules.md §4a",
    implies="google",
)

GOOGLE_EMPTY_CONTENT = _pattern(
    "google-empty-content",
    r"contents\.parts must not be empty|empty text parameter|required oneof field 'data'",
    "Gemini, Vertex AI",
    "langchain-ai/langchain-google#691; vercel/ai#3775; FoundationAgents/OpenManus PR#876",
    implies="google",
)

GOOGLE_CONTENTS_NOT_SPECIFIED = _pattern(
    "google-contents-not-specified",
    r"GenerateContentRequest\.contents: contents is not specified",
    "Gemini",
    "vercel/ai#3775",
    implies="google",
)

GOOGLE_INVALID_FUNCTION_NAME = _pattern(
    "google-invalid-function-name",
    r"Invalid function name\. Must start with a letter or an underscore",
    "Gemini",
    "google-gemini/gemini-cli#6704, #7878; BerriAI/litellm#12543",
    implies="google",
)

# --- Bedrock Converse ---
BEDROCK_MISSING_TOOL_RESULTS = _pattern(
    "bedrock-missing-tool-results",
    r"Expected toolResult blocks at messages\.\d+\.content for the following Ids",
    "Bedrock",
    "provider-rules.md §5a",
    implies="bedrock",
)

BEDROCK_EXTRA_TOOL_RESULTS = _pattern(
    "bedrock-extra-tool-results",
    r"number of toolResult blocks at messages\.\d+\.content exceeds the number of toolUse",
    "Bedrock",
    "provider-rules.md §5a",
    implies="bedrock",
)

BEDROCK_DUPLICATE_TOOL_USE_ID = _pattern(
    "bedrock-duplicate-tool-use-id",
    r"toolUse blocks at messages\.\d+\.content contain duplicate Ids",
    "Bedrock",
    "bvcyber/Cyber-AutoAgent-ng#72",
    implies="bedrock",
)

BEDROCK_TOOL_NAME_PATTERN = _pattern(
    "bedrock-tool-name-pattern",
    r"toolUse\.name' failed to satisfy constraint",
    "Bedrock",
    "vercel/ai#9173",
    implies="bedrock",
)

BEDROCK_EMPTY_ERROR_RESULT = _pattern(
    "bedrock-empty-error-result",
    r"cannot be empty when status value is error",
    "Bedrock",
    "provider-rules.md §5g",
    implies="bedrock",
)

BEDROCK_FIRST_MESSAGE = _pattern(
    "bedrock-first-message",
    r"A conversation must start with a user message",
    "Bedrock",
    "provider-rules.md §5f",
    implies="bedrock",
)

BEDROCK_ROLE_ALTERNATION = _pattern(
    "bedrock-role-alternation",
    r"A conversation must alternate between user and assistant roles",
    "Bedrock",
    "provider-rules.md §5f",
    implies="bedrock",
)

BEDROCK_BLANK_TEXT = _pattern(
    "bedrock-blank-text",
    r"The text field in the ContentBlock object at messages\.\d+\.content\.\d+ is blank",
    "Bedrock",
    "aws-samples/bedrock-engineer#8",
    implies="bedrock",
)

BEDROCK_EMPTY_MESSAGE = _pattern(
    "bedrock-empty-message",
    r"The content field in the Message object at messages\.\S+ is empty",
    "Bedrock",
    "vercel/ai#15248",
    implies="bedrock",
)

BEDROCK_REASONING_IN_USER_MESSAGE = _pattern(
    "bedrock-reasoning-in-user-message",
    r"User messages cannot contain reasoning content",
    "Bedrock",
    "vercel/ai#7034",
    implies="bedrock",
)

BEDROCK_DOCUMENT_WITHOUT_TEXT = _pattern(
    "bedrock-document-without-text",
    r"A text block must be included when using documents",
    "Bedrock",
    "archestra-ai/archestra PR#4220",
    implies="bedrock",
)

BEDROCK_TOOL_CONFIG_UNDEFINED = _pattern(
    "bedrock-tool-config-undefined",
    r"The toolConfig field must be defined when using (the )?toolUse and toolResult content "
    r"blocks",
    "Bedrock",
    "langgenius/dify#17545; elastic/kibana PR#246943; aws-samples/bedrock-access-gateway PR#239",
    implies="bedrock",
)

# --- Mistral ---
MISTRAL_TOOL_CALL_ID = _pattern(
    "mistral-tool-call-id",
    r"Tool call id was .{1,120} but must be a-z, A-Z, 0-9, with a length of 9",
    "Mistral (API, vLLM, local tekken)",
    "anomalyco/opencode#1680; langchain-ai/langchain PR#24668; nearai/ironclaw#1241",
    implies="mistral",
)

MISTRAL_FUNCTION_NAME = _pattern(
    "mistral-function-name",
    r"Function name was .{1,200} but must be a-z, A-Z, 0-9",
    "Mistral",
    "Kochava-Studios/witsy PR#164; BerriAI/litellm#2512",
    implies="mistral",
)

MISTRAL_USER_AFTER_TOOL = _pattern(
    "mistral-user-after-tool",
    r"Unexpected role 'user' after role 'tool'",
    "Mistral",
    "zed-industries/zed#37021; avante PR#2695; NousResearch/hermes-agent#20154",
    implies="mistral",
)

MISTRAL_TOOL_AFTER_USER = _pattern(
    "mistral-tool-after-user",
    r"Unexpected role 'tool' after role 'user'|Unexpected role RoleEnum\.tool",
    "Mistral",
    "charmbracelet/crush#279; mistralai/mistral-inference#135",
    implies="mistral",
)

MISTRAL_CALL_RESPONSE_COUNT = _pattern(
    "mistral-call-response-count",
    r"Not the same number of function calls and responses",
    "Mistral",
    "mistralai/client-ts#106; camel-ai/camel#1467; mistralai/client-python#234",
    implies="mistral",
)

MISTRAL_REASONING_INPUT = _pattern(
    "mistral-reasoning-input",
    r"Reasoning input is not enabled for this model",
    "Mistral",
    "suitenumerique/conversations#402",
    implies="mistral",
)

# --- DeepSeek and Kimi thinking mode ---
DEEPSEEK_MISSING_REASONING_CONTENT = _pattern(
    "deepseek-missing-reasoning-content",
    r"Missing `?reasoning_content`? field in the assistant message",
    "DeepSeek (V3.2 thinking mode)",
    "api-docs.deepseek.com/guides/thinking_mode; hotovo/aider-desk#529",
    implies="deepseek",
)

DEEPSEEK_REASONING_CONTENT_PASSED_BACK = _pattern(
    "deepseek-reasoning-content-passed-back",
    # reasoning_text: the same rule on DeepSeek's Responses endpoint (rikkahub/rikkahub#1629).
    r"`?(?:reasoning_content|reasoning_text)`? in the thinking mode must be passed back",
    "DeepSeek (V4)",
    "JohnnyZ93/oai-compatible-copilot#215; borawong/AiMaMi#8; rikkahub/rikkahub#1629",
    implies="deepseek",
)

KIMI_MISSING_REASONING_CONTENT = _pattern(
    "kimi-missing-reasoning-content",
    r"reasoning_content is missing in assistant tool call message",
    "Kimi / Moonshot (thinking mode)",
    "axonhub PR#1755; open-webui/open-webui#23175",
    # Kimi's thinking mode has DeepSeek's wire convention (reasoning_content on every
    # assistant tool-call turn), so DeepSeek's rules are the ones that fit.
    implies="deepseek",
)

DEEPSEEK_IMAGE_URL_VARIANT = _pattern(
    "deepseek-image-url-variant",
    r"unknown variant `image_url`, expected `text`",
    "DeepSeek (text-only models)",
    "rikkahub/rikkahub#1433; jxxghp/MoviePilot#5863",
)

# --- Cerebras, Groq, xAI ---
CEREBRAS_REASONING_CONTENT_UNSUPPORTED = _pattern(
    "cerebras-reasoning-content-unsupported",
    r"property 'messages\.\d+\.assistant\.reasoning(_content)?' is unsupported",
    "Cerebras",
    "Kilo-Org/kilocode#10375; anomalyco/opencode#48774; vercel/ai#15042",
    implies="cerebras",
)

GROQ_REASONING_UNSUPPORTED = _pattern(
    "groq-reasoning-unsupported",
    r"property 'reasoning(_content)?' is unsupported",
    "Groq",
    "AstrBotDevs/AstrBot#5946; janhq/jan#8136; karthink/gptel#774",
    implies="groq",
)

XAI_EMPTY_CONTENT = _pattern(
    "xai-empty-content",
    r"Each message must have at least one content element",
    "xAI",
    "langchain-ai/langchain#34140; n8n-io/n8n#14797; NousResearch/hermes-agent#30310",
    implies="xai",
)

# --- OpenAI-compatible servers that parse tool arguments (vLLM, llama.cpp) ---
COMPAT_TOOL_ARGUMENTS_NOT_JSON = _pattern(
    "compat-tool-arguments-not-json",
    r"Expecting ',' delimiter|Failed to parse tool call arguments as JSON|Invalid \\escape",
    "vLLM, llama.cpp",
    "vllm-project/vllm#43995; OpenHands/software-agent-sdk#2887",
)

# --- heal's own refusals, and the request encoder ---
HEAL_TEXT_DOCUMENT_NOT_UTF8 = _pattern(
    "heal-text-document-not-utf8",
    r"document's data is not base64 UTF-8 text",
    "heal (Anthropic adapter)",
    "heal.adapters.anthropic dump_messages",
)

HEAL_TEXT_FILE_NOT_INLINED = _pattern(
    "heal-text-file-not-inlined",
    r"file given by URL or undecodable data; this API takes no text files",
    "heal (text-file-attachment report)",
    "heal.rules.files TextFileAttachment",
)

HEAL_RESPONSES_FOREIGN_SERVER_TOOL = _pattern(
    "heal-responses-foreign-server-tool",
    r"provider-executed tool call without an OpenAI item id cannot be represented as a "
    r"Responses input item",
    "heal (OpenAI Responses adapter)",
    "heal.adapters.openai_responses dump_messages",
)

PYTHON_LONE_SURROGATE = _pattern(
    "python-lone-surrogate",
    r"can't encode character '\\ud[89a-f][0-9a-f]{2}' in position \d+: surrogates not allowed",
    "Python (encoding any request body as UTF-8)",
    "UnicodeEncodeError from json/httpx; RFC 8259 §8.2",
)


CATALOGUE: tuple[RejectionPattern, ...] = tuple(_DECLARED)
"""Every pattern above, in declaration order (the order ``heal_after_error`` reports them in)."""
