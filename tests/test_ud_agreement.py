"""ud_agreement: agreement minimal pairs read off UD treebanks. Every row differs from its
treebank sentence in the agreeing word alone, in one feature; no bad form is attested with
the subject's value; refusals are counted by reason; the rebuild is byte-identical in another
process; UniMorph tables are fetched (loopback) and checked against their pins; any UD
language downloads by ISO code."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import SHARED_UD, UD_ROOT, tree_digest

import perturbed_ud
from perturbed_ud.download import git_blob_sha1
from perturbed_ud.errors import SourceError
from perturbed_ud.grammar.agreement_pairs import AgreementForms, sentence_pairs
from perturbed_ud.grammar.ambiguity import AgreementReadings
from perturbed_ud.resources import unimorph
from perturbed_ud.ud.conllu_io import parse_feats, read_conllu
from perturbed_ud.ud.sources import resolve

# The sample's treebanks, one per language (the defaults are not all in the sample).
TREEBANKS = ["ru=UD_Russian-GSD", "tr=UD_Turkish-BOUN", "ar=UD_Arabic-PUD",
             "he=UD_Hebrew-IAHLTwiki"]  # fmt: skip
LANGS = ["en", "de", "fr", "ru", "tr", "ar", "he"]


def build(out: Path, root=UD_ROOT, langs=LANGS, **options) -> Path:
    return perturbed_ud.build("ud_agreement", out, ud_root=str(root), langs=langs,
                              treebank=TREEBANKS, **options)  # fmt: skip


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    return build(tmp_path_factory.mktemp("data"))


def rows(folder: Path) -> list[dict]:
    return [
        row
        for path in sorted(folder.glob("*/*.parquet"))
        for row in pq.read_table(path).to_pylist()
    ]


def test_every_language_that_annotates_agreement_gives_pairs(built):
    manifest = json.loads((built / "build.json").read_text())
    assert set(manifest["configs"]) == set(LANGS)
    found = Counter(row["lang"] for row in rows(built))
    assert all(found[lang] > 0 for lang in LANGS), found
    for config in manifest["configs"].values():
        assert (
            sum(config["splits"].values())
            == found[
                config and next(iter([k for k, v in manifest["configs"].items() if v is config]))
            ]
        )
        assert config["dropped"], "refusals are counted"
    card = (built / "README.md").read_text()
    assert "MultiBLiMP 1.0" in card and "no_form" in card


def test_a_bad_sentence_changes_the_agreeing_word_alone(built):
    for row in rows(built):
        good, bad = row["sentence_good"].split(" "), row["sentence_bad"].split(" ")
        (k,) = row["good_positions"]
        assert row["bad_positions"] == [k] and len(good) == len(bad)
        assert [i for i, (g, b) in enumerate(zip(good, bad, strict=True)) if g != b] == [k]
        assert good[k].replace(row["good_form"], row["bad_form"], 1) == bad[k]
        before, after = parse_feats(row["good_feats"]), parse_feats(row["bad_feats"])
        feature = row["feature"]
        assert before[feature] == row["good_value"] != row["bad_value"] == after[feature]
        assert {n: v for n, v in before.items() if n != feature} == {
            n: v for n, v in after.items() if n != feature
        }
        assert row["construction"].endswith(feature.lower())


def test_no_bad_form_is_attested_with_the_subjects_value(built):
    # an oracle apart from the code: every VERB/AUX reading of every form in the files read
    attested: dict[str, set] = {}
    for path in UD_ROOT.glob("UD_*/*.conllu"):
        for s in read_conllu(path):
            for form, upos, feats in zip(s.forms, s.upos, s.feats, strict=True):
                if upos in ("VERB", "AUX"):
                    attested.setdefault(form.lower(), set()).add(feats)
    for row in rows(built):
        good = parse_feats(row["good_feats"])
        for feats in attested.get(row["bad_form"].lower(), ()):
            reading = parse_feats(feats)
            same_cell = all(reading.get(k) == good.get(k) for k in ("VerbForm", "Tense", "Mood"))
            if same_cell and row["feature"] in reading:
                # a reading in the cell agrees with the subject in nothing it marks
                assert any(
                    reading.get(f) and good.get(f) and reading[f] != good[f]
                    for f in ("Number", "Person", "Gender")
                ), row["pair_id"]


def sentence(sent_id: str, *words: str) -> str:
    """A CoNLL-U sentence of words written ``ID FORM LEMMA UPOS FEATS HEAD DEPREL [MISC]``."""
    rows = []
    for word in words:
        cells = word.split(" ")
        misc = cells[7] if len(cells) == 8 else "_"
        rows.append("\t".join([*cells[:4], "_", *cells[4:7], "_", misc]))
    return f"# sent_id = {sent_id}\n" + "\n".join(rows) + "\n\n"


FIN = "Mood=Ind|Number={}|Person=3|Tense=Pres|VerbForm=Fin"
CONLLU = "".join(
    [
        sentence(
            "1",
            "1 Sie sie PRON Case=Nom|Gender=Fem|Number=Sing|Person=3|PronType=Prs 2 nsubj",
            "2 geht gehen VERB " + FIN.format("Sing") + " 0 root",
            "3 nach nach ADP _ 4 case",
            "4 Hause Haus NOUN Case=Dat|Gender=Neut|Number=Sing 2 obl SpaceAfter=No",
            "5 . . PUNCT _ 2 punct",
        ),
        sentence(
            "2",
            "1 Der der DET Case=Nom|Gender=Masc|Number=Sing 2 det",
            "2 Hund Hund NOUN Case=Nom|Gender=Masc|Number=Sing 3 nsubj",
            "3 geht gehen VERB " + FIN.format("Sing") + " 0 root SpaceAfter=No",
            "4 . . PUNCT _ 3 punct",
        ),
        sentence(
            "3",
            "1 Der der DET Case=Nom|Gender=Masc|Number=Sing 2 det",
            "2 Hund Hund NOUN Case=Nom|Gender=Masc|Number=Sing 6 nsubj",
            "3 und und CCONJ _ 5 cc",
            "4 die der DET Case=Nom|Gender=Fem|Number=Sing 5 det",
            "5 Katze Katze NOUN Case=Nom|Gender=Fem|Number=Sing 2 conj",
            "6 gehen gehen VERB " + FIN.format("Plur") + " 0 root SpaceAfter=No",
            "7 . . PUNCT _ 6 punct",
        ),
        sentence(
            "4",
            "1 Sie sie PRON Case=Nom|Number=Plur|Person=3|PronType=Prs 2 nsubj",
            "2 gehen gehen VERB " + FIN.format("Plur") + " 0 root SpaceAfter=No",
            "3 . . PUNCT _ 2 punct",
        ),
    ]
)


def pairs_of(tmp_path: Path, text: str, lang="de") -> tuple[list, Counter]:
    path = tmp_path / "de_x-ud-test.conllu"
    path.write_text(text, encoding="utf-8")
    forms, readings, dropped = AgreementForms.from_ud([path]), AgreementReadings([path]), Counter()
    found = [
        p for s in read_conllu(path) for p in sentence_pairs(s, lang, forms, readings, dropped)
    ]
    return found, dropped


def test_refusals_by_reason(tmp_path):
    found, dropped = pairs_of(tmp_path, CONLLU)
    # "Der Hund geht" -> "Der Hund gehen": the one pair; "Sie geht" -> "Sie gehen" is fine
    # German (sie: she or they), the coordinated subject is left out
    assert [(p.sentence_good, p.sentence_bad) for p in found] == [
        ("Der Hund geht.", "Der Hund gehen.")
    ]
    assert found[0].position == 2 and found[0].form_source == "ud"
    assert dropped["sv_number:ambiguous_subject"] == 2  # sent 1 and sent 4
    assert dropped["coordinated_subject"] == 1


def test_agreement_a_language_allows_either_way_is_no_pair(tmp_path):
    """Arabic: a verb before a feminine subject may be masculine (*طلع الشمس*, the sun rose),
    as before a dual (*المنظمتان*), and of either gender before a plural (*قالت الرجال*);
    after the subject, or before a masculine singular, the other gender is an error."""
    verb = "{} طلع VERB Aspect=Perf|Gender={}|Number=Sing|Person=3|Voice=Act"
    masc, fem = verb.format("طلع", "Masc"), verb.format("طلعت", "Fem")

    def noun(form, gender, number):
        return f"{form} {form} NOUN Case=Nom|Definite=Def|Gender={gender}|Number={number}"

    def verb_first(sent_id, verb, subject):
        return sentence(sent_id, f"1 {verb} 0 root", f"2 {subject} 1 nsubj")

    text = "".join([
        verb_first("1", fem, noun("الشمس", "Fem", "Sing")),
        verb_first("2", masc, noun("القمر", "Masc", "Sing")),
        sentence("3", "1 " + noun("الشمس", "Fem", "Sing") + " 2 nsubj", f"2 {fem} 0 root"),
        verb_first("4", fem, noun("الشمسان", "Fem", "Dual")),
        verb_first("5", masc, noun("الأقمار", "Masc", "Plur")),
        verb_first("6", fem, noun("الشموس", "Fem", "Plur")),
    ])  # fmt: skip
    found, dropped = pairs_of(tmp_path, text, lang="ar")
    assert {(p.sentence_good, p.sentence_bad) for p in found} == {
        ("طلع القمر", "طلعت القمر"),
        ("الشمس طلعت", "الشمس طلع"),
    }
    assert dropped["sv_gender:optional_agreement"] == 4


def test_a_swap_that_lets_the_subject_be_read_otherwise_is_no_pair(tmp_path):
    """Turkish: a first- or second-person verb makes a noun subject a vocative (*Adam
    geldim*, man, I came), not a pronoun or a third person's noun (*Annesi*, his mother); a
    person swap on *ol-* makes its subject the predicate (*Ne oldum*, what have I become); a
    form that parts from the original within the lemma or at its end changes more than
    agreement (BOUN leaves negative ability unmarked), unless it is the lemma (*değil*)."""
    past = "Aspect=Perf|Mood=Ind|Number=Sing|Person={}|Polarity={}|Tense=Past"
    noun = "Case=Nom|Number=Sing|Person=3"
    text = "".join([
        sentence("1", "1 Adam adam NOUN " + noun + " 2 nsubj",
                 "2 geldi gel VERB " + past.format(3, "Pos") + " 0 root"),
        sentence("2", "1 Ben ben PRON Case=Nom|Number=Sing|Person=1|PronType=Prs 2 nsubj",
                 "2 geldim gel VERB " + past.format(1, "Pos") + " 0 root"),
        sentence("3", "1 Sen sen PRON Case=Nom|Number=Sing|Person=2|PronType=Prs 2 nsubj",
                 "2 geldin gel VERB " + past.format(2, "Pos") + " 0 root"),
        sentence("4", "1 Ne ne PRON " + noun + "|PronType=Int 2 nsubj",
                 "2 oldu ol VERB " + past.format(3, "Pos") + " 0 root"),
        sentence("5", "1 Ben ben PRON Case=Nom|Number=Sing|Person=1|PronType=Prs 2 nsubj",
                 "2 oldum ol VERB " + past.format(1, "Pos") + " 0 root"),
        sentence("6", "1 Annesi anne NOUN Case=Nom|Number=Sing|Number[psor]=Sing|Person=3|"
                 "Person[psor]=3 2 nsubj",
                 "2 geldi gel VERB " + past.format(3, "Pos") + " 0 root"),
        sentence("7", "1 Adam adam NOUN " + noun + " 2 nsubj",
                 "2 öğrenmedi öğren VERB " + past.format(3, "Neg") + " 0 root"),
        sentence("8", "1 Ben ben PRON Case=Nom|Number=Sing|Person=1|PronType=Prs 2 nsubj",
                 "2 öğrenemedim öğren VERB " + past.format(1, "Neg") + " 0 root"),
        sentence("9", "1 Ben ben PRON Case=Nom|Number=Sing|Person=1|PronType=Prs 2 nsubj",
                 "2 değilim değil AUX Number=Sing|Person=1|Polarity=Neg|Tense=Pres 0 root"),
        sentence("10", "1 O o PRON Case=Nom|Number=Sing|Person=3|PronType=Prs 2 nsubj",
                 "2 değil değil AUX Number=Sing|Person=3|Polarity=Neg|Tense=Pres 0 root"),
    ])  # fmt: skip
    found, dropped = pairs_of(tmp_path, text, lang="tr")
    assert {(p.sentence_good, p.sentence_bad) for p in found} == {
        ("Annesi geldi", "Annesi geldim"),
        ("Annesi geldi", "Annesi geldin"),
        ("Ben geldim", "Ben geldi"),
        ("Ben geldim", "Ben geldin"),
        ("Sen geldin", "Sen geldi"),
        ("Sen geldin", "Sen geldim"),
        ("Ben değilim", "Ben değil"),
        ("O değil", "O değilim"),
    }
    # geldim and geldin after Adam; oldum after Ne, oldu after Ben
    assert dropped["sv_person:other_reading"] == 4
    # öğrenemedim for öğrenmedi, and back
    assert dropped["sv_person:changes_more_than_agreement"] == 2


def test_a_second_person_imperative_may_address_its_subject(tmp_path):
    """Portuguese *Alguém venha* (someone come) -> *Alguém vem*: someone, come! Not an
    error; the other way, *Tu venha*, is."""
    imp = "{} vir VERB Mood=Imp|Number=Sing|Person={}|VerbForm=Fin"
    text = "".join([
        sentence("1", "1 Alguém alguém PRON Gender=Masc|Number=Sing|Person=3|PronType=Ind "
                 "2 nsubj", "2 " + imp.format("venha", 3) + " 0 root"),
        sentence("2", "1 Tu tu PRON Case=Nom|Number=Sing|Person=2|PronType=Prs 2 nsubj",
                 "2 " + imp.format("vem", 2) + " 0 root"),
    ])  # fmt: skip
    found, dropped = pairs_of(tmp_path, text, lang="pt")
    assert [(p.sentence_good, p.sentence_bad) for p in found] == [("Tu vem", "Tu venha")]
    assert dropped["sv_person:other_reading"] == 1


def test_a_rebuild_in_another_process_is_byte_identical(built, tmp_path):
    out = tmp_path / "again"
    args = ["build", "ud_agreement", "--ud-root", str(UD_ROOT), "--langs", ",".join(LANGS),
            *[f"--treebank={t}" for t in TREEBANKS], "--out", str(out)]  # fmt: skip
    subprocess.run([sys.executable, "-m", "perturbed_ud.cli", *args], check=True,
                   capture_output=True)  # fmt: skip
    assert tree_digest(out / "ud_agreement") == tree_digest(built)


def test_unimorph_forms_are_fetched_pinned_and_recorded(tmp_path, file_server, monkeypatch):
    # a verb the treebank knows in one cell only: UniMorph gives the other
    text = CONLLU.split("\n\n")[1] + "\n\n"  # Der Hund geht.
    root = tmp_path / "ud"
    (root / "UD_German-X").mkdir(parents=True)
    (root / "UD_German-X" / "de_x-ud-test.conllu").write_text(
        text.replace("geht", "läuft").replace("gehen", "laufen"), encoding="utf-8"
    )
    served = tmp_path / "served" / "deu" / "c0ffee"
    served.mkdir(parents=True)
    table = served / "deu"
    table.write_text(
        "laufen\tläuft\tV;IND;PRS;3;SG\nlaufen\tlaufen\tV;IND;PRS;3;PL\n", encoding="utf-8"
    )
    monkeypatch.setitem(
        unimorph.TABLES, "de", unimorph.Table("deu", "c0ffee", {"deu": git_blob_sha1(table)})
    )
    monkeypatch.setenv("PERTURBED_UD_UNIMORPH_URL", file_server(tmp_path / "served"))
    out = perturbed_ud.build("ud_agreement", tmp_path / "out", ud_root=str(root), langs=["de"],
                             treebank=["de=UD_German-X"], unimorph=True)  # fmt: skip
    (row,) = rows(out)
    assert (row["bad_form"], row["form_source"]) == ("laufen", "unimorph")
    manifest = json.loads((out / "build.json").read_text())
    (extra,) = manifest["resources"]["de"]["extra"]
    assert extra["files"][0]["commit"] == "c0ffee"
    assert "|unimorph:pinned|" in manifest["signature"]
    # a table that is not the pinned one is refused, and nothing is kept
    monkeypatch.setitem(unimorph.TABLES, "de", unimorph.Table("deu", "beef", {"deu": "0" * 40}))
    (tmp_path / "served" / "deu" / "beef").mkdir()
    (tmp_path / "served" / "deu" / "beef" / "deu").write_text("x\ty\tV;SG\n", encoding="utf-8")
    with pytest.raises(SourceError, match="is not the pinned file"):
        unimorph.table_files("de")
    assert not any((tmp_path / "perturbed-ud-cache" / "unimorph" / "deu").glob("beef*"))


def test_any_ud_language_downloads_by_iso_code(tmp_path, file_server, monkeypatch):
    repo = tmp_path / "served" / "UD_Czech-PDT" / "r2.16"
    repo.mkdir(parents=True)
    source = UD_ROOT / "UD_German-GSD"
    (repo / "cs_pdt-ud-test.conllu").write_bytes((source / "de_gsd-ud-test.conllu").read_bytes())
    for name in ("README.md", "LICENSE.txt"):
        (repo / name).write_bytes((source / name).read_bytes())
    monkeypatch.setenv("PERTURBED_UD_BASE_URL", file_server(tmp_path / "served"))
    (treebank,) = resolve(["cs"], split="test", fetch=True)
    assert (treebank.name, treebank.code) == ("UD_Czech-PDT", "cs_pdt")


@pytest.mark.skipif(not SHARED_UD.is_dir(), reason="whole UD treebanks in ../shared/ud")
def test_every_shared_treebank_with_verb_agreement_gives_pairs(tmp_path):
    treebanks = ["ru=UD_Russian-GSD", "tr=UD_Turkish-BOUN", "ar=UD_Arabic-PUD"]
    out = perturbed_ud.build("ud_agreement", tmp_path, ud_root=str(SHARED_UD),
                             langs=["en", "de", "fr", "es", "ru", "tr", "he", "ar"],
                             treebank=treebanks)  # fmt: skip
    configs = json.loads((out / "build.json").read_text())["configs"]
    assert set(configs) == {"en", "de", "fr", "es", "ru", "tr", "he", "ar"}


def test_the_card_says_why_a_phenomenon_is_empty_or_thin(tmp_path):
    """English PUD leaves *are* and *have* without Number: no number pair, and the card says
    so with the counts, where a bare dash would leave the reader guessing."""
    built = perturbed_ud.build("ud_agreement", tmp_path / "data", langs=["en"])
    manifest = json.loads((built / "build.json").read_text(encoding="utf-8"))
    dropped = manifest["configs"]["en"]["dropped"]
    assert "sv_number" not in manifest["configs"]["en"]["splits"]
    assert dropped["sv_number:target_lacks_feature"] > dropped["sv_number:subject_lacks_feature"]
    card = (built / "README.md").read_text(encoding="utf-8")
    lacking = dropped["sv_number:target_lacks_feature"]
    assert f"| en | `sv_number` | 0 | target_lacks_feature {lacking}," in card
