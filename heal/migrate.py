"""One-shot healing of stored histories: JSON Lines files, SQLite, and any SQLAlchemy database.

The unit of work is a ROW (a line of a JSON Lines file, a row of a table). :func:`heal_row` is a
pure function of the stored text, so it runs the same in this process, in worker processes, or
on a distributed engine (the README's Dask recipe maps :func:`heal_jsonl_line` over files).

Safety, in the order things happen:

* only rules whose change belongs in stored history run (``scope="history"``), unless asked;
* ``dry_run`` opens databases read-only and writes nothing;
* each batch is one transaction: every updated row is either its original or its fully healed
  value, whenever the process dies; the ``UPDATE`` also requires the stored value to be the one
  read, so a row changed meanwhile by someone else is left alone (and reported);
* ``backup`` writes each original value to a backup table (``<table>_heal_backup``) in the same
  transaction as its update, or copies a file to ``<file>.bak`` before replacing it;
* JSON Lines files are rewritten to a temporary file and renamed over the original at the end;
* a row that fails to load is reported with its id and error (in the summary and the report)
  and left untouched;
* healing is idempotent, so a re-run finishes an interrupted job and changes nothing already
  healed.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TextIO

from heal._formats import healer, history_field, native_input
from heal.errors import ConfigError, HealError

__all__ = [
    "MigrationSummary",
    "RowOutcome",
    "heal_jsonl_line",
    "heal_row",
    "migrate",
    "open_store",
]


# --- the per-row function --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RowOutcome:
    """What healing one stored row gave."""

    row_id: Any
    """The row's id (primary key, or line number)."""
    healed: str | None
    """The new stored text, or None when nothing changed (or the row failed)."""
    repairs: tuple[dict[str, Any], ...] = ()
    """Every repair as JSON (``Repair.model_dump(mode="json")``)."""
    error: str | None = None
    """Why the row could not be healed; the row is left untouched."""


def heal_row(
    row_id: Any,
    stored: str | bytes,
    *,
    provider: str | None = None,
    key: str | None = None,
    scope: str = "history",
    fmt: str = "ai-sdk",
) -> RowOutcome:
    """Heal one stored history. Pure: the same input always gives the same outcome.

    ``stored`` is JSON text: a history, a request object holding one (``{"model", "messages",
    ...}``, read as ``heal-messages check`` reads it), or an object holding either at ``key``.
    The format's ``heal_<format>`` heals it, so only the history (and, for an Anthropic or
    Gemini request, its system instruction) is replaced: every other key is kept as it was, and
    a pydantic-ai history stays ``ModelMessagesTypeAdapter`` JSON.
    """
    try:
        heal = healer(fmt)
        document = json.loads(stored)
        field = history_field(document, key, fmt)
        history = document if field is None else document[field]
        result = heal(native_input(fmt, history), provider=provider, scope=scope)
    except (HealError, ValueError, KeyError, TypeError) as exc:
        return RowOutcome(row_id, None, error=f"{type(exc).__name__}: {exc}")
    repairs = tuple(r.model_dump(mode="json") for r in result.repairs)
    if not result.changed:
        return RowOutcome(row_id, None, repairs)
    healed = result.messages
    if fmt == "pydantic-ai" and not isinstance(history, str):
        if field is None:  # the row is pydantic-ai's own JSON: store what it writes
            return RowOutcome(row_id, healed, repairs)
        healed = json.loads(healed)
    document = {**document, field: healed} if field is not None else healed
    return RowOutcome(row_id, json.dumps(document, ensure_ascii=False), repairs)


def heal_jsonl_line(line: str, **options: Any) -> str:
    """Heal one JSON Lines record; return the healed line, or the line itself when nothing
    changed or it cannot be read (so a failed record is never lost). ``options`` are
    :func:`heal_row`'s. Made for mapping over lines on a distributed engine::

        import dask.bag as db
        db.read_text("chats-*.jsonl").map(str.rstrip, "\\n").map(heal_jsonl_line, key="messages")
    """
    outcome = heal_row(None, line, **options)
    return outcome.healed if outcome.healed is not None else line


