"""The clams dataset end to end, from the released CLAMS grammars and from the packaged ones:
load_dataset round trips, the released evalsets pair by pair, word positions, byte-determinism,
located grammar errors that leave nothing behind, language discovery, and publishing."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from conftest import CLAMS_REFERENCE, CONSTRUCTIONS, UD_ROOT, needs_clams_reference
from datasets import get_dataset_config_names, load_dataset

import perturbed_ud.builders.clams as clams
from perturbed_ud.builders import engine
from perturbed_ud.cli import main
from perturbed_ud.grammar import evalset_lines, generate_folder

CLAMS = CLAMS_REFERENCE
LANGS = ["de", "fr"]
PACKAGED = clams.DEFAULT_GRAMMARS
PACKAGED_LANGS = ["de", "en", "fr", "he", "ru"]
PUBLISHED = ("build.json", "README.md")  # what push uploads besides the Parquet files


def cli(*args: str):
    return CliRunner().invoke(main, list(args))


def build(out: Path, *args: str) -> Path:
    result = cli("build", "clams", *args, "--out", str(out))
    assert result.exit_code == 0, result.output
    return out / "clams"


def rows(folder: Path, config: str, split: str) -> list[dict]:
    return pq.read_table(folder / config / f"{split}-00000-of-00001.parquet").to_pylist()


def num_rows(folder: Path, config: str, split: str) -> int:
    """The rows of a split, from its Parquet footer (without reading them)."""
    return pq.read_metadata(folder / config / f"{split}-00000-of-00001.parquet").num_rows


def digests(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def released(lang: str, construction: str) -> list[tuple[bool, str]]:
    text = (CLAMS / f"{lang}_evalset" / f"{construction}.txt").read_text(encoding="utf-8")
    lines = [line.split("\t") for line in text.splitlines()]
    return [(label == "True", sentence) for label, sentence in lines]


def evalset_of(folder: Path, lang: str, construction: str) -> list[tuple[bool, str]]:
    """Each minimal set's grammatical sentence, then its ungrammatical ones, in row order."""
    pairs = rows(folder, lang, construction)
    lines = []
    for item, group in groupby(pairs, key=lambda r: r["item"]):
        group = list(group)
        assert len({r["sentence_good"] for r in group}) == 1
        lines.append((True, group[0]["sentence_good"]))
        for k, r in enumerate(group):
            assert r["pair_id"] == f"{lang}/{construction}/{item}-{k}"
            assert (r["lang"], r["construction"]) == (lang, construction)
            lines.append((False, r["sentence_bad"]))
    assert [r["item"] for r in pairs] == sorted(r["item"] for r in pairs)
    return lines


@dataclass(frozen=True)
class Built:
    """A clams dataset and the grammars it was built from."""

    folder: Path
    grammar_dir: Path
    options: tuple[str, ...]  # the build's grammar options
    langs: list[str]
    french: Path  # the French grammars alone


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """From the released CLAMS grammars."""
    return build(tmp_path_factory.mktemp("clams"), "--grammar-dir", str(CLAMS))


@pytest.fixture(scope="module")
def packaged(tmp_path_factory):
    """From the grammars in the package, the default."""
    return build(tmp_path_factory.mktemp("packaged"))


@pytest.fixture(
    scope="module", params=[pytest.param("released", marks=needs_clams_reference), "packaged"]
)
def built(request) -> Built:
    if request.param == "released":
        folder = request.getfixturevalue("dataset")
        options = ("--grammar-dir", str(CLAMS))
        return Built(folder, CLAMS, options, LANGS, CLAMS / "fr_replication")
    return request.getfixturevalue("packaged_built")


@pytest.fixture(scope="module")
def packaged_built(packaged) -> Built:
    return Built(packaged, PACKAGED, (), PACKAGED_LANGS, PACKAGED / "fr")


