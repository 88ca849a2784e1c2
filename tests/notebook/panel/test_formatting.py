from jupyter_agent.notebook.panel import formatting as fmt


def test_args_sections_split_code_from_json():
    sections = fmt.args_sections({"code": "import os\nos.listdir()", "timeout": 5})
    assert sections == [("arguments", '{\n  "timeout": 5\n}', "json"), ("code", "import os\nos.listdir()", "python")]
    assert fmt.args_sections({"path": "a.csv"}) == [("arguments", '{\n  "path": "a.csv"\n}', "json")]
    assert fmt.args_sections("raw")[0][2] == "json"


def test_summary_and_truncate():
    assert fmt.args_summary({"command": "ls   -la\n/tmp"}) == "ls -la /tmp"
    assert fmt.args_summary({"x": "y" * 100}, width=10) == "yyyyyyyyy…"
    # The plan tool's arguments: the first given one, counted rather than dumped as JSON.
    assert fmt.args_summary({"items": None, "updates": [{"id": 1}, {"id": 2}]}) == "updates: 2 items"
    assert fmt.args_summary({"items": [{"text": "load"}]}) == "items: 1 item"
    assert fmt.args_summary({"options": {"a": 1, "b": 2}}) == "options: a, b"
    assert fmt.args_summary({"n": 3}) == "3"
    assert fmt.truncate("abcdef", 3) == "abc\n… (3 more characters not shown)"


def test_numbers():
    assert [fmt.tokens(n) for n in (0, 999, 1500, 2_500_000)] == ["0", "999", "1.5k", "2.50M"]
    assert [fmt.cost(x) for x in (0, None, 0.01234, 12.5)] == ["n/a", "n/a", "$0.0123", "$12.50"]
    assert [fmt.elapsed(x) for x in (3.21, 42, 65)] == ["3.2 s", "42 s", "1 m 05 s"]


def test_blocks_as_dicts_or_models(kit):
    content = [kit.text("a"), {"type": "text", "text": "b"}, kit.image()]
    assert fmt.output_text(content) == "a\nb"
    assert fmt.images(content) == [(kit.png, "image/png")]


def test_error_text():
    assert fmt.error_text(ValueError("bad")) == "ValueError: bad"
    assert fmt.error_text(TimeoutError()) == "TimeoutError"
    assert fmt.error_text("plain") == "plain"


def test_shown_text_never_carries_a_key_even_clipped():
    import uuid

    from jupyter_agent.model.secrets import remember_secret

    key = f"given-{uuid.uuid4().hex}"
    remember_secret("api_key", key)
    assert fmt.output_text([{"type": "text", "text": f"env: {key}"}]) == "env: [redacted:api_key]"
    assert fmt.error_text(ValueError(f"401 for {key}")) == "ValueError: 401 for [redacted:api_key]"
    assert key[:8] not in fmt.args_summary({"command": f"curl -H 'x: {key}'"}, width=20)
    assert all(key not in text for _, text, _ in fmt.args_sections({"command": f"echo {key}", "n": key}))
