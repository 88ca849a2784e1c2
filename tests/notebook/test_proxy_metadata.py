from pathlib import Path

from jupyter_agent.model import StreamOptions
from jupyter_agent.notebook.model_resolution import with_credentials
from jupyter_agent.notebook.proxy_metadata import notebook_user, proxy_request_fields


def test_a_proxy_model_gets_the_user_and_tags_of_the_notebook():
    fields = proxy_request_fields(
        "litellm_proxy/team-model", "main", Path("/home/alice/sales.ipynb"), {"JUPYTERHUB_USER": "alice"}
    )
    assert fields == {
        "user": "alice",
        "extra_body": {
            "metadata": {
                "tags": ["jupyter-agent", "session:main", "notebook:sales.ipynb"],
                "session": "main",
                "notebook": "/home/alice/sales.ipynb",
            }
        },
    }


def test_other_providers_are_told_nothing():
    assert proxy_request_fields("openai/gpt-4.1-mini", "main", None, {"JUPYTERHUB_USER": "alice"}) == {}


def test_the_user_is_the_configured_one_then_the_hub_user_then_the_login():
    assert notebook_user({"JUPYTER_AGENT_USER": "a.b@corp", "JUPYTERHUB_USER": "ab"}) == "a.b@corp"
    assert notebook_user({"JUPYTERHUB_USER": "ab"}) == "ab"
    assert notebook_user({}) not in ("", None)


def test_the_fields_reach_every_request_unless_the_caller_sets_them():
    seen = []

    def stream(model, context, options=None, metadata=None):
        seen.append(options.extra)

    wrapped = with_credentials(stream, None, None, request_fields={"user": "alice", "extra_body": {"metadata": {}}})
    wrapped(None, None)
    wrapped(None, None, StreamOptions(extra={"user": "someone-else"}))
    assert seen == [{"user": "alice", "extra_body": {"metadata": {}}}, {"user": "someone-else", "extra_body": {"metadata": {}}}]
