"""Versioned names for the interchangeable parts of a build, as thinc registers its layers.

A registered part is found by its versioned name (``word_order.paper.v1``) or by the short
name it records in manifests (``paper``). A changed behaviour is registered under a new
version, so an old name keeps meaning what it meant.
"""

from __future__ import annotations

from collections.abc import Callable

from .errors import InputError


class Registry:
    def __init__(self, kind: str):
        self.kind = kind
        self._parts: dict[str, type] = {}

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
        try:
            return self._parts[name]
        except KeyError:
            raise InputError(
                f"unknown {self.kind} {name!r}; choose one of {', '.join(self.names())}"
            ) from None

    def names(self) -> list[str]:
        """Every name a part answers to: short names, then versioned ones."""
        return sorted(self._parts, key=lambda key: ("." in key, key))


PROTOCOLS = Registry("protocol")
