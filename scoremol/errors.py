"""The one exception type that the CLI turns into a one-line message and exit code 1."""


class ScoremolError(Exception):
    """A problem with the user's input or environment (not a bug): shown without traceback."""
