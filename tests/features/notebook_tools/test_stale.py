"""Stale cells from the cells' source alone: who reads a changed name after its last definition."""

import re

from jupyter_agent.features.notebook_tools import stale
from jupyter_agent.features.notebook_tools.cells import Cell
from jupyter_agent.features.notebook_tools.stale import cell_names, cell_scope, stale_cells


def cells(*sources, ran=True):
    return [
        Cell(index=n, id=f"c{n}", cell_type="code", source=source, execution_count=(n + 1) if ran else None)
        for n, source in enumerate(sources)
    ]


NOTEBOOK = cells(
    "import pandas as pd",
    "df = pd.read_csv('sales.csv')",
    "df.describe()",
    "m = df.x.mean()",
    "print(m)",
    "other = 5",
    "print(other)",
    "%%agent\nclean df",
    "df = df.dropna()",
    "df.head()",
)


def test_the_cells_after_the_definition_that_read_the_changed_name_and_what_they_feed_are_stale():
    stale = stale_cells(NOTEBOOK, {"df"})
    assert [cell.index for cell in stale] == [2, 3, 4, 8, 9]
    assert [cell.describe() for cell in stale] == [
        "cell 2 `c2` reads df",
        "cell 3 `c3` reads df",
        "cell 4 `c4` reads m (m from cell 3)",
        "cell 8 `c8` reads df",
        "cell 9 `c9` reads df (df from cell 8)",
    ]


def test_cells_that_read_other_names_the_definition_itself_and_cells_before_it_are_not_stale():
    notebook = cells("df = make()", "df.plot()", "df = load()", "df.describe()", "x = 1", "x + 1")
    assert [cell.index for cell in stale_cells(notebook, {"df"})] == [3]  # after the last definition only
    assert stale_cells(notebook, set()) == [] and stale_cells(notebook, {"nothing"}) == []


def test_a_name_nobody_defined_makes_every_reader_stale_and_cells_never_run_are_left_out():
    notebook = cells("print(new)", "new.sum()")
    assert [cell.index for cell in stale_cells(notebook, {"new"})] == [0, 1]
    assert stale_cells(cells("print(new)", ran=False), {"new"}) == []


def test_markdown_agent_cells_and_other_cell_magics_are_not_python():
    notebook = [
        Cell(0, "md", "markdown", "We use df here", 1),
        Cell(1, "bash", "code", "%%bash\necho df", 2),
        Cell(2, "timed", "code", "%%time\ndf.sum()", 3),
        Cell(3, "agent", "code", "%%agent\nlook at df", 4),
    ]
    assert [cell.id for cell in stale_cells(notebook, {"df"})] == ["timed"]


def test_names_read_inside_functions_and_comprehensions_count_their_locals_do_not():
    names = cell_names("def f(rows):\n    local = rows + df\n    return local\nout = [x * k for x in data]")
    assert names.reads == {"df", "k", "data"} and names.binds == {"f", "out"}
    assert cell_names("x = 1\nprint(x)").reads == {"print"}  # bound before it is read
    assert cell_names("df = df.dropna()").defines == frozenset() and cell_names("df = load()").defines == {"df"}
    assert cell_names("import numpy as np, os.path").binds == {"np", "os"}
    assert cell_names("for row in rows:\n    total += row").binds == {"row", "total"}


def test_ipython_syntax_is_read_through_the_transform_and_broken_code_reads_nothing():
    def transform(source):
        return source.replace("%time ", "").replace("!ls", "pass")

    assert cell_names("%time total = df.sum()", transform).reads == {"df"}
    assert cell_names("def broken(:").reads == frozenset()


def test_the_symbol_table_names_what_a_cell_reads_and_binds_and_which_names_need_the_order():
    scope = cell_scope("def f(rows):\n    local = rows + df\n    return local\nout = [x * k for x in data]")
    assert scope.reads == {"df", "k", "data"} and scope.binds == {"f", "out"} and scope.both == frozenset()
    assert cell_scope("def f():\n    global g\n    g = h\n[n := v for v in vs]").binds == {"f", "g", "n"}
    ordered = cell_scope("x = 1\nprint(x)")
    assert ordered.both == {"x"} and ordered.needs_order({"x", "y"}) and not ordered.needs_order({"y", "print"})
    assert cell_scope("%time total = df.sum()", lambda s: s.replace("%time ", "")).reads == {"df"}
    assert not cell_scope("def broken(:").known and cell_scope("def broken(:").needs_order({"anything"})


CORPUS = [
    "import pandas as pd\nimport numpy as np",
    "df = pd.read_csv('sales.csv', parse_dates=['date'])\ndf.head()",
    "df['revenue'] = df['price'] * df['units']",
    "monthly = df.groupby('month')['revenue'].sum()\nmonthly.tail(12)",
    "fig, ax = plt.subplots()\nmonthly.plot(ax=ax)\nplt.show()",
    "def clean(frame, threshold=limit):\n    kept = frame.dropna(thresh=threshold)\n    return kept\n\nsample = clean(df)",
    "rates = {'EUR': 1.08}\nconverted = [value * rates['EUR'] for value in values]",
    "df = df[df['units'] > 0]\nprint(len(df))",
    "for k in range(5):\n    model = fit(x, y, degree=k)\n    results.append(score(model))",
    "with open(path) as handle:\n    text = handle.read()\ndel path",
    "try:\n    value = risky()\nexcept ValueError as error:\n    value = fallback(error)",
    "square = lambda v: v * scale\nsquares = {v: square(v) for v in items}",
    "total = 0\ntotal = total + df.x.sum()",
]


