"""BM25-style sparse vectors for Qdrant, for the baseline of `docchat bench retrieval`.

docchat once kept these in Qdrant next to the dense vectors and let Qdrant fuse the two; the
keyword side now lives in SQLite's FTS5 (Qdrant's local mode scores sparse vectors point by
point in Python). The benchmark keeps this layout to show what the move bought.

Invariants:
- Deterministic: the same text gives the same vector in every process and on every machine.
  Term ids come from CRC-32 (not `hash()`, which Python salts per process), so vectors written
  by one run match queries made by the next.
- The same term gets the same id on the document side and on the query side.
- Indices in one vector are unique and ascending; two terms that collide on an id add up.

Scoring: a document's weight for a term is BM25's saturated term frequency,
tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / AVERAGE_LENGTH)), with k1 = 1.2 and b = 0.75.
AVERAGE_LENGTH is fixed rather than measured: chunks are cut to a similar size, and a fixed
value keeps a stored vector valid however the library grows. A query term weighs 1, so the dot
product Qdrant computes is the BM25 sum; the IDF half comes from `Modifier.IDF` on the
collection's sparse vector, which Qdrant keeps current as points come and go.

Terms are those of `docchat.retrieval.words`, as on docchat's own keyword side.
"""

from __future__ import annotations

import zlib
from collections import Counter
from dataclasses import dataclass

from docchat.retrieval.words import tokenize

K1 = 1.2
B = 0.75
# Terms in a typical chunk: MiniLM reads 256 word pieces (about 180 words), and about 100 of
# those words are left once stopwords go.
AVERAGE_LENGTH = 100.0
_TERM_ID_MASK = 0x7FFF_FFFF


@dataclass(frozen=True)
class SparseVector:
    """Term ids (ascending, unique) and their weights."""

    indices: tuple[int, ...]
    values: tuple[float, ...]

    def __bool__(self) -> bool:
        return bool(self.indices)


def term_id(term: str) -> int:
    """A stable id for a term: CRC-32 of its UTF-8 bytes, kept to 31 bits."""
    return zlib.crc32(term.encode("utf-8")) & _TERM_ID_MASK


def document_vector(text: str) -> SparseVector:
    """The document side: BM25-saturated term frequencies, normalised by length."""
    terms = tokenize(text)
    length_norm = 1 - B + B * len(terms) / AVERAGE_LENGTH
    weights = {
        term: tf * (K1 + 1) / (tf + K1 * length_norm) for term, tf in Counter(terms).items()
    }
    return _by_id(weights)


def query_vector(text: str) -> SparseVector:
    """The query side: each distinct term weighs 1, however often it is typed."""
    return _by_id(dict.fromkeys(tokenize(text), 1.0))


def _by_id(weights: dict[str, float]) -> SparseVector:
    summed: dict[int, float] = {}
    for term, weight in weights.items():
        index = term_id(term)
        summed[index] = summed.get(index, 0.0) + weight
    indices = tuple(sorted(summed))
    return SparseVector(indices, tuple(summed[index] for index in indices))
