"""Migration throughput: heal a 100,000-row SQLite table with 1 and with 2 worker processes.

    python -m benchmarks.migrate [--rows 100000] [--length 20]

Each run starts from a fresh copy of the same database, so both heal the same rows.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import tempfile
from pathlib import Path

from benchmarks.corpus import corpus
from heal.migrate import migrate, open_store


def build(path: Path, rows: int, length: int) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE chats (id INTEGER PRIMARY KEY, messages TEXT NOT NULL)")
    conn.executemany(
        "INSERT INTO chats VALUES (?, ?)",
        ((i + 1, json.dumps(h)) for i, h in enumerate(corpus(rows, length, broken=0.1, seed=1))),
    )
    conn.commit()
    conn.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--length", type=int, default=20, help="messages per history")
    parser.add_argument("--batch-size", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "source.db"
        build(source, args.rows, args.length)
        print(
            f"{args.rows:,} rows x {args.length} messages, 10% broken, batch size {args.batch_size}"
        )
        rates = {}
        for workers in (1, 2):
            db = Path(tmp) / f"w{workers}.db"
            shutil.copy(source, db)
            store = open_store(f"sqlite:///{db}", table="chats", column="messages")
            summary = migrate(store, workers=workers, batch_size=args.batch_size)
            rates[workers] = summary.scanned / summary.seconds
            print(
                f"workers={workers}: {summary.scanned:,} rows in {summary.seconds:.1f} s = "
                f"{rates[workers]:,.0f} rows/s; healed {summary.healed:,}"
            )
        print(f"speed-up with 2 workers: {rates[2] / rates[1]:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
