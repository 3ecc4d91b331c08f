"""Cross-format: a history loaded from one format, healed for another provider and dumped in that
provider's format is valid for it.

For every source format (the six adapters' native strategies) and every target provider with a
native format (Anthropic, OpenAI Chat, OpenAI Responses, Gemini), the dump must (i) pass the
target SDK's own request types, (ii) read back and pass heal's rules for the target, and (iii)
come back untouched when the target's ``heal_<format>`` heals it again.

Known gaps in heal (``DUMP_GAPS``, ``SDK_GAPS``) are stepped around by name, narrowly, and
counted as hypothesis events (``--hypothesis-show-statistics``); each has a strict xfail test
(``_gap``) at the end with its minimal repro, so a fix turns that test into an XPASS failure that
says to remove both. The repros of fixed gaps stay there as regression tests.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage
from pydantic_ai import messages as pa

import heal
from heal import Action, InputError, ProviderId
from heal.adapters import anthropic, gemini, langchain, openai_chat, openai_responses, pydantic_ai
from heal.repairs import Repair

from . import (
    strategies_anthropic,
    strategies_gemini,
    strategies_langchain,
    strategies_openai_chat,
    strategies_openai_responses,
    strategies_pydantic_ai,
)
from .test_anthropic import sdk_validate as anthropic_sdk_validate
from .test_gemini import sdk_validate as gemini_sdk_validate
from .test_openai_chat import sdk_validate as openai_chat_sdk_validate
from .test_openai_responses import sdk_validate as openai_responses_sdk_validate

PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@dataclass(frozen=True)
class Source:
    adapter: ModuleType
    histories: st.SearchStrategy[Any]


@dataclass(frozen=True)
class Target:
    adapter: ModuleType
    dump: Callable[[list[Any]], Any]
    heal: Callable[..., Any]
    sdk_validate: Callable[[Any], None]


SOURCES: dict[str, Source] = {
    "anthropic": Source(anthropic, strategies_anthropic.histories(sdk=True)),
    "openai_chat": Source(openai_chat, strategies_openai_chat.histories(sdk=True)),
    "openai_responses": Source(openai_responses, strategies_openai_responses.input_items()),
    "gemini": Source(
        gemini,
        strategies_gemini.gemini_histories(flavor="json")
        | strategies_gemini.gemini_histories(flavor="python"),
    ),
    "pydantic_ai": Source(pydantic_ai, strategies_pydantic_ai.histories()),
    "langchain": Source(langchain, strategies_langchain.histories()),
}

TARGETS: dict[ProviderId, Target] = {
    # A request's system prompt goes in the ``system`` parameter: dump the params shape.
    "anthropic": Target(
        anthropic,
        lambda messages: anthropic.dump_messages(messages, shape="params"),
        anthropic.heal_anthropic,
        anthropic_sdk_validate,
    ),
    "openai-chat": Target(
        openai_chat,
        openai_chat.dump_messages,
        openai_chat.heal_openai_chat,
        openai_chat_sdk_validate,
    ),
    "openai-responses": Target(
        openai_responses,
        openai_responses.dump_messages,
        openai_responses.heal_openai_responses,
        openai_responses_sdk_validate,
    ),
    "google": Target(gemini, gemini.dump_messages, gemini.heal_gemini, gemini_sdk_validate),
}


# --- known gaps ------------------------------------------------------------------------------


def _blocks(value: Any) -> Iterator[dict[str, Any]]:
    """Every dict nested in a native history (messages, items, contents, blocks, parts)."""
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from _blocks(v)
    elif isinstance(value, list):
        for v in value:
            yield from _blocks(v)


def _drop_blocks(value: Any, bad: Callable[[Any], bool]) -> Any:
    """A copy of a native history without the blocks ``bad`` picks, wherever they are nested."""
    if isinstance(value, dict):
        return {k: _drop_blocks(v, bad) for k, v in value.items()}
    if isinstance(value, list):
        return [_drop_blocks(v, bad) for v in value if not bad(v)]
    return value


@dataclass(frozen=True)
class SdkGap:
    """Dumped output the target SDK rejects: ``applies`` spots it, ``scrub`` takes it out of a
    copy so the SDK still checks everything else."""

    applies: Callable[[Any], bool]
    scrub: Callable[[Any], Any]


# Dump errors heal's rules for the target should have prevented: gap -> (target, reason regex).
DUMP_GAPS: dict[str, tuple[ProviderId, str]] = {}

# Dumped output the target SDK rejects: gap -> (target, SdkGap).
SDK_GAPS: dict[str, tuple[ProviderId, SdkGap]] = {}


def _describe(repairs: Any) -> list[str]:
    return [f"{r.describe()} [{r.action.value}]" for r in repairs]


_REPORTED_FILES = "anthropic-assistant-file"
"""A file in an assistant message heal must not edit (the latest with signed reasoning) is
reported and stays: the caller was told to end the turn or remove it. Its format may have no
block for it (an undecodable text file), and its SDK may refuse the block it gets (audio)."""


def _files_reported(repairs: Any) -> bool:
    return any(r.rule == _REPORTED_FILES and r.action is Action.REPORT for r in repairs)


def _dump_or_known_gap(target: ProviderId, healed: list[Any], repairs: Any = ()) -> Any:
    """The dump, or None after recording a known gap (or a reported file) that made it fail."""
    try:
        return TARGETS[target].dump(healed)
    except InputError as exc:
        if _files_reported(repairs):
            event("a reported file is not written")
            return None
        for name, (gap_target, message) in DUMP_GAPS.items():
            if target == gap_target and re.match(message, exc.reason):
                event(f"known gap: {name}")
                return None
        raise


_CALL_ID_KEYS = ("id", "tool_use_id", "call_id", "tool_call_id")
_FILE_BLOCKS = frozenset({"image", "document"})


def _check_sdk(target: ProviderId, out: Any, first: Any) -> None:
    # A call heal reported as unsendable (Action.REPORT: it sits where no edit is safe) stays as
    # it was, and the caller was told: its blocks are left out of the SDK check.
    reported = {r.tool_call_id for r in first if r.action is Action.REPORT and r.tool_call_id}

    def names_reported(block: Any) -> bool:
        return isinstance(block, dict) and any(
            isinstance(block.get(k), str) and block[k] in reported for k in _CALL_ID_KEYS
        )

    if reported and any(map(names_reported, _blocks(out))):
        event("reported calls left out of the SDK check")
        out = _drop_blocks(out, names_reported)
    if _files_reported(first):
        event("reported files left out of the SDK check")
        out = _drop_blocks(
            out, lambda block: isinstance(block, dict) and block.get("type") in _FILE_BLOCKS
        )
    for name, (gap_target, gap) in SDK_GAPS.items():
        if target == gap_target and gap.applies(out):
            event(f"known gap: {name}")
            out = gap.scrub(out)
    TARGETS[target].sdk_validate(out)


# --- the property ----------------------------------------------------------------------------

PAIRS = [(source, target) for source in SOURCES for target in TARGETS]


@pytest.mark.parametrize(("source", "target"), PAIRS)
@PROPERTY
@given(data=st.data())
def test_history_healed_for_another_provider_is_valid_in_its_format(
    source: str, target: ProviderId, data: st.DataObject
) -> None:
    src, dst = SOURCES[source], TARGETS[target]
    native = data.draw(src.histories, label=f"{source} history")
    try:
        loaded = src.adapter.load_messages(native)
    except InputError as exc:
        # The LangChain strategy sometimes draws an AI message holding only blocks with no AI
        # SDK equivalent (a lone "document"), which the adapter refuses by design.
        assume(source != "langchain" or "no AI SDK equivalent" not in exc.reason)
        raise
    first = heal.heal_messages(loaded, provider=target)
    unfixable = any(r.action is Action.REPORT for r in first.repairs)
    out = _dump_or_known_gap(target, first.messages, first.repairs)
    if out is None:
        return

    # (i) The target SDK's own request types accept the dump.
    _check_sdk(target, out, first.repairs)

    # (ii) It reads back in the target format and heal's rules for the target accept it. Only
    # findings no edit can fix (Action.REPORT) may stay, and only when the first heal reported
    # the history as unfixable.
    back = dst.adapter.load_messages(out)
    report = heal.validate_messages(back, provider=target)
    left = [i for i in report.issues if not (unfixable and i.action is Action.REPORT)]
    assert not left, _describe(left)

    # (iii) Healing the dump again for the target changes nothing: the very same object comes
    # back, with at most the reports the first heal already made.
    again = dst.heal(out, provider=target)
    changed: list[Repair] = [r for r in again.repairs if r.changed]
    assert not changed, _describe(changed)
    assert again.messages is out
    assert all(r.action is Action.REPORT for r in again.repairs), _describe(again.repairs)
    reported = {r.rule for r in first.repairs if r.action is Action.REPORT}
    if "empty-message" in reported:
        # A history of blank messages is reported and kept; a format that writes no blank
        # message dumps it as no message at all, which is the same report under its own name.
        reported.add("empty-history")
    assert {r.rule for r in again.repairs} <= reported, _describe(again.repairs)


# --- the known gaps, one minimal repro each --------------------------------------------------


def _cross(source: str, native: Any, target: ProviderId) -> Any:
    """Load ``native`` from ``source``, heal it for ``target``; the target's SDK-checked dump."""
    healed = heal.heal_messages(SOURCES[source].adapter.load_messages(native), provider=target)
    out = TARGETS[target].dump(healed.messages)
    TARGETS[target].sdk_validate(out)
    return out


