VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: run test lint bench install install-check gnubg chromium

$(VENV)/.created:
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	touch $@

# One stamp per extra installed: `make run` needs the server, `make test` the test tools too.
$(VENV)/.installed-%: pyproject.toml $(VENV)/.created
	$(PY) -m pip install -q -e '.[$*]'
	touch $@

install: $(VENV)/.installed-test

.PRECIOUS: $(VENV)/.installed-%

# GNU Backgammon is optional for gammon; the tests drive it as an external engine.
gnubg:
	@command -v gnubg >/dev/null || test -x /usr/games/gnubg || \
	  (command -v apt-get >/dev/null && (apt-get install -y -q gnubg >/dev/null || \
	   (apt-get update -q >/dev/null && apt-get install -y -q gnubg >/dev/null))) || \
	  (echo "make: cannot install gnubg (apt-get install gnubg, as root)"; exit 1)

# Debian's Chromium: the web client's tests drive it through Playwright.
chromium:
	@test -x /usr/bin/chromium || \
	  (command -v apt-get >/dev/null && (apt-get install -y -q chromium >/dev/null || \
	   (apt-get update -q >/dev/null && apt-get install -y -q chromium >/dev/null))) || \
	  (echo "make: cannot install chromium (apt-get install chromium, as root)"; exit 1)

# The game server on an embedded SQLite database, bots ready: open the address it prints.
# `make run PORT=8080 HOST=0.0.0.0` listens elsewhere (default 127.0.0.1:8000, or GAMMON_PORT and
# GAMMON_HOST); only values given on make's command line count, not a PORT or HOST of the shell.
run: $(VENV)/.installed-server
	$(VENV)/bin/gammon serve$(if $(filter command line,$(origin HOST)), --host $(HOST))$(if $(filter command line,$(origin PORT)), --port $(PORT))

# The linter and the type checker (their settings are in pyproject.toml), before the suite.
lint: install
	$(PY) -m ruff check .
	$(PY) -m mypy

test: lint gnubg chromium
	$(PY) -m pytest

# The library alone, as `pip install gammon` gives it: a throw-away virtual environment with no
# extra, in which the README's examples must run (the `gammon` command on PATH, as installed).
install-check:
	rm -rf $(VENV)-alone
	python3 -m venv $(VENV)-alone
	$(VENV)-alone/bin/python -m pip install -q .
	PATH="$(CURDIR)/$(VENV)-alone/bin:$$PATH" $(VENV)-alone/bin/python -m doctest README.md
	rm -rf $(VENV)-alone

bench: install $(VENV)/.installed-bench $(VENV)/.installed-train
	$(PY) bench/movegen.py
	$(PY) bench/engine.py
	$(PY) bench/bearoff.py
	$(PY) bench/ubgi.py
