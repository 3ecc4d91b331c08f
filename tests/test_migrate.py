"""heal-messages migrate on JSON Lines and SQLite: dry runs write nothing, re-runs change
nothing, failed rows are left alone, and a migration killed at any point leaves every row either
original or fully healed."""

from __future__ import annotations

import hashlib
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from benchmarks.corpus import corpus
from heal import dump_messages, heal_messages
from heal.cli import main
from heal.migrate import heal_row, migrate, open_store

ROOT = Path(__file__).parent.parent


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def expected(history: list[dict[str, Any]], provider: str | None = None) -> list[dict[str, Any]]:
    return dump_messages(heal_messages(history, provider=provider, scope="history").messages)  # type: ignore[arg-type]


def make_db(path: Path, histories: list[list[dict[str, Any]]], *, bad_row: bool = True) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE chats (id INTEGER PRIMARY KEY, messages TEXT, provider TEXT)")
    conn.executemany(
        "INSERT INTO chats VALUES (?, ?, ?)",
        [
            (i + 1, json.dumps(h), "anthropic" if i % 3 == 0 else None)
            for i, h in enumerate(histories)
        ],
    )
    if bad_row:
        conn.execute(
            'INSERT INTO chats VALUES (100000, \'[{"role": "user", "content": null}]\', NULL)'
        )
    conn.commit()
    conn.close()


def rows(path: Path) -> dict[int, Any]:
    conn = sqlite3.connect(path)
    try:
        return {i: json.loads(m) for i, m in conn.execute("SELECT id, messages FROM chats")}
    finally:
        conn.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def db(tmp_path: Path) -> tuple[Path, list[list[dict[str, Any]]]]:
    histories = corpus(conversations=300, length=12, broken=0.5, seed=3)
    path = tmp_path / "chats.db"
    make_db(path, histories)
    return path, histories


SQL = ("--table", "chats", "--column", "messages", "--provider-column", "provider")


def test_dry_run_leaves_the_database_byte_identical(db: tuple[Path, Any]) -> None:
    path, _ = db
    before = digest(path)
    code, out, _ = run("migrate", f"sqlite:///{path}", *SQL, "--dry-run")
    assert code == 2  # the bad row failed
    assert "would heal:" in out and "failed row 100000" in out
    assert digest(path) == before
    assert not Path(f"{path}-journal").exists()


def test_migration_heals_rows_and_a_rerun_changes_nothing(
    db: tuple[Path, Any], tmp_path: Path
) -> None:
    path, histories = db
    report = tmp_path / "repairs.jsonl"
    code, out, _ = run(
        "migrate",
        f"sqlite:///{path}",
        *SQL,
        "--backup",
        "--report",
        str(report),
        "--batch-size",
        "37",
    )
    assert code == 2
    stored = rows(path)
    healed_count = 0
    for i, history in enumerate(histories):
        provider = "anthropic" if i % 3 == 0 else None
        want = expected(history, provider)
        assert stored[i + 1] == want
        healed_count += want != history
    assert f"healed: {healed_count}" in out
    # The row that fails to load is reported with its id and left untouched.
    assert stored[100000] == [{"role": "user", "content": None}]
    assert "failed row 100000: InputError: messages[0].content: content is null" in out
    # Every repair is in the report, with its row id and what was removed; so is the failed row.
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    records = [r for r in lines if r.get("kind") != "failure"]
    [failure] = [r for r in lines if r.get("kind") == "failure"]
    assert failure["row_id"] == 100000
    assert failure["error"].startswith("InputError: messages[0].content: content is null")
    assert {r["row_id"] for r in records} <= set(range(1, len(histories) + 1))
    assert sum(1 for r in records if r["action"] == "remove") > 0
    assert all("removed" in r for r in records)
    # The backup table holds each original value, in the transaction of its update.
    conn = sqlite3.connect(path)
    backups = dict(conn.execute("SELECT row_id, original FROM chats_heal_backup"))
    conn.close()
    assert len(backups) == healed_count
    for row_id, original in backups.items():
        assert json.loads(original) == histories[row_id - 1]

    before = digest(path)
    code, out, _ = run("migrate", f"sqlite:///{path}", *SQL)
    assert "healed: 0;" in out
    assert digest(path) == before


