import pytest

from jupyter_agent.tools.data_policy import FULL_ROWS, DataPolicy


def test_row_limits():
    assert DataPolicy("schema", 5).row_limit == 0 and not DataPolicy("schema").shows_values
    assert DataPolicy("sample", 3).row_limit == 3
    assert DataPolicy("full", 3).row_limit == FULL_ROWS


def test_invalid_values_raise():
    with pytest.raises(ValueError, match="data_policy must be one of 'schema', 'sample', 'full', got 'all'"):
        DataPolicy("all")
    with pytest.raises(ValueError, match="sample_rows must be a non-negative integer, got -1"):
        DataPolicy("sample", -1)
    with pytest.raises(ValueError, match="sample_rows must be a non-negative integer"):
        DataPolicy("sample", True)
