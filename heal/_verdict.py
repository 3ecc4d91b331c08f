"""The plain verdict's shared core: what "plainly clean" means, whatever the format it is read in.

Most histories need nothing, and building canonical models to learn that costs far more than
the healing does (issue "Speed"). A *verdict* is a pure-Python pass over a history in its own
format (AI SDK dicts for :func:`heal._json.clean_verdict`, the caller's own Anthropic, OpenAI
Chat or Gemini dicts for the adapters) that says "plainly clean" for the common shapes only:
system, user and assistant text; tool calls each answered by one result right after; ids and
names the provider accepts. Clean is exact in one direction: ``heal_messages`` on the same
history (loaded by the format's adapter) would return no repair at all, for the provider at
hand, under the default policy and the built-in rules. Anything a verdict does not fully
understand is "not plainly", which costs nothing but the full path.

Each format walks its own shapes and asks this module what is the same everywhere:

* :func:`judge`: whether the verdict may be asked at all (the default registry holds exactly
  the built-in rules, the provider is known), and the provider's profile;
* :func:`by_default`: whether a call heals under the default policy and rules (the only calls
  a verdict is asked for);
* :func:`terms_for`: whether a verdict may be asked for a target, and what a plainly clean
  history must also be for it (a model, ``thinking`` or tools turn rules on or off): how it may
  end, which tools its calls may name;
* :func:`plain_text`, :func:`plain_value`, :func:`plain_input`: a text that no rule mends (not
  blank, no lone surrogate), a JSON value the models take as it is (JSON types alone, nested
  at most :data:`MAX_DEPTH` levels, finite floats): a caller's own dicts may hold any Python
  object, which the full path refuses;
* :data:`AFTER` and :data:`ENDS`: the order of roles no rule changes, in canonical roles (a
  format whose tool results sit in user messages reads them as the ``tool`` role);
* :func:`calls_accepted`: the last check, over every call id and tool name the walk collected;
* :func:`walked_clean`: the verdict around a format's walk (judge, walk, last check).

The formats' walks are held to the promise by property tests under every provider
(``tests/test_json.py``, ``tests/adapters/test_native_fast_path.py``,
``tests/adapters/test_gemini_fast_path.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from itertools import chain
from math import isfinite
from typing import Any, cast

from heal._engine import planned_quick_terms, planned_rules
from heal.adapters._common import bare_target
from heal.errors import ConfigError
from heal.policy import Policy
from heal.providers import ProviderProfile, get_profile
from heal.rules import BUILTIN_RULES, default_registry
from heal.rules._quick import CLEAN, NOT_PLAIN, REFUSED_IDS
from heal.targets import Target

__all__ = [
    "AFTER",
    "ENDS",
    "MAX_DEPTH",
    "GOOGLE_SIGNATURE_RULES",
    "OPENAI_ITEM_RULES",
    "REJECTED_REASONING_RULES",
    "BEDROCK_THINKING_RULES",
    "PLAIN_TERMS",
    "by_default",
    "asked_scope",
    "PLAIN_NEVER",
    "RICH_NEEDS",
    "TEXT_OPTION_NEEDS",
    "TOOL_OPTION_NEEDS",
    "CALLER_RULES",
    "ANTHROPIC_THINKING_RULES",
    "Terms",
    "calls_accepted",
    "ended",
    "judge",
    "plain_input",
    "plain_text",
    "plain_value",
    "provider_terms",
    "terms_for",
    "surrogate",
    "walked_clean",
    "walked_verdict",
]

MAX_DEPTH = 64
"""How deeply a tool input or a JSON tool output may nest for a verdict (far fewer levels than
the :data:`~heal.messages.JSON_NESTING_LIMIT` models take; deeper ones take the full path)."""

surrogate = re.compile("[\ud800-\udfff]").search
"""Finds a lone surrogate in a string (only a non-ASCII one can hold it): ``lone-surrogate``
mends texts that hold one."""

AFTER: dict[str, frozenset[str]] = {
    "system": frozenset({"", "system"}),
    "user": frozenset({"", "system", "assistant"}),
    "assistant": frozenset({"user", "tool"}),
}
"""The canonical roles each role may follow in a plainly clean history (``""``: the start).
System messages only at the start (Gemini and Bedrock move later ones); a user message first
after them; no two user or two assistant messages in a row (Bedrock merges them); no user
message right after tool results (Mistral wants an assistant message between). Tool results
stand only right after the assistant message whose calls they answer, which each walk checks
itself."""

ENDS = frozenset({"user", "tool", "assistant"})
"""The roles a plainly clean history may end with: a request ends with the user's message or
with the results the model is to read, and a stored history with the model's answer. A
trailing assistant message is a prefill to Anthropic, which ``anthropic-trailing-whitespace``
trims: :func:`ended` takes one only when its last text does not end with whitespace. The
models that refuse prefill turn ``anthropic-assistant-prefill`` on, and :func:`terms_for` leaves
the assistant role out for them. An assistant message with calls left unanswered is no
end: each walk checks that itself."""


def ended(previous: str, final: Any) -> str | None:
    """``previous``, the canonical role of a walk's last message, when a plainly clean history
    may end with it (:data:`ENDS`), else None; ``final`` is the last text of that message, read
    when it is an assistant message (a string: text alone or the last of its text parts)."""
    if previous == "assistant":
        return previous if type(final) is str and final == final.rstrip() else None
    return previous if previous in ENDS else None


def _providers_of(rule_id: str) -> frozenset[str]:
    rule = next(rule for rule in BUILTIN_RULES if rule.id == rule_id)
    return frozenset(rule.providers) if rule.providers is not None else frozenset()


_CALLS_NEED_REASONING = _providers_of("missing-reasoning-content")
"""Providers that add reasoning to every assistant message with tool calls: a history with
calls is never plainly clean for them."""

_CURRENT_CALLS_NEED_SIGNATURE = _providers_of("google-missing-thought-signature")
"""Providers that want a signature on the calls after the last user message: a history that
ends with tool results is never plainly clean for them."""

_registry_checked: dict[int, bool] = {}
"""The answer of :func:`_builtin_rules_only`, by registry version."""


def _builtin_rules_only() -> bool:
    """Whether the default registry holds exactly the built-in rules (none registered, none
    removed): a verdict knows only those."""
    version = default_registry.version
    found = _registry_checked.get(version)
    if found is None:
        rules = tuple(default_registry)
        found = len(rules) == len(BUILTIN_RULES) and all(
            a is b for a, b in zip(rules, BUILTIN_RULES, strict=True)
        )
        _registry_checked.clear()  # registry versions come and go; one is enough
        _registry_checked[version] = found
    return found


def judge(provider: str | None) -> ProviderProfile | None:
    """The profile a verdict checks ids and names against, or None when no verdict may be
    given: a rule registered or removed, or an unknown provider (the full path raises its
    error)."""
    if not _builtin_rules_only():
        return None
    try:
        return get_profile(provider)
    except ConfigError:
        return None


PLAIN_NEVER = frozenset(
    {
        "reasoning",
        "any_reasoning",
        "other_model_thinking",
        "files",
        "images",
        "unplain_images",
        "unplain_files",
        "late_system",
    }
)
"""What a rule may need (``Rule.needs``: trigger lists and index facts) that a plainly clean
history never holds: reasoning parts (another model's thinking among them), files, images (a
walk that knows a user's plain images takes them where :attr:`Terms.images` says, and those
leave ``unplain_images`` false), a system message after the start. A rule that needs nothing
else finds nothing in one, whatever it would do with it."""

_ANSWER = frozenset({"final_assistant"})
"""The need of a rule that reads the model's answer at the end (``anthropic-assistant-prefill``,
on for the models that refuse prefill): a history ending with one is not plain for it."""

_OFFERED = frozenset({"unoffered_tools"})
"""The need of ``tool-not-offered`` (on when the request's tools are known): a call of a tool
the request does not offer, which :func:`calls_accepted` looks for itself."""


RICH_NEEDS = frozenset(
    {
        "reasoning",
        "assistant_options",
        "tool_options",
        "anthropic_tool_options",
        "head_not_user",
        "trailing_reasoning",
        "reasoning_not_first",
        "reasoning_only_message",
        "tool_loop_reasoning",
        "anthropic_unsigned_reasoning",
        "bedrock_unsigned_reasoning",
        "google_unissued_signatures",
        "empty_reasoning",
        "any_reasoning",
        "other_model_thinking",
        "non_item_reasoning",
        "encrypted_without_item_id",
        "reasoning_without_following_item",
        "duplicate_item_ids",
    }
)
"""What a rule may need that reasoning parts or provider options can make hold (the reasoning
trigger list and the facts of reasoning and options): a plan none of whose rules needs one of
these finds nothing in them (``non_ascii_reasoning`` aside, which a walk answers itself by
looking for lone surrogates in the reasoning text; heal's own namespace is never rich: rules
read its marks whatever they need)."""


@dataclass(frozen=True, slots=True)
class Terms:
    """What a plainly clean history must also be for one target (see :func:`terms_for`)."""

    ends: frozenset[str]
    """The canonical roles it may end with."""
    offered: frozenset[str] | None = None
    """The tools its calls may name (None: any)."""
    rich: bool = False
    """Whether it may hold reasoning parts and provider options (other than heal's), which no
    rule of the target's plan reads (:data:`RICH_NEEDS`); a walk that knows them takes them
    then (:func:`heal._json.clean_verdict`), the others refuse them always."""
    items: bool = False
    """Whether it may hold them as OpenAI's Responses API items: the rules of the plan that read
    reasoning or options are the Responses pack's item rules alone (:data:`OPENAI_ITEM_RULES`),
    which a walk that knows them checks itself (every reasoning part an item with an id, each
    item followed by text or a call and sent once)."""
    text_options: bool = False
    """Whether text parts and system messages may carry provider options of the provider's
    own (not heal's): no rule of the plan reads a text's options (:data:`TEXT_OPTION_NEEDS`).
    Anthropic's prompt-caching breakpoints (``cache_control`` on a text block or the system
    prompt) load so, and a walk that knows them takes them then."""
    result_options: bool = False
    """Whether tool results may carry provider options of the provider's own: the rules of the
    plan that read a tool part's options (:data:`TOOL_OPTION_NEEDS`) read nothing but a call's
    ``caller`` (:data:`CALLER_RULES`). A ``cache_control`` on a ``tool_result`` block loads
    so."""
    thinking: bool = False
    """Whether it may hold Anthropic's signed thinking: the rules of the plan that read
    reasoning or options are Anthropic's and Claude's alone (:data:`ANTHROPIC_THINKING_RULES`),
    which find nothing in thinking a Claude model returned (signed, first in its message and
    followed by its text or calls) in a history that records no model per message and does not
    end in an open tool loop, which a walk that knows thinking checks itself."""
    signatures: bool = False
    """Whether it may hold Gemini thought signatures on the model's texts and calls: the rules
    of the plan that read reasoning or options are Google's alone (:data:`GOOGLE_SIGNATURE_RULES`),
    which find nothing in a signature Gemini could have issued, on a text or call part of a
    model turn, in a history without media whose first turn is the user's texts, nor in
    Gemini's own thoughts (reasoning parts that are not empty, of Google's options alone). A
    walk that knows signatures checks that itself (each one a string or bytes
    ``google-foreign-thought-signature`` keeps; each thought not empty)."""
    engine_reasoning: bool = False
    """Whether the engine's quick verdict takes reasoning that the plan's rules read (not
    :attr:`rich`): it keeps the target's own and lists what the plan removes without the index
    (:attr:`~heal.rules._quick.QuickTerms.reasoning` of the plan's
    :func:`heal._engine.planned_quick_terms`; see :func:`engine_reads_reasoning`)."""
    bedrock: bool = False
    """Whether it may hold Bedrock's signed thinking: the rules of the plan that read reasoning
    or options are Bedrock's (:data:`BEDROCK_THINKING_RULES`), which find nothing in thinking
    Bedrock returned (signed, first in its message and followed by its text or calls), nor in
    options on the model's parts and the tool results, which a walk that knows thinking checks
    itself (a user message's texts with options are heal's placeholder to them)."""
    images: bool = False
    """Whether it may hold a user's plain images (:func:`heal.rules.files.plain_image`): the
    engine's quick verdict takes them (:attr:`~heal.rules._quick.QuickTerms.images` of the
    plan's :func:`heal._engine.planned_quick_terms`). A walk that knows images takes those
    alone that load as plain ones."""
    image_files: bool = False
    """Whether it may hold a user's images given as files that are as plain
    (:func:`heal.rules.files.plain_image_file`; :attr:`~heal.rules._quick.QuickTerms.files`)."""
    rejects: bool = False
    """Whether it may hold reasoning that the plan removes, every part of it: the rules of the
    plan that read reasoning or options are those of an API that takes no reasoning
    (:data:`REJECTED_REASONING_RULES`), which remove each reasoning part and read nothing else,
    so no part's provider options matter. A walk that knows this lists each reasoning part (in
    a message that keeps a text or a call) for the removal."""


TEXT_OPTION_NEEDS = frozenset(
    {"assistant_options", "duplicate_item_ids", "google_unissued_signatures", "head_not_user"}
)
"""What a rule needs that a text part's provider options can make hold: the options of the
assistant's parts (Gemini's signatures, OpenAI's item ids), and a first user message of marked
texts alone (heal's placeholder). A plan none of whose rules needs one of these reads no text's
options (:attr:`Terms.text_options`)."""

TOOL_OPTION_NEEDS = frozenset({"tool_options", "anthropic_tool_options"})
"""What a rule needs that a call's or a result's provider options can make hold."""

CALLER_RULES = frozenset({"anthropic-orphan-caller-reference"})
"""The rules that read a tool part's options for its ``caller`` alone (Anthropic's
programmatic tool calling): a result's cache breakpoint is nothing to them."""

