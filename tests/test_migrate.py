"""heal-messages migrate on JSON Lines and SQLite: dry runs write nothing, re-runs change
nothing, failed rows are left alone, and a migration killed at any point leaves every row either
original or fully healed."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks.corpus import corpus
from heal import dump_messages, heal_messages, load_messages
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
    args: tuple[str, ...] = (
        "migrate",
        f"sqlite:///{path}",
        "--table",
        "chats",
        "--column",
        "messages",
    )
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


ORPHAN_AI_SDK: list[dict[str, Any]] = [
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


# --- reliability: what the audit found ---------------------------------------------------------


@contextlib.contextmanager
def within(seconds: float) -> Iterator[None]:
    """Fail (instead of hanging the suite) when the body runs longer than ``seconds``."""

    def expire(signum: int, frame: Any) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def jsonl(path: Path, records: list[Any]) -> None:
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
    )


NULL_CONTENT: list[dict[str, Any]] = [{"role": "user", "content": None}]


def test_json_lines_are_split_on_newlines_only(tmp_path: Path) -> None:
    # U+2028, U+0085 and U+2029 may stand raw in a JSON string (json.dumps(ensure_ascii=False)
    # writes them so); str.splitlines() also breaks on them and on \x0b \x0c \x1c-\x1e.
    separators = "\u2028\u0085\u2029"
    controls = "\x0b\x0c\x1c\x1d\x1e"  # not legal raw in JSON: that line fails, and is kept
    source = tmp_path / "chats.jsonl"
    jsonl(source, [{"id": 1, "note": f"a{separators}b", "messages": ORPHAN_AI_SDK}])
    with source.open("a", encoding="utf-8", newline="") as f:
        f.write('{"id": 2, "note": "' + controls + '", "messages": []}\n')
        f.write(json.dumps({"id": 3, "messages": NULL_CONTENT}) + "\n")
        f.write(json.dumps({"id": 4, "note": separators, "messages": ORPHAN_AI_SDK}) + "\r\n")
    before = source.read_bytes().split(b"\n")
    code, out, _ = run("migrate", str(source), "--key", "messages")
    assert code == 2, out
    assert "rows scanned: 4; healed: 2; unchanged: 0; failed: 2" in out
    assert "failed row 2: JSONDecodeError: Invalid control character" in out
    assert "failed row 3: InputError" in out
    after = source.read_bytes().split(b"\n")
    assert len(after) == 5 and after[4] == b""
    assert after[1:3] == before[1:3]  # the failed lines, byte for byte
    first, fourth = json.loads(after[0]), json.loads(after[3])
    assert first == {"id": 1, "note": f"a{separators}b", "messages": expected(ORPHAN_AI_SDK)}
    assert fourth == {"id": 4, "note": separators, "messages": expected(ORPHAN_AI_SDK)}
    assert after[3].endswith(b"\r")  # a healed line keeps its line ending


def healable_jsonl(path: Path) -> bytes:
    jsonl(path, [{"id": 1, "messages": ORPHAN_AI_SDK}, {"id": 2, "messages": []}])
    return path.read_bytes()


def test_backup_replaces_a_symlink_at_the_backup_name_instead_of_writing_through_it(
    tmp_path: Path,
) -> None:
    source = tmp_path / "chats.jsonl"
    original = healable_jsonl(source)
    precious = tmp_path / "precious.txt"
    precious.write_text("not yours")
    backup = tmp_path / "chats.jsonl.bak"
    backup.symlink_to(precious)
    code, out, err = run("migrate", str(source), "--key", "messages", "--backup")
    assert code == 0, out + err
    assert precious.read_text() == "not yours"
    assert not backup.is_symlink()
    assert backup.read_bytes() == original
    assert source.read_bytes() != original


def test_rewritten_file_and_backup_keep_mode_and_owner(tmp_path: Path) -> None:
    source = tmp_path / "chats.jsonl"
    healable_jsonl(source)
    source.chmod(0o640)
    if os.geteuid() == 0:
        os.chown(source, 4321, 4322)
    code, out, err = run("migrate", str(source), "--key", "messages", "--backup")
    assert code == 0, out + err
    for path in (source, tmp_path / "chats.jsonl.bak"):
        st = path.stat()
        assert oct(st.st_mode & 0o7777) == oct(0o640), path
        if os.geteuid() == 0:
            assert (st.st_uid, st.st_gid) == (4321, 4322), path
    assert json.loads(source.read_text().splitlines()[0])["messages"] == expected(ORPHAN_AI_SDK)


def test_a_symlinked_file_is_healed_where_it_points(tmp_path: Path) -> None:
    real = tmp_path / "store" / "chats-2024.jsonl"
    real.parent.mkdir()
    original = healable_jsonl(real)
    link = tmp_path / "chats.jsonl"
    link.symlink_to(real)
    code, out, err = run("migrate", str(link), "--key", "messages", "--backup")
    assert code == 0, out + err
    assert link.is_symlink() and link.resolve() == real
    assert json.loads(real.read_text().splitlines()[0])["messages"] == expected(ORPHAN_AI_SDK)
    # The backup is of the file healed, beside it.
    assert (real.parent / "chats-2024.jsonl.bak").read_bytes() == original
    assert not (tmp_path / "chats.jsonl.bak").exists()


def test_the_report_is_not_opened_through_a_symlink_to_a_file(tmp_path: Path) -> None:
    from heal.errors import ConfigError
    from heal.migrate import open_report

    precious = tmp_path / "precious.txt"
    precious.write_text("not yours")
    link = tmp_path / "report.jsonl"
    link.symlink_to(precious)
    with pytest.raises(ConfigError, match=re.escape(str(link))):
        open_report(str(link))
    assert precious.read_text() == "not yours"
    dangling = tmp_path / "dangling.jsonl"
    dangling.symlink_to(tmp_path / "nowhere")
    with pytest.raises(ConfigError, match=re.escape(str(dangling))):
        open_report(str(dangling))
    assert not (tmp_path / "nowhere").exists()
    # A link to something that is not a regular file (/dev/stdout, a shell's >(...)) is fine:
    # opening it truncates nothing.
    to_null = tmp_path / "null.jsonl"
    to_null.symlink_to(os.devnull)
    with open_report(str(to_null)) as report:
        report.write("{}\n")
    # A plain path is created, or truncated.
    plain = tmp_path / "plain.jsonl"
    plain.write_text("old\n" * 10)
    with open_report(str(plain)) as report:
        report.write("new\n")
    assert plain.read_text() == "new\n"


def chats_db(path: Path, id_column: str = "id") -> None:
    conn = sqlite3.connect(path)
    conn.execute(
        f"CREATE TABLE chats ({id_column} INTEGER PRIMARY KEY, messages TEXT, provider TEXT)"
    )
    conn.executemany(
        "INSERT INTO chats VALUES (?, ?, NULL)",
        [(i, json.dumps(ORPHAN_AI_SDK)) for i in range(1, 51)],
    )
    conn.commit()
    conn.close()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            (),
            "no column 'id' in table chats (columns: conv_id, messages, provider); "
            "pass --id-column",
        ),
        (
            ("--id-column", "conv_id", "--column", "mesages"),
            "no column 'mesages' in table chats (columns: conv_id, messages, provider); "
            "pass --column",
        ),
        (
            ("--id-column", "conv_id", "--provider-column", "provder"),
            "no column 'provder' in table chats (columns: conv_id, messages, provider); "
            "pass --provider-column",
        ),
        (("--id-column", "conv_id", "--table", "chat"), "no table 'chat' in "),
    ],
)
def test_a_missing_table_or_column_is_named_before_any_row_is_read(
    tmp_path: Path, options: tuple[str, ...], message: str
) -> None:
    path = tmp_path / "chats.db"
    chats_db(path, "conv_id")
    before = digest(path)
    argv = ["migrate", f"sqlite:///{path}", "--table", "chats", "--column", "messages"]
    for option, value in zip(options[::2], options[1::2], strict=True):
        if option in argv:
            argv[argv.index(option) + 1] = value
        else:
            argv += [option, value]
    for dry_run in ((), ("--dry-run",)):
        code, out, err = run(*argv, *dry_run)
        assert (code, out) == (2, "")
        assert err.startswith("heal-messages: error: ") and message in err, err
        assert err.count("\n") == 1
    if "--table" in options:
        assert "(tables: chats); pass --table" in err
    assert digest(path) == before


def test_the_right_id_column_or_sqlites_rowid_heals_every_row(tmp_path: Path) -> None:
    path = tmp_path / "chats.db"
    chats_db(path, "conv_id")
    base = ("migrate", f"sqlite:///{path}", "--table", "chats", "--column", "messages")
    code, out, _ = run(*base, "--id-column", "conv_id", "--batch-size", "7", "--dry-run")
    assert code == 0 and "would heal: 50;" in out
    code, out, _ = run(*base, "--id-column", "rowid", "--batch-size", "7")
    assert code == 0 and "healed: 50;" in out
    conn = sqlite3.connect(path)
    stored = [json.loads(m) for (m,) in conn.execute("SELECT messages FROM chats")]
    conn.close()
    assert stored == [expected(ORPHAN_AI_SDK)] * 50


def test_null_ids_stop_the_run_with_an_error_instead_of_skipping_rows(tmp_path: Path) -> None:
    # NULLs sort first: a page of NULL ids used to end the paging, silently, with exit 0.
    path = tmp_path / "chats.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE chats (ref INTEGER, messages TEXT)")
    conn.executemany(
        "INSERT INTO chats VALUES (?, ?)",
        [(None, "[]"), (None, "[]"), *((i, json.dumps(ORPHAN_AI_SDK)) for i in range(1, 6))],
    )
    conn.commit()
    conn.close()
    argv = ("migrate", f"sqlite:///{path}", "--table", "chats", "--column", "messages")
    code, out, err = run(*argv, "--id-column", "ref", "--batch-size", "2")
    assert code == 2, out
    assert "NULL" in err and "'ref'" in err


def test_a_page_that_does_not_get_past_the_last_stops_the_run(db: tuple[Path, Any]) -> None:
    # Whatever made the paging predicate not apply, the same page must not come back forever.
    from heal.errors import ConfigError

    path, _ = db
    store = open_store(f"sqlite:///{path}", table="chats", column="messages", dry_run=True)
    store._select = "SELECT id, messages, NULL FROM chats WHERE ?1 ORDER BY id LIMIT ?2"  # type: ignore[attr-defined]
    with within(10), pytest.raises(ConfigError, match="paging by 'id' did not get past 10"):
        for _ in store.batches(10):
            pass
    store.close()


@pytest.mark.parametrize(
    ("where", "why"),
    [
        ("1=1) OR (1=1", "closes a parenthesis"),
        ("(1=1", "leaves a parenthesis open"),
        ("provider = 'x", "leaves a quote open"),
        ("1=1; DROP TABLE chats", "';'"),
        ("1=1 -- all of them", "'--'"),
        ("1=1 /* all */", "'/*'"),
        ("1=1 ORDER BY id", "not a condition"),
        ("id > ?", "not a condition"),
        ("nosuchcolumn = 1", "no such column: nosuchcolumn"),
    ],
)
def test_a_where_that_is_not_one_condition_is_refused(
    db: tuple[Path, Any], where: str, why: str
) -> None:
    path, _ = db
    before = digest(path)
    with within(10):  # "1=1) OR (1=1" used to page forever, even in a dry run
        for dry_run in (("--dry-run",), ()):
            code, out, err = run("migrate", f"sqlite:///{path}", *SQL, "--where", where, *dry_run)
            assert (code, out) == (2, ""), err
            assert "--where" in err and why in err, err
    assert digest(path) == before


def test_a_where_with_or_and_parentheses_in_literals_heals_just_its_rows(
    db: tuple[Path, Any],
) -> None:
    path, histories = db
    where = "provider IS NULL OR messages LIKE '%(%' AND id < 0"
    with within(20):
        code, out, _ = run("migrate", f"sqlite:///{path}", *SQL, "--where", where)
    assert code == 2 and "failed: 1" in out  # row 100000
    stored = rows(path)
    for i, history in enumerate(histories):
        assert stored[i + 1] == (history if i % 3 == 0 else expected(history)), i + 1


def poison_rows() -> list[str | bytes]:
    deep = "[" * 100_000 + "]" * 100_000
    return [
        json.dumps({"meta": "\ud800", "messages": ORPHAN_AI_SDK}),  # the JSON text "\ud800"
        json.dumps({"meta": "ok", "messages": ORPHAN_AI_SDK}),
        '{"meta": ' + deep + ', "messages": []}',
        json.dumps({"messages": NULL_CONTENT}),
        json.dumps({"meta": "\u0000", "messages": ORPHAN_AI_SDK}),
    ]


POISON_ERRORS = {
    1: "UnicodeEncodeError: ",
    3: "RecursionError: ",
    4: "InputError: ",
}


@pytest.mark.parametrize("workers", ["1", "2"])
def test_poison_rows_fail_alone_in_sqlite(tmp_path: Path, workers: str) -> None:
    path = tmp_path / "chats.db"
    values: list[str | bytes] = [*poison_rows()]
    # A BLOB holding JSON is healed like text; one that is not UTF-8 fails alone.
    values += [json.dumps({"messages": ORPHAN_AI_SDK}).encode(), b'{"messages": "\xff"}']
    native_db(path, values)  # type: ignore[arg-type]
    errors = {**POISON_ERRORS, 7: "UnicodeDecodeError: "}
    conn = sqlite3.connect(path)
    before = dict(conn.execute("SELECT id, messages FROM chats").fetchall())
    conn.close()
    report = tmp_path / "report.jsonl"
    argv = ("migrate", f"sqlite:///{path}", "--table", "chats", "--column", "messages")
    code, out, _ = run(*argv, "--key", "messages", "--workers", workers, "--report", str(report))
    assert code == 2, out
    assert f"failed: {len(errors)}" in out and "healed: 3;" in out
    failures = [r for r in map(json.loads, report.read_text().splitlines()) if "kind" in r]
    assert {r["row_id"]: r["error"][: len(errors[r["row_id"]])] for r in failures} == errors
    conn = sqlite3.connect(path)
    after = dict(conn.execute("SELECT id, messages FROM chats").fetchall())
    conn.close()
    for row_id in errors:
        assert after[row_id] == before[row_id]
    for row_id in (2, 5, 6):
        assert json.loads(after[row_id])["messages"] == expected(ORPHAN_AI_SDK)
    assert json.loads(after[5])["meta"] == "\u0000"


def test_poison_lines_fail_alone_in_json_lines(tmp_path: Path) -> None:
    source = tmp_path / "chats.jsonl"
    lines = [v if isinstance(v, bytes) else v.encode() for v in poison_rows()]
    lines.append(b'{"messages": "\xff"}')
    source.write_bytes(b"\n".join(lines) + b"\n")
    code, out, _ = run("migrate", str(source), "--key", "messages")
    assert code == 2, out
    errors = {**POISON_ERRORS, 6: "UnicodeDecodeError: "}
    for row_id, error in errors.items():
        assert f"failed row {row_id}: {error}" in out
    after = source.read_bytes().split(b"\n")
    for row_id in errors:
        assert after[row_id - 1] == lines[row_id - 1]
    for row_id in (2, 5):
        assert json.loads(after[row_id - 1])["messages"] == expected(ORPHAN_AI_SDK)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chats.jsonl"]


def test_a_failed_rewrite_leaves_the_file_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "chats.jsonl"
    original = healable_jsonl(source)

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    code, _, err = run("migrate", str(source), "--key", "messages", "--backup")
    assert code == 2 and "No space left on device" in err
    assert source.read_bytes() == original
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chats.jsonl"]


def test_a_row_the_database_refuses_fails_alone_and_the_rest_of_its_batch_is_written(
    tmp_path: Path,
) -> None:
    path = tmp_path / "chats.db"
    frozen = json.dumps(ORPHAN_AI_SDK)
    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TABLE chats (id INTEGER PRIMARY KEY, messages TEXT, "
        f"CONSTRAINT frozen CHECK (id <> 2 OR messages = '{frozen}'))"
    )
    conn.executemany("INSERT INTO chats VALUES (?, ?)", [(i, frozen) for i in range(1, 5)])
    conn.commit()
    conn.close()
    report = tmp_path / "report.jsonl"
    argv = ("migrate", f"sqlite:///{path}", "--table", "chats", "--column", "messages")
    code, out, _ = run(*argv, "--backup", "--report", str(report))
    assert code == 2, out
    assert "healed: 3;" in out and "failed: 1" in out
    assert "failed row 2: not written: IntegrityError: CHECK constraint failed: frozen" in out
    stored = rows(path)
    assert stored[2] == ORPHAN_AI_SDK
    assert all(stored[i] == expected(ORPHAN_AI_SDK) for i in (1, 3, 4))
    conn = sqlite3.connect(path)
    assert [r for (r,) in conn.execute("SELECT row_id FROM chats_heal_backup")] == [1, 3, 4]
    conn.close()
    records = [json.loads(line) for line in report.read_text().splitlines()]
    assert [(r["row_id"], r.get("kind")) for r in records] == [
        (1, None),
        (2, "failure"),
        (3, None),
        (4, None),
    ]


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):  # the task ended meanwhile
            found.update(int(c) for c in (task / "children").read_text().split())
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has died; no one reaped it


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_workers_die_with_a_killed_migration(tmp_path: Path) -> None:
    source = tmp_path / "chats.jsonl"
    histories = corpus(conversations=2000, length=12, broken=0.5, seed=8)
    jsonl(source, [{"messages": h} for h in histories])
    cmd = [sys.executable, "-m", "heal", "migrate", str(source), "--key", "messages"]
    cmd += ["--workers", "2", "--batch-size", "10"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 20
        while len(workers) < 2 and proc.poll() is None and time.monotonic() < deadline:
            workers = _children(proc.pid)
            time.sleep(0.01)
        assert len(workers) >= 2, "the workers never started"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 5
        while any(map(_alive, workers)) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not [pid for pid in workers if _alive(pid)], "workers outlived the migration"
    finally:
        proc.kill()
        proc.wait()
        for pid in workers:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


# --- histories in another format (issue 11, item 1) ---------------------------------------------

# An OpenAI Chat history whose last call has no result: its assistant message has content "".
# Read as AI SDK messages it was an empty message, and healing removed it with its call.
OPENAI_CHAT_ORPHAN: list[dict[str, Any]] = [
    {"role": "user", "content": "weather?"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    },
    {"role": "user", "content": "and?"},
]
MIXED_FORMATS: list[dict[str, Any]] = [
    *OPENAI_CHAT_ORPHAN,
    {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]},
]


def assert_openai_chat_call_kept(healed: list[dict[str, Any]]) -> None:
    """The call is still there, answered by a tool message right after it."""
    assert healed[1]["tool_calls"][0]["id"] == "c1"
    assert healed[2]["role"] == "tool" and healed[2]["tool_call_id"] == "c1"
    assert healed[-1] == {"role": "user", "content": "and?"}


def wrong_format_rows() -> list[list[dict[str, Any]]]:
    return [OPENAI_CHAT_ORPHAN, ORPHAN_AI_SDK, MIXED_FORMATS]


def test_wrong_format_rows_in_json_lines(tmp_path: Path) -> None:
    path = tmp_path / "chats.jsonl"
    path.write_text("".join(json.dumps(h) + "\n" for h in wrong_format_rows()))
    # Told the rows are AI SDK messages, the OpenAI Chat row fails and is left as it is.
    code, out, _ = run("migrate", str(path), "--format", "ai-sdk")
    assert code == 2
    assert "failed row 1: InputError: messages[1]: this looks like an OpenAI Chat" in out
    stored = [json.loads(line) for line in path.read_text().splitlines()]
    assert stored[0] == OPENAI_CHAT_ORPHAN
    # By default each row is read in its own format: the call is kept and answered.
    code, out, _ = run("migrate", str(path))
    assert code == 2  # the mixed row
    assert "failed row 3: ValueError: the history mixes formats" in out
    stored = [json.loads(line) for line in path.read_text().splitlines()]
    assert_openai_chat_call_kept(stored[0])
    assert stored[1] == expected(ORPHAN_AI_SDK)
    assert stored[2] == MIXED_FORMATS


def test_wrong_format_rows_in_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "chats.db"
    make_db(path, wrong_format_rows(), bad_row=False)
    code, out, _ = run("migrate", f"sqlite:///{path}", *SQL[:4], "--format", "ai-sdk")
    assert code == 2 and "failed row 1: InputError" in out
    assert rows(path)[1] == OPENAI_CHAT_ORPHAN
    code, out, _ = run("migrate", f"sqlite:///{path}", *SQL[:4])
    assert code == 2 and "failed row 3: ValueError: the history mixes formats" in out
    stored = rows(path)
    assert_openai_chat_call_kept(stored[1])
    assert stored[2] == expected(ORPHAN_AI_SDK)
    assert stored[3] == MIXED_FORMATS


def test_a_langchain_row_is_healed_and_written_back_as_langchain_dicts() -> None:
    from langchain_core.messages import (
        AIMessage,
        HumanMessage,
        ToolMessage,
        messages_from_dict,
        messages_to_dict,
    )

    stored = messages_to_dict(
        [
            HumanMessage("hi"),
            AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": "c9"}]),
            HumanMessage("and?"),
        ]
    )
    for fmt in ("langchain", "auto"):
        outcome = heal_row(7, json.dumps(stored), fmt=fmt)
        assert outcome.error is None and outcome.healed is not None
        healed = messages_from_dict(json.loads(outcome.healed))
        assert [type(m) for m in healed] == [HumanMessage, AIMessage, ToolMessage, HumanMessage]
        assert isinstance(healed[2], ToolMessage) and healed[2].tool_call_id == "c9"
        assert [r["rule"] for r in outcome.repairs] == ["orphan-tool-call"]


def test_a_plainly_clean_ai_sdk_row_is_not_loaded_at_history_scope(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """migrate heals AI SDK rows at history scope: a row the clean verdict finds plainly clean
    comes back as it is without being loaded into models, and every row heals as heal_messages
    heals it there."""
    import heal._formats as formats

    loaded: list[int] = []
    load = load_messages

    def spy(history: Any) -> Any:
        loaded.append(1)
        return load(history)

    monkeypatch.setattr(formats, "load_messages", spy)
    rows = corpus(60, 20, broken=0.1, seed=3)
    heal = formats.healer("ai-sdk")
    # The verdict is the request's: for Google, whose current turns' calls want a signature
    # for the request alone, it finds none of these rows plain, and each is loaded.
    cases: list[tuple[Any, bool]] = [(None, True), ("anthropic", True), ("google", False)]
    for provider, plain in cases:
        loaded.clear()
        for row in rows:
            got = heal(row, provider=provider, scope="history")
            expected = heal_messages(row, provider=provider, scope="history")
            assert got.repairs == expected.repairs
            assert got.messages == (dump_messages(expected.messages) if expected.changed else row)
        if plain:
            assert 0 < len(loaded) <= 0.2 * len(rows)  # the broken rows, and few more
        else:
            assert len(loaded) == len(rows)