def fr_copy(tmp_path: Path, name: str = "fr", constructions: tuple[str, ...] = ()) -> Path:
    """The packaged French grammars, copied: a folder of grammars without a licence file;
    only ``common.avg`` and the grammars of ``constructions`` when named (a smaller build)."""
    folder = tmp_path / "grammars" / name
    keep = {"common.avg", *(f"{c}.avg" for c in constructions)}
    ignore = (lambda _, names: [n for n in names if n not in keep]) if constructions else None
    shutil.copytree(PACKAGED / "fr", folder, ignore=ignore)
    return folder


@pytest.fixture(scope="module")
def french(tmp_path_factory) -> Path:
    """The build of a copy of the packaged French grammars (`fr_copy`, ``--lang fr``), shared
    by the tests that only read it."""
    root = tmp_path_factory.mktemp("french")
    return build(root / "out", "--grammar-dir", str(fr_copy(root)), "--lang", "fr")


@pytest.fixture(scope="module")
def packaged_evalsets() -> dict[str, dict[str, tuple[int, list[tuple[bool, str]]]]]:
    """{lang: {construction: (minimal sets, evalset lines)}} of the packaged grammars,
    generated once for the tests that compare builds with them."""
    return {
        lang: {
            name: (len(sets), evalset_lines(sets))
            for name, sets in generate_folder(PACKAGED / lang).items()
        }
        for lang in PACKAGED_LANGS
    }


@needs_clams_reference
@pytest.mark.full_build
def test_every_language_loads_with_one_split_per_construction(dataset, tmp_path):
    assert get_dataset_config_names(str(dataset)) == LANGS
    ds = load_dataset(str(dataset), "fr", cache_dir=str(tmp_path))
    assert list(ds) == CONSTRUCTIONS
    assert ds["simple_agrmt"].info.version.version_str == "2.0.0"
    manifest = json.loads((dataset / "build.json").read_text())
    assert {split: len(d) for split, d in ds.items()} == manifest["configs"]["fr"]["splits"]
    row = ds["prep_anim"][0]
    assert row["pair_id"] == "fr/prep_anim/0-0"
    assert row["sentence_good"] == "les auteurs devant les gardes sont vieux"
    assert row["sentence_bad"] == "les auteurs devant les gardes est vieux"
    assert (row["good_form"], row["bad_form"]) == ("sont vieux", "est vieux")
    assert row["good_positions"] == row["bad_positions"] == [5, 6]
    assert (row["preterminal"], row["good_attributes"], row["bad_attributes"]) == (
        "VP",
        ["3", "p"],
        ["3", "s"],
    )
    assert row["varied_attributes"] == ["p", "s"]


@pytest.mark.full_build
def test_packaged_languages_load_with_one_split_per_construction(packaged, tmp_path):
    assert get_dataset_config_names(str(packaged)) == PACKAGED_LANGS
    manifest = json.loads((packaged / "build.json").read_text())
    for lang in PACKAGED_LANGS:
        ds = load_dataset(str(packaged), lang, cache_dir=str(tmp_path))
        assert list(ds) == CONSTRUCTIONS
        assert ds["simple_agrmt"].info.version.version_str == "2.0.0"
        assert {split: len(d) for split, d in ds.items()} == manifest["configs"][lang]["splits"]
    row = ds["prep_anim"][0]  # Russian
    assert row["pair_id"] == "ru/prep_anim/0-0" and row["item"] == row["template"] - 1 == 0
    good, bad = row["sentence_good"].split(" "), row["sentence_bad"].split(" ")
    assert [good[i] for i in row["good_positions"]] == row["good_form"].split(" ")
    assert [bad[i] for i in row["bad_positions"]] == row["bad_form"].split(" ")
    assert (row["preterminal"], row["good_attributes"], row["bad_attributes"]) == (
        "VP",
        ["3", "s"],
        ["3", "p"],
    )
    assert row["varied_attributes"] == ["s", "p"]


