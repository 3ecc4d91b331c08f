"""The Gemini verdict: heal_gemini hands plainly clean contents back as they are, without building
canonical models (issue "Speed").

:func:`heal.adapters.gemini._plainly_clean` is a pure-Python pass over the caller's own dicts,
sharing :mod:`heal._verdict` with the other adapters' verdicts. It is exact in one direction:
when it says clean, the full path (the reader, heal_messages, the writer) returns no repair and
the caller's own object. The properties hold it to that under every provider id and None and a
few of the targets that name a model, and check that heal_gemini gives exactly what the full
path gives on every input (the helpers of ``test_native_fast_path``).

The contents come from two places:

* :func:`plain_gemini`: the shapes the verdict is made for (texts, calls with or without ids,
  their responses in the next content, ``snake_case`` or ``camelCase`` per part, thought
  signatures on the model's texts and calls, as strings or bytes, a system instruction beside
  them), each maybe with one defect at their edges (blank or unpaired texts, trailing
  whitespace, ids shared or dropped, responses that answer nothing, unknown keys, both
  spellings in one part, bad names, values the models refuse, thought parts, signatures that
  cannot be Gemini's or stand where the model did not put them...);
* the format's own strategies (``strategies_gemini``): anything google-genai accepts, healthy
  conversations (signed, thought parts beside some calls) and broken ones.
"""

from __future__ import annotations

import base64
import copy
from collections.abc import Callable
from functools import partial
from typing import Any
from unittest import mock

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from benchmarks.corpus import corpus
from benchmarks.spellings import _gemini, _without_first_result
from heal import Policy, load_messages
from heal._verdict import terms_for
from heal.adapters import gemini
from heal.providers import ProviderId
from heal.rules._quick import REFUSED_IDS
from heal.rules.files import plain_image_file
from heal.rules.google import valid_signature
from heal.targets import Target

from . import strategies_gemini as s_gemini
from .test_native_fast_path import (
    ALL_PROVIDERS,
    PROPERTY,
    _counted,
    _deep,
    _fast,
    _full_path,
    _refuse_to_load,
    _same_as_full_path,
    some_targets,
)

Content = dict[str, Any]

# --- plain contents --------------------------------------------------------------------------

_TEXTS = ("hi", "What's the weather?", "ß 東京 🙂", "ends with space ", "line\nbreak")
_NAMES = ("search", "get_weather", "run-code", "x" * 64)
_ARGS: tuple[dict[str, Any], ...] = (
    {},
    {"query": "q1", "limit": 1},
    {"a": [1, 2.5, None, {"b": "c"}]},
)
_RESPONSES: tuple[dict[str, Any], ...] = (
    {},
    {"result": "sunny"},
    {"name": "search", "content": [{"title": "Paris"}]},
)
_CAMEL = {
    "function_call": "functionCall",
    "function_response": "functionResponse",
    "thought_signature": "thoughtSignature",
}
_SIGNATURES: tuple[Any, ...] = (
    "c2lnbmVk",
    "EqQBCkYIBxgCKkA+/w==",
    "Cg-_x",  # URL-safe and unpadded: Google's parser takes it
    "skip_thought_signature_validator",
    b"\x12\x8a\x00",
    b"signed",
)
"""Signatures ``google-foreign-thought-signature`` keeps: base64 strings (standard or URL-safe,
padded or not), Google's documented dummy, and bytes (the Python SDK's dump)."""
_BAD_SIGNATURES: tuple[Any, ...] = (
    "",
    "not base64!",
    "abcde",  # one character too many for base64
    "abc==",  # padded wrongly
    "c2lnbmVk c2lnbmVk",
    "c2lnbmVk\n",
    b"",  # read as "", which the rule drops
    bytearray(b"signed"),
    7,
    None,
    ["c2lnbmVk"],
    {"google": "c2lnbmVk"},
)


def _key(snake: str, camel: bool) -> str:
    return _CAMEL[snake] if camel else snake


@st.composite
def _plain_contents(draw: st.DrawFn) -> list[Content]:
    """Plain contents: a user's texts, the model's texts and calls, their responses, an answer.
    Calls carry ids in all turns, in none, or in some (a response answers by its call's id or,
    without one, by name)."""
    ids = draw(st.sampled_from(("all", "none", "some", "some")))
    spelling = draw(st.sampled_from(("snake", "camel", "mixed")))
    counter = iter(range(1, 1000))
    contents: list[Content] = []

    def camel() -> bool:
        return spelling == "camel" or (spelling == "mixed" and draw(st.booleans()))

    def user() -> Content:
        texts = draw(st.lists(st.sampled_from(_TEXTS), min_size=1, max_size=2))
        return {"role": "user", "parts": [{"text": t} for t in texts]}

    def signed(part: dict[str, Any]) -> dict[str, Any]:
        # A thinking model signs the first call of a step, and may sign a text.
        if signing and draw(st.booleans()):
            part[_key("thought_signature", camel())] = draw(st.sampled_from(_SIGNATURES))
        return part

    signing = draw(st.booleans())

    for _ in range(draw(st.integers(1, 3))):
        contents.append(user())
        for _ in range(draw(st.integers(1, 2))):
            names = draw(st.lists(st.sampled_from(_NAMES), max_size=2))
            texts = draw(st.lists(st.sampled_from(_TEXTS), min_size=0 if names else 1, max_size=2))
            parts: list[Any] = [signed({"text": t}) for t in texts]
            if not names:  # the model's answer ends the user's turn
                contents.append({"role": "model", "parts": parts})
                break
            responses = []
            for name in names:
                call: dict[str, Any] = {"name": name}
                if draw(st.booleans()):
                    call["args"] = copy.deepcopy(draw(st.sampled_from(_ARGS)))
                response = {
                    "name": name,
                    "response": copy.deepcopy(draw(st.sampled_from(_RESPONSES))),
                }
                if ids == "all" or (ids == "some" and draw(st.booleans())):
                    call["id"] = response["id"] = f"fc_{next(counter)}"
                parts.append(signed({_key("function_call", camel()): call}))
                responses.append({_key("function_response", camel()): response})
            contents.append({"role": "model", "parts": parts})
            contents.append({"role": "user", "parts": draw(st.permutations(responses))})
    # A request ends with the user's message or the responses; a stored history with an answer.
    if contents[-1]["role"] == "model" and draw(st.booleans()):
        contents.append(user())
    return contents


