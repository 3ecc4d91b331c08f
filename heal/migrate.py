"""One-shot healing of stored histories: JSON Lines files, SQLite, and any SQLAlchemy database.

The unit of work is a ROW (a line of a JSON Lines file, a row of a table). :func:`heal_row` is a
pure function of the stored text, so it runs the same in this process, in worker processes, or
on a distributed engine (the README's Dask recipe maps :func:`heal_jsonl_line` over files).

Safety, in the order things happen:

* only rules whose change belongs in stored history run (``scope="history"``), unless asked;
* ``dry_run`` opens databases read-only and writes nothing;
* before any row is read, the table and every named column must exist (a ConfigError names the
  missing one and lists what there is), and ``where`` must be one condition: one that could close
  the parentheses heal puts it in, end the statement or comment out the rest is refused, and where
  the database can say so (SQLite, PostgreSQL, MySQL) its own parser must accept it both bare and
  in those parentheses; so the paging predicate always applies. Paging also stops with an error on
  a NULL id, or on a page that does not get past the last one, instead of missing rows or looping;
* each batch is one transaction: every updated row is either its original or its fully healed
  value, whenever the process dies; the ``UPDATE`` also requires the stored value to be the one
  read, so a row changed meanwhile by someone else is left alone (and reported);
* ``backup`` writes each original value to a backup table (``<table>_heal_backup``) in the same
  transaction as its update, or writes a copy of a file to a new file renamed onto
  ``<file>.bak`` (a symlink or hard link at that name is replaced, never written through);
* JSON Lines files are read as lines ending at ``"\\n"`` alone (a JSON string may hold U+2028,
  U+2029 and U+0085 raw), rewritten to a temporary file with the original's mode and owner, and
  renamed over the original at the end; the temporary file is removed if anything fails. A
  symlinked file is healed where it points, and stays a symlink;
* a row that fails to load or to heal (too deeply nested, not UTF-8, healed into text no UTF-8
  store can hold such as a lone surrogate) is reported with its id and error (in the summary and
  the report) and left untouched; so is a row whose healed value the database refuses, and the
  rest of its batch is still written;
* worker processes die with the migration: killed, it leaves none behind;
* healing is idempotent, so a re-run finishes an interrupted job and changes nothing already
  healed.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import json
import multiprocessing
import os
import signal
import sqlite3
import stat
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TextIO, TypeVar, cast

from heal._formats import AUTO, healer, history_field, native_input, resolve_format
from heal.errors import ConfigError, HealError
from heal.targets import Target, target_keywords

__all__ = [
    "MigrationSummary",
    "RowOutcome",
    "heal_jsonl_line",
    "heal_row",
    "migrate",
    "open_report",
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


PAUSE_GC_FROM_BYTES = 1 << 18
"""Rows whose stored text is at least this long (256 KiB, about 2,000 messages) are healed with
Python's cyclic garbage collector paused.

