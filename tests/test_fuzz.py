"""Fuzz tests: every entry point keeps heal's contract on any input.

The contract: for ANY input an entry point returns, or raises a :class:`heal.HealError` subclass
(never RecursionError, TypeError, KeyError, UnicodeEncodeError, a bare ValueError, ...); the
command line never shows a traceback and exits 0, 1 or 2. When a heal succeeds, its output
validates (but for issues the rules only report), healing it again changes nothing, its repairs
encode as UTF-8 JSON, and the input is never mutated.

Inputs come in two families:

* arbitrary JSON values (:data:`json_documents`): scalars (huge ints, lone surrogates, U+2028),
  lists, and objects whose keys and role/type strings are the real field names of every format,
  so that the fuzzer gets past the first key checks;
* mutated histories (:func:`mutants`): a valid or broken history from :mod:`tests.strategies`,
  written in a native format by that adapter's ``dump_messages`` (and through JSON to plain
  data), then edited 1-4 times: a key deleted or renamed, a value replaced by another JSON type,
  nested 300 or 2,000 levels deep, a lone surrogate or a 5,000-digit int put in, an item
  duplicated, moved or removed, a role or type changed to another format's.

Each family goes through :data:`TARGETS`: the canonical API, every adapter, the reactive heal,
``heal.migrate.heal_row`` and the command line, with a sampled provider. The example counts are
small (the whole file runs in well under a minute with ``CI=true``); ``HEAL_FUZZ_EXAMPLES=N``
sets every target's count, and ``python -m benchmarks.fuzz --minutes N`` runs the same targets
for N minutes (randomized), listing each distinct failure.

A failing example's notes give a reproducer: ``x = ...`` (built with :func:`nest` for deep
values) and the entry point call that failed.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import json
import math
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import heal
from heal import HealError
from heal.adapters._common import format_policy
from heal.reactive import ERROR_PATTERNS
from heal.repairs import Action, Repair
from tests.strategies import broken_histories, policies, valid_histories

__all__ = [
    "FORMATS",
    "ContractError",
    "TARGETS",
    "Target",
    "json_documents",
    "mutants",
    "nest",
    "source",
]

T = TypeVar("T")

# --- vocabulary: the field names and type strings of every format -----------------------------

KEYS: tuple[str, ...] = (
    # AI SDK
    "role", "content", "type", "text", "toolCallId", "toolName", "input", "output", "value",
    "providerOptions", "providerExecuted", "approvalId", "approved", "reason", "image", "data",
    "mediaType", "filename", "signature", "customField",
    # OpenAI Chat Completions
    "tool_calls", "tool_call_id", "function", "name", "arguments", "function_call", "refusal",
    "reasoning_content", "reasoning_details", "image_url", "url", "detail", "input_audio",
    "format", "file", "file_id", "file_data", "audio", "prompt_cache_breakpoint",
    # OpenAI Responses
    "call_id", "id", "status", "summary", "encrypted_content", "item_reference", "phase",
    "approval_request_id", "approve", "namespace", "file_url",
    # Anthropic
    "system", "messages", "source", "media_type", "tool_use_id", "is_error", "thinking",
    "cache_control", "citations", "title", "caller", "server_name", "context",
    # Gemini
    "contents", "parts", "system_instruction", "systemInstruction", "function_response",
    "functionCall", "functionResponse", "inline_data", "inlineData", "mime_type", "mimeType",
    "file_uri", "fileUri", "fileData", "thought", "thought_signature", "thoughtSignature",
    "args", "response", "executable_code", "code_execution_result", "tool_call",
    "tool_response", "display_name",
    # pydantic-ai
    "kind", "part_kind", "tool_name", "timestamp", "instructions", "provider_name",
    "provider_details", "metadata", "model_name", "usage", "outcome", "tool_kind",
    "run_id", "identifier", "vendor_id",
    # LangChain (messages_to_dict: {"type", "data": {...}})
    "additional_kwargs", "response_metadata", "invalid_tool_calls", "artifact", "extras",
    "model_provider", "source_type", "example",
    # provider option namespaces and their keys
    "anthropic", "openai", "google", "bedrock", "heal", "itemId", "reasoningEncryptedContent",
    "redactedData", "cacheControl",
)  # fmt: skip
"""Object keys the formats read (so generated objects get past the first key checks)."""

TYPE_KEYS = frozenset(
    ("role", "type", "kind", "part_kind", "status", "outcome", "source_type", "tool_kind")
)
"""Keys whose string value selects how an object is read."""

ROLES: tuple[str, ...] = (
    "system", "user", "assistant", "tool", "developer", "model", "function", "human", "ai",
    "chat", "request", "response",
)  # fmt: skip

TYPES: tuple[str, ...] = (
    # AI SDK parts and outputs
    "text", "image", "file", "reasoning", "tool-call", "tool-result", "tool-approval-request",
    "tool-approval-response", "json", "error-text", "error-json", "execution-denied", "content",
    "media", "image-data", "image-url", "file-data", "file-url", "file-id", "image-file-id",
    "custom",
    # OpenAI Chat and Responses
    "image_url", "input_audio", "function", "refusal", "message", "input_text", "output_text",
    "input_image", "input_file", "function_call", "function_call_output", "summary_text",
    "item_reference", "mcp_approval_request", "mcp_approval_response", "web_search_call",
    "custom_tool_call", "custom_tool_call_output",
    # Anthropic
    "tool_use", "tool_result", "thinking", "redacted_thinking", "document", "server_tool_use",
    "web_search_tool_result", "search_result", "base64", "url", "container_upload",
    "mcp_tool_use", "tool_reference", "code_execution_tool_result",
    # pydantic-ai kinds
    "request", "response", "system-prompt", "user-prompt", "tool-return", "retry-prompt",
    "builtin-tool-call", "builtin-tool-return", "binary", "document-url", "audio-url",
    "video-url", "thinking",
    # LangChain
    "human", "ai", "system", "tool", "chat", "tool_call", "invalid_tool_call", "audio", "video",
    # status / outcome values
    "success", "error", "failed", "denied", "retried", "completed", "in_progress",
)  # fmt: skip

ROLE_OR_TYPE: tuple[str, ...] = tuple(dict.fromkeys((*ROLES, *TYPES)))

SURROGATES = ("\ud800", "\udbff", "\udc00", "\udfff", "\ud83d")
ODD_TEXT = ("\u2028", "\u2029", "\x85", "\x00", "\r", "\n", "\x1c", "\ufeff", "\U0001f642")

PROVIDERS: tuple[str | None, ...] = (None, *heal.PROVIDERS)
providers = st.sampled_from(PROVIDERS)
adapter_providers = st.sampled_from((*PROVIDERS, "default"))
"""Providers for ``heal_<format>``: "default" leaves the adapter's own default."""

