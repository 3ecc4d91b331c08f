"""Provider profiles (what each provider accepts) and :func:`heal.providers.infer_provider`.

The profile rows quote the ids and names of the provider-rules report's error rows (the team's
shared reference, provider-rules.md): each rejected value is one a provider answered 400 for,
each accepted value one it produced or accepted. Sources are named next to the rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from importlib.metadata import PackageNotFoundError
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heal import dump_messages, heal_messages, validate_messages
from heal import providers as providers_module
from heal.errors import ConfigError
from heal.providers import (
    HEAL_NAMESPACE,
    PROVIDERS,
    SHARED_PROFILE,
    SYNTHESIZED,
    ProviderId,
    ProviderProfile,
    get_profile,
    infer_provider,
    providers_where,
)
from heal.rules._naming import rename_all

# --- infer_provider: strings -------------------------------------------------------------------

STRING_CASES: list[tuple[str, ProviderId | None]] = [
    # heal's own ids pass through
    ("anthropic", "anthropic"),
    ("openai-responses", "openai-responses"),
    ("openai-compatible", "openai-compatible"),
    # AI SDK `model.provider`
    ("anthropic.messages", "anthropic"),
    ("vertex.anthropic.messages", "anthropic"),
    ("google.vertex.anthropic.messages", "anthropic"),
    ("googleVertex.anthropic.messages", "anthropic"),
    ("bedrock.anthropic.messages", "anthropic"),
    ("amazon-bedrock", "bedrock"),
    ("openai.chat", "openai-chat"),
    ("openai.responses", "openai-responses"),
    ("azure.chat", "openai-chat"),
    ("azure.responses", "openai-responses"),
    ("google.generative-ai", "google"),
    ("google.vertex.chat", "google"),
    ("mistral.chat", "mistral"),
    ("deepseek.chat", "deepseek"),
    ("cerebras.chat", "cerebras"),
    ("groq.chat", "groq"),
    ("xai.chat", "xai"),
    ("xai.responses", "xai"),
    ("togetherai.chat", "openai-compatible"),
    ("openrouter", "openai-compatible"),
    ("bedrock-mantle.chat", "openai-compatible"),
    ("bedrock-mantle.responses", None),
    ("my-proxy.chat", None),
    ("cohere.chat", None),
    ("openai.completion", None),
    ("gateway", None),
    # pydantic-ai model strings (`openai:` depends on the installed version, tested below)
    ("anthropic:claude-sonnet-4-5", "anthropic"),
    ("openai-chat:gpt-4o", "openai-chat"),
    ("openai-responses:gpt-4o", "openai-responses"),
    ("azure:gpt-4o", "openai-chat"),
    ("azure-responses:gpt-4o", "openai-responses"),
    ("openai-codex:gpt-5.1-codex", "openai-responses"),
    ("google-gla:gemini-2.5-pro", "google"),
    ("google-vertex:gemini-2.5-pro", "google"),
    ("google:gemini-2.5-pro", "google"),
    ("google-cloud:gemini-2.5-pro", "google"),
    ("bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0", "bedrock"),
    ("groq:llama-3.3-70b-versatile", "groq"),
    ("mistral:mistral-large-latest", "mistral"),
    ("deepseek:deepseek-chat", "deepseek"),
    ("cerebras:llama-3.3-70b", "cerebras"),
    ("grok:grok-3", "xai"),
    ("xai:grok-4", "xai"),
    ("openrouter:anthropic/claude-sonnet-4.5", "openai-compatible"),
    ("together:meta-llama/Llama-3.3-70B-Instruct-Turbo", "openai-compatible"),
    ("ollama:qwen3", "openai-compatible"),
    ("gateway/anthropic:claude-sonnet-4-5", "anthropic"),
    ("gateway/chat:gpt-4o", "openai-chat"),
    ("gateway/responses:gpt-5", "openai-responses"),
    ("gateway/openai-chat:gpt-4o", "openai-chat"),
    ("gateway/converse:amazon.nova-pro-v1:0", "bedrock"),
    ("gateway/bedrock:amazon.nova-pro-v1:0", "bedrock"),
    ("gateway/google-vertex:gemini-2.5-flash", "google"),
    ("gateway/groq:llama-3.3-70b-versatile", "groq"),
    ("ft:gpt-4o-mini-2024-07-18:my-org::abc123", "openai-chat"),
    ("meta:muse-1", None),
    ("cohere:command-r-plus", None),
    ("test", None),
    # LiteLLM model strings
    ("anthropic/claude-3-5-sonnet-20240620", "anthropic"),
    ("claude-3-5-sonnet-20240620", "anthropic"),
    ("claude-sonnet-4-5", "anthropic"),
    ("bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0", "bedrock"),
    ("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", "bedrock"),
    ("bedrock/converse/anthropic.claude-3-5-sonnet-20240620-v1:0", "bedrock"),
    ("bedrock/converse/meta.llama3-1-70b-instruct-v1:0", "bedrock"),
    ("bedrock/invoke/anthropic.claude-3-5-sonnet-20240620-v1:0", "anthropic"),
    ("bedrock/invoke/amazon.titan-text-express-v1", None),
    ("bedrock/openai/openai.gpt-oss-120b-1:0", None),
    ("bedrock/amazon.nova-pro-v1:0", "bedrock"),
    ("vertex_ai/claude-3-5-sonnet@20240620", "anthropic"),
    ("vertex_ai/claude-sonnet-4-5@20250929", "anthropic"),
    ("vertex_ai/gemini-2.5-pro", "google"),
    ("vertex_ai/meta/llama-3.1-405b-instruct-maas", None),
    ("vertex_ai/mistral-large@2407", None),
    ("gemini/gemini-2.5-flash", "google"),
    ("openrouter/anthropic/claude-3.5-sonnet", "openai-compatible"),
    ("openrouter/google/gemini-2.5-pro", "openai-compatible"),
    ("together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo", "openai-compatible"),
    ("hosted_vllm/Qwen/Qwen3-32B", "openai-compatible"),
    ("mistral/mistral-large-latest", "mistral"),
    ("groq/llama-3.3-70b-versatile", "groq"),
    ("deepseek/deepseek-chat", "deepseek"),
    ("xai/grok-4", "xai"),
    ("cerebras/llama-3.3-70b", "cerebras"),
    ("openai/gpt-4o", "openai-chat"),
    ("openai/o3-mini", "openai-chat"),
    ("openai/Qwen/Qwen3-32B", "openai-compatible"),  # any OpenAI-compatible server
    ("openai/gpt-oss-120b", "openai-compatible"),
    ("openai/responses/gpt-4.1", "openai-responses"),
    ("azure/my-gpt-4o-deployment", "openai-chat"),
    ("azure/responses/my-deployment", "openai-responses"),
    ("gpt-4o", "openai-chat"),
    ("gpt-4.1-mini", "openai-chat"),
    ("o4-mini", "openai-chat"),
    ("o3", "openai-chat"),
    ("chatgpt-4o-latest", "openai-chat"),
    ("o1-pro", "openai-responses"),
    ("gpt-5-codex", "openai-responses"),
    ("gpt-5.1-codex-max", "openai-responses"),
    ("gemini-2.5-pro", "google"),
    # AI Gateway `creator/model` strings
    ("google/gemini-2.5-pro", "google"),
    ("google/gemma-3-27b-it", None),
    ("meta/llama-4-maverick", None),
    # unknown: never a guess
    ("my-local-model", None),
    ("gpt-oss-120b", None),
    ("llama3.1:8b", None),
    ("anthropic.claude-3-5-sonnet-20240620-v1:0", None),
    ("http://localhost:8000/v1", None),
    ("", None),
    ("   ", None),
    # case and surrounding space do not matter
    ("  Anthropic:Claude-Sonnet-4-5 ", "anthropic"),
    ("OpenAI.Responses", "openai-responses"),
]


@pytest.mark.parametrize(("model", "expected"), STRING_CASES)
def test_infer_provider_from_strings(model: str, expected: ProviderId | None) -> None:
    assert infer_provider(model) == expected


def test_every_expected_id_is_a_provider() -> None:
    assert {e for _, e in STRING_CASES if e is not None} <= set(PROVIDERS)


# --- infer_provider: the `openai:` prefix follows the installed pydantic-ai ---------------------


@pytest.fixture
def fresh_openai_prefix() -> Iterator[None]:
    providers_module._openai_prefix.cache_clear()
    yield
    providers_module._openai_prefix.cache_clear()


@pytest.mark.parametrize(
    ("installed", "expected"),
    [
        ("2.68.0", "openai-responses"),  # pydantic/pydantic-ai PR#5469: Responses since 2.0
        ("1.40.2", "openai-chat"),  # 1.x: OpenAIChatModel (with a deprecation warning late on)
        ("1.0.0", "openai-chat"),
        (None, "openai-responses"),  # not installed: the AI SDK and agno meaning
    ],
)
def test_openai_prefix_follows_pydantic_ai_version(
    monkeypatch: pytest.MonkeyPatch,
    fresh_openai_prefix: None,
    installed: str | None,
    expected: ProviderId,
) -> None:
    def fake_version(dist: str) -> str:
        if installed is None:
            raise PackageNotFoundError(dist)
        return installed

    monkeypatch.setattr(providers_module, "version", fake_version)
    assert infer_provider("openai:gpt-4o") == expected
    assert infer_provider("gateway/openai:gpt-4o") == expected


def test_openai_prefix_matches_installed_pydantic_ai(
    monkeypatch: pytest.MonkeyPatch, fresh_openai_prefix: None
) -> None:
    models = pytest.importorskip("pydantic_ai.models")
    openai_models = pytest.importorskip("pydantic_ai.models.openai")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")  # never sent: no request is made
    inferred = models.infer_model("openai:gpt-4o")
    expected = (
        "openai-responses"
        if isinstance(inferred, openai_models.OpenAIResponsesModel)
        else "openai-chat"
    )
    assert infer_provider("openai:gpt-4o") == expected
    assert infer_provider(inferred) == expected


# --- infer_provider: objects and mappings -------------------------------------------------------


class _AiSdkModel:
    """The shape of an AI SDK LanguageModel as seen from Python (provider + modelId)."""

    def __init__(self, provider: str, model_id: str) -> None:
        self.provider = provider
        self.modelId = model_id


MAPPING_AND_OBJECT_CASES: list[tuple[object, ProviderId | None]] = [
    ({"provider": "anthropic.messages", "modelId": "claude-sonnet-4-5"}, "anthropic"),
    ({"provider": "openai.responses"}, "openai-responses"),
    ({"provider": "gateway", "modelId": "anthropic/claude-sonnet-4.5"}, "anthropic"),
    ({"provider": "gateway", "modelId": "google/gemini-2.5-flash"}, "google"),
    ({"provider": "gateway", "modelId": "openai/gpt-5"}, None),
    ({"provider": "gateway"}, None),
    ({"provider": "openai"}, None),  # a vendor, not a wire format
    ({"provider": "bedrock"}, "bedrock"),
    ({"system": "anthropic", "model_name": "claude-sonnet-4-5"}, "anthropic"),
    ({"system": "google-gla", "model_name": "gemini-2.5-pro"}, "google"),
    ({"system": "openai", "model_name": "gpt-4o"}, None),  # chat or responses: unknown
    ({"model": "groq/llama-3.3-70b-versatile"}, "groq"),
    ({}, None),
    (_AiSdkModel("amazon-bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"), "bedrock"),
    (_AiSdkModel("google.vertex.chat", "gemini-2.5-pro"), "google"),
    (_AiSdkModel("gateway", "anthropic/claude-opus-4"), "anthropic"),
    (_AiSdkModel("some-vendor.chat", "x"), None),
    (None, None),
    (42, None),
    (True, None),
    (3.5, None),
    (b"anthropic", None),
    (object(), None),
]


@pytest.mark.parametrize(("model", "expected"), MAPPING_AND_OBJECT_CASES)
def test_infer_provider_from_objects(model: object, expected: ProviderId | None) -> None:
    assert infer_provider(model) == expected


def test_unreadable_attribute_is_not_a_provider() -> None:
    class Broken:
        @property
        def provider(self) -> str:
            raise RuntimeError("no")

    assert infer_provider(Broken()) is None


# --- infer_provider: real pydantic-ai models, built offline --------------------------------------


def _pydantic_ai_models() -> list[tuple[str, Any, ProviderId | None]]:
    pytest.importorskip("pydantic_ai")
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.models.cerebras import CerebrasModel
    from pydantic_ai.models.fallback import FallbackModel
    from pydantic_ai.models.google import GoogleModel
    from pydantic_ai.models.instrumented import InstrumentedModel
    from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
    from pydantic_ai.models.openrouter import OpenRouterModel
    from pydantic_ai.providers.anthropic import AnthropicProvider
    from pydantic_ai.providers.azure import AzureProvider
    from pydantic_ai.providers.cerebras import CerebrasProvider
    from pydantic_ai.providers.deepseek import DeepSeekProvider
    from pydantic_ai.providers.google import GoogleProvider
    from pydantic_ai.providers.openai import OpenAIProvider
    from pydantic_ai.providers.openrouter import OpenRouterProvider

    key = "not-a-real-key"
    anthropic = AnthropicModel("claude-sonnet-4-5", provider=AnthropicProvider(api_key=key))
    chat = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(api_key=key))
    azure = AzureProvider(
        api_key=key, azure_endpoint="https://example.openai.azure.com", api_version="2024-10-21"
    )
    return [
        ("AnthropicModel", anthropic, "anthropic"),
        ("OpenAIChatModel/openai", chat, "openai-chat"),
        (
            "OpenAIResponsesModel/openai",
            OpenAIResponsesModel("gpt-4o", provider=OpenAIProvider(api_key=key)),
            "openai-responses",
        ),
        ("OpenAIChatModel/azure", OpenAIChatModel("gpt-4o", provider=azure), "openai-chat"),
        (
            "OpenAIResponsesModel/azure",
            OpenAIResponsesModel("gpt-4o", provider=azure),
            "openai-responses",
        ),
        (
            "OpenAIChatModel/deepseek",
            OpenAIChatModel("deepseek-chat", provider=DeepSeekProvider(api_key=key)),
            "deepseek",
        ),
        (
            "OpenAIResponsesModel/openrouter",
            OpenAIResponsesModel("openai/gpt-5", provider=OpenRouterProvider(api_key=key)),
            None,
        ),
        (
            "GoogleModel",
            GoogleModel("gemini-2.5-pro", provider=GoogleProvider(api_key=key)),
            "google",
        ),
        (
            "CerebrasModel",
            CerebrasModel("llama-3.3-70b", provider=CerebrasProvider(api_key=key)),
            "cerebras",
        ),
        (
            "OpenRouterModel",
            OpenRouterModel(
                "anthropic/claude-sonnet-4.5", provider=OpenRouterProvider(api_key=key)
            ),
            "openai-compatible",
        ),
        ("InstrumentedModel(AnthropicModel)", InstrumentedModel(anthropic), "anthropic"),
        ("FallbackModel(same)", FallbackModel(anthropic, anthropic), "anthropic"),
        ("FallbackModel(mixed)", FallbackModel(anthropic, chat), None),
    ]


def test_pydantic_ai_models() -> None:
    for label, model, expected in _pydantic_ai_models():
        assert infer_provider(model) == expected, label


def test_pydantic_ai_agent() -> None:
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import Agent
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    model = AnthropicModel("claude-sonnet-4-5", provider=AnthropicProvider(api_key="x"))
    assert infer_provider(Agent(model)) == "anthropic"


def _stand_in(class_name: str, module: str, system: str) -> object:
    """A pydantic-ai model class whose SDK (boto3, groq, mistralai, xai-sdk) is not installed
    here: same name, module and ``system``, so the class table is what is tested."""
    cls = type(class_name, (), {"__module__": module, "system": system, "model_name": "m"})
    return cls()


@pytest.mark.parametrize(
    ("class_name", "module", "system", "expected"),
    [
        ("BedrockConverseModel", "pydantic_ai.models.bedrock", "bedrock", "bedrock"),
        ("GroqModel", "pydantic_ai.models.groq", "groq", "groq"),
        ("MistralModel", "pydantic_ai.models.mistral", "mistral", "mistral"),
        ("XaiModel", "pydantic_ai.models.xai", "xai", "xai"),
        ("GeminiModel", "pydantic_ai.models.gemini", "google-gla", "google"),
        ("TestModel", "pydantic_ai.models.test", "test", None),
        # the same name outside pydantic-ai is not trusted; only its `system` is read
        ("AnthropicModel", "someone_else.models", "other", None),
    ],
)
def test_pydantic_ai_classes_without_their_sdk(
    class_name: str, module: str, system: str, expected: ProviderId | None
) -> None:
    assert infer_provider(_stand_in(class_name, module, system)) == expected


# --- profiles ------------------------------------------------------------------------------------

LONG_64 = "a" * 64
LONG_65 = "a" * 65

NAME_CASES: list[tuple[ProviderId | None, str, bool]] = [
    # Anthropic `^[a-zA-Z0-9_-]{1,64}$` in history (drorm/vmpilot docs; vercel/ai#9141 name)
    ("anthropic", "get_weather", True),
    ("anthropic", "web-search_2", True),
    ("anthropic", LONG_64, True),
    ("anthropic", LONG_65, False),
    ("anthropic", 'getProjectDataName" />\n \n \n \n ', False),
    ("anthropic", "mcp.server:tool", False),
    ("anthropic", "", False),
    # Bedrock `[a-zA-Z0-9_-]+`, at most 64 (openclaw#12892, remote-swe-agents PR#457)
    ("bedrock", "getProjectDataName", True),
    ("bedrock", "Complete Session", False),
    ("bedrock", "$READFILE", False),
    ("bedrock", LONG_65, False),
    # OpenAI Chat / Responses `^[a-zA-Z0-9_-]+$` (mcp-use/mcp-use PR#94), 64 documented
    ("openai-chat", "read_file", True),
    ("openai-chat", "filesystem.read_file", False),
    ("openai-chat", LONG_65, False),
    ("openai-responses", "read_file", True),
    ("openai-responses", "a b", False),
    # Gemini: letter or _ first, then a-z A-Z 0-9 _ . : -, at most 64 (gemini-cli#6704)
    ("google", "default_api:Task", True),
    ("google", "mcp.server:read-file", True),
    ("google", "_private", True),
    ("google", LONG_64, True),
    ("google", "1st_tool", False),
    ("google", "-tool", False),
    ("google", ".tool", False),
    ("google", "get data", False),
    ("google", LONG_65, False),
    # Mistral a-z A-Z 0-9 _ -, at most 64 (Kochava-Studios/witsy PR#164: a 67-character name)
    ("mistral", "add_task", True),
    ("mistral", "add_newam_task_with_due_date___8c498bee-e833-49a9-8a88-0ab59fa26cb8", False),
    # OpenAI-format servers
    ("deepseek", "read_file", True),
    ("deepseek", "functions.read", False),
    ("cerebras", "read_file", True),
    ("groq", "read_file", True),
    ("xai", "read_file", True),
    ("openai-compatible", "read_file", True),
    ("openai-compatible", "read/file", False),
    (None, "read_file", True),
    (None, LONG_65, False),
    # A NUL inside a name: the joined check (names joined by NUL) must not read it as two.
    (None, "get\x00weather", False),
    ("anthropic", "a\x00b", False),
]


@pytest.mark.parametrize(("provider", "name", "accepted"), NAME_CASES)
def test_profile_tool_names(provider: ProviderId | None, name: str, accepted: bool) -> None:
    profile = get_profile(provider)
    assert profile.valid_tool_name(name) is accepted
    assert profile.all_valid_tool_names([name]) is accepted
    assert profile.all_valid_tool_names(["ok_name", name, "other"]) is accepted


ID_CASES: list[tuple[ProviderId | None, str, bool]] = [
    # Anthropic `^[a-zA-Z0-9_-]+$`, no length limit (command-code#323, nanobot PR#4356)
    ("anthropic", "toolu_01A09q90qw90lq917835lq9", True),
    ("anthropic", "toolu_vrtx_01KKMxh6V7Kx6g5tZbQBfQ9b", True),
    ("anthropic", "x" * 200, True),
    ("anthropic", "functions.Bash:0", False),
    ("anthropic", "call|x", False),
    ("anthropic", "", False),
    # Bedrock toolUseId 1-64 of [a-zA-Z0-9_-] (ToolUseBlock API reference)
    ("bedrock", "tooluse_jQ912rboYgzgLULQpRxWot", True),
    ("bedrock", LONG_64, True),
    ("bedrock", LONG_65, False),
    ("bedrock", "a.b:c", False),
    # OpenAI Chat at most 40 (agno#5382: a 53-character id rejected)
    ("openai-chat", "call_jJATmoUduQWxi4tRwcQjsodM", True),
    ("openai-chat", "c" * 40, True),
    ("openai-chat", "c" * 53, False),
    # OpenAI Responses call_id at most 64 (AnswerDotAI/fastllm#45: 116; 9router#393)
    ("openai-responses", "call_x0jSANyYfXIjJkd5ftBlNxf5", True),
    ("openai-responses", "c" * 64, True),
    ("openai-responses", "c" * 69, False),
    ("openai-responses", "c" * 116, False),
    # Gemini: no documented pattern; the shared set
    ("google", "function-call-123", True),
    ("google", "a.b", False),
    # OpenAI-format servers
    ("deepseek", "call_00_abcdefghijklmnopqrstuvwx", True),
    ("xai", "call_0", True),
    ("groq", "call_abc", True),
    ("cerebras", "call_abc", True),
    ("openai-compatible", "chatcmpl-tool-" + "f" * 32, True),  # vLLM's 46-character ids
    ("openai-compatible", "c" * 65, False),  # OpenRouter's 64 (openclaw PR#875)
    (None, "x" * 200, True),
    (None, "functions.Bash:0", False),
    # A NUL inside an id (ids are checked joined by NUL), and one at either end.
    (None, "call\x00x", False),
    ("anthropic", "\x00", False),
    ("openai-chat", "call_1\x00", False),
]


@pytest.mark.parametrize(("provider", "tool_call_id", "accepted"), ID_CASES)
def test_profile_tool_call_ids(
    provider: ProviderId | None, tool_call_id: str, accepted: bool
) -> None:
    profile = get_profile(provider)
    assert profile.valid_tool_call_id(tool_call_id) is accepted
    assert profile.accepts_tool_call_id(tool_call_id) is accepted
    assert profile.all_valid_tool_call_ids(["ok", tool_call_id]) is accepted
    assert profile.all_accepted_tool_call_ids([tool_call_id, "ok"]) is accepted


@pytest.mark.parametrize(
    ("tool_call_id", "accepted"),
    [
        ("D681PevKs", True),
        ("abc123XYZ", True),
        ("call_PTLP8xhu3uwZk4l3nlnrrJha", False),  # anomalyco/opencode#1680
        ("abc123", False),  # the 2024 envelope's example
        ("abc_12345", False),  # nine characters, but '_'
        ("abcdefghij", False),
        ("", False),
        ("abcd\x00efgh", False),  # nine characters around a NUL, read joined as two ids
    ],
)
def test_mistral_exact_tool_call_ids(tool_call_id: str, accepted: bool) -> None:
    profile = get_profile("mistral")
    assert profile.tool_call_id_exact_length == 9
    assert profile.accepts_tool_call_id(tool_call_id) is accepted
    assert profile.all_accepted_tool_call_ids(["D681PevKs", tool_call_id]) is accepted


def test_mistral_shared_id_rule_stays_reachable() -> None:
    # the shared rename only cleans characters; the Mistral rule maps to nine alphanumerics
    profile = get_profile("mistral")
    assert profile.valid_tool_call_id("call_PTLP8xhu3uwZk4l3nlnrrJha")
    assert not profile.valid_tool_call_id("functions.Bash:0")


def test_every_provider_has_its_profile() -> None:
    assert get_profile(None) is SHARED_PROFILE
    for provider in PROVIDERS:
        assert get_profile(provider).id == provider
    with pytest.raises(ConfigError, match="unknown provider"):
        get_profile("openai")


def test_empty_sets_are_valid() -> None:
    for provider in (None, *PROVIDERS):
        profile = get_profile(provider)
        assert profile.all_valid_tool_names([])
        assert profile.all_valid_tool_call_ids([])
        assert profile.all_accepted_tool_call_ids([])


@pytest.mark.parametrize(
    "kwargs",
    [
        {"tool_name_chars": "a-zA-Z0-9"},
        {"tool_call_id_chars": "a-z"},
        {"tool_name_first_chars": "a-zA-Z"},
        {"tool_name_max": 0},
        {"tool_call_id_max": 0},
        {"tool_call_id_exact_length": 9},
        {"tool_call_id_exact_chars": "a-z"},
        {"refines_openai_compatible": True},  # only a chat-completions server can
        {"refines_openai_compatible": True, "wire": "responses"},
    ],
)
def test_unreachable_profiles_are_rejected(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        ProviderProfile(id=None, **kwargs)


# --- one home for provider facts ---------------------------------------------------------------
#
# Rules, reactive healing, adapters and integrations read the facts below from heal.providers;
# these tests keep the facts complete and consistent, so a new provider cannot be half-added.


def test_every_provider_names_its_wire_format() -> None:
    assert SHARED_PROFILE.wire is None
    for provider in PROVIDERS:
        assert get_profile(provider).wire is not None, provider


@pytest.mark.parametrize(
    ("rule_id", "test"),
    [
        ("openai-file-id", lambda p: not p.openai_file_ids),
        ("text-file-attachment", lambda p: p.text_files == "rejected"),
        ("undecodable-text-file", lambda p: p.text_files != "accepted"),
        ("provider-executed-tool-call", lambda p: p.wire == "chat-completions"),
        (
            "openai-assistant-file",  # Mistral has its own rule, mistral-assistant-file
            lambda p: p.wire in ("chat-completions", "responses") and p.id != "mistral",
        ),
    ],
)
def test_rule_provider_sets_follow_the_profiles(
    rule_id: str, test: Callable[[ProviderProfile], bool]
) -> None:
    # The rule modules still spell these sets out; each must be what the profiles say, so
    # switching a rule to providers_where(...) changes nothing.
    from heal.rules import BUILTIN_RULES

    (rule,) = [r for r in BUILTIN_RULES if r.id == rule_id]
    assert rule.providers == providers_where(test)


def test_openai_format_servers_have_a_host_and_refine_openai_compatible() -> None:
    from heal.reactive import _COMPATIBLE

    refining = providers_where(lambda p: p.refines_openai_compatible)
    hosted = {chat for chat, _ in providers_module.OPENAI_FORMAT_HOSTS.values()}
    assert hosted - {"openai-chat"} == refining == _COMPATIBLE


def test_every_inference_table_names_known_providers() -> None:
    known: set[str | None] = {None, *PROVIDERS}
    tables: dict[str, Iterable[object]] = {
        "AI_SDK_PROVIDERS": providers_module.AI_SDK_PROVIDERS.values(),
        "AI_GATEWAY_CREATORS": (p for _, p in providers_module.AI_GATEWAY_CREATORS.values()),
        "PYDANTIC_AI_PREFIXES": providers_module.PYDANTIC_AI_PREFIXES.values(),
        "PYDANTIC_AI_GATEWAY_ALIASES": providers_module.PYDANTIC_AI_GATEWAY_ALIASES.values(),
        "PYDANTIC_AI_MODEL_CLASSES": providers_module.PYDANTIC_AI_MODEL_CLASSES.values(),
        "PYDANTIC_AI_OPENAI_CHAT_SYSTEMS": providers_module.PYDANTIC_AI_OPENAI_CHAT_SYSTEMS.values(),
        "PYDANTIC_AI_OPENAI_RESPONSES_SYSTEMS": (
            providers_module.PYDANTIC_AI_OPENAI_RESPONSES_SYSTEMS.values()
        ),
        "PYDANTIC_AI_SYSTEMS": providers_module.PYDANTIC_AI_SYSTEMS.values(),
        "LITELLM_PREFIXES": providers_module.LITELLM_PREFIXES.values(),
        "LANGCHAIN_CHAT_MODELS": providers_module.LANGCHAIN_CHAT_MODELS.values(),
        "LANGCHAIN_MODEL_PROVIDERS": providers_module.LANGCHAIN_MODEL_PROVIDERS.values(),
        "OPENAI_RESPONSE_ID_PREFIXES": (p for _, p in providers_module.OPENAI_RESPONSE_ID_PREFIXES),
        "OPENAI_FORMAT_HOSTS": (
            p
            for table in (
                providers_module.OPENAI_FORMAT_HOSTS,
                providers_module.OPENAI_FORMAT_HOST_SUFFIXES,
            )
            for apis in table.values()
            for p in apis
        ),
    }
    for name, values in tables.items():
        assert set(values) <= known, name


@pytest.mark.parametrize(
    ("ids", "expected"),
    [
        (("resp_0a1b",), "openai-responses"),
        (("chatcmpl-9x",), "openai-chat"),
        (("run-42", "resp_0a1b"), "openai-responses"),  # LangChain: its id, then OpenAI's
        (("chatcmpl-9x", "resp_0a1b"), "openai-responses"),
        ((None, 7, "msg_1"), None),
        ((), None),
    ],
)
def test_openai_api_by_response_id(ids: tuple[object, ...], expected: ProviderId | None) -> None:
    assert providers_module.openai_api_by_response_id(ids) == expected


def test_synthesized_marker_is_under_heals_namespace() -> None:
    assert SYNTHESIZED == {HEAL_NAMESPACE: {"synthesized": True}}
    assert HEAL_NAMESPACE not in PROVIDERS


# --- the shared rename converges under every profile -----------------------------------------

_NASTY = st.text(
    alphabet=st.sampled_from([*"aZ9_-.:/| \n\t\"'<>é$", "\U0001f600", "\x00"]),
    max_size=90,
)


@pytest.mark.parametrize("provider", [None, *PROVIDERS])
@settings(max_examples=150, derandomize=True, deadline=None)
@given(values=st.lists(_NASTY, max_size=4))
def test_shared_rename_reaches_every_profile(
    provider: ProviderId | None, values: list[str]
) -> None:
    """What invalid-tool-name and invalid-tool-call-id write is valid under the profile, so the
    engine's passes converge."""
    profile = get_profile(provider)
    for chars_valid, forbidden, limit, fallback in (
        (profile.valid_tool_name, profile.tool_name_forbidden, profile.tool_name_max, "tool"),
        (
            profile.valid_tool_call_id,
            profile.tool_call_id_forbidden,
            profile.tool_call_id_max,
            "call",
        ),
    ):
        keep = {v for v in values if chars_valid(v)}
        bad = [v for v in values if v not in keep]
        mapping = rename_all(bad, keep, forbidden, limit, fallback)
        renamed = list(mapping.values())
        assert all(chars_valid(new) for new in renamed), mapping
        assert len(set(renamed)) == len(renamed)
        assert not keep & set(renamed)


