"""The ``heal-messages`` command line (also ``python -m heal``).

    heal-messages check [PATH...] [--provider P] [--format F] [--key K]
                        [--output-format text|json|github]
                        [--select RULE[,RULE...]] [--ignore RULE[,RULE...]]
                        [--choice RULE=CHOICE]... [--stdin-filename NAME]
                        [-e|--exit-zero] [-q|--quiet]
    heal-messages migrate SOURCE [--table T --column C] [--dry-run] [--backup] [--report FILE] ...
    heal-messages rules

The flags follow ruff's. ``check`` reads JSON files (one history each), JSON Lines files (one per
line; only a line feed ends a record) and folders of them. ``-`` reads standard input, as UTF-8;
so does ``--stdin-filename NAME`` without a PATH. NAME is what the report calls it, and its suffix
(``.json`` or ``.jsonl``) says how to read it; without one, input whose first non-blank line is a
JSON value on its own, followed by more non-blank lines, is JSON Lines, anything else one JSON
document. ``--select`` runs only the rules named (turning on rules that are off by default),
``--ignore`` turns rules off, and ``--choice RULE=CHOICE`` picks a rule's fix (``keep`` reports
and changes nothing); ``heal-messages rules`` lists the rules and their choices. Findings say
what healing would do ("would remove"); check changes nothing. ``--quiet`` prints the findings
and nothing else: no summary, no warnings.

The console script is ``heal-messages``, not ``heal``: the unrelated PyPI package ``heal`` may
install a ``heal`` command, and two distributions writing one script would silently clash.

Exit codes follow ruff: 0 when every history is valid (or only issues were found, with
``--exit-zero``), 1 when issues were found, 2 on an error: an unreadable file or record, a history
that cannot be checked (each its own line in the report, the others still checked), a bad option,
a failed write (one line on stderr, never a traceback; a bad option also prints the usage).
141 when standard output closes before the report is written (``check ... | head``): the run
stops quietly, as a Unix tool killed by SIGPIPE does (the shell shows 141 for those too). Ruff
exits 0 there, but 0 would let a check with issues pass under ``set -o pipefail``, and 1 would
claim issues that may not exist.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from functools import partial
from io import TextIOWrapper
from pathlib import Path
from typing import Any, TextIO

from heal import __version__
from heal._formats import AUTO, FORMAT_CHOICES, healer, history_field, native_input, resolve_format
from heal.errors import ConfigError, HealError
from heal.policy import KEEP, Policy
from heal.providers import PROVIDERS
from heal.repairs import Action, Repair
from heal.rules import default_registry
from heal.targets import Target, target_keywords

__all__ = ["main"]

EXIT_OK, EXIT_ISSUES, EXIT_ERROR = 0, 1, 2
EXIT_BROKEN_PIPE = 141
"""128 + SIGPIPE; see the module docstring for why not ruff's 0."""

STDIN = "-"
"""The PATH that reads standard input."""

_JSON_SPACE = " \t\r"
"""JSON's whitespace within a line (the line feed ends a JSON Lines record)."""

_RULES_HINT = "run 'heal-messages rules' to list the rules and their choices"

Record = tuple[int | None, str]
"""A history's 1-based line (None for a whole JSON document) and its JSON text."""


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


def _split(text: str, *, jsonl: bool) -> list[Record]:
    if not jsonl:
        return [(None, text)]
    # Not str.splitlines: it also splits at U+2028, U+2029 and U+0085, which JSON strings may hold
    # raw (json.dumps(ensure_ascii=False) writes them so), and at \x0b, \x0c, \x1c-\x1e: any of
    # them would cut a record in two and shift every later line number.
    lines = enumerate(text.split("\n"), start=1)
    return [(n, line) for n, line in lines if line.strip(_JSON_SPACE)]


def _file_records(path: Path) -> list[Record]:
    # Bytes decoded here, not read_text: its newline translation would turn a "\r" (JSON
    # whitespace) into a line break.
    return _split(path.read_bytes().decode("utf-8"), jsonl=path.suffix == ".jsonl")