# --- JSON values -------------------------------------------------------------------------------


def _huge(sign: int, digits: int, offset: int) -> int:
    return sign * (int(10 ** (digits - 1)) + offset)


huge_ints = st.one_of(
    st.builds(_huge, st.sampled_from((1, -1)), st.sampled_from((20, 400, 4301, 5000)), st.integers(0, 9)),
    st.sampled_from((2**53 + 1, 2**63, -(2**63) - 1, 2**64, 10**308 * 10)),
)  # fmt: skip
"""Ints past every limit: JSON doubles, int64, and Python's 4,300-digit ``int`` -> ``str``."""

texts = st.one_of(
    st.text(max_size=12),
    st.sampled_from(ROLE_OR_TYPE),
    st.sampled_from(("", " ", "\n", "{}", "[]", '{"a": 1}', "null", "call_1", "x" * 65))
    | st.sampled_from(SURROGATES)
    | st.sampled_from(ODD_TEXT),
    st.builds(
        lambda a, s, b: a + s + b,
        st.text(max_size=4),
        st.sampled_from(SURROGATES + ODD_TEXT),
        st.text(max_size=4),
    ),
)
"""Text: arbitrary, a format's type strings, JSON in a string, lone surrogates, U+2028."""

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    huge_ints,
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from((-0.0, 1e308, 5e-324)),
    texts,
)
keys = st.one_of(st.sampled_from(KEYS), texts)


def _merged(first: dict[str, Any], rest: dict[str, Any]) -> dict[str, Any]:
    return {**first, **rest}


def _objects(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects shaped like messages and parts: a role or type first, then real keys."""
    rest = st.dictionaries(keys, children, max_size=5)
    return st.one_of(
        rest,
        st.builds(_merged, st.fixed_dictionaries({"role": st.sampled_from(ROLES)}), rest),
        st.builds(_merged, st.fixed_dictionaries({"type": st.sampled_from(TYPES)}), rest),
        st.builds(_merged, st.fixed_dictionaries({"kind": st.sampled_from(TYPES)}), rest),
        st.builds(_merged, st.fixed_dictionaries({"part_kind": st.sampled_from(TYPES)}), rest),
    )


json_values: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda children: st.one_of(st.lists(children, max_size=5), _objects(children)),
    max_leaves=30,
)
"""Any JSON value (and Python's extras: ints past 64 bits, lone surrogates)."""

json_documents: st.SearchStrategy[Any] = st.one_of(
    json_values,
    st.lists(_objects(json_values), max_size=6),
    st.builds(
        _merged,
        st.fixed_dictionaries(
            {}, optional={"system": json_values, "model": st.just("m"), "tools": json_values}
        ),
        st.fixed_dictionaries(
            {},
            optional={
                k: st.lists(_objects(json_values), max_size=5)
                for k in ("messages", "contents", "input")
            },
        ),
    ),
)
"""A history-shaped value: a list of message-like objects, a request object, or any JSON."""

# --- trees: copy, compare and print without recursion ------------------------------------------


def tree_copy(value: Any) -> Any:
    """A copy of the dicts and lists of ``value`` (any depth; no recursion)."""
    holder: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, holder, 0)]
    while stack:
        node, parent, key = stack.pop()
        if isinstance(node, list):
            new_list: list[Any] = [None] * len(node)
            parent[key] = new_list
            stack.extend((item, new_list, i) for i, item in enumerate(node))
        elif isinstance(node, dict):
            new_dict: dict[Any, Any] = dict.fromkeys(node)
            parent[key] = new_dict
            stack.extend((item, new_dict, k) for k, item in node.items())
        else:
            parent[key] = node
    return holder[0]


