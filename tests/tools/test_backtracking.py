import pytest

from jupyter_agent.tools.backtracking import may_backtrack


@pytest.mark.parametrize("pattern", [r"(a+)+$", r"^(a|aa)+$", r"(\w+\s?)*$", r"x(?=(a+)+)", r"([a-z]+)*", r"\p{L}+"])
def test_nested_repeats_alternations_and_unknown_syntax_may_backtrack(pattern):
    assert may_backtrack(pattern)


@pytest.mark.parametrize("pattern", [r"def \w+_needle_\w+\(", "literal", r"(?:ab)+c", r"(a|b)", r"(?i)foo.*bar", r"(?:a++)+"])
def test_flat_patterns_do_not(pattern):
    assert not may_backtrack(pattern)
