import pytest

from jupyter_agent.tools.glob_pattern import compile_glob, split_literal_prefix


@pytest.mark.parametrize(
    "pattern, path, matches",
    [
        ("*.py", "a.py", True),
        ("*.py", "d/a.py", False),
        ("**/*.py", "a.py", True),
        ("**/*.py", "x/y/a.py", True),
        ("**/*.py", ".venv/a.py", False),
        ("src/**", "src/a/b", True),
        ("a/**/b", "a/b", True),
        ("a/**/b", "a/x/y/b", True),
        ("*.{py,md}", "r.md", True),
        ("{src,lib}/**/*.{js,ts}", "lib/x/y.ts", True),
        ("{src,lib}/**/*.{js,ts}", "app/x/y.ts", False),
        ("?.txt", "a.txt", True),
        ("?.txt", "ab.txt", False),
        ("?.txt", ".txt", False),
        ("[ab].c", "b.c", True),
        ("[!ab].c", "b.c", False),
        ("*", ".hidden", False),
        (".*", ".hidden", True),
        ("**/.*", "a/.env", True),
        ("a+b(1).txt", "a+b(1).txt", True),
        ("{a,b", "{a,b", True),
    ],
)
def test_matching(pattern, path, matches):
    assert bool(compile_glob(pattern).match(path)) is matches


def test_literal_prefix_starts_the_walk():
    assert split_literal_prefix("src/lib/**/*.py") == (["src", "lib"], "**/*.py")
    assert split_literal_prefix("*.py") == ([], "*.py")
    assert split_literal_prefix("docs/index.md") == (["docs"], "index.md")
