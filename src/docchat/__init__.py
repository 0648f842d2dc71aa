"""docchat: chat with your documents, locally."""

from pathlib import Path

__version__ = "0.1.0"
# The checkout docchat runs from (an editable install: this file is in src/docchat of it), where
# app.py and the LLM server's environment are.
CHECKOUT = Path(__file__).resolve().parents[2]
