"""Fit a history to a token budget by dropping whole turns, oldest first, without orphaning.

Trimming a conversation to the model's context window is the first cause of broken histories:
cut at a message count or a token count, a trim leaves a tool result whose call went, or a call
whose result went, and the provider rejects the next request. :func:`fit` drops what a trim
drops, but only in units that cannot break, and then heals what it keeps for its target
(``heal.fit`` is this module's :func:`fit`; the module is not named ``fit``, which would shadow
the function as an attribute of the package once imported)::

    from heal import fit

    result = fit(history, 8_000, provider="anthropic", count=my_token_counter)
    result.messages   # healed, within 8,000 tokens whenever that is possible
    result.repairs    # what was dropped (rule "fit-budget") and what healing changed

**Turns.** A turn is a user message and every message after it up to the next user message:
the model's answer, its tool calls, their results, and the steps of a tool loop. (In the AI SDK
format heal works in, tool results are tool messages, so every user message starts a turn; the
user messages of a provider that carries tool results in them, such as Anthropic's, are tool
messages here.) Messages before the first user message (a history whose head was cut off) are a
turn of their own. System messages belong to no turn: they are always kept, where they are.

**Units.** Turns are dropped whole, so a tool loop stays with its user message, and a signed
thinking block with the tool calls and results it reasoned about. A call and its result are
normally in one turn; when a history holds them in different turns (a result recorded after the
next user message, an approval answered later), the turns from the call's to the result's are one
unit, dropped together or kept together. A result is linked to the nearest earlier call with its
id (the nearest later one when none is earlier), an approval response to its request the same
way, so a server that reuses ids in every turn (``call_0``) does not chain all turns together.

**What stays.** System messages; the pinned messages (indices in the caller's list) with the
messages they are linked to, so that a pinned result keeps its call and a pinned call its
results (the rest of their turns may go); and the newest unit, always, even when it alone is
over the budget: a request without its latest turn would answer another question, and an empty
history cannot be sent. Then the result says so (``fits`` is False, and a ``report`` record
gives the count).

**Budget.** Counted on what is returned, after healing (a placeholder result heal adds is
counted too), as the sum of ``count(message)`` over its messages. ``count`` takes a
:class:`~heal.messages.ModelMessage`; without it, :func:`estimate_tokens` estimates a quarter
token per character of the message's JSON. Units are dropped oldest first, as few as needed: the
result is the longest tail of units (with everything that stays) that fits, when any fits.
"""

from __future__ import annotations

import inspect
import json
import math
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from heal._engine import HealResult, heal_messages
from heal.errors import ConfigError
from heal.messages import (
    ModelMessage,
    ToolApprovalRequest,
    ToolApprovalResponse,
    ToolCallPart,
    ToolResultPart,
    load_messages,
)
from heal.policy import Policy
from heal.providers import ProviderId
from heal.repairs import Action, Repair, Scope, record_json
from heal.rules import Rule

__all__ = ["FIT_RULE", "FitResult", "estimate_tokens", "fit", "turns"]

FIT_RULE = "fit-budget"
"""The rule id of the records :func:`fit` makes: one ``remove`` per dropped message, and one
``report`` when what must stay is over the budget."""

CHARS_PER_TOKEN = 4
"""The estimate's ratio: about four characters a token, the usual rule of thumb for English
text with the OpenAI and Anthropic tokenizers. JSON punctuation and keys count as characters,
which overestimates a little: the safe side for a budget."""


def estimate_tokens(message: ModelMessage) -> int:
    """A rough token count of ``message``: the length of its AI SDK JSON, divided by
    :data:`CHARS_PER_TOKEN`, rounded up. Pass your tokenizer to :func:`fit` for an exact count;
    binary data (images, files) counts as its base64 text, which providers do not bill."""
    try:
        text = message.model_dump_json(exclude_unset=True)
    except ValueError:  # what pydantic's JSON writer refuses (a lone surrogate, ...)
        text = json.dumps(record_json(message), ensure_ascii=False)
    return math.ceil(len(text) / CHARS_PER_TOKEN)


