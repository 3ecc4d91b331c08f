"""Python side of the interop "outside judge".

``judge.mjs`` checks AI SDK v6 ``ModelMessage[]`` histories with the real AI SDK packages
(``ai`` plus the provider packages pinned in ``package.json``), fully offline. This module
installs those packages on demand and runs the script for a batch of cases::

    from tests.interop.judge import ensure_node_modules, judge

    if ensure_node_modules() is None:
        ...  # node / npm not installed: skip
    [result] = judge([{"id": "x", "target": "anthropic", "messages": history}])
    assert result["ok"], result["error"]

See ``judge.mjs`` for the targets and the result fields.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal, TypedDict

__all__ = [
    "ALL_TARGETS",
    "PROVIDER_TARGETS",
    "JudgeResult",
    "Stage",
    "Target",
    "ensure_node_modules",
    "judge",
]

HERE = Path(__file__).resolve().parent
JUDGE_SCRIPT = HERE / "judge.mjs"
LOCK_FILE = HERE / "package-lock.json"
NODE_MODULES = HERE / "node_modules"
# Written into node_modules after a successful `npm ci`; holds the hash of the lock file
# that install came from, so a changed lock file triggers a reinstall.
MARKER = NODE_MODULES / ".heal-interop-lock.sha256"

NPM_CI_TIMEOUT_S = 600.0

Target = Literal[
    "schema",
    "core",
    "anthropic",
    "openai-chat",
    "openai-responses",
    "google",
    "bedrock",
    "mistral",
]
Stage = Literal["schema", "convert", "request"]

PROVIDER_TARGETS: tuple[Target, ...] = (
    "anthropic",
    "openai-chat",
    "openai-responses",
    "google",
    "bedrock",
    "mistral",
)
ALL_TARGETS: tuple[Target, ...] = ("schema", "core", *PROVIDER_TARGETS)


class JudgeResult(TypedDict):
    """One result of ``judge.mjs``, in the order of the cases."""

    id: Any
    ok: bool
    # Where a failing case failed: "schema" (zod), "convert" (before any request was
    # made: ai core or the provider's prompt conversion), "request" (after the request
    # was captured). None when ok, or when the case itself was malformed.
    stage: Stage | None
    error: str | None
    # "core": the LanguageModelV3 prompt the mock model received; provider targets: the
    # JSON request body sent to the provider (its wire format); "schema": None.
    body: Any
    warnings: list[str]


_install_lock = threading.Lock()
# Set once `ensure_node_modules` has verified (or made) the install in this process.
_installed: dict[str, Path] = {}


def _lock_hash() -> str:
    return hashlib.sha256(LOCK_FILE.read_bytes()).hexdigest()


def _is_fresh(lock_hash: str) -> bool:
    try:
        return MARKER.read_text(encoding="utf-8").strip() == lock_hash
    except OSError:
        return False


@contextmanager
def _interprocess_lock() -> Iterator[None]:
    """Serialises `npm ci` between processes (e.g. pytest-xdist workers), where possible."""
    try:
        import fcntl
    except ImportError:  # Windows: the per-process lock has to do.
        yield
        return
    key = hashlib.sha256(str(HERE).encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / f"heal-interop-npm-{key}.lock"
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _tools() -> tuple[str, str] | None:
    node = shutil.which("node")
    npm = shutil.which("npm")
    if node is None or npm is None:
        return None
    return node, npm


def ensure_node_modules() -> Path | None:
    """Makes sure ``tests/interop/node_modules`` matches ``package-lock.json``.

    Returns None when ``node`` or ``npm`` is not installed (callers should skip), else the
    ``node_modules`` folder, running ``npm ci`` first if it is missing or stale. Raises
    RuntimeError if ``npm ci`` fails. The result is cached for the process.
    """
    tools = _tools()
    if tools is None:
        return None
    _, npm = tools
    with _install_lock:
        if "node_modules" in _installed:
            return _installed["node_modules"]
        with _interprocess_lock():
            lock_hash = _lock_hash()
            if not _is_fresh(lock_hash):
                try:
                    proc = subprocess.run(
                        [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                        cwd=HERE,
                        capture_output=True,
                        text=True,
                        encoding="utf-8",
                        errors="replace",
                        timeout=NPM_CI_TIMEOUT_S,
                        check=False,
                    )
                except subprocess.TimeoutExpired as exc:
                    raise RuntimeError(
                        f"`npm ci` in {HERE} timed out after {NPM_CI_TIMEOUT_S:.0f} s"
                    ) from exc
                if proc.returncode != 0:
                    raise RuntimeError(
                        f"`npm ci` in {HERE} failed with exit code {proc.returncode}:\n"
                        f"{proc.stderr.strip() or proc.stdout.strip()}"
                    )
                MARKER.write_text(lock_hash + "\n", encoding="utf-8")
        _installed["node_modules"] = NODE_MODULES
        return NODE_MODULES


def judge(cases: Sequence[Mapping[str, Any]]) -> list[JudgeResult]:
    """Runs ``judge.mjs`` once for the whole batch and returns its results in order.

    Each case is ``{"id": ..., "target": Target, "messages": [...ModelMessage JSON...]}``,
    optionally with ``"model"`` (model id override) and ``"providerOptions"``.
    Raises RuntimeError if node is missing or the script itself fails.
    """
    if not cases:
        return []
    if ensure_node_modules() is None:
        raise RuntimeError("node and npm are needed to run the interop judge")
    tools = _tools()
    assert tools is not None
    node, _ = tools

    payload = json.dumps({"cases": list(cases)}, ensure_ascii=False)
    # Generous: startup takes well under a second and a case about a millisecond.
    timeout = 120.0 + 0.1 * len(cases)
    env = {**os.environ, "NODE_NO_WARNINGS": "1"}
    try:
        proc = subprocess.run(
            [node, str(JUDGE_SCRIPT)],
            cwd=HERE,
            input=payload,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=timeout,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise RuntimeError(f"judge.mjs timed out after {timeout:.0f} s") from exc
    if proc.returncode != 0:
        raise RuntimeError(
            f"judge.mjs failed with exit code {proc.returncode}:\n{proc.stderr.strip()}"
        )
    try:
        output = json.loads(proc.stdout)
    except json.JSONDecodeError as exc:
        raise RuntimeError(
            f"judge.mjs wrote invalid JSON ({exc}); stdout starts with "
            f"{proc.stdout[:500]!r}; stderr:\n{proc.stderr.strip()}"
        ) from exc
    results: list[JudgeResult] = output["results"]
    if len(results) != len(cases):
        raise RuntimeError(f"judge.mjs returned {len(results)} results for {len(cases)} cases")
    return results
