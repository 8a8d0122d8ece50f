"""The installed scoremol version (model files and manifests record it)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("scoremol")
except PackageNotFoundError:  # running from a source tree without install
    __version__ = "0.0.0+unknown"
