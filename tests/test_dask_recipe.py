"""The README's distributed recipe runs in Dask's local mode and heals exactly like the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.corpus import corpus
from heal import dump_messages, heal_messages
from heal.migrate import heal_jsonl_line

db = pytest.importorskip("dask.bag")


def test_dask_bag_recipe_in_local_mode(tmp_path: Path) -> None:
    histories = corpus(conversations=90, length=10, broken=0.6, seed=17)
    for part in range(3):
        chunk = histories[part * 30 : (part + 1) * 30]
        (tmp_path / f"chats-{part}.jsonl").write_text(
            "\n".join(json.dumps({"id": part * 30 + i, "messages": h}) for i, h in enumerate(chunk))
            + "\n"
        )
        with (tmp_path / f"chats-{part}.jsonl").open("a") as f:
            f.write("not json at all\n")

    # The recipe, as in the README:
    lines = db.read_text(str(tmp_path / "chats-*.jsonl")).map(str.rstrip, "\n")
    healed = lines.map(heal_jsonl_line, key="messages", provider="anthropic")
    healed.to_textfiles(
        str(tmp_path / "healed-*.jsonl"), last_endline=True, compute=True, scheduler="processes"
    )

    out = []
    for path in sorted(tmp_path.glob("healed-*.jsonl")):
        out += path.read_text().splitlines()
    assert out.count("not json at all") == 3  # unreadable records come back untouched
    records = [json.loads(line) for line in out if line != "not json at all"]
    assert [r["id"] for r in records] == list(range(90))
    for record in records:
        want = heal_messages(histories[record["id"]], provider="anthropic", scope="history")
        assert record["messages"] == dump_messages(want.messages)
