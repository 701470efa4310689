.PHONY: demo setup test test-fast

# The newcomer demo: venv, torch (CPU build when absent), arbor-ls[embedded], the default model, one completion.
demo:
	bash scripts/demo.sh

VENV ?= .venv

# Install everything the tests need (idempotent), then run the whole suite.
setup:
	bash scripts/setup-test.sh

test: setup
	$(VENV)/bin/python -m pytest -q -p no:cacheprovider
	@if [ -x editors/vscode/scripts/ci.sh ] && command -v npm >/dev/null 2>&1; then bash editors/vscode/scripts/ci.sh; fi

# The Python suite only, without re-running the set-up.
test-fast:
	$(VENV)/bin/python -m pytest -q -x -m "not slow"
