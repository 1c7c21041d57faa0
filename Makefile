# Two commands on a fresh machine: `make run` (the main job) and `make test` (the tests).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: setup run test test-all check bench play regress docs desk clean findings screenshots

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -e '.[test]'
	@# Compile every kernel entry point once, here, so that `make run`, `make test` and the first
	@# `ssb play` start warm (docs/guide/errors-and-resume.md, "The cold start").
	$(PY) -m simulator.warmup
	touch $(STAMP)

# The main job: the starter set at 2, 3 and 4 players judged at four skill levels (greedy, tuned,
# search and search_leaf mirrors), each cell played in rounds until its seat verdict is decided (fair or
# unfair), within one budget of declared CPU seconds for the whole run (scenarios/starter.toml,
# docs/guide/sequential.md), then the balance report; prints the answer per player count, the headline
# verdicts per judge and the report's path. Re-running reuses the finished games (a raised budget goes on).
# RUN_SET='sequential.seconds=3000' changes a key of the scenario; RUN_GAMES=5000 caps every cell.
RUN_SET ?=
RUN_GAMES ?=
run: setup
	$(VENV)/bin/ssb run starter $(if $(RUN_GAMES),--games $(RUN_GAMES)) $(foreach s,$(RUN_SET),--set $(s)) \
		--out results/starter --resume
	$(VENV)/bin/ssb report results/starter --out results/starter/report

test: setup
	$(PY) -m pytest -q --durations=25

test-all: setup
	$(PY) -m pytest -q -m ''

# The docs site: docs/ (and the click commands, the docstrings, the scenario schema) -> site/, strict,
# so a broken link, a missing page or a page left out of the nav fails. Open site/index.html.
DOCS_STAMP := $(VENV)/.docs-installed
$(DOCS_STAMP): pyproject.toml $(STAMP)
	$(PY) -m pip install -q -e '.[test,docs]'
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --clean --site-dir site

# The figures the pages quote from runs (docs/developing/docs.md, "Figures from runs"): every block
# between <!-- run: NAME/FILE ... --> and <!-- /run --> is written again from docs/runs/NAME/, what
# that run wrote. RERUN=1 plays the runs again first with the current code, in a fresh folder, and
# takes their reports' screenshots (slow: the starter about 6 min of CPU, expansion-strong about 15);
# RUNS='starter' plays only those. FINDINGS_ARGS='--jobs 2' passes options on.
RERUN ?=
RUNS ?=
FINDINGS_ARGS ?=
findings: setup
	$(PY) -m docs._hooks.findings $(if $(RERUN),--rerun $(RUNS)) $(FINDINGS_ARGS)

# The desk's screenshots of the guide (docs/desk-*.png), taken again by its browser test in a clean
# temporary home folder, so they show no machine path (headless Chromium and chromedriver needed).
screenshots: setup
	$(PY) -m docs._hooks.screenshots

# GAME=NAME soaks (check) or measures (bench) another registered game, e.g. `make check GAME=echidna`;
# bench hands it to the game's own engine benchmark (benchmarks/bench_<its folder>.py) or says it has none.
GAME ?=
check: setup
	$(VENV)/bin/ssb check --games 20000 --seed 1 $(if $(GAME),--game $(GAME))

bench: setup
	$(PY) benchmarks/bench_engine.py $(if $(GAME),--game $(GAME))

play: setup
	$(VENV)/bin/ssb play --players 4 --seed 7

# Balance regression gates: scenarios/ci.toml (Shuffle and Swing, greedy mirrors), scenarios/ci-strong.toml
# (the same at strong play: mirrors of the strong judge with its leaf held at the shipped fit,
# search_leaf_held, which see the last seat's edge that greedy reads fair) and
# scenarios/echidna-ci.toml (Echidna Shuffle). Each replays its committed baseline's deals (same run
# seed, baselines/<gate>-baseline.json), so every figure is compared deal by deal: it held, moved or
# is undecided; --strict fails on an undecided figure as on a moved one. All must pass (`make -k regress` runs the others after a
# failed one). The balance report of each run goes to results/<gate>/report (the summary links to it).
REGRESS_GATES := ci ci-strong echidna-ci
# The strong gate plays the baseline's deals in looks (500, 1,000, then all 1,500 a cell) and stops at the
# first look where it is decided; `ssb regress` then tests at alpha split over the three looks.
GATE_RUN_ARGS_ci-strong := --looks 500,1000 --against baselines/ci-strong-baseline.json
.PHONY: $(addprefix regress-,$(REGRESS_GATES))
regress: $(addprefix regress-,$(REGRESS_GATES))

$(addprefix regress-,$(REGRESS_GATES)): regress-%: setup
	$(VENV)/bin/ssb run $* --out results/$* --force --quiet $(GATE_RUN_ARGS_$*)
	$(VENV)/bin/ssb report results/$* --out results/$*/report > /dev/null
	$(VENV)/bin/ssb regress results/$* --baseline baselines/$*-baseline.json --strict \
		--summary-md results/$*/regress.md --json results/$*/regress.json $(REGRESS_ARGS)

# The designer's desk (docs/guide/desk.md): a local web page on 127.0.0.1 that edits an instrument or a
# board, asks whether the change moved the balance and shows every action's ssb command. Ctrl-C stops
# it. DESK_ARGS='--port 8800 --no-browser' passes options on.
DESK_ARGS ?=
desk: setup
	$(VENV)/bin/ssb desk $(DESK_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache site "$${XDG_CACHE_HOME:-$$HOME/.cache}/shuffle-swing-balance"
