"""heal beside the Python peers, on their own formats, in one process and one run.

    python -m benchmarks.peers                      # 1,000 x 50 corpus, 5 runs (about a minute)
    python -m benchmarks.peers --shape reasoning    # the corpus with reasoning, signatures, renames
    python -m benchmarks.peers --conversations 200 --runs 3 --json peers.json

The corpus (``benchmarks.corpus``, 10% broken) is written by heal's own adapters into each
peer's format once, before any timing (a conversation a format cannot hold is left out of that
format's pair, and the count says so: Anthropic's takes only the ``reasoning`` corpus's
conversations signed by Anthropic); each pair then heals the same native histories:

* Anthropic Messages lists (the system prompt goes to the ``system`` parameter, so it is not in
  the list): ``heal_anthropic`` against turnsafe's ``repair_detailed(provider="anthropic")``;
* OpenAI Chat Completions lists: ``heal_openai_chat`` against
  ``repair_detailed(provider="openai")``;
* pydantic-ai ``ModelMessage`` lists: ``heal_pydantic_ai`` (``provider="auto"``, what a caller
  writes) against ``pydantic_ai.messages.repair_messages``, the cleaning pydantic-ai runs before
  every model request (``_clean_message_history``).

heal's core on the loaded canonical models is timed too, as the floor the adapters sit on: on the
whole corpus per provider, and for each pair on exactly the histories the adapter heals, as its
own loader reads them and for the provider it heals for (pydantic-ai's inferred per history), so
that "adapter / heal_messages" is the adapter's own cost over healing the same histories. The
two sides of a pair alternate within each run, so load on the shared machine falls on both;
figures are medians, rates count the canonical messages of the conversations timed, and the
ratios (heal's time over the peer's: below 1 means heal is faster) are what to compare across
runs, with the load averages printed before and after. The peers do less than heal (no provider
rules, no id or name checks), which the ratios do not show.

The Anthropic lists are also healed as request parameters with a system prompt, without and
with the prompt-caching breakpoints a caller of Anthropic's caching sets (``cache_control`` on a
system block and on the last block): the two should cost about the same.

The adapters with no Python peer (``heal_gemini`` on Gemini request contents, for ``google``;
``heal_openai_responses`` on Responses input items, for ``openai-responses``; ``heal_langchain``
on LangChain messages, ``"auto"``) are timed against the same floor, for their own cost alone.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any, cast

from benchmarks.corpus import SHAPES, corpus
from benchmarks.run import collector_restored
from heal import InputError, ModelMessage, heal_messages, load_messages
from heal.adapters import anthropic as anthropic_format
from heal.adapters import gemini as gemini_format
from heal.adapters import langchain as langchain_format
from heal.adapters import openai_chat as openai_chat_format
from heal.adapters import openai_responses as responses_format
from heal.adapters import pydantic_ai as pydantic_ai_format
from heal.providers import ProviderId


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} (1, 5, 15 min; {os.cpu_count()} CPUs)"


def _interleaved(works: list[Callable[[], object]], runs: int) -> list[float]:
    """Median seconds of each of ``works``, taking turns within each run."""
    times: list[list[float]] = [[] for _ in works]
    for _ in range(runs):
        for work, taken in zip(works, times, strict=True):
            gc.collect()
            start = time.perf_counter()
            work()
            taken.append(time.perf_counter() - start)
    return [statistics.median(taken) for taken in times]


def _median(work: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _native(
    dump: Callable[[list[ModelMessage]], Any], loaded: list[list[ModelMessage]]
) -> tuple[list[Any], int]:
    """Each history the format can hold, written in it, and their canonical message count."""
    out: list[Any] = []
    messages = 0
    for history in loaded:
        try:
            out.append(dump(history))
        except InputError:  # say, reasoning Anthropic did not sign, for its format
            continue
        messages += len(history)
    return out, messages


PAIRED = ("anthropic", "openai_chat", "pydantic_ai")
"""The native formats heal is timed on beside a peer, by their adapters' module names."""

FORMATS = (*PAIRED, "gemini", "openai_responses", "langchain")
"""Every native format timed, those without a peer after the others."""

HEALS: dict[str, Callable[..., Any]] = {
    "anthropic": anthropic_format.heal_anthropic,
    "openai_chat": openai_chat_format.heal_openai_chat,
    "pydantic_ai": pydantic_ai_format.heal_pydantic_ai,
    "gemini": gemini_format.heal_gemini,
    "openai_responses": responses_format.heal_openai_responses,
    "langchain": langchain_format.heal_langchain,
}
"""Each format's entry point, called as a caller would: the native list alone."""

