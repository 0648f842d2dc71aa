"""Fault-tier fixtures: docchat's real services against a fake vLLM that misbehaves on request."""

from __future__ import annotations

import pytest

from docchat.bootstrap import build_services
from docchat.config import Settings


# Only a test about a stall waits under these (`impatient_services`): short, so a stall costs the
# suite little. Every other test waits as long as a user would, because a 1.5 s first-token limit
# fired on a loaded machine for a stand-in that answers at once: the same process was loading
# the embedding model on its warm-up thread, whose ONNX calls hold the GIL for 0.1-0.2 s at a
# time on a quiet machine and several times that on a busy one.
FIRST_TOKEN_TIMEOUT_S = 1.5
BETWEEN_TOKENS_TIMEOUT_S = 1.0
PATIENT_TIMEOUT_S = 60.0
CONNECT_RETRIES = 2


@pytest.fixture
def settings_for(data_dir):
    """Settings over the test's data dir for an LLM at `url`; llm_url wins over the refusing default."""

    def settings(url: str, **overrides) -> Settings:
        values = dict(
            data_dir=data_dir, llm_url=url, first_token_timeout_s=PATIENT_TIMEOUT_S,
            between_tokens_timeout_s=PATIENT_TIMEOUT_S, connect_retries=CONNECT_RETRIES,
            # Only the answer requests reach the fake: no condense, rewrite or title calls.
            context_programs=False,
        )
        return Settings(**{**values, **overrides})

    return settings


@pytest.fixture
def chat_services(fake_llm, settings_for):
    return build_services(settings_for(fake_llm.url + "/v1"))


@pytest.fixture
def impatient_services(fake_llm, settings_for):
    """Services that give up on a silent server quickly: for the tests of what a stall does."""
    return build_services(settings_for(fake_llm.url + "/v1", first_token_timeout_s=FIRST_TOKEN_TIMEOUT_S,
                                       between_tokens_timeout_s=BETWEEN_TOKENS_TIMEOUT_S))