ANTHROPIC_THINKING_RULES = frozenset(
    {
        "anthropic-strip-foreign-reasoning-content",  # unsigned reasoning only
        "anthropic-unsigned-reasoning",
        "anthropic-reasoning-only-message",
        "anthropic-reasoning-not-first",
        "anthropic-trailing-reasoning",
        "anthropic-tool-loop-thinking",  # an open tool loop only
        "claude-foreign-model-signature",  # a message that records its model only
        "claude-thinking-prefix-binding",  # after another rule's change only
        *CALLER_RULES,  # a call's caller, not reasoning
    }
)
"""The rules of provider ``anthropic`` (and its models) that read reasoning or options: none
finds anything in signed thinking first in its message, followed by its text or calls, when no
message records the model that wrote it and the history does not end with tool results."""

OPENAI_ITEM_RULES = frozenset(
    {
        "openai-foreign-reasoning",
        "encrypted-reasoning-without-item-id",
        "reasoning-without-following-item",
        "duplicate-item-id",
    }
)
"""The rules of provider ``openai-responses`` that read reasoning and item ids, on by default."""

BEDROCK_THINKING_RULES = frozenset(
    {
        "bedrock-first-message",  # a first user message of texts with options only
        "bedrock-unsigned-reasoning",
        "bedrock-reasoning-only-message",
        "bedrock-reasoning-not-first",
        "bedrock-trailing-reasoning",
        "claude-foreign-model-signature",  # a message that records its model only
    }
)
"""The rules of provider ``bedrock`` that read reasoning or options, on by default: none finds
anything in Bedrock's signed thinking first in its message, followed by its text or calls, in a
history whose first user message holds no options."""

