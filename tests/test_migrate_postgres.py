"""heal-messages migrate against a REAL PostgreSQL server on loopback (no mocks).

The fixture creates a throwaway cluster with the server binaries of Debian's ``postgresql``
package (``.ci/run`` installs it), starts it on 127.0.0.1 on a free port, and removes it after.
Locally the test skips when no server binaries exist; in CI it fails instead.
"""

from __future__ import annotations

import glob
import io
import json
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks.corpus import corpus
from heal import dump_messages, heal_messages
from heal.cli import main

sqlalchemy = pytest.importorskip("sqlalchemy")


def _bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    initdb, pg_ctl = _bin("initdb"), _bin("pg_ctl")
    if initdb is None or pg_ctl is None:
        if os.environ.get("CI"):
            pytest.fail("CI must test against a real PostgreSQL server, but none is installed")
        pytest.skip("PostgreSQL server binaries are not installed")
    # Not pytest's tmp_path: its parents are private to root, and the server runs as postgres.
    base = Path(tempfile.mkdtemp(prefix="heal-pg-"))
    data, sock = base / "data", base / "sock"
    sock.mkdir()
    run_as: list[str] = []
    if os.geteuid() == 0:  # the server refuses to run as root
        shutil.chown(base, "postgres")
        shutil.chown(sock, "postgres")
        run_as = ["runuser", "-u", "postgres", "--"]
    port = _free_port()
    subprocess.run(
        [*run_as, initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8"],
        check=True,
        capture_output=True,
    )
    options = f"-p {port} -k {sock} -c listen_addresses=127.0.0.1 -c fsync=off"
    subprocess.run(
        [*run_as, pg_ctl, "-D", str(data), "-o", options, "-w", "-l", str(base / "log"), "start"],
        check=True,
        capture_output=True,
    )
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*run_as, pg_ctl, "-D", str(data), "-m", "immediate", "stop"],
            capture_output=True,
            check=False,
        )
        shutil.rmtree(base, ignore_errors=True)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("column_type", ["jsonb", "text"])
def test_migrate_real_postgres(pg_url: str, column_type: str) -> None:
    engine = sqlalchemy.create_engine(pg_url)
    histories = corpus(conversations=200, length=12, broken=0.5, seed=13)
    table = f"chats_{column_type}"
    with engine.begin() as conn:
        conn.execute(sqlalchemy.text(f"DROP TABLE IF EXISTS {table}, {table}_heal_backup"))
        conn.execute(
            sqlalchemy.text(
                f"CREATE TABLE {table} (id serial PRIMARY KEY, messages {column_type}, provider text)"
            )
        )
        for i, history in enumerate(histories):
            conn.execute(
                sqlalchemy.text(
                    f"INSERT INTO {table} (messages, provider) VALUES (CAST(:m AS {column_type}), :p)"
                ),
                {"m": json.dumps(history), "p": "anthropic" if i % 2 else None},
            )
        conn.execute(
            sqlalchemy.text(f"INSERT INTO {table} (messages) VALUES (CAST(:m AS {column_type}))"),
            {"m": "[null]"},
        )

    def snapshot() -> dict[int, Any]:
        with engine.connect() as conn:
            rows = conn.execute(
                sqlalchemy.text(f"SELECT id, messages FROM {table} ORDER BY id")
            ).all()
        return {r[0]: (r[1] if column_type == "jsonb" else json.loads(r[1])) for r in rows}

    args = (
        "--table",
        table,
        "--column",
        "messages",
        "--provider-column",
        "provider",
        "--batch-size",
        "40",
    )
    before = snapshot()
    code, out, _ = run("migrate", pg_url, *args, "--dry-run")
    assert code == 2 and "would heal:" in out
    assert snapshot() == before

    code, out, _ = run("migrate", pg_url, *args, "--backup")
    assert code == 2
    assert (
        f"failed row {len(histories) + 1}: InputError: messages[0]: expected a message object, got null"
        in out
    )
    after = snapshot()
    for i, history in enumerate(histories):
        provider = "anthropic" if i % 2 else None
        want = dump_messages(heal_messages(history, provider=provider, scope="history").messages)  # type: ignore[arg-type]
        assert after[i + 1] == want
    assert after[len(histories) + 1] == [None]
    with engine.connect() as conn:
        backups = conn.execute(
            sqlalchemy.text(f"SELECT count(*) FROM {table}_heal_backup")
        ).scalar_one()
    changed = sum(1 for k in before if before[k] != after[k])
    assert backups == changed > 0

    code, out, _ = run("migrate", pg_url, *args)
    assert "healed: 0;" in out
    assert snapshot() == after
    engine.dispose()


# --- reliability: what the audit found ---------------------------------------------------------

