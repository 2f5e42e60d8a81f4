"""The substitution family on real UD sentences: exactly τ words replaced per copy, by words
of the same UPOS and FEATS (WordNet synonyms sharing a synset, or treebank forms), the
annotation unchanged, no copy equal to its original, drops counted, rebuilds identical."""

from __future__ import annotations

import json
import subprocess
import sys

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from conftest import SHARED, SHARED_UD, UD_ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from perturbed_ud.cli import main
from perturbed_ud.perturb.substitution import TreebankCandidates, eligible_words, substitute
from perturbed_ud.rng import KeyedDraws
from perturbed_ud.ud.columns import SentenceColumns
from perturbed_ud.ud.conllu_io import read_conllu

WORDNET = SHARED / "wordnet" / "nltk_data"
needs_wordnet = pytest.mark.skipif(
    not (WORDNET / "corpora" / "wordnet.zip").is_file(),
    reason=f"reads WordNet 3.0 and OMW from {WORDNET}, which is not available",
)
EWT = UD_ROOT / "UD_English-EWT"
UNCHANGED = ("upos", "xpos", "feats", "heads", "deprels", "deps", "ids")
TAUS = (1, 3)
COPIES = 3


def build(out, *args):
    result = CliRunner().invoke(
        main,
        ["build", "substitution", "--ud-root", str(UD_ROOT), "--langs", "en", "--seeds", "1",
         "--tau", ",".join(map(str, TAUS)), "--copies", str(COPIES), "--limit", "60",
         "--out", str(out), *map(str, args)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out / "substitution"


def split(folder, config, name) -> dict:
    return pq.read_table(next((folder / config).glob(f"{name}-*.parquet"))).to_pydict()


@pytest.fixture(scope="module")
def treebank_build(tmp_path_factory):
    return build(tmp_path_factory.mktemp("sub"), "--methods", "copos_treebank")


def check_copies(folder, method):
    manifest = json.loads((folder / "build.json").read_text())
    for tau in TAUS:
        config = f"en_{method}_tau{tau}_seed1"
        entry = manifest["configs"][config]
        orig = split(folder, config, "orig")
        assert entry["splits"]["orig"] + entry["sentence_drops"]["too_few_eligible"] == 60
        for copy in range(1, COPIES + 1):
            perturbed = split(folder, config, f"perturbed_{copy}")
            assert perturbed["sent_id"] == orig["sent_id"] and set(perturbed["copy"]) == {copy}
            for k in range(len(orig["sent_id"])):
                positions = perturbed["replaced_positions"][k]
                assert len(positions) == len(set(positions)) == tau
                for column in UNCHANGED:
                    assert perturbed[column][k] == orig[column][k], column
                for i, new in zip(positions, perturbed["new_words"][k], strict=True):
                    assert perturbed["forms"][k][i] == new != orig["forms"][k][i]
                    assert perturbed["lemmas"][k][i] != orig["lemmas"][k][i]
                assert perturbed["text"][k] != orig["text"][k]
                yield orig, perturbed, k


def test_treebank_copies_replace_exactly_tau_words_with_attested_forms(treebank_build):
    attested = set()
    for path in sorted(EWT.glob("*.conllu")):
        for s in read_conllu(path):
            cols = SentenceColumns.from_sentence(s)
            attested.update(zip(cols.upos, cols.feats, map(str.lower, cols.forms), strict=True))
    checked = 0
    for orig, perturbed, k in check_copies(treebank_build, "copos_treebank"):
        for i in perturbed["replaced_positions"][k]:
            key = (orig["upos"][k][i], orig["feats"][k][i], perturbed["forms"][k][i].lower())
            assert key in attested, key
            checked += 1
    assert checked > 100


@pytest.mark.subprocess
def test_a_rebuild_is_byte_identical_in_another_process_with_workers(treebank_build, tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "perturbed_ud", "build", "substitution", "--ud-root", str(UD_ROOT),
         "--langs", "en", "--seeds", "1", "--tau", "1,3", "--copies", str(COPIES), "--limit",
         "60", "--methods", "copos_treebank", "--workers", "2", "--out", str(tmp_path)],
        capture_output=True, text=True, env={"PYTHONHASHSEED": "7", **__import__("os").environ},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    ours, again = (json.loads((f / "build.json").read_text()) for f in
                   (treebank_build, tmp_path / "substitution"))  # fmt: skip
    assert ours["content_sha256"] == again["content_sha256"]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 59), st.integers(1, 8), st.integers(1, 50), st.integers(1, 10**6))
