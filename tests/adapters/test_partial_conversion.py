"""Partial conversion in the native adapters (issue "Speed", item 4).

A history that needs a repair is still loaded whole (the rules look across messages), but:

* the messages of common shapes are built as canonical models directly, without the AI SDK
  dicts and their validation (each loader's ``fast`` path);
* after the heal only the native messages whose canonical messages changed are written back;
  the others are the caller's own objects (``heal.adapters._common.Sources``), and one whose
  calls or results only got new ids or names is a copy of the caller's with those replaced.

Both are held here to the full conversion they replace (the module's ``_PARTIAL`` switched
off: every message through dicts and validation, the whole history written back): the same
loaded models (values, fields counted as set and their order, origins), and for every provider
the same repairs, an equal healed history (pydantic-ai's: equal as pydantic-ai writes it), or
the same error. On top of that, the caller's untouched messages must come back as the very
objects passed in, and the input is never changed.

The histories: the formats' own strategies, the plain histories of ``test_native_fast_path``
(maybe with one native defect), the edges of each fast shape, and the benchmark corpus, both
shapes, every conversation with one defect. Last, the pieces the speed rests on: repairs moved
to native places as pydantic's copy would move them, the pydantic-ai writer's clock read back
to front, the collector paused on long histories, and arguments text parsed at once.
"""

from __future__ import annotations

import copy
import gc
import json
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from functools import partial
from types import ModuleType
from typing import Any
from unittest import mock
from zoneinfo import ZoneInfo

import pydantic_core
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from pydantic_ai import PydanticAIDeprecationWarning
from pydantic_ai import messages as pa

from benchmarks.corpus import corpus
from heal import InputError, Repair, heal_messages, load_messages
from heal._engine import PAUSE_GC_FROM
from heal.adapters import _common, anthropic, openai_chat, pydantic_ai
from heal.adapters._common import Loaded, NativeHealResult, NativeRepair, native_repair
from heal.providers import PROVIDERS

from . import strategies_anthropic as s_anthropic
from . import strategies_openai_chat as s_chat
from . import strategies_pydantic_ai as s_pydantic_ai
from .test_native_fast_path import (
    ANTHROPIC_DEFECTS,
    ANTHROPIC_PLAIN,
    CHAT_DEFECTS,
    CHAT_PLAIN,
    PYDANTIC_DEFECTS,
    PYDANTIC_PLAIN,
    PYDANTIC_PROVIDERS,
    plain_anthropic,
    plain_chat,
    plain_pydantic_ai,
    sdk_block_objects,
    sdk_blocks,
    sdk_dump,
    sdk_messages,
)

ALL_PROVIDERS: list[Any] = [None, *PROVIDERS]
PROPERTY = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
_QUIET = pytest.mark.filterwarnings("ignore::pydantic_ai.PydanticAIDeprecationWarning")
"""pydantic-ai's strategies draw the deprecated ``RetryPromptPart`` too."""


@contextmanager
def _full_conversion(module: ModuleType) -> Iterator[None]:
    """The adapter converting everything: every message through dicts and validation, the whole
    healed history written back."""
    with mock.patch.object(module, "_PARTIAL", False):
        yield


