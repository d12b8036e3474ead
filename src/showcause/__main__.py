"""`python -m showcause`: the same entry point as the `showcause` script."""

from showcause.cli import main

main()