def test_substitute_replaces_tau_words_or_none(index, tau, copy, seed):
    cols = SENTENCES[index]
    eligible = eligible_words(cols, CANDIDATES)
    done = substitute("en", cols, eligible, tau, copy, KeyedDraws(seed, "en_ewt", cols.sent_id))
    if len(eligible.candidates) < tau:
        assert done is None
        return
    assert len(done.positions) == tau and set(done.positions) <= set(eligible.candidates)
    assert done.cols.upos == cols.upos and done.cols.feats == cols.feats
    changed = [
        i for i, (a, b) in enumerate(zip(cols.forms, done.cols.forms, strict=True)) if a != b
    ]
    assert set(done.positions) <= set(changed)  # neighbours may adjust (a/an), nothing else
    assert all(cols.upos[i] == "DET" for i in set(changed) - set(done.positions))
    again = substitute("en", cols, eligible, tau, copy, KeyedDraws(seed, "en_ewt", cols.sent_id))
    assert again.cols.forms == done.cols.forms


SENTENCES = [SentenceColumns.from_sentence(s) for s in read_conllu(EWT / "en_ewt-ud-test.conllu")][
    :60
]
CANDIDATES = TreebankCandidates(
    "en", (SentenceColumns.from_sentence(s) for p in sorted(EWT.glob("*.conllu"))
           for s in read_conllu(p))
)  # fmt: skip


