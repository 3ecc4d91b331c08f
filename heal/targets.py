"""What heal heals for: the target request (provider, model, thinking, tools) and what each model
accepts, as data.

A provider id names the wire format; what the request accepts often depends on more than that.
The same Anthropic endpoint rejects a prefill for ``claude-sonnet-4-6`` and takes it for
``claude-sonnet-4-5``; Mistral rejects reasoning input except on Magistral models; Gemini 3
validates thought signatures and Gemini 2.5 does not. A :class:`Target` carries what heal knows
of the request it heals for; rules read it through ``Context.target``.

Model facts live here and only here, in :data:`MODEL_FAMILIES`: one :class:`ModelFamily` per
family of model ids, matched by a regular expression on the model's :func:`model_name`, so a new
dated id (``claude-sonnet-4-5-20991231``) works without a release. Every fact is ``None``
(unknown) unless a source says otherwise, and each family cites its sources. The first family
whose pattern matches wins; :func:`register_model_family` puts a user's family in front of the
built-in ones, to add a model or to override a fact.

Unknown means unknown. With no model, every capability is ``None`` and rules behave as they did
before targets existed: the conservative default, which assumes the strictest model of the
provider only where a fix loses nothing, and otherwise leaves the history alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Literal

from heal.errors import ConfigError
from heal.providers import (
    BEDROCK_MODEL_ID,
    PROVIDERS,
    PYDANTIC_AI_PREFIXES,
    ProviderId,
    infer_provider,
)

__all__ = [
    "MODEL_FAMILIES",
    "ModelFacts",
    "ModelFamily",
    "Target",
    "ThinkingMode",
    "model_facts",
    "model_name",
    "register_model_family",
    "signature_scope",
    "target_keywords",
    "tool_names",
    "unregister_model_family",
]

ThinkingMode = Literal["always", "optional"]
"""Whether a model's requests always think (``always``: the request cannot turn thinking off)
or think when the request enables it (``optional``)."""


@dataclass(frozen=True, slots=True)
class ModelFacts:
    """What one model accepts in a history. ``None`` for every fact no source settles."""

    reasoning_input: bool | None = None
    """It takes reasoning parts in the history (Mistral: only Magistral models do)."""
    thinking: ThinkingMode | None = None
    """Whether its requests think always or only when enabled (see :data:`ThinkingMode`)."""
    prefill: bool | None = None
    """It takes a final assistant message of text or reasoning (a prefill)."""
    mid_conversation_system: bool | None = None
    """It takes a system message after the first user turn (Anthropic Messages API)."""
    thought_signatures_required: bool | None = None
    """It validates thought signatures on the current turn's function calls (Gemini 3)."""
    image_input: bool | None = None
    """It takes images in user messages."""
    binds_thinking_prefix: bool | None = None
    """Its signed thinking blocks are bound to the conversation before them: any change before
    a block invalidates its signature."""

    def known(self) -> dict[str, object]:
        """The facts that are not ``None``, by name."""
        return {
            f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None
        }


UNKNOWN = ModelFacts()
"""The facts of a model heal knows nothing about (and of no model)."""


@dataclass(frozen=True, slots=True)
class ModelFamily:
    """A family of model ids and the facts they share, with where each fact comes from."""

    name: str
    """A readable name (``"Claude 4.5"``), for documentation and errors."""
    pattern: str
    """A regular expression matched (``re.match``) against :func:`model_name` of a model id."""
    facts: ModelFacts
    """What every model of the family accepts."""
    sources: Mapping[str, str] = field(default_factory=dict)
    """For each fact that is set, where it comes from (a docs page, an issue with the error)."""
    compiled: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "compiled", re.compile(self.pattern))
        except re.error as exc:
            raise ConfigError(f"model family {self.name!r}: bad pattern: {exc}") from None
        missing = set(self.facts.known()) - set(self.sources)
        if missing:
            raise ConfigError(
                f"model family {self.name!r}: every fact needs a source; none for "
                + ", ".join(sorted(missing))
            )


# --- the facts --------------------------------------------------------------------------------

