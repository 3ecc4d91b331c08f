"""heal_json and its clean verdict (heal/_json.py).

The verdict is exact in one direction: when it says clean, heal_messages returns no repair and
gives the history back as it is, under every provider. Two strategies feed the properties: the
property tests' histories (tests/strategies.py), which the verdict mostly refuses (provider
options, reasoning, files), and plain histories of the shapes it is made for, each maybe with one
small defect that sits right at its edges (a trailing assistant message, two results for one
call, an id or name one provider refuses, a value nested too deeply, ...).

heal_json must give what heal_messages gives on every input: the same repairs, and the same
history (the caller's own text when the verdict is clean, else exactly :func:`heal._json.dumps`
of heal_messages' output), or the same error.
"""

from __future__ import annotations

import copy
import gc
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext, suppress
from dataclasses import replace
from datetime import datetime
from decimal import Decimal
from functools import partial
from typing import Any
from unittest import mock

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import heal._json as heal_json_module
from benchmarks.corpus import corpus
from heal import (
    PROVIDERS,
    ConfigError,
    HealingError,
    InputError,
    JsonHealResult,
    Policy,
    Target,
    dump_messages,
    heal_json,
    heal_messages,
)
from heal._engine import escaped_json, heal_not_plain
from heal._json import clean_verdict, dumps
from heal.rules import Context, Finding, Rule, default_registry, register_rule
from heal.rules._quick import CLEAN, DROPS, NOT_PLAIN, REFUSED_IDS
from tests import test_quick as quick_cases
from tests.strategies import histories
from tests.test_targets import targets
from tests.verdict_targets import MODEL_TARGETS

ALL_PROVIDERS: list[Any] = [None, *PROVIDERS]
History = list[dict[str, Any]]

# --- plain histories -------------------------------------------------------------------------

_TEXTS = ("hi", "What's the weather?", "ß 東京 🙂", "ends with space ", "line\nbreak")
_BLANKS = ("", " ", "\n\t")
_NAMES = ("search", "get_weather", "run-code", "x" * 64)
_ODD_NAMES = ("1tool", "a.b", "x" * 65, "bad name")
"""Names some provider refuses: Gemini's first character, its extra characters, too long, a
space."""
_ID_STYLES: tuple[Callable[[int], str], ...] = (
    lambda n: f"call_{n}",
    lambda n: f"toolu_01{n:020d}",
    lambda n: f"a{n:08d}",  # nine letters and digits: Mistral's form
    lambda n: f"functions.search:{n}",
    lambda n: f"{n:041d}",  # past OpenAI Chat's 40
    lambda n: f"{n:065d}",  # past Bedrock's and Responses' 64
)


def _call(call_id: str, name: str, args: Any) -> dict[str, Any]:
    return {"type": "tool-call", "toolCallId": call_id, "toolName": name, "input": args}