def _outcome(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except Exception as exc:
        return type(exc), str(exc)


def _fields(value: Any) -> Any:
    """A model's values with the fields it counts as set, recursively (what ``==`` on models
    leaves out, and what dumps depend on)."""
    if isinstance(value, BaseModel):
        return (
            type(value).__name__,
            sorted(value.model_fields_set),
            [(k, _fields(v)) for k, v in value.__dict__.items()],  # in order: dumps follow it
            value.__pydantic_extra__,
        )
    if isinstance(value, (list, tuple)):
        return [_fields(v) for v in value]
    if isinstance(value, dict):  # in order too: dumps follow it
        return [(k, _fields(v)) for k, v in value.items()]
    return value


def _same_load(module: ModuleType, native: Any) -> None:
    """The fast loader builds exactly what the dicts and validation build, or raises the same."""
    fast = _outcome(partial(module.load, native))
    with _full_conversion(module):
        slow = _outcome(partial(module.load, native))
    if not isinstance(slow, Loaded):
        assert fast == slow
        return
    assert isinstance(fast, Loaded)
    assert fast.messages == slow.messages
    assert _fields(fast.messages) == _fields(slow.messages)
    assert fast.origins == slow.origins
    assert fast.part_origins == slow.part_origins
    assert getattr(fast, "unit_parts", None) == getattr(slow, "unit_parts", None)


def _native_messages(module: ModuleType, native: Any) -> list[Any]:
    if isinstance(native, (str, bytes)):
        return []
    if module is anthropic:
        return list(native["messages"] if isinstance(native, dict) else native)
    return list(native)


def _written_out(module: ModuleType, messages: Any) -> Any:
    """A healed history as compared between the two conversions: pydantic-ai's own JSON of
    pydantic-ai objects (a message handed back keeps what the caller gave, such as a tool's
    return value as the object it was, where writing it out gives its JSON form)."""
    if module is pydantic_ai and isinstance(messages, list):
        dumped = pa.ModelMessagesTypeAdapter.dump_python(messages, mode="json", warnings=False)
        return dumped, [type(m.parts) for m in messages]  # a tuple of parts stays one
    if module is pydantic_ai and isinstance(messages, (str, bytes)):
        # As values: a message handed back keeps its keys in the caller's order, where
        # writing it out may put a key moved by the adapter (a thought signature) last.
        return json.loads(messages)
    return _sdk_as_dicts(messages)


def _sdk_as_dicts(value: Any) -> Any:
    """``value`` with every SDK model in it as the dict the adapters read it as (and write it
    out as): a message or block handed back is the caller's own object, written out a dict."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, dict):
        return {key: _sdk_as_dicts(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_sdk_as_dicts(item) for item in value]
    return value


def _same_heal(
    module: ModuleType, heal: Callable[..., Any], native: Any, providers: list[Any] = ALL_PROVIDERS
) -> None:
    """Under every provider: partial conversion gives what full conversion gives, the caller's
    messages it returns are the objects passed in, and the input is never changed."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PydanticAIDeprecationWarning)
        _same_heal_quietly(module, heal, native, providers)


def _same_heal_quietly(
    module: ModuleType, heal: Callable[..., Any], native: Any, providers: list[Any]
) -> None:
    before = copy.deepcopy(native)
    given_ids = {id(m) for m in _native_messages(module, native)}
    for provider in providers:
        fast = _outcome(partial(heal, native, provider=provider))
        with _full_conversion(module):
            slow = _outcome(partial(heal, native, provider=provider))
        if not isinstance(slow, NativeHealResult):
            assert fast == slow, provider
            continue
        assert isinstance(fast, NativeHealResult), (provider, fast)
        assert fast.repairs == slow.repairs, provider
        assert [r.describe() for r in fast.repairs] == [r.describe() for r in slow.repairs]
        assert (fast.messages is native) == (slow.messages is native), provider
        assert _written_out(module, fast.messages) == _written_out(module, slow.messages)
        if isinstance(native, dict) and isinstance(fast.messages, dict):
            # An untouched system parameter is the caller's own value.
            system = native.get("system")
            if fast.messages.get("system") == system and system is not None:
                assert fast.messages["system"] is system, provider
        if fast.messages is not native:
            out = _native_messages(module, fast.messages)
            # Messages written back are new objects; none is a caller's message changed.
            for message in out:
                if id(message) not in given_ids:
                    assert all(message is not m for m in _native_messages(module, native))
    assert native == before


# --- the loaders ---------------------------------------------------------------------------------

anthropic_strategies = st.one_of(
    s_anthropic.histories(sdk=True),
    s_anthropic.histories(sdk=False),
    s_anthropic.valid_histories(),
    plain_anthropic(),
)


@PROPERTY
@given(anthropic_strategies)
def test_anthropic_fast_load_is_the_validated_load(native: Any) -> None:
    _same_load(anthropic, native)


@settings(PROPERTY, max_examples=60)
@given(anthropic_strategies)
def test_anthropic_partial_conversion_is_the_full_conversion(native: Any) -> None:
    _same_heal(anthropic, anthropic.heal_anthropic, native)


chat_strategies = st.one_of(
    s_chat.histories(sdk=True),
    s_chat.histories(sdk=False),
    s_chat.valid_histories(),
    plain_chat(),
)


@PROPERTY
@given(chat_strategies)
def test_openai_chat_fast_load_is_the_validated_load(native: Any) -> None:
    _same_load(openai_chat, native)


@settings(PROPERTY, max_examples=60)
@given(chat_strategies)
def test_openai_chat_partial_conversion_is_the_full_conversion(native: Any) -> None:
    _same_heal(openai_chat, openai_chat.heal_openai_chat, native)


pydantic_ai_strategies = st.one_of(s_pydantic_ai.histories(), plain_pydantic_ai())


@_QUIET
@PROPERTY
@given(pydantic_ai_strategies)
def test_pydantic_ai_fast_load_is_the_validated_load(native: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PydanticAIDeprecationWarning)
        _same_load(pydantic_ai, native)


@pytest.mark.parametrize("part", [pa.TextPart, pa.ThinkingPart])
@pytest.mark.parametrize("details", [{}, {"finish": "stop"}])
def test_pydantic_ai_a_gemini_signature_alone_in_provider_details(part: Any, details: Any) -> None:
    # A text or thinking part whose only non-default field is Gemini's thought signature: the
    # fast loader kept the record it had emptied as an empty "part" (the deep profile found it
    # for a text part); the general path keeps no record then.
    stamp = datetime(1970, 1, 1, tzinfo=timezone.utc)
    native = [
        pa.ModelRequest(parts=[pa.UserPromptPart(content="hi", timestamp=stamp)]),
        pa.ModelResponse(
            parts=[part(content="hi", provider_details={"thought_signature": "c2ln", **details})],
            timestamp=stamp,
        ),
    ]
    _same_load(pydantic_ai, native)


@_QUIET
@settings(PROPERTY, max_examples=40)
@given(pydantic_ai_strategies)
def test_pydantic_ai_partial_conversion_is_the_full_conversion(native: Any) -> None:
    _same_heal(pydantic_ai, pydantic_ai.heal_pydantic_ai, native, PYDANTIC_PROVIDERS)


@_QUIET
@settings(PROPERTY, max_examples=30)
@given(pydantic_ai_strategies)
def test_pydantic_ai_partial_conversion_of_json(native: Any) -> None:
    try:
        text = pa.ModelMessagesTypeAdapter.dump_json(native, warnings=False).decode()
    except ValueError:  # a lone surrogate, which JSON cannot hold
        assume(False)
    _same_heal(pydantic_ai, pydantic_ai.heal_pydantic_ai, text, ["auto", None])


@pytest.mark.parametrize(
    "annotations",
    [[], [{"type": "url_citation", "url_citation": {"url": "https://a.example", "title": "A"}}]],
)
def test_openai_chat_annotations_load_as_the_general_path_loads_them(annotations: Any) -> None:
    # The API answers a text with its annotations, an empty list mostly: read by the fast path
    # (a new empty list, as loading the general path's dicts makes), anything else by the
    # general one; the same models either way, and the same heal.
    native = copy.deepcopy(CHAT_PLAIN)
    answer = next(i for i, m in enumerate(native) if m["role"] == "assistant" and m["content"])
    native[answer]["annotations"] = annotations
    _same_load(openai_chat, native)
    _same_heal(openai_chat, openai_chat.heal_openai_chat, native)
    del native[3]  # a result gone: the history loads for a repair
    _same_load(openai_chat, native)
    _same_heal(openai_chat, openai_chat.heal_openai_chat, native)


@pytest.mark.parametrize("defect", ["none", *sorted(ANTHROPIC_DEFECTS)])
def test_anthropic_sdk_block_dumps_load_and_heal_as_the_general_path_does(defect: str) -> None:
    # Assistant blocks as a caller stores the SDK's (model_dump(): null citations, caller,
    # toolset_name), beside each native defect: the fast loader keeps the null fields as the
    # general path does.
    native = sdk_blocks(ANTHROPIC_PLAIN)
    if defect != "none":
        ANTHROPIC_DEFECTS[defect](native)
    _same_load(anthropic, native)
    _same_heal(anthropic, anthropic.heal_anthropic, native)
    # The same blocks as the SDK's own objects, as response.content is stored.
    objects = sdk_block_objects(native)
    _same_load(anthropic, objects)
    _same_heal(anthropic, anthropic.heal_anthropic, objects)


@pytest.mark.parametrize("defect", ["none", *sorted(CHAT_DEFECTS)])
def test_openai_chat_sdk_dumps_load_and_heal_as_the_general_path_does(defect: str) -> None:
    # Assistant messages as a caller stores the SDK's (model_dump(): null refusal,
    # annotations, audio, function_call, and tool_calls when there are none), beside each
    # native defect: the fast loader keeps the null fields as the general path does.
    native = [sdk_dump(m) if m["role"] == "assistant" else m for m in copy.deepcopy(CHAT_PLAIN)]
    if defect != "none":
        CHAT_DEFECTS[defect](native)
    _same_load(openai_chat, native)
    _same_heal(openai_chat, openai_chat.heal_openai_chat, native)
    # The same messages as the SDK's own objects, as response.choices[0].message is stored.
    objects = sdk_messages(native)
    _same_load(openai_chat, objects)
    _same_heal(openai_chat, openai_chat.heal_openai_chat, objects)


_PLANS = {
    pa.ModelRequest: (pydantic_ai._PLAN_REQUEST, ("parts",)),
    pa.ModelResponse: (pydantic_ai._PLAN_RESPONSE, ("parts",)),
    pa.SystemPromptPart: (pydantic_ai._PLAN_SYSTEM, ("content",)),
    pa.UserPromptPart: (pydantic_ai._PLAN_USER, ("content",)),
    pa.ToolReturnPart: (pydantic_ai._PLAN_RETURN, ("tool_name", "tool_call_id", "content")),
    pa.ToolCallPart: (pydantic_ai._PLAN_CALL, ("tool_name", "tool_call_id", "args")),
    pa.TextPart: (pydantic_ai._PLAN_TEXT, ("content",)),
    pa.ThinkingPart: (pydantic_ai._PLAN_THINKING, ("content",)),
}
"""The fast path's record plans, with the fields each leaves out of its class's record."""


@_QUIET
@PROPERTY
@given(pydantic_ai_strategies)
def test_pydantic_ai_records_are_prunes_of_pydantic_ais_json(native: Any) -> None:
    # Each record the fast path reads is the general path's: _prune of pydantic-ai's own JSON
    # of the object, keys in the same order (records are dumped as they are ordered).
    for message in native:
        if not isinstance(message, (pa.ModelRequest, pa.ModelResponse)):
            continue  # a history the adapter refuses (a dict for a message, say)
        raw = pa.ModelMessagesTypeAdapter.dump_python([message], mode="json", warnings=False)[0]
        for obj, data in [(message, raw), *zip(message.parts, raw["parts"], strict=True)]:
            found = _PLANS.get(type(obj))
            if found is None:
                continue
            plan, drop = found
            record = pydantic_ai._fast_record(obj, plan, {})
            if record is None:  # a value the fast path leaves to the general path
                continue
            # A return's content_file_digests is no field: _fast_return adds it itself.
            expected = pydantic_ai._prune(data, type(obj), *drop, "content_file_digests")
            assert list(record.items()) == list(expected.items())


def test_pydantic_ai_responses_with_usage_take_the_fast_path() -> None:
    # Every response a model returned counts its tokens: such a response is read by the fast
    # path (it once took the general one, twice as slow on a real history that needed a
    # repair), into what the general path reads; a float that is not finite as null in both.
    from pydantic_ai.usage import RequestUsage

    odd = RequestUsage(input_tokens=1)
    odd.audio_seconds = float("nan")
    usages = (
        RequestUsage(),
        RequestUsage(input_tokens=3, output_tokens=2, details={"reasoning_tokens": 2}),
        odd,
    )
    for usage in usages:
        native: list[pa.ModelMessage] = [
            pa.ModelRequest([pa.UserPromptPart("q", timestamp=_EPOCH)]),
            pa.ModelResponse([pa.TextPart("a")], usage=usage, model_name="m", timestamp=_EPOCH),
        ]
        taken: list[bool] = []
        fast = pydantic_ai._Loader._fast

        def spy(loader: Any, *args: Any, taken: list[bool] = taken, fast: Any = fast) -> bool:
            found: bool = fast(loader, *args)
            taken.append(found)
            return found

        with mock.patch.object(pydantic_ai._Loader, "_fast", spy):
            pydantic_ai.load(native)
        assert taken == [True, True]
        _same_load(pydantic_ai, native)


_EPOCH = datetime(2026, 1, 1, tzinfo=timezone.utc)


@pytest.mark.parametrize("defect", sorted(PYDANTIC_DEFECTS))
def test_pydantic_ai_defects(defect: str) -> None:
    native = copy.deepcopy(PYDANTIC_PLAIN)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PydanticAIDeprecationWarning)
        PYDANTIC_DEFECTS[defect](native)
    _same_heal(pydantic_ai, pydantic_ai.heal_pydantic_ai, native, PYDANTIC_PROVIDERS)


