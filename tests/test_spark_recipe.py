"""docs/spark.md's recipe runs as pasted in Spark's local mode and heals each row as heal_row does.

One ``local[2]`` session serves the module: Spark takes seconds to start. Spark needs a Java
runtime: locally the tests skip without one; in CI (``.ci/setup`` installs Debian's
``default-jre-headless``) they fail instead. tests/test_docs.py runs the same block as a module
(its ``__main__`` part does not run there), which needs ``pyspark`` but no Java.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks.corpus import corpus
from heal import dump_messages, heal_messages
from heal.migrate import heal_row

pytest.importorskip("pyspark")

DOC = Path(__file__).parent.parent / "docs" / "spark.md"
(RECIPE,) = re.findall(r"```python\n(.*?)```", DOC.read_text("utf-8"), re.S)


def _java() -> str | None:
    """The java Spark's launcher runs: ``$JAVA_HOME/bin/java``, else the one on PATH."""
    home = os.environ.get("JAVA_HOME")
    return shutil.which("java", path=os.path.join(home, "bin")) if home else shutil.which("java")


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    if _java() is None:
        if os.environ.get("CI"):
            pytest.fail("CI must run the Spark recipe, but no Java runtime is installed")
        pytest.skip(
            "no Java runtime (java on PATH or in $JAVA_HOME/bin), which Spark needs: "
            "apt-get install default-jre-headless (bash .ci/setup does, as root)"
        )
    from pyspark.sql import SparkSession

    with pytest.MonkeyPatch.context() as env:
        # The Python workers run this interpreter, so they heal with the heal under test.
        env.setenv("PYSPARK_PYTHON", sys.executable)
        session = (
            SparkSession.builder.master("local[2]")
            .appName("heal-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .getOrCreate()
        )
        session.sparkContext.setLogLevel("ERROR")
        try:
            yield session
        finally:
            session.stop()


def test_the_recipe_heals_a_parquet_table_as_pasted(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    histories = corpus(conversations=300, length=10, broken=0.6, seed=17)
    rows: list[tuple[int, str | None, str]] = [
        (i, json.dumps(h), f"user-{i % 7}") for i, h in enumerate(histories)
    ]
    unreadable = {300: "not json at all", 301: None}
    rows += [(i, text, "user-0") for i, text in unreadable.items()]
    source, target = tmp_path / "chats.parquet", tmp_path / "healed.parquet"
    schema = "id long, messages string, owner string"
    spark.createDataFrame(rows, schema).repartition(2).write.parquet(str(source))

    # The block as a program: spark-submit heal_table.py SOURCE TARGET (getOrCreate finds the
    # module's session, as spark-submit's would be found).
    monkeypatch.setattr(sys, "argv", ["heal_table.py", str(source), str(target)])
    exec(compile(RECIPE, str(DOC), "exec"), {"__name__": "__main__"})
    assert "2 rows left as they were" in capsys.readouterr().out

    out = {row.id: row for row in spark.read.parquet(str(target)).collect()}
    assert sorted(out) == [row[0] for row in rows]
    changed = 0
    for i, history in enumerate(histories):
        row = out[i]
        assert row.owner == f"user-{i % 7}" and row.error is None
        want = heal_messages(history, provider="anthropic", scope="history")
        assert json.loads(row.messages) == dump_messages(want.messages)
        assert json.loads(row.repairs) == [r.model_dump(mode="json") for r in want.repairs]
        if want.changed:
            changed += 1
        else:  # a history that needs nothing keeps its stored text, byte for byte
            assert row.messages == rows[i][1]
    assert 0 < changed < len(histories)
    for i, text in unreadable.items():
        # kept as it was, with the error migrate would report for it
        assert out[i].messages == text and out[i].repairs == "[]"
        # text is None for the NULL row on purpose: heal_row reports it as an error
        assert out[i].error == heal_row(None, text, provider="anthropic").error  # type: ignore[arg-type]
        assert out[i].error is not None


def test_heal_column_passes_every_option_and_heals_each_row_once(spark: Any) -> None:
    recipe: dict[str, Any] = {"__name__": "heal_table"}
    exec(compile(RECIPE, str(DOC), "exec"), recipe)
    calls = spark.sparkContext.accumulator(0)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.add(1)
        return heal_row(*args, **kwargs)

    # The UDF is pickled with the recipe's globals when the job runs, so the workers count.
    recipe["heal_row"] = counted
    histories = corpus(conversations=120, length=8, broken=0.6, seed=5, shape="reasoning")
    records = [json.dumps({"id": i, "messages": h}) for i, h in enumerate(histories)]
    df = spark.createDataFrame(list(enumerate(records)), "id long, record string")
    options: dict[str, Any] = {
        "provider": "openai-responses",
        "model": "gpt-5",
        "key": "messages",
        "scope": "request",
        "fmt": "ai-sdk",
    }

    out = recipe["heal_column"](df, "record", **options).collect()

    # once per row, not once per column the outcome is split into
    assert calls.value == len(records) == len(out)
    changed = 0
    for row in out:
        want = heal_row(row.id, records[row.id], **options)
        assert want.error is None and row.error is None
        assert row.record == (records[row.id] if want.healed is None else want.healed)
        assert json.loads(row.repairs) == list(want.repairs)
        changed += want.healed is not None
    assert changed > 0

    taken = spark.createDataFrame([(1, "[]", "mine")], "id long, messages string, error string")
    with pytest.raises(ValueError, match="'error'"):
        recipe["heal_column"](taken, "messages", provider="anthropic")
