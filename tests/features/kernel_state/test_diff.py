"""The changes of one call and the card's line."""

import pandas as pd

from jupyter_agent.features.kernel_state.diff import Entry, changes_line, diff_states, mutation
from jupyter_agent.features.kernel_state.fingerprints import fingerprint


def state(**values):
    return {name: Entry(value, fingerprint(value)) for name, value in values.items()}


def test_added_rebound_mutated_and_deleted_in_that_order():
    frame = pd.DataFrame({"a": range(3)})
    before = state(b=5, df=frame, tmp=1)
    frame["x"] = 0
    frame["y"] = 1
    after = state(df2=pd.DataFrame({"a": range(1200), **{str(n): 0 for n in range(7)}}), b="five", df=frame)
    line = changes_line(diff_states(before, after))
    assert line == "Namespace: + df2 (DataFrame 1200×8), ~ b (str, was int), ~ df (2 columns added), − tmp"


def test_nothing_changed_is_no_line():
    values = state(a=1, items=[1, 2])
    assert diff_states(values, dict(values)) == [] and changes_line([]) == ""


def test_mutation_details():
    frame = pd.DataFrame({"a": range(3), "b": 0})
    before = fingerprint(frame)
    frame.drop(columns=["b"], inplace=True)
    assert mutation(before, fingerprint(frame)) == "column b removed"
    items = [1, 2]
    print_ = fingerprint(items)
    items.append(3)
    assert mutation(print_, fingerprint(items)) == "2 → 3 items"
    frame.loc[0, "a"] = 10
    assert mutation(before, fingerprint(frame)).startswith("column b removed")


def test_a_long_line_counts_what_it_leaves_out():
    after = state(**{f"v{n}": n for n in range(15)})
    line = changes_line(diff_states({}, after))
    assert line.endswith("+ v11 (int), … and 3 more")