@pytest.mark.full_build
@needs_clams_reference
@pytest.mark.parametrize("lang", LANGS)
def test_pairs_give_back_the_released_evalsets(dataset, lang):
    """Each minimal set's grammatical sentence, then its ungrammatical ones, in row order,
    is the released evalset line for line, labels included."""
    for construction in CONSTRUCTIONS:
        lines = evalset_of(dataset, lang, construction)
        assert lines == released(lang, construction), f"{lang} {construction}"


@pytest.mark.full_build
@pytest.mark.parametrize("lang", PACKAGED_LANGS)
def test_pairs_give_back_the_packaged_grammars_evalsets(packaged, packaged_evalsets, lang):
    for construction in CONSTRUCTIONS:
        lines = evalset_of(packaged, lang, construction)
        assert lines == packaged_evalsets[lang][construction][1], f"{lang} {construction}"


@pytest.mark.full_build
def test_positions_pick_out_the_forms_in_both_sentences(built):
    for lang in built.langs:
        for construction in CONSTRUCTIONS:
            for r in rows(built.folder, lang, construction):
                good, bad = r["sentence_good"].split(" "), r["sentence_bad"].split(" ")
                gp, bp = r["good_positions"], r["bad_positions"]
                assert gp == list(range(gp[0], gp[-1] + 1)) and gp[0] == bp[0]
                assert bp == list(range(bp[0], bp[-1] + 1))
                assert " ".join(good[i] for i in gp) == r["good_form"]
                assert " ".join(bad[i] for i in bp) == r["bad_form"]
                assert good[: gp[0]] == bad[: bp[0]]
                assert good[gp[-1] + 1 :] == bad[bp[-1] + 1 :]
                assert r["good_form"] != r["bad_form"]
                assert set(r["varied_attributes"]) == set(r["good_attributes"]) ^ set(
                    r["bad_attributes"]
                )


@needs_clams_reference
@pytest.mark.full_build
def test_manifest_and_card(dataset):
    manifest = json.loads((dataset / "build.json").read_text())
    card = (dataset / "README.md").read_text()
    assert manifest["dataset"] == "clams" and manifest["version"] == "2.0.0"
    assert manifest["content_sha256"] in card and manifest["signature"] in card
    assert "license: apache-2.0" in card
    assert "Cross-Linguistic Syntactic Evaluation of Word Prediction Models" in card
    assert "Mueller" in card
    for source in manifest["sources"]:
        assert source["license"] == "Apache-2.0"
        assert source["origin"] == "CLAMS repository"
        folder = CLAMS / f"{source['lang']}_replication"
        assert [f["name"] for f in source["files"]] == ["common.avg"] + [
            f"{c}.avg" for c in CONSTRUCTIONS
        ]
        for f in source["files"]:
            assert f["sha256"] == hashlib.sha256((folder / f["name"]).read_bytes()).hexdigest()
    for lang in LANGS:
        config = manifest["configs"][lang]
        assert config["drops"] == {} and config["empty_splits"] == []
        for construction, n in config["splits"].items():
            assert n == num_rows(dataset, lang, construction)
            assert f"| `{construction}` |" in card
            sets = sum(label for label, _ in released(lang, construction))
            assert config["minimal_sets"][construction] == sets
    assert "| total | 47820 | 49360 |" in card


