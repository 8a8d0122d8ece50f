"""The one exception type that the CLI turns into a one-line message and exit code 1."""


class ScoremolError(Exception):
    """A problem with the user's input or environment (not a bug): shown without traceback."""


def describe_os_error(exc: OSError) -> str:
    """An operating-system error in words, naming the file: "data/ is a folder, not a
    file", never an exception's class name."""
    import errno

    name = exc.filename if exc.filename is not None else ""
    where = f" {name}" if name else ""
    if isinstance(exc, IsADirectoryError):
        return f"{name or 'the path'} is a folder, not a file"
    if isinstance(exc, NotADirectoryError):
        return f"a part of the path{where} is a file, not a folder"
    if isinstance(exc, PermissionError):
        return f"no permission to open{where or ' the file'}"
    if isinstance(exc, FileNotFoundError):
        return f"file not found:{where}" if name else "file not found"
    if isinstance(exc, BrokenPipeError):
        return "the output pipe was closed by the reader"
    if exc.errno == errno.ENOSPC:
        return f"no space left on the device{' writing' + where if name else ''}"
    reason = (exc.strerror or str(exc) or "input/output error").rstrip(".")
    return f"{reason[0].lower() + reason[1:]}{':' + where if name else ''}"