def _parts(contents: list[Content], *keys: str) -> list[dict[str, Any]]:
    """The parts that hold one of ``keys``, in order."""
    return [
        part
        for content in contents
        if isinstance(content, dict) and isinstance(content.get("parts"), list)
        for part in content["parts"]
        if isinstance(part, dict) and any(key in part for key in keys)
    ]


def _bodies(contents: list[Content], snake: str) -> list[dict[str, Any]]:
    """The function_call or function_response bodies, in either spelling."""
    return [
        part[snake] if snake in part else part[_CAMEL[snake]]
        for part in _parts(contents, snake, _CAMEL[snake])
    ]


def _e_text(draw: st.DrawFn, contents: list[Content]) -> None:
    texts = _parts(contents, "text")
    if texts:
        value = draw(st.sampled_from(("", " ", "\n\t", "lone \ud800 surrogate", "x")))
        draw(st.sampled_from(texts))["text"] = value


def _e_trailing_answer(draw: st.DrawFn, contents: list[Content]) -> None:
    if contents[-1]["role"] == "model" and not _parts(contents[-1:], *_CALL_KEYS):
        contents[-1]["parts"][-1]["text"] = draw(st.sampled_from(("Done. ", "Done.\n", "Done.")))
    else:
        text = draw(st.sampled_from(("Done. ", "Done.")))
        contents.append({"role": "model", "parts": [{"text": text}]})


def _e_ids(draw: st.DrawFn, contents: list[Content]) -> None:
    calls, responses = _bodies(contents, "function_call"), _bodies(contents, "function_response")
    change = draw(
        st.sampled_from(("share", "drop-call", "drop-response", "foreign", "positional", "odd"))
    )
    if change == "share" and len(calls) > 1:
        first, second = draw(st.permutations(calls))[:2]
        second["id"] = first.get("id", "fc_shared")
        first["id"] = second["id"]
    elif change == "drop-call" and calls:
        draw(st.sampled_from(calls)).pop("id", None)
    elif change == "drop-response" and responses:
        draw(st.sampled_from(responses)).pop("id", None)
    elif change == "foreign" and responses:
        draw(st.sampled_from(responses))["id"] = "fc_nobody"
    elif change == "positional" and responses:
        # The id the loader makes up for the first call without one.
        draw(st.sampled_from(responses))["id"] = draw(st.sampled_from(("c0001p000", "c0001p001")))
    elif change == "odd" and (calls or responses):
        body = draw(st.sampled_from(calls + responses))
        body["id"] = draw(st.sampled_from((None, 7, "", "a" * 65, "bad id!")))


def _e_pairing(draw: st.DrawFn, contents: list[Content]) -> None:
    # The responses of one content answer other calls than they did: names swapped or made
    # another call's (or one no provider takes), ids of another call, or none at all.
    spots = [content for content in contents if _parts([content], *_RESPONSE_KEYS)]
    if not spots:
        return
    content = draw(st.sampled_from(spots))
    c = next(i for i, each in enumerate(contents) if each is content)
    calls = _bodies(contents[c - 1 : c], "function_call") if c > 0 else []
    responses = _bodies([content], "function_response")
    change = draw(st.sampled_from(("swap", "rename", "bad-name", "other-id", "no-ids")))
    response = draw(st.sampled_from(responses))
    if change == "swap" and len(responses) > 1:
        first, second = draw(st.permutations(responses))[:2]
        first["name"], second["name"] = second["name"], first["name"]
    elif change == "rename" and calls:
        response["name"] = draw(st.sampled_from(calls))["name"]
    elif change == "bad-name":
        response["name"] = draw(st.sampled_from(("web search!", "", "x" * 65)))
    elif change == "other-id" and calls:
        k = draw(st.integers(0, len(calls) - 1))
        # The call's own id, or the one the loader makes up for it.
        response["id"] = calls[k].get("id", f"c{c - 1:04d}p{k:03d}")
    elif change == "no-ids":
        for body in calls + responses:
            body.pop("id", None)


def _e_unanswered(draw: st.DrawFn, contents: list[Content]) -> None:
    spots = [c for c, content in enumerate(contents) if _parts([content], *_RESPONSE_KEYS)]
    if not spots:
        return
    c = draw(st.sampled_from(spots))
    if draw(st.booleans()) or len(contents[c]["parts"]) == 1:
        del contents[c]
    else:
        del contents[c]["parts"][draw(st.integers(0, len(contents[c]["parts"]) - 1))]


def _e_move(draw: st.DrawFn, contents: list[Content]) -> None:
    # A content somewhere else: responses out of place, two model or user contents in a row.
    if len(contents) > 1:
        moved = contents.pop(draw(st.integers(0, len(contents) - 1)))
        contents.insert(draw(st.integers(0, len(contents))), moved)


def _e_key(draw: st.DrawFn, contents: list[Content]) -> None:
    key = draw(st.sampled_from(("x_trace", "thought", "will_continue", "id", "role")))
    value = draw(st.sampled_from((None, True, False, "1")))
    places: list[dict[str, Any]] = list(contents)
    places += _parts(contents, "text", *_CALL_KEYS, *_RESPONSE_KEYS)
    places += _bodies(contents, "function_call") + _bodies(contents, "function_response")
    draw(st.sampled_from(places))[key] = value


def _e_spelling(draw: st.DrawFn, contents: list[Content]) -> None:
    parts = _parts(contents, *_CALL_KEYS, *_RESPONSE_KEYS)
    if not parts:
        return
    part = draw(st.sampled_from(parts))
    ((key, body),) = [(k, v) for k, v in part.items() if k in _CALL_KEYS + _RESPONSE_KEYS]
    other = {**_CAMEL, **{v: k for k, v in _CAMEL.items()}}[key]
    if draw(st.booleans()):
        part[other] = copy.deepcopy(body)  # both spellings in one part
    else:
        part[other] = part.pop(key)


