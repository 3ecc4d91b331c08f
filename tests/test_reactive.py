"""Reactive repair: every error pattern against the verbatim rejections the rules cite for it and
other wordings of them (and strings it must not match), and ``heal_after_error`` end to end:
wrappers, JSON envelopes, exceptions, several problems in one error, rules that are off by
default, rules of the caller's own, idempotence."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from heal import PROVIDERS, Policy, dump_messages, heal_messages
from heal.errors import ConfigError
from heal.messages import TextPart, UserMessage
from heal.reactive import ERROR_PATTERNS, ReactiveResult, error_text, heal_after_error
from heal.repairs import Action
from heal.rules import (
    BUILTIN_RULES,
    Context,
    DropPart,
    Finding,
    Rejection,
    RejectionPattern,
    Rule,
    default_registry,
)
from heal.rules._errors import BEDROCK_BLANK_TEXT

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "provider-rules.md"
"""The provider-rules report, in the ``shared/`` folder beside the checkout (as CI lays it out)."""


def _cited() -> dict[str, tuple[str, ...]]:
    """The texts the built-in rules cite, by the pattern each citation names."""
    found: dict[str, dict[str, None]] = {}
    for rule in BUILTIN_RULES:
        for rejection in rule.rejections:
            assert rejection.pattern is not None, rule.id  # tests/test_registry.py says why
            found.setdefault(rejection.pattern.id, {})[rejection.error] = None
    return {pattern_id: tuple(texts) for pattern_id, texts in found.items()}


CITED = _cited()
"""The verbatim rejections the rules cite (each with its source, in the rule), by pattern."""

# Other wordings of the same rejections, verbatim from the provider-rules report (another id or
# index, an older API, a server that copies the wording, a gateway's prefix), which no rule cites:
# the patterns must find them too.
VARIANTS: dict[str, tuple[str, ...]] = {
    "ai-sdk-missing-tool-results": (
        "AI_MissingToolResultsError: Tool result is missing for tool call call_abc.",
    ),
    "anthropic-tool-use-without-result": (
        "messages.7:`tool_use` ids were found without `tool_result` blocks immediately after: call_00_...",
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: tool-example-123. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: call_abc. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    ),
    "anthropic-unexpected-tool-result": (
        "unexpected `tool_use_id` found in `advisor_tool_result` blocks: srvtoolu_... Each `advisor_tool_result` block must have a corresponding `server_tool_use` block before it.",
    ),
    "anthropic-duplicate-tool-use-id": ("messages.1.content.1: `tool_use` ids must be unique",),
    "anthropic-tool-input-not-object": (
        "400: messages.N.content.M.tool_use.input: Input should be a valid dictionary",
    ),
    "anthropic-tool-name-pattern": (
        "messages.5.content.1.tool_use.name: String should have at most 64 characters",
        "messages.1.content.0.tool_use.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
    ),
    "anthropic-expected-thinking-first": (
        "Expected 'thinking' or 'redacted_thinking', but found 'tool_use'",
    ),
    "anthropic-thinking-not-first": (
        "messages.5.content.0: If an assistant message contains any thinking blocks, the first block must be `thinking` or `redacted_thinking`. Found `text`.",
    ),
    "anthropic-final-block-thinking": (
        "messages.N: The final block in an assistant message cannot be `thinking`.",
        "The final block in an assistant message cannot be `thinking`",
    ),
    "openai-tool-calls-without-results": (
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. (insufficient tool messages following tool_calls message)",
        '<400> InternalError.Algo.InvalidParameter: An assistant message with "tool_calls" must be followed by tool messages responding to each "tool_call_id". The following tool_call_ids did not have response messages: message[532].role',
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: tool-example-123",
    ),
    "openai-tool-message-without-call": (
        "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'",
        '<400> InternalError.Algo.InvalidParameter: messages with role "tool" must be a response to a preceeding message with "tool_calls".',
    ),
    "openai-function-name-pattern": (
        "Invalid 'tools[0].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
    ),
    "openai-item-without-reasoning": (
        "Item 'fc_...' of type 'function_call' was provided without its required 'reasoning' item: 'rs_...'.",
    ),
    "google-invalid-thought-signature": ("Invalid thought signature",),
    "google-empty-content": (
        "Unable to submit request because it has an empty text parameter. Add a value to the parameter and try again. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/gemini",
    ),
    "bedrock-tool-name-pattern": (
        "2 validation errors detected: Value at 'messages.73.member.content.2.member.toolUse.name' failed to satisfy constraint: Member must have length less than or equal to 64; Value at 'messages.73.member.content.2.member.toolUse.name' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+",
        "ValidationException: 1 validation error detected: Value at 'messages.N.member.content.M.member.toolUse.name' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+",
    ),
    "mistral-tool-after-user": ("Unexpected role RoleEnum.tool",),
    "compat-tool-arguments-not-json": ("Failed to parse tool call arguments as JSON",),
}

NEGATIVES: dict[str, tuple[str, ...]] = {
    # near misses first: the sibling rejection each pattern must not swallow
    "ai-sdk-missing-tool-results": ("Tool call is missing for tool result x.",),
    "anthropic-tool-use-without-result": (
        "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1.",
    ),
    "anthropic-caller-source-tool-missing": ("source tool not found",),
    "anthropic-unexpected-tool-result": (
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: x",
    ),
    "anthropic-tool-result-not-first": ("Did not find the tool_result block you asked for",),
    "anthropic-multiple-tool-results": ("each tool_use must have a result",),
    "anthropic-duplicate-tool-use-id": ("tool_use ids must be strings",),
    "anthropic-tool-input-not-object": ("tool_use.input: Field required",),
    "anthropic-tool-use-id-pattern": ("tool_use.name: String should match pattern '^x$'",),
    "anthropic-tool-name-pattern": ("tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",),
    "anthropic-tool-name-too-long": ("The length of the tool description cannot exceed 1024.",),
    "anthropic-thinking-signature-required": (
        "messages.1.content.0.thinking.thinking: Field required",
    ),
    "anthropic-invalid-thinking-signature": (
        "Invalid `signature` in `text` block",
        # the variant that says why is its own pattern's
        "messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation.",
    ),
    "ai-sdk-empty-messages": (
        "* GenerateContentRequest.contents[0].parts: contents.parts must not be empty.",
    ),
    "anthropic-no-messages": (
        "messages.0: all messages must have non-empty content except for the optional final assistant message",
    ),
    "openai-no-messages": (
        "Invalid 'messages[18].tool_calls': empty array. Expected an array with minimum length 1, but got an empty array instead.",
    ),
    "openai-tool-image": (
        "Invalid 'messages[2]'. Image URLs are only allowed for messages with role 'user', but this message with role 'assistant' contains an image URL.",
    ),
    "anthropic-thinking-bound-to-prefix": (
        "messages.1.content.0: Invalid `signature` in `thinking` block",
    ),
    "anthropic-tools-undefined": ("Requests which include tool_use blocks must be valid",),
    "bedrock-tool-config-undefined": ("The toolConfig field is not supported for this model",),
    "deepseek-image-url-variant": ("unknown variant `input_audio`, expected `text`",),
    "openai-image-not-supported": (
        "Image URLs are only allowed for messages with role 'user', but this message with role 'assistant' contains an image URL.",
    ),
    "anthropic-expected-thinking-first": ("Expected `text`, but found `thinking`",),
    "anthropic-thinking-not-first": ("If an assistant message contains any text blocks",),
    "anthropic-final-block-thinking": ("The final block in an assistant message cannot be `text`",),
    "anthropic-empty-thinking": ("each text block must contain text",),
    "anthropic-empty-text": ("messages: text content blocks must be strings",),
    "anthropic-trailing-whitespace": ("final assistant content cannot end with a tool call",),
    "anthropic-empty-message": ("all messages must have a role",),
    "anthropic-prefill": ("This model does not support assistant message editing.",),
    "anthropic-unexpected-system-role": ("Unexpected role 'user' after role 'tool'",),
    "openai-tool-calls-without-results": (
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
        "message with 'tool_calls'.",
    ),
    "openai-tool-message-without-call": (
        "An assistant message with 'tool_calls' must be followed by tool messages responding to "
        "each 'tool_call_id'.",
    ),
    "openai-tool-call-id-not-found": ("'tool_call_id' of 'call_1' is not a string",),
    "openai-function-name-pattern": (
        "Invalid 'messages[10].tool_calls[0].id': string too long. Expected a string with "
        "maximum length 40, but got a string with length 53 instead.",
    ),
    "openai-tool-call-id-too-long": (
        "Invalid 'tools[6].function.description': string too long. Expected a string with "
        "maximum length 1024, but got a string with length 2780 instead.",
    ),
    "openai-assistant-image": (
        "Invalid 'messages[2]'. Image URLs are only allowed for messages with role 'user', but "
        "this message with role 'tool' contains an image URL.",
    ),
    "openai-call-id-too-long": (
        "Invalid 'messages[10].tool_calls[0].id': string too long. Expected a string with "
        "maximum length 40, but got a string with length 53 instead.",
    ),
    "openai-reasoning-without-following-item": (
        "Item 'msg_07dd...' of type 'message' was provided without its required 'reasoning' item",
    ),
    "openai-item-without-reasoning": (
        "Item 'rs_06a2...' of type 'reasoning' was provided without its required following item.",
    ),
    "openai-no-tool-output": (
        "No tool call found for function call output with call_id call_x0jSANyYfXIjJkd5ftBlNxf5.",
    ),
    "openai-no-tool-call-for-output": ("No tool output found for function call call_***.",),
    "openai-duplicate-item": (
        "Item with id 'rs_04962823ecde01b901698e138042688193a657e07614b238c3' not found.",
    ),
    "openai-encrypted-content-not-verified": ("The encrypted content was verified.",),
    "google-missing-thought-signature": ("Function call is missing a name",),
    "google-invalid-thought-signature": ("Invalid thought",),
    "google-function-call-turn-order": (
        "Please ensure that function response turn comes immediately after a function call turn.",
    ),
    "google-function-response-turn-order": (
        "Please ensure that function call turn comes immediately after a user turn or after a "
        "function response turn.",
    ),
    "google-function-response-count": ("the number of candidates is equal to one",),
    "google-empty-content": ("* GenerateContentRequest.contents: contents is not specified",),
    "google-invalid-function-name": ("Invalid function call. Must start with a user turn",),
    "bedrock-missing-tool-results": (
        "The number of toolResult blocks at messages.2.content exceeds the number of toolUse "
        "blocks of previous turn.",
    ),
    "bedrock-extra-tool-results": (
        "Expected toolResult blocks at messages.2.content for the following Ids: tooluse_1",
    ),
    "bedrock-duplicate-tool-use-id": ("The toolUse blocks at messages.2.content contain text",),
    "bedrock-tool-name-pattern": (
        "Value 'Complete Session' at 'toolConfig.tools.22.member.toolSpec.name' failed to "
        "satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+",
    ),
    "bedrock-empty-error-result": ("cannot be empty when status value is success",),
    "bedrock-first-message": ("A conversation must start with a system message",),
    "bedrock-role-alternation": ("A conversation must alternate between tools",),
    "bedrock-blank-text": (
        "The content field in the Message object at messages.N is empty. Add a ContentBlock "
        "object to the content field and try again.",
    ),
    "bedrock-empty-message": (
        "The text field in the ContentBlock object at messages.15.content.0 is blank. Add text "
        "to the text field, and try again.",
    ),
    "bedrock-reasoning-in-user-message": ("User messages cannot contain images",),
    "bedrock-document-without-text": ("A text block must be included when using tools.",),
    "anthropic-assistant-image": ("'image' blocks are not permitted within user turns",),
    "mistral-tool-call-id": (
        "Function name was add_task but must be a-z, A-Z, 0-9, or contain underscores and "
        "dashes, with a maximum length of 64.",
    ),
    "mistral-function-name": (
        "Tool call id was call_PTLP8xhu3uwZk4l3nlnrrJha but must be a-z, A-Z, 0-9, with a "
        "length of 9.",
    ),
    "mistral-user-after-tool": ("Unexpected role 'tool' after role 'user'",),
    "mistral-tool-after-user": ("Unexpected role 'user' after role 'tool'",),
    "mistral-call-response-count": ("Not the same number of choices",),
    "mistral-reasoning-input": ("Reasoning input is enabled for this model",),
    "deepseek-missing-reasoning-content": ("Missing `content` field in the assistant message",),
    "deepseek-reasoning-content-passed-back": (
        "The `content[].thinking` in the thinking mode must be passed back to the API.",
    ),
    "kimi-missing-reasoning-content": ("thinking is enabled but content is missing",),
    "cerebras-reasoning-content-unsupported": (
        "'messages.2' : for 'role:assistant' the following must be satisfied[('messages.2' : "
        "property 'reasoning_content' is unsupported)]",
    ),
    "groq-reasoning-unsupported": (
        '{"message":"messages.2.assistant.reasoning_content: property '
        "'messages.2.assistant.reasoning_content' is unsupported\"}",
        "'messages.1' : for 'role:user' the following must be satisfied[('messages.1' : "
        "property 'tool_calls' is unsupported, did you mean 'tool_call_id'?)]",
    ),
    "xai-empty-content": ("Each message must have a role",),
    "compat-tool-arguments-not-json": ("Expecting value: line 1 column 1 (char 0)",),
    "ai-sdk-unknown-approval-id": ("Tool approval request references unknown toolCallId",),
    "ai-sdk-approval-call-not-found": (
        'Tool call "c9" not found',
        "AI_NoSuchToolError: Model tried to call unavailable tool 'weather'.",
    ),
    "ai-sdk-bedrock-system-not-first": ("Multiple system messages are supported",),
    "ai-sdk-google-system-not-first": ("system messages are supported anywhere",),
    "ai-sdk-google-assistant-file-url": ("File data URLs in user messages are not supported",),
    "ai-sdk-openai-foreign-reasoning": ("OpenAI reasoning parts are not supported",),
    "ai-sdk-openai-server-tool-results": (
        "Results for OpenAI tool web_search are sent to the API when store is true",
    ),
    "ai-sdk-openai-text-file": (
        "AI_UnsupportedFunctionalityError: 'file part media type application/pdf' "
        "functionality not supported.",
    ),
    "ai-sdk-file-id-tool-content": (
        "AI_UnsupportedFunctionalityError: 'unsupported tool content part type: image-url' "
        "functionality not supported.",
    ),
    "ai-sdk-anthropic-media-type": (
        "AI_UnsupportedFunctionalityError: 'unsupported tool content part type: image-data "
        "with media type: image/png' functionality not supported.",
    ),
    "ai-sdk-mistral-assistant-tool-result": (
        "Unsupported content type in assistant message: file",
    ),
    "ai-sdk-mistral-assistant-file": (
        "Unsupported content type in assistant message: tool-result",
        "Unsupported content type in assistant message: files",
    ),
    "ai-sdk-mistral-file-type": ("Only image file parts are supported",),
    "anthropic-media-type": (
        "messages.0.content.1.image.source.type: Input should be 'base64' or 'url'",
    ),
    "azure-invalid-payload": ("invalid_payload_size", "The payload is invalid."),
    "google-inline-data-not-base64": (
        "Invalid value at 'contents[2].parts[0].thought_signature' (TYPE_BYTES), Base64 decoding "
        'failed for "Es4D..."',
    ),
    "google-contents-not-specified": (
        "* GenerateContentRequest.contents[41].parts: contents.parts must not be empty.",
        "* GenerateContentRequest.model: model is not specified",
    ),
    "heal-text-document-not-utf8": ("an application/pdf document's data is not base64",),
    "heal-text-file-not-inlined": ("text/plain file given by URL; this API takes text files",),
    "heal-responses-foreign-server-tool": (
        "a provider-executed tool call with an OpenAI item id is a Responses input item",
    ),
    "python-lone-surrogate": (
        "UnicodeEncodeError: 'ascii' codec can't encode character '\\xe9' in position 5: "
        "ordinal not in range(128)",
    ),
}

UNRELATED = (
    "Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM)",
    "This model's maximum context length is 128000 tokens. However, your messages resulted in "
    "130000 tokens.",
    "Incorrect API key provided: sk-****. You can find your API key at https://platform.openai.com",
    "prompt is too long: 210000 tokens > 200000 maximum",
    "Overloaded",
    "The model returned the following errors: Input is too long for requested model.",
    '{"error":{"message":"Internal server error","type":"server_error"}}',
    "",
)

BY_ID = {pattern.id: pattern for pattern in ERROR_PATTERNS}
SAMPLES = {
    pattern_id: CITED.get(pattern_id, ()) + VARIANTS.get(pattern_id, ()) for pattern_id in BY_ID
}


# --- the catalogue ---------------------------------------------------------------------------


def test_catalogue_is_well_formed() -> None:
    ids = [pattern.id for pattern in ERROR_PATTERNS]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", pattern_id) for pattern_id in ids)
    for pattern in ERROR_PATTERNS:
        assert pattern.rules and pattern.provider and pattern.source
        assert pattern.implies is None or pattern.implies in PROVIDERS
        assert not pattern.regex.pattern.startswith("^"), "search, never anchor"


def test_catalogue_names_registered_rules() -> None:
    unknown = {
        (pattern.id, rule)
        for pattern in ERROR_PATTERNS
        for rule in pattern.rules
        if rule not in default_registry
    }
    assert unknown == set()


def test_every_pattern_has_samples_and_negatives() -> None:
    assert set(CITED) == set(BY_ID), "every pattern is cited by a rule, verbatim"
    assert set(VARIANTS) <= set(BY_ID)
    assert set(NEGATIVES) == set(BY_ID)


@pytest.mark.parametrize("pattern_id", sorted(BY_ID))
def test_pattern_matches_its_verbatim_rejections(pattern_id: str) -> None:
    regex = BY_ID[pattern_id].regex
    for sample in SAMPLES[pattern_id]:
        assert regex.search(sample), sample
        # wrapped by a gateway, or inside a JSON envelope, it is still found
        wrapped = f"The model returned the following errors: {sample}"
        assert pattern_id in heal_after_error([], wrapped).matched
        envelope = {"error": {"message": sample, "type": "invalid_request_error"}}
        assert pattern_id in heal_after_error([], envelope).matched
        assert pattern_id in heal_after_error([], json.dumps(envelope).encode()).matched


@pytest.mark.parametrize("pattern_id", sorted(BY_ID))
def test_pattern_rejects_near_misses_and_unrelated_errors(pattern_id: str) -> None:
    regex = BY_ID[pattern_id].regex
    for text in (*NEGATIVES[pattern_id], *UNRELATED):
        assert not regex.search(text), text


def test_variants_are_verbatim_in_the_report() -> None:
    if not REFERENCE.exists():
        pytest.skip("the provider-rules report is not available here")
    report = REFERENCE.read_text(encoding="utf-8")
    missing = [s for samples in VARIANTS.values() for s in samples if s not in report]
    assert missing == []


def test_unrelated_errors_match_nothing() -> None:
    for text in UNRELATED:
        assert heal_after_error([{"role": "user", "content": "hi"}], text).matched == ()


# --- heal_after_error ------------------------------------------------------------------------


def _reasoning(rid: str) -> dict[str, Any]:
    return {
        "type": "reasoning",
        "text": "",
        "providerOptions": {"openai": {"itemId": rid, "reasoningEncryptedContent": None}},
    }


def _call(cid: str, name: str = "search") -> dict[str, Any]:
    return {"type": "tool-call", "toolCallId": cid, "toolName": name, "input": {}}


def _result(cid: str, name: str = "search") -> dict[str, Any]:
    return {
        "type": "tool-result",
        "toolCallId": cid,
        "toolName": name,
        "output": {"type": "text", "value": "ok"},
    }


SCENARIO_13_7: list[dict[str, Any]] = [
    {"role": "user", "content": "Find today's top AI headline"},
    {"role": "assistant", "content": [_reasoning("rs_A"), _call("call_1")]},
    {"role": "tool", "content": [_result("call_1")]},
    {"role": "assistant", "content": [_reasoning("rs_B")]},
    {"role": "user", "content": "Summarize it"},
]
ITEM_ERROR = (
    "Item 'rs_06a2...' of type 'reasoning' was provided without its required following item."
)


def test_no_match_changes_nothing() -> None:
    result = heal_after_error(SCENARIO_13_7, "Rate limit reached", provider="openai-responses")
    assert isinstance(result, ReactiveResult)
    assert result.matched == () and result.rules == () and result.repairs == ()
    assert dump_messages(result.messages) == SCENARIO_13_7
    assert not result.changed and not result.retry


def test_scenario_13_7_from_its_error() -> None:
    result = heal_after_error(SCENARIO_13_7, ITEM_ERROR, provider="openai-responses")
    assert result.matched == ("openai-reasoning-without-following-item",)
    assert result.rules == ("reasoning-without-following-item",)
    assert dump_messages(result.messages) == [SCENARIO_13_7[i] for i in (0, 1, 2, 4)]
    assert result.retry
    again = heal_after_error(result.messages, ITEM_ERROR, provider="openai-responses")
    assert again.matched == result.matched
    assert again.repairs == () and not again.retry
    assert dump_messages(again.messages) == dump_messages(result.messages)


def test_provider_is_inferred_from_an_unambiguous_error() -> None:
    history = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": [_call("call_PTLP8xhu3uwZk4l3nlnrrJha", "weather")]},
        {"role": "tool", "content": [_result("call_PTLP8xhu3uwZk4l3nlnrrJha", "weather")]},
        {"role": "assistant", "content": "Sunny."},
    ]
    error = {
        "object": "error",
        "message": "Tool call id was call_PTLP8xhu3uwZk4l3nlnrrJha but must be a-z, A-Z, 0-9, "
        "with a length of 9.",
        "type": "invalid_request_error",
        "param": None,
        "code": None,
    }
    result = heal_after_error(history, error)
    assert result.provider == "mistral"
    assert {r.rule for r in result.repairs} == {"mistral-tool-call-id"}
    # an explicit provider is never overridden
    assert heal_after_error(history, error, provider="anthropic").provider == "anthropic"


def test_rules_off_by_default_run_when_the_error_names_them() -> None:
    history = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "text",
                    "text": "hello",
                    "providerOptions": {"openai": {"itemId": "msg_1"}},
                }
            ],
        },
        {"role": "user", "content": "again"},
    ]
    assert heal_messages(history, provider="openai-responses").repairs == ()
    error = (
        "Item 'msg_07dd...' of type 'message' was provided without its required 'reasoning' item"
    )
    result = heal_after_error(history, error, provider="openai-responses")
    assert [r.rule for r in result.repairs] == ["openai-orphan-item-id"]
    assert dump_messages(result.messages)[1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "hello"}],
    }


def test_policy_disable_wins_and_choices_are_kept() -> None:
    result = heal_after_error(
        SCENARIO_13_7,
        ITEM_ERROR,
        provider="openai-responses",
        policy=Policy(disable=["reasoning-without-following-item"]),
    )
    assert result.matched and result.repairs == () and not result.retry
    bare = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": [_call("call_1", "weather")]},
        {"role": "tool", "content": [_result("call_1", "weather")]},
    ]
    chosen = heal_after_error(
        bare,
        "The `reasoning_content` in the thinking mode must be passed back to the API.",
        policy={"missing-reasoning-content": "compat-field"},
    )
    assert chosen.provider == "deepseek"
    assert dump_messages(chosen.messages)[1]["providerOptions"] == {
        "openaiCompatible": {"reasoning_content": ""}
    }


def test_cerebras_violations_joined_by_newlines_are_all_fixed() -> None:
    thinking = {"type": "reasoning", "text": "hmm"}
    history = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [thinking, _call("c1")]},
        {"role": "tool", "content": [_result("c1")]},
        {"role": "assistant", "content": [thinking, {"type": "text", "text": "a"}]},
        {"role": "user", "content": "q2"},
    ]
    message = "\n".join(
        f"messages.{i}.assistant.reasoning_content: property "
        f"'messages.{i}.assistant.reasoning_content' is unsupported"
        for i in (1, 3)
    )
    body = json.dumps(
        {
            "message": message,
            "type": "invalid_request_error",
            "param": "validation_error",
            "code": "wrong_api_format",
        }
    )
    result = heal_after_error(history, body)
    assert result.provider == "cerebras"
    assert [(r.rule, r.message_index) for r in result.repairs] == [
        ("cerebras-strip-reasoning-content", 1),
        ("cerebras-strip-reasoning-content", 3),
    ]


def test_one_error_naming_several_problems_fixes_them_all() -> None:
    history = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": [_call("call_1", "weather")]},
        {"role": "tool", "content": [_result("call_1", "weather")]},
        {"role": "user", "content": "and tomorrow?"},
    ]
    error = (
        "Tool call id was call_1 but must be a-z, A-Z, 0-9, with a length of 9.\n"
        "Unexpected role 'user' after role 'tool'"
    )
    result = heal_after_error(history, error)
    assert result.matched == ("mistral-tool-call-id", "mistral-user-after-tool")
    assert {r.rule for r in result.repairs} == {"mistral-tool-call-id", "mistral-user-after-tool"}
    healed = dump_messages(result.messages)
    assert [m["role"] for m in healed] == ["user", "assistant", "tool", "assistant", "user"]
    assert heal_after_error(result.messages, error).repairs == ()


class _Response:
    def __init__(self, text: str) -> None:
        self._text = text

    @property
    def text(self) -> str:
        return self._text


class _StreamedResponse:
    @property
    def text(self) -> str:
        raise RuntimeError("ResponseNotRead")


class _APIError(Exception):
    def __init__(self, message: str, *, body: object = None, response: object = None) -> None:
        super().__init__(message)
        self.body = body
        self.response = response


def test_error_text_reads_exceptions_bodies_responses_and_causes() -> None:
    duplicate = (
        "Duplicate item found with id rs_1. Remove duplicate items from your input and try again."
    )
    assert (
        "openai-duplicate-item"
        in heal_after_error(
            [], _APIError("Error code: 400", body={"error": {"message": duplicate}})
        ).matched
    )
    assert (
        "openai-duplicate-item"
        in heal_after_error(
            [], _APIError("400 Bad Request", response=_Response(json.dumps({"error": duplicate})))
        ).matched
    )
    assert heal_after_error([], _APIError("x", response=_StreamedResponse())).matched == ()
    try:
        try:
            raise ValueError(duplicate)
        except ValueError as inner:
            raise RuntimeError("retry failed") from inner
    except RuntimeError as outer:
        assert "openai-duplicate-item" in heal_after_error([], outer).matched
    # JSON inside a JSON string (gateways re-wrap provider bodies)
    nested = {"error": {"message": json.dumps({"error": {"message": duplicate}})}}
    assert duplicate in error_text(nested).splitlines()
    assert error_text(b"\xff" + duplicate.encode()).endswith(duplicate)


def test_on_repair_and_extra_rules_pass_through() -> None:
    seen: list[str] = []
    result = heal_after_error(
        SCENARIO_13_7,
        ITEM_ERROR,
        provider="openai-responses",
        on_repair=lambda r: seen.append(r.rule),
    )
    assert seen == [r.rule for r in result.repairs]


def test_heal_after_error_accepts_models_and_json() -> None:
    loaded = heal_messages(SCENARIO_13_7).messages
    from_models = heal_after_error(loaded, ITEM_ERROR, provider="openai-responses")
    from_json = heal_after_error(json.dumps(SCENARIO_13_7), ITEM_ERROR, provider="openai-responses")
    assert dump_messages(from_models.messages) == dump_messages(from_json.messages)


@pytest.mark.interop
def test_interop_reactive_repairs_pass_the_ai_sdk_wire_checks() -> None:
    from tests.interop.judge import ensure_node_modules, judge
    from tests.test_provider_openai import wire_problems

    if ensure_node_modules() is None:
        pytest.skip("node and npm are not installed; the interop judge cannot run")
    mistral_history = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": [_call("call_1", "weather")]},
        {"role": "tool", "content": [_result("call_1", "weather")]},
        {"role": "user", "content": "and tomorrow?"},
    ]
    mistral_error = (
        "Tool call id was call_1 but must be a-z, A-Z, 0-9, with a length of 9.\n"
        "Unexpected role 'user' after role 'tool'"
    )
    cases = [
        ("openai-responses", heal_after_error(SCENARIO_13_7, ITEM_ERROR)),
        ("mistral", heal_after_error(mistral_history, mistral_error)),
    ]
    results = judge(
        [
            {"id": target, "target": target, "messages": dump_messages(result.messages)}
            for target, result in cases
        ]
    )
    for (target, result), judged in zip(cases, results, strict=True):
        assert result.provider == target
        assert judged["ok"], judged["error"]
        assert wire_problems(target, judged["body"]) == []


def test_unverified_reasoning_takes_the_item_ids_that_needed_it() -> None:
    # Without this, the next request fails with "Item 'msg_1' of type 'message' was provided
    # without its required 'reasoning' item".
    history = [
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
                {
                    "type": "text",
                    "text": "hello",
                    "providerOptions": {"openai": {"itemId": "msg_1"}},
                },
            ],
        },
        {"role": "user", "content": "again"},
    ]
    error = "The encrypted content gAAA...Rg== could not be verified."
    result = heal_after_error(history, error, provider="openai-responses")
    assert [(r.rule, r.action.value) for r in result.repairs] == [
        ("unverifiable-encrypted-reasoning", "remove"),
        ("unverifiable-encrypted-reasoning", "replace"),
    ]
    assert dump_messages(result.messages)[1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "hello"}],
    }
    assert heal_after_error(result.messages, error, provider="openai-responses").repairs == ()


PDF = {"type": "file", "data": "JVBERi0xLjQK", "mediaType": "application/pdf"}
PNG = {"type": "file", "data": "iVBORw0KGgo=", "mediaType": "image/png"}


@pytest.mark.parametrize(
    ("history", "error", "provider", "rule"),
    [
        (
            [{"role": "user", "content": [PDF]}],
            "A text block must be included when using documents.",
            None,
            "bedrock-document-without-text",
        ),
        (
            [
                {"role": "user", "content": "draw"},
                {"role": "assistant", "content": [PNG, {"type": "text", "text": "here"}]},
                {"role": "user", "content": "thanks"},
            ],
            "messages.1.content: 'image' blocks are not permitted within assistant turns.",
            "anthropic",
            "anthropic-assistant-file",
        ),
        (
            [
                {"role": "user", "content": "draw"},
                {"role": "assistant", "content": [PNG, {"type": "text", "text": "here"}]},
                {"role": "user", "content": "thanks"},
            ],
            "Invalid 'messages[2]'. Image URLs are only allowed for messages with role 'user', "
            "but this message with role 'assistant' contains an image URL.",
            "openai-chat",
            "openai-assistant-file",
        ),
    ],
    ids=["bedrock-document", "anthropic-assistant-image", "openai-assistant-image"],
)
def test_errors_whose_rule_is_on_anyway_are_recognised_and_fixed(
    history: list[dict[str, Any]], error: str, provider: Any, rule: str
) -> None:
    result = heal_after_error(history, error, provider=provider)
    assert result.matched and rule in result.rules
    assert rule in [r.rule for r in result.repairs]
    assert result.retry
    again = heal_after_error(result.messages, error, provider=result.provider)
    assert again.repairs == ()


KIMI_HISTORY = [
    {"role": "user", "content": "weather?"},
    {
        "role": "assistant",
        "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "w", "input": {}}],
    },
    {
        "role": "tool",
        "content": [
            {
                "type": "tool-result",
                "toolCallId": "c1",
                "toolName": "w",
                "output": {"type": "text", "value": "sun"},
            }
        ],
    },
]


@pytest.mark.parametrize("provider", [None, "openai-compatible", "deepseek"])
def test_kimi_error_is_fixed_with_deepseeks_convention(provider: Any) -> None:
    # infer_provider("moonshotai.chat") is "openai-compatible"; Kimi's error says which
    # convention the server follows.
    error = "reasoning_content is missing in assistant tool call message at index 1"
    result = heal_after_error(KIMI_HISTORY, error, provider=provider)
    assert result.provider == "deepseek"
    assert [r.rule for r in result.repairs] == ["missing-reasoning-content"]


def test_an_error_does_not_override_a_specific_provider() -> None:
    error = "reasoning_content is missing in assistant tool call message at index 1"
    result = heal_after_error(KIMI_HISTORY, error, provider="anthropic")
    assert result.provider == "anthropic"
    assert [r.rule for r in result.repairs] == []


class _Shouting(Rule):
    """User text in capitals (a house rule, off until its error names it)."""

    id = "house-shouting"
    summary = "user text is all capitals"
    default_enabled = False

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        for m, message in enumerate(ctx.messages):
            if isinstance(message, UserMessage) and not isinstance(message.content, str):
                for p, part in enumerate(message.content):
                    if isinstance(part, TextPart) and part.text.isupper():
                        yield Finding(Action.REMOVE, m, p, "capitals", edits=(DropPart(m, p),))


HOUSE_PATTERN = RejectionPattern("house-no-shouting", re.compile(r"no shouting"), "house", "docs")
SHOUTING = [
    {"role": "user", "content": [{"type": "text", "text": "HI"}, {"type": "text", "text": "x"}]}
]


def _shouting(*rejections: Rejection) -> _Shouting:
    rule = _Shouting()
    rule.rejections = rejections
    return rule


def test_a_callers_rule_runs_on_the_error_its_rejections_name() -> None:
    own = _shouting(Rejection("house", "400: no shouting", "docs", pattern=HOUSE_PATTERN))
    assert heal_after_error(SHOUTING, "400: no shouting").matched == ()
    result = heal_after_error(SHOUTING, "400: no shouting", rules=[own])
    assert result.matched == ("house-no-shouting",) and result.rules == ("house-shouting",)
    assert [r.rule for r in result.repairs] == ["house-shouting"]
    # citing a built-in pattern joins its rules, after the built-in ones
    blank = "The text field in the ContentBlock object at messages.0.content.0 is blank."
    cited = _shouting(Rejection("bedrock", blank, "docs", pattern=BEDROCK_BLANK_TEXT))
    result = heal_after_error(SHOUTING, blank, rules=[cited])
    assert result.rules == (*BY_ID["bedrock-blank-text"].rules, "house-shouting")
    # a registered rule counts as well, and stops counting when unregistered
    default_registry.register(own)
    try:
        assert heal_after_error(SHOUTING, "no shouting").rules == ("house-shouting",)
    finally:
        default_registry.unregister(own.id)
    assert heal_after_error(SHOUTING, "no shouting").matched == ()


def test_two_patterns_may_not_share_an_id() -> None:
    clash = RejectionPattern("bedrock-blank-text", re.compile("blank"), "house", "docs")
    own = _shouting(Rejection("house", "blank", "docs", pattern=clash))
    with pytest.raises(ConfigError, match="share the id 'bedrock-blank-text'"):
        heal_after_error(SHOUTING, "blank", rules=[own])
