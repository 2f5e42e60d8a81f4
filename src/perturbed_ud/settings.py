"""Settings written once: a dataclass field carries its documentation, default and allowed
values, and both the Python API and the command line read them from there.

``perturbed_ud.evaluate("score", metric="original")`` and ``perturbed-ud evaluate score
--metric original`` build the same settings object through `settings_from` (values
checked against the field's choices and bounds, comma lists split), and `command_options`
makes the command's options from the same fields, so no default or help text is written
twice.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import InputError
from .options import check_one_line, comma_ints, comma_words


def shown_value(value: Any) -> str:
    """A value as signatures and the command line show it (a tuple as its comma list)."""
    if isinstance(value, (tuple, list)):
        return ",".join(map(str, value))
    return str(value)


def setting(
    doc: str,
    *,
    signature: str | None = None,
    shown: Callable[[Any], str] = shown_value,
    default: Any = dataclasses.MISSING,
    default_factory: Any = dataclasses.MISSING,
    choices: tuple | None = None,
    minimum: int | None = None,
    option: str | None = None,
    repeat: bool = False,
    parse: Callable[[list[str]], Any] | None = None,
    auto: bool = False,
) -> Any:
    """A settings field with its documentation (the option's help), its allowed ``choices``
    or ``minimum``; with ``signature``, it enters a build signature as
    ``signature:shown(value)``, in field order.

    On the command line the field is ``--field-name`` unless ``option`` spells it otherwise.
    A tuple is a comma list, or with ``repeat`` a repeated option (for paths, which may hold
    commas); ``parse`` reads a field of another type from its repeated option's strings
    (``--lexicon en=UD_English-EWT``), and the Python API takes either those strings or the
    value itself. With ``auto``, a whole number may also be ``auto`` (the code chooses it, as
    ``--max-tokens auto``)."""
    metadata = {"doc": doc, "signature": signature, "shown": shown, "choices": choices,
                "minimum": minimum, "option": option, "repeat": repeat or parse is not None,
                "parse": parse, "auto": auto}  # fmt: skip
    return dataclasses.field(default=default, default_factory=default_factory, metadata=metadata)


def documented_fields(settings_class: type) -> list[dataclasses.Field]:
    """The fields a user sets: those declared with `setting`."""
    return [f for f in dataclasses.fields(settings_class) if "doc" in f.metadata]


def _base_type(hint) -> tuple[type, type | None]:
    """(the type, the element type of a tuple) of a field, ``X | None`` read as X and
    ``str | Path`` as Path."""
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        args = typing.get_args(hint)
        hint = Path if Path in args else next(a for a in args if a is not type(None))
    if typing.get_origin(hint) is tuple:
        return tuple, typing.get_args(hint)[0]
    return hint, None


def _default(f: dataclasses.Field) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return None


def paths_read(value: Any) -> list[Path]:
    """The local files and folders a settings object names: every `Path` in it (a treebank's
    files, a lexicon), and every string of a field typed ``str | Path`` (a Hub id or a
    folder), through nested settings, sequences and mappings. What a build reads, so that
    its output is never written inside it."""
    if isinstance(value, Path):
        return [value]
    if isinstance(value, (list, tuple)):
        return [path for item in value for path in paths_read(item)]
    if isinstance(value, dict):
        return paths_read(list(value.values()))
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        return []
    hints = typing.get_type_hints(type(value))
    found = []
    for f in dataclasses.fields(value):
        item = getattr(value, f.name)
        if isinstance(item, str) and item and _base_type(hints[f.name])[0] is Path:
            found.append(Path(item))
        else:
            found += paths_read(item)
    return found


def field_default(settings_class: type, name: str) -> Any:
    """The default of the field ``name``."""
    (f,) = (f for f in dataclasses.fields(settings_class) if f.name == name)
    return _default(f)


def option_name(name: str) -> str:
    return "--" + name.replace("_", "-")


def _option(f: dataclasses.Field) -> str:
    return f.metadata.get("option") or option_name(f.name)


# What a yes/no setting may be given as, in text (the command line's spellings).
_YES = frozenset({"1", "true", "t", "yes", "y", "on"})
_NO = frozenset({"0", "false", "f", "no", "n", "off"})


def field_value(f: dataclasses.Field, kind: type, value: Any) -> Any:
    """The one converter of a setting's value, from text (a release file, the Python API) or
    a value of its type, checked against its choices and minimum: ``"5"`` is 5 and
    ``"false"`` False everywhere. A bad value is a `ValueError` in the words the command line
    prints for it."""
    meta = f.metadata
    if kind is bool:
        if isinstance(value, bool):
            return value
        if (text := str(value).strip().lower()) in _YES | _NO:
            return text in _YES
        raise ValueError(f"{value!r} is not a valid boolean")
    if meta["choices"] and str(value) not in map(str, meta["choices"]):
        raise ValueError(f"{value!r} is not one of {', '.join(map(repr, meta['choices']))}")
    if meta["auto"] and value == "auto":
        return value
    if kind is int or meta["auto"]:
        number = _whole(value, "a whole number nor auto" if meta["auto"] else None)
        if meta["minimum"] is not None and number < meta["minimum"]:
            raise ValueError(f"{number} is not in the range x>={meta['minimum']}")
        return number
    if kind is float:
        try:
            if isinstance(value, bool):
                raise ValueError
            return float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{value!r} is not a valid float") from None
    return value


def _whole(value: Any, neither: str | None) -> int:
    """A whole number from an int or its text; True is an int to Python, not to a user."""
    try:
        if isinstance(value, bool | float):
            raise ValueError
        return int(value)
    except (TypeError, ValueError):
        wanted = f"is neither {neither}" if neither else "is not a valid integer"
        raise ValueError(f"{value!r} {wanted}") from None


def _typed(f: dataclasses.Field, kind: type, value: Any) -> Any:
    try:
        return field_value(f, kind, value)
    except ValueError as err:
        raise InputError(f"{_option(f)}: {err}") from None


class Described(typing.NamedTuple):
    """A documented field as a command-line option is made of it (`cli.command_options`)."""

    field: dataclasses.Field
    kind: type  # the field's type, ``X | None`` read as X (`_base_type`)
    default: Any
    help: str
    flag: str  # ``--field-name``, or the field's own spelling


def described_fields(settings_class: type, skip: tuple[str, ...] = ()) -> list[Described]:
    """Every documented field not in ``skip``, with what its option shows."""
    hints = typing.get_type_hints(settings_class)
    return [
        Described(f, _base_type(hints[f.name])[0], _default(f), _help(f.metadata["doc"]),
                  _option(f))
        for f in documented_fields(settings_class)
        if f.name not in skip
    ]  # fmt: skip


def _help(doc: str) -> str:
    """A field's documentation as option help: a sentence (a first word such as chrF or v3
    keeps its case)."""
    first = doc.split(" ", 1)[0]
    if first.isalpha() and first.islower():
        doc = doc[:1].upper() + doc[1:]
    return doc if doc.endswith(".") else f"{doc}."


def settings_from(settings_class: type, values: dict, what: str) -> Any:
    """The settings object of ``values`` (field name -> value; None: the default), each
    checked against its field: a known name, one of its choices, at least its minimum, a
    comma list or sequence for a tuple. ``what`` names the command in errors."""
    hints = typing.get_type_hints(settings_class)
    fields = {f.name: f for f in documented_fields(settings_class)}
    if unknown := sorted(set(values) - set(fields)):
        raise InputError(
            f"{what} has no setting {', '.join(unknown)}; it has: {', '.join(sorted(fields))}"
        )
    checked = {}
    for name, value in values.items():
        if value is None:
            continue
        kind, element = _base_type(hints[name])
        meta = fields[name].metadata
        if meta["parse"] and isinstance(value, (list, tuple)):
            value = meta["parse"](list(value))
        elif kind is tuple:
            if meta["repeat"] and isinstance(value, str):
                value = (value,)
            value = _sequence(value, element, _option(fields[name]))
        else:
            value = _typed(fields[name], kind, value)
        checked[name] = value
    try:
        settings = settings_class(**checked)
        check_declared(settings)  # a class whose own checks leave it out is checked too
    except (TypeError, ValueError) as err:  # a wrong type: say which command got it
        raise InputError(f"{what}: {err}") from None
    return settings


def check_declared(settings: Any) -> None:
    """Every documented field's value is one of its choices and at least its minimum (None
    stands for "not given"), and its strings stay on one line (they reach signatures, cards
    and task files): the one check of what a field declares, which a settings class calls
    from ``__post_init__`` and `settings_from` calls on what it builds."""
    for f in documented_fields(type(settings)):
        value, meta = getattr(settings, f.name), f.metadata
        if value is None:
            continue
        check_one_line(value, _option(f))
        if meta["choices"] and value not in meta["choices"]:
            choices = ", ".join(map(repr, meta["choices"]))
            raise InputError(f"{_option(f)}: {value!r} is not one of {choices}")
        if meta["auto"] and value == "auto":
            continue
        if meta["auto"] and (isinstance(value, bool) or not isinstance(value, int)):
            raise InputError(f"{_option(f)}: {value!r} is neither a whole number nor auto")
        if meta["minimum"] is not None and value < meta["minimum"]:
            raise InputError(f"{_option(f)} must be at least {meta['minimum']}")


def _sequence(value: Any, element: type, option: str) -> tuple:
    """A tuple from a comma list (``"1,2"``) or any sequence of values."""
    if not isinstance(value, str | list | tuple | set | frozenset):
        raise InputError(f"{option}: expected a list or a comma list, got {value!r}")
    try:
        if isinstance(value, str):
            return tuple(comma_ints(value) if element is int else comma_words(value))
        if element is int:  # ["1", "2"] as the command line's "1,2"
            return tuple(_whole(item, None) for item in value)
    except ValueError as err:
        raise InputError(f"{option}: {err}") from None
    return tuple(value)
