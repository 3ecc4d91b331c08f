"""Hypothesis strategies for OpenAI Responses API input items, as the API takes them (dicts).

* :func:`input_items` draws any list of items the OpenAI SDK's ``ResponseInputParam`` accepts,
  in any order, with their optional fields coming and going (``status``, ``type: "message"``,
  ``phase``, annotations, logprobs, ``encrypted_content``, ``caller``, image ``detail``, prompt
  cache breakpoints, ...), arguments written every way JSON can be written (and some that are
  not JSON objects), server tool items, and the call and output items that pair like function
  calls (custom tools, local shell, tool search). Such lists need not be healthy: they are for
  the round trip.
* :func:`valid_input_items` draws healthy conversations: every call (a function call, or a
  custom tool, local shell or tool search call) answered right after it,
  reasoning followed by what it produced, visible text, valid names, unique ids.
* :func:`broken_input_items` draws a healthy conversation and breaks it in the ways heal
  repairs (a call without its output, an output without its call, arguments that are not a JSON
  object, a tool name with forbidden characters, empty text).
"""

from __future__ import annotations

import base64
import json
import string
from typing import Any

from hypothesis import strategies as st

__all__ = ["broken_input_items", "input_items", "valid_input_items"]

Item = dict[str, Any]

_CHARS = st.characters(exclude_categories=["Cs"])
_TEXT = st.text(_CHARS, max_size=12)
_WORDS = ("hi", "hello world", "What's the weather?", "ok", "thanks!", "ß 東京 🙂", "line\nbreak")
_VISIBLE = st.sampled_from(_WORDS) | st.text(_CHARS, min_size=1, max_size=12).filter(
    lambda s: not s.isspace()
)
_SLUG = st.text(string.ascii_letters + string.digits, min_size=3, max_size=8)
_NAMES = st.sampled_from(("get_weather", "search", "lookup-user", "f", "calc_2"))
_STATUS = st.sampled_from(("completed", "in_progress", "incomplete"))
_B64 = st.binary(min_size=1, max_size=9).map(lambda b: base64.b64encode(b).decode())
_JSON_LEAF = st.none() | st.booleans() | st.integers(-1000, 1000) | _TEXT
_JSON = st.recursive(
    _JSON_LEAF,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=6,
)
_OBJECT = st.dictionaries(_TEXT, _JSON, max_size=4)
_BREAKPOINT = st.fixed_dictionaries(
    {"mode": st.just("explicit")}, optional={"ttl": st.sampled_from(("30m", "12h"))}
)


def _object_text(value: dict[str, Any], style: int) -> str:
    if style == 0:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    if style == 1:
        return json.dumps(value)  # ", " and ": ", non-ASCII escaped
    return json.dumps(value, indent=2, ensure_ascii=False)


_OBJECT_ARGS = st.builds(_object_text, _OBJECT, st.integers(0, 2))
_ARGUMENTS = _OBJECT_ARGS | st.sampled_from(
    ("", "{", "[1, 2]", "3", "null", '"text"', "{'a': 1}", '{"a": NaN}', "not json")
)


# --- content elements ------------------------------------------------------------------------


def _input_text(text: st.SearchStrategy[str] = _TEXT) -> st.SearchStrategy[Item]:
    return st.fixed_dictionaries(
        {"type": st.just("input_text"), "text": text},
        optional={"prompt_cache_breakpoint": _BREAKPOINT},
    )