def _result(call_id: str, name: str, output: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool-result", "toolCallId": call_id, "toolName": name, "output": output}


def _nested(depth: int) -> dict[str, Any]:
    value: Any = 1
    for _ in range(depth):
        value = {"k": value}
    return value  # type: ignore[no-any-return]


_text = st.sampled_from(_TEXTS)
_output = st.one_of(
    st.builds(
        lambda kind, v: {"type": kind, "value": v}, st.sampled_from(("text", "error-text")), _text
    ),
    st.builds(
        lambda kind, v: {"type": kind, "value": v},
        st.sampled_from(("json", "error-json")),
        st.sampled_from((None, 0, 2.5, "", [], {"ok": True}, [1, {"a": [None]}])),
    ),
)
_args = st.sampled_from(({}, {"query": "q1", "limit": 1}, {"a": [1, 2.5, None, {"b": "c"}]}))


_PNG = "iVBORw0KGgo="
IMAGES: list[tuple[dict[str, Any], bool]] = [
    ({"type": "image", "image": _PNG, "mediaType": "image/png"}, True),
    ({"type": "image", "image": "https://example.com/a.png"}, True),
    ({"type": "image", "image": f"data:image/gif;base64,{_PNG}", "mediaType": "image/gif"}, True),
    ({"type": "image", "image": _PNG, "mediaType": "image/tiff"}, False),
    ({"type": "image", "image": _PNG, "mediaType": "image/jpg"}, False),
    ({"type": "image", "image": ""}, False),
    ({"type": "image", "image": "file-6F2ksmvXxt4Vdo"}, False),
    (
        {"type": "image", "image": _PNG, "providerOptions": {"openai": {"imageDetail": "low"}}},
        False,
    ),
]
"""A user's images, and whether the walk takes each: those that load as plain images
without options (one with OpenAI's detail is plain to the rules, but the walk reads no
options of a user's), not a type Anthropic refuses or misnames, no data, an OpenAI file."""

IMAGE_FILES: list[tuple[dict[str, Any], bool]] = [
    ({"type": "file", "data": _PNG, "mediaType": "image/png"}, True),
    (
        {"type": "file", "data": "https://e.com/a.jpg", "mediaType": "image/jpeg", "filename": "a"},
        True,
    ),
    ({"type": "file", "data": _PNG, "mediaType": "image/bmp"}, False),
    ({"type": "file", "data": "JVBERi0=", "mediaType": "application/pdf"}, False),
    ({"type": "file", "data": "", "mediaType": "image/png"}, False),
    ({"type": "file", "data": "file-6F2ksmvXxt4Vdo", "mediaType": "image/png"}, False),
    ({"type": "file", "data": _PNG, "mediaType": "image/png", "filename": None}, False),
]
"""A user's images given as files, as the AI SDK spells them: PNG data and a JPEG URL with a
name are plain; a BMP, a PDF, no data, an OpenAI file and a null name are not."""


def _user(draw: st.DrawFn) -> dict[str, Any]:
    if draw(st.booleans()):
        return {"role": "user", "content": draw(_text)}
    parts: list[dict[str, Any]] = [
        {"type": "text", "text": t} for t in draw(st.lists(_text, min_size=1, max_size=2))
    ]
    if draw(st.integers(0, 3)) == 0:
        image = copy.deepcopy(draw(st.sampled_from(IMAGES + IMAGE_FILES))[0])
        parts.insert(draw(st.integers(0, len(parts))), image)
    return {"role": "user", "content": parts}


@st.composite
def plain_histories(draw: st.DrawFn, edges: bool = True) -> History:
    """A history of the shapes the verdict accepts, then maybe one defect at its edges (never,
    unless ``edges``)."""
    style = draw(st.sampled_from(_ID_STYLES))
    counter = iter(range(1, 1000))
    history: History = [
        {"role": "system", "content": draw(_text)} for _ in range(draw(st.integers(0, 2)))
    ]
    for _ in range(draw(st.integers(1, 3))):
        history.append(_user(draw))
        for _ in range(draw(st.integers(1, 2))):
            calls = [
                (style(next(counter)), draw(st.sampled_from(_NAMES)))
                for _ in range(draw(st.integers(0, 2)))
            ]
            texts = draw(st.lists(_text, min_size=0 if calls else 1, max_size=2))
            parts: list[dict[str, Any]] = [{"type": "text", "text": t} for t in texts]
            if not calls:  # the model's answer ends the user's turn
                answer = texts[0] if draw(st.booleans()) else parts
                history.append({"role": "assistant", "content": answer})
                break
            parts += [_call(cid, name, copy.deepcopy(draw(_args))) for cid, name in calls]
            history.append({"role": "assistant", "content": parts})
            results = [_result(cid, name, draw(_output)) for cid, name in calls]
            history.append({"role": "tool", "content": draw(st.permutations(results))})
    # A request ends with the user's message, or with the results the model is to read.
    if history[-1]["role"] == "assistant" or draw(st.booleans()):
        history.append(_user(draw))
    if edges and draw(st.booleans()):
        draw(st.sampled_from(_EDGES))(draw, history)
    return history


def _positions(history: History, test: Callable[[dict[str, Any]], bool]) -> list[int]:
    return [i for i, message in enumerate(history) if test(message)]


def _edge_trailing_assistant(draw: st.DrawFn, history: History) -> None:
    history.append({"role": "assistant", "content": draw(st.sampled_from(("Done.", "Done. ")))})


def _edge_repeat_message(draw: st.DrawFn, history: History) -> None:
    i = draw(st.integers(0, len(history) - 1))
    history.insert(i, copy.deepcopy(history[i]))


def _edge_drop_message(draw: st.DrawFn, history: History) -> None:
    del history[draw(st.integers(0, len(history) - 1))]


def _edge_late_system(draw: st.DrawFn, history: History) -> None:
    # Before a user message, where nothing else but its place is wrong.
    users = _positions(history, lambda m: m["role"] == "user")
    history.insert(draw(st.sampled_from(users)), {"role": "system", "content": "late"})


def _edge_blank(draw: st.DrawFn, history: History) -> None:
    i = draw(st.sampled_from(range(len(history))))
    content = history[i]["content"]
    blank = draw(st.sampled_from(_BLANKS))
    if isinstance(content, str):
        history[i]["content"] = blank
    elif history[i]["role"] == "tool":
        content[0]["output"] = {"type": "text", "value": blank}
    else:
        content.insert(0, {"type": "text", "text": blank})


def _edge_lone_surrogate(draw: st.DrawFn, history: History) -> None:
    i = draw(st.sampled_from(range(len(history))))
    content = history[i]["content"]
    if isinstance(content, str):
        history[i]["content"] = content + "\ud83d"
    elif history[i]["role"] == "tool":
        content[0]["output"] = {"type": "text", "value": "\udfff"}
    else:
        content[-1] = (
            {**content[-1], "text": "\ud800"} if content[-1]["type"] == "text" else content[-1]
        )


def _edge_text_after_call(draw: st.DrawFn, history: History) -> None:
    spots = _positions(history, lambda m: m["role"] == "tool")
    if spots:
        history[draw(st.sampled_from(spots)) - 1]["content"].append(
            {"type": "text", "text": "more"}
        )


def _edge_extra_key(draw: st.DrawFn, history: History) -> None:
    message = history[draw(st.integers(0, len(history) - 1))]
    target = message
    if isinstance(message["content"], list) and draw(st.booleans()):
        target = message["content"][0]
    target[draw(st.sampled_from(("providerOptions", "customField")))] = {"x": {"y": 1}}


def _edge_odd_call(draw: st.DrawFn, history: History) -> None:
    spots = _positions(history, lambda m: m["role"] == "tool")
    if not spots:
        return
    t = draw(st.sampled_from(spots))
    call = next(p for p in history[t - 1]["content"] if p["type"] == "tool-call")
    result = next(p for p in history[t]["content"] if p["toolCallId"] == call["toolCallId"])
    change = draw(
        st.sampled_from(("name", "result-name", "input", "deep", "shallow", "id", "twice", "split"))
    )
    if change == "name":
        call["toolName"] = result["toolName"] = draw(st.sampled_from(_ODD_NAMES))
    elif change == "result-name":
        result["toolName"] = "other"
    elif change == "input":
        call["input"] = draw(st.sampled_from(('{"q": 1}', [1], None)))
    elif change in ("deep", "shallow"):
        call["input"] = _nested(300 if change == "deep" else 64)
    elif change == "id":  # the id of a call in another assistant message
        others = [
            part["toolCallId"]
            for message in history
            if message["role"] == "assistant" and message is not history[t - 1]
            for part in (message["content"] if isinstance(message["content"], list) else ())
            if part["type"] == "tool-call"
        ]
        if others:
            call["toolCallId"] = result["toolCallId"] = others[0]
    elif change == "twice":
        history[t]["content"].append(copy.deepcopy(result))
    elif len(history[t]["content"]) > 1:  # split: the second result in a tool message of its own
        history.insert(t + 1, {"role": "tool", "content": [history[t]["content"].pop()]})


_EDGES = (
    _edge_trailing_assistant,
    _edge_repeat_message,
    _edge_drop_message,
    _edge_late_system,
    _edge_blank,
    _edge_lone_surrogate,
    _edge_text_after_call,
    _edge_extra_key,
    _edge_odd_call,
)

any_history = st.one_of(plain_histories(), histories())

# --- the verdict -----------------------------------------------------------------------------


def _verdict_holds(history: History) -> None:
    for options in [{"provider": provider} for provider in ALL_PROVIDERS] + MODEL_TARGETS:
        target = {key: value for key, value in options.items() if key != "provider"}
        if clean_verdict(history, options.get("provider"), **target):
            # At history scope too (migrate asks it so): its rules are some of the request's.
            for scope in ("request", "history"):
                result = heal_messages(history, scope=scope, **options)
                assert result.repairs == (), (options, [r.describe() for r in result.repairs])
                assert dump_messages(result.messages) == history, options


@settings(max_examples=400)
@given(plain_histories())
def test_clean_verdict_means_no_repair_plain(history: History) -> None:
    _verdict_holds(history)


@given(histories())
def test_clean_verdict_means_no_repair_strategies(history: History) -> None:
    _verdict_holds(history)


_OPTIONS: tuple[Any, ...] = (
    {"openai": {"itemId": "msg_1"}},
    {"openai": {"itemId": "fc_1"}, "xai": {}},
    {"anthropic": {"cacheControl": {"type": "ephemeral"}}},
    {"anthropic": {"signature": "c2ln"}},
    {"google": {"thoughtSignature": "c2ln"}},
    {"heal": {"synthesized": True}},
    {"heal": {"aborted": True}},
    {"openai": {"itemId": 1.5e300 * 1e10}},  # not finite
    {"openai": "msg_1"},
    {"openai": {"itemId": ("msg_1",)}},  # a Python value JSON cannot hold
    {1: {"itemId": "msg_1"}},  # a namespace that is not a string
    ["openai"],  # options that are not an object
    {},
)
"""Provider options as the AI SDK stores them (OpenAI's item ids, Anthropic's signatures and
cache marks, Gemini's signatures), heal's own marks, and values that do not load as they are."""


@pytest.mark.parametrize("options", _OPTIONS, ids=repr)
def test_provider_options_are_plain_only_as_json_objects_of_other_namespaces(
    options: Any,
) -> None:
    """Options on a text part (provider None reads none of them): plain when they are a JSON
    object of namespaces, none of them heal's, each an object of plain values; anything else
    is left to the full path, which loads or refuses it."""
    history = copy.deepcopy(PLAIN)
    history[2]["content"][0]["providerOptions"] = copy.deepcopy(options)
    plain = (
        type(options) is dict
        and all(type(name) is str and name != "heal" for name in options)
        and options not in ({"openai": {"itemId": 1.5e300 * 1e10}}, {"openai": "msg_1"})
        and options != {"openai": {"itemId": ("msg_1",)}}
    )
    assert clean_verdict(history) is plain
    if plain:
        assert heal_messages(history).repairs == ()


_THOUGHTS: tuple[Any, ...] = (
    {"type": "reasoning", "text": "Think first."},
    {"type": "reasoning", "text": ""},
    {"type": "reasoning", "text": " "},
    {"type": "reasoning", "text": "lone \ud800"},
    {
        "type": "reasoning",
        "text": "Think.",
        "providerOptions": {"openai": {"itemId": "rs_1", "reasoningEncryptedContent": "gAAA"}},
    },
    {"type": "reasoning", "text": "Signed.", "providerOptions": {"anthropic": {"signature": "c2"}}},
    {"type": "reasoning", "text": "x", "signature": "c2ln"},
)
"""Reasoning parts as the AI SDK stores them, and a few that rules mend or loading refuses."""


def _rich_edit(draw: st.DrawFn, history: History) -> None:
    """One rich edit: provider options on a part or a message, reasoning in an assistant
    message (at any place, or alone)."""
    edit = draw(
        st.sampled_from(("part-options", "message-options", "reasoning", "only", "item-ids"))
    )
    if edit == "item-ids":
        _item_ids(draw, history)
        return
    if edit == "message-options":
        draw(st.sampled_from(history))["providerOptions"] = copy.deepcopy(
            draw(st.sampled_from(_OPTIONS))
        )
        return
    spots = [
        m
        for m in history
        if isinstance(m["content"], list) and (edit == "part-options" or m["role"] == "assistant")
    ]
    if not spots:
        return
    message = draw(st.sampled_from(spots))
    if edit == "part-options":
        part = draw(st.sampled_from(message["content"]))
        part["providerOptions"] = copy.deepcopy(draw(st.sampled_from(_OPTIONS)))
    elif edit == "reasoning":
        at = draw(st.integers(0, len(message["content"])))
        message["content"].insert(at, copy.deepcopy(draw(st.sampled_from(_THOUGHTS))))
    else:
        message["content"] = [copy.deepcopy(draw(st.sampled_from(_THOUGHTS)))]


def _item_ids(draw: st.DrawFn, history: History) -> None:
    """OpenAI item ids on the parts of the assistant messages, as the AI SDK stores a Responses
    turn: maybe reasoning before the first part, each part its own id (a run of reasoning parts
    one id); or one id for every text and call, one for every reasoning run, one for each
    reasoning part of a run."""
    n = 0
    repeat = draw(st.booleans()) and draw(st.booleans())  # every text and call one item
    split = draw(st.booleans()) and draw(st.booleans())  # each reasoning part its own item
    again = draw(st.booleans()) and draw(st.booleans())  # every reasoning run the same item
    for message in history:
        if message["role"] != "assistant":
            continue
        if isinstance(message["content"], str):
            message["content"] = [{"type": "text", "text": message["content"]}]
        if draw(st.booleans()):
            summaries = draw(st.integers(1, 2))
            thought = {"type": "reasoning", "text": "Think."}
            message["content"][:0] = [copy.deepcopy(thought) for _ in range(summaries)]
        run = None
        for part in message["content"]:
            n += 1
            if part["type"] == "reasoning":
                run = "rs_0" if again else (f"rs_{n}" if split else run or f"rs_{n}")
                item = run
            else:
                run = None
                item = "fc_1" if repeat else f"item_{n}"
            options = {"itemId": item}
            if part["type"] == "reasoning" and draw(st.booleans()):
                options["reasoningEncryptedContent"] = "gAAAAB"
            part["providerOptions"] = {"openai": options}


@st.composite
def rich_histories(draw: st.DrawFn) -> History:
    """A plain history with provider options and reasoning, as an AI SDK history from OpenAI's
    Responses API or Anthropic holds them (and some that rules mend)."""
    history = draw(plain_histories())
    for _ in range(draw(st.integers(1, 3))):
        _rich_edit(draw, history)
    return history


RESPONSES_TURN: History = [
    {"role": "user", "content": [{"type": "text", "text": "weather in Paris?"}]},
    {
        "role": "assistant",
        "content": [
            {
                "type": "reasoning",
                "text": "A tool can answer.",
                "providerOptions": {
                    "openai": {"itemId": "rs_1", "reasoningEncryptedContent": "gAAAAB"}
                },
            },
            {
                "type": "text",
                "text": "Let me check.",
                "providerOptions": {"openai": {"itemId": "msg_1"}},
            },
            {
                **_call("call_1", "weather", {"city": "Paris"}),
                "providerOptions": {"openai": {"itemId": "fc_1"}},
            },
        ],
    },
    {
        "role": "tool",
        "content": [_result("call_1", "weather", {"type": "text", "value": "sunny"})],
    },
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Sunny.", "providerOptions": {"openai": {"itemId": "msg_2"}}}
        ],
    },
    {"role": "user", "content": "thanks"},
]
"""A turn of an AI SDK history from OpenAI's Responses API: item ids on every part, encrypted
reasoning."""


def test_an_ai_sdk_responses_history_is_plain_where_no_rule_reads_its_options() -> None:
    clean = {provider for provider in ALL_PROVIDERS if clean_verdict(RESPONSES_TURN, provider)}
    # Anthropic's, Bedrock's, Gemini's, Groq's and Cerebras's rules read reasoning; DeepSeek
    # wants reasoning_content, Mistral its own ids. The Responses API's item rules find nothing.
    assert clean == {None, "openai-chat", "xai", "openai-compatible", "openai-responses"}
    for provider in ALL_PROVIDERS:
        result = heal_messages(RESPONSES_TURN, provider=provider)
        if provider in clean:
            assert result.repairs == ()
    text = json.dumps(RESPONSES_TURN)
    with mock.patch.object(heal_json_module, "heal_messages", _refuse_to_heal):
        assert heal_json(text).data is text
    with mock.patch.object(heal_json_module, "heal_messages", _refuse_to_heal):
        assert heal_json(text, provider="openai-responses").data is text
    # The same reasoning item again in a later turn is sent twice: duplicate-item-id.
    twice = [*RESPONSES_TURN, copy.deepcopy(RESPONSES_TURN[1])]
    twice[-1]["content"] = twice[-1]["content"][:2]
    assert not clean_verdict(twice, "openai-responses") and clean_verdict(twice)
    assert "duplicate-item-id" in {
        r.rule for r in heal_messages(twice, provider="openai-responses").repairs
    }


