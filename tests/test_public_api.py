"""The public API: exactly ``__all__``, all importable, and ``import heal`` stays light."""

from __future__ import annotations

import subprocess
import sys

import heal


def test_public_names_are_exactly_all() -> None:
    assert set(heal._HOMES) == set(heal.__all__)
    for name in heal.__all__:
        assert getattr(heal, name) is not None


def test_import_heal_imports_no_sdk_and_no_pydantic() -> None:
    code = (
        "import sys, heal; "
        "print(sorted(m for m in ('pydantic', 'openai', 'anthropic', 'google.genai', 'pydantic_ai', "
        "'langchain_core', 'sqlalchemy', 'dask', 'litellm') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_heal_messages_imports_no_sdk() -> None:
    code = (
        "import sys, heal; heal.heal_messages([]); "
        "print(sorted(m for m in ('openai', 'anthropic', 'google.genai', 'pydantic_ai', "
        "'langchain_core', 'sqlalchemy', 'dask', 'litellm') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
