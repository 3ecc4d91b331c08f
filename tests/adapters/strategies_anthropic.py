"""Hypothesis strategies for Anthropic Messages API histories.

``histories(sdk=True)`` draws histories the Anthropic SDK's request types accept (``system`` as a
string or text blocks, every block type with its optional fields, ``cache_control`` anywhere it
is allowed), either as ``{"system"?, "messages"}`` or as the messages list alone; ``sdk=False``
adds unknown keys, unsigned thinking, non-object tool inputs, MCP blocks, null fields.
``valid_histories()`` draws conversations heal has nothing to repair.
"""

from __future__ import annotations

import functools
from typing import Any

from hypothesis import strategies as st

__all__ = ["histories", "valid_histories"]

_CHARS = st.characters(blacklist_categories=["Cs"])
text = st.text(_CHARS, max_size=12)
nonblank = st.text(_CHARS, min_size=1, max_size=12).filter(lambda s: s.strip() == s and bool(s))
_ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
# Plain text strategies, not from_regex: generation is most of these tests' time.
names = st.builds(
    str.__add__, st.sampled_from("abcdefghij"), st.text("abcdefghij0123456789_", max_size=10)
)
json_scalars = st.none() | st.booleans() | st.integers(-100, 100) | text
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(names, inner, max_size=2),
    max_leaves=4,
)
json_objects = st.dictionaries(names, json_values, max_size=3)

cache_control = st.fixed_dictionaries(
    {"type": st.just("ephemeral")},
    optional={
        "ttl": st.sampled_from(
            (
                "5m",
                "1h",
            )
        )
    },
)
citation = st.just(
    {
        "type": "char_location",
        "cited_text": "x",
        "document_index": 0,
        "document_title": None,
        "start_char_index": 0,
        "end_char_index": 1,
    }
)