_DETAIL = st.sampled_from(("auto", "low", "high"))
_IMAGE_URL = st.sampled_from(("https://example.com/cat.png", "http://x.test/a.jpg")) | _B64.map(
    lambda b: f"data:image/png;base64,{b}"
)
_INPUT_IMAGE = st.one_of(
    st.fixed_dictionaries(
        {"type": st.just("input_image"), "detail": _DETAIL, "image_url": _IMAGE_URL},
        optional={"prompt_cache_breakpoint": _BREAKPOINT},
    ),
    st.fixed_dictionaries(
        {"type": st.just("input_image"), "detail": _DETAIL, "file_id": _SLUG.map("file-{}".format)},
        optional={"image_url": st.none()},
    ),
)
_INPUT_FILE = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.just("input_file"),
            "file_data": _B64.map(lambda b: f"data:application/pdf;base64,{b}"),
        },
        optional={"filename": st.just("report.pdf"), "detail": _DETAIL},
    ),
    st.fixed_dictionaries(
        {"type": st.just("input_file"), "file_url": st.just("https://example.com/r.pdf")}
    ),
    st.fixed_dictionaries(
        {"type": st.just("input_file"), "file_id": _SLUG.map("file-{}".format)},
        optional={"filename": st.just("notes.txt")},
    ),
)
_USER_ELEMENT = _input_text() | _INPUT_IMAGE | _INPUT_FILE
_OUTPUT_ELEMENT = st.one_of(
    st.fixed_dictionaries({"type": st.just("input_text"), "text": _TEXT}),
    st.fixed_dictionaries(
        {"type": st.just("input_image"), "image_url": _IMAGE_URL}, optional={"detail": _DETAIL}
    ),
    st.fixed_dictionaries(
        {"type": st.just("input_image"), "file_id": _SLUG.map("file-{}".format)},
        optional={"detail": _DETAIL},
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("input_file"),
            "file_data": _B64.map(lambda b: f"data:application/pdf;base64,{b}") | _B64,
        },
        optional={"filename": st.just("out.pdf")},
    ),
    st.fixed_dictionaries(
        {"type": st.just("input_file"), "file_url": st.just("https://example.com/o.txt")}
    ),
)
_ANNOTATION = st.fixed_dictionaries(
    {
        "type": st.just("url_citation"),
        "url": st.just("https://example.com"),
        "title": _TEXT,
        "start_index": st.integers(0, 5),
        "end_index": st.integers(5, 9),
    }
)
_LOGPROB = st.fixed_dictionaries(
    {
        "token": _TEXT,
        "bytes": st.lists(st.integers(0, 255), max_size=3),
        "logprob": st.floats(-5, 0),
        "top_logprobs": st.just([]),
    }
)
_OUTPUT_TEXT = st.fixed_dictionaries(
    {
        "type": st.just("output_text"),
        "text": _TEXT,
        "annotations": st.lists(_ANNOTATION, max_size=1),
    },
    optional={"logprobs": st.lists(_LOGPROB, max_size=1)},
)
_REFUSAL = st.fixed_dictionaries({"type": st.just("refusal"), "refusal": _TEXT})
_SUMMARY = st.fixed_dictionaries({"type": st.just("summary_text"), "text": _TEXT})


# --- items -----------------------------------------------------------------------------------


def _user(i: int) -> st.SearchStrategy[Item]:
    easy = st.fixed_dictionaries(
        {
            "role": st.just("user"),
            "content": _TEXT | st.lists(_USER_ELEMENT, max_size=3),
        },
        optional={"type": st.just("message")},
    )
    typed = st.fixed_dictionaries(
        {
            "type": st.just("message"),
            "role": st.just("user"),
            "content": st.lists(_USER_ELEMENT, max_size=3),
        },
        optional={"status": _STATUS},
    )
    return easy | typed


def _system(i: int) -> st.SearchStrategy[Item]:
    return st.fixed_dictionaries(
        {
            "role": st.sampled_from(("system", "developer")),
            "content": _TEXT | st.lists(_input_text(), min_size=1, max_size=1),
        },
        optional={"type": st.just("message")},
    )


def _assistant(i: int) -> st.SearchStrategy[Item]:
    easy = st.fixed_dictionaries(
        {
            "role": st.just("assistant"),
            "content": _TEXT | st.lists(_input_text(), min_size=1, max_size=2),
        },
        optional={
            "type": st.just("message"),
            "phase": st.sampled_from(("commentary", "final_answer")),
        },
    )
    output = st.fixed_dictionaries(
        {
            "type": st.just("message"),
            "role": st.just("assistant"),
            "id": st.just(f"msg_{i}"),
            "status": _STATUS,
            "content": st.lists(_OUTPUT_TEXT | _REFUSAL, max_size=3),
        },
        optional={"phase": st.sampled_from(("commentary", "final_answer")) | st.none()},
    )
    return easy | output


