"""Hypothesis strategies for AI SDK v6 ``ModelMessage`` histories, as JSON-compatible dicts.

* :func:`valid_histories` draws histories that every shared rule accepts: tool calls paired with
  results in the tool message(s) right after, provider-executed calls answered inside their own
  assistant message, approval requests answered correctly, no blank text, no empty message, no
  lone surrogate, valid tool names and unique valid tool-call ids. Optional fields come and go,
  and unknown fields ride along on messages, parts and outputs (they must round-trip).
* :func:`broken_histories` draws a valid history and applies 1-4 defects (:data:`DEFECTS`) of
  the kinds heal repairs: orphan calls and results, duplicate and misplaced results, split
  parallel results, replayed turns and shared call ids, provider-run results out of place, bad
  tool names, ids and inputs, blank text, empty messages, lone surrogates.
* :func:`histories` draws either; :data:`policies` draws the default policy or one of the
  non-default choices that remove more.

Histories stay small (usually under 10 messages, rarely over 20) so the property tests run
fast; one ``draw`` per optional-field set keeps generation cheap, and every choice shrinks
towards the simplest history (optional and unknown fields absent, no approvals, one turn).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

__all__ = ["DEFECTS", "broken_histories", "histories", "policies", "valid_histories"]

Message = dict[str, Any]
History = list[Message]

# --- leaves ----------------------------------------------------------------------------------

_CHARS = st.characters(exclude_categories=["Cs"])
"""Any code point but a surrogate: valid histories never hold a lone surrogate."""

_WORDS = ("hi", "hello world", "What's the weather?", "ok", "thanks!", "ß 東京 🙂", "line\nbreak")


def _visible(text: str) -> bool:
    return bool(text) and not text.isspace()


visible_text = st.one_of(
    st.sampled_from(_WORDS),
    st.text(_CHARS, min_size=1, max_size=24).filter(_visible),
)
"""Text with at least one non-whitespace character (what a valid text part holds)."""

any_text = st.one_of(st.sampled_from(("", " ", *_WORDS)), st.text(_CHARS, max_size=16))
"""Any text without surrogates, blank included (tool outputs and JSON strings may be blank)."""

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**53), max_value=2**53),
    st.floats(allow_nan=False, allow_infinity=False),
    any_text,
)
_rich_json = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(any_text, children, max_size=3),
    ),
    max_leaves=5,
)
_TYPICAL_JSON: tuple[Any, ...] = (
    {},
    {"query": "weather in Paris"},
    {"a": 1, "b": [True, None, 2.5], "c": {"d": ""}},
    [1, "two"],
    "text",
    None,
)


def _sometimes_rich(typical: st.SearchStrategy[Any], rich: st.SearchStrategy[Any]) -> Any:
    # Heal reads only the shape of JSON values; a few rich ones exercise the round trip, the
    # typical ones keep generation cheap.
    return st.integers(0, 3).flatmap(lambda n: rich if n == 3 else typical)


json_values = _sometimes_rich(st.sampled_from(_TYPICAL_JSON).map(copy.deepcopy), _rich_json)
json_objects = _sometimes_rich(
    st.sampled_from([v for v in _TYPICAL_JSON if isinstance(v, dict)]).map(copy.deepcopy),
    st.dictionaries(any_text, _rich_json, max_size=3),
)
"""A JSON object: the only valid tool input."""

_NAMESPACES = ("anthropic", "openai", "google", "bedrock", "custom")
_TYPICAL_OPTIONS: tuple[dict[str, dict[str, Any]], ...] = (
    {"anthropic": {"cacheControl": {"type": "ephemeral"}}},
    {"openai": {"itemId": "msg_1"}},
    {"google": {"thoughtSignature": "c2ln"}},
    {"custom": {"x": 1}, "bedrock": {}},
)
provider_options = _sometimes_rich(
    st.sampled_from(_TYPICAL_OPTIONS).map(copy.deepcopy),
    st.dictionaries(
        st.sampled_from(_NAMESPACES),
        st.dictionaries(
            st.sampled_from(("cacheControl", "itemId", "signature", "x")), json_values, max_size=2
        ),
        min_size=1,
        max_size=2,
    ),
)
"""Provider options (never under ``heal``, the namespace heal marks its own parts with)."""

_EXTRA_KEYS = ("customField", "metaData", "x-trace")
"""Unknown field names: none is a field of any model, nor an alias or name of one."""

tool_names = _sometimes_rich(
    st.sampled_from(("search", "get_weather", "run-code", "f", "A1_b-2", "x" * 64)),
    st.from_regex(r"[a-zA-Z0-9_-]{1,64}", fullmatch=True),
)
"""Names matching ``^[a-zA-Z0-9_-]{1,64}$``."""

_ID_PREFIXES = ("call_", "toolu_", "c", "fc-", "", "tool-example-")


def _with_optional(
    draw: st.DrawFn, base: dict[str, Any], optional: dict[str, st.SearchStrategy[Any]]
) -> dict[str, Any]:
    """``base`` plus each optional field (drawn or absent), plus maybe an unknown field."""
    out = dict(base)
    # One draw decides every field (cheaper than one per field); all bits 0, the simplest
    # case, means no optional field and no unknown field.
    mask = draw(st.integers(0, (4 << len(optional)) - 1))
    for bit, (key, strategy) in enumerate(optional.items()):
        if mask >> bit & 1:
            out[key] = draw(strategy)
    if mask >> len(optional) == 3:
        out[draw(st.sampled_from(_EXTRA_KEYS))] = draw(json_values)
    return out


class _Ids:
    """Unique tool-call and approval ids for one history (a prefix plus a counter)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.n = 0

    def call(self) -> str:
        self.n += 1
        return f"{self.prefix}{self.n}"

    def approval(self) -> str:
        self.n += 1
        return f"approval_{self.n}"


