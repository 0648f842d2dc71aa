import pytest

from docchat.bootstrap import build_services
from docchat.config import Settings

pytestmark = pytest.mark.live

# Short answers at temperature 0 keep the tier quick on two cores.
ANSWER_TOKENS = 48


@pytest.fixture
def live_settings(live_llm, data_dir):
    return Settings(data_dir=data_dir, llm_url=live_llm.url, llm_api_key=live_llm.api_key, max_tokens=ANSWER_TOKENS)


@pytest.fixture
def live_services(live_settings):
    return build_services(live_settings)
