import sys

import pytest

from jupyter_agent.notebook.fix import NO_ERROR, describe_locals, fix_prompt
from jupyter_agent.tools.data_policy import DataPolicy


def test_locals_show_values_only_when_the_policy_does():
    variables = {"rows": [1, 2], "__builtins__": {}}
    assert describe_locals(variables, DataPolicy("sample")) == "- rows: list (len 2) = [1, 2]"
    assert describe_locals(variables, DataPolicy("schema")) == "- rows: list (len 2)"


def test_without_an_error_there_is_nothing_to_fix(monkeypatch):
    monkeypatch.delattr(sys, "last_value", raising=False)
    with pytest.raises(LookupError, match=NO_ERROR):
        fix_prompt(None, DataPolicy())