# PostgreSQL stores it; Python's json (the driver's too) cannot load it.
DEEP = "[" * 2000 + "]" * 2000


def _table(pg_url: str, name: str, column_type: str, values: list[str]) -> Any:
    engine = sqlalchemy.create_engine(pg_url)
    with engine.begin() as conn:
        conn.execute(sqlalchemy.text(f"DROP TABLE IF EXISTS {name}, {name}_heal_backup"))
        conn.execute(
            sqlalchemy.text(
                f"CREATE TABLE {name} (id serial PRIMARY KEY, messages {column_type}, provider text)"
            )
        )
        for value in values:
            conn.execute(
                sqlalchemy.text(
                    f"INSERT INTO {name} (messages) VALUES (CAST(:m AS {column_type}))"
                ),
                {"m": value},
            )
    return engine


def _stored(engine: Any, name: str) -> dict[int, str]:
    with engine.connect() as conn:
        query = f"SELECT id, CAST(messages AS text) FROM {name} ORDER BY id"
        return {r[0]: r[1] for r in conn.execute(sqlalchemy.text(query))}


@pytest.mark.parametrize("column_type", ["jsonb", "text"])
def test_poison_rows_fail_alone_in_postgres(pg_url: str, column_type: str) -> None:
    from tests.test_migrate import NULL_CONTENT, ORPHAN_AI_SDK, expected

    table = f"poison_{column_type}"
    values = [
        json.dumps(ORPHAN_AI_SDK),
        DEEP,  # jsonb: the driver's json.loads used to fail reading its page, ending the run
        json.dumps(ORPHAN_AI_SDK),  # frozen below: the database refuses its healed value
        json.dumps(NULL_CONTENT),
        json.dumps(ORPHAN_AI_SDK),
    ]
    errors = {2: "RecursionError: ", 3: "not written: CheckViolation: ", 4: "InputError: "}
    if column_type == "text":  # what only a text column can hold
        # heal's lone-surrogate rule mends one in a message's text, not in a key it does not know
        unknown = {"role": "user", "content": "hi", "metadata": {"x": "\ud800"}}
        values.append(json.dumps([unknown, *ORPHAN_AI_SDK[1:]]))
        errors[6] = "UnicodeEncodeError: "
        values.append("[" * 100_000 + "]" * 100_000)
        errors[7] = "RecursionError: "
        # Not a poison row: json.dumps writes NUL back as the escape, which text holds.
        values.append(json.dumps([{**unknown, "metadata": {"x": "\u0000"}}, *ORPHAN_AI_SDK[1:]]))
    healed = [i for i in range(1, len(values) + 1) if i not in errors]
    engine = _table(pg_url, table, column_type, values)
    with engine.begin() as conn:
        frozen = conn.execute(
            sqlalchemy.text(f"SELECT md5(CAST(messages AS text)) FROM {table} WHERE id = 3")
        ).scalar_one()
        conn.execute(
            sqlalchemy.text(
                f"ALTER TABLE {table} ADD CONSTRAINT frozen "
                f"CHECK (id <> 3 OR md5(CAST(messages AS text)) = '{frozen}')"
            )
        )
    before = _stored(engine, table)
    args = ("--table", table, "--column", "messages")
    code, out, err = run("migrate", pg_url, *args, "--backup")
    assert code == 2, out + err
    assert f"healed: {len(healed)}; unchanged: 0; failed: {len(errors)}" in out
    for row_id, error in errors.items():
        assert f"failed row {row_id}: {error}" in out
    after = _stored(engine, table)
    for row_id in errors:
        assert after[row_id] == before[row_id]
    for row_id in healed:
        want = expected(json.loads(values[row_id - 1]))
        assert json.loads(after[row_id]) == want
    with engine.connect() as conn:
        backups = conn.execute(sqlalchemy.text(f"SELECT row_id FROM {table}_heal_backup"))
        assert sorted(r[0] for r in backups) == healed
    engine.dispose()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ((), "no column 'id' in table keyed (columns: conv_id, messages, provider); "),
        (("--id-column", "conv_id", "--column", "mesages"), "no column 'mesages' in table keyed"),
        (("--id-column", "conv_id", "--provider-column", "provder"), "pass --provider-column"),
        (("--id-column", "conv_id", "--table", "keyd"), "no table 'keyd' in "),
    ],
)
def test_a_missing_table_or_column_is_named_in_postgres(
    pg_url: str, options: tuple[str, ...], message: str
) -> None:
    engine = sqlalchemy.create_engine(pg_url)
    with engine.begin() as conn:
        conn.execute(sqlalchemy.text("DROP TABLE IF EXISTS keyed"))
        conn.execute(
            sqlalchemy.text(
                "CREATE TABLE keyed (conv_id int PRIMARY KEY, messages text, provider text)"
            )
        )
    engine.dispose()
    argv = ["migrate", pg_url, "--table", "keyed", "--column", "messages"]
    for option, value in zip(options[::2], options[1::2], strict=True):
        if option in argv:
            argv[argv.index(option) + 1] = value
        else:
            argv += [option, value]
    code, out, err = run(*argv, "--dry-run")
    assert (code, out) == (2, "")
    assert err.startswith("heal-messages: error: ") and message in err, err
    assert err.count("\n") == 1
    if "--table" in options:
        assert "keyed" in err.split("tables: ")[1]


