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

pydantic-ai repairs some problems itself before any hook runs: it drops tool returns whose call
is not in the history and adds a return for each unanswered call (``_clean_message_history``).
heal sees the history after that, and fixes what pydantic-ai leaves: duplicated tool returns,
tool names and call ids the provider rejects, another provider's reasoning, and the rest of
heal's rules for the provider.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.tools import RunContext

from heal._engine import HealScope
from heal.adapters.pydantic_ai import heal_pydantic_ai
from heal.integrations._common import AUTO, HealOptions, ProviderChoice, guarded
from heal.policy import Policy
from heal.providers import ProviderId, infer_provider
from heal.repairs import Repair
from heal.rules import Rule

__all__ = ["HealHistory", "HistoryProcessor", "heal_history"]

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

    async def prepare_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        """Heal ``request_context.messages`` for ``request_context.model``; history untouched."""
        messages = request_context.messages
        healed = _heal(self._options, messages, request_context.model, scope="request")
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
    """A history processor that heals the run's history for the run's model (``ctx.model``).

    Use it as ``Agent(model, capabilities=[ProcessHistory(heal_history())])``. pydantic-ai writes
    a processor's result back to the run's history, hence ``scope="history"`` by default: only
    the repairs that belong in stored history. :class:`HealHistory` heals each request instead,
    without touching the history. The other options are those of :class:`HealHistory`.
    """
    options = HealOptions(provider, policy, rules, on_repair, strict)

    def process(ctx: RunContext[Any], messages: list[ModelMessage]) -> list[ModelMessage]:
        return _heal(options, messages, ctx.model, scope=scope)

    return process


def _heal(
    options: HealOptions, messages: list[ModelMessage], model: object, *, scope: HealScope
) -> list[ModelMessage]:
    """The healed messages, or ``messages`` itself when nothing needed changing."""

    def infer() -> ProviderId | None:
        return infer_provider(model)

    def heal() -> list[ModelMessage]:
        result = heal_pydantic_ai(
            messages,
            provider=options.choose(infer),
            policy=options.policy,
            rules=options.rules,
            on_repair=options.report,
            strict=options.strict,
            scope=scope,
        )
        return result.messages if result.changed else messages

    return guarded(options, "pydantic-ai message history", heal, messages)
