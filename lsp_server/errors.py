"""Errors that reach the user as one line, never as a traceback."""


class UsageError(Exception):
    """Bad command-line input (missing file, position out of range, unreadable config): exit code 2."""