@dataclass(frozen=True, slots=True)
class FitResult:
    """What :func:`fit` returns."""

    messages: list[ModelMessage]
    """The fitted history, healed for the target; untouched messages are the caller's objects
    (or, for dict input, the loaded models)."""
    repairs: tuple[Repair, ...]
    """A ``fit-budget`` record for each dropped message (``removed`` holds it), then what
    healing the rest changed, then a ``fit-budget`` report when even what must stay is over the
    budget. Every index is in the caller's input."""
    kept: tuple[int, ...]
    """The indices, in the caller's input, of the messages kept (before healing)."""
    tokens: int
    """The count of :attr:`messages`, with the counter :func:`fit` was given."""
    budget: int
    """The budget asked for."""

    @property
    def fits(self) -> bool:
        """True when :attr:`messages` is within the budget."""
        return self.tokens <= self.budget

    @property
    def dropped(self) -> tuple[int, ...]:
        """The indices, in the caller's input, of the messages dropped to fit."""
        return tuple(
            r.message_index
            for r in self.repairs
            if r.rule == FIT_RULE and r.action is Action.REMOVE and r.message_index is not None
        )


def fit(
    messages: Any,
    budget: int,
    *,
    provider: ProviderId | None = None,
    model: str | None = None,
    count: Callable[[ModelMessage], int] | None = None,
    pinned: Iterable[int] = (),
    policy: Policy | Mapping[str, str] | None = None,
    rules: Sequence[Rule] | None = None,
) -> FitResult:
    """Fit ``messages`` to ``budget`` tokens by dropping whole turns, oldest first, and heal what
    is kept for its target (see the module docstring for turns, units and what stays).

    Args:
        messages: message models, AI SDK message dicts, or JSON text or bytes (never mutated).
        budget: the most tokens the result may take, as ``count`` counts them.
        provider: the provider the history goes to, as for :func:`heal.heal_messages`.
        model: the model id, passed to :func:`heal.heal_messages` (which infers the provider
            from it when ``provider`` is not given).
        count: the token count of one message; :func:`estimate_tokens` by default.
        pinned: indices (in ``messages``; negative ones count from the end) of messages to keep
            whatever the budget, with the messages they are linked to.
        policy: per-rule choices for the healing, as for :func:`heal.heal_messages`.
        rules: extra rules for the healing, as for :func:`heal.heal_messages`.

    Raises:
        ConfigError: a negative or non-integer budget, or a pinned index outside ``messages``.
    """
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
        raise ConfigError(f"budget must be a non-negative integer, got {budget!r}")
    loaded = load_messages(messages)
    n = len(loaded)
    keep_always = _pinned(pinned, n)
    counter = _Counter(count or estimate_tokens)
    heal = _healer(provider, model, policy, rules)
    if not loaded:
        return FitResult([], (), (), 0, budget)

    links = _links(loaded)
    units = _units(loaded, links)
    keep_always = _closure(keep_always, links) | set(units[-1])
    keep_always |= {i for i, m in enumerate(loaded) if m.role == "system"}
    # What each older unit gives up when dropped: its messages that need not stay.
    older = [
        (unit, [i for i in unit if i not in keep_always])
        for unit in units[:-1]
        if not keep_always.issuperset(unit)
    ]
    search = _Search(loaded, [dropped for _, dropped in older], heal, counter, budget)
    k = search.fewest_drops()
    trial = search.trial(k)

    repairs: list[Repair] = []
    for unit, dropped in older[:k]:
        turns_in = "turns" if sum(loaded[i].role == "user" for i in unit) > 1 else "turn"
        span = f"messages {unit[0]} to {unit[-1]}" if len(unit) > 1 else f"message {unit[0]}"
        why = f"dropped with its {turns_in} ({span}) to fit the budget of {budget} tokens"
        repairs += [
            Repair(
                rule=FIT_RULE,
                action=Action.REMOVE,
                message_index=i,
                part_index=None,
                reason=why,
                removed=record_json(loaded[i]),
                scope=Scope.REQUEST,
            )
            for i in dropped
        ]
    repairs += [_in_input(r, trial.kept) for r in trial.healed.repairs]
    if trial.tokens > budget:
        repairs.append(
            Repair(
                rule=FIT_RULE,
                action=Action.REPORT,
                message_index=None,
                part_index=None,
                reason=(
                    f"what must stay (system and pinned messages and the newest turn) takes "
                    f"{trial.tokens} tokens, over the budget of {budget}; it is returned whole"
                ),
                scope=Scope.REQUEST,
            )
        )
    return FitResult(trial.healed.messages, tuple(repairs), trial.kept, trial.tokens, budget)


