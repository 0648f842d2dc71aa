"""Shared fixtures: every test gets its own data dir, so nothing touches data/."""

from __future__ import annotations

import pytest

from docchat.bootstrap import build_services
from docchat.config import Settings


NO_SERVER = "http://127.0.0.1:9/v1"


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    path = tmp_path / "data"
    monkeypatch.setenv("DOCCHAT_DATA_DIR", str(path))
    monkeypatch.delenv("DOCCHAT_DATABASE_URL", raising=False)
    # No LLM server for these tiers, whatever runs on this machine: port 9 refuses at once.
    monkeypatch.setenv("DOCCHAT_LLM_URL", NO_SERVER)
    return path


@pytest.fixture
def services(data_dir):
    return build_services(Settings(data_dir=data_dir))
