"""Shared fixtures: every test gets its own data dir, so nothing touches data/."""

from __future__ import annotations

import pytest

from docchat.bootstrap import build_services
from docchat.config import Settings


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    path = tmp_path / "data"
    monkeypatch.setenv("DOCCHAT_DATA_DIR", str(path))
    monkeypatch.delenv("DOCCHAT_DATABASE_URL", raising=False)
    return path


@pytest.fixture
def services(data_dir):
    return build_services(Settings(data_dir=data_dir))
