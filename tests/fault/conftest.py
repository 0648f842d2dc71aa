"""Fault-tier fixtures: docchat's real services against a fake vLLM that misbehaves on request."""

from __future__ import annotations

import pytest

from docchat.bootstrap import build_services
from docchat.config import Settings


# Short enough that a stall costs the suite little, long enough that a busy machine still answers.
FIRST_TOKEN_TIMEOUT_S = 1.5
BETWEEN_TOKENS_TIMEOUT_S = 1.0
CONNECT_RETRIES = 2


@pytest.fixture
def settings_for(data_dir):
    """Settings over the test's data dir for an LLM at `url`; llm_url wins over the refusing default."""

    def settings(url: str, **overrides) -> Settings:
        values = dict(
            data_dir=data_dir, llm_url=url, first_token_timeout_s=FIRST_TOKEN_TIMEOUT_S,
            between_tokens_timeout_s=BETWEEN_TOKENS_TIMEOUT_S, connect_retries=CONNECT_RETRIES,
            # Only the answer requests reach the fake: no condense, rewrite or title calls.
            context_programs=False,
        )
        return Settings(**{**values, **overrides})

    return settings


@pytest.fixture
def chat_services(fake_llm, settings_for):
    return build_services(settings_for(fake_llm.url + "/v1"))