_DAY = timedelta(hours=24) - timedelta(microseconds=1)
_ZONES = st.one_of(
    st.none(),
    st.sampled_from([timezone.utc, pydantic_core.TzInfo(0)]),
    st.timedeltas(min_value=-_DAY, max_value=_DAY).map(timezone),  # seconds and microseconds too
    st.integers(-86399, 86399).map(pydantic_core.TzInfo),
    st.timezones(),  # daylight saving: equal datetimes with different offsets across a fold
)


@st.composite
def _timestamps(draw: st.DrawFn) -> list[datetime]:
    """Datetimes that collide: a few local times, each naive, in several zones, as the same
    instant in several zones, and with either fold."""
    bases = draw(
        st.lists(
            st.datetimes(min_value=datetime(2, 1, 1), max_value=datetime(9998, 12, 31)),
            min_size=1,
            max_size=3,
        )
    )
    out = []
    for _ in range(draw(st.integers(1, 12))):
        base = draw(st.sampled_from(bases)).replace(fold=draw(st.integers(0, 1)))
        zone = draw(_ZONES)
        if zone is not None and draw(st.booleans()):
            out.append(base.replace(tzinfo=timezone.utc).astimezone(zone))  # the same instant
        else:
            out.append(base.replace(tzinfo=zone))  # the same local time
    return out