@pytest.mark.full_build
def test_packaged_manifest_and_card(packaged, packaged_evalsets):
    manifest = json.loads((packaged / "build.json").read_text())
    card = (packaged / "README.md").read_text()
    assert manifest["dataset"] == "clams" and manifest["version"] == "2.0.0"
    assert manifest["content_sha256"] in card and manifest["signature"] in card
    assert manifest["parameters"]["grammar_dir"] == "lexicons/clams"
    assert "license: apache-2.0" in card and "Mueller" in card
    assert [s["lang"] for s in manifest["sources"]] == PACKAGED_LANGS
    for source in manifest["sources"]:
        lang = source["lang"]
        assert (source["origin"], source["license"], source["folder"]) == (
            "perturbed-ud",
            "Apache-2.0",
            f"lexicons/clams/{lang}",
        )
        assert [f["name"] for f in source["files"]] == ["common.avg"] + [
            f"{c}.avg" for c in CONSTRUCTIONS
        ]
        for f in source["files"]:
            data = (PACKAGED / lang / f["name"]).read_bytes()
            assert f["sha256"] == hashlib.sha256(data).hexdigest()
    totals = []
    for lang in PACKAGED_LANGS:
        config = manifest["configs"][lang]
        assert config["drops"] == {} and config["empty_splits"] == []
        assert "form_check" not in config, "no UD root was given"
        for construction, n in config["splits"].items():
            assert n == num_rows(packaged, lang, construction)
            assert config["minimal_sets"][construction] == packaged_evalsets[lang][construction][0]
        totals.append(sum(config["splits"].values()))
    assert "| total | " + " | ".join(map(str, totals)) + " |" in card


@pytest.mark.subprocess
@pytest.mark.full_build
def test_two_builds_are_byte_identical(built, tmp_path):
    cmd = [sys.executable, "-m", "perturbed_ud.cli", "build", "clams"]
    cmd += [*built.options, "--out", str(tmp_path)]
    env = dict(os.environ, PYTHONHASHSEED="4321")
    subprocess.run(cmd, check=True, env=env, capture_output=True)
    assert digests(tmp_path / "clams") == digests(built.folder)


@pytest.mark.full_build
def test_one_language_folder_and_language_selection(built, tmp_path):
    result = cli("build", "clams", "--grammar-dir", str(built.french),
                 "--out", str(tmp_path / "a"))  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr.startswith("error: ") and "--lang" in result.stderr
    alone = build(tmp_path / "b", "--grammar-dir", str(built.french), "--lang", "fr")
    assert get_dataset_config_names(str(alone)) == ["fr"]
    picked = build(tmp_path / "c", "--grammar-dir", str(built.grammar_dir), "--langs", "fr")
    assert get_dataset_config_names(str(picked)) == ["fr"]
    for folder in (alone, picked):
        ours = {k: v for k, v in digests(folder).items() if k.endswith(".parquet")}
        both = digests(built.folder)
        assert ours and all(both[k] == v for k, v in ours.items())


def test_missing_language_and_existing_folder_are_errors(french, tmp_path):
    result = cli("build", "clams", "--langs", "fr,xx", "--out", str(tmp_path))
    assert result.exit_code == 1
    found = ", ".join(PACKAGED_LANGS)
    assert result.stderr.startswith(f"error: no grammars for xx (found: {found})")
    assert not (tmp_path / "clams").exists()
    result = cli("build", "clams", "--out", str(french.parent))
    assert result.exit_code == 1
    assert "exists; pass --overwrite" in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("VP[3,s est vieux", "a rule starts with Name[attributes]"),
        ("S[] N_9[3,p] VP[3,p]", "undefined preterminal N_9[3,p]"),
        ("VP[3,s] nage", "forms but"),  # found while generating, after the build started
    ],
)
def test_broken_grammar_exits_1_with_file_and_line_and_writes_nothing(tmp_path, line, message):
    folder = fr_copy(tmp_path)
    path = folder / "simple_agrmt.avg"
    text = path.read_text(encoding="utf-8")
    path.write_text(text + line + "\n", encoding="utf-8")
    number = len(text.splitlines()) + 1
    out = tmp_path / "out"
    result = cli("build", "clams", "--grammar-dir", str(folder.parent), "--out", str(out))
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: "), result.output
    assert message in result.stderr
    if message == "forms but":  # located at the form the first template's VP[3,s] varies to
        lines = text.splitlines()
        assert next(x for x in lines if x.startswith("S[]")).endswith(" VP[3,s]")
        number = 1 + lines.index(next(x for x in lines if x.startswith("VP[3,p]")))
    located = f"{path}:{number}:"
    assert located in result.stderr, result.stderr
    assert "Traceback" not in result.output
    assert not out.exists() or list(out.iterdir()) == []


