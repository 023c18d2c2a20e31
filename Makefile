VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: run test bench install

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

install: $(VENV)/.installed

run: install
	$(VENV)/bin/gammon play

test: install
	$(PY) -m pytest

bench: install
	$(PY) -m pip install -q -e '.[bench,train]'
	$(PY) bench/movegen.py
	$(PY) bench/engine.py
	$(PY) bench/bearoff.py
