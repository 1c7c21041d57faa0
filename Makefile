# Two commands on a fresh machine: `make run` (the main job) and `make test` (the tests).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: setup run test test-all check bench play regress clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -e '.[test]'
	touch $(STAMP)

# The main job: the starter set at 2, 3 and 4 players (60,000 greedy games, a few minutes on two
# cores), then the balance report; prints the headline verdicts and the report's path. Re-running
# reuses the finished games.
RUN_GAMES ?= 20000
run: setup
	$(VENV)/bin/ssb run starter --games $(RUN_GAMES) --out results/starter --resume
	$(VENV)/bin/ssb report results/starter --out results/starter/report

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

# Balance regression gate: the ci scenario (its own seed, 7) against the committed baseline (seed 1).
regress: setup
	$(VENV)/bin/ssb run ci --out results/ci --force --quiet
	$(VENV)/bin/ssb regress results/ci --baseline baselines/ci-baseline.json \
		--summary-md results/ci/regress.md --json results/ci/regress.json $(REGRESS_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache "$${XDG_CACHE_HOME:-$$HOME/.cache}/shuffle-swing-balance"
