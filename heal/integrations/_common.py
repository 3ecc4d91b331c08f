"""What every integration shares: its options, the provider choice, the target of a request,
where repairs are reported, and what happens when heal cannot read a request.

:func:`openai_endpoint_provider` (the provider of an OpenAI-format base URL) is
:func:`heal.providers.openai_endpoint_provider`, re-exported for the integrations."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from heal._engine import heal_messages
from heal.errors import ConfigError, ConvergenceError, InputError
from heal.policy import Policy
from heal.providers import ProviderId, get_profile, openai_endpoint_provider
from heal.repairs import Repair
from heal.rules import Rule
from heal.targets import Target, tool_names

__all__ = [
    "AUTO",
    "HealOptions",
    "ProviderChoice",
    "effort_thinking",
    "guarded",
    "log_repair",
    "logger",
    "openai_endpoint_provider",
    "request_target",
]

T = TypeVar("T")

logger = logging.getLogger("heal")
"""Where repairs are logged (INFO) when no ``on_repair`` callback is given."""

AUTO: Literal["auto"] = "auto"

ProviderChoice = ProviderId | Literal["auto"] | None
"""``"auto"`` (follow the model serving the request), a provider id, or None (shared rules)."""


def log_repair(repair: Repair) -> None:
    """Log one repair at INFO on the ``heal`` logger; the record carries it as ``heal_repair``.
    Nothing is made when the logger drops INFO (Python's default keeps WARNING and up): every
    repair of every request an integration heals comes here."""
    if logger.isEnabledFor(logging.INFO):
        logger.info("healed request: %s", repair.describe(), extra={"heal_repair": repair})


@dataclass(frozen=True, slots=True)
class HealOptions:
    """The options every integration takes, checked once when the integration is built."""

    provider: ProviderChoice = AUTO
    """``"auto"``, a provider id, or None; see :data:`ProviderChoice`."""
    policy: Policy | Mapping[str, str] | None = None
    """Per-rule choices, as for :func:`heal.heal_messages`."""
    rules: Sequence[Rule] | None = None
    """Extra rules, as for :func:`heal.heal_messages`."""
    on_repair: Callable[[Repair], object] | None = None
    """Called with each repair (exceptions it raises are logged and ignored); None logs them."""
    strict: bool = False
    """Raise instead of sending a request that needed repair (:class:`~heal.errors.HealingError`)
    or that heal could not read (:class:`~heal.errors.InputError`)."""
    report: Callable[[Repair], object] = field(init=False, repr=False, compare=False)
    """Where repairs go: ``on_repair``, else :func:`log_repair`."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "policy", Policy.coerce(self.policy))
        object.__setattr__(self, "rules", tuple(self.rules or ()))
        object.__setattr__(self, "report", self.on_repair or log_repair)
        # Fail when the integration is built, not on the first request of a run: an unknown
        # provider, a policy naming an unknown rule or choice, a malformed extra rule.
        forced = None if self.provider == AUTO else self.provider
        get_profile(forced)
        heal_messages([], provider=forced, policy=self.policy, rules=self.rules)

    def for_partial_history(self) -> HealOptions:
        """These options for a history whose start the server keeps (a Responses request with
        ``previous_response_id`` or ``conversation``): tool results whose calls are not in it
        are kept (``orphan-tool-result`` = ``keep``, unless the policy chose otherwise)."""
        policy = Policy.coerce(self.policy)
        choices = {"orphan-tool-result": "keep", **policy.choices}
        partial = Policy(choices, disable=policy.disabled, enable=policy.enabled)
        return HealOptions(self.provider, partial, self.rules, self.on_repair, self.strict)

    def choose(self, infer: Callable[[], ProviderId | None]) -> ProviderId | None:
        """The provider to heal for: the forced one, else what ``infer`` finds."""
        if self.provider == AUTO:
            return infer()
        return self.provider


def request_target(
    provider: ProviderId | None,
    *,
    model: object = None,
    thinking: bool | None = None,
    tools: Iterable[Any] | None = None,
    prefix_mismatch_behavior: object = None,
) -> Target:
    """The target of a request an integration heals: the provider it chose (never re-inferred
    from the model id, so ``provider=None`` stays the shared rules), and what the framework call
    names of the rest.

    What the request holds is taken as it is, and what heal cannot read is left unknown rather
    than failing the request: a model that is not a non-empty string, tools whose names are not
    all strings (the provider will say what is wrong with those).
    """
    name = model.strip() if isinstance(model, str) else ""
    names: frozenset[str] | None = None
    if tools is not None:
        try:
            names = frozenset(tool_names(tools))
        except ConfigError:
            names = None
    return Target(
        provider,
        model if name and isinstance(model, str) else None,
        thinking,
        names,
        prefix_mismatch_behavior if isinstance(prefix_mismatch_behavior, str) else None,
    )


def effort_thinking(effort: object) -> bool | None:
    """Whether an OpenAI-style reasoning effort turns thinking on.

    ``"none"`` is off: it is the effort that "does not perform reasoning" (GPT-5.1's default;
    learn.microsoft.com/en-us/javascript/api/@azure/ai-projects/reasoningeffort). Every other
    effort is on, ``"minimal"`` included: it asks for few reasoning tokens, not none
    (developers.openai.com/api/docs/guides/reasoning). None when no effort is given, since the
    default differs by model (``none`` on GPT-5.1, ``medium`` before it).
    """
    if not isinstance(effort, str) or not effort.strip():
        return None
    return effort.strip().lower() != "none"


def guarded(options: HealOptions, what: str, heal: Callable[[], T], unchanged: T) -> T:
    """Run ``heal``; when heal cannot read the request, warn and send it ``unchanged``.

    A framework hook that raised would fail a request the provider might well accept, so an
    unreadable history (:class:`~heal.errors.InputError`) or a rule that does not settle
    (:class:`~heal.errors.ConvergenceError`, a heal bug) is logged at WARNING on the ``heal``
    logger and the request goes out as it was. With ``strict=True`` they raise instead.
    """
    try:
        return heal()
    except (InputError, ConvergenceError):
        if options.strict:
            raise
        logger.warning("heal could not heal the %s; sending it unchanged", what, exc_info=True)
        return unchanged
