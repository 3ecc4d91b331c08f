"""Instructions per conversation, counted by valgrind's callgrind: ratios that load cannot move.

    python -m benchmarks.instructions                                # about three minutes
    python -m benchmarks.instructions --providers none,deepseek --conversations 50
    python -m benchmarks.instructions --shape reasoning --providers none,anthropic
    python -m benchmarks.instructions --scaling --providers none   # 8,000 vs 80,000 messages
    python -m benchmarks.instructions --formats pydantic_ai --shape reasoning   # an adapter
    python -m benchmarks.instructions --json --shape reasoning --providers none,anthropic
                                                 # heal_json, JSON text in and out

The machines here are shared: the same tree times 10-30% apart from one minute to the next, so a
ratio of two timings moves by as much as a change worth making. Callgrind counts the
instructions a process executes instead, the same count for the same code and input whatever
else the machine is doing (``PYTHONHASHSEED`` is fixed for the child, so set and dict order are
too). An instruction is not a nanosecond: an attribute read that misses the cache costs more
than its count says, so this complements ``benchmarks.run`` (seconds) and does not replace it.
It tells whether a change does less work, and what a provider pack costs over provider none.

Method: for each provider, the child builds ``benchmarks.corpus`` (the ``benchmarks.run``
corpus: 50 messages a conversation, 10% broken), loads it, heals every conversation once (plan
caches, compiled patterns), then heals them all ``PASSES`` more times; it runs twice under
callgrind, with those passes and without, and the difference over the passes and conversations
is the count per conversation. ``--scaling`` counts one heal of the history with an orphan call
in every turn at the two sizes ``benchmarks.run`` times, and the same for a call id replayed in
every turn: a heal linear in the history's length reads 10.0.

``--formats`` counts native entry points instead (``heal_anthropic``, ``heal_openai_chat``,
``heal_pydantic_ai``) on the corpus written in each format, beside ``heal_messages`` on the same
histories as the adapter's loader reads them, for the provider it heals for: the pairs and the
"own cost" ratio of ``benchmarks.peers``, without its noise (needs the ``bench`` and
``pydantic-ai`` extras). ``--json`` counts ``heal_json`` on the corpus written as JSON text
(``benchmarks.run``'s end-to-end rows), for each of ``--providers``.

Needs ``valgrind`` on the PATH (Debian's package); exits 2 without it. Each child runs about 50
times slower than it would alone: the corpus takes about 40 seconds a provider, the scaling
histories about four minutes a provider and history.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from typing import Any

from benchmarks.corpus import SHAPES, corpus, orphan_every_turn
from benchmarks.run import collector_restored, replayed_id_every_turn
from heal import PROVIDERS, ModelMessage, heal_json, heal_messages, load_messages

PASSES = 2
"""Heals of every conversation counted, after the first (which warms the caches)."""

_COLLECTED = re.compile(r"Collected : (\d+)")


def _child(argv: list[str] | None) -> int:
    """The workload callgrind counts: ``corpus PROVIDER SHAPE CONVERSATIONS PASSES``,
    ``scaling WHICH PROVIDER LENGTH PASSES``, ``native FORMAT SIDE SHAPE CONVERSATIONS
    PASSES`` or ``json PROVIDER SHAPE CONVERSATIONS PASSES``."""
    if not argv:
        print(
            "--child needs a workload: corpus ..., scaling ..., native ... or json ...",
            file=sys.stderr,
        )
        return 2
    gc.disable()  # the collector's rescans of the corpus are not heal's work
    kind, *rest = argv
    if kind == "native":
        name, side, shape, conversations, passes = rest
        histories, work = _native_workload(name, side, shape, int(conversations))
        for history in histories:  # warm, outside the count
            work(history)
        for _ in range(int(passes)):
            for history in histories:
                work(history)
        return 0
    if kind == "json":
        provider, shape, conversations, passes = rest
        texts = [json.dumps(raw) for raw in _raw_corpus(shape, int(conversations))]
        healed: Any = None if provider == "none" else provider
        for text in texts:  # warm, outside the count
            heal_json(text, provider=healed)
        for _ in range(int(passes)):
            for text in texts:
                heal_json(text, provider=healed)
        return 0
    if kind == "corpus":
        provider, shape, conversations, passes = rest
        histories = _loaded_corpus(shape, int(conversations))
        warm = histories  # plan caches, compiled patterns: outside the count
    else:
        which, provider, length, passes = rest
        make = orphan_every_turn if which == "orphan" else replayed_id_every_turn
        histories = [load_messages(make(int(length)))]
        warm = []  # one heal counted whole
    target: Any = None if provider == "none" else provider
    for history in warm:
        heal_messages(history, provider=target)
    for _ in range(int(passes)):
        for history in histories:
            heal_messages(history, provider=target)
    return 0


def _native_workload(
    name: str, side: str, shape: str, conversations: int
) -> tuple[list[Any], Callable[[Any], object]]:
    """What a ``native`` child heals: format ``name``'s histories of the corpus and its entry
    point (``side`` ``adapter``), or the same histories as its loader reads them and
    ``heal_messages`` for the provider it heals for (``core``: the floor under the adapter),
    as ``benchmarks.peers`` pairs them."""
    from benchmarks.peers import HEALS, native_set  # needs the bench and pydantic-ai extras

    histories, _, floor = native_set(name, _loaded_corpus(shape, conversations))
    if side == "adapter":
        return histories, HEALS[name]
    return floor, lambda pair: heal_messages(pair[0], provider=pair[1])


def _raw_corpus(shape: str, conversations: int) -> list[list[dict[str, Any]]]:
    """``benchmarks.corpus`` of ``shape`` (50 messages a conversation, 10% broken)."""
    shaped = next(known for known in SHAPES if known == shape)
    return corpus(conversations=conversations, length=50, broken=0.1, shape=shaped)


def _loaded_corpus(shape: str, conversations: int) -> list[list[ModelMessage]]:
    """:func:`_raw_corpus`, loaded."""
    return [load_messages(history) for history in _raw_corpus(shape, conversations)]


def _valgrind_missing() -> bool:
    """Whether valgrind is missing from the PATH (said on stderr, for an exit 2)."""
    if shutil.which("valgrind") is not None:
        return False
    print("valgrind is not on the PATH (Debian: apt-get install valgrind)", file=sys.stderr)
    return True


def _count(args: Sequence[str]) -> int:
    """Instructions callgrind counts for one child run with ``args``."""
    return counted([sys.executable, "-m", "benchmarks.instructions", "--child", *args])


def counted(command: Sequence[str]) -> int:
    """Instructions callgrind counts for one run of ``command`` (``PYTHONHASHSEED`` fixed)."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    found = _COLLECTED.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"{command} failed under valgrind:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def per_conversation(provider: str, shape: str, conversations: int) -> float:
    """Instructions ``heal_messages`` executes per conversation of the corpus, for ``provider``
    (``"none"``: shared rules only)."""
    base = [provider, shape, str(conversations)]
    without = _count(["corpus", *base, "0"])
    with_passes = _count(["corpus", *base, str(PASSES)])
    return (with_passes - without) / (PASSES * conversations)