Floor = list[tuple[list[ModelMessage], ProviderId | None]]


def native_set(name: str, loaded: list[list[ModelMessage]]) -> tuple[list[Any], int, Floor]:
    """The histories of ``loaded`` format ``name`` can hold, written in it; their canonical
    message count; and heal_messages' floor under the adapter: each history as the adapter's
    own loader reads it, with the provider the adapter heals it for (Anthropic's and OpenAI
    Chat's own; pydantic-ai's inferred per history, as ``provider="auto"`` does)."""
    if name == "anthropic":
        histories, messages = _native(
            lambda h: anthropic_format.dump_messages(h, shape="params")["messages"], loaded
        )
        floor: Floor = [(anthropic_format.load(h).messages, "anthropic") for h in histories]
    elif name == "openai_chat":
        histories, messages = _native(openai_chat_format.dump_messages, loaded)
        floor = [(openai_chat_format.load(h).messages, "openai-chat") for h in histories]
    elif name == "pydantic_ai":
        histories, messages = _native(pydantic_ai_format.dump_messages, loaded)
        floor = [
            (pydantic_ai_format.load(h).messages, pydantic_ai_format.infer_provider(h))
            for h in histories
        ]
    elif name == "gemini":
        histories, messages = _native(gemini_format.dump_messages, loaded)
        floor = [(gemini_format.load(h).messages, "google") for h in histories]
    elif name == "openai_responses":
        histories, messages = _native(responses_format.dump_messages, loaded)
        floor = [(responses_format.load(h).messages, "openai-responses") for h in histories]
    elif name == "langchain":
        histories, messages = _native(langchain_format.dump_messages, loaded)
        floor = [
            (langchain_format.load(h).messages, langchain_format.infer_provider(h))
            for h in histories
        ]
    else:
        raise ValueError(f"unknown format {name!r}; expected one of: {', '.join(FORMATS)}")
    return histories, messages, floor


def _each_floor(floor: Floor) -> Callable[[], None]:
    def work() -> None:
        for messages, provider in floor:
            heal_messages(messages, provider=provider)

    return work


def _each(fn: Callable[..., object], items: list[Any], **options: Any) -> Callable[[], None]:
    def work() -> None:
        for item in items:
            fn(item, **options)

    return work


SYSTEM = "You are a helpful assistant."
BREAKPOINT = {"type": "ephemeral"}


