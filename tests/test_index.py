"""The history index decides pairing during its scan for ordinary histories; it must agree with
the plain definition (``HistoryIndex._check_paired``) on every history."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heal import dump_messages, heal_messages, load_messages
from heal._engine import heal_not_plain
from heal.messages import ReasoningPart, TextPart
from heal.rules._base import RenamedId
from heal.rules._index import FACTS, HistoryIndex
from heal.rules._options import results_not_first
from tests.strategies import histories
from tests.test_cases import CASES


def _call(cid: str, tool_input: Any = None) -> dict[str, Any]:
    input_ = {} if tool_input is None else tool_input
    return {"type": "tool-call", "toolCallId": cid, "toolName": "f", "input": input_}


def _result(cid: str) -> dict[str, Any]:
    return {
        "type": "tool-result",
        "toolCallId": cid,
        "toolName": "f",
        "output": {"type": "text", "value": "ok"},
    }


def _agree(history: Any) -> bool:
    index = HistoryIndex(load_messages(history))
    assert index.paired == index._check_paired()
    return index.paired


USER = {"role": "user", "content": "go"}
EXAMPLES = [
    pytest.param([USER, {"role": "assistant", "content": [_call("a")]}], False, id="orphan call"),
    pytest.param([{"role": "tool", "content": [_result("a")]}, USER], False, id="result first"),
    pytest.param(
        [
            USER,
            {"role": "assistant", "content": [_call("a"), _call("b")]},
            {"role": "tool", "content": [_result("b")]},
            {"role": "tool", "content": [_result("a")]},
        ],
        True,
        id="parallel results in two tool messages",
    ),
    pytest.param(
        [
            USER,
            {"role": "assistant", "content": [_call("a")]},
            USER,
            {"role": "tool", "content": [_result("a")]},
        ],
        False,
        id="user turn between call and result",
    ),
    pytest.param(
        [
            USER,
            {"role": "assistant", "content": [_call("a")]},
            {"role": "tool", "content": [_result("a")]},
            {"role": "assistant", "content": [_call("a")]},
            {"role": "tool", "content": [_result("a")]},
        ],
        False,
        id="one id used twice",
    ),
    pytest.param(
        [
            USER,
            {"role": "assistant", "content": [_call("a")]},
            {"role": "tool", "content": [_result("a"), _result("a")]},
        ],
        False,
        id="result twice",
    ),
]


@pytest.mark.parametrize(("history", "paired"), EXAMPLES)
def test_pairing_examples(history: Any, paired: bool) -> None:
    assert _agree(history) is paired


@pytest.mark.parametrize(
    "history",
    [p.values[1].get("input", p.values[1].get("ok")) for p in CASES],
    ids=[p.id for p in CASES],
)
def test_the_scan_agrees_with_the_definition_on_every_case(history: Any) -> None:
    _agree(history)


@given(histories())
def test_the_scan_agrees_with_the_definition(history: Any) -> None:
    _agree(history)


def _shortcut_facts(index: HistoryIndex) -> dict[str, bool]:
    """The facts that answer from another fact, or from what the scan noted, when they can, by
    their definition."""
    ids = index.call_ids
    roles = index.roles
    pairs = list(pairwise(roles))
    options = [ref[2].provider_options for ref in index.calls]
    options += [ref[2].provider_options for ref in index.results]
    return {
        "duplicate_call_ids": len(set(ids)) != len(ids),
        "only_system": all(role == "system" for role in roles),
        "same_role_runs": any(a == b for a, b in pairs),
        "user_after_tool": ("tool", "user") in pairs,
        "results_not_first": any(
            results_not_first(index.messages[i + 1])
            for i, pair in enumerate(pairs)
            if pair == ("tool", "user")
        ),
        "tool_options": any(found is not None for found in options),
        "anthropic_tool_options": any(
            found is not None and "anthropic" in found for found in options
        ),
    }


def _ask_facts(history: Any) -> None:
    # duplicate_call_ids answers from the pairing verdict once it is known (paired client
    # calls each have their own id); only_system from the last role; the role and option facts
    # from what the scan noted. Asked before and after the verdict is computed, each must say
    # what its definition says.
    from heal.providers import get_profile
    from heal.targets import Target

    messages = load_messages(history)
    target, profile = Target.of(None), get_profile(None)
    for verdict_first in (False, True):
        index = HistoryIndex(messages)
        if verdict_first:
            assert index.paired in (True, False)
        for name, want in _shortcut_facts(index).items():
            assert FACTS[name](index, target, profile) is want, name


@pytest.mark.parametrize(("history", "paired"), EXAMPLES)
def test_facts_with_a_shortcut_agree_with_their_definition_in_the_examples(
    history: Any, paired: bool
) -> None:
    _ask_facts(history)
    _ask_facts([{"role": "system", "content": "be brief"}])
    _ask_facts([{"role": "system", "content": "be brief"}, *history])


@given(histories())
def test_facts_with_a_shortcut_agree_with_their_definition(history: Any) -> None:
    _ask_facts(history)


# --- parts and messages of subclassed models -------------------------------------------------

_FACTS = (
    "roles", "strings", "empty", "texts", "texts_after_calls", "calls", "call_ids", "tool_names",
    "unusual_inputs", "results", "outputs", "content_outputs", "reasoning", "requests",
    "responses", "files", "images", "present",
)  # fmt: skip
_SUBCLASSES: dict[type[Any], type[Any]] = {}


def _subclassed(model: Any) -> Any:
    """The same model as an instance of a subclass of its class (as a caller's own models are):
    the scan's ``type(x) is`` fast path does not see it, the index's slower path must."""
    cls = type(model)
    sub = _SUBCLASSES.setdefault(cls, type(f"My{cls.__name__}", (cls,), {}))
    values = dict(model)
    content = values.get("content")
    if isinstance(content, tuple):
        values["content"] = tuple(_subclassed(part) for part in content)
    return sub.model_construct(_fields_set=model.model_fields_set, **values)


def _shown(item: Any) -> str:
    # References hold the parts themselves: show them by their dumps.
    if isinstance(item, tuple):
        return repr(tuple(x.model_dump() if hasattr(x, "model_dump") else x for x in item))
    return repr(item)


def _facts(index: HistoryIndex) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in _FACTS:
        value = getattr(index, name)
        out[name] = [_shown(x) for x in value] if isinstance(value, list) else sorted(value)
    out["paired"] = index.paired
    out.update(_noted(index))
    return out


@settings(max_examples=60)
@given(histories())
def test_subclassed_parts_give_the_same_facts(history: Any) -> None:
    plain = load_messages(history)
    mine = [_subclassed(message) for message in plain]
    assert all(type(m) is not type(p) for m, p in zip(mine, plain, strict=True))
    got, want = _facts(HistoryIndex(mine)), _facts(HistoryIndex(plain))
    # The scan lists only the parts a rule may act on (blank or non-ASCII texts, content
    # outputs...); the path for subclassed parts may list more, which is safe: these lists are
    # triggers, hints that a rule then checks. Everything else must be the same.
    for loose in ("texts", "texts_after_calls", "outputs", "content_outputs", "present"):
        assert set(want.pop(loose)) <= set(got.pop(loose)), loose
    assert got == want
    healed_mine, healed_plain = heal_messages(mine), heal_messages(plain)
    assert dump_messages(healed_mine.messages) == dump_messages(healed_plain.messages)
    assert healed_mine.repairs == healed_plain.repairs


# --- the index of an edited history ----------------------------------------------------------


def _exact(index: HistoryIndex) -> dict[str, Any]:
    """Every fact of an index, references by the identity of the parts they hold."""
    out: dict[str, Any] = {}
    for name in _FACTS:
        value = getattr(index, name)
        if isinstance(value, list):
            out[name] = [(x[0], x[1], id(x[2])) if isinstance(x, tuple) else x for x in value]
        else:
            out[name] = sorted(value)
    out["paired"] = index.paired
    out["executed"] = index._executed
    out.update(_noted(index))
    return out


def _noted(index: HistoryIndex) -> dict[str, bool]:
    """The facts the scan notes (an index made otherwise carries them, or asks the history)."""
    from heal.providers import get_profile
    from heal.targets import Target

    target, profile = Target.of(None), get_profile(None)
    names = ("user_after_tool", "tool_options")
    return {name: FACTS[name](index, target, profile) for name in names}


def _checking_edits(patch: pytest.MonkeyPatch, kept_facts: list[int] | None = None) -> list[int]:
    """Make every index the engine builds after an edit be compared with a scan of the edited
    history (the facts it kept from the index before, too), and take the runs path whatever
    the runs (``_rescan`` would often scan instead). Returns the list that counts the indexes
    compared; ``kept_facts``, when given, gets the number of facts each kept."""
    import heal.rules._index as index_module

    done: list[int] = []
    if kept_facts is None:
        kept_facts = []
    after_edit = HistoryIndex.after_edit

    def checked(
        self: HistoryIndex,
        messages: Any,
        kept: Any,
        renamed: Any = None,
        added: Any = None,
        **dropped: Any,
    ) -> HistoryIndex:
        if self._held is not None:
            # The engine asked some facts of the history before the edit: ask them all, so
            # that every fact the edited index may keep is compared below.
            target, profile = self._held_for
            for fact in index_module.FACTS.values():
                self.holds([fact], target, profile)
        got = after_edit(self, messages, kept, renamed, added, **dropped)
        fresh = HistoryIndex(messages)
        assert _exact(got) == _exact(fresh)
        if got._held:  # facts kept from the index before the edit
            target, profile = got._held_for
            assert got._held == {fact: fact(fresh, target, profile) for fact in got._held}
            kept_facts.append(len(got._held))
        done.append(1)
        return got

    patch.setattr(HistoryIndex, "after_edit", checked)
    patch.setattr(index_module, "_rescan", lambda n, kept: False)
    return done


def test_the_index_after_an_edit_is_the_scan_of_the_edited_history_in_every_case(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.case_runner import policy_of, target_of

    checked_edits = _checking_edits(monkeypatch)
    for param in CASES:
        case = param.values[1]
        if "input" in case:
            heal_messages(case["input"], target=target_of(case), policy=policy_of(case))
    assert len(checked_edits) > 100  # the cases made edits


@settings(max_examples=150)
@given(history=histories(), subclassed=st.booleans())
def test_the_index_after_an_edit_is_the_scan_of_the_edited_history(
    history: Any, subclassed: bool
) -> None:
    messages = load_messages(history)
    if subclassed:
        messages = [_subclassed(message) for message in messages]
    with pytest.MonkeyPatch.context() as patch:
        done = _checking_edits(patch)
        for provider in (
            None,
            "anthropic",
            "bedrock",
            "deepseek",
            "google",
            "mistral",
            "openai-responses",
        ):
            heal_messages(messages, provider=provider)
    assert done or not heal_messages(messages).changed


def test_long_histories_with_a_repair_in_every_turn_are_indexed_by_runs() -> None:
    from benchmarks.corpus import orphan_every_turn
    from benchmarks.run import replayed_id_every_turn

    for build in (orphan_every_turn, replayed_id_every_turn):
        messages = load_messages(build(300))
        with pytest.MonkeyPatch.context() as patch:
            done = _checking_edits(patch)
            heal_messages(messages, provider="anthropic")
        assert done


@given(st.lists(st.sampled_from(("system", "user", "assistant", "tool")), max_size=30))
def test_users_after_tool_are_found_by_one_search(roles: list[str]) -> None:
    # The search over the joined roles finds what looking after every tool message finds.
    from types import SimpleNamespace

    from heal.rules._index import users_after_tool

    index: Any = SimpleNamespace(roles=roles)
    expected = [i for i in range(1, len(roles)) if roles[i - 1] == "tool" and roles[i] == "user"]
    assert list(users_after_tool(index)) == expected


def _renamed(messages: list[Any], places: list[tuple[int, int]], new_id: str) -> Any:
    """``messages`` with the parts at ``places`` renamed to ``new_id``, as the engine applies
    :class:`RenamedId` edits, and the renames as the engine passes them to the index."""
    out = list(messages)
    renamed = []
    for m, p in places:
        edit = RenamedId.of(m, p, out[m].content[p], new_id)
        content = list(out[m].content)
        content[p] = edit.new
        out[m] = out[m].model_copy(update={"content": tuple(content)})
        renamed.append((m, p, edit.new))
    return out, renamed


def _counting_scans(patch: pytest.MonkeyPatch) -> list[int]:
    """Make every index scan note the length of what it scans, in the list returned."""
    scans: list[int] = []
    scan = HistoryIndex._scan

    def counting(self: HistoryIndex, scanned: Any) -> Any:
        scans.append(len(scanned))
        return scan(self, scanned)

    patch.setattr(HistoryIndex, "_scan", counting)
    return scans


def test_renamed_ids_are_indexed_without_a_scan() -> None:
    messages = load_messages(
        [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [_call("call.1"), _call("call.2", "raw")]},
            {"role": "tool", "content": [_result("call.1"), _result("call.2")]},
        ]
    )
    index = HistoryIndex(messages)
    assert index.paired
    # A call renamed and one of its results not: no longer paired. One part object sitting
    # in two places, renamed in one: the other keeps its id (renames go by place).
    shared = messages[1].content[0]
    twice = [*messages[:2], messages[2].model_copy(update={"content": (shared,)})]
    for history, places in (
        (messages, [(1, 0), (1, 1), (2, 1)]),
        (messages, [(1, 1)]),
        (twice, [(1, 0)]),
    ):
        old = HistoryIndex(history)
        edited, renamed = _renamed(history, places, "x")
        with pytest.MonkeyPatch.context() as patch:
            scans = _counting_scans(patch)
            got = old.after_edit(edited, [], renamed)
        assert not scans
        assert _exact(got) == _exact(HistoryIndex(edited))
    assert not HistoryIndex(_renamed(messages, [(1, 0)], "x")[0]).paired


def test_histories_moved_to_mistral_are_indexed_without_a_scan_after_the_renames() -> None:
    messages = load_messages(
        [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [_call("call_1")]},
            {"role": "tool", "content": [_result("call_1")]},
        ]
    )
    kept_facts: list[int] = []
    pairings: list[int] = []
    check_paired = HistoryIndex._check_paired

    def counting_pairings(self: HistoryIndex) -> bool:
        pairings.append(1)
        return check_paired(self)

    with pytest.MonkeyPatch.context() as patch:
        _checking_edits(patch, kept_facts)
        scans = _counting_scans(patch)
        patch.setattr(HistoryIndex, "_check_paired", counting_pairings)
        # heal_messages renames a history this plain without the index at all (see
        # tests/test_quick.py); heal_not_plain without renames takes the index's way, which
        # this test follows.
        healed = heal_not_plain(messages, provider="mistral", renames=False)
    assert [r.rule for r in healed.repairs] == ["mistral-tool-call-id"] * 2
    # The scans: the history, then each index the check compares with; none after the edit.
    assert scans == [3, 3]
    # Each id renamed everywhere, to its own new id: the pairing verdict was kept, not
    # computed again, and so were the facts of which parts share an id; the two that read
    # what the ids are like were computed again (all compared with a scan's).
    assert pairings == []
    assert kept_facts and kept_facts[0] == len(FACTS) - 2


def test_reasoning_inserted_for_deepseek_is_indexed_without_a_scan() -> None:
    # DeepSeek inserts an empty reasoning part before the calls of the turns without
    # reasoning (the parts after it move along), and the index follows without a scan.
    messages = load_messages(
        [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [{"type": "text", "text": "a"}, _call("c1")]},
            {"role": "tool", "content": [_result("c1")]},
            {"role": "user", "content": "again"},
            {"role": "assistant", "content": [{"type": "reasoning", "text": "r"}, _call("c2")]},
            {"role": "tool", "content": [_result("c2")]},
            {"role": "user", "content": "and"},
            {"role": "assistant", "content": [_call("c3"), _call("c4")]},
            {"role": "tool", "content": [_result("c3"), _result("c4")]},
        ]
    )
    with pytest.MonkeyPatch.context() as patch:
        done = _checking_edits(patch)
        scans = _counting_scans(patch)
        healed = heal_messages(messages, provider="deepseek")
    assert [(r.rule, r.message_index) for r in healed.repairs] == [
        ("missing-reasoning-content", 1),
        ("missing-reasoning-content", 7),
    ]
    # The history, then the scan the check compares the index after the edit with: the
    # index after the edit was made without one.
    assert done == [1] and scans == [9, 9]


def test_reasoning_removed_for_anthropic_is_indexed_without_a_scan() -> None:
    # Another provider's reasoning is stripped from every turn for Anthropic (the parts after
    # it move back, in every list), and the index follows without a scan.
    foreign = {"type": "reasoning", "text": "r", "providerOptions": {"openai": {"itemId": "rs"}}}
    history = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [foreign, {"type": "text", "text": "a"}, _call("c1")]},
        {"role": "tool", "content": [_result("c1")]},
        {"role": "user", "content": "again"},
        {"role": "assistant", "content": [{"type": "text", "text": " "}, foreign, _call("c2")]},
        {"role": "tool", "content": [_result("c2")]},
        {"role": "assistant", "content": [foreign, foreign, {"type": "text", "text": "done"}]},
    ]
    with pytest.MonkeyPatch.context() as patch:
        done = _checking_edits(patch)
        scans = _counting_scans(patch)
        healed = heal_messages(load_messages(history), provider="anthropic")
    dropped = "anthropic-strip-foreign-reasoning-content"
    assert [(r.rule, r.message_index, r.part_index) for r in healed.repairs][:4] == [
        (dropped, 1, 0),
        (dropped, 4, 1),
        (dropped, 6, 0),
        (dropped, 6, 1),
    ]
    # The history, then the scan the check compares the index after the edit with: the
    # index after the removal was made without one (the blank text's repair comes after it).
    assert scans[:2] == [7, 7] and done
    # A message the removal leaves without parts is empty now: indexed from the runs kept,
    # which scan it.
    emptied = [*history[:6], {"role": "assistant", "content": [foreign]}, history[0]]
    index = HistoryIndex(load_messages(emptied))
    now = list(index.messages)
    now[6] = now[6].model_copy(update={"content": ()})
    assert index._after_reasoning_dropped(now, {6: {0}}) is None
    got = index.after_edit(now, [(0, 0, 6), (7, 7, 1)], reasoning_dropped={6: {0}})
    assert _exact(got) == _exact(HistoryIndex(now)) and got.empty == [6]


def test_an_insertion_the_index_cannot_follow_is_indexed_by_a_scan() -> None:
    messages = load_messages(
        [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [_call("c1")]},
            {"role": "tool", "content": [_result("c1")]},
        ]
    )
    index = HistoryIndex(messages)
    reasoning = ReasoningPart(text="")
    inserted = list(messages)
    inserted[1] = messages[1].model_copy(update={"content": (reasoning, *messages[1].content)})
    # Told where the part went (at the start, as the engine says), or told to look.
    for where in ({1: 1}, {1: 0}):
        got = index.after_edit(inserted, [], None, where)
        assert _exact(got) == _exact(HistoryIndex(inserted))
        assert [(m, p) for m, p, _ in got.reasoning] == [(1, 0)] and got.calls[0][1] == 1
    # Something other than reasoning inserted, or a part replaced: a look tells, and a scan
    # indexes it.
    for content in ((TextPart(text="x"), *messages[1].content), (reasoning,)):
        other = list(messages)
        other[1] = messages[1].model_copy(update={"content": content})
        assert _exact(index.after_edit(other, [], None, {1: 0})) == _exact(HistoryIndex(other))
    # A message that held nothing is no longer empty: a scan says so.
    held_nothing = load_messages(
        [{"role": "user", "content": "go"}, {"role": "assistant", "content": []}]
    )
    now = [held_nothing[0], held_nothing[1].model_copy(update={"content": (reasoning,)})]
    got = HistoryIndex(held_nothing).after_edit(now, [], None, {1: 1})
    assert _exact(got) == _exact(HistoryIndex(now)) and got.empty == []