def test_a_where_with_or_pages_in_postgres(pg_url: str) -> None:
    from tests.test_migrate import ORPHAN_AI_SDK, expected, within

    engine = _table(pg_url, "either", "jsonb", [json.dumps(ORPHAN_AI_SDK)] * 30)
    with engine.begin() as conn:
        conn.execute(sqlalchemy.text("UPDATE either SET provider = 'anthropic' WHERE id % 3 = 0"))
    where = "provider IS NULL OR provider = 'anthropic' AND id > 20"
    with within(30):  # "... OR ... AND id > :last": its first rows came back on every page
        code, out, err = run(
            "migrate", pg_url, "--table", "either", "--column", "messages", "--where", where,
            "--batch-size", "4",
        )  # fmt: skip
    assert code == 0, out + err
    after = _stored(engine, "either")
    healed = {i for i, text in after.items() if json.loads(text) != ORPHAN_AI_SDK}
    assert healed == {i for i in range(1, 31) if i % 3 or i > 20}
    assert all(json.loads(after[i]) == expected(ORPHAN_AI_SDK) for i in healed)
    engine.dispose()


@pytest.mark.parametrize(
    "where",
    [
        "1=1) OR (1=1",
        "1=1; DROP TABLE escape",
        # Balanced to a reader of standard SQL quotes, not to PostgreSQL (E'\'' is one quote,
        # $$'$$ another): only the server's parser sees "(E'\'' <> E'x') OR (...) AND id > ..."
        r"E'\'' <> E'x' ) OR (FALSE AND $$'$$ = $$x$$",
        "id = :id",
    ],
)
def test_a_where_that_is_not_one_condition_is_refused_in_postgres(pg_url: str, where: str) -> None:
    from tests.test_migrate import ORPHAN_AI_SDK, within

    engine = _table(pg_url, "escape", "jsonb", [json.dumps(ORPHAN_AI_SDK)] * 5)
    before = _stored(engine, "escape")
    with within(30):
        code, out, err = run(
            "migrate", pg_url, "--table", "escape", "--column", "messages", "--where", where,
            "--batch-size", "2",
        )  # fmt: skip
    assert (code, out) == (2, ""), out + err
    assert "--where" in err and err.count("\n") == 1, err
    assert _stored(engine, "escape") == before
    engine.dispose()


@pytest.mark.parametrize("column_type", ["jsonb", "text"])
def test_wrong_format_rows_in_postgres(pg_url: str, column_type: str) -> None:
    from tests.test_migrate import (
        MIXED_FORMATS,
        ORPHAN_AI_SDK,
        assert_openai_chat_call_kept,
        wrong_format_rows,
    )

    engine = sqlalchemy.create_engine(pg_url)
    table = f"formats_{column_type}"
    with engine.begin() as conn:
        conn.execute(sqlalchemy.text(f"DROP TABLE IF EXISTS {table}"))
        conn.execute(
            sqlalchemy.text(f"CREATE TABLE {table} (id serial PRIMARY KEY, messages {column_type})")
        )
        for history in wrong_format_rows():
            conn.execute(
                sqlalchemy.text(
                    f"INSERT INTO {table} (messages) VALUES (CAST(:m AS {column_type}))"
                ),
                {"m": json.dumps(history)},
            )

    def stored() -> dict[int, Any]:
        with engine.connect() as conn:
            found = conn.execute(
                sqlalchemy.text(f"SELECT id, messages FROM {table} ORDER BY id")
            ).all()
        return {r[0]: r[1] if column_type == "jsonb" else json.loads(r[1]) for r in found}

    args = ("--table", table, "--column", "messages")
    code, out, _ = run("migrate", pg_url, *args, "--format", "ai-sdk")
    assert code == 2 and "failed row 1: InputError" in out
    assert stored()[1] == wrong_format_rows()[0]
    code, out, _ = run("migrate", pg_url, *args)
    assert code == 2 and "failed row 3: ValueError: the history mixes formats" in out
    after = stored()
    assert_openai_chat_call_kept(after[1])
    assert after[2] == dump_messages(heal_messages(ORPHAN_AI_SDK, scope="history").messages)
    assert after[3] == MIXED_FORMATS
    engine.dispose()
