"""The namespace diff runs no user code: 14 hostile objects, each recording what of it ran."""

import pandas as pd

from jupyter_agent.features.kernel_state.copies import keep_copy
from jupyter_agent.features.kernel_state.fingerprints import describe, fingerprint
from jupyter_agent.features.kernel_state.undo_store import NamespaceHistory
from jupyter_agent.features.kernel_state.watch import NamespaceWatch

RAN: list[str] = []


def trap(name):
    def method(self, *args, **kwargs):
        RAN.append(f"{type(self).__name__}.{name}")
        raise RuntimeError(f"user code ran: {name}")

    return method


class LongList(list):
    __len__ = trap("__len__")
    __iter__ = trap("__iter__")
    __getitem__ = trap("__getitem__")


class Mapping(dict):
    __len__ = trap("__len__")
    __iter__ = trap("__iter__")
    items = trap("items")


class Members(set):
    __iter__ = trap("__iter__")
    __len__ = trap("__len__")


class Masked:
    @property
    def __class__(self):  # isinstance(x, list) would read it
        RAN.append("Masked.__class__")
        return list


class Lazy:
    def __getattr__(self, name):  # hasattr(x, "dtype") would run it
        RAN.append(f"Lazy.__getattr__({name})")
        raise AttributeError(name)


class Sized:
    __sizeof__ = trap("__sizeof__")
    __len__ = trap("__len__")


class Deep:
    __deepcopy__ = trap("__deepcopy__")
    __copy__ = trap("__copy__")
    __reduce_ex__ = trap("__reduce_ex__")


class Shown:
    __repr__ = trap("__repr__")
    __str__ = trap("__str__")


class Meta(type):
    @property
    def __name__(cls):  # type(x).__name__ would run it
        RAN.append("Meta.__name__")
        return "Meta"

    @property
    def __module__(cls):
        RAN.append("Meta.__module__")
        return "pandas"


class Named(metaclass=Meta):
    pass


class Frame(pd.DataFrame):
    @property
    def shape(self):
        RAN.append("Frame.shape")
        return (0, 0)


class Hashy:
    def __hash__(self):  # works (it is a dict key), and says when it is asked
        RAN.append("Hashy.__hash__")
        return id(self) >> 4

    def __eq__(self, other):
        RAN.append("Hashy.__eq__")
        return self is other


class Bytes(bytearray):
    __len__ = trap("__len__")
    __getitem__ = trap("__getitem__")


class Tuple(tuple):
    __len__ = trap("__len__")
    __getitem__ = trap("__getitem__")


def hostile_namespace():
    return {
        "long_list": LongList([1, 2, 3]),
        "mapping": Mapping(a=1),
        "members": Members({1, 2}),
        "masked": Masked(),
        "lazy": Lazy(),
        "sized": Sized(),
        "deep_items": [Deep(), Deep()],  # a plain list: copied for undo, but never through its items' code
        "shown_items": pd.DataFrame({"o": [Shown(), Shown()]}),  # an object column: no item's repr runs
        "named": Named(),
        "frame": Frame({"a": [1, 2]}),
        "hashy_keys": {Hashy(): 1},
        "bytes_": Bytes(b"abc"),
        "tuple_": Tuple((1, 2)),
        "deep": Deep(),
    }


def test_fingerprints_copies_and_the_diff_of_hostile_objects_run_none_of_their_code():
    namespace = hostile_namespace()
    assert len(namespace) == 14
    RAN.clear()
    watch = NamespaceWatch(namespace, NamespaceHistory(), lambda: (1, 1))
    code = "; ".join(f"{name}" for name in namespace) + "; new_value = 1"
    token = watch.before(code)  # every one of them is named: fingerprinted in full, copied where copies are made
    namespace["new_value"] = 1
    namespace["deep_items"].append(Deep())  # changed in place by "the code"
    line, details = watch.after(token)
    for value in namespace.values():
        describe(value, fingerprint(value))
    assert RAN == []
    assert line.startswith("Namespace: + new_value (int), ~ deep_items (2 → 3 items)")
    assert line.endswith(
        "; compared by identity only (reading them would run their own code): "
        "long_list, mapping, members, masked, lazy, sized, named, frame, bytes_, deep"  # tuple_: immutable, identity is all
    )


def test_a_copy_for_undo_never_calls_an_items_deepcopy():
    items = [Deep(), {"k": [Deep()]}]
    RAN.clear()
    kept = keep_copy(items, fingerprint(items), 1 << 20)
    assert RAN == []
    assert kept.value is not items and kept.value[0] is items[0]  # the list is copied, its opaque items shared
    assert kept.value[1] is not items[1] and kept.value[1]["k"][0] is items[1]["k"][0]