def _answer(*parts: dict[str, Any]) -> History:
    """RESPONSES_TURN and one more answer of ``parts``, then a user message."""
    return [
        *copy.deepcopy(RESPONSES_TURN),
        {"role": "assistant", "content": [copy.deepcopy(p) for p in parts]},
        {"role": "user", "content": "ok"},
    ]


def _item(part: dict[str, Any], item: str | None, **more: Any) -> dict[str, Any]:
    options = {} if item is None else {"itemId": item}
    return {**part, "providerOptions": {"openai": {**options, **more}}}


_THINK = {"type": "reasoning", "text": "Think."}
_SAY = {"type": "text", "text": "Fine."}
_CALL = _call("call_9", "weather", {"city": "Rome"})


@pytest.mark.parametrize(
    ("history", "rule"),
    [
        pytest.param(RESPONSES_TURN, None, id="the turn"),
        pytest.param(
            _answer(_item(_THINK, "rs_2"), _item(_THINK, "rs_2"), _item(_SAY, "msg_3")),
            None,
            id="summary parts of one item",
        ),
        pytest.param(
            _answer(_item(_THINK, "rs_1"), _item(_SAY, "msg_3")),
            "duplicate-item-id",
            id="reasoning item again",
        ),
        pytest.param(_answer(_item(_SAY, "msg_1")), "duplicate-item-id", id="message item again"),
        pytest.param(
            _answer(_item(_THINK, "rs_2"), _item(_THINK, "rs_3"), _item(_SAY, "msg_3")),
            "reasoning-without-following-item",
            id="two reasoning items in a row",
        ),
        pytest.param(
            _answer(_item(_THINK, None, reasoningEncryptedContent="gAAAAB"), _item(_SAY, "msg_3")),
            "encrypted-reasoning-without-item-id",
            id="encrypted without an id",
        ),
        pytest.param(
            _answer(
                {**_THINK, "providerOptions": {"anthropic": {"signature": "c2ln"}}},
                _item(_SAY, "msg_3"),
            ),
            "openai-foreign-reasoning",
            id="another provider's reasoning",
        ),
    ],
)
def test_openai_items_in_an_ai_sdk_history(history: History, rule: str | None) -> None:
    repairs = {r.rule for r in heal_messages(history, provider="openai-responses").repairs}
    assert clean_verdict(history, "openai-responses") is (rule is None)
    if rule is None:
        assert repairs == set()
    else:
        assert rule in repairs
    assert clean_verdict(history)  # provider None reads no item


@settings(max_examples=400)
@given(rich_histories())
def test_clean_verdict_means_no_repair_rich(history: History) -> None:
    event("clean for none" if clean_verdict(history) else "not clean for none")
    _verdict_holds(history)


PLAIN: History = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": [{"type": "text", "text": "weather in Paris? "}]},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me check."},
            _call("call_1", "weather", {"city": "Paris"}),
            _call("call_2", "search", {"q": "Paris", "limit": 2}),
        ],
    },
    {
        "role": "tool",
        "content": [
            _result("call_2", "search", {"type": "json", "value": [{"title": "Paris"}]}),
            _result("call_1", "weather", {"type": "text", "value": "sunny"}),
        ],
    },
    {"role": "assistant", "content": "Sunny."},
    {"role": "user", "content": "thanks"},
]


@pytest.mark.parametrize(
    ("image", "plain"),
    [*IMAGES, *IMAGE_FILES, ({"type": "image", "image": [1, 2]}, False)],  # the last: none
    ids=lambda v: json.dumps(v)[:50],
)
def test_a_users_plain_image_is_plainly_clean(image: dict[str, Any], plain: bool) -> None:
    history: History = [
        {"role": "user", "content": [{"type": "text", "text": "what is this?"}, image]},
        {"role": "assistant", "content": "a cat"},
        {"role": "user", "content": "thanks"},
    ]
    for provider in ALL_PROVIDERS:
        assert clean_verdict(history, provider) == plain, provider
        if plain:
            text = json.dumps(history)
            assert heal_json(text, provider=provider).data is text
    _verdict_holds(history)


def test_a_plain_history_is_clean_for_every_provider_that_takes_it() -> None:
    clean = {provider for provider in ALL_PROVIDERS if clean_verdict(PLAIN, provider)}
    # Mistral wants nine-character ids, DeepSeek reasoning beside every call.
    assert clean == set(ALL_PROVIDERS) - {"mistral", "deepseek"}
    for provider in clean:
        assert heal_messages(PLAIN, provider=provider).repairs == ()


def _with(history: History, i: int, message: dict[str, Any]) -> History:
    return [*history[:i], message, *history[i:]]


# Each is refused by the verdict for a provider that does repair it: the facts it must know.
PROVIDER_EDGES = [
    pytest.param(None, [*PLAIN[:5], *PLAIN[1:5], PLAIN[5]], id="shared-call-id"),
    pytest.param("bedrock", _with(PLAIN, 4, PLAIN[4]), id="bedrock-two-assistants"),
    pytest.param("mistral", PLAIN, id="mistral-ids"),
    pytest.param("deepseek", PLAIN, id="deepseek-calls-without-reasoning"),
    pytest.param("google", PLAIN[:4], id="google-calls-in-current-turn"),
    pytest.param(
        "bedrock", _with(PLAIN, 1, {"role": "user", "content": "hi"}), id="bedrock-two-users"
    ),
    pytest.param(
        "mistral", [*PLAIN[:4], {"role": "user", "content": "and?"}], id="mistral-user-after-tool"
    ),
    pytest.param(
        "anthropic",
        [*PLAIN[:5], {"role": "assistant", "content": "x "}],
        id="anthropic-trailing-space",
    ),
    pytest.param(
        "google", _with(PLAIN, 5, {"role": "system", "content": "late"}), id="google-late-system"
    ),
    pytest.param(None, [*PLAIN[:5], {"role": "user", "content": " "}], id="blank-user"),
    pytest.param(None, [*PLAIN[:5], {"role": "user", "content": "x\ud800"}], id="surrogate"),
    pytest.param(
        None,
        json.loads(json.dumps(PLAIN).replace("Let me check.", "\\udfff")),
        id="surrogate-in-part",
    ),
    pytest.param(
        None, json.loads(json.dumps(PLAIN).replace('"sunny"', '"\\ud83d"')), id="surrogate-output"
    ),
    pytest.param(
        None,
        json.loads(json.dumps(PLAIN).replace("You are a helpful assistant.", "\\ud83d")),
        id="surrogate-in-system",
    ),
    pytest.param(
        "anthropic",
        json.loads(json.dumps(PLAIN).replace('"sunny"', '""')),
        id="anthropic-empty-tool-result",
    ),
    pytest.param(
        None,
        json.loads(json.dumps(PLAIN).replace('{"city": "Paris"}', '"Paris"')),
        id="string-input",
    ),
    pytest.param("bedrock", PLAIN[:1] + PLAIN[2:], id="bedrock-first-message"),
    pytest.param(
        "openai-chat",
        json.loads(json.dumps(PLAIN).replace("call_1", "c" * 41)),
        id="openai-chat-long-id",
    ),
    pytest.param(
        "google", json.loads(json.dumps(PLAIN).replace('"search"', '"1search"')), id="google-name"
    ),
    pytest.param(
        "anthropic",
        [
            *PLAIN[:2],
            {"role": "assistant", "content": [*PLAIN[2]["content"][1:], PLAIN[2]["content"][0]]},
            *PLAIN[3:],
        ],
        id="anthropic-text-after-call",
    ),
]


@pytest.mark.parametrize(("provider", "history"), PROVIDER_EDGES)
def test_verdict_refuses_what_a_provider_repairs(provider: Any, history: History) -> None:
    assert heal_messages(history, provider=provider).repairs != ()
    assert not clean_verdict(history, provider)


@pytest.mark.parametrize(
    ("provider", "call_id"), [(None, "functions.search:0"), ("mistral", "call_search_0")]
)
def test_a_foreign_first_call_id_ends_the_verdicts_reading(provider: Any, call_id: str) -> None:
    # A history from a provider whose ids this one refuses (Kimi's for every provider, any
    # but Mistral's own for Mistral) is found not plain at its first call, without reading on.
    history = json.loads(json.dumps(PLAIN).replace(PLAIN[2]["content"][1]["toolCallId"], call_id))
    assert heal_messages(history, provider=provider).repairs != ()
    with mock.patch.object(heal_json_module, "plain_texts", side_effect=AssertionError("read")):
        assert not clean_verdict(history, provider)
        # A plain history is read to its end, where the texts are judged.
        with pytest.raises(AssertionError, match="read"):
            clean_verdict(PLAIN, None)


@pytest.mark.parametrize("provider", [None, "anthropic", "openai-chat", "google"])
def test_a_kimi_style_id_after_the_first_call_ends_the_verdicts_reading(provider: Any) -> None:
    # A history that switched to (or from) a Kimi-style server mixes its ids with others: one
    # with a colon, which no provider takes, is found not plain where it stands.
    history = json.loads(json.dumps(PLAIN).replace('"call_2"', '"functions.search:1"'))
    assert heal_messages(history, provider=provider).repairs != ()
    with mock.patch.object(heal_json_module, "plain_texts", side_effect=AssertionError("read")):
        assert not clean_verdict(history, provider)


def test_a_result_without_its_call_is_never_clean() -> None:
    # A result whose name is null, for an id no call has: no lookup default may match it.
    history = copy.deepcopy(PLAIN)
    history[3]["content"][0] = {**history[3]["content"][0], "toolCallId": "gone", "toolName": None}
    history[3]["content"].pop()
    history[2]["content"].pop()
    assert not clean_verdict(history)
    with pytest.raises(InputError):  # a null name is not a history heal_messages reads
        heal_messages(history)