_IDS = st.lists(
    st.one_of(_NASTY, st.text(alphabet="aZ9_-", max_size=70), st.integers(0, 70).map("a".__mul__)),
    max_size=6,
)
"""Tool-call ids of every kind: nasty ones, and plain ones of every length around each
profile's limit."""

_ODD_PROFILES = (
    # A class with a range across punctuation, and one with a non-ASCII character.
    ProviderProfile(id=None, tool_call_id_chars="a-z_!-/", tool_call_id_max=8),
    ProviderProfile(id=None, tool_call_id_chars="a-zA-Z0-9_\u00e9"),
)


@pytest.mark.parametrize(
    "profile",
    [get_profile(None), *map(get_profile, PROVIDERS), *_ODD_PROFILES],
    ids=lambda profile: str(profile.id or profile.tool_call_id_chars),
)
@settings(max_examples=150, derandomize=True, deadline=None)
@given(ids=_IDS)
def test_all_ids_at_once_as_each_id_alone(profile: ProviderProfile, ids: list[str]) -> None:
    """The checks of every id of a history at once (at C speed for ASCII ids, or as one joined
    match) say what checking each id alone says."""
    assert profile.all_valid_tool_call_ids(ids) is all(map(profile.valid_tool_call_id, ids))
    assert profile.all_accepted_tool_call_ids(ids) is all(map(profile.accepts_tool_call_id, ids))


