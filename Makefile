# Two commands from a clean clone: `make demo` and `make test`. Both run `make setup` first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NPM_STAMP := toolchain/node_modules/.installed

.PHONY: setup demo test lint bench docs clean

setup: $(STAMP) $(NPM_STAMP)

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

$(NPM_STAMP): toolchain/package.json toolchain/package-lock.json
	cd toolchain && npm ci --no-audit --no-fund --loglevel=error
	touch $(NPM_STAMP)

demo: setup
	$(BIN)/python examples/demo.py

test: setup
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/pyright src
	$(BIN)/showcause cases verify repo_cases
	$(BIN)/python -m pytest

lint: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

bench: setup
	$(BIN)/python benchmarks/bench_search.py
	$(BIN)/python benchmarks/bench_symbols.py
	$(BIN)/python benchmarks/bench_run_test.py

clean:
	rm -rf $(VENV) toolchain/node_modules

docs: setup
	$(BIN)/showcause tools list --markdown > docs/tools.md
