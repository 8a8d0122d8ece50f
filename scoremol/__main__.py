"""``python -m scoremol`` runs the command line."""

from scoremol.cli import main

main()