def test_missing_wordnet_data_says_how_to_install_it(tmp_path):
    result = CliRunner().invoke(
        main, ["build", "substitution", "--ud-root", str(UD_ROOT), "--langs", "en",
               "--wordnet", str(tmp_path), "--out", str(tmp_path / "out")],
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: no WordNet in {tmp_path} (no corpora/wordnet.zip)")
    assert "python -m nltk.downloader -d DIR wordnet omw-1.4" in result.stderr
    assert not (tmp_path / "out").exists()


@needs_wordnet
def test_wordnet_copies_use_synonyms_that_share_a_synset(tmp_path):
    from perturbed_ud.resources.wordnet import open_wordnet

    folder = build(tmp_path, "--methods", "copos_wordnet", "--wordnet", WORDNET)
    reader = open_wordnet(WORDNET)
    checked = 0
    for orig, perturbed, k in check_copies(folder, "copos_wordnet"):
        for i, link in zip(perturbed["replaced_positions"][k], perturbed["links"][k], strict=True):
            names = {name.casefold() for name in reader.synset(link).lemma_names()}
            assert orig["lemmas"][k][i].casefold() in names, link
            assert perturbed["lemmas"][k][i].casefold() in names, link
            checked += 1
    assert checked > 50
    again = build(tmp_path / "again", "--methods", "copos_wordnet", "--wordnet", WORDNET)
    first, second = (json.loads((f / "build.json").read_text()) for f in (folder, again))
    assert first["content_sha256"] == second["content_sha256"]
    assert first["resources"]["wordnet"][0]["name"] == "wordnet.zip"


@needs_wordnet
def test_french_synonyms_come_from_the_open_multilingual_wordnet(tmp_path):
    from perturbed_ud.resources.wordnet import open_wordnet

    result = CliRunner().invoke(
        main, ["build", "substitution", "--ud-root", str(UD_ROOT), "--langs", "fr",
               "--split", "dev", "--seeds", "1", "--tau", "1", "--copies", "2", "--limit", "60",
               "--wordnet", str(WORDNET), "--out", str(tmp_path)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    reader = open_wordnet(WORDNET)
    folder = tmp_path / "substitution"
    orig = split(folder, "fr_copos_wordnet_tau1_seed1", "orig")
    copy = split(folder, "fr_copos_wordnet_tau1_seed1", "perturbed_1")
    assert len(orig["sent_id"]) >= 5  # the excerpt's lexicon is small: 195 of 200 with all of GSD
    for k, (i,) in enumerate(copy["replaced_positions"]):
        names = {name.casefold() for name in reader.synset(copy["links"][k][0]).lemma_names("fra")}
        assert {orig["lemmas"][k][i].casefold(), copy["lemmas"][k][i].casefold()} <= names
        assert copy["feats"][k][i] == orig["feats"][k][i]


# La Malfa et al.'s released substitution rule (wordnet_perturbations in
# generate_perturbations.py), written again here from its logic, for ours to be checked
# against: the parts of speech of the form's first 10 synsets; their mode (a tie: the one
# seen first, as Counter.most_common()[0] has it) or their least common (a tie: the one seen
# last, most_common()[-1]); the lower-cased head name of the first synset of that part of
# speech that differs from the lower-cased form, else the form.
PUD = next(f for f in (SHARED_UD / "UD_English-PUD", UD_ROOT / "UD_English-PUD") if f.is_dir())
RULES = {"mode": False, "least-common": True}  # rule -> the released least_common flag
FITTING = {"NOUN": "n", "PROPN": "n", "VERB": "v", "AUX": "v", "ADJ": "as", "ADV": "r"}
COPIES_RELEASED = 10  # the released runs' budget per sentence


def released_word(wordnet, form: str, least_common: bool) -> tuple[str, str]:
    """(new word, its synset's part of speech) as the released code picks it; (form, "")."""
    synsets = wordnet.synsets(form)
    counts: dict[str, int] = {}
    for synset in synsets[:10]:
        counts[synset.pos()] = counts.get(synset.pos(), 0) + 1
    if not counts:
        return form, ""
    target = min(counts.values()) if least_common else max(counts.values())
    tied = [pos for pos, n in counts.items() if n == target]  # in the order first seen
    pos = tied[-1] if least_common else tied[0]
    for synset in synsets:
        head = synset.name().split(".")[0].lower()
        if synset.pos() == pos and head != form.lower():
            return head, pos
    return form, ""


def rule_statistics(sentences, replaced) -> dict:
    """From each word's (new word, part of speech): the words changed, the changes whose part
    of speech fits the word's UPOS (AUX as a verb), and, at τ = 1 with 10 copies (one uniform
    draw each), the expected no-op draws and sentences whose 10 draws are all no-ops."""
    changed = fitting = case_only = 0
    no_op_draws = never_changed = 0.0
    for cols, words in zip(sentences, replaced, strict=True):
        same = 0
        for form, upos, (new, pos) in zip(cols.forms, cols.upos, words, strict=True):
            same += new == form
            changed += new != form
            fitting += new != form and pos in FITTING.get(upos, "")
            case_only += new != form and new.lower() == form.lower()
        no_op_draws += COPIES_RELEASED * same / len(cols.forms)
        never_changed += (same / len(cols.forms)) ** COPIES_RELEASED
    words = sum(len(cols.forms) for cols in sentences)
    return {"words": words, "changed": changed, "fitting": fitting, "case_only": case_only,
            "expected_no_op_draws": no_op_draws,
            "expected_sentences_never_changed": never_changed}  # fmt: skip


def pud_sentences() -> list[SentenceColumns]:
    return [SentenceColumns.from_sentence(s) for s in read_conllu(next(PUD.glob("*.conllu")))]


def released_words(sentences, least_common: bool) -> list[list[tuple[str, str]]]:
    from perturbed_ud.resources.wordnet import open_wordnet

    wordnet = open_wordnet(WORDNET)
    return [[released_word(wordnet, form, least_common) for form in c.forms] for c in sentences]


@needs_wordnet
@pytest.mark.parametrize("rule", RULES)
def test_the_released_rule_is_the_released_code_on_every_pud_word(rule):
    from perturbed_ud.perturb.lamalfa2022 import released_synonym
    from perturbed_ud.resources.wordnet import open_wordnet

    reader = open_wordnet(WORDNET)
    sentences = pud_sentences()
    ours = []
    for cols in sentences:
        found = [released_synonym(reader, form, rule) for form in cols.forms]
        ours.append([(word, synset.rsplit(".", 2)[1] if synset else "") for word, synset in found])
    expected = released_words(sentences, RULES[rule])
    mismatches = [
        (form, mine, theirs)
        for cols, a, b in zip(sentences, ours, expected, strict=True)
        for form, mine, theirs in zip(cols.forms, a, b, strict=True)
        if mine != theirs
    ]
    assert not mismatches, mismatches[:10]
    statistics = rule_statistics(sentences, ours)
    assert statistics == rule_statistics(sentences, expected)
    assert statistics["case_only"] == 0  # Hill is not "replaced" by hill
    assert 0 < statistics["fitting"] < statistics["changed"] < statistics["words"]
    assert released_synonym(reader, "bank", rule)[0] == "depository_financial_institution"
    dog = {"mode": "frump", "least-common": "chase"}[rule]  # 7 noun synsets, 1 verb synset
    assert released_synonym(reader, "dog", rule)[0] == dog
    # in: n 3, s 3, r 1 among its first synsets; mode: the tie goes to n, seen first;
    # least common: r, whose only head name is "in" itself
    assert released_synonym(reader, "in", rule) == {
        "mode": ("inch", "inch.n.01"), "least-common": ("in", "")}[rule]  # fmt: skip
    assert released_synonym(reader, "the", rule) == ("the", "")


@needs_wordnet
@pytest.mark.full_build
@pytest.mark.parametrize("rule", RULES)
def test_a_lamalfa2022_build_of_pud_counts_what_the_released_code_does(tmp_path, rule):
    """Every drawn word is the released code's choice, and the card's counts are the released
    rule's: words changed, changes fitting the UPOS, no-op draws, sentences never changed."""
    sentences = pud_sentences()
    expected = released_words(sentences, RULES[rule])
    result = CliRunner().invoke(
        main, ["build", "substitution", "--ud-root", str(PUD.parent), "--langs", "en",
               "--treebank", f"en={PUD.name}", "--seeds", "1", "--tau", "1",
               "--copies", str(COPIES_RELEASED), "--protocol", "lamalfa2022",
               "--wordnet-rule", rule, "--wordnet", str(WORDNET), "--out", str(tmp_path)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    folder = tmp_path / "substitution"
    manifest = json.loads((folder / "build.json").read_text())
    entry = manifest["configs"]["en_copos_wordnet_tau1_seed1"]
    statistics = rule_statistics(sentences, expected)
    assert (entry["words"], entry["words_changed"], entry["changes_fitting_upos"]) == (
        statistics["words"], statistics["changed"], statistics["fitting"])  # fmt: skip
    no_ops, changed = 0, [False] * len(sentences)
    for copy in range(1, COPIES_RELEASED + 1):
        perturbed = split(folder, "en_copos_wordnet_tau1_seed1", f"perturbed_{copy}")
        assert perturbed["sent_id"] == [c.sent_id for c in sentences]
        for k, ((i,), (new,)) in enumerate(
            zip(perturbed["replaced_positions"], perturbed["new_words"], strict=True)
        ):
            assert new == expected[k][i][0]
            no_ops += new == sentences[k].forms[i]
            changed[k] |= new != sentences[k].forms[i]
    assert entry["unchanged_draws"] == entry["identical_copies"] == no_ops
    assert entry["unchanged_sentences"] == changed.count(False)
    assert f"wordnet_rule:{rule}" in manifest["signature"]
    assert f"`--wordnet-rule {rule}`" in (folder / "README.md").read_text()


@needs_wordnet
def test_the_lamalfa2022_protocol_reproduces_the_released_rule(tmp_path):
    folder = build(tmp_path, "--protocol", "lamalfa2022", "--wordnet", WORDNET)
    manifest = json.loads((folder / "build.json").read_text())
    assert manifest["family"] == "substitution.copos.v2"
    assert manifest["parameters"]["protocol"] == "lamalfa2022"
    assert manifest["parameters"]["wordnet_rule"] == "mode"  # the released script's default
    assert "protocol:lamalfa2022" in manifest["signature"]
    assert "wordnet_rule:mode" in manifest["signature"]
    for tau in TAUS:
        config = f"en_copos_wordnet_tau{tau}_seed1"
        entry = manifest["configs"][config]
        orig = split(folder, config, "orig")
        assert entry["splits"]["orig"] == len(orig["sent_id"]) == 60  # nothing dropped
        sizes, identical, unchanged = set(), 0, 0
        for copy in range(1, COPIES + 1):
            perturbed = split(folder, config, f"perturbed_{copy}")
            for k, positions in enumerate(perturbed["replaced_positions"]):
                sizes.add(len(positions))
                identical += perturbed["forms"][k] == orig["forms"][k]
                pairs = zip(perturbed["original_words"][k], perturbed["new_words"][k], strict=True)
                unchanged += sum(a == b for a, b in pairs)
                assert perturbed["upos"][k] == orig["upos"][k]
        assert sizes == set(range(1, tau + 1))  # τ is a maximum
        assert entry["identical_copies"] == identical > 0
        assert entry["unchanged_draws"] == unchanged
    assert "Protocol `lamalfa2022`" in (folder / "README.md").read_text()
    refused = CliRunner().invoke(
        main, ["build", "substitution", "--ud-root", str(UD_ROOT), "--langs", "en",
               "--wordnet-rule", "mode", "--wordnet", str(WORDNET), "--out", str(tmp_path / "x")],
    )  # fmt: skip
    assert refused.exit_code == 1
    assert "--wordnet-rule is a rule of the lamalfa2022 protocol only" in refused.output


@pytest.fixture(scope="module")
def coco_build(tmp_path_factory, tiny_bert):
    return build(tmp_path_factory.mktemp("coco"), "--methods", "coco", "--model", tiny_bert)


def test_coco_replaces_words_by_the_models_best_whole_word(coco_build, tiny_bert):
    """An oracle: for every replaced word, the same word from a one-item, one-beam-at-a-time
    search with the model's full logits (the batched search shares rows across sentences)."""
    from reference_beam import naive_beam_search

    from perturbed_ud.lm.masking import mask_target
    from perturbed_ud.lm.models import load_masked_lm
    from perturbed_ud.perturb.surface_rules import like_case

    lm = load_masked_lm(str(tiny_bert))
    tokenizer = lm.tokenizer
    checked = 0
    for orig, perturbed, k in check_copies(coco_build, "coco"):
        for i, new in zip(perturbed["replaced_positions"][k], perturbed["new_words"][k],
                          strict=True):  # fmt: skip
            item = mask_target(tokenizer, orig["forms"][k], i, scoring="paper",
                               max_span_pieces=6, max_length=lm.max_length)  # fmt: skip
            beams = naive_beam_search(lm, item, 8, list(tokenizer.all_special_ids))
            words = [tokenizer.decode(list(p), skip_special_tokens=True) for p, _ in beams]
            whole = [
                w for w, (p, _) in zip(words, beams, strict=True)
                if w.casefold() != orig["forms"][k][i].casefold()
                and w.isalnum() and not w.isdigit()
                and tokenizer([w], is_split_into_words=True, add_special_tokens=False)[
                    "input_ids"] == list(p)
            ]  # fmt: skip
            assert like_case(orig["forms"][k][i], whole[0]) == new, (words, new)
            assert perturbed["lemmas"][k][i] == "_" and perturbed["links"][k] == [
                "masked_lm"
            ] * len(perturbed["links"][k])
            checked += 1
    assert checked > 50


def test_coco_records_the_model_and_is_deterministic_across_batch_sizes(
    coco_build, tiny_bert, tmp_path
):
    manifest = json.loads((coco_build / "build.json").read_text())
    lm = manifest["resources"]["masked_lm"]
    # A model folder is named by its own name and files' digest: no local path on the Hub.
    assert lm["model"] == tiny_bert.name and lm["revision"].startswith("sha256:")
    assert f"masked_lm:{tiny_bert.name}@{lm['revision']},beam:8" in manifest["signature"]
    card = (coco_build / "README.md").read_text()
    assert f"revision {lm['revision']}" in card
    assert str(tiny_bert) not in card + (coco_build / "build.json").read_text()
    assert sum(manifest["configs"]["en_coco_tau1_seed1"]["not_eligible"].values()) > 0
    again = build(tmp_path, "--methods", "coco", "--model", tiny_bert, "--max-tokens", "200")
    assert (
        json.loads((again / "build.json").read_text())["content_sha256"]
        == (manifest["content_sha256"])
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--methods", "coco"], "the coco method needs a masked language model: --model"),
        (["--methods", "copos_treebank", "--model", "x"], "--model is used by the coco method"),
    ],
)
def test_coco_options_are_checked_before_anything_is_written(tmp_path, args, message):
    result = CliRunner().invoke(
        main, ["build", "substitution", "--ud-root", str(UD_ROOT), "--langs", "en",
               "--out", str(tmp_path / "out"), *args],
    )  # fmt: skip
    assert result.exit_code == 1 and message in result.stderr, result.output
    assert not (tmp_path / "out").exists()


def test_coco_refuses_a_causal_model(tmp_path, tiny_gpt2):
    result = CliRunner().invoke(
        main, ["build", "substitution", "--ud-root", str(UD_ROOT), "--langs", "en",
               "--methods", "coco", "--model", str(tiny_gpt2), "--out", str(tmp_path / "out")],
    )  # fmt: skip
    assert result.exit_code == 1
    assert "is a causal language model" in result.stderr and "not a masked one" in result.stderr
    assert not (tmp_path / "out").exists()
