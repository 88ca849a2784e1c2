import pytest

from jupyter_agent.notebook.panel.markdown import provisionally_closed, render_markdown, unclosed_fence


def test_paragraphs_and_headings():
    out = render_markdown("# Title\n\nfirst line\nsecond\n\n### Small ###")
    assert out == "<h1>Title</h1>\n<p>first line\nsecond</p>\n<h3>Small</h3>"


def test_fenced_code_is_escaped_and_labelled():
    out = render_markdown("```python\nif a < b:\n    print('<x>')\n```")
    assert out == ('<pre><code class="language-python">if a &lt; b:\n    print(&#x27;&lt;x&gt;&#x27;)</code></pre>')


def test_unclosed_fence_runs_to_the_end():
    assert render_markdown("```\nstill streaming <b>") == "<pre><code>still streaming &lt;b&gt;</code></pre>"


def test_fence_language_is_sanitized():
    out = render_markdown('```py" onclick="x\ncode\n```')
    assert 'onclick="' not in out and "<pre>" in out


def test_raw_html_block_is_text():
    out = render_markdown('<div onclick="steal()">hi</div>\n\n<script>alert(1)</script>')
    assert "<div" not in out and "<script" not in out
    assert "&lt;div onclick=&quot;steal()&quot;&gt;" in out


def compact(html: str) -> str:
    return "".join(line.strip() for line in html.splitlines())


def test_tight_and_nested_lists():
    out = compact(render_markdown("- a\n- b\n  - nested\n- c"))
    assert out == "<ul><li>a</li><li>b<ul><li>nested</li></ul></li><li>c</li></ul>"


def test_ordered_list_start_and_loose_items():
    assert compact(render_markdown("3. x\n4. y")) == '<ol start="3"><li>x</li><li>y</li></ol>'
    assert compact(render_markdown("1. x\n\n2. y")) == "<ol><li><p>x</p></li><li><p>y</p></li></ol>"


def test_list_interrupts_paragraph():
    assert compact(render_markdown("Steps:\n1. load\n2. plot")) == "<p>Steps:</p><ol><li>load</li><li>plot</li></ol>"


def test_table_with_alignment():
    out = compact(render_markdown("| a | b |\n|:--|--:|\n| 1 | **2** |\n| 3 | |"))
    assert '<th style="text-align:left">a</th><th style="text-align:right">b</th>' in out
    assert '<td style="text-align:right"><strong>2</strong></td>' in out and out.count("<tr>") == 3


def test_quote_rule_and_code_in_list():
    out = compact(render_markdown("> quoted *text*\n\n---\n\n- item\n\n  ```\n  code\n  ```"))
    assert "<blockquote><p>quoted <em>text</em></p></blockquote>" in out
    assert "<hr />" in out
    assert "<li><p>item</p><pre><code>code</code></pre></li>" in out


def test_hostile_nesting_is_bounded():
    out = render_markdown("> " * 500 + "deep")
    assert out.count("<blockquote>") <= 9 and "deep" in out


def test_model_script_is_shown_not_run():
    out = render_markdown("Here: <script>alert(1)</script> and <img src=x onerror=alert(2)>")
    assert "<script" not in out and "<img" not in out and "&lt;script&gt;" in out


def test_unclosed_fence_marker():
    assert unclosed_fence("text\n```py\ncode") == "```"
    assert unclosed_fence("~~~~\n```\n") == "~~~~"
    assert unclosed_fence("```\ncode\n```\n") == ""


@pytest.mark.parametrize(
    ("streamed", "shown"),
    [
        ("Status: **Offl", "Status: **Offl**"),
        ("Status: **Offline** now", "Status: **Offline** now"),
        ("a `co", "a `co`"),
        ("**bold *and it", "**bold *and it***"),
        ("Hello **", "Hello"),  # an opener with nothing after it yet is left out
        ("first\n\nsecond _it", "first\n\nsecond _it_"),
        ("snake_case_na", "snake_case_na"),  # inside a word: text
        ("2*3 is", "2*3 is"),
        ("* a list item", "* a list item"),
        ("```python\nx = **", "```python\nx = **"),  # an open fence shows its text as it is
    ],
)
def test_inline_markup_a_stream_left_open_is_closed_while_it_streams(streamed, shown):
    assert provisionally_closed(streamed) == shown
