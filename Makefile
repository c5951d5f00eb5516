# Two commands on a fresh clone: `make play` and `make test`. Both set everything up first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup play test lint lint-js typecheck bench yardstick clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip
	$(BIN)/pip install -e '.[all,dev]'
	touch $(STAMP)

setup: $(STAMP)

play: $(STAMP)
	$(BIN)/kerala serve

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

# The browser UI's JavaScript: ESLint from npm (package.json, package-lock.json).
node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund

lint-js: node_modules/.package-lock.json
	npx eslint src/kerala/server/static/js

typecheck: $(STAMP)
	$(BIN)/mypy

test: $(STAMP) lint typecheck lint-js
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/kerala bench --players 2 --seconds 5
	$(BIN)/kerala bench --players 4 --seconds 5

yardstick: $(STAMP)
	$(BIN)/python ../shared/tools/yardstick.py --players 2
	$(BIN)/python ../shared/tools/yardstick.py --players 4

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
