"""Build the optional compiled copy of heal: the same ``.py`` files, compiled by Cython.

    .venv/bin/python tools/build_compiled.py build/compiled
    PYTHONSAFEPATH=1 PYTHONPATH=$PWD/build/compiled .venv/bin/python -c "import heal"

The script copies ``heal/`` into ``TARGET/heal`` and compiles the copy there, so each extension
module sits beside its own ``.py`` file (Python prefers the extension; the ``.py`` stays for
tracebacks and reading). It never builds inside the source tree: an extension module left beside
a ``.py`` that someone edits later would silently shadow the edit.

Cython reads the modules as plain Python ("pure-Python mode"): nothing in ``heal/`` is written
for it, and the pure wheel stays what ``pip install`` gives. Two directives keep the compiled
build behaving like the pure one:

* ``annotation_typing=False``: Cython otherwise turns annotations such as ``x: bool`` or
  ``y: dict`` into C types and exact type checks, so a call the pure build accepts (a dict
  subclass, an int where a float is annotated) could fail or round differently, compiled. With
  it on, Cython also refuses ``del`` of a parameter annotated ``bool`` and emits C that does not
  compile for a ``dict_items`` annotation, so it is not an option here anyway.
* ``binding=True``: compiled functions keep their signature and introspection
  (``inspect.signature`` is used on heal's own functions).

Some modules stay pure Python (``PURE`` below, each with its reason): Cython turns functions into
its own function type, which is not ``types.FunctionType``, and libraries that look at a
callable's type then treat it differently. Pydantic rejects such a function as a method of a
model; pytest does not take it as a hook; pydantic-ai cannot read a history processor's
signature and calls it with the wrong arguments. After building, the script imports every module
of the copy in a fresh interpreter, so a new module of that kind fails here, by name, rather
than somewhere in the test suite.

Needs Cython, setuptools (both in the ``dev`` extra) and a C compiler.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]

#: File names never compiled, wherever they are in the package: ``__init__`` files only import
#: and re-export, and ``python -m heal`` runs ``__main__`` as source.
PURE_NAMES = frozenset({"__init__.py", "__main__.py"})

#: Paths inside the package left pure (a trailing slash: the whole folder), and why.
PURE = {
    "repairs.py": "pydantic models with methods: pydantic rejects a compiled method",
    "adapters/_common.py": "pydantic models with methods: pydantic rejects a compiled method",
    "pytest_plugin.py": "pytest does not register a compiled function as a hook",
    "integrations/": "glue handed to frameworks that inspect callables: pydantic-ai calls a "
    "compiled history processor without its context argument",
}

DIRECTIVES = {"language_level": 3, "binding": True, "annotation_typing": False}


def modules_to_compile(package: Path) -> list[Path]:
    """The package's modules Cython compiles, relative to the package's parent, sorted."""
    pure = tuple(PURE)
    return sorted(
        path.relative_to(package.parent)
        for path in package.rglob("*.py")
        if path.name not in PURE_NAMES
        and "__pycache__" not in path.parts
        and not path.relative_to(package).as_posix().startswith(pure)
    )


def copy_package(source: Path, target: Path) -> Path:
    """A fresh copy of the package directory ``source`` as ``target/<its name>``; returns it."""
    copy = target / source.name
    if copy.resolve() == source.resolve():
        raise SystemExit(f"refusing to build in the source tree itself: {copy}")
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(
        source, copy, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "*.c")
    )
    return copy


def compile_in_place(root: Path, modules: list[Path], jobs: int) -> None:
    """Cythonize ``modules`` (relative to ``root``) and build each extension beside its source.

    Cython names a module after its path, so this runs with ``root`` as the working directory;
    the generated C, the object files and setuptools' own build folder go to a temporary
    directory, so the copy ends up with nothing but its sources and the extension modules.
    """
    # Imported here so that --help and this module's helpers work without Cython installed;
    # through importlib because whether these two ship type information depends on their
    # version, and a `type: ignore` right for one version is an error for the other.
    cythonize: Any = importlib.import_module("Cython.Build").cythonize
    Distribution: Any = importlib.import_module("setuptools").Distribution

    previous = Path.cwd()
    os.chdir(root)
    try:
        with tempfile.TemporaryDirectory(prefix="heal-cython-") as scratch:
            extensions = cythonize(
                [str(module) for module in modules],
                compiler_directives=DIRECTIVES,
                build_dir=str(Path(scratch) / "c"),
                nthreads=jobs,
                quiet=True,
            )
            if os.name == "posix":
                # Python's own flags ask for debug information (-g): for generated C it costs
                # about a third of the compile time and four times the size, and helps nobody.
                # GCC 12 also warns of out-of-bounds reads in Cython's comparison helpers once
                # they are inlined beside a comparison with None (branches never taken): ten
                # warnings and a hundred lines of CI log, about code nobody here writes.
                for extension in extensions:
                    extension.extra_compile_args += ["-g0", "-Wno-array-bounds"]
            distribution = Distribution(
                {
                    "name": "heal-compiled",
                    "ext_modules": extensions,
                    "script_args": [
                        "--quiet",
                        "build_ext",
                        "--inplace",
                        "--parallel",
                        str(jobs),
                        "--build-temp",
                        str(Path(scratch) / "temp"),
                        "--build-lib",
                        str(Path(scratch) / "lib"),
                    ],
                }
            )
            distribution.parse_command_line()
            distribution.run_commands()
    finally:
        os.chdir(previous)


def missing_extensions(root: Path, modules: list[Path]) -> list[Path]:
    """The modules for which no extension module was built (empty when the build is complete)."""
    return [
        module
        for module in modules
        if not any((root / module).with_suffix(suffix).exists() for suffix in EXTENSION_SUFFIXES)
    ]


IMPORT_EVERY_MODULE = """
import importlib, pkgutil, heal
for info in pkgutil.walk_packages(heal.__path__, "heal."):
    importlib.import_module(info.name)
