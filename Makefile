# Two commands on a fresh machine: `make run` (the main job) and `make test` (the tests).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
export NUMBA_CACHE_DIR ?= $(CURDIR)/.numba_cache

.PHONY: setup run test test-all check bench play clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -e '.[test]'
	touch $(STAMP)

run: setup
	$(VENV)/bin/ssb play --players 4 --seed 7

test: setup
	$(PY) -m pytest -q

test-all: setup
	$(PY) -m pytest -q -m ''

check: setup
	$(VENV)/bin/ssb check --games 20000 --seed 1

bench: setup
	$(PY) benchmarks/bench_engine.py

play: setup
	$(VENV)/bin/ssb play --players 4 --seed 7

clean:
	rm -rf $(VENV) .numba_cache .pytest_cache