def per_native(name: str, side: str, shape: str, conversations: int, held: int) -> float:
    """Instructions per history of format ``name``'s entry point (``side`` ``adapter``) or of
    ``heal_messages`` on the same histories (``core``), over the ``held`` histories of the
    corpus the format can hold."""
    base = [name, side, shape, str(conversations)]
    without = _count(["native", *base, "0"])
    with_passes = _count(["native", *base, str(PASSES)])
    return (with_passes - without) / (PASSES * held)


def per_json(provider: str, shape: str, conversations: int) -> float:
    """Instructions ``heal_json`` executes per conversation of the corpus as JSON text, for
    ``provider`` (``none`` for None): decoding, the verdict, and for a history that needs a
    repair loading, healing and writing it (or, plain but for its ids or other providers'
    reasoning, editing its decoded dicts)."""
    base = [provider, shape, str(conversations)]
    without = _count(["json", *base, "0"])
    with_passes = _count(["json", *base, str(PASSES)])
    return (with_passes - without) / (PASSES * conversations)


def per_heal(which: str, provider: str, length: int) -> int:
    """Instructions one heal of the ``which`` history (``orphan`` or ``replayed``) executes."""
    base = [which, provider, str(length)]
    return _count(["scaling", *base, "1"]) - _count(["scaling", *base, "0"])


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark (or, with ``--child``, the workload it counts); the garbage collector
    is left as it was found."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        return collector_restored(_child, argv[1:])
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument(
        "--providers",
        default="none,anthropic,mistral,deepseek",
        help="comma list; 'none' for shared rules only (the ratios are over it)",
    )
    parser.add_argument("--shape", choices=SHAPES, default="tools", help="the corpus shape")
    parser.add_argument("--conversations", type=int, default=100)
    parser.add_argument(
        "--scaling", action="store_true", help="count the scaling histories instead"
    )
    parser.add_argument(
        "--json", action="store_true", help="count heal_json on the corpus as JSON text instead"
    )
    parser.add_argument(
        "--formats",
        metavar="NAMES",
        help="count these native entry points instead (comma list of "
        "anthropic, openai_chat, pydantic_ai), each beside heal_messages on its histories",
    )
    args = parser.parse_args(argv)
    if args.formats is not None:
        return _native_main(args.formats.split(","), args.shape, args.conversations)
    providers: list[str] = args.providers.split(",")
    unknown = [p for p in providers if p != "none" and p not in PROVIDERS]
    if unknown:
        print(f"unknown provider {unknown[0]!r}; expected none or one of: {', '.join(PROVIDERS)}")
        return 2
    if _valgrind_missing():
        return 2
    if args.json:
        print(
            f"corpus: {args.conversations:,} conversations x 50 messages, shape {args.shape!r} "
            f"(10% broken), as JSON text; instructions per conversation, {PASSES} passes after "
            "a warm one"
        )
        for provider in providers:
            count = per_json(provider, args.shape, args.conversations)
            print(f"heal_json, str, provider={provider} {count:>12,.0f}")
        return 0
    if args.scaling:
        for which in ("orphan", "replayed"):
            for provider in providers:
                small = per_heal(which, provider, 8_000)
                large = per_heal(which, provider, 80_000)
                print(
                    f"scaling, provider={provider}, {which} in every turn: 80,000 vs 8,000 "
                    f"messages: {large:,} / {small:,} instructions = {large / small:.2f}"
                )
        return 0
    print(
        f"corpus: {args.conversations:,} conversations x 50 messages, shape {args.shape!r} "
        f"(10% broken); instructions per conversation, {PASSES} passes after a warm one"
    )
    counts: dict[str, float] = {}
    for provider in providers:
        counts[provider] = per_conversation(provider, args.shape, args.conversations)
        over = ""
        if provider != "none" and "none" in counts:
            over = f"  ({counts[provider] / counts['none']:.2f}x none)"
        print(f"heal, provider={provider:<10} {counts[provider]:>12,.0f}{over}")
    return 0