def _e_name(draw: st.DrawFn, contents: list[Content]) -> None:
    bodies = _bodies(contents, "function_call") + _bodies(contents, "function_response")
    if bodies:
        name = draw(st.sampled_from(("web search!", "", "1tool", "a.b", "x" * 65, None, "search")))
        body = draw(st.sampled_from(bodies))
        if name is None:
            del body["name"]
        else:
            body["name"] = name


_ODD_VALUES = st.sampled_from(
    (
        {"x": float("nan")},
        {"x": float("inf")},
        {"x": 2.5},
        {"x": (1, 2)},
        {"x": b"bytes"},
        {1: "int key"},
        {"t": "lone \udc00"},
        [1],
        "text",
        None,
    )
) | st.sampled_from((63, 64, 65, 200)).map(_deep)


def _e_value(draw: st.DrawFn, contents: list[Content]) -> None:
    calls, responses = _bodies(contents, "function_call"), _bodies(contents, "function_response")
    if not calls and not responses:
        return
    body = draw(st.sampled_from(calls + responses))
    value = copy.deepcopy(draw(_ODD_VALUES))
    if "response" in body:
        if value is None and draw(st.booleans()):
            del body["response"]
        else:
            body["response"] = value
    else:
        body["args"] = value


def _e_part(draw: st.DrawFn, contents: list[Content]) -> None:
    # A part of another kind, or a known one in the wrong place.
    part = copy.deepcopy(
        draw(
            st.sampled_from(
                (
                    {"text": "Let me think.", "thought": True},
                    {"text": "signed", "thought_signature": "c2lnbmVk"},
                    {"function_call": {"name": "search"}, "thoughtSignature": b"\x01\x02"},
                    {"inline_data": {"mime_type": "image/png", "data": "iVBORw0KGgo="}},
                    {"file_data": {"file_uri": "https://example.com/a.pdf"}},
                    {"executable_code": {"code": "print(1)", "language": "PYTHON"}},
                    {"function_response": {"name": "search", "response": {}}},
                    {"function_call": {"name": "search", "args": {}}},
                    {"text": "more"},
                    {},
                    "text",
                )
            )
        )
    )
    content = draw(st.sampled_from(contents))
    content["parts"].insert(draw(st.integers(0, len(content["parts"]))), part)


def _e_content(draw: st.DrawFn, contents: list[Content]) -> None:
    content = draw(st.sampled_from(contents))
    change = draw(st.sampled_from(("no-role", "system", "no-parts", "empty", "tuple")))
    if change == "no-role":
        del content["role"]
    elif change == "system":
        content["role"] = "system"
    elif change == "no-parts":
        del content["parts"]
    elif change == "empty":
        content["parts"] = []
    else:
        content["parts"] = tuple(content["parts"])


def _e_signature(draw: st.DrawFn, contents: list[Content]) -> None:
    # A signature the rule drops on a model's text or call, or one where the model puts none:
    # a user's text, a response, a thought part, beside another signature, on a part of no data.
    value = copy.deepcopy(draw(st.sampled_from(_BAD_SIGNATURES + _SIGNATURES)))
    key = _key("thought_signature", draw(st.booleans()))
    place = draw(st.sampled_from(("model", "model", "user", "thought", "both", "alone")))
    model = [c for c in contents if c["role"] == "model"]
    if place in ("model", "thought", "both", "alone") and model:
        content = draw(st.sampled_from(model))
        if place == "alone":
            content["parts"].insert(draw(st.integers(0, len(content["parts"]))), {key: value})
            return
        part = draw(st.sampled_from(content["parts"]))
        part[key] = value
        if place == "thought":
            part["thought"] = True
        elif place == "both":
            part[_key("thought_signature", key == "thought_signature")] = "c2lnbmVk"
    else:
        content = draw(st.sampled_from([c for c in contents if c["role"] == "user"]))
        draw(st.sampled_from(content["parts"]))[key] = value


Edge = Callable[[st.DrawFn, list[Content]], None]
_CALL_KEYS = ("function_call", "functionCall")
_RESPONSE_KEYS = ("function_response", "functionResponse")
_EDGES: tuple[Edge, ...] = (
    _e_pairing,
    _e_pairing,  # the riskiest edge: twice as often
    _e_text,
    _e_trailing_answer,
    _e_ids,
    _e_unanswered,
    _e_move,
    _e_key,
    _e_spelling,
    _e_name,
    _e_value,
    _e_part,
    _e_content,
    _e_signature,
    _e_signature,  # many places and values: twice as often
)

_SYSTEMS: tuple[Any, ...] = (
    "Be brief.",
    " ",
    "",
    "lone \ud800",
    {"parts": [{"text": "Be brief."}]},
    {"parts": [{"text": "Be brief."}, {"text": "Be kind."}]},
    {"parts": [{"text": " "}]},
    {"parts": []},
    {"role": "user", "parts": [{"text": "Be brief."}]},
    {"parts": [{"text": "x", "thought": False}]},
    {"parts": [{"inline_data": {"mime_type": "image/png", "data": "iVBORw0KGgo="}}]},
    None,
    ["Be brief."],
)
_REQUESTS: tuple[dict[str, Any], ...] = (
    {},
    {"model": "gemini-2.5-flash"},
    {"model": "gemini-3-pro-preview", "tools": [{"function_declarations": [{"name": "search"}]}]},
    {"tools": [{"functionDeclarations": [{"name": n} for n in _NAMES]}]},
    {"generation_config": {"thinking_config": {"thinking_budget": 0}}},
    {"config": {"temperature": 0.2}},
)


@st.composite
def plain_gemini(draw: st.DrawFn, edges: tuple[Edge, ...] = _EDGES, *, always: bool = False) -> Any:
    """Plain contents, bare or in a request dict with a system instruction, maybe (``always``:
    surely) with one defect of ``edges``."""
    contents = draw(_plain_contents())
    if always or draw(st.integers(0, 2)) != 0:
        draw(st.sampled_from(edges))(draw, contents)
    if draw(st.booleans()):
        return contents
    native: dict[str, Any] = {
        "contents": contents,
        **copy.deepcopy(draw(st.sampled_from(_REQUESTS))),
    }
    if draw(st.booleans()):
        key = draw(st.sampled_from(("system_instruction", "systemInstruction", "both")))
        system = copy.deepcopy(draw(st.sampled_from(_SYSTEMS)))
        if key == "both":
            native["system_instruction"] = system
            native["systemInstruction"] = copy.deepcopy(system)
        else:
            native[key] = system
    return native