print(heal.__file__)
"""


def check_imports(root: Path) -> str | None:
    """Import every module of the copy under ``root`` in a fresh interpreter; the error, if any.

    ``PYTHONSAFEPATH`` keeps the working directory (perhaps a checkout with the pure ``heal/``)
    off the import path, so the copy is what gets imported.
    """
    env = {**os.environ, "PYTHONSAFEPATH": "1", "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_EVERY_MODULE],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        return done.stderr.strip()
    loaded = Path(done.stdout.strip()).resolve()
    if loaded != (root / "heal" / "__init__.py").resolve():
        return f"`import heal` loaded {loaded}, not the copy (Python < 3.11 ignores PYTHONSAFEPATH)"
    return None


def main(argv: list[str] | None = None) -> int:
    """Copy, compile, check; exit status 1 when a module did not compile or import."""
    parser = argparse.ArgumentParser(
        description="Compile a copy of heal with Cython into TARGET/heal (never in place).",
    )
    parser.add_argument("target", type=Path, help="directory that receives the compiled heal/")
    parser.add_argument(
        "--source",
        type=Path,
        default=REPO / "heal",
        help="the heal package to copy (default: %(default)s)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="parallel compilations (default: the number of CPUs)",
    )
    args = parser.parse_args(argv)

    start = time.perf_counter()
    target = args.target.resolve()
    target.mkdir(parents=True, exist_ok=True)
    package = copy_package(args.source.resolve(), target)
    modules = modules_to_compile(package)
    compile_in_place(target, modules, args.jobs)
    missing = missing_extensions(target, modules)
    if missing:
        print("not compiled: " + ", ".join(map(str, missing)), file=sys.stderr)
        return 1
    error = check_imports(target)
    if error is not None:
        print(
            f"the compiled copy does not import:\n{error}\n"
            "(a module Cython breaks belongs in PURE in tools/build_compiled.py, with its reason)",
            file=sys.stderr,
        )
        return 1
    seconds = time.perf_counter() - start
    print(f"compiled {len(modules)} modules into {package} in {seconds:.0f} s ({args.jobs} jobs)")
    print(f"use it with: PYTHONSAFEPATH=1 PYTHONPATH={target} python ...")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
