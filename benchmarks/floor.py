"""How close heal runs to the cost of merely reading the history: where its time goes on the corpus.

    python -m benchmarks.floor            # about half a minute
    python -m benchmarks.floor --runs 11

Each line is a median over ``--runs`` passes over the benchmark corpus (1,000 conversations x 50
messages, 10% broken), as messages per second, with its time relative to the first line:

* touch: visit every message and part, and take its type (the least any check must do);
* read: also read every field a verdict on a clean history needs (roles, contents, texts, tool
  call ids and names, inputs, outputs), doing nothing with them;
* index: build the :class:`~heal.rules._index.HistoryIndex`, the one scan heal makes of a clean
  history;
* heal: ``heal_messages(history)``, shared rules only, as ``benchmarks.run`` measures it;
* heal, clean only / broken only: the same, over the clean and the broken conversations apart.

On a clean conversation heal costs about one index and a few microseconds of rule checks; a
broken one costs an index per pass that changed something, plus the repair. The ratios tell
what any further tuning can hope for: no check of every part can run faster than ``read``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from functools import partial

from benchmarks.corpus import corpus
from benchmarks.run import _median_seconds
from heal import heal_messages, load_messages
from heal.messages import ModelMessage, TextOutput, TextPart, ToolCallPart, ToolResultPart
from heal.rules._index import HistoryIndex

History = Sequence[ModelMessage]


def touch(histories: list[History]) -> None:
    for history in histories:
        for message in history:
            content = message.content
            if type(content) is str:
                continue
            for part in content:
                type(part)


def read(histories: list[History]) -> None:
    # Each field is read into a local and dropped: the least a check can do.
    for history in histories:
        for message in history:
            _ = message.role
            content = message.content
            if type(content) is str:
                content.isascii()
                continue
            for part in content:
                if type(part) is TextPart:
                    part.text.isascii()
                elif type(part) is ToolCallPart:
                    _ = part.tool_call_id, part.tool_name, type(part.input), part.provider_executed
                elif type(part) is ToolResultPart:
                    _ = part.tool_call_id, part.tool_name
                    output = part.output
                    if type(output) is TextOutput:
                        output.value.isascii()


def index(histories: list[History]) -> None:
    for history in histories:
        HistoryIndex(history)


def heal(histories: list[History]) -> None:
    for history in histories:
        heal_messages(history)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=7, help="passes per line (median)")
    args = parser.parse_args(argv)
    loaded: list[History] = [load_messages(h) for h in corpus(1000, 50, 0.1)]
    needs_repair = [bool(heal_messages(h).repairs) for h in loaded]
    clean = [h for h, needs in zip(loaded, needs_repair, strict=True) if not needs]
    broken = [h for h, needs in zip(loaded, needs_repair, strict=True) if needs]
    n_all = sum(map(len, loaded))
    print(
        f"corpus: {len(loaded):,} conversations, {n_all:,} messages; "
        f"{len(broken)} conversations need a repair; runs={args.runs}"
    )
    base = 0.0
    for label, work, histories in (
        ("touch every message and part", touch, loaded),
        ("read the fields a clean verdict needs", read, loaded),
        ("HistoryIndex (one scan)", index, loaded),
        ("heal_messages, provider=None", heal, loaded),
        ("heal_messages, clean conversations only", heal, clean),
        ("heal_messages, broken conversations only", heal, broken),
    ):
        seconds = _median_seconds(partial(work, histories), args.runs)
        messages = sum(map(len, histories))
        per_conversation = seconds / len(histories) * 1e6
        if not base:
            base = per_conversation
        print(
            f"{label:<44} {messages / seconds:>12,.0f} msg/s "
            f"{per_conversation:>8.1f} us/conversation  x{per_conversation / base:.2f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