_FOLD = datetime(2021, 11, 7, 1, 30, tzinfo=ZoneInfo("America/New_York"))
"""An hour New York lives twice: equal to itself with the other fold, at another offset."""


@PROPERTY
@given(_timestamps())
@example([_FOLD, _FOLD.replace(fold=1)])
@example([_FOLD.replace(tzinfo=None), _FOLD.replace(tzinfo=None, fold=1), _FOLD])
def test_pydantic_ai_timestamps_are_pydantic_cores_json(timestamps: list[datetime]) -> None:
    # The fast path converts each timestamp of a history once (_datetime_json): whatever came
    # before, every datetime gets the JSON pydantic_core gives it (and so pydantic-ai's adapter).
    stamps: Any = {}
    for value in timestamps:
        assert pydantic_ai._datetime_json(value, stamps) == pydantic_core.to_jsonable_python(value)


# --- the edges of the fast shapes, one at a time -------------------------------------------------


def _a_call(call_id: str = "toolu_1", **extra: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": "search", "input": {"q": 1}, **extra}


def _a_result(call_id: str = "toolu_1", **extra: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": "ok", **extra}


_A_TEXT = {"type": "text", "text": "hi"}
_A_THINKING = {"type": "thinking", "thinking": "hmm", "signature": "c2ln"}

ANTHROPIC_EDGES: list[Any] = [
    # results and text in one user message, in either order, and after a results-only one
    [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [_A_TEXT, _a_call()]},
        {"role": "user", "content": [_a_result(), _A_TEXT]},
    ],
    [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [_a_call()]},
        {"role": "user", "content": [_A_TEXT, _a_result()]},
    ],
    [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [_a_call()]},
        {"role": "user", "content": [_a_result()]},
        {"role": "user", "content": "more"},
        {"role": "user", "content": [_A_TEXT]},
    ],
    # is_error true, false and absent; content absent or blocks; cache control; citations
    [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [_a_call("a"), _a_call("b"), _a_call("c")]},
        {
            "role": "user",
            "content": [
                _a_result("a", is_error=True),
                _a_result("b", is_error=False),
                {"type": "tool_result", "tool_use_id": "c"},
            ],
        },
    ],
    [
        {"role": "user", "content": [{**_A_TEXT, "cache_control": {"type": "ephemeral"}}]},
        {"role": "assistant", "content": [{**_A_TEXT, "citations": None}, _a_call()]},
        {"role": "user", "content": [_a_result(content=[_A_TEXT])]},
    ],
    # thinking signed, unsigned, redacted; a tool input that is not an object; no input
    [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": [
                _A_THINKING,
                {"type": "thinking", "thinking": "x"},
                {"type": "redacted_thinking", "data": "ZGF0YQ=="},
                _A_TEXT,
                {"type": "tool_use", "id": "a", "name": "s", "input": "{}"},
                {"type": "tool_use", "id": "b", "name": "s"},
            ],
        },
        {"role": "user", "content": [_a_result("a"), _a_result("b")]},
    ],
    # an empty assistant message, an unknown key, a system message inside the list
    [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "q", "name": "me"},
        {"role": "assistant", "content": []},
        {"role": "user", "content": "q"},
    ],
    # the system parameter: a string, blocks, blank; untouched beside a repair
    {
        "system": "sys",
        "messages": [{"role": "user", "content": "q"}, {"role": "user", "content": " "}],
    },
    {
        "system": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        "model": "claude-sonnet-4-5",
        "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [_a_call()]},
        ],
    },
    {"system": " ", "messages": [{"role": "user", "content": "q"}]},
    {
        "system": [],
        "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": ""}],
    },
    # a renamed call whose result came after text (its block order is mended as well)
    [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [_a_call("functions.search:0")]},
        {"role": "user", "content": [_A_TEXT, _a_result("functions.search:0")]},
    ],
]


