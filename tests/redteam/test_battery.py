"""The fast part of the adversarial battery (``battery.py``): every surface at zero.

0 escapes that contradict the docs, 0 lost records, 0 processes left after the command, the
server or the kernel ended, across the file tools, bash, MCP servers, serve and the site policy.
The same probes at the issue's sizes: ``python tests/redteam/battery.py --full``.
"""

import asyncio
import pathlib
import re
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import battery  # noqa: E402


def assert_clean(figures):
    dirty = [figure.line() for figure in figures if figure.dirty]
    assert dirty == [], "\n" + "\n".join(dirty)


def test_file_tools_never_reach_outside_the_workspace_through_a_swapped_link():
    assert_clean(asyncio.run(battery.file_tool_races(battery.FAST)))


def test_file_tools_never_follow_the_file_itself_swapped_for_a_link_out():
    assert_clean(asyncio.run(battery.file_tool_last_component_races(battery.FAST)))


def test_file_tools_refuse_every_static_path_trick():
    assert_clean(asyncio.run(battery.file_tool_path_tricks()))


def test_bash_jobs_end_with_their_command_unless_they_detached():
    figures = asyncio.run(battery.bash_jobs())
    assert_clean(figures)
    assert [figure.case for figure in figures if figure.detached] == ["nohup (detached by choice)", "setsid (detached by choice)"]
    assert len(figures) == 10


def test_a_malformed_mcp_json_is_one_line_naming_it_and_the_other_files_are_used():
    assert_clean(battery.mcp_malformed_files())


def test_mcp_logs_are_capped_and_timeouts_bounded():
    assert_clean(asyncio.run(battery.mcp_log_and_timeouts(battery.FAST)))


def test_serve_answers_no_request_without_the_right_token_and_counts_them():
    [figure] = asyncio.run(battery.serve_tokens())
    assert_clean([figure])
    # Every wrong token that reached the server was answered 401 and counted in the serve panel.
    assert re.match(r"(\d+) answered 401 and the panel counts \1, ", figure.note), figure.note
    assert int(figure.note.split()[0]) >= 8 and figure.note.endswith("the right token: 200")


def test_serve_sessions_left_open_expire_and_are_capped():
    assert_clean(asyncio.run(battery.serve_sessions(battery.FAST)))


def test_session_records_survive_bad_bytes_and_a_full_disk():
    assert_clean([battery.session_bad_bytes(), battery.session_full_disk()])


@pytest.mark.kernel
@pytest.mark.parametrize("how", ["shutdown", "SIGKILL"])
def test_a_running_bash_command_ends_with_the_kernel(how):
    assert_clean([battery.bash_at_kernel_end(how)])


@pytest.mark.kernel
@pytest.mark.parametrize("how", ["stop", "shutdown", "SIGKILL"])
def test_an_mcp_servers_children_end_with_it(how):
    assert_clean([battery.mcp_children(how)])


@pytest.mark.kernel
def test_the_site_policy_cannot_be_switched_off_or_broken_into_allowing_everything():
    assert_clean(battery.site_policy_tricks())