def _history(name: str, tool_call_id: str) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool-call", "toolCallId": tool_call_id, "toolName": name, "input": {}}
            ],
        },
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": tool_call_id,
                    "toolName": name,
                    "output": {"type": "text", "value": "ok"},
                }
            ],
        },
    ]


@pytest.mark.parametrize(
    ("provider", "name", "tool_call_id", "healed_name", "id_max"),
    [
        ("google", "1st_tool", "call_1", "_1st_tool", None),
        ("google", "mcp.server:tool", "call_1", "mcp.server:tool", None),
        ("anthropic", "mcp.server:tool", "call_1", "mcp_server_tool", None),
        ("openai-chat", "f", "call_" + "x" * 48, "f", 40),
        ("openai-responses", "f", "c" * 86, "f", 64),
        ("bedrock", "f", "t" * 70, "f", 64),
        ("openai-compatible", "f", "c" * 65, "f", 64),
    ],
)
def test_heal_uses_the_profile(
    provider: ProviderId,
    name: str,
    tool_call_id: str,
    healed_name: str,
    id_max: int | None,
) -> None:
    result = heal_messages(_history(name, tool_call_id), provider=provider)
    call = dump_messages(result.messages)[1]["content"][0]
    assert call["toolName"] == healed_name
    if id_max is not None:
        assert len(call["toolCallId"]) <= id_max
    assert validate_messages(result.messages, provider=provider).valid
    again = heal_messages(result.messages, provider=provider)
    assert not again.repairs
