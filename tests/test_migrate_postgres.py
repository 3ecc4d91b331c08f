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