def test_max_sentences_refuses_a_construction_before_it_is_expanded(french, tmp_path):
    """French constructions have at most 22,400 sentences: at that limit the build is the
    default's byte for byte (the limit is no part of the signature), one below it is refused
    at the template that takes obj_rel_across_anim over it."""
    folder = fr_copy(tmp_path)
    options = ("--grammar-dir", str(folder), "--lang", "fr")
    at_limit = build(tmp_path / "at_limit", *options, "--max-sentences", "22400")
    assert digests(at_limit) == digests(french)
    out = tmp_path / "over"
    result = cli("build", "clams", *options, "--max-sentences", "22399", "--out", str(out))
    assert result.exit_code == 1, result.output
    path = folder / "obj_rel_across_anim.avg"
    assert result.stderr.startswith(f"error: {path}:11: the template expands to 5,600 ")
    assert "which takes obj_rel_across_anim to 22,400: over the limit of 22,399" in result.stderr
    assert not out.exists() or list(out.iterdir()) == []


def test_published_files_name_no_path_of_the_building_machine(tmp_path):
    """build.json and the card are uploaded by push: grammar folders are named by their base
    name, licence files from the grammar folder."""
    folder = fr_copy(tmp_path, constructions=("simple_agrmt", "vp_coord"))
    licence = "Apache License\nVersion 2.0, January 2004\n\nCopyright 2020 Someone\n"
    (folder.parent / "LICENSE").write_text(licence, encoding="utf-8")
    layouts = [(("--grammar-dir", str(folder.parent)), "grammars", "grammars/fr"),
               (("--grammar-dir", str(folder), "--lang", "fr"), "fr", "fr")]  # fmt: skip
    for k, (options, grammar_dir, shown) in enumerate(layouts):
        built = build(tmp_path / f"out{k}", *options)
        published = [(built / name).read_text(encoding="utf-8") for name in PUBLISHED]
        for text in published:
            assert str(tmp_path) not in text and str(tmp_path.resolve()) not in text
        manifest = json.loads(published[0])
        assert manifest["parameters"]["grammar_dir"] == grammar_dir
        (source,) = manifest["sources"]
        assert (source["folder"], source["licence_file"]) == (shown, "../LICENSE")
        assert (source["license"], source["copyright"]) == ("Apache-2.0", "2020 Someone")
        assert [f["name"] for f in source["files"]] == sorted(p.name for p in folder.iterdir())


def test_split_names_must_be_lowercase(tmp_path):
    folder = fr_copy(tmp_path)
    (folder / "simple_agrmt.avg").rename(folder / "Simple-Agrmt.avg")
    result = cli("build", "clams", "--grammar-dir", str(folder.parent), "--out", str(tmp_path))
    assert result.exit_code == 1
    assert "Simple-Agrmt.avg" in result.stderr and "[a-z0-9_]" in result.stderr


def test_both_layouts_of_one_language_are_ambiguous(tmp_path):
    fr_copy(tmp_path, "fr")
    fr_copy(tmp_path, "fr_replication")
    result = cli("build", "clams", "--grammar-dir", str(tmp_path / "grammars"),
                 "--out", str(tmp_path / "out"))  # fmt: skip
    assert result.exit_code == 1
    assert "both fr/ and fr_replication/" in result.stderr


