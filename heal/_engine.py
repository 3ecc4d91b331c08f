"""The engine: run the rules over a history, apply their edits, repeat until nothing changes.

Contract (tested by property tests):

* pure: the input is never mutated; untouched messages and parts are the same objects in the
  output;
* deterministic: no clock, no randomness, no reliance on set or dict iteration accidents;
* idempotent: ``heal(heal(x)).messages == heal(x).messages``, and ``validate(heal(x)).valid``;
* convergent: passes repeat until one changes nothing; more than ``MAX_PASSES`` is a bug in a
  rule and raises :class:`~heal.errors.ConvergenceError`.

Each pass indexes the history once; a rule that changes something triggers a re-index before the
next rule, so every rule sees a consistent history (from the previous index and the messages the
edit changed, :meth:`~heal.rules._index.HistoryIndex.after_edit`; from the previous index alone
when the edit only renamed tool-call ids, :class:`~heal.rules._base.RenamedId`). A rule is
called only when what it needs holds (``Rule.needs``, or its triggers); when nothing that any
rule of the plan needs holds (the clean verdict,
:meth:`~heal.rules._index.HistoryIndex.clean`), no rule runs: a clean history costs one index
and the few facts the plan asks.
"""

from __future__ import annotations

import gc
import json
import logging
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache, partial
from itertools import repeat
from typing import TYPE_CHECKING, Any, Literal, Protocol, cast

from pydantic import BaseModel, JsonValue

from heal import targets
from heal._construct import (
    construct_complete,
    new_instance,
    set_dict,
    set_extra,
    set_fields,
    set_private,
    with_field,
)
from heal.errors import ConfigError, ConvergenceError, HealingError, ProtectedEditError
from heal.messages import (
    AssistantMessage,
    ModelMessage,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolMessage,
    ToolResultPart,
    UserMessage,
    load_messages,
)
from heal.policy import KEEP, Policy
from heal.providers import ProviderId, ProviderProfile, get_profile
from heal.repairs import Action, Repair, Scope, record_json
from heal.rules import BUILTIN_RULES, Rule, _check_rule, default_registry
from heal.rules._base import (
    NEEDS,
    TRIGGERS,
    AddMessage,
    AddPart,
    Context,
    DropMessage,
    DropPart,
    DroppedParts,
    Edit,
    Finding,
    FreshJson,
    IdRenames,
    PartsAtStart,
    RenamedId,
    SetMessage,
    SetPart,
    renamed_id_finding,
)
from heal.rules._index import FACTS, Fact, HistoryIndex
from heal.rules._quick import (
    CLEAN,
    DROPS,
    NOT_PLAIN,
    REFUSED_IDS,
    QuickTerms,
    quick_terms,
    quick_verdict,
)
from heal.rules.anthropic import AnthropicToolIdFormat
from heal.rules.google import GoogleForeignThoughtSignature
from heal.rules.mistral import MistralToolCallId
from heal.rules.openai import OpenAIForeignReasoning
from heal.rules.reasoning import ForeignReasoning, RejectedReasoning, UnsignedReasoning
from heal.rules.tool_shape import InvalidToolCallId
from heal.targets import Target

if TYPE_CHECKING:
    from heal.rules._base import IdPart

__all__ = ["MAX_PASSES", "HealResult", "ValidationResult", "heal_messages", "validate_messages"]

MAX_PASSES = 8
"""Passes after which a history that still changes is declared non-convergent (a rule bug)."""

_log = logging.getLogger("heal")

HealScope = Literal["request", "history"]
_Loc = tuple[int, int]


@dataclass(frozen=True, slots=True)
class HealResult:
    """What ``heal_messages`` returns: the healed messages and the audit trail."""

    messages: list[ModelMessage]
    """The healed history; untouched messages are the caller's own objects."""
    repairs: tuple[Repair, ...]
    """Every change made (and every kept or reported problem), in the order applied."""

    @property
    def changed(self) -> bool:
        """True when at least one repair changed the history."""
        return any(r.changed for r in self.repairs)


@dataclass(frozen=True, slots=True)
class ValidationResult:
    """What ``validate_messages`` returns."""

    valid: bool
    """True when no rule would change the history (kept problems do not count)."""
    issues: tuple[Repair, ...]
    """The problems found, as the repairs healing would make, located in the input."""

    def report(self) -> str:
        """A readable, multi-line report of the issues."""
        if not self.issues:
            return "valid: no issues"
        head = "valid" if self.valid else "invalid"
        lines = [f"{head}: {len(self.issues)} issue(s)"]
        lines += [f"  {issue.describe()}" for issue in self.issues]
        return "\n".join(lines)


# --- public entry points ---------------------------------------------------------------------


def heal_messages(
    messages: Any,
    *,
    provider: ProviderId | None = None,
    model: str | None = None,
    thinking: bool | None = None,
    tools: Iterable[Any] | None = None,
    target: Target | None = None,
    policy: Policy | Mapping[str, str] | None = None,
    rules: Sequence[Rule] | None = None,
    on_repair: Callable[[Repair], object] | None = None,
    strict: bool = False,
    scope: HealScope = "request",
) -> HealResult:
    """Return a healed copy of ``messages`` and a record of every repair.

    Args:
        messages: message models, AI SDK message dicts, or JSON text or bytes.
        provider: the provider the history goes to next (``"anthropic"``, ...); ``None`` runs
            the shared rules only, unless ``model`` names one.
        model: the model id the request calls (``"claude-sonnet-4-5"``, ``"mistral-large-latest"``,
            ``"anthropic/claude-sonnet-4.5"``, a Bedrock id, ...): rules that depend on what
            the model accepts follow its facts (:mod:`heal.targets`). Without ``provider``, the
            provider is inferred from it. ``None``: heal does not know the model, and such
            rules keep their conservative default.
        thinking: whether the request enables thinking / reasoning (None: not known).
        tools: the tools the request offers, as names or definitions (None: not known).
        target: all of the above as one :class:`~heal.targets.Target`, instead of the
            keywords.
        policy: per-rule choices, as a :class:`~heal.policy.Policy` or a ``{rule id: choice}``
            dict.
        rules: extra rules to run after the built-in ones, for this call only.
        on_repair: called with each repair; exceptions it raises are logged and ignored.
        strict: raise :class:`~heal.errors.HealingError` (carrying the repairs) when anything
            needed repair, instead of returning.
        scope: ``"request"`` (default) runs every rule, to send the result now; ``"history"``
            runs only rules whose changes belong in stored history, for writing it back.
    """
    goal = resolve_target(provider, model, thinking, tools, target)
    loaded = load_messages(messages)
    plan = _plan_for(goal, policy, rules, scope)
    return _healed(loaded, plan, goal, on_repair=on_repair, strict=strict, plain="verdict")


_PlainWays = Literal["verdict", "renames", "none"]
"""Which of the ways around the index :func:`_run` tries: the quick verdict and then the plain
renaming (``verdict``), the renaming alone (``renames``), or neither (``none``)."""


def heal_not_plain(
    messages: Any,
    *,
    provider: ProviderId | None = None,
    model: str | None = None,
    thinking: bool | None = None,
    tools: Iterable[Any] | None = None,
    target: Target | None = None,
    policy: Policy | Mapping[str, str] | None = None,
    rules: Sequence[Rule] | None = None,
    on_repair: Callable[[Repair], object] | None = None,
    strict: bool = False,
    scope: HealScope = "request",
    renames: bool = True,
) -> HealResult:
    """:func:`heal_messages` for a history that a format's plain verdict has just refused
    (:func:`heal.heal_json`'s, an adapter's): the same result, without the quick verdict. Such
    a history is broken nearly always, and the quick verdict would only walk it up to its first
    flaw before the index is built (on the benchmark corpus, 15% more instructions for a broken
    history). A format's verdict does not tell ids apart from other flaws, though: a history
    plain but for ids the target refuses is still renamed without the index (as
    :func:`heal_messages` renames it), unless not ``renames`` (the caller has tried that
    itself: :func:`heal.heal_json`)."""
    goal = resolve_target(provider, model, thinking, tools, target)
    loaded = load_messages(messages)
    plan = _plan_for(goal, policy, rules, scope)
    plain: _PlainWays = "renames" if renames else "none"
    return _healed(loaded, plan, goal, on_repair=on_repair, strict=strict, plain=plain)


def _healed(
    loaded: list[ModelMessage],
    plan: _Plan,
    goal: Target,
    *,
    on_repair: Callable[[Repair], object] | None,
    strict: bool,
    plain: _PlainWays,
) -> HealResult:
    healed, repairs = _run_collector_paused(loaded, plan, goal, plain)
    deliver(repairs, on_repair, strict)
    return HealResult(healed, repairs)


def deliver(
    repairs: tuple[Repair, ...], on_repair: Callable[[Repair], object] | None, strict: bool
) -> None:
    """What a heal does with its repairs before it returns: each to ``on_repair``, then, when
    ``strict`` and one of them changed the history, :class:`HealingError`."""
    if on_repair is not None:
        _notify(on_repair, repairs)
    if strict and any(r.action is not Action.KEEP for r in repairs):
        raise HealingError(repairs)


def validate_messages(
    messages: Any,
    *,
    provider: ProviderId | None = None,
    model: str | None = None,
    thinking: bool | None = None,
    tools: Iterable[Any] | None = None,
    target: Target | None = None,
    policy: Policy | Mapping[str, str] | None = None,
    rules: Sequence[Rule] | None = None,
    scope: HealScope = "request",
) -> ValidationResult:
    """Check ``messages`` with the same rules as :func:`heal_messages`, changing nothing.

    The issues are exactly the repairs ``heal_messages`` would make (and the problems it would
    keep or report), located in ``messages``: a problem two rules could fix is listed once, and
    a change that only an earlier fix makes necessary (a message it leaves empty) is listed
    too. ``valid`` is true when healing would change nothing. The target keywords are those of
    :func:`heal_messages`.
    """
    goal = resolve_target(provider, model, thinking, tools, target)
    loaded = load_messages(messages)
    plan = _plan_for(goal, policy, rules, scope)
    _, issues = _run_collector_paused(loaded, plan, goal)
    valid = all(issue.action is Action.KEEP for issue in issues)
    return ValidationResult(valid, issues)


_TARGETS: dict[tuple[Any, ...], Target] = {}
"""Targets of the common calls (a provider, maybe a model and thinking, no tools), by their
keywords: built once, not on every call."""


def resolve_target(
    provider: Any, model: Any, thinking: Any, tools: Any, target: Target | None
) -> Target:
    """The target of a heal's keywords, as :func:`heal_messages` reads them (a ``target`` given
    alone, or one made of the others); :class:`~heal.errors.ConfigError` when it is not one."""
    if target is not None:
        if provider is not None or model is not None or thinking is not None or tools is not None:
            raise ConfigError(
                "give either target= or provider/model/thinking/tools keywords, not both"
            )
        if not isinstance(target, Target):
            raise ConfigError(f"target must be a heal.Target, got {target!r}")
        return target
    if tools is not None:
        return Target.of(provider, model, thinking=thinking, tools=tools)
    key = (provider, model, thinking)
    try:
        found = _TARGETS.get(key)
    except TypeError:  # an unhashable provider or model: Target.of says what is wrong
        found = None
    if found is None:
        found = Target.of(provider, model, thinking=thinking)
        if len(_TARGETS) > 256:
            _TARGETS.clear()
        _TARGETS[key] = found
    return found


