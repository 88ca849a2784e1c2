import fnmatch
import random
import subprocess
import sys
from functools import lru_cache

import pytest

from jupyter_agent.tools.errors import ToolError
from jupyter_agent.tools.glob_pattern import compile_glob, expand_braces, split_literal_prefix


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


def test_a_class_with_a_slash_is_literal_and_a_leading_bracket_is_a_member():
    assert compile_glob("[a/b]").match("[a/b]")
    assert compile_glob("[]a].c").match("].c")


def test_unmatched_and_escaped_braces_are_literal():
    assert compile_glob(r"\{a,b}").match("{a,b}")
    assert compile_glob("x{a,b").match("x{a,b")
    assert compile_glob("{a,b}{").match("b{")


def test_nested_braces_expand():
    assert expand_braces("{a,b{c,d}}.x") == ["a.x", "bc.x", "bd.x"]


def test_too_many_alternatives_is_a_tool_error():
    with pytest.raises(ToolError, match="more than 256 alternatives"):
        compile_glob("{a,b}" * 9)


# A reference matcher written for clarity, not speed: segments by fnmatch, "**" by recursion.
def reference_match(pattern: str, path: str) -> bool:
    parts, names = pattern.split("/"), path.split("/")

    @lru_cache(maxsize=None)
    def match(p: int, n: int) -> bool:
        if p == len(parts):
            return n == len(names)
        if parts[p] == "**":
            if p == len(parts) - 1:  # a trailing "**" is one or more segments
                return n < len(names) and all(not name.startswith(".") for name in names[n:])
            return match(p + 1, n) or (n < len(names) and not names[n].startswith(".") and match(p, n + 1))
        if n == len(names):
            return False
        part, name = parts[p], names[n]
        if name.startswith(".") and part[:1] in ("*", "?"):
            return False
        return fnmatch.fnmatchcase(name, part) and match(p + 1, n + 1)

    return match(0, 0)


def random_pattern(rng: random.Random) -> str:
    segments = []
    for _ in range(rng.randint(1, 4)):
        if rng.random() < 0.25:
            segments.append("**")
        else:
            segments.append("".join(rng.choice(["a", "b", "*", "?", "[ab]", "[!a]", "."]) for _ in range(rng.randint(1, 5))))
    return "/".join(segments)


def random_path(rng: random.Random) -> str:
    return "/".join("".join(rng.choice("ab.") for _ in range(rng.randint(1, 5))) for _ in range(rng.randint(1, 5)))


def test_agrees_with_fnmatch_and_a_reference_matcher_on_random_patterns():
    rng = random.Random(16)
    disagreements = []
    for _ in range(3000):
        pattern, path = random_pattern(rng), random_path(rng)
        if bool(compile_glob(pattern).match(path)) != reference_match(pattern, path):
            disagreements.append((pattern, path))
    assert disagreements == []


def test_single_segments_agree_with_fnmatch():
    rng = random.Random(18)
    for _ in range(3000):
        pattern = "".join(rng.choice(["a", "b", "*", "?", "[ab]", "[!b]", "[a-b]"]) for _ in range(rng.randint(1, 8)))
        name = "".join(rng.choice("abc") for _ in range(rng.randint(0, 10)))
        assert bool(compile_glob(pattern).match(name)) == fnmatch.fnmatchcase(name, pattern), (pattern, name)


CATASTROPHIC = """
import sys
from jupyter_agent.tools.glob_pattern import compile_glob
name = "a" * 60
for pattern in ("*a" * 30 + "b", "**/" + "*a" * 30 + "b", "/".join(["**", "a"] * 25) + "/b", "*a*a*a*a*a*a*a*a*a*a*a*a/**/c"):
    path = "/".join([name] * 3) if "/" in pattern else name
    assert not compile_glob(pattern).match(path)
    assert not compile_glob(pattern).match("/".join(["a"] * 60))
print("ok")
"""


def test_catastrophic_patterns_finish():
    # A backtracking translation takes longer than the universe's age here; in a subprocess the
    # test fails at the timeout instead of freezing the test run (the engine holds the GIL).
    result = subprocess.run([sys.executable, "-c", CATASTROPHIC], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "ok", result.stderr