# --- parts -----------------------------------------------------------------------------------


def text_part(draw: st.DrawFn) -> dict[str, Any]:
    return _with_optional(
        draw, {"type": "text", "text": draw(visible_text)}, {"providerOptions": provider_options}
    )


def image_part(draw: st.DrawFn) -> dict[str, Any]:
    # Base64 data starts with a real PNG or JPEG signature, so providers can tell its type.
    image = draw(
        st.sampled_from(("https://example.com/cat.png", "iVBORw0KGgo=", "/9j/4AAQSkZJRg=="))
    )
    return _with_optional(
        draw,
        {"type": "image", "image": image},
        {
            "mediaType": st.sampled_from(("image/png", "image/jpeg")),
            "providerOptions": provider_options,
        },
    )


def file_part(draw: st.DrawFn) -> dict[str, Any]:
    data = draw(st.sampled_from(("https://example.com/a.pdf", "JVBERi0xLjQ=", "aGVsbG8=")))
    media = draw(st.sampled_from(("application/pdf", "text/plain", "image/png")))
    return _with_optional(
        draw,
        {"type": "file", "data": data, "mediaType": media},
        {
            "filename": st.sampled_from(("a.pdf", "notes.txt", "")),
            "providerOptions": provider_options,
        },
    )


def reasoning_part(draw: st.DrawFn) -> dict[str, Any]:
    signed = draw(st.booleans())
    part: dict[str, Any] = {"type": "reasoning", "text": draw(visible_text)}
    if signed:
        # A signed block may carry no text (redacted thinking keeps only its signature).
        part["text"] = draw(st.one_of(visible_text, st.just("")))
        part["providerOptions"] = {
            "anthropic": {"signature": draw(st.sampled_from(("sig", "EqQBCkgIARAB")))}
        }
    return _with_optional(draw, part, {})


