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
