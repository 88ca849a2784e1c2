"""The completion request: capped parts, the cursor marked, secrets redacted, answers cleaned."""

from jupyter_agent.features.completion import CompletionInput, VariableFact, completion_context, completion_text
from jupyter_agent.features.completion.prompt import clean_completion


def test_the_request_has_the_variables_the_cells_above_and_the_cell_with_its_cursor():
    data = CompletionInput(
        "total = df.", "\nprint(total)", (VariableFact("df", "df: DataFrame\n  columns: a (int64)"),), ("import x", "")
    )
    context = completion_context(data)
    assert "only the text to insert at <CURSOR>" in context.system_prompt
    assert context.messages[0].content == (
        "Live variables (from the kernel):\ndf: DataFrame\n  columns: a (int64)\n\n"
        "Cells above (first lines):\nimport x\n\nThe cell:\ntotal = df.<CURSOR>\nprint(total)"
    )


def test_long_parts_are_capped():
    data = CompletionInput("x" * 10_000, "y" * 10_000, (), tuple("line\n" * 50 for _ in range(40)))
    text = completion_text(data)
    assert len(text) < 4_000 and text.count("---") == 11  # 12 cells of 2 lines each


def test_a_key_typed_into_the_cell_is_redacted(monkeypatch):
    monkeypatch.setenv("MY_SERVICE_API_KEY", "sk-abcdefghijklmnop123456")
    text = completion_text(CompletionInput('client = Client(key="sk-abcdefghijklmnop123456")\nclient.', ""))
    assert "sk-abcdefghijklmnop123456" not in text and "[redacted" in text


def test_answers_lose_fences_and_echoes_of_the_line():
    assert clean_completion("```python\nrevenue.sum()\n```", "df.", "") == "revenue.sum()\n"
    assert clean_completion("x = df.revenue", "x = df.", "") == "revenue"
    assert clean_completion("sum())", "print(df.", ")") == "sum()"