def tree_equal(a: Any, b: Any) -> bool:
    """Strict equality of JSON-like trees (types, key order), any depth."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, list):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif isinstance(x, dict):
            if list(x) != list(y):
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif isinstance(x, float):
            if not (x == y or (math.isnan(x) and math.isnan(y))):
                return False
        elif x != y:
            return False
    return True


def nest(inner: Any, depth: int, key: str | None = None) -> Any:
    """``inner`` wrapped ``depth`` times in a list (or in ``{key: ...}``)."""
    for _ in range(depth):
        inner = [inner] if key is None else {key: inner}
    return inner


def _chain(value: Any) -> tuple[int, Any, str | None]:
    """How many single-item lists (or single-key dicts, one key) wrap an inner value."""
    node, n = value, 0
    if isinstance(value, list):
        while isinstance(node, list) and len(node) == 1:
            node, n = node[0], n + 1
        return n, node, None
    if isinstance(value, dict) and len(value) == 1:
        key = next(iter(value))
        if isinstance(key, str):
            while isinstance(node, dict) and len(node) == 1 and key in node:
                node, n = node[key], n + 1
            return n, node, key
    return 0, value, None


def _int_source(n: int) -> str:
    if abs(n) < 10**60:
        return str(n)
    digits = int(n.bit_length() * math.log10(2))
    for k in (digits - 1, digits, digits + 1):
        rest = abs(n) - 10**k
        if 0 <= rest < 10**6:
            return f"{'-' if n < 0 else ''}(10**{k}{f' + {rest}' if rest else ''})"
    return f"int({hex(n)!r}, 16)"


def source(value: Any, depth: int = 0) -> str:
    """Python source that builds ``value`` (deep nesting as :func:`nest` calls, huge ints as
    ``10**k + c``); "..." where it had to cut (beyond 60 levels, long lists, long strings)."""
    if isinstance(value, (list, dict)):
        n, inner, key = _chain(value)
        if n >= 6:
            extra = "" if key is None else f", key={key!r}"
            return f"nest({source(inner, depth + 1)}, {n}{extra})"
        if depth > 60:
            return "..."
        if isinstance(value, list):
            items = [source(v, depth + 1) for v in value[:40]]
            return "[" + ", ".join(items + (["..."] if len(value) > 40 else [])) + "]"
        pairs = [
            f"{source(k, depth + 1)}: {source(v, depth + 1)}" for k, v in list(value.items())[:40]
        ]
        return "{" + ", ".join(pairs + (["...: ..."] if len(value) > 40 else [])) + "}"
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        return _int_source(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f"float({str(value)!r})"
    if isinstance(value, (str, bytes)):
        if len(value) > 300:
            return f"{value[:120]!r} + ... ({len(value)} long)"
        return repr(value)
    return f"<{type(value).__name__}>"


@contextlib.contextmanager
def lifted() -> Iterator[None]:
    """No recursion or int-digit limits: for this file's own JSON of deep values and huge ints
    (never around a call into heal)."""
    limit, digits = sys.getrecursionlimit(), sys.get_int_max_str_digits()
    sys.setrecursionlimit(max(limit, 30_000))
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)
        sys.set_int_max_str_digits(digits)


def to_json_text(value: Any, *, ascii: bool = True) -> str:
    with lifted():
        return json.dumps(value, ensure_ascii=ascii)


def from_json_text(text: str | bytes) -> Any:
    with lifted():
        return json.loads(text)


# --- mutations ---------------------------------------------------------------------------------

PathT = tuple[Any, ...]


def _nodes(root: Any, *, limit: int = 2_000, max_depth: int = 40) -> list[PathT]:
    """Paths to the nodes of ``root`` (breadth first, bounded)."""
    out: list[PathT] = []
    queue: list[tuple[PathT, Any]] = [((), root)]
    for path, node in queue:
        out.append(path)
        if len(queue) >= limit or len(path) >= max_depth:
            continue
        if isinstance(node, list):
            queue.extend(((*path, i), v) for i, v in enumerate(node))
        elif isinstance(node, dict):
            queue.extend(((*path, k), v) for k, v in node.items())
    return out


def _get(root: Any, path: PathT) -> Any:
    for step in path:
        root = root[step]
    return root


replacements: st.SearchStrategy[Any] = st.one_of(
    # Mapped through tree_copy: sampled_from hands out the same list and dict every time, and
    # a mutation that edits it in place would change the constant for later examples (and can
    # make it contain itself).
    st.sampled_from((None, True, False, 0, -1, 1.5, "", " ", [], {}, "x", "[]", "{}")).map(
        tree_copy
    ),
    st.sampled_from(ROLE_OR_TYPE),
    huge_ints,
    st.sampled_from(SURROGATES),
    json_values,
)
"""What a mutation puts in place of a value: another JSON type."""

MUTATIONS = (
    "delete", "retype", "nest", "surrogate", "huge-int", "duplicate", "move", "transplant",
    "role", "rename", "empty", "odd-text",
)  # fmt: skip


def _mutate(draw: st.DrawFn, root: Any) -> Any:
    """One mutation of ``root`` (edited in place where possible); returns the new root."""
    op = draw(st.sampled_from(MUTATIONS))
    nodes = _nodes(root)
    if op == "role":
        typed = [p for p in nodes if p and p[-1] in TYPE_KEYS and isinstance(_get(root, p), str)]
        if typed:
            path = draw(st.sampled_from(typed))
            _get(root, path[:-1])[path[-1]] = draw(st.sampled_from(ROLE_OR_TYPE))
            return root
        op = "retype"
    path = draw(st.sampled_from(nodes))
    node = _get(root, path)
    parent = _get(root, path[:-1]) if path else None

    def put(new: Any) -> Any:
        if parent is None:
            return new
        parent[path[-1]] = new
        return root

    if op == "delete":
        if parent is None:
            return draw(replacements)
        del parent[path[-1]]
        return root
    if op == "retype":
        return put(draw(replacements))
    if op == "nest":
        depth = draw(st.sampled_from((3, 64, 300, 1_000, 2_000)))
        key = draw(st.one_of(st.none(), st.sampled_from(("content", "value", "text", "input"))))
        return put(nest(node, depth, key))
    if op == "surrogate":
        sur = draw(st.sampled_from(SURROGATES))
        if isinstance(node, str):
            at = draw(st.integers(0, len(node)))
            return put(node[:at] + sur + node[at:])
        if isinstance(node, dict):
            if len(node) > 0 and draw(st.booleans()):
                old = draw(st.sampled_from(list(node)))
                new_key = (old + sur) if isinstance(old, str) else sur
                return put({(new_key if k == old else k): v for k, v in node.items()})
            node[sur] = draw(replacements)
            return root
        if isinstance(node, list):
            node.insert(draw(st.integers(0, len(node))), sur)
            return root
        return put(sur)
    if op == "huge-int":
        return put(draw(huge_ints))
    if op == "duplicate":
        if isinstance(parent, list):
            parent.insert(draw(st.integers(0, len(parent))), tree_copy(node))
            return root
        if isinstance(parent, dict):
            parent[draw(st.sampled_from(KEYS))] = tree_copy(node)
            return root
        return [root, tree_copy(root)] if draw(st.booleans()) else root
    if op == "move":
        if isinstance(parent, list) and len(parent) > 1:
            item = parent.pop(path[-1])
            parent.insert(draw(st.integers(0, len(parent))), item)
            return root
        if isinstance(node, list) and len(node) > 1:
            node.reverse()
        return root
    if op == "transplant":
        # Move the node into another list (a part into another message's content, say).
        lists = [p for p in nodes if isinstance(_get(root, p), list) and p[: len(path)] != path]
        if parent is None or not lists:
            return root
        target_path = draw(st.sampled_from(lists))
        target = _get(root, target_path)
        if isinstance(parent, list):
            parent.pop(path[-1])
        else:
            del parent[path[-1]]
        target.insert(draw(st.integers(0, len(target))), node)
        return root
    if op == "rename":
        if isinstance(node, dict) and node:
            old = draw(st.sampled_from(list(node)))
            new_key = draw(st.sampled_from(KEYS))
            return put({(new_key if k == old else k): v for k, v in node.items()})
        return put(draw(replacements))
    if op == "empty":
        return put(tree_copy(draw(st.sampled_from(("", " ", [], {}, None, [[]], [{}])))))
    # odd-text
    odd = draw(st.sampled_from(ODD_TEXT))
    if isinstance(node, str):
        at = draw(st.integers(0, len(node)))
        return put(node[:at] + odd + node[at:])
    return put(odd * draw(st.sampled_from((1, 2, 5_000))))


def _mutated(draw: st.DrawFn, value: Any, min_edits: int) -> Any:
    out = tree_copy(value)
    for _ in range(draw(st.integers(min_edits, 4))):
        out = _mutate(draw, out)
    return out


@st.composite
def mutants(draw: st.DrawFn, value: Any, *, min_edits: int = 1) -> Any:
    """``value`` (copied) after ``min_edits``-4 random mutations."""
    return _mutated(draw, value, min_edits)


class Shown:
    """A drawn value that hypothesis prints by size only (its pretty printer recurses, and
    fails on values nested 2,000 deep); the ``x = ...`` note holds the value itself."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"<mutated: see the note 'x = ...', {len(source(self.value))} characters>"