def _heal_batch(
    rows: Sequence[tuple[Any, str, str | None]], options: dict[str, Any]
) -> list[RowOutcome]:
    default = options.get("provider")
    return [
        heal_row(
            row_id,
            stored,
            provider=row_provider or default,
            key=options.get("key"),
            scope=options["scope"],
            fmt=options["fmt"],
        )
        for row_id, stored, row_provider in rows
    ]


# --- stores ----------------------------------------------------------------------------------

Row = tuple[Any, str, "str | None"]
"""(id, stored JSON text, provider of this row or None)."""


class Store(Protocol):
    """Where histories are stored."""

    name: str

    def count(self) -> int: ...

    def batches(self, size: int) -> Iterator[list[Row]]: ...

    def write(self, updates: Sequence[tuple[Any, str, str]]) -> list[Any]:
        """Write (id, new, old) in one transaction; return the ids NOT written (changed
        meanwhile)."""
        ...

    def finish(self) -> None: ...

    def close(self) -> None: ...


class JsonLinesStore:
    """A JSON Lines file: one history (or object) per line; rewritten atomically at the end."""

    def __init__(self, path: Path, *, dest: Path | None, dry_run: bool, backup: bool) -> None:
        self.name = str(path)
        self.path = path
        self.dest = dest or path
        self.dry_run = dry_run
        self.backup = backup
        self.lines = path.read_text(encoding="utf-8").splitlines()
        self.new_lines = list(self.lines)
        self.changed = False

    def count(self) -> int:
        return sum(1 for line in self.lines if line.strip())

    def batches(self, size: int) -> Iterator[list[Row]]:
        rows: list[Row] = [(n + 1, line, None) for n, line in enumerate(self.lines) if line.strip()]
        for start in range(0, len(rows), size):
            yield rows[start : start + size]

    def write(self, updates: Sequence[tuple[Any, str, str]]) -> list[Any]:
        for line_no, new, _ in updates:
            self.new_lines[line_no - 1] = new
            self.changed = True
        return []

    def finish(self) -> None:
        if self.dry_run or (not self.changed and self.dest == self.path):
            return
        if self.backup and self.dest == self.path:
            shutil.copy2(self.path, self.path.with_name(self.path.name + ".bak"))
        fd, tmp = tempfile.mkstemp(dir=self.dest.parent, prefix=f".{self.dest.name}.")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write("\n".join(self.new_lines) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.dest)

    def close(self) -> None:
        return None


@dataclass
class TableSpec:
    """Which table and columns hold the histories."""

    table: str
    column: str
    id_column: str = "id"
    provider_column: str | None = None
    where: str | None = None


def _ident(name: str) -> str:
    # Identifiers cannot be bound as parameters; allow dotted names of plain identifiers only.
    parts = name.split(".")
    if not all(p.replace("_", "").isalnum() for p in parts):
        raise ConfigError(f"not a plain SQL identifier: {name!r}")
    return ".".join(f'"{p}"' for p in parts)


