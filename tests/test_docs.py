"""The worked examples in ``docs/*.md`` run as pasted (as the README's do, in test_readme.py)."""

from __future__ import annotations

import contextlib
import io
import re
import textwrap
from pathlib import Path

import pytest

DOCS = sorted((Path(__file__).parent.parent / "docs").glob("*.md"))
BLOCKS = [
    pytest.param(code, id=f"{path.stem}-block{i}")
    for path in DOCS
    for i, code in enumerate(re.findall(r"```python\n(.*?)[ ]*```", path.read_text("utf-8"), re.S))
]


def test_the_docs_have_worked_examples() -> None:
    assert len(BLOCKS) >= 4


@pytest.mark.parametrize("code", BLOCKS)
def test_docs_block_runs(code: str) -> None:
    # Each block is a whole program: it asserts what it shows.
    with contextlib.redirect_stdout(io.StringIO()):
        # dedent: a block inside a list item is indented with it
        exec(compile(textwrap.dedent(code), "docs", "exec"), {"__name__": "docs"})