def _c_call(call_id: str = "call_1", args: str = '{"q":1}', **extra: Any) -> dict[str, Any]:
    function = {"name": "search", "arguments": args}
    return {"id": call_id, "type": "function", "function": function, **extra}


def _c_result(call_id: str = "call_1", **extra: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "ok", **extra}


_SIGNED: dict[str, Any] = {"extra_content": {"google": {"thought_signature": "c2ln"}}}

CHAT_EDGES: list[Any] = [
    # content absent, null, empty, an array, a string beside calls; reasoning fields
    [
        {"role": "developer", "content": "dev"},
        {"role": "user", "content": [{"type": "text", "text": "q"}]},
        {"role": "assistant", "tool_calls": [_c_call()]},
        _c_result(),
        {"role": "assistant", "content": None, "tool_calls": [_c_call("call_2")]},
        _c_result("call_2", name="search"),
        {"role": "assistant", "content": "", "tool_calls": [_c_call("call_3")]},
        _c_result("call_3", name="other"),
        {"role": "assistant", "content": [{"type": "text", "text": "a"}], "reasoning": "r"},
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": "a",
            "reasoning_content": "r",
            "tool_calls": [_c_call("c4")],
        },
        _c_result("c4"),
        {"role": "assistant", "content": "", "reasoning_content": "r", "reasoning": "r"},
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "a", "reasoning_content": None},
    ],
    # arguments spelled otherwise, not an object, not JSON; signatures; odd call shapes
    [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                _c_call("a", '{"q": 1}'),
                _c_call("b", '{"q": "\u00e9"}'),
                _c_call("c", '{"q":1, "r":2}'),
                _c_call("d", "[1]"),
                _c_call("e", "{"),
                _c_call("f", **_SIGNED),
                _c_call("g", extra_content={"google": {"thought_signature": "x", "k": 1}}),
                {"id": "h", "function": {"name": "s", "arguments": "{}"}},
                _c_call("i", '{"x": 1e400}'),
            ],
        },
        *(_c_result(k) for k in "abcdefghi"),
    ],
    # a tool message's content as parts; an empty array; refusal; a legacy function call
    [
        {
            "role": "system",
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        },
        {"role": "user", "content": []},
        {"role": "assistant", "content": None, "refusal": "no"},
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": [_c_call()]},
        {"role": "tool", "tool_call_id": "call_1", "content": [{"type": "text", "text": "ok"}]},
        {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}},
        {"role": "function", "name": "f", "content": "done"},
    ],
    # a tool renamed, with the result that names it (and one that names another)
    [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "my tool!", "arguments": "{}"},
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "my tool!", "arguments": "{}"},
                },
            ],
        },
        _c_result("c1", name="my tool!"),
        _c_result("c2", name="other"),
    ],
    # a repair beside untouched messages: an orphan result, a blank user message
    [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "a"},
        _c_result("nowhere"),
        {"role": "user", "content": " "},
        {"role": "assistant", "content": "b"},
        {"role": "user", "content": "q"},
    ],
]