def turns(messages: Any) -> list[list[int]]:
    """The turns of ``messages`` (see the module docstring), as lists of message indices; system
    messages are in none."""
    loaded = load_messages(messages)
    found: list[list[int]] = []
    for i, message in enumerate(loaded):
        if message.role == "system":
            continue
        if message.role == "user" or not found:
            found.append([])
        found[-1].append(i)
    return found


# --- links and units -------------------------------------------------------------------------


def _links(messages: Sequence[ModelMessage]) -> dict[int, set[int]]:
    """The messages each message must travel with: a result and its call, an approval request
    and its call, an approval response and its request (both ways).

    A reference goes to the nearest earlier definition with its id, else the nearest later one.
    """
    calls: dict[str, list[int]] = {}
    requests: dict[str, list[int]] = {}
    refs: list[tuple[int, dict[str, list[int]], str]] = []
    for i, message in enumerate(messages):
        content = message.content
        if isinstance(content, str):
            continue
        for part in content:
            if isinstance(part, ToolCallPart):
                calls.setdefault(part.tool_call_id, []).append(i)
            elif isinstance(part, ToolResultPart):
                refs.append((i, calls, part.tool_call_id))
            elif isinstance(part, ToolApprovalRequest):
                requests.setdefault(part.approval_id, []).append(i)
                refs.append((i, calls, part.tool_call_id))
            elif isinstance(part, ToolApprovalResponse):
                refs.append((i, requests, part.approval_id))
    links: dict[int, set[int]] = {}
    for i, table, key in refs:
        places = table.get(key)
        if not places:
            continue
        at = bisect_right(places, i)
        j = places[at - 1] if at else places[0]
        if j != i:
            links.setdefault(i, set()).add(j)
            links.setdefault(j, set()).add(i)
    return links


def _units(messages: Sequence[ModelMessage], links: Mapping[int, set[int]]) -> list[list[int]]:
    """The turns, with the turns between two linked messages joined into one unit."""
    found = turns(messages)
    turn_of = {i: t for t, turn in enumerate(found) for i in turn}
    # crossing[t] > 0 after the running sum: a link crosses from turn t to turn t + 1.
    crossing = [0] * (len(found) + 1)
    for i, others in links.items():
        for j in others:
            if i < j and turn_of[i] != turn_of[j]:
                crossing[turn_of[i]] += 1
                crossing[turn_of[j]] -= 1
    units: list[list[int]] = []
    open_links = 0
    for t, turn in enumerate(found):
        if open_links > 0:
            units[-1].extend(turn)
        else:
            units.append(list(turn))
        open_links += crossing[t]
    return units


def _closure(start: Iterable[int], links: Mapping[int, set[int]]) -> set[int]:
    seen = set(start)
    todo = list(seen)
    while todo:
        for j in links.get(todo.pop(), ()):
            if j not in seen:
                seen.add(j)
                todo.append(j)
    return seen


def _pinned(pinned: Iterable[int], n: int) -> set[int]:
    found: set[int] = set()
    for index in pinned:
        if isinstance(index, bool) or not isinstance(index, int) or not -n <= index < n:
            raise ConfigError(f"pinned index {index!r} is not a message of the {n} given")
        found.add(index % n)
    return found


# --- the search ------------------------------------------------------------------------------


