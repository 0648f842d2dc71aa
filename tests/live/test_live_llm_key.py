"""The vLLM server docchat starts is docchat's alone: a web page (or anything else on this
machine without the key) gets nothing from its model, and no web page may read its replies."""

from __future__ import annotations

import stat
from pathlib import Path

import httpx

from docchat.llm.discovery import auth

QUESTION = {"model": "SmolLM2-135M-Instruct", "max_tokens": 4,
            "messages": [{"role": "user", "content": "What colour is the sky?"}]}


def test_the_model_answers_only_requests_that_carry_the_key(live_llm):
    anonymous = httpx.post(f"{live_llm.url}/chat/completions", json=QUESTION, timeout=60)
    guessed = httpx.post(f"{live_llm.url}/chat/completions", json=QUESTION, headers=auth("local"), timeout=60)
    keyed = httpx.post(f"{live_llm.url}/chat/completions", json=QUESTION, headers=auth(live_llm.api_key), timeout=120)

    assert anonymous.status_code == 401 and guessed.status_code == 401
    assert keyed.status_code == 200 and keyed.json()["choices"][0]["message"]["content"]


def test_no_web_page_may_read_the_servers_replies(live_llm):
    preflight = httpx.options(f"{live_llm.url}/chat/completions", timeout=30,
                              headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "POST",
                                       "Access-Control-Request-Headers": "authorization,content-type"})
    models = httpx.get(f"{live_llm.url}/models", headers={"Origin": "http://evil.example", **auth(live_llm.api_key)},
                       timeout=30)

    assert "access-control-allow-origin" not in preflight.headers
    assert models.status_code == 200 and "access-control-allow-origin" not in models.headers


def test_the_key_is_kept_off_the_command_line_and_readable_by_the_user_alone(live_llm):
    command_line = Path(f"/proc/{live_llm.process.pid}/cmdline").read_bytes()

    assert live_llm.api_key.encode() not in command_line  # `ps` shows it to every user
    assert live_llm.key_path.read_text() == live_llm.api_key
    assert stat.S_IMODE(live_llm.key_path.stat().st_mode) == 0o600