def _native_main(names: list[str], shape: str, conversations: int) -> int:
    """``--formats``: each entry point's instructions per history, and its own cost (over
    ``heal_messages`` on the same histories), the ratio ``benchmarks.peers`` times."""
    try:
        from benchmarks.peers import FORMATS, native_set
    except ImportError as exc:
        print(f"missing a peer ({exc.name}): pip install 'heal-messages[bench,pydantic-ai]'")
        return 2
    unknown = [name for name in names if name not in FORMATS]
    if unknown:
        print(f"unknown format {unknown[0]!r}; expected one of: {', '.join(FORMATS)}")
        return 2
    if _valgrind_missing():
        return 2
    loaded = _loaded_corpus(shape, conversations)
    print(
        f"corpus: {conversations:,} conversations x 50 messages, shape {shape!r} (10% broken); "
        f"instructions per history each format holds, {PASSES} passes after a warm one"
    )
    for name in names:
        held = len(native_set(name, loaded)[0])
        adapter = per_native(name, "adapter", shape, conversations, held)
        core = per_native(name, "core", shape, conversations, held)
        print(
            f"{name:<12} {held:>5,} histories: adapter {adapter:>12,.0f}, heal_messages "
            f"{core:>12,.0f}, own cost {adapter / core:.2f}x"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
