"""``build.json`` as every command reads it: parsed once, and its shape checked before any
field is used, so a hand-made or edited manifest is one error naming the field instead of a
traceback deep in a card, a task file or an evaluation."""

from __future__ import annotations

from pathlib import Path

from .errors import InputError, PerturbedUDError
from .files import check_name, read_json_object
from .options import control_character

# The type of each field that readers take for granted, where the field is present: the
# engine's frame, then the entries every family writes (`DatasetFamily.manifest`).
FIELD_TYPES = {
    "dataset": str,
    "family": str,
    "pretty_name": str,
    "version": str,
    "toolkit_version": str,
    "signature": str,
    "config_id": str,
    "content_sha256": str,
    "parameters": dict,
    "configs": dict,
    "resources": dict,
    "selection": dict,
    "conditions": dict,
    "treebanks": list,
    "sources": list,
}
JSON_NAMES = {str: "a string", dict: "an object", list: "a list", int: "a number",
              float: "a number", bool: "true or false", type(None): "null"}  # fmt: skip


def read_manifest(path: str | Path, error: type[PerturbedUDError] = InputError) -> dict:
    """The ``build.json`` at ``path``, read (`read_json_object`) and checked (`problem`);
    what is wrong with it is one ``error`` naming the file."""
    manifest = read_json_object(path, error)
    if found := problem(manifest):
        raise refusal(path, found, error)
    return manifest


def refusal(path: str | Path, found: str, error: type[PerturbedUDError] = InputError):
    """The error for a ``build.json`` with the problem ``found``."""
    return error(f"{path}: {found}; rebuild the dataset rather than edit its build.json")


def problem(manifest: dict) -> str | None:
    """The first field of a manifest that is not of the type its readers take it as, and
    config or split names that could not name a folder or file (``../../x``), in words."""
    for key, kind in FIELD_TYPES.items():
        if key in manifest and not isinstance(manifest[key], kind):
            return f"{key} must be {JSON_NAMES[kind]}, not {json_name(manifest[key])}"
    for key in ("treebanks", "sources"):
        for i, entry in enumerate(manifest.get(key, ())):
            if not isinstance(entry, dict):
                return f"{key}[{i}] must be an object, not {json_name(entry)}"
    for config, entry in manifest.get("configs", {}).items():
        if not isinstance(entry, dict):
            return f"configs[{config!r}] must be an object, not {json_name(entry)}"
        splits = entry.get("splits", {})
        if not isinstance(splits, dict):
            return f"configs[{config!r}].splits must be an object, not {json_name(splits)}"
        try:
            check_name(config, "config")
            for split in splits:
                check_name(split, "split")
        except InputError as err:
            return f"configs[{config!r}]: {err}"
        for split, rows in splits.items():
            if type(rows) is not int:
                return (
                    f"configs[{config!r}].splits[{split!r}] must be a number of rows, not {rows!r}"
                )
    return None


def json_name(value: object) -> str:
    """What a JSON value is, in JSON's terms."""
    return JSON_NAMES.get(type(value), type(value).__name__)


# Manifest fields that hold several lines: citations, which cards quote in fenced blocks.
MULTI_LINE_FIELDS = ("citation",)


def check_manifest_text(manifest: dict, path: str | Path, error: type[Exception]) -> None:
    """Every name and value of a manifest is one line without control characters, citations
    aside: a line break in a signature or a name read back would change the structure of the
    YAML and Markdown written from it (a task file's header, a card's table)."""
    pending = [("", manifest)]
    while pending:  # not recursive: a deeply nested file must not overflow the stack
        where, value = pending.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                pending.append((f"a name in {where or 'the manifest'}", key))
                if key not in MULTI_LINE_FIELDS:
                    pending.append((f"{where}.{key}" if where else str(key), item))
        elif isinstance(value, list):
            pending.extend((f"{where}[{i}]", item) for i, item in enumerate(value))
        elif isinstance(value, str) and (char := control_character(value)) is not None:
            raise error(
                f"{path}: {where} {value!r} holds the control character {char!r}; "
                "rebuild the dataset instead of editing build.json"
            )