def _gap(name: str, why: str, raises: type[Exception]) -> pytest.MarkDecorator:
    return pytest.mark.xfail(
        strict=True,
        raises=raises,
        reason=f"heal bug {name!r}: {why}. Once fixed, drop this xfail and the gap's entry above.",
    )


# openai-chat: provider-executed-tool-call already removes every provider-executed call.
@pytest.mark.parametrize("target", ["openai-responses", "openai-chat"])
def test_foreign_server_tool_is_handled_for_openai(target: ProviderId) -> None:
    native = [
        {"role": "user", "content": "news?"},
        {
            "role": "assistant",
            "content": [
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
                {"type": "text", "text": "none"},
            ],
        },
    ]
    out = _cross("anthropic", native, target)
    assert "srvtoolu_1" not in repr(out)


@pytest.mark.parametrize("target", ["openai-responses", "openai-chat"])
def test_assistant_file_is_handled_for_openai(target: ProviderId) -> None:
    native = [
        {"role": "user", "parts": [{"text": "draw"}]},
        {"role": "model", "parts": [{"inline_data": {"mime_type": "image/png", "data": "iVBO"}}]},
    ]
    _cross("gemini", native, target)


def test_unsigned_reasoning_beside_signed_thinking_is_handled_for_anthropic() -> None:
    native = [
        HumanMessage("hi"),
        AIMessage(
            [{"type": "redacted_thinking", "data": "cmVk"}, {"type": "text", "text": "x"}],
            additional_kwargs={"reasoning_content": "t"},
        ),
    ]
    _cross("langchain", native, "anthropic")