def tool_output(draw: st.DrawFn, *, denied: bool = False) -> dict[str, Any]:
    if denied:
        base: dict[str, Any] = {"type": "execution-denied"}
        return _with_optional(draw, base, {"reason": any_text})
    kind = draw(
        st.sampled_from(("text", "json", "error-text", "error-json", "content", "execution-denied"))
    )
    if kind in ("text", "error-text"):
        base = {"type": kind, "value": draw(any_text)}
    elif kind in ("json", "error-json"):
        base = {"type": kind, "value": draw(json_values)}
    elif kind == "content":
        item = st.one_of(
            st.builds(lambda t: {"type": "text", "text": t}, visible_text),
            st.just({"type": "media", "data": "iVBORw0KGgo=", "mediaType": "image/png"}),
        )
        base = {"type": "content", "value": draw(st.lists(item, min_size=1, max_size=2))}
    else:
        base = {"type": "execution-denied"}
        return _with_optional(draw, base, {"reason": any_text, "providerOptions": provider_options})
    return _with_optional(draw, base, {"providerOptions": provider_options})


def tool_call(
    draw: st.DrawFn, call_id: str, name: str, *, provider_executed: bool = False
) -> dict[str, Any]:
    base: dict[str, Any] = {
        "type": "tool-call",
        "toolCallId": call_id,
        "toolName": name,
        "input": draw(json_objects),
    }
    if provider_executed:
        base["providerExecuted"] = True
    return _with_optional(draw, base, {"providerOptions": provider_options})


def tool_result(
    draw: st.DrawFn, call_id: str, name: str, *, denied: bool = False
) -> dict[str, Any]:
    base = {
        "type": "tool-result",
        "toolCallId": call_id,
        "toolName": name,
        "output": tool_output(draw, denied=denied),
    }
    return _with_optional(draw, base, {"providerOptions": provider_options})


# --- messages --------------------------------------------------------------------------------


def _message(draw: st.DrawFn, role: str, content: Any) -> Message:
    return _with_optional(
        draw, {"role": role, "content": content}, {"providerOptions": provider_options}
    )


def system_message(draw: st.DrawFn) -> Message:
    return _message(draw, "system", draw(visible_text))


def user_message(draw: st.DrawFn) -> Message:
    if draw(st.booleans()):
        return _message(draw, "user", draw(visible_text))
    makers = st.sampled_from((text_part, text_part, image_part, file_part))
    parts = [draw(makers)(draw) for _ in range(draw(st.integers(1, 3)))]
    return _message(draw, "user", parts)


