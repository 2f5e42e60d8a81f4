"""Dataset cards on real data: every treebank's citation as its README words it (or a stated
stand-in), licences as each LICENSE.txt grants them, Hub metadata that huggingface_hub and
datasets accept and that `load_dataset` still loads, method citations, and prose without
Python structures."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest
from conftest import SHARED_UD, UD_ROOT, tree_digest
from datasets import Features, load_dataset
from datasets.info import DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard

from perturbed_ud.builders import engine
from perturbed_ud.data.card import (
    SIZE_CATEGORIES,
    CardText,
    build_parameters,
    citation_section,
    in_words,
    size_category,
)
from perturbed_ud.data.markdown import code_block
from perturbed_ud.data.writer import split_files
from perturbed_ud.licences import hub_licence, publishing_problem, stated_licence
from perturbed_ud.registry import FAMILIES
from perturbed_ud.ud.selection import Selection
from perturbed_ud.ud.sources import (
    from_ud_root,
    readme_citation,
    resolve,
    sample_root,
    sample_treebanks,
)

# Hub task ids (huggingface.js tasks, also transformers' pipeline names) for text datasets.
HUB_TEXT_TASKS = {"fill-mask", "text-generation", "text-classification", "token-classification"}

needs_shared_ud = pytest.mark.skipif(
    not SHARED_UD.is_dir(), reason=f"whole UD treebanks in {SHARED_UD} are not available"
)


def treebank_folders(root: Path) -> list[Path]:
    return sorted(p for p in root.glob("UD_*") if p.is_dir()) if root.is_dir() else []


# Every real README: the test excerpts, the packaged PUD sample, and (when present) the
# whole treebanks beside the repository.
FOLDERS = [
    pytest.param(folder, id=f"{root_id}:{folder.name}", marks=marks)
    for root_id, root, marks in [
        ("tests", UD_ROOT, ()),
        ("sample", sample_root(), ()),
        ("shared", SHARED_UD, needs_shared_ud),
    ]
    for folder in treebank_folders(root)
]


def read(folder: Path):
    """The treebank in a UD folder, through the source code every build uses."""
    data = next(folder.glob("*-ud-test.conllu*"))
    return from_ud_root(folder.parent, data.name.split("_")[0], folder.name, "test")


def fenced(text: str) -> str:
    """Text without its fenced code blocks (prose only)."""
    return re.sub(r"^(`{3,}).*?^\1\s*$", "", text, flags=re.M | re.S)


# ---------------------------------------------------------------------------------------------
# Treebank citations and licences, read from the treebanks' own files


@pytest.mark.parametrize("folder", FOLDERS)
def test_every_treebank_citation_is_what_its_readme_asks_for(folder):
    treebank = read(folder)
    # UD treebanks name it README.md or README.txt, as the source reading them allows
    readme = next(
        folder / name for name in ("README.md", "README.txt") if (folder / name).is_file()
    )
    readme = readme.read_text(encoding="utf-8")
    readme_lines = {line.rstrip() for line in readme.splitlines()}
    assert treebank.citation.strip()
    assert "```" not in treebank.citation, "fence markers are the README's, not the citation's"
    if treebank.citation_source == "README":
        for line in treebank.citation.splitlines():
            assert not line or line in readme_lines, line
    elif treebank.citation_source == "sample":
        assert readme_citation(readme) == ""
        assert re.search(r"CoNLL\s+2017\s+shared\s+task", readme)
        assert "NLL} 2017 Shared Task" in treebank.citation
        assert treebank.citation == next(
            e["citation"] for e in sample_treebanks().values() if e["name"] == folder.name
        )
    else:
        assert treebank.citation_source == "fallback"
        assert readme_citation(readme) == ""
        (contributors,) = re.findall(r"^Contributors:\s*(.+)$", readme, re.M)
        (authors,) = re.findall(r"author = \{(.+)\}", treebank.citation)
        assert authors.split(" and ") == [a.strip() for a in contributors.split(";")]
        assert f"UniversalDependencies/{folder.name}}}" in treebank.citation


@needs_shared_ud
@pytest.mark.parametrize(
    ("name", "source", "cited"),
    [
        ("UD_English-EWT", "README", ["@inproceedings{silveira14gold"]),
        ("UD_German-GSD", "README", ["Universal Dependency Annotation for Multilingual Parsing"]),
        ("UD_French-GSD", "README", ["Guillaume", "Universal Dependency Annotation"]),
        ("UD_Spanish-AnCora", "README", ["must be cited", "Taulé", "Recasens", "Peris"]),
        ("UD_Turkish-IMST", "README", ["please  cite", "Sulubacak, Gülşen Eryiğit", "COLING"]),
        ("UD_Hebrew-HTB", "README", ["tsarfaty2013unified", "mcdonald2013universal"]),
        ("UD_Turkish-BOUN", "README", ["marcsan2022enhancements", "TurkEtAl2022"]),
        ("UD_Russian-GSD", "fallback", ["Lyashevskaya, Olga", "UD_Russian-GSD"]),
        ("UD_Chinese-GSD", "fallback", ["Qi, Peng", "UD_Chinese-GSD"]),
        ("UD_Russian-PUD", "sample", ["zeman-etal-2017-conll"]),
    ],
)
def test_the_papers_treebanks_cite_what_their_readmes_name(name, source, cited):
    treebank = read(SHARED_UD / name)
    assert treebank.citation_source == source
    for words in cited:
        assert words in treebank.citation
    if name == "UD_Turkish-IMST":  # its closing credits are no citation
        assert "This treebank follows" not in treebank.citation


@pytest.mark.parametrize("folder", FOLDERS)
def test_the_licence_is_what_licence_txt_grants(folder):
    treebank = read(folder)
    assert treebank.license == stated_licence((folder / "LICENSE.txt").read_text("utf-8"))
    assert hub_licence(treebank.license) != "other"


@needs_shared_ud
def test_imst_is_under_the_3_0_licence_its_licence_file_grants(tmp_path):
    folder = SHARED_UD / "UD_Turkish-IMST"
    assert "License: CC BY-NC-SA 4.0" in (folder / "README.md").read_text("utf-8")
    imst = read(folder)
    assert imst.license == "CC BY-NC-SA 3.0"
    assert publishing_problem(imst.license) == ("licence 'CC BY-NC-SA 3.0' forbids commercial use")
    built = engine.build(
        "perturbed-ud", tmp_path, treebanks=[imst], seeds=[1], scrambles=["full"],
        selection=Selection(limit=10),
    )  # fmt: skip
    card = DatasetCard.load(built / "README.md")
    assert card.data.license == "cc-by-nc-sa-3.0"
    assert "| UD_Turkish-IMST | tr | r2.13 or later (README changelog) | CC BY-NC-SA 3.0 |" in (
        card.text
    )
    assert "Sulubacak" in card.text


def test_a_readme_without_a_licence_file_names_the_licence(tmp_path):
    folder = tmp_path / "UD_Toy-Test"
    folder.mkdir()
    (folder / "toy_test-ud-test.conllu").write_text(
        "# sent_id = 1\n1\ta\ta\tX\t_\t_\t0\troot\t_\t_\n\n"
    )
    (folder / "README.md").write_text("# Summary\n\nToy.\n\nLicense: CC BY 4.0\n")
    treebank = read(folder)
    assert (treebank.license, treebank.citation_source) == ("CC BY 4.0", "fallback")
    assert treebank.citation == (
        "@misc{ud_toy_test,\n  title = {{UD Toy-Test}},\n  howpublished = {Universal "
        "Dependencies},\n  url = {https://github.com/UniversalDependencies/UD_Toy-Test}\n}"
    )


@pytest.mark.parametrize(
    ("text", "licence"),
    [
        ("GNU GENERAL PUBLIC LICENSE 3.0\nhttp://www.gnu.org/licenses/gpl.html", "GNU GPL 3.0"),
        ("GNU LESSER GENERAL PUBLIC LICENSE\n   Version 2.1, February 1999", "GNU LGPL 2.1"),
        ("Attribution-NonCommercial-ShareAlike 4.0 International\n\n...", "CC BY-NC-SA 4.0"),
        ("licensed under CC BY 4.0; see also CC BY-SA 4.0", "CC BY 4.0"),
        ("Creative Commons Legal Code\n\nCC0 1.0 Universal", "CC0 1.0"),
        ("no licence named here", None),
    ],
)
def test_licence_files_are_read_by_the_licence_they_name_first(text, licence):
    assert stated_licence(text) == licence


def test_hub_licence_keeps_a_gnu_minor_version():
    assert [hub_licence(t) for t in ("GNU GPL 3.0", "GNU LGPL 2.1", "LGPL-LR")] == [
        "gpl-3.0",
        "lgpl-2.1",
        "lgpl-lr",
    ]


# ---------------------------------------------------------------------------------------------
# Cards of real builds of every family


# What a family's small build needs beyond treebanks, where its defaults read more (the
# default substitutions read WordNet, which the repository does not ship).
BUILD_SETTINGS = {"substitution": {"methods": ("copos_treebank",)}}


def build_family(family: str, out: Path) -> Path:
    """A small build of a family with the real builder."""
    if family == "clams":
        return engine.build("clams", out, langs=["en"])
    langs, overrides = (["en", "ru", "zh"], {"ru": "UD_Russian-GSD"})
    if family == "spud":
        langs = ["en", "fr"]
    treebanks = resolve(langs, split="test", ud_root=str(UD_ROOT), overrides=overrides)
    settings = {"treebanks": treebanks, "selection": Selection(limit=20)}
    if "seeds" in {f.name for f in dataclasses.fields(FAMILIES.get(family).settings_class)}:
        settings["seeds"] = [1]
    return engine.build(family, out, **settings, **BUILD_SETTINGS.get(family, {}))


@pytest.fixture(scope="module")
def family_builds(tmp_path_factory):
    """A family's small build, made on first use and shared by the tests that read it."""
    folders: dict[str, tuple[Path, str]] = {}

    def get(family: str) -> Path:
        if family not in folders:
            folder = build_family(family, tmp_path_factory.mktemp(family))
            folders[family] = (folder, tree_digest(folder))
        return folders[family][0]

    yield get
    for family, (folder, digest) in folders.items():
        assert tree_digest(folder) == digest, f"a test changed the shared {family} build"


