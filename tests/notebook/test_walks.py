"""The three walks of ``walks.py`` in a real kernel: each visits at most the modules it visits now."""

import pytest
from kernel_harness import notebook_kernel
from walks import measure

pytestmark = pytest.mark.kernel

# Modules each walk visits; a change that lengthens one fails here (lower them when one gets shorter).
# Measured the same way on the commit before the feature contract (issue 26): prompt 15, approval 11,
# permissions 18. Since, the prompt also passes the cell's identity (``agent_cells``,
# ``session.cells``) and the privacy gate (``runtime.privacy``), and no longer: the turn request,
# the mentions (a prompt without "@" has none), the session's redactor (a ``model.secrets`` value),
# the run's options (the prompt is the run's input, checked by ``run_agent``), nor the extension
# (the cell transformer lives with the magic whose calls it writes). The approval no longer passes
# the session (``AgentSession.ask``): the run's policy asks its renderer, and its reviewer beside it.
MOST = {"prompt": 14, "approval": 10, "permissions": 15}


@pytest.fixture(scope="module")
def walks(tmp_path_factory):
    kernel = notebook_kernel(tmp_path_factory.mktemp("walks"))
    try:
        yield measure(kernel)
    finally:
        kernel.shutdown()


@pytest.mark.parametrize("name", sorted(MOST))
def test_each_walk_visits_at_most_its_modules(walks, name):
    assert 0 < len(walks[name]) <= MOST[name], walks[name]


def test_the_permissions_setting_reaches_the_gate_from_the_turns_settings(walks):
    modules = list(walks["permissions"])
    assert "jupyter_agent.notebook.config" in modules  # AgentConfig.turn: the cell's option over %config
    assert "jupyter_agent.runtime.permissions" in modules
    # Once: no copy of the modes, no cast, no second limit on the way.
    assert "jupyter_agent.notebook.site_limits" not in modules
