"""arbor-ls: AI code completion over the Language Server Protocol."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("arbor-ls")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+source"
