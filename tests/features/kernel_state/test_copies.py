"""Copies for undo: within the limit, copy-on-write for pandas, never of big data."""

import numpy as np
import pandas as pd

from jupyter_agent.features.kernel_state.copies import Kept, NotKept, copy_on_write, keep_copy
from jupyter_agent.features.kernel_state.fingerprints import fingerprint

MB = 1 << 20


def test_a_frame_copy_keeps_its_values_when_the_original_changes():
    frame = pd.DataFrame({"x": range(1000)})
    kept = keep_copy(frame, fingerprint(frame), 100 * MB)
    assert isinstance(kept, Kept) and copy_on_write()  # pandas 3: a shallow copy, data shared until written
    frame["x"] = 0
    assert kept.value["x"].tolist() == list(range(1000))


def test_a_big_array_is_not_copied():
    big = np.zeros(2**28)
    kept = keep_copy(big, fingerprint(big), 100 * MB)
    assert kept == NotKept("2.0 GB, over the 100.0 MB snapshot limit")


def test_containers_are_deep_copied_and_unknown_objects_are_not():
    nested = {"a": [1, 2]}
    kept = keep_copy(nested, fingerprint(nested), 100 * MB)
    nested["a"].append(3)
    assert isinstance(kept, Kept) and kept.value == {"a": [1, 2]}
    assert keep_copy(object(), fingerprint(object()), MB) == NotKept("no snapshot is taken of a object")


def test_a_value_that_cannot_be_copied_says_why():
    class Stubborn(list):
        def __deepcopy__(self, memo):
            raise TypeError("no")

    item = Stubborn()
    kept = keep_copy([item], fingerprint([]), MB)  # an item of the user's own class is shared, never deep-copied
    assert isinstance(kept, Kept) and kept.value[0] is item
    deep: list = []
    for _ in range(150):
        deep = [deep]
    assert keep_copy(deep, fingerprint(deep), MB) == NotKept("containers nested more than 100 deep are not copied")
