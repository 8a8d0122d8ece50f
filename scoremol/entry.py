"""The console entry point, kept free of heavy imports.

Importing the command line pulls in torch and PyTorch Geometric (seconds). A Ctrl-C in
that window must still end with the one-line message and status 130, not a traceback.
"""

from __future__ import annotations

import os
import sys


def run() -> None:
    """Import the command line, then run it; an interrupt during the import exits cleanly."""
    try:
        from scoremol.cli import main
    except KeyboardInterrupt:
        print("scoremol: interrupted", file=sys.stderr)
        sys.stderr.flush()
        os._exit(130)
    main()
