"""The ``heal-messages`` command line (also ``python -m heal``).

    heal-messages check PATH... [--provider P] [--format F] [--key K]
                                [--output-format text|json|github]
    heal-messages rules

The console script is ``heal-messages``, not ``heal``: the unrelated PyPI package ``heal`` may
install a ``heal`` command, and two distributions writing one script would silently clash.

Exit codes follow ruff: 0 when every history is valid, 1 when issues were found, 2 on an error
(an unreadable file, a history that cannot be loaded, a bad option).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from heal import __version__
from heal._formats import FORMATS, healer, history_field, native_input
from heal.adapters._common import NativeHealResult
from heal.errors import ConfigError, HealError
from heal.providers import PROVIDERS
from heal.repairs import Action, Repair
from heal.rules import default_registry

__all__ = ["main"]

EXIT_OK, EXIT_ISSUES, EXIT_ERROR = 0, 1, 2


@dataclass
class Checked:
    """The outcome for one history in one file."""

    path: str
    line: int | None
    """1-based line for JSON Lines, else None."""
    issues: tuple[Repair, ...] = ()
    error: str | None = None
    valid: bool = True
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return self.path if self.line is None else f"{self.path}:{self.line}"


def _records(path: Path) -> list[tuple[int | None, str]]:
    """(line, JSON text) of each history in a JSON or JSON Lines file."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    return [(None, text)]


def _pick(data: Any, key: str | None, fmt: str) -> Any:
    field = history_field(data, key, fmt)
    return data if field is None else data[field]


def _files(paths: Sequence[str]) -> Iterator[Path]:
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            yield from sorted(
                p for p in path.rglob("*") if p.suffix in (".json", ".jsonl") and p.is_file()
            )
        else:
            yield path


def check_paths(
    paths: Sequence[str], *, provider: str | None, fmt: str, key: str | None
) -> list[Checked]:
    """Validate every history in ``paths``; errors are reported per history (per line of a JSON
    Lines file), never raised."""
    heal = healer(fmt)
    out: list[Checked] = []
    for path in _files(paths):
        shown = str(path)
        try:
            records = _records(path)
        except (OSError, ValueError) as exc:
            out.append(Checked(shown, None, error=f"cannot read: {exc}", valid=False))
            continue
        for line, text in records:
            out.append(_check_one(shown, line, text, heal, provider=provider, fmt=fmt, key=key))
    return out


def _check_one(
    shown: str,
    line: int | None,
    text: str,
    heal: Callable[..., NativeHealResult[Any]],
    *,
    provider: str | None,
    fmt: str,
    key: str | None,
) -> Checked:
    try:
        history = native_input(fmt, _pick(json.loads(text), key, fmt))
    except ValueError as exc:
        return Checked(shown, line, error=f"cannot read: {exc}", valid=False)
    try:
        # The issues are the repairs healing would make (what validate_messages reports), at
        # their native locations as the format's heal_<format> gives them.
        result = heal(history, provider=provider)
    except HealError as exc:
        return Checked(shown, line, error=str(exc), valid=False)
    valid = all(issue.action is Action.KEEP for issue in result.repairs)
    return Checked(shown, line, result.repairs, valid=valid)


def _write_text(results: Sequence[Checked], stream: TextIO) -> None:
    issues = errors = 0
    for checked in results:
        if checked.error is not None:
            errors += 1
            stream.write(f"{checked.where}: error: {checked.error}\n")
            continue
        if not checked.issues:
            continue
        stream.write(f"{checked.where}:\n")
        for issue in checked.issues:
            issues += issue.changed or issue.action.value == "report"
            stream.write(f"  {issue.describe()}\n")
    # A file or line that cannot be read or loaded is an error, not a checked history.
    histories = sum(1 for r in results if r.error is None)
    invalid = sum(1 for r in results if r.error is None and not r.valid)
    stream.write(
        f"{histories} histor{'y' if histories == 1 else 'ies'} checked: "
        f"{invalid} invalid, {issues} issue(s), {errors} error(s)\n"
    )


def _write_json(results: Sequence[Checked], stream: TextIO) -> None:
    payload = [
        {
            "file": r.path,
            "line": r.line,
            "valid": r.valid,
            "error": r.error,
            "issues": [issue.model_dump(mode="json") for issue in r.issues],
        }
        for r in results
    ]
    json.dump(payload, stream, indent=2)
    stream.write("\n")


def _escape(value: str, *, prop: bool = False) -> str:
    # GitHub workflow-command escaping: %, CR, LF always; also : and , in properties.
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def _write_github(results: Sequence[Checked], stream: TextIO) -> None:
    for r in results:
        line = f",line={r.line}" if r.line is not None else ""
        if r.error is not None:
            stream.write(
                f"::error file={_escape(r.path, prop=True)}{line},title=heal::{_escape(r.error)}\n"
            )
            continue
        for issue in r.issues:
            level = "warning" if not issue.changed and issue.action.value == "keep" else "error"
            title = _escape(f"heal {issue.rule}", prop=True)
            stream.write(
                f"::{level} file={_escape(r.path, prop=True)}{line},title={title}::"
                f"{_escape(issue.describe())}\n"
            )