@pytest.fixture(scope="module", params=FAMILIES.short_names())
def built(request, family_builds) -> Path:
    return family_builds(request.param)


def resource(name: str):
    """One of the lists of accepted card values that datasets ships."""
    path = Path(datasets.__file__).parent / "utils" / "resources" / name
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_yaml_holds_the_hub_metadata_huggingface_hub_reads(built):
    card = DatasetCard.load(built / "README.md")
    manifest = json.loads((built / "build.json").read_text(encoding="utf-8"))
    data = card.data
    assert data.size_categories == [size_category(sum(
        n for config in manifest["configs"].values() for n in config["splits"].values()
    ))]  # fmt: skip
    assert set(data.size_categories) <= set(resource("size_categories.json"))
    assert data.multilinguality in resource("multilingualities.json")
    languages = data.language
    assert data.multilinguality == ("multilingual" if len(languages) > 1 else "monolingual")
    for source in data.source_datasets:
        assert source == "original" or source.startswith("extended|")
    if "treebanks" in manifest:
        assert data.source_datasets == ["extended|universal-dependencies/universal_dependencies"]
    assert data.pretty_name and data.license

    configs = MetadataConfigs.from_dataset_card_data(data)
    infos = DatasetInfosDict.from_dataset_card_data(data)
    assert set(configs) == set(infos) == set(manifest["configs"])
    for name, config in manifest["configs"].items():
        info = infos[name]
        assert {s: i.num_examples for s, i in info.splits.items()} == config["splits"]
        assert all(i.num_bytes > 0 for i in info.splits.values())
        files = [p for s in config["splits"] for p in split_files(built, name, s)]
        assert info.download_size == sum(p.stat().st_size for p in files)
        assert info.features == Features.from_arrow_schema(pq.read_schema(files[0]))