def _signed(native: Any) -> Any:
    """The contents, counted in the property test's statistics by whether their signatures
    were plain for Google (the verdict asked with the terms of ``google``)."""
    contents = native["contents"] if isinstance(native, dict) else native
    signed = any(
        "thought_signature" in part or "thoughtSignature" in part
        for part in _parts(contents, "text", *_CAMEL, *_CAMEL.values())
    )
    if signed:
        terms = terms_for(Target("google"))
        assert terms is not None
        clean = gemini._plainly_clean(native, "google", terms)
        event("signed, plainly clean for google" if clean else "signed, not plainly clean")
    return native


@settings(PROPERTY, max_examples=300)
@given(plain_gemini(), some_targets)
def test_gemini_verdict_holds_on_plain_contents(native: Any, targets: list[Any]) -> None:
    native = _signed(_counted(gemini, native))
    _same_as_full_path(gemini, gemini.heal_gemini, native, targets=targets)


_PAIRING_EDGES: tuple[Edge, ...] = (_e_pairing, _e_ids, _e_name, _e_unanswered)
"""The edges of how responses answer calls, where the verdict mirrors the loader's pairing."""


@settings(PROPERTY, max_examples=200)
@given(plain_gemini(_PAIRING_EDGES, always=True), some_targets)
def test_gemini_verdict_holds_on_responses_that_answer_otherwise(
    native: Any, targets: list[Any]
) -> None:
    _same_as_full_path(gemini, gemini.heal_gemini, _counted(gemini, native), targets=targets)


gemini_strategies = st.one_of(
    s_gemini.gemini_histories("json"),
    s_gemini.gemini_histories("python"),
    s_gemini.valid_gemini_histories("json"),
    s_gemini.valid_gemini_histories("python"),
    s_gemini.broken_gemini_histories().map(lambda broken: broken[0]),
)


@PROPERTY
@given(gemini_strategies, some_targets)
def test_gemini_verdict_holds_on_the_formats_strategies(native: Any, targets: list[Any]) -> None:
    native = _signed(_counted(gemini, native))
    _same_as_full_path(gemini, gemini.heal_gemini, native, targets=targets)


# --- examples --------------------------------------------------------------------------------


