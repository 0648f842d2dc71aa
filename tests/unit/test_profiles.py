"""Whether the gpu profile's context fits a card, and the vLLM command line it leads to.

The expected numbers are worked out here from the model's sizes, not read back from the module.
"""

from __future__ import annotations

import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

from docchat.llm.profiles import cpu_dtype, gpu_command, gpu_fit

GIB = 1024**3
FULL_CONTEXT = 262_144


def largest_context_on(gpu_gib: int) -> int:
    """92% of the card, less 7.5 GiB of weights and 3.5 GiB of overhead, at 72 KiB per token."""
    usable = Fraction(gpu_gib) * Fraction(92, 100) * GIB
    room = usable - Fraction(15, 2) * GIB - Fraction(7, 2) * GIB
    tokens = int(room // (72 * 1024))
    return tokens // 1024 * 1024


def option(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def test_the_full_context_fits_on_a_40_gib_gpu():
    fit = gpu_fit(40)

    assert fit.fits_full_context
    assert fit.max_model_len == FULL_CONTEXT
    assert "262,144 tokens fit" in fit.explain()


def test_a_24_gib_gpu_gets_the_largest_context_that_fits_and_says_so():
    fit = gpu_fit(24)

    assert largest_context_on(24) == 160_768
    assert fit.max_model_len == largest_context_on(24)
    assert not fit.fits_full_context
    assert "160,768" in fit.explain()
    assert "instead" in fit.explain()


def test_an_8_gib_gpu_cannot_hold_any_context():
    fit = gpu_fit(8)

    assert fit.max_model_len == 0
    assert not fit.fits_full_context


def test_the_gpu_command_serves_an_fp8_cache_on_localhost_with_prompt_token_details():
    command = gpu_command(160_768)

    assert option(command, "--kv-cache-dtype") == "fp8"
    assert option(command, "--max-model-len") == "160768"
    assert option(command, "--host") == "127.0.0.1"
    assert "--enable-prompt-tokens-details" in command


def test_docchat_llm_command_for_a_24_gib_gpu_prints_the_reduced_context(tmp_path):
    docchat = Path(sys.executable).with_name("docchat")

    finished = subprocess.run(
        [str(docchat), "llm", "command", "--profile", "gpu", "--gpu-memory-gib", "24"],
        env={**os.environ, "DOCCHAT_DATA_DIR": str(tmp_path / "data")}, cwd=tmp_path,
        capture_output=True, text=True, timeout=60,
    )

    assert finished.returncode == 0, finished.stderr
    printed = finished.stdout.split()
    assert option(printed, "--max-model-len") == str(largest_context_on(24))
    assert option(printed, "--kv-cache-dtype") == "fp8"
    assert "instead" in finished.stderr


def test_the_cpu_server_computes_in_fp32_unless_the_cpu_has_native_bf16():
    assert cpu_dtype("flags : fpu sse4_2 avx2 fma") == "float32"
    assert cpu_dtype("flags : avx2 avx512f avx512_bf16") == "bfloat16"
    assert cpu_dtype("flags : avx2 amx_bf16 amx_tile") == "bfloat16"