def assistant_turn(draw: st.DrawFn, ids: _Ids, *, last: bool) -> tuple[History, bool]:
    """One assistant message and the tool messages that answer it; True when it awaits approval
    (then it must end the history)."""
    if draw(st.integers(0, 4)) == 0:
        return [_message(draw, "assistant", draw(visible_text))], False
    parts: list[dict[str, Any]] = [reasoning_part(draw) for _ in range(draw(st.integers(0, 1)))]
    makers = st.sampled_from((text_part, text_part, file_part))
    parts.extend(draw(makers)(draw) for _ in range(draw(st.integers(0, 2))))
    # Provider-executed calls: the result sits in the same assistant message.
    for _ in range(draw(st.integers(0, 1))):
        cid, name = ids.call(), draw(tool_names)
        parts.append(tool_call(draw, cid, name, provider_executed=True))
        if draw(st.integers(0, 3)):
            parts.append(tool_result(draw, cid, name))
    calls: list[tuple[str, str]] = []
    for _ in range(draw(st.integers(0, 3))):
        cid, name = ids.call(), draw(tool_names)
        calls.append((cid, name))
        parts.append(tool_call(draw, cid, name))
    if not parts:
        parts.append(text_part(draw))
    if not calls:
        return [_message(draw, "assistant", parts)], False

    # Approval flow: a request in the assistant message, the response in the tool block.
    responses: list[dict[str, Any]] = []
    denied: set[str] = set()
    pending = last and draw(st.integers(0, 3)) == 3
    for cid, _ in calls:
        if draw(st.integers(0, 3)) != 3 and not pending:
            continue
        aid = ids.approval()
        parts.append(
            _with_optional(
                draw, {"type": "tool-approval-request", "approvalId": aid, "toolCallId": cid}, {}
            )
        )
        approved = draw(st.booleans())
        if not approved:
            denied.add(cid)
        responses.append(
            _with_optional(
                draw,
                {"type": "tool-approval-response", "approvalId": aid, "approved": approved},
                {"reason": any_text},
            )
        )
    turn: History = [_message(draw, "assistant", parts)]
    if pending:
        # The history ends awaiting approval (or approved and not yet run): the caller's tool
        # loop owns these calls, so they have no result yet.
        if draw(st.booleans()):
            turn.append(_message(draw, "tool", [dict(r, approved=True) for r in responses]))
        return turn, True

    results = [tool_result(draw, cid, name, denied=cid in denied) for cid, name in calls]
    results = draw(st.permutations(results))
    blocks: list[list[dict[str, Any]]] = [list(responses)]
    for result in results:
        if blocks[-1] and draw(st.integers(0, 3)) == 3:
            blocks.append([])
        blocks[-1].append(result)
    turn.extend(_message(draw, "tool", block) for block in blocks if block)
    return turn, False


@st.composite
def valid_histories(draw: st.DrawFn) -> History:
    """A history every shared rule accepts (see the module docstring)."""
    ids = _Ids(draw(st.sampled_from(_ID_PREFIXES)))
    history: History = []
    if draw(st.booleans()):
        history.append(system_message(draw))
    turns = draw(st.integers(1, 4))
    for t in range(turns):
        history.append(user_message(draw))
        steps = draw(st.integers(0, 3))
        for s in range(steps):
            turn, pending = assistant_turn(draw, ids, last=t == turns - 1 and s == steps - 1)
            history.extend(turn)
            if pending:
                return history
            if turn[-1]["role"] == "assistant":
                break  # no tool calls: the model's answer ends the user's turn
        if draw(st.integers(0, 6)) == 6:
            history.append(system_message(draw))
    return history


# --- defects ---------------------------------------------------------------------------------


def _locate(history: History, ptype: str, role: str | None = None) -> list[tuple[int, int]]:
    return [
        (i, j)
        for i, msg in enumerate(history)
        if isinstance(msg["content"], list) and (role is None or msg["role"] == role)
        for j, part in enumerate(msg["content"])
        if part.get("type") == ptype
    ]


def _client_calls(history: History) -> list[tuple[int, int]]:
    return [
        (i, j)
        for i, j in _locate(history, "tool-call")
        if not history[i]["content"][j].get("providerExecuted")
    ]


def _pop_part(history: History, i: int, j: int, *, drop_empty: bool) -> dict[str, Any]:
    part: dict[str, Any] = history[i]["content"].pop(j)
    if drop_empty and not history[i]["content"]:
        del history[i]
    return part


def _drop_result(draw: st.DrawFn, history: History) -> bool:
    spots = _locate(history, "tool-result", "tool")
    if not spots:
        return False
    i, j = draw(st.sampled_from(spots))
    _pop_part(history, i, j, drop_empty=draw(st.booleans()))
    return True


def _drop_call_message(draw: st.DrawFn, history: History) -> bool:
    spots = sorted({i for i, _ in _client_calls(history)})
    if not spots:
        return False
    del history[draw(st.sampled_from(spots))]
    return True