REJECTED_REASONING_RULES = frozenset(
    {
        "cerebras-strip-reasoning-content",
        "groq-unsupported-reasoning",
        "mistral-reasoning-input",
    }
)
"""The rules that remove every reasoning part, for an API that takes none
(:class:`heal.rules.reasoning.RejectedReasoning`): they read reasoning and nothing else."""

GOOGLE_SIGNATURE_RULES = frozenset(
    {
        "google-foreign-thought-signature",
        "google-empty-part",
        "google-function-call-turn",
    }
)
"""The rules of provider ``google`` that read reasoning or provider options, on by default:
``google-foreign-thought-signature`` reads the signatures (it drops those that are not base64
strings), ``google-empty-part`` empty reasoning parts and ``google-function-call-turn`` whether
the history starts with a user turn of plain texts (:data:`RICH_NEEDS`: ``head_not_user`` reads a
user message's options)."""


PLAIN_TERMS = Terms(ENDS, images=True, image_files=True)
"""The terms of a target that names its provider alone, for the walks that do not read
:attr:`Terms.rich` (every built-in plan takes a user's plain images)."""

_TERMS: dict[tuple[Any, ...], Terms | None] = {}
""":func:`terms_for` of each target, by what its plan depends on and the registry version
(the tool names aside, which only :attr:`Terms.offered` reads)."""


