"""The command line: exit codes (0 valid, 1 issues, 2 error) and the three output formats."""

from __future__ import annotations

import errno
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from heal.cli import main
from heal.rules import Context, Finding, Rule, default_registry, register_rule

VALID = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
ORPHAN = [
    {"role": "user", "content": "hi"},
    {
        "role": "assistant",
        "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {}}],
    },
    {"role": "user", "content": "and?"},
]


def run(*argv: str, stdin: str | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    if stdin is None:
        code = main(list(argv), stdout=out, stderr=err)
    else:
        code = main(list(argv), stdout=out, stderr=err, stdin=io.StringIO(stdin))
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


# --- JSON Lines: a record ends at "\n" only ---------------------------------------------------


def test_json_lines_records_end_at_newline_only(tmp_path: Path) -> None:
    # json.dumps(ensure_ascii=False) writes U+2028, U+0085 and U+2029 raw inside strings, and
    # "\r" is JSON whitespace: none of them ends a record, though str.splitlines splits on all
    # of them (and on \x0b, \x0c, \x1c-\x1e, which make line 2 invalid JSON but still one line).
    odd = {"role": "user", "content": "a\u2028b\x85c\u2029d"}
    lines = [
        json.dumps({"id": 1, "messages": [odd, VALID[1]]}, ensure_ascii=False).replace(
            ', "messages"', ',\r"messages"'
        ),
        '{"id": 2, "messages": "raw \x0b\x0c\x1c\x1d\x1e are not JSON"}',
        json.dumps({"id": 3, "messages": ORPHAN}) + "\r",
    ]
    path = tmp_path / "chats.jsonl"
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
    code, out, _ = run("check", str(path), "--key", "messages", "--output-format", "json")
    assert code == 2
    assert [(r["line"], r["valid"], r["error"] is None) for r in json.loads(out)] == [
        (1, True, True),
        (2, False, False),
        (3, False, True),
    ]


# --- output piped into a reader that stops early ----------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="EPIPE and status 141 are Unix conventions")
def test_a_reader_that_stops_early_ends_the_run_quietly(tmp_path: Path) -> None:
    calls = [
        {"type": "tool-call", "toolCallId": f"c{i}", "toolName": "f", "input": {}}
        for i in range(20)
    ]
    history = [ORPHAN[0], {"role": "assistant", "content": calls}, ORPHAN[2]]
    files = []
    for i in range(100):  # about 200 kB of report: more than a pipe holds
        files.append(tmp_path / f"chat{i}.json")
        files[-1].write_text(json.dumps(history))
    proc = subprocess.Popen(
        [sys.executable, "-m", "heal", "check", *map(str, files)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline() == f"{files[0]}:\n".encode()
    proc.stdout.close()  # as `| head -1` does
    stderr = proc.stderr.read()
    assert proc.wait(timeout=60) == 141
    assert stderr == b""


# --- standard input ---------------------------------------------------------------------------


def test_dash_reads_one_json_document_from_stdin() -> None:
    code, out, _ = run("check", "-", stdin=json.dumps(ORPHAN, indent=2))
    assert code == 1
    assert out.startswith("-:\n  after messages[1]: orphan-tool-call:")
    assert out.endswith("1 history checked: 1 invalid, 1 issue(s), 0 error(s)\n")


def test_dash_reads_json_lines_from_stdin() -> None:
    text = "\n".join([json.dumps({"messages": VALID}), "", json.dumps({"messages": ORPHAN}), "{"])
    code, out, _ = run("check", "-", "--key", "messages", "--output-format", "json", stdin=text)
    assert code == 2
    assert [(r["file"], r["line"], r["valid"], r["error"] is None) for r in json.loads(out)] == [
        ("-", 1, True, True),
        ("-", 3, False, True),
        ("-", 4, False, False),
    ]


def test_stdin_filename_names_stdin_and_its_suffix_decides_the_reading() -> None:
    one_record = json.dumps({"messages": ORPHAN}) + "\n"
    code, out, _ = run(
        "check", "-", "--stdin-filename", "chats.jsonl", "--key", "messages", stdin=one_record
    )
    assert (code, out.splitlines()[0]) == (1, "chats.jsonl:1:")
    # As in ruff, --stdin-filename without paths reads standard input.
    code, out, _ = run("check", "--stdin-filename", "chat.json", stdin=json.dumps(ORPHAN))
    assert (code, out.splitlines()[0]) == (1, "chat.json:")
    assert run("check")[0] == 2  # neither paths nor --stdin-filename


CHECK_STDIN = [sys.executable, "-m", "heal", "check", "-"]


def test_stdin_is_read_as_utf8_and_unencodable_output_is_escaped() -> None:
    # Raw UTF-8 on stdin, under an ASCII locale that would fail to decode it as text.
    text = (
        json.dumps(
            {"messages": [{"role": "user", "content": "h\u00e9\u2028"}, VALID[1]]},
            ensure_ascii=False,
        )
        + "\n"
        + json.dumps({"messages": ORPHAN})
    )
    done = subprocess.run(
        [*CHECK_STDIN, "--key", "messages", "--stdin-filename", "caf\u00e9.jsonl"],
        input=text.encode("utf-8"),
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
        check=False,
    )
    assert (done.returncode, done.stderr) == (1, b"")
    assert done.stdout.startswith(b"caf\\xe9.jsonl:2:\n")


# --- rule selection and choices ---------------------------------------------------------------

BROKEN = [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": []},  # empty-message
    ORPHAN[1],  # orphan-tool-call
    {"role": "user", "content": "and?"},
]


def rules_reported(*argv: str) -> list[str]:
    code, out, _ = run("check", *argv, "--output-format", "json")
    assert code in (0, 1), out
    return sorted(issue["rule"] for record in json.loads(out) for issue in record["issues"])


def test_select_and_ignore_restrict_the_rules(tmp_path: Path) -> None:
    path = str(tmp_path / "broken.json")
    Path(path).write_text(json.dumps(BROKEN))
    assert rules_reported(path) == ["empty-message", "orphan-tool-call"]
    assert rules_reported(path, "--select", "orphan-tool-call") == ["orphan-tool-call"]
    assert rules_reported(path, "--ignore", "orphan-tool-call") == ["empty-message"]
    both = ["--select", "orphan-tool-call,empty-message", "--ignore", "empty-message"]
    assert rules_reported(path, *both) == ["orphan-tool-call"]
    # Selecting a rule that is off by default turns it on.
    ok = str(tmp_path / "ok.json")
    Path(ok).write_text(json.dumps(VALID))
    assert rules_reported(ok, "--provider", "anthropic") == []
    assert rules_reported(
        ok, "--provider", "anthropic", "--select", "anthropic-assistant-prefill"
    ) == ["anthropic-assistant-prefill"]


def test_choice_sets_a_rules_fix(tmp_path: Path) -> None:
    path = tmp_path / "orphan.json"
    path.write_text(json.dumps(ORPHAN))
    code, out, _ = run("check", str(path), "--choice", "orphan-tool-call=drop-call")
    assert code == 1
    assert "orphan-tool-call: tool call 'c1' to 'f' has no result; would remove\n" in out
    code, out, _ = run("check", str(path), "--choice", "orphan-tool-call=keep")
    assert code == 0
    assert "has no result; left as is (choice keep)\n" in out


@pytest.mark.parametrize(
    ("option", "named"),
    [
        (["--select", "orphan-tool-call,nope"], "unknown rule 'nope' in --select"),
        (["--ignore", "nope"], "unknown rule 'nope' in --ignore"),
        (["--select", "orphan-tool-call,"], "unknown rule '' in --select"),
        (["--choice", "nope=fix"], "unknown rule 'nope' in --choice"),
        (["--choice", "orphan-tool-call=nope"], "unknown choice 'nope' for orphan-tool-call"),
        (["--choice", "orphan-tool-call"], "--choice 'orphan-tool-call' is not RULE=CHOICE"),
    ],
)
def test_an_unknown_rule_or_choice_is_one_line_exit_2(
    tree: Path, option: list[str], named: str
) -> None:
    code, out, err = run("check", str(tree), *option)
    assert (code, out) == (2, "")
    [line] = err.splitlines()
    assert line.startswith(f"heal-messages: error: {named}")
    assert "heal-messages rules" in line


# --- --exit-zero and --quiet ------------------------------------------------------------------


def test_exit_zero_turns_issues_but_not_errors_into_exit_0(tree: Path) -> None:
    for flag in ("--exit-zero", "-e"):
        code, out, _ = run("check", str(tree), flag)
        assert code == 0 and "orphan-tool-call" in out
    (tree / "broken.json").write_text("{nope")
    assert run("check", str(tree), "--exit-zero")[0] == 2


def test_quiet_prints_the_findings_and_nothing_else(tree: Path) -> None:
    (tree / "broken.json").write_text("{nope")
    code, out, err = run("check", str(tree), "--quiet")
    assert (code, err) == (2, "")
    assert [line.split(": ")[0] for line in out.splitlines()] == [
        f"{tree / 'broken.json'}",
        f"{tree / 'nested' / 'chats.jsonl'}:2:",
        "  after messages[1]",
    ]
    assert run("check", str(tree / "ok.json"), "-q") == (0, "", "")


# --- --help -----------------------------------------------------------------------------------


def test_help_shows_defaults_and_exit_codes() -> None:
    code, out, _ = run("check", "--help")
    assert code == 0
    text = " ".join(out.split())
    assert "takes AI SDK messages when none is foreign (default: auto)" in text
    assert "report format (default: text)" in text
    assert "(default: None)" not in text and "(default: False)" not in text
    assert "exit codes: 0 every history is valid 1 issues found" in text
    assert "2 an error" in text
    code, out, _ = run("--help")
    assert code == 0 and "exit codes:" in out


# --- nothing to check -------------------------------------------------------------------------


def test_a_folder_without_json_files_is_a_loud_warning(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("[]")
    code, out, err = run("check", str(tmp_path))
    assert (code, out) == (0, "0 histories checked: 0 invalid, 0 issue(s), 0 error(s)\n")
    assert err == f"heal-messages: warning: no .json or .jsonl files found in {tmp_path}\n"
    assert run("check", str(tmp_path), "-q") == (0, "", "")  # as in ruff


# --- check mode words findings as what healing would do ---------------------------------------


def test_findings_say_what_healing_would_do(tmp_path: Path) -> None:
    history = [
        {"role": "user", "content": "hi \ud800"},
        {"role": "assistant", "content": [{"type": "text", "text": " "}]},
        {
            "role": "assistant",
            "content": [
                {"type": "tool-call", "toolCallId": "c.1", "toolName": "f", "input": {}},
                {"type": "tool-call", "toolCallId": "c2", "toolName": "f", "input": {}},
            ],
        },
        {"role": "user", "content": "and?"},
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": "c2",
                    "toolName": "f",
                    "output": {"type": "text", "value": "ok"},
                }
            ],
        },
    ]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(history))
    code, out, _ = run("check", str(path))
    assert code == 1
    assert out.splitlines()[1:-1] == [
        "  messages[2].content[0]: invalid-tool-call-id: tool-call id 'c.1' is not a valid "
        "tool-call id; would become 'c_1'",
        "  messages[4].content[0]: misplaced-tool-result: result for tool call 'c2' was not "
        "right after its call; would move there (the tool message it was in held nothing else)",
        "  after messages[2]: orphan-tool-call: tool call 'c_1' to 'f' has no result; "
        "would add a placeholder result",
        "  messages[0]: lone-surrogate: text holds a lone UTF-16 surrogate; "
        "would replace with U+FFFD",
        "  messages[1].content[0]: empty-text: text part is whitespace only; would remove",
        "  messages[1]: empty-message: assistant message has no content; would remove",
    ]
    code, out, _ = run("check", str(path), "--output-format", "github")
    assert "::messages[1]: empty-message: assistant message has no content; would remove\n" in out