def _duplicate_result(draw: st.DrawFn, history: History) -> bool:
    spots = _locate(history, "tool-result", "tool")
    if not spots:
        return False
    i, j = draw(st.sampled_from(spots))
    copied = copy.deepcopy(history[i]["content"][j])
    tool_messages = [k for k, msg in enumerate(history) if msg["role"] == "tool"]
    if draw(st.booleans()):
        k = draw(st.sampled_from(tool_messages))
        history[k]["content"].insert(draw(st.integers(0, len(history[k]["content"]))), copied)
    else:
        history.insert(draw(st.integers(0, len(history))), {"role": "tool", "content": [copied]})
    return True


def _result_before_call(draw: st.DrawFn, history: History) -> bool:
    spots = _locate(history, "tool-result", "tool")
    if not spots:
        return False
    i, j = draw(st.sampled_from(spots))
    tid = history[i]["content"][j]["toolCallId"]
    call_at = next(
        (m for m, p in _client_calls(history) if history[m]["content"][p]["toolCallId"] == tid), 0
    )
    part = _pop_part(history, i, j, drop_empty=True)
    history.insert(draw(st.integers(0, call_at)), {"role": "tool", "content": [part]})
    return True


def _result_after_user(draw: st.DrawFn, history: History) -> bool:
    spots = _locate(history, "tool-result", "tool")
    if not spots:
        return False
    i, j = draw(st.sampled_from(spots))
    part = _pop_part(history, i, j, drop_empty=True)
    later_users = [
        k for k in range(min(i, len(history)), len(history)) if history[k]["role"] == "user"
    ]
    if later_users:
        at = draw(st.sampled_from(later_users)) + 1
    else:
        history.append({"role": "user", "content": "continue"})
        at = len(history)
    history.insert(at, {"role": "tool", "content": [part]})
    return True


def _split_parallel(draw: st.DrawFn, history: History) -> bool:
    spots = [
        k for k, msg in enumerate(history) if msg["role"] == "tool" and len(msg["content"]) >= 2
    ]
    if not spots:
        return False
    k = draw(st.sampled_from(spots))
    content = history[k]["content"]
    cut = draw(st.integers(1, len(content) - 1))
    tail = {"role": "tool", "content": content[cut:]}
    history[k] = {**history[k], "content": content[:cut]}
    history[k + 1 : k + 1] = [{"role": "user", "content": draw(visible_text)}, tail]
    return True


def _replay_turn(draw: st.DrawFn, history: History) -> bool:
    """Copy an assistant message with calls and its tool block to later in the history."""
    spots = sorted({i for i, _ in _locate(history, "tool-call")})
    if not spots:
        return False
    i = draw(st.sampled_from(spots))
    end = i + 1
    while end < len(history) and history[end]["role"] == "tool":
        end += 1
    block = copy.deepcopy(history[i:end])
    at = draw(st.integers(end, len(history)))
    history[at:at] = [{"role": "user", "content": "again"}, *block]
    return True


def _shared_call_id(draw: st.DrawFn, history: History) -> bool:
    """Two calls of one assistant message share an id (some OpenAI-compatible servers number
    parallel calls per message; a provider-executed call may collide with a client call)."""
    spots = [
        i
        for i in sorted({i for i, _ in _locate(history, "tool-call")})
        if sum(p.get("type") == "tool-call" for p in history[i]["content"]) >= 2
    ]
    if not spots:
        return False
    i = draw(st.sampled_from(spots))
    calls = [j for j, p in enumerate(history[i]["content"]) if p.get("type") == "tool-call"]
    a, b = draw(st.lists(st.sampled_from(calls), min_size=2, max_size=2, unique=True))
    old = history[i]["content"][b]["toolCallId"]
    new = history[i]["content"][a]["toolCallId"]
    _rename(history, "toolCallId", old, new, everywhere=True, first=(i, b))
    return True