def terms_for(target: Target) -> Terms | None:
    """What a plainly clean history must also be for ``target``, or None when no verdict may be
    asked for it.

    Whether the history may hold reasoning and provider options follows from the plan's needs
    (:attr:`Terms.rich`). A model, ``thinking``, the request's tools or a prefix-binding
    behaviour change the plan: they turn rules on or off by what the model accepts and the
    request holds (``Rule.enabled_for``). Turning a rule off never makes a clean history
    unclean. A rule turned on is harmless when it needs only what a plainly clean history never
    holds (:data:`PLAIN_NEVER`: the reasoning, image, signature and late-system rules); one that
    reads the final answer (``anthropic-assistant-prefill``, for the models that refuse prefill)
    takes the assistant end away; ``tool-not-offered`` makes every call name an offered tool
    (:attr:`Terms.offered`). Any other rule turned on leaves the target to the full path. The
    rules both plans share read the target only where they meet what :data:`PLAIN_NEVER` names
    (``anthropic-tool-loop-thinking`` reads ``thinking`` beside reasoning, the mid-conversation
    system rules the model beside a late system message): the property tests of each verdict
    hold this under targets that name models, thinking and tools (``tests/verdict_targets.py``)."""
    tools = target.tools
    key = (
        target.provider,
        target.model,
        target.thinking,
        tools is None,
        target.prefix_mismatch_behavior,
        default_registry.version,
    )
    try:
        found = _TERMS[key]
    except KeyError:
        found = _worked_out(target)
        if len(_TERMS) >= 256:  # models and registry versions come and go
            _TERMS.clear()
        _TERMS[key] = found
    if found is None or tools is None:
        return found
    return replace(found, offered=tools)


