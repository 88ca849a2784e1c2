import numpy as np
import pandas as pd

from jupyter_agent.tools.data_policy import DataPolicy
from jupyter_agent.tools.describe_data import MAX_COLUMNS, describe_dataframe, describe_ndarray, describe_series

SAMPLE = DataPolicy("sample", 2)
SCHEMA = DataPolicy("schema")


def test_wide_frames_list_the_first_columns_and_name_the_rest():
    frame = pd.DataFrame(np.zeros((3, MAX_COLUMNS + 5)), columns=[f"c{i}" for i in range(MAX_COLUMNS + 5)])
    text = describe_dataframe(frame, SCHEMA)
    assert f"  c{MAX_COLUMNS - 1}: float64, 0 nulls" in text
    assert f"  … 5 more columns: c{MAX_COLUMNS}, " in text


def test_duplicate_column_names_and_empty_frames():
    frame = pd.DataFrame([[1, np.nan]], columns=["a", "a"])
    text = describe_dataframe(frame, SAMPLE)
    assert "  a: int64, 0 nulls\n  a: float64, 1 nulls" in text
    assert "first 1 rows:" in describe_dataframe(frame, SAMPLE)
    empty = describe_dataframe(pd.DataFrame({"x": []}), SAMPLE)
    assert empty.startswith("DataFrame: 0 rows × 1 columns") and "describe()" not in empty


def test_series_schema_has_no_values():
    text = describe_series(pd.Series(["secret-a", "secret-b"], name="s"), SCHEMA)
    assert "secret-" not in text and text.startswith("Series s: 2 rows, dtype ")


def test_arrays_all_nan_and_object_arrays():
    assert "min nan, max nan" in describe_ndarray(np.full(3, np.nan), SAMPLE)
    text = describe_ndarray(np.array([object(), object()]), SAMPLE)
    assert "Object array: elements are not printed" in text
    big = describe_ndarray(np.arange(1_000_000), SAMPLE)
    assert "..." in big and len(big) < 500


def test_object_cells_show_reprs_only_when_the_policy_allows():
    import pandas as pd

    class Shown:
        def __repr__(self):
            return "REPR-RAN"

    frame = pd.DataFrame({"thing": [Shown()], "n": [1]})
    assert "REPR-RAN" not in describe_dataframe(frame, DataPolicy())
    assert "REPR-RAN" in describe_dataframe(frame, DataPolicy(reprs=True))