@pytest.mark.parametrize("native", ANTHROPIC_EDGES)
def test_anthropic_edges(native: Any) -> None:
    _same_load(anthropic, native)
    _same_heal(anthropic, anthropic.heal_anthropic, native)


@pytest.mark.parametrize("native", CHAT_EDGES)
def test_openai_chat_edges(native: Any) -> None:
    _same_load(openai_chat, native)
    _same_heal(openai_chat, openai_chat.heal_openai_chat, native)


def test_an_untouched_system_parameter_is_the_callers() -> None:
    for system in ("sys", [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]):
        native = {
            "system": system,
            "messages": [{"role": "user", "content": "q"}, {"role": "user", "content": " "}],
        }
        result = anthropic.heal_anthropic(native)
        assert result.changed
        assert result.messages["system"] is system
        assert result.messages["messages"][0] is native["messages"][0]


# --- the benchmark corpus: one defect in every conversation --------------------------------------


def _broken_corpus(shape: str) -> list[Any]:
    return [
        load_messages(h)
        for h in corpus(conversations=24, length=16, broken=1.0, shape=shape)  # type: ignore[arg-type]
    ]


def _written(dump: Callable[[Any], Any], histories: list[Any]) -> list[Any]:
    out = []
    for history in histories:
        try:
            out.append(dump(history))
        except InputError:  # reasoning Anthropic did not sign, for its format
            continue
    return out


CORPUS = {shape: _broken_corpus(shape) for shape in ("tools", "reasoning")}

ANTHROPIC_CORPUS = [
    native
    for shape in CORPUS
    for native in _written(
        lambda h: anthropic.dump_messages(h, shape="params")["messages"], CORPUS[shape]
    )
]


CHAT_CORPUS = [
    native for shape in CORPUS for native in _written(openai_chat.dump_messages, CORPUS[shape])
]


PYDANTIC_AI_CORPUS = [
    native for shape in CORPUS for native in _written(pydantic_ai.dump_messages, CORPUS[shape])
]


def _near_repairs(result: NativeHealResult[Any]) -> set[int]:
    """The native messages a repair names, and their neighbours."""
    near: set[int] = set()
    for repair in result.repairs:
        for index in (repair.message_index, repair.anchor_index):
            if index is not None:
                near.update((index - 1, index, index + 1))
    return near


def _untouched_are_the_callers(
    module: ModuleType, native: list[Any], result: NativeHealResult[Any]
) -> None:
    """Every message no repair names (nor one next to it) is the caller's own object."""
    near = _near_repairs(result)
    out = _native_messages(module, result.messages)
    kept = {id(m) for m in out}
    for i, message in enumerate(native):
        if i not in near:
            assert id(message) in kept, i