def _misplaced_provider_result(draw: st.DrawFn, history: History) -> bool:
    """A provider-executed call loses its result to a tool message, or its result loses the
    call."""
    spots = [(i, j) for i, j in _locate(history, "tool-result", "assistant")]
    if not spots:
        return False
    i, j = draw(st.sampled_from(spots))
    if draw(st.booleans()):
        tid = history[i]["content"][j]["toolCallId"]
        history[i]["content"] = [
            p
            for p in history[i]["content"]
            if not (p.get("type") == "tool-call" and p["toolCallId"] == tid)
        ]
        return True
    part = _pop_part(history, i, j, drop_empty=False)
    if i + 1 < len(history) and history[i + 1]["role"] == "tool":
        history[i + 1]["content"].append(part)
    else:
        history.insert(i + 1, {"role": "tool", "content": [part]})
    return True


_BAD_NAMES = ("web search", "functions.search", 'name" />\n', "x" * 65, "", "ünïcode", "a/b")
_BAD_IDS = ("functions.search:0", "call|x", "", "id with spaces", "toolu_01:ä")


def _rename(
    history: History, key: str, old: str, new: str, *, everywhere: bool, first: tuple[int, int]
) -> None:
    for i, msg in enumerate(history):
        if not isinstance(msg["content"], list):
            continue
        for j, part in enumerate(msg["content"]):
            if part.get(key) == old and (everywhere or (i, j) == first):
                msg["content"][j] = {**part, key: new}


def _bad_tool_name(draw: st.DrawFn, history: History) -> bool:
    spots = _locate(history, "tool-call")
    if not spots:
        return False
    i, j = draw(st.sampled_from(spots))
    call = history[i]["content"][j]
    new = draw(
        st.one_of(st.sampled_from(_BAD_NAMES), st.text(min_size=65, max_size=80, alphabet="ab_"))
    )
    # The same tool name on every part of this call id (consistent), or on the call only.
    for m, msg in enumerate(history):
        if not isinstance(msg["content"], list):
            continue
        for p, part in enumerate(msg["content"]):
            mine = part.get("toolCallId") == call["toolCallId"] and "toolName" in part
            if mine and ((m, p) == (i, j) or draw(st.booleans())):
                msg["content"][p] = {**part, "toolName": new}
    return True


def _bad_tool_call_id(draw: st.DrawFn, history: History) -> bool:
    spots = _locate(history, "tool-call")
    if not spots:
        return False
    i, j = draw(st.sampled_from(spots))
    old = history[i]["content"][j]["toolCallId"]
    new = draw(st.sampled_from(_BAD_IDS))
    _rename(history, "toolCallId", old, new, everywhere=draw(st.integers(0, 3)) > 0, first=(i, j))
    return True


def _bad_tool_input(draw: st.DrawFn, history: History) -> bool:
    spots = _locate(history, "tool-call")
    if not spots:
        return False
    i, j = draw(st.sampled_from(spots))
    part = dict(history[i]["content"][j])
    kind = draw(st.sampled_from(("json-string", "string", "array", "null", "number", "missing")))
    if kind == "missing":
        part.pop("input", None)
    else:
        part["input"] = {
            "json-string": '{"query": "weather"}',
            "string": draw(st.sampled_from(("not json", "[1, 2]", '{"a": 1'))),
            "array": [1, "two"],
            "null": None,
            "number": draw(st.sampled_from((0, 1.5, -3))),
        }[kind]
    history[i]["content"][j] = part
    return True


_BLANKS = ("", " ", "\n\t ", "\u00a0", "\u3000")


def _blank_text(draw: st.DrawFn, history: History) -> bool:
    spots = [i for i, msg in enumerate(history) if msg["role"] in ("user", "assistant")]
    if not spots:
        return False
    i = draw(st.sampled_from(spots))
    blank = draw(st.sampled_from(_BLANKS))
    content = history[i]["content"]
    if isinstance(content, str):
        if draw(st.booleans()):
            history[i] = {**history[i], "content": blank}
        else:
            history[i] = {
                **history[i],
                "content": [{"type": "text", "text": content}, {"type": "text", "text": blank}],
            }
    else:
        content.insert(draw(st.integers(0, len(content))), {"type": "text", "text": blank})
    return True


