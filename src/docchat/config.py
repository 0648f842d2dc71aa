"""Settings, read once from the environment (prefix DOCCHAT_).

A pydantic model that reads its own variables: pydantic-settings did the same for these plain
fields, as one more dependency and 0.02-0.05 s of every command's start (measured on two cores).
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from docchat import CHECKOUT, LOOPBACK, machine_cache_dir
from docchat.context.prompt import SYSTEM_PROMPT

ENV_PREFIX = "DOCCHAT_"


def _from_environment(names) -> dict[str, str]:
    """DOCCHAT_<NAME> for each setting, its name in any case (as a shell user may write it)."""
    environment = {key.upper(): value for key, value in os.environ.items()}
    return {name: environment[key] for name in names if (key := ENV_PREFIX + name.upper()) in environment}


class Settings(BaseModel):
    """What is given wins over the environment, which wins over the defaults."""

    model_config = ConfigDict(extra="ignore")

    def __init__(self, **given: Any) -> None:
        super().__init__(**{**_from_environment(type(self).model_fields), **given})

    data_dir: Path = Field(default=Path("data"))
    database_url: str | None = None
    # The model whose tokenizer counts tokens: the gpu profile's model.
    tokenizer_model: str = "Qwen/Qwen3-4B-Instruct-2507"
    # Seconds a writer waits for SQLite's lock before giving up.
    busy_timeout_s: float = 10.0

    # The LLM. With no llm_url, docchat uses the embedded server of llm_profile.
    llm_url: str | None = None
    # The key the LLM server at llm_url wants, if any. The server docchat starts itself gets a
    # new one at each start, kept in the data dir (llm_key_path) for docchat's own processes.
    llm_api_key: str | None = None
    llm_profile: Literal["cpu", "gpu"] = "cpu"
    # Which model to ask when the server serves several (default: the first it lists).
    llm_model: str | None = None
    # The model's window in tokens, for a server that does not say it (llama-cpp-python, Ollama
    # before the model is loaded, a plain OpenAI-compatible one); a server's own figure wins when
    # it is smaller. Unset there: docchat assumes a small window (4,096) and says so.
    llm_window: int | None = Field(default=None, ge=256, le=10_000_000)
    llm_port: int = 8000
    # The answer reserve: max tokens of one answer. Default: the profile's.
    max_tokens: int | None = None
    system_prompt: str = SYSTEM_PROMPT  # docchat.context.prompt: fixed, prefix-stable
    # Conversations answer from their documents only unless they choose otherwise: when nothing
    # is found there, docchat says so (as every conversation does) and never asks the model, even
    # when the user asks for its own words.
    documents_only: bool = False
    # Conversations that have not chosen have their answers quoted from the documents, no model
    # asked, when the documents hold one (a small model's own sentences are often wrong).
    quoted_answers: bool = False
    # The budget planner's caps: shares of the window (less the answer reserve) that each part
    # may take at most; the history gets whatever they leave.
    cap_system: float = Field(default=0.10, gt=0, lt=1)
    cap_summary: float = Field(default=0.15, gt=0, lt=1)
    cap_chunks: float = Field(default=0.30, ge=0, lt=1)
    cap_question: float = Field(default=0.25, gt=0, lt=1)
    # Documents: Qdrant in local mode under the data dir unless a server URL is given.
    qdrant_url: str | None = None
    max_upload_mb: int = Field(default=50, ge=1)
    # Each uploaded file is parsed in a worker process: one whose parsing needs more than
    # parse_timeout_s of processor time (the worker's and its tesseract's, not the time it waits on
    # a busy machine; without progress: each page read by OCR restarts the clock) or more than
    # parse_memory_mb (a decompression bomb, a parser loop) is refused and its worker replaced.
    # Keep the memory well above max_upload_mb: a PDF's parse takes several times its size.
    parse_timeout_s: float = Field(default=20.0, gt=0)
    parse_memory_mb: int = Field(default=1024, ge=256)
    # Names the page and the API answer to besides 127.0.0.1, localhost and [::1] (a reverse
    # proxy's), comma-separated: DOCCHAT_ALLOWED_HOSTS=docs.example.com. Any other Host is
    # refused, so that a web page whose name is re-pointed at this machine cannot use them.
    allowed_hosts: list[str] = Field(default_factory=list)
    # Retrieved passages fill the planner's chunks cap, at least `passages_min` of them (taking
    # room from the history if need be) and at most `passages_max`.
    passages_min: int = Field(default=2, ge=0, le=50)
    passages_max: int = Field(default=256, ge=1, le=1024)
    # Embeddings from an OpenAI-compatible server (e.g. vLLM with an embedding model) instead of
    # the bundled MiniLM; the model defaults to the first one the server lists.
    embeddings_url: str | None = None
    embeddings_model: str | None = None
    # DSPy programs (condense, rewrite, title) on the same server; off: truncation, enrichment,
    # first-words titles only.
    context_programs: bool = True
    program_timeout_s: float = 30.0
    first_token_timeout_s: float = 120.0
    between_tokens_timeout_s: float = 60.0
    connect_retries: int = 2
    # Where the embedded cpu profile's server lives (its own virtual environment); a relative
    # path is the checkout's.
    llm_venv: Path = Field(default=Path(".venv-llm"))
    # What docchat makes once per machine and every data dir shares (the bundled model's
    # conversion). Default: $XDG_CACHE_HOME/docchat, else ~/.cache/docchat.
    cache_dir: Path | None = None

    @field_validator("allowed_hosts", mode="before")
    @classmethod
    def _comma_separated(cls, value):
        return [name.strip() for name in value.split(",") if name.strip()] if isinstance(value, str) else value

    @property
    def resolved_data_dir(self) -> Path:
        return self.data_dir.expanduser().resolve()

    @property
    def resolved_llm_venv(self) -> Path:
        venv = self.llm_venv.expanduser()
        return venv if venv.is_absolute() else CHECKOUT / venv

    @property
    def resolved_cache_dir(self) -> Path:
        if self.cache_dir is not None:
            return self.cache_dir.expanduser().resolve()
        return machine_cache_dir()

    @property
    def llm_on_this_machine(self) -> bool:
        """Whether the LLM server is one docchat may serve itself: none named, or one named on
        127.0.0.1, localhost or [::1] (its port is then where `docchat llm serve` listens)."""
        if self.llm_url is None:
            return True
        address = urlsplit(self.llm_url)
        return address.scheme == "http" and address.hostname in LOOPBACK

    @property
    def served_port(self) -> int:
        """Where docchat's own LLM server listens: the port of DOCCHAT_LLM_URL when that names
        this machine (one address setting decides where docchat serves and looks), else llm_port."""
        port = urlsplit(self.llm_url).port if self.llm_url and self.llm_on_this_machine else None
        return port or self.llm_port

    @property
    def llm_key_path(self) -> Path:
        """The key of docchat's own server on `served_port` (docchat.llm.server_key)."""
        return self.resolved_data_dir / f"llm-server-{self.served_port}.key"

    @property
    def embedded_url(self) -> str:
        return f"http://127.0.0.1:{self.served_port}/v1"

    @property
    def resolved_llm_url(self) -> str:
        return (self.llm_url or self.embedded_url).rstrip("/")

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.resolved_data_dir / 'docchat.db'}"
