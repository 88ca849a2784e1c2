"""The errors jupyter-agent raises: one root, and the branch a notebook shows as it stands.

    JupyterAgentError                         the root: ``except JupyterAgentError`` catches them all
     ├── UserFacingError                      its message is for the user: shown without its type or a traceback
     │    ├── session.lock.SessionLockedError
     │    ├── session.store.SessionWriteError (also a runtime.feed.FatalToRun)
     │    ├── notebook.session_manager.SessionNameError
     │    ├── notebook.model_resolution.UnknownModelError
     │    └── features.kernel_state.replay.ReplayError
     ├── the loop and the run
     │    ├── loop.abort.RunCancelled         the default abort reason (notebook.interrupt.AgentInterrupted)
     │    ├── loop.types.AgentLoopError       a failure of the loop (loop.types.ResponseTruncated: stop reason length)
     │    ├── model.event_stream.StreamEndedWithoutResult
     │    ├── runtime.feed.FatalToRun         a listener's failure that must end the run
     │    ├── runtime.permissions.ToolCallDenied
     │    └── runtime.result_budget.ArgumentsTooLarge
     ├── tools: tools.errors.ToolError (an error result the model reads), tools.contained.OutsideWorkspace,
     │    tools.blocking.Stopped
     ├── sessions: session.site_policy.SitePolicyError, session.loading.StaleIndex
     ├── features: features.frontend.FrontendError, features.plan.state.PlanError,
     │    features.memory.store.MemoryRefused, features.mcp.config.ConfigProblem,
     │    features.mcp.connection.ServerUnavailable, features.mcp_server.server.AlreadyServingError,
     │    features.mcp_server.endpoint.PortUnavailableError
     └── notebook: notebook.failed_turn.AgentTurnFailed, notebook.toolset.UnknownToolError,
          notebook.comm.protocol.ProtocolError, notebook.comm.sessions_view.UnknownSessionError

Callers tell errors apart with ``isinstance``, never by message text or class name. Each keeps
the standard base it had (``RuntimeError``, ``ValueError``, ``OSError``, ``LookupError``), so
existing handlers still catch it. A new exception class derives from the root too
(``tests/test_errors.py`` walks the package); the one exception is the MCP launcher, a script
that runs without the package. The loop's ``Agent`` and ``max_turns`` are the loop contract's own
names and keep them.
"""

from __future__ import annotations


class JupyterAgentError(Exception):
    """Root of the errors jupyter-agent raises on purpose."""


class UserFacingError(JupyterAgentError):
    """An error whose message says what went wrong and what to do: shown as it stands."""


__all__ = ["JupyterAgentError", "UserFacingError"]