def test_values_nested_deeper_than_the_verdict_reads_take_the_full_path() -> None:
    history = copy.deepcopy(PLAIN)
    history[2]["content"][1]["input"] = _nested(64)
    assert clean_verdict(history) and heal_messages(history).repairs == ()
    history[2]["content"][1]["input"] = _nested(65)
    assert not clean_verdict(history)
    history[2]["content"][1]["input"] = _nested(300)  # more than the models take
    with pytest.raises(InputError):
        heal_messages(history)
    with pytest.raises(InputError):
        heal_json(json.dumps(history))


@pytest.mark.parametrize(
    "value",
    [(1, 2), {1: "a"}, datetime(2026, 1, 1), Decimal("1.5"), b"x", {"a"}],
    ids=["tuple", "int-key", "datetime", "decimal", "bytes", "set"],
)
def test_python_values_json_cannot_hold_are_never_clean(value: Any) -> None:
    # Decoded JSON never holds them, but the verdict's promise holds for any dicts: the models
    # refuse them, so heal_messages raises.
    history = copy.deepcopy(PLAIN)
    history[2]["content"][1]["input"] = {"v": value}
    assert not clean_verdict(history)
    with pytest.raises(InputError):
        heal_messages(history)
    history = copy.deepcopy(PLAIN)
    history[3]["content"][0]["output"]["value"] = [value]
    assert not clean_verdict(history)


class _Loud(Rule):
    """Test rule: reports every history."""

    id = "test-json-loud"
    summary = "reports everything"

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        from heal import Action

        yield Finding(Action.REPORT, None, None, "seen")


def test_a_registered_rule_makes_nothing_plainly_clean() -> None:
    assert clean_verdict(PLAIN, "anthropic")
    register_rule(_Loud())
    try:
        assert not clean_verdict(PLAIN, "anthropic")
        text = json.dumps(PLAIN)
        result = heal_json(text, provider="anthropic")
        assert [r.rule for r in result.repairs] == ["test-json-loud"]
    finally:
        default_registry.unregister(_Loud.id)
    assert clean_verdict(PLAIN, "anthropic")


# --- heal_json against heal_messages ---------------------------------------------------------


def _texts(history: History) -> list[str | bytes]:
    ascii_text = json.dumps(history)
    raw = json.dumps(history, ensure_ascii=False, separators=(",", ":"))
    out: list[str | bytes] = [ascii_text, raw, ascii_text.encode()]
    with suppress(UnicodeEncodeError):  # a lone surrogate: only its escaped form is UTF-8
        out.append(raw.encode("utf-8"))
    return out


def _heal_json(data: str | bytes, **options: Any) -> JsonHealResult[str] | JsonHealResult[bytes]:
    """``heal_json`` on text or bytes alike: its type variable is one or the other, so mypy
    takes a value typed as either only once it is narrowed."""
    if isinstance(data, str):
        return heal_json(data, **options)
    return heal_json(data, **options)


