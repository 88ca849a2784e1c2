import numpy as np
import pandas as pd
import pytest

from jupyter_agent.tools import coding_tools
from jupyter_agent.tools.caps import human_size

pytestmark = pytest.mark.anyio


class Touchy:
    """Records any attempt to run its code."""

    calls = []

    def __len__(self):
        Touchy.calls.append("len")
        return 1

    def __sizeof__(self):
        Touchy.calls.append("sizeof")
        return 1

    def __repr__(self):
        Touchy.calls.append("repr")
        return "touchy"

    @property
    def shape(self):
        Touchy.calls.append("shape")
        return (1,)


async def test_user_variables_with_types_shapes_and_memory(kernel, shell):
    await kernel.text("python", code="import math\nn = 7\nname = 'Ada'\nitems = [1, 2, 3]\ndef helper(): pass")
    shell.user_ns["arr"] = np.zeros((10, 4))
    text = await kernel.text("variables")
    lines = text.splitlines()
    assert lines[0] == "5 variables:"
    assert "n: int, 28 B = 7" in lines
    assert "name: str, len 3, 52 B = 'Ada'" in lines
    assert any(line.startswith("items: list, len 3, ") for line in lines)
    assert any(line.startswith("helper: function") for line in lines)
    assert "arr: ndarray, shape 10×4, 320 B" in lines
    assert lines[-1] == "modules: math"


async def test_ipython_names_and_agent_objects_are_skipped(kernel, shell, workspace):
    shell.run_cell("1 + 1", store_history=True)
    shell.run_cell("_ + 1", store_history=True)
    assert {"_", "__", "_i1", "_2", "In", "Out", "exit", "get_ipython"} <= set(shell.user_ns)
    shell.user_ns["tools"] = coding_tools(workspace)[0]
    text = await kernel.text("variables")
    assert text == "The namespace has no user variables yet."


async def test_no_user_code_runs(kernel, shell):
    Touchy.calls.clear()
    shell.user_ns["thing"] = Touchy()
    text = await kernel.text("variables")
    assert "thing: " in text and "Touchy" in text
    await kernel.text("inspect", name="thing")
    assert Touchy.calls == []


async def test_million_row_dataframe_is_listed_within_the_cap(kernel, shell):
    shell.user_ns["df"] = pd.DataFrame({"a": np.arange(1_000_000), "b": np.random.rand(1_000_000), "c": ["x"] * 1_000_000})
    text = await kernel.text("variables")
    # The string column's size depends on pandas' string backend (pyarrow when installed).
    size = human_size(int(shell.user_ns["df"].memory_usage(index=True, deep=False).sum()))
    assert size.endswith(" MB") and f"df: DataFrame, 1000000 rows × 3 columns, {size}" in text
    assert len(text) < 1000


async def test_schema_policy_shows_no_values(kernel_with, shell):
    shell.user_ns["token"] = "sk-secret-value"
    text = await kernel_with(data_policy="schema").text("variables")
    assert "token: str, len 15" in text and "sk-secret" not in text


async def test_many_variables_are_cut(kernel, shell):
    shell.user_ns.update({f"v{i}": i for i in range(400)})
    text = await kernel.text("variables")
    assert text.splitlines()[-1] == "[… 100 more variables not listed; inspect them by name.]"


async def test_variables_reads_no_class_property_repr_or_len(kernel, shell):
    await kernel.text(
        "python",
        code=(
            "effects = []\n"
            "class Sneaky:\n"
            "    @property\n"
            "    def __class__(self):\n"
            "        effects.append('__class__')\n"
            "        return dict\n"
            "    def __repr__(self):\n"
            "        effects.append('__repr__')\n"
            "        return 'x'\n"
            "    def __len__(self):\n"
            "        effects.append('__len__')\n"
            "        return 1\n"
            "sneaky = Sneaky()"
        ),
    )
    listing = await kernel.text("variables")
    assert "sneaky: Sneaky" in listing
    assert shell.user_ns["effects"] == []
