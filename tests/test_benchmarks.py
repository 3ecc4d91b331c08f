"""The benchmark corpus's second shape, the peers benchmark end to end on a tiny corpus, and the
Mistral floor healing as heal does.

Nothing here is timed: speed is measured by ``python -m benchmarks.run``,
``python -m benchmarks.peers`` and ``python -m benchmarks.instructions``, never asserted in tests.
"""

from __future__ import annotations

import base64
import copy
import gc
import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from benchmarks import peers
from benchmarks.corpus import ORIGINS, corpus
from heal import PROVIDERS, Repair, dump_messages, heal_messages, load_messages
from heal.messages import ModelMessage

SIGNATURE_KEYS = {
    "anthropic": "signature",
    "openai": "reasoningEncryptedContent",
    "google": "thoughtSignature",
}


def test_the_reasoning_shape_is_signed_reasoning_with_foreign_ids() -> None:
    histories = corpus(conversations=30, length=20, broken=0.0, shape="reasoning")
    assert histories == corpus(conversations=30, length=20, broken=0.0, shape="reasoning")
    origins = set()
    foreign_ids = 0
    for history in histories:
        assert len(history) == 20 and history[0]["role"] == "system"
        for message in history:
            if message["role"] != "assistant" or isinstance(message["content"], str):
                continue
            first = message["content"][0]
            assert first["type"] == "reasoning"
            ((origin, options),) = first["providerOptions"].items()
            assert options[SIGNATURE_KEYS[origin]]
            origins.add(origin)
            foreign_ids += sum(
                part["toolCallId"].startswith("functions.")
                for part in message["content"]
                if part["type"] == "tool-call"
            )
    assert origins == set(ORIGINS)
    assert foreign_ids > 0
    # Every provider renames the foreign ids (and the shared rules do too).
    for provider in [None, *PROVIDERS]:
        rules = {r.rule for h in histories[:6] for r in heal_messages(h, provider=provider).repairs}
        assert rules & {"invalid-tool-call-id", "mistral-tool-call-id"}, provider


def test_the_media_shape_is_the_tools_turns_with_screenshots() -> None:
    histories = corpus(conversations=30, length=20, broken=0.0, shape="media")
    assert histories == corpus(conversations=30, length=20, broken=0.0, shape="media")
    images = [
        part
        for history in histories
        for message in history
        if message["role"] == "user"
        for part in message["content"]
        if part["type"] == "image"
    ]
    assert 20 < len(images) < 150
    assert all(base64.b64decode(image["image"]).startswith(b"\x89PNG") for image in images)
    # A user's screenshot is nothing any provider's rules change: each history heals as it
    # would without its images.
    for history in histories[:5]:
        bare = [
            {**m, "content": [p for p in m["content"] if p["type"] != "image"]}
            if m["role"] == "user"
            else m
            for m in history
        ]
        for provider in [None, *PROVIDERS]:
            with_images = heal_messages(history, provider=provider).repairs
            assert [r.rule for r in with_images] == [
                r.rule for r in heal_messages(bare, provider=provider).repairs
            ]


def test_an_unknown_shape_is_refused() -> None:
    with pytest.raises(ValueError, match="shape"):
        corpus(conversations=1, shape="nothing")  # type: ignore[arg-type]