def test_load_dataset_reads_every_config_the_richer_yaml_describes(built, tmp_path):
    infos = DatasetInfosDict.from_dataset_card_data(DatasetCard.load(built / "README.md").data)
    for name, info in infos.items():
        ds = load_dataset(str(built), name, cache_dir=str(tmp_path))
        assert {s: d.num_rows for s, d in ds.items()} == {
            s: i.num_examples for s, i in info.splits.items()
        }
        assert all(d.features == info.features for d in ds.values())


def test_every_treebank_in_the_manifest_is_cited_in_the_card(built):
    manifest = json.loads((built / "build.json").read_text(encoding="utf-8"))
    text = DatasetCard.load(built / "README.md").text
    for t in manifest.get("treebanks", []):
        assert t["citation"].strip() and t["citation_source"] in ("README", "sample", "fallback")
        assert code_block(t["citation"]) in text.split("## Citation", 1)[1]


def test_card_prose_has_no_python_structures(built):
    prose = fenced(DatasetCard.load(built / "README.md").text)
    for raw in ("{'", "['", "': ", "', '", "None", "True", "False"):
        assert raw not in prose, raw


@pytest.mark.parametrize("family", FAMILIES.short_names())
def test_each_family_cites_the_paper_it_implements_and_names_its_tasks(family, family_builds):
    folder = family_builds(family)
    manifest = json.loads((folder / "build.json").read_text(encoding="utf-8"))
    text = FAMILIES.get(family).card_text(manifest)
    title = re.search(r"\btitle\s*=\s*[{\"](.+?)[}\"],?\n", text.method_citation, re.S)
    assert title and len(title.group(1)) > 20, "the paper's title"
    assert text.method_citation.startswith("@")
    assert text.method_citation not in text.citation, "cited once, first"
    card = DatasetCard.load(folder / "README.md")
    citation = card.text.split("## Citation", 1)[1]
    assert text.method_citation in citation
    if text.citation:
        assert citation.index(text.method_citation) < citation.index(text.citation[:40])
    assert card.data.task_categories == text.task_categories
    assert text.task_categories and set(text.task_categories) <= HUB_TEXT_TASKS


