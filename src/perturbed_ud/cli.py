"""The ``perturbed-ud`` command line."""

from __future__ import annotations

import sys

import click

from .ud.conllu_io import CoNLLUError
from .ud.sources import SourceError


def _ints(value: str) -> list[int]:
    try:
        return [int(v) for v in value.split(",") if v.strip()]
    except ValueError:
        raise click.BadParameter(f"expected comma-separated integers, got {value!r}") from None


def _words(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


@click.group()
@click.version_option(package_name="perturbed-ud")
def main() -> None:
    """Build perturbation datasets from Universal Dependencies, publish and evaluate them."""


@main.command()
@click.argument("dataset", type=click.Choice(["perturbed-ud"]))
@click.option("--langs", default="en,de,es,ru,zh", show_default=True, help="Comma-separated.")
@click.option("--seeds", default="1,2,3", show_default=True, help="Comma-separated integers.")
@click.option("--families", default="full,part,head", show_default=True)
@click.option("--protocol", type=click.Choice(["paper", "lrec2026"]), default="paper")
@click.option("--part-fraction", type=float, default=0.5, show_default=True)
@click.option("--files", multiple=True, type=click.Path(), help="Explicit CoNLL-U files.")
@click.option("--ud-root", type=click.Path(), help="Folder of UD_* treebank folders.")
@click.option(
    "--treebank", "treebanks", multiple=True, help="LANG=UD_Name, e.g. ru=UD_Russian-GSD."
)
@click.option("--split", default="test", show_default=True, help="train, dev or test.")
@click.option("--limit", type=int, help="Only the first N sentences of each treebank.")
@click.option("--sample", type=int, help="A seeded sample of N sentences per treebank.")
@click.option("--sample-seed", type=int, default=0, show_default=True)
@click.option("--offline", is_flag=True, help="Never download; use only the cache.")
@click.option("--workers", type=int, default=1, show_default=True, help="Processes.")
@click.option("--out", required=True, type=click.Path(), help="Output folder.")
@click.option("--overwrite", is_flag=True, help="Replace an existing dataset folder.")
def build(dataset, langs, seeds, families, protocol, part_fraction, files, ud_root, treebanks,
          split, limit, sample, sample_seed, offline, workers, out, overwrite) -> None:  # fmt: skip
    """Build DATASET into OUT/DATASET (Parquet per config and split, card, build.json).

    Treebanks come from --files, --ud-root (or $PERTURBED_UD_ROOT), or are downloaded from
    the UD GitHub repositories at a pinned release into the user cache.
    """
    from .builders.build import build_perturbed_ud
    from .ud.selection import Selection
    from .ud.sources import parse_treebank_overrides, resolve

    try:
        sources = resolve(
            _words(langs),
            split=split,
            files=list(files),
            ud_root=ud_root,
            overrides=parse_treebank_overrides(list(treebanks)),
            offline=offline,
        )
        folder = build_perturbed_ud(
            sources,
            out,
            seeds=_ints(seeds),
            families=_words(families),
            protocol=protocol,
            part_fraction=part_fraction,
            selection=Selection(limit=limit, sample=sample, sample_seed=sample_seed),
            split=split,
            workers=workers,
            overwrite=overwrite,
        )
    except (CoNLLUError, SourceError, ValueError, FileExistsError) as err:
        click.echo(f"error: {err}", err=True)
        sys.exit(1)
    click.echo(f"wrote {folder}")


@main.command()
@click.argument("folder", type=click.Path())
@click.option("--repo-id", required=True, help="Hub dataset repo, e.g. me/perturbed-ud.")
@click.option("--version", "version", required=True, help="x.y.z; must match build.json.")
@click.option("--dry-run", is_flag=True, help="List what would be uploaded; touch no Hub.")
@click.option("--private", is_flag=True, help="Create the repo as private.")
@click.option("--allow-licence-risk", is_flag=True, help="Publish despite licence problems.")
@click.option("--token", help="Hugging Face token (default: HF_TOKEN or `hf auth login`).")
def push(folder, repo_id, version, dry_run, private, allow_licence_risk, token) -> None:
    """Upload a built dataset FOLDER to the Hub and tag the commit v<version>.

    The version must be the one the folder was built as, so a tag always names one build.
    """
    from .data.push import PushError, push_folder

    try:
        push_folder(
            folder,
            repo_id,
            version,
            dry_run=dry_run,
            private=private,
            allow_licence_risk=allow_licence_risk,
            token=token,
            echo=click.echo,
        )
    except PushError as err:
        click.echo(f"error: {err}", err=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