Reading a row builds all of its objects at once: the decoded JSON, then the models. The
collector is triggered by allocation counts, and each full collection rescans every object
alive, those just built included, so a long row paid for its own size over and over: a
50,000-message row spent three quarters of its time in the collector (1.2 to 1.5 s healed as it
was, 0.27 s paused; measured in issue "Speed"). What healing a row allocates is freed by
reference counting, so the collector has nothing of heal's to find. Shorter rows rarely
trigger it and are left alone. As in the engine (``heal._engine.PAUSE_GC_FROM``), the pause is
process-wide for the duration of the call, and the collector is re-enabled on return (or on an
exception) only if it was enabled on entry.
"""

_Heal = TypeVar("_Heal", bound=Callable[..., "RowOutcome"])


def _collector_paused_for_long_rows(heal: _Heal) -> _Heal:
    """``heal_row``, run with the collector paused when its ``stored`` text is long (see
    :data:`PAUSE_GC_FROM_BYTES`)."""

    @functools.wraps(heal)
    def paused(*args: Any, **kwargs: Any) -> RowOutcome:
        stored = args[1] if len(args) > 1 else kwargs.get("stored")
        long = isinstance(stored, (str, bytes)) and len(stored) >= PAUSE_GC_FROM_BYTES
        if not long or not gc.isenabled():
            return heal(*args, **kwargs)
        gc.disable()
        try:
            return heal(*args, **kwargs)
        finally:
            gc.enable()

    return cast(_Heal, paused)


@_collector_paused_for_long_rows
def heal_row(
    row_id: Any,
    stored: str | bytes,
    *,
    provider: str | None = None,
    model: str | None = None,
    thinking: bool | None = None,
    key: str | None = None,
    scope: str = "history",
    fmt: str = "ai-sdk",
) -> RowOutcome:
    """Heal one stored history. Pure: the same input always gives the same outcome.

    ``stored`` is JSON text: a history, a request object holding one (``{"model", "messages",
    ...}``, read as ``heal-messages check`` reads it), or an object holding either at ``key``.
    The format's ``heal_<format>`` heals it, so only the history (and, for an Anthropic or
    Gemini request, its system instruction) is replaced: every other key is kept as it was, and
    a pydantic-ai history stays ``ModelMessagesTypeAdapter`` JSON. ``fmt="auto"`` picks each
    row's format from its own keys; a row that mixes two formats fails.

    A row that cannot be read or healed gives an outcome with its ``error`` instead of raising,
    so that such a row never ends a migration. ``model`` and ``thinking`` describe the target
    request (:class:`heal.targets.Target`).
    """
    try:
        document = json.loads(stored)
        row_fmt = resolve_format(fmt, document, key)
        heal = healer(row_fmt)
        field = history_field(document, key, row_fmt)
        history = document if field is None else document[field]
        target = Target.of(provider, model, thinking=thinking)
        result = heal(
            native_input(row_fmt, history),
            provider=target.provider,
            scope=scope,
            **target_keywords(target),
        )
        repairs = tuple(r.model_dump(mode="json") for r in result.repairs)
        if not result.changed:
            return RowOutcome(row_id, None, repairs)
        healed = _healed_text(document, field, history, result.messages, row_fmt)
        # A lone surrogate loads (the JSON text "\ud800") and json.dumps writes it back raw, which
        # no UTF-8 file or database can store: the row fails here, alone, instead of its batch
        # (or the whole file) when written.
        healed.encode("utf-8")
    # RecursionError: a row nested deeper than Python's json reads. MemoryError: a row too big to
    # heal; the allocation that failed is given back, so the next row runs as before, and if
    # memory is short for every row, every row fails and none is changed.
    except (HealError, ValueError, KeyError, TypeError, RecursionError, MemoryError) as exc:
        return RowOutcome(row_id, None, error=f"{type(exc).__name__}: {exc}")
    return RowOutcome(row_id, healed, repairs)


def _healed_text(document: Any, field: str | None, history: Any, healed: Any, fmt: str) -> str:
    if fmt == "pydantic-ai" and not isinstance(history, str):
        if field is None:  # the row is pydantic-ai's own JSON: store what it writes
            return str(healed)
        healed = json.loads(healed)
    document = {**document, field: healed} if field is not None else healed
    return json.dumps(document, ensure_ascii=False)


def heal_jsonl_line(line: str, **options: Any) -> str:
    """Heal one JSON Lines record; return the healed line, or the line itself when nothing
    changed or it cannot be read (so a failed record is never lost). ``options`` are
    :func:`heal_row`'s. Made for mapping over lines on a distributed engine::

        import dask.bag as db
        db.read_text("chats-*.jsonl").map(str.rstrip, "\\n").map(heal_jsonl_line, key="messages")
    """
    outcome = heal_row(None, line, **options)
    return outcome.healed if outcome.healed is not None else line


def _heal_batch(rows: Sequence[Row], options: dict[str, Any]) -> list[RowOutcome]:
    default = options.get("provider")
    return [
        heal_row(
            row_id,
            stored,
            provider=row_provider or default,
            model=row_model or options.get("model"),
            thinking=options.get("thinking"),
            key=options.get("key"),
            scope=options["scope"],
            fmt=options["fmt"],
        )
        for row_id, stored, row_provider, row_model in rows
    ]


# --- stores ----------------------------------------------------------------------------------

Row = tuple[Any, "str | bytes", "str | None", Any]
"""(id, stored JSON text, provider of this row or None, model of this row or None). The text is
bytes when the store holds bytes (a SQLite BLOB, a line that is not UTF-8): heal_row reads them,
or fails the row. The model is whatever the model column holds: a value that is not a model id
string fails its row (heal_row's ConfigError), never the migration."""

Update = tuple[Any, str, "str | bytes"]
"""(id, healed text, the stored value it replaces)."""


@dataclass
class Written:
    """What a store did with a batch of updates."""

    skipped: list[Any] = field(default_factory=list)
    """Ids of rows changed meanwhile by someone else: left alone."""
    failed: list[tuple[Any, str]] = field(default_factory=list)
    """(id, why) of rows whose healed value the store refused: left as they were."""


class Store(Protocol):
    """Where histories are stored."""

    name: str

    def count(self) -> int: ...

    def batches(self, size: int) -> Iterator[list[Row]]: ...

    def write(self, updates: Sequence[Update]) -> Written:
        """Write (id, new, old) in one transaction; say which rows were not written."""
        ...

    def finish(self) -> None: ...

    def close(self) -> None: ...


class JsonLinesStore:
    """A JSON Lines file: one history (or object) per line; rewritten atomically at the end."""

    def __init__(self, path: Path, *, dest: Path | None, dry_run: bool, backup: bool) -> None:
        self.name = str(path)
        # Resolved once: a symlink is healed where it points (and stays a symlink), instead of
        # being replaced by a healed copy while its target stays unhealed.
        self.path = path.resolve(strict=True)
        self.dest = None if dest is None or dest.resolve() == self.path else dest
        self.dry_run = dry_run
        self.backup = backup
        data = self.path.read_bytes()
        # Lines end at "\n" alone. str.splitlines() also ends them at U+2028, U+2029 and U+0085,
        # which a JSON string may hold raw, and at \x0b \x0c \x1c-\x1e: a record would be cut in
        # two, and every later line number would be off. Each line is kept as bytes (with its
        # "\r", if any), so what is not healed is written back exactly as it was.
        self.lines = data.split(b"\n")
        self.final_newline = data.endswith(b"\n")
        if self.final_newline:
            self.lines.pop()
        self.healed: dict[int, str] = {}

    def count(self) -> int:
        return sum(1 for line in self.lines if line.strip())

    def batches(self, size: int) -> Iterator[list[Row]]:
        batch: list[Row] = []
        for number, raw in enumerate(self.lines, start=1):
            line = raw.removesuffix(b"\r")
            if not line.strip():
                continue
            text: str | bytes
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError:
                text = line  # heal_row fails it, naming the byte; the line stays as it is
            batch.append((number, text, None, None))
            if len(batch) == size:
                yield batch
                batch = []
        if batch:
            yield batch

    def write(self, updates: Sequence[Update]) -> Written:
        for line_no, new, _ in updates:
            self.healed[line_no] = new
        return Written()

    def _content(self, *, healed: bool) -> Iterator[bytes]:
        for number, raw in enumerate(self.lines, start=1):
            if number > 1:
                yield b"\n"
            new = self.healed.get(number) if healed else None
            yield raw if new is None else new.encode("utf-8") + raw[len(raw.rstrip(b"\r")) :]
        if self.final_newline:
            yield b"\n"

    def finish(self) -> None:
        if self.dry_run or (not self.healed and self.dest is None):
            return
        if self.backup and self.dest is None:
            # Written fresh and renamed onto the name, not copied onto it: whatever is there (a
            # symlink, planted or stale; a hard link) is replaced instead of written through, so
            # the backup can never overwrite another file. Refusing would stop the run over a
            # link nobody needs, and a crash mid-copy would leave no whole backup; here the
            # previous backup stays whole until the new one is complete.
            backup = self.path.with_name(self.path.name + ".bak")
            _replace_file(backup, self._content(healed=False), like=self.path, keep_times=True)
        if self.dest is None:
            _replace_file(self.path, self._content(healed=True), like=self.path)
        else:
            # A destination that exists keeps its own mode and owner; a new one gets the source's.
            existing = self.dest.exists() and not self.dest.is_symlink()
            like = self.dest if existing else self.path
            _replace_file(self.dest, self._content(healed=True), like=like)

    def close(self) -> None:
        return None


def _replace_file(
    target: Path, content: Iterable[bytes], *, like: Path, keep_times: bool = False
) -> None:
    """Write ``content`` to a new file beside ``target`` and rename it onto ``target``: readers
    see the old file or the new one, never a part. The new file gets ``like``'s permission bits,
    and its owner and group where this process may give them (mkstemp makes it 0600 and ours)."""
    like_stat = like.stat()
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.writelines(content)
            f.flush()
            _keep_owner_and_mode(f.fileno(), tmp, like_stat)
            os.fsync(f.fileno())
        if keep_times:
            os.utime(tmp, ns=(like_stat.st_atime_ns, like_stat.st_mtime_ns))
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _keep_owner_and_mode(fd: int, path: str, like: os.stat_result) -> None:
    mode = stat.S_IMODE(like.st_mode)
    if os.name != "posix":
        os.chmod(path, mode)
        return
    # The owner first: a change of owner may clear set-id bits that the mode then restores. Only
    # root may give a file away; anyone may still give it the group, if a member of it.
    for uid in (like.st_uid, -1):
        try:
            os.fchown(fd, uid, like.st_gid)
            break
        except PermissionError:
            continue
    os.fchmod(fd, mode)


def open_report(path: str) -> TextIO:
    """Open ``--report``'s file for writing, without following a symlink at ``path`` to a file.

    A symlink there may have been planted so that whoever runs the migration (with rights to
    files the planter has not) truncates a file of their choosing: refused, with a ConfigError
    naming the path. A symlink to what is not a regular file (``/dev/stdout``, a shell's
    ``>(gzip > report.gz)``) is opened as usual: writing there truncates nothing.
    """
    flags = os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    fd = -1
    if nofollow or not os.path.islink(path):
        try:
            fd = os.open(path, flags | os.O_CREAT | os.O_TRUNC | nofollow, 0o666)
        except OSError:
            if not os.path.islink(path):
                raise
    if fd < 0:
        # Opened without O_CREAT and O_TRUNC: following the link changes nothing, and the file
        # descriptor checked is the one written to.
        try:
            fd = os.open(path, flags)
        except OSError as exc:
            raise ConfigError(
                f"--report {path} is a symbolic link, and where it points cannot be opened "
                f"({os.strerror(exc.errno or 0).lower()}); heal does not create files through a "
                "link: name the file itself"
            ) from None
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise ConfigError(
                f"--report {path} is a symbolic link to the file {os.path.realpath(path)}; "
                "heal does not truncate a file through a link: name the file itself"
            )
    # open() rather than os.fdopen(): the stream's name is the path, which the summary shows.
    return open(path, "w", encoding="utf-8", opener=lambda _path, _flags: fd)


@dataclass
class TableSpec:
    """Which table and columns hold the histories."""

    table: str
    column: str
    id_column: str = "id"
    provider_column: str | None = None
    where: str | None = None
    model_column: str | None = None


def _ident(name: str) -> str:
    # Identifiers cannot be bound as parameters; allow dotted names of plain identifiers only.
    parts = name.split(".")
    if not all(p.replace("_", "").isalnum() for p in parts):
        raise ConfigError(f"not a plain SQL identifier: {name!r}")
    return ".".join(f'"{p}"' for p in parts)


def _check_where(where: str) -> None:
    """Refuse a condition that could keep heal's paging predicate from applying.

    heal reads ``... WHERE (<where>) AND id > ? ORDER BY id LIMIT ?``. A condition that closes
    those parentheses (``1=1) OR (1=1``) takes the predicate out of the condition and the same
    first page comes back forever; one that ends the statement or comments out the rest does
    worse. Dialects disagree about where a literal ends (backslash escapes, dollar quotes), so
    ``;`` and comment markers are refused even inside one, and the count of parentheses outside
    quotes is a first check only: the stores ask the database's own parser too, where they can.
    """
    for marker in (";", "--", "/*"):
        if marker in where:
            raise ConfigError(
                f"--where {where!r} contains {marker!r}: give one condition, without statement "
                "separators or comments (even inside a literal)"
            )
    depth = 0
    quote = ""
    for char in where:
        if quote:
            quote = "" if char == quote else quote  # a doubled quote closes and reopens
        elif char in "'\"`":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                raise ConfigError(f"--where {where!r} closes a parenthesis it did not open")
    if quote:
        raise ConfigError(f"--where {where!r} leaves a quote open ({quote})")
    if depth:
        raise ConfigError(f"--where {where!r} leaves a parenthesis open")


def _missing_column(name: str, table: str, columns: Iterable[str], option: str) -> ConfigError:
    return ConfigError(
        f"no column {name!r} in table {table} (columns: {', '.join(columns)}); pass {option}"
    )


_START = object()
"""The paging key before the first page."""


def _page_end(store: str, id_column: str, previous: object, ids: Sequence[Any]) -> Any:
    """The id to page on from: the page's last, checked to make progress."""
    if any(row_id is None for row_id in ids):
        # NULL is never > anything: a page ending on one ended the migration, silently; and a
        # row with a NULL id cannot be written back (``id = NULL`` matches nothing).
        raise ConfigError(
            f"{store}: column {id_column!r} is NULL in some rows; --id-column must name a unique "
            "key of the table"
        )
    last = ids[-1]
    # Equality, not <=: the database orders ids by its own collation, which Python's < need not
    # share; the same last id twice means the same page came back, and it would forever.
    if previous is not _START and last == previous:
        raise ConfigError(
            f"{store}: paging by {id_column!r} did not get past {last!r}; --id-column must name "
            "a unique key of the table"
        )
    return last


def _first_line(exc: BaseException) -> str:
    """``Type: message``, the message's first line: the driver's error, not SQLAlchemy's
    wrapper (that one repeats the statement and its parameters, a whole healed history)."""
    orig = getattr(exc, "orig", None)
    if isinstance(orig, BaseException):
        exc = orig
    # args[0], not str(): SQLAlchemy's own errors append a link to their documentation.
    message = exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)
    lines = message.strip().splitlines()
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"


