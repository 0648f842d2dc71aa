"""Integration fixtures: a second, independent installation next to the default one."""

from __future__ import annotations

from pathlib import Path

import pytest

from docchat.bootstrap import Services, build_services
from docchat.config import Settings


@pytest.fixture
def other_data_dir(tmp_path) -> Path:
    return tmp_path / "other-data"


@pytest.fixture
def other_services(other_data_dir) -> Services:
    """A second, independent installation: its own data dir, its own database."""
    return build_services(Settings(data_dir=other_data_dir))