def engine_reads_reasoning(terms: Terms | None) -> bool:
    """Whether, for a target of these ``terms``, the engine's quick verdict takes reasoning
    that the plan's rules read (:attr:`Terms.engine_reasoning`): Anthropic's and Bedrock's
    signed thinking, Gemini's thoughts, OpenAI's items, and other providers' reasoning (every
    reasoning part, for Groq and Cerebras) that the plan removes without the index
    (``heal._engine._dropped_plainly``). A format whose walk refused a history heals it with
    :func:`heal.heal_messages` then, which asks that verdict, rather than with
    :func:`heal._engine.heal_not_plain`: a conversation moved to such a provider is plain to
    it nearly always, and a walk that reads less reasoning than the engine refuses it."""
    return terms is not None and terms.engine_reasoning


def provider_terms(provider: object) -> Terms | None:
    """:func:`terms_for` the target of a provider as a caller gave it (the adapters' shared
    :func:`~heal.adapters._common.bare_target`); None for anything but a known provider id or
    None (the full path raises its error)."""
    if provider is not None and type(provider) is not str:
        return None
    try:
        return terms_for(bare_target(provider))
    except ConfigError:
        return None


def _worked_out(target: Target) -> Terms | None:
    """:func:`terms_for`, worked out from the plans (its ``offered`` stands for any tools)."""
    ends = ENDS
    planned = planned_rules(target)
    bare = Target(target.provider)
    shared = {rule.id for rule in (planned if target == bare else planned_rules(bare))}
    readers = set()  # the rules that read reasoning or options
    text_readers = False  # whether a rule reads a text's options
    tool_readers = set()  # the rules that read a tool part's options
    for rule in planned:
        needs = rule.needs if rule.needs is not None else rule.triggers
        if needs is None:
            return None  # it runs whatever the history holds
        if not needs.isdisjoint(RICH_NEEDS):
            readers.add(rule.id)
        if not needs.isdisjoint(TEXT_OPTION_NEEDS):
            text_readers = True
        if not needs.isdisjoint(TOOL_OPTION_NEEDS):
            tool_readers.add(rule.id)
        if rule.id in shared:
            continue
        if not needs <= PLAIN_NEVER | _ANSWER | _OFFERED:
            return None
        if needs & _ANSWER:
            ends = ENDS - {"assistant"}
    rich = not readers
    items = bool(readers) and readers <= OPENAI_ITEM_RULES
    signatures = bool(readers) and readers <= GOOGLE_SIGNATURE_RULES
    rejects = bool(readers) and readers <= REJECTED_REASONING_RULES
    bedrock = bool(readers) and readers <= BEDROCK_THINKING_RULES
    text_options = not text_readers
    result_options = tool_readers <= CALLER_RULES
    quick = planned_quick_terms(planned)
    found = Terms(
        ends,
        rich=rich,
        engine_reasoning=not rich and quick is not None and quick.reasoning,
        items=items,
        text_options=text_options,
        result_options=result_options,
        thinking=readers <= ANTHROPIC_THINKING_RULES,
        signatures=signatures,
        rejects=rejects,
        bedrock=bedrock,
        images=quick is not None and quick.images,
        image_files=quick is not None and quick.files,
    )
    return PLAIN_TERMS if found == PLAIN_TERMS else found


