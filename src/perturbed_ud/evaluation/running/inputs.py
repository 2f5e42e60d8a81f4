"""What an evaluation checks before it loads a model or writes anything: that the dataset
exists and suits the task, that the configs and splits asked for exist, that the device is
there, and which kind of model it is.

A name that can only be a path (``./x``, ``/x``, ``~/x``, or a folder below one that exists
here) is looked up on disk and nowhere else, so a typo fails at once instead of after the
Hub's retries. Reading ``build.json`` tells a dataset's family without loading its data.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...errors import InputError
from ...manifest import check_manifest_text, read_manifest
from ...registry import manifest_family
from .task import tasks_of_family

_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*(/[\w.-]+)?")


def can_only_be_a_path(name: str) -> bool:
    """Whether ``name`` names a local path rather than a Hub id: it says so (``./``, ``/``,
    ``~``), it is no valid Hub id, or its first part is a folder here (``small/nothere``)."""
    if name.startswith((".", "/", "~")) or not _HUB_ID.fullmatch(name):
        return True
    return "/" in name and Path(name.split("/")[0]).is_dir()


def missing_path(name: str, what: str) -> InputError:
    """The error for a local path that is not there, with what its folder does hold."""
    path = Path(name).expanduser()
    parent = path.parent
    if parent.is_dir():
        present = sorted(p.name for p in parent.iterdir() if not p.name.startswith("."))
        listing = f" ({parent} holds: {', '.join(present[:12]) or 'nothing'})"
    else:
        listing = f" (nor is there a folder {parent})"
    return InputError(f"no {what} {name}: there is no such folder{listing}")


def local_manifest(dataset: str) -> dict | None:
    """``build.json`` of a local dataset folder; None for a Hub id, or a folder without one
    (a dataset built elsewhere). A path that is not there is an error."""
    folder = Path(dataset).expanduser()
    if not folder.is_dir():
        if can_only_be_a_path(dataset):
            raise missing_path(dataset, "dataset")
        return None
    path = folder / "build.json"
    if not path.is_file():
        check_dataset_folder(dataset, folder)
        return None
    manifest = read_manifest(path)
    check_manifest_text(manifest, path, InputError)
    return manifest


# What `datasets.load_dataset` reads from a folder built elsewhere (compressed too).
DATA_FILES = tuple(
    f"*.{kind}{packed}"
    for kind in ("parquet", "arrow", "csv", "tsv", "json", "jsonl", "txt")
    for packed in ("", ".gz", ".bz2", ".xz", ".zst")
)


# How deep below --dataset a dataset folder is looked for (``data/word-order/perturbed-ud``),
# and how many of them an error names.
NESTED_DEPTH, NESTED_SHOWN = 3, 5


def check_dataset_folder(dataset: str, folder: Path) -> None:
    """Refuse a folder without a ``build.json`` that holds dataset folders (the ``--out`` a
    build was given, not the dataset in it: read whole, its builds would be scored as one
    lumped config), or that holds nothing `datasets` reads."""
    inside = sorted(
        p.parent
        for depth in range(1, NESTED_DEPTH + 1)
        for p in folder.glob("/".join(["[!.]*"] * depth + ["build.json"]))
        if p.is_file()
    )
    if inside:
        shown = [str(Path(dataset) / p.relative_to(folder)) for p in inside[:NESTED_SHOWN]]
        more = f" (and {len(inside) - NESTED_SHOWN} more)" if len(inside) > NESTED_SHOWN else ""
        paths = ", ".join(shown) + more
        one = "a dataset folder" if len(inside) == 1 else "dataset folders"
        raise InputError(f"{dataset} is no dataset but holds {one}: use --dataset {paths}")
    if not any(p.is_file() for p in folder.rglob("[!.]*")):
        raise InputError(f"cannot load dataset {dataset}: the folder holds no files")
    card = (folder / "README.md").is_file()
    if not card and not any(p.is_file() for kind in DATA_FILES for p in folder.rglob(kind)):
        raise InputError(
            f"{dataset} is not a dataset folder: it has no build.json, no README.md and no "
            "data files (Parquet, Arrow, CSV, TSV, JSON Lines, text)"
        )


def check_dataset(task: str, dataset: str, manifest: dict | None) -> None:
    """Refuse a dataset built for another task, naming its family and the task it fits, or
    built by another version of its family (`manifest_family`)."""
    if manifest is None:
        return
    family = manifest_family(manifest, dataset)
    if family is None:  # built by a family not installed here
        return
    fits = tasks_of_family(family.name)
    if task not in fits:
        raise InputError(
            f"{dataset} is a {family.name} dataset ({family.registered_name}): "
            f"`evaluate {task}` does not read it; use "
            + " or ".join(f"`evaluate {t}`" for t in fits)
        )


def choose_configs(
    dataset: str, manifest: dict | None, configs: list[str] | None, splits: list[str] | None
) -> None:
    """Refuse configs and splits a local dataset does not have, listing those it has."""
    if manifest is None:
        return
    built = manifest.get("configs", {})
    if unknown := [c for c in configs or () if c not in built]:
        raise InputError(
            f"{dataset} has no config {', '.join(unknown)} (it has: {', '.join(built)})"
        )
    chosen = [built[c] for c in configs or built]
    present = list(dict.fromkeys(s for c in chosen for s in c.get("splits", {})))
    if unknown := [s for s in splits or () if s not in present]:
        raise InputError(
            f"no split {', '.join(unknown)} in the chosen configs of {dataset} "
            f"(they have: {', '.join(present)})"
        )


def check_inputs(
    task: str, dataset: str, configs: list[str] | None, splits: list[str] | None, model: str
) -> None:
    """The checks that need no library: a mistyped local path, data of another family, or
    configs and splits the dataset lacks fail here, before torch, transformers and datasets
    are imported."""
    manifest = local_manifest(dataset)
    check_dataset(task, dataset, manifest)
    choose_configs(dataset, manifest, configs, splits)
    check_model_path(model)


def check_model_path(model: str) -> None:
    """A model named by a path that is not there fails here, before transformers is loaded."""
    if not Path(model).expanduser().exists() and can_only_be_a_path(model):
        raise missing_path(model, "model")


def model_kind(
    model: str,
    revision: str | None,
    asked: str | None,
    *,
    choosable: bool = True,
    remote_code: bool = False,
) -> str:
    """``masked`` or ``causal``: the kind ``asked`` for (``--kind``), which must not contradict
    the model's config, or else the kind the config says; the model is then checked to be
    readable as that kind (`checked_model`). A model that is neither is refused, naming what
    its config says."""
    from transformers import AutoConfig

    from ...lm.models import checked_model, model_kind_of, pretrained

    kind = asked
    if kind is None:
        config = pretrained(AutoConfig, model, revision, trust_remote_code=remote_code)
        found = model_kind_of(config)
        if found is None:
            shape = "encoder-decoder, " if getattr(config, "is_encoder_decoder", False) else ""
            architectures = ", ".join(getattr(config, "architectures", None) or ())
            raise InputError(
                f"{model} is neither a masked nor a causal language model ({shape}model type "
                f"{config.model_type}, architectures: {architectures or 'none named'}): name "
                "its kind with --kind if it is one"
            )
        kind = found[0]
    checked_model(model, revision, kind, choosable, remote_code)
    return kind
