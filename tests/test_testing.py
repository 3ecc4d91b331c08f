"""heal.testing.assert_valid_history and the pytest plugin's report."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from heal.testing import HistoryAssertionError, assert_valid_history

ORPHAN = [
    {"role": "user", "content": "hi"},
    {
        "role": "assistant",
        "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {}}],
    },
    {"role": "user", "content": "and?"},
]


def test_valid_history_passes() -> None:
    assert_valid_history([{"role": "user", "content": "hi"}], provider="anthropic")


def test_invalid_history_raises_a_readable_assertion_error() -> None:
    with pytest.raises(AssertionError) as info:
        assert_valid_history(ORPHAN, provider="anthropic", label="fixtures/chat.json")
    error = info.value
    assert isinstance(error, HistoryAssertionError)
    assert [i.rule for i in error.issues] == ["orphan-tool-call"]
    assert str(error).splitlines() == [
        "fixtures/chat.json: history is not valid for provider 'anthropic': 1 issue(s)",
        "  after messages[1]: orphan-tool-call: tool call 'c1' to 'f' has no result; added a placeholder result",
    ]


def test_plugin_is_lazy_and_reports_the_list(tmp_path: Path) -> None:
    test_file = tmp_path / "test_golden.py"
    test_file.write_text(
        textwrap.dedent(f"""
        import sys
        from heal.testing import assert_valid_history

        def test_plugin_loaded_without_pydantic():
            pass

        def test_golden():
            assert_valid_history({ORPHAN!r}, provider="openai-chat")
    """)
    )
    check = subprocess.run(
        [sys.executable, "-c", "import sys, heal.pytest_plugin; print('pydantic' in sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert check.stdout.strip() == "False"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 1
    assert "history is not valid for provider 'openai-chat': 1 issue(s)" in done.stdout
    assert "orphan-tool-call" in done.stdout
    assert "Traceback" not in done.stdout and "def assert_valid_history" not in done.stdout