def with_breakpoints(histories: list[Any]) -> tuple[list[Any], list[Any]]:
    """Each Anthropic list as request parameters with a system prompt: as it is, and with the
    prompt-caching breakpoints a caller sets (``cache_control`` on a system block and on the
    last block of the last message). The lists are not changed: the last message is copied."""
    plain: list[Any] = []
    cached: list[Any] = []
    for messages in histories:
        plain.append({"system": SYSTEM, "messages": messages})
        last = messages[-1]
        content = last["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        marked = [*blocks[:-1], {**blocks[-1], "cache_control": BREAKPOINT}]
        cached.append(
            {
                "system": [{"type": "text", "text": SYSTEM, "cache_control": BREAKPOINT}],
                "messages": [*messages[:-1], {**last, "content": marked}],
            }
        )
    return plain, cached


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; the garbage collector is left as it was found."""
    return collector_restored(_main, argv)


def _main(argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5, help="repetitions per workload (median)")
    parser.add_argument("--conversations", type=int, default=1000)
    parser.add_argument("--length", type=int, default=50, help="messages per conversation")
    parser.add_argument("--shape", choices=SHAPES, default="tools", help="the corpus shape")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    try:
        import turnsafe
        from pydantic_ai.messages import repair_messages
    except ImportError as exc:
        print(f"missing a peer ({exc.name}): pip install 'heal-messages[bench,pydantic-ai]'")
        return 2

    gc.disable()  # the bulk load below: the collector would rescan it as it grows
    raw = corpus(conversations=args.conversations, length=args.length, broken=0.1, shape=args.shape)
    loaded = [load_messages(history) for history in raw]
    n = sum(len(history) for history in loaded)
    # Each format's histories, their message count, and heal_messages on the very same ones.
    anthropic, openai_chat, pydantic_ai, *peerless = (native_set(name, loaded) for name in FORMATS)
    # Everything built so far lives to the end: keep the cyclic collector from rescanning it.
    gc.enable()
    gc.collect()
    gc.freeze()

    versions = {
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "turnsafe": getattr(turnsafe, "__version__", "?"),
        "pydantic_ai": _version("pydantic-ai-slim"),
    }
    results: dict[str, Any] = {**versions, "shape": args.shape, "messages": n, "runs": args.runs}
    print(
        f"corpus: {args.conversations:,} conversations x {args.length} messages, shape "
        f"{args.shape!r}, 10% broken = {n:,} canonical messages; runs={args.runs}; "
        + ", ".join(f"{k} {v}" for k, v in versions.items())
    )
    results["load_before"] = os.getloadavg()
    print(f"load average before: {_load()}")

    def show(name: str, seconds: float, messages: int = n) -> None:
        rate = messages / seconds
        results[name] = {"seconds": round(seconds, 4), "messages_per_second": round(rate)}
        print(f"  {name:<58} {seconds * 1e3:>9.1f} ms {rate:>13,.0f} msg/s", flush=True)

    pairs: list[tuple[str, float, float]] = []
    own: list[tuple[str, float, float]] = []
    for (label, heal_one, peer_name, peer_one), (histories, messages, floor) in zip(
        (
            (
                "heal_anthropic, Anthropic lists",
                HEALS["anthropic"],
                "turnsafe repair_detailed, anthropic",
                partial(turnsafe.repair_detailed, provider="anthropic"),
            ),
            (
                "heal_openai_chat, OpenAI Chat lists",
                HEALS["openai_chat"],
                "turnsafe repair_detailed, openai",
                partial(turnsafe.repair_detailed, provider="openai"),
            ),
            (
                "heal_pydantic_ai, ModelMessage lists",
                HEALS["pydantic_ai"],
                "pydantic-ai repair_messages",
                repair_messages,
            ),
        ),
        (anthropic, openai_chat, pydantic_ai),
        strict=True,
    ):
        print(
            f"{label.split(',')[1].strip()}: {len(histories):,} conversations, {messages:,} messages"
        )
        heal_fn = cast("Callable[..., object]", heal_one)
        peer_fn = cast("Callable[..., object]", peer_one)
        ours, theirs, core = _interleaved(
            [_each(heal_fn, histories), _each(peer_fn, histories), _each_floor(floor)],
            args.runs,
        )
        show(label, ours, messages)
        show(peer_name, theirs, messages)
        show(
            f"heal_messages on the same histories, {label.split(',')[0][5:]}'s provider",
            core,
            messages,
        )
        pairs.append((f"{label} / {peer_name}", ours, theirs))
        own.append((f"{label.split(',')[0]} / heal_messages on the same histories", ours, core))
    for name, (histories, messages, floor) in zip(FORMATS[len(PAIRED) :], peerless, strict=True):
        label = f"heal_{name}"
        print(f"{name} (no Python peer): {len(histories):,} conversations, {messages:,} messages")
        ours, core = _interleaved([_each(HEALS[name], histories), _each_floor(floor)], args.runs)
        show(label, ours, messages)
        show(f"heal_messages on the same histories, {name}'s provider", core, messages)
        own.append((f"{label} / heal_messages on the same histories", ours, core))
    if anthropic[0]:
        # What a caller of Anthropic's prompt caching sends: the same histories, breakpoints.
        plain, cached = with_breakpoints(anthropic[0])
        print("Anthropic request parameters, with and without prompt-caching breakpoints:")
        bare, marked = _interleaved(
            [_each(HEALS["anthropic"], plain), _each(HEALS["anthropic"], cached)], args.runs
        )
        show("heal_anthropic, parameters with a system prompt", bare, anthropic[1])
        show("heal_anthropic, the same with two cache breakpoints", marked, anthropic[1])
        results["cache breakpoints: with / without"] = round(marked / bare, 2)
        print(f"  {'with breakpoints / without':<80} {marked / bare:>6.2f}")
    print(f"heal's core on the loaded canonical models, all {n:,} (the floor under the adapters):")
    for provider in (None, "anthropic", "openai-chat"):
        show(
            f"heal_messages, provider={provider or 'none'}",
            _median(_each(heal_messages, loaded, provider=provider), args.runs),
        )
    print("ratios (heal's time / the peer's; below 1: heal is faster):")
    for name, ours, theirs in pairs:
        results[f"ratio: {name}"] = round(ours / theirs, 2)
        print(f"  {name:<80} {ours / theirs:>6.2f}")
    print("the adapters' own cost (the adapter's time / heal_messages' on the same histories):")
    for name, ours, core in own:
        results[f"own cost: {name}"] = round(ours / core, 2)
        print(f"  {name:<80} {ours / core:>6.2f}")
    results["load_after"] = os.getloadavg()
    print(f"load average after: {_load()}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)
    return 0


def _version(distribution: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:
        return "?"


if __name__ == "__main__":
    raise SystemExit(main())