def test_request_only_rules_are_not_written_back(tmp_path: Path) -> None:
    from heal.repairs import Scope
    from heal.rules import default_registry

    request_only = [r for r in default_registry if r.scope is Scope.REQUEST]
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    outcome = heal_row(1, json.dumps(history), provider="anthropic")
    assert outcome.healed is None
    # Healing with scope="history" never runs request-scoped rules.
    result = heal_messages(history, provider="anthropic", scope="history")
    assert not any(r.scope is Scope.REQUEST for r in result.repairs)
    assert all(r.scope is Scope.REQUEST for r in request_only)


def test_rows_changed_meanwhile_are_left_alone(db: tuple[Path, Any]) -> None:
    path, _ = db
    store = open_store(f"sqlite:///{path}", table="chats", column="messages")
    real_batches = store.batches

    def batches_then_someone_writes(size: int) -> Any:
        for n, batch in enumerate(real_batches(size)):
            if n == 0:
                conn = sqlite3.connect(path)
                conn.execute("UPDATE chats SET messages = '[]' WHERE id = ?", (batch[0][0],))
                conn.commit()
                conn.close()
            yield batch

    store.batches = batches_then_someone_writes  # type: ignore[method-assign]
    summary = migrate(store, batch_size=50)
    assert rows(path)[1] == []
    assert summary.skipped in (0, 1)  # 1 when row 1 needed healing


def test_workers_give_the_same_result(tmp_path: Path) -> None:
    histories = corpus(conversations=120, length=10, broken=0.5, seed=5)
    one, two = tmp_path / "one.db", tmp_path / "two.db"
    make_db(one, histories)
    make_db(two, histories)
    assert run("migrate", f"sqlite:///{one}", *SQL)[0] == 2
    assert run("migrate", f"sqlite:///{two}", *SQL, "--workers", "2", "--batch-size", "16")[0] == 2
    assert rows(one) == rows(two)


def test_json_lines_in_place_with_backup_and_to_a_destination(tmp_path: Path) -> None:
    histories = corpus(conversations=40, length=8, broken=0.6, seed=9)
    source = tmp_path / "chats.jsonl"
    source.write_text(
        "\n".join(json.dumps({"id": i, "messages": h}) for i, h in enumerate(histories)) + "\n"
    )
    original = source.read_text()

    dest = tmp_path / "healed.jsonl"
    code, _out, _ = run("migrate", str(source), "--key", "messages", "--dest", str(dest))
    assert code == 0
    assert source.read_text() == original
    healed = [json.loads(line) for line in dest.read_text().splitlines()]
    assert [h["id"] for h in healed] == list(range(len(histories)))
    assert [h["messages"] for h in healed] == [expected(h) for h in histories]

    code, _, _ = run("migrate", str(source), "--key", "messages", "--backup")
    assert code == 0
    assert (tmp_path / "chats.jsonl.bak").read_text() == original
    assert [json.loads(line)["messages"] for line in source.read_text().splitlines()] == [
        expected(h) for h in histories
    ]


def test_bad_source_or_options_exit_2(tmp_path: Path) -> None:
    assert run("migrate", str(tmp_path / "missing.jsonl"))[0] == 2
    assert run("migrate", f"sqlite:///{tmp_path / 'missing.db'}", *SQL)[0] == 2
    assert run("migrate", "sqlite:///x.db")[0] == 2  # no --table/--column
    assert run("migrate", "sqlite:///x.db", "--table", "a;drop", "--column", "m")[0] == 2


