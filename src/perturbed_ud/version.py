"""The toolkit's version, recorded in every manifest, signature and result file."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("perturbed-ud")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"
