from jupyter_agent.notebook.panel.markdown_split import find_cut


def parts(source, limit=40, keep=0):
    cut = find_cut(source, limit, keep=keep)
    return None if cut is None else (source[: cut.at], source[cut.at :], cut)


def test_short_source_is_not_cut():
    assert find_cut("short text", 40) is None


def test_cut_at_the_last_block_boundary():
    frozen, rest, cut = parts("# Title\n\nA paragraph.\n\n## Next\n\nstarting")
    assert (frozen, rest, cut.seam) == ("# Title\n\nA paragraph.\n\n## Next\n\n", "starting", "")


def test_block_boundary_before_a_fence_without_blank_line():
    frozen, rest, cut = parts("Here is the code for you:\n```python\nx = 1\n", limit=30)
    assert cut.seam in ("", "block")
    assert "Here is the code" in frozen


def test_long_fence_is_cut_between_lines_and_reopened():
    source = "```python\n" + "".join(f"line_{i} = {i}\n" for i in range(10)) + "line_10 = 1"
    frozen, rest, cut = parts(source)
    assert cut.seam == "block" and cut.close == "```" and cut.reopen == "```python\n"
    assert frozen.endswith("line_9 = 9\n") and rest == "line_10 = 1"


def test_long_list_is_cut_before_the_last_item():
    source = "".join(f"- item number {i}\n" for i in range(6)) + "- item six is stil"
    frozen, rest, cut = parts(source)
    assert rest == "- item six is stil" and cut.seam == "block" and cut.reopen == ""


def test_long_table_repeats_its_header():
    source = "| a | b |\n|---|---|\n" + "".join(f"| {i} | {i} |\n" for i in range(5)) + "| 5 |"
    frozen, rest, cut = parts(source)
    assert cut.reopen == "| a | b |\n|---|---|\n" and rest == "| 5 |"


def test_long_paragraph_is_cut_at_a_sentence_end_outside_code_spans():
    source = "One sentence here. Another with `code. inside` it. Third one is still going"
    frozen, rest, cut = parts(source, limit=30)
    assert cut.seam == "text"
    assert frozen.count("`") % 2 == 0
    assert frozen.endswith(". ") and rest.startswith("Third")


def test_cuts_respect_a_reopen_prefix():
    source = "```python\n" + "x = 1\n" * 10
    cut = find_cut(source, 20, keep=len("```python\n"))
    assert cut.at > len("```python\n")


def test_unbreakable_run_is_cut_when_far_too_long():
    assert find_cut("x" * 100, 40) is None
    assert find_cut("x" * 200, 40).at == 200