def _forget_targets() -> None:
    """The model families changed: targets and plans built from their facts are stale."""
    _TARGETS.clear()
    _DEFAULT_PLANS.clear()
    _cached_plan.cache_clear()


targets._LISTENERS.append(_forget_targets)


def _notify(on_repair: Callable[[Repair], object], repairs: Iterable[Repair]) -> None:
    for repair in repairs:
        try:
            on_repair(repair)
        except Exception:
            _log.warning("on_repair callback raised; healing continues", exc_info=True)


# --- planning --------------------------------------------------------------------------------

_Step = tuple[Rule, str, bool, "frozenset[str] | None", "tuple[Fact, ...]"]
"""One rule of a plan: the rule, the choice to run it with, whether that choice is ``keep``
(then it runs with its default choice, and nothing is applied), and what it needs to find
anything (``Rule.needs``, or its triggers): trigger lists, of which one must be non-empty
unless one of the facts holds. None instead of the lists: it runs always."""


@dataclass(frozen=True, slots=True)
class _Plan:
    steps: tuple[_Step, ...]
    guards: tuple[Rule, ...]
    """The rules in the plan that protect messages from editing (see ``Context.protected``)."""
    profile: ProviderProfile
    verdict: tuple[frozenset[str], tuple[Fact, ...]] | None
    """What the plan's rules need to find anything (``Rule.needs``): trigger lists, and facts
    in a fixed order. None when some rule declares nothing, so a history is never clean."""
    quick: QuickTerms | None
    """The terms of the quick verdict for :attr:`verdict` (None: the index decides alone)."""
    renamer: tuple[tuple[int, ...], QuickTerms] | None = None
    """The steps that rename the ids the target refuses, in order, when the engine may run them
    without the index (see :func:`_renamed_plainly`), and the quick terms of the other steps'
    needs; else None."""
    dropper: tuple[int, Rule, DropReason] | None = None
    """The step that removes other providers' reasoning, its rule, and the reason it gives a
    part from the part's provider options, when the engine may remove it without the index
    (see :func:`_dropped_plainly`); else None."""


_DEFAULT_PLANS: dict[tuple[Target, str, int], _Plan] = {}
"""Plans for the common call (no policy, no extra rules), looked up without hashing a Policy."""


def _plan_key(target: Target) -> Target:
    """What a plan depends on: the target, less the tool names (a plan only asks whether the
    tools are known; rules read the names from the context)."""
    if target.tools is None or not target.tools:
        return target
    return Target(
        target.provider, target.model, target.thinking, frozenset(), target.prefix_mismatch_behavior
    )


def _plan_for(
    target: Target,
    policy: Policy | Mapping[str, str] | None,
    rules: Sequence[Rule] | None,
    scope: str,
) -> _Plan:
    version = default_registry.version
    key = _plan_key(target)
    if policy is None and not rules:
        plan = _DEFAULT_PLANS.get((key, scope, version))
        if plan is not None:
            return plan
    if scope not in ("request", "history"):
        raise ConfigError(f"scope must be 'request' or 'history', got {scope!r}")
    get_profile(target.provider)  # raises ConfigError for an unknown provider
    extra = tuple(rules or ())
    for rule in extra:
        _check_rule(rule)
    plan = _cached_plan(key, Policy.coerce(policy), extra, scope, version)
    if policy is None and not rules:
        if len(_DEFAULT_PLANS) > 64:  # registry versions come and go; keep the cache small
            _DEFAULT_PLANS.clear()
        _DEFAULT_PLANS[(key, scope, version)] = plan
    return plan


@lru_cache(maxsize=512)
def _cached_plan(
    target: Target, policy: Policy, extra: tuple[Rule, ...], scope: str, _version: int
) -> _Plan:
    known: dict[str, Rule] = {}
    for rule in (*default_registry, *extra):
        if rule.id in known:
            raise ConfigError(f"two rules share the id {rule.id!r}")
        known[rule.id] = rule
    for rule_id in (*policy.choices, *policy.disabled, *policy.enabled):
        if rule_id not in known:
            raise ConfigError(
                f"policy names unknown rule {rule_id!r}; known rules: {', '.join(sorted(known))}"
            )
    for rule_id, choice in policy.choices.items():
        valid = (*known[rule_id].choices, KEEP)
        if choice not in valid:
            raise ConfigError(
                f"policy for {rule_id!r} is {choice!r}; valid choices: {', '.join(valid)}"
            )
    steps: list[_Step] = []
    for rule in known.values():
        if not rule.applies(target):
            continue
        if scope == "history" and rule.scope is Scope.REQUEST:
            continue
        # Naming a choice for a rule that is off by default turns it on: asking for a fix and
        # silently getting nothing would be a trap. The target may turn a rule on or off by
        # what the model accepts (Rule.enabled_for); the policy has the last word.
        by_target = rule.enabled_for(target)
        default = rule.default_enabled if by_target is None else by_target
        enabled = rule.id in policy.enabled or rule.id in policy.choices or default
        if rule.id in policy.disabled or not enabled:
            continue
        choice = policy.choices.get(rule.id, rule.choices[0])
        keep = choice == KEEP
        steps.append((rule, rule.choices[0] if keep else choice, keep, *_split_needs(rule)))
    guards = tuple(rule for rule, *_ in steps if rule.may_protect)
    verdict = _verdict(steps)
    quick = quick_terms(verdict)
    renamer = None if quick is None else _plain_renamer(steps, quick, bool(guards))
    dropper = None if quick is None else _plain_dropper(steps, quick, renamer, bool(guards))
    profile = get_profile(target.provider)
    return _Plan(tuple(steps), guards, profile, verdict, quick, renamer, dropper)


DropReason = Callable[[Mapping[str, Any] | None], "str | None"]
"""Why a dropping rule removes a reasoning part whose provider options are the argument (None
when it keeps it)."""


class _Dropping(Protocol):
    """A rule that removes reasoning parts by their provider options alone."""

    def drop_reason(self, options: Mapping[str, Any] | None) -> str | None: ...


_LISTING_DROPPERS: tuple[tuple[str, str, type[Rule]], ...] = (
    ("rejected_reasoning", "any_reasoning", RejectedReasoning),
    ("google_signatures", "google_unissued_signatures", GoogleForeignThoughtSignature),
    ("reasoning_items", "non_item_reasoning", OpenAIForeignReasoning),
)
"""The quick terms under which the walk lists the reasoning parts one rule removes by their
options (:class:`_Dropping`): each term, the fact that rule needs, and its class."""


def _plain_dropper(
    steps: Sequence[_Step],
    quick: QuickTerms,
    renamer: tuple[tuple[int, ...], QuickTerms] | None,
    guarded: bool,
) -> tuple[int, Rule, DropReason] | None:
    """The plan's step that removes reasoning parts by their options (other providers', or
    every one), applied with its one choice, when the engine may make its removals without the
    index (:func:`_dropped_plainly`), with
    the reason it gives a part; None otherwise. Its records come before or after those of
    every renaming step (the engine puts them there).

    Anthropic's ``anthropic-strip-foreign-reasoning-content``: the quick terms ask for
    reasoning signed by its platform alone, where a Claude model puts it (so the walk lists
    the foreign parts, each first in its message and followed by a text or a call), and every
    other step that needs reasoning unsigned by that platform is its unsigned-reasoning rule,
    which leaves foreign parts to it. Bedrock's ``bedrock-unsigned-reasoning`` likewise, an
    unsigned-reasoning rule that removes foreign parts itself (its facts word them), the only
    step that needs reasoning unsigned by Bedrock.

    An API that takes no reasoning (``RejectedReasoning``: Groq's, Cerebras'), in a plan
    without guards: the walk lists every reasoning part (:attr:`QuickTerms.
    rejected_reasoning`), in a message that ends with a text or a call, and no other step
    reads reasoning but by its characters (ASCII, for the walk).

    Google's ``google-foreign-thought-signature``, in a plan without guards (no message is
    protected): the quick terms read Gemini's signatures (:attr:`QuickTerms.google_signatures`,
    so the walk lists the reasoning of no Google namespace, not empty, in a message that keeps
    a text or a call, and finds every other part as that rule keeps it), no other step needs
    them, and none reads reasoning but by its emptiness (``google-empty-part``, which the walk
    answers for every reasoning part) or its characters (ASCII, for the walk).

    OpenAI Responses' ``openai-foreign-reasoning``, in a plan without guards: the quick terms
    read reasoning as items (:attr:`QuickTerms.reasoning_items`, so the walk lists the
    reasoning that is no OpenAI item, in a message that ends with a text or a call, and finds
    the items as the item rules keep them), no other step needs ``non_item_reasoning``, and
    the other item rules read items alone (an id, encrypted content), which the listed parts
    are not."""
    found: tuple[int, Rule, DropReason] | None = None
    if not quick.reasoning:
        return None
    listing = [(fact, cls) for term, fact, cls in _LISTING_DROPPERS if getattr(quick, term)]
    if listing:
        if (
            len(listing) > 1
            or guarded
            or not quick.assistant_options
            or quick.signed
            or quick.placed
            or quick.reasoned_calls
        ):
            return None
        name, cls = listing[0]
        reads = FACTS[name]
        for k, (rule, choice, keep, _lists, facts) in enumerate(steps):
            if reads not in facts:
                continue
            if type(rule) is not cls or keep or choice != rule.choices[0] or found is not None:
                return None
            found = (k, rule, cast(_Dropping, rule).drop_reason)
    elif quick.placed and len(quick.signed) == 1:
        unsigned = FACTS[f"{quick.signed[0]}_unsigned_reasoning"]
        for k, (rule, choice, keep, _lists, facts) in enumerate(steps):
            if unsigned not in facts:
                continue
            if (
                type(rule) is ForeignReasoning
                or (type(rule) is UnsignedReasoning and rule.facts.foreign is not None)
            ) and (not keep and choice == rule.choices[0]):
                assert isinstance(rule, ForeignReasoning | UnsignedReasoning)
                if rule.facts.signing.namespace != quick.signed[0] or found is not None:
                    return None
                found = (k, rule, partial(rule.options_drop_reason, beside_signed=False))
            elif not (
                type(rule) is UnsignedReasoning
                and rule.facts.signing.namespace == quick.signed[0]
                and rule.facts.foreign is None
            ):
                return None
    if found is None or renamer is None:
        return found
    k = found[0]
    steps_renaming = renamer[0]
    if all(r < k for r in steps_renaming) or all(r > k for r in steps_renaming):
        return found
    return None


