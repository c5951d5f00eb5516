"""``python -m kerala`` runs the ``kerala`` command."""

from kerala.cli import main

main()
