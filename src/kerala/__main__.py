"""``python -m kerala`` runs the ``kerala`` command."""

from kerala.cli import main

if __name__ == "__main__":
    main()