_PREFILL_REJECTED = (
    "This model does not support assistant message prefill. The conversation must end with a "
    "user message. (smallmain/vscode-unify-chat-provider#249; cortexkit/magic-context#511; "
    "XiaomiMiMo/MiMo-Code PR#1702; report §1(f))"
)
_PREFILL_ACCEPTED = "report §1(f): the *-4-5 models and earlier accept prefill"
_CLAUDE_IMAGES = "platform.claude.com/docs/en/build-with-claude/vision (every Claude 3+ model)"
_MID_SYSTEM = (
    "platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages; "
    "simonw/llm-anthropic#73 (Opus 4.8+, a system message right after a user turn); report §1(f)"
)
_MID_SYSTEM_NO = (
    'messages: Unexpected role "system". (ianarawjo/ChainForge#271; report §1(f): only Opus '
    "4.8+ takes it)"
)
_BINDING = (
    "messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a "
    "different conversation. (anomalyco/opencode#48637; report §1(e) and R15)"
)
_ALWAYS_THINKS = (
    '"thinking.type.disabled" is not supported for this model. '
    "(platform.claude.com/docs/en/models/opus-5-5/whats-new-opus-5-5; report §1(e))"
)
_GEMINI_3_SIGNATURES = (
    "Function call is missing a thought_signature in functionCall parts. "
    "(ai.google.dev/gemini-api/docs/thought-signatures: Gemini 3 validates the current turn; "
    "report §4(e))"
)
_GEMINI_2_SIGNATURES = (
    "ai.google.dev/gemini-api/docs/thought-signatures: signatures are optional before Gemini 3 "
    "(report §4(e))"
)
_GEMINI_IMAGES = "ai.google.dev/gemini-api/docs/image-understanding (every Gemini model)"
_MISTRAL_NO_REASONING = (
    "Reasoning input is not enabled for this model (suitenumerique/conversations#402; report "
    "§6(e): only Magistral models take it)"
)
_MAGISTRAL = "docs.mistral.ai/capabilities/reasoning: Magistral models reason and take thinking"
_OPENAI_NO_IMAGES = (
    "Invalid content type. image_url is only supported by certain models. "
    "(nextcloud/integration_openai#282, gpt-3.5; appatalks/eva-agent#65 and "
    "platform.openai.com/docs/models/o3-mini: no vision)"
)
_OPENAI_IMAGES = (
    "platform.openai.com/docs/guides/images-vision (gpt-4o, gpt-4.1, gpt-5, o1, o3, o4-mini)"
)
_DEEPSEEK_NO_IMAGES = (
    "Failed to deserialize the JSON body into the target type: messages[1]: unknown variant "
    "`image_url`, expected `text` (rikkahub/rikkahub#1433; jxxghp/MoviePilot#5863)"
)


def _claude(
    name: str,
    pattern: str,
    *,
    prefill: bool | None = None,
    mid_conversation_system: bool | None = None,
    binds_thinking_prefix: bool | None = None,
    thinking: ThinkingMode | None = None,
) -> ModelFamily:
    made = ModelFacts(
        image_input=True,
        prefill=prefill,
        mid_conversation_system=mid_conversation_system,
        binds_thinking_prefix=binds_thinking_prefix,
        thinking=thinking,
    )
    sources = {
        "image_input": _CLAUDE_IMAGES,
        "prefill": _PREFILL_ACCEPTED if prefill else _PREFILL_REJECTED,
        "mid_conversation_system": _MID_SYSTEM if mid_conversation_system else _MID_SYSTEM_NO,
        "binds_thinking_prefix": _BINDING,
        "thinking": _ALWAYS_THINKS,
    }
    return ModelFamily(
        name, rf"claude-(?:{pattern})" + _END, made, {k: sources[k] for k in made.known()}
    )


_END = r"(?=$|-\d{8}|-latest|@)"
"""Where a Claude model's own name ends: its date, ``-latest``, Vertex's ``@date``, or nothing
(so ``claude-opus-4`` does not match a future ``claude-opus-4-9``)."""