def _stdin_records(stdin: TextIO, name: str | None) -> list[Record]:
    # The bytes, as UTF-8: JSON's encoding whatever the locale's, and no newline translation.
    buffer = getattr(stdin, "buffer", None)
    if buffer is None:
        text = stdin.read()
    else:
        data: bytes = buffer.read()
        text = data.decode("utf-8")
    suffix = Path(name).suffix if name else ""
    if suffix in (".json", ".jsonl"):
        return _split(text, jsonl=suffix == ".jsonl")
    return _split(text, jsonl=_looks_like_json_lines(text))


def _looks_like_json_lines(text: str) -> bool:
    # A JSON document spread over lines starts with a line that is not JSON on its own ("[" or
    # "{"); a document on one line is one history either way.
    lines = (line for line in text.split("\n") if line.strip(_JSON_SPACE))
    first = next(lines, None)
    if first is None or next(lines, None) is None:
        return False
    try:
        json.loads(first)
    except (ValueError, RecursionError):
        return False
    return True


def _pick(data: Any, key: str | None, fmt: str) -> Any:
    field = history_field(data, key, fmt)
    return data if field is None else data[field]


def _raise(exc: Exception) -> list[Record]:
    raise exc


def _sources(
    paths: Sequence[str],
    *,
    stdin: TextIO | None,
    stdin_filename: str | None,
    warn: Callable[[str], object],
) -> Iterator[tuple[str, Callable[[], list[Record]]]]:
    """Each input named by ``paths``, as the report names it and a function reading its records.
    Reading happens later, so that one input failing to read is that input's error."""
    for raw in paths:
        if raw == STDIN:
            yield (
                stdin_filename or STDIN,
                partial(_stdin_records, stdin or sys.stdin, stdin_filename),
            )
            continue
        path = Path(raw)
        try:
            is_dir = path.is_dir()
        except OSError:  # such as no permission to look: reading it says so, as its error
            is_dir = False
        if not is_dir:
            yield str(path), partial(_file_records, path)
            continue
        try:
            found = sorted(
                p for p in path.rglob("*") if p.suffix in (".json", ".jsonl") and p.is_file()
            )
        except OSError as exc:
            yield str(path), partial(_raise, exc)
            continue
        if not found:
            warn(f"no .json or .jsonl files found in {raw}")
        for file in found:
            yield str(file), partial(_file_records, file)


def check_paths(
    paths: Sequence[str],
    *,
    provider: str | None,
    model: str | None = None,
    thinking: bool | None = None,
    fmt: str,
    key: str | None,
    policy: Policy | None = None,
    stdin: TextIO | None = None,
    stdin_filename: str | None = None,
    warn: Callable[[str], object] = lambda message: None,
) -> list[Checked]:
    """Validate every history in ``paths`` (``-``: ``stdin``, named ``stdin_filename``); errors
    are reported per history (per line of a JSON Lines file), never raised. ``warn`` gets
    a folder that holds no JSON file. ``model`` and ``thinking`` describe the target request
    (:class:`heal.targets.Target`; the provider is inferred from the model when not given).
    Raises ConfigError for an unusable ``fmt`` or target."""
    if fmt != AUTO:
        healer(fmt)  # an unknown format, or one missing its dependency, fails before any input
    target = Target.of(provider, model, thinking=thinking)  # checks them, infers the provider
    out: list[Checked] = []
    for shown, read in _sources(paths, stdin=stdin, stdin_filename=stdin_filename, warn=warn):
        try:
            records = read()
        except Exception as exc:  # whatever it is, it is this input's error
            out.append(Checked(shown, None, error=f"cannot read: {_why(exc)}", valid=False))
            continue
        for line, text in records:
            out.append(
                _check_one(shown, line, text, target=target, fmt=fmt, key=key, policy=policy)
            )
    return out