def _reasoning(i: int) -> st.SearchStrategy[Item]:
    return st.fixed_dictionaries(
        {
            "type": st.just("reasoning"),
            "id": st.just(f"rs_{i}"),
            "summary": st.lists(_SUMMARY, max_size=3),
        },
        optional={
            "encrypted_content": _B64 | st.none(),
            "content": st.lists(
                st.fixed_dictionaries({"type": st.just("reasoning_text"), "text": _TEXT}),
                max_size=2,
            ),
            "status": _STATUS,
        },
    )


def _function_call(i: int) -> st.SearchStrategy[Item]:
    return st.fixed_dictionaries(
        {
            "type": st.just("function_call"),
            "call_id": st.just(f"call_{i}"),
            "name": _NAMES,
            "arguments": _ARGUMENTS,
        },
        optional={
            "id": st.just(f"fc_{i}"),
            "status": _STATUS,
            "namespace": st.just("tools"),
            "caller": st.just({"type": "direct"}),
        },
    )


def _function_call_output(i: int) -> st.SearchStrategy[Item]:
    return st.fixed_dictionaries(
        {
            "type": st.just("function_call_output"),
            "call_id": st.integers(0, 12).map("call_{}".format),
            "output": _TEXT | st.lists(_OUTPUT_ELEMENT, max_size=3),
        },
        optional={
            "id": st.just(f"fco_{i}"),
            "status": _STATUS,
            "name": _NAMES,
        },
    )


def _item_reference(i: int) -> st.SearchStrategy[Item]:
    return st.fixed_dictionaries(
        {"id": st.sampled_from((f"rs_ref{i}", f"msg_ref{i}", f"fc_ref{i}"))},
        optional={"type": st.just("item_reference")},
    )


def _server_tool(i: int) -> st.SearchStrategy[Item]:
    web = st.fixed_dictionaries(
        {
            "type": st.just("web_search_call"),
            "id": st.just(f"ws_{i}"),
            "status": st.just("completed"),
            "action": st.fixed_dictionaries({"type": st.just("search")}, optional={"query": _TEXT}),
        }
    )
    files = st.fixed_dictionaries(
        {
            "type": st.just("file_search_call"),
            "id": st.just(f"fs_{i}"),
            "status": st.just("completed"),
            "queries": st.lists(_TEXT, max_size=2),
        },
        optional={"results": st.none()},
    )
    custom = st.fixed_dictionaries(
        {
            "type": st.just("custom_tool_call"),
            "call_id": st.just(f"ctc_{i}"),
            "name": _NAMES,
            "input": _TEXT,
        },
        optional={"id": st.just(f"ct_{i}")},
    )
    custom_output = st.fixed_dictionaries(
        {
            "type": st.just("custom_tool_call_output"),
            "call_id": st.just(f"ctc_{i}"),
            "output": _TEXT,
        }
    )
    return web | files | custom | custom_output | _paired_tool(i)


_SHELL_ACTION = st.fixed_dictionaries(
    {
        "type": st.just("exec"),
        "command": st.lists(st.sampled_from(("ls", "-a", "cat", "x.txt")), min_size=1, max_size=3),
        "env": st.dictionaries(st.sampled_from(("A", "B")), _TEXT, max_size=1),
    },
    optional={"timeout_ms": st.integers(1, 9000), "working_directory": st.just("/tmp")},
)
_TOOL_DEFINITION = st.fixed_dictionaries(
    {
        "type": st.just("function"),
        "name": _NAMES,
        "parameters": st.just({"type": "object", "properties": {}}),
        "strict": st.booleans(),
    }
)


