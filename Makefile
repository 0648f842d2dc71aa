# The two ways in: `make run` serves the app, `make test` runs every test tier.
# Each sets up what it needs by itself (virtual environment, Debian packages).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test system-deps clean

run: $(STAMP)
	$(BIN)/docchat run

test: $(STAMP) system-deps
	$(BIN)/python -m pytest tests -p no:cacheprovider

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

# Debian's Chromium for the browser tests; Playwright cannot download its own here.
system-deps:
	@scripts/system-deps.sh

clean:
	rm -rf $(VENV) build src/*.egg-info