def _check_one(
    shown: str,
    line: int | None,
    text: str,
    *,
    target: Target,
    fmt: str,
    key: str | None,
    policy: Policy | None,
) -> Checked:
    try:
        document = json.loads(text)
        fmt = resolve_format(fmt, document, key)
        history = native_input(fmt, _pick(document, key, fmt))
    except Exception as exc:  # RecursionError for deep JSON, not only ValueError
        return Checked(shown, line, error=f"cannot read: {_why(exc)}", valid=False)
    try:
        heal = healer(fmt)
        # The issues are the repairs healing would make (what validate_messages reports), at
        # their native locations as the format's heal_<format> gives them.
        result = heal(history, provider=target.provider, policy=policy, **target_keywords(target))
    except HealError as exc:
        return Checked(shown, line, error=_one_line(str(exc)), valid=False)
    except Exception as exc:  # a bug for one history must not stop the others
        return Checked(shown, line, error=_unexpected(exc), valid=False)
    valid = all(issue.action is Action.KEEP for issue in result.repairs)
    return Checked(shown, line, result.repairs, valid=valid)


def _one_line(text: str) -> str:
    # Messages (pydantic's, a rule's) may span lines; a report line and a GitHub annotation
    # must not. str.split also takes U+2028 and the other separators a terminal breaks at.
    return " ".join(text.split())


def _why(exc: BaseException) -> str:
    """One line: the message of an OSError or a ValueError names the problem itself (json's,
    heal's); any other is led by its type, which its message alone may not make clear
    (RecursionError)."""
    message = _one_line(str(exc))
    if isinstance(exc, (OSError, ValueError)) and message:
        return message
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _unexpected(exc: BaseException) -> str:
    # Not an error heal raises on purpose: its type is the first clue to the bug.
    message = _one_line(str(exc))
    return f"unexpected {type(exc).__name__}" + (f": {message}" if message else "")


# --- check mode wording -------------------------------------------------------------------------

_DONE = {
    "added": "add",
    "inserted": "add",
    "removed": "remove",
    "replaced": "replace",
    "moved": "move",
    "trimmed": "trim",
    "turned": "turn",
    "sent": "send",
    "made": "make",
    "set": "set",
    "left": "leave",
    "decoded": "decode",
    "relabelled": "relabel",
    "now": "become",
}
"""The past-tense verbs the built-in rules end a reason with, and what check mode says instead."""

_DONE_PASSIVE = re.compile(r"\b(?:were |was )?(removed|moved|replaced|added|left out)\b")

_VERB = {
    Action.REMOVE: "remove",
    Action.INSERT: "add",
    Action.REPLACE: "replace",
    Action.MOVE: "move",
}


def _would(repair: Repair) -> str:
    """``repair.describe()`` worded as what healing would do, since check changes nothing.

    A rule words its reason as "<problem>; <what was done>" ("...; removed", "...; added a
    placeholder result"): that last clause is put in the conditional. A reason that does not
    end so is kept whole and followed by the action ("; would remove"), so no finding reads as
    a change made. A kept finding (choice ``keep``) says it is left as is instead; a report (no
    fix) says what to do and is shown unchanged. A finding a rule keeps on its own (its reason
    ends "; kept") says it is left as is, without naming a choice.
    """
    reason = repair.reason
    if repair.action is not Action.REPORT:
        problem, sep, done = reason.rpartition("; ")
        verb, _, rest = done.partition(" ")
        if sep and verb in _DONE:
            would = f"would {_DONE[verb]}" + (f" {rest}" if rest else "")
        elif sep and _DONE_PASSIVE.search(done):
            would = _DONE_PASSIVE.sub(r"would be \1", done, count=1)
        else:
            problem, would = reason, f"would {_VERB.get(repair.action, 'change')}"
        if repair.action is Action.KEEP:
            # A rule that keeps a problem on its own says so ("...; kept"): heal's note, not the
            # policy's choice.
            if sep and verb == "kept":
                problem, would = reason.rpartition("; ")[0], "left as is"
            else:
                would = "left as is (choice keep)"
        reason = f"{problem}; {would}"
    # describe() gives the location and rule; only its reason is reworded.
    return repair.model_copy(update={"reason": reason}).describe()


