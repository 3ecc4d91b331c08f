"""Property tests for the engine's guarantees (see the docstring of ``heal._engine``).

Histories come from :mod:`tests.strategies`: valid ones, and valid ones with 1-4 defects. Each
property is its own test, so a failure names the guarantee it breaks; hypothesis shrinks it to a
minimal history. Profiles (example counts, derandomization in CI) are set in ``conftest.py``.

1-3 (every provider): idempotent; the output validates; the input is never mutated.
4-6: valid histories come back untouched (the same objects); healing is deterministic, also
across hash seeds; load/dump round-trips.
7-10: user text is never removed; every removal is in a Repair; validate agrees with heal;
repairs serialize to JSON (and to UTF-8).
11-12, checked by this file's own code rather than heal's rules: the output is well formed;
results already in place for their call survive.
"""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from heal import Action, Repair, dump_messages, heal_messages, load_messages, validate_messages
from tests.strategies import histories, policies, valid_histories

PROVIDERS: list[Any] = [None, "anthropic", "openai-chat"]
"""The shared rules alone, and two provider packs: every guarantee must hold for each."""

History = list[dict[str, Any]]
Policy = Mapping[str, str] | None


def _changing(repairs: Sequence[Repair]) -> list[str]:
    return [r.describe() for r in repairs if r.changed]


# Minimal histories that broke a property once, pinned so that every run (CI's derandomized one
# included) checks them first.


def _call(cid: str, name: str = "search", **extra: Any) -> dict[str, Any]:
    return {"type": "tool-call", "toolCallId": cid, "toolName": name, "input": {}, **extra}


def _result(cid: str, value: str = "ok", name: str = "search") -> dict[str, Any]:
    output = {"type": "text", "value": value}
    return {"type": "tool-result", "toolCallId": cid, "toolName": name, "output": output}


SIGNED_THINKING_THEN_PLAIN_TOOL_LOOP: History = [
    {"role": "user", "content": "hi"},
    {
        "role": "assistant",
        "content": [
            {
                "type": "reasoning",
                "text": "hmm",
                "providerOptions": {"anthropic": {"signature": "sig"}},
            },
            {"type": "text", "text": "ok"},
        ],
    },
    {"role": "user", "content": "weather?"},
    {"role": "assistant", "content": [_call("c1")]},
    {"role": "tool", "content": [_result("c1", "sunny")]},
]
"""Anthropic: ``anthropic-tool-loop-thinking`` reports (Action.REPORT) on the healed output."""

ORPHAN_RESULT_WITH_LONE_SURROGATE: History = [
    {"role": "user", "content": "hi"},
    {"role": "tool", "content": [_result("c", "\ud83d")]},
]
"""The orphan result is removed before ``lone-surrogate`` runs: its Repair holds the raw
surrogate, which no UTF-8 encoder accepts."""

PROVIDER_AND_CLIENT_CALL_SHARE_AN_ID: History = [
    {"role": "user", "content": "hi"},
    {
        "role": "assistant",
        "content": [
            _call("a", "web_search", providerExecuted=True),
            _result("a", "found", "web_search"),
            _call("a", "f"),
        ],
    },
    {"role": "tool", "content": [_result("a", "the client result", "f")]},
]
"""``duplicate-tool-call-id`` renames the client call but gives its result to the provider-run
call; the result is then removed and the client call gets a placeholder."""

PROVIDER_RESULT_IN_A_TOOL_MESSAGE: History = [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": [_call("srv_1", "web_search", providerExecuted=True)]},
    {"role": "tool", "content": [_result("srv_1")]},
]

PROVIDER_RESULT_AWAY_FROM_ITS_CALL: History = [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": [_result("p1")]},
    {"role": "user", "content": "again"},
    {"role": "assistant", "content": [_call("p1", providerExecuted=True), _result("p1")]},
]
"""A provider-run result in an assistant message without its call (which is in a later
message, with its own result) is kept."""


