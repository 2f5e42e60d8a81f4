"""The project's error types: each one is something a user can fix, and the command line prints
it as one ``error:`` line. Any other exception is a bug and keeps its traceback."""

from __future__ import annotations

from pathlib import Path


class PerturbedUDError(Exception):
    """A user can act on it (an option, an input, the environment); the CLI prints it as one
    ``error:`` line and exits with status 1."""


class PerturbedUDWarning(UserWarning):
    """Something a user should know that does not stop the work; the command line prints it
    as one ``warning:`` line."""


class InputError(PerturbedUDError):
    """An option value, input file, dataset or model that the command cannot use."""


class OutputError(PerturbedUDError):
    """An output that cannot be written where the user asked."""


class OutputExistsError(OutputError):
    """The output already exists and replacing it was not asked for (``--overwrite``)."""


class _Located(InputError):
    """An error at a line of a file, kept as its parts for callers that point at the line."""

    def __init__(self, path: str | Path, line: int | None, message: str):
        self.path, self.line, self.message = str(path), line, message
        where = f"{path}:{line}" if line is not None else f"{path}"
        super().__init__(f"{where}: {message}")

    def __reduce__(self):
        """Rebuilt from its parts, so that it reaches the parent of a worker process intact."""
        return type(self), (self.path, self.line, self.message)


class CoNLLUError(_Located):
    """Malformed CoNLL-U, located by file and 1-based line number."""


class GrammarError(_Located):
    """A grammar that cannot be generated from, located by file and 1-based line number."""


class SourceError(PerturbedUDError):
    """A treebank could not be found or fetched; the message says where we looked."""


class MissingSplitError(SourceError):
    """A treebank found without the split asked for (many have a test split only)."""


class RunError(PerturbedUDError):
    """A run folder that belongs to other settings or data."""


class PushError(PerturbedUDError):
    """A dataset folder cannot be published; the message says why and what to do."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C, with one line saying what was kept; the CLI prints it and exits with status
    130, as a shell does for a command ended by SIGINT."""
