"""arbor-ls: AI code completion over the Language Server Protocol."""