def test_killing_a_migration_midway_never_leaves_a_half_healed_row(tmp_path: Path) -> None:
    histories = corpus(conversations=3000, length=12, broken=0.5, seed=21)
    path = tmp_path / "kill.db"
    make_db(path, histories, bad_row=False)
    want = {
        i + 1: expected(h, "anthropic" if i % 3 == 0 else None) for i, h in enumerate(histories)
    }
    original = {i + 1: h for i, h in enumerate(histories)}
    cmd = [sys.executable, "-m", "heal", "migrate", f"sqlite:///{path}", *SQL, "--batch-size", "25"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    kills = partial = 0
    needs_healing = {row_id for row_id in want if want[row_id] != original[row_id]}
    for delay in (0.35, 0.5, 0.65, 0.8):
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait()
        stored = rows(path)
        for row_id, value in stored.items():
            assert value in (original[row_id], want[row_id]), f"row {row_id} is half-healed"
        healed_now = sum(1 for row_id in needs_healing if stored[row_id] == want[row_id])
        partial += 0 < healed_now < len(needs_healing)
    assert kills >= 1, "the migration finished before any kill: make the data set larger"
    assert partial >= 1, "no kill landed mid-run (between the first and the last batch)"
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert rows(path) == want
    again = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    assert "healed: 0;" in again.stdout


# --- native formats: the whole stored request comes back, only its history healed ------------

ANTHROPIC_HISTORY = [
    {"role": "user", "content": "hi"},
    {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}],
    },
    {"role": "user", "content": "?"},
]
GEMINI_CONTENTS = [
    {"role": "user", "parts": [{"text": "hi"}]},
    {"role": "model", "parts": [{"function_call": {"name": "f", "args": {}}}]},
    {"role": "user", "parts": [{"text": "?"}]},
]
CHAT_MESSAGES = [
    {"role": "system", "content": "be brief"},
    {"role": "user", "content": "hi"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    },
    {"role": "user", "content": "?"},
]
RESPONSES_INPUT = [
    {"role": "user", "content": "hi"},
    {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
    {"role": "user", "content": "?"},
]
NATIVE: dict[str, tuple[str, str, Any]] = {
    # format: (provider, the field holding the history in a request, the stored request)
    "anthropic": (
        "anthropic",
        "messages",
        {
            "model": "claude-sonnet-4-5",
            "max_tokens": 64,
            "system": "be brief",
            "metadata": {"user_id": "u1"},
            "messages": ANTHROPIC_HISTORY,
        },
    ),
    "gemini": (
        "google",
        "contents",
        {
            "model": "gemini-2.5-flash",
            "config": {"temperature": 0.2, "system_instruction": "be brief"},
            "contents": GEMINI_CONTENTS,
        },
    ),
    "openai-chat": (
        "openai-chat",
        "messages",
        {"model": "gpt-4o", "temperature": 0, "messages": CHAT_MESSAGES},
    ),
    "openai-responses": (
        "openai-responses",
        "input",
        {"model": "gpt-5", "instructions": "be brief", "store": False, "input": RESPONSES_INPUT},
    ),
}


def native_healer(fmt: str) -> Any:
    import importlib

    module = importlib.import_module(f"heal.adapters.{fmt.replace('-', '_')}")
    return getattr(module, f"heal_{fmt.replace('-', '_')}")


def native_db(path: Path, values: list[str]) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE chats (id INTEGER PRIMARY KEY, messages TEXT)")
    conn.executemany("INSERT INTO chats VALUES (?, ?)", list(enumerate(values, start=1)))
    conn.commit()
    conn.close()


@pytest.mark.parametrize("fmt", sorted(NATIVE))
def test_native_formats_keep_every_request_key(tmp_path: Path, fmt: str) -> None:
    provider, field, request = NATIVE[fmt]
    history = request[field]
    path = tmp_path / "chats.db"
    native_db(path, [json.dumps(request), json.dumps(history)])
    args = ("migrate", f"sqlite:///{path}", "--table", "chats", "--column", "messages")
    args += ("--format", fmt, "--provider", provider)
    code, out, _ = run(*args)
    assert code == 0, out
    assert "healed: 2;" in out
    stored = rows(path)
    heal = native_healer(fmt)
    # A request comes back with every key it had; only the history (and what the adapter heals,
    # such as a system parameter) changes, exactly as heal_<format> heals it.
    assert list(stored[1]) == list(request)
    assert {k: v for k, v in stored[1].items() if k != field} == {
        k: v for k, v in request.items() if k != field
    }
    assert stored[1][field] != history
    if fmt in ("anthropic", "gemini"):
        assert stored[1] == heal(request, provider=provider, scope="history").messages
    else:
        assert stored[1][field] == heal(history, provider=provider, scope="history").messages
    # A bare list stays a bare list.
    assert stored[2] == heal(history, provider=provider, scope="history").messages
    assert isinstance(stored[2], list)
    # A re-run changes nothing.
    code, out, _ = run(*args)
    assert code == 0 and "healed: 0;" in out


def _pydantic_ai_history(pa: Any) -> list[Any]:
    return [
        pa.ModelRequest(parts=[pa.UserPromptPart("hi")], instructions="be brief", run_id="r1"),
        pa.ModelResponse(
            parts=[pa.ToolCallPart("f", {"q": 1}, tool_call_id="c1")],
            model_name="gpt-4o",
            provider_name="openai",
            usage=pa.RequestUsage(input_tokens=3, output_tokens=5),
            run_id="r1",
        ),
        pa.ModelRequest(parts=[pa.UserPromptPart("?")], run_id="r1"),
    ]


def test_pydantic_ai_rows_stay_pydantic_ai_json(tmp_path: Path) -> None:
    pa = pytest.importorskip("pydantic_ai.messages")
    from heal.adapters.pydantic_ai import heal_pydantic_ai

    text = pa.ModelMessagesTypeAdapter.dump_json(_pydantic_ai_history(pa)).decode()
    want = heal_pydantic_ai(text, provider="openai-chat", scope="history")
    assert want.changed
    path = tmp_path / "chats.db"
    native_db(path, [text])
    options = ("--format", "pydantic-ai", "--provider", "openai-chat")
    code, out, _ = run(
        "migrate", f"sqlite:///{path}", "--table", "chats", "--column", "messages", *options
    )
    assert code == 0, out
    conn = sqlite3.connect(path)
    [(healed,)] = conn.execute("SELECT messages FROM chats").fetchall()
    conn.close()
    assert healed == want.messages
    # pydantic-ai reads the row back; every stored message keeps all its fields.
    again = pa.ModelMessagesTypeAdapter.validate_json(healed)
    assert len(again) == 4 and again[1].usage.output_tokens == 5
    original = json.loads(text)
    assert [m for m in json.loads(healed) if m in original] == original

    # In a JSON Lines record, at --key: the healed history is pydantic-ai's JSON, not a string.
    source = tmp_path / "chats.jsonl"
    source.write_text(json.dumps({"id": 7, "tags": ["x"], "messages": original}) + "\n")
    code, out, _ = run("migrate", str(source), "--key", "messages", *options)
    assert code == 0, out
    record = json.loads(source.read_text())
    assert record == {"id": 7, "tags": ["x"], "messages": json.loads(want.messages)}


def test_every_failed_row_is_in_the_report(tmp_path: Path) -> None:
    path = tmp_path / "chats.db"
    make_db(path, [ORPHAN_AI_SDK], bad_row=False)
    conn = sqlite3.connect(path)
    conn.executemany(
        "INSERT INTO chats VALUES (?, ?, NULL)", [(100 + i, "not json") for i in range(25)]
    )
    conn.commit()
    conn.close()
    report = tmp_path / "report.jsonl"
    code, out, _ = run("migrate", f"sqlite:///{path}", *SQL, "--report", str(report))
    assert code == 2
    assert "... and 5 more failed rows" in out
    assert f"every failed row is listed in {report}" in out
    records = [json.loads(line) for line in report.read_text().splitlines()]
    failures = [r for r in records if r.get("kind") == "failure"]
    assert [r["row_id"] for r in failures] == list(range(100, 125))
    assert all(r["error"].startswith("JSONDecodeError: ") for r in failures)
    assert all(set(r) == {"kind", "row_id", "error"} for r in failures)
    # Repair lines are as before: the repair's fields and its row id, no "kind".
    [repair] = [r for r in records if "kind" not in r]
    assert (repair["row_id"], repair["rule"]) == (1, "orphan-tool-call")
    # Without --report, the summary says how to get the full list.
    code, out, _ = run("migrate", f"sqlite:///{path}", *SQL, "--dry-run")
    assert "... and 5 more failed rows (--report FILE lists every one)" in out


ORPHAN_AI_SDK = [
    {"role": "user", "content": "hi"},
    {
        "role": "assistant",
        "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {}}],
    },
    {"role": "user", "content": "and?"},
]


def _on_a_terminal(*args: str) -> str:
    """Run ``python -m heal`` with stderr on a real pseudo-terminal; return what it showed."""
    import pty

    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "heal", *args], env=env, stdout=subprocess.DEVNULL, stderr=slave
    )
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the process closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    assert proc.wait() in (0, 2)
    return shown.decode()


def test_progress_bar_on_a_terminal_unless_no_progress(db: tuple[Path, Any]) -> None:
    path, _ = db
    args = ("migrate", f"sqlite:///{path}", *SQL)
    shown = _on_a_terminal(*args, "--dry-run")
    assert "rows/s" in shown and "ETA" in shown
    assert f"checking sqlite:///{path}" in shown  # a dry run heals nothing
    assert _on_a_terminal(*args, "--dry-run", "--no-progress") == ""
    # stderr is a pipe, not a terminal: no bar.
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "heal", *args, "--dry-run"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and done.stderr == ""
    # Injected streams are not terminals either; --progress forces the bar.
    assert run(*args, "--dry-run")[2] == ""
    _, _, err = run(*args, "--progress")
    assert f"healing sqlite:///{path}" in err and "rows/s" in err
