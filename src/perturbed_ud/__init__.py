"""perturbed-ud: UD treebanks and grammars as versioned datasets of controlled perturbations."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("perturbed-ud")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"
