"""variables, inspect and @mentions on Polars, PyArrow, DuckDB and Dask frames: schema from metadata,
rows from at most one partition or batch, never the whole computed.

The Dask and Polars frames here are built from partitions (batches) that record each computation,
so a test sees exactly how much of the data a description touched.
"""

import pytest

from jupyter_agent.notebook.mentions import expand_mentions
from jupyter_agent.tools.data_policy import DataPolicy

pytestmark = pytest.mark.anyio

PARTITIONS = 100


@pytest.fixture
def dask_frame():
    """A 100-partition Dask frame whose partitions append their index to ``computed`` when built."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("dask.dataframe")
    import dask
    import dask.dataframe as dd

    computed = []

    def partition(index):
        computed.append(index)
        return pd.DataFrame({"x": range(index * 10, index * 10 + 10), "label": [f"p{index}"] * 10})

    meta = pd.DataFrame({"x": pd.Series([], dtype="int64"), "label": pd.Series([], dtype="object")})
    with dask.config.set(scheduler="synchronous"):
        yield dd.from_map(partition, range(PARTITIONS), meta=meta), computed


@pytest.fixture
def polars_lazy():
    """A lazy frame over a Python source of 100 batches; ``computed`` lists the batches produced."""
    pl = pytest.importorskip("polars")
    from polars.io.plugins import register_io_source

    computed = []

    def source(with_columns, predicate, n_rows, batch_size):
        for index in range(PARTITIONS):
            computed.append(index)
            batch = pl.DataFrame({"x": range(index * 10, index * 10 + 10), "label": [f"b{index}"] * 10})
            if n_rows is not None:
                batch = batch.head(n_rows)
                n_rows -= batch.height
            yield batch
            if n_rows is not None and n_rows <= 0:
                return

    return register_io_source(source, schema={"x": pl.Int64, "label": pl.String}), computed


async def test_dask_variables_and_inspect_compute_at_most_one_partition(kernel, shell, dask_frame):
    frame, computed = dask_frame
    shell.user_ns["ddf"] = frame
    listing = await kernel.text("variables")
    assert "ddf: dask.dataframe.dask_expr._collection.DataFrame, 2 columns, rows not counted, 100 partitions, lazy" in listing
    assert computed == []  # the listing reads metadata only
    text = await kernel.text("inspect", name="ddf")
    assert computed == [0]
    assert "Dask DataFrame: 2 columns, rows not counted, 100 partitions, lazy" in text
    assert "  x: int64" in text and "label" in text
    assert "first 5 rows (head of the first partition):" in text
    assert "0  p0" in text and "4  p0" in text
    assert "never convert the whole to pandas" in text


async def test_a_dask_sort_is_described_without_computing_anything(kernel, shell, dask_frame):
    frame, computed = dask_frame
    shell.user_ns["ordered"] = frame.sort_values("x")
    listing = await kernel.text("variables")
    text = await kernel.text("inspect", name="ordered")
    # Even the partition count of a sort is computed (its divisions): neither tool asks for it.
    assert computed == []
    assert "ordered: dask.dataframe.dask_expr._collection.DataFrame, 2 columns, rows not counted, lazy" in listing
    assert "sample rows: not taken: the plan has a SortValues step" in text


async def test_a_dask_series_shows_the_head_of_its_first_partition(kernel, shell, dask_frame):
    frame, computed = dask_frame
    shell.user_ns["shifted"] = frame.x + 1
    text = await kernel.text("inspect", name="shifted")
    assert computed == [0]
    assert "Dask Series: rows not counted, 100 partitions, lazy" in text
    assert "\n1\n2\n3\n4\n5" in text


async def test_polars_lazy_variables_and_inspect_read_at_most_one_batch(kernel, shell, polars_lazy):
    lazy, computed = polars_lazy
    shell.user_ns["lf"] = lazy
    listing = await kernel.text("variables")
    assert "lf: polars.lazyframe.frame.LazyFrame, 2 columns, rows not counted, lazy" in listing
    assert computed == []
    text = await kernel.text("inspect", name="lf")
    assert computed == [0]
    assert "Polars LazyFrame: 2 columns, rows not counted, lazy" in text
    assert "  x: Int64\n  label: String" in text
    assert "first 5 rows (the engine's head: the scan stops after them):" in text
    assert "4  b0" in text


async def test_a_polars_sort_or_aggregate_takes_no_rows(kernel, shell, polars_lazy):
    pl = pytest.importorskip("polars")
    lazy, computed = polars_lazy
    shell.user_ns["by_x"] = lazy.sort("x", descending=True)
    shell.user_ns["totals"] = lazy.group_by("label").agg(pl.col("x").sum())
    assert "not taken: the plan has a sort step" in await kernel.text("inspect", name="by_x")
    assert "not taken: the plan has a aggregate step" in await kernel.text("inspect", name="totals")
    assert computed == []


async def test_polars_eager_frame_with_rows_nulls_and_size(kernel, shell):
    pl = pytest.importorskip("polars")
    shell.user_ns["pdf"] = pl.DataFrame({"a": [1, None, 3], "b": ["x", "y", None]})
    text = await kernel.text("inspect", name="pdf")
    assert text.startswith("pdf: Polars DataFrame: 3 rows × 2 columns, ")
    assert "  a: Int64, 1 nulls\n  b: String, 1 nulls" in text
    assert "first 3 rows (head):\na     b\n1     x\nnull  y\n3     null" in text
    assert "pdf: polars.dataframe.frame.DataFrame, 3 rows × 2 columns, 27 B" in await kernel.text("variables")


async def test_pyarrow_table_from_its_schema(kernel_with, shell):
    pa = pytest.importorskip("pyarrow")
    shell.user_ns["table"] = pa.table({"a": [1, None, 3], "b": ["x", "y", None]})
    schema_only = kernel_with(data_policy="schema")
    text = await schema_only.text("inspect", name="table")
    assert text == (
        "table: PyArrow Table: 3 rows × 2 columns, 40 B\ncolumns (dtype, nulls):\n  a: int64, 1 nulls\n  b: string, 1 nulls\n"
        "[Data policy 'schema': no values or statistics are shown.]"
    )
    sampled = await kernel_with().text("inspect", name="table")
    assert "first 3 rows (slice):\na     b\n1     x\nnull  y\n3     null" in sampled


async def test_duckdb_relation_from_its_schema_and_a_limit(kernel_with, shell):
    duckdb = pytest.importorskip("duckdb")
    connection = duckdb.connect()
    calls = []

    def counted(value: int) -> int:
        calls.append(value)
        return value * 2

    connection.create_function("counted", counted)
    # Ten million rows through a Python function: the LIMIT must stop DuckDB after the first vectors.
    shell.user_ns["rel"] = connection.sql("select range as i, counted(range) as doubled from range(10000000)")
    schema_text = await kernel_with(data_policy="schema").text("inspect", name="rel")
    assert calls == []
    assert schema_text == (
        "rel: DuckDB relation: 2 columns, rows not counted, lazy\ncolumns (dtype):\n  i: BIGINT\n  doubled: BIGINT\n"
        "rows: not counted (counting would compute the whole frame; use the engine if you need the number)\n"
        "[Data policy 'schema': no values or statistics are shown.]\n"
        "[Query it with DuckDB (SQL or relation methods) and fetch only small results.]"
    )
    sampled = await kernel_with().text("inspect", name="rel")
    assert "first 5 rows (LIMIT):\ni  doubled\n0  0\n1  2" in sampled
    assert 0 < len(calls) < 100_000
    shell.user_ns["ordered"] = connection.sql("select * from range(10) order by range desc")
    assert "not taken: the plan has a top n step" in await kernel_with().text("inspect", name="ordered")


async def test_mentions_attach_a_lazy_frame_without_computing_it(shell, dask_frame):
    frame, computed = dask_frame
    text = expand_mentions("what is in @ddf?", {"ddf": frame}, None, DataPolicy())
    assert "@ddf:\nddf: Dask DataFrame: 2 columns, rows not counted, 100 partitions, lazy" in text
    assert computed == [0]


def test_engines_are_not_imported_to_recognise_them():
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from jupyter_agent.tools.inspect_tool import describe\n"
        "from jupyter_agent.tools.variables import describe_variable\n"
        "from jupyter_agent.tools.data_policy import DataPolicy\n"
        "describe('x', [1, 2], DataPolicy()); describe_variable('x', object(), DataPolicy())\n"
        "print(sorted(name for name in ('polars', 'pyarrow', 'duckdb', 'dask', 'pyspark') if name in sys.modules))\n"
    )
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert found.stdout.strip() == "[]"


def _spark_or_skip():
    import shutil

    if shutil.which("java") is None:
        pytest.skip("PySpark test skipped: no Java runtime on PATH (Debian: apt-get install default-jre-headless)")
    try:
        import pyspark  # noqa: F401
    except ImportError:
        pytest.skip("PySpark test skipped: pyspark is not installed (not in the test extra: a JVM start costs about a minute)")
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master("local[1]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )


async def test_pyspark_frame_runs_one_task_for_its_rows(kernel, shell):
    spark = _spark_or_skip()
    try:
        context = spark.sparkContext
        frame = spark.range(0, 1000, numPartitions=10).selectExpr("id", "cast(id as string) as s")
        shell.user_ns["sdf"] = frame
        shell.user_ns["sorted_sdf"] = frame.orderBy("id")
        context.setJobGroup("describe", "variables and inspect")
        listing = await kernel.text("variables")
        text = await kernel.text("inspect", name="sdf")
        sorted_text = await kernel.text("inspect", name="sorted_sdf")
        tracker = context.statusTracker()
        tasks = [
            tracker.getStageInfo(stage).numTasks
            for job in tracker.getJobIdsForGroup("describe")
            for stage in tracker.getJobInfo(job).stageIds
        ]
        assert sum(tasks) == 1  # one partition of ten, for the sample rows of sdf only
        assert "sdf: pyspark.sql.classic.dataframe.DataFrame, 2 columns, rows not counted, lazy" in listing
        assert "PySpark DataFrame: 2 columns, rows not counted, lazy\ncolumns (dtype):\n  id: bigint\n  s: string" in text
        assert "first 5 rows (LIMIT):\nid  s\n0   0" in text
        assert "not taken: the plan has a sort step" in sorted_text
    finally:
        spark.stop()


async def test_rows_are_counted_by_the_engine_when_asked(kernel, shell, dask_frame, polars_lazy):
    duckdb = pytest.importorskip("duckdb")
    frame, computed = dask_frame
    lazy, batches = polars_lazy
    shell.user_ns.update(ddf=frame, lf=lazy, rel=duckdb.sql("select * from range(12345)"))
    text = await kernel.text("inspect", name="ddf", count_rows=True)
    assert "Dask DataFrame: 1000 rows × 2 columns, 100 partitions, lazy" in text and "not counted" not in text
    assert sorted(set(computed)) == list(range(PARTITIONS))  # asked for: the engine goes over all of it
    assert "Polars LazyFrame: 1000 rows × 2 columns, lazy" in await kernel.text("inspect", name="lf", count_rows=True)
    assert "DuckDB relation: 12345 rows × 1 columns, lazy" in await kernel.text("inspect", name="rel", count_rows=True)