def test_the_symbol_table_and_the_ordered_reading_agree_on_every_name_they_both_answer_for():
    for source in CORPUS:
        parsed, scope = cell_names(source), cell_scope(source)
        for name in set(re.findall(r"[A-Za-z_]\w*", source)):
            if scope.needs_order({name}):
                continue
            reads, binds, defines = (name in scope.reads, name in scope.binds, name in scope.binds)
            assert (reads, binds, defines) == (name in parsed.reads, name in parsed.binds, name in parsed.defines), (
                source,
                name,
            )
        assert scope.binds == parsed.binds, source


def test_stale_cells_read_the_symbol_table_and_parse_only_cells_whose_order_matters(monkeypatch):
    parsed = []
    real = stale.ast.parse
    monkeypatch.setattr(
        stale.ast, "parse", lambda source, *args, **kwargs: parsed.append(source) or real(source, *args, **kwargs)
    )
    stale.clear_caches()
    notebook = cells(*CORPUS)
    assert [cell.index for cell in stale_cells(notebook, {"df"})] == [2, 3, 4, 5, 7, 12]
    # df's definition (cell 1) and its re-binding (cell 7) read and bind df: only their order tells.
    assert parsed == [CORPUS[7], CORPUS[1]]


def test_names_bound_by_except_and_match_are_bindings_of_the_cell_or_of_its_function():
    assert cell_names("try:\n    v = f()\nexcept E as error:\n    pass").binds == {"v", "error"}
    assert cell_names("match p:\n    case [first, *rest]:\n        pass\n    case {**others}:\n        pass").binds == {
        "first",
        "rest",
        "others",
    }
    assert cell_names("def g():\n    try:\n        pass\n    except E as error:\n        return error").binds == {"g"}


def stale_indexes(sources, changed, transform=None):
    stale.clear_caches()  # each case read fresh: no answer left over from another case's source
    return [cell.index for cell in stale_cells(cells(*sources), changed, transform)]


def test_a_name_read_only_inside_an_f_string_is_a_read():
    sources = ["df = load()", 'print(f"{df.shape}")', 'f"{value:>{df}}"', 'f"{{df}}"']
    assert stale_indexes(sources, {"df"}) == [1, 2]  # ``{{df}}`` is the text "{df}", no read


def test_words_of_a_cell_that_are_no_read_of_the_name_leave_it_fresh():
    sources = [
        "df = load()",
        "frame.df.head()",  # an attribute of another object
        "print('df', \"df\")",  # string literals
        "total = 1  # df",  # a comment
        "plot(df=1)",  # a keyword argument's name
        "mask = 0xdf",  # a hexadecimal number
        "pdf = 2\nprint(pdf_of)",  # longer names that contain it
        "def show(df):\n    return df",  # a parameter: local to the function
        "clip = lambda df: df\nrows = [df for df in frames]",  # a lambda's parameter, a comprehension's target
        "df.head()",  # the one read
    ]
    assert stale_indexes(sources, {"df"}) == [9]


def test_non_ascii_names_are_found_as_python_reads_them():
    sources = ["données = load()", "print(données)", "print('données')", "print(ﬁle)", "rows = liste_données"]
    assert stale_indexes(sources, {"données"}) == [1]
    assert stale_indexes(sources, {"file"}) == [3]  # Python reads the ligature ``ﬁ`` as ``fi``


def test_a_lone_surrogate_in_a_cell_makes_it_unreadable_not_an_error():
    assert stale_indexes(["x = '\ud800'\ndf.head()", "df.tail()"], {"df"}) == [1]


def test_plain_code_is_not_given_to_the_transform_and_cell_magics_are_found_after_blank_lines():
    def breaking(source):
        return "broken("  # what a wrong call of the transform would read: nothing

    assert stale_indexes(['print("%d" % df)', "df?"], {"df"}, breaking) == [0]
    sources = ["\n  %%time\ndf.sum()", "  %%bash\necho df", 'label = "%%bash"\ndf.sum()']
    assert stale_indexes(sources, {"df"}) == [0, 2]


def test_the_order_of_reads_and_binds_still_counts_when_hundreds_of_names_changed():
    many = {f"name_{n}" for n in range(300)}
    sources = ["df = load()", "df = df.dropna()", "df.head()", "x = 1\nprint(x)", "name_7 = name_8"]
    found = stale_cells(cells(*sources), {"df", "x", *many})
    assert [cell.describe() for cell in found] == [
        "cell 1 `c1` reads df",
        "cell 2 `c2` reads df (df from cell 1)",
        "cell 4 `c4` reads name_8",
    ]


def test_python_line_magics_are_read_as_the_code_they_run_with_the_kernels_own_transform():
    from IPython.core.inputtransformer2 import TransformerManager

    transform = TransformerManager().transform_cell  # what the kernel runs: the magic's argument becomes a string
    assert cell_names("%time total = df.sum()", transform).reads == {"df"}
    assert cell_names("%time total = df.sum()", transform).binds == {"total"}
    assert cell_names("%timeit -n 10 -r 3 df.mean()", transform).reads == {"df"}
    assert cell_names("for i in range(3):\n    %time part = df[i]", transform).reads >= {"df"}
    assert cell_names("%prun -s cumulative fit(df)", transform).reads == {"fit", "df"}
    assert {"plot", "df"} <= cell_names("%matplotlib inline\nplot(df)", transform).reads  # other magics: as the kernel reads them
    assert stale_indexes(["df = load()", "%time total = df.sum()", "other = 1"], {"df"}, transform) == [1]


def test_a_cell_read_without_a_transform_is_read_again_with_one():
    from IPython.core.inputtransformer2 import TransformerManager

    source = "files = !ls\nsummary = [files, df]"
    assert cell_names(source).reads == frozenset()  # not Python without IPython's transform
    assert "df" in cell_names(source, TransformerManager().transform_cell).reads
