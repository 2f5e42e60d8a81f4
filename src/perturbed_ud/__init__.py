"""perturbed-ud: UD treebanks and grammars as versioned datasets of controlled perturbations.

``perturbed_ud.build(family, out, **options)`` builds a dataset and
``perturbed_ud.evaluate(task, **options)`` runs a model over one; both take the options of
the matching command (``perturbed-ud build``, ``perturbed-ud evaluate``) as keywords.
"""

from importlib.metadata import PackageNotFoundError, version

from .api import build, evaluate

try:
    __version__ = version("perturbed-ud")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"

__all__ = ["build", "evaluate", "__version__"]