# --- 1-3: idempotent, validates, never mutates (every provider) -----------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
@given(x=histories(), policy=policies)
@example(x=PROVIDER_AND_CLIENT_CALL_SHARE_AN_ID, policy=None)
@example(x=PROVIDER_RESULT_AWAY_FROM_ITS_CALL, policy=None)
def test_idempotent(provider: Any, x: History, policy: Policy) -> None:
    h1 = heal_messages(x, provider=provider, policy=policy)
    h2 = heal_messages(h1.messages, provider=provider, policy=policy)
    assert dump_messages(h2.messages) == dump_messages(h1.messages)
    assert not _changing(h2.repairs), _changing(h2.repairs)


@pytest.mark.parametrize("provider", PROVIDERS)
@given(x=histories(), policy=policies)
@example(x=SIGNED_THINKING_THEN_PLAIN_TOOL_LOOP, policy=None)
def test_healed_output_validates(provider: Any, x: History, policy: Policy) -> None:
    h1 = heal_messages(x, provider=provider, policy=policy)
    check = validate_messages(h1.messages, provider=provider, policy=policy)
    # Valid, except for problems no edit can fix: heal reports those (Action.REPORT) instead of
    # inventing a fix, and validation reports them again, exactly as heal did.
    reported = sorted((r.rule, r.reason) for r in h1.repairs if r.action is Action.REPORT)
    left = sorted((r.rule, r.reason) for r in check.issues if r.action is not Action.KEEP)
    assert left == reported, check.report()


@pytest.mark.parametrize("provider", PROVIDERS)
@given(x=histories())
def test_input_never_mutated(provider: Any, x: History) -> None:
    before = copy.deepcopy(x)
    heal_messages(x, provider=provider)
    assert x == before, "heal mutated its dict input"

    models = load_messages(x)
    dumped = dump_messages(models)
    heal_messages(models, provider=provider)
    assert dump_messages(models) == dumped, "heal mutated its model input"
    assert x == before


# --- 4-6: valid histories, determinism, round trip ------------------------------------------


@given(x=valid_histories())
def test_valid_history_returned_unchanged(x: History) -> None:
    result = heal_messages(x)
    assert result.repairs == (), [r.describe() for r in result.repairs]
    assert dump_messages(result.messages) == x

    models = load_messages(x)
    again = heal_messages(models)
    assert again.repairs == ()
    assert len(again.messages) == len(models)
    assert all(out is model for out, model in zip(again.messages, models, strict=True))


@given(x=histories(), policy=policies)
def test_deterministic(x: History, policy: Policy) -> None:
    first = heal_messages(load_messages(copy.deepcopy(x)), policy=policy)
    second = heal_messages(load_messages(copy.deepcopy(x)), policy=policy)
    assert dump_messages(first.messages) == dump_messages(second.messages)
    assert [r.model_dump() for r in first.repairs] == [r.model_dump() for r in second.repairs]


_HEAL_SCRIPT = """
import json, sys
from heal import dump_messages, heal_messages
out = []
for x in json.load(sys.stdin):
    result = heal_messages(x)
    repairs = [r.model_dump(mode="json") for r in result.repairs]
    out.append([dump_messages(result.messages), repairs])
print(json.dumps(out))
"""


@settings(max_examples=1)
@given(batch=st.lists(histories(), min_size=20, max_size=20))
def test_deterministic_across_hash_seeds(batch: list[History]) -> None:
    """Set and dict-of-str iteration order changes with PYTHONHASHSEED: the output must not."""
    root = Path(__file__).resolve().parent.parent
    outputs = []
    for seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)}
        proc = subprocess.run(
            [sys.executable, "-c", _HEAL_SCRIPT],
            input=json.dumps(batch),
            capture_output=True,
            text=True,
            env=env,
            check=True,
            cwd=root,
        )
        outputs.append(json.loads(proc.stdout))
    for x, a, b in zip(batch, outputs[0], outputs[1], strict=True):
        assert a == b, json.dumps(x)


@given(x=valid_histories())
def test_load_dump_round_trip(x: History) -> None:
    assert dump_messages(load_messages(x)) == x
    assert dump_messages(load_messages(json.dumps(x))) == x


