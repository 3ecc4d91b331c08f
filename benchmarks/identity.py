"""Is heal's output byte-identical to another commit's? For refactors that promise no change.

    .venv/bin/python -m benchmarks.identity --against HEAD~1 [--histories 3000]

The inputs are made once, in this tree: every case file's history (each under its own provider
and policy, and under every provider), the benchmark corpus with half its conversations broken,
its reasoning shape with a third broken, and histories from the property tests' strategies (generated derandomized, so the same every
run). Each input is healed by this tree and by a checkout of ``--against`` (a temporary
``git worktree``), both in a fresh interpreter on the same virtualenv; each writes one line per
(input, provider): the SHA-256 of the healed history and the repair records as JSON, or of the
error raised. The run prints how many lines differ, the first few with their input, and exits 1
when any does.

Each tree heals under the providers IT lists (``--providers`` names them instead), and lines are
matched by (input, provider): a provider only one tree has (one being added) is counted apart,
not compared, so adding a provider never reads as a difference in the others.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# Run inside each tree: heals every input under every provider it lists, one hash per line.
_WORKER = r"""
import hashlib, json, sys
from heal import PROVIDERS, Policy, dump_messages, heal_messages

def digest(entry, provider):
    policy = Policy(entry.get("policy") or {}, enable=entry.get("enable", ()))
    try:
        result = heal_messages(entry["history"], provider=provider, policy=policy)
        body = [dump_messages(result.messages), [r.model_dump(mode="json") for r in result.repairs]]
    except Exception as exc:
        body = ["error", type(exc).__name__, str(exc)]
    text = json.dumps(body, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()

chosen = json.loads(sys.argv[3]) if len(sys.argv) > 3 else [None, *PROVIDERS]
with open(sys.argv[1], encoding="utf-8") as src, open(sys.argv[2], "w") as out:
    for line in src:
        entry = json.loads(line)
        for provider in entry.get("providers") or chosen:
            out.write(f"{entry['id']}\t{provider}\t{digest(entry, provider)}\n")
"""


def _inputs(count: int) -> list[dict[str, Any]]:
    sys.path.insert(0, str(ROOT))
    from benchmarks.corpus import corpus

    found: list[dict[str, Any]] = []
    for path in sorted((ROOT / "tests" / "cases").rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for n, case in enumerate(data["cases"]):
            history = case.get("ok", case.get("input"))
            base = f"{path.parent.name}/{path.stem}#{n}"
            found.append({"id": base, "history": history})  # every provider, default policy
            if case.get("policy") or case.get("enable"):
                found.append(
                    {
                        "id": f"{base}+policy",
                        "history": history,
                        "policy": case.get("policy"),
                        "enable": case.get("enable", []),
                        "providers": [case.get("provider")],
                    }
                )
    half = count // 2
    for n, history in enumerate(corpus(conversations=half, length=20, broken=0.5, seed=11)):
        found.append({"id": f"corpus#{n}", "history": history})
    # Reasoning, signatures and Kimi's ids from three providers (the shape heal for Anthropic
    # keeps, removes or renames without the index).
    reasoning = corpus(conversations=half // 4, length=30, broken=0.3, seed=13, shape="reasoning")
    for n, history in enumerate(reasoning):
        found.append({"id": f"reasoning#{n}", "history": history})
    for n, history in enumerate(_generated(count - half)):
        found.append({"id": f"generated#{n}", "history": history})
    return found


def _generated(count: int) -> list[Any]:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from tests.strategies import broken_histories, valid_histories

    out: list[Any] = []

    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.one_of(valid_histories(), broken_histories()))
    def collect(history: Any) -> None:
        out.append(history)

    collect()
    return out[:count]


def _run(tree: Path, inputs: Path, output: Path, providers: list[str | None] | None) -> None:
    chosen = [] if providers is None else [json.dumps(providers)]
    subprocess.run(
        [sys.executable, "-c", _WORKER, str(inputs), str(output), *chosen],
        cwd=tree,
        env={"PYTHONPATH": str(tree), "PYTHONHASHSEED": "0", "PATH": "/usr/bin:/bin"},
        check=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", default="HEAD", help="the commit to compare with")
    parser.add_argument("--histories", type=int, default=3000, help="generated histories")
    parser.add_argument("--show", type=int, default=5, help="differences to list")
    parser.add_argument(
        "--providers",
        help="comma-separated provider ids to heal under, 'none' for no provider "
        "(default: every provider each tree lists)",
    )
    args = parser.parse_args(argv)
    providers: list[str | None] | None = None
    if args.providers is not None:
        names = [name.strip() for name in args.providers.split(",") if name.strip()]
        providers = [None if name == "none" else name for name in names]
    with tempfile.TemporaryDirectory(prefix="heal-identity-") as tmp:
        work = Path(tmp)
        entries = _inputs(args.histories)
        inputs = work / "inputs.jsonl"
        with inputs.open("w", encoding="utf-8") as f:
            for entry in entries:
                f.write(json.dumps(entry) + "\n")
        base = work / "base"
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(base), args.against],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        try:
            _run(base, inputs, work / "base.txt", providers)
            _run(ROOT, inputs, work / "this.txt", providers)
        finally:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, check=False
            )
        old = _digests(work / "base.txt")
        new = _digests(work / "this.txt")
    by_id = {e["id"]: e for e in entries}
    shared = [key for key in new if key in old]
    differ = [key for key in shared if old[key] != new[key]]
    print(
        f"{len(entries):,} inputs ({sum(1 for e in entries if e['id'].startswith('generated'))} "
        f"generated), {len(shared):,} heals: {len(differ)} differ from {args.against}"
    )
    unmatched = old.keys() ^ new.keys()
    if unmatched:
        lacking = ", ".join(sorted({provider for _, provider in unmatched}))
        print(
            f"  not compared: {len(unmatched):,} heals under providers one tree lacks ({lacking})"
        )
    for key, provider in differ[: args.show]:
        history = json.dumps(by_id[key]["history"])
        print(f"  {key} provider={provider}: {history[:300]}")
    return 1 if differ else 0


def _digests(path: Path) -> dict[tuple[str, str], str]:
    """A worker's output: (input id, provider) -> digest, in the order written."""
    found: dict[tuple[str, str], str] = {}
    for line in path.read_text().splitlines():
        key, provider, digest = line.split("\t")
        found[key, provider] = digest
    return found


if __name__ == "__main__":
    raise SystemExit(main())
