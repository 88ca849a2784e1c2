import re

from jupyter_agent.notebook.panel.style import CSS, stylesheet


def rules(css):
    body = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    body = re.sub(r"@keyframes[^{]*\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}", "", body)
    return [selector.strip() for selector in re.findall(r"([^{}]+)\{[^{}]*\}", body)]


def test_every_rule_is_scoped_to_the_panel():
    selectors = [part.strip() for rule in rules(CSS) for part in re.split(r",(?![^(]*\))", rule)]
    assert len(selectors) > 40
    assert [s for s in selectors if not s.startswith(".ja-panel")] == []


def test_theme_variables_with_fallbacks():
    variables = re.findall(r"var\((--[\w-]+)(,?)", CSS)
    assert all(name.startswith("--jp-") for name, _ in variables)
    assert all(comma for _, comma in variables)  # every variable has a fallback outside JupyterLab


def test_the_sent_stylesheet_is_minified_css():
    css = stylesheet()
    assert "/*" not in css and "\n" not in css and len(css) < len(CSS)
    assert css.startswith(".ja-panel{")
