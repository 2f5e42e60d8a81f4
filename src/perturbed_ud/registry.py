"""Versioned names for the interchangeable parts of a build, as thinc registers its layers.

A registered part is found by its versioned name (``word_order.paper.v2``) or by the short
name it records in manifests (``paper``). A changed behaviour is a new part with a new
versioned name and a new short name, so names already in manifests keep their meaning.

Parts live in modules that register them when imported. Which modules, packages say in
entry points (``[project.entry-points."perturbed_ud.families"]`` in ``pyproject.toml``):
this package for its own parts, and any installed package for its own, so a lab ships a
dataset family or an evaluation task without touching this one.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

from .errors import InputError, PerturbedUDWarning
from .manifest import refusal


class Registry:
    def __init__(self, kind: str, group: str):
        self.kind = kind
        self.group = group  # the entry-point group of the modules that register parts
        self._parts: dict[str, type] = {}
        self._short: dict[str, str] = {}  # versioned name -> short name
        self._broken: dict[str, InputError] = {}  # entry point name -> why it did not import
        self._loaded = False

    def _load(self) -> None:
        """Import every module that registers parts. Another package's module that does not
        import is skipped with a warning, so one broken plugin does not stop every command;
        asking for its part by name raises why (`get`, `find`)."""
        if self._loaded:
            return
        self._loaded = True
        for point in _own_first(entry_points(group=self.group)):
            self._try(point, warn=True)

    def _load_own(self) -> None:
        """This package's modules, before any other's is imported: a name another package
        takes again is then blamed on it."""
        for point in entry_points(group=self.group):
            if _is_own(point):
                self._import(point)

    def _try(self, point: EntryPoint, *, warn: bool) -> None:
        """Import ``point``'s module; another package's that fails is noted as broken."""
        try:
            self._import(point)
        except InputError as err:
            if _is_own(point):
                raise
            if point.name not in self._broken and warn:
                warnings.warn(f"skipped: {err}", PerturbedUDWarning, stacklevel=4)
            self._broken[point.name] = err

    def _import(self, point: EntryPoint) -> None:
        try:
            point.load()
        except Exception as err:
            raise InputError(
                f"the {self.kind} module {point.value} (entry point {point.name!r} of "
                f"{point.dist.name if point.dist else 'an installed package'}) does not "
                f"import: {type(err).__name__}: {err}; fix or uninstall that package"
            ) from err

    def _load_named(self, name: str) -> None:
        """Import only the module of the entry point named ``name``, where there is one: a
        command's ``--help`` then imports one task's libraries, not every task's. Another
        package's module is imported after all of this package's."""
        if self._loaded or name in self._parts:
            return
        for point in _own_first(entry_points(group=self.group, name=name)):
            if not _is_own(point):
                self._load_own()
            self._try(point, warn=False)

    def register(self, name: str, short: str | None = None) -> Callable:
        """Register a class or function under ``name`` and its short name (``short``, else
        the part's ``name`` attribute); the part learns its versioned name."""

        def add(part):
            short_name = short or part.name
            taken = [key for key in (name, short_name) if key in self._parts]
            if taken:
                raise ValueError(f"{self.kind} {taken[0]!r} is registered twice")
            self._parts[name] = self._parts[short_name] = part
            self._short[name] = short_name
            part.registered_name = name
            return part

        return add

    @contextmanager
    def restored(self) -> Iterator[Registry]:
        """Parts registered inside the block are gone after it: a toy family in a test, a
        plugin tried out in a notebook."""
        self._load()
        parts, short = dict(self._parts), dict(self._short)
        try:
            yield self
        finally:
            self._parts, self._short = parts, short

    def find(self, name: str):
        """The part registered under ``name``, or None; a plugin's part whose module does not
        import raises why."""
        self._load_named(name)
        if name not in self._parts:
            self._load()
        if name in self._broken and name not in self._parts:
            raise self._broken[name]
        return self._parts.get(name)

    def get(self, name: str) -> type:
        self._load()
        if name in self._broken and name not in self._parts:
            raise self._broken[name]
        try:
            return self._parts[name]
        except KeyError:
            if not self._parts:  # metadata without this package's entry points: stale
                raise InputError(
                    f"unknown {self.kind} {name!r}: none is registered, so the installed "
                    f"metadata lacks the {self.group} entry points; reinstall perturbed-ud "
                    "(pip install -e .)"
                ) from None
            raise InputError(
                f"unknown {self.kind} {name!r}; choose one of {', '.join(self.names())}"
            ) from None

    def short_names(self) -> list[str]:
        """The short name of every part, once."""
        self._load()
        return sorted(set(self._short.values()))

    def names(self) -> list[str]:
        """Every name a part answers to: short names, then versioned ones."""
        self._load()
        return sorted(self._parts, key=lambda key: ("." in key, key))


def _is_own(point: EntryPoint) -> bool:
    return point.value.split(".")[0] == __package__


def _own_first(points: Iterable[EntryPoint]) -> list[EntryPoint]:
    """This package's modules before any other's, so that a part registered twice is blamed
    on the other package, which imports second."""
    return sorted(points, key=lambda p: (not _is_own(p), p.value, p.name))


RULE_SETS = Registry("language rule set", "perturbed_ud.rule_sets")
PROTOCOLS = Registry("protocol", "perturbed_ud.protocols")
FAMILIES = Registry("dataset family", "perturbed_ud.families")
TASKS = Registry("evaluation task", "perturbed_ud.tasks")


def manifest_family(manifest: dict, folder) -> type | None:
    """The family that reads the ``build.json`` of the dataset ``folder``: the one registered
    under the versioned name it records (``family``) for its dataset (``dataset``, the short
    name), so a family kept registered in an older version still reads that version's datasets.

    None when not even the dataset's short name is registered here (a family of a package not
    installed), which each reader treats as data from elsewhere. A dataset built by another
    version of a family registered here is an `InputError` naming the version found, the one
    this toolkit builds and the toolkit that built it: a family's card, tasks and lm-eval tasks
    read its own version's manifests only. The dataset version alone decides nothing, since
    ``--version`` labels a release freely (a 1.0.0 built by ``word_order.v2``); a changed
    behaviour is a new versioned name.
    """
    family = FAMILIES.find(manifest.get("family", ""))
    if family is not None and family.name == manifest.get("dataset"):
        if problem := family.manifest_problem(manifest):
            raise refusal(Path(folder) / "build.json", problem)
        return family
    current = FAMILIES.find(manifest.get("dataset", ""))
    if current is None:
        return None
    toolkit = manifest.get("toolkit_version", "?")
    raise InputError(
        f"{folder} was built by {manifest['dataset']} {manifest.get('version')} "
        f"({manifest.get('family', 'unnamed')}, perturbed-ud {toolkit}); this perturbed-ud builds "
        f"{current.name} {current.settings_class.version} ({current.registered_name}): "
        f"rebuild it, or install perturbed-ud=={toolkit} to read it"
    )