_PLAIN_RENAMERS = frozenset({InvalidToolCallId, AnthropicToolIdFormat, MistralToolCallId})
"""The rules whose renamings the engine can make without the index (``renamed_ids``)."""


def _plain_renamer(
    steps: Sequence[_Step], quick: QuickTerms, guarded: bool
) -> tuple[tuple[int, ...], QuickTerms] | None:
    """The plan's steps of the rules that rename ids the target refuses (``invalid-tool-call-id``,
    its Anthropic alias, ``mistral-tool-call-id``) that are applied with their one choice, and
    the quick terms of the other steps' needs; None without such a step, or when those terms
    differ from the plan's (``quick``) in more than the ids' format, which those steps alone
    need, or when the plan has guards (``guarded``) and a renaming rule keeps off the messages
    they protect (they would decide which parts it renames)."""
    renaming = tuple(
        k
        for k, (rule, choice, keep, _lists, _facts) in enumerate(steps)
        if type(rule) in _PLAIN_RENAMERS and not keep and choice == rule.choices[0]
    )
    if not renaming or (guarded and not all(steps[k][0].edits_protected for k in renaming)):
        return None
    others = quick_terms(_verdict([step for k, step in enumerate(steps) if k not in renaming]))
    if (
        others is None
        or replace(others, valid_ids=quick.valid_ids, exact_ids=quick.exact_ids) != quick
    ):
        return None
    return renaming, others


def planned_rules(target: Target) -> tuple[Rule, ...]:
    """The rules :func:`heal_messages` runs for ``target`` under the default policy, with the
    registered rules and no others, at request scope: in their order (the plain verdicts
    compare the plan of a model with its provider's, :func:`heal._verdict.terms_for`)."""
    return tuple(step[0] for step in _plan_for(target, None, None, "request").steps)


def planned_quick_terms(rules: Iterable[Rule]) -> QuickTerms | None:
    """The quick terms of a plan of these ``rules`` (:func:`planned_rules`): what its quick
    verdict takes without the index (:class:`QuickTerms`: reasoning parts, keeping some and
    listing others for its dropper; a user's plain images, :attr:`QuickTerms.images`, and
    images given as files, :attr:`QuickTerms.files`). None: the plan has no quick verdict."""
    return quick_terms(_verdict([(rule, "", False, *_split_needs(rule)) for rule in rules]))


def _verdict(steps: Sequence[_Step]) -> tuple[frozenset[str], tuple[Fact, ...]] | None:
    """What the plan's rules need, all together (see ``_Plan.verdict``)."""
    lists: set[str] = set()
    facts: set[Fact] = set()
    for _, _, _, needed_lists, needed_facts in steps:
        if needed_lists is None:
            return None
        lists.update(needed_lists)
        facts.update(needed_facts)
    # FACTS is ordered cheapest first: the verdict stops at the first fact that holds.
    return frozenset(lists), tuple(fact for fact in FACTS.values() if fact in facts)


def _split_needs(rule: Rule) -> tuple[frozenset[str] | None, tuple[Fact, ...]]:
    """What ``rule`` needs (:func:`_needs`) as trigger lists and facts, the facts in the order
    of :data:`~heal.rules._index.FACTS` (cheapest first); None for the lists when it declares
    nothing."""
    needs = _needs(rule)
    if needs is None:
        return None, ()
    unknown = needs - NEEDS
    if unknown:
        raise ConfigError(
            f"rule {rule.id!r} needs {', '.join(map(repr, sorted(unknown)))}, which is not an "
            f"index fact; known: {', '.join(sorted(NEEDS))}"
        )
    return needs & TRIGGERS, tuple(fact for name, fact in FACTS.items() if name in needs)


def _needs(rule: Rule) -> frozenset[str] | None:
    """What ``rule`` needs to find anything: its own declaration, else its triggers."""
    return rule.triggers if rule.needs is None else rule.needs


# --- running ---------------------------------------------------------------------------------


PAUSE_GC_FROM = 2_000
"""Histories at least this long are healed with Python's cyclic garbage collector paused.

Healing allocates a few objects per repair, and all of them are acyclic: reference counting
frees every one that is not kept, so the cyclic collector has nothing of heal's to find. But it
is triggered by allocation counts, and each full collection rescans every live object in the
process, so a long history with thousands of problems made heal superlinear (80,000 messages
with a broken turn each: a third of the time went to full collections, and more the larger the
rest of the process). Below this size the collector rarely runs during a call and is left
alone. The pause is process-wide for the duration of the call: the collector is re-enabled on
return (or on an exception) only if it was enabled on entry, so a caller who disabled it keeps
it disabled.
"""


def _run_collector_paused(
    messages: list[ModelMessage], plan: _Plan, target: Target, plain: _PlainWays = "verdict"
) -> tuple[list[ModelMessage], tuple[Repair, ...]]:
    if len(messages) < PAUSE_GC_FROM or not gc.isenabled():
        return _run(messages, plan, target, plain)
    gc.disable()
    try:
        return _run(messages, plan, target, plain)
    finally:
        gc.enable()


def _context(
    work: list[ModelMessage],
    index: HistoryIndex,
    plan: _Plan,
    target: Target,
    messages: list[ModelMessage],
) -> Context:
    return Context(
        work, index, target.provider, plan.profile, plan.guards, target=target, original=messages
    )


def _run(
    messages: list[ModelMessage],
    plan: _Plan,
    target: Target,
    plain: _PlainWays = "verdict",
) -> tuple[list[ModelMessage], tuple[Repair, ...]]:
    """Run the plan's rules in order, over and over, until every rule has checked the current
    history without changing it.

    This is the pass loop (all rules in order; repeat while a pass changed something) without its
    redundant work: a rule that already checked exactly the current history is not asked again.
    After the last change of a pass, the rules after the one that made it have checked the final
    history, so the next pass stops before them; and the index built after an edit serves every
    rule until the next edit. Results, repairs and their order are the pass loop's exactly.

    First, as ``plain`` says, the quick verdict (:mod:`heal.rules._quick`): a plainly clean
    history is returned before the index is built; and the plain renaming, when the verdict
    stopped at ids the target refuses (or was not asked): one plain but for them is renamed
    without the index (:func:`_renamed_plainly`).
    """
    profile = plan.profile
    terms = plan.quick
    if terms is not None and plain != "none":
        renamer = plan.renamer
        # With a renamer, the walk reads past refused ids and gathers the call ids for it;
        # with a dropper, it lists other providers' reasoning.
        ids: list[str] | None = None if renamer is None else []
        drops: list[tuple[int, int]] | None = None if plan.dropper is None else []
        said = (
            quick_verdict(
                messages, terms, target, profile, past_ids=ids is not None, ids=ids, drops=drops
            )
            if plain == "verdict"
            else None
        )
        if said == CLEAN:
            return messages, ()  # plainly clean: the index would find the verdict below clean
        if drops:
            # Plain but for other providers' reasoning (and maybe refused ids); or not plain,
            # which a broken history nearly always is after such a part.
            if said in (DROPS, REFUSED_IDS):
                dropped = _dropped_plainly(
                    messages, plan, target, drops, ids if said == REFUSED_IDS else None
                )
                if dropped is not None:
                    return dropped
        # The renaming, when the walk found the history plain but for its ids (a broken
        # history goes to the index without a second walk), or when asked for it alone.
        elif renamer is not None and said != NOT_PLAIN:
            renamed = _renamed_plainly(
                messages, plan, renamer, target, ids=ids if said == REFUSED_IDS else None
            )
            if renamed is not None:
                return renamed
    steps = plan.steps
    n_steps = len(steps)
    work = messages
    origin: _Origin | None = None
    repairs: list[Repair] = []
    # The reports (kept or unfixable findings) of each rule's latest check; once every rule has
    # checked the final history, these are its reports, in rule order.
    reports: list[list[Repair] | None] = [None] * n_steps
    guards = plan.guards
    index = HistoryIndex(work)
    verdict = plan.verdict
    if verdict is not None and index.clean(*verdict, target, profile):
        return messages, ()  # no rule of the plan can find anything
    ctx = _context(work, index, plan, target, messages)
    unchanged_for = 0  # how many rules in a row have checked the current history
    budget = MAX_PASSES * n_steps
    k = 0
    while unchanged_for < n_steps:
        if budget == 0:
            raise ConvergenceError(
                f"the history still changed after {MAX_PASSES} passes; last repairs: "
                + "; ".join(r.describe() for r in repairs[-5:])
            )
        budget -= 1
        rule, choice, keep, lists, facts = steps[k]
        unchanged_for += 1
        reports[k] = None
        # A rule none of whose needs holds (its triggers all absent, or the facts it declares
        # all false) cannot find anything: skip the call.
        checked = (
            rule.check(ctx, choice)
            if lists is None
            or not lists.isdisjoint(index.present)
            or (facts and index.holds(facts, target, profile))
            else None
        )
        kind = _BATCHES.get(type(checked))
        if (
            kind is not None
            and checked
            and (rule.edits_protected or not guards or not ctx.protected)
        ):
            # A batch of findings of one kind: its records and edits in one loop (the same as
            # iterating its findings; see IdRenames).
            if origin is None:
                origin = _Origin(work)
            records_of, action, apply = kind
            records = records_of(rule, checked, origin, _KEEP if keep else action)
            if keep:
                reports[k] = records
            else:
                repairs.extend(records)
                reports[k] = []
                work, origin, index = apply(work, origin, index, checked)
                if verdict is not None and index.clean(*verdict, target, profile):
                    reports = []
                    break
                ctx = _context(work, index, plan, target, messages)
                unchanged_for = 0
            k = k + 1 if k + 1 < n_steps else 0
            continue
        # Each finding made into its record as it comes, and let go: a history with a repair
        # in every turn would otherwise hold every finding (and the JSON it records) at once.
        # The rule reads the history as it is until the edits are applied, after the loop.
        if checked is None:
            k = k + 1 if k + 1 < n_steps else 0
            continue
        found: list[Repair] | None = None
        edits: list[Edit]
        for finding in checked:
            if found is None:
                found, edits = [], []
                if origin is None:
                    origin = _Origin(work)
                record_of = origin.repair
            action = _KEEP if keep else finding.action
            record = record_of(rule, finding, action)
            if action in _NOT_APPLIED:
                found.append(record)
            else:
                repairs.append(record)
                edits.extend(finding.edits)
        if found is not None:
            reports[k] = found
            if edits:
                assert origin is not None  # made with the first finding
                if guards and not rule.edits_protected and ctx.protected:
                    _check_unprotected(rule, ctx.protected, edits)
                work, origin, runs = _apply(work, origin, edits)
                index = index.after_edit(work, runs, _renames(edits), _reasoning_added(edits))
                if verdict is not None and index.clean(*verdict, target, profile):
                    # No rule can find anything in the edited history: every check the pass
                    # loop would still make finds nothing, and reports nothing.
                    reports = []
                    break
                ctx = _context(work, index, plan, target, messages)
                unchanged_for = 0
        k = k + 1 if k + 1 < n_steps else 0
    for kept in reports:
        if kept:
            repairs.extend(kept)
    return (messages if work is messages else work), tuple(repairs)


