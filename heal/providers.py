"""Everything heal knows about each provider, in one place.

A provider id names a WIRE FORMAT, not a vendor: Claude served through Vertex AI speaks the
Anthropic Messages API and is ``anthropic``; Bedrock's Converse API is ``bedrock``. ``None``
means "no particular provider": only the shared rules run.

This module holds, for every provider id:

* its :class:`ProviderProfile`: what it accepts in a history (tool names, tool-call ids) and the
  capabilities rules ask about (the request shape it is sent, which files it takes), each
  profile's docstring citing where its limits come from (the provider-rules report, by issue or
  documentation page). Rules consult profiles (``providers_where``), so adding a provider means
  adding a profile and its own rules, not editing the shared ones;
* its inference keys, one table per id style (AI SDK ``model.provider``, AI Gateway model ids,
  pydantic-ai model strings, ``Model`` classes and systems, LiteLLM prefixes, LangChain chat model
  classes and ``model_provider`` metadata, OpenAI-format hostnames), read by
  :func:`infer_provider` and by every adapter and integration that infers a provider. Each table
  answers "which API is the request body written in", never "who made the model", and gets an
  entry only when the wire format is certain: everything else is None, never a guess. The tables
  are heal's working data, not API: they change as providers do.

:data:`HEAL_NAMESPACE` is heal's own ``providerOptions`` key (synthesized parts carry
:data:`SYNTHESIZED`); it is never a provider.

docs/architecture.md walks through adding a provider.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Literal, get_args
from urllib.parse import urlsplit

from heal.errors import ConfigError

if TYPE_CHECKING:
    from pydantic import JsonValue

__all__ = [
    "HEAL_NAMESPACE",
    "PROVIDERS",
    "SYNTHESIZED",
    "ProviderId",
    "ProviderProfile",
    "TextFiles",
    "WireFormat",
    "get_profile",
    "infer_provider",
    "providers_where",
]

ProviderId = Literal[
    "anthropic",
    "bedrock",
    "openai-chat",
    "openai-responses",
    "google",
    "mistral",
    "deepseek",
    "cerebras",
    "groq",
    "xai",
    "openai-compatible",
]
PROVIDERS: tuple[ProviderId, ...] = get_args(ProviderId)
"""Every known provider id."""

HEAL_NAMESPACE = "heal"
"""heal's own ``providerOptions`` key: adapters keep what a format has and the AI SDK lacks
under it, and rules mark what they synthesize with it. Never a provider's namespace, so rules
that judge "whose part is this" skip it."""

SYNTHESIZED: dict[str, dict[str, JsonValue]] = {HEAL_NAMESPACE: {"synthesized": True}}
"""The ``providerOptions`` of a part or message heal made up (a placeholder tool result, a
bridging message): the metadata marker that tells it from the conversation. Shared by every rule
that synthesizes; never mutate it."""

WireFormat = Literal[
    "anthropic-messages", "bedrock-converse", "chat-completions", "responses", "gemini"
]
"""The shape of the request body a provider is sent (by its AI SDK adapter)."""

TextFiles = Literal["accepted", "as-text", "rejected"]
"""What becomes of a ``text/*`` file attached to a user message; see
:attr:`ProviderProfile.text_files`."""


@dataclass(frozen=True, slots=True)
class ProviderProfile:
    """What a provider accepts in a history and what it is capable of, as data the rules consult.

    The shared ``invalid-tool-name`` and ``invalid-tool-call-id`` rules repair a value by
    replacing each character :attr:`tool_name_forbidden` (or :attr:`tool_call_id_forbidden`)
    matches with ``_`` and shortening it to the maximum, so every profile must be reachable that
    way: ``_`` is always an accepted character. What that cannot reach (Mistral's ids of exactly
    nine alphanumerics) is described by the ``tool_call_id_exact_*`` fields and enforced by the
    provider's own rule; :meth:`accepts_tool_call_id` checks both.
    """

    id: ProviderId | None
    """The provider id, or None for the shared profile."""
    tool_name_chars: str = "a-zA-Z0-9_-"
    """The characters it accepts in tool names, as a regex character class body."""
    tool_name_max: int = 64
    """Longest tool name it accepts."""
    tool_call_id_chars: str = "a-zA-Z0-9_-"
    """The characters it accepts in tool-call ids, as a regex character class body."""
    tool_call_id_max: int | None = None
    """Longest tool-call id it accepts, if limited."""
    tool_name_first_chars: str | None = None
    """The characters a tool name may start with, when fewer than :attr:`tool_name_chars`
    (Gemini: a letter or ``_``), as a regex character class body; None for no extra rule."""
    tool_call_id_exact_length: int | None = None
    """The exact length every tool-call id must have (Mistral: 9), or None. Enforced by the
    provider's rule, not by the shared rename; see :meth:`accepts_tool_call_id`."""
    tool_call_id_exact_chars: str | None = None
    """The only characters allowed in an id of :attr:`tool_call_id_exact_length` (Mistral:
    ``a-zA-Z0-9``, no ``_``), as a regex character class body; set together with it."""
    wire: WireFormat | None = None
    """The shape of the request body it is sent, which decides the format-level rules that apply
    (None for the shared profile). ``chat-completions``: a ``messages`` array in which each
    ``tool_calls`` entry is answered by a ``tool`` message."""
    refines_openai_compatible: bool = False
    """An OpenAI-format server with an id of its own, which a caller may also have reached as
    ``openai-compatible``: an error text only it writes refines such a call
    (:func:`heal.reactive.heal_after_error`), and its host is in :data:`OPENAI_FORMAT_HOSTS`.
    Only for ``chat-completions`` providers."""
    openai_file_ids: bool = False
    """It fetches a file named by an OpenAI file id (``file-...``). Only OpenAI's own APIs do;
    every other provider gets ``openai-file-id``."""
    text_files: TextFiles = "accepted"
    """What becomes of a ``text/*`` file attached to a user message: ``accepted`` (sent as a
    file; no rejection is known), ``as-text`` (sent as a JSON string, so its bytes must be UTF-8:
    Anthropic's ``text/plain`` document) or ``rejected`` (the AI SDK adapter refuses it, so
    ``text-file-attachment`` sends its text as a text part, which must be UTF-8 too)."""
    tool_name_pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)
    tool_name_forbidden: re.Pattern[str] = field(init=False, repr=False, compare=False)
    tool_call_id_pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)
    tool_call_id_forbidden: re.Pattern[str] = field(init=False, repr=False, compare=False)
    tool_call_id_exact_pattern: re.Pattern[str] | None = field(
        init=False, repr=False, compare=False
    )
    _names_pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _ids_pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _exact_ids_pattern: re.Pattern[str] | None = field(init=False, repr=False, compare=False)
    _id_ascii: bytes = field(init=False, repr=False, compare=False)
    """The ASCII characters :attr:`tool_call_id_chars` accepts (see
    :meth:`all_valid_tool_call_ids`)."""

    def __post_init__(self) -> None:
        self._check()
        id_max = "" if self.tool_call_id_max is None else str(self.tool_call_id_max)
        name_chars, first = self.tool_name_chars, self.tool_name_first_chars
        if first is None:
            name = rf"[{name_chars}]{{1,{self.tool_name_max}}}"
            name_forbidden = rf"[^{name_chars}]"
        else:
            name = rf"[{first}][{name_chars}]{{0,{self.tool_name_max - 1}}}"
            # The empty match before a bad first character makes the rename *insert* ``_`` in
            # front (``1tool`` -> ``_1tool``) instead of overwriting the character.
            name_forbidden = rf"^(?=[^{first}])|[^{name_chars}]"
        call_id = rf"[{self.tool_call_id_chars}]{{1,{id_max}}}"
        compiled = {
            "tool_name_pattern": name,
            "tool_name_forbidden": name_forbidden,
            "tool_call_id_pattern": call_id,
            "tool_call_id_forbidden": rf"[^{self.tool_call_id_chars}]",
            # One regex call checks a whole set of values joined by NUL (never valid in either):
            # far cheaper than one call per value on the hot path.
            "_names_pattern": rf"{name}(?:\x00{name})*",
            "_ids_pattern": rf"{call_id}(?:\x00{call_id})*",
        }
        for attr, pattern in compiled.items():
            object.__setattr__(self, attr, re.compile(pattern))
        exact = exact_all = None
        if self.tool_call_id_exact_length is not None:
            body = rf"[{self.tool_call_id_exact_chars}]{{{self.tool_call_id_exact_length}}}"
            exact, exact_all = re.compile(body), re.compile(rf"{body}(?:\x00{body})*")
        object.__setattr__(self, "tool_call_id_exact_pattern", exact)
        object.__setattr__(self, "_exact_ids_pattern", exact_all)
        id_char = re.compile(rf"[{self.tool_call_id_chars}]").fullmatch
        object.__setattr__(self, "_id_ascii", bytes(c for c in range(128) if id_char(chr(c))))

    def _check(self) -> None:
        where = f"profile {self.id!r}"
        for label, chars in (
            ("tool_name_chars", self.tool_name_chars),
            ("tool_name_first_chars", self.tool_name_first_chars),
            ("tool_call_id_chars", self.tool_call_id_chars),
        ):
            # The shared rename writes '_' for a forbidden character: '_' must be accepted,
            # or the rename would never converge.
            if chars is not None and re.fullmatch(rf"[{chars}]", "_") is None:
                raise ConfigError(f"{where}: {label} must accept '_', got {chars!r}")
        if self.tool_name_max < 1 or (
            self.tool_call_id_max is not None and self.tool_call_id_max < 1
        ):
            raise ConfigError(f"{where}: maximum lengths must be at least 1")
        if (self.tool_call_id_exact_length is None) != (self.tool_call_id_exact_chars is None):
            raise ConfigError(
                f"{where}: set tool_call_id_exact_length and tool_call_id_exact_chars together"
            )
        if self.refines_openai_compatible and self.wire != "chat-completions":
            raise ConfigError(f"{where}: refines_openai_compatible needs wire='chat-completions'")

    def valid_tool_name(self, name: str) -> bool:
        """Whether a tool name is accepted in history."""
        return self.tool_name_pattern.fullmatch(name) is not None

    def all_valid_tool_names(self, names: Iterable[str]) -> bool:
        """Whether every name is accepted (True for none).

        One match of the names joined by NUL, far cheaper than a match per name on the hot
        path. A name that holds a NUL itself would read as two there (``"a\x00b"`` as ``a``
        and ``b``): then each is matched alone. The same for the ids below."""
        values = list(names)
        if not values:
            return True
        joined = "\x00".join(values)
        if joined.count("\x00") == len(values) - 1:
            return self._names_pattern.fullmatch(joined) is not None
        return all(map(self.valid_tool_name, values))

    def all_valid_tool_call_ids(self, ids: Iterable[str]) -> bool:
        """Whether every id passes the shared id rule (True for none).

        Every clean verdict asks this of all the ids of a history. Ids are ASCII nearly always,
        and then each test runs at C speed over all of them at once: no character the class
        refuses (``bytes.translate`` deletes the ones it accepts, :attr:`_id_ascii`, and must
        leave nothing), no id empty, none too long. That is half the instructions of one match
        of the ids joined by NUL (callgrind, the ids of a benchmark conversation), which the
        other ids still take."""
        values = ids if type(ids) is list else list(ids)
        if not values:
            return True
        joined = "".join(values)
        if joined.isascii():
            longest = self.tool_call_id_max
            return (
                not joined.encode("ascii").translate(None, self._id_ascii)
                and all(values)
                and (longest is None or max(map(len, values)) <= longest)
            )
        joined = "\x00".join(values)
        if joined.count("\x00") == len(values) - 1:
            return self._ids_pattern.fullmatch(joined) is not None
        return all(map(self.valid_tool_call_id, values))

    def valid_tool_call_id(self, tool_call_id: str) -> bool:
        """Whether a tool-call id passes the shared id rule (characters and maximum length).

        For a provider with an exact id format (Mistral) this is necessary, not sufficient; use
        :meth:`accepts_tool_call_id` for the whole rule.
        """
        return self.tool_call_id_pattern.fullmatch(tool_call_id) is not None

    def accepts_tool_call_id(self, tool_call_id: str) -> bool:
        """Whether the provider accepts a tool-call id: the shared rule and any exact format."""
        if self.tool_call_id_pattern.fullmatch(tool_call_id) is None:
            return False
        exact = self.tool_call_id_exact_pattern
        return exact is None or exact.fullmatch(tool_call_id) is not None

    def all_accepted_tool_call_ids(self, ids: Iterable[str]) -> bool:
        """Whether the provider accepts every id (True for none); see ``accepts_tool_call_id``."""
        exact = self._exact_ids_pattern
        if exact is None:
            return self.all_valid_tool_call_ids(ids)
        values = list(ids)
        if not values:
            return True
        joined = "\x00".join(values)
        if joined.count("\x00") != len(values) - 1:  # an id holds a NUL: see all_valid_tool_names
            return all(map(self.accepts_tool_call_id, values))
        if exact.fullmatch(joined) is None:
            return False
        return self._ids_pattern.fullmatch(joined) is not None


SHARED_PROFILE = ProviderProfile(id=None)
"""The profile of the shared rules: the name and id rules every provider agrees on
(Anthropic ``^[a-zA-Z0-9_-]{1,64}$`` names and ``^[a-zA-Z0-9_-]+$`` ids, OpenAI and Bedrock
``[a-zA-Z0-9_-]+``). Provider-specific limits (id lengths, Gemini's first character, Mistral's
nine-character ids) apply only when the provider is named."""

_ANTHROPIC = ProviderProfile(id="anthropic", wire="anthropic-messages", text_files="as-text")
"""Anthropic Messages API (also Claude on Vertex and Bedrock InvokeModel): history tool names
``^[a-zA-Z0-9_-]{1,64}$`` (definitions allow 128, history does not) and ids ``^[a-zA-Z0-9_-]+$``
with no length limit. Source: report §1(b)/(c), ``tool_use.name: String should match pattern``
(drorm/vmpilot docs), ``tool_use.id: String should match pattern`` (CommandCodeAI/command-code#323,
HKUDS/nanobot PR#4356)."""

_BEDROCK = ProviderProfile(id="bedrock", tool_call_id_max=64, wire="bedrock-converse")
"""Bedrock Converse: ``toolUse.name`` 1-64 of ``[a-zA-Z0-9_-]`` and ``toolUseId`` 1-64 of
``[a-zA-Z0-9_-]`` (the stricter of the two API-reference versions; the other allows ``.:``).
Source: report §5(b)/(c) and §16 item 4, docs.aws.amazon.com/bedrock/latest/APIReference/
API_runtime_ToolUseBlock.html, openclaw/openclaw#12892, vercel/ai#9173."""

_OPENAI_CHAT = ProviderProfile(
    id="openai-chat",
    tool_call_id_max=40,
    wire="chat-completions",
    openai_file_ids=True,
    text_files="rejected",
)
"""OpenAI (and Azure OpenAI) Chat Completions: ``function.name`` ``^[a-zA-Z0-9_-]+$``, at most
64 (documented, not confirmed live); ``tool_calls[].id`` at most 40. vercel/ai PR#17233
(2026-07) saw a 51-character id accepted, but Azure (Portkey-AI/gateway#1062) and older
deployments reject over 40 and shortening is lossless (the old id is in the repair record), so
40 stays. Id characters are not documented; the shared set is used. Source: report §2(b)-(d)
and §16 item 1, mcp-use/mcp-use PR#94, agno-agi/agno#5382, vercel/ai#8132."""

_OPENAI_RESPONSES = ProviderProfile(
    id="openai-responses",
    tool_call_id_max=64,
    wire="responses",
    openai_file_ids=True,
    text_files="rejected",
)
"""OpenAI Responses (also Azure and the ChatGPT/Codex backend): function names as for Chat
Completions; ``call_id`` at most 64, which the report does not list:
``Invalid 'input[95].call_id': string too long. Expected a string with maximum length 64``
(AnswerDotAI/fastllm#45, decolua/9router#393, diegosouzapw/OmniRoute PR#4317). Item ids
(``fc_...``) are provider options, not tool-call ids (report §3, rule T6)."""

_GOOGLE = ProviderProfile(
    id="google", tool_name_chars="a-zA-Z0-9_.:-", tool_name_first_chars="a-zA-Z_", wire="gemini"
)
"""Gemini (API and Vertex): function names start with a letter or ``_``, then letters, digits,
``_ . : -``, at most 64 (Vertex documents 128 in places; 64 is the common limit).
``functionCall.id`` has no documented pattern, so ids use the shared set. Source: report §4(b),
``Invalid function name. Must start with a letter or an underscore...`` (google-gemini/gemini-cli
#6704, #7878; BerriAI/litellm#12543)."""

_MISTRAL = ProviderProfile(
    id="mistral",
    tool_call_id_exact_length=9,
    tool_call_id_exact_chars="a-zA-Z0-9",
    wire="chat-completions",
    refines_openai_compatible=True,
    text_files="rejected",
)
"""Mistral: function names ``a-zA-Z0-9_-`` at most 64; tool-call ids exactly 9 of
``a-zA-Z0-9`` (the shared rule cleans characters first, the Mistral rule maps to the exact
form). Source: report §6, ``Function name was ... but must be a-z, A-Z, 0-9, or contain
underscores and dashes, with a maximum length of 64`` (Kochava-Studios/witsy PR#164) and
``Tool call id was ... but must be a-z, A-Z, 0-9, with a length of 9`` (anomalyco/opencode#1680,
langchain-ai/langchain PR#24668)."""

_DEEPSEEK = ProviderProfile(id="deepseek", wire="chat-completions", refines_openai_compatible=True)
"""DeepSeek (OpenAI-format endpoint): no name or id limits of its own were found; the OpenAI
name rule (64) and the shared id set apply. Source: report §7 ("Same as OpenAI Chat")."""

_CEREBRAS = ProviderProfile(id="cerebras", wire="chat-completions", refines_openai_compatible=True)
"""Cerebras: OpenAI-compatible; no name or id texts of its own were found (report §8), so the
OpenAI name rule and the shared id set apply."""

_GROQ = ProviderProfile(id="groq", wire="chat-completions", refines_openai_compatible=True)
"""Groq: OpenAI-compatible with a strict schema; no name or id limits of its own were found
(report §9), so the OpenAI name rule and the shared id set apply."""

_XAI = ProviderProfile(id="xai", wire="chat-completions", refines_openai_compatible=True)
"""xAI (Chat Completions and Responses): no name or id limits were found; Grok reuses ids such
as ``call_0``, which the duplicate-id rule handles (report §10, NVIDIA-NeMo/Switchyard#502).
``chat-completions`` for both APIs: xAI validates its Responses body with its chat endpoint's
rules (see ``xai.responses`` in :data:`AI_SDK_PROVIDERS`)."""

_OPENAI_COMPATIBLE = ProviderProfile(
    id="openai-compatible", tool_call_id_max=64, wire="chat-completions"
)
"""Other OpenAI-format servers (OpenRouter, vLLM, LiteLLM proxy, Together, ...): OpenAI names;
ids at most 64, OpenRouter's limit (openclaw PR#875, report §2(b)-(d) and §14.2 T2). Not
OpenAI's 40: vLLM's own ids are 46 characters, and a server that forwards to OpenAI itself is
better named ``openai-chat``."""

_PROFILES: dict[str | None, ProviderProfile] = {
    profile.id: profile
    for profile in (
        SHARED_PROFILE,
        _ANTHROPIC,
        _BEDROCK,
        _OPENAI_CHAT,
        _OPENAI_RESPONSES,
        _GOOGLE,
        _MISTRAL,
        _DEEPSEEK,
        _CEREBRAS,
        _GROQ,
        _XAI,
        _OPENAI_COMPATIBLE,
    )
}


def get_profile(provider: str | None) -> ProviderProfile:
    """Return the profile of a provider id; raise ConfigError for an unknown id."""
    try:
        return _PROFILES[provider]
    except KeyError:
        raise ConfigError(
            f"unknown provider {provider!r}; expected None or one of: {', '.join(PROVIDERS)}"
        ) from None


def providers_where(test: Callable[[ProviderProfile], bool]) -> frozenset[ProviderId]:
    """The provider ids whose profile passes ``test``: how a rule names the providers it applies
    to by what they are (``providers_where(lambda p: p.wire == "chat-completions")``), so a new
    provider with the same facts gets the rule without the rule being edited."""
    return frozenset(provider for provider in PROVIDERS if test(_PROFILES[provider]))


# --- inference keys: one table per id style ---------------------------------------------------
#
# Every table answers "which API is the request body written in", never "who made the model".
# An entry goes in only when the wire format is certain; everything else is None.

AI_SDK_PROVIDERS: dict[str, ProviderId] = {
    "anthropic.messages": "anthropic",
    # Claude on Vertex and on Bedrock's InvokeModel take the Anthropic Messages body (report §1);
    # every `<host>.anthropic.messages` id is caught by suffix below.
    "amazon-bedrock": "bedrock",  # BedrockChatLanguageModel calls Converse
    "openai.chat": "openai-chat",
    "openai.responses": "openai-responses",
    "azure.chat": "openai-chat",
    "azure.responses": "openai-responses",
    "google.generative-ai": "google",
    "google.vertex.chat": "google",
    "mistral.chat": "mistral",
    "deepseek.chat": "deepseek",
    "cerebras.chat": "cerebras",
    "groq.chat": "groq",
    "xai.chat": "xai",
    # The body is Responses-shaped, but xAI validates it: the one rejection on record is xAI's
    # own text, the same as on its chat endpoint (report §10, NousResearch/hermes-agent#30310),
    # and the AI SDK's XaiResponsesLanguageModel keeps its state under providerOptions.xai.
    # OpenAI's Responses rules (rs_/fc_ item references, encrypted reasoning checked against
    # OpenAI's keys) do not apply, and as openai-responses xAI's own reasoning would be dropped
    # as foreign.
    "xai.responses": "xai",
    # OpenAI-compatible servers the AI SDK ships providers for (chat completions wire format).
    "openai-compatible.chat": "openai-compatible",
    "togetherai.chat": "openai-compatible",
    "fireworks.chat": "openai-compatible",
    "deepinfra.chat": "openai-compatible",
    "baseten.chat": "openai-compatible",
    "vercel.chat": "openai-compatible",
    "moonshotai.chat": "openai-compatible",
    "bedrock-mantle.chat": "openai-compatible",
    "openrouter": "openai-compatible",
    "openrouter.chat": "openai-compatible",
}
"""AI SDK ``LanguageModel.provider`` strings (lower-cased). Unknown ``<name>.chat`` ids stay
None: ``createOpenAI({name})`` and ``createOpenAICompatible({name})`` pick any name, and
``cohere.chat`` is not OpenAI-compatible at all."""

AI_GATEWAY_CREATORS: dict[str, tuple[str, ProviderId]] = {
    # Claude on Anthropic, Vertex or Bedrock answers with Anthropic's validation.
    "anthropic": ("", "anthropic"),
    # Gemini on AI Studio or Vertex answers with Gemini's; Google's open Gemma is hosted by
    # several servers in different formats.
    "google": ("gemini", "google"),
}
"""AI Gateway ``creator/model`` ids (AI SDK ``gateway`` provider, and the same spelling as a
LiteLLM string): creator -> (model name prefix, provider), for the models every host of which
speaks one format. Other creators' models are served by several hosts in different formats."""


PYDANTIC_AI_PREFIXES: dict[str, ProviderId] = {
    "anthropic": "anthropic",
    "openai-chat": "openai-chat",
    "openai-responses": "openai-responses",
    "azure": "openai-chat",
    "azure-responses": "openai-responses",
    "openai-chatgpt": "openai-responses",
    "openai-codex": "openai-responses",
    "google": "google",
    "google-gla": "google",
    "google-vertex": "google",
    "google-cloud": "google",
    "bedrock": "bedrock",  # BedrockConverseModel
    "groq": "groq",
    "mistral": "mistral",
    "deepseek": "deepseek",  # OpenAIChatModel with DeepSeekProvider
    "cerebras": "cerebras",
    "xai": "xai",
    "grok": "xai",  # pydantic-ai before 1.0: OpenAI-format client against api.x.ai
    "ft": "openai-chat",  # OpenAI fine-tunes, `ft:gpt-4o-mini:org::id`
    # Providers pydantic-ai serves with OpenAIChatModel or a subclass of it.
    **dict.fromkeys(
        (
            "openrouter",
            "together",
            "fireworks",
            "ollama",
            "vllm",
            "litellm",
            "nebius",
            "ovhcloud",
            "sambanova",
            "heroku",
            "github",
            "moonshotai",
            "alibaba",
            "vercel",
            "zai",
            "crusoe",
            "snowflake",
        ),
        "openai-compatible",
    ),
}
"""pydantic-ai ``provider:model`` prefixes (``pydantic_ai.models.infer_model``). ``openai`` is
not here: its meaning depends on the pydantic-ai version (:func:`_openai_prefix`). ``meta`` is
not either: Chat Completions in 1.x, Responses in 2.x."""

PYDANTIC_AI_GATEWAY_ALIASES: dict[str, str] = {
    "chat": "openai-chat",
    "responses": "openai-responses",
    "converse": "bedrock",
}
"""``gateway/<alias>:model`` route aliases (``pydantic_ai.providers.gateway``)."""

LITELLM_PREFIXES: dict[str, ProviderId] = {
    "anthropic": "anthropic",
    "gemini": "google",
    "mistral": "mistral",
    "groq": "groq",
    "deepseek": "deepseek",
    "xai": "xai",
    "cerebras": "cerebras",
    # OpenRouter takes Chat Completions bodies whatever the upstream model is; heal's output is
    # serialized in that format, so the upstream's own format does not apply.
    "openrouter": "openai-compatible",
    "together_ai": "openai-compatible",
    "fireworks_ai": "openai-compatible",
    "deepinfra": "openai-compatible",
    "hosted_vllm": "openai-compatible",
}
"""LiteLLM ``provider/model`` prefixes with one wire format (``bedrock``, ``vertex_ai``,
``openai`` and ``azure`` depend on the rest of the string)."""

LITELLM_BEDROCK_OTHER_ROUTES = frozenset(
    ("converse_like", "openai", "mantle", "agent", "agentcore", "async_invoke")
)
"""LiteLLM ``bedrock/<route>/`` routes that are neither Converse nor Claude's InvokeModel."""

_OPENAI_MODEL = re.compile(r"(?:gpt-(?!oss)|chatgpt-|o[1-9](?:-|$))")
"""OpenAI model names LiteLLM sends to Chat Completions when bare (``gpt-oss`` is an open model
many servers host)."""

_RESPONSES_ONLY_MODEL = re.compile(
    r"(?:o1-pro|o3-pro|o3-deep-research|o4-mini-deep-research|codex-mini|computer-use-preview"
    r"|gpt-5(?:\.\d+)?-(?:pro|codex))"
)
"""OpenAI models served only by the Responses API, whoever sends them."""

PYDANTIC_AI_MODEL_CLASSES: dict[str, ProviderId] = {
    "AnthropicModel": "anthropic",
    "BedrockConverseModel": "bedrock",
    "GoogleModel": "google",
    "GeminiModel": "google",  # the older generativelanguage client, replaced by GoogleModel
    "GroqModel": "groq",
    "MistralModel": "mistral",
    "CerebrasModel": "cerebras",
    "XaiModel": "xai",
}
"""pydantic-ai ``Model`` classes with one wire format, by class name (matched along the MRO, so
subclasses count); the OpenAI classes depend on the ``system`` (provider) they were built with."""

PYDANTIC_AI_OPENAI_CHAT_SYSTEMS: dict[str, ProviderId] = {
    "openai": "openai-chat",
    "azure": "openai-chat",
    "deepseek": "deepseek",
    "cerebras": "cerebras",
    "groq": "groq",
    "mistral": "mistral",
    "xai": "xai",
    "grok": "xai",
}
"""``OpenAIChatModel.system`` values with a provider of their own; any other system is an
OpenAI-compatible server (the class speaks Chat Completions)."""

PYDANTIC_AI_OPENAI_RESPONSES_SYSTEMS: dict[str, ProviderId] = {
    "openai": "openai-responses",
    "azure": "openai-responses",
    "openai-chatgpt": "openai-responses",
    "openai-codex": "openai-responses",
    "xai": "xai",
    "grok": "xai",
}
"""``OpenAIResponsesModel.system`` values served by OpenAI's own Responses implementation (or
xAI's, see ``xai.responses``). Other Responses-compatible servers stay None."""

PYDANTIC_AI_SYSTEMS: dict[str, ProviderId] = {
    "anthropic": "anthropic",
    "google": "google",
    "google-gla": "google",
    "google-vertex": "google",
    "google-cloud": "google",
    "bedrock": "bedrock",
    "groq": "groq",
    "mistral": "mistral",
    "deepseek": "deepseek",
    "cerebras": "cerebras",
    "xai": "xai",
    "grok": "xai",
}
"""pydantic-ai ``system`` values (a ``Model``'s, or a ``ModelResponse``'s ``provider_name`` /
``canonical_system``) that name one wire format, for objects whose class is unknown and for
stored responses. ``openai`` is absent: Chat Completions and Responses are told apart by the
class, or by the response id (:func:`openai_api_by_response_id`)."""

OPENAI_RESPONSE_ID_PREFIXES: tuple[tuple[str, ProviderId], ...] = (
    ("resp_", "openai-responses"),
    ("chatcmpl", "openai-chat"),
)
"""How the id of a response OpenAI wrote starts, by API; Responses first (LangChain keeps both
the response id and its own message id, and either may tell)."""

LANGCHAIN_CHAT_MODELS: dict[str, ProviderId | None] = {
    "ChatAnthropic": "anthropic",
    "ChatAnthropicVertex": "anthropic",  # langchain-google-vertexai, Claude on Vertex
    "ChatGoogleGenerativeAI": "google",
    "ChatVertexAI": "google",
    "ChatBedrockConverse": "bedrock",
    "ChatMistralAI": "mistral",
    "ChatGroq": "groq",
    "ChatDeepSeek": "deepseek",
    "ChatXAI": "xai",
    "ChatCerebras": "cerebras",
    "ChatFireworks": "openai-compatible",
    "ChatTogether": "openai-compatible",
    "ChatOpenRouter": "openai-compatible",
    # Native APIs of their own, not OpenAI's format: the shared rules.
    "ChatOllama": None,
    "ChatBedrock": None,  # InvokeModel: the body depends on the model family
}
"""LangChain chat model classes with one wire format, by class name (matched along the MRO, so
subclasses count)."""

LANGCHAIN_OPENAI_CHAT_MODELS = frozenset({"ChatOpenAI", "AzureChatOpenAI", "BaseChatOpenAI"})
"""LangChain's OpenAI chat model classes: their provider follows ``use_responses_api`` and the
endpoint (:func:`openai_endpoint_provider`)."""

LANGCHAIN_MODEL_PROVIDERS: dict[str, ProviderId] = {
    "anthropic": "anthropic",
    "bedrock": "bedrock",
    "bedrock_converse": "bedrock",
    "google_genai": "google",
    "google_vertexai": "google",
    "mistralai": "mistral",
    "groq": "groq",
    "deepseek": "deepseek",
    "xai": "xai",
    "cerebras": "cerebras",
}
"""LangChain ``AIMessage.response_metadata["model_provider"]`` values with one wire format.
``openai`` is absent: its API is told by the response id (:func:`openai_api_by_response_id`)."""

OPENAI_FORMAT_HOSTS: dict[str, tuple[ProviderId, ProviderId | None]] = {
    "api.openai.com": ("openai-chat", "openai-responses"),
    "api.deepseek.com": ("deepseek", None),
    "api.groq.com": ("groq", None),
    "api.mistral.ai": ("mistral", None),
    "api.x.ai": ("xai", "xai"),  # xAI's Responses API: see `xai.responses` above
    "api.cerebras.ai": ("cerebras", None),
}
"""Hosts of OpenAI-format endpoints whose provider heal knows: host -> (provider of its Chat
Completions API, provider of its Responses API or None). Any other host is ``openai-compatible``
for Chat Completions and None for Responses."""

OPENAI_FORMAT_HOST_SUFFIXES: dict[str, tuple[ProviderId, ProviderId | None]] = {
    ".openai.azure.com": ("openai-chat", "openai-responses"),
    ".cognitiveservices.azure.com": ("openai-chat", "openai-responses"),
}
"""Host suffixes of OpenAI-format endpoints (Azure OpenAI resources), as for
:data:`OPENAI_FORMAT_HOSTS`."""


# --- inference -------------------------------------------------------------------------------

_MAX_WRAPPING = 8
"""How deep :func:`infer_provider` follows wrapper models (``.wrapped``) before giving up."""


def infer_provider(model: object) -> ProviderId | None:
    """The provider id of a model, by the wire format its requests are written in; None when
    that is not certain.

    Accepts:

    * a provider id itself (``"anthropic"``);
    * an AI SDK ``model.provider`` (``"anthropic.messages"``, ``"openai.responses"``,
      ``"amazon-bedrock"``, ``"google.vertex.chat"``, ...);
    * a pydantic-ai model string (``"anthropic:claude-sonnet-4-5"``, ``"openai-chat:gpt-4o"``,
      ``"gateway/converse:..."``). The bare ``openai:`` prefix means Chat Completions before
      pydantic-ai 2.0 and the Responses API since (pydantic/pydantic-ai PR#5469): it follows the
      installed pydantic-ai, and the Responses API when none is installed, which is also what
      the AI SDK's ``openai(...)`` and agno's ``openai:`` use;
    * a LiteLLM model string (``"anthropic/claude-..."``, ``"bedrock/converse/..."``,
      ``"vertex_ai/gemini-..."``, bare ``"gpt-4o"`` or ``"claude-..."``);
    * a pydantic-ai ``Model`` (by class and ``system``; wrappers are followed, a
      ``FallbackModel`` counts when all its models agree);
    * any object or mapping with a ``provider`` string (and ``modelId``), a ``system`` string,
      or a ``model`` string.

    Pure table lookups, no I/O (the installed pydantic-ai version is read once) and no network.
    """
    return _infer(model, 0)


def _infer(model: object, depth: int) -> ProviderId | None:
    if isinstance(model, str):
        return _from_string(model)
    if model is None or isinstance(model, (int, float, bytes)) or depth > _MAX_WRAPPING:
        return None
    if isinstance(model, Mapping):
        provider = model.get("provider")
        model_id = model.get("modelId", model.get("model_id"))
        system, inner = model.get("system"), model.get("model")
    else:
        found = _from_pydantic_ai_model(model, depth)
        if found is not False:
            return found
        provider = _attr(model, "provider")
        model_id = _attr(model, "modelId") or _attr(model, "model_id")
        system, inner = _attr(model, "system"), _attr(model, "model")
    if isinstance(provider, str) and provider.strip():
        return _from_ai_sdk_provider(provider.strip().lower(), model_id)
    if isinstance(system, str) and system.strip():
        return PYDANTIC_AI_SYSTEMS.get(system.strip().lower())
    if inner is not None and inner is not model:  # a pydantic-ai Agent, {"model": "..."}
        return _infer(inner, depth + 1)
    return None


def _attr(obj: object, name: str) -> object:
    try:
        return getattr(obj, name, None)
    except Exception:  # a property that raises is an attribute we cannot read, not a provider
        return None


def _from_pydantic_ai_model(model: object, depth: int) -> ProviderId | Literal[False] | None:
    """The provider of a pydantic-ai ``Model``; False when ``model`` is not one of the classes
    (or wrappers) this module knows."""
    mro = [klass for klass in type(model).__mro__ if klass.__module__.startswith("pydantic_ai.")]
    if not mro:
        return False
    names = {klass.__name__ for klass in mro}
    if "WrapperModel" in names:  # InstrumentedModel and friends
        return _infer(_attr(model, "wrapped"), depth + 1)
    if "FallbackModel" in names:  # certain only when every model agrees
        models = _attr(model, "models")
        if not isinstance(models, (list, tuple)) or not models:
            return None
        found = {_infer(m, depth + 1) for m in models}
        return found.pop() if len(found) == 1 else None
    system = _attr(model, "system")
    system = system.lower() if isinstance(system, str) else ""
    for klass in mro:
        name = klass.__name__
        if name in PYDANTIC_AI_MODEL_CLASSES:
            return PYDANTIC_AI_MODEL_CLASSES[name]
        if name == "OpenAIResponsesModel":
            return PYDANTIC_AI_OPENAI_RESPONSES_SYSTEMS.get(system)
        if name in ("OpenAIChatModel", "OpenAIModel"):
            return PYDANTIC_AI_OPENAI_CHAT_SYSTEMS.get(system, "openai-compatible")
    return False


def _from_ai_sdk_provider(provider: str, model_id: object) -> ProviderId | None:
    found = AI_SDK_PROVIDERS.get(provider)
    if found is not None:
        return found
    if provider.endswith(".anthropic.messages"):  # vertex., google.vertex., bedrock., ...
        return "anthropic"
    if provider == "gateway" and isinstance(model_id, str):
        return _from_gateway_model(model_id.strip().lower())
    return _IDS.get(provider)


def _from_string(text: str) -> ProviderId | None:
    value = text.strip().lower()
    if not value:
        return None
    found = _IDS.get(value) or AI_SDK_PROVIDERS.get(value)
    if found is not None:
        return found
    if value.endswith(".anthropic.messages"):
        return "anthropic"
    prefix, colon, rest = value.partition(":")
    if colon and (found := _from_pydantic_ai_prefix(prefix)) is not None:
        return found
    head, slash, rest = value.partition("/")
    if slash:
        return _from_litellm(head, rest)
    return _from_bare_name(value)


def _from_pydantic_ai_prefix(prefix: str) -> ProviderId | None:
    if prefix.startswith("gateway/"):
        prefix = prefix.removeprefix("gateway/")
        prefix = PYDANTIC_AI_GATEWAY_ALIASES.get(prefix, prefix)
    if prefix == "openai":
        return _openai_prefix()
    return PYDANTIC_AI_PREFIXES.get(prefix)


def _from_gateway_model(model_id: str) -> ProviderId | None:
    """An AI Gateway ``creator/model`` id (:data:`AI_GATEWAY_CREATORS`)."""
    creator, slash, name = model_id.partition("/")
    found = AI_GATEWAY_CREATORS.get(creator) if slash else None
    if found is None or not name.startswith(found[0]):
        return None
    return found[1]


def _from_litellm(head: str, rest: str) -> ProviderId | None:
    found = LITELLM_PREFIXES.get(head)
    if found is not None:
        return found
    if head == "models" and rest.startswith("gemini-"):  # Gemini API resource names
        return "google"
    if head == "google":  # AI Gateway style, `google/gemini-2.5-pro`
        return _from_gateway_model(f"{head}/{rest}")
    if head == "bedrock":
        return _from_litellm_bedrock(rest)
    if head in ("vertex_ai", "vertex_ai_beta"):
        # LiteLLM sends Claude on Vertex the Anthropic body (rawPredict) and Gemini the
        # generateContent body; Vertex's other partner models (Llama, Mistral) use neither.
        name = rest.rsplit("/", 1)[-1]
        if name.startswith("claude"):
            return "anthropic"
        return "google" if name.startswith("gemini") else None
    if head in ("openai", "azure"):
        # `openai/responses/<model>` is LiteLLM's route to the Responses API.
        if rest.startswith("responses/") or _RESPONSES_ONLY_MODEL.match(rest):
            return "openai-responses"
        # LiteLLM also routes every OpenAI-compatible server (vLLM, a local model behind an
        # api_base) through `openai/`: only OpenAI's own model names get OpenAI's limits.
        # Azure deployments have free names but always speak OpenAI's API.
        if head == "openai" and not _OPENAI_MODEL.match(rest):
            return "openai-compatible"
        return "openai-chat"
    return None


def _from_litellm_bedrock(rest: str) -> ProviderId | None:
    route, slash, tail = rest.partition("/")
    if slash and route == "converse":
        return "bedrock"
    if slash and route == "invoke":
        # InvokeModel takes each vendor's native body; for Claude that is the Anthropic
        # Messages API (report §1: same errors, behind "The model returned the following
        # errors:"). Other vendors' native bodies have no provider id.
        return "anthropic" if "claude" in tail else None
    if slash and route in LITELLM_BEDROCK_OTHER_ROUTES:
        return None
    # No explicit route: LiteLLM uses Converse for every model on its Converse list (every
    # Claude, Nova, Llama 3+, Mistral Large, ...; BedrockModelInfo.get_bedrock_route) and
    # InvokeModel only for legacy text models, which carry no tool parts for heal to judge.
    return "bedrock"


BEDROCK_MODEL_ID = re.compile(
    r"(?:(?P<region>us|eu|apac|global|us-gov|jp|au|ca)\.)?"
    r"(?:anthropic|amazon|meta|mistral|cohere|ai21|deepseek|qwen|openai|writer|twelvelabs)\."
    r"(?P<name>[a-z0-9][a-z0-9._-]*?)(?P<version>-v\d+(?::\d+)?|:\d+)?"
)
"""A Bedrock model or inference-profile id (``anthropic.claude-sonnet-4-5-20250929-v1:0``,
``us.anthropic.claude-...``): an optional region group, the vendor, the model's own name and its
version. It names a model, not a wire format: the same id is sent to Converse (``bedrock``) and
to InvokeModel (Claude's native body: ``anthropic``), so :func:`infer_provider` leaves it None;
:func:`heal.targets.model_name` reads the model's name out of it."""

MISTRAL_MODEL = re.compile(
    r"(?:mistral|magistral|codestral|ministral|pixtral|devstral|open-mistral|open-mixtral)-"
    r"[a-z0-9.-]*(?:latest|\d{4})"
)
"""Model names of Mistral's own API (a ``-latest`` alias or a ``YYMM`` version: the same open
models under other names are hosted by many servers)."""

DEEPSEEK_MODELS = frozenset({"deepseek-chat", "deepseek-reasoner"})
"""Model names only DeepSeek's own API serves."""


def _from_bare_name(name: str) -> ProviderId | None:
    if MISTRAL_MODEL.fullmatch(name):
        return "mistral"
    if name in DEEPSEEK_MODELS:
        return "deepseek"
    if name.startswith("claude-"):
        return "anthropic"
    if name.startswith("gemini-"):
        return "google"
    if _RESPONSES_ONLY_MODEL.match(name):
        return "openai-responses"
    if _OPENAI_MODEL.match(name):
        return "openai-chat"
    return None


_IDS: dict[str, ProviderId] = {provider: provider for provider in PROVIDERS}


@cache
def _openai_prefix() -> ProviderId:
    """What a bare ``openai:`` model string means here: pydantic-ai 1.x sends it to Chat
    Completions, 2.x to the Responses API (pydantic/pydantic-ai PR#5469, issue #4041)."""
    for dist in ("pydantic-ai-slim", "pydantic-ai"):
        try:
            major = version(dist).split(".", 1)[0]
        except PackageNotFoundError:
            continue
        return "openai-chat" if major.isdigit() and int(major) < 2 else "openai-responses"
    return "openai-responses"


def openai_endpoint_provider(
    base_url: object, api: Literal["chat", "responses"]
) -> ProviderId | None:
    """The provider of an OpenAI-format endpoint, from its base URL (None: OpenAI's own) and API.

    A host in :data:`OPENAI_FORMAT_HOSTS` or :data:`OPENAI_FORMAT_HOST_SUFFIXES` (OpenAI, Azure
    OpenAI, DeepSeek, Groq, Mistral, xAI, Cerebras, ...) is the provider listed there for that
    API; any other Chat Completions server is ``openai-compatible`` (OpenRouter, vLLM, LiteLLM,
    ...), and any other Responses server None.
    """
    host = (urlsplit(str(base_url)).hostname or "").lower() if base_url else "api.openai.com"
    found = OPENAI_FORMAT_HOSTS.get(host)
    if found is None:
        suffixes = OPENAI_FORMAT_HOST_SUFFIXES.items()
        found = next((apis for suffix, apis in suffixes if host.endswith(suffix)), None)
    if found is None:
        return "openai-compatible" if api == "chat" else None
    return found[0] if api == "chat" else found[1]


def openai_api_by_response_id(ids: Iterable[object]) -> ProviderId | None:
    """Which OpenAI API wrote a response, from any of its ids (:data:`OPENAI_RESPONSE_ID_PREFIXES`);
    None when none tells."""
    texts = [i for i in ids if isinstance(i, str)]
    for prefix, provider in OPENAI_RESPONSE_ID_PREFIXES:
        if any(text.startswith(prefix) for text in texts):
            return provider
    return None
