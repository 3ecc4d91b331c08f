"""Hypothesis strategies for Gemini ``contents`` (google-genai), as dicts.

* :func:`gemini_histories` draws any list of contents ``google.genai.types.Content`` accepts
  (healthy or not): every part kind, optional fields coming and going (``id``, ``args``,
  ``thought``, ``thought_signature`` on any part, ``display_name``, ``video_metadata``,
  ``will_continue``, ...), each part spelled in ``snake_case`` or ``camelCase``; with
  ``flavor="python"`` signatures and inline data are bytes, with ``"json"`` base64 strings.
  ``wrapped=True`` puts them in ``{"contents": ..., "system_instruction": ...}``.
* :func:`valid_gemini_histories` draws healthy conversations: calls answered in the next user
  content in call order (all with ids or none), visible text, valid names, signed steps.
* :func:`broken_gemini_histories` breaks a healthy one the ways heal repairs.
"""

from __future__ import annotations

import base64
import string
from typing import Any, Literal

from hypothesis import strategies as st

__all__ = ["broken_gemini_histories", "gemini_histories", "valid_gemini_histories"]

Part = dict[str, Any]
Content = dict[str, Any]
Flavor = Literal["json", "python"]

_CAMEL = {
    "inline_data": "inlineData",
    "file_data": "fileData",
    "function_call": "functionCall",
    "function_response": "functionResponse",
    "executable_code": "executableCode",
    "code_execution_result": "codeExecutionResult",
    "tool_call": "toolCall",
    "tool_response": "toolResponse",
    "thought_signature": "thoughtSignature",
    "mime_type": "mimeType",
    "display_name": "displayName",
    "file_uri": "fileUri",
    "video_metadata": "videoMetadata",
    "will_continue": "willContinue",
    "tool_type": "toolType",
}

_CHARS = st.characters(exclude_categories=["Cs"])
_TEXT = st.text(_CHARS, max_size=12)
_WORDS = ("hi", "hello world", "What's the weather?", "ok", "thanks!", "ß 東京 🙂", "line\nbreak")
_VISIBLE = st.sampled_from(_WORDS) | st.text(_CHARS, min_size=1, max_size=12).filter(
    lambda s: not s.isspace()
)
_NAMES = st.sampled_from(("get_weather", "search", "lookup-user", "f", "calc_2"))
_SLUG = st.text(string.ascii_letters + string.digits, min_size=3, max_size=8)
_BYTES = st.binary(min_size=1, max_size=9)
_JSON_LEAF = st.none() | st.booleans() | st.integers(-1000, 1000) | _TEXT
_JSON = st.recursive(
    _JSON_LEAF,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=6,
)
_OBJECT = st.dictionaries(_TEXT, _JSON, max_size=4)
_MIME = st.sampled_from(("image/png", "image/jpeg", "application/pdf", "audio/wav"))


def _key(snake: str, camel: bool) -> str:
    return _CAMEL.get(snake, snake) if camel else snake


def _blob(data: bytes, flavor: Flavor) -> Any:
    return data if flavor == "python" else base64.b64encode(data).decode()


@st.composite
def _signature(draw: st.DrawFn, flavor: Flavor) -> Any:
    return _blob(draw(_BYTES), flavor)


@st.composite
def _part(draw: st.DrawFn, kind: str, flavor: Flavor, *, model: bool) -> Part:
    camel = draw(st.booleans())

    def k(snake: str) -> str:
        return _key(snake, camel)

    part: Part
    if kind == "text":
        part = {"text": draw(_TEXT)}
        if draw(st.booleans()):
            part["thought"] = draw(st.booleans()) if model else False
    elif kind == "inline_data":
        blob = {k("mime_type"): draw(_MIME), "data": _blob(draw(_BYTES), flavor)}
        if draw(st.booleans()):
            blob[k("display_name")] = "photo.png"
        part = {k("inline_data"): blob}
        if draw(st.booleans()):
            part[k("video_metadata")] = {"fps": 1.0}
    elif kind == "file_data":
        data = {k("file_uri"): "https://generativelanguage.googleapis.com/v1beta/files/abc"}
        if draw(st.booleans()):
            data[k("mime_type")] = draw(_MIME)
        if draw(st.booleans()):
            data[k("display_name")] = "doc.pdf"
        part = {k("file_data"): data}
    elif kind == "function_call":
        call: dict[str, Any] = {"name": draw(_NAMES)}
        if draw(st.booleans()):
            call["args"] = draw(_OBJECT)
        if draw(st.booleans()):
            call["id"] = draw(_SLUG)
        if draw(st.integers(0, 4)) == 0:
            call[k("will_continue")] = False
        part = {k("function_call"): call}
    elif kind == "function_response":
        response: dict[str, Any] = {"name": draw(_NAMES), "response": draw(_OBJECT)}
        if draw(st.booleans()):
            response["id"] = draw(_SLUG)
        if draw(st.integers(0, 4)) == 0:
            response[k("will_continue")] = True
        part = {k("function_response"): response}
    elif kind == "executable_code":
        code: dict[str, Any] = {"code": draw(_TEXT), "language": "PYTHON"}
        if draw(st.booleans()):
            code["id"] = draw(_SLUG)
        part = {k("executable_code"): code}
    elif kind == "code_execution_result":
        result: dict[str, Any] = {"outcome": "OUTCOME_OK"}
        if draw(st.booleans()):
            result["output"] = draw(_TEXT)
        part = {k("code_execution_result"): result}
    elif kind == "tool_call":
        part = {k("tool_call"): {k("tool_type"): "GOOGLE_SEARCH_WEB", "args": draw(_OBJECT)}}
    else:
        part = {k("tool_response"): {k("tool_type"): "GOOGLE_SEARCH_WEB", "response": {}}}
    if draw(st.integers(0, 2)) == 0:
        part[k("thought_signature")] = draw(_signature(flavor))
    return part