# --- 7-10: nothing lost silently, validate agrees with heal, repairs serialize ---------------

_SURROGATE = re.compile("[\ud800-\udfff]")


def _user_texts(history: History) -> Iterator[str]:
    for message in history:
        if message["role"] != "user":
            continue
        content = message["content"]
        if isinstance(content, str):
            yield content
            continue
        for part in content:
            if part.get("type") == "text":
                yield part["text"]


@given(x=histories(), policy=policies)
def test_user_text_never_removed(x: History, policy: Policy) -> None:
    healed = set(_user_texts(dump_messages(heal_messages(x, policy=policy).messages)))
    for text in _user_texts(x):
        if text and not text.isspace():
            assert _SURROGATE.sub("\ufffd", text) in healed, text


TAG = "propertyTag"
"""An unknown field the removal test puts on every input message and part to follow it.

Unknown fields travel with their message or part through moves and field rewrites (heal copies
models, it does not rebuild them), so an output item carrying tag ``m3p1`` came from input
message 3, part 1, and an input tag missing from the output means the item was removed. No rule
reads unknown fields, so tagging cannot change what heal does.
"""


def _tagged(history: History) -> History:
    out = []
    for i, message in enumerate(history):
        content = message["content"]
        if isinstance(content, list):
            content = [{**part, TAG: f"m{i}p{j}"} for j, part in enumerate(content)]
        out.append({**message, "content": content, TAG: f"m{i}"})
    return out


def _envelope(message: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in message.items() if k != "content"}


