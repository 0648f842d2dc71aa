"""Settings, read once from the environment (prefix DOCCHAT_)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="DOCCHAT_", extra="ignore")

    data_dir: Path = Field(default=Path("data"))
    database_url: str | None = None
    # The model whose tokenizer counts tokens: the gpu profile's model.
    tokenizer_model: str = "Qwen/Qwen3-4B-Instruct-2507"
    # Seconds a writer waits for SQLite's lock before giving up.
    busy_timeout_s: float = 10.0

    @property
    def resolved_data_dir(self) -> Path:
        return self.data_dir.expanduser().resolve()

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.resolved_data_dir / 'docchat.db'}"
