"""``python -m scoremol`` runs the command line."""

from scoremol.entry import run

run()
