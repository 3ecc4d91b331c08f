"""The Spark recipe (docs/spark.md) in local mode: which kind of UDF, and rows/s end to end.

    python -m benchmarks.spark [--rows 100000] [--compare-rows 20000] [--length 20] [--cores 2]

Needs ``pyspark`` (``heal-messages[spark]``) and a Java runtime. Two measurements, on the corpus
``benchmarks.migrate`` heals (20 messages a history, 10% broken), so the figures compare:

* the four ways to run Python over a column (plain pickled UDF, Arrow UDF, pandas UDF,
  ``rdd.mapPartitions``), on a cached DataFrame written to Spark's ``noop`` sink: once with a
  function that returns its row (what moving rows costs), once healing each row with ``heal_row``.
  The Arrow and pandas ways run only when ``pyarrow`` and ``pandas`` are installed;
* the recipe as pasted (``heal_table``: Parquet in, healed Parquet out), the figure to set beside
  ``python -m benchmarks.migrate``.

Each figure is the best of ``--repeat`` runs; the ways run in turn, so a burst of load elsewhere
on the machine does not fall on one way alone. Spark's start-up is not counted.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, cast

from benchmarks.corpus import corpus
from heal.migrate import heal_row

DOC = Path(__file__).resolve().parent.parent / "docs" / "spark.md"

Outcome = tuple[str | None, str, str | None]


def recipe() -> dict[str, Any]:
    """The namespace of docs/spark.md's code block, run as a module (its ``__main__`` part not)."""
    (code,) = re.findall(r"```python\n(.*?)```", DOC.read_text("utf-8"), re.S)
    namespace: dict[str, Any] = {"__name__": "heal_table"}
    exec(compile(code, str(DOC), "exec"), namespace)
    return namespace


def heal_one(stored: str) -> Outcome:
    outcome = heal_row(None, stored, provider="anthropic")
    healed = stored if outcome.healed is None else outcome.healed
    return healed, json.dumps(outcome.repairs), outcome.error


def move_one(stored: str) -> Outcome:
    return stored, "[]", None


def best_of(repeat: int, runs: dict[str, Callable[[], object]]) -> dict[str, float]:
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(repeat):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def ways(df: Any, fn: Callable[[str], Outcome]) -> dict[str, Callable[[], object]]:
    """One DataFrame action per way of running ``fn`` over ``df.messages``."""
    from pyspark.sql import Row
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    outcome = T.StructType(
        [T.StructField(f, T.StringType()) for f in ("healed", "repairs", "error")]
    )
    schema = "id long, messages string, healed string, repairs string, error string"

    def partitions(rows: Iterable[Row]) -> Iterator[tuple[Any, ...]]:
        for row in rows:
            yield (row.id, row.messages, *fn(row.messages))

    def sink(frame: Any) -> Callable[[], object]:
        return lambda: frame.write.mode("overwrite").format("noop").save()

    pickled = F.udf(fn, outcome, useArrow=False)
    runs = {
        "plain Python UDF": sink(df.withColumn("h", pickled("messages"))),
        "rdd.mapPartitions": sink(df.rdd.mapPartitions(partitions).toDF(schema)),
    }
    if importlib.util.find_spec("pyarrow") and importlib.util.find_spec("pandas"):
        from pyspark.sql.pandas.functions import pandas_udf

        pd = importlib.import_module("pandas")
        arrow = F.udf(fn, outcome, useArrow=True)

        def batch(series: Any) -> Any:
            return pd.DataFrame([fn(s) for s in series], columns=["healed", "repairs", "error"])

        # pandas_udf reads the kind of UDF from the hints; pandas is imported above, not at the
        # top, so that the module loads without it.
        batch.__annotations__ = {"series": pd.Series, "return": pd.DataFrame}
        vectorized = cast(Any, pandas_udf)(batch, outcome)
        runs["Arrow Python UDF"] = sink(df.withColumn("h", arrow("messages")))
        runs["pandas UDF"] = sink(df.withColumn("h", vectorized("messages")))
    return runs


def measure(spark: Any, tmp: str, args: argparse.Namespace) -> None:
    # Through a file, so that the rows reach the JVM as Spark reads them, not all through py4j.
    chats = Path(tmp) / "chats.jsonl"
    with chats.open("w") as f:
        for i, history in enumerate(corpus(args.rows, args.length, broken=0.1, seed=1)):
            f.write(json.dumps({"id": i, "messages": json.dumps(history)}) + "\n")
    rows = spark.read.schema("id long, messages string").json(str(chats))

    n = min(args.compare_rows, args.rows)
    df = rows.limit(n).repartition(args.cores).cache()
    df.count()
    print(f"local[{args.cores}], {n:,} rows x {args.length} messages, best of {args.repeat}")
    if not (importlib.util.find_spec("pyarrow") and importlib.util.find_spec("pandas")):
        print("  (Arrow and pandas UDFs skipped: pyarrow and pandas are not installed)")
    for label, fn in (("moving rows only", move_one), ("healing each row", heal_one)):
        for name, seconds in best_of(args.repeat, ways(df, fn)).items():
            print(f"  {label}: {name:18} {n / seconds:9,.0f} rows/s")
    df.unpersist()

    source = f"{tmp}/chats.parquet"
    rows.repartition(args.cores).write.parquet(source)
    heal_table = recipe()["heal_table"]
    start = time.perf_counter()
    failed = heal_table(spark, source, f"{tmp}/healed.parquet", "messages", provider="anthropic")
    seconds = time.perf_counter() - start
    print(
        f"recipe (Parquet in, heal_table, Parquet out): {args.rows:,} rows in {seconds:.1f} s"
        f" = {args.rows / seconds:,.0f} rows/s; {failed} failed"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=100_000, help="rows healed end to end")
    parser.add_argument("--compare-rows", type=int, default=20_000, help="rows per way")
    parser.add_argument("--length", type=int, default=20, help="messages per history")
    parser.add_argument("--cores", type=int, default=2, help="Spark's local[N]")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from pyspark.sql import SparkSession

    # The workers run this Python, so they heal with this heal (read when the session starts;
    # spark-submit sets it from spark.pyspark.python).
    os.environ["PYSPARK_PYTHON"] = sys.executable
    spark = (
        SparkSession.builder.master(f"local[{args.cores}]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            measure(spark, tmp, args)
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
