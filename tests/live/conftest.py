import pytest

from docchat.bootstrap import build_services
from docchat.config import Settings

pytestmark = pytest.mark.live

# Short answers at temperature 0 keep the tier quick on two cores.
ANSWER_TOKENS = 48
SERVERS = ["vllm", "llamacpp"]


def pytest_generate_tests(metafunc):
    """A test marked `both_servers` runs against vLLM and against llama.cpp's server."""
    if "live_server" in metafunc.fixturenames and metafunc.definition.get_closest_marker("both_servers"):
        metafunc.parametrize("live_server", SERVERS, indirect=True)


@pytest.fixture
def live_server(request):
    """The model server of the test: docchat's own vLLM unless the test runs on both."""
    kind = getattr(request, "param", "vllm")
    return request.getfixturevalue("live_llamacpp" if kind == "llamacpp" else "live_llm")


@pytest.fixture
def live_settings(live_server, data_dir):
    return Settings(data_dir=data_dir, llm_url=live_server.url, llm_api_key=live_server.api_key,
                    max_tokens=ANSWER_TOKENS)


@pytest.fixture
def live_services(live_settings):
    return build_services(live_settings)
