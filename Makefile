# papermath: `make demo` runs the main job on the bundled example paper; `make test` runs the tests.
# Both create and use the virtual environment at .venv/.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test venv clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

EXAMPLE := examples/attention-note
# Guide 000's hand-worked attention example: one query, three keys, two dimensions.
GUIDE_000_VALUES := --set 'Q=[[1,0]]' --set 'K=[[1,0],[0,1],[1,1]]' --set 'V=[[10,0],[0,10],[5,5]]'

demo: $(STAMP)
	$(BIN)/papermath skim $(EXAMPLE)
	$(BIN)/papermath read $(EXAMPLE) --eq 2
	$(BIN)/papermath shapes $(EXAMPLE) --eq 1
	$(BIN)/papermath numbers $(EXAMPLE) --eq 1 $(GUIDE_000_VALUES) --extreme
	$(BIN)/papermath code $(EXAMPLE) --eq 1 $(GUIDE_000_VALUES)

test: $(STAMP)
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) build *.egg-info
