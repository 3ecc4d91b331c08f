"""Hypothesis strategies for OpenAI Chat Completions message histories.

``histories(sdk=True)`` draws histories the OpenAI SDK's request types accept, with every
optional field the SDK knows; ``sdk=False`` adds what real servers send beyond them (reasoning
fields, unknown keys, ``tool_calls: null``, missing tool-call ``type``, other audio formats...).
``valid_histories()`` draws conversations heal has nothing to repair.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from hypothesis import strategies as st

__all__ = ["histories", "valid_histories"]

_CHARS = st.characters(blacklist_categories=["Cs"])
text = st.text(_CHARS, max_size=12)
nonblank = st.text(_CHARS, min_size=1, max_size=12).filter(lambda s: not s.isspace())
_ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
# Plain text strategies, not from_regex: generation is most of these tests' time.
ids = st.text(_ALNUM, min_size=1, max_size=10).map("call_".__add__)
names = st.builds(
    str.__add__, st.sampled_from("abcdefghij"), st.text("abcdefghij0123456789_", max_size=10)
)

json_scalars = st.none() | st.booleans() | st.integers(-1000, 1000) | text
json_values = st.recursive(
    json_scalars | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(names, inner, max_size=3),
    max_leaves=4,
)
json_objects = st.dictionaries(names, json_values, max_size=3)


@st.composite
def arguments(draw: st.DrawFn, *, valid: bool = False) -> str:
    """Tool-call arguments text: JSON objects in several spellings, or (unless valid) junk."""
    obj = draw(json_objects)
    formats = [
        json.dumps(obj, separators=(",", ":"), ensure_ascii=False),
        json.dumps(obj),
        json.dumps(obj, indent=2),
        json.dumps(obj, ensure_ascii=False),
    ]
    if valid:
        return draw(st.sampled_from(formats))
    junk = st.sampled_from(
        (
            "",
            "null",
            "[1, 2]",
            '"text"',
            "{bad json",
            '{"a":1,"a":2}',
            "1e5",
        )
    )
    return draw(st.sampled_from(formats) | junk | text)


@functools.cache
def _extra(sdk: bool) -> st.SearchStrategy[dict[str, Any]]:
    if sdk:
        return st.just({})
    return st.dictionaries(
        st.sampled_from(
            (
                "x_server",
                "metadata",
                "index",
            )
        ),
        json_values,
        max_size=2,
    )


@functools.cache  # strategies are built once: building them per draw is slow
def _maybe(key: str, values: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.just({}) | values.map(lambda v: {key: v})


breakpoints = st.fixed_dictionaries(
    {"mode": st.just("explicit")},
    optional={
        "ttl": st.sampled_from(
            (
                "30m",
                "12h",
            )
        )
    },
)


@st.composite
def text_part(draw: st.DrawFn, sdk: bool = True) -> dict[str, Any]:
    part = {"type": "text", "text": draw(text)}
    part.update(draw(_maybe("prompt_cache_breakpoint", breakpoints)))
    part.update(draw(_extra(sdk)))
    return part


@st.composite
def user_part(draw: st.DrawFn, sdk: bool = True) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(
            (
                "text",
                "image_url",
                "input_audio",
                "file",
            )
        )
    )
    part: dict[str, Any]
    if kind == "text":
        return draw(text_part(sdk))
    if kind == "image_url":
        url = draw(
            st.sampled_from(
                (
                    "https://example.com/a.png",
                    "data:image/png;base64,iVBORw0KGgo=",
                )
            )
            | (st.just("not a url") if not sdk else st.nothing())
        )
        image_url: dict[str, Any] = {"url": url}
        image_url.update(
            draw(
                _maybe(
                    "detail",
                    st.sampled_from(
                        (
                            "auto",
                            "low",
                            "high",
                            "original",
                        )
                    ),
                )
            )
        )
        part = {"type": "image_url", "image_url": image_url}
    elif kind == "input_audio":
        formats = st.sampled_from(
            (
                "wav",
                "mp3",
            )
        ) | (
            st.sampled_from(
                (
                    "ogg",
                    "mpeg",
                )
            )
            if not sdk
            else st.nothing()
        )
        part = {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": draw(formats)}}
    else:
        body: dict[str, Any] = draw(
            st.sampled_from(
                [
                    {"file_data": "data:application/pdf;base64,JVBERi0="},
                    {"file_data": "data:image/png;base64,iVBORw0KGgo="},
                    {"file_data": "data:audio/wav;base64,UklGRg=="},
                    {"file_id": "file-abc123"},
                ]
            )
            | (st.just({"file_data": "JVBERi0="}) if not sdk else st.nothing())
        )
        body = {
            **body,
            **draw(
                _maybe(
                    "filename",
                    st.sampled_from(
                        (
                            "a.pdf",
                            "notes.txt",
                        )
                    ),
                )
            ),
        }
        part = {"type": "file", "file": body}
    part.update(draw(_maybe("prompt_cache_breakpoint", breakpoints)))
    part.update(draw(_extra(sdk)))
    return part


@st.composite
def system_message(draw: st.DrawFn, sdk: bool = True) -> dict[str, Any]:
    role = draw(
        st.sampled_from(
            (
                "system",
                "developer",
            )
        )
    )
    content = draw(text | st.lists(text_part(sdk), min_size=0 if not sdk else 1, max_size=3))
    msg: dict[str, Any] = {"role": role, "content": content}
    msg.update(draw(_maybe("name", names)))
    msg.update(draw(_extra(sdk)))
    return msg


@st.composite
def user_message(draw: st.DrawFn, sdk: bool = True) -> dict[str, Any]:
    content = draw(text | st.lists(user_part(sdk), max_size=4))
    msg: dict[str, Any] = {"role": "user", "content": content}
    msg.update(draw(_maybe("name", names)))
    msg.update(draw(_extra(sdk)))
    return msg


@st.composite
def tool_call(draw: st.DrawFn, sdk: bool = True, call_id: str | None = None) -> dict[str, Any]:
    tid = call_id if call_id is not None else draw(ids)
    if draw(st.booleans()) and draw(st.integers(0, 4)) == 0:
        call: dict[str, Any] = {
            "id": tid,
            "type": "custom",
            "custom": {"name": draw(names), "input": draw(text)},
        }
    else:
        call = {
            "id": tid,
            "type": "function",
            "function": {"name": draw(names), "arguments": draw(arguments())},
        }
        if not sdk and draw(st.booleans()):
            del call["type"]
    call.update(draw(_extra(sdk)))
    return call


reasoning_details = st.lists(
    st.sampled_from(
        [
            {
                "type": "reasoning.text",
                "text": "step",
                "signature": "sig=",
                "format": "anthropic-claude-v1",
                "index": 0,
            },
            {"type": "reasoning.summary", "summary": "sum", "format": "openai-responses-v1"},
            {"type": "reasoning.encrypted", "data": "enc", "id": "rs_1"},
        ]
    ),
    min_size=1,
    max_size=3,
)


@st.composite
def assistant_message(draw: st.DrawFn, sdk: bool = True) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant"}
    content_part = st.one_of(
        text_part(sdk),
        st.builds(lambda r: {"type": "refusal", "refusal": r}, text),
    )
    content = draw(
        st.sampled_from(
            (
                "<absent>",
                None,
                "",
            )
        )
        | text
        | st.lists(content_part, max_size=3)
    )
    if content != "<absent>":
        msg["content"] = content
    msg.update(draw(_maybe("refusal", st.none() | text)))
    calls = draw(st.lists(tool_call(sdk), max_size=2))
    if calls:
        msg["tool_calls"] = calls
    elif not sdk and draw(st.booleans()):
        msg["tool_calls"] = draw(st.sampled_from([None, []]))
    if draw(st.integers(0, 5)) == 0:
        msg["function_call"] = {"name": draw(names), "arguments": draw(arguments())}
    msg.update(draw(_maybe("name", names)))
    msg.update(draw(_maybe("audio", st.just({"id": "audio_1"}))))
    if not sdk:
        reasoning = draw(st.none() | text)
        for field in draw(
            st.lists(
                st.sampled_from(
                    (
                        "reasoning_content",
                        "reasoning",
                    )
                ),
                unique=True,
            )
        ):
            # Servers often repeat one reasoning text in two fields.
            msg[field] = reasoning if draw(st.booleans()) else draw(text)
        if draw(st.booleans()):
            msg["reasoning_details"] = draw(reasoning_details)
        msg.update(draw(_extra(sdk)))
    return msg


@st.composite
def tool_message(draw: st.DrawFn, sdk: bool = True, call_id: str | None = None) -> dict[str, Any]:
    # Beyond the SDK types: media parts, which clients put there and OpenAI rejects.
    parts = text_part(sdk) if sdk else text_part(sdk) | user_part(sdk)
    content = draw(text | st.lists(parts, max_size=2))
    msg: dict[str, Any] = {
        "role": "tool",
        "tool_call_id": call_id if call_id is not None else draw(ids),
        "content": content,
    }
    if not sdk:
        msg.update(draw(_maybe("name", names)))
        msg.update(draw(_extra(sdk)))
    return msg


@st.composite
def function_message(draw: st.DrawFn, sdk: bool = True) -> dict[str, Any]:
    msg = {"role": "function", "name": draw(names), "content": draw(st.none() | text)}
    msg.update(draw(_extra(sdk)))
    return msg


@st.composite
def histories(draw: st.DrawFn, sdk: bool = True) -> list[dict[str, Any]]:
    """Any sequence of messages (pairing not guaranteed), each with optional fields drawn."""
    history: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(
            st.sampled_from(
                (
                    "system",
                    "user",
                    "assistant",
                    "assistant",
                    "tool",
                    "function",
                )
            )
        )
        if kind == "system":
            history.append(draw(system_message(sdk)))
        elif kind == "user":
            history.append(draw(user_message(sdk)))
        elif kind == "function":
            history.append(draw(function_message(sdk)))
        elif kind == "tool":
            # Answer a call already drawn, usually.
            known = [c["id"] for m in history for c in m.get("tool_calls") or ()]
            call_id = draw(st.sampled_from(known)) if bool(known) and draw(st.booleans()) else None
            history.append(draw(tool_message(sdk, call_id)))
        else:
            history.append(draw(assistant_message(sdk)))
    return history


@st.composite
def valid_histories(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Conversations with nothing to repair: paired calls, valid ids and names, no blank text."""
    history: list[dict[str, Any]] = []
    if draw(st.booleans()):
        history.append(
            {
                "role": draw(
                    st.sampled_from(
                        (
                            "system",
                            "developer",
                        )
                    )
                ),
                "content": draw(nonblank),
            }
        )
    counter = 0
    for _ in range(draw(st.integers(1, 3))):
        history.append(
            {
                "role": "user",
                "content": draw(
                    nonblank
                    | st.lists(
                        st.builds(lambda t: {"type": "text", "text": t}, nonblank),
                        min_size=1,
                        max_size=2,
                    )
                ),
            }
        )
        calls = []
        for _ in range(draw(st.integers(0, 2))):
            counter += 1
            calls.append(
                {
                    "id": f"call_{counter}",
                    "type": "function",
                    "function": {"name": draw(names), "arguments": draw(arguments(valid=True))},
                }
            )
        assistant: dict[str, Any] = {
            "role": "assistant",
            "content": draw(nonblank) if not calls else draw(st.none() | nonblank),
        }
        if calls:
            assistant["tool_calls"] = calls
        history.append(assistant)
        history.extend(
            {"role": "tool", "tool_call_id": call["id"], "content": draw(nonblank)}
            for call in calls
        )
        if calls:
            history.append({"role": "assistant", "content": draw(nonblank)})
    return history
