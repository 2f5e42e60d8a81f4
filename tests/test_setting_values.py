"""One value path: a setting's value is converted and checked by its field's type alike from
the Python API, the command line and a release file, so ``limit="5"`` builds what
``--limit 5`` builds and ``pymorphy="false"`` does not turn Russian inflection on."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import perturbed_ud
from perturbed_ud.cli import command_options, main
from perturbed_ud.errors import InputError
from perturbed_ud.registry import FAMILIES
from perturbed_ud.settings import setting, settings_from


@dataclass(frozen=True, kw_only=True)
class EveryType:
    """A field of every kind a setting can be."""

    flag: bool = setting("a yes/no", default=True)
    count: int = setting("a whole number", default=3)
    positive: int = setting("at least one", default=1, minimum=1)
    share: float = setting("a fraction", default=0.5)
    budget: int | str = setting("a number or auto", default="auto", auto=True, minimum=1)
    seeds: tuple[int, ...] = setting("whole numbers", default=(1,))
    words: tuple[str, ...] = setting("words", default=())
    name: str = setting("a text", default="x")
    folder: str | Path | None = setting("a path", default=None)
    mode: str = setting("one of two", default="a", choices=("a", "b"))


GIVEN = {"flag": "false", "count": "7", "positive": "2", "share": "0.25", "budget": "64",
         "seeds": ["1", "2"], "words": "p,q", "name": "y", "folder": "f", "mode": "b"}  # fmt: skip
WANTED = EveryType(flag=False, count=7, positive=2, share=0.25, budget=64, seeds=(1, 2),
                   words=("p", "q"), name="y", folder="f", mode="b")  # fmt: skip


def from_command_line(values: dict) -> EveryType:
    """The settings the command line makes of ``values`` as typed on it."""
    made = {}

    @click.command(params=command_options(EveryType))
    def command(**options):
        made["settings"] = settings_from(EveryType, options, "toy")

    args = []
    for name, value in values.items():
        flag = "--" + name.replace("_", "-")
        if name == "flag":
            args.append(flag if value == "true" else "--no-flag")
        else:
            args += [flag, ",".join(value) if isinstance(value, list) else value]
    result = CliRunner().invoke(command, args, standalone_mode=False, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return made["settings"]


def test_every_field_type_converts_from_text_as_on_the_command_line():
    assert settings_from(EveryType, GIVEN, "toy") == WANTED
    assert from_command_line(GIVEN) == WANTED
    typed = {**GIVEN, "flag": False, "count": 7, "share": 0.25, "budget": 64, "seeds": (1, 2)}
    assert settings_from(EveryType, typed, "toy") == WANTED, "values of the type pass as given"
    assert settings_from(EveryType, {"budget": "auto"}, "toy").budget == "auto"


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("flag", "maybe", "--flag: 'maybe' is not a valid boolean"),
        ("count", "many", "--count: 'many' is not a valid integer"),
        ("count", True, "--count: True is not a valid integer"),
        ("positive", "0", "--positive: 0 is not in the range x>=1"),
        ("positive", 0, "--positive: 0 is not in the range x>=1"),
        ("share", "half", "--share: 'half' is not a valid float"),
        ("budget", "lots", "--budget: 'lots' is neither a whole number nor auto"),
        ("seeds", ["1", "x"], "--seeds: 'x' is not a valid integer"),
        ("mode", "c", "--mode: 'c' is not one of 'a', 'b'"),
    ],
)  # fmt: skip
def test_a_bad_value_is_refused_with_the_command_lines_words(name, value, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        settings_from(EveryType, {name: value}, "toy")


def test_the_api_builds_what_the_command_line_builds(tmp_path):
    spud = FAMILIES.get("spud")
    from_api = spud.from_options({"pymorphy": "false", "limit": "5", "langs": "ru"})
    assert from_api.settings.pymorphy is False and from_api.settings.selection.limit == 5
    made = {
        way: json.loads((folder / "build.json").read_text())
        for way, folder in [
            (
                "api",
                perturbed_ud.build(
                    "spud", tmp_path / "api", pymorphy="false", limit="5", seeds="1", langs="ru"
                ),
            ),  # fmt: skip
            ("cli", _cli_build(tmp_path / "cli")),
        ]
    }
    assert made["api"]["signature"] == made["cli"]["signature"]
    assert made["api"]["content_sha256"] == made["cli"]["content_sha256"]
    with pytest.raises(InputError, match="--limit: 'x' is not a valid integer"):
        perturbed_ud.build("spud", tmp_path / "bad", pymorphy="false", limit="x")
    assert not (tmp_path / "bad").exists()


def _cli_build(out: Path) -> Path:
    args = ["--no-pymorphy", "--limit", "5", "--seeds", "1", "--langs", "ru", "--out", str(out)]
    result = CliRunner().invoke(main, ["build", "spud", *args])
    assert result.exit_code == 0, result.output
    return out / "spud"


def test_a_single_value_for_a_list_setting_is_refused_in_one_line():
    with pytest.raises(InputError, match="--seeds: expected a list or a comma list, got 5"):
        settings_from(EveryType, {"seeds": 5}, "toy")


def test_a_tasks_run_options_are_converted_as_settings_are(tmp_path):
    """A probe's training sources are given as the command line gives them."""
    with pytest.raises(InputError, match="--download: 'maybe' is not a valid boolean"):
        perturbed_ud.evaluate("probe", dataset="d", model="m", out=tmp_path / "r",
                              download="maybe")  # fmt: skip
    assert not (tmp_path / "r").exists()


def test_a_task_written_for_the_earlier_contract_is_refused_in_one_line(tmp_path):
    from perturbed_ud.evaluation.running.task import EvaluationTask
    from perturbed_ud.registry import TASKS

    @TASKS.register("lab.old.v1")
    class Old(EvaluationTask):
        """An 0.2 task: an evaluate function, no version, no score."""

        name = "lab-old"
        settings_class = EveryType
        reads = ("spud",)

    with pytest.raises(InputError, match="lab-old .* lacks version, score: it was written for"):
        perturbed_ud.evaluate("lab-old", dataset="d", model="m", out=tmp_path / "r")
