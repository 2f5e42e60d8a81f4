"""``python -m perturbed_ud``: the ``perturbed-ud`` command."""

from .cli import main

main()
