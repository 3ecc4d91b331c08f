"""Fuzz heal for a while: the targets of ``tests/test_fuzz.py``, randomized, until a deadline.

    python -m benchmarks.fuzz --minutes 15 [--target NAME ...] [--slice 60] [--json out.json]

The targets take turns (``--slice`` seconds each). Each turn is one hypothesis run with no example
limit, a fresh random seed and no example database. A failure seen for the first time is shrunk
by hypothesis to a minimal example; once known, the same failure is counted but no longer stops a
run, so the fuzzer keeps looking for new ones. A failure is known by its exception type and the
innermost frame in ``heal/`` (``ContractError``: the broken promise and the entry point).

Prints how many inputs ran and, for each distinct failure: the exception, the traceback tip
(file:line), the entry points that hit it, how often, and the minimal example (``x = ...`` builds
the input; ``nest(v, n)`` is ``tests.test_fuzz.nest``). Exit status 1 when anything failed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import HypothesisException

from tests.test_fuzz import TARGETS, ContractError, Target

ROOT = Path(__file__).resolve().parent.parent
GRACE = 90.0
"""Seconds a run may go past its turn to finish shrinking a new failure."""


class _TimeUp(BaseException):
    """Ends a hypothesis run at the deadline (hypothesis only catches Exception)."""


@dataclass
class Failure:
    """One distinct failure and what is known of it."""

    kind: str
    location: str
    message: str
    tip: list[str]
    target: str
    count: int = 0
    entries: Counter[str] = field(default_factory=Counter)
    example: str = ""
    """The minimal example: hypothesis's notes for the shrunk input."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "exception": self.kind,
            "location": self.location,
            "message": self.message,
            "traceback_tip": self.tip,
            "target": self.target,
            "count": self.count,
            "entries": dict(self.entries.most_common()),
            "example": self.example,
        }