class SqliteStore:
    """A SQLite table, through the standard library."""

    def __init__(self, path: str, spec: TableSpec, *, dry_run: bool, backup: bool) -> None:
        self.name = f"sqlite:///{path}:{spec.table}"
        self.spec = spec
        self.dry_run = dry_run
        self.backup = backup
        if not Path(path).exists():
            raise ConfigError(f"no such database file: {path}")
        # Read-only for a dry run, so the file stays byte-identical.
        uri = f"file:{path}?mode=ro" if dry_run else f"file:{path}"
        self.conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=30)
        t, c, i = _ident(spec.table), _ident(spec.column), _ident(spec.id_column)
        p = _ident(spec.provider_column) if spec.provider_column else "NULL"
        where = f"({spec.where})" if spec.where else "1=1"
        self._select = (
            f"SELECT {i}, {c}, {p} FROM {t} WHERE {where} AND {i} > ? ORDER BY {i} LIMIT ?"
        )
        self._first = f"SELECT {i}, {c}, {p} FROM {t} WHERE {where} ORDER BY {i} LIMIT ?"
        self._count = f"SELECT COUNT(*) FROM {t} WHERE {where}"
        self._update = f"UPDATE {t} SET {c} = ? WHERE {i} = ? AND {c} = ?"
        self._backup_table = _ident(f"{spec.table}_heal_backup")
        if backup and not dry_run:
            self.conn.execute(
                f"CREATE TABLE IF NOT EXISTS {self._backup_table} "
                "(row_id, original TEXT NOT NULL, healed TEXT NOT NULL)"
            )

    def count(self) -> int:
        return int(self.conn.execute(self._count).fetchone()[0])

    def batches(self, size: int) -> Iterator[list[Row]]:
        rows = self.conn.execute(self._first, (size,)).fetchall()
        while rows:
            yield [(r[0], _text(r[1]), r[2]) for r in rows]
            rows = self.conn.execute(self._select, (rows[-1][0], size)).fetchall()

    def write(self, updates: Sequence[tuple[Any, str, str]]) -> list[Any]:
        if self.dry_run or not updates:
            return []
        skipped = []
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            for row_id, new, old in updates:
                if self.conn.execute(self._update, (new, row_id, old)).rowcount != 1:
                    skipped.append(row_id)
                elif self.backup:
                    self.conn.execute(
                        f"INSERT INTO {self._backup_table} VALUES (?, ?, ?)", (row_id, old, new)
                    )
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        return skipped

    def finish(self) -> None:
        return None

    def close(self) -> None:
        self.conn.close()


def _text(value: Any) -> str:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8")
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)  # a JSON column already decoded by the driver


class SqlAlchemyStore:
    """Any database SQLAlchemy reaches (PostgreSQL, MySQL, ...). Needs the ``sql`` extra."""

    def __init__(self, url: str, spec: TableSpec, *, dry_run: bool, backup: bool) -> None:
        try:
            import sqlalchemy as sa
        except ImportError:
            raise ConfigError(
                "this database URL needs SQLAlchemy: pip install 'heal-messages[sql]'"
            ) from None
        self.sa = sa
        self.name = f"{url.rsplit('@', maxsplit=1)[-1]}:{spec.table}"
        self.spec = spec
        self.dry_run = dry_run
        self.backup = backup
        self.engine = sa.create_engine(url)
        meta = sa.MetaData()
        self.table = sa.Table(spec.table, meta, autoload_with=self.engine)
        self.col = self.table.c[spec.column]
        self.id = self.table.c[spec.id_column]
        self.provider = self.table.c[spec.provider_column] if spec.provider_column else None
        self.json_column = isinstance(self.col.type, sa.JSON)
        self.where = sa.text(spec.where) if spec.where else sa.true()
        self.backup_table = sa.Table(
            f"{spec.table}_heal_backup",
            meta,
            sa.Column("row_id", self.id.type),
            sa.Column("original", sa.Text, nullable=False),
            sa.Column("healed", sa.Text, nullable=False),
        )
        if backup and not dry_run:
            meta.create_all(self.engine, tables=[self.backup_table])

    def count(self) -> int:
        sa = self.sa
        with self.engine.connect() as conn:
            query = sa.select(sa.func.count()).select_from(self.table).where(self.where)
            return int(conn.execute(query).scalar_one())

    def batches(self, size: int) -> Iterator[list[Row]]:
        sa = self.sa
        provider = self.provider if self.provider is not None else sa.null()
        last = None
        while True:
            query = sa.select(self.id, self.col, provider).where(self.where)
            if last is not None:
                query = query.where(self.id > last)
            query = query.order_by(self.id).limit(size)
            with self.engine.connect() as conn:
                rows = conn.execute(query).all()
            if not rows:
                return
            last = rows[-1][0]
            yield [(r[0], _text(r[1]), r[2]) for r in rows]

    def write(self, updates: Sequence[tuple[Any, str, str]]) -> list[Any]:
        if self.dry_run or not updates:
            return []
        sa = self.sa
        skipped = []
        with self.engine.begin() as conn:
            for row_id, new, old in updates:
                value: Any = json.loads(new) if self.json_column else new
                guard = (
                    sa.cast(self.col, sa.Text) == sa.cast(sa.literal(old, sa.Text), sa.Text)
                    if not self.json_column
                    else self.col == sa.cast(sa.literal(old, sa.Text), self.col.type)
                )
                stmt = self.table.update().where(self.id == row_id, guard).values({self.col: value})
                if conn.execute(stmt).rowcount != 1:
                    skipped.append(row_id)
                elif self.backup:
                    conn.execute(
                        self.backup_table.insert().values(row_id=row_id, original=old, healed=new)
                    )
        return skipped

    def finish(self) -> None:
        return None

    def close(self) -> None:
        self.engine.dispose()


