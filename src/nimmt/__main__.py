"""``python -m nimmt``: the same command line as the ``nimmt`` script."""

from .cli import main

main()
