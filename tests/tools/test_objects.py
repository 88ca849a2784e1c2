import numpy as np
import pandas as pd

from jupyter_agent.tools.objects import memory_bytes, safe_repr, scalar_text, shape_text, type_name, value_header


class Custom:
    def __sizeof__(self):
        raise AssertionError("user code ran")

    def __len__(self):
        raise AssertionError("user code ran")


def test_facts_of_known_types():
    assert shape_text(pd.DataFrame({"a": [1, 2]})) == "2 rows × 1 columns"
    assert shape_text(np.zeros((2, 3))) == "shape 2×3"
    assert shape_text([1, 2]) == "len 2"
    assert memory_bytes(np.zeros(10)) == 80
    assert type_name(pd.Series([1])) == "Series" and type_name(Custom()).endswith("Custom")


def test_a_value_is_introduced_by_its_name_type_and_shape_alone():
    assert value_header("sales", pd.DataFrame({"a": [1, 2]})) == "sales: DataFrame, 2 rows × 1 columns"
    assert value_header("rate", 0.25) == "rate: float"  # no shape, and never the value: the policy decides that
    assert value_header("x", Custom()) == f"x: {type_name(Custom())}"  # no user code for the shape


def test_unknown_objects_run_no_code():
    assert shape_text(Custom()) is None and memory_bytes(Custom()) is None


def test_scalars_and_safe_repr():
    assert scalar_text(3) == "3" and scalar_text(np.float64(1.5)) == "1.5"
    assert scalar_text(10**400) is None and scalar_text("x" * 100) is None
    assert safe_repr([1, "a", Custom()], 100).startswith("[1, 'a', <")
    assert safe_repr("abcdef", 3) == "'abc…'"
    assert safe_repr(list(range(100)), 1000, max_items=3) == "[0, 1, 2, … 97 more]"


class _Loud:
    calls = []

    @property
    def __class__(self):
        _Loud.calls.append("__class__")
        return dict

    @property
    def __dict__(self):
        _Loud.calls.append("__dict__")
        return {"fake": 1}

    def __repr__(self):
        _Loud.calls.append("__repr__")
        return "loud"


def test_type_checks_cells_and_dicts_run_no_user_code():
    import datetime

    from jupyter_agent.tools.objects import instance_dict, is_a, table_cell

    loud = _Loud()
    assert not is_a(loud, dict) and isinstance(loud, dict)  # isinstance trusts the property
    assert instance_dict(loud) is None
    name = f"<{_Loud.__module__}._Loud>"
    assert table_cell(loud) == name and table_cell([loud, 1]) == f"[{name}, 1]"
    assert table_cell("x") == "x" and table_cell(datetime.date(2024, 1, 2)) == datetime.date(2024, 1, 2)
    _Loud.calls.remove("__class__")  # the isinstance above
    assert _Loud.calls == []