def _empty_message(draw: st.DrawFn, history: History) -> bool:
    role = draw(st.sampled_from(("user", "assistant", "tool")))
    content: Any = [] if role == "tool" else draw(st.sampled_from(([], "", "  ")))
    message = {"role": role, "content": content}
    if draw(st.booleans()):
        message["customField"] = "kept"
    history.insert(draw(st.integers(0, len(history))), message)
    return True


_SURROGATES = ("\ud83d", "\ude00", "\udfff", "\ud800")


def _lone_surrogate(draw: st.DrawFn, history: History) -> bool:
    spots: list[tuple[int, int | None]] = [
        (i, None) for i, msg in enumerate(history) if isinstance(msg["content"], str)
    ]
    for i, msg in enumerate(history):
        if isinstance(msg["content"], list):
            for j, part in enumerate(msg["content"]):
                if part.get("type") in ("text", "reasoning") or (
                    part.get("type") == "tool-result"
                    and part["output"]["type"] in ("text", "error-text")
                ):
                    spots.append((i, j))
    if not spots:
        return False
    i, at = draw(st.sampled_from(spots))
    sur = draw(st.sampled_from(_SURROGATES))
    where = draw(st.sampled_from(("start", "end", "alone")))

    def cut(text: str) -> str:
        return {"start": sur + text, "end": text + sur, "alone": sur}[where]

    msg = history[i]
    if at is None:
        history[i] = {**msg, "content": cut(msg["content"])}
        return True
    part = msg["content"][at]
    if part["type"] == "tool-result":
        output = {**part["output"], "value": cut(part["output"]["value"])}
        msg["content"][at] = {**part, "output": output}
    else:
        msg["content"][at] = {**part, "text": cut(part["text"])}
    return True


DEFECTS: dict[str, Callable[[st.DrawFn, History], bool]] = {
    "drop-result": _drop_result,
    "drop-call-message": _drop_call_message,
    "duplicate-result": _duplicate_result,
    "result-before-call": _result_before_call,
    "result-after-user": _result_after_user,
    "split-parallel-results": _split_parallel,
    "replay-turn": _replay_turn,
    "shared-call-id": _shared_call_id,
    "misplaced-provider-result": _misplaced_provider_result,
    "bad-tool-name": _bad_tool_name,
    "bad-tool-call-id": _bad_tool_call_id,
    "bad-tool-input": _bad_tool_input,
    "blank-text": _blank_text,
    "empty-message": _empty_message,
    "lone-surrogate": _lone_surrogate,
}
"""Each defect edits a history in place and returns False when it does not apply."""


@st.composite
def broken_histories(draw: st.DrawFn) -> History:
    """A valid history with 1-4 defects applied (each defect that applies, in drawn order)."""
    history = copy.deepcopy(draw(valid_histories()))
    names = draw(st.lists(st.sampled_from(sorted(DEFECTS)), min_size=1, max_size=4))
    applied = 0
    for name in names:
        applied += DEFECTS[name](draw, history)
    if not applied:
        # Only tool defects were drawn and there are no tool calls: content defects always apply.
        DEFECTS[draw(st.sampled_from(("blank-text", "empty-message", "lone-surrogate")))](
            draw, history
        )
    return history


def histories() -> st.SearchStrategy[History]:
    """A valid or a broken history."""
    return st.one_of(valid_histories(), broken_histories())


policies = st.sampled_from(
    (
        None,
        {"orphan-tool-call": "drop-call"},
        {"invalid-tool-name": "drop-pair"},
        {"invalid-tool-input": "empty-object", "orphan-tool-call": "drop-call"},
        {"invalid-tool-name": "drop-pair", "orphan-tool-call": "drop-call"},
    )
)
"""The default policy and the non-default choices that remove or rewrite more."""