def _write_each(
    updates: Sequence[Update],
    transaction: Callable[[Sequence[Update]], list[Any]],
    refused: Callable[[Exception], bool],
) -> Written:
    """Write the batch in one transaction; when the database refuses a value in it, write its
    rows one by one, so that only the refused rows fail. Any other error (a lock, a full disk,
    a lost connection) is no row's fault: it ends the run, as before."""
    try:
        return Written(skipped=transaction(updates))
    except Exception as exc:
        if not refused(exc):
            raise
    written = Written()
    for update in updates:
        try:
            written.skipped += transaction([update])
        except Exception as exc:
            if not refused(exc):
                raise
            written.failed.append((update[0], f"not written: {_first_line(exc)}"))
    return written


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_ROWID = {"rowid", "oid", "_rowid_"}


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
        try:
            self._prepare(path, spec)
        except BaseException:
            self.conn.close()
            raise

    def _prepare(self, path: str, spec: TableSpec) -> None:
        t, c, i = _ident(spec.table), _ident(spec.column), _ident(spec.id_column)
        p = _ident(spec.provider_column) if spec.provider_column else "NULL"
        p += ", " + (_ident(spec.model_column) if spec.model_column else "NULL")
        self._check_columns(path, spec, t)
        if spec.where is not None:
            _check_where(spec.where)
        where = f"({spec.where})" if spec.where is not None else "1=1"
        self._select = (
            f"SELECT {i}, {c}, {p} FROM {t} WHERE {where} AND {i} > ? ORDER BY {i} LIMIT ?"
        )
        self._first = f"SELECT {i}, {c}, {p} FROM {t} WHERE {where} ORDER BY {i} LIMIT ?"
        self._count = f"SELECT COUNT(*) FROM {t} WHERE {where}"
        if spec.where is not None:
            # SQLite's parser has the last word. Bare, the condition is at the statement's top
            # level, where a parenthesis it closes without opening is a syntax error; in heal's
            # parentheses, anything but one expression (such as "1 ORDER BY id") is one too.
            statements: list[tuple[str, tuple[int, ...]]] = [
                (f"SELECT 1 FROM {t} WHERE {spec.where}", ())
            ]
            statements += [(self._first, (0,)), (self._select, (0, 0)), (self._count, ())]
            for sql, params in statements:
                try:
                    self.conn.execute(f"EXPLAIN {sql}", params).close()
                except sqlite3.Error as exc:
                    raise ConfigError(
                        f"--where {spec.where!r} is not a condition on table {spec.table} of "
                        f"{path}: {exc}"
                    ) from None
        self._update = f"UPDATE {t} SET {c} = ? WHERE {i} = ? AND {c} = ?"
        self._backup_table = _ident(f"{spec.table}_heal_backup")
        if self.backup and not self.dry_run:
            self.conn.execute(
                f"CREATE TABLE IF NOT EXISTS {self._backup_table} "
                "(row_id, original TEXT NOT NULL, healed TEXT NOT NULL)"
            )

    def _check_columns(self, path: str, spec: TableSpec, table: str) -> None:
        # An unknown double-quoted name is read by SQLite as a string literal: a wrong id column
        # paged on a constant (one page, exit 0, the other rows never read), a wrong column gave
        # every row a decode error.
        schema, _, name = spec.table.rpartition(".")
        prefix = f"{_ident(schema)}." if schema else ""
        try:
            info = self.conn.execute(f"PRAGMA {prefix}table_xinfo({_ident(name)})").fetchall()
            if not info:
                tables = self.conn.execute(
                    f"SELECT name FROM {prefix}sqlite_master WHERE type IN ('table', 'view') "
                    "AND name NOT LIKE 'sqlite!_%' ESCAPE '!' ORDER BY name"
                ).fetchall()
        except sqlite3.Error as exc:
            raise ConfigError(f"cannot read table {spec.table} in {path}: {exc}") from None
        if not info:
            names = ", ".join(n for (n,) in tables) or "none"
            raise ConfigError(f"no table {spec.table!r} in {path} (tables: {names}); pass --table")
        columns = [row[1] for row in info]
        known = {str(column).translate(_ASCII_LOWER) for column in columns}
        named = [(spec.column, "--column"), (spec.id_column, "--id-column")]
        if spec.provider_column is not None:
            named.append((spec.provider_column, "--provider-column"))
        if spec.model_column is not None:
            named.append((spec.model_column, "--model-column"))
        for column, option in named:
            folded = column.translate(_ASCII_LOWER)  # SQLite's names ignore ASCII case
            if folded in known:
                continue
            if option == "--id-column" and folded in _ROWID and self._has_rowid(table):
                continue
            raise _missing_column(column, spec.table, columns, option)

    def _has_rowid(self, table: str) -> bool:
        try:
            self.conn.execute(f"EXPLAIN SELECT rowid FROM {table}").close()
        except sqlite3.Error:
            return False  # a view, or a WITHOUT ROWID table
        return True

    def count(self) -> int:
        return int(self.conn.execute(self._count).fetchone()[0])

    def batches(self, size: int) -> Iterator[list[Row]]:
        rows = self.conn.execute(self._first, (size,)).fetchall()
        last: object = _START
        while rows:
            last = _page_end(self.name, self.spec.id_column, last, [r[0] for r in rows])
            yield [(r[0], _stored_sqlite(r[1]), r[2], r[3]) for r in rows]
            rows = self.conn.execute(self._select, (last, size)).fetchall()

    def write(self, updates: Sequence[Update]) -> Written:
        if self.dry_run or not updates:
            return Written()
        return _write_each(updates, self._transaction, _sqlite_refused)

    def _transaction(self, updates: Sequence[Update]) -> list[Any]:
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
            # SQLite may have rolled back already (a full disk does): a ROLLBACK then would fail
            # and hide the error that matters.
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise
        return skipped

    def finish(self) -> None:
        return None

    def close(self) -> None:
        self.conn.close()