BUILTIN_FAMILIES: tuple[ModelFamily, ...] = (
    # Claude: names as Anthropic spells them, versions with '-' (model_name turns the AI
    # Gateway's 'claude-sonnet-4.5' into 'claude-sonnet-4-5'), any date suffix.
    _claude(
        "Claude Opus 5.5 / Fable 5.1",
        r"opus-5-5|fable-5-1",
        prefill=False,
        mid_conversation_system=True,
        binds_thinking_prefix=True,
        thinking="always",
    ),
    _claude("Claude Opus 4.8", r"opus-4-8", prefill=False, mid_conversation_system=True),
    _claude(
        "Claude 4.6, Opus 4.7, Sonnet 5",
        r"sonnet-4-6|opus-4-6|opus-4-7|sonnet-5",
        prefill=False,
        mid_conversation_system=False,
    ),
    _claude(
        "Claude 3 to 4.5",
        r"(?:opus|sonnet|haiku)-4-5|(?:opus|sonnet)-4(?:-1)?|3-7-sonnet|3-5-(?:sonnet|haiku)"
        r"|3-(?:opus|sonnet|haiku)",
        prefill=True,
        mid_conversation_system=False,
    ),
    ModelFamily(
        "Claude", r"claude-", ModelFacts(image_input=True), {"image_input": _CLAUDE_IMAGES}
    ),
    ModelFamily(
        "Gemini 3",
        r"gemini-3(?![0-9])",
        ModelFacts(thought_signatures_required=True, image_input=True),
        {"thought_signatures_required": _GEMINI_3_SIGNATURES, "image_input": _GEMINI_IMAGES},
    ),
    ModelFamily(
        "Gemini 1 and 2",
        r"gemini-[12]\.",
        ModelFacts(thought_signatures_required=False, image_input=True),
        {"thought_signatures_required": _GEMINI_2_SIGNATURES, "image_input": _GEMINI_IMAGES},
    ),
    ModelFamily(
        "Magistral",
        r"magistral-",
        ModelFacts(reasoning_input=True),
        {"reasoning_input": _MAGISTRAL},
    ),
    ModelFamily(
        "Mistral (not Magistral)",
        r"(?:mistral|codestral|ministral|pixtral|devstral|open-mistral|open-mixtral)-",
        ModelFacts(reasoning_input=False),
        {"reasoning_input": _MISTRAL_NO_REASONING},
    ),
    ModelFamily(
        "OpenAI text-only",
        r"(?:gpt-3\.5-turbo|o1-mini|o1-preview|o3-mini)(?![0-9a-z])",
        ModelFacts(image_input=False),
        {"image_input": _OPENAI_NO_IMAGES},
    ),
    ModelFamily(
        "OpenAI with vision",
        r"(?:gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4-mini)(?![0-9])",
        ModelFacts(image_input=True),
        {"image_input": _OPENAI_IMAGES},
    ),
    ModelFamily(
        "DeepSeek",
        r"deepseek-(?:chat|reasoner|v[0-9])",
        ModelFacts(image_input=False),
        {"image_input": _DEEPSEEK_NO_IMAGES},
    ),
)
"""The built-in model families, most specific first."""

_USER_FAMILIES: list[ModelFamily] = []


def _families() -> tuple[ModelFamily, ...]:
    return (*_USER_FAMILIES, *BUILTIN_FAMILIES)


MODEL_FAMILIES = BUILTIN_FAMILIES
"""The built-in families (:func:`register_model_family` adds yours in front of them)."""


def register_model_family(family: ModelFamily) -> None:
    """Put ``family`` in front of every known family: a model id it matches gets its facts.

    To override one fact of a built-in family, give a family with the same pattern and the
    facts of the built-in one with that fact replaced (``dataclasses.replace``). Plans and
    cached facts are rebuilt on the next call.
    """
    if not isinstance(family, ModelFamily):
        raise ConfigError(f"register_model_family takes a ModelFamily, got {family!r}")
    _USER_FAMILIES.insert(0, family)
    _changed()


