# rankaudit: the two commands are `make book` and `make test`; both set everything up.
SHELL := /bin/bash
.DEFAULT_GOAL := help
PYTHON_BOOTSTRAP ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIPELINE := $(PY) -m rankbook.report.pipeline
STAMP := $(VENV)/.rankaudit-installed
# pytest worker processes for `make test` (pytest-xdist); the chapters and the site are shared
# between them (tests/shared_work.py). TEST_WORKERS=0 runs everything in one process.
TEST_WORKERS ?= 2

.PHONY: help setup data chromium chapters book chapter site test lint bench lock clean student

# A machine may set PYTHONDONTWRITEBYTECODE=1 (this one does). Python then writes no byte code,
# and every process (each chapter's kernel, each command-line test, each worker) compiles every
# module it imports from source again: about 9 CPU-seconds for a chapter's stack (torch,
# LightGBM, pandas, matplotlib, ...) against 3.5 from byte code. Under make, Python writes the
# byte code of what it imports once, into .venv and src/**/__pycache__ (both ignored by git).
unexport PYTHONDONTWRITEBYTECODE

help:
	@echo "make book     set up, fetch data, run every chapter, build the site (book/_build/html)"
	@echo "make test     set up, fetch data, run the test suite (chapters at smoke parameters, site in Chromium)"
	@echo "make chapter NB=00_quickstart ARGS=\"-p seed 1\"   rerun one chapter with parameters, rebuild the site"
	@echo "make chapter NB=00_quickstart ARGS=\"-p seed 1\" OUT=~/rerun   the same into a folder of your own (site untouched)"
	@echo "make bench    speed benchmarks against peers (prints ratio tables), then the page-sized tests"
	@echo "make lint     ruff"
	@echo "make student  a light environment (.venv-student: no torch, LightGBM or encoders) that runs session 1's chapters into student-runs/ (= python src/rankbook/course/student.py setup; run 1)"

# --- setup -------------------------------------------------------------------------------
# --no-compile: Python writes each module's bytecode the first time it is imported, instead of pip
# compiling every installed module up front (about a minute of the setup, for files never used).
# pip itself is pinned to a release that resolves the lock in about half the CPU time of the pip
# a new venv brings (23.2: 46 CPU-seconds for the lock, 26.3: 26, on the 2-core machine).
# The library (editable, with its own dependencies pinned by the lock) goes first, with ranx (a
# peer the tests compare against); then the library's numba kernels and ranx's compile in the
# background on the core pip leaves idle while it installs the rest (tests/warm_kernels.py
# setup: each holds a lock in .venv that the test session waits for). -qq on the last install:
# pip 26 relays setuptools' generic editable-install advice as a warning, which -q still prints.
PIP_PIN := pip==26.3
$(STAMP): requirements/lock.txt pyproject.toml src/pyproject.toml
	@test -x $(PY) || $(PYTHON_BOOTSTRAP) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check -q $(PIP_PIN)
	$(PY) -m pip install --disable-pip-version-check -q --no-compile -c requirements/lock.txt -e . ranx
	@$(PY) tests/warm_kernels.py setup $(VENV) library </dev/null >/dev/null 2>&1 &
	@$(PY) tests/warm_kernels.py setup $(VENV) peers </dev/null >/dev/null 2>&1 &
	$(PY) -m pip install --disable-pip-version-check -q --no-compile -r requirements/lock.txt
	$(PY) -m pip install --disable-pip-version-check -qq --no-deps -e ./src
	$(PY) -m pip check
	@touch $@

setup: $(STAMP)

data: setup
	$(PY) -m rankbook.data.fetch

# Headless Chromium for the site test (Debian package).
chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  { (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || \
	    { echo "ERROR: could not install chromium (apt-get install chromium)"; exit 1; }; }

# --- a student's own machine: session 1 without torch, LightGBM or the encoders ------------
# The student route is src/rankbook/course/student.py (Python only, so the same commands work on Linux, macOS
# and Windows; see the course guide): `setup` installs requirements/student.in pinned by
# requirements/lock.txt into .venv-student and prints its size; `run 1` fetches the data and runs
# session 1's chapters (the course guide's plan, book/decks) into student-runs/<chapter>/.
STUDENT_VENV ?= .venv-student
STUDENT_OUT ?= student-runs

student:
	$(PYTHON_BOOTSTRAP) src/rankbook/course/student.py --venv $(STUDENT_VENV) setup
	$(PYTHON_BOOTSTRAP) src/rankbook/course/student.py --venv $(STUDENT_VENV) run 1 --out $(STUDENT_OUT)

# --- the book ----------------------------------------------------------------------------
chapters: data
	$(PIPELINE) run-all

site: setup
	$(PIPELINE) build

book: chapters
	$(PIPELINE) build

# With OUT=dir the rerun (executed notebook, results, figures, one HTML page) goes to dir only.
# A failed step has printed its one-line error: STOP_QUIETLY ends make there, keeping the
# failure's non-zero status (make is stopped by SIGPIPE, 141), without make's own
# "*** [chapter] Error 2" line, which GNU make prints for every failing recipe line.
STOP_QUIETLY = || { status=$$?; kill -PIPE $$PPID; exit $$status; }
chapter: data
	@test -n "$(NB)" || { echo "usage: make chapter NB=<chapter stem> ARGS=\"-p key value\" [OUT=dir]"; (exit 2); } $(STOP_QUIETLY)
ifeq ($(strip $(OUT)),)
	@$(PIPELINE) run $(NB) $(ARGS) $(STOP_QUIETLY)
	@$(PIPELINE) build $(STOP_QUIETLY)
else
	@$(PIPELINE) run $(NB) $(ARGS) --out "$(OUT)" $(STOP_QUIETLY)
endif

# --- checks ------------------------------------------------------------------------------
test: data chromium
	$(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal --durations=40 -m "not page_sized"

lint: setup
	$(VENV)/bin/ruff check src tests benchmarks .ci

# the speed benchmarks, then the tests sized like a chapter at its page defaults (a solution
# that builds the page's own log: `-m page_sized`, deselected by `make test`)
bench: setup
	$(PY) benchmarks/run_all.py
	$(PY) -m pytest -m page_sized -p no:cacheprovider

# Re-pin requirements/lock.txt from the current venv and mirror it into environment.yml.
lock: setup
	{ sed -n '1,2p' requirements/lock.txt; $(PY) -m pip freeze --exclude-editable | sed 's/^torch==\(.*\)+cpu$$/torch==\1/'; } > requirements/lock.new
	mv requirements/lock.new requirements/lock.txt
	$(PY) .ci/write_environment.py

clean:
	rm -rf book/_build
