"""The native verdicts: heal_anthropic and heal_openai_chat hand a plainly clean history back as
it is, without building canonical models (issue "Speed", item 4).

Each adapter asks its ``_plainly_clean`` first (a pure-Python pass over the caller's own dicts,
sharing :mod:`heal._verdict` with heal_json's verdict). It is exact in one direction: when it says
clean, the full path (load, heal_messages, write back) returns no repair and the caller's own
object. The properties hold it to that under every provider id and None, and check that the
adapter gives exactly what the full path gives (the full path is the adapter with its verdict
switched off) on every input: the same repairs, the same object or an equal one, or the same
error.

The histories come from three places:

* the plain AI SDK histories of ``tests/test_json.py`` (the shapes the verdicts are made for,
  each maybe with one defect at their edges), written in the format by its own adapter, then
  maybe given one native defect (a ``cache_control``, a thinking block, an ``is_error: false``,
  arguments that are not an object, a ``developer`` role, a request that names its model...);
* the formats' own strategies (``strategies_anthropic``, ``strategies_openai_chat``): anything
  their SDKs accept, and more, which the verdicts mostly refuse;
* their ``valid_histories``, with nothing to repair.
"""

from __future__ import annotations

import copy
import json
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from functools import partial
from types import ModuleType, SimpleNamespace
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pydantic_ai import PydanticAIDeprecationWarning
from pydantic_ai import messages as pa

import heal._verdict as verdict_module
from benchmarks.corpus import corpus
from heal import ConfigError, HealingError, InputError, Policy, heal_messages, load_messages
from heal._verdict import ENDS, Terms, provider_terms, terms_for
from heal.adapters import anthropic, gemini, langchain, openai_chat, openai_responses, pydantic_ai
from heal.adapters._common import NativeHealResult
from heal.providers import PROVIDERS, ProviderId, get_profile
from heal.rules import Context, Finding, Rule, default_registry, register_rule
from heal.rules._quick import CLEAN, NOT_PLAIN
from heal.rules.files import plain_image
from heal.targets import Target
from tests.test_json import PLAIN, kimi_ids, plain_histories
from tests.verdict_targets import MODEL_TARGETS

from . import strategies_anthropic as s_anthropic
from . import strategies_openai_chat as s_chat
from . import strategies_pydantic_ai as s_pydantic_ai

ALL_PROVIDERS: list[Any] = [None, *PROVIDERS]

some_targets = st.lists(
    st.sampled_from(range(len(MODEL_TARGETS))), min_size=1, max_size=3, unique=True
).map(lambda picked: [MODEL_TARGETS[k] for k in picked])
"""A few of the targets that name a model, for a property test's example: every example runs
under every provider alone, and the examples share the model targets out between them."""
PROPERTY = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --- the two paths ---------------------------------------------------------------------------


def _verdict_of(module: ModuleType) -> str:
    """The verdict an adapter's entry point asks: ``_verdict`` (``_plainly_clean`` saying why,
    so that a history plain but for its ids is renamed in the caller's objects) where the
    adapter has one, else ``_plainly_clean``."""
    return "_verdict" if hasattr(module, "_verdict") else "_plainly_clean"


@contextmanager
def _full_path(module: ModuleType) -> Iterator[None]:
    """The adapter with its verdict switched off: every history goes through the models."""
    off = (
        (lambda *args, **kwargs: NOT_PLAIN)
        if hasattr(module, "_verdict")
        else (lambda *args: False)
    )
    with (
        mock.patch.object(module, "_plainly_clean", lambda *args: False),
        mock.patch.object(module, _verdict_of(module), off),
    ):
        yield


