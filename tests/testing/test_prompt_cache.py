"""The fake provider's prompt cache: a request reads the prefix an earlier one wrote at a breakpoint."""

from jupyter_agent.testing.prompt_cache import PromptCache, estimate_tokens, request_segments, with_cache_usage

EPHEMERAL = {"type": "ephemeral"}


def marked(text: str) -> list[dict]:
    return [{"type": "text", "text": text, "cache_control": EPHEMERAL}]


def request(system: str, *turns: str, mark_last: bool = True) -> dict:
    messages = [{"role": "system", "content": marked(system)}]
    for index, text in enumerate(turns):
        last = index == len(turns) - 1
        messages.append({"role": "user", "content": marked(text) if last and mark_last else text})
        if not last:
            messages.append({"role": "assistant", "content": f"answer to {text}"})
    return {"messages": messages, "tools": [{"type": "function", "function": {"name": "f"}, "cache_control": EPHEMERAL}]}


def test_a_request_reads_what_an_earlier_one_wrote_at_its_breakpoints():
    cache = PromptCache()
    first = cache.serve(request("rules " * 50, "question one"))
    assert first.cached_tokens == 0 and first.written_tokens == first.prompt_tokens
    second = cache.serve(request("rules " * 50, "question one", "question two"))
    # Everything up to the first request's last breakpoint (its prompt, now unmarked) is cached.
    assert second.cached_tokens == first.prompt_tokens
    assert second.written_tokens == second.prompt_tokens - first.prompt_tokens
    assert 0 < cache.cached_fraction < 1


def test_a_changed_prefix_or_a_request_without_breakpoints_reads_nothing():
    cache = PromptCache()
    cache.serve(request("rules v1", "question"))
    tools_only = estimate_tokens(request_segments(request("rules v2", "question"))[0][0])
    # The tool list comes first and did not change: only it is read from the cache.
    assert cache.serve(request("rules v2", "question")).cached_tokens == tools_only
    bare = {"messages": [{"role": "user", "content": "hi"}]}
    cold = PromptCache()
    assert cold.serve(bare).written_tokens == 0 and cold.serve(bare).cached_tokens == 0


def test_segments_ignore_the_markers_and_put_tools_before_the_system_prompt():
    plain = {"messages": [{"role": "user", "content": "hi"}, {"role": "system", "content": "s"}], "tools": [{"name": "t"}]}
    segments = request_segments(plain)
    assert [text for text, _ in segments] == [
        '{"name": "t"}',
        '{"content": "s", "role": "system"}',
        '{"content": "hi", "role": "user"}',
    ]
    assert request_segments({"messages": [{"role": "user", "content": marked("hi")}]}) == [
        ('{"content": "hi", "role": "user"}', True)
    ]
    assert estimate_tokens("abcde") == 2


def test_the_usage_chunk_reports_the_cache_as_openai_does():
    chunks = [{"choices": []}, {"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 7}}]
    cache = PromptCache()
    cache.serve(request("rules", "q"))
    use = cache.serve(request("rules", "q", "r"))
    usage = with_cache_usage(chunks, use)[1]["usage"]
    assert usage["prompt_tokens"] == use.prompt_tokens and usage["completion_tokens"] == 7
    assert usage["prompt_tokens_details"] == {"cached_tokens": use.cached_tokens}
    assert usage["cache_creation_input_tokens"] == use.written_tokens
    assert chunks[1]["usage"] == {"prompt_tokens": 1, "completion_tokens": 7}  # the script itself is unchanged
