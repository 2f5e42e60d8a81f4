"""The ambiguity check of agreement pairs: a bad sentence with a grammatical reading is refused
and counted; the project's grammars give no such pair in any language."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from datasets import load_dataset

from perturbed_ud.builders.clams import _read, agreement_readings, find_languages
from perturbed_ud.cli import main
from perturbed_ud.grammar.ambiguity import AgreementReadings
from perturbed_ud.grammar.morphology import finite_word, pymorphy_available

GRAMMAR = """\
vary: VP[]

S[] N[3,s,anim] VP[3,s]
S[] N[3,p,anim] VP[3,p]

N[3,s,anim] the judge | the doctor
N[3,p,anim] the judges | the doctors
VP[3,s] works | reads | is tall
VP[3,p] work | read | are tall
"""


def build(tmp_path: Path, *args: str) -> dict:
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["build", "clams", "--out", str(out), *args])
    assert result.exit_code == 0, result.output
    return json.loads((out / "clams" / "build.json").read_text())


@pytest.fixture
def read_grammar(tmp_path) -> Path:
    folder = tmp_path / "grammars"
    folder.mkdir()
    (folder / "simple_agrmt.avg").write_text(GRAMMAR, encoding="utf-8")
    return folder


def test_a_read_type_verb_is_refused_and_counted(read_grammar, tmp_path):
    manifest = build(tmp_path, "--grammar-dir", str(read_grammar), "--lang", "en")
    check = manifest["configs"]["en"]["ambiguity_check"]
    # "the judge read" is a past tense: the singular subject's two pairs with *read* go
    assert check["refused"] == {"simple_agrmt:ambiguous:ud": 2}
    assert check["forms"] == ["read (ud)"]
    rows = load_dataset(str(tmp_path / "out" / "clams"), "en", split="simple_agrmt")
    bad = set(rows["sentence_bad"])
    assert "the judge read" not in bad and "the doctor read" not in bad
    assert "the judges reads" in bad, "the plural subject's pair stays: *reads* is 3sg only"
    assert "the judge are tall" in bad, "are: a present the PUD sample leaves unannotated"
    assert len(rows) == 12 - 2  # 2 subjects x 2 numbers x 3 verbs
    card = (tmp_path / "out" / "clams" / "README.md").read_text()
    assert "simple_agrmt:ambiguous:ud 2" in card and "read (ud)" in card


def test_without_the_check_every_pair_is_kept_and_the_signature_says_so(read_grammar, tmp_path):
    manifest = build(
        tmp_path, "--grammar-dir", str(read_grammar), "--lang", "en", "--no-ambiguity-check"
    )
    assert manifest["configs"]["en"]["splits"] == {"simple_agrmt": 12}
    assert "ambiguity_check" not in manifest["configs"]["en"]
    assert "|ambiguity:off|" in manifest["signature"]


def test_the_projects_grammars_give_no_ambiguous_pair_in_any_language(tmp_path):
    manifest = build(tmp_path)
    assert set(manifest["configs"]) == {"de", "en", "fr", "he", "ru"}
    for lang, config in manifest["configs"].items():
        assert config["ambiguity_check"]["refused"] == {}, lang
    assert "|ambiguity:checked|" in manifest["signature"]


def test_finite_word_is_the_first_that_differs():
    assert finite_word(("sont", "jeunes"), [("est", "jeune")]) == "sont"
    assert finite_word(("sprechen", "viele", "Sprachen"), [("spricht", "viele", "Sprachen")]) == (
        "sprechen"
    )
    assert finite_word(("read",), [("reads",)]) == "read"


def test_readings_follow_number_person_and_tense(tmp_path):
    conllu = tmp_path / "xx-ud-test.conllu"
    conllu.write_text(
        "# sent_id = 1\n# text = I like it ; they read ; we are\n"
        "1\tI\tI\tPRON\t_\tCase=Nom|Number=Sing|Person=1\t2\tnsubj\t_\t_\n"
        "2\tlike\tlike\tVERB\t_\tMood=Ind|Number=Sing|Person=1|Tense=Pres|VerbForm=Fin\t0\troot\t_\t_\n"
        "3\tworks\twork\tVERB\t_\tMood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin\t2\tobj\t_\t_\n"
        "4\tread\tread\tVERB\t_\tMood=Ind|Tense=Past|VerbForm=Fin\t2\tparataxis\t_\t_\n"
        "5\tare\tbe\tAUX\t_\tMood=Ind|Tense=Pres|VerbForm=Fin\t2\tparataxis\t_\t_\n"
        "6\tcome\tcome\tVERB\t_\tMood=Imp|VerbForm=Fin\t2\tparataxis\t_\t_\n\n",
        encoding="utf-8",
    )  # fmt: skip
    readings = AgreementReadings([conllu], ["works", "like", "are"])
    assert readings.tense == "Pres"
    singular = ("3", "s")
    assert readings.agreeing_source("read", singular) == "ud", "a past tense agrees with all"
    assert readings.agreeing_source("like", singular) is None, "1st person: not with a 3rd"
    assert readings.agreeing_source("like", ("1", "s")) == "ud"
    assert readings.agreeing_source("are", singular) is None, "unannotated present"
    assert readings.agreeing_source("come", singular) is None, "an imperative is no reading"
    assert readings.agreeing_source("works", ("3", "p")) is None


@pytest.mark.skipif(not pymorphy_available(), reason="pymorphy3 with its dictionary")
def test_russian_readings_come_from_pymorphy_too(tmp_path):
    source = find_languages(None)["ru"]
    _read(source)
    readings = agreement_readings(source, tmp_path)  # an empty UD root: pymorphy3 alone
    assert readings.files == () and readings.pymorphy
    assert readings.agreeing_source("говорят", ("3", "s")) is None
    assert readings.agreeing_source("говорил", ("3", "s")) == "pymorphy3", "past: no person"
    assert readings.agreeing_source("говорили", ("3", "s")) is None
