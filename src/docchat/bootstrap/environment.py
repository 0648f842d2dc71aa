"""The environment the libraries under docchat read when they load: set before any of them is
imported (the composition root imports this first), never overriding what the user set."""

from __future__ import annotations

import logging
import os

# Libraries below us otherwise try the network at import time and wait on it.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# torch's OpenMP threads (the embedding model) would otherwise spin while they wait, taking
# the cores from the LLM server beside us: a 6 ms query embedding took 500 ms while it generated.
# Read when torch loads, so it is set before anything imports it.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# A program that falls back is normal here; dspy's own warnings would only be noise on stderr.
logging.getLogger("dspy").setLevel(logging.ERROR)