# --- no tracebacks: every error is one line and exit 2 ----------------------------------------


def test_json_nested_too_deep_is_an_error_for_its_file_only(tmp_path: Path) -> None:
    (tmp_path / "a_deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (tmp_path / "b_orphan.json").write_text(json.dumps(ORPHAN))
    code, out, err = run("check", str(tmp_path))
    assert (code, err) == (2, "")
    assert out.startswith(f"{tmp_path / 'a_deep.json'}: error: cannot read: RecursionError: ")
    assert f"{tmp_path / 'b_orphan.json'}:\n  after messages[1]: orphan-tool-call:" in out
    assert out.endswith("1 history checked: 1 invalid, 1 issue(s), 1 error(s)\n")


class Boom(Rule):
    """A rule with a bug: raises TypeError on a history holding the text "boom"."""

    id = "test-boom"
    summary = "raises on 'boom'"

    def check(self, ctx: Context, choice: str) -> Iterator[Finding]:
        del choice
        if any("boom" in repr(message) for message in ctx.messages):
            raise TypeError("boom\n  on a second line")
        yield from ()


@pytest.fixture
def buggy_rule() -> Iterator[None]:
    register_rule(Boom())
    try:
        yield
    finally:
        default_registry.unregister(Boom.id)


@pytest.mark.usefixtures("buggy_rule")
def test_an_unexpected_exception_is_that_records_error(tmp_path: Path) -> None:
    path = tmp_path / "chats.jsonl"
    path.write_text(
        "\n".join(json.dumps(h) for h in (ORPHAN, [{"role": "user", "content": "boom"}], ORPHAN))
    )
    code, out, err = run("check", str(path))
    assert (code, err) == (2, "")
    assert f"{path}:2: error: unexpected TypeError: boom on a second line\n" in out
    assert f"{path}:1:\n" in out and f"{path}:3:\n" in out
    assert out.endswith("2 histories checked: 2 invalid, 2 issue(s), 1 error(s)\n")


class FullDisk(io.StringIO):
    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")


def test_an_os_error_writing_the_report_is_one_line_exit_2(tree: Path) -> None:
    err = io.StringIO()
    assert main(["check", str(tree)], stdout=FullDisk(), stderr=err) == 2
    assert err.getvalue() == "heal-messages: error: [Errno 28] No space left on device\n"
    err = io.StringIO()
    assert main(["rules"], stdout=FullDisk(), stderr=err) == 2
    assert err.getvalue() == "heal-messages: error: [Errno 28] No space left on device\n"


def test_an_unexpected_error_writing_the_report_is_one_line_exit_2(tmp_path: Path) -> None:
    (tmp_path / "caf\u00e9.json").write_text(json.dumps(ORPHAN))
    ascii_out, err = io.TextIOWrapper(io.BytesIO(), encoding="ascii"), io.StringIO()
    assert main(["check", str(tmp_path)], stdout=ascii_out, stderr=err) == 2
    [line] = err.getvalue().splitlines()
    assert line.startswith("heal-messages: error: unexpected UnicodeEncodeError: 'ascii' codec")


# --- --format auto (issue 11, item 1) -----------------------------------------------------------

OPENAI_CHAT_CALL = [
    {"role": "user", "content": "weather?"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
]


def test_auto_reads_each_history_in_its_own_format(tmp_path: Path) -> None:
    # OpenAI Chat, LangChain and AI SDK histories side by side in one JSON Lines file: each is
    # read by its own adapter. Before, the default AI SDK reader took the OpenAI Chat call for an
    # empty assistant message.
    from langchain_core.messages import AIMessage, HumanMessage, messages_to_dict

    langchain_orphan = messages_to_dict(
        [
            HumanMessage("hi"),
            AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": "c9"}]),
            HumanMessage("and?"),
        ]
    )
    lines = [OPENAI_CHAT_CALL, VALID, langchain_orphan]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(json.dumps(h) for h in lines) + "\n")
    code, out, _ = run("check", str(path))
    assert code == 1
    assert f"{path}:1" not in out and f"{path}:2" not in out
    assert f"{path}:3:" in out and "orphan-tool-call" in out
    assert "3 histories checked: 1 invalid" in out


def test_explicit_ai_sdk_format_refuses_a_foreign_history(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(OPENAI_CHAT_CALL))
    code, out, _ = run("check", str(path), "--format", "ai-sdk")
    assert code == 2
    assert "OpenAI Chat" in out and "--format openai-chat" in out
    assert run("check", str(path), "--format", "openai-chat")[0] == 0


def test_auto_refuses_a_history_that_mixes_formats(tmp_path: Path) -> None:
    anthropic_turn = {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "t", "name": "f"}],
    }
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps([*OPENAI_CHAT_CALL, anthropic_turn]))
    code, out, _ = run("check", str(path))
    assert code == 2
    assert "mixes formats" in out