def _outcome(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except Exception as exc:
        return type(exc), str(exc)


_LOADERS = {
    anthropic: "_Loader",
    openai_chat: "_Loader",
    pydantic_ai: "_Loader",
    langchain: "_Loader",
    gemini: "_Reader",
    openai_responses: "_Reader",
}
"""The first step of each adapter's full path: its loader."""


def _fast(module: ModuleType, call: Callable[[], Any]) -> tuple[Any, bool]:
    """The outcome of ``call``, and whether the adapter answered without loading the history
    into models (its verdict said plainly clean)."""
    loads: list[Any] = []
    name = _LOADERS[module]
    load = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        loads.append(args)
        return load(*args, **kwargs)

    with mock.patch.object(module, name, counted):
        outcome = _outcome(call)
    return outcome, isinstance(outcome, NativeHealResult) and not loads


def _counted(module: ModuleType, history: Any) -> Any:
    """The history, its verdict counted in the property test's statistics."""
    clean = any(module._plainly_clean(history, provider) for provider in ALL_PROVIDERS)
    event("plainly clean for some provider" if clean else "never plainly clean")
    return history


def _dumped(draw: st.DrawFn, dump: Callable[[Any], Any], fallback: Any) -> Any:
    """A plain AI SDK history drawn and written by ``dump``, or a copy of ``fallback`` when it
    holds a value nested deeper than the models take."""
    history = draw(plain_histories())
    try:
        return dump(history)
    except InputError:
        return copy.deepcopy(fallback)


_ID_RULES = {"invalid-tool-call-id", "anthropic-tool-id-format", "mistral-tool-call-id"}
"""The rules whose renamings an adapter may make without loading the history."""


def _same_as_full_path(
    module: ModuleType,
    heal: Callable[..., NativeHealResult[Any]],
    history: Any,
    providers: list[Any] = ALL_PROVIDERS,
    targets: list[dict[str, Any]] = MODEL_TARGETS,
) -> set[Any]:
    """Under every provider alone and every target that names a model: when the adapter
    answers without loading, either it found the history plainly clean, and the full path
    returns no repair and the very object, or it renamed ids the target refuses, and the full
    path renames them alone; the adapter gives what the full path gives; the input is never
    changed. Returns the providers the adapter found it plainly clean for (alone)."""
    before = copy.deepcopy(history)
    plain: set[Any] = set()
    for options in [{"provider": provider} for provider in providers] + targets:
        fast, skipped = _fast(module, partial(heal, history, **options))
        with _full_path(module):
            slow = _outcome(partial(heal, history, **options))
        if skipped:
            assert isinstance(slow, NativeHealResult), (options, slow)
            assert isinstance(fast, NativeHealResult)
            if fast.repairs:
                assert {r.rule for r in slow.repairs} <= _ID_RULES, options
            else:
                if len(options) == 1 and "provider" in options:
                    plain.add(options["provider"])
                assert slow.repairs == (), (options, [r.describe() for r in slow.repairs])
                assert slow.messages is history, options
        if isinstance(slow, tuple):
            assert fast == slow, options
            continue
        assert isinstance(fast, NativeHealResult)
        assert fast.repairs == slow.repairs, options
        assert (fast.messages is history) == (slow.messages is history), options
        assert _ordered(fast.messages) == _ordered(slow.messages), options
    assert history == before
    return plain


def _ordered(value: Any) -> Any:
    """``value`` with each dict as its items, in order: equal only when the keys come in the
    same order too (a written message keeps the caller's)."""
    if type(value) is dict:
        return [(key, _ordered(item)) for key, item in value.items()]
    if type(value) is list:
        return [_ordered(item) for item in value]
    return value


# --- Anthropic -------------------------------------------------------------------------------


def _anthropic_blocks(native: Any) -> list[dict[str, Any]]:
    """Every content block of the messages (not of ``system``), in order."""
    messages = native["messages"] if isinstance(native, dict) else native
    return [
        block
        for message in messages
        if isinstance(message["content"], list)
        for block in message["content"]
        if isinstance(block, dict)
    ]


def _messages(native: Any) -> list[dict[str, Any]]:
    return native["messages"] if isinstance(native, dict) else native  # type: ignore[no-any-return]


def _a_cache_control(draw: st.DrawFn, native: Any) -> None:
    blocks = _anthropic_blocks(native)
    if isinstance(native, dict) and isinstance(native.get("system"), list):
        blocks += native["system"]
    if blocks:
        draw(st.sampled_from(blocks))["cache_control"] = {"type": "ephemeral"}


def _a_tool_result(draw: st.DrawFn, native: Any) -> None:
    results = [b for b in _anthropic_blocks(native) if b["type"] == "tool_result"]
    if not results:
        return
    block = draw(st.sampled_from(results))
    change = draw(st.sampled_from(("error", "not-error", "list", "absent", "empty", "extra")))
    if change == "error":
        block["is_error"] = True
    elif change == "not-error":
        block["is_error"] = False
    elif change == "list":
        block["content"] = [{"type": "text", "text": str(block.get("content"))}]
    elif change == "absent":
        block.pop("content", None)
    elif change == "empty":
        block["content"] = ""
    else:
        block["x_trace"] = "1"


def _a_tool_input(draw: st.DrawFn, native: Any) -> None:
    calls = [b for b in _anthropic_blocks(native) if b["type"] == "tool_use"]
    if calls:
        draw(st.sampled_from(calls))["input"] = draw(_odd_inputs)


def _a_thinking_block(draw: st.DrawFn, native: Any) -> None:
    spots = [
        m for m in _messages(native) if m["role"] == "assistant" and isinstance(m["content"], list)
    ]
    if not spots:
        return
    block = draw(
        st.sampled_from(
            (
                {"type": "thinking", "thinking": "Let me think.", "signature": "c2lnbmVk"},
                {"type": "thinking", "thinking": "unsigned"},
                {"type": "redacted_thinking", "data": "cmVkYWN0ZWQ="},
            )
        )
    )
    draw(st.sampled_from(spots))["content"].insert(0, block)


def _a_user_block(draw: st.DrawFn, native: Any) -> None:
    users = [m for m in _messages(native) if m["role"] == "user"]
    if not users:
        return
    message = draw(st.sampled_from(users))
    if isinstance(message["content"], str):
        message["content"] = [{"type": "text", "text": message["content"]}]
    block = draw(
        st.sampled_from(
            (
                {"type": "text", "text": "more"},
                {"type": "text", "text": " "},
                {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
                *ANTHROPIC_IMAGES,
                {"type": "tool_result", "tool_use_id": "toolu_gone", "content": "late"},
            )
        )
    )
    message["content"].insert(draw(st.integers(0, len(message["content"]))), copy.deepcopy(block))


def _png_source(**keys: Any) -> dict[str, Any]:
    return {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo=", **keys}


ANTHROPIC_IMAGES: list[dict[str, Any]] = [
    {"type": "image", "source": _png_source()},
    {"type": "image", "source": _png_source(media_type="image/webp")},
    {"type": "image", "source": _png_source(media_type="image/tiff")},
    {"type": "image", "source": _png_source(media_type="image/jpg")},
    {"type": "image", "source": _png_source(data="")},
    {"type": "image", "source": _png_source(data="file-6F2ksmvXxt4Vdo")},
    {"type": "image", "source": _png_source(data="https://example.com/a.png")},
    {"type": "image", "source": {"type": "base64", "data": "iVBORw0KGgo="}},
    {"type": "image", "source": _png_source(extra=1)},
    {"type": "image", "source": _png_source(), "cache_control": {"type": "ephemeral"}},
    {"type": "image", "source": {"type": "url", "url": "ftp://example.com/a.png"}},
    {"type": "image", "source": {"type": "file", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"}},
]
"""Image blocks a user sends: base64 of a type every provider takes, or a URL (both load as
plain images), and those that load otherwise (a type Anthropic refuses or misnames, no data,
data of another kind, no media type, an unknown key, a breakpoint, a stored file)."""


def _a_system(draw: st.DrawFn, native: Any) -> Any:
    messages = _messages(native)
    system = draw(
        st.sampled_from(
            (
                "Be brief.",
                " ",
                "",
                None,
                [],
                [{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Be kind."}],
                [{"type": "text", "text": " "}],
                [{"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}],
            )
        )
    )
    if draw(st.booleans()):
        return {"system": system, "messages": messages}
    return [{"role": "system", "content": system}, *messages]


def _a_request(draw: st.DrawFn, native: Any) -> Any:
    # Request parameters: the keys that name the target take the full path, the others do not.
    extra: dict[str, Any] = draw(
        st.sampled_from(
            (
                {"model": "claude-sonnet-4-5", "max_tokens": 1024},
                {"max_tokens": 1024, "temperature": 0.2, "metadata": {"user_id": "u1"}},
                {"thinking": {"type": "enabled", "budget_tokens": 2048}},
                {"thinking": {"type": "disabled"}},
                {"tools": [{"name": "search", "input_schema": {"type": "object"}}]},
                {"tools": []},
            )
        )
    )
    base = native if isinstance(native, dict) else {"messages": native}
    return {**base, **extra}


def _a_key(draw: st.DrawFn, native: Any) -> None:
    message = draw(st.sampled_from(_messages(native)))
    target = message
    if isinstance(message["content"], list) and message["content"] and draw(st.booleans()):
        target = message["content"][0]
    target[draw(st.sampled_from(("citations", "x_gateway", "id")))] = None


def _a_mixed_order(draw: st.DrawFn, native: Any) -> None:
    # Text before the results of a user message (the loader keeps the order; heal moves them).
    for message in _messages(native):
        content = message["content"]
        if (
            message["role"] == "user"
            and isinstance(content, list)
            and content
            and content[0]["type"] == "tool_result"
        ):
            content.insert(0, {"type": "text", "text": "here:"})
            return


_ANTHROPIC_EDGES = (
    _a_cache_control,
    _a_tool_result,
    _a_tool_input,
    _a_thinking_block,
    _a_user_block,
    _a_system,
    _a_request,
    _a_key,
    _a_mixed_order,
)


def _deep(depth: int) -> dict[str, Any]:
    value: Any = 1
    for _ in range(depth):
        value = {"k": value}
    return value  # type: ignore[no-any-return]


_odd_inputs = st.sampled_from(
    ('{"q": 1}', [1], None, {"x": float("nan")}, {"x": float("inf")}, {"x": 2.5})
) | st.sampled_from((63, 64, 65, 300)).map(_deep)


@st.composite
def plain_anthropic(draw: st.DrawFn) -> Any:
    """A plain AI SDK history written as the Anthropic adapter writes it, maybe with one native
    defect."""
    history = draw(plain_histories())
    shape: anthropic.Shape = draw(st.sampled_from(("auto", "params", "messages")))
    native: dict[str, Any] | list[dict[str, Any]]
    try:
        # The adapters' dump_messages take AI SDK dicts as well as models.
        native = anthropic.dump_messages(history, shape=shape)
    except InputError:  # a value nested deeper than the models take
        native = [{"role": "user", "content": "hi"}]
    if draw(st.integers(0, 2)) == 0:
        edge = draw(st.sampled_from(_ANTHROPIC_EDGES))
        changed = edge(draw, native)
        native = native if changed is None else changed
    return native


anthropic_strategies = st.one_of(
    s_anthropic.histories(sdk=True),
    s_anthropic.histories(sdk=False),
    s_anthropic.valid_histories(),
)


@settings(PROPERTY, max_examples=300)
@given(plain_anthropic(), some_targets)
def test_anthropic_verdict_holds_on_plain_histories(native: Any, targets: list[Any]) -> None:
    _same_as_full_path(
        anthropic, anthropic.heal_anthropic, _counted(anthropic, native), targets=targets
    )


_breakpoints = st.sampled_from(
    (
        *[{"type": "ephemeral"}] * 6,
        *[{"type": "ephemeral", "ttl": "1h"}] * 3,
        {"type": "ephemeral", "ttl": float("nan")},
        {},
        None,
        ["ephemeral"],
        "ephemeral",
    )
)


@st.composite
def cached_anthropic(draw: st.DrawFn) -> Any:
    """A plain history written as Anthropic request parameters with a system prompt of text
    blocks, and one to three prompt-caching breakpoints on any of its blocks (the system's, a
    user's or an assistant's text, a call, a result): most a plain object, some null, a list,
    a string or holding NaN (which no model takes). Those on texts and results alone leave a
    plain history plain for Anthropic."""
    native = _dumped(draw, partial(anthropic.dump_messages, shape="params"), ANTHROPIC_PLAIN)
    if not isinstance(native.get("system"), list):
        system = native.get("system") or "Be brief."
        native["system"] = [{"type": "text", "text": system}]
    blocks = _anthropic_blocks(native) + native["system"]
    for _ in range(draw(st.integers(1, 3))):
        value = draw(_breakpoints)
        draw(st.sampled_from(blocks))["cache_control"] = copy.deepcopy(value)
    return native


@settings(PROPERTY, max_examples=300)
@given(cached_anthropic(), some_targets)
def test_anthropic_verdict_holds_with_cache_breakpoints(native: Any, targets: list[Any]) -> None:
    _anthropic_as_full_path(native, targets)


def _anthropic_as_full_path(native: Any, targets: list[Any]) -> None:
    """:func:`_same_as_full_path` for heal_anthropic, counting whether Anthropic's verdict
    answered without loading."""
    plain = _same_as_full_path(anthropic, anthropic.heal_anthropic, native, targets=targets)
    event("answered without loading for Anthropic" if "anthropic" in plain else "loaded")


_thinking_blocks = st.sampled_from(
    (
        *[{"type": "thinking", "thinking": "Let me think.", "signature": "c2lnbmVk"}] * 16,
        *[{"type": "redacted_thinking", "data": "cmVkYWN0ZWQ="}] * 2,
        {"type": "thinking", "thinking": "", "signature": "c2ln"},
        {"type": "thinking", "thinking": "\ud800", "signature": "c2ln"},
        {"type": "thinking", "thinking": "unsigned", "signature": ""},
        {"type": "thinking", "thinking": "unsigned"},
        {"type": "redacted_thinking", "data": ""},
    )
)


@st.composite
def thinking_anthropic(draw: st.DrawFn) -> Any:
    """A plain history written as Anthropic request parameters (maybe asking for thinking),
    with thinking blocks in some of its assistant messages: most signed and first, as Claude
    returns them; some unsigned, empty or with a lone surrogate, some after the message's text
    or alone, and the history may end in an open tool loop."""
    native = _dumped(draw, partial(anthropic.dump_messages, shape="params"), ANTHROPIC_PLAIN)
    if draw(st.booleans()):
        native["thinking"] = {"type": "enabled", "budget_tokens": 1024}
    for message in native["messages"]:
        if message["role"] != "assistant" or not draw(st.booleans()):
            continue
        if isinstance(message["content"], str):
            message["content"] = [{"type": "text", "text": message["content"]}]
        blocks = [dict(draw(_thinking_blocks)) for _ in range(draw(st.integers(1, 2)))]
        where = draw(st.sampled_from([0] * 12 + [1, -1]))
        if where == 0:
            message["content"][:0] = blocks
        elif where == 1:
            message["content"][1:1] = blocks
        else:
            message["content"].extend(blocks)
    return native


@settings(PROPERTY, max_examples=300)
@given(thinking_anthropic(), some_targets)
def test_anthropic_verdict_holds_with_thinking(native: Any, targets: list[Any]) -> None:
    _anthropic_as_full_path(native, targets)


_CALL_BLOCK = {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Paris"}}
_SIGNED = {"type": "thinking", "thinking": "Let me think.", "signature": "c2lnbmVk"}


@pytest.mark.parametrize(
    ("blocks", "plain"),
    [
        ([_CALL_BLOCK, _SIGNED], False),  # thinking after a call
        ([{"type": "text", "text": "Looking."}, _SIGNED, _CALL_BLOCK], False),  # after a text
        ([_SIGNED], False),  # thinking alone
        ([_SIGNED, _CALL_BLOCK], True),
        ([_CALL_BLOCK], True),  # a call alone says enough
    ],
    ids=["after-call", "after-text", "alone", "first", "no-thinking"],
)
def test_anthropic_thinking_stands_first_before_a_text_or_call(
    blocks: list[Any], plain: bool
) -> None:
    """Signed thinking stands first in its message, before a text or a call: anywhere else the
    walk leaves the history to the full path, whatever block came before it."""
    native: dict[str, Any] = {
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": blocks},
        ],
    }
    if any(block["type"] == "tool_use" for block in blocks):
        native["messages"] += [
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "Sunny"}],
            },
            {"role": "assistant", "content": "Sunny."},
        ]
    terms = terms_for(Target.of("anthropic", None, thinking=True))
    assert terms is not None and terms.thinking
    said = anthropic._verdict(native, "anthropic", terms, [])
    assert (said == CLEAN) is plain and (said == NOT_PLAIN) is not plain
    _same_as_full_path(anthropic, anthropic.heal_anthropic, native, targets=[])


@PROPERTY
@given(anthropic_strategies, some_targets)
def test_anthropic_verdict_holds_on_the_formats_strategies(native: Any, targets: list[Any]) -> None:
    _same_as_full_path(
        anthropic, anthropic.heal_anthropic, _counted(anthropic, native), targets=targets
    )


# --- OpenAI Chat -----------------------------------------------------------------------------


def _calls(native: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        call
        for message in native
        if message["role"] == "assistant"
        for call in message.get("tool_calls") or ()
    ]


def _c_developer(draw: st.DrawFn, native: list[dict[str, Any]]) -> None:
    systems = [m for m in native if m["role"] == "system"]
    if systems:
        draw(st.sampled_from(systems))["role"] = "developer"
    else:
        native.insert(0, {"role": "developer", "content": "Be brief."})


def _c_content_beside_calls(draw: st.DrawFn, native: list[dict[str, Any]]) -> None:
    spots = [m for m in native if m["role"] == "assistant" and m.get("tool_calls")]
    if not spots:
        return
    message = draw(st.sampled_from(spots))
    change = draw(st.sampled_from(("absent", "null", "empty", "blank", "text", "parts")))
    if change == "absent":
        message.pop("content", None)
    else:
        message["content"] = {
            "null": None,
            "empty": "",
            "blank": " ",
            "text": "Let me check.",
            "parts": [{"type": "text", "text": "Let me check."}],
        }[change]


def _c_arguments(draw: st.DrawFn, native: list[dict[str, Any]]) -> None:
    calls = _calls(native)
    if not calls:
        return
    function = draw(st.sampled_from(calls))["function"]
    args = json.loads(function["arguments"]) if function["arguments"].startswith("{") else {}
    function["arguments"] = draw(
        st.sampled_from(
            (
                json.dumps(args),
                json.dumps(args, indent=2),
                json.dumps({**args, "city": "東京"}, ensure_ascii=False),
                "",
                "null",
                "[1, 2]",
                '"text"',
                "{bad json",
                '{"a": NaN}',
                '{"a": 1e999}',
                '{"a":1,"a":2}',
                "[" * 100_000,
                json.dumps(_deep(64)),
                json.dumps(_deep(65)),
            )
        )
        | st.just(None)
    )


def _c_call_shape(draw: st.DrawFn, native: list[dict[str, Any]]) -> None:
    calls = _calls(native)
    if not calls:
        return
    call = draw(st.sampled_from(calls))
    change = draw(
        st.sampled_from(
            ("no-type", "custom", "extra", "function-extra", "signature", "other-extra-content")
        )
    )
    if change == "no-type":
        del call["type"]
    elif change == "custom":
        call["type"] = "custom"
        call["custom"] = {"name": call.pop("function")["name"], "input": "text"}
    elif change == "extra":
        call["index"] = 0
    elif change == "function-extra":
        call["function"]["strict"] = True
    elif change == "signature":
        call["extra_content"] = {"google": {"thought_signature": "c2ln"}}
    else:
        call["extra_content"] = draw(
            st.sampled_from(
                (
                    {"google": {"thought_signature": "c2ln", "other": 1}},
                    {"google": {"thought_signature": None}},
                    {"google": {"thought_signature": "c2ln"}, "openai": {}},
                    {"heal": {"thought_signature": "c2ln"}},
                    {},
                )
            )
        )


def _c_tool_message(draw: st.DrawFn, native: list[dict[str, Any]]) -> None:
    spots = [i for i, m in enumerate(native) if m["role"] == "tool"]
    if not spots:
        return
    i = draw(st.sampled_from(spots))
    message = native[i]
    change = draw(st.sampled_from(("name", "other-name", "parts", "blank", "swap", "user")))
    if change == "name":
        message["name"] = next(
            (c["function"]["name"] for c in _calls(native) if c["id"] == message["tool_call_id"]),
            "x",
        )
    elif change == "other-name":
        message["name"] = "other"
    elif change == "parts":
        message["content"] = [{"type": "text", "text": str(message["content"])}]
    elif change == "blank":
        message["content"] = "\n"
    elif change == "swap" and i + 1 < len(native) and native[i + 1]["role"] == "tool":
        native[i], native[i + 1] = native[i + 1], native[i]
    elif change == "user":  # a user message between the results of one assistant message
        native.insert(i, {"role": "user", "content": "wait"})


def _c_assistant_fields(draw: st.DrawFn, native: list[dict[str, Any]]) -> None:
    spots = [m for m in native if m["role"] == "assistant"]
    if not spots:
        return
    message = draw(st.sampled_from(spots))
    field: str
    value: Any
    field, value = draw(
        st.sampled_from(
            (
                ("refusal", None),
                ("refusal", "I can't."),
                ("tool_calls", []),
                ("tool_calls", None),
                ("reasoning_content", "Thinking."),
                ("reasoning_content", ""),
                ("reasoning_content", " "),
                ("reasoning_content", "caf\u00e9 \ud800"),
                ("reasoning_content", None),
                ("reasoning_content", ["Thinking."]),
                ("reasoning", "Thinking."),
                ("reasoning_details", [{"type": "reasoning.text", "text": "Thinking."}]),
                ("both", "Thinking."),
                ("function_call", None),
                ("name", "bot"),
                ("audio", None),
            )
        )
    )
    if field == "tool_calls" and message.get("tool_calls"):
        return
    if field == "both":  # vLLM sends both; OpenRouter may send another text in each
        message["reasoning"] = value
        message["reasoning_content"] = draw(st.sampled_from((value, "Other.")))
        return
    message[field] = value


def _c_user_content(draw: st.DrawFn, native: list[dict[str, Any]]) -> None:
    users = [m for m in native if m["role"] in ("user", "system", "assistant")]
    message = draw(st.sampled_from(users))
    content = message.get("content")
    if isinstance(content, str):
        message["content"] = draw(
            st.sampled_from(
                (
                    [{"type": "text", "text": content}],
                    [{"type": "text", "text": content}, {"type": "text", "text": "more"}],
                    [{"type": "text", "text": content, "prompt_cache_breakpoint": True}],
                    [{"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}],
                    [],
                )
            )
        )
    elif message["role"] == "user":
        message["name"] = "alice"


_CHAT_EDGES = (
    _c_developer,
    _c_content_beside_calls,
    _c_arguments,
    _c_call_shape,
    _c_tool_message,
    _c_assistant_fields,
    _c_user_content,
)


@st.composite
def plain_chat(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A plain AI SDK history written as the OpenAI Chat adapter writes it, maybe with one
    native defect."""
    native: list[dict[str, Any]] = _dumped(
        draw, openai_chat.dump_messages, [{"role": "user", "content": "hi"}]
    )
    if draw(st.integers(0, 2)) == 0:
        draw(st.sampled_from(_CHAT_EDGES))(draw, native)
    return native


chat_strategies = st.one_of(
    s_chat.histories(sdk=True),
    s_chat.histories(sdk=False),
    s_chat.valid_histories(),
)


@settings(PROPERTY, max_examples=300)
@given(plain_chat(), some_targets)
def test_openai_chat_verdict_holds_on_plain_histories(native: Any, targets: list[Any]) -> None:
    _same_as_full_path(
        openai_chat, openai_chat.heal_openai_chat, _counted(openai_chat, native), targets=targets
    )


@PROPERTY
@given(chat_strategies, some_targets)
def test_openai_chat_verdict_holds_on_the_formats_strategies(
    native: Any, targets: list[Any]
) -> None:
    _same_as_full_path(
        openai_chat, openai_chat.heal_openai_chat, _counted(openai_chat, native), targets=targets
    )


# --- examples --------------------------------------------------------------------------------

# AI SDK dicts, written in each format by its adapter's dump_messages.
ANTHROPIC_PLAIN = anthropic.dump_messages(PLAIN, shape="params")
CHAT_PLAIN = openai_chat.dump_messages(PLAIN)
PYDANTIC_PLAIN = pydantic_ai.dump_messages(PLAIN)
FORMATS = [
    pytest.param(anthropic, anthropic.heal_anthropic, ANTHROPIC_PLAIN, id="anthropic"),
    pytest.param(openai_chat, openai_chat.heal_openai_chat, CHAT_PLAIN, id="openai-chat"),
    pytest.param(pydantic_ai, pydantic_ai.heal_pydantic_ai, PYDANTIC_PLAIN, id="pydantic-ai"),
]


def _refuse_to_load(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("a plainly clean history was loaded")


@pytest.mark.parametrize(("module", "heal", "native"), FORMATS)
def test_a_plain_history_comes_back_as_it_was_without_loading(
    module: ModuleType, heal: Callable[..., NativeHealResult[Any]], native: Any
) -> None:
    # Mistral wants nine-character ids, DeepSeek reasoning beside every call.
    clean = [p for p in ALL_PROVIDERS if module._plainly_clean(native, p)]
    assert set(clean) == set(ALL_PROVIDERS) - {"mistral", "deepseek"}
    seen: list[Any] = []
    with mock.patch.object(module, _LOADERS[module], _refuse_to_load):
        for provider in clean:
            result = heal(native, provider=provider, strict=True, on_repair=seen.append)
            assert result.messages is native
            assert result.repairs == () and not result.changed
    assert seen == []


@pytest.mark.parametrize(("module", "heal", "native"), FORMATS)
@pytest.mark.parametrize(
    "options",
    [
        {"policy": {"orphan-tool-call": "drop-call"}},
        {"policy": Policy(disable=["orphan-tool-call"])},
    ],
)
def test_options_the_verdict_does_not_know_take_the_full_path(
    module: ModuleType,
    heal: Callable[..., NativeHealResult[Any]],
    native: Any,
    options: dict[str, Any],
) -> None:
    asked: list[Any] = []
    name = _verdict_of(module)
    verdict = getattr(module, name)

    def spy(*args: Any) -> Any:
        asked.append(args)
        return verdict(*args)

    with mock.patch.object(module, name, spy):
        result = heal(native, **options)
    assert asked == []
    with _full_path(module):
        assert result == heal(native, **options)


# PLAIN without its last message: it ends with the model's answer, as a stored history does.
ANTHROPIC_ANSWERED = anthropic.dump_messages(PLAIN[:-1], shape="params")
ANSWERED_FORMATS = [
    pytest.param(anthropic, anthropic.heal_anthropic, ANTHROPIC_ANSWERED, id="anthropic"),
    pytest.param(
        openai_chat,
        openai_chat.heal_openai_chat,
        openai_chat.dump_messages(PLAIN[:-1]),
        id="openai",
    ),
    pytest.param(
        pydantic_ai,
        pydantic_ai.heal_pydantic_ai,
        pydantic_ai.dump_messages(PLAIN[:-1]),
        id="pydantic-ai",
    ),
]


@pytest.mark.parametrize(("module", "heal", "native"), ANSWERED_FORMATS)
def test_the_model_decides_whether_an_answer_may_end_a_plain_history(
    module: ModuleType, heal: Callable[..., NativeHealResult[Any]], native: Any
) -> None:
    # Claude Sonnet 4.5 takes a final assistant message (a prefill); Sonnet 4.6 refuses it, and
    # anthropic-assistant-prefill drops it from the request.
    with mock.patch.object(module, _LOADERS[module], _refuse_to_load):
        kept = heal(native, provider="anthropic", model="claude-sonnet-4-5")
    assert kept.messages is native and kept.repairs == ()
    refused = heal(native, provider="anthropic", model="claude-sonnet-4-6")
    assert [r.rule for r in refused.repairs] == ["anthropic-assistant-prefill"]
    assert module._plainly_clean(native, "anthropic")
    assert not module._plainly_clean(
        native, "anthropic", terms_for(Target.of("anthropic", "claude-sonnet-4-6"))
    )


@pytest.mark.parametrize(("module", "heal", "native"), FORMATS)
def test_the_tools_a_request_offers_are_read(
    module: ModuleType, heal: Callable[..., NativeHealResult[Any]], native: Any
) -> None:
    # PLAIN calls weather and search.
    target = {"provider": "anthropic", "model": "claude-sonnet-4-5", "thinking": False}
    with mock.patch.object(module, _LOADERS[module], _refuse_to_load):
        offered = heal(native, tools=["search", "weather", "other"], **target)
    assert offered.messages is native and offered.repairs == ()
    unoffered = heal(native, tools=["search"], **target)
    assert [r.rule for r in unoffered.repairs] == ["tool-not-offered"]


@pytest.mark.parametrize(("module", "heal", "native"), FORMATS)
def test_the_defaults_spelled_out_are_the_defaults(
    module: ModuleType, heal: Callable[..., NativeHealResult[Any]], native: Any
) -> None:
    # As the integrations' options hold them (HealOptions coerces the policy and the rules).
    spelled: list[dict[str, Any]] = [
        {"policy": {}, "rules": []},
        {"policy": Policy(), "rules": (), "scope": "request"},
    ]
    with mock.patch.object(module, _LOADERS[module], _refuse_to_load):
        for options in spelled:
            assert heal(native, **options).messages is native


def test_request_parameters_that_name_the_target_are_read() -> None:
    asked: list[Any] = []
    verdict = anthropic._verdict

    def spy(*args: Any) -> int:
        asked.append(args)
        return verdict(*args)

    takes = {"model": "claude-sonnet-4-5", "max_tokens": 1024, **ANTHROPIC_ANSWERED}
    refuses = {**takes, "model": "claude-sonnet-4-6"}
    with mock.patch.object(anthropic, "_verdict", spy):
        assert anthropic.heal_anthropic(takes).messages is takes
        assert [r.rule for r in anthropic.heal_anthropic(refuses).repairs] == [
            "anthropic-assistant-prefill"
        ]
    assert [args[2] for args in asked] == [
        terms_for(Target.of("anthropic", "claude-sonnet-4-5")),
        terms_for(Target.of("anthropic", "claude-sonnet-4-6")),
    ]


_ALL_ENDS = frozenset({"user", "tool", "assistant"})


@pytest.mark.parametrize("provider", ALL_PROVIDERS, ids=str)
def test_every_provider_takes_a_users_plain_images(provider: Any) -> None:
    """The walks take a user's plain images for every built-in target, as the terms of a
    provider alone (PLAIN_TERMS, the walks' default) say."""
    assert verdict_module.PLAIN_TERMS.images and verdict_module.PLAIN_TERMS.image_files
    found = terms_for(Target(provider))
    assert found is not None and found.images and found.image_files


def _unread(
    ends: frozenset[str], *, rich: bool = False, thinking: bool = True, images: bool = True
) -> Terms:
    """The terms of a plan that reads no text's and no result's options (and, unless
    ``thinking`` is false, no reasoning but as Anthropic's rules do; unless ``images`` is false,
    no user's plain image, nor one given as a file)."""
    return Terms(
        ends,
        rich=rich,
        text_options=True,
        result_options=True,
        thinking=thinking,
        images=images,
        image_files=images,
    )


@pytest.mark.parametrize(
    ("needs", "terms"),
    [
        # Harmless for a plain history; reasoning is no longer rich, texts' options still
        # unread.
        (frozenset({"reasoning"}), _unread(_ALL_ENDS, thinking=False)),
        # A rule that reads every image and file: a plain history holds none then.
        (
            frozenset({"images", "files", "late_system"}),
            _unread(_ALL_ENDS, rich=True, images=False),
        ),
        (frozenset({"unplain_images"}), _unread(_ALL_ENDS, rich=True)),
        (frozenset({"final_assistant"}), _unread(frozenset({"user", "tool"}), rich=True)),
        (frozenset({"texts"}), None),
        (frozenset({"reasoning", "calls"}), None),
        (None, None),
    ],
)
def test_what_a_rule_the_target_turns_on_needs_decides_the_terms(
    needs: frozenset[str] | None, terms: Terms | None
) -> None:
    # A rule the model turns on, beside the provider's own plan (empty here).
    rule = SimpleNamespace(id="test-by-model", needs=needs, triggers=None)

    def planned(target: Target) -> tuple[Any, ...]:
        return (rule,) if target.model is not None else ()

    with (
        mock.patch.object(verdict_module, "planned_rules", planned),
        mock.patch.dict(verdict_module._TERMS, clear=True),
    ):
        assert terms_for(Target.of("anthropic", "claude-x")) == terms
        # An empty plan reads nothing: reasoning and options are plain for it.
        assert terms_for(Target.of("anthropic")) == _unread(_ALL_ENDS, rich=True)
        tools = terms_for(Target.of("anthropic", "claude-x", tools=["search"]))
        expected = None if terms is None else replace(terms, offered=frozenset({"search"}))
        assert tools == expected


def test_the_terms_of_a_provider_say_whether_its_rules_read_reasoning_or_options() -> None:
    rich = {p for p in ALL_PROVIDERS if (terms := provider_terms(p)) is not None and terms.rich}
    assert rich == {None, "openai-chat", "mistral", "deepseek", "xai", "openai-compatible"}
    items = {p for p in ALL_PROVIDERS if (terms := provider_terms(p)) is not None and terms.items}
    assert items == {"openai-responses"}  # its item rules alone read reasoning and options
    assert provider_terms("nobody") is None and provider_terms(["anthropic"]) is None
    # Whose rules read no text's options (Anthropic's prompt-caching breakpoints stand on texts
    # and results): all but Google's and Bedrock's (a first user message of marked texts is
    # heal's placeholder to them) and the Responses API's (its item rules read the
    # assistant's); the result's options too, where a rule reads only a call's caller.
    texts = {
        p for p in ALL_PROVIDERS if (terms := provider_terms(p)) is not None and terms.text_options
    }
    assert texts == set(ALL_PROVIDERS) - {"google", "bedrock", "openai-responses"}
    results = {
        p
        for p in ALL_PROVIDERS
        if (terms := provider_terms(p)) is not None and terms.result_options
    }
    assert results == set(ALL_PROVIDERS)
    # Whose reasoning the engine's quick verdict reads, where a format's walk may not: a
    # history that walk refused is healed through heal_messages for these.
    engine = {
        p
        for p in ALL_PROVIDERS
        if (terms := provider_terms(p)) is not None and terms.engine_reasoning
    }
    assert engine == {"anthropic", "bedrock", "google", "openai-responses", "groq", "cerebras"}
    assert terms_for(Target.of("anthropic")) == replace(_unread(ENDS), engine_reasoning=True)


class _Loud(Rule):
    """Test rule: reports every history."""

    id = "test-native-loud"
    summary = "reports everything"

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        from heal import Action

        yield Finding(Action.REPORT, None, None, "seen")


@pytest.mark.parametrize(("module", "heal", "native"), FORMATS)
def test_a_registered_rule_makes_nothing_plainly_clean(
    module: ModuleType, heal: Callable[..., NativeHealResult[Any]], native: Any
) -> None:
    assert module._plainly_clean(native, None)
    register_rule(_Loud())
    try:
        assert not module._plainly_clean(native, None)
        assert [r.rule for r in heal(native, provider=None).repairs] == ["test-native-loud"]
    finally:
        default_registry.unregister(_Loud.id)
    assert module._plainly_clean(native, None)


@pytest.mark.parametrize(("module", "heal", "native"), FORMATS)
def test_an_unknown_provider_is_the_full_paths_error(
    module: ModuleType, heal: Callable[..., NativeHealResult[Any]], native: Any
) -> None:
    assert not module._plainly_clean(native, "nobody")
    with pytest.raises(ConfigError, match="unknown provider"):
        heal(native, provider="nobody")


def sdk_dump(message: dict[str, Any]) -> dict[str, Any]:
    """An assistant message as a caller stores the SDK's: ``model_dump()`` of the
    ``ChatCompletionMessage`` (every field, null ones too: refusal, annotations, audio...)."""
    from openai.types.chat import ChatCompletionMessage

    model = ChatCompletionMessage.model_validate(message)
    if model.content is not None:
        model.annotations = []  # the API answers an empty list of annotations with a text
    dumped: dict[str, Any] = model.model_dump()
    assert dumped["refusal"] is None and "annotations" in dumped and "audio" in dumped
    return dumped


def sdk_messages(native: list[dict[str, Any]]) -> list[Any]:
    """The history with its assistant messages as a caller stores the SDK's own objects
    (``messages.append(response.choices[0].message)``, as OpenAI's guide does), where the SDK
    takes them."""
    from openai.types.chat import ChatCompletionMessage
    from pydantic import ValidationError

    out: list[Any] = []
    for message in native:
        if isinstance(message, dict) and message.get("role") == "assistant":
            try:
                out.append(ChatCompletionMessage.model_validate(message))
                continue
            except ValidationError:  # a shape the SDK's model refuses: a dict, then
                pass
        out.append(message)
    return out


def _spelled(native: list[dict[str, Any]], **dumps: Any) -> list[dict[str, Any]]:
    out = copy.deepcopy(native)
    for call in _calls(out):
        call["function"]["arguments"] = json.dumps(
            json.loads(call["function"]["arguments"]), **dumps
        )
    return out


@pytest.mark.parametrize(
    "native",
    [
        pytest.param(_spelled(CHAT_PLAIN), id="python-json-dumps-arguments"),
        pytest.param(_spelled(CHAT_PLAIN, indent=2), id="indented-arguments"),
        pytest.param(
            [{**m, "role": "developer"} if m["role"] == "system" else m for m in CHAT_PLAIN],
            id="developer",
        ),
        pytest.param(
            [
                {k: v for k, v in m.items() if k != "content"} if m.get("tool_calls") else m
                for m in CHAT_PLAIN
            ],
            id="calls-without-content",
        ),
        pytest.param(
            [sdk_dump(m) if m["role"] == "assistant" else m for m in CHAT_PLAIN],
            id="sdk-model-dump",
        ),
        pytest.param(sdk_messages(CHAT_PLAIN), id="sdk-objects"),
    ],
)
def test_common_openai_chat_spellings_are_plainly_clean(native: list[dict[str, Any]]) -> None:
    assert openai_chat._plainly_clean(native, "openai-chat")
    _same_as_full_path(openai_chat, openai_chat.heal_openai_chat, native)


def test_the_benchmark_conversations_are_plainly_clean_unless_broken() -> None:
    # The benchmark's corpus (a short copy), written as benchmarks.peers writes it: every
    # conversation the full path finds nothing in is plainly clean.
    pairs: tuple[tuple[ModuleType, Callable[..., NativeHealResult[Any]], ProviderId], ...] = (
        (anthropic, anthropic.heal_anthropic, "anthropic"),
        (openai_chat, openai_chat.heal_openai_chat, "openai-chat"),
    )
    for history in (load_messages(h) for h in corpus(conversations=40, length=20)):
        natives = (
            anthropic.dump_messages(history, shape="params")["messages"],
            openai_chat.dump_messages(history),
        )
        for (module, heal, provider), native in zip(pairs, natives, strict=True):
            with _full_path(module):
                result = heal(native, provider=provider)
            assert module._plainly_clean(native, provider) == (result.repairs == ())


@pytest.mark.parametrize("provider", [None, "openai-chat", "xai", "openai-compatible"])
def test_openai_chat_reasoning_conversations_are_plainly_clean_where_no_rule_reads_it(
    provider: ProviderId | None,
) -> None:
    """The reasoning corpus written in Chat Completions carries each assistant message's
    reasoning as ``reasoning_content`` (DeepSeek's, vLLM's, Kimi's field): for a target whose
    rules read no reasoning, every conversation healed once (its ids renamed, its defects
    mended) is plainly clean, and one the full path finds something in is not."""
    clean = 0
    for raw in corpus(conversations=40, length=20, shape="reasoning"):
        history = heal_messages(raw, provider=provider).messages
        native = openai_chat.dump_messages(history)
        assert any("reasoning_content" in message for message in native)
        with _full_path(openai_chat):
            result = openai_chat.heal_openai_chat(native, provider=provider)
        terms = provider_terms(provider)
        assert terms is not None
        plainly = openai_chat._plainly_clean(native, provider, terms)
        assert plainly == (result.repairs == ())
        clean += plainly
    assert clean >= 36


def test_the_benchmark_conversations_are_plainly_clean_in_pydantic_ai_unless_broken() -> None:
    # As above, healed as a caller does (the provider the responses agree on). The corpus's
    # empty assistant message is an empty response here, which the adapter carries as
    # bookkeeping: the history is clean (conversation 3 of these has one).
    for history in (load_messages(h) for h in corpus(conversations=12, length=30)):
        native = pydantic_ai.dump_messages(history)
        with _full_path(pydantic_ai):
            result = pydantic_ai.heal_pydantic_ai(native)
        assert pydantic_ai._plainly_clean(native, pydantic_ai._ITS_OWN) == (result.repairs == ())


# --- one native defect at a time -------------------------------------------------------------
#
# Each defect, applied to the plain history above, sits at one edge of a verdict: the full path
# repairs it for some provider, raises, or takes it as it is. Whatever it does, the adapter must
# do the same under every provider (the property tests draw these too, but rarely each one).


def _put(obj: dict[str, Any], key: str, value: Any) -> None:
    obj[key] = value


def _nest(depth: int) -> dict[str, Any]:
    return _deep(depth)


Defect = Callable[[Any], object]


def _each(*defects: Defect) -> Defect:
    """One defect made of several edits, applied in order (a lambda holds one expression, and
    a list of calls that return nothing is one mypy refuses)."""

    def apply(native: Any) -> None:
        for defect in defects:
            defect(native)

    return apply


_SIGNED = {"type": "thinking", "thinking": "hm", "signature": "c2ln"}
"""A thinking block as Claude returns it: signed."""

ANTHROPIC_DEFECTS: dict[str, Defect] = {
    "system-blank": lambda n: _put(n, "system", " "),
    "system-surrogate": lambda n: _put(n, "system", "x\ud800"),
    "system-null": lambda n: _put(n, "system", None),
    "system-blocks": lambda n: _put(
        n, "system", [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    ),
    "system-empty-list": lambda n: _put(n, "system", []),
    "system-block-blank": lambda n: _put(n, "system", [{"type": "text", "text": "\n"}]),
    "system-block-surrogate": lambda n: _put(n, "system", [{"type": "text", "text": "\udfff"}]),
    "system-block-not-text": lambda n: _put(n, "system", [{"type": "document", "text": "a"}]),
    "system-block-cache-control": lambda n: _put(
        n, "system", [{"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}}]
    ),
    "system-message-in-list": lambda n: n["messages"].insert(
        0, {"role": "system", "content": n.pop("system")}
    ),
    "late-system-message": lambda n: n["messages"].insert(4, {"role": "system", "content": "x"}),
    "system-message-blocks": lambda n: n["messages"].insert(
        0, {"role": "system", "content": [{"type": "text", "text": "x"}]}
    ),
    "params-other-keys": lambda n: n.update(max_tokens=1024, temperature=0.2, stream=False),
    "params-model": lambda n: _put(n, "model", "claude-sonnet-4-5"),
    "params-thinking": lambda n: _put(n, "thinking", {"type": "enabled", "budget_tokens": 1024}),
    "params-tools": lambda n: _put(n, "tools", [{"name": "weather", "input_schema": {}}]),
    "messages-tuple": lambda n: _put(n, "messages", tuple(n["messages"])),
    "message-not-a-dict": lambda n: n["messages"].append(("user", "hi")),
    "message-extra-key": lambda n: _put(n["messages"][3], "id", "msg_1"),
    "unknown-role": lambda n: _put(n["messages"][3], "role", "model"),
    "result-missing": lambda n: n["messages"][2]["content"].pop(0),
    "result-extra": lambda n: n["messages"][2]["content"].append(
        {"type": "tool_result", "tool_use_id": "call_9", "content": "x"}
    ),
    "result-twice": lambda n: n["messages"][2]["content"].append(
        dict(n["messages"][2]["content"][0])
    ),
    "result-other-id": lambda n: _put(n["messages"][2]["content"][0], "tool_use_id", "call_9"),
    "result-id-not-a-string": lambda n: _put(n["messages"][2]["content"][0], "tool_use_id", 2),
    "result-not-a-result": lambda n: _put(
        n["messages"][2]["content"][0], "type", "web_search_tool_result"
    ),
    "result-is-error": lambda n: _put(n["messages"][2]["content"][0], "is_error", True),
    "result-is-not-error": lambda n: _put(n["messages"][2]["content"][0], "is_error", False),
    "result-error-cache-control": lambda n: n["messages"][2]["content"][0].update(
        is_error=True, cache_control={"type": "ephemeral"}
    ),
    "result-cache-control": lambda n: _put(
        n["messages"][2]["content"][0], "cache_control", {"type": "ephemeral"}
    ),
    "result-empty": lambda n: _put(n["messages"][2]["content"][0], "content", ""),
    "result-blank": lambda n: _put(n["messages"][2]["content"][0], "content", " "),
    "result-surrogate": lambda n: _put(n["messages"][2]["content"][0], "content", "\ud800"),
    "result-blocks": lambda n: _put(
        n["messages"][2]["content"][0], "content", [{"type": "text", "text": "sunny"}]
    ),
    "result-absent": lambda n: n["messages"][2]["content"][0].pop("content"),
    "results-then-text": lambda n: n["messages"][2]["content"].append(
        {"type": "text", "text": "and?"}
    ),
    "text-then-results": lambda n: n["messages"][2]["content"].insert(
        0, {"type": "text", "text": "here:"}
    ),
    "results-then-user": lambda n: n["messages"].insert(3, {"role": "user", "content": "and?"}),
    "results-late": lambda n: n["messages"].insert(2, {"role": "user", "content": "wait"}),
    "user-block-extra-key": lambda n: _put(
        n["messages"][0]["content"][0], "cache_control", {"type": "ephemeral"}
    ),
    "user-block-blank": lambda n: _put(n["messages"][0]["content"][0], "text", " "),
    "user-block-surrogate": lambda n: _put(n["messages"][0]["content"][0], "text", "\ud83d"),
    "user-block-image": lambda n: n["messages"][0]["content"].append(
        {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}
    ),
    "user-block-image-base64": lambda n: n["messages"][0]["content"].append(
        {"type": "image", "source": _png_source()}
    ),
    "user-block-image-tiff": lambda n: n["messages"][0]["content"].append(
        {"type": "image", "source": _png_source(media_type="image/tiff")}
    ),
    "user-block-image-cache-control": lambda n: n["messages"][0]["content"].append(
        {"type": "image", "source": _png_source(), "cache_control": {"type": "ephemeral"}}
    ),
    "user-block-not-text": lambda n: _put(n["messages"][0]["content"][0], "type", "document"),
    "user-blocks-empty": lambda n: _put(n["messages"][0], "content", []),
    "user-blank": lambda n: _put(n["messages"][4], "content", "\t"),
    "user-surrogate": lambda n: _put(n["messages"][4], "content", "x\udc00"),
    "user-content-null": lambda n: _put(n["messages"][4], "content", None),
    "two-users": lambda n: n["messages"].insert(0, {"role": "user", "content": "hi"}),
    "assistant-first": lambda n: n["messages"].pop(0),
    "two-assistants": lambda n: n["messages"].insert(3, {"role": "assistant", "content": "x"}),
    "trailing-assistant": lambda n: n["messages"].append({"role": "assistant", "content": "ok"}),
    "calls-unanswered-at-end": lambda n: n["messages"].__delitem__(slice(2, None)),
    "assistant-blank": lambda n: _put(n["messages"][3], "content", " "),
    "assistant-blocks-empty": lambda n: _put(n["messages"][3], "content", []),
    "text-after-call": lambda n: n["messages"][1]["content"].append(
        n["messages"][1]["content"].pop(0)
    ),
    "assistant-text-blank": lambda n: _put(n["messages"][1]["content"][0], "text", ""),
    "assistant-text-extra-key": lambda n: _put(n["messages"][1]["content"][0], "citations", None),
    "assistant-text-cache-control": lambda n: _put(
        n["messages"][1]["content"][0], "cache_control", {"type": "ephemeral", "ttl": "1h"}
    ),
    "assistant-text-null-cache-control": lambda n: _put(
        n["messages"][1]["content"][0], "cache_control", None
    ),
    "user-block-cache-control-list": lambda n: _put(
        n["messages"][0]["content"][0], "cache_control", ["ephemeral"]
    ),
    "user-block-cache-control-nan": lambda n: _put(
        n["messages"][0]["content"][0], "cache_control", {"ttl": float("nan")}
    ),
    "call-cache-control": lambda n: _put(
        n["messages"][1]["content"][1], "cache_control", {"type": "ephemeral"}
    ),
    "assistant-block-unknown": lambda n: n["messages"][1]["content"].insert(
        0, {"type": "fancy", "text": "x"}
    ),
    "thinking-signed": lambda n: n["messages"][1]["content"].insert(
        0, {"type": "thinking", "thinking": "hm", "signature": "c2ln"}
    ),
    "thinking-unsigned": lambda n: n["messages"][1]["content"].insert(
        0, {"type": "thinking", "thinking": "hm"}
    ),
    "thinking-redacted": lambda n: n["messages"][1]["content"].insert(
        0, {"type": "redacted_thinking", "data": "cmVk"}
    ),
    "thinking-empty-signature": lambda n: n["messages"][1]["content"].insert(
        0, {"type": "thinking", "thinking": "hm", "signature": ""}
    ),
    "thinking-redacted-empty": lambda n: n["messages"][1]["content"].insert(
        0, {"type": "redacted_thinking", "data": ""}
    ),
    "thinking-after-text": lambda n: n["messages"][1]["content"].insert(1, dict(_SIGNED)),
    "thinking-only-message": lambda n: n["messages"].insert(
        3, {"role": "assistant", "content": [dict(_SIGNED)]}
    ),
    "thinking-only-answer": lambda n: _put(n["messages"][3], "content", [dict(_SIGNED)]),
    "thinking-trailing": lambda n: _put(
        n["messages"][3], "content", [{"type": "text", "text": "Sunny."}, dict(_SIGNED)]
    ),
    "thinking-open-loop": lambda n: (
        n["messages"][1]["content"].insert(0, dict(_SIGNED)),
        n["messages"].__delitem__(slice(3, None)),
    ),
    "thinking-open-loop-unthought": lambda n: (
        n["messages"][1]["content"].insert(0, dict(_SIGNED)),
        n["messages"].extend(
            [
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "call_3", "name": "f", "input": {}}],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "call_3", "content": "x"}],
                },
            ]
        ),
    ),
    "server-tool": lambda n: n["messages"][1]["content"].insert(
        1,
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
    ),
    "call-extra-key": lambda n: _put(n["messages"][1]["content"][1], "caller", {"type": "direct"}),
    "call-no-input": lambda n: n["messages"][1]["content"][1].pop("input"),
    "call-id-not-a-string": lambda n: _put(n["messages"][1]["content"][1], "id", 1),
    "call-name-not-a-string": lambda n: _put(n["messages"][1]["content"][1], "name", None),
    "call-input-string": lambda n: _put(n["messages"][1]["content"][1], "input", '{"a": 1}'),
    "call-input-list": lambda n: _put(n["messages"][1]["content"][1], "input", [1]),
    "call-input-nested-64": lambda n: _put(n["messages"][1]["content"][1], "input", _nest(64)),
    "call-input-nested-65": lambda n: _put(n["messages"][1]["content"][1], "input", _nest(65)),
    "call-input-nested-300": lambda n: _put(n["messages"][1]["content"][1], "input", _nest(300)),
    "call-input-nan": lambda n: _put(n["messages"][1]["content"][1], "input", {"a": float("nan")}),
    "call-input-tuple": lambda n: _put(n["messages"][1]["content"][1], "input", {"a": (1, 2)}),
    "call-input-int-key": lambda n: _put(n["messages"][1]["content"][1], "input", {1: "a"}),
    "call-input-datetime": lambda n: _put(
        n["messages"][1]["content"][1], "input", {"at": datetime(2026, 1, 1)}
    ),
    "call-input-decimal": lambda n: _put(
        n["messages"][1]["content"][1], "input", {"a": [Decimal("1.5")]}
    ),
    "call-name-dotted": lambda n: _put(n["messages"][1]["content"][1], "name", "get.weather"),
    "call-name-digit-first": lambda n: _put(n["messages"][1]["content"][1], "name", "1weather"),
    "call-id-long": lambda n: _put(n["messages"][1]["content"][1], "id", "c" * 65),
    "call-id-shared": lambda n: _put(n["messages"][1]["content"][2], "id", "call_1"),
}
"""Native Anthropic defects, applied to the params form of ``PLAIN``: messages[1] holds the
text and two calls, messages[2] the two results."""

ANTHROPIC_CLEAN = {
    "system-blocks",
    "user-block-image",  # a URL image: a user's plain image, which no rule reads
    "user-block-image-base64",
    "params-other-keys",
    "result-is-error",
    "call-input-nested-64",
    "call-name-digit-first",  # only Gemini refuses it
    "system-message-in-list",
    "assistant-text-extra-key",  # a null citations, as the model_dump() of an SDK block writes
    "trailing-assistant",  # a stored history ends with the model's answer
    "params-model",  # Claude Sonnet 4.5 takes the plain shapes (and a prefill)
    "params-thinking",  # a history without reasoning may go to a thinking request
    # Prompt-caching breakpoints: options no rule of Anthropic's reads, on a text or a result
    "system-block-cache-control",
    "user-block-extra-key",
    "assistant-text-cache-control",
    "assistant-text-null-cache-control",  # a null extra, kept as citations=None is
    "result-cache-control",
    "result-error-cache-control",
    # Signed thinking first in a message of a closed loop: what Claude's extended thinking
    # stores, which Anthropic's rules keep
    "thinking-signed",
    "thinking-redacted",
    "thinking-open-loop",  # the loop's message starts with signed thinking
}
"""The defects that are no defect for Anthropic: still plainly clean. (``params-tools`` offers
``weather`` alone, and the history calls ``search`` too: ``tool-not-offered``.)"""


def sdk_blocks(native: dict[str, Any]) -> dict[str, Any]:
    """Anthropic request parameters whose assistant blocks are stored as a caller stores the
    SDK's: ``model_dump()`` of each ``TextBlock`` and ``ToolUseBlock`` (null ``citations``,
    ``caller``, ``toolset_name``)."""
    from anthropic.types import TextBlock, ToolUseBlock

    out = copy.deepcopy(native)
    for message in out["messages"]:
        if message["role"] == "assistant" and isinstance(message["content"], list):
            message["content"] = [
                (TextBlock if block["type"] == "text" else ToolUseBlock)
                .model_validate(block)
                .model_dump()
                for block in message["content"]
            ]
    return out


def sdk_block_objects(native: dict[str, Any]) -> dict[str, Any]:
    """Anthropic request parameters whose assistant content is the SDK's own blocks, as a
    caller stores ``response.content`` (Anthropic's guide does), where the SDK takes them."""
    from anthropic.types import TextBlock, ToolUseBlock
    from pydantic import BaseModel, ValidationError

    models: dict[str, type[BaseModel]] = {"text": TextBlock, "tool_use": ToolUseBlock}
    out = copy.deepcopy(native)
    for message in out["messages"]:
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        content = message.get("content")
        if not isinstance(content, list):
            continue
        blocks: list[Any] = []
        for block in content:
            model: type[BaseModel] | None = None
            kind = block.get("type") if isinstance(block, dict) else None
            if isinstance(kind, str):
                model = models.get(kind)
            try:
                blocks.append(block if model is None else model.model_validate(block))
            except ValidationError:  # a shape the SDK's model refuses: a dict, then
                blocks.append(block)
        message["content"] = blocks
    return out


def test_anthropic_sdk_block_dumps_are_plainly_clean() -> None:
    native = sdk_blocks(ANTHROPIC_PLAIN)
    blocks = native["messages"][1]["content"]
    assert blocks[0]["citations"] is None and len(blocks[1]) > 4  # the SDK's null fields
    assert anthropic._plainly_clean(native, "anthropic")
    assert "anthropic" in _same_as_full_path(anthropic, anthropic.heal_anthropic, native)
    objects = sdk_block_objects(ANTHROPIC_PLAIN)
    assert not isinstance(objects["messages"][1]["content"][0], dict)
    assert anthropic._plainly_clean(objects, "anthropic")
    assert "anthropic" in _same_as_full_path(anthropic, anthropic.heal_anthropic, objects)


@pytest.mark.parametrize("block", ANTHROPIC_IMAGES, ids=lambda b: json.dumps(b)[:60])
def test_the_anthropic_walk_takes_only_images_that_load_plain(block: dict[str, Any]) -> None:
    """The walk takes an image block only where it loads as a plain image: the first two of
    ANTHROPIC_IMAGES (and a URL's, the user blocks' own), none of the others (data of another
    kind loads plain too, marked, but the walk does not read that far)."""
    loaded = anthropic.load_messages([{"role": "user", "content": [block]}])
    content = loaded[0].content
    assert not isinstance(content, str) and len(content) == 1
    taken = anthropic._plain_image(block)
    assert not taken or plain_image(content[0])
    assert taken == (ANTHROPIC_IMAGES.index(block) < 2)


@pytest.mark.parametrize("defect", sorted(ANTHROPIC_DEFECTS))
def test_one_anthropic_defect(defect: str) -> None:
    native = copy.deepcopy(ANTHROPIC_PLAIN)
    ANTHROPIC_DEFECTS[defect](native)
    plain = _same_as_full_path(anthropic, anthropic.heal_anthropic, native)
    assert ("anthropic" in plain) == (defect in ANTHROPIC_CLEAN)


def _call_at(n: list[dict[str, Any]], k: int = 0) -> dict[str, Any]:
    return n[2]["tool_calls"][k]  # type: ignore[no-any-return]


def _args(n: list[dict[str, Any]], text: Any) -> None:
    _call_at(n)["function"]["arguments"] = text


CHAT_DEFECTS: dict[str, Defect] = {
    "developer": lambda n: _put(n[0], "role", "developer"),
    "system-parts": lambda n: _put(n[0], "content", [{"type": "text", "text": "a"}]),
    "system-blank": lambda n: _put(n[0], "content", ""),
    "system-surrogate": lambda n: _put(n[0], "content", "\ud800"),
    "system-extra-key": lambda n: _put(n[0], "name", "rules"),
    "late-system": lambda n: n.insert(5, {"role": "system", "content": "x"}),
    "user-parts-two": lambda n: n[1]["content"].append({"type": "text", "text": "more"}),
    "user-part-extra-key": lambda n: _put(n[1]["content"][0], "prompt_cache_breakpoint", True),
    "user-part-blank": lambda n: _put(n[1]["content"][0], "text", " "),
    "user-part-image": lambda n: n[1]["content"].append(
        {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}
    ),
    "user-part-image-data-url": lambda n: n[1]["content"].append(
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    ),
    "user-part-image-detail": lambda n: n[1]["content"].append(
        {"type": "image_url", "image_url": {"url": "https://example.com/a.png", "detail": "low"}}
    ),
    "user-part-image-raw": lambda n: n[1]["content"].append(
        {"type": "image_url", "image_url": {"url": "iVBORw0KGgo="}}
    ),
    "user-part-image-file-id": lambda n: n[1]["content"].append(
        {"type": "image_url", "image_url": {"url": "file-6F2ksmvXxt4Vdo"}}
    ),
    "user-part-image-extra": lambda n: n[1]["content"].append(
        {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}, "x": 1}
    ),
    "user-part-not-text": lambda n: _put(n[1]["content"][0], "type", "refusal"),
    "user-parts-empty": lambda n: _put(n[1], "content", []),
    "user-name": lambda n: _put(n[6], "name", "alice"),
    "user-blank": lambda n: _put(n[6], "content", " "),
    "user-content-null": lambda n: _put(n[6], "content", None),
    "message-not-a-dict": lambda n: n.append(("user", "hi")),
    "unknown-role": lambda n: _put(n[5], "role", "model"),
    "two-users": lambda n: n.insert(1, {"role": "user", "content": "hi"}),
    "assistant-first": lambda n: n.pop(1),
    "two-assistants": lambda n: n.insert(5, {"role": "assistant", "content": "x"}),
    "trailing-assistant": lambda n: n.append({"role": "assistant", "content": "ok"}),
    "calls-unanswered-at-end": lambda n: n.__delitem__(slice(3, None)),
    "call-answered-at-end-only": lambda n: n.__delitem__(slice(4, None)),
    "results-swapped": lambda n: n.insert(4, n.pop(3)),
    "result-missing": lambda n: n.pop(3),
    "result-twice": lambda n: n.insert(4, dict(n[3])),
    "result-other-id": lambda n: _put(n[3], "tool_call_id", "call_9"),
    "result-id-not-a-string": lambda n: _put(n[3], "tool_call_id", 2),
    "result-without-calls": lambda n: n.insert(6, {**n[3]}),
    "result-name": lambda n: _put(n[3], "name", "search"),
    "result-other-name": lambda n: _put(n[3], "name", "other"),
    "result-blank": lambda n: _put(n[3], "content", "\n"),
    "result-empty": lambda n: _put(n[3], "content", ""),
    "result-surrogate": lambda n: _put(n[3], "content", "\udfff"),
    "result-parts": lambda n: _put(n[3], "content", [{"type": "text", "text": "x"}]),
    "user-between-results": lambda n: n.insert(4, {"role": "user", "content": "and?"}),
    "user-after-results": lambda n: n.insert(5, {"role": "user", "content": "and?"}),
    "assistant-content-absent": lambda n: n[2].pop("content"),
    "assistant-content-null": lambda n: _put(n[2], "content", None),
    "assistant-content-empty": lambda n: _put(n[2], "content", ""),
    "assistant-content-blank": lambda n: _put(n[2], "content", " "),
    "assistant-content-parts": lambda n: _put(n[2], "content", [{"type": "text", "text": "a"}]),
    "assistant-content-refusal-part": lambda n: _put(
        n[2], "content", [{"type": "refusal", "refusal": "no"}]
    ),
    "answer-parts": lambda n: _put(n[5], "content", [{"type": "text", "text": "Sunny."}]),
    "answer-null": lambda n: _put(n[5], "content", None),
    "answer-absent": lambda n: n[5].pop("content"),
    "answer-refusal-null": lambda n: _put(n[5], "refusal", None),
    "answer-refusal": lambda n: _put(n[5], "refusal", "I can't."),
    "answer-reasoning": lambda n: _put(n[5], "reasoning_content", "Thinking."),
    "answer-name": lambda n: _put(n[5], "name", "bot"),
    "answer-calls-empty": lambda n: _put(n[5], "tool_calls", []),
    "answer-calls-null": lambda n: _put(n[5], "tool_calls", None),
    "answer-function-call-null": lambda n: _put(n[5], "function_call", None),
    "calls-not-a-list": lambda n: _put(n[2], "tool_calls", {"0": _call_at(n)}),
    "call-no-type": lambda n: _call_at(n).pop("type"),
    "call-custom": lambda n: n[2].update(
        tool_calls=[
            {"id": "call_1", "type": "custom", "custom": {"name": "weather", "input": "x"}},
            _call_at(n, 1),
        ]
    ),
    "call-other-type": lambda n: _put(_call_at(n), "type", "tool"),
    "call-extra-key": lambda n: _put(_call_at(n), "index", 0),
    "call-signature": lambda n: _put(
        _call_at(n), "extra_content", {"google": {"thought_signature": "c2ln"}}
    ),
    "call-id-not-a-string": lambda n: _put(_call_at(n), "id", 1),
    "call-function-extra-key": lambda n: _put(_call_at(n)["function"], "strict", True),
    "call-function-not-a-dict": lambda n: _put(_call_at(n), "function", ["weather", "{}"]),
    "call-name-not-a-string": lambda n: _put(_call_at(n)["function"], "name", None),
    "call-name-dotted": lambda n: _put(_call_at(n)["function"], "name", "get.weather"),
    "call-name-digit-first": lambda n: _put(_call_at(n)["function"], "name", "1weather"),
    "call-id-long": _each(
        lambda n: _put(_call_at(n), "id", "c" * 41),
        lambda n: _put(n[4], "tool_call_id", "c" * 41),
    ),
    "call-id-shared": _each(
        lambda n: _put(_call_at(n, 1), "id", "call_1"),
        lambda n: _put(n[3], "tool_call_id", "call_1"),
    ),
    "arguments-spaced": lambda n: _args(n, '{"city": "Paris"}'),
    "arguments-indented": lambda n: _args(n, '{\n  "city": "Paris"\n}'),
    "arguments-ascii": lambda n: _args(n, '{"city": "\\u6771\\u4eac"}'),
    "arguments-empty": lambda n: _args(n, ""),
    "arguments-null": lambda n: _args(n, "null"),
    "arguments-array": lambda n: _args(n, "[1, 2]"),
    "arguments-string": lambda n: _args(n, '"Paris"'),
    "arguments-invalid": lambda n: _args(n, '{"city": '),
    "arguments-nan": lambda n: _args(n, '{"a": NaN}'),
    "arguments-huge": lambda n: _args(n, '{"a": 1e999}'),
    "arguments-too-deep-to-parse": lambda n: _args(n, "[" * 100_000),
    "arguments-nested-64": lambda n: _args(n, json.dumps(_nest(64))),
    "arguments-nested-65": lambda n: _args(n, json.dumps(_nest(65))),
    "arguments-object": lambda n: _args(n, {"city": "Paris"}),
    "arguments-absent": lambda n: _call_at(n)["function"].pop("arguments"),
}
"""Native OpenAI Chat defects, applied to ``PLAIN`` as the adapter writes it: messages[2] holds
the text and two calls, messages[3] and [4] the results (of the second call, then the first),
messages[5] the answer."""

CHAT_CLEAN = {
    "developer",
    "user-part-image",  # a URL image: a user's plain image, which no rule reads
    "user-part-image-data-url",
    "user-part-image-detail",
    "user-parts-two",
    "results-swapped",
    "assistant-content-absent",
    "assistant-content-null",
    "assistant-content-parts",
    "answer-parts",
    # Null fields beside the text, as the model_dump() of an SDK message writes them (null
    # calls alone beside the content are left to the full path).
    "answer-refusal-null",
    "answer-function-call-null",
    "trailing-assistant",  # a stored history ends with the model's answer
    "arguments-spaced",
    "arguments-indented",
    "arguments-ascii",
    "arguments-nested-64",
    "call-name-digit-first",  # only Gemini refuses it
    # No rule of OpenAI Chat's plan reads reasoning or provider options: the reasoning an
    # OpenAI-compatible server returns, and Gemini's signature on a call, load as they are.
    "answer-reasoning",
    "call-signature",
}
"""The defects that are no defect for OpenAI Chat: still plainly clean."""


@pytest.mark.parametrize("defect", sorted(CHAT_DEFECTS))
def test_one_openai_chat_defect(defect: str) -> None:
    native = copy.deepcopy(CHAT_PLAIN)
    CHAT_DEFECTS[defect](native)
    plain = _same_as_full_path(openai_chat, openai_chat.heal_openai_chat, native)
    assert ("openai-chat" in plain) == (defect in CHAT_CLEAN)


# --- pydantic-ai -----------------------------------------------------------------------------

PYDANTIC_PROVIDERS: list[Any] = ["auto", *ALL_PROVIDERS]
"""heal_pydantic_ai's own default, ``"auto"``, and every provider id and None."""


@dataclass(repr=False)
class _Note(pa.SystemPromptPart):
    """Test part: a subclass of a part the verdict knows (pydantic-ai has its own)."""


def _request(n: list[Any], i: int) -> list[Any]:
    return n[i].parts  # type: ignore[no-any-return]


class _NotHere(IndexError):
    """A defect's place is not in this history: no such message or part, or one of another
    class (a defect sets the fields of the class it names, so as not to make an object that
    pydantic-ai itself would refuse)."""


def _message(n: list[Any], i: int, cls: type) -> Any:
    message = n[i]
    if type(message) is not cls:
        raise _NotHere(f"messages[{i}] is not a {cls.__name__}")
    return message


def _part(n: list[Any], i: int, j: int, cls: type) -> Any:
    part = _request(n, i)[j]
    if type(part) is not cls:
        raise _NotHere(f"messages[{i}].parts[{j}] is not a {cls.__name__}")
    return part


PYDANTIC_IMAGES: list[Any] = [
    pa.ImageUrl(url="https://example.com/a.png"),
    pa.ImageUrl(url="https://example.com/a.png", identifier="x1", force_download=True),
    pa.BinaryContent(data=b"\x89PNG", media_type="image/png"),
    pa.BinaryImage(data=b"\xff\xd8\xff", media_type="image/jpeg"),
    pa.ImageUrl(url="https://example.com/a.tiff"),
    pa.BinaryContent(data=b"\x89PNG", media_type="image/tiff"),
    pa.BinaryContent(data=b"", media_type="image/png"),
    pa.ImageUrl(url="file-6F2ksmvXxt4Vdo", media_type="image/png"),
    pa.DocumentUrl(url="https://example.com/a.pdf"),
]
"""A user's images: four that load as plain ones (a URL, one with the fields pydantic-ai
keeps in heal's marks, PNG and JPEG bytes), then a TIFF URL and bytes, no data, a name of a
file stored at OpenAI, and a document."""
_PLAIN_PYDANTIC_IMAGES = range(4)

PYDANTIC_DEFECTS: dict[str, Defect] = {
    "system-blank": lambda n: _set(_part(n, 0, 0, pa.SystemPromptPart), content=" "),
    "system-surrogate": lambda n: _set(_part(n, 0, 0, pa.SystemPromptPart), content="x\ud800"),
    "system-after-user": lambda n: _request(n, 0).reverse(),
    "system-subclass": lambda n: _request(n, 0).__setitem__(
        0, _Note(content="You are a helpful assistant.")
    ),
    "user-string": lambda n: _set(_part(n, 0, 1, pa.UserPromptPart), content="weather in Paris?"),
    "user-two-items": lambda n: _set(_part(n, 0, 1, pa.UserPromptPart), content=["a", "b"]),
    "user-tuple": lambda n: _set(_part(n, 0, 1, pa.UserPromptPart), content=("a",)),
    "user-items-empty": lambda n: _set(_part(n, 0, 1, pa.UserPromptPart), content=[]),
    "user-item-blank": lambda n: _set(_part(n, 0, 1, pa.UserPromptPart), content=["a", " "]),
    "user-image": lambda n: _set(
        _part(n, 0, 1, pa.UserPromptPart),
        content=["a", pa.ImageUrl(url="https://example.com/a.png")],
    ),
    **{
        f"user-image-{k}": partial(
            lambda item, n: _set(_part(n, 0, 1, pa.UserPromptPart), content=["a", item]), item
        )
        for k, item in enumerate(PYDANTIC_IMAGES)
    },
    "two-user-prompts": lambda n: _request(n, 0).append(pa.UserPromptPart(content="and?")),
    "request-empty": lambda n: n.insert(1, pa.ModelRequest(parts=[])),
    "request-instructions": lambda n: _set(
        _message(n, 4, pa.ModelRequest), instructions="Be brief."
    ),
    "returns-with-prompt": lambda n: _request(n, 2).append(pa.UserPromptPart(content="and?")),
    "return-missing": lambda n: _request(n, 2).pop(0),
    "return-extra": lambda n: _request(n, 2).append(
        pa.ToolReturnPart(tool_name="search", content="x", tool_call_id="call_9")
    ),
    "return-other-id": lambda n: _set(_part(n, 2, 1, pa.ToolReturnPart), tool_call_id="call_9"),
    "return-other-name": lambda n: _set(_part(n, 2, 1, pa.ToolReturnPart), tool_name="other"),
    "return-blank": lambda n: _set(_part(n, 2, 1, pa.ToolReturnPart), content=" "),
    "return-surrogate": lambda n: _set(_part(n, 2, 1, pa.ToolReturnPart), content="\udfff"),
    "return-json-nan": lambda n: _set(
        _part(n, 2, 1, pa.ToolReturnPart), content={"t": float("nan")}
    ),
    "return-json-datetime": lambda n: _set(
        _part(n, 2, 1, pa.ToolReturnPart), content={"at": datetime(2026, 1, 1)}
    ),
    "return-json-nested-65": lambda n: _set(_part(n, 2, 1, pa.ToolReturnPart), content=_nest(65)),
    "return-file": lambda n: _set(
        _part(n, 2, 1, pa.ToolReturnPart), content=pa.ImageUrl(url="https://example.com/a.png")
    ),
    "return-failed": lambda n: _set(_part(n, 2, 1, pa.ToolReturnPart), outcome="failed"),
    "return-denied": lambda n: _set(_part(n, 2, 1, pa.ToolReturnPart), outcome="denied"),
    "return-retry-prompt": lambda n: _request(n, 2).__setitem__(
        1, pa.RetryPromptPart(content="bad", tool_name="weather", tool_call_id="call_1")
    ),
    "return-metadata": lambda n: _set(
        _part(n, 2, 1, pa.ToolReturnPart), metadata={"source": "cache"}
    ),
    "response-empty": lambda n: n.insert(1, pa.ModelResponse(parts=[])),
    "response-empty-between-prompts": lambda n: n.extend(
        [pa.ModelResponse(parts=[]), pa.ModelRequest(parts=[pa.UserPromptPart("more")])]
    ),
    "request-bookkeeping-only": lambda n: n.__setitem__(
        slice(4, 4),
        [
            pa.ModelRequest(parts=[pa.ToolAvailabilityDeltaPart(tools_added=["search"])]),
            pa.ModelResponse(parts=[pa.TextPart("More.")]),
        ],
    ),
    "response-interrupted": lambda n: _set(_message(n, 1, pa.ModelResponse), state="interrupted"),
    "response-length": lambda n: _set(_message(n, 1, pa.ModelResponse), finish_reason="length"),
    "response-stop": lambda n: _set(
        _message(n, 3, pa.ModelResponse), finish_reason="stop", model_name="gpt-5"
    ),
    "response-provider": lambda n: _set(
        _message(n, 1, pa.ModelResponse), provider_name="openai", model_name="gpt-5.1"
    ),
    "two-responses": lambda n: n.insert(4, pa.ModelResponse(parts=[pa.TextPart("x")])),
    "response-first": lambda n: n.pop(0),
    "trailing-response": lambda n: n.append(pa.ModelResponse(parts=[pa.TextPart("ok")])),
    "calls-unanswered-at-end": lambda n: n.__delitem__(slice(2, None)),
    "text-after-call": lambda n: _request(n, 1).append(_request(n, 1).pop(0)),
    "text-blank": lambda n: _set(_part(n, 1, 0, pa.TextPart), content=""),
    "text-id": lambda n: _set(_part(n, 1, 0, pa.TextPart), id="msg_1", provider_name="openai"),
    "text-details": lambda n: _set(
        _part(n, 1, 0, pa.TextPart), provider_details={"thought_signature": "c2ln"}
    ),
    "thinking": lambda n: _request(n, 1).insert(0, pa.ThinkingPart(content="hm")),
    # Reasoning is plain before a response's calls, beside a text or a call, as the AI SDK
    # verdict takes it; after them, or last, it is left to the full path.
    "thinking-after-call": lambda n: _request(n, 1).insert(2, pa.ThinkingPart(content="hm")),
    "thinking-last": lambda n: _request(n, 3).append(pa.ThinkingPart(content="hm")),
    "thinking-details-tuple": lambda n: _request(n, 1).insert(
        0, pa.ThinkingPart(content="hm", provider_details={"a": (1, 2)})
    ),
    "call-args-json": lambda n: _set(_part(n, 1, 1, pa.ToolCallPart), args='{"city": "Paris"}'),
    "call-args-none": lambda n: _set(_part(n, 1, 1, pa.ToolCallPart), args=None),
    "call-args-blank": lambda n: _set(_part(n, 1, 1, pa.ToolCallPart), args=" "),
    "call-args-invalid": lambda n: _set(_part(n, 1, 1, pa.ToolCallPart), args='{"city": '),
    "call-args-array": lambda n: _set(_part(n, 1, 1, pa.ToolCallPart), args="[1]"),
    "call-args-too-deep-to-parse": lambda n: _set(
        _part(n, 1, 1, pa.ToolCallPart), args="[" * 100_000
    ),
    "call-args-nan": lambda n: _set(_part(n, 1, 1, pa.ToolCallPart), args={"a": float("nan")}),
    "call-args-tuple": lambda n: _set(_part(n, 1, 1, pa.ToolCallPart), args={"a": (1, 2)}),
    "call-id": lambda n: _set(_part(n, 1, 1, pa.ToolCallPart), id="fc_1", provider_name="openai"),
    "call-details": lambda n: _set(
        _part(n, 1, 1, pa.ToolCallPart), provider_details={"thought_signature": "c2ln"}
    ),
    "call-details-tuple": lambda n: _set(
        _part(n, 1, 1, pa.ToolCallPart), provider_details={"thought_signature": ("c2ln",)}
    ),
    "call-name-dotted": _each(
        lambda n: _set(_part(n, 1, 1, pa.ToolCallPart), tool_name="get.weather"),
        lambda n: _set(_part(n, 2, 1, pa.ToolReturnPart), tool_name="get.weather"),
    ),
    "call-id-shared": _each(
        lambda n: _set(_part(n, 1, 2, pa.ToolCallPart), tool_call_id="call_1"),
        lambda n: _set(_part(n, 2, 0, pa.ToolReturnPart), tool_call_id="call_1"),
    ),
    "message-not-a-model": lambda n: n.append({"role": "user", "content": "hi"}),
}
"""Native pydantic-ai defects, applied to ``PLAIN`` as the adapter writes it: messages[0] holds
the system and user prompts, messages[1] the text and two calls, messages[2] their returns (a
JSON one, then a string one)."""

PYDANTIC_CLEAN = {
    "user-string",
    # A user's plain images, which no rule reads.
    "user-image",
    *(f"user-image-{k}" for k in range(len(PYDANTIC_IMAGES)) if k in _PLAIN_PYDANTIC_IMAGES),
    "user-two-items",
    "request-instructions",
    "return-failed",
    "return-metadata",
    "response-stop",
    "response-provider",
    "call-args-json",
    "call-args-none",
    "call-args-blank",
    "trailing-response",  # a stored history ends with the model's answer
    "request-empty",  # no part: carried beside the next message, as bookkeeping is
    "response-empty",
    # The responses name no provider: "auto" heals for None, whose rules read neither
    # reasoning nor provider options (Terms.rich).
    "text-id",
    "text-details",
    "thinking",
    "call-id",
    "call-details",
}
"""The defects that are no defect: still plainly clean under heal_pydantic_ai's default
(``provider="auto"``)."""


def _set(obj: Any, **values: Any) -> None:
    for key, value in values.items():
        setattr(obj, key, value)


def test_a_plain_pydantic_ai_history_comes_back_as_it_was_without_loading() -> None:
    native = copy.deepcopy(PYDANTIC_PLAIN)
    plain = _same_as_full_path(
        pydantic_ai, pydantic_ai.heal_pydantic_ai, native, PYDANTIC_PROVIDERS
    )
    assert plain == set(PYDANTIC_PROVIDERS) - {"mistral", "deepseek"}


@pytest.mark.parametrize("defect", sorted(PYDANTIC_DEFECTS))
def test_one_pydantic_ai_defect(defect: str) -> None:
    native = copy.deepcopy(PYDANTIC_PLAIN)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PydanticAIDeprecationWarning)
        PYDANTIC_DEFECTS[defect](native)
        plain = _same_as_full_path(
            pydantic_ai, pydantic_ai.heal_pydantic_ai, native, PYDANTIC_PROVIDERS
        )
    assert ("auto" in plain) == (defect in PYDANTIC_CLEAN)


@st.composite
def plain_pydantic_ai(draw: st.DrawFn) -> list[Any]:
    """A plain AI SDK history written as the pydantic-ai adapter writes it, maybe with one
    native defect."""
    native: list[Any] = _dumped(draw, pydantic_ai.dump_messages, PYDANTIC_PLAIN)
    if draw(st.integers(0, 2)) == 0:
        with suppress(IndexError):  # the defect's place may not be in this history
            PYDANTIC_DEFECTS[draw(st.sampled_from(sorted(PYDANTIC_DEFECTS)))](native)
    return native


@settings(PROPERTY, max_examples=200)
@given(plain_pydantic_ai(), some_targets)
def test_pydantic_ai_verdict_holds_on_plain_histories(native: Any, targets: list[Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PydanticAIDeprecationWarning)
        _same_as_full_path(
            pydantic_ai,
            pydantic_ai.heal_pydantic_ai,
            _counted(pydantic_ai, native),
            PYDANTIC_PROVIDERS,
            targets,
        )


@PROPERTY
@given(s_pydantic_ai.histories(), some_targets)
def test_pydantic_ai_verdict_holds_on_the_formats_strategies(
    native: Any, targets: list[Any]
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PydanticAIDeprecationWarning)
        _same_as_full_path(
            pydantic_ai,
            pydantic_ai.heal_pydantic_ai,
            _counted(pydantic_ai, native),
            PYDANTIC_PROVIDERS,
            targets,
        )


@st.composite
def with_empty_messages(draw: st.DrawFn) -> list[Any]:
    """A plain pydantic-ai history with one to three messages without parts anywhere in it:
    requests and responses (those maybe cut off, or of a named provider), alone or in a row,
    between a call and its return, first or last. The loader carries each beside a
    neighbour, so the verdict passes them over: the full path must agree wherever they sit."""
    native: list[Any] = _dumped(draw, pydantic_ai.dump_messages, PYDANTIC_PLAIN)
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            empty: Any = pa.ModelRequest(parts=[])
        else:
            empty = pa.ModelResponse(
                parts=[],
                state=draw(st.sampled_from(["complete", "interrupted"])),
                finish_reason=draw(st.sampled_from([None, "stop", "length"])),
                provider_name=draw(st.sampled_from([None, "openai", "anthropic"])),
            )
        native.insert(draw(st.integers(0, len(native))), empty)
    return native


@settings(PROPERTY, max_examples=200)
@given(with_empty_messages(), some_targets)
def test_pydantic_ai_verdict_holds_with_empty_messages_anywhere(
    native: Any, targets: list[Any]
) -> None:
    _same_as_full_path(
        pydantic_ai,
        pydantic_ai.heal_pydantic_ai,
        _counted(pydantic_ai, native),
        PYDANTIC_PROVIDERS,
        targets,
    )


@pytest.mark.parametrize(
    ("module", "walk", "dump"),
    [
        pytest.param(
            anthropic,
            "_plain_messages",
            lambda h: anthropic.dump_messages(h, shape="params"),
            id="anthropic",
        ),
        pytest.param(openai_chat, "_plain_messages", openai_chat.dump_messages, id="openai-chat"),
        pytest.param(pydantic_ai, "_plain_messages", pydantic_ai.dump_messages, id="pydantic-ai"),
        pytest.param(langchain, "_plain_messages", langchain.dump_messages, id="langchain"),
        pytest.param(gemini, "_plain_contents", gemini.dump_messages, id="gemini"),
        pytest.param(
            openai_responses, "_plain_items", openai_responses.dump_messages, id="responses"
        ),
    ],
)
def test_the_walk_stops_at_a_call_id_no_provider_takes(
    module: ModuleType, walk: str, dump: Callable[[Any], Any]
) -> None:
    """A history that went through Kimi's server has ids no provider takes (every one is
    renamed): the format's walk refuses it at the first such call, as heal_json's and the
    engine's walks do, rather than reading the rest and judging the ids at the end."""
    real = getattr(module, walk)
    seen: list[tuple[Any, list[str]]] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        last = real(*args, **kwargs)
        seen.append((last, list(args[-2])))  # every walk ends with (..., ids, names)
        return last

    with mock.patch.object(module, walk, spy):
        assert module._plainly_clean(dump(PLAIN), None)
        assert not module._plainly_clean(dump(kimi_ids(PLAIN)), None)
    assert seen == [("user", ["call_1", "call_2"]), (None, [])]


def test_no_provider_takes_a_call_id_with_a_colon() -> None:
    """What the walks' early refusal rests on (refusing is exact either way: this is speed)."""
    for provider in ALL_PROVIDERS:
        profile = get_profile(provider)
        assert not profile.accepts_tool_call_id("functions.search:3")
        assert not profile.valid_tool_call_id("call:1")


_HEALS: list[Any] = [
    pytest.param(
        anthropic.heal_anthropic,
        lambda h: anthropic.dump_messages(h, shape="params"),
        "anthropic",
        id="anthropic",
    ),
    pytest.param(openai_chat.heal_openai_chat, openai_chat.dump_messages, None, id="openai-chat"),
    pytest.param(pydantic_ai.heal_pydantic_ai, pydantic_ai.dump_messages, None, id="pydantic-ai"),
    pytest.param(langchain.heal_langchain, langchain.dump_messages, None, id="langchain"),
    pytest.param(gemini.heal_gemini, gemini.dump_messages, "google", id="gemini"),
    pytest.param(
        openai_responses.heal_openai_responses,
        openai_responses.dump_messages,
        "openai-responses",
        id="responses",
    ),
]


@pytest.mark.parametrize(("heal", "dump", "provider"), _HEALS)
def test_a_history_plain_but_for_kimi_ids_is_renamed_without_the_index(
    heal: Callable[..., NativeHealResult[Any]], dump: Callable[[Any], Any], provider: Any
) -> None:
    """The format's walk refuses a history with Kimi's ids at the first one, and the engine,
    asked without its quick verdict, still renames them without building the index (OpenAI
    Chat's and Anthropic's adapters rename them in the caller's dicts, without models): the
    same history and repairs as the index's way."""
    import heal._engine as engine
    from heal.rules._index import HistoryIndex

    native = dump(kimi_ids(PLAIN))
    built: list[int] = []

    class Counted(HistoryIndex):
        def __init__(self, messages: Any) -> None:
            built.append(len(messages))
            super().__init__(messages)

    with mock.patch.object(engine, "HistoryIndex", Counted):
        renamed = heal(copy.deepcopy(native), provider=provider)
    assert built == []
    assert {r.rule for r in renamed.repairs} == {"invalid-tool-call-id"}
    with (
        mock.patch.object(engine, "_renamed_plainly", lambda *args, **kwargs: None),
        mock.patch.object(openai_chat, "_renamed_ids", lambda *args, **kwargs: None),
        mock.patch.object(anthropic, "_renamed_ids", lambda *args, **kwargs: None),
        mock.patch.object(pydantic_ai, "_renamed_ids", lambda *args, **kwargs: None),
        mock.patch.object(langchain, "_renamed_ids", lambda *args, **kwargs: None),
        mock.patch.object(openai_responses, "_renamed_ids", lambda *args, **kwargs: None),
        mock.patch.object(gemini, "_renamed_ids", lambda *args, **kwargs: None),
    ):
        indexed = heal(copy.deepcopy(native), provider=provider)
    assert renamed.repairs == indexed.repairs
    assert renamed.messages == indexed.messages


@pytest.mark.parametrize(("heal", "dump", "provider"), _HEALS)
def test_at_history_scope_the_verdict_answers_a_plain_history_alone(
    heal: Callable[..., NativeHealResult[Any]], dump: Callable[[Any], Any], provider: Any
) -> None:
    """migrate heals at history scope, where a format's plain verdict (the request's: the
    history scope's rules are some of its rules) answers a plainly clean history alone: it
    comes back as it was, unloaded. One plain but for Kimi's ids heals as the full path heals
    it there, never renamed in the caller's objects by the request's verdict."""
    module = sys.modules[heal.__module__]
    native = dump(PLAIN)
    with mock.patch.object(module, _LOADERS[module], _refuse_to_load):
        result = heal(native, provider=provider, scope="history")
    assert result.messages is native
    assert result.repairs == ()
    kimi = dump(kimi_ids(PLAIN))
    got = heal(copy.deepcopy(kimi), provider=provider, scope="history")
    with _full_path(module):
        expected = heal(copy.deepcopy(kimi), provider=provider, scope="history")
    assert got.repairs == expected.repairs
    assert got.repairs  # the ids are renamed in stored history too
    assert got.messages == expected.messages


def test_openai_chat_renames_ids_without_loading() -> None:
    """Sent to Mistral, every id of the benchmark conversations is renamed, and to any
    provider Kimi's: the adapter renames them in the caller's dicts, without loading the
    unbroken ones, and gives what the full path gives."""
    histories = [load_messages(c) for c in corpus(conversations=60, length=30, broken=0.1)]
    natives = [openai_chat.dump_messages(h) for h in histories]
    kimi = [openai_chat.dump_messages(kimi_ids(PLAIN))]
    runs: list[tuple[ProviderId | None, list[Any]]] = [
        ("mistral", natives),
        (None, kimi),
        ("openai-chat", kimi),
    ]
    for provider, cases in runs:
        renamed = 0
        for native in cases:
            heal = partial(openai_chat.heal_openai_chat, native, provider=provider)
            fast, skipped = _fast(openai_chat, heal)
            with mock.patch.object(openai_chat, "_renamed_ids", lambda *args, **kwargs: None):
                slow = heal()
            assert fast.repairs == slow.repairs
            assert _ordered(fast.messages) == _ordered(slow.messages)
            renamed += skipped
        assert renamed >= 0.85 * len(cases), provider


def test_anthropic_renames_ids_without_loading() -> None:
    """Claude's own conversations of the reasoning corpus (signed thinking; half their ids
    Kimi's), as Anthropic parameters and as a list: the adapter renames the ids in the caller's
    dicts, without loading the unbroken ones, and gives what the full path gives."""
    natives: list[Any] = []
    for raw in corpus(conversations=90, length=30, shape="reasoning"):
        try:
            params = anthropic.dump_messages(load_messages(raw), shape="params")
        except InputError:  # another provider's reasoning, which Anthropic cannot hold
            continue
        if any(
            block.get("type") == "thinking"
            for message in params["messages"]
            if isinstance(message["content"], list)
            for block in message["content"]
        ):
            natives += [params, params["messages"]]
    assert len(natives) >= 40
    renamed = 0
    for native in natives:
        heal = partial(anthropic.heal_anthropic, native, provider="anthropic")
        fast, skipped = _fast(anthropic, heal)
        with mock.patch.object(anthropic, "_renamed_ids", lambda *args, **kwargs: None):
            slow = heal()
        assert fast.repairs == slow.repairs
        assert _ordered(fast.messages) == _ordered(slow.messages)
        renamed += skipped and bool(fast.repairs)
    assert renamed >= 0.5 * len(natives)


@pytest.mark.parametrize(
    ("module", "heal", "dump"),
    [
        pytest.param(
            anthropic,
            anthropic.heal_anthropic,
            lambda h: anthropic.dump_messages(h, shape="params"),
            id="anthropic",
        ),
        pytest.param(
            openai_chat, openai_chat.heal_openai_chat, openai_chat.dump_messages, id="openai-chat"
        ),
        pytest.param(
            pydantic_ai, pydantic_ai.heal_pydantic_ai, pydantic_ai.dump_messages, id="pydantic-ai"
        ),
        pytest.param(langchain, langchain.heal_langchain, langchain.dump_messages, id="langchain"),
        pytest.param(
            openai_responses,
            openai_responses.heal_openai_responses,
            openai_responses.dump_messages,
            id="responses",
        ),
        pytest.param(gemini, gemini.heal_gemini, gemini.dump_messages, id="gemini"),
    ],
)
def test_a_broken_history_with_kimi_ids_is_not_renamed_in_the_callers_objects(
    module: ModuleType, heal: Callable[..., NativeHealResult[Any]], dump: Callable[[Any], Any]
) -> None:
    """The verdict reads past Kimi's ids (no provider takes them) and finds what else is
    wrong: a history with something more to mend goes to the full path at once, and only one
    plain but for its ids is renamed in the caller's dicts (or pydantic-ai objects)."""
    broken = kimi_ids(PLAIN)
    broken[1] = {"role": "user", "content": [{"type": "text", "text": " "}]}  # a blank turn
    tried: list[Any] = []
    rename = module._renamed_ids

    def spy(*args: Any) -> Any:
        tried.append(args)
        return rename(*args)

    with mock.patch.object(module, "_renamed_ids", spy):
        result = heal(dump(broken))
        assert "invalid-tool-call-id" in {r.rule for r in result.repairs}
        assert tried == []
        assert heal(dump(kimi_ids(PLAIN))).repairs
        assert len(tried) == 1


def test_pydantic_ai_renames_ids_without_loading() -> None:
    """The reasoning corpus as pydantic-ai messages (thinking with signatures and item ids,
    half the ids Kimi's; the responses name no provider, so ``"auto"`` heals for None, whose
    rules read neither): the adapter renames the ids in the caller's objects, without loading
    the unbroken histories, and gives what the full path gives."""
    natives = [
        pydantic_ai.dump_messages(load_messages(raw))
        for raw in corpus(conversations=40, length=30, shape="reasoning")
    ]
    renamed = 0
    for native in natives:
        fast, skipped = _fast(pydantic_ai, partial(pydantic_ai.heal_pydantic_ai, native))
        with _full_path(pydantic_ai):
            slow = pydantic_ai.heal_pydantic_ai(native)
        assert fast.repairs == slow.repairs
        assert _ordered(fast.messages) == _ordered(slow.messages)
        renamed += skipped and bool(fast.repairs)
    assert renamed >= 0.8 * len(natives)


def test_langchain_renames_ids_without_loading() -> None:
    """The reasoning corpus as LangChain messages (thinking and reasoning blocks with
    signatures, Gemini's signature maps, half the ids Kimi's; the AI messages name no
    provider, so ``"auto"`` heals for None, whose rules read neither): the adapter renames the
    ids in copies of the caller's messages (the signature maps keyed by the new ids), without
    loading the unbroken histories, and gives what the full path gives."""
    natives = []
    for raw in corpus(conversations=40, length=30, shape="reasoning"):
        try:
            natives.append(langchain.dump_messages(load_messages(raw)))
        except InputError:
            continue  # OpenAI's item ids: LangChain's messages have no place for them
    renamed = mapped = 0
    for native in natives:
        fast, skipped = _fast(langchain, partial(langchain.heal_langchain, native))
        with _full_path(langchain):
            slow = langchain.heal_langchain(native)
        assert fast.repairs == slow.repairs
        assert _ordered(fast.messages) == _ordered(slow.messages)
        renamed += skipped and bool(fast.repairs)
        mapped += skipped and any(getattr(m, "additional_kwargs", None) for m in native)
    assert renamed >= 0.8 * len(natives)
    assert mapped > 0


def test_langchain_renames_calls_in_the_order_of_their_blocks() -> None:
    """An AI message whose ``tool_use`` blocks come in another order than its ``tool_calls``
    (and a call with no block, which loads after them): renamed in the caller's messages,
    its records come in the order of the canonical parts, as the full path's do."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    calls = [
        {"name": "f", "args": {"n": n}, "id": f"functions.f:{n}", "type": "tool_call"}
        for n in range(3)
    ]
    blocks: list[str | dict[str, Any]] = [
        {"type": "text", "text": "Let me look."},
        *(
            {"type": "tool_use", "id": c["id"], "name": "f", "input": c["args"]}
            for c in calls[1::-1]
        ),
    ]
    native = [
        HumanMessage("go"),
        AIMessage(blocks, tool_calls=calls),
        *(ToolMessage(f"r{n}", tool_call_id=f"functions.f:{n}") for n in (2, 0, 1)),
        AIMessage("done"),
    ]
    fast, skipped = _fast(langchain, partial(langchain.heal_langchain, native))
    with _full_path(langchain):
        slow = langchain.heal_langchain(native)
    assert skipped
    first = [(r.tool_call_id, r.part_index) for r in fast.repairs if r.message_index == 1]
    assert first == [("functions.f:1", 1), ("functions.f:0", 2), ("functions.f:2", 5)]
    assert fast.repairs == slow.repairs
    assert _ordered(fast.messages) == _ordered(slow.messages)


@pytest.mark.parametrize(
    "block",
    [
        {"type": {}},  # a type a dict cannot be looked up by
        {"type": "tool_use", "id": [1], "name": "f", "input": {}},
        {"type": "tool_result", "tool_use_id": None, "content": "x"},
        "text",
    ],
)
def test_a_block_of_an_odd_shape_is_the_full_paths_error(block: Any) -> None:
    # The ids are looked for before loading, in any history the verdict refuses.
    native = anthropic.dump_messages(kimi_ids(PLAIN), shape="params")
    native["messages"][2]["content"].append(block)
    fast = _outcome(partial(anthropic.heal_anthropic, native))
    with mock.patch.object(anthropic, "_renamed_ids", lambda *args, **kwargs: None):
        slow = _outcome(partial(anthropic.heal_anthropic, native))
    assert isinstance(fast, tuple) and fast == slow
    assert fast[0] is InputError and "messages[2].content[" in fast[1]


@pytest.mark.parametrize(
    ("heal", "native"),
    [
        pytest.param(
            anthropic.heal_anthropic,
            anthropic.dump_messages(kimi_ids(PLAIN), shape="params"),
            id="anthropic",
        ),
        pytest.param(
            openai_chat.heal_openai_chat,
            openai_chat.dump_messages(kimi_ids(PLAIN)),
            id="openai-chat",
        ),
        pytest.param(
            pydantic_ai.heal_pydantic_ai,
            pydantic_ai.dump_messages(kimi_ids(PLAIN)),
            id="pydantic-ai",
        ),
    ],
)
def test_ids_renamed_without_loading_go_to_on_repair_and_strict(
    heal: Callable[..., NativeHealResult[Any]], native: Any
) -> None:
    """The repairs of a renaming in the caller's dicts reach on_repair, and strict raises, as
    the full path's do."""
    told: list[Any] = []
    fast = heal(native, on_repair=told.append)
    assert fast.repairs and told == list(fast.repairs)
    with _full_path(anthropic), _full_path(openai_chat), _full_path(pydantic_ai):
        slow_told: list[Any] = []
        slow = heal(native, on_repair=slow_told.append)
    assert slow_told == told == list(slow.repairs)
    with pytest.raises(HealingError) as raised:
        heal(native, strict=True)
    assert raised.value.repairs == fast.repairs
