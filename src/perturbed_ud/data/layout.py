"""A built dataset's layout: which Parquet shards are which split, as its build.json says.

The content hash binds file bytes, not which split a file is, and a card's ``data_files`` can
be edited to map a split to another split's files. So a folder with a build.json is read by
its layout (``<config>/<split>-*.parquet`` for every split build.json lists), hashed over
those shards alone (a stray Parquet file below it changes nothing), and its card's
``data_files`` must give exactly that layout, or evaluate, lm-eval-tasks and push refuse it.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from ..files import file_sha256
from .writer import digests_content, split_files, split_pattern


def built_layout(folder: Path, manifest: dict, error=InputError) -> dict[str, list[str]]:
    """Each split's shards (``<config>/<split>``), as paths relative to ``folder``; a split
    build.json lists without a shard is refused."""
    layout = {}
    for config, entry in manifest["configs"].items():
        for split in entry.get("splits", {}):
            shards = split_files(folder, config, split)
            if not shards:
                raise error(
                    f"{folder}: build.json lists split {split!r} of {config!r}, which has no "
                    f"file {split_pattern(config, split)}; rebuild the dataset"
                )
            layout[f"{config}/{split}"] = [p.relative_to(folder).as_posix() for p in shards]
    return layout


def layout_digests(folder: Path, manifest: dict, error=InputError) -> dict[str, str]:
    """The sha256 of every shard of the layout, by relative path, in sorted order: what the
    content hash covers."""
    names = sorted(n for shards in built_layout(folder, manifest, error).values() for n in shards)
    return {name: file_sha256(folder / name) for name in names}


def check_card_layout(folder: Path, manifest: dict, error=InputError) -> None:
    """Refuse a card whose configs and ``data_files`` are not build.json's layout: a split
    mapped to another's files would be read, scored or uploaded as the wrong condition."""
    import yaml
    from huggingface_hub import DatasetCard

    try:
        configs = DatasetCard.load(folder / "README.md").data.to_dict().get("configs") or []
    except (OSError, ValueError, yaml.YAMLError) as err:
        message = " ".join(str(err).split())  # YAML errors span lines
        raise error(f"{folder / 'README.md'}: cannot read its YAML header: {message}") from None
    found = {
        (c.get("config_name"), f.get("split")): f.get("path")
        for c in configs
        for f in (c.get("data_files") or [])
        if isinstance(f, dict)
    }
    wanted = {
        (config, split): split_pattern(config, split)
        for config, entry in manifest["configs"].items()
        for split in entry.get("splits", {})
    }
    for config, split in sorted(found.keys() | wanted.keys(), key=str):
        card, built = found.get((config, split)), wanted.get((config, split))
        if card != built:
            raise error(
                f"{folder}: README.md's data_files are not the layout build.json records: "
                f"split {split!r} of {config!r} is {card or 'absent'} in the card, "
                f"{built or 'absent'} in build.json; rebuild the dataset or restore its card"
            )


def layout_content(folder: Path, manifest: dict, error=InputError) -> str:
    """The content hash of the layout's shards, as build.json's ``content_sha256`` is."""
    return digests_content(layout_digests(folder, manifest, error))
