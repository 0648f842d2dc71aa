"""Hypothesis strategies for the text and JSON a hostile or unlucky user can hand docchat."""

from __future__ import annotations

from hypothesis import strategies as st

# What breaks naive text handling: NUL and other controls, zero-width and byte-order marks,
# right-to-left text and bidi overrides, combining marks, emoji joined into one glyph, CRLF.
HOSTILE_PIECES = [
    "\x00", "\x07", "\x1b[31m", "\r\n", "\r", "\t", "\x85", "\u2028", "\u2029",
    "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad",
    "\u202e", "\u202d", "\u200f", "\u061c", "\u2067",
    "שלום עולם", "مرحبا بالعالم", "e\u0301", "\u0915\u094d\u0937",
    "👩\u200d👩\u200d👧", "🏳️\u200d🌈", "\U0001f1ec\U0001f1e7", "💩",
    "\ufffd", "\U0010ffff", "\uffff", "Determination Date", "  ", "",
]


def hostile_text(*, min_size: int = 0, max_size: int = 40, nul: bool = True) -> st.SearchStrategy[str]:
    """Text any UTF-8 file can hold (no lone surrogates), mixed with the pieces above: about
    `max_size` characters at most, at least one piece when `min_size` is not 0; `nul=False`:
    without NUL, so text docchat stores (it refuses NUL, which PostgreSQL cannot hold)."""
    pieces = HOSTILE_PIECES if nul else [piece for piece in HOSTILE_PIECES if "\x00" not in piece]
    characters = st.characters(codec="utf-8") if nul else st.characters(codec="utf-8", exclude_characters="\x00")
    piece = st.one_of(st.sampled_from(pieces), st.text(characters, max_size=12))
    if min_size:
        piece = piece.filter(bool)
    return st.lists(piece, min_size=1 if min_size else 0, max_size=max_size // 4 + 1).map("".join).filter(
        lambda text: len(text) >= min_size)


def surrogate_text() -> st.SearchStrategy[str]:
    """Text holding at least one lone surrogate: what Python makes of invalid UTF-8 in argv."""
    return st.tuples(hostile_text(), st.characters(categories=["Cs"]), hostile_text()).map("".join)


def keys() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(["schema", "version", "messages", "content", "id", "role", "mapping", "chat",
                                      "parts", "current_node", "history", "checksum", "seq", ""]),
                     st.text(max_size=10))


def json_values(*, finite: bool = False) -> st.SearchStrategy:
    """Any JSON value, nested; `finite=False` adds NaN and the infinities Python's json writes."""
    scalars = st.one_of(
        st.none(), st.booleans(), st.integers(), st.integers(min_value=2**31 - 2, max_value=2**70),
        st.floats(allow_nan=not finite, allow_infinity=not finite), hostile_text(), st.text(max_size=20),
    )
    return st.recursive(scalars, lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(keys(), inner, max_size=4)), max_leaves=12)