_DEFAULT_POLICY = Policy()


def by_default(policy: object, rules: object, scope: object) -> bool:
    """Whether a call heals under the default policy, with the registered rules alone, at
    request scope: the only calls a verdict is asked for. An empty policy (``Policy()`` or an
    empty mapping) and an empty list or tuple of extra rules are the defaults too: the
    integrations' options hold them so (``heal.integrations._common.HealOptions``)."""
    return (
        (
            policy is None
            or (type(policy) is Policy and policy == _DEFAULT_POLICY)
            or (type(policy) is dict and not policy)
        )
        and (rules is None or ((type(rules) is tuple or type(rules) is list) and not rules))
        and scope == "request"
    )


def asked_scope(policy: object, rules: object, scope: object) -> str | None:
    """The scope at which a format's plain verdict is asked for a call (under the default
    policy and rules, :func:`by_default`): ``"request"``, where it decides the heal, or
    ``"history"`` (``migrate``'s), where it answers a plainly clean history alone: the history
    scope's rules are the request plan's less those that change the request alone, so a
    history none of the request's rules finds anything in is one none of them does, but one
    plain for the request but for its ids or other providers' reasoning is the full path's
    there. None: not asked."""
    if scope not in ("request", "history") or not by_default(policy, rules, "request"):
        return None
    return str(scope)


def plain_text(value: Any) -> bool:
    """Whether a text is one no rule mends: a string, not blank, without a lone surrogate."""
    return (
        type(value) is str
        and bool(value)
        and not value.isspace()
        and (value.isascii() or surrogate(value) is None)
    )