_KEEP = Action.KEEP
_NOT_APPLIED = (Action.KEEP, Action.REPORT)
"""The actions of findings reported, not applied (module constants: a batch of findings is
sorted one by one)."""


def _rename_records(rule: Rule, batch: IdRenames, origin: _Origin, action: Action) -> list[Repair]:
    """The records of a batch of renamed ids: those of its findings (``renamed_id_finding``),
    as :meth:`_Origin.repair` makes them, without the findings."""
    whys = batch.whys
    if (
        id(rule) not in _BUILTIN_RULES
        or not batch.why.isascii()
        or (whys is not None and not all(map(str.isascii, whys)))
    ):
        record_of = origin.repair
        return [record_of(rule, f, action) for f in batch]
    rule_id, scope, why = rule.id, rule.scope, batch.why
    msgs, anchors, parts = origin.msgs, origin.anchors, origin.parts
    records = []
    next_why = None if whys is None else iter(whys).__next__  # one per rename, in order
    for m, p, part, new_id in batch.renames:
        if next_why is not None:
            why = next_why()
        fields = part.__dict__
        old = fields["tool_call_id"]
        if not (old + new_id).isascii():  # a built-in rule's ids: str
            # Text to escape: as the finding's record is made.
            records.append(origin.repair(rule, renamed_id_finding(m, p, part, new_id, why), action))
            continue
        # Where the part sat in the input (see _Origin.part).
        locs = parts[m]
        anchor = part_index = None
        if locs is None:
            message_index = msgs[m]
            if message_index is None:
                anchor = anchors[m]
            else:
                part_index = p
        else:
            loc = locs[p] if p < len(locs) else None
            if loc is None:
                message_index = None
                anchor = anchors[m]
            else:
                message_index, part_index = loc
        records.append(
            rename_record(
                (rule_id, scope, action, why),
                (message_index, part_index, anchor),
                fields["type"],
                old,
                new_id,
            )
        )
    return records


def rename_record(
    by: tuple[str, Scope, Action, str],
    where: tuple[int | None, int | None, int | None],
    kind: str,
    old: str,
    new_id: str,
) -> Repair:
    """The record of one renamed id of a built-in rule, as :meth:`_Origin.repair` makes it from
    its finding (``renamed_id_finding``), for ASCII ids and reason: ``by`` is the rule's id and
    scope, the action and what is wrong with ``old`` (the rule's ``renamed_why``), ``where``
    the message, part and anchor index, ``kind`` the part's type (``tool-call``, ...). Its
    arguments positional: one call per renamed part."""
    rule_id, scope, action, why = by
    message_index, part_index, anchor = where
    # construct_complete's record, built in line (_renamed_once builds the same).
    record = new_instance(Repair)
    set_dict(
        record,
        {
            "rule": rule_id,
            "action": action,
            "message_index": message_index,
            "part_index": part_index,
            "anchor_index": anchor,
            "tool_call_id": old,
            "reason": f"{kind} id {old!r} {why}; now {new_id!r}",
            "removed": {"toolCallId": old},
            "added": {"toolCallId": new_id},
            "scope": scope,
        },
    )
    set_fields(record, _REPAIR_FIELDS)
    set_extra(record, None)
    set_private(record, None)
    return record


def _renamed_plainly(
    messages: list[ModelMessage],
    plan: _Plan,
    renamer: tuple[tuple[int, ...], QuickTerms],
    target: Target,
    *,
    ids: list[str] | None = None,
) -> tuple[list[ModelMessage], tuple[Repair, ...]] | None:
    """What :func:`_run` returns for a history that is plain but for ids the target refuses (a
    history moved to Mistral, or holding Kimi's ids), made without the index; None to leave
    the history to the index, which then decides as always.

    The history passes the quick verdict of every other step's needs (``others``), so the
    index would skip every other step and run the renaming steps alone, in plan order, each on
    the history the one before left, until its verdict is clean. Each renaming rule's
    ``renamed_ids`` makes the renaming its ``check`` makes from the index, and the batch holds
    the parts with an id listed here (those the walk lets pass: calls and results of their own
    classes), as the check's does. Those terms are the plan's but for the ids' format, and the
    walk reads ids only for their format and for which parts share one; a batch maps each
    refused id to its own new one and leaves no two ids equal that were not, so every other
    step still finds nothing after it. Once
    every id is in the format the plan's verdict asks for, the renamed history passes the
    plan's quick verdict: the index would find it clean there and stop. If the last renaming
    step leaves an id still refused, the index decides. The same messages and records, made
    without the scan, its facts and its update; ``tests/test_quick.py`` holds the two ways to
    one result.

    ``ids``: the history's call ids, when the caller's quick verdict, which read past the
    refused ones, found it plain but for them (``quick_verdict(..., past_ids=True, ids=ids)``
    said ``REFUSED_IDS``): that is the walk of ``others`` finding it clean, so it is not walked
    again. A result's id is a call's in a history so plain.

    The messages and records are made in one pass over the history: each part with a
    renamed id is copied once, with the id the last rule gives it, and each rule's records
    come together, in history order, before the next rule's."""
    steps, others = renamer
    profile = plan.profile
    if ids is None:
        ids = []
        if quick_verdict(messages, others, target, profile, ids=ids) != CLEAN:
            return None
    renamed = _id_renames(plan, steps, set(ids))
    if renamed is None:
        return None
    chain = renamed[0]
    # The records of each rule in turn; made here as the engine makes a rule's record of its
    # finding (renamed_id_finding), through the finding when text must be escaped.
    made: list[list[Repair]] = [[] for _ in chain]
    plainly = [
        id(rule) in _BUILTIN_RULES
        and rule.renamed_why.isascii()
        and "".join(mapping).isascii()
        and "".join(mapping.values()).isascii()
        for rule, mapping in chain
    ]
    replace = Action.REPLACE
    by = [(rule.id, rule.scope, replace, rule.renamed_why) for rule, _ in chain]
    if len(chain) == 1 and plainly[0]:
        return _renamed_once(messages, by[0], chain[0][1])
    origin: _Origin | None = None
    call_cls, result_cls = ToolCallPart, ToolResultPart
    out = list(messages)
    m = -1
    for message in messages:
        m += 1
        content = message.__dict__["content"]
        if type(content) is str:
            continue
        parts: list[Part] | None = None
        p = -1
        for part in content:
            p += 1
            if type(part) is not call_cls and type(part) is not result_cls:
                continue
            fields = part.__dict__
            old = now = fields["tool_call_id"]
            k = -1
            for rule, mapping in chain:
                k += 1
                new_id = mapping.get(now)
                if new_id is None:
                    continue
                if plainly[k]:
                    record = rename_record(
                        by[k],
                        (m, p, None),  # each part in its place in the input
                        fields["type"],
                        now,
                        new_id,
                    )
                else:
                    if origin is None:
                        origin = _Origin(messages)
                    shown = part if now == old else with_field(part, "tool_call_id", now)
                    finding = renamed_id_finding(m, p, shown, new_id, rule.renamed_why)
                    record = origin.repair(rule, finding, replace)
                made[k].append(record)
                now = new_id
            if now != old:
                if parts is None:
                    parts = list(content)
                parts[p] = with_field(part, "tool_call_id", now)
        if parts is not None:
            out[m] = with_field(message, "content", tuple(parts))
    records = made[0] if len(made) == 1 else [record for batch in made for record in batch]
    return out, tuple(records)


def _renamed_once(
    messages: list[ModelMessage], by: tuple[str, Scope, Action, str], mapping: dict[str, str]
) -> tuple[list[ModelMessage], tuple[Repair, ...]]:
    """:func:`_renamed_plainly`'s pass for a chain of one rule whose records need no escape
    (ASCII ids and reason): nearly every renamed history, one moved to Mistral or holding
    Kimi's ids. The same messages and records, each part, message and record built in line
    (a history moved to Mistral renames every id and copies most of its messages).
    ``tests/test_quick.py`` holds them to the index's way."""
    rule_id, scope, action, why = by
    get = mapping.get
    call_cls, result_cls = ToolCallPart, ToolResultPart
    user_cls, assistant_cls, tool_cls = UserMessage, AssistantMessage, ToolMessage
    record_fields = _REPAIR_FIELDS
    records: list[Repair] = []
    out = list(messages)
    m = -1
    for message in messages:
        m += 1
        content = message.__dict__["content"]
        if type(content) is str:
            continue
        parts: list[Part] | None = None
        p = -1
        for part in content:
            p += 1
            cls = type(part)
            if cls is not call_cls and cls is not result_cls:
                continue
            fields = part.__dict__
            old = fields["tool_call_id"]
            new_id = get(old)
            if new_id is None:
                continue
            # rename_record's record and with_field's copy of the part, in line: a call for
            # each costs a fifth of the renaming (Mistral renames every call and result).
            record = new_instance(Repair)
            set_dict(
                record,
                {
                    "rule": rule_id,
                    "action": action,
                    "message_index": m,
                    "part_index": p,
                    "anchor_index": None,
                    "tool_call_id": old,
                    "reason": f"{fields['type']} id {old!r} {why}; now {new_id!r}",
                    "removed": {"toolCallId": old},
                    "added": {"toolCallId": new_id},
                    "scope": scope,
                },
            )
            set_fields(record, record_fields)
            set_extra(record, None)
            set_private(record, None)
            records.append(record)
            data = fields.copy()
            data["tool_call_id"] = new_id
            copy = new_instance(cls)
            set_dict(copy, data)
            extra = part.__pydantic_extra__
            set_extra(copy, None if extra is None else extra.copy())
            fields_set = part.__pydantic_fields_set__
            set_fields(
                copy, fields_set if "tool_call_id" in fields_set else fields_set | {"tool_call_id"}
            )
            set_private(copy, None)
            if parts is None:
                parts = list(content)
            parts[p] = copy
        if parts is None:
            continue
        cls = type(message)
        if cls is not user_cls and cls is not assistant_cls and cls is not tool_cls:
            out[m] = with_field(message, "content", tuple(parts))  # a subclass: pydantic's copy
            continue
        # with_field's copy of one of heal's messages.
        data = message.__dict__.copy()
        data["content"] = tuple(parts)
        copy = new_instance(cls)
        set_dict(copy, data)
        extra = message.__pydantic_extra__
        set_extra(copy, None if extra is None else extra.copy())
        fields_set = message.__pydantic_fields_set__
        set_fields(copy, fields_set if "content" in fields_set else fields_set | {"content"})
        set_private(copy, None)
        out[m] = copy
    return out, tuple(records)