_USER_KINDS = ("text", "inline_data", "file_data", "function_response")
_MODEL_KINDS = (
    "text",
    "inline_data",
    "function_call",
    "executable_code",
    "code_execution_result",
    "tool_call",
    "tool_response",
)


@st.composite
def _content(draw: st.DrawFn, flavor: Flavor) -> Content:
    role = draw(st.sampled_from(("user", "model", None)))
    kinds = _MODEL_KINDS if role == "model" else _USER_KINDS
    parts = [
        draw(_part(kind, flavor, model=role == "model"))
        for kind in draw(st.lists(st.sampled_from(kinds), max_size=4))
    ]
    content: Content = {"parts": parts}
    if role is not None:
        content["role"] = role
    elif not parts and draw(st.booleans()):
        del content["parts"]
    return content


@st.composite
def _system(draw: st.DrawFn) -> Any:
    if draw(st.booleans()):
        return draw(_TEXT)
    system: Content = {"parts": [{"text": t} for t in draw(st.lists(_TEXT, max_size=2))]}
    if draw(st.booleans()):
        system["role"] = "user"
    return system


@st.composite
def gemini_histories(
    draw: st.DrawFn, flavor: Flavor = "json", *, wrapped: bool | None = None
) -> Any:
    """Any contents google-genai accepts (healthy or not), optional fields included."""
    contents = draw(st.lists(_content(flavor), max_size=6))
    if wrapped is None:
        wrapped = draw(st.booleans())
    if not wrapped:
        return contents
    key = draw(st.sampled_from(("system_instruction", "systemInstruction")))
    return {"contents": contents, key: draw(_system())}


# --- healthy conversations -------------------------------------------------------------------


@st.composite
def valid_gemini_histories(draw: st.DrawFn, flavor: Flavor = "json") -> Any:
    """A healthy conversation: heal finds nothing to change for ``google``."""
    camel = draw(st.booleans())

    def k(snake: str) -> str:
        return _key(snake, camel)

    contents: list[Content] = []
    for turn in range(draw(st.integers(1, 3))):
        contents.append({"role": "user", "parts": [{"text": draw(_VISIBLE)}]})
        for step in range(draw(st.integers(0, 2))):
            with_ids = draw(st.booleans())
            model: list[Part] = []
            if draw(st.booleans()):
                model.append(
                    {
                        "text": draw(_VISIBLE),
                        "thought": True,
                        k("thought_signature"): draw(_signature(flavor)),
                    }
                )
            calls = []
            for n in range(draw(st.integers(1, 2))):
                call: dict[str, Any] = {"name": draw(_NAMES), "args": draw(_OBJECT)}
                if with_ids:
                    call["id"] = f"fc_{turn}_{step}_{n}"
                part: Part = {k("function_call"): call}
                if n == 0:
                    part[k("thought_signature")] = draw(_signature(flavor))
                model.append(part)
                calls.append(call)
            contents.append({"role": "model", "parts": model})
            responses: list[Part] = []
            for call in calls:
                response = {"name": call["name"], "response": {"result": draw(_VISIBLE)}}
                if with_ids:
                    response["id"] = call["id"]
                responses.append({k("function_response"): response})
            contents.append({"role": "user", "parts": responses})
        final: list[Part] = [{"text": draw(_VISIBLE)}]
        if draw(st.booleans()):
            final[0][k("thought_signature")] = draw(_signature(flavor))
        contents.append({"role": "model", "parts": final})
    if draw(st.booleans()):
        return {"contents": contents, "system_instruction": {"parts": [{"text": "Be brief."}]}}
    return contents


DEFECTS = ("drop-response", "drop-call", "bad-name", "empty-text")


@st.composite
def broken_gemini_histories(draw: st.DrawFn) -> tuple[Any, list[str]]:
    """A healthy conversation with 1-3 defects; returns it and the defects applied."""
    history = draw(valid_gemini_histories())
    contents: list[Content] = history["contents"] if isinstance(history, dict) else history

    def refs(snake: str) -> list[tuple[int, int]]:
        return [
            (c, p)
            for c, content in enumerate(contents)
            for p, part in enumerate(content["parts"])
            if snake in part or _CAMEL[snake] in part
        ]

    applied: list[str] = []
    for defect in draw(st.lists(st.sampled_from(DEFECTS), min_size=1, max_size=3)):
        calls, responses = refs("function_call"), refs("function_response")
        if defect == "drop-response" and responses:
            c, p = draw(st.sampled_from(responses))
            del contents[c]["parts"][p]
        elif defect == "drop-call" and calls:
            c, p = draw(st.sampled_from(calls))
            del contents[c]["parts"][p]
        elif defect == "bad-name" and calls:
            c, p = draw(st.sampled_from(calls))
            part = contents[c]["parts"][p]
            key = "function_call" if "function_call" in part else "functionCall"
            part[key] = {**part[key], "name": "web search!"}
        elif defect == "empty-text":
            c = draw(st.integers(0, len(contents) - 1))
            if contents[c].get("role") == "model" or not refs("function_response"):
                contents[c]["parts"].append({"text": ""})
            else:
                contents[c]["parts"].insert(0, {"text": " "})
        else:
            continue
        applied.append(defect)
    if not applied:
        contents[0]["parts"].append({"text": ""})
        applied.append("empty-text")
    return history, applied
