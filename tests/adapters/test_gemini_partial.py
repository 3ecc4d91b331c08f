"""Partial conversion in the Gemini adapter (issue "Speed", item 4), held to the full conversion
it replaces as ``test_partial_conversion`` holds the other adapters (whose checks these reuse):
the reader's fast path builds exactly the models validation builds (values, fields set and their
order, types, origins), and for every provider :func:`heal_gemini` gives the same repairs and
an equal history, or the same error; the contents whose canonical messages the heal left alone
come back as the caller's own objects, a content written back is a new object, and the input is
never changed.

The histories: the format's strategies, the plain contents of ``test_gemini_fast_path`` with a
defect (and its table of defects), the edges of each fast shape, and the benchmark's spellings
with one repair. Last, the fast path is held to the shapes it is for, and the writer to what it
does not write (untouched contents, ids and names renamed alone) and to what it must write
whole (responses whose written id depends on a call elsewhere, SDK objects).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.spellings import _gemini, _without_first_result
from heal import Action
from heal.adapters import gemini
from heal.adapters._common import NativeHealResult
from heal.adapters.gemini import heal_gemini
from heal.rules import Rule
from heal.rules._base import Context, DropMessage, Finding

from .test_gemini_fast_path import GEMINI_DEFECTS, _plain, plain_gemini
from .test_gemini_fast_path import gemini_strategies as format_strategies
from .test_partial_conversion import (
    ALL_PROVIDERS,
    PROPERTY,
    _full_conversion,
    _outcome,
    _same_load,
    _sdk_as_dicts,
)
from .test_responses_partial import _types

Content = dict[str, Any]


def _contents(native: Any) -> list[Any]:
    """The contents of a Gemini history or result (a list, or a dict holding one)."""
    if isinstance(native, dict):
        found = native.get("contents")
        return list(found) if isinstance(found, (list, tuple)) else []
    return list(native) if isinstance(native, (list, tuple)) else []


def _same_gemini_load(native: Any) -> None:
    """:func:`_same_load`, and the same types throughout (validation makes a string of a
    ``str`` subclass, which ``==`` hides)."""
    _same_load(gemini, native)
    fast = _outcome(partial(gemini.load, native))
    with _full_conversion(gemini):
        slow = _outcome(partial(gemini.load, native))
    if not isinstance(slow, tuple):
        assert _types(fast.messages) == _types(slow.messages)


def _same_gemini_heal(native: Any, providers: list[Any] = ALL_PROVIDERS) -> None:
    """Under every provider: partial conversion gives what full conversion gives (repairs,
    their places, the contents and the system instruction), the caller's contents it returns are
    the objects passed in (and equal to what the full conversion writes for them), a content it
    wrote is a new object, and the input is never changed."""
    before = copy.deepcopy(native)
    given = {id(content) for content in _contents(native)}
    for provider in providers:
        fast = _outcome(partial(heal_gemini, native, provider=provider))
        with _full_conversion(gemini):
            slow = _outcome(partial(heal_gemini, native, provider=provider))
        if not isinstance(slow, NativeHealResult):
            assert fast == slow, provider
            continue
        assert isinstance(fast, NativeHealResult), (provider, fast)
        assert fast.repairs == slow.repairs, provider
        assert [r.describe() for r in fast.repairs] == [r.describe() for r in slow.repairs]
        assert (fast.messages is native) == (slow.messages is native), provider
        assert _sdk_as_dicts(fast.messages) == _sdk_as_dicts(slow.messages), provider
        assert _kinds(fast.messages) == _kinds(slow.messages), provider
        if fast.messages is native:
            continue
        written = _contents(slow.messages)
        for k, content in enumerate(_contents(fast.messages)):
            if id(content) in given:
                assert type(content) is type(written[k]), provider
            else:
                assert all(content is not mine for mine in _contents(native)), provider
    assert native == before


def _kinds(value: Any) -> Any:
    """The types of a written history, its contents and its system instruction (a content handed
    back is the caller's own object, with the caller's values: only its type must be the one
    the writer gives)."""
    if isinstance(value, dict):
        return type(value), sorted((k, type(v)) for k, v in value.items()), _kinds(_contents(value))
    return type(value), [type(content) for content in _contents(value)]


def _same(native: Any) -> None:
    _same_gemini_load(native)
    _same_gemini_heal(native)


# --- the reader and the writer against the full conversion ---------------------------------


gemini_strategies = st.one_of(format_strategies, plain_gemini(always=True))


@PROPERTY
@given(gemini_strategies)
def test_gemini_fast_load_is_the_validated_load(native: Any) -> None:
    _same_gemini_load(native)


@settings(PROPERTY, max_examples=150)
@given(gemini_strategies)
def test_gemini_partial_conversion_is_the_full_conversion(native: Any) -> None:
    _same_gemini_heal(native)


@pytest.mark.parametrize("defect", sorted(GEMINI_DEFECTS))
def test_gemini_defects(defect: str) -> None:
    native = _plain()
    GEMINI_DEFECTS[defect](native)
    _same(native)


_STYLES = ("SDK dicts", "REST JSON", "signed")


@pytest.mark.parametrize("style", _STYLES)
def test_the_benchmark_spellings(style: str) -> None:
    native = _gemini(style)
    broken = _without_first_result(native)
    _same(native)
    _same(broken)


# --- the edges of the fast shapes, one at a time -------------------------------------------


def _ask(text: str = "q") -> Content:
    return {"role": "user", "parts": [{"text": text}]}


def _model(*parts: Any) -> Content:
    return {"role": "model", "parts": list(parts)}


def _user(*parts: Any) -> Content:
    return {"role": "user", "parts": list(parts)}


def _call(name: str = "search", **body: Any) -> dict[str, Any]:
    return {"function_call": {"name": name, **body}}


def _response(name: str = "search", **body: Any) -> dict[str, Any]:
    return {"function_response": {"name": name, "response": {"r": 1}, **body}}


class _Text(str):
    """A string of a subclass: the general path takes it as a string."""

    __slots__ = ()


def _turn(*model: Any, responses: tuple[Any, ...] = (_response(),)) -> list[Content]:
    """A turn around some model parts: the question, the parts, the responses, an answer and
    the next question."""
    out = [_ask(), _model(*model)]
    if responses:
        out.append(_user(*responses))
    return [*out, _model({"text": "done"}), _ask("next")]


GEMINI_EDGES: list[Any] = [
    # texts: thoughts, signatures in both spellings and kinds, keys the fast path leaves
    _turn({"text": "a"}, {"text": "b", "thought": True}, _call()),
    _turn({"text": "a", "thought_signature": "c2ln"}, {"text": "b", "thoughtSignature": b"\x01"}),
    _turn({"text": "a", "thought": True, "thoughtSignature": "c2ln"}, _call()),
    _turn({"text": "a", "thought": False}, _call()),
    _turn({"text": "a", "thought": None}, _call()),
    _turn({"text": "a", "thought_signature": "c2ln", "thoughtSignature": "c2ln"}, _call()),
    _turn({"text": "a", "thought_signature": 7}, _call()),
    _turn({"text": "a", "thought_signature": bytearray(b"\x01")}, _call()),
    _turn({"text": "a", "thought_signature": _Text("c2ln")}, _call()),
    _turn({"text": "a", "thought_signature": ""}, _call()),
    _turn({"text": "a", "x_trace": "1"}, _call()),
    _turn({"text": _Text("a")}, _call()),
    _turn({"text": 7}, _call()),
    [{"role": "user", "parts": [{"text": "q", "thought": True}]}, _model({"text": "a"})],
    [
        {"role": "user", "parts": [{"text": "q", "thought_signature": "c2ln"}]},
        _model({"text": "a"}),
    ],
    # calls: ids, args, spellings, signatures, and what validation keeps otherwise
    _turn(_call(id="fc_1"), responses=(_response(id="fc_1"),)),
    _turn(_call(args={"a": [1, 2.5, None, {"b": "c"}]})),
    _turn(_call(args={})),
    _turn({"functionCall": {"name": "search"}, "thought_signature": "c2ln"}),
    _turn({"function_call": {"name": "search"}, "thoughtSignature": "c2ln"}),
    _turn({"functionCall": {"name": "search"}, "thoughtSignature": b"\x01\x02"}),
    _turn({"function_call": {"name": "search"}, "functionCall": {"name": "search"}}),
    _turn(_call(id=None)),
    _turn(_call(id=7)),
    _turn(_call(args=None)),
    _turn(_call(args=[1])),
    _turn(_call(args={"x": float("nan")})),
    _turn(_call(args={"x": (1, 2)})),
    _turn(_call(args={1: "int key"})),
    _turn(_call(will_continue=False)),
    _turn(_call(name=_Text("search"))),
    _turn({"function_call": {"args": {}}}),
    _turn({"function_call": "search"}),
    _turn({"function_call": {"name": "search"}, "thought": True}),
    # responses: ids, names, bodies, spellings, signatures, texts beside them
    _turn(_call(), responses=(_response(id="fc_9"),)),
    _turn(_call(id="fc_1"), responses=(_response(id="c0001p000"),)),
    _turn(_call(), responses=(_response(id="c0001p000"),)),
    _turn(_call(), responses=({"function_response": {"name": "search"}},)),
    _turn(_call(), responses=({"functionResponse": {"name": "search", "response": {}}},)),
    _turn(_call(), responses=({**_response(), "thoughtSignature": "c2ln"},)),
    _turn(_call(), responses=(_response(), {"text": "and more"})),
    _turn(_call(), responses=({"text": "first"}, _response(), {"text": "then"})),
    _turn(_call(), responses=({"function_response": {"response": {}}},)),
    _turn(_call(), responses=(_response(response="sunny"),)),
    _turn(_call(), responses=(_response(response=None),)),
    _turn(_call(), responses=(_response(response={"x": float("inf")}),)),
    _turn(_call(), responses=(_response(id=None),)),
    _turn(_call(), responses=(_response(will_continue=True),)),
    _turn(_call(), responses=(_response(parts=[{"inline_data": {"data": "iVBO"}}]),)),
    _turn(_call("a"), _call("b"), responses=(_response("b"), _response("a"))),
    # a name heal renames, on a response that has none (it answers its call by id)
    _turn(
        _call("web search!", id="fc_1"),
        responses=({"function_response": {"id": "fc_1", "response": {}}},),
    ),
    _turn(_call("web search!", id="fc_1"), responses=(_response("web search!", id="fc_1"),)),
    _turn(_call("a"), _call("a"), responses=(_response("a"),)),
    # contents: roles, parts, keys, kinds the fast path leaves to the general one
    [{"parts": [{"text": "q"}]}, _model({"text": "a"})],
    [{"role": "user", "parts": []}, _model({"text": "a"})],
    [{"role": "user"}, _model({"text": "a"})],
    [{"role": "user", "parts": ({"text": "q"},)}, _model({"text": "a"})],
    [{"role": "user", "parts": [{"text": "q"}], "x_trace": "1"}, _model({"text": "a"})],
    [{"role": "system", "parts": [{"text": "q"}]}],
    [_ask(), {"role": "model", "parts": [{"text": "a"}, "text"]}],
    [_ask(), _model({"inline_data": {"mime_type": "image/png", "data": "iVBORw0KGgo="}})],
    [_ask(), _model({"executable_code": {"code": "print(1)", "language": "PYTHON"}})],
    [_ask(), _model({})],
    [_user(_call())],
    [_ask(), _model(_response())],
    # system instructions beside fast contents
    {"contents": _turn(_call()), "system_instruction": "Be brief."},
    {"contents": _turn(_call()), "systemInstruction": {"parts": [{"text": "Be brief."}]}},
    {"contents": _turn(_call()), "system_instruction": {"parts": []}},
]


@pytest.mark.parametrize("native", GEMINI_EDGES)
def test_gemini_edges(native: Any) -> None:
    _same(native)
    # Without the answered call, the same with a repair in it.
    contents = _contents(native)
    if len(contents) > 2:
        broken = [c for c in contents if not (isinstance(c, dict) and _has_response(c))]
        if len(broken) < len(contents):
            _same({**native, "contents": broken} if isinstance(native, dict) else broken)


def _has_response(content: Content) -> bool:
    parts = content.get("parts")
    return isinstance(parts, list) and any(
        isinstance(p, dict) and ("function_response" in p or "functionResponse" in p) for p in parts
    )


# --- the fast path is taken where it is meant to be -----------------------------------------


@contextmanager
def _general_reads() -> Iterator[list[int]]:
    """The indices of the contents the general path reads."""
    read: list[int] = []
    general = gemini._Reader._content

    def spy(self: Any, ci: int, content: Content) -> None:
        read.append(ci)
        general(self, ci, content)

    with mock.patch.object(gemini._Reader, "_content", spy):
        yield read


@pytest.mark.parametrize("style", _STYLES)
def test_the_fast_path_reads_every_content_the_benchmark_stores(style: str) -> None:
    native = _without_first_result(_gemini(style))
    with _general_reads() as read:
        gemini.load(native)
    assert read == []
    with _full_conversion(gemini), _general_reads() as read:
        gemini.load(native)
    assert read == list(range(len(native["contents"])))


FAST = [
    _ask(),
    _model({"text": "a"}, {"text": "b", "thought": True, "thought_signature": "c2ln"}),
    _model({"functionCall": {"name": "f", "args": {"a": 1}, "id": "x"}, "thoughtSignature": b"1"}),
    _user({"text": "a"}, _response(id="x"), {"functionResponse": {"name": "f"}}),
]
"""Contents the fast path reads, each of every fast kind of part."""

SLOW = [
    {"role": "user", "parts": [{"text": "q"}], "x": 1},
    {"role": "user", "parts": []},
    {"role": "tool", "parts": [{"text": "q"}]},
    {"role": "user", "parts": [{"text": "q", "thought": True}]},
    {"role": "user", "parts": [{"text": "q", "thought": False}]},
    _model({"text": "a", "thought": False}),
    _model({"text": "a", "thought_signature": None}),
    _model({"text": "a", "thoughtSignature": bytearray(b"1")}),
    _model({"text": "a", "thoughtSignature": "c2ln", "thought_signature": "c2ln"}),
    _model({"text": _Text("a")}),
    _model(_call(id=7)),
    _model(_call(args=[1])),
    _model(_call(extra=1)),
    _model({"function_call": {"name": "f"}, "functionCall": {"name": "f"}}),
    _model({"function_call": ["f"]}),
    _model(_response()),
    _user(_call()),
    _user(_response(response="sunny")),
    _user(_response(id=None)),
    _user({"function_response": {"response": {}}}),
    _model({"inline_data": {"mime_type": "image/png", "data": "iVBORw0KGgo="}}),
]
"""Contents the fast path leaves to the general one, each for one reason."""


@pytest.mark.parametrize("content", FAST)
def test_the_fast_path_takes_its_shapes(content: Content) -> None:
    reader = gemini._Reader()
    assert reader._fast(0, content)
    _same([_ask(), _model(_call("f", id="x")), content] if content["role"] == "user" else [content])


@pytest.mark.parametrize("content", SLOW)
def test_the_fast_path_leaves_other_shapes_having_built_nothing(content: Content) -> None:
    reader = gemini._Reader()
    reader.pending.append((0, "search", "c0000p000", False))
    assert not reader._fast(1, content)
    assert reader.messages == [] and reader.origins == [] and reader.part_origins == []
    assert reader.pending == [(0, "search", "c0000p000", False)] and reader.native_ids == {}
    _same([_ask(), content])


# --- what the writer hands back, patches and writes whole -----------------------------------


def _near(result: NativeHealResult[Any]) -> set[int]:
    """The contents a repair names, and their neighbours."""
    near: set[int] = set()
    for repair in result.repairs:
        for index in (repair.message_index, repair.anchor_index):
            if index is not None:
                near.update((index - 1, index, index + 1))
    return near


@pytest.mark.parametrize("style", _STYLES)
def test_untouched_contents_are_the_callers(style: str) -> None:
    native = _without_first_result(_gemini(style))
    result = heal_gemini(native)
    assert [r.rule for r in result.repairs] == ["orphan-tool-call"]
    out = result.messages["contents"]
    kept = {id(c) for c in out}
    assert len(out) == len(native["contents"]) + 1  # the placeholder response
    for i, content in enumerate(native["contents"]):
        assert (id(content) in kept) or i in _near(result), i
    # The call's content too: the placeholder response is a content of its own after it.
    assert all(id(c) in kept for c in native["contents"])
    # The system instruction too, as the caller's own object.
    key = "systemInstruction" if style == "REST JSON" else "system_instruction"
    assert result.messages[key] is native[key]
    _same_gemini_heal(native, ["google"])


def test_renamed_ids_are_patched_copies() -> None:
    # Mistral takes nine letters and digits: every call id and its response's are renamed.
    native = _plain()
    contents = native["contents"]
    result = heal_gemini(native, provider="mistral")
    assert {r.rule for r in result.repairs} == {"mistral-tool-call-id"}
    out = result.messages["contents"]
    call, answer = out[3], out[4]
    assert call is not contents[3] and answer is not contents[4]
    assert call["parts"][0]["functionCall"]["id"] == answer["parts"][0]["function_response"]["id"]
    assert call["parts"][0]["functionCall"]["id"] != "fc_1"
    assert [c is contents[k] for k, c in enumerate(out)] == [
        True,
        True,
        True,
        False,
        False,
        True,
        True,
    ]
    # Written as a run of the writer would be, the rest of each content as it was.
    with mock.patch.object(gemini._Rewriter, "_renamed", lambda *args: None):
        written = heal_gemini(native, provider="mistral").messages["contents"]
    assert out == written
    _same_gemini_heal(native, ["mistral"])


def test_a_response_with_a_made_up_id_is_written_whole() -> None:
    # The response came with the id the reader made up for its call (which had none): the
    # writer writes it without, as it writes every response to such a call. Handing it back
    # would keep the id.
    native = _plain()
    # The weather call, contents[1].parts[1], has no id: the reader makes up c0001p001.
    native["contents"][2]["parts"][1]["functionResponse"]["id"] = "c0001p001"
    GEMINI_DEFECTS["text-blank"](native)  # a repair elsewhere
    result = heal_gemini(native)
    assert "id" not in result.messages["contents"][2]["parts"][1]["functionResponse"]
    _same_gemini_heal(native)
    # And renamed: an earlier call has as its own the id the reader makes up for the id-less
    # call at contents[3], which its response came with. The id-less call and its response get a
    # new id, which the response is then written without (the call writes none).
    renamed = [
        _ask(),
        _model(_call("g", id="c0003p000")),
        _user(_response("g", id="c0003p000")),
        _model(_call("f")),
        _user(_response("f", id="c0003p000")),
        _ask("next"),
    ]
    written = heal_gemini(renamed, provider=None)
    assert [r.rule for r in written.repairs] == ["duplicate-tool-call-id"] * 2
    assert [c is renamed[k] for k, c in enumerate(written.messages)] == [1, 1, 1, 1, 0, 1]
    assert written.messages[4]["parts"][0]["function_response"] == {
        "name": "f",
        "response": {"r": 1},
    }
    _same_gemini_heal(renamed)


def test_sdk_objects_are_written_whole() -> None:
    from google.genai import types

    native = _without_first_result(_gemini("SDK dicts"))
    sdk = {**native, "contents": [types.Content.model_validate(c) for c in native["contents"]]}
    result = heal_gemini(sdk)
    assert not any(c is mine for c in result.messages["contents"] for mine in sdk["contents"])
    assert all(isinstance(c, types.Content) for c in result.messages["contents"])
    _same_gemini_heal(sdk, ["google", None])


class _Content(dict[str, Any]):
    """A content of a dict subclass: read as a mapping, written as a dict."""


def test_contents_of_another_mapping_type_are_written_whole() -> None:
    native = _without_first_result(_gemini("REST JSON"))
    native["contents"][0] = _Content(native["contents"][0])
    result = heal_gemini(native)
    assert all(type(c) is dict for c in result.messages["contents"])
    _same_gemini_heal(native, ["google", None])


def test_a_changed_system_instruction_is_written() -> None:
    # A system instruction heal changes (a blank one removed) is written; the caller's own is
    # handed back only while its messages are untouched.
    native = {**_without_first_result(_gemini("SDK dicts")), "system_instruction": " "}
    result = heal_gemini(native)
    assert "empty-message" in {r.rule for r in result.repairs} or result.repairs
    _same_gemini_heal(native)
    many = {
        **_without_first_result(_gemini("REST JSON")),
        "systemInstruction": {"parts": [{"text": "Be brief."}, {"text": " "}]},
    }
    _same_gemini_heal(many)
    # Changed in place: as many system messages as were read, one of them new.
    mended = {**_gemini("SDK dicts"), "system_instruction": {"parts": [{"text": "x\ud800"}]}}
    result = heal_gemini(mended)
    assert [r.rule for r in result.repairs] == ["lone-surrogate"]
    assert result.messages["system_instruction"] == {"parts": [{"text": "x\ufffd"}]}
    _same_gemini_heal(mended)


class _Instruction(dict[str, Any]):
    """A system instruction of a dict subclass: read as a mapping, written as a dict."""


def test_a_system_instruction_of_another_type_is_written() -> None:
    # The writer writes a dict (or an SDK object, for one): a mapping of another type or an SDK
    # object handed back would not be what the full conversion gives.
    from google.genai import types

    native = _without_first_result(_gemini("SDK dicts"))
    system = native["system_instruction"]
    for other in (_Instruction(system), types.Content.model_validate(system)):
        _same_gemini_heal({**native, "system_instruction": other}, ["google"])


class _DropLastSystem(Rule):
    """Test rule: removes the last of two or more system messages (no built-in rule removes
    one, and a caller's may)."""

    id = "test-gemini-drop-last-system"
    summary = "removes the last system message"

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        systems = [m for m, role in enumerate(ctx.index.roles) if role == "system"]
        if len(systems) > 1:
            m = systems[-1]
            yield Finding(
                Action.REMOVE,
                m,
                None,
                "removed",
                edits=(DropMessage(m),),
                removed=ctx.messages[m],
            )


def test_a_system_instruction_a_rule_shortens_is_written() -> None:
    native = {
        **_without_first_result(_gemini("SDK dicts")),
        "system_instruction": {"parts": [{"text": "Be brief."}, {"text": "Be kind."}]},
    }
    rules = [_DropLastSystem()]
    result = heal_gemini(native, rules=rules)
    assert result.messages["system_instruction"] == {"parts": [{"text": "Be brief."}]}
    with _full_conversion(gemini):
        assert heal_gemini(native, rules=rules).messages == result.messages
