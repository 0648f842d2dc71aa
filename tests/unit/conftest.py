"""Unit-tier fixtures. The Qwen tokenizer is loaded once per session: it is the slow part."""

from __future__ import annotations

import pytest

from docchat.memory.tokens import QwenTokenCounter


@pytest.fixture(scope="session")
def qwen_counter() -> QwenTokenCounter:
    return QwenTokenCounter()