def plain_texts(values: Iterable[Any]) -> bool:
    """Whether every one of ``values`` is a :func:`plain_text`, in one loop (a walk that meets
    a text in nearly every part gathers them and asks once: a call per text costs more than the
    test). One loop beats passes at C speed here (a pass each for the type, emptiness, blanks
    and ASCII cost a quarter more, measured on the benchmark corpus's texts)."""
    for value in values:
        if (
            type(value) is not str
            or not value
            or value.isspace()
            or not (value.isascii() or surrogate(value) is None)
        ):
            return False
    return True


def plain_thoughts(values: Iterable[Any]) -> bool:
    """Whether every one of ``values`` is a reasoning text no rule mends: a string (empty or
    blank too, as reasoning may be) without a lone surrogate (``lone-surrogate`` mends it)."""
    for value in values:
        if type(value) is not str or not (value.isascii() or surrogate(value) is None):
            return False
    return True


def plain_value(value: Any, depth: int = MAX_DEPTH) -> bool:
    """Whether a value is JSON the models take as it is: built of ``dict`` (with string keys),
    ``list``, ``str``, ``int``, ``bool``, ``None`` and finite ``float`` alone (not a tuple, a
    datetime or a ``Decimal``, which the models refuse), nested at most ``depth`` levels."""
    kind = type(value)
    if kind is dict or kind is list:
        return not value or _plain(value, depth)
    if kind is float:
        return isfinite(value)
    return kind in _SCALARS


def plain_values(values: list[Any]) -> bool:
    """Whether every one of ``values`` is a :func:`plain_value` (see :func:`plain_texts`): flat
    JSON objects of scalars, the common shape (a reasoning block, a message's metadata), are
    judged in a few passes at C speed over all of them (:func:`flat_inputs`); any other value
    by itself."""
    return flat_inputs(values) or all(map(plain_value, values))


def plain_input(value: Any) -> bool:
    """Whether a tool input is one no rule mends: a JSON object of plain values."""
    return type(value) is dict and (not value or _plain(value, MAX_DEPTH))


def plain_inputs(values: Iterable[Any]) -> bool:
    """Whether every one of ``values`` is a :func:`plain_input` (see :func:`plain_texts`).
    Inputs of scalars under string keys, the common shape, are judged in a few passes at C
    speed over all of them (:func:`flat_inputs`); any other goes value by value."""
    inputs = values if type(values) is list else list(values)
    return flat_inputs(inputs) or nested_inputs(inputs)


def flat_inputs(inputs: list[Any]) -> bool:
    """Whether every one of ``inputs`` is a JSON object of strings, integers, booleans and
    nulls under string keys: plain inputs of the common shape, nothing nested and no float
    (judged in a few passes at C speed over all of them)."""
    return (
        set(map(type, inputs)) <= _DICT
        and set(map(type, chain.from_iterable(inputs))) <= _STR
        and set(map(type, chain.from_iterable(map(dict.values, inputs)))) <= _SCALARS
    )


def nested_inputs(inputs: list[Any]) -> bool:
    """:func:`plain_inputs` of inputs :func:`flat_inputs` did not find flat (a float, a nested
    value, or not an object): each judged by itself."""
    if set(map(type, inputs)) != _DICT:
        return False
    return all(not value or _plain(value, MAX_DEPTH) for value in inputs)


_SCALARS = frozenset({str, int, bool, type(None)})
_STR = frozenset({str})
_DICT = frozenset({dict})


def _plain(container: dict[str, Any] | list[Any], depth: int) -> bool:
    """Whether a non-empty JSON object or array nests at most ``depth`` levels (counted as
    :data:`~heal.messages.JSON_NESTING_LIMIT` counts them) and holds only plain values (see
    :func:`plain_value`)."""
    if depth <= 0:
        return False
    items: Iterable[Any]
    if type(container) is dict:
        for key in container:
            if type(key) is not str:
                return False
        items = container.values()
    else:
        items = cast("list[Any]", container)
    for item in items:
        kind = type(item)
        if kind is dict or kind is list:
            if item and not _plain(item, depth - 1):
                return False
        elif kind is float:
            if not isfinite(item):
                return False
        elif kind not in _SCALARS:
            return False
    return True