@pytest.mark.parametrize("native", ANTHROPIC_CORPUS)
def test_anthropic_corpus_partial_conversion(native: Any) -> None:
    _same_load(anthropic, native)
    _same_heal(anthropic, anthropic.heal_anthropic, native)
    for provider in ("anthropic", None):
        result = anthropic.heal_anthropic(native, provider=provider)
        if result.messages is not native:
            _untouched_are_the_callers(anthropic, native, result)


@pytest.mark.parametrize("native", CHAT_CORPUS)
def test_openai_chat_corpus_partial_conversion(native: Any) -> None:
    _same_load(openai_chat, native)
    _same_heal(openai_chat, openai_chat.heal_openai_chat, native)
    for provider in ("openai-chat", None):
        result = openai_chat.heal_openai_chat(native, provider=provider)
        if result.messages is not native:
            _untouched_are_the_callers(openai_chat, native, result)


@pytest.mark.parametrize("native", PYDANTIC_AI_CORPUS)
def test_pydantic_ai_corpus_partial_conversion(native: Any) -> None:
    _same_load(pydantic_ai, native)
    _same_heal(pydantic_ai, pydantic_ai.heal_pydantic_ai, native, ["auto", None, "anthropic"])
    for provider in ("auto", None):
        result = pydantic_ai.heal_pydantic_ai(native, provider=provider)
        if result.messages is not native:
            _untouched_are_the_callers(pydantic_ai, native, result)


# --- repairs moved to native places ----------------------------------------------------------------


def _moved_as_pydantic_moves(repair: Repair, loaded: Loaded) -> Repair:
    """``native_repair`` as pydantic's own copy and construction make it."""
    message, part = loaded.native_location(repair.message_index, repair.part_index)
    anchor = None if repair.anchor_index is None else loaded.origins[repair.anchor_index]
    moved = repair.model_copy(
        update={"message_index": message, "part_index": part, "anchor_index": anchor}
    )
    location = loaded.describe_location(repair)
    return moved if location is None else NativeRepair.at(moved, location)


@pytest.mark.parametrize(
    ("module", "native"),
    [(openai_chat, n) for n in CHAT_CORPUS[::3]]
    + [(pydantic_ai, n) for n in PYDANTIC_AI_CORPUS[::3]]
    + [(anthropic, n) for n in ANTHROPIC_CORPUS[::3]],
)
def test_repairs_move_to_native_places_as_pydantic_moves_them(
    module: ModuleType, native: Any
) -> None:
    loaded = module.load(native)
    for provider in (None, "anthropic", "mistral"):
        for repair in heal_messages(loaded.messages, provider=provider).repairs:
            ours = native_repair(repair, loaded)
            theirs = _moved_as_pydantic_moves(repair, loaded)
            assert type(ours) is type(theirs)
            assert _fields(ours) == _fields(theirs)
            assert ours.model_fields_set == theirs.model_fields_set
            assert ours.__pydantic_private__ == theirs.__pydantic_private__
            assert ours.describe() == theirs.describe()
            assert ours.model_dump_json() == theirs.model_dump_json()


# --- the clock pydantic-ai's writer keeps over the caller's own messages ---------------------------


def _ticks_forward(metas: list[Any], messages: list[Any], start: int, end: int) -> Any:
    """The timestamps the dumper ticks writing a span, in its order (as ``span`` does): the
    record, then each tool result's or unit's own record."""
    found: list[Any] = [metas[start].get("message")]
    for k in range(start, end):
        message = messages[k]
        if message.role in ("assistant", "tool"):
            if not isinstance(message.content, str):
                found += [
                    pydantic_ai._model_meta(part).get("part")
                    for part in message.content
                    if part.type == "tool-result"
                ]
        else:
            found.append(metas[k].get("part") or metas[k].get("feedback"))
    stamps = [pydantic_ai._stamp(data) for data in found]
    return next((s for s in reversed(stamps) if s is not None), None)


@_QUIET
@PROPERTY
@given(pydantic_ai_strategies)
def test_pydantic_ai_writer_reads_the_last_timestamp_back_to_front(native: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PydanticAIDeprecationWarning)
        try:
            loaded = pydantic_ai.load(native)
        except InputError:
            assume(False)
    messages = loaded.messages
    metas = [pydantic_ai._model_meta(m) for m in messages]
    dumper = pydantic_ai._Dumper([None] * len(messages), metas)
    for start, end in pydantic_ai._spans(metas, [m.role for m in messages]):
        expected = _ticks_forward(metas, messages, start, end)
        assert dumper._last_stamp(start, end, messages, {}) == expected