def _record_form(value: Any) -> Any:
    """How a repair record holds content: lone surrogates escaped (``\\ud83d``), so that the
    record always encodes as UTF-8."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {k: _record_form(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_record_form(v) for v in value]
    return value


def _removal_problems(before: History, after: History, repairs: Sequence[Repair]) -> list[str]:
    """Every input message or part missing from ``after`` must be in a ``remove`` repair.

    ``before`` and ``after`` are tagged dumps (see :data:`TAG`). A part gone from the output
    needs a remove repair at its input location holding it (or, if a replace repair at that
    location changed it first, holding its changed form), or must be inside the remove repair of
    its whole message (which holds the message as it was when removed: parts removed, moved or
    replaced before must then be accounted for by their own repairs). Moved parts keep their
    tag, so a move is never a removal. A replaced part keeps its tag too (a replacement keeps
    the unknown fields of what it replaces, as ``heal.messages`` promises), so a part replaced
    and then removed must still have its remove repair, holding its replaced form. Also
    flagged: an item changed without a replace repair at its location, and a remove repair
    naming an item that is still in the output.
    """
    problems: list[str] = []
    removes: dict[tuple[int, int | None], list[Repair]] = {}
    replaced: set[tuple[int, int | None]] = set()
    for r in repairs:
        if r.message_index is None:
            continue  # an item heal inserted: not part of the input
        if r.action is Action.REMOVE:
            removes.setdefault((r.message_index, r.part_index), []).append(r)
        elif r.action is Action.REPLACE:
            replaced.add((r.message_index, r.part_index))

    out_messages: dict[str, dict[str, Any]] = {}
    out_parts: dict[str, dict[str, Any]] = {}
    for message in after:
        tag = message.get(TAG)
        if tag is not None:
            if tag in out_messages:
                problems.append(f"input message {tag} appears twice in the output")
            out_messages[tag] = message
        if isinstance(message["content"], list):
            for part in message["content"]:
                ptag = part.get(TAG)
                if ptag is not None:
                    if ptag in out_parts:
                        problems.append(f"input part {ptag} appears twice in the output")
                    out_parts[ptag] = part

    for i, message in enumerate(before):
        where = f"messages[{i}]"
        msg_removals = removes.get((i, None), [])
        removed_msg: dict[str, Any] | None = None
        if len(msg_removals) > 1:
            problems.append(f"{where} has {len(msg_removals)} remove repairs")
        kept = out_messages.get(message[TAG])
        if kept is not None:
            if msg_removals:
                problems.append(f"{where} has a remove repair but is still in the output")
            if (i, None) not in replaced and (
                _envelope(kept) != _envelope(message)
                or (isinstance(message["content"], str) and kept["content"] != message["content"])
            ):
                problems.append(f"{where} changed without a replace repair: {kept!r}")
        elif not msg_removals:
            problems.append(f"{where} ({message['role']}) was removed without a remove repair")
        else:
            removed = msg_removals[0].removed
            if not isinstance(removed, dict) or removed.get(TAG) != message[TAG]:
                problems.append(f"the remove repair of {where} holds {removed!r}")
            else:
                removed_msg = removed
                if (i, None) not in replaced and (
                    _envelope(removed) != _envelope(message)
                    or (
                        isinstance(message["content"], str)
                        and removed["content"] != message["content"]
                    )
                ):
                    problems.append(f"the remove repair of {where} holds {removed!r}")

        if not isinstance(message["content"], list):
            continue
        in_removed_msg: dict[str, Any] = {}
        if removed_msg is not None and isinstance(removed_msg.get("content"), list):
            in_removed_msg = {p.get(TAG): p for p in removed_msg["content"]}
        for j, part in enumerate(message["content"]):
            where = f"messages[{i}].content[{j}] ({part.get('type')})"
            ptag = part[TAG]
            part_removals = removes.get((i, j), [])
            was_replaced = (i, j) in replaced
            if len(part_removals) > 1:
                problems.append(f"{where} has {len(part_removals)} remove repairs")
            if ptag in out_parts:
                if part_removals:
                    problems.append(f"{where} has a remove repair but is still in the output")
                if out_parts[ptag] != part and not was_replaced:
                    problems.append(f"{where} changed without a replace repair")
            elif part_removals:
                removed = part_removals[0].removed
                if not (
                    removed == _record_form(part)
                    or (was_replaced and isinstance(removed, dict) and removed.get(TAG) == ptag)
                ):
                    problems.append(f"the remove repair of {where} holds {removed!r}")
            elif ptag in in_removed_msg:
                if in_removed_msg[ptag] != part and not was_replaced:
                    problems.append(f"{where} changed without a replace repair, then removed")
            elif was_replaced:
                problems.append(
                    f"{where} was replaced, then is gone without a remove repair (or the "
                    "replacement lost its unknown fields)"
                )
            else:
                problems.append(f"{where} is gone without a remove repair")
    return problems


@given(x=histories(), policy=policies)
@example(x=PROVIDER_AND_CLIENT_CALL_SHARE_AN_ID, policy=None)
@example(x=ORPHAN_RESULT_WITH_LONE_SURROGATE, policy=None)
def test_every_removal_is_recorded(x: History, policy: Policy) -> None:
    before = dump_messages(load_messages(_tagged(x)))
    result = heal_messages(before, policy=policy)
    problems = _removal_problems(before, dump_messages(result.messages), result.repairs)
    assert not problems, "\n".join(
        [*problems, "repairs:", *(f"  {r.describe()}" for r in result.repairs)]
    )


@given(x=histories(), policy=policies)
def test_validate_agrees_with_heal(x: History, policy: Policy) -> None:
    valid = validate_messages(x, policy=policy).valid
    repairs = heal_messages(x, policy=policy).repairs
    changes = _changing(repairs)
    reported = [r for r in repairs if r.action is Action.REPORT]
    assert valid == (not changes and not reported), changes


@given(x=histories(), policy=policies)
def test_repairs_are_json_serializable(x: History, policy: Policy) -> None:
    result = heal_messages(x, policy=policy)
    check = validate_messages(x, policy=policy)
    for repairs in (result.repairs, check.issues):
        dumped = [r.model_dump(mode="json") for r in repairs]
        assert json.loads(json.dumps(dumped)) == dumped


@given(x=histories(), policy=policies)
@example(x=ORPHAN_RESULT_WITH_LONE_SURROGATE, policy=None)
def test_repairs_are_utf8_encodable(x: History, policy: Policy) -> None:
    """Stricter than JSON-serializable: an audit log written as UTF-8 JSON must accept every
    repair. ``json.dumps`` escapes a lone surrogate as ``\\ud83d`` by default, but with
    ``ensure_ascii=False`` (or in any other language's JSON encoder) it cannot be written."""
    result = heal_messages(x, policy=policy)
    dumped = [r.model_dump(mode="json") for r in result.repairs]
    json.dumps(dumped, ensure_ascii=False).encode("utf-8")


# --- 11-12: independent checks of the healed output ------------------------------------

_TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_TOOL_CALL_ID = re.compile(r"[a-zA-Z0-9_-]+")


def _blank(text: str) -> bool:
    return not text or text.isspace()


def _nothing_to_send(history: History) -> bool:
    """Whether every non-system message is empty or blank text (and there is one): heal leaves
    such a history as it is and reports it, since removing the blanks would leave nothing."""
    rest = [m["content"] for m in history if m["role"] != "system"]
    return bool(rest) and all(
        _blank(c)
        if isinstance(c, str)
        else all(p["type"] == "text" and _blank(p["text"]) for p in c)
        for c in rest
    )


def _content_problems(history: History) -> Iterator[str]:
    blank_is_fine = _nothing_to_send(history)
    for i, message in enumerate(history):
        role, content = message["role"], message["content"]
        where = f"messages[{i}]"
        if isinstance(content, str):
            if _SURROGATE.search(content):
                yield f"{where}: lone surrogate"
            if role != "system" and _blank(content) and not blank_is_fine:
                yield f"{where}: blank {role} message"
            continue
        if not content:
            if not blank_is_fine:
                yield f"{where}: empty {role} message"
        elif role == "assistant" and all(p["type"] == "tool-approval-request" for p in content):
            yield f"{where}: assistant message of approval requests only"
        for j, part in enumerate(content):
            kind = part["type"]
            at = f"{where}.content[{j}] ({kind})"
            if kind in ("text", "reasoning") and _SURROGATE.search(part["text"]):
                yield f"{at}: lone surrogate"
            if kind == "text" and _blank(part["text"]) and not blank_is_fine:
                yield f"{at}: blank text"
            if kind == "tool-result":
                output = part["output"]
                if output["type"] in ("text", "error-text") and _SURROGATE.search(output["value"]):
                    yield f"{at}: lone surrogate in output"
            if kind in ("tool-call", "tool-result"):
                if not _TOOL_NAME.fullmatch(part["toolName"]):
                    yield f"{at}: bad tool name {part['toolName']!r}"
                if not _TOOL_CALL_ID.fullmatch(part["toolCallId"]):
                    yield f"{at}: bad tool call id {part['toolCallId']!r}"
            if kind == "tool-call" and not isinstance(part.get("input"), dict):
                yield f"{at}: input is not an object"


def _pairing_problems(history: History) -> Iterator[str]:
    n = len(history)
    seen_ids: set[str] = set()
    for i, message in enumerate(history):
        content = message["content"]
        if isinstance(content, str):
            continue
        if message["role"] == "tool":
            opener = i - 1
            while opener >= 0 and history[opener]["role"] == "tool":
                opener -= 1
            if any(p["type"] == "tool-result" for p in content) and (
                opener < 0 or history[opener]["role"] != "assistant"
            ):
                yield f"messages[{i}]: tool results not right after an assistant message"
            continue
        if message["role"] != "assistant":
            continue
        calls = [p for p in content if p["type"] == "tool-call"]
        for call in calls:
            if call["toolCallId"] in seen_ids:
                yield f"messages[{i}]: tool call id {call['toolCallId']!r} used twice"
            seen_ids.add(call["toolCallId"])
        server = {c["toolCallId"] for c in calls if c.get("providerExecuted")}
        for p in content:
            if p["type"] == "tool-result" and p["toolCallId"] not in server:
                yield f"messages[{i}]: result {p['toolCallId']!r} without its provider-run call"
        requested = {p["toolCallId"] for p in content if p["type"] == "tool-approval-request"}
        end = i + 1
        while end < n and history[end]["role"] == "tool":
            end += 1
        answers: dict[str, int] = {}
        for k in range(i + 1, end):
            for p in history[k]["content"]:
                if p["type"] == "tool-result":
                    answers[p["toolCallId"]] = answers.get(p["toolCallId"], 0) + 1
        for call in calls:
            if call.get("providerExecuted"):
                continue
            count = answers.pop(call["toolCallId"], 0)
            awaiting = call["toolCallId"] in requested and end == n
            if count != 1 and not (count == 0 and awaiting):
                yield f"messages[{i}]: call {call['toolCallId']!r} has {count} results after it"
        for tid in answers:
            yield f"messages[{i}]: a result for {tid!r} answers none of its client calls"


@given(x=histories(), policy=policies)
@example(x=PROVIDER_RESULT_IN_A_TOOL_MESSAGE, policy=None)
@example(x=PROVIDER_RESULT_AWAY_FROM_ITS_CALL, policy=None)
@example(x=[{"role": "user", "content": ""}], policy=None)  # nothing to send: left as it is
@example(x=[{"role": "user", "content": " "}, {"role": "assistant", "content": []}], policy=None)
def test_healed_output_is_well_formed(x: History, policy: Policy) -> None:
    """The healed output meets the shared rules' requirements as checked by this test's own
    code, not by heal's rules: so a blind spot shared by a rule and validate shows up here."""
    healed = dump_messages(heal_messages(x, policy=policy).messages)
    problems = [*_content_problems(healed), *_pairing_problems(healed)]
    assert not problems, "\n".join([*problems, json.dumps(healed)])


def _answered_results(history: History, policy: Policy) -> Iterator[tuple[int, int, str]]:
    """Input results that answer their call where providers want them: in the tool messages
    right after the assistant message holding the one client call with that id, the only result
    with that id there. Yields (message, part, tag) for each."""
    drops_pairs = policy is not None and policy.get("invalid-tool-name") == "drop-pair"
    for i, message in enumerate(history):
        if message["role"] != "assistant" or isinstance(message["content"], str):
            continue
        clients: dict[str, int] = {}
        for p in message["content"]:
            if p["type"] == "tool-call" and not p.get("providerExecuted"):
                clients[p["toolCallId"]] = clients.get(p["toolCallId"], 0) + 1
        names = {p["toolCallId"]: p["toolName"] for p in message["content"] if "toolName" in p}
        block = []
        k = i + 1
        while k < len(history) and history[k]["role"] == "tool":
            block += [(k, q, p) for q, p in enumerate(history[k]["content"])]
            k += 1
        ids = [p.get("toolCallId") for _, _, p in block if p["type"] == "tool-result"]
        for k, q, p in block:
            tid = p.get("toolCallId")
            if p["type"] != "tool-result" or clients.get(tid) != 1 or ids.count(tid) != 1:
                continue
            named_badly = not (
                _TOOL_NAME.fullmatch(p["toolName"]) and _TOOL_NAME.fullmatch(names[tid])
            )
            if drops_pairs and named_badly:
                continue  # drop-pair removes the call with its results, by choice
            yield k, q, p[TAG]


@given(x=histories(), policy=policies)
@example(x=PROVIDER_AND_CLIENT_CALL_SHARE_AN_ID, policy=None)
def test_answered_calls_keep_their_results(x: History, policy: Policy) -> None:
    """A result already in place for its call is real data: healing may rename it, never drop
    it (nor replace it with a placeholder), whatever else is wrong around it."""
    before = dump_messages(load_messages(_tagged(x)))
    result = heal_messages(before, policy=policy)
    kept = {
        part.get(TAG)
        for message in dump_messages(result.messages)
        if isinstance(message["content"], list)
        for part in message["content"]
    }
    lost = [
        f"messages[{k}].content[{q}]"
        for k, q, tag in _answered_results(before, policy)
        if tag not in kept
    ]
    assert not lost, "\n".join(
        [f"lost answered results: {lost}", *(r.describe() for r in result.repairs)]
    )
