"""Retrieval's pure code, text and numbers in and out, which the services use directly: how a
document's sections become chunks (`chunking`), the words a keyword search and the evidence
judgement look for (`words`), and how the keyword and meaning rankings are fused (`fusion`).
It imports the standard library and the domain only (tests/unit/test_architecture.py)."""