def _plain() -> dict[str, Any]:
    """A request of texts, two calls without ids (answered by name, in the other order) and one
    with an id, in both spellings, that ends with the user's message."""
    return {
        "contents": [
            {"role": "user", "parts": [{"text": "weather in Paris? "}]},
            {
                "role": "model",
                "parts": [
                    {"text": "Let me check."},
                    {"function_call": {"name": "weather", "args": {"city": "Paris"}}},
                    {"functionCall": {"name": "search", "args": {"q": "Paris", "limit": 2}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"function_response": {"name": "search", "response": {"hits": [1, 2.5]}}},
                    {"functionResponse": {"name": "weather", "response": {"result": "sunny"}}},
                ],
            },
            {"role": "model", "parts": [{"functionCall": {"name": "search", "id": "fc_1"}}]},
            {
                "role": "user",
                "parts": [{"function_response": {"name": "search", "id": "fc_1", "response": {}}}],
            },
            {"role": "model", "parts": [{"text": "Sunny."}]},
            {"role": "user", "parts": [{"text": "thanks"}]},
        ],
        "system_instruction": {"parts": [{"text": "Be brief."}]},
        "generation_config": {"temperature": 0.2},
    }


def test_a_plain_history_comes_back_as_it_was_without_loading() -> None:
    native = _plain()
    # DeepSeek wants reasoning beside every call; Mistral takes the made-up ids but not fc_1.
    clean = [p for p in ALL_PROVIDERS if gemini._plainly_clean(native, p)]
    assert set(clean) == set(ALL_PROVIDERS) - {"mistral", "deepseek"}
    seen: list[Any] = []
    with mock.patch.object(gemini, "_Reader", _refuse_to_load):
        for provider in clean:
            result = gemini.heal_gemini(
                native, provider=provider, strict=True, on_repair=seen.append
            )
            assert result.messages is native
            assert result.repairs == () and not result.changed
        # The bare contents too, and the defaults spelled out.
        contents = native["contents"]
        assert gemini.heal_gemini(contents).messages is contents
        assert gemini.heal_gemini(contents, policy=Policy(), rules=()).messages is contents
    assert seen == []
    _same_as_full_path(gemini, gemini.heal_gemini, native)


def test_made_up_ids_are_the_loaders() -> None:
    # The verdict hands the ids the loader makes up to the profile and the uniqueness check:
    # the id-less calls of the benchmark's history are nine letters and digits, which Mistral
    # takes; a call's own id equal to one of them is a duplicate.
    native = _gemini("SDK dicts")
    assert gemini._plainly_clean(native, "mistral")
    loaded = gemini.load_messages(native)
    ids = [
        part.tool_call_id
        for message in loaded
        if message.role == "assistant" and not isinstance(message.content, str)
        for part in message.content
        if part.type == "tool-call"
    ]
    assert ids[:2] == ["c0001p000", "c0005p000"]
    clash = copy.deepcopy(native)
    clash["contents"][5]["parts"][0]["function_call"]["id"] = "c0001p000"
    clash["contents"][6]["parts"][0]["function_response"]["id"] = "c0001p000"
    assert not gemini._plainly_clean(clash, None)
    assert gemini.heal_gemini(clash, provider=None).repairs


def _end_with_responses(native: dict[str, Any]) -> dict[str, Any]:
    return {**native, "contents": native["contents"][:5]}


def _thought_signature(native: dict[str, Any]) -> None:
    native["contents"][1]["parts"][1]["thought_signature"] = "c2lnbmVk"


def _mixed_user(native: dict[str, Any]) -> None:
    native["contents"][2]["parts"].append({"text": "and more"})


def _two_of_a_name(native: dict[str, Any]) -> None:
    # Two id-less calls of one name, answered by a response of that name and one of another:
    # by name, one call is answered and the other response answers nothing.
    native["contents"][1]["parts"][2] = {"function_call": {"name": "weather", "args": {}}}


def _sdk(native: dict[str, Any]) -> None:
    from google.genai import types

    native["contents"] = [types.Content.model_validate(c) for c in native["contents"]]


def _answered_with_space(native: dict[str, Any]) -> None:
    native["contents"][-1:] = []
    native["contents"][-1]["parts"][0]["text"] = "Sunny. "


@pytest.mark.parametrize(
    ("change", "provider", "repaired"),
    [
        # Gemini wants a signature on the calls of the current turn (after the last user text).
        pytest.param(_end_with_responses, "google", True, id="google-current-calls"),
        # Google's rules keep the signature; another provider's plan reads options its own way.
        pytest.param(_thought_signature, "anthropic", False, id="thought-signature-elsewhere"),
        pytest.param(_mixed_user, "google", False, id="text-beside-responses"),
        pytest.param(_two_of_a_name, "google", True, id="responses-paired-by-name"),
        pytest.param(_sdk, "google", False, id="sdk-objects"),
        pytest.param(_answered_with_space, "anthropic", True, id="anthropic-prefill-space"),
    ],
)
def test_shapes_the_verdict_refuses_take_the_full_path(
    change: Callable[[dict[str, Any]], Any], provider: ProviderId, repaired: bool
) -> None:
    native = _plain()
    changed = change(native)
    native = native if changed is None else changed
    terms = terms_for(Target(provider))
    assert terms is not None and not gemini._plainly_clean(native, provider, terms)
    loads: list[Any] = []
    reader = gemini._Reader

    def counted() -> Any:
        loads.append(1)
        return reader()

    with mock.patch.object(gemini, "_Reader", counted):
        result = gemini.heal_gemini(native, provider=provider)
    assert loads == [1]
    assert bool(result.repairs) == repaired
    _same_as_full_path(gemini, gemini.heal_gemini, native)


def _put(obj: dict[str, Any], key: str, value: Any) -> None:
    obj[key] = value


def _at(n: dict[str, Any], c: int, p: int) -> dict[str, Any]:
    """The function_call or function_response body of ``contents[c].parts[p]``."""
    ((body,),) = [n["contents"][c]["parts"][p].values()]
    return body  # type: ignore[no-any-return]


Defect = Callable[[dict[str, Any]], object]


class _Text(str):
    """A string of a subclass: the reader keeps it, which the verdict does not vouch for."""

    __slots__ = ()


def _each(*defects: Defect) -> Defect:
    """One defect made of several edits, applied in order."""

    def apply(native: dict[str, Any]) -> None:
        for defect in defects:
            defect(native)

    return apply


GEMINI_DEFECTS: dict[str, Defect] = {
    "system-string": lambda n: _put(n, "system_instruction", "Be brief."),
    "system-camel": lambda n: _put(n, "systemInstruction", n.pop("system_instruction")),
    "system-null": lambda n: _put(n, "system_instruction", None),
    "system-both": lambda n: _put(n, "systemInstruction", "Be brief."),
    "system-blank": lambda n: _put(n, "system_instruction", " "),
    "system-part-blank": lambda n: _put(n, "system_instruction", {"parts": [{"text": "\n"}]}),
    "system-no-parts": lambda n: _put(n, "system_instruction", {"parts": []}),
    "system-role": lambda n: _put(n["system_instruction"], "role", "user"),
    "request-model": lambda n: _put(n, "model", "gemini-2.5-flash"),
    "request-tools": lambda n: _put(
        n, "tools", [{"function_declarations": [{"name": "weather"}, {"name": "search"}]}]
    ),
    "request-tools-short": lambda n: _put(n, "tools", [{"functionDeclarations": [{"name": "x"}]}]),
    "contents-tuple": lambda n: _put(n, "contents", tuple(n["contents"])),
    "contents-empty": lambda n: _put(n, "contents", []),
    "content-sdk": _sdk,
    "content-no-role": lambda n: n["contents"][0].pop("role"),
    "content-extra-key": lambda n: _put(n["contents"][5], "id", "msg_1"),
    "content-empty-parts": lambda n: _put(n["contents"][5], "parts", []),
    "model-first": lambda n: n["contents"].pop(0),
    "two-user-contents": lambda n: n["contents"].insert(
        1, {"role": "user", "parts": [{"text": "x"}]}
    ),
    "answer-ends": lambda n: n["contents"].pop(),
    "answer-ends-with-space": _answered_with_space,
    "responses-end": lambda n: _put(n, "contents", n["contents"][:5]),
    "text-blank": lambda n: _put(n["contents"][5]["parts"][0], "text", " "),
    "text-surrogate": lambda n: _put(n["contents"][0]["parts"][0], "text", "x\udc00"),
    "text-not-a-string": lambda n: _put(n["contents"][0]["parts"][0], "text", 7),
    "text-thought": lambda n: _put(n["contents"][5]["parts"][0], "thought", True),
    "text-thought-false": lambda n: _put(n["contents"][0]["parts"][0], "thought", False),
    "text-after-call": lambda n: n["contents"][1]["parts"].append({"text": "done"}),
    "text-beside-responses": _mixed_user,
    "part-extra-key": lambda n: _put(n["contents"][1]["parts"][1], "x_trace", "1"),
    "part-both-spellings": lambda n: _put(
        n["contents"][1]["parts"][1], "functionCall", {"name": "weather"}
    ),
    "part-thought-signature": _thought_signature,
    "signature-camel": lambda n: _put(n["contents"][1]["parts"][2], "thoughtSignature", "c2ln"),
    "signature-on-text": lambda n: _put(n["contents"][5]["parts"][0], "thought_signature", "Eq=="),
    "signature-bytes": lambda n: _put(n["contents"][3]["parts"][0], "thought_signature", b"\x01"),
    "signature-dummy": lambda n: _put(
        n["contents"][3]["parts"][0], "thoughtSignature", "skip_thought_signature_validator"
    ),
    "signature-url-safe": lambda n: _put(n["contents"][3]["parts"][0], "thoughtSignature", "a-_"),
    # What google-foreign-thought-signature drops, or the reader refuses:
    "signature-not-base64": lambda n: _put(
        n["contents"][1]["parts"][1], "thought_signature", "sig!"
    ),
    "signature-too-long": lambda n: _put(n["contents"][1]["parts"][1], "thoughtSignature", "abcde"),
    "signature-padded-wrongly": lambda n: _put(
        n["contents"][1]["parts"][1], "thought_signature", "abc=="
    ),
    "signature-empty": lambda n: _put(n["contents"][1]["parts"][1], "thought_signature", ""),
    "signature-bytes-empty": lambda n: _put(n["contents"][1]["parts"][1], "thoughtSignature", b""),
    "signature-bytearray": lambda n: _put(
        n["contents"][1]["parts"][1], "thought_signature", bytearray(b"\x01")
    ),
    "signature-number": lambda n: _put(n["contents"][1]["parts"][1], "thought_signature", 7),
    "signature-null": lambda n: _put(n["contents"][1]["parts"][1], "thought_signature", None),
    "signature-str-subclass": lambda n: _put(
        n["contents"][1]["parts"][1], "thought_signature", _Text("c2ln")
    ),
    # Where the model puts none:
    "signature-both-spellings": _each(
        lambda n: _put(n["contents"][1]["parts"][1], "thought_signature", "c2ln"),
        lambda n: _put(n["contents"][1]["parts"][1], "thoughtSignature", "c2ln"),
    ),
    "signature-on-thought": _each(
        lambda n: _put(n["contents"][5]["parts"][0], "thought_signature", "c2ln"),
        lambda n: _put(n["contents"][5]["parts"][0], "thought", True),
    ),
    "signature-alone": lambda n: n["contents"][5]["parts"].append({"thought_signature": "c2ln"}),
    # A thinking model's thoughts (Google's rules read reasoning, finding nothing in these):
    "thought-first": lambda n: n["contents"][1]["parts"].insert(
        0, {"text": "Let me think.", "thought": True}
    ),
    "thought-signed-first": lambda n: n["contents"][5]["parts"].insert(
        0, {"text": "Done.", "thought": True, "thoughtSignature": "c2ln"}
    ),
    "thoughts-first": lambda n: _put(
        n["contents"][3],
        "parts",
        [
            {"text": "hmm", "thought": True, "thought_signature": "c2ln"},
            {"text": " ", "thought": True},
            *n["contents"][3]["parts"],
        ],
    ),
    # What google-empty-part drops, google-foreign-thought-signature drops, or a verdict
    # does not read:
    "thought-empty": lambda n: n["contents"][1]["parts"].insert(0, {"text": "", "thought": True}),
    "thought-surrogate": lambda n: n["contents"][1]["parts"].insert(
        0, {"text": "a\ud800", "thought": True}
    ),
    "thought-signature-not-base64": lambda n: n["contents"][1]["parts"].insert(
        0, {"text": "hmm", "thought": True, "thought_signature": "sig!"}
    ),
    "thought-after-text": lambda n: n["contents"][1]["parts"].insert(
        1, {"text": "hmm", "thought": True}
    ),
    "thought-after-call": lambda n: n["contents"][3]["parts"].append(
        {"text": "hmm", "thought": True}
    ),
    "thought-not-a-string": lambda n: n["contents"][1]["parts"].insert(
        0, {"text": 7, "thought": True}
    ),
    "thought-and-key": lambda n: n["contents"][1]["parts"].insert(
        0, {"text": "hmm", "thought": True, "x_trace": "1"}
    ),
    "signature-user-text": lambda n: _put(
        n["contents"][0]["parts"][0], "thought_signature", "c2ln"
    ),
    "signature-on-response": lambda n: _put(
        n["contents"][4]["parts"][0], "thought_signature", "c2ln"
    ),
    "signature-and-key": _each(
        lambda n: _put(n["contents"][5]["parts"][0], "thought_signature", "c2ln"),
        lambda n: _put(n["contents"][5]["parts"][0], "x_trace", "1"),
    ),
    "part-inline-data": lambda n: n["contents"][0]["parts"].append(
        {"inline_data": {"mime_type": "image/png", "data": "iVBORw0KGgo="}}
    ),
    "part-inline-data-camel-bytes": lambda n: n["contents"][0]["parts"].append(
        {"inlineData": {"mimeType": "image/webp", "data": b"RIFF"}}
    ),
    "part-inline-data-bytes-bmp": lambda n: n["contents"][0]["parts"].append(
        {"inline_data": {"mime_type": "image/bmp", "data": b"BM"}}
    ),
    "part-inline-data-bytes-empty": lambda n: n["contents"][0]["parts"].append(
        {"inline_data": {"mime_type": "image/png", "data": b""}}
    ),
    "part-inline-data-bmp": lambda n: n["contents"][0]["parts"].append(
        {"inline_data": {"mime_type": "image/bmp", "data": "Qk0="}}
    ),
    "part-inline-data-empty": lambda n: n["contents"][0]["parts"].append(
        {"inline_data": {"mime_type": "image/png", "data": ""}}
    ),
    "part-inline-data-url": lambda n: n["contents"][0]["parts"].append(
        {"inline_data": {"mime_type": "image/png", "data": "https://example.com/a.png"}}
    ),
    "part-inline-data-named": lambda n: n["contents"][0]["parts"].append(
        {"inline_data": {"mime_type": "image/png", "data": "iVBORw0KGgo=", "display_name": "a"}}
    ),
    "part-inline-data-untyped": lambda n: n["contents"][0]["parts"].append(
        {"inline_data": {"data": "iVBORw0KGgo="}}
    ),
    "part-file-data": lambda n: n["contents"][0]["parts"].append(
        {"file_data": {"mime_type": "image/png", "file_uri": "gs://bucket/a.png"}}
    ),
    "call-extra-key": lambda n: _put(_at(n, 1, 1), "will_continue", False),
    "call-name-bad": lambda n: _put(_at(n, 3, 0), "name", "web search!"),
    "call-id-not-a-string": lambda n: _put(_at(n, 1, 1), "id", 7),
    "call-id-shared": _each(
        lambda n: _put(_at(n, 1, 1), "id", "fc_1"), lambda n: _put(_at(n, 2, 1), "id", "fc_1")
    ),
    "call-id-made-up": _each(  # the id the loader makes up for the call at contents[1].parts[1]
        lambda n: _put(_at(n, 3, 0), "id", "c0001p001"),
        lambda n: _put(_at(n, 4, 0), "id", "c0001p001"),
    ),
    "call-args-list": lambda n: _put(_at(n, 1, 1), "args", [1]),
    "call-args-nan": lambda n: _put(_at(n, 1, 1), "args", {"x": float("nan")}),
    "call-args-nested-65": lambda n: _put(_at(n, 1, 1), "args", _deep(65)),
    "call-args-null": lambda n: _put(_at(n, 1, 1), "args", None),
    "response-extra-key": lambda n: _put(_at(n, 2, 0), "will_continue", True),
    "response-absent": lambda n: _at(n, 2, 0).pop("response"),
    "response-not-an-object": lambda n: _put(_at(n, 2, 0), "response", "sunny"),
    "response-inf": lambda n: _put(_at(n, 2, 0), "response", {"x": float("inf")}),
    "response-no-name": lambda n: _at(n, 4, 0).pop("name"),
    "responses-swapped": lambda n: n["contents"][2]["parts"].reverse(),
    "response-missing": lambda n: n["contents"][2]["parts"].pop(0),
    "responses-missing": lambda n: n["contents"].pop(2),
    "response-extra": lambda n: n["contents"][2]["parts"].append(
        {"function_response": {"name": "search", "response": {}}}
    ),
    # Paired by name: the weather call answered twice, the search call never.
    "response-renamed": lambda n: _put(_at(n, 2, 0), "name", "weather"),
    "response-name-bad": lambda n: _put(_at(n, 2, 0), "name", "web search!"),
    "response-name-bad-with-id": lambda n: _put(_at(n, 4, 0), "name", "web search!"),
    "response-name-other-with-id": lambda n: _put(_at(n, 4, 0), "name", "weather"),
    "response-id-foreign": lambda n: _put(_at(n, 4, 0), "id", "fc_9"),
    "response-id-dropped": lambda n: _at(n, 4, 0).pop("id"),
    "call-id-dropped": lambda n: _at(n, 3, 0).pop("id"),
    # The id the loader makes up for the call it answers by name: kept as the response's own.
    "response-id-made-up": lambda n: _put(_at(n, 2, 1), "id", "c0001p000"),
    "responses-after-text": lambda n: n["contents"].insert(
        6, {"role": "user", "parts": [{"function_response": {"name": "search", "response": {}}}]}
    ),
}
"""Native Gemini defects, applied to :func:`_plain`: contents[1] holds a text and two calls
without ids, contents[2] their responses (in the other order), contents[3] a call with an id
and contents[4] its response."""

GEMINI_CLEAN = {
    "system-string",
    "system-camel",
    "system-null",
    "request-model",
    "request-tools",
    "responses-swapped",  # paired by name whatever their order
    "response-id-dropped",  # paired by name: the only search call waiting
    "part-thought-signature",
    "signature-camel",
    "signature-on-text",
    "signature-bytes",
    "signature-dummy",
    "signature-url-safe",
    "thought-first",
    "thought-signed-first",
    "thoughts-first",
    # A user's images as inline data that load as plain image files.
    "part-inline-data",
    "part-inline-data-camel-bytes",
}
"""The defects after which the contents are still plainly clean for ``google``. Not among them
(the full path's): a thought after a text or a call, which the verdict does not read;
``answer-ends`` (the calls are then in the current turn, which Gemini wants signed),
``call-id-dropped`` (a response whose id no call has is paired by name: the full path's)."""


@pytest.mark.parametrize(
    "defect", sorted(k for k in GEMINI_DEFECTS if k.startswith(("part-inline", "part-file")))
)
def test_the_walk_takes_only_inline_images_that_load_plain(defect: str) -> None:
    native = _plain()
    GEMINI_DEFECTS[defect](native)
    part = native["contents"][0]["parts"][-1]
    loaded = gemini.load({"contents": [native["contents"][0]]}).messages[0].content
    assert not isinstance(loaded, str)
    taken = gemini._plain_blob(part)
    assert not taken or plain_image_file(loaded[-1])
    assert taken == (defect in GEMINI_CLEAN)


@pytest.mark.parametrize("defect", sorted(GEMINI_DEFECTS))
def test_one_gemini_defect(defect: str) -> None:
    native = _plain()
    GEMINI_DEFECTS[defect](native)
    plain = _same_as_full_path(gemini, gemini.heal_gemini, native)
    assert ("google" in plain) == (defect in GEMINI_CLEAN)


def test_signatures_are_plain_for_google_alone() -> None:
    # A thinking model's history: Google's rules keep the signatures it issued. Every other
    # provider's plan reads options its own way (or, for those that read none, the verdict does
    # not vouch for them): the full path.
    native = _plain()
    GEMINI_DEFECTS["signature-camel"](native)
    GEMINI_DEFECTS["signature-on-text"](native)
    plain = _same_as_full_path(gemini, gemini.heal_gemini, native)
    assert plain == {"google"}
    terms = terms_for(Target("google"))
    assert terms is not None and terms.signatures and not terms.rich
    assert gemini._plainly_clean(native, "google", terms)
    assert not gemini._plainly_clean(native, "google")  # terms that take no signature
    for target in (Target.of("google", "gemini-2.5-flash"), Target.of(None, "gemini-3-pro")):
        found = terms_for(target)
        assert found is not None and found.signatures
    for provider in ALL_PROVIDERS:
        found = terms_for(Target(provider))
        assert found is None or found.signatures == (provider == "google")


def _sign_current_calls(native: dict[str, Any]) -> dict[str, Any]:
    """The request cut after the responses of contents[4], its two model contents' first calls
    signed (the current turn: after contents[0], the last user text)."""
    native = _end_with_responses(native)
    native["contents"][1]["parts"][1]["thought_signature"] = b"\x12\x8a"
    native["contents"][3]["parts"][0]["thoughtSignature"] = "c2lnbmVk"
    return native


def test_a_current_turn_signed_on_each_first_call_is_plain_for_google() -> None:
    # Gemini 3 validates the signatures of the current turn's calls: a request that ends with
    # the responses is plain when the first call of each step carries one Google keeps.
    native = _sign_current_calls(_plain())
    assert _same_as_full_path(gemini, gemini.heal_gemini, native) == {"google"}
    google = terms_for(Target("google"))
    assert google is not None and gemini._plainly_clean(native, "google", google)
    # Only the current turn counts: an earlier turn's calls need none.
    response = {"name": "search", "id": "fc_0", "response": {}}
    earlier: list[Content] = [
        {"role": "user", "parts": [{"text": "first"}]},
        {"role": "model", "parts": [{"function_call": {"name": "search", "id": "fc_0"}}]},
        {"role": "user", "parts": [{"function_response": response}]},
        {"role": "model", "parts": [{"text": "Found."}]},
    ]
    before = {**native, "contents": earlier + native["contents"]}
    assert _same_as_full_path(gemini, gemini.heal_gemini, before) == {"google"}
    # A later call signed instead of the first, one step unsigned, a signature Google drops:
    # the full path, which signs or drops.
    later = _sign_current_calls(_plain())
    del later["contents"][1]["parts"][1]["thought_signature"]
    later["contents"][1]["parts"][2]["thought_signature"] = "c2lnbmVk"
    one = _sign_current_calls(_plain())
    del one["contents"][3]["parts"][0]["thoughtSignature"]
    bad = _sign_current_calls(_plain())
    bad["contents"][3]["parts"][0]["thoughtSignature"] = "not base64!"
    for refused, rule in (
        (later, "google-missing-thought-signature"),
        (one, "google-missing-thought-signature"),
        (bad, "google-foreign-thought-signature"),
    ):
        assert not gemini._plainly_clean(refused, "google", google)
        assert rule in [r.rule for r in gemini.heal_gemini(refused).repairs]
        _same_as_full_path(gemini, gemini.heal_gemini, refused)


@given(st.binary())
def test_bytes_signatures_are_judged_as_the_reader_reads_them(signature: bytes) -> None:
    # The verdict takes bytes that are not empty without encoding them: the reader's base64 of
    # them is a signature the rule keeps exactly then.
    read = base64.b64encode(signature).decode("ascii")
    assert gemini._plain_signatures([signature]) == valid_signature(read) == bool(signature)


def test_the_ends_the_target_allows_are_read() -> None:
    # Results end a request plainly for a provider without signatures; an answer ends a stored
    # history unless the model refuses prefill.
    native = _end_with_responses(_plain())
    assert gemini._plainly_clean(native, "openai-chat")
    answered = {**_plain(), "contents": _plain()["contents"][:-1]}
    assert gemini._plainly_clean(answered, "anthropic")
    refusing = terms_for(Target.of("anthropic", "claude-sonnet-4-6"))
    assert refusing is not None and not gemini._plainly_clean(answered, "anthropic", refusing)
    result = gemini.heal_gemini(answered, provider="anthropic", model="claude-sonnet-4-6")
    assert [r.rule for r in result.repairs] == ["anthropic-assistant-prefill"]


@pytest.mark.parametrize(
    "options",
    [
        {"scope": "history"},
        {"policy": {"orphan-tool-call": "drop-call"}},
        {"policy": Policy(disable=["orphan-tool-call"])},
    ],
)
def test_options_the_verdict_does_not_know_take_the_full_path(options: dict[str, Any]) -> None:
    asked: list[Any] = []
    verdict = gemini._plainly_clean

    def spy(*args: Any) -> bool:
        asked.append(args)
        return verdict(*args)

    native = _plain()
    with mock.patch.object(gemini, "_plainly_clean", spy):
        result = gemini.heal_gemini(native, **options)
    assert asked == []
    with _full_path(gemini):
        assert result == gemini.heal_gemini(native, **options)


def test_the_benchmark_histories_are_plainly_clean_unless_broken() -> None:
    for style in ("SDK dicts", "REST JSON"):
        native = _gemini(style)
        with mock.patch.object(gemini, "_Reader", _refuse_to_load):
            assert gemini.heal_gemini(native).messages is native
        broken = _without_first_result(native)
        assert not gemini._plainly_clean(broken, "google")
        with _full_path(gemini):
            assert gemini.heal_gemini(broken).repairs


def test_kimi_ids_in_a_thinking_models_history_are_renamed_without_loading() -> None:
    """The reasoning corpus as Gemini contents (signed thoughts first in the model's turns, half
    the ids Kimi's): for ``google`` the adapter renames the ids in copies of the caller's
    contents, without loading the unbroken histories, and gives what the full path gives."""
    natives = [
        gemini.dump_messages(load_messages(raw))
        for raw in corpus(conversations=40, length=30, shape="reasoning")
    ]
    renamed = 0
    for native in natives:
        given = copy.deepcopy(native)
        fast, skipped = _fast(gemini, partial(gemini.heal_gemini, native))
        with _full_path(gemini):
            slow = gemini.heal_gemini(native)
        assert native == given
        assert fast.repairs == slow.repairs
        assert fast.messages == slow.messages
        renamed += skipped and bool(fast.repairs)
    assert renamed >= 0.8 * len(natives) > 0


def test_contents_with_an_id_made_up_are_renamed_the_full_way() -> None:
    """Beside Kimi's ids, calls without an id of their own (the loader makes one up, and pairs
    their responses by name): the renaming is left to the full path, which gives the same."""
    native = _plain()
    _at(native, 3, 0)["id"] = _at(native, 4, 0)["id"] = "functions.search:1"
    google = terms_for(Target("google"))
    assert google is not None
    ids: list[str] = []
    assert gemini._verdict(native, "google", google, ids) == REFUSED_IDS
    assert gemini._renamed_ids(native, Target("google"), ids) is None
    fast = gemini.heal_gemini(copy.deepcopy(native))
    with _full_path(gemini):
        slow = gemini.heal_gemini(copy.deepcopy(native))
    assert fast.repairs == slow.repairs and fast.messages == slow.messages
    assert [r.rule for r in fast.repairs] == ["invalid-tool-call-id"] * 2