WRITERS = {"text": _write_text, "json": _write_json, "github": _write_github}


def _cmd_check(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    try:
        results = check_paths(args.paths, provider=args.provider, fmt=args.format, key=args.key)
    except ConfigError as exc:
        stderr.write(f"heal-messages: error: {exc}\n")
        return EXIT_ERROR
    WRITERS[args.output_format](results, stdout)
    if any(r.error is not None for r in results):
        return EXIT_ERROR
    return EXIT_ISSUES if any(not r.valid for r in results) else EXIT_OK


def _cmd_rules(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    del args, stderr
    for rule in default_registry:
        providers = ", ".join(sorted(rule.providers)) if rule.providers else "all"
        stdout.write(
            f"{rule.id:<44} {rule.scope.value:<8} {providers:<24} "
            f"choices: {', '.join((*rule.choices, 'keep'))}\n"
        )
    return EXIT_OK


def _cmd_migrate(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from heal.migrate import migrate, open_store

    # The bar goes to this command's stderr: by default only when that is a terminal.
    show_progress = stderr.isatty() if args.progress is None else args.progress
    try:
        store = open_store(
            args.source,
            table=args.table,
            column=args.column,
            id_column=args.id_column,
            provider_column=args.provider_column,
            where=args.where,
            dest=args.dest,
            dry_run=args.dry_run,
            backup=args.backup,
        )
        report = open(args.report, "w", encoding="utf-8") if args.report else None  # noqa: SIM115
        try:
            summary = migrate(
                store,
                provider=args.provider,
                key=args.key,
                fmt=args.format,
                all_rules=args.all_rules,
                batch_size=args.batch_size,
                workers=args.workers,
                report=report,
                progress=stderr if show_progress else None,
                dry_run=args.dry_run,
            )
        finally:
            if report is not None:
                report.close()
    except (ConfigError, OSError) as exc:
        stderr.write(f"heal-messages: error: {exc}\n")
        return EXIT_ERROR
    stdout.write(summary.render() + "\n")
    return EXIT_ERROR if summary.failed else EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="heal-messages",
        description="Check and heal LLM conversation histories.",
    )
    parser.add_argument("--version", action="version", version=f"heal-messages {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    check = sub.add_parser("check", help="validate histories; exit 1 when any has issues")
    check.add_argument("paths", nargs="+", help="JSON or JSON Lines files, or folders")
    check.add_argument("--provider", choices=PROVIDERS, default=None, help="target provider")
    check.add_argument("--format", choices=sorted(FORMATS), default="ai-sdk", help="input format")
    check.add_argument("--key", help="the field holding the history in each JSON object")
    check.add_argument(
        "--output-format", choices=sorted(WRITERS), default="text", help="report format"
    )
    check.set_defaults(run=_cmd_check)

    mig = sub.add_parser(
        "migrate",
        help="heal stored histories in place (JSON Lines, sqlite:///file.db, SQLAlchemy URLs)",
    )
    mig.add_argument("source", help="a .jsonl file, sqlite:///path.db, or a SQLAlchemy URL")
    mig.add_argument("--table", help="table holding the histories (databases)")
    mig.add_argument("--column", help="column holding each history as JSON (databases)")
    mig.add_argument("--id-column", default="id", help="primary key column (default: id)")
    mig.add_argument("--provider-column", help="column naming each row's provider")
    mig.add_argument("--where", help="SQL condition selecting the rows to heal")
    mig.add_argument("--key", help="field holding the history inside each JSON object")
    mig.add_argument("--provider", choices=PROVIDERS, default=None, help="target provider")
    mig.add_argument("--format", choices=sorted(FORMATS), default="ai-sdk", help="stored format")
    mig.add_argument("--dest", help="write a healed copy here instead (JSON Lines only)")
    mig.add_argument(
        "--dry-run", action="store_true", help="report what would change; write nothing"
    )
    mig.add_argument(
        "--backup", action="store_true", help="keep original rows (table or .bak file)"
    )
    mig.add_argument(
        "--report", help="write every repair and every failed row as JSON Lines to this file"
    )
    mig.add_argument("--batch-size", type=int, default=500, help="rows per transaction")
    mig.add_argument("--workers", type=int, default=1, help="processes healing rows")
    mig.add_argument(
        "--all-rules",
        action="store_true",
        help="also apply request-only rules (normally never written back)",
    )
    mig.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar (default: only on a terminal)",
    )
    mig.set_defaults(run=_cmd_migrate)

    rules = sub.add_parser("rules", help="list the rules")
    rules.set_defaults(run=_cmd_rules)
    return parser


def main(
    argv: Sequence[str] | None = None, *, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    """Run the command line; returns the exit code."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on bad usage, 0 on --help/--version
        return int(exc.code or 0)
    run: Callable[[argparse.Namespace, TextIO, TextIO], int] = args.run
    return run(args, out, err)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