def test_embedded_grammars_are_the_default(tmp_path, monkeypatch):
    folder = fr_copy(tmp_path, "fr", constructions=("simple_agrmt",))
    (folder.parent / "de").mkdir()  # a language still being written: no grammar yet
    monkeypatch.setattr(clams, "DEFAULT_GRAMMARS", folder.parent)
    built = build(tmp_path / "out")
    manifest = json.loads((built / "build.json").read_text())
    assert list(manifest["configs"]) == ["fr"]
    (source,) = manifest["sources"]
    assert (source["origin"], source["license"], source["folder"]) == (
        "perturbed-ud",
        "Apache-2.0",
        "lexicons/clams/fr",
    )
    assert manifest["parameters"]["grammar_dir"] == "lexicons/clams"
    monkeypatch.setattr(clams, "DEFAULT_GRAMMARS", tmp_path / "none")
    result = cli("build", "clams", "--out", str(tmp_path / "out2"))
    assert result.exit_code == 1 and "--grammar-dir" in result.stderr


@pytest.mark.full_build
def test_push_dry_run(packaged_built, no_hub):
    built = packaged_built
    result = cli("push", str(built.folder), "--repo-id", "someone/clams", "--version", "2.0.0",
                 "--dry-run")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "tag: v2.0.0" in result.stdout
    assert "licences: every source licence allows publishing" in result.stdout
    assert "  build.json  " in result.stdout and "  README.md  " in result.stdout
    for lang in built.langs:
        for construction in CONSTRUCTIONS:
            assert f"  {lang}/{construction}-00000-of-00001.parquet  " in result.stdout


def test_push_refuses_grammars_of_unknown_licence(french, no_hub):
    manifest = json.loads((french / "build.json").read_text())
    assert manifest["sources"][0]["license"] == "unknown"
    result = cli("push", str(french), "--repo-id", "someone/clams", "--version", "2.0.0",
                 "--dry-run")  # fmt: skip
    assert result.exit_code == 1
    assert "some source licences forbid or do not clearly allow" in result.stderr
    assert "grammars fr: licence 'unknown' is not recognised" in result.stderr


def test_embedded_grammars_build_with_their_forms_checked(tmp_path):

    folder = engine.build("clams", tmp_path, langs=["en"], ud_root=UD_ROOT)
    manifest = json.loads((folder / "build.json").read_text(encoding="utf-8"))
    check = manifest["configs"]["en"]["form_check"]
    assert check["confirmed"] > 40 and check["contradicted"] == []
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert "found in no source: " + ", ".join(check["unknown"]) in card
    assert len(manifest["configs"]["en"]["splits"]) == 7


# --- the paper's own grammars, fetched at a pinned commit --------------------------------------


