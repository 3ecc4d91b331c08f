"""What a rule is: its declaration, its findings, and the edits a finding proposes.

A rule never builds a new history. It reads the :class:`~heal.rules._index.HistoryIndex`
through a :class:`Context` and returns :class:`Finding` objects; each finding carries the
:class:`Edit` operations that fix it. ``validate_messages`` reports the findings;
``heal_messages`` applies their edits. Both run the same code.

Edits address messages and parts by their CURRENT index in the history the rule was given. The
engine applies all edits of one rule at once and translates every location back to the caller's
input for the :class:`~heal.repairs.Repair` records.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, TypeVar, final

from heal._construct import with_field
from heal.repairs import Action, Scope
from heal.rules._index import FACTS, TRIGGER_LISTS

if TYPE_CHECKING:
    from heal.messages import (
        ModelMessage,
        Part,
        ToolApprovalRequest,
        ToolCallPart,
        ToolResultPart,
    )
    from heal.providers import ProviderId, ProviderProfile
    from heal.rules._index import HistoryIndex
    from heal.targets import Target

    IdPart: TypeAlias = ToolCallPart | ToolResultPart | ToolApprovalRequest

__all__ = [
    "AddMessage",
    "AddPart",
    "Context",
    "DropMessage",
    "DropPart",
    "DroppedParts",
    "Edit",
    "Example",
    "FamilyRule",
    "Finding",
    "FreshJson",
    "IdRenames",
    "NEEDS",
    "PartsAtStart",
    "Rejection",
    "RejectionPattern",
    "RenamedId",
    "Rule",
    "SetMessage",
    "SetPart",
    "TRIGGERS",
    "renamed_id_finding",
]


# --- edits -----------------------------------------------------------------------------------
#
# Edits and findings are values: a rule makes them and never changes them, nor does the engine.
# They are not frozen dataclasses all the same: a frozen one sets each field through
# ``object.__setattr__``, which costs three times as much, and a history with a repair in every
# turn makes a finding and an edit per repaired part.


@dataclass(slots=True)
class SetPart:
    """Replace part ``part`` of message ``message`` with ``new``."""

    message: int
    part: int
    new: Part


@dataclass(slots=True)
class RenamedId(SetPart):
    """A :class:`SetPart` whose new part is the old one with another ``tool_call_id``, and
    nothing else changed: the engine then updates its index without scanning the edited
    messages. Made by :meth:`of`, which makes the part, so that this holds."""

    @classmethod
    def of(cls, message: int, part: int, old: IdPart, tool_call_id: str) -> RenamedId:
        """Rename part ``part`` (``old``) of message ``message`` to ``tool_call_id``."""
        return cls(message, part, with_field(old, "tool_call_id", tool_call_id))


@dataclass(slots=True)
class DropPart:
    """Remove part ``part`` of message ``message``."""

    message: int
    part: int


@dataclass(slots=True)
class AddPart:
    """Insert ``new`` into message ``message`` before its part ``before`` (its length: append).

    Adding a part object that the same batch of edits drops elsewhere is a move: the engine
    keeps the part's original location for later repairs.
    """

    message: int
    before: int
    new: Part


@dataclass(slots=True)
class SetMessage:
    """Replace message ``message`` with ``new`` (whose parts are taken as they are)."""

    message: int
    new: ModelMessage


@dataclass(slots=True)
class DropMessage:
    """Remove message ``message``."""

    message: int


@dataclass(slots=True)
class AddMessage:
    """Insert ``new`` right after message ``after`` (``-1``: at the start)."""

    after: int
    new: ModelMessage


Edit: TypeAlias = SetPart | DropPart | AddPart | SetMessage | DropMessage | AddMessage


TRIGGERS = frozenset(TRIGGER_LISTS)
"""The index lists a rule may name in :attr:`Rule.triggers`."""

NEEDS = TRIGGERS | frozenset(FACTS)
"""The index facts a rule may name in :attr:`Rule.needs`: a trigger list (non-empty), or a fact
of :data:`~heal.rules._index.FACTS`."""


# --- findings --------------------------------------------------------------------------------


@dataclass(slots=True)
class Finding:
    """One problem a rule found, with the edits that fix it under the chosen policy.

    ``message`` and ``part`` are current indices. ``removed`` and ``added`` are the parts or
    messages (models) that the fix takes out or puts in, or their JSON (a :class:`FreshJson`
    for one recorded over and over); the engine dumps them into the Repair.
    A finding with no edits is a report (``Action.REPORT``) or a kept problem (``Action.KEEP``).
    """

    action: Action
    message: int | None
    part: int | None
    reason: str
    edits: tuple[Edit, ...] = ()
    tool_call_id: str | None = None
    removed: Any = None
    added: Any = None
    anchor: int | None = None
    """For inserts and moves: current index of the message the item goes into or after."""


@dataclass(frozen=True, slots=True)
class FreshJson:
    """A finding's ``removed`` or ``added`` JSON that a rule records over and over (the part or
    message it adds in every turn): ``make`` returns it new at each call (a literal, say), and
    the engine puts ``make()`` in the record, which costs a tenth of copying the same JSON
    (every record owns its data)."""

    make: Callable[[], Any]


def renamed_id_finding(
    message: int, part: int, old: IdPart, tool_call_id: str, why: str
) -> Finding:
    """The finding that renames part ``part`` (``old``) of message ``message`` to
    ``tool_call_id`` because its id ``why`` (its reason: "tool-call id 'x' <why>; now 'y'"),
    with the :class:`RenamedId` edit: every rule that renames ids makes its findings here."""
    fields = old.__dict__  # two fields: one read of a pydantic model, not two
    old_id = fields["tool_call_id"]
    return Finding(
        Action.REPLACE,
        message,
        part,
        f"{fields['type']} id {old_id!r} {why}; now {tool_call_id!r}",
        # RenamedId.of, without its call: one finding per renamed part.
        (RenamedId(message, part, with_field(old, "tool_call_id", tool_call_id)),),
        old_id,
        {"toolCallId": old_id},
        {"toolCallId": tool_call_id},
    )


@final
class IdRenames:
    """Tool-call ids a rule renames, a batch of them: what its ``check`` returns instead of
    yielding one :func:`renamed_id_finding` per part.

    Iterating it gives exactly those findings, so it is a rule's findings like any other. The
    engine does not iterate it: it makes the same records, parts and messages in one loop,
    without a finding or an edit per part (a history moved to Mistral renames every id, and
    the objects in between were half its cost). ``tests/test_engine.py`` holds the two ways to
    the same result.
    """

    __slots__ = ("one_to_one", "renames", "why", "whys")

    def __init__(
        self,
        renames: list[tuple[int, int, IdPart, str]],
        why: str,
        *,
        one_to_one: bool = False,
        whys: Sequence[str] | None = None,
    ) -> None:
        self.renames = renames
        """Each part to rename, as ``(message, part, old part, new id)``, in the order of the
        findings and records (history order, unless the rule says otherwise), each place
        once."""
        self.why = why
        """What is wrong with every old id (a finding's reason, see ``renamed_id_finding``)."""
        self.whys = whys
        """When given, what is wrong with each old id in turn, one per rename, in place of
        :attr:`why` (a replayed call's id and the results that follow it read differently)."""
        self.one_to_one = one_to_one
        """True when the batch renames each old id in every part that holds it, always to the
        same new id, and to one no other part holds (old or new): which calls and results
        share an id is then as it was, and the pairing verdict is kept rather than computed
        again. False (the default) promises nothing."""

    @classmethod
    def mapped(
        cls, found: list[tuple[int, int, IdPart, str]], mapping: Mapping[str, str], why: str
    ) -> IdRenames:
        """The batch renaming each of ``found`` (every part of a history with an id, with its
        id, in history order) whose id ``mapping`` holds to its new id there: one to one when
        ``mapping`` names every id of a value to rename, each to one no other id is or
        becomes, as an id rule's ``renamed_ids`` does."""
        renames = [(m, p, part, mapping[tid]) for m, p, part, tid in found if tid in mapping]
        return cls(renames, why, one_to_one=True)

    def __len__(self) -> int:
        return len(self.renames)

    def __iter__(self) -> Iterator[Finding]:
        renames = self.renames
        whys = [self.why] * len(renames) if self.whys is None else self.whys
        for (m, p, part, new_id), why in zip(renames, whys, strict=True):
            yield renamed_id_finding(m, p, part, new_id, why)


@final
class PartsAtStart:
    """One part a rule puts at the start of each of several messages, a batch: what its
    ``check`` returns instead of yielding one finding per message (DeepSeek's empty reasoning
    before the calls of every assistant message, for a history from another provider).

    Iterating it gives exactly those findings: an insert of :attr:`part` at the start of each
    message, recorded at the message. The engine makes the same records and messages in one
    loop, as it does for :class:`IdRenames`.
    """

    __slots__ = ("added", "messages", "part", "reason")

    def __init__(self, messages: list[int], part: Part, reason: str, added: Any) -> None:
        self.messages = messages
        """The messages, each holding a list of parts, in history order, each once."""
        self.part = part
        """The part put in each (one object: parts are values)."""
        self.reason = reason
        """Each finding's reason."""
        self.added = added
        """Each finding's ``added``: the part's JSON, or a :class:`FreshJson` of it."""

    def __len__(self) -> int:
        return len(self.messages)

    def __iter__(self) -> Iterator[Finding]:
        part, reason, added = self.part, self.reason, self.added
        for m in self.messages:
            yield Finding(
                Action.INSERT, m, None, reason, (AddPart(m, 0, part),), None, None, added, m
            )


@final
class DroppedParts:
    """Parts a rule removes, a batch of them: what its ``check`` returns instead of yielding
    one finding per part (reasoning from another provider, replayed to Anthropic, in every
    assistant turn).

    Iterating it gives exactly those findings: a removal of each part, the part kept in its
    record. The engine makes the same records and messages in one loop, as it does for
    :class:`IdRenames`.
    """

    __slots__ = ("drops",)

    def __init__(self, drops: list[tuple[int, int, Part, str]]) -> None:
        self.drops = drops
        """Each part to remove, as ``(message, part, the part, reason)``, in history order,
        each place once."""

    def __len__(self) -> int:
        return len(self.drops)

    def __iter__(self) -> Iterator[Finding]:
        for m, p, part, reason in self.drops:
            yield Finding(Action.REMOVE, m, p, reason, (DropPart(m, p),), None, part)


# --- rule declaration ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RejectionPattern:
    """How heal recognises one provider error text, wherever it sits in an error.

    Declared once (the built-in ones in :mod:`heal.rules._errors`) and named by every
    :class:`Rejection` whose text it recognises, whichever rules cite it: :mod:`heal.reactive`
    derives the rules a pattern enables from those citations.
    """

    id: str
    """Kebab-case, who writes the text first (``openai-reasoning-without-following-item``): the
    id ``heal_after_error`` reports as matched."""
    regex: re.Pattern[str]
    """Searched for (``re.search``) in the error text, never anchored."""
    provider: str
    """Who answers this way (providers, gateways, the AI SDK itself, heal's adapters)."""
    source: str
    """Where the text was observed (issues, PRs, documentation)."""
    implies: ProviderId | None = None
    """The provider id this text identifies, when only one provider writes it: used when the
    caller of ``heal_after_error`` did not say which provider it called."""


@dataclass(frozen=True, slots=True)
class Rejection:
    """A documented provider rejection a rule prevents."""

    provider: str
    """Which provider (or providers) answer this way."""
    error: str
    """The provider's error text, verbatim."""
    source: str
    """Where the text was observed (issue, PR or documentation)."""
    pattern: RejectionPattern | None = None
    """The pattern that recognises ``error`` (every built-in rejection has one, and the registry
    test checks that it matches): ``heal_after_error`` runs the rule when it finds it in an
    error. ``None``: documentation only."""


@dataclass(frozen=True, slots=True)
class Example:
    """A before/after pair in AI SDK JSON. The registry test heals ``before`` and expects
    ``after``, so the documentation cannot drift from the behaviour."""

    before: list[dict[str, Any]]
    after: list[dict[str, Any]]
    provider: str | None = None
    choice: str | None = None
    policy: dict[str, str] | None = None
    """Other rules' choices the example needs (such as ``keep`` for a rule it stands in for)."""
    model: str | None = None
    """The target model the example heals for (see :class:`heal.targets.Target`)."""
    thinking: bool | None = None
    """The target request's thinking setting."""
    tools: tuple[str, ...] | None = None
    """The tools the target request offers."""


class Context:
    """What a rule sees: the current history, its index, and the target (``target``: the
    provider, and the model, thinking setting and tools when the caller gave them; see
    :class:`heal.targets.Target`).

    ``protected`` holds the indices of messages that no rule may edit for this provider (for
    Anthropic, the latest assistant message holding signed thinking must go back byte-identical).
    It is computed on first use from the ``protects`` method of the rules in the plan. The
    engine enforces it: a fix whose edits touch a protected message raises
    :class:`~heal.errors.ProtectedEditError`, unless its rule declares ``edits_protected``.
    """

    __slots__ = (
        "_guards",
        "_original",
        "_protected",
        "index",
        "memo",
        "messages",
        "profile",
        "provider",
        "target",
    )

    def __init__(
        self,
        messages: Sequence[ModelMessage],
        index: HistoryIndex,
        provider: ProviderId | None,
        profile: ProviderProfile,
        guards: Sequence[Rule] = (),
        *,
        target: Target | None = None,
        original: Sequence[ModelMessage] | None = None,
    ) -> None:
        self.messages = messages
        self.index = index
        self.provider = provider
        self.profile = profile
        self._guards = guards
        self._protected: frozenset[int] | None = None
        self.memo: dict[object, Any] = {}
        """What rules computed about this history and may share (keyed by whoever computes it:
        the latest signed message per :class:`~heal.rules.reasoning.Signing`, say); a new
        context comes with each edit, so nothing in it outlives the history it describes."""
        if target is None:
            from heal.targets import Target

            target = Target(provider)
        self.target = target
        self._original = messages if original is None else original

    def first_change(self) -> int | None:
        """The index of the first message where the current history differs from the caller's
        (a message changed, removed or inserted there), or None when nothing changed yet.
        Messages before it are the caller's own objects, in the caller's order."""
        current, original = self.messages, self._original
        if current is original:
            return None
        for i, (now, before) in enumerate(zip(current, original, strict=False)):
            if now is not before:
                return i
        shorter = min(len(current), len(original))
        return None if len(current) == len(original) else shorter

    @property
    def protected(self) -> frozenset[int]:
        """Indices of messages that must not be edited (see the class docstring)."""
        if self._protected is None:
            found: set[int] = set()
            for rule in self._guards:
                found.update(rule.protects(self))
            self._protected = frozenset(found)
        return self._protected


class Rule(ABC):
    """A history rule. Subclass it, set the class attributes, and implement :meth:`check`.

    Attributes are declared once, in one place, so that documentation, policy validation and
    the registry all read the same facts:

    * ``id``: kebab-case, names the problem (``orphan-tool-result``), never reused.
    * ``summary``: what it flags, in one line.
    * ``providers``: the provider ids it applies to; ``None`` for every provider.
    * ``choices``: the fixes it offers, default first. ``keep`` is always accepted too.
    * ``choice_docs``: for each choice, what it does and what it may lose.
    * ``scope``: whether its change belongs in stored history or only in this request.
    * ``default_enabled``: False for rules that only run when a policy enables them (or when a
      provider error names them).
    * ``rejections``: the provider errors it prevents, verbatim, with sources.
    * ``example``: a before/after history, checked by the test suite.
    * ``triggers``: optional speed hint, the :class:`~heal.rules._index.HistoryIndex` lists
      (see :data:`TRIGGERS`) of which at least one must be non-empty for the rule to find
      anything. The engine skips the rule when all of them are empty; ``None`` (the default)
      runs it always. A wrong hint hides problems, so the test suite checks every built-in
      rule's hint against generated histories.
    * ``needs``: optional, a finer speed hint than ``triggers``: the index facts
      (:data:`NEEDS`: the trigger lists, and the facts of :data:`~heal.rules._index.FACTS`,
      such as ``unpaired`` or ``invalid_tool_names``) of which at least one must hold for the
      rule to find anything. The engine skips the rule when none holds, and when none of the
      facts that the rules of a plan need holds, the history is clean for that plan (the
      verdict, :meth:`~heal.rules._index.HistoryIndex.clean`) and no rule runs at all.
      ``None`` (the default): the rule's ``triggers`` stand in for it (a rule with neither can
      always find something). A wrong declaration hides problems, so the test suite runs every
      rule on histories the verdict calls clean for it (``tests/test_verdict.py``).
    * ``models``: optional, a regular expression the target's model name must match
      (``re.match`` on :func:`heal.targets.model_name`) for the rule to run: a rule for one
      family of models. With it, the rule never runs when the caller gave no model. Rules that
      depend on a capability rather than on names override :meth:`enabled_for` instead.
    * ``edits_protected``: True for a rule whose fixes may edit a protected message (see
      :attr:`Context.protected`), such as removing from it a part the provider cannot take.
      Any other rule must skip protected messages: the engine raises
      :class:`~heal.errors.ProtectedEditError` when its edits change one (set it, or set, drop
      or add a part of it; removing it whole or inserting a message beside it sends none of it
      re-encoded, and is allowed).

    They are plain attributes, not class variables, so that a :class:`FamilyRule` instance can
    carry its own; a subclass sets them as class attributes, as above.
    """

    id: str
    summary: str
    providers: frozenset[str] | None = None
    choices: tuple[str, ...] = ("fix",)
    choice_docs: Mapping[str, str] = {}
    scope: Scope = Scope.HISTORY
    default_enabled: bool = True
    rejections: tuple[Rejection, ...] = ()
    example: Example | None = None
    triggers: frozenset[str] | None = None
    needs: frozenset[str] | None = None
    edits_protected: bool = False
    models: str | None = None

    @abstractmethod
    def check(self, ctx: Context, choice: str) -> Iterable[Finding]:
        """Return the problems in ``ctx`` and, for each, the edits that fix it under ``choice``.

        ``choice`` is one of :attr:`choices` (never ``keep``: the engine handles that by not
        applying the edits). Must not mutate anything it is given.
        """

    def protects(self, ctx: Context) -> Iterable[int]:
        """Indices of messages no rule may edit for this rule's providers. Override in rules
        that carry such a provider constraint; the default protects nothing."""
        del ctx
        return ()

    @property
    def may_protect(self) -> bool:
        """Whether :meth:`protects` can name any message: the plan asks only such rules (its
        guards). True when the class overrides :meth:`protects`; a family whose instances
        protect nothing for some providers says so here."""
        return type(self).protects is not Rule.protects

    def applies_to(self, provider: str | None) -> bool:
        """Whether the rule runs for this provider."""
        return self.providers is None or (provider is not None and provider in self.providers)

    def applies(self, target: Target) -> bool:
        """Whether the rule runs for this target: its provider (:meth:`applies_to`) and, when
        the rule names :attr:`models`, its model."""
        if not self.applies_to(target.provider):
            return False
        if self.models is None:
            return True
        if target.model is None:
            return False
        from heal.targets import model_name

        return re.match(self.models, model_name(target.model)) is not None

    def enabled_for(self, target: Target) -> bool | None:
        """Whether the target turns the rule on (True) or off (False) whatever its
        ``default_enabled``; None (the default) leaves that to ``default_enabled``. A rule whose
        problem exists only on models that lack a capability reads ``target.facts`` here, so it
        runs exactly when the target lacks it. A policy's ``enable`` / ``disable`` still win."""
        del target
        return None

    def __repr__(self) -> str:
        return f"<rule {self.id}>"


_F = TypeVar("_F")


class FamilyRule(Rule, Generic[_F]):
    """One implementation of a problem several providers share, declared once per provider.

    Where a plain rule declares itself in class attributes, a family splits the declaration: its
    class holds what every provider shares (:meth:`check`, and the attributes that do not vary,
    such as ``scope`` or ``triggers``), and each instance brings its provider's half: ``facts``,
    a small frozen dataclass the family defines (a namespace, a display name, a predicate), and
    the documentation, which reads exactly as a plain rule's (``doc`` becomes ``__doc__``).
    ``choices`` and ``choice_docs`` default to the family's.

    A family rule is registered like any other, once per provider, each under its own id.
    """

    facts: _F
    """This provider's facts, read by the family's :meth:`check`."""

    def __init__(
        self,
        *,
        id: str,
        doc: str,
        summary: str,
        providers: frozenset[str],
        rejections: tuple[Rejection, ...],
        example: Example,
        facts: _F,
        choices: tuple[str, ...] | None = None,
        choice_docs: Mapping[str, str] | None = None,
        default_enabled: bool = True,
    ) -> None:
        self.id = id
        self.__doc__ = doc
        self.summary = summary
        self.providers = providers
        self.rejections = rejections
        self.example = example
        self.facts = facts
        self.default_enabled = default_enabled
        if choices is not None:
            self.choices = choices
        if choice_docs is not None:
            self.choice_docs = choice_docs
        needs = self.needs_for(facts)
        if needs is not None:
            self.needs = needs

    def needs_for(self, facts: _F) -> frozenset[str] | None:
        """What this provider's rule needs (``needs``), when it depends on its ``facts`` (an
        index fact named after the provider's namespace, say); None: the family's ``needs``."""
        return None
