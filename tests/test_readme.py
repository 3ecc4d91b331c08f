"""The README's Python examples run as pasted, and print what the README says they print."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

README = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_block_runs(code: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    after = README.split(code, 1)[1]
    printed = re.match(r"\s*It prints:\s*```\n(.*?)```", after, re.S)
    if printed:
        assert out.getvalue() == printed.group(1)


SHELL_BLOCKS = [
    b for b in re.findall(r"```bash\n(.*?)```", README, re.S) if b.startswith("# try it:")
]


@pytest.mark.parametrize(
    "script", SHELL_BLOCKS, ids=[f"shell{i}" for i in range(len(SHELL_BLOCKS))]
)
def test_readme_shell_block_runs(script: str, tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        ["bash", "-e", "-c", script.replace("python3 ", f"{sys.executable} ")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
