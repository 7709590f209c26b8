# The README's commands. Everything a command needs is installed by the command itself.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BACKEND := autobot-backend
VPY := $(abspath $(VENV))/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: eval merge test check bench docs setup clean system-deps

setup: $(STAMP)

$(STAMP): $(BACKEND)/pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is required"'
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet -e '$(BACKEND)[test]'
	@touch $@

eval: $(STAMP)
	@$(if $(findstring postgresql,$(ARGS)),.ci/system-deps postgresql)
	@$(if $(findstring spark,$(ARGS)),.ci/system-deps spark)
	cd $(BACKEND) && EVAL_CALLER_DIR="$(CURDIR)" $(VPY) -m eval.run --suite sql $(ARGS)

# The shards of a run (make eval ARGS="--shard K/N --json ...") merged into the run, gated and recorded (docs/eval/ci.md).
merge: $(STAMP)
	cd $(BACKEND) && EVAL_CALLER_DIR="$(CURDIR)" $(VPY) -m eval.merge $(ARGS)

# One test worker per core (pytest-xdist), each test file whole on one worker so that a module's fixtures are built
# once; make test WORKERS=0 runs the suite in this one process.
WORKERS ?= auto
test: $(STAMP) check system-deps
	cd $(BACKEND) && $(VPY) -m pytest -n $(WORKERS) --dist loadfile $(ARGS)

# PostgreSQL's server binaries, Chromium + chromedriver and Java 17 (Spark's), from the distribution, when missing.
system-deps:
	@.ci/system-deps

check: $(STAMP)
	cd $(BACKEND) && $(VPY) -m ruff check . && $(VPY) -m ruff format --check . && $(VPY) -m mypy

# The bench extra: what the peers' own code imports (pandas, func_timeout, sqlparse, tqdm, nltk), for
# benchmarks/bench_peers.py and bench_bulk.py; the test extra has them too (tests run the peers as the bench does).
bench: $(STAMP)
	$(VPY) -m pip install --quiet -e '$(BACKEND)[test,bench]'
	cd $(BACKEND) && $(VPY) -m benchmarks $(ARGS)

# The README's pictures (docs/eval/sql-report.png, sql-trend.png) made again from the committed run and trend
# file, each with a .source digest beside it; a test fails when a picture was made from other inputs.
docs: $(STAMP)
	@.ci/system-deps browser
	cd $(BACKEND) && $(VPY) -m eval.cli.docs_images $(ARGS)

clean:
	rm -rf $(VENV)
