"""The command line: exit codes (0 valid, 1 issues, 2 error) and the three output formats."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from heal.cli import main

VALID = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
ORPHAN = [
    {"role": "user", "content": "hi"},
    {
        "role": "assistant",
        "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {}}],
    },
    {"role": "user", "content": "and?"},
]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "ok.json").write_text(json.dumps(VALID))
    (tmp_path / "nested").mkdir()
    (tmp_path / "nested" / "chats.jsonl").write_text(
        "\n".join(
            json.dumps(x) for x in ({"id": 1, "messages": VALID}, {"id": 2, "messages": ORPHAN})
        )
        + "\n"
    )
    return tmp_path


def test_valid_file_exits_0(tree: Path) -> None:
    code, out, _ = run("check", str(tree / "ok.json"))
    assert code == 0
    assert "1 history checked: 0 invalid" in out


def test_issues_exit_1_with_file_line_rule_and_reason(tree: Path) -> None:
    code, out, _ = run("check", str(tree), "--provider", "anthropic")
    assert code == 1
    assert f"{tree / 'nested' / 'chats.jsonl'}:2:" in out
    assert "orphan-tool-call" in out and "after messages[1]" in out
    assert "3 histories checked: 1 invalid" in out


def test_unreadable_or_malformed_history_exits_2(tree: Path) -> None:
    (tree / "broken.json").write_text('[{"role": "user", "content": null}]')
    code, out, _ = run("check", str(tree))
    assert code == 2
    assert "broken.json: error: messages[0].content: content is null" in out
    (tree / "broken.json").write_text("{nope")
    assert run("check", str(tree / "broken.json"))[0] == 2


def test_bad_option_exits_2() -> None:
    assert run("check", "x.json", "--provider", "nope")[0] == 2


def test_json_output(tree: Path) -> None:
    code, out, _ = run(
        "check", str(tree / "nested"), "--output-format", "json", "--key", "messages"
    )
    assert code == 1
    payload = json.loads(out)
    assert [(r["line"], r["valid"]) for r in payload] == [(1, True), (2, False)]
    assert payload[1]["issues"][0]["rule"] == "orphan-tool-call"
    assert payload[1]["issues"][0]["anchor_index"] == 1


def test_github_annotations(tree: Path) -> None:
    code, out, _ = run("check", str(tree), "--output-format", "github")
    assert code == 1
    [line] = out.splitlines()
    assert line.startswith(
        f"::error file={tree / 'nested' / 'chats.jsonl'},line=2,title=heal orphan-tool-call::"
    )


def test_python_dash_m_and_rules_listing() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "heal", "rules"], capture_output=True, text=True, check=True
    )
    assert "orphan-tool-call" in done.stdout and "empty-message" in done.stdout


def test_json_lines_are_checked_line_by_line(tmp_path: Path) -> None:
    path = tmp_path / "chats.jsonl"
    path.write_text(
        "\n".join(
            [
                json.dumps({"id": 1, "messages": VALID}),
                json.dumps({"id": 2, "messages": ORPHAN}),
                json.dumps({"id": 3, "msgs": []}),
                "garbage",
                json.dumps({"id": 5, "messages": ORPHAN}),
            ]
        )
        + "\n"
    )
    code, out, _ = run("check", str(path), "--key", "messages", "--provider", "anthropic")
    assert code == 2
    assert f"{path}:3: error: cannot read: no 'messages' field in this record" in out
    assert f"{path}:4: error: cannot read: " in out
    # The lines around the bad ones are still checked and their issues reported.
    assert f"{path}:2:\n" in out and f"{path}:5:\n" in out
    assert out.count("orphan-tool-call") == 2
    assert "3 histories checked: 2 invalid, 2 issue(s), 2 error(s)" in out
    code, out, _ = run("check", str(path), "--key", "messages", "--output-format", "json")
    assert [(r["line"], r["valid"], r["error"] is None) for r in json.loads(out)] == [
        (1, True, True),
        (2, False, True),
        (3, False, False),
        (4, False, False),
        (5, False, True),
    ]


def test_an_unreadable_file_is_an_error_not_a_checked_history(tree: Path) -> None:
    code, out, _ = run("check", str(tree / "missing.json"), str(tree / "ok.json"))
    assert code == 2
    assert f"{tree / 'missing.json'}: error: cannot read:" in out
    assert "1 history checked: 0 invalid, 0 issue(s), 1 error(s)" in out


def test_anthropic_request_reaches_the_adapter_with_its_system_parameter(tmp_path: Path) -> None:
    request = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64,
        "system": "be \ud83d brief",  # a lone surrogate, escaped as \ud83d by json.dumps
        "messages": VALID,
    }
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request))
    code, out, _ = run("check", str(path), "--format", "anthropic", "--provider", "anthropic")
    assert code == 1
    assert "lone-surrogate" in out
    code, out, _ = run("check", str(path), "--format", "anthropic", "--output-format", "json")
    [issue] = json.loads(out)[0]["issues"]
    # Reported as heal_anthropic does: the system parameter has no message index.
    assert (issue["rule"], issue["message_index"]) == ("lone-surrogate", None)


def test_openai_responses_request_is_read_at_its_input(tmp_path: Path) -> None:
    request = {
        "model": "gpt-5",
        "instructions": "be brief",
        "input": [
            {"role": "user", "content": "hi"},
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"role": "user", "content": "?"},
        ],
    }
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request))
    code, out, _ = run("check", str(path), "--format", "openai-responses")
    assert code == 1, out
    assert "orphan-tool-call" in out


def _pydantic_ai_json(*, orphan: bool) -> bytes:
    pa = pytest.importorskip("pydantic_ai.messages")
    history = [
        pa.ModelRequest(parts=[pa.UserPromptPart("hi")]),
        pa.ModelResponse(
            parts=[pa.ToolCallPart("f", {}, tool_call_id="c1")]
            if orphan
            else [pa.TextPart("hello")],
            model_name="gpt-4o",
        ),
        pa.ModelRequest(parts=[pa.UserPromptPart("?")]),
    ]
    return bytes(pa.ModelMessagesTypeAdapter.dump_json(history))


def test_pydantic_ai_stored_json(tmp_path: Path) -> None:
    (tmp_path / "ok.json").write_bytes(_pydantic_ai_json(orphan=False))
    (tmp_path / "orphan.json").write_bytes(_pydantic_ai_json(orphan=True))
    (tmp_path / "chats.jsonl").write_text(
        "\n".join(
            json.dumps({"id": i, "messages": json.loads(_pydantic_ai_json(orphan=orphan))})
            for i, orphan in enumerate((False, True))
        )
    )
    code, out, _ = run("check", str(tmp_path / "ok.json"), "--format", "pydantic-ai")
    assert (code, out) == (0, "1 history checked: 0 invalid, 0 issue(s), 0 error(s)\n")
    code, out, _ = run("check", str(tmp_path / "orphan.json"), "--format", "pydantic-ai")
    assert code == 1 and "orphan-tool-call" in out
    code, out, _ = run(
        "check", str(tmp_path / "chats.jsonl"), "--format", "pydantic-ai", "--key", "messages"
    )
    assert code == 1
    assert f"{tmp_path / 'chats.jsonl'}:2:" in out and "orphan-tool-call" in out
    assert "2 histories checked: 1 invalid" in out
