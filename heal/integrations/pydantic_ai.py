"""Heal a pydantic-ai agent's message history before every model request.

::

    from pydantic_ai import Agent
    from heal.integrations.pydantic_ai import HealHistory

    agent = Agent("anthropic:claude-sonnet-4-5", capabilities=[HealHistory()])
    agent.run_sync("Go on", message_history=stored_history)   # the model gets a healed history

Two forms:

:class:`HealHistory` (recommended)
    A capability whose ``prepare_model_request`` hook heals the messages of each attempt at a
    model request, for the model that serves that attempt (so a ``ModelFallback`` candidate gets
    its own provider's rules). Only the request is changed: the run's message history
    (``result.all_messages()``) keeps what happened. This is the hook pydantic-ai documents for
    "per-profile message translation".

:func:`heal_history`
    A history processor, for ``ProcessHistory(heal_history())``. pydantic-ai 2 removed
    ``Agent(history_processors=...)``; ``ProcessHistory`` runs a processor in
    ``before_model_request`` and WRITES its result back to the run's message history. So this form
    heals the stored history, and by default runs only the rules whose changes belong there
    (``scope="history"``); pass ``scope="request"`` to run every rule and persist the result.

The provider follows the model (``provider="auto"``): :func:`heal.infer_provider` of the request's
model (``AnthropicModel`` → ``anthropic``, ``OpenAIResponsesModel`` → ``openai-responses``,
wrappers followed); a model it cannot place (a ``FunctionModel``, a ``TestModel``) gets the
shared rules. ``provider=`` forces one. Repairs carry indices into the messages of the request
(``messages[i].parts[j]``) and go to ``on_repair``, or are logged at INFO on the ``heal`` logger.

The rest of the target (:class:`heal.Target`) comes from the request too, whatever the
provider: the model's ``model_name``, whether the request thinks (:func:`request_thinking`,
from the model settings), and, in :class:`HealHistory`, the names of the request's function and
output tools (a history processor does not see them).

pydantic-ai repairs some problems itself before any hook runs: it drops tool returns whose call
is not in the history and adds a return for each unanswered call (``_clean_message_history``).
heal sees the history after that, and fixes what pydantic-ai leaves: duplicated tool returns,
tool names and call ids the provider rejects, another provider's reasoning, and the rest of
heal's rules for the provider.

Unanswered calls at the END of a stored history are the exception: pydantic-ai leaves them for
the run to execute, and refuses a new prompt on top of them (``UserError: Cannot provide a new
user prompt when the message history contains unprocessed tool calls``) before any request hook
runs. :class:`HealHistory` answers them first, when a run starts with a new prompt: heal's
``orphan-tool-call`` rule gives each its placeholder result (or, as the policy chooses, drops
the call, or keeps it and pydantic-ai's refusal stands). pydantic-ai only runs a history whose
calls are answered, so these results stay in the run's history, as pydantic-ai's own answers to
earlier calls do. A run without a new prompt executes the calls as usual, and
``deferred_tool_results`` answer them as usual. :func:`heal_history` runs too late for this (a
processor runs before each model request); heal such a history before the run instead:
``agent.run(prompt, message_history=heal_pydantic_ai(history).messages)``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic_ai import UserPromptNode
from pydantic_ai.capabilities import AbstractCapability, AgentNode
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import ModelRequestContext, ModelRequestParameters
from pydantic_ai.tools import RunContext

from heal._engine import HealScope, _notify
from heal.adapters import gemini
from heal.adapters._common import NativeRepair, native_path
from heal.adapters.anthropic import thinking_enabled as anthropic_thinking
from heal.adapters.pydantic_ai import heal_pydantic_ai
from heal.errors import HealingError
from heal.integrations._common import (
    AUTO,
    HealOptions,
    ProviderChoice,
    effort_thinking,
    guarded,
    request_target,
)
from heal.policy import Policy
from heal.providers import infer_provider
from heal.repairs import Action, Repair
from heal.rules import Rule, default_registry
from heal.targets import Target

__all__ = ["HealHistory", "HistoryProcessor", "heal_history", "request_thinking"]

HistoryProcessor = Callable[[RunContext[Any], list[ModelMessage]], list[ModelMessage]]
"""What :func:`heal_history` returns: a pydantic-ai history processor taking the run context."""


@dataclass(kw_only=True)
class HealHistory(AbstractCapability[Any]):
    """A pydantic-ai capability that heals every model request before it is sent.

    ``Agent(model, capabilities=[HealHistory(on_repair=...)])``. The run's stored history is not
    changed; see the module docstring.
    """

    provider: ProviderChoice = AUTO
    """``"auto"`` (the request's model decides), a provider id, or None for the shared rules."""
    policy: Policy | Mapping[str, str] | None = None
    """Per-rule choices, as for :func:`heal.heal_messages`."""
    rules: Sequence[Rule] | None = None
    """Extra rules, as for :func:`heal.heal_messages`."""
    on_repair: Callable[[Repair], object] | None = None
    """Called with each repair; None logs each at INFO on the ``heal`` logger."""
    strict: bool = False
    """Raise :class:`~heal.errors.HealingError` instead of sending a history that needed repair."""

    def __post_init__(self) -> None:
        self._options = HealOptions(
            self.provider, self.policy, self.rules, self.on_repair, self.strict
        )

    @classmethod
    def get_serialization_name(cls) -> str | None:
        """Not constructible from an agent spec: it takes a callback."""
        return None

    async def before_node_run(
        self, ctx: RunContext[Any], *, node: AgentNode[Any]
    ) -> AgentNode[Any]:
        """When a run starts with a new prompt, answer the calls its history leaves open.

        pydantic-ai's first node (``UserPromptNode``) refuses a new prompt on a history ending in
        unanswered tool calls, and this hook is the last one that runs before it (see the module
        docstring). Not for a run without a new prompt (it executes the calls) or with
        ``deferred_tool_results`` (they answer them).
        """
        if (
            isinstance(node, UserPromptNode)
            and node.user_prompt is not None
            and node.deferred_tool_results is None
        ):
            messages = ctx.messages
            closed = _close_pending_calls(self._options, messages)
            if closed is not messages:
                # In place: the node reads the run's history from the run state, and
                # ``ctx.messages`` is that very list (pydantic-ai's copy, not the caller's).
                messages[:] = closed
        return node

    async def prepare_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        """Heal ``request_context.messages`` for ``request_context.model``, its settings and its
        tools; the run's history is untouched."""
        messages = request_context.messages
        healed = _heal(
            self._options,
            messages,
            request_context.model,
            request_context.model_settings,
            request_context.model_request_parameters,
            scope="request",
        )
        if healed is not messages:
            request_context.messages = healed
        return request_context


def heal_history(
    *,
    provider: ProviderChoice = AUTO,
    policy: Policy | Mapping[str, str] | None = None,
    rules: Sequence[Rule] | None = None,
    on_repair: Callable[[Repair], object] | None = None,
    strict: bool = False,
    scope: HealScope = "history",
) -> HistoryProcessor:
    """A history processor that heals the run's history for the run's model (``ctx.model``, with
    the step's ``ctx.model_settings``).

    Use it as ``Agent(model, capabilities=[ProcessHistory(heal_history())])``. pydantic-ai writes
    a processor's result back to the run's history, hence ``scope="history"`` by default: only
    the repairs that belong in stored history. :class:`HealHistory` heals each request instead,
    without touching the history. The other options are those of :class:`HealHistory`.
    """
    options = HealOptions(provider, policy, rules, on_repair, strict)

    def process(ctx: RunContext[Any], messages: list[ModelMessage]) -> list[ModelMessage]:
        return _heal(options, messages, ctx.model, ctx.model_settings, None, scope=scope)

    return process


def _heal(
    options: HealOptions,
    messages: list[ModelMessage],
    model: object,
    settings: Mapping[str, Any] | None,
    parameters: ModelRequestParameters | None,
    *,
    scope: HealScope,
) -> list[ModelMessage]:
    """The healed messages, or ``messages`` itself when nothing needed changing."""

    def heal() -> list[ModelMessage]:
        result = heal_pydantic_ai(
            messages,
            target=_target(options, model, settings, parameters),
            policy=options.policy,
            rules=options.rules,
            on_repair=options.report,
            strict=options.strict,
            scope=scope,
        )
        return result.messages if result.changed else messages

    return guarded(options, "pydantic-ai message history", heal, messages)


def _target(
    options: HealOptions,
    model: object,
    settings: Mapping[str, Any] | None,
    parameters: ModelRequestParameters | None,
) -> Target:
    """What the request is: its provider (see the module docstring), its model's name, whether
    it thinks, and the tools it offers (its function tools and output tools, which the model
    calls alike; the native tools run on the provider's side and name no call heal checks)."""
    tools = None
    if parameters is not None:
        tools = [*parameters.function_tools, *parameters.output_tools]
    return request_target(
        options.choose(lambda: infer_provider(model)),
        model=model if isinstance(model, str) else _attribute(model, "model_name"),
        thinking=request_thinking(model, settings),
        tools=tools,
    )


def request_thinking(model: object, settings: Mapping[str, Any] | None = None) -> bool | None:
    """Whether a request to a pydantic-ai ``model`` with these model settings thinks; None when
    the settings do not say.

    The settings are the request's over the model's own (``Model.settings``), as pydantic-ai
    merges them. A provider-specific setting that the model's class reads takes precedence over
    the unified ``thinking``, as it does in pydantic-ai:

    * ``anthropic_thinking`` (``AnthropicModel``) and the ``thinking`` field of
      ``bedrock_additional_model_requests_fields`` (``BedrockConverseModel``): as
      :func:`heal.adapters.anthropic.thinking_enabled` reads Anthropic's ``thinking``;
    * ``google_thinking_config`` (``GoogleModel``): as
      :func:`heal.adapters.gemini.thinking_enabled` reads a Gemini ``thinking_config``;
    * ``openrouter_reasoning`` (``OpenRouterModel``): off when ``enabled`` is false or its effort
      is ``"none"``;
    * ``openai_reasoning_effort`` (the OpenAI models), ``groq_reasoning_effort``,
      ``xai_reasoning_effort``: off for ``"none"``, else on.

    The unified ``thinking`` counts only for a model whose profile takes it (``supports_thinking``
    or ``thinking_always_enabled``; pydantic-ai ignores it otherwise): ``False`` is off, except on
    a model that always thinks, where pydantic-ai sends the least thinking the model accepts;
    ``True`` or an effort is on. With no setting, a model whose profile says it always thinks or
    thinks by default (``thinking_enabled_by_default``) thinks; otherwise None.
    """
    merged: dict[str, Any] = {}
    for layer in (_attribute(model, "settings"), settings):
        if isinstance(layer, Mapping):
            merged.update(layer)
    classes = _model_classes(model)
    for class_name, read in _PROVIDER_THINKING:
        if class_name in classes:
            said = read(merged)
            if said != "unsaid":
                return said
    profile = _attribute(_unwrapped(model), "profile")
    profile = profile if isinstance(profile, Mapping) else {}
    always = bool(profile.get("thinking_always_enabled", False))
    unified = merged.get("thinking")
    if unified is not None and (always or profile.get("supports_thinking", False)):
        return True if always else bool(unified)
    if always or profile.get("thinking_enabled_by_default", False):
        return True
    return None


_Said = bool | None | Literal["unsaid"]


def _setting(key: str, read: Callable[[Any], bool | None]) -> Callable[[Mapping[str, Any]], _Said]:
    def said(settings: Mapping[str, Any]) -> _Said:
        return read(settings[key]) if key in settings else "unsaid"

    return said


def _bedrock(settings: Mapping[str, Any]) -> _Said:
    fields = settings.get("bedrock_additional_model_requests_fields")
    if isinstance(fields, Mapping) and "thinking" in fields:
        return anthropic_thinking(fields["thinking"])
    return "unsaid"


def _openrouter(reasoning: Any) -> bool | None:
    if not isinstance(reasoning, Mapping):
        return None
    return reasoning.get("enabled", True) is not False and reasoning.get("effort") != "none"


_PROVIDER_THINKING: tuple[tuple[str, Callable[[Mapping[str, Any]], _Said]], ...] = (
    ("AnthropicModel", _setting("anthropic_thinking", anthropic_thinking)),
    ("BedrockConverseModel", _bedrock),
    ("GoogleModel", _setting("google_thinking_config", gemini.thinking_enabled)),
    ("OpenRouterModel", _setting("openrouter_reasoning", _openrouter)),
    ("OpenAIChatModel", _setting("openai_reasoning_effort", effort_thinking)),
    ("OpenAIResponsesModel", _setting("openai_reasoning_effort", effort_thinking)),
    ("GroqModel", _setting("groq_reasoning_effort", effort_thinking)),
    ("XaiModel", _setting("xai_reasoning_effort", effort_thinking)),
)
"""The provider-specific thinking settings, by the pydantic-ai model class that reads each,
most specific class first (``OpenRouterModel`` is an ``OpenAIChatModel``)."""


def _unwrapped(model: object) -> object:
    """The model a pydantic-ai ``WrapperModel`` (``InstrumentedModel``, ...) wraps."""
    for _ in range(8):
        inner = _attribute(model, "wrapped")
        if inner is None:
            return model
        model = inner
    return model


def _model_classes(model: object) -> frozenset[str]:
    inner = _unwrapped(model)
    return frozenset(
        klass.__name__
        for klass in type(inner).__mro__
        if klass.__module__.startswith("pydantic_ai")
    )


def _attribute(obj: object, name: str) -> Any:
    try:
        return getattr(obj, name, None)
    except Exception:  # a property that raises is a fact heal cannot read
        return None


_CLOSING_RULES = frozenset({"orphan-tool-call", "empty-message"})
"""What answering a history's pending calls runs: the placeholder (or, under ``drop-call``, the
removal) and the removal of a response ``drop-call`` leaves empty."""


def _closing_policy(policy: Policy | Mapping[str, str] | None) -> Policy:
    """The user's policy for the closing rules, with every other rule turned off: answering the
    pending calls goes into the run's history, so it changes nothing else there."""
    chosen = Policy.coerce(policy)
    others = [rule.id for rule in default_registry if rule.id not in _CLOSING_RULES]
    return Policy(
        {k: v for k, v in chosen.choices.items() if k in _CLOSING_RULES},
        disable=[*others, *(chosen.disabled & _CLOSING_RULES)],
    )


def _close_pending_calls(options: HealOptions, messages: list[ModelMessage]) -> list[ModelMessage]:
    """``messages`` with the unanswered calls of its last response answered, or ``messages``
    itself when that response has none pydantic-ai would refuse a new prompt on."""
    last = messages[-1] if messages else None
    # pydantic-ai answers an interrupted response's calls itself, and refuses a new prompt on a
    # suspended one for another reason (resume it first): both are left to it.
    if (
        not isinstance(last, ModelResponse)
        or not last.tool_calls
        or last.state in ("interrupted", "suspended")
    ):
        return messages
    offset = len(messages) - 1

    def close() -> list[ModelMessage]:
        # The last response alone: the calls' results can only come after it, and nothing
        # earlier is touched. No provider: the closing rules are the shared ones. The policy is
        # built here, not once, so that rules registered since are turned off too.
        policy = _closing_policy(options.policy)
        result = heal_pydantic_ai([last], provider=None, policy=policy, scope="history")
        repairs = [_at_offset(r, offset) for r in result.repairs]
        _notify(options.report, repairs)
        if options.strict and any(r.action is not Action.KEEP for r in repairs):
            raise HealingError(repairs)
        return [*messages[:offset], *result.messages] if result.changed else messages

    return guarded(options, "pydantic-ai message history", close, messages)


def _at_offset(repair: Repair, offset: int) -> Repair:
    """A repair of a history's tail healed alone, at its place in the whole history."""

    def shift(index: int | None) -> int | None:
        return None if index is None else index + offset

    moved = repair.model_copy(
        update={
            "message_index": shift(repair.message_index),
            "anchor_index": shift(repair.anchor_index),
        }
    )
    where = native_path(moved.message_index, moved.part_index, moved.anchor_index, parts="parts")
    return NativeRepair.at(moved, where)
