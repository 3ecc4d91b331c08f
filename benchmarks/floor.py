"""How close heal runs to the cost of merely reading the history: where its time goes on the corpus.

    python -m benchmarks.floor            # about a minute
    python -m benchmarks.floor --runs 11

Each line is a median over ``--runs`` passes over the benchmark corpus (1,000 conversations x 50
messages, 10% broken), as messages per second, with its time relative to the first line:

* touch: visit every message and part, and take its type (the least any check must do);
* read: also read every field a verdict on a clean history needs (roles, contents, texts, tool
  call ids and names, inputs, outputs), doing nothing with them;
* quick verdict: :func:`~heal.rules._quick.quickly_clean` for provider None, the one walk heal
  makes of a plainly clean history (it lists nothing);
* index: build the :class:`~heal.rules._index.HistoryIndex`, the scan heal makes of any other
  history (and made of every history before the quick verdict);
* heal: ``heal_messages(history)``, shared rules only, as ``benchmarks.run`` measures it;
* heal, clean only / broken only: the same, over the clean and the broken conversations apart;
* heal for Mistral, and the least a heal for Mistral can do here (every id of this corpus is
  foreign to Mistral, so every part that carries one is renamed): index, map the ids, copy each
  renamed part and each message holding one, make each record; nothing else.

On a plainly clean conversation heal costs one quick walk and a few microseconds of call
overhead; a broken one costs the quick walk up to its first flaw, an index per pass that changed
something, plus the repair. The ratios tell
what any further tuning can hope for: no check of every part can run faster than ``read``.
"""

from __future__ import annotations

import argparse
import gc
from collections.abc import Sequence
from functools import partial

from benchmarks.corpus import corpus
from benchmarks.run import _median_seconds, collector_restored
from heal import heal_messages, load_messages
from heal._construct import construct_complete, replaced
from heal._engine import _plan_for
from heal.messages import ModelMessage, Part, TextOutput, TextPart, ToolCallPart, ToolResultPart
from heal.providers import get_profile
from heal.repairs import Action, Repair, Scope
from heal.rules._index import HistoryIndex
from heal.rules._quick import quickly_clean
from heal.rules.mistral import mistral_tool_call_id
from heal.targets import Target

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


def quick(histories: list[History]) -> None:
    target = Target(None)
    plan = _plan_for(target, None, None, "request")
    terms, profile = plan.quick, plan.profile
    assert terms is not None
    for history in histories:
        quickly_clean(history, terms, target, profile)


def index(histories: list[History]) -> None:
    for history in histories:
        HistoryIndex(history)


def heal(histories: list[History]) -> None:
    for history in histories:
        heal_messages(history)


def heal_mistral(histories: list[History]) -> None:
    for history in histories:
        heal_messages(history, provider="mistral")


_RECORD_FIELDS = set(Repair.model_fields)


def renamed_alone(history: History) -> tuple[list[ModelMessage], list[Repair]]:
    """The least a heal for Mistral can do on one history of this corpus, whose ids are all
    foreign to it: one scan; each foreign id mapped to a Mistral id; each part that carries one
    copied with the new id, each message holding such parts copied once, and a record made for
    each part as the engine makes them (without validation). No other rule, no second index, no
    check. Returns the healed history and its records (a test holds them to heal's)."""
    index = HistoryIndex(history)
    refs: list[tuple[int, int, ToolCallPart | ToolResultPart]] = [*index.calls, *index.results]
    exact = get_profile("mistral").tool_call_id_exact_pattern
    assert exact is not None  # Mistral's ids: nine letters and digits
    fits = exact.fullmatch
    mapping: dict[str, str] = {}
    for _, _, part in refs:
        tid = part.tool_call_id
        if tid not in mapping and not fits(tid):
            mapping[tid] = ""
    for tid in sorted(mapping):
        mapping[tid] = mistral_tool_call_id(tid)
    out = list(history)
    records: list[Repair] = []
    by_message: dict[int, dict[int, Part]] = {}
    for m, p, part in refs:
        old = part.tool_call_id
        new = mapping.get(old)
        if new is None:
            continue
        by_message.setdefault(m, {})[p] = replaced(part, {"tool_call_id": new})
        values = {
            "rule": "mistral-tool-call-id",
            "action": Action.REPLACE,
            "message_index": m,
            "part_index": p,
            "anchor_index": None,
            "tool_call_id": old,
            "reason": f"{part.type} id {old!r} is not 9 letters and digits; now {new!r}",
            "removed": {"toolCallId": old},
            "added": {"toolCallId": new},
            "scope": Scope.REQUEST,
        }
        records.append(construct_complete(Repair, _RECORD_FIELDS, values))
    for m, parts in by_message.items():
        content = list(out[m].content)
        for p, new_part in parts.items():
            content[p] = new_part
        out[m] = replaced(out[m], {"content": tuple(content)})
    return out, records


def renames_alone(histories: list[History]) -> None:
    # Each result dropped before the next, as the heal rows drop theirs.
    for history in histories:
        renamed_alone(history)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; the garbage collector is left as it was found."""
    return collector_restored(_main, argv)


def _main(argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=7, help="passes per line (median)")
    args = parser.parse_args(argv)
    # The corpus is built with the collector paused, then frozen, as benchmarks.run builds its
    # own: no collection a workload triggers rescans it.
    gc.disable()
    loaded: list[History] = [load_messages(h) for h in corpus(1000, 50, 0.1)]
    gc.enable()
    gc.collect()
    gc.freeze()
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
        ("quick verdict (one walk, nothing listed)", quick, loaded),
        ("HistoryIndex (one scan)", index, loaded),
        ("heal_messages, provider=None", heal, loaded),
        ("heal_messages, clean conversations only", heal, clean),
        ("heal_messages, broken conversations only", heal, broken),
        ("heal_messages, provider=mistral", heal_mistral, loaded),
        ("renames alone: the floor for provider=mistral", renames_alone, loaded),
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
