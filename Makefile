VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: run test bench install gnubg

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

install: $(VENV)/.installed

# GNU Backgammon is optional for gammon; the tests drive it as an external engine.
gnubg:
	@command -v gnubg >/dev/null || test -x /usr/games/gnubg || \
	  (command -v apt-get >/dev/null && (apt-get install -y -q gnubg >/dev/null || \
	   (apt-get update -q >/dev/null && apt-get install -y -q gnubg >/dev/null))) || \
	  (echo "make: cannot install gnubg (apt-get install gnubg, as root)"; exit 1)

run: install
	$(VENV)/bin/gammon play

test: install gnubg
	$(PY) -m pytest

bench: install
	$(PY) -m pip install -q -e '.[bench,train]'
	$(PY) bench/movegen.py
	$(PY) bench/engine.py
	$(PY) bench/bearoff.py
	$(PY) bench/ubgi.py
