"""Hypothesis strategies for pydantic-ai message histories (``ModelRequest`` / ``ModelResponse``).

:func:`histories` draws histories pydantic-ai itself can store: every part kind the adapter
reads, optional fields that come and go (timestamps with and without a UTC offset, ids,
``provider_details``, ``usage``, ``metadata``, ``instructions``, ``run_id``, ...), signatures from
several providers, tool-call args as dicts, JSON text, raw text and ``None``, bookkeeping parts the
adapter carries verbatim, and the deprecated ``RetryPromptPart``. Tool-call ids come from a small
pool, so calls and returns pair up sometimes and not others: the histories are not all valid for
heal, which is the point of healing them.
"""

from __future__ import annotations

import json
import warnings
from datetime import datetime, timedelta, timezone
from typing import Any

from hypothesis import strategies as st
from pydantic_ai import PydanticAIDeprecationWarning
from pydantic_ai import messages as pa
from pydantic_ai.usage import RequestUsage

__all__ = ["histories", "request_parts", "response_parts"]

_TEXT = st.one_of(
    st.sampled_from(("hi", "hello world", "", " ", "ß 東京 🙂", "line\nbreak")),
    st.text(st.characters(exclude_categories=["Cs"]), max_size=12),
)
_NAMES = st.sampled_from(("get_weather", "search", "f", "my tool!", ""))
_IDS = st.sampled_from(("call_1", "call_2", "toolu_3", "c 4"))
_PROVIDERS = st.sampled_from(
    (None, "anthropic", "openai", "google", "google-gla", "bedrock", "groq", "custom-llm")
)
_ZONES = st.sampled_from(
    (timezone.utc, timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=8)))
)
timestamps = st.one_of(
    st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2100, 1, 1), timezones=_ZONES),
    st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2100, 1, 1)),
)
"""Aware datetimes with several UTC offsets, and naive ones."""

_JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**53), max_value=2**53),
    st.floats(allow_nan=False, allow_infinity=False),
    _TEXT,
)
json_values = st.recursive(
    _JSON_SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(st.text(max_size=5), children, max_size=3),
    ),
    max_leaves=6,
)
json_objects = st.dictionaries(st.text(max_size=5), json_values, max_size=3)
_MAYBE_OBJECT = st.none() | json_objects