def _dropped_plainly(
    messages: list[ModelMessage],
    plan: _Plan,
    target: Target,
    drops: list[tuple[int, int]],
    ids: list[str] | None,
) -> tuple[list[ModelMessage], tuple[Repair, ...]] | None:
    """What :func:`_run` returns for a history plain but for other providers' reasoning (the
    parts at ``drops``, which the quick verdict listed) and maybe for ids the target refuses
    (``ids``, gathered by the same walk), made without the index: a conversation moved to
    Anthropic, Bedrock, Gemini or the Responses API from another of them, or any reasoning sent
    to an API that takes none (Groq, Cerebras). None to leave it to the index.

    For Anthropic, the walk found every other part plain, the foreign reasoning ASCII and each
    part first in its message and followed there by a text or a call, and no signed reasoning:
    so of the plan's rules only the dropper (``_Plan.dropper``) and the unsigned-reasoning rule,
    which leaves foreign parts to it, find anything in the reasoning, nothing is protected, and
    no message is left empty or ends with reasoning once the parts are gone. For Bedrock
    likewise, its unsigned-reasoning rule being the dropper (the walk lists other providers'
    reasoning alone, which that rule words as such; a part unsigned otherwise is not plain).
    For Google, it found the foreign reasoning ASCII and not empty, in a message that ends with
    a text or a call, and every other part as ``google-foreign-thought-signature`` (the
    dropper) keeps it, in a plan without guards: no other rule reads reasoning but by its
    emptiness or its characters, and no message is left empty. For the Responses API,
    likewise: the foreign reasoning is no OpenAI item, which no item rule reads, and the items
    are as they keep them. For Groq and Cerebras every reasoning part goes, each in a message
    that keeps a text or a call. The index would run the dropper and the id rules alone, each
    once, in plan order, and stop: the history they leave is plainly clean. Renaming keeps
    every part in its place and removing reasoning changes no id, so the two are made in either
    order, each record naming its part's place in the input; each rule's records come in plan
    order. ``tests/test_quick.py`` holds the two ways to one result."""
    dropper = plan.dropper
    assert dropper is not None  # the walk lists drops for such a plan only
    k, rule, why = dropper
    out = messages
    renamed: tuple[Repair, ...] = ()
    renamer = plan.renamer
    if ids is not None:
        if renamer is None:
            return None
        plainly = _renamed_plainly(messages, plan, renamer, target, ids=ids)
        if plainly is None:
            return None
        out, renamed = plainly
    gone: list[tuple[int, int, Part, str]] = []
    for m, p in drops:
        part: Part = messages[m].__dict__["content"][p]  # a reasoning part, in a list of parts
        reason = why(part.provider_options)
        assert reason is not None  # the walk listed another provider's reasoning alone
        gone.append((m, p, part, reason))
    records = _drop_records(rule, DroppedParts(gone), _Origin(messages), Action.REMOVE)
    out = _without_parts(out, _places(gone))[0]
    if renamed and renamer is not None and renamer[0][0] > k:  # the dropper runs first
        return out, (*records, *renamed)
    return out, (*renamed, *records)


IdRule = InvalidToolCallId | MistralToolCallId
"""The rules whose renamings the engine makes without the index (see :data:`_PLAIN_RENAMERS`)."""


def _id_renames(
    plan: _Plan, steps: tuple[int, ...], ids: set[str]
) -> tuple[list[tuple[IdRule, dict[str, str]]], set[str]] | None:
    """The renamings the plan's id rules (its ``steps``) make, in order, of a history plain
    but for its ``ids`` (all of them; see :func:`_renamed_plainly`): each rule's of the ids the
    ones before left, up to the first that leaves every id in the format the plan's verdict
    asks for, and the ids they leave; None when there is nothing to rename, or ids still
    refused after the last."""
    profile = plan.profile
    assert plan.quick is not None  # a plan with a renamer has quick terms (_cached_plan)
    accepted = (
        profile.all_accepted_tool_call_ids
        if plan.quick.exact_ids
        else profile.all_valid_tool_call_ids
    )
    chain: list[tuple[IdRule, dict[str, str]]] = []
    for k in steps:
        rule = plan.steps[k][0]
        assert isinstance(rule, (InvalidToolCallId, MistralToolCallId))  # see _PLAIN_RENAMERS
        mapping = rule.renamed_ids(ids, profile)
        if mapping is None:
            continue
        chain.append((rule, mapping))
        ids = {mapping.get(tid, tid) for tid in ids}
        if accepted(ids):
            return chain, ids
    return None


IdChain = list[tuple[tuple[str, Scope, Action, str], dict[str, str]]]
"""The renamings of :func:`plain_id_chain`: each id rule's record terms (its id and scope, the
action and its ``renamed_why``, as :func:`rename_record` takes them) with its map of old id to
new, in the order the rules run, each on the ids the one before left."""


def plain_id_chain(ids: set[str], target: Target) -> IdChain | None:
    """The renamings :func:`heal_messages` makes of a history's tool-call ids under the
    default policy and rules, at request scope, for ``target``, given the set of every id the
    history holds: each id rule's map, in order (see :data:`IdChain`). None when there is no id
    to rename, the plan renames no ids without the index, or they are still refused after its
    last id rule (by the plan's verdict, or by the provider's profile, which the formats'
    verdicts ask).

    They are its renamings only for a history that, so renamed, is plainly clean for the target
    (a format's verdict says so): the caller checks that. Then only the facts that read what
    ids are can differ between the two (the renamings are one to one), and only the id rules
    need those, so the index would run them alone, each on the ids the one before left, up to
    the first that leaves them all accepted. Each rule records its renamed parts together, in
    history order, before the next rule's (:class:`IdRenamer` makes the records)."""
    plan = _plan_for(target, None, None, "request")
    renamer = plan.renamer
    if renamer is None or renamer[1].valid_ids or renamer[1].exact_ids:
        return None  # another step reads what ids are: it would find the refused ones too
    renamed = _id_renames(plan, renamer[0], ids)
    if renamed is None:
        return None
    chain, ids = renamed
    # The formats' verdicts ask the profile of every id: so must the renamed ones pass (the
    # plan's verdict asked the shared rule only, unless it asks for an exact format).
    assert plan.quick is not None  # a plan with a renamer has quick terms (_cached_plan)
    profile = plan.profile
    if (
        not plan.quick.exact_ids
        and profile.tool_call_id_exact_pattern is not None  # else _id_renames asked the same
        and not profile.all_accepted_tool_call_ids(ids)
    ):
        return None
    replace = Action.REPLACE
    return [((rule.id, rule.scope, replace, rule.renamed_why), mapping) for rule, mapping in chain]


class IdRenamer:
    """The renamings :func:`heal_messages` makes of a history's tool-call ids
    (:func:`plain_id_chain`), for a format that renames them in the caller's own data: it
    passes each part with an id to :meth:`renamed`, in the order of the history's canonical
    parts, and gets its new id; :meth:`records` are then the engine's records of them."""

    __slots__ = ("_chain", "_made", "_only", "touched")

    def __init__(self, chain: IdChain) -> None:
        self._chain = chain
        self._made: list[list[Repair]] = [[] for _ in chain]
        self.touched: frozenset[str] = frozenset().union(*(mapping for _, mapping in chain))
        """The ids some rule renames: :meth:`renamed` gives any other back as it is."""
        # A chain of one rule (nearly every one): its terms, map and records, for renamed.
        self._only = (*chain[0], self._made[0]) if len(chain) == 1 else None

    @classmethod
    def of(cls, ids: Iterable[str], target: Target) -> IdRenamer | None:
        """The renamer of a history whose call ids are ``ids`` (as a format's verdict gathered
        them: every result's id is its call's), when :func:`plain_id_chain` renames them and
        they are ASCII (the full path escapes others in its records); else None."""
        known = set(ids)
        if not "".join(known).isascii():
            return None
        chain = plain_id_chain(known, target)
        return None if chain is None else cls(chain)

    def renamed(
        self, where: tuple[int | None, int | None, int | None], kind: str, tool_call_id: str
    ) -> str:
        """The new id of the part at ``where`` (its record's message, part and anchor index),
        of type ``kind`` (``tool-call``, ``tool-result``), whose id is ``tool_call_id``, which
        the history's ids held (the same id when no rule renames it); each rule that renames
        it makes its record."""
        only = self._only
        if only is not None:
            by, mapping, made = only
            new_id = mapping.get(tool_call_id)
            if new_id is None:
                return tool_call_id
            made.append(rename_record(by, where, kind, tool_call_id, new_id))
            return new_id
        now = tool_call_id
        k = -1
        for by, mapping in self._chain:
            k += 1
            new_id = mapping.get(now)
            if new_id is not None:
                self._made[k].append(rename_record(by, where, kind, now, new_id))
                now = new_id
        return now

    def records(self) -> tuple[Repair, ...]:
        """The records of the parts renamed so far: each rule's together, in the order they
        were passed, before the next rule's (as the engine runs one rule after the other)."""
        made = self._made
        return tuple(made[0]) if len(made) == 1 else tuple(r for batch in made for r in batch)


def _renamed(
    messages: list[ModelMessage], renames: list[tuple[int, int, IdPart, str]]
) -> tuple[list[ModelMessage], dict[int, list[Part]]]:
    """``messages`` with each of ``renames`` (message, part, old part, new id) made, and the
    new parts of each message changed."""
    out = list(messages)
    edited: dict[int, list[Part]] = {}
    for m, p, part, new_id in renames:
        new = with_field(part, "tool_call_id", new_id)
        content = edited.get(m)
        if content is None:
            # A part with an id is in a list of parts, never in text content.
            content = edited[m] = list(messages[m].content)  # type: ignore[arg-type]
        content[p] = new
    for m, content in edited.items():
        out[m] = with_field(messages[m], "content", tuple(content))
    return out, edited


def _apply_renames(
    messages: list[ModelMessage], origin: _Origin, index: HistoryIndex, batch: IdRenames
) -> tuple[list[ModelMessage], _Origin, HistoryIndex]:
    """:func:`_apply` for a batch of renamed ids, and the index of the history it makes. Every
    part keeps its place, so the origin holds as it is."""
    renames = batch.renames
    out, edited = _renamed(messages, renames)
    places: list[tuple[int, int, Part]] = [(m, p, edited[m][p]) for m, p, _, _ in renames]
    kept = _kept_runs(sorted(edited), len(out))
    return out, origin, index.after_edit(out, kept, places, ids_one_to_one=batch.one_to_one)


def _insert_records(
    rule: Rule, batch: PartsAtStart, origin: _Origin, action: Action
) -> list[Repair]:
    """The records of a batch of parts put at the start of messages: those of its findings, as
    :meth:`_Origin.repair` makes them, without the findings."""
    reason = batch.reason
    if id(rule) not in _BUILTIN_RULES or not reason.isascii():
        record_of = origin.repair
        return [record_of(rule, f, action) for f in batch]
    rule_id, scope, added = rule.id, rule.scope, batch.added
    fresh = added.make if type(added) is FreshJson else None
    msgs, anchors = origin.msgs, origin.anchors
    return [
        construct_complete(
            Repair,
            _REPAIR_FIELDS,
            {
                "rule": rule_id,
                "action": action,
                "message_index": msgs[m],
                "part_index": None,
                "anchor_index": anchors[m],  # the finding's anchor: its own message
                "tool_call_id": None,
                "reason": reason,
                "removed": None,
                "added": _to_json(added) if fresh is None else fresh(),
                "scope": scope,
            },
        )
        for m in batch.messages
    ]