def _short(path: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return path


def _entry(exc: BaseException) -> str:
    if isinstance(exc, ContractError):
        return exc.entry
    for line in getattr(exc, "__notes__", ()):
        if isinstance(line, str) and line.startswith("entry point: "):
            return line.removeprefix("entry point: ")
    return "?"


def _function(entry: str) -> str:
    """The called function of an entry point ("heal.heal_messages(x, ...)" -> its name)."""
    return entry.split("(", 1)[0]


def signature(exc: BaseException) -> tuple[str, str]:
    """(exception type, where): the innermost frame in heal/ (else the innermost frame); for a
    broken promise, what broke and the function that broke it."""
    if isinstance(exc, ContractError):
        return "ContractError", f"{exc.what.split(':', 1)[0]} [{_function(exc.entry)}]"
    frames = traceback.extract_tb(exc.__traceback__)
    mine = [f for f in frames if "/heal/" in f.filename.replace("\\", "/")]
    chosen = mine or frames
    where = f"{_short(chosen[-1].filename)}:{chosen[-1].lineno}" if chosen else "?"
    return type(exc).__name__, where


def _tip(exc: BaseException, n: int = 4) -> list[str]:
    frames = traceback.extract_tb(exc.__traceback__)[-n:]
    return [f"{_short(f.filename)}:{f.lineno} in {f.name}" for f in frames]


def _leaves(exc: BaseException) -> Iterable[BaseException]:
    """The exceptions in an exception group (hypothesis reports several failures as one)."""
    subs = getattr(exc, "exceptions", None)
    if isinstance(subs, tuple) and subs:
        for sub in subs:
            if isinstance(sub, BaseException):
                yield from _leaves(sub)
    else:
        yield exc


class Fuzzer:
    def __init__(self) -> None:
        self.inputs = 0
        self.by_target: Counter[str] = Counter()
        self.failures: dict[tuple[str, str], Failure] = {}

    def _record(self, exc: BaseException, target: str, *, example: bool) -> bool:
        """Count ``exc``; True when its failure is new."""
        key = signature(exc)
        failure = self.failures.get(key)
        new = failure is None
        if failure is None:
            message = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
            failure = Failure(key[0], key[1], message, _tip(exc), target)
            self.failures[key] = failure
        failure.count += 1
        failure.entries[_function(_entry(exc))] += 1
        if example and not failure.example:
            notes = [n for n in getattr(exc, "__notes__", ()) if isinstance(n, str)]
            failure.example = "\n".join(n for n in notes if not n.startswith("entry point: "))
            failure.example += f"\n# entry point: {_entry(exc)}"
        return new

    def run(self, target: Target, until: float) -> None:
        """One hypothesis run of ``target`` until ``until`` (monotonic time)."""
        failing_since: list[float] = []

        def body(**kwargs: Any) -> None:
            now = time.monotonic()
            if now > until and (not failing_since or now > failing_since[0] + GRACE):
                raise _TimeUp
            self.inputs += 1
            self.by_target[target.name] += 1
            try:
                target.body(**kwargs)
            except HypothesisException:
                raise  # hypothesis's own control flow (a rejected draw, say)
            except Exception as exc:
                if signature(exc) in self.failures:
                    self._record(exc, target.name, example=False)
                    return
                if not failing_since:
                    failing_since.append(now)
                raise

        test: Callable[[], None] = settings(
            max_examples=10**9,
            database=None,
            derandomize=False,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            phases=[Phase.generate, Phase.target, Phase.shrink],
            report_multiple_bugs=True,
            print_blob=False,
        )(given(**target.strategies)(body))
        try:
            # Hypothesis prints a seed line for a run the deadline ends: not worth showing.
            with contextlib.redirect_stdout(io.StringIO()):
                test()
        except _TimeUp:
            return
        except Exception as exc:  # one failure, or a group of them
            leaves = list(_leaves(exc))
        else:
            return
        for leaf in leaves:
            if isinstance(leaf, _TimeUp):
                continue
            if self._record(leaf, target.name, example=True):
                self.report_one(self.failures[signature(leaf)])

    def report_one(self, failure: Failure, out: Any = None) -> None:
        out = out or sys.stdout
        print(f"\n=== {failure.kind} at {failure.location} ({failure.target})", file=out)
        print(f"message: {failure.message}", file=out)
        print("traceback tip: " + " <- ".join(reversed(failure.tip)), file=out)
        if failure.entries:
            print(f"entry points: {dict(failure.entries.most_common())}", file=out)
        example = failure.example
        if len(example) > 4000:
            example = example[:4000] + f"\n... ({len(example)} characters)"
        print(example, file=out, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="how long to fuzz")
    names = [t.name for t in TARGETS]
    parser.add_argument("--target", action="append", choices=names, help="only these targets")
    parser.add_argument("--slice", type=float, default=60.0, help="seconds per turn")
    parser.add_argument("--json", help="also write the failures to this JSON file")
    args = parser.parse_args(argv)
    targets = [t for t in TARGETS if not args.target or t.name in args.target]
    start = time.monotonic()
    deadline = start + args.minutes * 60
    fuzzer = Fuzzer()
    unraisable: Counter[str] = Counter()

    def hook(args: sys.UnraisableHookArgs) -> None:
        # pydantic-core reports an error it cannot repr (a 5,000-digit int) as unraisable.
        unraisable[f"{args.exc_type.__name__}: {str(args.exc_value)[:100]}"] += 1

    sys.unraisablehook = hook
    print(f"fuzzing {', '.join(t.name for t in targets)} for {args.minutes:g} minutes", flush=True)
    turn = 0
    try:
        while time.monotonic() < deadline:
            target = targets[turn % len(targets)]
            turn += 1
            until = min(deadline, time.monotonic() + args.slice)
            fuzzer.run(target, until)
            elapsed = time.monotonic() - start
            print(
                f"[{elapsed:7.0f} s] {fuzzer.inputs:,} inputs, "
                f"{len(fuzzer.failures)} distinct failures (last turn: {target.name})",
                flush=True,
            )
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    elapsed = time.monotonic() - start
    print(f"\nran {fuzzer.inputs:,} inputs in {elapsed:.0f} s:")
    for name, n in fuzzer.by_target.most_common():
        print(f"  {name:<20} {n:>10,}")
    for what, n in unraisable.most_common():
        print(f"unraisable exception (not a failure) x{n}: {what}")
    print(f"{len(fuzzer.failures)} distinct failure(s)")
    for failure in fuzzer.failures.values():
        fuzzer.report_one(failure)
    if args.json:
        document = {
            "inputs": fuzzer.inputs,
            "seconds": round(elapsed),
            "by_target": dict(fuzzer.by_target),
            "failures": [f.to_dict() for f in fuzzer.failures.values()],
        }
        Path(args.json).write_text(json.dumps(document, indent=2, ensure_ascii=True) + "\n")
    return 1 if fuzzer.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
