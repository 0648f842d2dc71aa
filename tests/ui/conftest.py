from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def chat_page(services):
    """The chat page over the same temporary data dir as the `services` fixture."""

    def open_page(conversation_id: str | None = None) -> AppTest:
        page = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
        if conversation_id:
            page.query_params["c"] = conversation_id
        return page.run()

    return open_page
