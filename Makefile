PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: site test clean

site: $(STAMP)
	$(PY) build.py

# Lint and type-check first (settings in pyproject.toml); either failing fails the target.
test: $(STAMP)
	$(VENV)/bin/ruff format --check coursesite tests bench build.py
	$(VENV)/bin/ruff check coursesite tests bench build.py
	$(VENV)/bin/mypy coursesite
	$(PY) -m pytest -q tests

# Re-installs whenever the pinned requirements change.
$(STAMP): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $(STAMP)

clean:
	rm -rf $(VENV) site