@pytest.mark.parametrize("shape", ["tools", "reasoning"])
def test_the_peers_benchmark_runs_and_reports_ratios(
    shape: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("turnsafe")
    pytest.importorskip("pydantic_ai")
    out = tmp_path / "peers.json"
    assert (
        peers.main(
            [
                "--conversations",
                "6",
                "--length",
                "12",
                "--runs",
                "1",
                "--shape",
                shape,
                "--json",
                str(out),
            ]
        )
        == 0
    )
    figures = json.loads(out.read_text())
    ratios = [key for key in figures if key.startswith("ratio: ")]
    assert len(ratios) == 3 and all(figures[key] > 0 for key in ratios)
    # Every adapter's own cost, those without a peer too.
    own = [key for key in figures if key.startswith("own cost: ")]
    assert [key.split()[2] for key in own] == [f"heal_{name}" for name in peers.FORMATS]
    assert all(figures[key] > 0 for key in own)
    printed = capsys.readouterr().out
    assert "load average before" in printed and "load average after" in printed
    if shape == "tools":
        assert figures["cache breakpoints: with / without"] > 0


def test_the_breakpoints_the_peers_benchmark_adds_change_no_verdict() -> None:
    """The Anthropic parameters the peers benchmark heals with prompt-caching breakpoints heal
    as those without (the same repairs), the clean ones come back as given, and the lists they
    were made of are left as they were."""
    from heal.adapters.anthropic import heal_anthropic

    histories, _, _ = peers.native_set("anthropic", [load_messages(h) for h in corpus(20, 20)])
    before = copy.deepcopy(histories)
    plain, cached = peers.with_breakpoints(histories)
    assert histories == before
    marks = 0
    for bare, marked in zip(plain, cached, strict=True):
        marks += json.dumps(marked).count("cache_control")
        healed, healed_marked = heal_anthropic(bare), heal_anthropic(marked)
        assert [r.rule for r in healed.repairs] == [r.rule for r in healed_marked.repairs]
        assert (healed.messages is bare) == (healed_marked.messages is marked)
    assert marks == 2 * len(cached)


def test_the_spellings_benchmark_times_each_spelling_clean_and_repaired(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("pydantic_ai")
    pytest.importorskip("langchain_core")
    from benchmarks import spellings

    found = spellings.rows()
    assert len(found) == 17
    for name, heal, history in found:
        # Clean as stored, one repair without the first result; and each history the same
        # conversation, spelled as its format and SDK give it.
        assert heal(history).repairs == (), name
        assert heal(spellings._without_first_result(history)).repairs, name
        contents = history["contents"] if isinstance(history, dict) else history
        assert len(contents) >= 27, name
    assert spellings.main(["--runs", "1"]) == 0
    printed = capsys.readouterr().out
    assert printed.count(" us ") == 17 and "load average after" in printed


def test_scaling_times_the_two_sizes_in_turns(monkeypatch: pytest.MonkeyPatch) -> None:
    # Taking every small run before every large one let a change in the machine's load land on
    # one side of the ratio only.
    from benchmarks import run

    seen: list[str] = []
    monkeypatch.setattr(run, "heal_messages", lambda history, provider: seen.append(history[0]))
    run._scaling(["small"], ["large"], None, 3)
    assert seen == ["small", "large"] * 3


def test_the_mistral_floor_does_what_heal_does_for_mistral() -> None:
    # benchmarks.floor times "renames alone" as the least a heal for Mistral can do: it must
    # heal as heal does (same messages, same records) wherever renaming ids is all it takes.
    from benchmarks.floor import renamed_alone

    histories: list[Sequence[ModelMessage]] = [
        load_messages(h) for h in corpus(conversations=40, length=50, broken=0.1)
    ]
    compared = 0
    for history in histories:
        messages, records = renamed_alone(history)
        result = heal_messages(history, provider="mistral")
        if {r.rule for r in result.repairs} != {"mistral-tool-call-id"}:
            continue
        assert dump_messages(messages) == dump_messages(result.messages)
        assert sorted(records, key=_place) == sorted(result.repairs, key=_place)
        compared += 1
    assert compared > 20


def _place(record: Repair) -> tuple[int, int]:
    return (record.message_index or 0, record.part_index or 0)


def test_the_instruction_count_is_the_difference_of_two_counted_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each child run is counted whole (imports, the corpus, a warm heal); only the passes
    # differ between the two, so their difference over passes and conversations is heal's.
    from benchmarks import instructions

    counted: dict[str, int] = {"0": 1_000_000, str(instructions.PASSES): 1_000_000 + 2 * 3 * 500}
    calls: list[Sequence[str]] = []

    def fake_count(args: Sequence[str]) -> int:
        calls.append(args)
        return counted[args[-1]]

    monkeypatch.setattr(instructions, "_count", fake_count)
    assert instructions.per_conversation("deepseek", "tools", 3) == 500
    assert [call[-1] for call in calls] == ["0", str(instructions.PASSES)]
    assert all(call[:4] == ["corpus", "deepseek", "tools", "3"] for call in calls)


def test_the_instruction_benchmark_refuses_an_unknown_provider(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from benchmarks import instructions

    assert instructions.main(["--providers", "none,openai"]) == 2
    assert "unknown provider 'openai'" in capsys.readouterr().out


def test_the_instruction_child_heals_the_corpus_and_restores_the_collector() -> None:
    # The child pauses the collector for its corpus; run in this process (as here), it must
    # leave it on again, or every later test runs without it (the gc tests of heal_json and
    # migrate failed so, the first time).
    from benchmarks import instructions

    assert gc.isenabled()
    assert instructions.main(["--child", "corpus", "mistral", "reasoning", "2", "1"]) == 0
    assert instructions.main(["--child", "scaling", "replayed", "none", "40", "1"]) == 0
    assert instructions.main(["--child", "json", "anthropic", "reasoning", "2", "1"]) == 0
    assert (
        instructions.main(["--child", "native", "pydantic_ai", "adapter", "tools", "2", "1"]) == 0
    )
    assert gc.isenabled()


@pytest.mark.parametrize("name", ["anthropic", "openai_chat", "pydantic_ai"])
def test_the_native_workload_pairs_an_adapter_with_heal_messages_on_its_histories(
    name: str,
) -> None:
    # The two sides of a format count the same histories: the native lists its entry point
    # takes, and those lists as its loader reads them (the floor of benchmarks.peers).
    from benchmarks import instructions
    from benchmarks.peers import HEALS

    natives, heal_native = instructions._native_workload(name, "adapter", "reasoning", 6)
    floor, heal_floor = instructions._native_workload(name, "core", "reasoning", 6)
    assert natives and len(natives) == len(floor)
    assert heal_native is HEALS[name]
    for native, pair in zip(natives, floor, strict=True):
        healed = HEALS[name](native)
        assert [r.rule for r in healed.repairs] == [
            r.rule for r in heal_messages(pair[0], provider=pair[1]).repairs
        ]
        heal_floor(pair)


def test_the_instruction_benchmark_refuses_an_unknown_format(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from benchmarks import instructions

    assert instructions.main(["--formats", "anthropic,cohere"]) == 2
    assert "unknown format 'cohere'" in capsys.readouterr().out


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_callgrind_counts_are_read_from_its_own_report() -> None:
    # The benchmark's children run for about a minute under callgrind; a program that does
    # almost nothing shows that the count is read from callgrind's real report, and that a
    # second run counts the same.
    from benchmarks import instructions

    command = [sys.executable, "-S", "-c", "pass"]
    first = instructions.counted(command)
    assert first > 1_000_000  # an interpreter's start alone
    assert instructions.counted(command) == pytest.approx(first, rel=0.001)
    with pytest.raises(RuntimeError, match="failed under valgrind"):
        instructions.counted([sys.executable, "-S", "-c", "raise SystemExit(3)"])