def _apply_at_start(
    messages: list[ModelMessage], origin: _Origin, index: HistoryIndex, batch: PartsAtStart
) -> tuple[list[ModelMessage], _Origin, HistoryIndex]:
    """:func:`_apply` for a batch of parts put at the start of messages, and the index of the
    history it makes (told of added reasoning, as by ``_reasoning_added``)."""
    part = batch.part
    out = list(messages)
    msgs = origin.msgs
    parts = list(origin.parts)
    for m in batch.messages:
        content = messages[m].content
        parts[m] = (None, *_part_locations(parts[m], msgs[m], len(content)))
        out[m] = with_field(messages[m], "content", (part, *content))
    new = _Origin.__new__(_Origin)
    new.msgs, new.anchors, new.parts = msgs, origin.anchors, parts
    added = dict.fromkeys(batch.messages, 1) if type(part) is ReasoningPart else None
    return out, new, index.after_edit(out, _kept_runs(batch.messages, len(out)), None, added)


def _drop_records(rule: Rule, batch: DroppedParts, origin: _Origin, action: Action) -> list[Repair]:
    """The records of a batch of removed parts: those of its findings, as
    :meth:`_Origin.repair` makes them, without the findings."""
    if id(rule) not in _BUILTIN_RULES:
        record_of = origin.repair
        return [record_of(rule, f, action) for f in batch]
    by = (rule.id, rule.scope, action)
    located, anchors = origin.part, origin.anchors
    records = []
    for m, p, part, reason in batch.drops:
        loc = located(m, p)
        where = (None, None, anchors[m]) if loc is None else (loc[0], loc[1], None)
        records.append(drop_record(by, where, _to_json(part), reason))
    return records


def drop_record(
    by: tuple[str, Scope, Action],
    where: tuple[int | None, int | None, int | None],
    removed: JsonValue,
    reason: str,
) -> Repair:
    """The record of one part a built-in rule removed, as :meth:`_Origin.repair` makes it from
    its finding: ``by`` is the rule's id and scope and the action, ``where`` the message, part
    and anchor index, ``removed`` the part as JSON (:func:`_to_json` of its model, or its
    canonical decoded dict), ``reason`` the finding's."""
    # construct_complete's record, built in line (as rename_record builds its own).
    record = new_instance(Repair)
    set_dict(
        record,
        {
            "rule": by[0],
            "action": by[2],
            "message_index": where[0],
            "part_index": where[1],
            "anchor_index": where[2],
            "tool_call_id": None,
            "reason": reason if reason.isascii() else escaped_json(reason),
            "removed": removed,
            "added": None,
            "scope": by[1],
        },
    )
    set_fields(record, _REPAIR_FIELDS)
    set_extra(record, None)
    set_private(record, None)
    return record


@dataclass(frozen=True, slots=True)
class PlainDropper:
    """How :func:`heal_messages` removes other providers' reasoning for a target, for a format
    that removes it from the caller's own data (:func:`plain_dropper`)."""

    by: tuple[str, Scope, Action]
    """The rule's id and scope, and the action, as :func:`drop_record` takes them."""
    reason: Callable[[Mapping[str, Any] | None], str | None]
    """The reason of the record of a part whose provider options are these (None: the rule
    keeps the part)."""
    first: bool
    """Whether its records come before those of the id rules' renamings (else after)."""


def plain_dropper(target: Target) -> PlainDropper | None:
    """How :func:`heal_messages` removes other providers' reasoning for ``target`` (under the
    default policy and rules, at request scope), for :func:`heal.heal_json`, which removes such
    parts from the decoded text when its verdict found the history plain but for them (and its
    ids); None when the plan has no such rule, or one whose records would fall between the
    renamings'.

    Anthropic's ``anthropic-strip-foreign-reasoning-content`` where the engine removes it
    without the index (``_Plan.dropper``; :func:`_dropped_plainly`'s reasoning holds for the
    decoded text, whose walk reads Anthropic's thinking as the quick verdict does). In a plan
    without guards (no message is protected), OpenAI Responses' ``openai-foreign-reasoning``
    and Google's ``google-foreign-thought-signature``: the verdict of a target whose rules read
    reasoning as items alone (``heal._json._items_plain``), or as Google's signatures alone
    (``heal._json._scan``), lists the reasoning parts of no namespace of the provider's, finds
    every other part as those rules keep it, and the history without them plain, which the
    rules after the dropping one then leave as it is; the rules before it read no reasoning."""
    plan = _plan_for(target, None, None, "request")
    found: tuple[int, Rule, DropReason] | None = plan.dropper
    if found is None and not plan.guards:
        for k, (step, choice, keep, _lists, _facts) in enumerate(plan.steps):
            if (
                type(step) in {OpenAIForeignReasoning, GoogleForeignThoughtSignature}
                and not keep
                and choice == step.choices[0]
            ):
                assert isinstance(step, OpenAIForeignReasoning | GoogleForeignThoughtSignature)
                found = (k, step, step.drop_reason)
                break
    if found is None:
        return None
    k, rule, reason = found
    renaming = () if plan.renamer is None else plan.renamer[0]
    if all(r > k for r in renaming):
        first = True
    elif all(r < k for r in renaming):
        first = False
    else:
        return None
    return PlainDropper((rule.id, rule.scope, Action.REMOVE), reason, first)


def _apply_drops(
    messages: list[ModelMessage], origin: _Origin, index: HistoryIndex, batch: DroppedParts
) -> tuple[list[ModelMessage], _Origin, HistoryIndex]:
    """:func:`_apply` for a batch of removed parts, and the index of the history it makes."""
    dropped = _places(batch.drops)
    out, edited = _without_parts(messages, dropped)
    msgs = origin.msgs
    parts = list(origin.parts)
    for m in edited:
        gone = dropped[m]
        locs = _part_locations(parts[m], msgs[m], len(messages[m].content))
        if len(gone) == 1:
            (p,) = gone
            parts[m] = locs[:p] + locs[p + 1 :]
        else:
            parts[m] = tuple(loc for p, loc in enumerate(locs) if p not in gone)
    new = _Origin.__new__(_Origin)
    new.msgs, new.anchors, new.parts = msgs, origin.anchors, parts
    return out, new, index.after_edit(out, _kept_runs(edited, len(out)), reasoning_dropped=dropped)


def _places(drops: Iterable[tuple[int, int, Part, str]]) -> dict[int, set[int]]:
    """The parts of a batch of removals, as the place of each in its message, by message."""
    dropped: dict[int, set[int]] = {}
    for m, p, _, _ in drops:
        places = dropped.get(m)
        if places is None:
            dropped[m] = {p}
        else:
            places.add(p)
    return dropped


def _without_parts(
    messages: list[ModelMessage], dropped: dict[int, set[int]]
) -> tuple[list[ModelMessage], list[int]]:
    """``messages`` without the parts at ``dropped`` (each message's a copy), and the messages
    edited, in order."""
    out = list(messages)
    edited = sorted(dropped)
    for m in edited:
        gone = dropped[m]
        message = messages[m]
        # A part to remove is in a list of parts, never in text content.
        content: tuple[Part, ...] = message.__dict__["content"]
        if len(gone) == 1 and type(content) is tuple:  # nearly always: two slices
            (p,) = gone
            out[m] = with_field(message, "content", content[:p] + content[p + 1 :])
        else:
            out[m] = with_field(
                message, "content", tuple(x for p, x in enumerate(content) if p not in gone)
            )
    return out, edited


def _kept_runs(edited: Sequence[int], n: int) -> list[tuple[int, int, int]]:
    """The runs of a history of ``n`` messages that an edit of the messages ``edited`` (in
    order, each a new message, none added or removed) carries over as they are, as
    :meth:`HistoryIndex.after_edit` takes them."""
    kept: list[tuple[int, int, int]] = []
    start = 0
    for m in edited:
        if m > start:
            kept.append((start, start, m - start))
        start = m + 1
    if start < n:
        kept.append((start, start, n - start))
    return kept


def _part_locations(
    locs: tuple[_Loc | None, ...] | None, mi: int | None, n: int
) -> tuple[_Loc | None, ...]:
    """The input location of each of the ``n`` parts of a message: ``locs`` (its
    :attr:`_Origin.parts`) with None past the known ones, or, when None, each part where it
    sat in input message ``mi`` (None if heal inserted the message)."""
    if locs is None:
        return (None,) * n if mi is None else tuple(zip(repeat(mi, n), range(n), strict=True))
    if len(locs) != n:
        return tuple(locs[p] if p < len(locs) else None for p in range(n))
    return locs


_Batch = Callable[..., Any]
_BATCHES: dict[type, tuple[_Batch, Action, _Batch]] = {
    IdRenames: (_rename_records, Action.REPLACE, _apply_renames),
    PartsAtStart: (_insert_records, Action.INSERT, _apply_at_start),
    DroppedParts: (_drop_records, Action.REMOVE, _apply_drops),
}
"""What the engine does with each kind of batch a rule's ``check`` may return: make its
records (each of its findings' action, or ``keep``'s), and apply it (the history, its origin
and its index after the edit)."""


def _renames(edits: list[Edit]) -> list[tuple[int, int, Part]] | None:
    """The place and new part of each tool-call id ``edits`` rename, when renaming ids is all
    they do (the index is then updated without a scan); else None."""
    places = []
    for e in edits:
        if type(e) is not RenamedId:
            return None
        places.append((e.message, e.part, e.new))
    return places


def _reasoning_added(edits: list[Edit]) -> dict[int, int] | None:
    """The messages ``edits`` insert reasoning parts into (of the class itself), when that is
    all they do (the index is then updated without a scan); else None. Each message maps to
    how many parts go at its start, or to 0 when one goes elsewhere in it."""
    added: dict[int, int] = {}
    for e in edits:
        if type(e) is not AddPart or type(e.new) is not ReasoningPart:
            return None
        m = e.message
        if e.before == 0:
            count = added.get(m)
            if count != 0:  # not yet seen, or every part so far at the start
                added[m] = 1 if count is None else count + 1
        else:
            added[m] = 0
    return added


def _check_unprotected(rule: Rule, protected: frozenset[int], edits: Iterable[Edit]) -> None:
    """Raise :class:`~heal.errors.ProtectedEditError` if ``edits`` change a protected message.
    Removing one whole is allowed (nothing of it is sent re-encoded), as is inserting beside it.

    Only called when something is protected and the rule made edits, so a clean history (or one
    without signed thinking) never pays for it. Dropping the fix instead would lose a problem
    silently: a rule must skip protected messages itself, or declare ``edits_protected``.
    """
    for e in edits:
        if not isinstance(e, (AddMessage, DropMessage)) and e.message in protected:
            raise ProtectedEditError(
                f"rule {rule.id!r} edits message {e.message}, which the plan protects "
                f"({type(e).__name__}); a rule that may do so declares edits_protected"
            )