def _paired_tool(i: int) -> st.SearchStrategy[Item]:
    """Call and output items that pair by ``call_id`` like function calls (drawn apart, so they
    need not match): local shell and tool search, client- or server-run."""
    shell = st.fixed_dictionaries(
        {
            "type": st.just("local_shell_call"),
            "id": st.just(f"lsh_{i}"),
            "call_id": st.integers(0, 12).map("lsc_{}".format),
            "status": _STATUS,
            "action": _SHELL_ACTION,
        }
    )
    shell_output = st.fixed_dictionaries(
        {
            "type": st.just("local_shell_call_output"),
            "id": st.integers(0, 12).map("lsc_{}".format),
            "output": _TEXT,
        },
        optional={"status": _STATUS},
    )
    execution = st.sampled_from(("client", "server"))
    search = st.fixed_dictionaries(
        {"type": st.just("tool_search_call"), "arguments": _OBJECT},
        optional={
            "id": st.just(f"ts_{i}"),
            "call_id": st.integers(0, 12).map("tsc_{}".format) | st.none(),
            "execution": execution,
            "status": _STATUS,
        },
    )
    search_output = st.fixed_dictionaries(
        {"type": st.just("tool_search_output"), "tools": st.lists(_TOOL_DEFINITION, max_size=2)},
        optional={
            "id": st.just(f"tso_{i}"),
            "call_id": st.integers(0, 12).map("tsc_{}".format) | st.none(),
            "execution": execution,
            "status": _STATUS,
        },
    )
    return shell | shell_output | search | search_output


_KINDS = {
    "user": _user,
    "system": _system,
    "assistant": _assistant,
    "reasoning": _reasoning,
    "function_call": _function_call,
    "function_call_output": _function_call_output,
    "item_reference": _item_reference,
    "server_tool": _server_tool,
}


@st.composite
def input_items(draw: st.DrawFn, max_items: int = 12) -> list[Item]:
    """Any list of input items the OpenAI SDK accepts (healthy or not), optional fields included."""
    kinds = draw(st.lists(st.sampled_from(sorted(_KINDS)), max_size=max_items))
    return [draw(_KINDS[kind](i)) for i, kind in enumerate(kinds)]


# --- healthy conversations -------------------------------------------------------------------


@st.composite
def _visible_user(draw: st.DrawFn) -> Item:
    if draw(st.booleans()):
        return {"role": "user", "content": draw(_VISIBLE)}
    extra = draw(st.lists(_INPUT_IMAGE | _INPUT_FILE, max_size=1))
    return {"role": "user", "content": [{"type": "input_text", "text": draw(_VISIBLE)}, *extra]}


@st.composite
def _final_message(draw: st.DrawFn, turn: int) -> Item:
    if draw(st.booleans()):
        item: Item = {"role": "assistant", "content": draw(_VISIBLE)}
        if draw(st.booleans()):
            item["phase"] = "final_answer"
        return item
    return {
        "type": "message",
        "role": "assistant",
        "id": f"msg_{turn}",
        "status": "completed",
        "content": [{"type": "output_text", "text": draw(_VISIBLE), "annotations": []}],
    }


@st.composite
def _visible_reasoning(draw: st.DrawFn, key: str) -> Item:
    item: Item = {
        "type": "reasoning",
        "id": f"rs_{key}",
        "summary": [
            {"type": "summary_text", "text": text} for text in draw(st.lists(_VISIBLE, max_size=2))
        ],
    }
    if draw(st.booleans()):
        item["encrypted_content"] = draw(_B64)
    return item


_CALL_KINDS: tuple[str, ...] = (
    "function_call",
    "function_call",
    "custom_tool_call",
    "local_shell_call",
)
_CALL_KINDS += ("tool_search_call",)


@st.composite
def _paired_call(draw: st.DrawFn, kind: str, key: str) -> Item:
    """A healthy call item of a kind that pairs like a function call."""
    call_id = f"call_{key}"
    if kind == "custom_tool_call":
        item: Item = {"type": kind, "call_id": call_id, "name": draw(_NAMES), "input": draw(_TEXT)}
        if draw(st.booleans()):
            item["id"] = f"ctc_{key}"
        return item
    if kind == "local_shell_call":
        return {
            "type": kind,
            "id": f"lsh_{key}",
            "call_id": call_id,
            "status": "completed",
            "action": draw(_SHELL_ACTION),
        }
    return {
        "type": kind,
        "call_id": call_id,
        "execution": "client",
        "status": "completed",
        "arguments": {"query": draw(_VISIBLE)},
    }


