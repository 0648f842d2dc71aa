"""Checks once that local token counts equal the server's for a sample conversation."""

from __future__ import annotations

import logging

import httpx

from docchat.llm.discovery import ServerInfo, server_token_count
from docchat.memory.tokens import TokenCounter

log = logging.getLogger(__name__)

SAMPLE = [
    {"role": "system", "content": "You are docchat, a careful assistant."},
    {"role": "user", "content": "What is the Determination Date in the 2024 trust agreement?"},
    {"role": "assistant", "content": "It is the 15th of each month; if that is not a business day, the next one."},
    {"role": "user", "content": "And what happens if it falls on a weekend?"},
]


def calibrate(counter: TokenCounter, info: ServerInfo) -> str:
    """'matches server (N tokens)', or what differs. Logged when it differs."""
    local = sum(counter.count_message(m["role"], m["content"]) for m in SAMPLE)
    local += getattr(counter, "generation_prompt_tokens", 0)
    try:
        server = server_token_count(info.base_url, info.model, SAMPLE)
    except (httpx.HTTPError, KeyError, ValueError) as error:
        return f"not checked: /tokenize failed ({error})"
    if server == local:
        return f"matches server ({server} tokens)"
    log.warning("token counter %s counts %d tokens for the sample conversation, the server %d",
                counter.id, local, server)
    return f"differs: local {local} vs server {server} tokens for the sample conversation"
