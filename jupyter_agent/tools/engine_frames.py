"""Which engine a frame belongs to, and the facts about it that cost nothing: Polars (eager and lazy),
PyArrow tables, DuckDB relations, Dask and PySpark DataFrames.

An engine is recognised only if its module is already imported (``sys.modules``): the tools never
import Polars, Dask or Spark to check, and a kernel without them pays nothing. Everything here
reads metadata (schema, partition counts, in-memory sizes); nothing runs a query. Row counts are
given only where the engine holds them (an eager Polars frame, an Arrow table): counting a lazy
or distributed frame would compute it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Literal

EngineKind = Literal[
    "polars", "polars_lazy", "arrow_table", "arrow_batch", "arrow_dataset", "duckdb", "dask", "dask_series", "spark"
]

# (module that must be imported, module of the class, class name) -> kind. Spark Connect frames
# have the same API as classic ones.
_CLASSES: tuple[tuple[str, str, str, EngineKind], ...] = (
    ("polars", "polars.dataframe.frame", "DataFrame", "polars"),
    ("polars", "polars.lazyframe.frame", "LazyFrame", "polars_lazy"),
    ("pyarrow", "pyarrow.lib", "Table", "arrow_table"),
    ("pyarrow", "pyarrow.lib", "RecordBatch", "arrow_batch"),
    ("pyarrow.dataset", "pyarrow._dataset", "Dataset", "arrow_dataset"),
    ("duckdb", "duckdb", "DuckDBPyRelation", "duckdb"),
    ("duckdb", "duckdb._relation", "DuckDBPyRelation", "duckdb"),
    ("duckdb", "duckdb.duckdb", "DuckDBPyRelation", "duckdb"),
    ("dask.dataframe", "dask.dataframe.dask_expr._collection", "DataFrame", "dask"),
    ("dask.dataframe", "dask.dataframe.dask_expr._collection", "Series", "dask_series"),
    ("pyspark", "pyspark.sql.dataframe", "DataFrame", "spark"),
    ("pyspark", "pyspark.sql.connect.dataframe", "DataFrame", "spark"),
)
LAZY_KINDS = frozenset({"polars_lazy", "arrow_dataset", "duckdb", "dask", "dask_series", "spark"})
ENGINE_NAMES: dict[EngineKind, str] = {
    "polars": "Polars DataFrame",
    "polars_lazy": "Polars LazyFrame",
    "arrow_table": "PyArrow Table",
    "arrow_batch": "PyArrow RecordBatch",
    "arrow_dataset": "PyArrow Dataset",
    "duckdb": "DuckDB relation",
    "dask": "Dask DataFrame",
    "dask_series": "Dask Series",
    "spark": "PySpark DataFrame",
}


def engine_kind(value: Any) -> EngineKind | None:
    """The engine of ``value`` from its class's MRO (no attribute of the object is read)."""
    mro = type.__dict__["__mro__"].__get__(type(value))
    for required, module, name, kind in _CLASSES:
        if required not in sys.modules:
            continue
        for klass in mro:
            if klass.__name__ == name and klass.__module__ == module:
                return kind
    return None


@dataclass(frozen=True)
class FrameFacts:
    kind: EngineKind
    columns: list[tuple[str, str]]  # (name, dtype) from the schema
    rows: int | None  # None: not known without computing
    memory: int | None = None  # bytes the engine holds in memory, when it knows
    partitions: int | None = None

    @property
    def lazy(self) -> bool:
        return self.kind in LAZY_KINDS

    def shape_text(self) -> str:
        if self.rows is not None:
            parts = [f"{self.rows} rows × {len(self.columns)} columns"]
        elif self.kind == "dask_series":
            parts = ["rows not counted"]
        else:
            parts = [f"{len(self.columns)} columns", "rows not counted"]
        if self.partitions is not None:
            parts.append(f"{self.partitions} partitions")
        if self.lazy:
            parts.append("lazy")
        return ", ".join(parts)


def frame_facts(value: Any, kind: EngineKind) -> FrameFacts:
    """Schema, and counts only where they are metadata. May raise what the engine raises."""
    if kind == "polars":
        return FrameFacts(kind, _pairs(value.schema), value.height, int(value.estimated_size()))
    if kind == "polars_lazy":
        # Resolving the schema plans the query (a scan reads file metadata), it reads no rows.
        return FrameFacts(kind, _pairs(value.collect_schema()), None)
    if kind in ("arrow_table", "arrow_batch"):
        columns = [(field.name, str(field.type)) for field in value.schema]
        return FrameFacts(kind, columns, value.num_rows, int(value.nbytes))
    if kind == "arrow_dataset":
        return FrameFacts(kind, [(field.name, str(field.type)) for field in value.schema], None)
    if kind == "duckdb":
        return FrameFacts(kind, [(str(name), str(dtype)) for name, dtype in zip(value.columns, value.types)], None)
    if kind == "dask":
        columns = [(str(name), str(dtype)) for name, dtype in value.dtypes.items()]
        return FrameFacts(kind, columns, None, None, dask_partitions(value))
    if kind == "dask_series":
        return FrameFacts(kind, [(str(value.name), str(value.dtype))], None, None, dask_partitions(value))
    return FrameFacts(kind, [(field.name, field.dataType.simpleString()) for field in value.schema.fields], None)


def dask_blocking_step(value: Any) -> str | None:
    """The first expression that is not partition-wise (a shuffle, reduction or cumulative step),
    read from the expression tree: lowering it (``npartitions``, the graph) may compute, as a sort
    computes its divisions."""
    module = sys.modules.get("dask.dataframe.dask_expr._expr")
    if module is None:
        return "expression of an unknown Dask version"
    for node in value.expr.walk():
        if not isinstance(node, module.Blockwise):
            return type(node).__name__
    return None


def dask_partitions(value: Any) -> int | None:
    """The partition count when it is known without computing (partition-wise plans only)."""
    return None if dask_blocking_step(value) else int(value.npartitions)


def _pairs(schema: Any) -> list[tuple[str, str]]:
    return [(str(name), str(dtype)) for name, dtype in schema.items()]


def engine_shape_text(value: Any) -> str | None:
    """For ``variables``: the frame's shape from metadata; ``None`` for anything else."""
    kind = engine_kind(value)
    if kind is None:
        return None
    try:
        return frame_facts(value, kind).shape_text()
    except Exception:  # noqa: BLE001 - a broken plan must not break the listing
        return "schema unavailable"


def engine_memory(value: Any) -> int | None:
    """In-memory frames' sizes; ``None`` for lazy ones (their size is the data's, not known)."""
    kind = engine_kind(value)
    if kind not in ("polars", "arrow_table", "arrow_batch"):
        return None
    try:
        return frame_facts(value, kind).memory
    except Exception:  # noqa: BLE001
        return None
