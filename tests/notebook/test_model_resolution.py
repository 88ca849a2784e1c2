import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

from jupyter_agent.model import Model, StreamOptions
from jupyter_agent.notebook.model_resolution import (
    DEMO_NAME,
    choose_model,
    local_ollama_model,
    register_model,
    resolve,
    unregister_model,
    with_credentials,
)

NO_OLLAMA = lambda: None  # noqa: E731


def test_the_cell_option_wins_over_everything():
    env = {"JUPYTER_AGENT_MODEL": "env-model", "OPENAI_API_KEY": "k"}
    choice = choose_model("opt-model", "session-model", "config-model", env, NO_OLLAMA)
    assert (choice.name, choice.source) == ("opt-model", "option")


def test_order_session_then_configuration_then_environment():
    from jupyter_agent.notebook.config import AgentConfig

    env = {"JUPYTER_AGENT_MODEL": "env-model"}
    assert choose_model(None, "s", "c", env, NO_OLLAMA).source == "session"
    assert choose_model(None, None, "c", env, NO_OLLAMA).name == "c"
    # JUPYTER_AGENT_MODEL is the model setting's variable: the settings read it, and say so.
    config = AgentConfig.from_magics(SimpleNamespace(model=""), env)
    choice = choose_model(None, None, config.model, env, NO_OLLAMA, configured_by=config.set_by("model"))
    assert (choice.name, choice.source) == ("env-model", "environment")
    config = AgentConfig.from_magics(SimpleNamespace(model="c"), env)
    assert config.set_by("model") == "configuration"


def test_first_provider_whose_key_is_set():
    choice = choose_model(None, None, "", {"OPENAI_API_KEY": "k", "GEMINI_API_KEY": "k"}, NO_OLLAMA)
    assert choice.name.startswith("openai/")
    assert choice.source == "OPENAI_API_KEY"
    assert choose_model(None, None, "", {"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k"}, NO_OLLAMA).name.startswith(
        "anthropic/"
    )


def test_an_empty_key_does_not_count():
    assert choose_model(None, None, "", {"OPENAI_API_KEY": ""}, NO_OLLAMA).is_demo


def test_local_ollama_then_the_offline_demo():
    assert choose_model(None, None, "", {}, lambda: "ollama_chat/llama3.2").name == "ollama_chat/llama3.2"
    choice = choose_model(None, None, "", {}, NO_OLLAMA)
    assert choice.name == DEMO_NAME and choice.is_demo and choice.source == "default"


class _Tags(BaseHTTPRequestHandler):
    body = {"models": [{"name": "llama3.2:latest"}, {"name": "qwen3:8b"}]}

    def do_GET(self):
        data = json.dumps(self.body).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def test_ollama_probe_reads_the_first_pulled_model():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Tags)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        assert local_ollama_model(f"http://127.0.0.1:{server.server_address[1]}") == "ollama_chat/llama3.2:latest"
    finally:
        server.shutdown()
        server.server_close()


def test_ollama_probe_is_quick_when_nothing_listens():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again before the probe: connection refused
    started = time.monotonic()
    assert local_ollama_model(f"http://127.0.0.1:{port}") is None
    assert time.monotonic() - started < 1.0


def test_credentials_are_added_but_never_override_the_request():
    seen = []

    def stream(model, context, options=None, metadata=None):
        seen.append(options)

    wrapped = with_credentials(stream, "key-1", "http://127.0.0.1:1/v1")
    wrapped(Model(id="m"), None)
    wrapped(Model(id="m"), None, StreamOptions(api_key="explicit"))
    assert (seen[0].api_key, seen[0].api_base) == ("key-1", "http://127.0.0.1:1/v1")
    assert seen[1].api_key == "explicit"
    assert with_credentials(stream, None, None) is stream
    timed = with_credentials(stream, None, None, idle_timeout=7.0)
    timed(Model(id="m"), None)
    timed(Model(id="m"), None, StreamOptions(idle_timeout=2.0))
    assert (seen[2].idle_timeout, seen[3].idle_timeout) == (7.0, 2.0)


def test_resolve_demo_and_registered_models_without_litellm():
    demo = resolve(choose_model("demo", None, "", {}, NO_OLLAMA))
    assert demo.is_demo and demo.model.provider == "demo" and "demo" in demo.label
    fn = lambda *a: None  # noqa: E731
    register_model("my-local", fn, Model(id="my-local", context_window=1000))
    try:
        resolved = resolve(choose_model("my-local", None, "", {}, NO_OLLAMA))
        assert resolved.stream_fn is fn and resolved.model.context_window == 1000
    finally:
        unregister_model("my-local")