@functools.cache  # strategies are built once: building them per draw is slow
def _maybe(key: str, values: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.just({}) | values.map(lambda v: {key: v})


@functools.cache
def _extra(sdk: bool) -> st.SearchStrategy[dict[str, Any]]:
    if sdk:
        return st.just({})
    return st.dictionaries(
        st.sampled_from(
            (
                "x_gateway",
                "metadata",
            )
        ),
        json_values,
        max_size=1,
    )


@st.composite
def text_block(
    draw: st.DrawFn, sdk: bool = True, content: st.SearchStrategy[str] = text
) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": draw(content)}
    block.update(draw(_maybe("cache_control", cache_control)))
    block.update(draw(_maybe("citations", st.lists(citation, max_size=1) | st.none())))
    block.update(draw(_extra(sdk)))
    return block


image_sources = st.sampled_from(
    [
        {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
        {"type": "base64", "media_type": "image/jpeg", "data": "/9j/4AAQ"},
        {"type": "url", "url": "https://example.com/a.png"},
        {"type": "file", "file_id": "file_011"},
    ]
)


@st.composite
def image_block(draw: st.DrawFn, sdk: bool = True) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "image", "source": draw(image_sources)}
    block.update(draw(_maybe("cache_control", cache_control)))
    block.update(draw(_extra(sdk)))
    return block


@st.composite
def document_block(draw: st.DrawFn, sdk: bool = True) -> dict[str, Any]:
    source = draw(
        st.sampled_from(
            [
                {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="},
                {"type": "url", "url": "https://example.com/a.pdf"},
                {"type": "file", "file_id": "file_022"},
                {"type": "content", "content": "inline"},
                {"type": "content", "content": [{"type": "text", "text": "chunk"}]},
            ]
        )
        | st.builds(lambda t: {"type": "text", "media_type": "text/plain", "data": t}, text)
    )
    block: dict[str, Any] = {"type": "document", "source": source}
    block.update(draw(_maybe("title", st.none() | names)))
    block.update(draw(_maybe("context", st.none() | text)))
    block.update(draw(_maybe("citations", st.fixed_dictionaries({"enabled": st.booleans()}))))
    block.update(draw(_maybe("cache_control", cache_control)))
    block.update(draw(_extra(sdk)))
    return block


@st.composite
def search_result_block(draw: st.DrawFn, sdk: bool = True) -> dict[str, Any]:
    block: dict[str, Any] = {
        "type": "search_result",
        "source": "https://example.com",
        "title": draw(names),
        "content": [{"type": "text", "text": draw(text)}],
    }
    block.update(draw(_maybe("citations", st.fixed_dictionaries({"enabled": st.booleans()}))))
    block.update(draw(_maybe("cache_control", cache_control)))
    return block


@st.composite
def tool_result_block(draw: st.DrawFn, tool_use_id: str, sdk: bool = True) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id}
    item = st.one_of(
        text_block(sdk),
        image_block(sdk),
        search_result_block(sdk),
        document_block(sdk),
        st.builds(lambda n: {"type": "tool_reference", "tool_name": n}, names),
    )
    block.update(draw(_maybe("content", text | st.lists(item, max_size=3))))
    block.update(draw(_maybe("is_error", st.booleans())))
    block.update(draw(_maybe("cache_control", cache_control)))
    block.update(draw(_extra(sdk)))
    return block


def _ids(prefix: str) -> st.SearchStrategy[str]:
    return st.text(_ALNUM, min_size=1, max_size=8).map(prefix.__add__)


@st.composite
def tool_use_block(draw: st.DrawFn, sdk: bool = True) -> dict[str, Any]:
    tool_input = draw(
        json_objects
        if sdk
        else json_objects
        | st.sampled_from(
            (
                '{"a": 1}',
                "raw",
                None,
            )
        )
    )
    block: dict[str, Any] = {
        "type": "tool_use",
        "id": draw(_ids("toolu_")),
        "name": draw(names),
        "input": tool_input,
    }
    block.update(draw(_maybe("cache_control", cache_control)))
    block.update(draw(_maybe("caller", st.just({"type": "direct"}))))
    block.update(draw(_extra(sdk)))
    return block


@st.composite
def server_tool_blocks(draw: st.DrawFn, sdk: bool = True) -> list[dict[str, Any]]:
    tid = draw(_ids("srvtoolu_"))
    use: dict[str, Any] = {
        "type": "server_tool_use",
        "id": tid,
        "name": "web_search",
        "input": {"query": draw(text)},
    }
    use.update(draw(_maybe("cache_control", cache_control)))
    result_content = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "type": st.just("web_search_result"),
                    "url": st.just("https://example.com"),
                    "title": names,
                    "encrypted_content": st.just("enc"),
                },
                optional={"page_age": st.none() | st.just("2 days")},
            ),
            max_size=2,
        )
        # The error object is valid, but the SDK's Union[ErrorParam, Iterable[...]] validates a
        # dict as an iterable of its keys; only loose histories draw it.
        | (
            st.just({"type": "web_search_tool_result_error", "error_code": "unavailable"})
            if not sdk
            else st.nothing()
        )
    )
    result: dict[str, Any] = {
        "type": "web_search_tool_result",
        "tool_use_id": tid,
        "content": result_content,
    }
    result.update(draw(_maybe("cache_control", cache_control)))
    blocks = [use, result]
    if not sdk and draw(st.booleans()):
        mid = draw(_ids("mcptoolu_"))
        blocks.append(
            {
                "type": "mcp_tool_use",
                "id": mid,
                "name": draw(names),
                "input": {},
                "server_name": "srv",
            }
        )
        blocks.append(
            {
                "type": "mcp_tool_result",
                "tool_use_id": mid,
                "content": [{"type": "text", "text": "ok"}],
                **draw(_maybe("is_error", st.booleans())),
            }
        )
    return blocks


@st.composite
def thinking_block(draw: st.DrawFn, sdk: bool = True) -> dict[str, Any]:
    if draw(st.booleans()):
        return {"type": "redacted_thinking", "data": draw(names)}
    block = {"type": "thinking", "thinking": draw(text), "signature": draw(names)}
    if not sdk and draw(st.integers(0, 3)) == 0:
        del block["signature"]
    return block


@st.composite
def assistant_message(draw: st.DrawFn, sdk: bool = True) -> dict[str, Any]:
    if draw(st.integers(0, 4)) == 0:
        return {"role": "assistant", "content": draw(text)}
    blocks: list[dict[str, Any]] = []
    blocks += draw(st.lists(thinking_block(sdk), max_size=2))
    blocks += draw(st.lists(text_block(sdk), max_size=2))
    if draw(st.booleans()):
        blocks += draw(server_tool_blocks(sdk))
    blocks += draw(st.lists(tool_use_block(sdk), max_size=2))
    msg: dict[str, Any] = {"role": "assistant", "content": blocks}
    msg.update(draw(_extra(sdk)))
    return msg


