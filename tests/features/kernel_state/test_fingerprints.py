"""Fingerprints: identity, shape and sampled hashes, never a copy of the data."""

import numpy as np
import pandas as pd

from jupyter_agent.features.kernel_state.fingerprints import describe, fingerprint, human_bytes


def test_plain_values_are_identity_and_type():
    value = "text"
    print_ = fingerprint(value)
    assert (print_.identity, print_.kind, print_.shape, print_.digest) == (id(value), "str", None, None)


def test_a_frame_shows_its_shape_and_notices_a_new_column_and_changed_values():
    frame = pd.DataFrame({"a": range(1200), "b": 1.5})
    before = fingerprint(frame)
    assert describe(frame, before) == "DataFrame 1200×2"
    frame["c"] = 0
    added = fingerprint(frame)
    assert added.identity == before.identity and added.columns == ("a", "b", "c")
    assert not added.same_content(before)
    frame["a"] = 0
    assert not fingerprint(frame).same_content(added)
    assert fingerprint(frame).same_content(fingerprint(frame))


def test_a_frame_of_arrow_strings_is_unchanged_until_a_string_changes():
    # Arrow-backed strings (pandas' default string dtype with pyarrow) are new str objects on every read.
    frame = pd.DataFrame({"name": pd.array(["north", "south"] * 50, dtype="string[pyarrow]"), "v": range(100)})
    before = fingerprint(frame)
    print(frame.to_string())  # reads every string, as the agent's print(df) does
    assert fingerprint(frame).same_content(before)
    frame.loc[0, "name"] = "east"
    assert not fingerprint(frame).same_content(before)


def test_object_items_other_than_plain_values_are_compared_by_identity():
    class Item:
        def __repr__(self):
            raise AssertionError("a fingerprint ran the item's own code")

    first = Item()
    frame = pd.DataFrame({"item": pd.Series([first, "text"], dtype=object)})
    before = fingerprint(frame)
    assert fingerprint(frame).same_content(before)
    frame.loc[0, "item"] = Item()
    assert not fingerprint(frame).same_content(before)


def test_an_array_is_hashed_whole_when_small_and_sampled_when_big():
    small = np.arange(10)
    print_ = fingerprint(small)
    small[3] = 99
    assert not fingerprint(small).same_content(print_)
    big = np.zeros(2**28)  # 2 GB reported; calloc'd pages are never touched by the fingerprint
    sampled = fingerprint(big)
    assert sampled.nbytes == 2**31 and describe(big, sampled) == "ndarray 268435456 float64, 2.0 GB"
    big[0] = 1.0  # the first and last elements are always in the sample
    assert not fingerprint(big).same_content(sampled)


def test_containers_notice_items_replaced_and_added():
    items = list(range(1000))
    before = fingerprint(items)
    items[500] = -1
    replaced = fingerprint(items)
    assert not replaced.same_content(before)
    items.append(1)
    assert fingerprint(items).shape == (1001,) and describe(items) == "list of 1001"
    mapping = {"a": 1}
    print_ = fingerprint(mapping)
    mapping["a"] = 2
    assert not fingerprint(mapping).same_content(print_)


def test_an_object_whose_attributes_raise_is_compared_by_identity():
    class Lazy:
        @property
        def shape(self):
            raise RuntimeError("would compute")

    value = Lazy()
    assert fingerprint(value) == (id(value), "Lazy", None, None, None, None, True)  # opaque: never looked into


def test_human_bytes():
    assert [human_bytes(n) for n in (10, 2048, 3 * 2**20, 2**31)] == ["10 bytes", "2.0 KB", "3.0 MB", "2.0 GB"]