def calls_accepted(
    provider: str | None,
    profile: ProviderProfile,
    ids: list[str],
    names: list[str],
    last: str | None,
    *,
    terms: Terms,
    signed: bool = False,
    judge_ids: bool = True,
) -> bool:
    """The last check of a walk over a history: it found every message plain (``last``, the
    canonical role of the last message, is not None) and the history ends as ``terms`` say; the
    call ids (in history order) unique and accepted by the provider, the tool names valid for it
    (and among the tools the request offers, when ``terms`` know them), and no rule of the
    provider's own that fires on calls of that plain shape (DeepSeek wants reasoning beside
    every call; Gemini a signature on the calls after the last user message, when ``last`` is
    not ``"user"``, unless the walk found one that Google's rules keep on the first call of
    every assistant message after it: ``signed``, under :attr:`Terms.signatures`).
    ``judge_ids``: False leaves out whether the provider accepts the ids' format (the caller
    asks it of the ids, or of those it renames them to)."""
    if last not in terms.ends:
        return False
    if not ids:
        return True
    if provider in _CALLS_NEED_REASONING or (
        last != "user" and provider in _CURRENT_CALLS_NEED_SIGNATURE and not signed
    ):
        return False  # after tool results or an answer, calls may be in the current turn
    return (
        len(set(ids)) == len(ids)
        and (not judge_ids or profile.all_accepted_tool_call_ids(ids))
        and profile.all_valid_tool_names(names)
        and (terms.offered is None or terms.offered.issuperset(names))
    )


def walked_verdict(
    provider: str | None,
    terms: Terms,
    walk: Callable[..., str | None],
    *history: Any,
    signed: list[bool] | None = None,
    ids: list[str] | None = None,
) -> int:
    """:func:`walked_clean`, saying why: ``CLEAN``, ``NOT_PLAIN``, or ``REFUSED_IDS`` when the
    history is plain but for its call ids' format (the adapters then rename them, as the
    engine's id rules would, without models). ``walk``, called with ``history`` as
    :func:`walked_clean` calls it, must read past an id the provider refuses (Kimi's, with a
    colon) rather than stop: the ids are judged here, all together. ``ids``: a list to gather
    the call ids in (every result's is its call's, in a history found plain), for the
    renaming. ``signed``: as :func:`walked_clean` takes it."""
    if ids is None:
        ids = []
    if not walked_clean(provider, terms, walk, *history, signed=signed, ids=ids):
        return NOT_PLAIN
    # A known provider: walked_clean judged it.
    return CLEAN if get_profile(provider).all_accepted_tool_call_ids(ids) else REFUSED_IDS


def walked_clean(
    provider: str | None,
    terms: Terms,
    walk: Callable[..., str | None],
    *history: Any,
    signed: list[bool] | None = None,
    ids: list[str] | None = None,
) -> bool:
    """A format's verdict on a history: True when a verdict may be given (:func:`judge`), the
    format's ``walk`` over ``history`` finds every message plain (it is called with ``history``
    and then the lists it adds the call ids and tool names to, and returns the canonical role of
    the last message, or None: see :func:`ended`), the history ends as ``terms`` say (see
    :func:`terms_for`), and :func:`calls_accepted` takes what it gathered. A KeyError in the
    walk is a message or part without a key its kind needs: not plain. ``signed``: a list that
    is part of ``history`` too, to which a walk that reads thought signatures adds True when the
    calls after the last user message are signed (:func:`calls_accepted`). ``ids``: a list to
    gather the call ids in, whose format is then not judged: True says the history is plain but
    for that (the caller judges the ids, or the ids it renames them to)."""
    profile = judge(provider)
    if profile is None:
        return False
    found: list[str] = [] if ids is None else ids
    names: list[str] = []
    try:
        last = walk(*history, found, names)
    except KeyError:
        return False
    return calls_accepted(
        provider,
        profile,
        found,
        names,
        last,
        terms=terms,
        signed=bool(signed),
        judge_ids=ids is None,
    )