def _opt(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.none() | strategy


# --- content items ---------------------------------------------------------------------------

_IMAGE_TYPES = st.sampled_from(("image/png", "image/jpeg", "image/webp"))
_OTHER_TYPES = st.sampled_from(("application/pdf", "text/plain", "audio/wav", "video/mp4"))
_DATA = st.binary(min_size=1, max_size=8)


@st.composite
def binaries(draw: st.DrawFn) -> pa.BinaryContent:
    """Binary content, including classes pydantic-ai's validation would change."""
    data = draw(_DATA)
    meta = draw(_opt(st.just({"detail": "low"})))
    kind = draw(st.sampled_from(("image", "image-as-content", "other", "audio")))
    if kind == "image":
        return pa.BinaryImage(data=data, media_type=draw(_IMAGE_TYPES), vendor_metadata=meta)
    if kind == "image-as-content":
        return pa.BinaryContent(data=data, media_type=draw(_IMAGE_TYPES), vendor_metadata=meta)
    if kind == "audio":
        return pa.BinaryAudio(data=data, media_type="audio/wav", vendor_metadata=meta)
    return pa.BinaryContent(data=data, media_type=draw(_OTHER_TYPES), vendor_metadata=meta)


@st.composite
def file_urls(draw: st.DrawFn) -> pa.FileUrl:
    cls = draw(st.sampled_from((pa.ImageUrl, pa.DocumentUrl, pa.AudioUrl, pa.VideoUrl)))
    ext = {pa.ImageUrl: ".png", pa.DocumentUrl: ".pdf", pa.AudioUrl: ".mp3", pa.VideoUrl: ".mp4"}
    suffix = draw(st.sampled_from((ext[cls], "")))
    url = f"https://example.com/{draw(st.sampled_from(('a', 'b/c')))}{suffix}"
    kwargs: dict[str, Any] = {}
    if draw(st.booleans()):
        kwargs["force_download"] = True
    if draw(st.booleans()):
        kwargs["vendor_metadata"] = {"detail": "high"}
    if suffix == "" and cls is not pa.ImageUrl:
        kwargs["media_type"] = draw(st.sampled_from(("application/pdf", "audio/mpeg", "video/mp4")))
    made: pa.FileUrl = cls(url, **kwargs)
    return made


user_items = st.one_of(
    _TEXT,
    st.builds(pa.TextContent, _TEXT, metadata=_opt(json_values)),
    st.builds(pa.CachePoint),
    file_urls(),
    binaries(),
)


@st.composite
def user_prompts(draw: st.DrawFn) -> pa.UserPromptPart:
    content: Any = draw(st.one_of(_TEXT, st.lists(user_items, max_size=4)))
    if isinstance(content, list) and draw(st.booleans()):
        content = tuple(content)
    return pa.UserPromptPart(content, timestamp=draw(timestamps))


@st.composite
def tool_contents(draw: st.DrawFn) -> Any:
    kind = draw(st.sampled_from(("text", "json", "file", "files")))
    if kind == "text":
        return draw(_TEXT)
    if kind == "json":
        return draw(json_values)
    if kind == "file":
        return draw(binaries() | file_urls().filter(lambda u: _safe_media_type(u) is not None))
    return draw(
        st.lists(_TEXT | binaries(), min_size=1, max_size=3).filter(
            lambda xs: any(not isinstance(x, str) for x in xs)
        )
    )


def _safe_media_type(url: pa.FileUrl) -> str | None:
    try:
        return url.media_type
    except ValueError:
        return None


@st.composite
def tool_returns(draw: st.DrawFn) -> pa.ToolReturnPart:
    content = draw(tool_contents())
    outcome: Any = draw(
        st.sampled_from(("success", "success", "failed", "retried", "denied", "interrupted"))
    )
    return pa.ToolReturnPart(
        draw(_NAMES),
        content,
        draw(_IDS),
        metadata=draw(_opt(json_values)),
        timestamp=draw(timestamps),
        outcome=outcome,
    )


_ERROR_DETAILS = st.just(
    [{"type": "missing", "loc": ("a", 0), "msg": "Field required", "input": {}}]
)


@st.composite
def retry_prompts(draw: st.DrawFn) -> Any:
    content: Any = draw(_TEXT | _ERROR_DETAILS)
    tool_name = draw(_opt(_NAMES))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PydanticAIDeprecationWarning)
        return pa.RetryPromptPart(
            content, tool_name=tool_name, tool_call_id=draw(_IDS), timestamp=draw(timestamps)
        )


@st.composite
def retry_feedback(draw: st.DrawFn) -> pa.RetryFeedbackPart:
    content: Any = draw(_TEXT | _ERROR_DETAILS)
    cause: Any = "model_retry" if isinstance(content, str) else "validation_error"
    attempt = draw(_opt(st.integers(1, 3)))
    return pa.RetryFeedbackPart(
        content, retry=pa.RetryInfo(cause, attempt=attempt), timestamp=draw(timestamps)
    )


bookkeeping_parts = st.one_of(
    st.builds(pa.ToolAvailabilityDeltaPart, tools_added=st.lists(_NAMES, max_size=2)),
    st.builds(pa.ModelSettingsDeltaPart, settings=st.just({"thinking": "low"})),
)


@st.composite
def system_prompts(draw: st.DrawFn) -> pa.SystemPromptPart:
    return pa.SystemPromptPart(
        draw(_TEXT),
        timestamp=draw(timestamps),
        dynamic_ref=draw(_opt(st.just("ref"))),
        metadata=draw(_opt(json_objects)),
    )


request_parts = st.one_of(
    system_prompts(),
    user_prompts(),
    tool_returns(),
    retry_prompts(),
    retry_feedback(),
    bookkeeping_parts,
)
"""Every request part kind the adapter reads."""


# --- response parts --------------------------------------------------------------------------

_ARGS = st.one_of(
    json_objects,
    json_objects.map(json.dumps),
    st.sampled_from(('{"a": 1}', '{"a":1}', "not json", "[1, 2]", "", "  ", "null")),
    st.none(),
)


@st.composite
def _signed(draw: st.DrawFn) -> dict[str, Any]:
    provider = draw(_PROVIDERS)
    out: dict[str, Any] = {"provider_name": provider}
    if provider in ("google", "google-gla") and draw(st.booleans()):
        out["provider_details"] = {"thought_signature": "Z29vZ2xl", **draw(json_objects)}
    else:
        out["provider_details"] = draw(_MAYBE_OBJECT)
    return out


@st.composite
def thinking_parts(draw: st.DrawFn) -> pa.ThinkingPart:
    extra = draw(_signed())
    ident = draw(st.sampled_from((None, "rs_1", "redacted_thinking", "redacted_content")))
    return pa.ThinkingPart(
        draw(_TEXT), id=ident, signature=draw(_opt(st.sampled_from(("sig-A", "c2lnQg==")))), **extra
    )


