from jupyter_agent.notebook.panel.inline import escape, render_inline, safe_url


def test_raw_html_is_escaped():
    out = render_inline('<script>alert(1)</script> <img src=x onerror="alert(2)">')
    assert "<script" not in out and "<img" not in out
    assert "&lt;script&gt;" in out and "&quot;alert(2)&quot;" in out


def test_code_span_keeps_markup_literal():
    assert render_inline("use `<b>*x*</b>`") == "use <code>&lt;b&gt;*x*&lt;/b&gt;</code>"


def test_emphasis_strong_strike():
    assert render_inline("**a** *b* _c_ ~~d~~") == "<strong>a</strong> <em>b</em> <em>c</em> <del>d</del>"


def test_snake_case_is_not_emphasis():
    assert render_inline("my_var_name and __init__") == "my_var_name and <strong>init</strong>"
    assert "<em>" not in render_inline("a_b_c")


def test_links_safe_and_unsafe():
    out = render_inline("[docs](https://example.org/a?b=1&c=2) [x](javascript:alert(1))")
    assert '<a href="https://example.org/a?b=1&amp;c=2" target="_blank"' in out
    assert out.endswith(" x") and "javascript" not in out  # the unsafe link keeps only its text


def test_images_become_links_not_fetches():
    out = render_inline("![chart](https://example.org/c.png)")
    assert "<img" not in out and '<a href="https://example.org/c.png"' in out and ">chart</a>" in out


def test_bare_urls_and_autolinks():
    out = render_inline("see https://example.org/x. or <https://a.b/c>")
    assert '<a href="https://example.org/x"' in out and out.count("<a ") == 2


def test_backslash_escapes_and_hard_breaks():
    assert render_inline(r"\*not em\*") == "*not em*"
    assert render_inline("one  \ntwo") == "one<br />\ntwo"


def test_attribute_injection_through_link_is_escaped():
    out = render_inline('[a](https://x.org/"onmouseover="alert(1))')
    assert 'onmouseover="' not in out


def test_safe_url():
    assert safe_url("https://a") == "https://a"
    assert safe_url("relative/path") == "relative/path"
    assert safe_url(" JaVaScRiPt:alert(1)") is None
    assert safe_url("data:text/html,x") is None


def test_escape_removes_control_characters():
    assert escape("a\x00b\x1b<") == "ab&lt;"
