"""yielding_json: pure-Python JSON in one thread while litellm imports, the C one everywhere else."""

from __future__ import annotations

import json
import sys
import threading
from collections import Counter
from typing import Any, Callable

from jupyter_agent.model.yielding_json import yielding_json

DOCUMENT = {"models": [{"name": f"m{i}", "price": i / 7, "tags": ["a", "ü", None, True]} for i in range(50)]}
TEXT = json.dumps(DOCUMENT)


def python_calls(action: Callable[[], Any]) -> tuple[Any, Counter[str]]:
    """``action()``'s result and the Python functions of the json package it called (C code makes none)."""
    calls: Counter[str] = Counter()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and "json" in frame.f_code.co_filename:
            calls[frame.f_code.co_name] += 1

    sys.setprofile(profile)
    try:
        result = action()
    finally:
        sys.setprofile(None)
    return result, calls


def test_inside_the_block_the_python_scanner_and_encoder_run_and_give_the_same_results():
    with yielding_json():
        parsed, parse_calls = python_calls(lambda: json.loads(TEXT))
        from_bytes = json.loads(TEXT.encode())
        text, dump_calls = python_calls(lambda: json.dumps(DOCUMENT))
    assert parsed == from_bytes == DOCUMENT
    assert text == TEXT
    assert parse_calls["_scan_once"] > 50  # one call per value: the pure-Python scanner
    assert dump_calls["_iterencode_dict"] > 50  # the pure-Python encoder


def test_outside_the_block_and_in_other_threads_the_c_implementation_runs():
    _, before = python_calls(lambda: json.loads(TEXT))
    assert before["_scan_once"] == 0
    seen: dict[str, Counter[str]] = {}
    with yielding_json():
        other = threading.Thread(target=lambda: seen.update(other=python_calls(lambda: json.loads(TEXT))[1]))
        other.start()
        other.join(timeout=30)
    assert seen["other"]["_scan_once"] == 0
    _, after = python_calls(lambda: json.loads(TEXT))
    assert after["_scan_once"] == 0


def test_the_originals_are_back_after_the_block_even_when_it_raises():
    loads, dumps = json.loads, json.dumps
    try:
        with yielding_json():
            assert json.loads is not loads
            raise KeyError("inside")
    except KeyError:
        pass
    assert (json.loads, json.dumps) == (loads, dumps)


def test_arguments_pass_through_and_a_caller_s_own_decoder_class_is_kept():
    class Marking(json.JSONDecoder):
        def decode(self, s: str, *args: Any) -> Any:
            return ("marked", super().decode(s))

    with yielding_json():
        assert json.loads('{"a": 1}', object_hook=lambda d: sorted(d)) == ["a"]
        assert json.loads("[1]", cls=Marking) == ("marked", [1])
        assert json.dumps({"b": 1, "a": [1]}, sort_keys=True, indent=1) == '{\n "a": [\n  1\n ],\n "b": 1\n}'
        try:
            json.loads("{bad")
        except json.JSONDecodeError as error:
            assert str(error) == "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"
        else:
            raise AssertionError("invalid JSON parsed")


def test_a_wrapper_kept_by_a_module_imported_meanwhile_passes_through_afterwards():
    with yielding_json():
        kept_loads = json.loads  # what "from json import loads" in a module imported now would keep
    _, calls = python_calls(lambda: kept_loads(TEXT))
    assert kept_loads(TEXT) == DOCUMENT
    assert calls["_scan_once"] == 0
