# Two commands on a fresh clone: `make play` and `make test`. Both set everything up first.
# `make test-fast` is the quick tier (engine, notation, bots, CLI; see CONTRIBUTING.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup compiled play test test-fast browser lint lint-js typecheck bench yardstick clean lock

# requirements.lock pins every dependency of `.[all,dev]` to the versions the tests passed with
# (`make lock` writes it anew from pyproject.toml; CI and `make play` install from it).
$(STAMP): pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip
	$(BIN)/pip install -c requirements.lock -e '.[all,dev]'
	touch $(STAMP)

setup: $(STAMP)

# The engine's compiled build (docs/engine.md, "Two builds"): mypyc compiles the engine where
# this machine has a C compiler and Python's headers, and only when its sources changed; else
# it says why the engine runs as pure Python. The build never runs a stale compiled engine.
# (KERALA_ENGINE=pure here: a stale build must not stop the command that renews it.)
compiled: $(STAMP)
	@KERALA_ENGINE=pure $(BIN)/kerala engine build
	@$(BIN)/kerala engine status | tail -n 1

play: $(STAMP) compiled
	$(BIN)/kerala serve

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/ruff format --check src tests benchmarks examples

# The browser UI's JavaScript: ESLint from npm (package.json, package-lock.json).
node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund

lint-js: node_modules/.package-lock.json
	npx eslint src/kerala/server/static/js

# mypy over src/kerala and tests (pyproject.toml [tool.mypy]). It holds one module named
# `conftest` per run, so the folders' own conftest.py files are checked one run each.
CONFTESTS := tests/server/conftest.py tests/security/conftest.py tests/web/conftest.py

typecheck: $(STAMP)
	$(BIN)/mypy
	for f in $(CONFTESTS); do $(BIN)/mypy $$f || exit 1; done

# The fast tier: no browser, database, research envs or long end-to-end runs (tests/conftest.py
# marks the tiers), on every core.
FAST := -n auto -m "not slow and not browser and not server and not envs" \
	--ignore=tests/web --ignore=tests/server --ignore=tests/envs \
	--ignore=src/kerala/server --ignore=src/kerala/envs

test-fast: $(STAMP)
	$(BIN)/pytest $(FAST) tests src/kerala

# The browser tests drive Chromium. Find it, or provide it: as root with apt, Debian's
# chromium; otherwise Playwright's own build, where it can download one. Else stop and say
# what to install: the browser tests are never skipped.
CHROMIUM_HELP := make test needs Chromium for its browser tests: install Debian's chromium \
	package (as root: apt-get install chromium) or Playwright's build \
	($(BIN)/python -m playwright install chromium), then run make test again

browser: $(STAMP)
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing Debian's chromium for the browser tests"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium \
			>/dev/null) || { echo "$(CHROMIUM_HELP)" >&2; exit 1; }; \
	elif $(BIN)/python -m playwright install chromium >/dev/null 2>&1; then \
		echo "using Playwright's Chromium for the browser tests"; \
	else echo "$(CHROMIUM_HELP)" >&2; exit 1; fi

# The whole suite runs once for each build: the compiled engine where `make compiled` built
# it, then the pure Python engine.
test: $(STAMP) browser lint typecheck lint-js compiled
	@if $(BIN)/kerala engine status --check >/dev/null; then \
		echo "== the whole suite, compiled engine"; \
		KERALA_ENGINE=compiled $(BIN)/pytest || exit 1; \
	fi
	@echo "== the whole suite, pure Python engine"
	KERALA_ENGINE=pure $(BIN)/pytest

bench: $(STAMP)
	$(BIN)/kerala bench --players 2 --seconds 5
	$(BIN)/kerala bench --players 4 --seconds 5

yardstick: $(STAMP)
	$(BIN)/python ../shared/tools/yardstick.py --players 2
	$(BIN)/python ../shared/tools/yardstick.py --players 4

lock:
	test -x $(BIN)/pip || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q uv
	$(BIN)/uv pip compile pyproject.toml --extra all --extra dev --python-version 3.11 \
		--no-header --annotation-style line -o requirements.lock

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
	rm -f src/kerala/*.so src/kerala/*/*.so src/*.so src/kerala/_compiled.json
