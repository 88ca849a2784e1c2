from jupyter_agent.tools import figures


def test_new_and_changed_figures_are_found_untouched_ones_are_not(shell):
    import matplotlib.pyplot as plt

    untouched = plt.figure()
    untouched.gca().plot([1])
    figures.figure_png(untouched)
    redrawn = plt.figure()
    redrawn.gca().plot([1])
    figures.figure_png(redrawn)
    before = figures.snapshot()
    redrawn.gca().plot([2])
    created = plt.figure()
    assert figures.changed_figures(before) == [redrawn, created]


def test_png_bytes(shell):
    import matplotlib.pyplot as plt

    figure = plt.figure()
    assert figures.figure_png(figure).startswith(b"\x89PNG") and figures.is_figure(figure)
    assert not figures.is_figure(object())


def test_without_pyplot_nothing_is_imported(monkeypatch):
    import sys

    monkeypatch.delitem(sys.modules, "matplotlib.pyplot", raising=False)
    assert figures.snapshot() == {} and figures.changed_figures({}) == []