# ---------------------------------------------------------------------------------------------
# The card's parts


@pytest.mark.parametrize(
    ("selection", "words"),
    [
        ({"mode": "all"}, "all sentences of each treebank's test split"),
        ({"mode": "first", "n": 400}, "the first 400 sentences of each treebank's test split"),
        (
            {"mode": "sample", "n": 50, "sample_seed": 7},
            "a sample of 50 sentences of each treebank's test split (sample seed 7)",
        ),
    ],
)
def test_sentence_selection_in_words(selection, words):
    manifest = {
        "parameters": {"seeds": [1, 2], "families": ("full", "head"), "lexicons": {"ru": "x"}},
        "selection": selection,
        "split": "test",
    }
    assert build_parameters(manifest) == (
        f"Build parameters: seeds=1,2; families=full,head; lexicons=ru x. Sentences: {words}."
    )


def test_in_words_spells_out_lists_and_mappings():
    assert in_words({"a": [1, 2], "b": "c"}) == "a 1,2, b c"
    assert in_words(0.5) == "0.5"


def test_a_citation_quoting_its_own_fence_stays_in_one_block():
    citation = "Cite:\n\n```\n@misc{x}\n```"
    assert code_block(citation) == f"````\n{citation}\n````"
    assert code_block("@misc{x}", "bibtex") == "```bibtex\n@misc{x}\n```"


def test_the_method_citation_comes_first():
    text = CardText("", "", "", "", citation="Sources.", method_citation="@inproceedings{m}")
    assert citation_section(text).index("@inproceedings{m}") < citation_section(text).index(
        "Sources."
    )
    assert citation_section(CardText("", "", "", "", citation="Sources.")) == "Sources."


def test_size_categories_follow_the_hubs_bounds():
    assert [size_category(n) for n in (0, 999, 1000, 9999, 10_000, 10**12)] == [
        "n<1K",
        "n<1K",
        "1K<n<10K",
        "1K<n<10K",
        "10K<n<100K",
        "n>1T",
    ]
    assert [*SIZE_CATEGORIES, "n>1T"] == [
        c for c in resource("size_categories.json") if c != "unknown"
    ]
