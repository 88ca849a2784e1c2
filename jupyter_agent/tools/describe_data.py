"""Descriptions of DataFrames, Series and arrays under a data policy.

Structure (shape, dtypes, nulls, memory) is always shown; statistics and rows only when the
policy shows values. Wide frames are described for their first columns only, which keeps a
1e6-row frame well under a second (describe() costs one pass per column).
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

from jupyter_agent.tools.caps import human_size
from jupyter_agent.tools.data_policy import DataPolicy

# Enough columns to understand a table; the rest are named in one line.
MAX_COLUMNS = 60
# describe() sorts each numeric column; a few dozen columns of 1e6 rows stay under a second.
MAX_DESCRIBED = 20
# A cell value longer than this is clipped in sample rows.
CELL_CHARS = 60


def describe_dataframe(frame: Any, policy: DataPolicy) -> str:
    rows, columns = frame.shape
    memory = int(frame.memory_usage(index=True, deep=False).sum())
    lines = [
        f"DataFrame: {rows} rows × {columns} columns, {human_size(memory)} (shallow)",
        f"index: {type(frame.index).__name__} ({frame.index.dtype})",
    ]
    head = frame.iloc[:, :MAX_COLUMNS]
    nulls = head.isna().sum()
    lines.append("columns (dtype, nulls):")
    for position, name in enumerate(head.columns):
        lines.append(f"  {name!s}: {head.dtypes.iloc[position]}, {int(nulls.iloc[position])} nulls")
    if columns > MAX_COLUMNS:
        rest = ", ".join(str(name) for name in frame.columns[MAX_COLUMNS : MAX_COLUMNS + 200])
        lines.append(f"  … {columns - MAX_COLUMNS} more columns: {rest}")
    if not policy.shows_values:
        lines.append("[Data policy 'schema': no values or statistics are shown.]")
        return "\n".join(lines)
    numeric = head.select_dtypes(include="number").iloc[:, :MAX_DESCRIBED]
    if numeric.shape[1] and rows:
        lines += ["describe():", numeric.describe().to_string()]
    if policy.row_limit and rows:
        shown = frame.head(policy.row_limit)
        lines.append(f"first {len(shown)} rows:")
        lines.append(shown.to_string(max_cols=MAX_COLUMNS, max_colwidth=CELL_CHARS))
    return "\n".join(lines)


def describe_series(series: Any, policy: DataPolicy) -> str:
    memory = int(series.memory_usage(index=True, deep=False))
    lines = [
        f"Series {series.name!s}: {len(series)} rows, dtype {series.dtype}, "
        f"{int(series.isna().sum())} nulls, {human_size(memory)} (shallow)",
        f"index: {type(series.index).__name__} ({series.index.dtype})",
    ]
    if not policy.shows_values:
        lines.append("[Data policy 'schema': no values or statistics are shown.]")
        return "\n".join(lines)
    numpy = sys.modules.get("numpy")
    if numpy is not None and numpy.issubdtype(series.dtype, numpy.number) and len(series):
        lines += ["describe():", series.describe().to_string()]
    if policy.row_limit and len(series):
        shown = series.head(policy.row_limit)
        lines += [f"first {len(shown)} values:", shown.to_string(max_rows=policy.row_limit)]
    return "\n".join(lines)


def describe_ndarray(array: Any, policy: DataPolicy) -> str:
    numpy = sys.modules["numpy"]
    shape = "×".join(str(size) for size in array.shape) or "scalar"
    lines = [f"ndarray: shape {shape}, dtype {array.dtype}, {human_size(int(array.nbytes))}"]
    if not policy.shows_values:
        lines.append("[Data policy 'schema': no values or statistics are shown.]")
        return "\n".join(lines)
    if array.size and numpy.issubdtype(array.dtype, numpy.number) and not numpy.issubdtype(array.dtype, numpy.complexfloating):
        # All-NaN arrays warn through the warnings module; the model only needs the numbers.
        with numpy.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            floating = numpy.issubdtype(array.dtype, numpy.floating)
            nans = int(numpy.isnan(array).sum()) if floating else 0
            low, high, mean = (numpy.nanmin(array).item(), numpy.nanmax(array).item(), numpy.nanmean(array).item())
            lines.append(f"min {low!r}, max {high!r}, mean {mean!r}, NaNs {nans}")
    if array.dtype.kind == "O":
        lines.append("[Object array: elements are not printed (their repr is user code); use python.]")
    elif policy.row_limit and array.size:
        # array2string summarizes big arrays itself (edge items only).
        edge = max(1, min(policy.row_limit, 50))
        text = numpy.array2string(array, threshold=edge * 2, edgeitems=edge, max_line_width=120)
        lines += ["values:", text]
    return "\n".join(lines)