def test_audio_file_is_handled_for_anthropic() -> None:
    native = [
        {
            "role": "user",
            "content": [
                {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}
            ],
        }
    ]
    _cross("openai_chat", native, "anthropic")


def test_a_file_in_a_signed_assistant_turn_is_reported_for_anthropic() -> None:
    # The latest assistant message with signed reasoning is one heal must not edit: the file it
    # holds is reported and stays; a text/plain file whose bytes are not UTF-8 then has no
    # Anthropic block, and writing says where (found by a random run of the property above).
    native: list[pa.ModelMessage] = [
        pa.ModelRequest([pa.UserPromptPart("hi")]),
        pa.ModelResponse(
            [
                pa.ThinkingPart("hi", signature="sig-A", provider_name="anthropic"),
                pa.FilePart(pa.BinaryContent(data=b"\x80", media_type="text/plain")),
            ]
        ),
    ]
    healed = heal.heal_messages(pydantic_ai.load_messages(native), provider="anthropic")
    assert [(r.rule, r.action) for r in healed.repairs] == [
        ("anthropic-assistant-file", Action.REPORT)
    ]
    with pytest.raises(InputError, match=r"messages\[1\]\.content\[1\]\.data"):
        anthropic.dump_messages(healed.messages)


def test_undecodable_text_file_is_handled_for_anthropic() -> None:
    native = [
        pa.ModelRequest(
            [pa.UserPromptPart([pa.BinaryContent(data=b"\xff", media_type="text/plain")])]
        )
    ]
    _cross("pydantic_ai", native, "anthropic")


def test_image_from_another_format_is_sdk_valid_for_openai_responses() -> None:
    native = [
        {
            "role": "user",
            "content": [
                {"type": "image", "source": {"type": "url", "url": "https://x.test/a.png"}}
            ],
        }
    ]
    _cross("anthropic", native, "openai-responses")


def test_encrypted_reasoning_without_an_item_id_is_handled_for_openai_responses() -> None:
    native = [
        pa.ModelRequest([pa.UserPromptPart("hi")]),
        pa.ModelResponse(
            [pa.ThinkingPart("", signature="enc", provider_name="openai"), pa.TextPart("x")]
        ),
    ]
    _cross("pydantic_ai", native, "openai-responses")


def test_openai_file_id_is_handled_for_google() -> None:
    native = [{"role": "user", "content": [{"type": "file", "file": {"file_id": "file-abc123"}}]}]
    _cross("openai_chat", native, "google")


def test_openai_file_id_in_a_tool_output_is_handled_for_anthropic() -> None:
    native = [
        {"role": "user", "content": "look"},
        {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"},
        {
            "type": "function_call_output",
            "call_id": "call_1",
            "output": [{"type": "input_image", "file_id": "file-1", "detail": "auto"}],
        },
    ]
    _cross("openai_responses", native, "anthropic")


def test_all_empty_history_is_stable_through_gemini() -> None:
    out = _cross("anthropic", [{"role": "user", "content": ""}], "google")
    again = gemini.heal_gemini(out)
    assert not again.changed, _describe(again.repairs)
