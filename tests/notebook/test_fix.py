import sys

import pytest

from jupyter_agent.notebook.fix import NO_ERROR, describe_locals, fix_prompt
from jupyter_agent.tools.data_policy import DataPolicy


def test_locals_show_values_only_when_the_policy_does():
    variables = {"rows": [1, 2], "__builtins__": {}}
    assert describe_locals(variables, DataPolicy("sample")) == "- rows: list, len 2 = [1, 2]"
    assert describe_locals(variables, DataPolicy("schema")) == "- rows: list, len 2"


def test_without_an_error_there_is_nothing_to_fix(monkeypatch):
    monkeypatch.delattr(sys, "last_value", raising=False)
    with pytest.raises(LookupError, match=NO_ERROR):
        fix_prompt(None, DataPolicy())


def test_the_demo_says_you_asked_what_you_typed_not_the_fix_request(monkeypatch):
    from jupyter_agent.messages import UserMessage
    from jupyter_agent.model import Context
    from jupyter_agent.notebook.demo_model import respond
    from jupyter_agent.notebook.fix import typed_request

    try:
        raise ZeroDivisionError("division by zero")
    except ZeroDivisionError as error:
        monkeypatch.setattr(sys, "last_value", error, raising=False)
        monkeypatch.setattr(sys, "last_traceback", error.__traceback__, raising=False)
    for typed, request in [("%agent fix", ""), ("%agent fix keep the zero rows", "keep the zero rows")]:
        prompt = fix_prompt(None, DataPolicy(), request)
        assert typed_request(prompt) == typed
        answer = respond(Context(messages=[UserMessage(content=prompt)], tools=[])).content[0].text
        assert f"You asked: *{typed}*" in answer and "Fix the error below" not in answer
    assert typed_request("Plot the sales") is None


def _raise_with(value):
    try:
        {}[value]
    except KeyError:
        sys.last_value = sys.exc_info()[1]
        sys.last_traceback = sys.exc_info()[2]


def test_under_schema_the_error_message_and_the_locals_values_are_withheld(monkeypatch):
    monkeypatch.setattr(sys, "last_value", None, raising=False)
    monkeypatch.setattr(sys, "last_traceback", None, raising=False)
    _raise_with("ZEBRA-4411")
    prompt = fix_prompt(None, DataPolicy("schema"))
    assert "ZEBRA-4411" not in prompt
    assert "Exception: KeyError (its message is withheld: data_policy 'schema')" in prompt
    assert "KeyError (message withheld: 12 characters)" in prompt and "in _raise_with" in prompt
    assert "- value: str" in prompt  # the failing frame's locals: names and types
    assert "ZEBRA-4411" in fix_prompt(None, DataPolicy("sample"))