# --- reports ------------------------------------------------------------------------------------


def _write_text(results: Sequence[Checked], stream: TextIO, *, quiet: bool) -> None:
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
            stream.write(f"  {_would(issue)}\n")
    if quiet:  # as ruff's --quiet: the findings, nothing else
        return
    # A file or line that cannot be read or loaded is an error, not a checked history.
    histories = sum(1 for r in results if r.error is None)
    invalid = sum(1 for r in results if r.error is None and not r.valid)
    stream.write(
        f"{histories} histor{'y' if histories == 1 else 'ies'} checked: "
        f"{invalid} invalid, {issues} issue(s), {errors} error(s)\n"
    )


def _write_json(results: Sequence[Checked], stream: TextIO, *, quiet: bool) -> None:
    del quiet  # no summary to leave out
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


def _write_github(results: Sequence[Checked], stream: TextIO, *, quiet: bool) -> None:
    del quiet  # no summary to leave out
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
                f"{_escape(_would(issue))}\n"
            )


WRITERS: dict[str, Callable[..., None]] = {
    "text": _write_text,
    "json": _write_json,
    "github": _write_github,
}


# --- rule selection -----------------------------------------------------------------------------


def _rule_ids(option: str, values: Iterable[str]) -> set[str]:
    ids: set[str] = set()
    for value in values:
        for rule_id in (part.strip() for part in value.split(",")):
            if rule_id not in default_registry:
                raise ConfigError(f"unknown rule {rule_id!r} in {option}; {_RULES_HINT}")
            ids.add(rule_id)
    return ids


def _choices(values: Iterable[str]) -> dict[str, str]:
    choices: dict[str, str] = {}
    for value in values:
        rule_id, sep, choice = (part.strip() for part in value.partition("="))
        if not sep:
            raise ConfigError(f"--choice {value!r} is not RULE=CHOICE; {_RULES_HINT}")
        if rule_id not in default_registry:
            raise ConfigError(f"unknown rule {rule_id!r} in --choice; {_RULES_HINT}")
        valid = (*default_registry.get(rule_id).choices, KEEP)
        if choice not in valid:
            raise ConfigError(
                f"unknown choice {choice!r} for {rule_id} in --choice "
                f"(valid: {', '.join(valid)}); {_RULES_HINT}"
            )
        choices[rule_id] = choice
    return choices


def _policy(
    select: Sequence[str] | None, ignore: Sequence[str] | None, choice: Sequence[str] | None
) -> Policy | None:
    """The policy the options ask for; None for none (healing's fast path). Checked here, not
    left to healing, so that a typo is one error, not one per history."""
    selected = _rule_ids("--select", select) if select is not None else None
    ignored = _rule_ids("--ignore", ignore or ())
    choices = _choices(choice or ())
    if selected is None and not ignored and not choices:
        return None
    disable = set(ignored)
    if selected is not None:
        disable |= {rule.id for rule in default_registry} - selected
    # Enabling a selected rule that is off by default is what selecting it asks for.
    return Policy(choices, disable=disable, enable=(selected or set()) - ignored)


# --- commands -----------------------------------------------------------------------------------