def _outcome(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except Exception as exc:
        return type(exc), str(exc)


def _same_as_heal_messages(history: History) -> None:
    for data in _texts(history):
        for provider in ALL_PROVIDERS:
            expected = _outcome(partial(heal_messages, data, provider=provider))
            got = _outcome(partial(_heal_json, data, provider=provider))
            if isinstance(expected, tuple):
                assert got == expected
                continue
            assert isinstance(got, JsonHealResult)
            assert got.repairs == expected.repairs
            assert type(got.data) is type(data)
            if got.data is data:
                assert clean_verdict(history, provider)
                assert json.loads(data) == dump_messages(expected.messages)
            else:
                text = dumps(expected.messages)
                assert got.data == (text if isinstance(data, str) else text.encode())


@given(any_history)
def test_heal_json_gives_what_heal_messages_gives(history: History) -> None:
    _same_as_heal_messages(history)


@contextmanager
def _standard_library_only() -> Iterator[None]:
    with mock.patch.object(heal_json_module, "_orjson_loads", None):
        yield


@settings(max_examples=40)
@given(any_history)
def test_heal_json_without_orjson_gives_what_heal_messages_gives(history: History) -> None:
    with _standard_library_only():
        _same_as_heal_messages(history)


@pytest.mark.parametrize(
    "text",
    [
        '[{"role": "user", "content": "\\ud800 hi"}]',  # a lone surrogate, escaped
        '[{"role": "user", "content": "\ud800 hi"}]',  # and raw
        '[{"role": "user", "content": "\\ud83d\\ude00"}]',  # a valid pair, escaped
        '[{"role": "user", "content": "hi"}, {"role": "user", "content": NaN}]',
        '[{"role": "user", "content": "hi"}',
        '{"messages": []}',
        "[]",
    ],
)
@pytest.mark.parametrize("decoder", ["orjson", "json"])
def test_unusual_text_is_read_as_heal_messages_reads_it(text: str, decoder: str) -> None:
    with mock.patch.object(
        heal_json_module,
        "_orjson_loads",
        heal_json_module._orjson_loads if decoder == "orjson" else None,
    ):
        expected = _outcome(lambda: heal_messages(text))
        got = _outcome(lambda: heal_json(text))
    if isinstance(expected, tuple):
        assert got == expected
    else:
        assert got.repairs == expected.repairs
        if got.data is not text:
            assert got.data == dumps(expected.messages)


def _refuse_to_load(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("a plainly clean history was loaded")


_MIXED_IDS = (
    "functions.search:1",
    "functions_search_1",
    "functions.f:2",
    "a b",
    "x" * 70,
    "call_1",
    "a00000001",
)
"""Ids no provider takes beside ones they collide with once sanitized, and valid ones."""


@st.composite
def _renamed_histories(draw: st.DrawFn) -> History:
    """A plain history whose call ids are drawn from :data:`_MIXED_IDS` (several styles in one
    history), maybe with one defect at its edges."""
    history = draw(plain_histories(edges=draw(st.booleans())))
    ids = iter(draw(st.permutations(_MIXED_IDS)))
    new: dict[str, str] = {}
    for message in history:
        if isinstance(message["content"], list):
            for part in message["content"]:
                if part.get("type") in ("tool-call", "tool-result"):
                    old = part["toolCallId"]
                    if old not in new:
                        new[old] = next(ids, old)
                    part["toolCallId"] = new[old]
    return history


@given(
    history=_renamed_histories(),
    options=st.sampled_from([{"provider": provider} for provider in ALL_PROVIDERS] + MODEL_TARGETS),
    standard=st.booleans(),
)
def test_ids_renamed_without_models_are_what_heal_messages_renames(
    history: History, options: dict[str, Any], standard: bool
) -> None:
    """A history plain but for ids the target refuses is renamed from its decoded dicts
    (heal._json._edited): the same repairs as heal_messages, the same text as the
    full path writes (orjson's or the standard library's)."""
    seen: list[int] = []
    made = heal_json_module._edited

    def spy(*args: Any, **kwargs: Any) -> Any:
        found = made(*args, **kwargs)
        seen.append(found is not None)
        return found

    with (
        mock.patch.object(heal_json_module, "_edited", spy),
        _standard_library_only() if standard else nullcontext(),
    ):
        for data in _texts(history)[:3]:
            expected = _outcome(partial(heal_messages, data, **options))
            got = _outcome(partial(_heal_json, data, **options))
            if isinstance(expected, tuple):  # an input heal_messages refuses: the same error
                assert got == expected
                continue
            assert got.repairs == expected.repairs
            if got.data is not data:
                text = dumps(expected.messages)
                assert got.data == (text if isinstance(data, str) else text.encode())
    event(f"renamed without models: {any(seen)}")


def _ids_every_provider_takes(history: History) -> History:
    """``history`` with its call ids renamed one to one to nine letters and digits, a format
    every provider takes (Mistral's), none of them an id of the strategies'."""
    out = copy.deepcopy(history)
    new: dict[Any, str] = {}
    for message in out:
        if isinstance(message.get("content"), list):
            for part in message["content"]:
                if isinstance(part, dict) and part.get("type") in ("tool-call", "tool-result"):
                    old = part["toolCallId"]
                    part["toolCallId"] = new.setdefault(old, f"Z{len(new):08d}")
    return out


@given(
    history=_renamed_histories(),
    options=st.sampled_from([{"provider": provider} for provider in ALL_PROVIDERS] + MODEL_TARGETS),
)
def test_the_verdict_read_past_the_ids_says_plain_but_for_them(
    history: History, options: dict[str, Any]
) -> None:
    """heal_json's verdict reads past refused ids (heal._json._verdict, past_ids): CLEAN exactly
    when clean_verdict says clean, and REFUSED_IDS exactly when the history is not clean but
    would be with ids every provider takes in place of its own (one to one): the histories it
    renames without models, and no other."""
    said = heal_json_module._verdict(
        history,
        options.get("provider"),
        options.get("model"),
        options.get("thinking"),
        options.get("tools"),
        past_ids=True,
    )
    clean = clean_verdict(history, **options)
    accepted = clean_verdict(_ids_every_provider_takes(history), **options)
    assert (said == CLEAN) == clean
    assert (said == REFUSED_IDS) == (not clean and accepted)
    event(f"verdict {said}")


def test_a_broken_history_with_refused_ids_is_not_renamed_without_models() -> None:
    """A history with ids the target refuses and something else to mend goes to the full path
    at once: the verdict read past the ids and found the rest, so no renaming is tried."""
    broken = kimi_ids(PLAIN)
    broken[-1] = {"role": "user", "content": " "}  # a blank message at the end
    tried: list[Any] = []
    made = heal_json_module._edited

    def spy(*args: Any, **kwargs: Any) -> Any:
        tried.append(args)
        return made(*args, **kwargs)

    with mock.patch.object(heal_json_module, "_edited", spy):
        result = heal_json(json.dumps(broken))
        assert {r.rule for r in result.repairs} >= {"invalid-tool-call-id", "empty-message"}
        assert tried == []
        assert heal_json(json.dumps(kimi_ids(PLAIN))).repairs  # plain but for the ids
        assert len(tried) == 1
    _same_as_heal_messages(broken)


_REASONING_TEXTS = [json.dumps(c) for c in corpus(conversations=40, shape="reasoning")]


@pytest.mark.parametrize(
    "provider",
    [
        None,
        "openai-chat",
        "mistral",
        "openai-responses",
        "anthropic",
        "google",
        "groq",
        "cerebras",
        "bedrock",
    ],
)
def test_kimi_ids_are_renamed_without_loading_models(provider: Any) -> None:
    """The reasoning corpus' histories from Kimi's ids (half of its ids) are renamed without a
    model for the targets that let their reasoning stand, for Anthropic, which keeps Claude's
    signed thinking and removes OpenAI's and Gemini's reasoning, for OpenAI's Responses API and
    Gemini likewise (each keeps its own reasoning and signatures), and for Groq and Cerebras,
    which take no reasoning: heal_json loads only the broken ones, and gives what heal_messages
    gives."""
    loaded: list[int] = []
    load = heal_json_module._load_decoded

    def spy(data: Any, decoded: Any) -> Any:
        loaded.append(1)
        return load(data, decoded)

    renamed = 0
    with mock.patch.object(heal_json_module, "_load_decoded", spy):
        for text in _REASONING_TEXTS:
            before = len(loaded)
            got = heal_json(text, provider=provider)
            expected = heal_messages(text, provider=provider)
            assert got.repairs == expected.repairs
            assert got.data == (text if not expected.repairs else dumps(expected.messages))
            if len(loaded) == before and got.repairs:
                renamed += 1
                assert {r.rule for r in got.repairs} <= {
                    "invalid-tool-call-id",
                    "mistral-tool-call-id",
                    "anthropic-strip-foreign-reasoning-content",
                    "openai-foreign-reasoning",
                    "google-foreign-thought-signature",
                    "groq-unsupported-reasoning",
                    "cerebras-strip-reasoning-content",
                    "bedrock-unsigned-reasoning",
                }
    assert renamed >= 0.8 * len(_REASONING_TEXTS)


@pytest.mark.parametrize(
    ("provider", "target"),
    [*[(p, {}) for p in ALL_PROVIDERS], *[(t.get("provider"), t) for t in MODEL_TARGETS]],
    ids=str,
)
def test_the_json_walk_reads_the_reasoning_the_engine_reads(
    provider: Any, target: dict[str, Any]
) -> None:
    """For every built-in target, heal_json's walk reads the reasoning the engine's quick
    verdict reads (the target's own kept, others' listed for removal): a history it refused
    goes to heal_not_plain, which skips that verdict."""
    options = {k: v for k, v in target.items() if k != "provider"}
    assert not heal_json_module._engine_reads_reasoning(provider, options)


def test_a_history_the_walk_refused_asks_the_engine_where_it_reads_more_reasoning() -> None:
    """Were the engine's verdict to read reasoning the JSON walk refuses, a history that walk
    refused would go to heal_messages, which asks that verdict (terms made so here)."""
    history = [_ASK, {"role": "assistant", "content": [_thought("d", _BEDROCK), _SAID]}]
    terms = heal_json_module._terms("bedrock", None, None, None)[1]
    assert terms is not None and terms.bedrock
    unread = (None, replace(terms, bedrock=False))
    used: list[str] = []
    real = heal_messages

    def spy(*args: Any, **kwargs: Any) -> Any:
        used.append("heal_messages")
        return real(*args, **kwargs)

    text = json.dumps([*history, {**_ASK, "content": " "}])
    with (
        mock.patch.object(heal_json_module, "_terms", lambda *_: unread),
        mock.patch.object(heal_json_module, "heal_messages", spy),
    ):
        got = heal_json(text, provider="bedrock")
    assert used == ["heal_messages"]
    assert got.repairs == heal_messages(text, provider="bedrock").repairs


def _loads_counted() -> tuple[list[int], Any]:
    """A list that counts the histories heal_json loads as models, and the patch that counts."""
    loaded: list[int] = []
    load = heal_json_module._load_decoded

    def spy(data: Any, decoded: Any) -> Any:
        loaded.append(1)
        return load(data, decoded)

    return loaded, mock.patch.object(heal_json_module, "_load_decoded", spy)


def _as_heal_messages_heals(history: History, **options: Any) -> None:
    """heal_json on ``history``'s texts (str and bytes, orjson's reading and the standard
    library's) gives what heal_messages gives: the same repairs and text, or the same error."""
    for standard in (False, True):
        with _standard_library_only() if standard else nullcontext():
            for data in _texts(history):
                expected = _outcome(partial(heal_messages, data, **options))
                got = _outcome(partial(_heal_json, data, **options))
                if isinstance(expected, tuple):
                    assert got == expected
                    continue
                assert got.repairs == expected.repairs
                if got.data is data:
                    assert not [r for r in expected.repairs if r.changed]
                else:
                    text = dumps(expected.messages)
                    assert got.data == (text if isinstance(data, str) else text.encode())


def _thought(text: str, options: Any) -> dict[str, Any]:
    return {"type": "reasoning", "text": text, "providerOptions": options}


_OPENAI = {"openai": {"itemId": "rs_1", "reasoningEncryptedContent": "gAAA"}}
_GEMINI = {"google": {"thoughtSignature": "c2ln"}}
_CLAUDE = {"anthropic": {"signature": "c2ln"}}
_ASK: dict[str, Any] = {"role": "user", "content": "hi"}
_SAID = {"type": "text", "text": "ok"}
_KIMI_CALL = _call("functions.f:0", "f", {})
_KIMI_RESULTS: dict[str, Any] = {
    "role": "tool",
    "content": [_result("functions.f:0", "f", {"type": "text", "value": "ok"})],
}
_DONE: dict[str, Any] = {"role": "assistant", "content": "done"}


def _turn(*parts: dict[str, Any]) -> History:
    """A turn moved to Anthropic: the question, an assistant message of ``parts``, then (when
    it calls Kimi's id) the results and an answer, and the next question."""
    calls = any(part["type"] == "tool-call" for part in parts)
    answer = [_KIMI_RESULTS, _DONE] if calls else []
    return [_ASK, {"role": "assistant", "content": list(parts)}, *answer, _ASK]


_OPENAI_ITEMS = _turn(
    _thought("a", _OPENAI),
    {**_SAID, "providerOptions": {"openai": {"itemId": "msg_1"}}},
    {**_KIMI_CALL, "providerOptions": {"openai": {"itemId": "fc_1"}}},
)
"""OpenAI's reasoning, text and call, each with its item id (Kimi's id on the call)."""

MOVED: list[tuple[str, History, int, int]] = [
    (
        "OpenAI's reasoning, Kimi's ids",
        _turn(_thought("a", _OPENAI), _SAID, _KIMI_CALL),
        REFUSED_IDS,
        1,
    ),
    (
        "Gemini's and OpenAI's, valid ids",
        _turn(_thought("b", _GEMINI), _thought("a", _OPENAI), _SAID),
        DROPS,
        2,
    ),
    ("in an open tool loop", _turn(_thought("b", _GEMINI), _SAID, _KIMI_CALL)[:3], REFUSED_IDS, 1),
    ("OpenAI's item ids on the text and call", _OPENAI_ITEMS, REFUSED_IDS, 1),
    ("not ASCII", _turn(_thought("caf\u00e9", _OPENAI), _SAID, _KIMI_CALL), REFUSED_IDS, 1),
    ("empty", _turn(_thought("", _GEMINI), _SAID), DROPS, 1),
    ("Claude's own", _turn(_thought("c", _CLAUDE), _SAID, _KIMI_CALL), REFUSED_IDS, 0),
    ("Claude's own, valid ids", _turn(_thought("c", _CLAUDE), _SAID), CLEAN, 0),
    (
        "beside Claude's in its message",
        _turn(_thought("a", _OPENAI), _thought("c", _CLAUDE), _SAID),
        NOT_PLAIN,
        0,
    ),
    (
        "beside Claude's signed thinking",
        [*_turn(_thought("a", _OPENAI), _SAID)[:2], *_turn(_thought("c", _CLAUDE), _SAID)],
        NOT_PLAIN,
        0,
    ),
    (
        "Claude's in an open tool loop it opens",
        _turn(_thought("c", _CLAUDE), _SAID, _KIMI_CALL)[:3],
        REFUSED_IDS,
        0,
    ),
    (
        "Claude's, then an open tool loop opening with a text Anthropic's options sign",
        [
            *_turn(_thought("c", _CLAUDE), _SAID)[:2],
            *_turn({**_SAID, "providerOptions": _CLAUDE}, _KIMI_CALL)[:3],
        ],
        NOT_PLAIN,
        0,
    ),
    (
        "Claude's, then an open tool loop without it",
        [*_turn(_thought("c", _CLAUDE), _SAID)[:2], *_turn(_SAID, _KIMI_CALL)[:3]],
        NOT_PLAIN,
        0,
    ),
    ("after the text", _turn(_SAID, _thought("a", _OPENAI), _KIMI_CALL), NOT_PLAIN, 0),
    ("alone in its message", _turn(_thought("a", _OPENAI)), NOT_PLAIN, 0),
    (
        "last in its message",
        _turn(_thought("a", _OPENAI), _SAID, _thought("b", _GEMINI)),
        NOT_PLAIN,
        0,
    ),
    (
        "after a call",
        _turn(_thought("a", _OPENAI), _KIMI_CALL, _thought("b", _OPENAI), _SAID),
        NOT_PLAIN,
        0,
    ),
    (
        "a lone surrogate in its options",
        _turn(_thought("a", {"openai": {"itemId": "rs_\ud800"}}), _SAID, _KIMI_CALL),
        REFUSED_IDS,
        1,
    ),
    ("a lone surrogate", _turn(_thought("x\ud800", _OPENAI), _SAID), NOT_PLAIN, 0),
    ("unsigned, no options", _turn({"type": "reasoning", "text": "a"}, _SAID), NOT_PLAIN, 0),
    (
        "Anthropic's, unsigned",
        _turn(_thought("a", {"anthropic": {"signature": ""}}), _SAID),
        NOT_PLAIN,
        0,
    ),
    ("Anthropic's beside OpenAI's", _turn(_thought("a", {**_CLAUDE, **_OPENAI}), _SAID), CLEAN, 0),
    ("heal's mark alone", _turn(_thought("a", {"heal": {"x": 1}}), _SAID), NOT_PLAIN, 0),
    ("options not an object", _turn(_thought("a", ["openai"]), _SAID), NOT_PLAIN, 0),
    (
        "a result that names its caller",
        [
            *_turn(_thought("a", _OPENAI), _SAID, _KIMI_CALL)[:2],
            {
                "role": "tool",
                "content": [
                    {
                        **_KIMI_RESULTS["content"][0],
                        "providerOptions": {
                            "anthropic": {"caller": {"type": "code_execution", "toolId": "srv_1"}}
                        },
                    }
                ],
            },
            _DONE,
        ],
        NOT_PLAIN,
        0,
    ),
    (
        "a call that names its caller",
        _turn(
            _thought("a", _OPENAI),
            {**_KIMI_CALL, "providerOptions": {"anthropic": {"caller": {"type": "x"}}}},
        ),
        NOT_PLAIN,
        0,
    ),
]
"""Histories moved to Anthropic: heal_json's verdict (CLEAN, DROPS, REFUSED_IDS or NOT_PLAIN),
and how many reasoning parts of other providers it lists to remove."""


_ITEM = {"openai": {"itemId": "rs_1", "reasoningEncryptedContent": "gAAA"}}
_MOVED_TO_RESPONSES: list[tuple[str, History, int, int]] = [
    (
        "Claude's reasoning, Kimi's ids",
        _turn(_thought("c", _CLAUDE), _SAID, _KIMI_CALL),
        REFUSED_IDS,
        1,
    ),
    ("Gemini's, valid ids", _turn(_thought("b", _GEMINI), _SAID), DROPS, 1),
    ("without options", _turn({"type": "reasoning", "text": "a"}, _SAID), DROPS, 1),
    ("empty options", _turn(_thought("a", {}), _SAID), DROPS, 1),
    ("after OpenAI's item", _turn(_thought("a", _ITEM), _thought("c", _CLAUDE), _SAID), DROPS, 1),
    (
        "within OpenAI's item",
        _turn(_thought("a", _ITEM), _thought("b", _GEMINI), _thought("a", _ITEM), _SAID),
        DROPS,
        1,
    ),
    (
        "between two items",
        _turn(
            _thought("a", _ITEM),
            _thought("b", _GEMINI),
            _thought("d", {"openai": {"itemId": "rs_2"}}),
            _SAID,
        ),
        NOT_PLAIN,
        0,
    ),
    (
        "before a text item",
        _turn(
            _thought("c", _CLAUDE), {**_SAID, "providerOptions": {"openai": {"itemId": "msg_1"}}}
        ),
        DROPS,
        1,
    ),
    ("OpenAI's own", _turn(_thought("a", _ITEM), _SAID), CLEAN, 0),
    (
        "OpenAI's without an item id",
        _turn(_thought("a", {"openai": {"reasoningEncryptedContent": "gAAA"}}), _SAID),
        NOT_PLAIN,
        0,
    ),
    ("Azure's", _turn(_thought("a", {"azure": {"itemId": "rs_1"}}), _SAID), NOT_PLAIN, 0),
    ("last in its message", _turn(_SAID, _thought("c", _CLAUDE)), NOT_PLAIN, 0),
    ("heal's mark", _turn(_thought("a", {"heal": {"x": 1}}), _SAID), NOT_PLAIN, 0),
    ("a lone surrogate", _turn(_thought("x\ud800", _CLAUDE), _SAID), NOT_PLAIN, 0),
]
"""Histories moved to OpenAI's Responses API: heal_json's verdict, and how many reasoning parts
of no OpenAI namespace it lists to remove (``openai-foreign-reasoning``)."""


_SIGNED_CALL = {**_KIMI_CALL, "providerOptions": _GEMINI}
_MOVED_TO_GEMINI: list[tuple[str, History, int, int]] = [
    (
        "Claude's reasoning, Kimi's ids",
        _turn(_thought("c", _CLAUDE), _SAID, _KIMI_CALL),
        REFUSED_IDS,
        1,
    ),
    ("OpenAI's, valid ids", _turn(_thought("a", _OPENAI), _SAID), DROPS, 1),
    ("between two texts", _turn(_SAID, _thought("a", _OPENAI), _SAID), DROPS, 1),
    ("OpenAI's item ids on the text and call", _OPENAI_ITEMS, REFUSED_IDS, 1),
    ("Gemini's own, signed", _turn(_thought("b", _GEMINI), _SAID, _SIGNED_CALL), REFUSED_IDS, 0),
    ("Gemini's own, unsigned", _turn({"type": "reasoning", "text": "b"}, _SAID), CLEAN, 0),
    (
        "Gemini's own, signed, valid ids",
        _turn(_thought("b", _GEMINI), {**_SAID, "providerOptions": _GEMINI}),
        CLEAN,
        0,
    ),
    ("Gemini's own, empty", _turn(_thought("", _GEMINI), _SAID), NOT_PLAIN, 0),
    (
        "a signature Gemini did not issue",
        _turn(_SAID, {**_KIMI_CALL, "providerOptions": {"google": {"thoughtSignature": "**"}}}),
        NOT_PLAIN,
        0,
    ),
    (
        "another provider's signature on a text",
        _turn(_thought("a", _OPENAI), {**_SAID, "providerOptions": _CLAUDE}),
        NOT_PLAIN,
        0,
    ),
    (
        "the open tool loop signed",
        _turn(_thought("a", _OPENAI), _SAID, _SIGNED_CALL)[:3],
        REFUSED_IDS,
        1,
    ),
    (
        "the open tool loop unsigned",
        _turn(_thought("a", _OPENAI), _SAID, _KIMI_CALL)[:3],
        NOT_PLAIN,
        0,
    ),
    (
        "an unsigned call in an earlier turn",
        [
            *_turn(_SAID, _KIMI_CALL)[:-1],
            _ASK,
            {
                "role": "assistant",
                "content": [_SAID, {**_call("functions.g:1", "g", {}), "providerOptions": _GEMINI}],
            },
            {
                "role": "tool",
                "content": [_result("functions.g:1", "g", {"type": "text", "value": "ok"})],
            },
        ],
        REFUSED_IDS,
        0,
    ),
    (
        "a result with options",
        [
            *_turn(_SAID, _SIGNED_CALL)[:2],
            {
                "role": "tool",
                "content": [{**_KIMI_RESULTS["content"][0], "providerOptions": {"x": {}}}],
            },
            _DONE,
        ],
        NOT_PLAIN,
        0,
    ),
    ("after a call", _turn(_SAID, _KIMI_CALL, _thought("a", _OPENAI), _SAID), NOT_PLAIN, 0),
    ("last in its message", _turn(_SAID, _thought("a", _OPENAI)), NOT_PLAIN, 0),
    ("heal's mark", _turn(_thought("a", {"heal": {"x": 1}}), _SAID), NOT_PLAIN, 0),
    (
        "a user text with options",
        [
            {"role": "user", "content": [{**_SAID, "providerOptions": {"x": {}}}]},
            *_turn(_thought("a", _OPENAI), _SAID)[1:],
        ],
        NOT_PLAIN,
        0,
    ),
]
"""Histories moved to Gemini: heal_json's verdict, and how many reasoning parts of another
provider it lists to remove (``google-foreign-thought-signature``)."""


_SECOND_CALL = _call("call_2", "g", {})
_MOVED_TO_GROQ: list[tuple[str, History, int, int]] = [
    (
        "Claude's reasoning, Kimi's ids",
        _turn(_thought("c", _CLAUDE), _SAID, _KIMI_CALL),
        REFUSED_IDS,
        1,
    ),
    ("OpenAI's, valid ids", _turn(_thought("a", _OPENAI), _SAID), DROPS, 1),
    ("without options", _turn({"type": "reasoning", "text": "b"}, _SAID), DROPS, 1),
    ("empty", _turn(_thought("", _GEMINI), _SAID), DROPS, 1),
    ("between two texts", _turn(_SAID, _thought("a", _OPENAI), _SAID), DROPS, 1),
    ("two providers'", _turn(_thought("c", _CLAUDE), _thought("b", _GEMINI), _SAID), DROPS, 2),
    (
        "between two calls",
        [
            _ASK,
            {"role": "assistant", "content": [_KIMI_CALL, _thought("a", _OPENAI), _SECOND_CALL]},
            {
                "role": "tool",
                "content": [
                    *_KIMI_RESULTS["content"],
                    _result("call_2", "g", {"type": "text", "value": "ok"}),
                ],
            },
            _DONE,
        ],
        REFUSED_IDS,
        1,
    ),
    (
        "in two messages",
        [*_turn(_thought("a", _OPENAI), _SAID), *_turn(_thought("c", _CLAUDE), _SAID)[1:]],
        DROPS,
        2,
    ),
    ("options on every part", _OPENAI_ITEMS, REFUSED_IDS, 1),
    (
        "Claude's options on a call",
        _turn(_thought("c", _CLAUDE), _SAID, {**_KIMI_CALL, "providerOptions": _CLAUDE}),
        REFUSED_IDS,
        1,
    ),
    ("no reasoning, options on a text", _turn({**_SAID, "providerOptions": _CLAUDE}), CLEAN, 0),
    (
        "a user text with options",
        [
            {"role": "user", "content": [{**_SAID, "providerOptions": {"x": {}}}]},
            *_turn(_thought("a", _OPENAI), _SAID)[1:],
        ],
        DROPS,
        1,
    ),
    ("last in its message", _turn(_SAID, _thought("a", _OPENAI)), NOT_PLAIN, 0),
    ("alone", _turn(_thought("a", _OPENAI)), NOT_PLAIN, 0),
    ("heal's mark", _turn(_thought("a", {"heal": {"x": 1}}), _SAID), NOT_PLAIN, 0),
    ("a lone surrogate", _turn(_thought("a\ud800", _OPENAI), _SAID), NOT_PLAIN, 0),
    ("an odd key", _turn({**_thought("a", _OPENAI), "x": 1}, _SAID), NOT_PLAIN, 0),
]
"""Histories moved to Groq or Cerebras, whose APIs take no reasoning: heal_json's verdict,
and how many reasoning parts it lists to remove (every one: ``groq-unsupported-reasoning``,
``cerebras-strip-reasoning-content``)."""


_BEDROCK = {"bedrock": {"signature": "c2ln"}}
_TOOLU_TURN = [
    {"role": "tool", "content": [_result("toolu_1", "f", {"type": "text", "value": "ok"})]},
    _DONE,
]
_MOVED_TO_BEDROCK: list[tuple[str, History, int, int]] = [
    (
        "Claude's reasoning, Kimi's ids",
        _turn(_thought("c", _CLAUDE), _SAID, _KIMI_CALL),
        REFUSED_IDS,
        1,
    ),
    (
        "OpenAI's and Gemini's, valid ids",
        _turn(_thought("a", _OPENAI), _thought("b", _GEMINI), _SAID),
        DROPS,
        2,
    ),
    ("Bedrock's own", _turn(_thought("d", _BEDROCK), _SAID), CLEAN, 0),
    (
        "Bedrock's own, redacted, before a call",
        [
            _ASK,
            {
                "role": "assistant",
                "content": [
                    _thought("", {"bedrock": {"redactedData": "ZGF0YQ=="}}),
                    _call("toolu_1", "f", {}),
                ],
            },
            *_TOOLU_TURN,
        ],
        CLEAN,
        0,
    ),
    (
        "Bedrock's own, the loop open",
        [
            _ASK,
            {"role": "assistant", "content": [_thought("d", _BEDROCK), _call("toolu_1", "f", {})]},
            _TOOLU_TURN[0],
        ],
        CLEAN,
        0,
    ),
    (
        "Claude's caller on a call",
        _turn(
            _thought("c", _CLAUDE),
            _SAID,
            {**_KIMI_CALL, "providerOptions": {"anthropic": {"caller": {"type": "direct"}}}},
        ),
        REFUSED_IDS,
        1,
    ),
    ("options on the text and call", _OPENAI_ITEMS, REFUSED_IDS, 1),
    (
        "beside Bedrock's own",
        [*_turn(_thought("a", _OPENAI), _SAID), *_turn(_thought("d", _BEDROCK), _SAID)[1:]],
        NOT_PLAIN,
        0,
    ),
    (
        "Claude's, signed for Anthropic and Bedrock",
        _turn(_thought("c", {**_CLAUDE, **_BEDROCK}), _SAID),
        CLEAN,
        0,
    ),
    ("unsigned", _turn({"type": "reasoning", "text": "a"}, _SAID), NOT_PLAIN, 0),
    ("after the text", _turn(_SAID, _thought("a", _OPENAI)), NOT_PLAIN, 0),
    ("after a text, before a call", _turn(_SAID, _thought("a", _OPENAI), _KIMI_CALL), NOT_PLAIN, 0),
    ("alone", _turn(_thought("a", _OPENAI)), NOT_PLAIN, 0),
    (
        "a user text with options",
        [
            {"role": "user", "content": [{**_SAID, "providerOptions": {"x": {}}}]},
            *_turn(_thought("a", _OPENAI), _SAID)[1:],
        ],
        NOT_PLAIN,
        0,
    ),
]
"""Histories moved to Bedrock: Bedrock's own signed thinking stands (no Bedrock rule reads an
open tool loop or Anthropic's ``caller``); other providers' reasoning is listed where Claude's
would sit (``bedrock-unsigned-reasoning`` removes it); anything else is not plain."""


MOVED_TABLES: list[tuple[Any, str, list[tuple[str, History, int, int]]]] = [
    ("anthropic", "anthropic-strip-foreign-reasoning-content", MOVED),
    ("openai-responses", "openai-foreign-reasoning", _MOVED_TO_RESPONSES),
    ("google", "google-foreign-thought-signature", _MOVED_TO_GEMINI),
    ("groq", "groq-unsupported-reasoning", _MOVED_TO_GROQ),
    ("cerebras", "cerebras-strip-reasoning-content", _MOVED_TO_GROQ),
    ("bedrock", "bedrock-unsigned-reasoning", _MOVED_TO_BEDROCK),
]
"""Each thinking provider, the rule that removes other providers' reasoning for it, and its
table of moved histories; and the providers that take no reasoning, with the rule that removes
it all."""


@pytest.mark.parametrize(
    ("provider", "rule", "history", "said", "dropped"),
    [(provider, rule, *case[1:]) for provider, rule, table in MOVED_TABLES for case in table],
    ids=[f"{provider}: {case[0]}" for provider, _, table in MOVED_TABLES for case in table],
)
def test_other_providers_reasoning_is_removed_from_the_decoded_dicts_where_plain(
    provider: Any, rule: str, history: History, said: int, dropped: int
) -> None:
    """A history moved to a thinking provider, plain but for other providers' reasoning (and
    maybe Kimi's ids), has that reasoning removed from its decoded dicts, without a model
    (heal._json._edited, with the rule's records): what heal_messages gives, which removes it
    without the index (Anthropic) or through it. The others give what heal_messages gives too,
    and the verdict says clean exactly where the table does."""
    drops: list[dict[str, Any]] = []
    found = heal_json_module._verdict(
        history, provider, None, None, None, past_ids=True, ids=[], drops=drops
    )
    assert (found, len(drops)) == (said, dropped)
    assert clean_verdict(history, provider) == (said == CLEAN)
    loaded, counting = _loads_counted()
    with counting:
        _as_heal_messages_heals(history, provider=provider)
    assert bool(loaded) == (said == NOT_PLAIN)
    if said in {DROPS, REFUSED_IDS}:
        repairs = heal_json(json.dumps(history), provider=provider).repairs
        # Each the part as it was, lone surrogates escaped (as every record writes them).
        assert [r.removed for r in repairs if r.rule == rule] == list(map(escaped_json, drops))


_TOOLU_CALL = _call("toolu_01", "f", {})
_TOOLU_RESULTS = {
    "role": "tool",
    "content": [_result("toolu_01", "f", {"type": "text", "value": "ok"})],
}
_REDACTED = {"anthropic": {"redactedData": "ZGF0YQ=="}}


@pytest.mark.parametrize(
    "history",
    [
        _turn(_thought("c", _CLAUDE), _SAID),
        [
            _ASK,
            {"role": "assistant", "content": [_thought("c", _CLAUDE), _SAID, _TOOLU_CALL]},
            _TOOLU_RESULTS,
            _DONE,
            _ASK,
        ],
        [
            _ASK,
            {
                "role": "assistant",
                "content": [_thought("c", _CLAUDE), _thought("", _REDACTED), _TOOLU_CALL],
            },
            _TOOLU_RESULTS,
        ],
    ],
    ids=["before a text", "a turn with calls", "redacted, before calls, the loop open"],
)
def test_claudes_own_thinking_is_plainly_clean_for_anthropic(history: History) -> None:
    """Thinking as a Claude model writes it (signed, or redacted, opening its message) is
    plainly clean for Anthropic, and the text comes back as it was; for a target that reads
    reasoning otherwise, it is not."""
    assert clean_verdict(history, "anthropic")
    assert clean_verdict(history, "anthropic", model="claude-sonnet-4-5")
    text = json.dumps(history)
    assert heal_json(text, provider="anthropic").data is text
    assert not clean_verdict(history, "google")
    assert not clean_verdict(history, "bedrock")
    _as_heal_messages_heals(history, provider="anthropic")


@pytest.mark.parametrize(
    ("provider", "history"),
    [case[1:] for case in quick_cases.REFUSED],
    ids=[case[0] for case in quick_cases.REFUSED],
)
def test_the_json_verdict_on_what_the_index_finds(provider: Any, history: History) -> None:
    """Each history the index finds unclean by one thing (Anthropic's thinking unsigned, from
    another provider beside Claude's, after a text, alone, last, in an open tool loop, ...) is
    plainly clean to heal_json's verdict only when heal_messages leaves it as it is (a rule the
    index would run, finding nothing), and heals as heal_messages heals it."""
    if clean_verdict(history, provider):
        assert heal_messages(history, provider=provider).repairs == ()
    _as_heal_messages_heals(history, provider=provider)


@settings(max_examples=150)
@given(
    history=quick_cases.moved_histories(),
    target=st.one_of(
        st.sampled_from(
            [
                Target("anthropic"),
                Target("openai-responses"),
                Target("google"),
                Target("groq"),
                Target("cerebras"),
                Target("bedrock"),
            ]
        ),
        targets(),
    ),
)
def test_a_moved_history_heals_from_its_text_as_heal_messages_heals_it(
    history: History, target: Target
) -> None:
    """Generated conversations moved to another provider (reasoning of one origin or several,
    item ids and signatures on calls, Kimi's ids, a twist or two) heal through heal_json as
    through heal_messages, for Anthropic, OpenAI's Responses API, Gemini and any other target;
    the plain ones without a model."""
    options: dict[str, Any] = {"provider": target.provider}
    if target.prefix_mismatch_behavior is not None:  # no keyword but target= names it
        options = {"target": target}
    elif target.model is not None:
        options["model"] = target.model
    if target.thinking is not None:
        options["thinking"] = target.thinking
    if target.tools is not None:
        options["tools"] = sorted(target.tools)
    loaded, counting = _loads_counted()
    with counting:
        _as_heal_messages_heals(history, **options)
    event(f"loaded: {bool(loaded)}")


@pytest.mark.parametrize(
    ("where", "value"),
    [
        ("input", 1e-05),  # orjson writes 0.00001, the standard library 1e-05
        ("input", 10**25),  # past 64 bits: orjson reads a float
        ("input", 2**63 + 1),  # 19 digits that fit 64 bits: orjson reads an int
        ("input", [1, {"x": 2.5}]),
        ("output", 1e-05),
        ("options", 1e-05),
        ("input", "1e-05"),  # a string that reads as a number
    ],
)
def test_renamed_text_writes_numbers_as_the_full_path_writes_them(where: str, value: Any) -> None:
    """The renaming from decoded dicts writes a history with orjson only when it holds no float
    (the walk's values tell, or the text's numbers): a float, or an integer past 64 bits, which
    orjson reads as one, is written as the full path writes it."""
    history = kimi_ids(PLAIN)
    found = False
    for message in history:
        for part in message["content"] if isinstance(message["content"], list) else ():
            if part["type"] == "tool-result":  # no JSON output but the one made below
                part["output"] = {"type": "text", "value": "ok"}
            if part["type"] == "tool-call" and where == "input" and not found:
                part["input"] = {"value": value}
                found = True
            elif part["type"] == "tool-result" and where == "output" and not found:
                part["output"] = {"type": "json", "value": value}
                found = True
            elif part["type"] == "tool-call" and where == "options" and not found:
                part["providerOptions"] = {"openai": {"itemId": "fc_1", "score": value}}
                found = True
    assert found
    edited = heal_json_module._edited
    made: list[bool] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        found = edited(*args, **kwargs)
        made.append(found is not None)
        return found

    with mock.patch.object(heal_json_module, "_edited", spy):
        for data in _texts(history)[:3]:
            expected = heal_messages(data)
            got = _heal_json(data)
            assert got.repairs == expected.repairs and got.repairs
            text = dumps(expected.messages)
            assert got.data == (text if isinstance(data, str) else text.encode())
    # Renamed from the decoded dicts, but for an integer orjson reads as a float.
    assert made == [value != 10**25] * 3


def kimi_ids(history: History) -> History:
    """``history`` with every tool-call id in the form of Kimi's OpenAI-compatible server
    (``call.1:0``), which no provider takes."""
    out = copy.deepcopy(history)
    for message in out:
        if isinstance(message["content"], list):
            for part in message["content"]:
                if part["type"] in ("tool-call", "tool-result"):
                    part["toolCallId"] = part["toolCallId"].replace("_", ".") + ":0"
    return out


def _reordered(value: dict[str, Any]) -> dict[str, Any]:
    return dict(reversed(value.items()))


@pytest.mark.parametrize("where", ["message", "text", "call", "result", "output"])
def test_a_history_with_keys_out_of_order_is_renamed_as_the_full_path_writes_it(
    where: str,
) -> None:
    """The verdict reads keys in any order, a dump writes them in the models' order: a history
    holding a dict in another order is written as the full path writes it."""
    history = kimi_ids(PLAIN)
    assert heal_json(json.dumps(history)).repairs
    for i, message in enumerate(history):
        content = message["content"]
        if where == "message" and message["role"] == "tool":
            history[i] = _reordered(message)
            break
        if isinstance(content, list):
            kind = "text" if where == "text" else f"tool-{where}"
            parts = [k for k, part in enumerate(content) if part["type"] == kind]
            if where == "output":
                parts = [k for k, part in enumerate(content) if part["type"] == "tool-result"]
            if parts:
                part = content[parts[0]]
                if where == "output":
                    content[parts[0]] = {**part, "output": _reordered(part["output"])}
                else:
                    content[parts[0]] = _reordered(part)
                break
    assert json.dumps(history) != json.dumps(kimi_ids(PLAIN))  # only the order differs
    _same_as_heal_messages(history)


def test_ids_renamed_without_models_go_to_on_repair_and_strict() -> None:
    text = _REASONING_TEXTS[0]
    expected = heal_messages(text)
    assert expected.repairs
    told: list[Any] = []
    assert heal_json(text, on_repair=told.append).repairs == expected.repairs
    assert told == list(expected.repairs)
    with pytest.raises(HealingError) as raised:
        heal_json(text, strict=True)
    assert raised.value.repairs == expected.repairs


def test_a_plainly_clean_history_comes_back_as_it_was_without_loading() -> None:
    text = json.dumps(PLAIN, indent=1)  # not heal's own spacing: the caller's text comes back
    data = text.encode()
    with mock.patch.object(heal_json_module, "heal_messages", _refuse_to_load):
        for given_data in (text, data):
            result = _heal_json(given_data, provider="anthropic", strict=True)
            assert result.data is given_data
            assert result.repairs == () and not result.changed


def test_a_broken_history_is_healed_and_written_compactly() -> None:
    broken = PLAIN[:3] + PLAIN[4:]  # the results are gone
    result = heal_json(json.dumps(broken).encode(), provider="anthropic")
    healed = heal_messages(broken, provider="anthropic")
    assert result.changed and [r.rule for r in result.repairs] == [r.rule for r in healed.repairs]
    assert (
        result.data
        == json.dumps(
            dump_messages(healed.messages), ensure_ascii=False, separators=(",", ":")
        ).encode()
    )
    with pytest.raises(HealingError):
        heal_json(json.dumps(broken), strict=True)


@pytest.mark.parametrize(
    "options",
    [
        {"policy": {"orphan-tool-call": "drop-call"}},
        {"policy": Policy(disable=["orphan-tool-call"])},
        {"target": Target.of("anthropic", "claude-sonnet-4-5")},
    ],
)
def test_options_the_verdict_does_not_know_take_the_full_path(options: dict[str, Any]) -> None:
    text = json.dumps(PLAIN)
    result = heal_json(text, **options)
    assert result.data is not text
    assert result.data == dumps(heal_messages(text, **options).messages)
    assert json.loads(result.data) == PLAIN


@pytest.mark.parametrize(
    "options",
    [
        {"model": "claude-sonnet-4-5"},
        {"model": "claude-sonnet-4-5", "tools": ["weather", "search"], "thinking": False},
        {"provider": "bedrock", "model": "claude-sonnet-4-6", "thinking": True},
        # The defaults spelled out, as the integrations' options hold them.
        {"policy": {}, "rules": []},
        {"policy": Policy(), "rules": (), "scope": "request"},
    ],
)
def test_a_target_that_names_a_model_or_tools_is_read_by_the_verdict(
    options: dict[str, Any],
) -> None:
    text = json.dumps(PLAIN[:-1])  # ends with the model's answer
    with mock.patch.object(heal_json_module, "heal_messages", _refuse_to_heal):
        assert heal_json(text, **options).data is text


def _refuse_to_heal(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("a plainly clean history was healed")


@pytest.mark.parametrize(
    ("options", "rule"),
    [
        ({"model": "claude-sonnet-4-6"}, "anthropic-assistant-prefill"),
        ({"model": "claude-sonnet-4-5", "tools": ["weather"]}, "tool-not-offered"),
        ({"provider": "openai-chat", "tools": []}, "tool-not-offered"),
    ],
)
def test_what_the_target_turns_on_takes_the_full_path(options: dict[str, Any], rule: str) -> None:
    text = json.dumps(PLAIN[:-1])
    result = heal_json(text, **options)
    assert rule in {r.rule for r in result.repairs}
    assert result.data == dumps(heal_messages(text, **options).messages)


def test_a_bad_target_is_the_full_paths_error() -> None:
    text = json.dumps(PLAIN)
    for options in ({"model": 3}, {"model": " "}, {"thinking": "yes"}, {"tools": "weather"}):
        with pytest.raises(ConfigError) as raised:
            heal_json(text, **options)
        with pytest.raises(ConfigError) as direct:
            heal_messages(text, **options)
        assert str(raised.value) == str(direct.value)


def _conversation(turns: int, *, clean: bool) -> str:
    """A long conversation as JSON text; when not clean, every other call lost its result."""
    history: History = [PLAIN[0]]
    for n in range(turns):
        history.append({"role": "user", "content": f"question {n}"})
        history.append({"role": "assistant", "content": [_call(f"call_{n}", "search", {"q": n})]})
        if clean or n % 2:
            output = {"type": "text", "value": "found"}
            history.append({"role": "tool", "content": [_result(f"call_{n}", "search", output)]})
        history.append({"role": "assistant", "content": "Found."})
    history.append({"role": "user", "content": "thanks"})
    return json.dumps(history)


@pytest.mark.parametrize("clean", [True, False])
def test_a_long_text_is_healed_with_the_collector_paused(clean: bool) -> None:
    text = _conversation(heal_json_module.PAUSE_GC_FROM_BYTES // 200, clean=clean)
    assert len(text) >= heal_json_module.PAUSE_GC_FROM_BYTES
    seen: list[bool] = []
    # A history the verdict refused is healed without the engine's quick verdict.
    spied = heal_json_module._verdict if clean else heal_not_plain

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return spied(*args, **kwargs)

    with mock.patch.object(heal_json_module, spied.__name__, spy):
        result = heal_json(text)
        assert seen == [False] and gc.isenabled()
        assert (result.data is text) == clean
        heal_json(_conversation(3, clean=clean))  # a short one leaves the collector alone
    assert seen == [False, True]


def test_errors_are_heal_messages_errors() -> None:
    with pytest.raises(ConfigError):
        heal_json(json.dumps(PLAIN), provider="nobody")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="not valid JSON"):
        heal_json("[{")
    with pytest.raises(TypeError):
        heal_json(PLAIN)  # type: ignore[type-var]


@pytest.mark.parametrize(
    "part",
    [
        {"type": {}},  # a type JSON cannot hash
        {"type": ["tool-call"]},
        {"type": "tool-call", "toolCallId": [1], "toolName": "f", "input": {}},
        {"type": "tool-result", "toolCallId": None, "toolName": "f"},
    ],
)
def test_a_part_of_an_odd_shape_is_heal_messages_error(part: dict[str, Any]) -> None:
    # The ids are looked for in any decoded history the verdict refuses, before loading.
    history: History = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [_call("functions.f:1", "f", {}), part]},
    ]
    _same_as_heal_messages(history)
    with pytest.raises(InputError, match=r"messages\[1\]\.content\[1\]"):
        heal_json(json.dumps(history))


def test_a_healed_history_bytes_cannot_hold_is_an_input_error() -> None:
    # lone-surrogate mends text, not tool inputs: the input keeps its surrogate, which a str can
    # hold and UTF-8 cannot.
    history = copy.deepcopy(PLAIN[:4])
    history[2]["content"][1]["input"] = {"city": "\ud800"}
    text = json.dumps(history)
    assert "\ud800" in heal_json(text, provider="google").data
    with pytest.raises(InputError, match="UTF-8"):
        heal_json(text.encode(), provider="google")


def test_at_history_scope_the_verdict_answers_a_plain_history_alone() -> None:
    """At history scope heal_json asks the request's verdict for a plainly clean history alone
    (the history scope's rules are some of the request's): it comes back as the very text,
    unloaded. One plain but for Kimi's ids, or another provider's reasoning, heals as
    heal_messages heals it there (the ids renamed, the reasoning kept: its removal is the
    request's)."""
    text = json.dumps(PLAIN)
    loaded, counting = _loads_counted()
    with counting:
        assert heal_json(text, scope="history").data is text
    assert loaded == []
    cases: list[tuple[History, Any]] = [
        (kimi_ids(PLAIN), None),
        (_turn(_thought("a", _OPENAI), _SAID), "anthropic"),
    ]
    for history, provider in cases:
        moved = json.dumps(history)
        got = heal_json(moved, provider=provider, scope="history")
        expected = heal_messages(moved, provider=provider, scope="history")
        assert got.repairs == expected.repairs
        assert got.data == dumps(expected.messages)  # the full path's text
