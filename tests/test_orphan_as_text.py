"""``orphan-tool-result`` = ``as-text`` on any history, for every provider id: the output heals to
itself and validates, and every result it turned into text is in the output, in a user message.
The case file (``tests/cases/shared/orphan-tool-result.json``) pins the text and the placement
per provider; ``tests/interop/test_orphan_as_text.py`` has the real AI SDK judge them."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings

from heal import PROVIDERS, Action, dump_messages, heal_messages, validate_messages
from tests.strategies import broken_histories

AS_TEXT = {"orphan-tool-result": "as-text"}
_SURROGATE = re.compile("[\ud800-\udfff]")


def _user_texts(history: list[dict[str, Any]]) -> list[str]:
    texts: list[str] = []
    for message in history:
        if message["role"] != "user":
            continue
        content = message["content"]
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        texts += [p["text"] for p in parts if p["type"] == "text"]
    return texts


@pytest.mark.parametrize("provider", [None, *PROVIDERS])
@settings(max_examples=40)
@given(history=broken_histories())
def test_as_text_output_validates_and_keeps_each_result_as_user_text(
    provider: Any, history: list[dict[str, Any]]
) -> None:
    result = heal_messages(history, provider=provider, policy=AS_TEXT)
    again = heal_messages(result.messages, provider=provider, policy=AS_TEXT)
    assert not [r.describe() for r in again.repairs if r.changed]
    check = validate_messages(result.messages, provider=provider, policy=AS_TEXT)
    reported = sorted((r.rule, r.reason) for r in result.repairs if r.action is Action.REPORT)
    assert sorted((r.rule, r.reason) for r in check.issues if r.action is not Action.KEEP) == (
        reported
    )

    texts = _user_texts(dump_messages(result.messages))
    for repair in result.repairs:
        if repair.rule != "orphan-tool-result" or repair.action is not Action.REPLACE:
            continue
        assert isinstance(repair.removed, dict) and isinstance(repair.added, dict)
        text = repair.added["text"]
        assert isinstance(text, str)
        assert f"(call {repair.removed['toolCallId']})" in text
        if not _SURROGATE.search(text) and "\\u" not in text:
            assert text in texts, text