def _cmd_check(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    paths: list[str] = args.paths or ([STDIN] if args.stdin_filename else [])
    if not paths:
        stderr.write(
            "heal-messages: error: check needs a PATH (- for standard input, or --stdin-filename)\n"
        )
        return EXIT_ERROR

    def warn(message: str) -> None:
        if not args.quiet:
            stderr.write(f"heal-messages: warning: {message}\n")

    try:
        policy = _policy(args.select, args.ignore, args.choice)
        results = check_paths(
            paths,
            provider=args.provider,
            model=args.model,
            thinking=args.thinking,
            fmt=args.format,
            key=args.key,
            policy=policy,
            stdin=args.stdin_stream,
            stdin_filename=args.stdin_filename,
            warn=warn,
        )
    except ConfigError as exc:
        stderr.write(f"heal-messages: error: {_one_line(str(exc))}\n")
        return EXIT_ERROR
    WRITERS[args.output_format](results, stdout, quiet=args.quiet)
    if any(r.error is not None for r in results):
        return EXIT_ERROR
    if args.exit_zero:
        return EXIT_OK
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
    from heal.migrate import migrate, open_report, open_store

    # The bar goes to this command's stderr: by default only when that is a terminal.
    show_progress = stderr.isatty() if args.progress is None else args.progress
    try:
        store = open_store(
            args.source,
            table=args.table,
            column=args.column,
            id_column=args.id_column,
            provider_column=args.provider_column,
            model_column=args.model_column,
            where=args.where,
            dest=args.dest,
            dry_run=args.dry_run,
            backup=args.backup,
        )
        report = open_report(args.report) if args.report else None
        try:
            summary = migrate(
                store,
                provider=args.provider,
                model=args.model,
                thinking=args.thinking,
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


_CHECK_EXIT_CODES = """\
exit codes:
  0    every history is valid
  1    issues found (0 with --exit-zero)
  2    an error: unreadable input, a history that cannot be checked, a bad option
  141  standard output closed early (such as by `| head`): the run stops quietly
"""

_MIGRATE_EXIT_CODES = """\
exit codes:
  0    every row healed or already valid
  2    an error, or a row that cannot be loaded (reported and left as it is)
"""

_EXIT_CODES = """\
exit codes:
  0    success (check: every history is valid)
  1    check found issues
  2    an error: unreadable input, a history or row that cannot be loaded, a bad option
  141  standard output closed early (such as by `| head`)
"""


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Each option's default (except None and False: "not given"), and the epilog as written."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False:
            return action.help
        return super()._get_help_string(action)


def _on_off(text: str) -> bool:
    if text in ("on", "off"):
        return text == "on"
    raise argparse.ArgumentTypeError(f"expected on or off, got {text!r}")


def _target_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model",
        default=None,
        help="the model the histories are sent to (claude-sonnet-4-5, mistral-large-latest, "
        "anthropic/claude-sonnet-4.5, a Bedrock id, ...): rules follow what it accepts, and "
        "it names the provider when --provider is not given (default: not known)",
    )
    parser.add_argument(
        "--thinking",
        type=_on_off,
        default=None,
        metavar="{on,off}",
        help="whether the request enables thinking / reasoning (default: not known)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="heal-messages",
        description="Check and heal LLM conversation histories.",
        epilog=_EXIT_CODES,
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"heal-messages {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    check = sub.add_parser(
        "check",
        help="validate histories; exit 1 when any has issues",
        description="Validate histories: report the repairs healing would make, change nothing.",
        epilog=_CHECK_EXIT_CODES,
        formatter_class=_HelpFormatter,
    )
    check.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="JSON or JSON Lines files, or folders of them; - reads standard input",
    )
    check.add_argument(
        "--provider",
        choices=PROVIDERS,
        default=None,
        help="target provider (default: none, which runs only the rules every provider "
        "shares, unless --model names one)",
    )
    _target_arguments(check)
    check.add_argument(
        "--format",
        choices=FORMAT_CHOICES,
        default=AUTO,
        help="input format; auto reads each history's own keys (OpenAI Chat's tool_calls, "
        "Anthropic's tool_use blocks, ...) and takes AI SDK messages when none is foreign",
    )
    check.add_argument("--key", help="the field holding the history in each JSON object")
    check.add_argument(
        "--output-format", choices=sorted(WRITERS), default="text", help="report format"
    )
    rules = check.add_argument_group("rule selection (heal-messages rules lists them)")
    rules.add_argument(
        "--select",
        action="append",
        metavar="RULE[,RULE...]",
        help="run only these rules (turns on rules that are off by default)",
    )
    rules.add_argument(
        "--ignore", action="append", metavar="RULE[,RULE...]", help="do not run these rules"
    )
    rules.add_argument(
        "--choice",
        action="append",
        metavar="RULE=CHOICE",
        help="the fix a rule makes (keep: report it, change nothing); repeatable",
    )
    check.add_argument(
        "--stdin-filename",
        metavar="NAME",
        help="the name of standard input in the report (its .json or .jsonl suffix says how to "
        "read it); reads standard input when no PATH is given",
    )
    check.add_argument(
        "-e",
        "--exit-zero",
        action="store_true",
        help="exit 0 even when issues are found (errors still exit 2)",
    )
    check.add_argument(
        "-q", "--quiet", action="store_true", help="print the findings, but nothing else"
    )
    check.set_defaults(run=_cmd_check)

    mig = sub.add_parser(
        "migrate",
        help="heal stored histories in place (JSON Lines, sqlite:///file.db, SQLAlchemy URLs)",
        epilog=_MIGRATE_EXIT_CODES,
        formatter_class=_HelpFormatter,
    )
    mig.add_argument("source", help="a .jsonl file, sqlite:///path.db, or a SQLAlchemy URL")
    mig.add_argument("--table", help="table holding the histories (databases)")
    mig.add_argument("--column", help="column holding each history as JSON (databases)")
    mig.add_argument("--id-column", default="id", help="primary key column")
    mig.add_argument("--provider-column", help="column naming each row's provider")
    mig.add_argument(
        "--model-column",
        help="column naming each row's model (see --model; a row with none uses --model)",
    )
    mig.add_argument("--where", help="SQL condition selecting the rows to heal")
    mig.add_argument("--key", help="field holding the history inside each JSON object")
    mig.add_argument("--provider", choices=PROVIDERS, default=None, help="target provider")
    _target_arguments(mig)
    mig.add_argument(
        "--format",
        choices=FORMAT_CHOICES,
        default=AUTO,
        help="stored format; auto reads each row's own keys, and a row that mixes two formats "
        "is a failed row, left as it is",
    )
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

    rules_cmd = sub.add_parser("rules", help="list the rules", formatter_class=_HelpFormatter)
    rules_cmd.set_defaults(run=_cmd_rules)
    return parser


