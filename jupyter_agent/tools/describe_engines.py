"""Descriptions of Polars, PyArrow, DuckDB, Dask and PySpark frames that never compute the whole.

The schema comes from metadata. Sample rows (when the data policy shows values) come from the
engine's own ``head``/``limit``, and only when the plan lets the engine stop early: a scan with
row-wise steps reads one batch or partition; a sort, aggregation, join, window or cumulative step
would read everything first, so the description says so instead of taking rows. Null counts and
``describe()`` statistics are given for in-memory frames (Polars, Arrow), which hold them cheaply.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any

from jupyter_agent.tools.caps import human_size
from jupyter_agent.tools.data_policy import DataPolicy
from jupyter_agent.tools.engine_frames import ENGINE_NAMES, EngineKind, FrameFacts, dask_blocking_step, frame_facts
from jupyter_agent.tools.objects import table_cell

MAX_COLUMNS = 60
CELL_CHARS = 40
# Steps whose first rows depend on every row (matched in the engine's own plan text).
_POLARS_BLOCKING = ("SORT", "AGGREGATE", "JOIN", "UNIQUE", "GROUP_BY", "PIVOT", ".over(", "cum_", ".rank(", ".shift(")
_POLARS_COLUMN_AGGREGATES = (".sum()", ".mean()", ".min()", ".max()", ".std(", ".var(", ".median()", ".quantile(", ".n_unique()")
_DUCKDB_BLOCKING = ("top n", "order", "aggregate", "join", "window", "distinct", "group by", "union", "sample")
_SPARK_BLOCKING = ("Sort", "Aggregate", "Join", "Window", "Distinct", "Deduplicate", "Union", "Sample")

_ENGINE_ADVICE = {
    "polars_lazy": "Work with Polars expressions and collect only small results (.head(), .select(...).collect()).",
    "duckdb": "Query it with DuckDB (SQL or relation methods) and fetch only small results.",
    "dask": "Use Dask operations and .compute() only small results (aggregates, .head()); never convert the whole to pandas.",
    "dask_series": "Use Dask operations and .compute() only small results; never convert the whole to pandas.",
    "spark": "Use Spark operations (filter, groupBy, agg) and collect only small results; never toPandas() the whole.",
    "arrow_dataset": "Read it with dataset filters and projections (to_table(columns=..., filter=...)) or DuckDB/Polars.",
}


def describe_engine_frame(value: Any, kind: EngineKind, policy: DataPolicy, *, count_rows: bool = False) -> str:
    """``count_rows``: the model asked for the number, so the engine counts (the whole data, once)."""
    facts = frame_facts(value, kind)
    if count_rows and facts.rows is None:
        facts = replace(facts, rows=count_with_engine(value, kind))
    head = f"{ENGINE_NAMES[kind]}: {facts.shape_text()}"
    if facts.memory is not None:
        head += f", {human_size(facts.memory)}"
    lines = [head]
    nulls = _null_counts(value, kind)
    lines.append("columns (dtype" + (", nulls):" if nulls is not None else "):"))
    for position, (name, dtype) in enumerate(facts.columns[:MAX_COLUMNS]):
        null_text = f", {nulls[position]} nulls" if nulls is not None else ""
        lines.append(f"  {name}: {dtype}{null_text}")
    if len(facts.columns) > MAX_COLUMNS:
        rest = ", ".join(name for name, _ in facts.columns[MAX_COLUMNS : MAX_COLUMNS + 200])
        lines.append(f"  … {len(facts.columns) - MAX_COLUMNS} more columns: {rest}")
    if facts.rows is None:
        lines.append("rows: not counted (counting would compute the whole frame; use the engine if you need the number)")
    if not policy.shows_values:
        lines.append("[Data policy 'schema': no values or statistics are shown.]")
    elif policy.row_limit and facts.rows != 0:
        lines += _sample_lines(value, kind, facts, policy.row_limit)
    advice = _ENGINE_ADVICE.get(kind)
    if advice:
        lines.append(f"[{advice}]")
    return "\n".join(lines)


def count_with_engine(value: Any, kind: EngineKind) -> int:
    """The row count, computed by the engine itself (never by pulling rows into the kernel)."""
    if kind == "polars_lazy":
        return int(value.select(sys.modules["polars"].len()).collect().item())
    if kind == "duckdb":
        return int(value.aggregate("count(*)").fetchall()[0][0])
    if kind == "arrow_dataset":
        return int(value.count_rows())
    if kind in ("dask", "dask_series"):
        return int(value.map_partitions(len).compute().sum())
    return int(value.count())  # Spark


def _null_counts(value: Any, kind: EngineKind) -> list[int] | None:
    """Null counts where the engine keeps them with the data (validity bitmaps): no pass over values."""
    try:
        if kind == "polars":
            return [int(count) for count in value.null_count().row(0)]
        if kind in ("arrow_table", "arrow_batch"):
            return [int(column.null_count) for column in value.columns]
    except Exception:  # noqa: BLE001 - nulls are a nicety
        return None
    return None


def _sample_lines(value: Any, kind: EngineKind, facts: FrameFacts, limit: int) -> list[str]:
    blocker = _blocking_step(value, kind)
    if blocker:
        return [
            f"sample rows: not taken: the plan has a {blocker} step, so even its first rows would compute "
            "the whole frame. Take rows with python if that cost is acceptable."
        ]
    try:
        columns, rows, where = _take(value, kind, limit)
    except Exception as error:  # noqa: BLE001 - the engine's failure is the answer
        return [f"sample rows: the engine failed: {type(error).__name__}: {str(error)[:300]}"]
    return [f"first {len(rows)} rows ({where}):", render_rows(columns, rows)]


def _take(value: Any, kind: EngineKind, limit: int) -> tuple[list[str], list[tuple[Any, ...]], str]:
    if kind == "polars":
        frame = value.head(limit)
        return list(frame.columns), frame.rows(), "head"
    if kind == "polars_lazy":
        frame = value.head(limit).collect()
        return list(frame.columns), frame.rows(), "the engine's head: the scan stops after them"
    if kind in ("arrow_table", "arrow_batch"):
        part = value.slice(0, limit)
        return list(part.column_names), list(zip(*(column.to_pylist() for column in part.columns))), "slice"
    if kind == "arrow_dataset":
        part = value.head(limit)
        return list(part.column_names), list(zip(*(column.to_pylist() for column in part.columns))), "head of the first fragments"
    if kind == "duckdb":
        part = value.limit(limit)
        return [str(name) for name in part.columns], part.fetchall(), "LIMIT"
    if kind in ("dask", "dask_series"):
        frame = value.partitions[0].head(limit, compute=True)
        frame = frame.to_frame() if kind == "dask_series" else frame
        rows = list(frame.itertuples(index=False, name=None))
        return [str(name) for name in frame.columns], rows, "head of the first partition"
    rows = value.limit(limit).collect()
    return list(value.columns), [tuple(row) for row in rows], "LIMIT"


def _blocking_step(value: Any, kind: EngineKind) -> str | None:
    """The step that makes the first rows cost the whole frame, or ``None`` when the engine can stop early."""
    try:
        if kind == "polars_lazy":
            plan = value.head(1).explain()
            found = next((word for word in _POLARS_BLOCKING if word in plan), None)
            found = found or next((word for word in _POLARS_COLUMN_AGGREGATES if word in plan), None)
            return found.strip(".(_").lower() if found else None
        if kind == "duckdb":
            plan = value.limit(1).explain().lower()
            return next((word for word in _DUCKDB_BLOCKING if word in plan), None)
        if kind in ("dask", "dask_series"):
            return dask_blocking_step(value)
        if kind == "spark":
            jdf = getattr(value, "_jdf", None)
            if jdf is None:
                return "Spark Connect (plan not inspected)"
            plan = str(jdf.queryExecution().optimizedPlan().toString())
            return next((word.lower() for word in _SPARK_BLOCKING if word in plan), None)
    except Exception as error:  # noqa: BLE001 - a plan that cannot be read is not sampled
        return f"unreadable plan ({type(error).__name__})"
    return None


def render_rows(columns: list[str], rows: list[tuple[Any, ...]]) -> str:
    """A plain text table; cells go through ``table_cell`` (an object's own repr is user code)."""
    shown = columns[:MAX_COLUMNS]
    cells = [[_cell(item) for item in row[: len(shown)]] for row in rows]
    widths = [max([len(name)] + [len(row[index]) for row in cells]) for index, name in enumerate(shown)]
    lines = ["  ".join(name.ljust(width) for name, width in zip(shown, widths)).rstrip()]
    lines += ["  ".join(text.ljust(width) for text, width in zip(row, widths)).rstrip() for row in cells]
    return "\n".join(lines)


def _cell(value: Any) -> str:
    text = "null" if value is None else str(table_cell(value))
    text = " ".join(text.split())
    return text if len(text) <= CELL_CHARS else text[: CELL_CHARS - 1] + "…"