def unregister_model_family(family: ModelFamily) -> None:
    """Remove a family :func:`register_model_family` added (ConfigError if it is not there)."""
    try:
        _USER_FAMILIES.remove(family)
    except ValueError:
        raise ConfigError(f"model family {family.name!r} is not registered") from None
    _changed()


_LISTENERS: list[Callable[[], None]] = []
"""What to clear when the families change (the engine's cached targets and plans)."""


def _changed() -> None:
    _FACTS_CACHE.clear()
    for listener in _LISTENERS:
        listener()


# --- model ids --------------------------------------------------------------------------------

_CLAUDE_DOTS = re.compile(r"(?<=\d)\.(?=\d)")
_DATE = re.compile(r"(?:-\d{8}|-latest|@.*)$")


def model_name(model: str) -> str:
    """The model's own name in any id style people hold, lower-cased: the name the families
    match.

    ``anthropic/claude-sonnet-4.5`` (AI Gateway), ``anthropic:claude-sonnet-4-5`` (pydantic-ai),
    ``bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0`` (LiteLLM), an inference-profile ARN,
    ``models/gemini-2.5-flash`` and ``publishers/google/models/gemini-3-pro`` (Google) all give
    the bare name (``claude-sonnet-4-5``, ``claude-sonnet-4-5-20250929``, ``gemini-2.5-flash``).
    Claude's version dots become dashes, as Anthropic spells its ids.
    """
    name = model.strip().lower().rsplit("/", 1)[-1]
    bedrock = BEDROCK_MODEL_ID.fullmatch(name)
    if bedrock is not None and (bedrock.group("region") or bedrock.group("version")):
        name = bedrock.group("name")
    else:
        prefix, colon, rest = name.partition(":")
        if colon and (prefix in PYDANTIC_AI_PREFIXES or prefix in ("openai", "ft")):
            name = rest
    if name.startswith("claude-"):
        name = _CLAUDE_DOTS.sub("-", name)
    return name


def signature_scope(model: str) -> str:
    """What a signed thinking block is bound to: the model's name without its date or
    ``-latest`` (``claude-sonnet-4-5-20250929`` and ``claude-sonnet-4-5`` share one scope;
    ``claude-opus-4-5`` has another). Anthropic rejects a signature from another Claude model
    (``Invalid `signature` in `thinking` block``, vybestack/llxprt-code#2335, after switching
    Claude models)."""
    return _DATE.sub("", model_name(model))


_FACTS_CACHE: dict[str, ModelFacts] = {}


def model_facts(model: str | None) -> ModelFacts:
    """The facts of a model id (any style :func:`model_name` reads); :data:`UNKNOWN` when no
    family matches or no model is given."""
    if not model:
        return UNKNOWN
    found = _FACTS_CACHE.get(model)
    if found is None:
        name = model_name(model)
        family = next((f for f in _families() if f.compiled.match(name)), None)
        found = UNKNOWN if family is None else family.facts
        if len(_FACTS_CACHE) > 1024:
            _FACTS_CACHE.clear()
        _FACTS_CACHE[model] = found
    return found


