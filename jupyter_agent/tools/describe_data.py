"""Descriptions of DataFrames, Series and arrays under a data policy.

Structure (shape, dtypes, nulls, memory) is always shown; statistics and rows only when the
policy shows values. Wide frames are described for their first columns only, which keeps a
1e6-row frame well under a second (describe() costs one pass per column). Sample rows never run
user code: cells, labels and index values of object columns are shown through ``table_cell``
(a user object's ``__repr__`` could have effects) unless the policy allows reprs.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

from jupyter_agent.tools.caps import human_size
from jupyter_agent.tools.data_policy import DataPolicy
from jupyter_agent.tools.objects import table_cell

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
        lines.append(f"  {_label(name)}: {head.dtypes.iloc[position]}, {int(nulls.iloc[position])} nulls")
    if columns > MAX_COLUMNS:
        rest = ", ".join(_label(name) for name in frame.columns[MAX_COLUMNS : MAX_COLUMNS + 200])
        lines.append(f"  … {columns - MAX_COLUMNS} more columns: {rest}")
    if not policy.shows_values:
        lines.append("[Data policy 'schema': no values or statistics are shown.]")
        return "\n".join(lines)
    numeric = head.select_dtypes(include="number").iloc[:, :MAX_DESCRIBED]
    if numeric.shape[1] and rows:
        lines += ["describe():", numeric.describe().to_string()]
    if policy.row_limit and rows:
        shown = frame.head(policy.row_limit)
        shown = shown if policy.reprs else _plain_frame(shown)
        lines.append(f"first {len(shown)} rows:")
        lines.append(shown.to_string(max_cols=MAX_COLUMNS, max_colwidth=CELL_CHARS))
    return "\n".join(lines)


def describe_series(series: Any, policy: DataPolicy) -> str:
    memory = int(series.memory_usage(index=True, deep=False))
    lines = [
        f"Series {_label(series.name)}: {len(series)} rows, dtype {series.dtype}, "
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
        shown = shown if policy.reprs else _plain_series(shown)
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


def _label(name: Any) -> str:
    return str(table_cell(name))


def _user_objects(dtype: Any) -> bool:
    """Object columns, and categoricals of objects, hold values whose repr may be user code."""
    if dtype.kind == "O":
        return True
    categories = getattr(dtype, "categories", None)
    return categories is not None and categories.dtype.kind == "O"


def _plain_index(index: Any) -> Any:
    return index.map(table_cell) if _user_objects(index.dtype) else index


def _plain_series(series: Any) -> Any:
    series = series.copy()
    if _user_objects(series.dtype):
        series = series.astype(object).map(table_cell)
    series.index = _plain_index(series.index)
    series.name = None if series.name is None else _label(series.name)
    return series


def _plain_frame(frame: Any) -> Any:
    """A copy of the (few) rows to show, with every user object replaced by its type name."""
    frame = frame.copy()
    for position in range(frame.shape[1]):
        if _user_objects(frame.dtypes.iloc[position]):
            frame.isetitem(position, frame.iloc[:, position].astype(object).map(table_cell))
    frame.index = _plain_index(frame.index)
    frame.columns = _plain_index(frame.columns)
    return frame
