"""heal's benchmarks: messages per second, median of several runs, measured in one process.

    python -m benchmarks.run            # the full set, every provider (about three minutes)
    python -m benchmarks.run --runs 3 --providers none,anthropic   # a quicker look
    python -m benchmarks.run --json out.json

Figures are medians over ``--runs`` repetitions of each workload; the machines are shared and
noisy, so compare ratios measured in one run rather than figures across runs.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any, cast

from benchmarks.corpus import corpus, orphan_every_turn
from heal import (
    PROVIDERS,
    ProviderId,
    dump_messages,
    heal_messages,
    load_messages,
    validate_messages,
)


def _each(check: Callable[..., object], histories: list[Any], provider: Any) -> None:
    for history in histories:
        check(history, provider=provider)


def _median_seconds(work: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _scaling(
    small: list[Any], large: list[Any], provider: ProviderId | None, runs: int
) -> tuple[float, float]:
    """Median seconds to heal ``small`` and ``large``: their ratio shows how heal scales.

    Both sizes get every run: a ratio of two medians is only as steady as its noisier half,
    and the small size is the one a busy machine disturbs most.
    """
    t_small = _median_seconds(partial(heal_messages, small, provider=provider), runs)
    t_large = _median_seconds(partial(heal_messages, large, provider=provider), runs)
    return t_small, t_large


def replayed_id_every_turn(length: int) -> list[dict[str, Any]]:
    """A long history that reuses one tool call id in every turn, with each call answered
    (the renaming stress of ``duplicate-tool-call-id``: every call after the first, and its
    result, gets a new id). Cut to ``length`` messages like ``orphan_every_turn``."""
    msgs: list[dict[str, Any]] = []
    while len(msgs) < length:
        msgs.append({"role": "user", "content": "again"})
        msgs.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "tool-call", "toolCallId": "call_1", "toolName": "run", "input": {}}
                ],
            }
        )
        msgs.append(
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": "call_1",
                        "toolName": "run",
                        "output": {"type": "text", "value": "done"},
                    }
                ],
            }
        )
    return msgs[:length]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=7, help="repetitions per workload (median)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument(
        "--providers", default="all", help="comma list ('none' for shared rules only), or 'all'"
    )
    args = parser.parse_args(argv)
    runs = args.runs
    providers: list[ProviderId | None] = (
        [None, *PROVIDERS]
        if args.providers == "all"
        else [None if p == "none" else cast(ProviderId, p) for p in args.providers.split(",")]
    )

    raw = corpus(conversations=1000, length=50, broken=0.1)
    big_raw = corpus(conversations=1, length=10_000, broken=0.0, seed=11)[0]
    corpus_json = [json.dumps(history) for history in raw]
    loaded = [load_messages(history) for history in raw]
    big = load_messages(big_raw)
    n_corpus = sum(len(h) for h in loaded)
    results: dict[str, Any] = {
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "runs": runs,
        "corpus_messages": n_corpus,
    }
    rows: list[tuple[str, float]] = []

    def record(name: str, messages: int, seconds: float) -> None:
        rate = messages / seconds
        results[name] = round(rate)
        rows.append((name, rate))
        print(f"{name:<58} {rate:>14,.0f} msg/s", flush=True)

    print(
        f"corpus: 1,000 conversations x 50 messages (10% broken) = {n_corpus:,} messages; runs={runs}"
    )
    for provider in providers:
        label = provider or "none"
        record(
            f"heal, loaded models, corpus, provider={label}",
            n_corpus,
            _median_seconds(partial(_each, heal_messages, loaded, provider), runs),
        )
        record(
            f"validate, loaded models, corpus, provider={label}",
            n_corpus,
            _median_seconds(partial(_each, validate_messages, loaded, provider), runs),
        )
        record(
            f"heal, loaded models, one 10,000-message history, provider={label}",
            len(big),
            _median_seconds(partial(heal_messages, big, provider=provider), runs),
        )
    record(
        "load_messages from JSON text, corpus",
        n_corpus,
        _median_seconds(lambda: [load_messages(s) for s in corpus_json], runs),
    )
    record(
        "dump_messages, corpus",
        n_corpus,
        _median_seconds(lambda: [dump_messages(h) for h in loaded], runs),
    )

    def end_to_end() -> None:
        for text in corpus_json:
            json.dumps(dump_messages(heal_messages(text).messages))

    record(
        "end to end: JSON text -> heal -> JSON text, corpus",
        n_corpus,
        _median_seconds(end_to_end, runs),
    )

    scaled: tuple[ProviderId | None, ...] = (None, "anthropic")
    for build, what, seconds_key, ratio_key in (
        (
            orphan_every_turn,
            "orphan call in every turn",
            "orphan_every_turn",
            "scaling_ratio_80k_over_8k",
        ),
        (
            replayed_id_every_turn,
            "one tool call id replayed in every turn",
            "replayed_id_every_turn",
            "replayed_id_scaling_ratio_80k_over_8k",
        ),
    ):
        small = load_messages(build(8_000))
        large = load_messages(build(80_000))
        for provider in scaled:
            label = provider or "none"
            t_small, t_large = _scaling(small, large, provider, runs)
            ratio = t_large / t_small
            results[f"{seconds_key}_8k_seconds_{label}"] = round(t_small, 4)
            results[f"{seconds_key}_80k_seconds_{label}"] = round(t_large, 4)
            results[f"{ratio_key}_{label}"] = round(ratio, 2)
            print(
                f"scaling, provider={label}: {what}, 80,000 vs 8,000 messages: "
                f"{t_large:.3f} s / {t_small:.3f} s = {ratio:.2f} (linear is about 10)",
                flush=True,
            )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
