import numpy as np
import pandas as pd
import pytest

pytestmark = pytest.mark.anyio

SECRET = "zq-unique-secret-7731"
NUMERIC_SECRET = 98765.4321


@pytest.fixture
def big_frame(shell):
    frame = pd.DataFrame(
        {
            "id": np.arange(1_000_000),
            "value": np.linspace(0.0, 1.0, 1_000_000),
            "label": pd.Series(["plain"] * 1_000_000, dtype=object),
        }
    )
    frame.loc[3, "label"] = SECRET
    frame.loc[4, "value"] = NUMERIC_SECRET
    frame.loc[7, "value"] = np.nan
    shell.user_ns["df"] = frame
    return frame


async def test_dataframe_sample_policy(kernel, big_frame):
    text = await kernel.text("inspect", name="df")
    assert text.startswith("df: DataFrame: 1000000 rows × 3 columns")
    assert "  id: int64, 0 nulls" in text and "  value: float64, 1 nulls" in text and "  label: object, 0 nulls" in text
    assert "describe():" in text and "first 5 rows:" in text
    assert SECRET in text
    assert len(text.encode()) <= 50_000


async def test_schema_policy_never_sends_a_cell_value(kernel_with, big_frame, shell):
    kernel = kernel_with(data_policy="schema")
    shell.user_ns["column"] = big_frame["label"]
    shell.user_ns["values"] = big_frame["value"].to_numpy()
    shell.user_ns["row"] = big_frame.iloc[3].to_dict()
    shell.user_ns["secret_text"] = SECRET
    for name in ("df", "column", "values", "row", "secret_text", "df.label", "df.value"):
        text = await kernel.text("inspect", name=name)
        assert SECRET not in text and "98765" not in text, name
        assert "Data policy 'schema'" in text
    variables = await kernel.text("variables")
    assert SECRET not in variables


async def test_full_policy_shows_more_rows(kernel_with, shell):
    shell.user_ns["small"] = pd.DataFrame({"n": range(30)})
    text = await kernel_with(data_policy="full").text("inspect", name="small")
    assert "first 30 rows:" in text and "\n29  29" in text
    sample = await kernel_with(data_policy="sample", sample_rows=2).text("inspect", name="small")
    assert "first 2 rows:" in sample and "\n29  29" not in sample


async def test_series_and_arrays(kernel, kernel_with, shell):
    shell.user_ns["s"] = pd.Series([1.5, None, 3.0], name="price")
    shell.user_ns["a"] = np.arange(12).reshape(3, 4)
    series = await kernel.text("inspect", name="s")
    assert series.startswith("s: Series price: 3 rows, dtype float64, 1 nulls")
    assert "describe():" in series
    array = await kernel.text("inspect", name="a")
    assert array.startswith("a: ndarray: shape 3×4, dtype int64, 96 B")
    assert "min 0, max 11" in array and "values:" in array
    schema = await kernel_with(data_policy="schema").text("inspect", name="a")
    assert "min" not in schema and "11" not in schema.split("\n", 1)[1]


async def test_modules_functions_and_classes(kernel, shell):
    await kernel.text(
        "python",
        code="import json\ndef area(width: float, height: float = 1.0) -> float:\n    '''Area of a rectangle.'''\n    return width * height\nclass Shape:\n    '''A shape.'''\n    def grow(self): pass",
    )
    module = await kernel.text("inspect", name="json")
    assert module.startswith("json: module json\nfile: ") and "dumps" in module
    function = await kernel.text("inspect", name="area")
    assert function.startswith("area: function area(width: float, height: float = 1.0) -> float")
    assert "Area of a rectangle." in function
    cls = await kernel.text("inspect", name="Shape")
    assert cls.startswith("Shape: class Shape()") and "A shape." in cls and "grow" in cls
    method = await kernel.text("inspect", name="json.dumps")
    assert "dumps(obj" in method


async def test_attribute_paths_and_properties(kernel, shell, big_frame):
    await kernel.text(
        "python",
        code="class Model:\n    def __init__(self):\n        self.coef_ = [1.0, 2.0]\n    @property\n    def size(self):\n        return 2\nmodel = Model()",
    )
    assert (await kernel.text("inspect", name="model.coef_")).startswith("model.coef_: list, len 2")
    assert (await kernel.error("inspect", name="model.size")).startswith(
        "model.size is a property: reading it runs code of the object's class, which inspect never does."
    )
    assert (await kernel.text("inspect", name="df.value")).startswith("df.value: Series value: 1000000 rows")