class _Origin:
    """Where each current message and part came from in the caller's input.

    ``msgs[i]`` is the input index of current message ``i`` (None if heal inserted it);
    ``anchors[i]`` the input index it sits after (for inserted messages); ``parts[i]`` the input
    location of each of its parts, or None when part ``p`` came from part ``p`` of the input
    message (its parts, or replacements of them, each in its place).
    """

    __slots__ = ("anchors", "msgs", "parts")

    def __init__(self, messages: Sequence[ModelMessage] | None = None) -> None:
        n = len(messages) if messages is not None else 0
        self.msgs: list[int | None] = list(range(n))
        self.anchors: list[int | None] = list(range(n))
        self.parts: list[tuple[_Loc | None, ...] | None] = [None] * n

    def part(self, m: int, p: int) -> _Loc | None:
        locs = self.parts[m]
        if locs is None:
            mi = self.msgs[m]
            return None if mi is None else (mi, p)
        return locs[p] if p < len(locs) else None

    def parts_of(self, m: int, count: int) -> tuple[_Loc | None, ...]:
        locs = self.parts[m]
        if locs is not None:
            return locs
        mi = self.msgs[m]
        if mi is None:
            return (None,) * count
        found = []
        for p in range(count):  # a comprehension costs a frame of its own (most hold 1-3 parts)
            found.append((mi, p))  # noqa: PERF401
        return tuple(found)

    def repair(self, rule: Rule, f: Finding, action: Action) -> Repair:
        # Called once per repair (a history moved to Mistral renames every id): the location,
        # the escaping and the JSON copies are told here without a call where they can be.
        message_index: int | None = None
        part_index: int | None = None
        anchor: int | None = None
        m = f.message
        if m is not None:
            p = f.part
            if p is None:
                message_index = self.msgs[m]
                if message_index is None:
                    anchor = self.anchors[m]
            else:
                locs = self.parts[m]
                if locs is None:  # each part where it sat in the input message (see ``part``)
                    message_index = self.msgs[m]
                    if message_index is None:
                        anchor = self.anchors[m]
                    else:
                        part_index = p
                else:
                    loc = locs[p] if p < len(locs) else None
                    if loc is None:
                        anchor = self.anchors[m]
                    else:
                        message_index, part_index = loc
        if f.anchor is not None:
            anchor = self.anchors[f.anchor]
        # An id is input text: a lone surrogate in it is escaped as in removed content, so every
        # record encodes as UTF-8. ASCII text (nearly all) needs no look.
        tool_call_id = f.tool_call_id
        if tool_call_id is not None and (
            type(tool_call_id) is not str or not tool_call_id.isascii()
        ):
            tool_call_id = escaped_json(tool_call_id)
        reason = f.reason
        if type(reason) is not str or not reason.isascii():
            reason = escaped_json(reason)
        removed = f.removed
        if removed is not None:
            removed = removed.make() if type(removed) is FreshJson else _to_json(removed)
        added = f.added
        if added is not None:
            added = added.make() if type(added) is FreshJson else _to_json(added)
        # Every field, in declared order: construct_complete takes the dict as it is
        # (tests/test_construct.py checks the order).
        values = {
            "rule": rule.id,
            "action": action,
            "message_index": message_index,
            "part_index": part_index,
            "anchor_index": anchor,
            "tool_call_id": tool_call_id,
            "reason": reason,
            "removed": removed,
            "added": added,
            "scope": rule.scope,
        }
        if id(rule) in _BUILTIN_RULES:
            # A built-in rule's findings hold valid values (str, int, JSON from _to_json), and a
            # history with thousands of problems makes thousands of records: skip validating
            # them again. A user rule's findings are validated like any input.
            return construct_complete(Repair, _REPAIR_FIELDS, values)
        return Repair(**values)


_BUILTIN_RULES = frozenset(map(id, BUILTIN_RULES))
_REPAIR_FIELDS = set(Repair.model_fields)  # shared by every record built here (never changed)


def _to_json(value: Any) -> Any:
    if value is None:
        return None
    if type(value) is FreshJson:
        return value.make()
    if type(value) is dict:
        # The commonest record of all, a renamed or mended field ({"toolCallId": "call_1"}):
        # flat ASCII text needs no escaping, only a copy of its own.
        for key, item in value.items():
            if type(item) is not str or type(key) is not str or not (key + item).isascii():
                return escaped_json(value)
        return value.copy()
    cls = type(value)
    if cls is ReasoningPart or cls is TextPart:
        # The parts removed most (another provider's reasoning, a blank text), in their
        # commonest form: ASCII text and flat options, dumped in line (half the cost).
        flat = _flat_part_json(value)
        if flat is not None:
            return flat
    if isinstance(value, BaseModel):
        # A dump is made of new containers: it can be kept as it is when nothing needs escaping
        # (nearly always, and one C-speed encoding tells).
        try:
            # model_dump(mode="json", exclude_unset=True), less its Python wrapper.
            dumped = value.__pydantic_serializer__.to_python(value, mode="json", exclude_unset=True)
        except ValueError:
            return record_json(value)
        if _fast_dumps is not None:
            # orjson (the ``fast`` extra) tells ten times sooner, and refuses what the text
            # below would need escaping for (a lone surrogate): that is left to the slow path.
            try:
                raw = _fast_dumps(dumped)
            except Exception:  # any refusal: the standard encoder decides
                raw = None
            if raw is not None:
                # Valid UTF-8, so no lone surrogate; pydantic writes a key's as three U+FFFD,
                # looked for only in text that is not ASCII (a look at C speed, where the
                # search for the three bytes cost a fourth of the whole record).
                if raw.isascii() or b"\xef\xbf\xbd" not in raw:
                    return dumped
                return record_json(value)
        try:
            text = _to_text(dumped)
        except ValueError:
            # Bytes that are not UTF-8 or a lone surrogate in an unknown field's key, an integer
            # past str()'s digit limit: the JSON dump refuses them; the record still keeps them.
            return record_json(value)
        if text.isascii():
            return dumped
        if "\ufffd" in text:  # pydantic writes a key's lone surrogate as three U+FFFD
            return record_json(value)
        if not _SURROGATE.search(text):
            return dumped
        return escaped_json(dumped)
    if isinstance(value, (list, tuple)):
        return [_to_json(v) for v in value]
    # Anything else may share containers with the input (a tool input, provider options): the
    # record gets its own copy.
    return escaped_json(value)


def _flat_part_json(part: TextPart | ReasoningPart) -> dict[str, Any] | None:
    """What :func:`_to_json` makes of a text or reasoning part (``model_dump(mode="json",
    exclude_unset=True)``, in new containers), made by hand for one whose text and options are
    ASCII and whose options are flat (each provider's values strings, booleans or nulls): JSON
    as it is, which needs no escaping. None for any other, which pydantic dumps. The two
    classes have the same fields (``type``, ``text``, ``provider_options``, dumped in that
    order); ``tests/test_engine.py`` holds the two ways to one result."""
    if part.__pydantic_extra__:
        return None
    fields = part.__dict__
    text = fields["text"]
    if type(text) is not str or not text.isascii():
        return None
    given = part.__pydantic_fields_set__
    out: dict[str, Any] = {}
    if "type" in given:
        out["type"] = fields["type"]
    if "text" in given:
        out["text"] = text
    if "provider_options" in given:
        options = fields["provider_options"]
        if options is not None:
            options = _flat_options(options)
            if options is None:
                return None
        out["providerOptions"] = options
    return out


def _flat_options(options: Any) -> dict[str, Any] | None:
    """A copy of provider options whose every key and value is ASCII text (a value may also be
    a boolean or null), one level deep under each provider; else None."""
    if type(options) is not dict:
        return None
    out: dict[str, Any] = {}
    for namespace, values in options.items():
        if type(namespace) is not str or not namespace.isascii() or type(values) is not dict:
            return None
        for key, value in values.items():
            if type(key) is not str or not key.isascii():
                return None
            if type(value) is str:
                if not value.isascii():
                    return None
            elif value is not None and value is not True and value is not False:
                return None
        out[namespace] = values.copy()
    return out


