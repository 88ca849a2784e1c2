import difflib
import random

from jupyter_agent.tools.edit_diff import edit_diff, occurrences


def apply(diff: str, before: list[str]) -> list[str]:
    """Applies a unified diff, checking every context and removed line against ``before``."""
    lines = diff.split("\n")[2:]
    after: list[str] = []
    cursor = 0
    for text in lines:
        if text.startswith("@@"):
            old_start = int(text.split()[1][1:].split(",")[0])
            old_count = int(text.split()[1].split(",")[1]) if "," in text.split()[1] else 1
            start = old_start - 1 if old_count else old_start
            assert start >= cursor
            after.extend(before[cursor:start])
            cursor = start
        elif text.startswith("+"):
            after.append(text[1:])
        else:
            assert before[cursor] == text[1:], (cursor, text)
            if text.startswith(" "):
                after.append(text[1:])
            cursor += 1
    return after + before[cursor:]


def test_a_one_place_edit_is_the_whole_file_diff():
    body = "".join(f"line {i}\n" for i in range(100))
    expected = "\n".join(
        difflib.unified_diff(body.split("\n"), body.replace("line 50", "LINE").split("\n"), "a/f", "b/f", lineterm="")
    )
    assert edit_diff(body, "line 50", "LINE", occurrences(body, "line 50"), "f", 1000) == expected


def test_random_edits_give_diffs_that_turn_the_old_file_into_the_new():
    rng = random.Random(11)
    words = ["alpha", "beta", "gamma", "x = 1", "", "def f():", "    return 2"]
    for _ in range(2000):
        body = "\n".join(rng.choice(words) for _ in range(rng.randint(1, 40))) + rng.choice(["", "\n"])
        if not body:
            continue
        start = rng.randrange(len(body))
        old = body[start : start + rng.randint(1, 30)]
        new = rng.choice(["", "z", "new\nlines\n", old + "\nmore"])
        if old == new:
            continue
        replace_all = rng.random() < 0.5
        positions = occurrences(body, old)
        if not replace_all:
            positions = positions[:1]
        changed = body.replace(old, new) if replace_all else body.replace(old, new, 1)
        diff = edit_diff(body, old, new, positions, "f", 10_000)
        assert apply(diff, body.split("\n")) == changed.split("\n"), (body, old, new)


def test_occurrences_do_not_overlap_like_str_replace():
    assert occurrences("aaaa", "aa") == [0, 2]
    assert occurrences("abc", "x") == []


def test_a_diff_of_many_places_stops_past_the_line_budget():
    body = "hit\n" + "other\n" * 10 + "hit\n" * 50 + "filler\n" * 10
    body *= 100
    diff = edit_diff(body, "hit", "miss", occurrences(body, "hit")[:90], "f", 100)
    assert 100 < len(diff.split("\n")) < 250
    assert edit_diff(body, "hit", "miss", occurrences(body, "hit"), "f", 100).endswith(
        "[5100 places changed: too many to show; read the file to see the result.]"
    )
