"""Which build of heal the suite is testing, and the compiled build's script (tools/).

The suite runs on the source tree; to test the compiled build, run it again on the copy
``tools/build_compiled.py`` compiles with Cython, with ``HEAL_EXPECT_COMPILED=1`` (the README's
"Compiled build" section; ``.ci/run`` does so after the usual run). Without these checks that
run could silently test the pure files again (the copy missing from the import path, or a module
left uncompiled), and the usual one could silently test a stale extension module left beside a
``.py`` in the source tree, which Python would import instead of the edited source.
"""

from __future__ import annotations

import importlib.util
import os
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from types import ModuleType

import pytest

import heal
import heal._engine

TOOL = Path(__file__).resolve().parents[1] / "tools" / "build_compiled.py"
PACKAGE = Path(heal.__file__).resolve().parent
EXPECT_COMPILED = os.environ.get("HEAL_EXPECT_COMPILED") == "1"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_compiled", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _is_extension(path: str | Path) -> bool:
    return str(path).endswith(tuple(EXTENSION_SUFFIXES))


def _extensions_under(package: Path) -> set[Path]:
    """The modules (as .py paths relative to the package's parent) that have an extension."""
    # Longest first: ".cpython-311-x86_64-linux-gnu.so" also ends with ".so".
    suffixes = sorted(EXTENSION_SUFFIXES, key=len, reverse=True)
    found = set()
    for path in package.rglob("*"):
        suffix = next((s for s in suffixes if path.name.endswith(s)), None)
        if suffix is not None:
            module = path.with_name(path.name[: -len(suffix)] + ".py")
            found.add(module.relative_to(package.parent))
    return found


def test_the_build_under_test_is_the_expected_one() -> None:
    loaded = heal._engine.__file__
    assert _is_extension(loaded) == EXPECT_COMPILED, (
        f"heal._engine was imported from {loaded}; HEAL_EXPECT_COMPILED="
        f"{os.environ.get('HEAL_EXPECT_COMPILED')!r}"
    )


def test_exactly_the_declared_modules_are_compiled() -> None:
    expected = set(_tool().modules_to_compile(PACKAGE)) if EXPECT_COMPILED else set()
    assert _extensions_under(PACKAGE) == expected


def test_the_tool_compiles_the_engine_and_rules_and_leaves_the_declared_modules_pure() -> None:
    tool = _tool()
    chosen = {path.as_posix() for path in tool.modules_to_compile(PACKAGE)}
    assert {"heal/_engine.py", "heal/rules/_index.py", "heal/messages.py"} <= chosen
    assert not any(path.endswith(("/__init__.py", "/__main__.py")) for path in chosen)
    for pure in tool.PURE:
        assert (PACKAGE / pure).exists(), f"PURE names {pure}, which heal no longer has"
        assert not any(path.startswith(f"heal/{pure}") for path in chosen)


def test_the_tool_never_builds_over_its_source(tmp_path: Path) -> None:
    source = tmp_path / "heal"
    source.mkdir()
    (source / "kept.py").write_text("x = 1\n")
    with pytest.raises(SystemExit, match="refusing"):
        _tool().copy_package(source, tmp_path)
    assert (source / "kept.py").read_text() == "x = 1\n"


def test_the_copy_leaves_caches_and_old_builds_behind(tmp_path: Path) -> None:
    source = tmp_path / "src" / "heal"
    (source / "__pycache__").mkdir(parents=True)
    (source / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"")
    (source / "a.py").write_text("x = 1\n")
    (source / f"a{EXTENSION_SUFFIXES[0]}").write_bytes(b"stale")
    (source / "a.c").write_text("/* stale */\n")
    target = tmp_path / "out"
    (target / "heal").mkdir(parents=True)
    (target / "heal" / "old.py").write_text("gone\n")

    copy = _tool().copy_package(source, target)

    assert copy == target / "heal"
    assert sorted(p.name for p in copy.iterdir()) == ["a.py"]
