.PHONY: demo

# The newcomer demo: venv, torch (CPU build when absent), arbor-ls[embedded], the default model, one completion.
demo:
	bash scripts/demo.sh