# --- the target ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Target:
    """The request heal heals for. Every field but ``provider`` is optional knowledge: ``None``
    means heal does not know, and rules fall back to their conservative default.

    Build one with :meth:`of`, which infers the provider from the model id when only the model
    is given, or pass the same keywords to ``heal_messages``.
    """

    provider: ProviderId | None = None
    """The wire format the history is sent in (see :mod:`heal.providers`)."""
    model: str | None = None
    """The model id, in any style :func:`model_name` reads."""
    thinking: bool | None = None
    """Whether the request enables thinking / reasoning."""
    tools: frozenset[str] | None = None
    """The names of the tools the request offers (None: not known)."""
    prefix_mismatch_behavior: str | None = None
    """Anthropic's ``thinking.block_binding.prefix_mismatch_behavior`` when the request sets it:
    with ``"drop_block"`` the server drops thinking blocks bound to another prefix itself."""
    facts: ModelFacts = field(default=UNKNOWN, compare=False, repr=False)
    """The model's facts (:func:`model_facts`), resolved once."""

    def __post_init__(self) -> None:
        if self.provider is not None and self.provider not in PROVIDERS:
            raise ConfigError(
                f"unknown provider {self.provider!r}; expected None or one of: "
                + ", ".join(PROVIDERS)
            )
        if self.model is not None and (not isinstance(self.model, str) or not self.model.strip()):
            raise ConfigError(f"model must be a non-empty model id string, got {self.model!r}")
        if self.thinking is not None and not isinstance(self.thinking, bool):
            raise ConfigError(f"thinking must be True, False or None, got {self.thinking!r}")
        if self.tools is not None and not (
            isinstance(self.tools, frozenset) and all(isinstance(t, str) for t in self.tools)
        ):
            raise ConfigError("tools must be a frozenset of tool names (use Target.of)")
        object.__setattr__(self, "facts", model_facts(self.model))

    @classmethod
    def of(
        cls,
        provider: ProviderId | str | None = None,
        model: str | None = None,
        *,
        thinking: bool | None = None,
        tools: Iterable[str] | None = None,
        prefix_mismatch_behavior: str | None = None,
    ) -> Target:
        """A target from what the caller knows. ``provider`` None and a model given: the
        provider is inferred from the model id (:func:`heal.providers.infer_provider`; None when
        the id does not settle the wire format). ``tools``: tool names, or tool definitions as
        the SDKs take them (a dict with ``name`` or ``function.name``, an object with
        ``.name``)."""
        if provider is None and model is not None:
            provider = infer_provider(model)
        if provider is not None and provider not in PROVIDERS:
            raise ConfigError(
                f"unknown provider {provider!r}; expected None or one of: " + ", ".join(PROVIDERS)
            )
        names = None if tools is None else frozenset(tool_names(tools))
        return cls(provider, model, thinking, names, prefix_mismatch_behavior)

    def with_provider(self, provider: ProviderId | None) -> Target:
        """The same target for another provider."""
        return replace(self, provider=provider)

    def describe(self) -> str:
        """A short description (``anthropic, claude-sonnet-4-5, thinking on``)."""
        parts: list[str] = [self.provider or "any provider"]
        if self.model:
            parts.append(self.model)
        if self.thinking is not None:
            parts.append("thinking on" if self.thinking else "thinking off")
        if self.tools is not None:
            parts.append(f"{len(self.tools)} tool(s)")
        return ", ".join(parts)


def tool_names(tools: Iterable[object]) -> list[str]:
    """The names of tool definitions: strings as they are, ``{"name"}`` (Anthropic, Responses,
    AI SDK), ``{"function": {"name"}}`` (Chat Completions), ``{"functionDeclarations": [...]}``
    (Gemini), or objects with ``.name``. A definition with no name (a provider's server tool
    without one) is skipped; anything else raises ConfigError."""
    if isinstance(tools, (str, bytes)) or not isinstance(tools, Iterable):
        raise ConfigError(f"tools must be a list of tool names or definitions, got {tools!r}")
    names: list[str] = []
    for tool in tools:
        if isinstance(tool, str):
            names.append(tool)
            continue
        if isinstance(tool, Mapping):
            declarations = tool.get("functionDeclarations", tool.get("function_declarations"))
            if isinstance(declarations, list):
                names += tool_names(declarations)
                continue
            inner = tool.get("function")
            name = inner.get("name") if isinstance(inner, Mapping) else tool.get("name")
        else:
            name = getattr(tool, "name", None)
        if isinstance(name, str):
            names.append(name)
        elif name is not None:
            raise ConfigError(f"tool definition with a non-string name: {tool!r}")
    return names


def target_keywords(target: Target) -> dict[str, object]:
    """The target's model, thinking and tools as keyword arguments, only those it knows: what
    a caller passes to a ``heal_<format>`` function so that the format may fill in the rest
    from the request it holds (an Anthropic request's own ``model`` and ``thinking``)."""
    known = {"model": target.model, "thinking": target.thinking, "tools": target.tools}
    return {key: value for key, value in known.items() if value is not None}


NO_TARGET = Target()
"""No provider, no model: the shared rules, every capability unknown."""