@st.composite
def user_message(draw: st.DrawFn, call_ids: list[str], sdk: bool = True) -> dict[str, Any]:
    if draw(st.integers(0, 3)) == 0:
        return {"role": "user", "content": draw(text)}
    others = draw(
        st.lists(
            st.one_of(
                text_block(sdk),
                image_block(sdk),
                document_block(sdk),
                search_result_block(sdk),
                st.just({"type": "container_upload", "file_id": "file_033"}),
            ),
            max_size=3,
        )
    )
    answered = draw(st.lists(st.sampled_from(call_ids), unique=True)) if call_ids else []
    answered += draw(st.lists(_ids("toolu_"), max_size=1))
    results = [draw(tool_result_block(tid, sdk)) for tid in answered]
    # Results usually come first; sometimes interleaved (the API accepts any order now).
    blocks = results + others if draw(st.booleans()) else draw(st.permutations(results + others))
    msg: dict[str, Any] = {"role": "user", "content": blocks}
    msg.update(draw(_extra(sdk)))
    return msg


@st.composite
def system_message(draw: st.DrawFn, sdk: bool = True) -> dict[str, Any]:
    content = draw(text | st.lists(text_block(sdk), min_size=0 if not sdk else 1, max_size=2))
    return {"role": "system", "content": content}


@st.composite
def histories(draw: st.DrawFn, sdk: bool = True) -> Any:
    messages: list[dict[str, Any]] = []
    calls: list[str] = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(
            st.sampled_from(
                (
                    "user",
                    "assistant",
                    "user",
                    "assistant",
                    "system",
                )
            )
        )
        if kind == "user":
            messages.append(draw(user_message(calls, sdk)))
        elif kind == "assistant":
            message = draw(assistant_message(sdk))
            calls = (
                [
                    b["id"]
                    for b in message["content"]
                    if isinstance(b, dict) and b["type"] == "tool_use"
                ]
                if isinstance(message["content"], list)
                else []
            )
            messages.append(message)
        else:
            messages.append(draw(system_message(sdk)))
    shape = draw(
        st.sampled_from(
            (
                "list",
                "params",
                "params+system",
            )
        )
    )
    if shape == "list":
        return messages
    params: dict[str, Any] = {"messages": messages}
    if shape == "params+system":
        system = draw(text | st.lists(text_block(sdk), min_size=0 if not sdk else 1, max_size=3))
        params = {"system": system, **params}
    return params


@st.composite
def valid_histories(draw: st.DrawFn) -> Any:
    """Conversations with nothing to repair: paired calls, valid ids, no blank text."""
    messages: list[dict[str, Any]] = []
    counter = 0
    for _ in range(draw(st.integers(1, 3))):
        messages.append({"role": "user", "content": draw(nonblank)})
        blocks: list[dict[str, Any]] = []
        if draw(st.booleans()):
            blocks.append({"type": "thinking", "thinking": draw(nonblank), "signature": "c2ln"})
        blocks.append({"type": "text", "text": draw(nonblank)})
        ids = []
        for _ in range(draw(st.integers(0, 2))):
            counter += 1
            ids.append(f"toolu_{counter}")
            blocks.append(
                {
                    "type": "tool_use",
                    "id": ids[-1],
                    "name": draw(names),
                    "input": draw(json_objects),
                }
            )
        messages.append({"role": "assistant", "content": blocks})
        if ids:
            results = [
                {"type": "tool_result", "tool_use_id": tid, "content": draw(nonblank)}
                for tid in ids
            ]
            if draw(st.booleans()):
                results.append({"type": "text", "text": draw(nonblank)})
            messages.append({"role": "user", "content": results})
            messages.append(
                {"role": "assistant", "content": [{"type": "text", "text": draw(nonblank)}]}
            )
    if draw(st.booleans()):
        return {"system": draw(nonblank), "messages": messages}
    return messages
