"""The dataset-family contract: a family is one module plus its registration.

The toy family below lives only in this file. Registered, it builds through the Python API,
the `build` command line (options, help, release files) and the shared engine, like the
families shipped with perturbed-ud.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from conftest import UD_ROOT
from datasets import Features, List, Value, load_dataset

import perturbed_ud
from perturbed_ud.builders.engine import build
from perturbed_ud.builders.family import DatasetFamily, version_setting
from perturbed_ud.cli import family_options, main
from perturbed_ud.data.card import CardText, markdown_table
from perturbed_ud.data.writer import rows_table
from perturbed_ud.errors import InputError
from perturbed_ud.registry import FAMILIES
from perturbed_ud.settings import documented_fields, setting
from perturbed_ud.ud.selection import Selection
from perturbed_ud.ud.sources import resolve


@dataclass(frozen=True, kw_only=True)
class ReversalSettings:
    """What shapes a toy reversal build."""

    sentences: tuple[str, ...] = setting(
        "whitespace-tokenised sentences", signature="n", option="--sentence", repeat=True
    )
    version: str = version_setting()

    def __post_init__(self):
        object.__setattr__(self, "sentences", tuple(self.sentences))


class Reversal(DatasetFamily):
    """Toy: every sentence forwards and reversed."""

    name = "toy-reversal"
    pretty_name = "Toy reversals"
    description = "Each sentence as given (`orig`) and with its words reversed (`reversed`).\n"
    features = Features(
        {"sent_id": Value("string"), "words": List(Value("string")), "text": Value("string")}
    )
    settings_class = ReversalSettings
    splits = ("orig", "reversed")
    lm_eval_tasks = ("rolling",)  # the perplexity of each split's text

    @classmethod
    def lm_eval_text(cls, manifest: dict) -> tuple[str, ...]:
        return ("text",)

    def conditions(self) -> list[str]:
        return list(self.splits)

    def jobs(self) -> list:
        return [list(enumerate(self.settings.sentences))]

    def write(self, job, writer) -> dict:
        rows = {split: [] for split in self.splits}
        for i, sentence in job:
            words = sentence.split()
            for split, order in (("orig", words), ("reversed", words[::-1])):
                rows[split].append({"sent_id": str(i), "words": order, "text": " ".join(order)})
        for split, split_rows in rows.items():
            writer.write("default", split, rows_table(split_rows, self.features))
        return {split: len(split_rows) for split, split_rows in rows.items()}

    def manifest(self, results: list) -> dict:
        return {
            "parameters": {"sentences": len(self.settings.sentences)},
            "sources": [{"lang": "en", "license": "CC BY-SA 4.0", "name": "toy"}],
            "configs": {"default": {"splits": results[0]}},
        }

    @classmethod
    def card_text(cls, manifest: dict) -> CardText:
        splits = manifest["configs"]["default"]["splits"]
        return CardText(
            loading_comment="splits orig and reversed",
            parameters="Sentences given on the command line.",
            sources="Written for the test.",
            statistics=markdown_table(["split", "N"], [[s, n] for s, n in splits.items()]),
            citation="None.",
        )


SENTENCES = ["the cat sleeps", "dogs bark loudly today"]


@pytest.fixture(autouse=True)
def _registered():
    """The toy family is registered for each test here, and for no test elsewhere (conftest
    restores the registries after every test)."""
    FAMILIES.register("toy.reversal.v1")(Reversal)


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def parquet_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*.parquet")}


def test_a_family_defined_here_builds_through_the_cli_and_the_api(tmp_path):
    args = [x for s in SENTENCES for x in ("--sentence", s)]
    result = cli("build", "toy-reversal", *args, "--version", "2.1.0", "--out", tmp_path / "cli")
    assert result.exit_code == 0, result.output
    folder = tmp_path / "cli" / "toy-reversal"
    reversed_split = load_dataset(str(folder), "default", split="reversed")
    assert reversed_split["words"] == [s.split()[::-1] for s in SENTENCES]
    manifest = json.loads((folder / "build.json").read_text(encoding="utf-8"))
    assert manifest["version"] == "2.1.0"
    assert manifest["signature"].startswith("toy-reversal:2.1.0|n:the cat sleeps,dogs bark")
    assert manifest["content_sha256"] and len(manifest["config_id"]) == 12

    api = build("toy.reversal.v1", tmp_path / "api", sentences=SENTENCES, version="2.1.0")
    assert parquet_bytes(api) == parquet_bytes(folder)
    assert json.loads((api / "build.json").read_text(encoding="utf-8")) == manifest

    tasks = cli("lm-eval-tasks", folder, "--out", tmp_path / "tasks")
    assert tasks.exit_code == 0, tasks.output
    written = sorted(p.name for p in (tmp_path / "tasks" / "toy_reversal").glob("*.yaml"))
    assert written == ["toy_reversal.yaml", "toy_reversal_default_orig_ppl.yaml",
                       "toy_reversal_default_reversed_ppl.yaml"]  # fmt: skip


def test_the_cli_lists_the_family_with_its_own_options_and_release_files(tmp_path):
    listed = cli("build", "--help")
    assert "toy-reversal" in listed.output and "perturbed-ud" in listed.output
    own = cli("build", "toy-reversal", "--help")
    assert "--sentence" in own.output and "--workers" in own.output
    release = tmp_path / "toy.toml"
    release.write_text(
        'dataset = "toy-reversal"\nversion = "1.2.0"\n\n[options]\nsentence = ["a b c"]\n',
        encoding="utf-8",
    )
    result = cli("build", release, "--out", tmp_path)
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "toy-reversal" / "build.json").read_text())
    assert manifest["version"] == "1.2.0" and manifest["configs"]["default"]["splits"]["orig"] == 1


class Undeclared(Reversal):
    """Writes a split its conditions do not name."""

    def conditions(self) -> list[str]:
        return ["orig"]


def test_a_split_the_family_does_not_declare_is_a_bug_and_leaves_nothing(tmp_path):
    with pytest.raises(ValueError, match=r"does not declare: \['reversed'\]"):
        build(Undeclared, tmp_path, sentences=SENTENCES)
    assert list(tmp_path.iterdir()) == []


def test_every_family_documents_every_setting_and_says_what_reads_it():
    """Every registered family (the toy one too): documented settings, and the evaluate
    tasks and lm-eval tasks it offers exist."""
    from perturbed_ud.registry import TASKS

    names = FAMILIES.short_names()
    assert {"perturbed-ud", "clams", "spud", "substitution", "local_structure"} < set(names)
    for name in names:
        family = FAMILIES.get(name)
        docs = {f.name: f.metadata.get("doc") for f in dataclasses.fields(family.settings_class)}
        assert "version" in docs and all(docs.values()), (name, docs)
        assert family.__doc__ and family.description and family.features, name
        assert all(TASKS.find(task) for task in family.tasks), (name, family.tasks)
        assert set(family.lm_eval_tasks) <= {"minimal_pair", "order_pair", "rolling"}, name


def test_every_build_option_is_a_documented_field_of_its_settings_or_sources():
    """`build <family>` is made from the fields, so no option's help or default is written
    twice, and a setting the sources resolve (treebanks, selection) is no option."""
    for name in FAMILIES.short_names():
        family = FAMILIES.get(name)
        settings = documented_fields(family.settings_class)
        docs = {f.name: f.metadata["doc"] for f in settings if f.name not in family.resolved}
        if family.sources_class:
            docs |= {f.name: f.metadata["doc"] for f in documented_fields(family.sources_class)}
        options = [o for o in family_options(family) if not o.hidden]  # hidden: former spellings
        assert options, name
        for option in options:
            assert option.name in docs, (name, option.name)
            assert docs[option.name][1:].rstrip(".") in option.help, (name, option.name)


def test_keywords_and_a_settings_object_build_the_same_dataset(tmp_path):
    keywords = perturbed_ud.build("spud", tmp_path / "keywords", ud_root=UD_ROOT, langs="en",
                                  seeds=[1], limit=6)  # fmt: skip
    treebanks = resolve(["en"], split="test", ud_root=str(UD_ROOT))
    settings = FAMILIES.get("spud").settings_class(
        treebanks=treebanks, seeds=(1,), selection=Selection(limit=6)
    )
    typed = perturbed_ud.build("spud", tmp_path / "typed", settings=settings)
    assert parquet_bytes(typed) == parquet_bytes(keywords)
    assert (typed / "build.json").read_bytes() == (keywords / "build.json").read_bytes()
    with pytest.raises(InputError, match="give settings whole or as keywords, not both"):
        perturbed_ud.build("spud", tmp_path / "both", settings=settings, limit=3)
    with pytest.raises(InputError, match="build spud has no option colour; it has: "):
        perturbed_ud.build("spud", tmp_path / "unknown", colour="red")
    assert not (tmp_path / "both").exists() and not (tmp_path / "unknown").exists()


def test_settings_are_frozen_and_every_signed_setting_changes_the_signature():
    treebanks = resolve(["en"], split="test", ud_root=str(UD_ROOT))
    family = FAMILIES.get("perturbed-ud")
    base = family.settings_class(treebanks=treebanks, selection=Selection(limit=5))
    with pytest.raises(dataclasses.FrozenInstanceError):
        base.seeds = (4,)
    signatures = {
        family(s).signature({})
        for s in (
            base,
            dataclasses.replace(base, seeds=[1]),
            dataclasses.replace(base, scrambles=["full"]),
            dataclasses.replace(base, part_fraction=0.25),
            dataclasses.replace(base, protocol="word_order.lrec2026.v1", seeds=[1]),
            dataclasses.replace(base, selection=Selection(sample=5)),
            dataclasses.replace(base, version="1.0.1"),
        )
    }
    assert len(signatures) == 7


def test_an_unknown_scramble_is_refused_and_the_former_spelling_still_works(tmp_path):
    result = cli("build", "perturbed-ud", "--langs", "en", "--scrambles", "full,scramble",
                 "--out", tmp_path)  # fmt: skip
    assert result.exit_code == 1
    assert "error: scrambles must be among full, part, head, not ['scramble']" in result.output
    former = cli("build", "perturbed-ud", "--langs", "en", "--limit", "3", "--families", "head",
                 "--out", tmp_path / "former")  # fmt: skip
    assert former.exit_code == 0, former.output
    assert "warning: --families is deprecated: use --scrambles" in former.output
    manifest = json.loads((tmp_path / "former" / "perturbed-ud" / "build.json").read_text())
    assert manifest["parameters"]["scrambles"] == "head"


@pytest.mark.subprocess
def test_a_spud_build_gives_the_same_bytes_with_two_workers(tmp_path):
    treebanks = resolve(["en", "fr"], split="test", ud_root=str(UD_ROOT))
    settings = {"treebanks": treebanks, "seeds": [1], "selection": Selection(limit=15)}
    one = build("spud", tmp_path / "one", **settings)
    two = build("spud", tmp_path / "two", workers=2, **settings)
    assert parquet_bytes(one) == parquet_bytes(two)
    assert pq.read_table(one / "fr_seed1" / "nonce-00000-of-00001.parquet").num_rows == 15


def test_settings_refuse_repeated_seeds_strings_for_lists_and_unknown_splits():
    treebanks = resolve(["en"], split="test", ud_root=str(UD_ROOT))
    settings = FAMILIES.get("spud").settings_class
    for bad, message in (
        ({"seeds": [1, 1]}, "seeds given twice: 1,1"),
        ({"seeds": "12"}, "seeds takes a list, not the string '12'"),
        ({"split": "bogus"}, "unknown split 'bogus'"),
        ({"version": "1.0"}, "not a version"),
    ):
        with pytest.raises(InputError, match=message):
            settings(treebanks=treebanks, **bad)


def test_release_files_and_the_cli_take_versioned_names_and_refuse_loops(tmp_path):
    release = tmp_path / "loop.toml"
    release.write_text(f'dataset = "{release}"\nversion = "1.0.0"\n', encoding="utf-8")
    looped = cli("build", release, "--out", tmp_path)
    assert looped.exit_code == 1 and f"no dataset '{release}' to build" in looped.output
    versioned = cli("build", "toy.reversal.v1", "--sentence", "a b", "--out", tmp_path / "v")
    assert versioned.exit_code == 0, versioned.output
    manifest = json.loads((tmp_path / "v" / "toy-reversal" / "build.json").read_text())
    assert manifest["family"] == "toy.reversal.v1"
    workers = tmp_path / "workers.toml"
    workers.write_text('dataset = "spud"\nversion = "1.0.0"\n[options]\nworkers = 2\n')
    refused = cli("build", workers, "--out", tmp_path)
    assert refused.exit_code == 1 and "'workers' is not part of a release" in refused.output