class _Counter:
    """The caller's counter, asked once per message object (healing shares the untouched ones)."""

    __slots__ = ("_count", "_seen")

    def __init__(self, count: Callable[[ModelMessage], int]) -> None:
        self._count = count
        self._seen: dict[int, tuple[ModelMessage, int]] = {}  # keeps the message: ids stay unique

    def __call__(self, message: ModelMessage) -> int:
        found = self._seen.get(id(message))
        if found is not None:
            return found[1]
        tokens = self._count(message)
        if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
            raise ConfigError(f"count must return a non-negative integer, got {tokens!r}")
        self._seen[id(message)] = (message, tokens)
        return tokens

    def total(self, messages: Iterable[ModelMessage]) -> int:
        return sum(map(self, messages))


_Heal = Callable[[list[ModelMessage]], HealResult]


def _healer(
    provider: ProviderId | None,
    model: str | None,
    policy: Policy | Mapping[str, str] | None,
    rules: Sequence[Rule] | None,
) -> _Heal:
    options: dict[str, Any] = {"provider": provider, "policy": policy, "rules": rules}
    if model is not None:
        if "model" not in inspect.signature(heal_messages).parameters:
            raise ConfigError("this version of heal_messages takes no model=")
        options["model"] = model
    # Fail on a bad provider or policy before any work, as heal_messages would.
    heal_messages([], **options)

    def heal(messages: list[ModelMessage]) -> HealResult:
        return heal_messages(messages, **options)

    return heal


@dataclass(frozen=True, slots=True)
class _Trial:
    kept: tuple[int, ...]
    healed: HealResult
    tokens: int


class _Search:
    """Finds the fewest oldest units to drop, healing and counting each candidate once."""

    def __init__(
        self,
        messages: list[ModelMessage],
        droppable: list[list[int]],
        heal: _Heal,
        counter: _Counter,
        budget: int,
    ) -> None:
        self.messages = messages
        self.droppable = droppable
        self.heal = heal
        self.counter = counter
        self.budget = budget
        self.trials: dict[int, _Trial] = {}

    def trial(self, k: int) -> _Trial:
        """The history with the ``k`` oldest droppable units dropped, healed and counted."""
        found = self.trials.get(k)
        if found is None:
            gone = {i for unit in self.droppable[:k] for i in unit}
            kept = tuple(i for i in range(len(self.messages)) if i not in gone)
            healed = self.heal([self.messages[i] for i in kept])
            found = _Trial(kept, healed, self.counter.total(healed.messages))
            self.trials[k] = found
        return found

    def fits(self, k: int) -> bool:
        return self.trial(k).tokens <= self.budget

    def fewest_drops(self) -> int:
        """The smallest ``k`` whose trial fits, or the largest when none does.

        Healing changes a history's size only a little, so the first guess is the smallest ``k``
        whose messages fit before healing; from there a galloping search, then bisection, each
        keeping a ``k`` known to fit as the upper bound: whatever healing does to the counts, the
        answer fits when the largest ``k`` does.
        """
        last = len(self.droppable)
        if self.fits(0):
            return 0
        if last == 0 or not self.fits(last):
            return last
        raw = self.counter.total(self.messages)
        guess = 0
        while guess < last and raw > self.budget:
            raw -= self.counter.total(self.messages[i] for i in self.droppable[guess])
            guess += 1
        guess = max(guess, 1)
        if self.fits(guess):
            low, high = 1, guess  # the answer is in low..high, and high fits
        else:
            low, step = guess + 1, 1
            high = min(guess + step, last)
            while not self.fits(high):
                low = high + 1
                step *= 2
                high = min(guess + step, last)
        while low < high:
            middle = (low + high) // 2
            if self.fits(middle):
                high = middle
            else:
                low = middle + 1
        return high


def _in_input(repair: Repair, kept: Sequence[int]) -> Repair:
    """A repair of the kept messages, located in the caller's input."""

    def where(index: int | None) -> int | None:
        return None if index is None else kept[index]

    if repair.message_index is None and repair.anchor_index is None:
        return repair
    return repair.model_copy(
        update={
            "message_index": where(repair.message_index),
            "anchor_index": where(repair.anchor_index),
        }
    )