@st.composite
def _shown_mutants(draw: st.DrawFn, value: Any, min_edits: int) -> Shown:
    # Built here, not with .map(Shown): hypothesis would print Shown(<the value>).
    return Shown(_mutated(draw, value, min_edits))


def draw_mutant(data: st.DataObject, value: Any, *, min_edits: int = 1) -> Any:
    return data.draw(_shown_mutants(value, min_edits), label="mutated").value


# --- formats: native forms of a canonical history ----------------------------------------------

FORMATS: tuple[str, ...] = (
    "ai-sdk", "openai-chat", "openai-responses", "anthropic", "gemini", "pydantic-ai", "langchain",
)  # fmt: skip


def adapter(fmt: str) -> ModuleType:
    return importlib.import_module(f"heal.adapters.{fmt.replace('-', '_')}")


def call(entry: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T | None:
    """``fn(*args, **kwargs)``; None when it raised a HealError (allowed). Any other exception
    is a broken contract: it propagates, with the entry point as a note. So does an exception
    the call only reported as unraisable ("Exception ignored in: ..." on stderr)."""
    unraisable: list[str] = []
    previous = sys.unraisablehook

    def hook(args: sys.UnraisableHookArgs) -> None:
        with lifted():
            if _pydantic_repr_failure(args):
                return
            unraisable.append(f"{args.exc_type.__name__}: {str(args.exc_value)[:200]}")

    sys.unraisablehook = hook
    result: T | None = None
    try:
        try:
            result = fn(*args, **kwargs)
        finally:
            sys.unraisablehook = previous
    except HealError as exc:
        expect(str(exc), entry, f"empty message: {type(exc).__name__}")
    except Exception as exc:
        add_note(exc, f"entry point: {entry}")
        raise
    if unraisable:
        raise ContractError(entry, f"unraisable exception: {unraisable[0]}")
    return result


def _pydantic_repr_failure(args: sys.UnraisableHookArgs) -> bool:
    """pydantic-core's own failure to print a discriminator it cannot repr (an integer past the
    digit limit, a list nested too deep) while building its ValidationError: it reports that as
    unraisable, on stderr, and heal still raises the InputError the caller gets. Avoiding the
    print would cost a Python check per message on the hot path, so it is allowed here."""
    text = str(args.exc_value)
    return args.exc_type in (ValueError, RecursionError) and (
        "integer string conversion" in text or "while getting the repr" in text
    )


def add_note(exc: BaseException, text: str) -> None:
    """``exc.add_note(text)`` where there is one (Python 3.11+)."""
    adder = getattr(exc, "add_note", None)
    if adder is not None:
        adder(text)


class ContractError(AssertionError):
    """A call returned but broke the contract (mutated its input, is not idempotent, ...).

    ``what`` says how, with details after the first ": "; ``entry`` is the call."""

    def __init__(self, entry: str, what: str) -> None:
        super().__init__(f"{entry}: {what}")
        self.entry = entry
        self.what = what


def expect(condition: object, entry: str, what: str) -> None:
    """A contract check on a successful call."""
    if not condition:
        raise ContractError(entry, what)


def langchain_objects(plain: Any) -> list[Any] | None:
    """LangChain messages from ``messages_to_dict`` dicts, or None when LangChain refuses them."""
    from langchain_core.messages import messages_from_dict

    if not isinstance(plain, list):
        return None
    try:
        with lifted():
            return list(messages_from_dict(plain))
    except Exception:
        return None


def langchain_dicts(objects: Any) -> Any:
    from langchain_core.messages import messages_to_dict

    with lifted():
        return from_json_text(to_json_text(messages_to_dict(objects)))


def pydantic_ai_objects(text: str) -> list[Any] | None:
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    try:
        with lifted():
            return list(ModelMessagesTypeAdapter.validate_json(text))
    except Exception:
        return None


def native_plain(fmt: str, history: list[dict[str, Any]]) -> Any:
    """``history`` in ``fmt`` as plain JSON data (LangChain: ``messages_to_dict``; pydantic-ai:
    its JSON), written by the adapter's ``dump_messages``; None when it cannot be written."""
    entry = f"heal.adapters.{fmt.replace('-', '_')}.dump_messages(x)"
    if fmt == "ai-sdk":
        return history
    module = adapter(fmt)
    canonical = call("heal.load_messages(x)", heal.load_messages, history)
    if canonical is None:
        return None
    if fmt == "pydantic-ai":
        raw = call(entry, module.dump_messages, canonical, as_json=True)
        return None if raw is None else from_json_text(raw)
    dumped = call(entry, module.dump_messages, canonical)
    if dumped is None:
        return None
    if fmt == "langchain":
        return langchain_dicts(dumped)
    try:
        return from_json_text(to_json_text(dumped))
    except (TypeError, ValueError) as exc:
        raise ContractError(entry, f"output is not JSON: {exc}") from None


# --- the contract checks -----------------------------------------------------------------------


def check_repairs(entry: str, repairs: tuple[Repair, ...]) -> None:
    """Repairs dump as JSON that encodes as UTF-8 (an audit log must accept every one)."""
    dumped = [call(f"Repair.model_dump of {entry}", r.model_dump, mode="json") for r in repairs]
    try:
        with lifted():
            json.dumps(dumped, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise ContractError(entry, f"repairs are not UTF-8 JSON: {exc!r:.200}") from None


def changing(repairs: tuple[Repair, ...]) -> list[str]:
    return [r.describe() for r in repairs if r.changed]


def not_only_reported(issues: tuple[Repair, ...]) -> list[str]:
    return [r.describe() for r in issues if r.action not in (Action.KEEP, Action.REPORT)]


def check_canonical(value: Any, provider: str | None, policy: Any = None) -> None:
    """load/dump/validate/heal_messages on ``value`` (dicts, or its JSON text)."""
    before = tree_copy(value)
    args = f"x, provider={provider!r}, policy={policy!r}"
    models = call("heal.load_messages(x)", heal.load_messages, value)
    if models is not None:
        call("heal.dump_messages(heal.load_messages(x))", heal.dump_messages, models)
    check = call(
        f"heal.validate_messages({args})",
        heal.validate_messages,
        value,
        provider=provider,
        policy=policy,
    )
    if check is not None:
        check_repairs("heal.validate_messages", check.issues)
    entry = f"heal.heal_messages({args})"
    result = call(entry, heal.heal_messages, value, provider=provider, policy=policy)
    expect(tree_equal(value, before), entry, "mutated its input")
    if result is None:
        return
    check_repairs(entry, result.repairs)
    healed = result.messages
    dumped = call(f"heal.dump_messages(heal_messages({args}).messages)", heal.dump_messages, healed)
    again = call(
        f"heal.heal_messages(heal_messages({args}).messages, ...)",
        heal.heal_messages,
        healed,
        provider=provider,
        policy=policy,
    )
    expect(again is not None, entry, "its output does not heal again")
    assert again is not None
    expect(not changing(again.repairs), entry, f"not idempotent: {changing(again.repairs)}")
    if dumped is not None:
        redumped = call(
            f"heal.dump_messages of the second heal ({args})", heal.dump_messages, again.messages
        )
        expect(tree_equal(redumped, dumped), entry, "not idempotent (second output differs)")
    valid = call(
        f"heal.validate_messages(heal_messages({args}).messages)",
        heal.validate_messages,
        healed,
        provider=provider,
        policy=policy,
    )
    expect(valid is not None, entry, "its output does not validate")
    assert valid is not None
    left = not_only_reported(valid.issues)
    expect(not left, entry, f"output does not validate: {left}")


def _native_inputs(fmt: str, plain: Any) -> list[Any]:
    """The native inputs ``heal_<fmt>`` takes for the plain data ``plain``."""
    if fmt == "langchain":
        objects = langchain_objects(plain)
        return [] if objects is None else [objects]
    if fmt == "pydantic-ai":
        if isinstance(plain, str):
            return [plain]
        text = to_json_text(plain, ascii=False)
        out: list[Any] = [text, text.encode("utf-8", "surrogatepass")]
        objects = pydantic_ai_objects(text)
        if objects is not None:
            out.append(objects)
        return out
    return [plain]


def _snapshot(fmt: str, native: Any) -> Any:
    """A plain copy of ``native`` to compare after the call (None: cannot be taken)."""
    if isinstance(native, (str, bytes)):
        return native
    try:
        if fmt == "langchain":
            return langchain_dicts(native)
        if fmt == "pydantic-ai":
            from pydantic_ai.messages import ModelMessagesTypeAdapter

            with lifted():
                return ModelMessagesTypeAdapter.dump_python(native, mode="json")
    except Exception:
        return None
    return tree_copy(native)


def check_adapter(fmt: str, plain: Any, provider: str | None) -> None:
    """The adapter's load/dump and ``heal_<fmt>`` on the native forms of ``plain``."""
    if fmt == "ai-sdk":
        check_canonical(plain, None if provider == "default" else provider)
        return
    module = adapter(fmt)
    name = fmt.replace("-", "_")
    heal_fn: Callable[..., Any] = getattr(module, f"heal_{name}")
    for native in _native_inputs(fmt, plain):
        kind = type(native).__name__
        before = _snapshot(fmt, native)
        loaded = call(
            f"heal.adapters.{name}.load_messages(x: {kind})", module.load_messages, native
        )
        if loaded is not None:
            call(
                f"heal.adapters.{name}.dump_messages(load_messages(x: {kind}))",
                module.dump_messages,
                loaded,
            )
        # "default": the adapter's own default provider ("auto" for LangChain and pydantic-ai).
        options = {} if provider == "default" else {"provider": provider}
        chosen = (
            inspect.signature(heal_fn).parameters["provider"].default
            if provider == "default"
            else provider
        )
        entry = f"heal.adapters.{name}.heal_{name}(x: {kind}, provider={chosen!r})"
        result = call(entry, heal_fn, native, **options)
        if before is not None:
            expect(tree_equal(_snapshot(fmt, native), before), entry, "mutated its input")
        if result is None:
            continue
        check_repairs(entry, result.repairs)
        again = call(f"{entry} on its own output", heal_fn, result.messages, **options)
        expect(again is not None, entry, "its output does not heal again")
        assert again is not None
        expect(not changing(again.repairs), entry, f"not idempotent: {changing(again.repairs)}")
        canonical = call(f"load_messages of {entry} output", module.load_messages, result.messages)
        expect(canonical is not None, entry, "its output does not load")
        effective = module.infer_provider(native) if chosen == "auto" else chosen
        # The fixes the format has no field for are kept (reported) by its adapter, not made,
        # and the rules whose problem its shape settles do not run: the output is checked as
        # the adapter heals, with those kept and skipped too.
        unwritable = getattr(module, "_UNWRITABLE", {}).get(effective, ())
        settled = getattr(module, "_SETTLED", {}).get(effective, ())
        valid = call(
            f"validate_messages of {entry} output",
            heal.validate_messages,
            canonical,
            provider=effective,
            policy=format_policy(None, keep=unwritable, skip=settled),
        )
        assert valid is not None
        left = not_only_reported(valid.issues)
        expect(not left, entry, f"output does not validate: {left}")


def check_reactive(value: Any, error: Any, provider: str | None) -> None:
    from heal.reactive import heal_after_error

    before = tree_copy(value)
    entry = f"heal.heal_after_error(x, error, provider={provider!r})"
    result = call(entry, heal_after_error, value, error, provider=provider)
    expect(tree_equal(value, before), entry, "mutated its input")
    if result is None:
        return
    check_repairs(entry, result.repairs)
    again = call(
        f"{entry} on its own output", heal_after_error, result.messages, error, provider=provider
    )
    expect(again is not None, entry, "its output does not heal again")
    assert again is not None
    expect(not changing(again.repairs), entry, f"not idempotent: {changing(again.repairs)}")


def check_heal_row(text: str | bytes, fmt: str, provider: str | None, key: str | None) -> None:
    from heal.migrate import heal_row

    entry = f"heal.migrate.heal_row(1, text, provider={provider!r}, fmt={fmt!r}, key={key!r})"
    outcome = call(entry, heal_row, 1, text, provider=provider, fmt=fmt, key=key)
    if outcome is None:
        return
    expect(all(isinstance(r, dict) for r in outcome.repairs), entry, "repairs are not dicts")
    try:
        with lifted():
            json.dumps(list(outcome.repairs), ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise ContractError(entry, f"repairs are not UTF-8 JSON: {exc!r:.200}") from None
    if outcome.healed is None:
        return
    expect(outcome.error is None, entry, "healed a row and reported an error")
    try:
        from_json_text(outcome.healed)
    except ValueError as exc:
        raise ContractError(entry, f"healed row is not JSON: {exc}") from None
    again = call(
        f"{entry} on its own output",
        heal_row,
        1,
        outcome.healed,
        provider=provider,
        fmt=fmt,
        key=key,
    )
    assert again is not None
    expect(again.error is None, entry, f"healed row fails to heal again: {again.error}")
    expect(again.healed is None, entry, "not idempotent: the healed row heals again")


_WOULD_HEAL = re.compile(r"would heal: ([\d,]+)")


def _utf8_stream() -> io.TextIOWrapper:
    """A stream that encodes as a terminal or pipe does (strict UTF-8)."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", newline="")


def _run_cli(entry: str, argv: list[str]) -> tuple[int, str, str]:
    from heal.cli import main

    out, err = _utf8_stream(), _utf8_stream()
    code = call(entry, main, argv, stdout=out, stderr=err)
    expect(code is not None, entry, "raised a HealError instead of exiting")
    out.flush()
    err.flush()
    assert isinstance(out.buffer, io.BytesIO) and isinstance(err.buffer, io.BytesIO)
    stdout = out.buffer.getvalue().decode("utf-8")
    stderr = err.buffer.getvalue().decode("utf-8")
    expect(code in (0, 1, 2), entry, f"exit code {code}")
    expect("Traceback" not in stderr + stdout, entry, "printed a traceback")
    assert isinstance(code, int)
    return code, stdout, stderr


def check_cli(data: bytes, fmt: str, provider: str | None, output: str) -> None:
    """``heal-messages check`` on the same bytes as .json and .jsonl; ``migrate`` twice."""
    options = ["--format", fmt] + ([] if provider is None else ["--provider", provider])
    with tempfile.TemporaryDirectory() as tmp:
        codes = {}
        for suffix in (".json", ".jsonl"):
            path = Path(tmp) / f"history{suffix}"
            path.write_bytes(data)
            argv = ["check", str(path), *options, "--output-format", output]
            code, stdout, _ = _run_cli(f"heal.cli.main({argv!r})", argv)
            codes[suffix] = code
            if output == "json" and code != 2:
                try:
                    json.loads(stdout)
                except ValueError as exc:
                    raise ContractError(
                        f"heal.cli.main({argv!r})", f"--output-format json is not JSON: {exc}"
                    ) from None
        if b"\n" not in data:
            # One line: the same history either way, so the same verdict.
            expect(
                codes[".json"] == codes[".jsonl"],
                "heal.cli.main(['check', ...])",
                f"a one-line file gives {codes} as .json / .jsonl",
            )
        path = Path(tmp) / "history.jsonl"
        argv = ["migrate", str(path), *options, "--no-progress"]
        code, _, _ = _run_cli(f"heal.cli.main({argv!r})", argv)
        if code == 0:
            argv = [*argv, "--dry-run"]
            code, stdout, stderr = _run_cli(f"heal.cli.main({argv!r})", argv)
            found = _WOULD_HEAL.search(stdout + stderr)
            expect(
                found is None or found.group(1) == "0",
                f"heal.cli.main({argv!r})",
                "a migrated file would heal again",
            )


# --- targets -----------------------------------------------------------------------------------

histories = st.one_of(valid_histories(), broken_histories())
formats = st.sampled_from(FORMATS)


def fuzz_json_canonical(x: Any, provider: str | None, policy: Any, as_text: int) -> None:
    """An arbitrary JSON value through the canonical API (as data, JSON text or bytes)."""
    note(f"x = {source(x)}")
    value: Any = x
    if as_text:
        try:
            value = to_json_text(x, ascii=as_text == 1)
        except (TypeError, ValueError):
            return
        if as_text == 3:
            value = value.encode("utf-8", "surrogatepass")
        note(f"passed as {type(value).__name__}: {source(value)}")
    check_canonical(value, provider, policy)


def fuzz_json_adapters(fmt: str, x: Any, provider: str | None) -> None:
    """An arbitrary JSON value through a native adapter."""
    note(f"x = {source(x)}")
    check_adapter(fmt, x, provider)


def fuzz_mutated_canonical(
    history: list[dict[str, Any]], provider: str | None, policy: Any, data: st.DataObject
) -> None:
    """A valid or broken AI SDK history, mutated, through the canonical API."""
    x = draw_mutant(data, history)
    note(f"x = {source(x)}")
    check_canonical(x, provider, policy)


def fuzz_mutated_native(
    fmt: str, history: list[dict[str, Any]], provider: str | None, data: st.DataObject
) -> None:
    """A history written in ``fmt`` by its adapter, mutated, through that adapter."""
    plain = native_plain(fmt, history)
    if plain is None:
        plain = history
    x = draw_mutant(data, plain, min_edits=0)
    note(f"x = {source(x)}  # {fmt}")
    check_adapter(fmt, x, provider)


error_texts = st.one_of(
    st.sampled_from(ERROR_PATTERNS).flatmap(lambda p: st.from_regex(p.regex)),
    texts,
)
errors: st.SearchStrategy[Any] = st.one_of(
    error_texts,
    error_texts.map(lambda t: {"error": {"message": t, "type": "invalid_request_error"}}),
    error_texts.map(lambda t: json.dumps({"error": {"message": t}})),
    error_texts.map(lambda t: t.encode("utf-8", "surrogatepass")),
    error_texts.map(ValueError),
    json_values,
)
"""Provider errors: text matching a known pattern (plain, in a body, JSON, bytes, an
exception), or any JSON value."""


def fuzz_reactive(
    fmt: str, history: list[dict[str, Any]], error: Any, provider: str | None, data: st.DataObject
) -> None:
    """A mutated history (canonical, or another format's, which must be refused) and an error."""
    plain = native_plain(fmt, history) if fmt != "ai-sdk" else history
    x = draw_mutant(data, history if plain is None else plain, min_edits=0)
    note(f"x = {source(x)}  # {fmt}")
    note(f"error = {source(error) if not isinstance(error, Exception) else repr(error)}")
    check_reactive(x, error, provider)


ROW_FORMATS: tuple[str, ...] = tuple(
    getattr(importlib.import_module("heal._formats"), "FORMAT_CHOICES", FORMATS)
)


def fuzz_heal_row(
    *,
    fmt: str,
    row_fmt: str,
    history: list[dict[str, Any]],
    provider: str | None,
    wrap: int,
    data: st.DataObject,
) -> None:
    """A mutated stored row (bare, in a request object, or under a key) through heal_row."""
    plain = native_plain(fmt, history)
    x = draw_mutant(data, history if plain is None else plain, min_edits=0)
    key = None
    if wrap == 1:
        x = {
            "model": "m",
            {"openai-responses": "input", "gemini": "contents"}.get(fmt, "messages"): x,
        }
    elif wrap == 2:
        key = "history"
        x = {"id": 1, key: x}
    note(f"x = {source(x)}  # {fmt}")
    try:
        text = to_json_text(x, ascii=wrap != 0)
    except (TypeError, ValueError):
        return
    as_bytes = data.draw(st.booleans(), label="as bytes")
    check_heal_row(
        text.encode("utf-8", "surrogatepass") if as_bytes else text, row_fmt, provider, key
    )


def fuzz_cli(
    *,
    fmt: str,
    cli_fmt: str,
    history: list[dict[str, Any]],
    provider: str | None,
    output: str,
    data: st.DataObject,
) -> None:
    """A mutated history in a file, through ``heal-messages check`` and ``migrate``."""
    plain = native_plain(fmt, history)
    x = draw_mutant(data, history if plain is None else plain, min_edits=0)
    note(f"x = {source(x)}  # {fmt}")
    try:
        text = to_json_text(x, ascii=data.draw(st.booleans(), label="ascii"))
    except (TypeError, ValueError):
        return
    check_cli(text.encode("utf-8", "surrogatepass"), cli_fmt, provider, output)


@dataclass(frozen=True)
class Target:
    """One fuzz target: a check and the strategies of its arguments."""

    name: str
    body: Callable[..., None]
    strategies: Mapping[str, st.SearchStrategy[Any]]
    examples: int
    """Examples per pytest run (the CI profile's count); ``HEAL_FUZZ_EXAMPLES`` overrides."""

    def test(self) -> Callable[[], None]:
        """The pytest test: ``given`` the strategies, with this target's example count."""
        wanted = int(os.environ.get("HEAL_FUZZ_EXAMPLES") or 0) or self.examples
        chosen = settings(
            settings.default,
            max_examples=wanted,
            deadline=None,
            suppress_health_check=[
                HealthCheck.too_slow,
                HealthCheck.data_too_large,
                HealthCheck.filter_too_much,
            ],
        )
        test: Callable[[], None] = chosen(given(**self.strategies)(self.body))
        return test


cli_formats = st.sampled_from(("auto", *FORMATS) if "auto" in ROW_FORMATS else FORMATS)

TARGETS: tuple[Target, ...] = (
    Target(
        "json-canonical",
        fuzz_json_canonical,
        {
            "x": json_documents,
            "provider": providers,
            "policy": policies,
            "as_text": st.integers(0, 3),
        },
        150,
    ),
    Target(
        "json-adapters",
        fuzz_json_adapters,
        {"fmt": formats, "x": json_documents, "provider": adapter_providers},
        120,
    ),
    Target(
        "mutated-canonical",
        fuzz_mutated_canonical,
        {"history": histories, "provider": providers, "policy": policies, "data": st.data()},
        200,
    ),
    Target(
        "mutated-native",
        fuzz_mutated_native,
        {"fmt": formats, "history": histories, "provider": adapter_providers, "data": st.data()},
        200,
    ),
    Target(
        "reactive",
        fuzz_reactive,
        {
            "fmt": formats,
            "history": histories,
            "error": errors,
            "provider": providers,
            "data": st.data(),
        },
        80,
    ),
    Target(
        "heal-row",
        fuzz_heal_row,
        {
            "fmt": formats,
            "row_fmt": st.sampled_from(ROW_FORMATS),
            "history": histories,
            "provider": providers,
            "wrap": st.integers(0, 2),
            "data": st.data(),
        },
        100,
    ),
    Target(
        "cli",
        fuzz_cli,
        {
            "fmt": formats,
            "cli_fmt": cli_formats,
            "history": histories,
            "provider": providers,
            "output": st.sampled_from(("text", "json", "github")),
            "data": st.data(),
        },
        30,
    ),
)
"""Every fuzz target; ``benchmarks.fuzz`` runs these same bodies and strategies."""

_BY_NAME = {t.name: t for t in TARGETS}

test_fuzz_json_canonical = _BY_NAME["json-canonical"].test()
test_fuzz_json_adapters = _BY_NAME["json-adapters"].test()
test_fuzz_mutated_canonical = _BY_NAME["mutated-canonical"].test()
test_fuzz_mutated_native = _BY_NAME["mutated-native"].test()
test_fuzz_reactive = _BY_NAME["reactive"].test()
test_fuzz_heal_row = _BY_NAME["heal-row"].test()
test_fuzz_cli = _BY_NAME["cli"].test()


@pytest.mark.parametrize("fmt", ["anthropic", "openai-responses"])
def test_a_fix_its_format_cannot_write_is_kept_and_the_output_still_checks(fmt: str) -> None:
    # Neither format holds a Gemini thought signature on a call, so for Google the adapter
    # keeps google-missing-thought-signature (a keep repair: reported, nothing claimed done);
    # the output is valid but for that kept problem, which the check must allow as kept (it
    # found this history in a mutated-native run and called its output invalid).
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": [{"type": "tool-call", **_CALL_FIELDS, **_INPUT}]},
        {
            "role": "tool",
            "content": [
                {"type": "tool-result", **_CALL_FIELDS, "output": {"type": "text", "value": "ok"}}
            ],
        },
    ]
    plain = native_plain(fmt, history)
    heal_native = getattr(adapter(fmt), f"heal_{fmt.replace('-', '_')}")
    healed = heal_native(plain, provider="google")
    assert [(r.rule, r.action) for r in healed.repairs] == [
        ("google-missing-thought-signature", Action.KEEP)
    ]
    check_adapter(fmt, plain, "google")


_CALL_FIELDS = {"toolCallId": "call_1", "toolName": "weather"}
_INPUT = {"input": {"city": "Paris"}}


@pytest.mark.parametrize("fmt", ["openai-chat", "langchain"])
def test_a_rule_its_format_settles_is_not_asked_of_the_output(fmt: str) -> None:
    # One tool message per result is these formats' shape, and Gemini's endpoints group them
    # into one function-response turn themselves, so for Google the adapter does not run
    # google-split-tool-results (_SETTLED). The check validated the loaded output with that
    # rule on and called two results of parallel calls invalid (a deep-profile mutated-native
    # run found it).
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool-call", "toolCallId": cid, "toolName": "weather", **_INPUT}
                for cid in ("call_1", "call_2")
            ],
        },
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": cid,
                    "toolName": "weather",
                    "output": {"type": "text", "value": "ok"},
                }
                for cid in ("call_1", "call_2")
            ],
        },
        {"role": "user", "content": "thanks"},
    ]
    plain = native_plain(fmt, history)
    native = _native_inputs(fmt, plain)[0]
    heal_native = getattr(adapter(fmt), f"heal_{fmt.replace('-', '_')}")
    assert heal_native(native, provider="google").repairs == ()
    check_adapter(fmt, plain, "google")