def open_store(
    source: str,
    *,
    table: str | None = None,
    column: str | None = None,
    id_column: str = "id",
    provider_column: str | None = None,
    where: str | None = None,
    dest: str | None = None,
    dry_run: bool = False,
    backup: bool = False,
) -> Store:
    """Open a JSON Lines file, ``sqlite:///path.db``, or any SQLAlchemy URL."""
    if "://" not in source:
        path = Path(source)
        if not path.is_file():
            raise ConfigError(f"no such file: {source}")
        return JsonLinesStore(
            path, dest=Path(dest) if dest else None, dry_run=dry_run, backup=backup
        )
    if table is None or column is None:
        raise ConfigError("a database source needs --table and --column")
    spec = TableSpec(table, column, id_column, provider_column, where)
    if dest is not None:
        raise ConfigError("--dest is for JSON Lines files; databases are healed in place")
    if source.startswith("sqlite:///"):
        return SqliteStore(source[len("sqlite:///") :], spec, dry_run=dry_run, backup=backup)
    return SqlAlchemyStore(source, spec, dry_run=dry_run, backup=backup)


# --- the run ---------------------------------------------------------------------------------


@dataclass
class MigrationSummary:
    """What a migration did."""

    scanned: int = 0
    healed: int = 0
    unchanged: int = 0
    failed: int = 0
    skipped: int = 0
    """Rows changed by someone else between read and write: left alone."""
    repairs_by_rule: Counter[str] = field(default_factory=Counter)
    failures: list[tuple[Any, str]] = field(default_factory=list)
    seconds: float = 0.0
    dry_run: bool = False
    report: str | None = None
    """Where every repair and every failed row was written (``--report``), if anywhere."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "scanned": self.scanned,
            "healed": self.healed,
            "unchanged": self.unchanged,
            "failed": self.failed,
            "skipped": self.skipped,
            "repairs_by_rule": dict(sorted(self.repairs_by_rule.items())),
            "failures": [{"id": i, "error": e} for i, e in self.failures],
            "seconds": round(self.seconds, 3),
            "dry_run": self.dry_run,
        }

    def render(self) -> str:
        verb = "would heal" if self.dry_run else "healed"
        lines = [
            f"rows scanned: {self.scanned:,}; {verb}: {self.healed:,}; unchanged: "
            f"{self.unchanged:,}; failed: {self.failed:,}"
            + (f"; skipped (changed meanwhile): {self.skipped:,}" if self.skipped else ""),
        ]
        if self.seconds:
            lines.append(f"time: {self.seconds:.1f} s ({self.scanned / self.seconds:,.0f} rows/s)")
        if self.repairs_by_rule:
            lines.append("repairs by rule:")
            lines += [f"  {rule:<40} {n:>10,}" for rule, n in self.repairs_by_rule.most_common()]
        for row_id, error in self.failures[:20]:
            lines.append(f"failed row {row_id}: {error}")
        if len(self.failures) > 20:
            where = (
                f"every failed row is listed in {self.report}"
                if self.report is not None
                else "--report FILE lists every one"
            )
            lines.append(f"... and {len(self.failures) - 20} more failed rows ({where})")
        return "\n".join(lines)


class Progress:
    """A progress line on a terminal (rate and ETA); silent when the stream is not a terminal."""

    def __init__(self, total: int, label: str, stream: TextIO, *, enabled: bool | None = None):
        self.total = total
        self.label = label
        self.stream = stream
        self.enabled = stream.isatty() if enabled is None else enabled
        self.start = time.monotonic()
        self.last = 0.0

    def update(self, done: int, *, final: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not final and now - self.last < 0.2:
            return
        self.last = now
        elapsed = max(now - self.start, 1e-9)
        rate = done / elapsed
        eta = (self.total - done) / rate if rate > 0 and self.total else 0
        width = 30
        filled = int(width * done / self.total) if self.total else width
        bar = "#" * filled + "-" * (width - filled)
        self.stream.write(
            f"\r{self.label} [{bar}] {done:,}/{self.total:,} rows  {rate:,.0f} rows/s  "
            f"ETA {int(eta) // 60}:{int(eta) % 60:02d}"
        )
        if final:
            self.stream.write("\n")
        self.stream.flush()


def migrate(
    store: Store,
    *,
    provider: str | None = None,
    key: str | None = None,
    fmt: str = "ai-sdk",
    all_rules: bool = False,
    batch_size: int = 500,
    workers: int = 1,
    report: TextIO | None = None,
    progress: TextIO | None = None,
    dry_run: bool = False,
) -> MigrationSummary:
    """Heal every row of ``store``; see the module docstring for the safety guarantees.

    ``report`` gets one JSON line per repair (``{"row_id", **repair}``) and per failed row
    (``{"kind": "failure", "row_id", "error"}``). ``progress`` is a stream to draw a progress bar
    on (the command line passes its stderr when that is a terminal), or None for no bar.
    """
    if batch_size < 1 or workers < 1:
        raise ConfigError("batch size and workers must be at least 1")
    options = {
        "provider": provider,
        "key": key,
        "fmt": fmt,
        "scope": "request" if all_rules else "history",
    }
    name = getattr(report, "name", None)
    summary = MigrationSummary(
        dry_run=dry_run,
        report=(name if isinstance(name, str) else "the report") if report is not None else None,
    )
    bar = (
        Progress(
            store.count(),
            f"{'checking' if dry_run else 'healing'} {store.name}",
            progress,
            enabled=True,
        )
        if progress is not None
        else None
    )
    started = time.perf_counter()
    pool = ProcessPoolExecutor(max_workers=workers) if workers > 1 else None
    try:
        healer(fmt)  # an unknown format, or one missing its dependency, fails before any row
        batches = store.batches(batch_size)
        if pool is None:
            outcomes_iter: Iterator[tuple[list[Row], list[RowOutcome]]] = (
                (batch, _heal_batch(batch, options)) for batch in batches
            )
        else:
            outcomes_iter = _parallel(pool, batches, options, workers)
        for batch, outcomes in outcomes_iter:
            stored = {row[0]: row[1] for row in batch}
            updates = []
            for outcome in outcomes:
                summary.scanned += 1
                if outcome.error is not None:
                    summary.failed += 1
                    summary.failures.append((outcome.row_id, outcome.error))
                    if report is not None:
                        failure = {"kind": "failure", "row_id": outcome.row_id}
                        report.write(json.dumps({**failure, "error": outcome.error}, default=str))
                        report.write("\n")
                    continue
                if outcome.healed is None:
                    summary.unchanged += 1
                else:
                    summary.healed += 1
                    updates.append((outcome.row_id, outcome.healed, stored[outcome.row_id]))
                for repair in outcome.repairs:
                    summary.repairs_by_rule[repair["rule"]] += 1
                    if report is not None:
                        line = json.dumps({"row_id": outcome.row_id, **repair}, default=str)
                        report.write(line + "\n")
            skipped = store.write(updates)
            summary.skipped += len(skipped)
            summary.healed -= len(skipped)
            if bar is not None:
                bar.update(summary.scanned)
        store.finish()
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
        store.close()
    if bar is not None:
        bar.update(summary.scanned, final=True)
    summary.seconds = time.perf_counter() - started
    return summary


def _parallel(
    pool: ProcessPoolExecutor,
    batches: Iterator[list[Row]],
    options: dict[str, Any],
    workers: int,
) -> Iterator[tuple[list[Row], list[RowOutcome]]]:
    # Keep a few batches in flight per worker; results come back in order.
    pending: list[tuple[list[Row], Any]] = []
    for batch in batches:
        pending.append((batch, pool.submit(_heal_batch, batch, options)))
        if len(pending) >= workers * 2:
            done_batch, future = pending.pop(0)
            yield done_batch, future.result()
    for done_batch, future in pending:
        yield done_batch, future.result()
