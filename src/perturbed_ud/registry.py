"""Versioned names for the interchangeable parts of a build, as thinc registers its layers.

A registered part is found by its versioned name (``word_order.paper.v1``) or by the short
name it records in manifests (``paper``). A changed behaviour is a new part with a new
versioned name and a new short name, so names already in manifests keep their meaning.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from .errors import InputError


class Registry:
    def __init__(self, kind: str, modules: tuple[str, ...] = ()):
        self.kind = kind
        self._modules = modules  # where the built-in parts register themselves
        self._parts: dict[str, type] = {}

    def _load(self) -> None:
        for module in self._modules:
            importlib.import_module(module)

    def register(self, name: str) -> Callable[[type], type]:
        """Register a class under ``name``; its ``name`` attribute is its short name."""

        def add(part: type) -> type:
            taken = [key for key in (name, part.name) if key in self._parts]
            if taken:
                raise ValueError(f"{self.kind} {taken[0]!r} is registered twice")
            self._parts[name] = self._parts[part.name] = part
            return part

        return add

    def get(self, name: str) -> type:
        self._load()
        try:
            return self._parts[name]
        except KeyError:
            raise InputError(
                f"unknown {self.kind} {name!r}; choose one of {', '.join(self.names())}"
            ) from None

    def short_names(self) -> list[str]:
        """The short name of every part, once."""
        self._load()
        return sorted({part.name for part in self._parts.values()})

    def names(self) -> list[str]:
        """Every name a part answers to: short names, then versioned ones."""
        self._load()
        return sorted(self._parts, key=lambda key: ("." in key, key))


PROTOCOLS = Registry("protocol", ("perturbed_ud.perturb.paper", "perturbed_ud.perturb.lrec2026"))
FAMILIES = Registry(
    "dataset family",
    (
        "perturbed_ud.builders.perturbed_ud",
        "perturbed_ud.builders.clams",
        "perturbed_ud.builders.spud",
    ),
)