def escaped_json(value: Any) -> Any:
    """A copy of ``value`` (its dicts and lists) with lone surrogates (``\\udxxx``) escaped, so a
    record always encodes as UTF-8, even when it holds removed text that was never mended."""
    if value is None:  # a record's tool_call_id, mostly
        return None
    if isinstance(value, str):
        if value.isascii() or not _SURROGATE.search(value):
            return value
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {escaped_json(k): escaped_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [escaped_json(v) for v in value]
    return value


_SURROGATE = re.compile("[\ud800-\udfff]")
_fast_dumps: Callable[[Any], bytes] | None
try:
    from orjson import dumps as _fast_dumps
except ImportError:  # pragma: no cover - the fast extra is installed in the test environment
    _fast_dumps = None
_to_text = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode
"""JSON text with non-ASCII characters as they are (one encoder: ``json.dumps`` with options
builds a new one per call). A model's dump cannot be circular."""


def _apply(
    messages: list[ModelMessage], origin: _Origin, edits: Iterable[Edit]
) -> tuple[list[ModelMessage], _Origin, list[tuple[int, int, int]]]:
    """Apply one rule's edits at once (indices refer to ``messages``); track origins. Also
    returns the runs of messages carried over as they are, as ``(old start, new start,
    count)``, for :meth:`HistoryIndex.after_edit`."""
    edit = _EditGroups(edits)
    if not (edit.set_msgs or edit.drop_msgs or edit.add_msgs):
        return _apply_to_parts(messages, origin, edit)
    touched = edit.part_edited | set(edit.set_msgs)
    output = _Output(messages, origin, edit.add_msgs, _moved_parts(messages, origin, edit))
    output.add_after(-1)
    # Only the messages an edit names need work; the spans between them are copied whole.
    done = 0
    for i in sorted(touched | edit.drop_msgs | {m for m in edit.add_msgs if m >= 0}):
        output.copy(done, i)
        done = i + 1
        message = messages[i]  # an index past the end raises here, dropped or not
        if i not in edit.drop_msgs:
            if i in touched:
                output.put(i, *_edited_message(message, i, origin, edit, output.moved))
            else:
                output.put(i, message, origin.parts[i])
        output.add_after(i)
    output.copy(done, len(messages))
    return output.messages, output.origin, output.kept


def _apply_to_parts(
    messages: list[ModelMessage], origin: _Origin, edit: _EditGroups
) -> tuple[list[ModelMessage], _Origin, list[tuple[int, int, int]]]:
    """:func:`_apply` for a batch of part edits alone (renamed ids, mended inputs, an added or
    dropped part: the commonest repairs): every message stays in its place, so only the
    messages named are rebuilt, and the origin keeps its message lists (never changed in
    place, so shared) with new part locations for those messages."""
    moved = _moved_parts(messages, origin, edit)
    out = list(messages)
    parts = list(origin.parts)
    for i in edit.part_edited:
        out[i], parts[i] = _edited_message(messages[i], i, origin, edit, moved)
    new = _Origin.__new__(_Origin)
    new.msgs, new.anchors, new.parts = origin.msgs, origin.anchors, parts
    kept: list[tuple[int, int, int]] = []
    start = 0
    for i in sorted(edit.part_edited):
        if out[i] is messages[i]:
            continue
        if i > start:
            kept.append((start, start, i - start))
        start = i + 1
    if start < len(messages):
        kept.append((start, start, len(messages) - start))
    return out, new, kept


class _EditGroups:
    """One rule's edits, grouped by kind; indices refer to the history they apply to."""

    __slots__ = (
        "add_msgs",
        "add_parts",
        "drop_msgs",
        "drop_parts",
        "part_edited",
        "set_msgs",
        "set_parts",
    )

    def __init__(self, edits: Iterable[Edit]) -> None:
        self.set_parts: dict[int, dict[int, Part]] = {}
        """Parts to replace, by message, then by part index."""
        self.drop_parts: dict[int, set[int]] = {}
        """Parts to remove, by message."""
        self.add_parts: dict[int, dict[int, list[Part]]] = {}
        """Parts to insert, by message, then by the index of the part they go before."""
        self.set_msgs: dict[int, ModelMessage] = {}
        self.drop_msgs: set[int] = set()
        self.add_msgs: dict[int, list[ModelMessage]] = {}
        """Messages to insert, by the index of the message they go after (-1: the start)."""
        for e in edits:
            # Inserted parts and renamed ids, the commonest (a batch may hold thousands), are
            # told by their class's identity before any isinstance test; a subclass of an
            # edit, by isinstance.
            if type(e) is AddPart or (type(e) is not RenamedId and isinstance(e, AddPart)):
                self.add_parts.setdefault(e.message, {}).setdefault(e.before, []).append(e.new)
            elif isinstance(e, SetPart):
                self.set_parts.setdefault(e.message, {})[e.part] = e.new
            elif isinstance(e, DropPart):
                self.drop_parts.setdefault(e.message, set()).add(e.part)
            elif isinstance(e, SetMessage):
                self.set_msgs[e.message] = e.new
            elif isinstance(e, DropMessage):
                self.drop_msgs.add(e.message)
            elif isinstance(e, AddMessage):
                self.add_msgs.setdefault(e.after, []).append(e.new)
            else:  # pragma: no cover - the Edit union is closed
                raise TypeError(f"unknown edit {e!r}")

        self.part_edited = {*self.set_parts, *self.drop_parts, *self.add_parts}
        """The messages some of whose parts are set, dropped or added."""


def _moved_parts(
    messages: list[ModelMessage], origin: _Origin, edit: _EditGroups
) -> dict[int, _Loc | None]:
    """The input location of each dropped part, by the part's id: a part dropped here and added
    elsewhere in the same batch is a move, and keeps its origin."""
    moved: dict[int, _Loc | None] = {}
    for m, dropped in edit.drop_parts.items():
        content = messages[m].content
        if not isinstance(content, str):
            for p in dropped:
                moved[id(content[p])] = origin.part(m, p)
    return moved


def _edited_message(
    message: ModelMessage,
    i: int,
    origin: _Origin,
    edit: _EditGroups,
    moved: dict[int, _Loc | None],
) -> tuple[ModelMessage, tuple[_Loc | None, ...] | None]:
    """Message ``i`` with its edits (replaced first, then its parts edited), and the input
    location of each of its parts (None: each where it sat in the input message)."""
    locs = origin.parts[i]
    if i in edit.set_msgs:
        new = edit.set_msgs[i]
        content = new.content
        if content is not message.content:
            locs = _replaced_locs(origin, i, message.content, content)
    else:
        new = message
        content = message.content
    if isinstance(content, str) or i not in edit.part_edited:
        return new, locs
    # The copies below are ``model_copy(update={"content": ...})``, exactly (see
    # :func:`~heal._construct.with_field`): a history with a repair in every turn edits one
    # message per turn, so the two commonest edits (renamed ids, a part added at the start of
    # a message the input holds as it was) are told here without a call more.
    if locs is None and new is message:
        adds = edit.add_parts.get(i)
        if adds is None:
            if i not in edit.drop_parts:
                # Replacements alone keep every part in its place: the input's parts'
                # locations hold.
                fixed = list(content)
                for p, part in edit.set_parts[i].items():
                    if p < len(fixed):
                        fixed[p] = part
                return with_field(new, "content", tuple(fixed)), None
        elif len(adds) == 1 and 0 in adds and i not in edit.set_parts and i not in edit.drop_parts:
            # Parts added at the start (DeepSeek's empty reasoning before a call): each part
            # of the input message moves along by as many.
            added = adds[0]
            mi = origin.msgs[i]
            n = len(content)
            kept_locs = (
                (None,) * n if mi is None else tuple(zip(repeat(mi, n), range(n), strict=True))
            )
            added_locs = [moved.get(id(part)) for part in added] if moved else [None] * len(added)
            return with_field(new, "content", (*added, *content)), (*added_locs, *kept_locs)
    if locs is None:
        locs = origin.parts_of(i, len(content))
    parts, locs = _edited_parts(i, content, locs, edit, moved)
    return with_field(new, "content", parts), locs


def _replaced_locs(
    origin: _Origin,
    i: int,
    old: str | Sequence[Part],
    new: str | Sequence[Part],
) -> tuple[_Loc | None, ...]:
    """The input locations of the parts of a message that replaces message ``i``: a part it
    shares with the message it replaces keeps its location, any other has none."""
    if isinstance(new, str) or isinstance(old, str):
        return tuple(None for _ in new)
    by_id = dict(zip(map(id, old), origin.parts_of(i, len(old)), strict=True))
    return tuple(by_id.get(id(p)) for p in new)


def _edited_parts(
    i: int,
    content: Sequence[Part],
    locs: tuple[_Loc | None, ...],
    edit: _EditGroups,
    moved: dict[int, _Loc | None],
) -> tuple[tuple[Part, ...], tuple[_Loc | None, ...]]:
    """The parts of message ``i`` after its part edits, and the input location of each."""
    n = len(content)
    if len(locs) != n:  # a location for each part there is, None past the known ones
        locs = tuple(locs[p] if p < len(locs) else None for p in range(n))
    adds = edit.add_parts.get(i)
    drops = edit.drop_parts.get(i)
    sets = edit.set_parts.get(i)
    if sets is not None and adds is None and drops is None:
        # Replacements alone (renamed ids, mended inputs): every part keeps its place.
        replaced = list(content)
        for p, part in sets.items():
            if p < n:
                replaced[p] = part
        return tuple(replaced), locs
    if sets is None and drops is None and adds is not None and min(adds) >= 0:
        # Insertions alone (an empty reasoning part before a DeepSeek call): the parts between
        # them are carried over in slices.
        if len(adds) == 1:  # at one place, the commonest: one tuple each
            ((before, added),) = adds.items()
            added_locs = [moved.get(id(new)) for new in added] if moved else [None] * len(added)
            if before == 0:  # at the start (DeepSeek's reasoning before a call): no slices
                return (*added, *content), (*added_locs, *locs)
            to = min(before, n)
            return (*content[:to], *added, *content[to:]), (*locs[:to], *added_locs, *locs[to:])
        parts: list[Part] = []
        part_locs: list[_Loc | None] = []
        at = 0
        for before in sorted(adds):
            to = min(before, n)
            parts += content[at:to]
            part_locs += locs[at:to]
            added = adds[before]
            parts += added
            part_locs += [moved.get(id(new)) for new in added]
            at = to
        parts += content[at:]
        part_locs += locs[at:]
        return tuple(parts), tuple(part_locs)
    parts = []
    part_locs = []
    for p, part in enumerate(content):
        if adds is not None and p in adds:
            added = adds[p]
            parts += added
            part_locs += [moved.get(id(new)) for new in added]
        if drops is not None and p in drops:
            continue
        parts.append(part if sets is None else sets.get(p, part))
        part_locs.append(locs[p])
    if adds is not None:
        for before in sorted(b for b in adds if b >= n):
            added = adds[before]
            parts += added
            part_locs += [moved.get(id(new)) for new in added]
    return tuple(parts), tuple(part_locs)


class _Output:
    """The history one batch of edits makes, built in order, and the origin of its messages."""

    __slots__ = ("added", "input", "input_origin", "kept", "messages", "moved", "origin")

    def __init__(
        self,
        messages: list[ModelMessage],
        origin: _Origin,
        added: dict[int, list[ModelMessage]],
        moved: dict[int, _Loc | None],
    ) -> None:
        self.input = messages
        self.input_origin = origin
        self.added = added
        self.moved = moved
        """The input location of each dropped part, by the part's id (see ``_moved_parts``)."""
        self.messages: list[ModelMessage] = []
        self.origin = _Origin()
        self.kept: list[tuple[int, int, int]] = []
        """The runs of input messages carried over as they are: (input start, start, count)."""

    def _keep(self, start: int, count: int) -> None:
        kept = self.kept
        at = len(self.messages)
        if kept:
            old, new, n = kept[-1]
            if old + n == start and new + n == at:  # the run goes on
                kept[-1] = (old, new, n + count)
                return
        kept.append((start, at, count))

    def copy(self, start: int, stop: int) -> None:
        """Messages ``start .. stop - 1`` of the input, as they are."""
        if start < stop:
            came, new = self.input_origin, self.origin
            self._keep(start, stop - start)
            self.messages.extend(self.input[start:stop])
            new.msgs.extend(came.msgs[start:stop])
            new.anchors.extend(came.anchors[start:stop])
            new.parts.extend(came.parts[start:stop])

    def put(self, i: int, message: ModelMessage, parts: tuple[_Loc | None, ...] | None) -> None:
        """Message ``i`` of the input, perhaps edited; ``parts`` as in :attr:`_Origin.parts`."""
        came, new = self.input_origin, self.origin
        if message is self.input[i]:
            self._keep(i, 1)
        self.messages.append(message)
        new.msgs.append(came.msgs[i])
        new.anchors.append(came.anchors[i])
        new.parts.append(parts)

    def add_after(self, after: int) -> None:
        """The messages inserted after message ``after`` of the input (-1: at the start)."""
        added = self.added.get(after)
        if not added:
            return
        anchor = self.input_origin.anchors[after] if after >= 0 else None
        new = self.origin
        for message in added:
            self.messages.append(message)
            new.msgs.append(None)
            new.anchors.append(anchor)
            content = message.content
            new.parts.append(
                () if isinstance(content, str) else tuple(self.moved.get(id(p)) for p in content)
            )