def main(
    argv: Sequence[str] | None = None,
    *,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    stdin: TextIO | None = None,
) -> int:
    """Run the command line; returns the exit code. The streams default to the process's own."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    if stdout is None and isinstance(sys.stdout, TextIOWrapper):
        # A file name or tool name the terminal's encoding cannot show is written escaped:
        # one character must not cost the whole report.
        sys.stdout.reconfigure(errors="backslashreplace")
    parser = build_parser()
    try:
        # argparse prints help and usage errors to sys.stdout and sys.stderr itself.
        with redirect_stdout(out), redirect_stderr(err):
            args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on bad usage, 0 on --help/--version
        return int(exc.code or 0)
    args.stdin_stream = stdin
    run: Callable[[argparse.Namespace, TextIO, TextIO], int] = args.run
    try:
        code = run(args, out, err)
        out.flush()  # here, so that a closed pipe or a full disk is reported below
    except BrokenPipeError as exc:
        if stdout is not None:
            return _fail(err, exc)
        _discard_stdout()
        return EXIT_BROKEN_PIPE
    except Exception as exc:  # one line, never a traceback
        return _fail(err, exc)
    return code


def _fail(stderr: TextIO, exc: Exception) -> int:
    message = _why(exc) if isinstance(exc, (OSError, HealError)) else _unexpected(exc)
    stderr.write(f"heal-messages: error: {message}\n")
    return EXIT_ERROR


def _discard_stdout() -> None:
    # The reader is gone. Python flushes sys.stdout once more at exit, which would fail again
    # ("Exception ignored ... BrokenPipeError", exit 120): point it at devnull instead (the
    # recipe of the signal module's documentation, "Note on SIGPIPE").
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # a stdout with no descriptor has nothing left to flush
        pass


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
