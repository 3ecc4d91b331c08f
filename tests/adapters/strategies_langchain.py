"""Hypothesis strategies for LangChain message histories (``langchain_core.messages``).

:func:`histories` draws histories of ``SystemMessage``, ``HumanMessage``, ``AIMessage`` and
``ToolMessage`` objects with every content block shape the adapter reads and optional fields that
come and go (``id``, ``name``, ``additional_kwargs`` with ``reasoning_content``, OpenAI's raw
``tool_calls`` and Gemini's signature map, ``response_metadata`` with ``model_provider``,
``usage_metadata``, ``artifact``, ``status``, extra fields). Tool-call ids come from a small pool,
and tool calls come as ``tool_calls``, ``invalid_tool_calls`` (raw ``args`` strings) and content
blocks mirroring them, so histories are not all valid for heal. :func:`anthropic_content` makes an
AI message's content as ``ChatAnthropic`` returns it (text blocks, then a ``tool_use`` block per
call), maybe with one of the flaws the verdict and the fast reader must tell apart
(:data:`LIST_FLAWS`).
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

__all__ = ["histories"]

_TEXT = st.one_of(
    st.sampled_from(("hi", "hello world", "", " ", "ß 東京 🙂", "a\n\nb")),
    st.text(st.characters(exclude_categories=["Cs"]), max_size=10),
)
_NAMES = st.sampled_from(("get_weather", "search", "my tool!", ""))
_IDS = st.sampled_from(("call_1", "call_2", "toolu_3"))
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
        st.dictionaries(st.text(max_size=4), children, max_size=3),
    ),
    max_leaves=5,
)
json_objects = st.dictionaries(st.sampled_from(("a", "b", "k")), json_values, max_size=2)
_B64 = st.sampled_from(("iVBORw==", "AAECAw==", "SGVsbG8="))
_URLS = st.sampled_from(("https://example.com/a.png", "https://example.com/doc.pdf"))


def _common(draw: st.DrawFn) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if draw(st.booleans()):
        out["id"] = draw(st.sampled_from(("m1", "run-2", "lc_3")))
    if draw(st.booleans()):
        out["name"] = draw(st.sampled_from(("alice", "bot")))
    if draw(st.booleans()):
        out["additional_kwargs"] = draw(json_objects)
    if draw(st.booleans()):
        out["response_metadata"] = draw(json_objects)
    if draw(st.integers(0, 5)) == 0:
        out["custom_field"] = draw(json_values)
    return out


# --- blocks ----------------------------------------------------------------------------------

text_blocks = st.one_of(
    _TEXT,
    st.builds(lambda t: {"type": "text", "text": t}, _TEXT),
    st.builds(
        lambda t, extra: {"type": "text", "text": t, **extra},
        _TEXT,
        st.sampled_from(
            ({"cache_control": {"type": "ephemeral"}}, {"id": "t1"}, {"annotations": []})
        ),
    ),
)


@st.composite
def media_blocks(draw: st.DrawFn) -> dict[str, Any]:
    style = draw(
        st.sampled_from(
            (
                "image_url",
                "image_url_str",
                "v1_url",
                "v1_base64",
                "legacy",
                "anthropic",
                "openai_file",
                "input_audio",
                "v1_file",
                "document",
            )
        )
    )
    b64 = draw(_B64)
    if style == "image_url":
        inner: dict[str, Any] = {"url": draw(_URLS)}
        if draw(st.booleans()):
            inner["detail"] = "low"
        return {"type": "image_url", "image_url": inner}
    if style == "image_url_str":
        return {"type": "image_url", "image_url": f"data:image/png;base64,{b64}"}
    if style == "v1_url":
        block: dict[str, Any] = {"type": "image", "url": draw(_URLS)}
        if draw(st.booleans()):
            block["mime_type"] = "image/png"
        return block
    if style == "v1_base64":
        return {"type": "image", "base64": b64, "mime_type": "image/png", "id": "img1"}
    if style == "legacy":
        if draw(st.booleans()):
            return {"type": "image", "source_type": "base64", "data": b64, "mime_type": "image/png"}
        return {"type": "file", "source_type": "url", "url": draw(_URLS)}
    if style == "anthropic":
        return {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/jpeg", "data": b64},
        }
    if style == "openai_file":
        return {
            "type": "file",
            "file": {"file_data": f"data:application/pdf;base64,{b64}", "filename": "a.pdf"},
        }
    if style == "input_audio":
        return {"type": "input_audio", "input_audio": {"data": b64, "format": "wav"}}
    if style == "v1_file":
        return {"type": "file", "base64": b64, "mime_type": "application/pdf", "filename": "x.pdf"}
    return {"type": "document", "source": {"type": "url", "url": draw(_URLS)}}


# --- messages --------------------------------------------------------------------------------


@st.composite
def system_messages(draw: st.DrawFn) -> SystemMessage:
    content = draw(_TEXT | st.lists(text_blocks, max_size=3))
    return SystemMessage(content=content, **_common(draw))


@st.composite
def human_messages(draw: st.DrawFn) -> HumanMessage:
    content = draw(_TEXT | st.lists(text_blocks | media_blocks(), max_size=4))
    return HumanMessage(content=content, **_common(draw))


@st.composite
def _reasoning(draw: st.DrawFn) -> dict[str, Any]:
    style = draw(st.sampled_from(("thinking", "redacted", "openai", "v1")))
    block: dict[str, Any]
    if style == "thinking":
        block = {"type": "thinking", "thinking": draw(_TEXT)}
        if draw(st.booleans()):
            block["signature"] = "sig-A"
        return block
    if style == "redacted":
        return {"type": "redacted_thinking", "data": "cmVkYWN0ZWQ="}
    if style == "openai":
        summary = [{"type": "summary_text", "text": t} for t in draw(st.lists(_TEXT, max_size=2))]
        block = {"type": "reasoning", "id": "rs_1", "summary": summary}
        if draw(st.booleans()):
            block["encrypted_content"] = "enc"
        return block
    block = {"type": "reasoning"}
    if draw(st.booleans()):
        block["reasoning"] = draw(_TEXT)
    if draw(st.booleans()):
        block["extras"] = {"signature": "c2ln", "k": 1}
    return block


def _call_block(call: dict[str, Any], style: str, same: bool) -> dict[str, Any]:
    args = call["args"] if same else {"other": True}
    if style == "tool_use":
        return {"type": "tool_use", "id": call["id"], "name": call["name"], "input": args}
    if style == "tool_call":
        return {"type": "tool_call", "id": call["id"], "name": call["name"], "args": args}
    return {
        "type": "function_call",
        "call_id": call["id"],
        "name": call["name"],
        "arguments": json.dumps(args),
        "id": "fc_1",
    }


LIST_FLAWS = (
    "blank text",
    "string block",
    "extra keys",
    "name differs",
    "input differs",
    "input retyped",
    "thinking first",
    "redacted thinking",
    "image",
    "text after a call",
    "call without block",
    "block without call",
    "block twice",
    "tool_call blocks",
)
"""What :func:`anthropic_content` may do to ``ChatAnthropic``'s shape: a blank text block, a text
as a string, ``cache_control`` on the blocks, a block whose name or input is not its call's (or
whose input is its call's with a float for an integer), reasoning or an image in the content, a
text after a call, a call with no block, a block with no call, a block twice, LangChain's own
``tool_call`` blocks in place of ``tool_use``."""


def anthropic_content(
    draw: st.DrawFn, text: str, calls: list[dict[str, Any]], flaw: str | None = None
) -> tuple[list[Any], list[dict[str, Any]]]:
    """An AI message's ``content`` as ``ChatAnthropic`` returns it for ``text`` (a text block,
    none for an empty text) and ``calls`` (a ``tool_use`` block each, after the text), with
    ``flaw`` (one of :data:`LIST_FLAWS`, or None), and the calls to give it (the same, but for
    ``"input retyped"``, whose calls get an integer the blocks hold as a float)."""
    calls = [dict(call) for call in calls]
    texts: list[Any] = [{"type": "text", "text": text}] if text else []
    style = "tool_call" if flaw == "tool_call blocks" else "tool_use"
    blocks = [_call_block(call, style, True) for call in calls if call.get("id") is not None]
    if flaw == "blank text":
        texts.append({"type": "text", "text": draw(st.sampled_from(("", " ", "\n")))})
    elif flaw == "string block":
        texts.append(draw(_TEXT))
    elif flaw == "extra keys":
        for block in [*texts, *blocks]:
            block["cache_control"] = {"type": "ephemeral"}
    elif flaw == "name differs" and blocks:
        blocks[0]["name"] = "other_tool"
    elif flaw == "input differs" and blocks:
        blocks[0]["input"] = {"other": True}
    elif flaw == "input retyped" and blocks:
        calls[0]["args"] = {**calls[0]["args"], "n": 1}
        blocks[0]["input"] = {**calls[0]["args"], "n": 1.0}
    elif flaw == "thinking first":
        texts.insert(0, {"type": "thinking", "thinking": "hmm", "signature": "sig-A"})
    elif flaw == "redacted thinking":
        texts.insert(0, {"type": "redacted_thinking", "data": "cmVkYWN0ZWQ="})
    elif flaw == "image":
        texts.append({"type": "image", "url": "https://example.com/a.png"})
    elif flaw == "text after a call":
        blocks.append({"type": "text", "text": "and then"})
    elif flaw == "call without block" and blocks:
        del blocks[-1]
    elif flaw == "block without call":
        blocks.append({"type": "tool_use", "id": "only_1", "name": "f", "input": {}})
    elif flaw == "block twice" and blocks:
        blocks.append(dict(blocks[0]))
    return [*texts, *blocks], calls


@st.composite
def ai_messages(draw: st.DrawFn) -> AIMessage:
    common = _common(draw)
    calls: list[dict[str, Any]] = [
        {"name": draw(_NAMES), "args": draw(json_objects), "id": draw(_IDS | st.none())}
        for _ in range(draw(st.integers(0, 2)))
    ]
    invalid: list[dict[str, Any]] = [
        {
            "name": draw(_NAMES | st.none()),
            "args": draw(st.sampled_from(("not json", "[1]", "", None))),
            "id": draw(_IDS),
            "error": draw(st.sampled_from((None, "bad json"))),
        }
        for _ in range(draw(st.integers(0, 1)))
    ]
    # OpenAI's input_audio is an input block and Anthropic's document a user one: an AI
    # message carries them hidden, and loading refuses an AI message made only of hidden
    # blocks (with web_search_call below, or alone).
    ai_media = media_blocks().filter(lambda block: block["type"] not in {"input_audio", "document"})
    blocks: list[Any] = draw(st.lists(text_blocks | _reasoning() | ai_media, max_size=3))
    for call in calls:
        if call["id"] is not None and draw(st.booleans()):
            style = draw(st.sampled_from(("tool_use", "tool_call", "function_call")))
            blocks.insert(
                draw(st.integers(0, len(blocks))), _call_block(call, style, draw(st.booleans()))
            )
    if draw(st.integers(0, 4)) == 0:
        blocks.append({"type": "tool_use", "id": "only_1", "name": "f", "input": {}})
    if draw(st.integers(0, 4)) == 0:
        blocks += [
            {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"q": "x"}},
            {"type": "web_search_tool_result", "tool_use_id": "srv_1", "content": [{"u": 1}]},
        ]
    if blocks and draw(st.integers(0, 4)) == 0:
        blocks.append({"type": "web_search_call", "id": "ws_1", "status": "completed"})
    content: Any = blocks
    if not blocks and draw(st.booleans()):
        content = draw(_TEXT)
    if draw(st.integers(0, 2)) == 0:  # as ChatAnthropic returns it, maybe with a flaw
        flaw = draw(st.none() | st.sampled_from(LIST_FLAWS))
        content, calls = anthropic_content(draw, draw(_TEXT), calls, flaw)
    kwargs = dict(common.pop("additional_kwargs", {}))
    if draw(st.booleans()):
        kwargs["reasoning_content"] = draw(_TEXT)
    if draw(st.booleans()) and calls:
        kwargs["tool_calls"] = [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": json.dumps(c["args"])},
            }
            for c in calls
        ]
    if draw(st.booleans()) and calls:
        kwargs["__gemini_function_call_thought_signatures__"] = {
            c["id"]: "Z2VtaW5p" for c in calls if c["id"] is not None
        }
    if kwargs:
        common["additional_kwargs"] = kwargs
    if draw(st.booleans()):
        common["response_metadata"] = {
            **common.get("response_metadata", {}),
            "model_provider": draw(
                st.sampled_from(("anthropic", "openai", "google_genai", "bedrock_converse", "x"))
            ),
        }
    if draw(st.booleans()):
        common["usage_metadata"] = {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}
    return AIMessage(
        content=content,
        tool_calls=calls,
        invalid_tool_calls=invalid,
        **common,
    )


@st.composite
def tool_messages(draw: st.DrawFn) -> ToolMessage:
    common = _common(draw)
    content = draw(
        st.one_of(
            _TEXT,
            st.lists(text_blocks | media_blocks(), min_size=1, max_size=3),
            st.lists(json_objects, min_size=1, max_size=2),
        )
    )
    extra: dict[str, Any] = {}
    if draw(st.booleans()):
        extra["status"] = "error"
    if draw(st.booleans()):
        extra["artifact"] = draw(json_values)
    return ToolMessage(content=content, tool_call_id=draw(_IDS), **common, **extra)


messages = st.one_of(system_messages(), human_messages(), ai_messages(), tool_messages())


@st.composite
def histories(draw: st.DrawFn, *, max_size: int = 6) -> list[BaseMessage]:
    """A LangChain history (possibly empty)."""
    return draw(st.lists(messages, max_size=max_size))
