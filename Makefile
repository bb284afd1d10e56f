PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export QT_QPA_PLATFORM ?= offscreen

.PHONY: run test lint bench clean venv

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found; install Python >= 3.11 or set PYTHON=" >&2; exit 2; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	@QT_QPA_PLATFORM= ./scripts/ensure-gui-libs
	QT_QPA_PLATFORM= $(BIN)/agent-canvas resources/examples/plan-implement-review.flow.yaml

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q -p no:cacheprovider

bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) build *.egg-info