async def test_bad_names_are_error_results(kernel, shell):
    shell.user_ns["d"] = {"a": 1}
    assert "not a name or attribute path" in await kernel.error("inspect", name="d['a']")
    assert "not a name or attribute path" in await kernel.error("inspect", name="print()")
    assert "No variable named 'nope'" in await kernel.error("inspect", name="nope")
    assert "d.missing does not exist" in await kernel.error("inspect", name="d.missing")


async def test_library_properties_are_read(kernel, shell, big_frame):
    assert (await kernel.text("inspect", name="df.shape")).startswith("df.shape: tuple, len 2")
    assert (await kernel.text("inspect", name="df.columns")).startswith("df.columns: Index")
    import numpy

    shell.user_ns["arr"] = numpy.zeros((2, 3))
    assert (await kernel.text("inspect", name="arr.T")).startswith("arr.T: ndarray: shape 3×2")


async def test_containers_strings_and_objects(kernel, shell):
    shell.user_ns.update(
        items=list(range(100)),
        mapping={"alpha": 1, "beta": [1, 2]},
        long_text="word " * 1000,
    )
    await kernel.text(
        "python",
        code="class Point:\n    def __init__(self):\n        self.x = 1\n        self.label = 'p'\n    def norm(self): pass\np = Point()",
    )
    items = await kernel.text("inspect", name="items")
    assert "element types (first 100): int ×100" in items and "first items: [0, 1, 2, 3, 4, … 95 more]" in items
    mapping = await kernel.text("inspect", name="mapping")
    assert "first items: {'alpha': 1, 'beta': [1, 2]}" in mapping
    text = await kernel.text("inspect", name="long_text")
    assert "len 5000" in text and len(text) < 400
    point = await kernel.text("inspect", name="p")
    assert "attributes:\n  x: int = 1\n  label: str, len 1 = 'p'" in point and "norm" in point


SIDE_EFFECTS = '''
import functools
effects = []

class Tricky:
    """Holds traps."""
    def __init__(self):
        self.plain = 3
    @property
    def loud(self):
        effects.append("property")
        return 1
    @functools.cached_property
    def cached(self):
        effects.append("cached_property")
        return 2
    @property
    def __class__(self):
        effects.append("__class__")
        return int
    def __repr__(self):
        effects.append("__repr__")
        return "Tricky()"
    def __getattr__(self, name):
        effects.append("__getattr__")
        return 0

trap = Tricky()
'''


async def test_inspect_runs_no_property_cached_property_class_or_repr(kernel, shell):
    await kernel.text("python", code=SIDE_EFFECTS)
    assert "trap.loud is a property" in await kernel.error("inspect", name="trap.loud")
    assert "trap.cached is a cached_property" in await kernel.error("inspect", name="trap.cached")
    assert "does not exist" in await kernel.error("inspect", name="trap.missing")  # no __getattr__
    assert (await kernel.text("inspect", name="trap.plain")).startswith("trap.plain: int")
    described = await kernel.text("inspect", name="trap")
    assert described.startswith("trap: Tricky") and "plain: int = 3" in described and "Holds traps." in described
    assert "__init__" in await kernel.text("inspect", name="trap.__init__")
    assert shell.user_ns["effects"] == []


async def test_sample_rows_show_object_cells_by_type_name(kernel, shell):
    await kernel.text(
        "python",
        code=SIDE_EFFECTS
        + (
            "import pandas as pd\n"
            "table = pd.DataFrame({'thing': [Tricky(), 'text', 1.5, [Tricky()]], 'n': [1, 2, 3, 4]})\n"
            "table.index = [Tricky(), 'b', 'c', 'd']\n"
            "column = table['thing']\n"
            "effects.clear()\n"
        ),
    )
    text = await kernel.text("inspect", name="table")
    assert "<Tricky>" in text and "text" in text and "1.5" in text and "[<Tricky>]" in text
    assert "<Tricky>" in await kernel.text("inspect", name="column")
    assert shell.user_ns["effects"] == []