@st.composite
def text_parts(draw: st.DrawFn) -> pa.TextPart:
    return pa.TextPart(draw(_TEXT), id=draw(_opt(st.just("msg_1"))), **draw(_signed()))


@st.composite
def tool_calls(draw: st.DrawFn) -> pa.ToolCallPart | pa.NativeToolCallPart:
    native = draw(st.booleans()) and draw(st.booleans())
    cls = pa.NativeToolCallPart if native else pa.ToolCallPart
    return cls(
        draw(_NAMES), draw(_ARGS), draw(_IDS), id=draw(_opt(st.just("fc_1"))), **draw(_signed())
    )


@st.composite
def native_returns(draw: st.DrawFn) -> pa.NativeToolReturnPart:
    return pa.NativeToolReturnPart(
        draw(_NAMES),
        draw(json_values),
        draw(_IDS),
        timestamp=draw(timestamps),
        provider_name=draw(_PROVIDERS),
    )


@st.composite
def file_parts(draw: st.DrawFn) -> pa.FilePart:
    return pa.FilePart(draw(binaries()), id=draw(_opt(st.just("f_1"))), **draw(_signed()))


response_parts = st.one_of(
    text_parts(),
    thinking_parts(),
    tool_calls(),
    native_returns(),
    file_parts(),
    st.builds(pa.CompactionPart, _opt(_TEXT), provider_name=_PROVIDERS),
)
"""Every response part kind the adapter reads."""


# --- messages --------------------------------------------------------------------------------


def _parts(strategy: st.SearchStrategy[Any], *, min_size: int) -> st.SearchStrategy[Any]:
    lists = st.lists(strategy, min_size=min_size, max_size=4)
    return st.one_of(lists, lists.map(tuple)) if min_size else lists


@st.composite
def requests(draw: st.DrawFn, *, bookkeeping_only: bool = False) -> pa.ModelRequest:
    parts = draw(
        st.lists(bookkeeping_parts, min_size=1, max_size=2)
        if bookkeeping_only
        else _parts(request_parts, min_size=1)
    )
    return pa.ModelRequest(
        parts,
        timestamp=draw(_opt(timestamps)),
        instructions=draw(_opt(_TEXT)),
        run_id=draw(_opt(st.just("run-1"))),
        conversation_id=draw(_opt(st.just("conv-1"))),
        metadata=draw(_opt(json_objects)),
    )


@st.composite
def responses(draw: st.DrawFn) -> pa.ModelResponse:
    provider = draw(_PROVIDERS)
    return pa.ModelResponse(
        draw(_parts(response_parts, min_size=1)),
        usage=RequestUsage(
            input_tokens=draw(st.integers(0, 100)),
            output_tokens=draw(st.integers(0, 100)),
            details=draw(st.dictionaries(st.sampled_from(("a", "b")), st.integers(0, 9))),
        ),
        model_name=draw(_opt(st.sampled_from(("claude-x", "gpt-x", "gemini-x")))),
        timestamp=draw(timestamps),
        provider_name=provider,
        provider_url=draw(_opt(st.just("https://api.example.com"))),
        canonical_system=draw(st.sampled_from((None, None, "openai", "google-cloud"))),
        provider_details=draw(_MAYBE_OBJECT),
        provider_response_id=draw(_opt(st.sampled_from(("resp_1", "chatcmpl-1", "msg_1")))),
        finish_reason=draw(st.sampled_from((None, "stop", "tool_call"))),
        run_id=draw(_opt(st.just("run-1"))),
        metadata=draw(_opt(json_objects)),
    )


@st.composite
def histories(draw: st.DrawFn, *, max_size: int = 6) -> list[pa.ModelMessage]:
    """A pydantic-ai history with at least one message a model reads."""
    first = draw(requests())
    out: list[pa.ModelMessage] = [
        pa.ModelRequest([draw(user_prompts()), *first.parts], timestamp=first.timestamp)
    ]
    for _ in range(draw(st.integers(0, max_size - 1))):
        kind = draw(st.sampled_from(("request", "response", "response", "bookkeeping")))
        if kind == "request":
            out.append(draw(requests()))
        elif kind == "response":
            out.append(draw(responses()))
        else:
            out.append(draw(requests(bookkeeping_only=True)))
    if draw(st.booleans()):
        out.insert(0, draw(requests(bookkeeping_only=True)))
    return out