def _sqlite_refused(exc: Exception) -> bool:
    # A constraint or trigger refusing the value, a value too big, one the driver cannot bind.
    return isinstance(exc, (sqlite3.IntegrityError, sqlite3.DataError, ValueError, OverflowError))


def _stored_sqlite(value: Any) -> str | bytes:
    # A BLOB stays bytes: heal_row reads it (or fails the row if it is not UTF-8), and the
    # UPDATE's guard compares the BLOB itself (a BLOB never equals the text it decodes to).
    if isinstance(value, (str, bytes)):
        return value
    return json.dumps(value, ensure_ascii=False)


def _text(value: Any) -> str | bytes:
    if isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            return bytes(value)  # heal_row fails the row, naming the byte
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)  # a JSON column already decoded by the driver


# Dialects whose EXPLAIN parses a SELECT without running it.
_EXPLAIN_DIALECTS = frozenset({"postgresql", "mysql", "mariadb", "sqlite"})


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
        self.database = url.rsplit("@", maxsplit=1)[-1]
        self.name = f"{self.database}:{spec.table}"
        self.spec = spec
        self.dry_run = dry_run
        self.backup = backup
        self.engine = sa.create_engine(url)
        try:
            self._prepare(spec)
        except BaseException:
            self.engine.dispose()
            raise

    def _prepare(self, spec: TableSpec) -> None:
        sa = self.sa
        meta = sa.MetaData()
        try:
            self.table = sa.Table(spec.table, meta, autoload_with=self.engine)
        except sa.exc.NoSuchTableError:
            names = ", ".join(sa.inspect(self.engine).get_table_names()) or "none"
            raise ConfigError(
                f"no table {spec.table!r} in {self.database} (tables: {names}); pass --table"
            ) from None
        self.col = self._column(spec.column, "--column")
        self.id = self._column(spec.id_column, "--id-column")
        self.provider = (
            self._column(spec.provider_column, "--provider-column")
            if spec.provider_column
            else None
        )
        self.model = (
            self._column(spec.model_column, "--model-column") if spec.model_column else None
        )
        self.json_column = isinstance(self.col.type, sa.JSON)
        # A JSON column is read as its text: the driver's own json.loads would fail a whole page
        # on one row nested too deep (RecursionError), outside heal_row; and PostgreSQL's json
        # type has no = to guard the UPDATE with, its text has.
        self.read = sa.cast(self.col, sa.Text) if self.json_column else self.col
        self.where: Any = sa.true()
        if spec.where is not None:
            _check_where(spec.where)
            self._explain(spec.where)
            # In parentheses: SQLAlchemy does not group text(), and "a OR b AND id > :last" is
            # "a OR (b AND id > :last)", whose a-rows came back on every page, forever.
            self.where = sa.text(f"({spec.where})")
        self.backup_table = sa.Table(
            f"{spec.table}_heal_backup",
            meta,
            sa.Column("row_id", self.id.type),
            sa.Column("original", sa.Text, nullable=False),
            sa.Column("healed", sa.Text, nullable=False),
        )
        if self.backup and not self.dry_run:
            meta.create_all(self.engine, tables=[self.backup_table])

    def _column(self, name: str, option: str) -> Any:
        try:
            return self.table.c[name]
        except KeyError:
            raise _missing_column(name, self.spec.table, self.table.c.keys(), option) from None

    def _explain(self, where: str) -> None:
        # The database's parser has the last word on where the condition ends (see
        # _check_where): bare, it is at the statement's top level, where a parenthesis it closes
        # without opening is a syntax error; in parentheses, it must be one expression.
        if self.engine.dialect.name not in _EXPLAIN_DIALECTS:
            return
        sa = self.sa
        table = self.engine.dialect.identifier_preparer.format_table(self.table)
        for condition in (where, f"({where}) AND 1 = 1"):
            try:
                with self.engine.connect() as conn:
                    conn.execute(sa.text(f"EXPLAIN SELECT 1 FROM {table} WHERE {condition}"))
            except sa.exc.SQLAlchemyError as exc:
                raise ConfigError(
                    f"--where {where!r} is not a condition on table {self.spec.table} of "
                    f"{self.database}: {_first_line(exc)}"
                ) from None

    def count(self) -> int:
        sa = self.sa
        with self.engine.connect() as conn:
            query = sa.select(sa.func.count()).select_from(self.table).where(self.where)
            return int(conn.execute(query).scalar_one())

    def batches(self, size: int) -> Iterator[list[Row]]:
        sa = self.sa
        provider = self.provider if self.provider is not None else sa.null()
        model = self.model if self.model is not None else sa.null()
        last: object = _START
        while True:
            query = sa.select(self.id, self.read, provider, model).where(self.where)
            if last is not _START:
                query = query.where(self.id > last)
            query = query.order_by(self.id).limit(size)
            with self.engine.connect() as conn:
                rows = conn.execute(query).all()
            if not rows:
                return
            last = _page_end(self.name, self.spec.id_column, last, [r[0] for r in rows])
            yield [(r[0], _text(r[1]), r[2], r[3]) for r in rows]

    def write(self, updates: Sequence[Update]) -> Written:
        if self.dry_run or not updates:
            return Written()
        return _write_each(updates, self._transaction, self._refused)

    def _refused(self, exc: Exception) -> bool:
        # A constraint refusing the value, a value the column cannot hold (too long, a \u0000 in
        # jsonb), one the driver cannot send.
        errors = self.sa.exc
        return isinstance(exc, (errors.IntegrityError, errors.DataError, ValueError, OverflowError))

    def _transaction(self, updates: Sequence[Update]) -> list[Any]:
        sa = self.sa
        skipped = []
        with self.engine.begin() as conn:
            for row_id, new, old in updates:
                value: Any = json.loads(new) if self.json_column else new
                guard = sa.cast(self.col, sa.Text) == sa.cast(sa.literal(old, sa.Text), sa.Text)
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
    model_column: str | None = None,
    where: str | None = None,
    dest: str | None = None,
    dry_run: bool = False,
    backup: bool = False,
) -> Store:
    """Open a JSON Lines file, ``sqlite:///path.db``, or any SQLAlchemy URL.

    Raises ConfigError, naming what is wrong, for a missing file, table or column, and for a
    ``where`` that is not one condition."""
    if "://" not in source:
        path = Path(source)
        if not path.is_file():
            raise ConfigError(f"no such file: {source}")
        return JsonLinesStore(
            path, dest=Path(dest) if dest else None, dry_run=dry_run, backup=backup
        )
    if table is None or column is None:
        raise ConfigError("a database source needs --table and --column")
    spec = TableSpec(table, column, id_column, provider_column, where, model_column)
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
    model: str | None = None,
    thinking: bool | None = None,
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
        "model": model,
        "thinking": thinking,
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
    pool = _pool(workers) if workers > 1 else None
    try:
        if fmt != AUTO:
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
            written = store.write(
                [
                    (o.row_id, o.healed, stored[o.row_id])
                    for o in outcomes
                    if o.healed is not None and o.error is None
                ]
            )
            refused = dict(written.failed)
            for outcome in outcomes:
                summary.scanned += 1
                error = outcome.error if outcome.error is not None else refused.get(outcome.row_id)
                if error is not None:
                    summary.failed += 1
                    summary.failures.append((outcome.row_id, error))
                    if report is not None:
                        failure = {"kind": "failure", "row_id": outcome.row_id, "error": error}
                        report.write(json.dumps(failure, default=str) + "\n")
                    continue
                if outcome.healed is None:
                    summary.unchanged += 1
                else:
                    summary.healed += 1
                for repair in outcome.repairs:
                    summary.repairs_by_rule[repair["rule"]] += 1
                    if report is not None:
                        line = json.dumps({"row_id": outcome.row_id, **repair}, default=str)
                        report.write(line + "\n")
            summary.skipped += len(written.skipped)
            summary.healed -= len(written.skipped)
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


def _pool(workers: int) -> ProcessPoolExecutor:
    context = multiprocessing.get_context()
    # A forkserver's workers are its children, not ours; it exits when we do, and takes them
    # with it (their parent-death signal), so there is no parent of ours for them to check.
    parent = os.getpid() if context.get_start_method() != "forkserver" else None
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_die_with_parent, initargs=(parent,)
    )


_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int | None) -> None:
    """Worker initializer: a worker must not outlive the migration that started it. Killed with
    SIGKILL, the migration runs no cleanup, and its workers lived on as orphans, still healing
    queued rows and holding the parent's pipes open (a caller reading its output never saw it
    end)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0:
            # The parent may have died between our fork and the prctl: no signal will come then.
            if parent is not None and os.getppid() != parent:
                os._exit(1)
            return
    # Elsewhere (or should prctl fail): watch for the parent to go, and follow it.
    expected = os.getppid() if parent is None else parent
    threading.Thread(target=_watch_parent, args=(expected,), daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


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