def _at(hour: int) -> datetime:
    return datetime(2025, 1, 1, hour, tzinfo=timezone.utc)


def _pydantic_ai_edges() -> list[list[Any]]:
    """Histories where a message written back holds parts of the caller's, untouched, whose
    timestamps the parts heal adds after them take (the clock of the dumper)."""
    ask = pa.ModelRequest(parts=[pa.UserPromptPart("q", timestamp=_at(1))])
    two_calls = pa.ModelResponse(
        parts=[pa.ToolCallPart("f", {"x": 1}, "a"), pa.ToolCallPart("f", {"x": 2}, "b")],
        timestamp=_at(2),
    )
    one_return = pa.ModelRequest(parts=[pa.ToolReturnPart("f", "ok", "a", timestamp=_at(3))])
    return_and_prompt = pa.ModelRequest(
        parts=[
            pa.ToolReturnPart("f", "ok", "a", timestamp=_at(4)),
            pa.ToolReturnPart("f", "ok", "b", timestamp=_at(5)),
            pa.UserPromptPart("next", timestamp=_at(6)),
        ]
    )
    answer = pa.ModelResponse(parts=[pa.TextPart("done")], timestamp=_at(7))
    return [
        [ask, two_calls, one_return, answer],  # b answered by heal, after a
        [ask, two_calls, return_and_prompt, answer],  # Mistral: an answer between
        [ask, two_calls, return_and_prompt],
    ]


@pytest.mark.parametrize("native", _pydantic_ai_edges())
def test_pydantic_ai_edges(native: Any) -> None:
    _same_heal(pydantic_ai, pydantic_ai.heal_pydantic_ai, native, PYDANTIC_PROVIDERS)


# --- long histories: the cyclic collector paused while reading and writing ------------------------


def _long_chat(turns: int) -> list[dict[str, Any]]:
    native: list[dict[str, Any]] = []
    for k in range(turns):
        native += [
            {"role": "user", "content": f"q{k}"},
            {"role": "assistant", "content": None, "tool_calls": [_c_call(f"functions.f:{k}")]},
            _c_result(f"functions.f:{k}"),
        ]
    return native


def _collections(call: Callable[[], Any]) -> int:
    """How many times the cyclic collector started during ``call``."""
    started: list[int] = []

    def seen(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started.append(info["generation"])

    gc.collect()
    gc.callbacks.append(seen)
    try:
        call()
    finally:
        gc.callbacks.remove(seen)
    return len(started)


def test_a_long_history_is_read_and_written_with_the_collector_paused() -> None:
    native = _long_chat(PAUSE_GC_FROM // 3 + 1)  # every id renamed: all of it written
    heal = partial(openai_chat.heal_openai_chat, native, provider="openai-chat")
    assert heal().changed
    # Paused, it runs at most once as each pause ends (four: renaming the caller's dicts,
    # which the verdict refuses here, a user message after results; reading, healing,
    # writing); not paused, over and over as the objects pile up.
    paused = _collections(heal)
    with mock.patch.object(_common, "PAUSE_GC_FROM", 10**9):
        running = _collections(heal)
    assert paused <= 4 < running
    assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off() -> None:
    native = _long_chat(PAUSE_GC_FROM // 3 + 1)
    gc.disable()
    try:
        openai_chat.heal_openai_chat(native, provider="openai-chat")
        assert not gc.isenabled()
    finally:
        gc.enable()


# --- arguments text, parsed at once ----------------------------------------------------------------

_json_texts = st.one_of(
    st.text(max_size=20),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
        ),
        max_leaves=6,
    ).map(lambda v: json.dumps(v, separators=(",", ":"))),
    st.sampled_from(('{"a":1} ', ' {"a":1}', '{"a":1}x', '{"a":', "NaN", '{"a":NaN}', "1e400")),
)


@PROPERTY
@given(_json_texts)
def test_arguments_parse_as_the_decoder_parses_them(text: str) -> None:
    assert _outcome(partial(openai_chat._decode_json, text)) == _outcome(
        partial(openai_chat._DECODER.decode, text)
    )


# --- a role that is not a string ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("heal", "native"),
    [
        (openai_chat.heal_openai_chat, [{"role": [["user"]], "content": "hi"}]),
        (anthropic.heal_anthropic, [{"role": [["user"]], "content": "hi"}]),
        (anthropic.heal_anthropic, {"system": "s", "messages": [{"role": {}, "content": "hi"}]}),
    ],
)
def test_a_role_that_is_not_a_string_is_an_input_error(heal: Any, native: Any) -> None:
    # The verdicts looked such a role up in a table of roles: TypeError, unhashable.
    for provider in (None, "anthropic", "openai-chat"):
        with pytest.raises(InputError, match="role"):
            heal(native, provider=provider)