def clams_mirror(root: Path, tamper: str | None = None) -> Path:
    """A folder laid out as the CLAMS repository at the pinned commit, with the released
    German and French grammars; ``tamper`` names a file given one more line."""
    commit = clams.paper_release()["commit"]
    tree = root / "aaronmueller" / "clams" / commit
    tree.mkdir(parents=True)
    if CLAMS.is_dir():
        shutil.copy(CLAMS / "LICENSE", tree / "LICENSE")
        for lang in LANGS:
            shutil.copytree(CLAMS / f"{lang}_replication", tree / f"{lang}_replication")
    else:  # files of the right names, not the released bytes
        (tree / "LICENSE").write_text("Apache License\nVersion 2.0\n")
        shutil.copytree(PACKAGED / "de", tree / "de_replication")
    if tamper:
        with open(tree / tamper, "a", encoding="utf-8") as f:
            f.write("\n")
    return root / "aaronmueller" / "clams"


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("PERTURBED_UD_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.mark.full_build
@needs_clams_reference
def test_paper_grammars_are_fetched_once_and_give_the_released_sets(
    tmp_path, cache, file_server, monkeypatch, dataset
):
    url = file_server(clams_mirror(tmp_path / "mirror"))
    monkeypatch.setenv("PERTURBED_UD_CLAMS_URL", url)
    fetched = build(tmp_path / "a", "--paper-grammars", "--langs", "de,fr")
    folder = cache / "clams" / "clams-36b5c9a"
    assert sorted(p.name for p in folder.iterdir()) == [
        "LICENSE",
        "de_replication",
        "fr_replication",
    ]
    for lang in LANGS:
        for construction in CONSTRUCTIONS:
            assert evalset_of(fetched, lang, construction) == released(lang, construction)
    parquet = {k: v for k, v in digests(fetched).items() if k.endswith(".parquet")}
    assert parquet == {k: v for k, v in digests(dataset).items() if k.endswith(".parquet")}
    manifest = json.loads((fetched / "build.json").read_text())
    assert manifest["parameters"]["paper_grammars"] == (
        "aaronmueller/clams@36b5c9a56ecc51d3eedb6c1a85b805085d631c71"
    )
    assert {s["origin"] for s in manifest["sources"]} == {"CLAMS repository"}
    assert {s["license"] for s in manifest["sources"]} == {"Apache-2.0"}
    card = (fetched / "README.md").read_text()
    assert "fetched from aaronmueller/clams@36b5c9a" in card and "this project's own" not in card

    monkeypatch.setenv("PERTURBED_UD_CLAMS_URL", "http://127.0.0.1:9")  # nothing listens
    again = build(tmp_path / "b", "--paper-grammars", "--langs", "de,fr", "--offline")
    assert digests(again) == digests(fetched), "the cache serves a second build, offline"


def test_a_changed_grammar_file_is_refused_and_nothing_is_cached(
    tmp_path, cache, file_server, monkeypatch
):
    url = file_server(clams_mirror(tmp_path / "mirror", tamper="de_replication/common.avg"))
    monkeypatch.setenv("PERTURBED_UD_CLAMS_URL", url)
    result = cli("build", "clams", "--paper-grammars", "--langs", "de", "--out", str(tmp_path))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "is not the pinned file" in result.output and "--grammar-dir DIR" in result.output
    assert not cache.exists() and not (tmp_path / "clams").exists()


def test_paper_grammars_options_are_checked(tmp_path, cache):
    def error(*args: str) -> str:
        result = cli("build", "clams", *args, "--out", str(tmp_path))
        assert result.exit_code == 1 and "Traceback" not in result.output, result.output
        return result.output

    assert "Marvin & Linzen" in error("--paper-grammars", "--langs", "en,de")
    assert "not in the cache and --offline" in error("--paper-grammars", "--offline")
    assert "leave out --grammar-dir" in error("--paper-grammars", "--grammar-dir", str(PACKAGED))
    assert "--offline applies to --paper-grammars" in error("--offline")
    assert not cache.exists() and not (tmp_path / "clams").exists()


@pytest.mark.full_build
def test_packaged_card_marks_its_grammars_as_ours_with_the_papers_counts(packaged):
    card = (packaged / "README.md").read_text()
    assert "The grammars of de, en, fr, he, ru are this project's own" in card
    assert "| `prep_anim` | 8400 / 12600 | 8400 / 16800 |" in card


def test_the_card_says_how_sentences_are_written(packaged):
    """Lower case at the start and no final punctuation, as released, but every word as its
    grammar spells it: German nouns keep their capital."""
    card = " ".join((packaged / "README.md").read_text(encoding="utf-8").split())
    assert "Sentences begin in lower case and end without final punctuation" in card
    assert "German nouns are capitalised" in card and "Sentences are lowercase" not in card
    rows = [row for path in sorted(packaged.glob("*/*.parquet"))
            for row in pq.read_table(path).to_pylist()]  # fmt: skip
    sentences = [row[key] for row in rows for key in ("sentence_good", "sentence_bad")]
    assert not any(s[0].isupper() or s[-1] in ".!?" for s in sentences)
    german = [s for row in rows if row["lang"] == "de" for s in (row["sentence_good"],)]
    assert german and all(any(w[0].isupper() for w in s.split(" ")) for s in german)