@st.composite
def _answer(draw: st.DrawFn, call: Item) -> Item:
    """The output item that answers a healthy call."""
    kind, call_id = call["type"], call["call_id"]
    if kind == "local_shell_call":
        # The SDK types name the call by "id" (the AI SDK writes "call_id", not SDK-valid).
        return {"type": "local_shell_call_output", "id": call_id, "output": '{"stdout":"ok"}'}
    if kind == "tool_search_call":
        return {
            "type": "tool_search_output",
            "call_id": call_id,
            "execution": "client",
            "status": "completed",
            "tools": draw(st.lists(_TOOL_DEFINITION, max_size=2)),
        }
    output: Any = draw(
        _VISIBLE
        | st.lists(
            st.fixed_dictionaries({"type": st.just("input_text"), "text": _VISIBLE}),
            min_size=1,
            max_size=2,
        )
    )
    kind = "custom_tool_call_output" if kind == "custom_tool_call" else "function_call_output"
    return {"type": kind, "call_id": call_id, "output": output}


@st.composite
def valid_input_items(draw: st.DrawFn) -> list[Item]:
    """A healthy conversation: heal finds nothing to change for ``openai-responses``."""
    items: list[Item] = []
    if draw(st.booleans()):
        items.append(
            {"role": draw(st.sampled_from(("system", "developer"))), "content": "Be brief."}
        )
    for turn in range(draw(st.integers(1, 3))):
        items.append(draw(_visible_user()))
        for step in range(draw(st.integers(0, 2))):
            key = f"{turn}_{step}"
            if draw(st.booleans()):
                items.append(draw(_visible_reasoning(key)))
            calls = []
            for n in range(draw(st.integers(1, 2))):
                kind = draw(st.sampled_from(_CALL_KINDS))
                if kind != "function_call":
                    calls.append(draw(_paired_call(kind, f"{key}_{n}")))
                    continue
                call: Item = {
                    "type": "function_call",
                    "call_id": f"call_{key}_{n}",
                    "name": draw(_NAMES),
                    "arguments": draw(st.builds(_object_text, _OBJECT, st.integers(0, 1))),
                }
                if draw(st.booleans()):
                    call["id"] = f"fc_{key}_{n}"
                    call["status"] = "completed"
                calls.append(call)
            items.extend(calls)
            items.extend(draw(_answer(call)) for call in calls)
        if draw(st.booleans()):
            items.append(draw(_visible_reasoning(f"{turn}_final")))
        if draw(st.booleans()):
            items.append(
                {
                    "type": "web_search_call",
                    "id": f"ws_{turn}",
                    "status": "completed",
                    "action": {"type": "search", "query": "weather"},
                }
            )
        items.append(draw(_final_message(turn)))
    return items


# --- broken conversations --------------------------------------------------------------------

DEFECTS = ("drop-output", "drop-call", "bad-arguments", "bad-name", "empty-text")


@st.composite
def broken_input_items(draw: st.DrawFn) -> tuple[list[Item], list[str]]:
    """A healthy conversation with 1-3 defects; returns the items and the defects applied."""
    items = draw(valid_input_items())
    applied: list[str] = []
    for defect in draw(st.lists(st.sampled_from(DEFECTS), min_size=1, max_size=3)):
        calls = [i for i, it in enumerate(items) if it.get("type") == "function_call"]
        outputs = [i for i, it in enumerate(items) if it.get("type") == "function_call_output"]
        if defect == "drop-output" and outputs:
            del items[draw(st.sampled_from(outputs))]
        elif defect == "drop-call" and calls:
            del items[draw(st.sampled_from(calls))]
        elif defect == "bad-arguments" and calls:
            k = draw(st.sampled_from(calls))
            items[k] = {**items[k], "arguments": draw(st.sampled_from(("[1]", "{", "", "7")))}
        elif defect == "bad-name" and calls:
            k = draw(st.sampled_from(calls))
            items[k] = {**items[k], "name": "web search!"}
        elif defect == "empty-text":
            at = draw(st.integers(0, len(items)))
            items.insert(at, {"role": "user", "content": [{"type": "input_text", "text": " "}]})
        else:
            continue
        applied.append(defect)
    if not applied:  # nothing to break in a conversation without calls: blank a message
        items.insert(draw(st.integers(0, len(items))), {"role": "user", "content": ""})
        applied.append("empty-text")
    return items, applied
