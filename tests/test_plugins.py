"""A lab's own dataset family and evaluation task, shipped as a separate package: installed
by pip into a folder of its own, found through its entry points by a fresh `perturbed-ud`
process, built and listed without any edit of perturbed-ud."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

PLUGIN = '''
"""A toy family and task of another package."""
from dataclasses import dataclass

from datasets import Features, List, Value

from perturbed_ud.builders.family import DatasetFamily, version_setting
from perturbed_ud.data.card import CardText
from perturbed_ud.data.writer import rows_table
from perturbed_ud.evaluation.running.task import EvaluationTask, Outputs
from perturbed_ud.registry import FAMILIES, TASKS
from perturbed_ud.settings import setting


@dataclass(frozen=True, kw_only=True)
class EchoSettings:
    """What shapes an echo build."""

    sentences: tuple[str, ...] = setting("sentences to echo", signature="n", option="--sentence",
                                       repeat=True)
    version: str = version_setting()


@FAMILIES.register("lab.echo.v1")
class Echo(DatasetFamily):
    """A lab's family: every sentence as given."""

    name = "lab-echo"
    pretty_name = "Echo"
    description = "Each sentence as given (`orig`).\\n"
    features = Features({"sent_id": Value("string"), "words": List(Value("string"))})
    settings_class = EchoSettings
    tasks = ("lab-length",)

    def conditions(self):
        return ["orig"]

    def jobs(self):
        return [list(enumerate(self.settings.sentences))]

    def write(self, job, writer):
        rows = [{"sent_id": str(i), "words": s.split()} for i, s in job]
        writer.write("default", "orig", rows_table(rows, self.features))
        return {"orig": len(rows)}

    def manifest(self, results):
        return {"parameters": {"sentences": len(self.settings.sentences)},
                "sources": [{"lang": "en", "license": "CC BY-SA 4.0", "name": "lab"}],
                "configs": {"default": {"splits": results[0]}}}

    @classmethod
    def card_text(cls, manifest):
        return CardText(loading_comment="split orig", parameters="Sentences given.",
                        sources="The lab's.", statistics="", citation="None.")


@dataclass(frozen=True, kw_only=True)
class LengthSettings:
    longest: int = setting("Sentences longer than this are not counted.", default=50)


@TASKS.register("lab.length.v1")
class Length(EvaluationTask):
    """A lab's task: sentence lengths."""

    name = "lab-length"
    version = "0.1.0"
    settings_class = LengthSettings
    read_columns = ("words",)
    score = staticmethod(lambda batch, rank=None, **run: {"n": [len(w) for w in batch["words"]]})

    @classmethod
    def outputs(cls, scored):
        return Outputs({"longest": int(scored.rows["n"].max())})
'''


def wheel(folder: Path) -> Path:
    """A wheel of the plugin package, as a build backend would write it."""
    files = {
        "lab_plugin/__init__.py": PLUGIN,
        "lab_plugin-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: lab-plugin\n"
        "Version: 0.1\n",
        "lab_plugin-0.1.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\n"
        "Root-Is-Purelib: true\nTag: py3-none-any\n",
        "lab_plugin-0.1.dist-info/entry_points.txt": "[perturbed_ud.families]\n"
        "lab-echo = lab_plugin\n\n[perturbed_ud.tasks]\nlab-length = lab_plugin\n",
    }
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{name},sha256={digest.decode()},{len(text.encode())}")
    record.append("lab_plugin-0.1.dist-info/RECORD,,")
    files["lab_plugin-0.1.dist-info/RECORD"] = "\n".join(record) + "\n"
    path = folder / "lab_plugin-0.1-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return path


@pytest.mark.subprocess
def test_a_plugin_package_adds_a_family_and_a_task(tmp_path):
    site = tmp_path / "site"
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet",
         "--target", str(site), str(wheel(tmp_path))],
        capture_output=True, text=True,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    env = {**os.environ, "PYTHONPATH": str(site)}

    def run(*args):
        return subprocess.run([sys.executable, "-m", "perturbed_ud", *args], env=env,
                              capture_output=True, text=True, cwd=tmp_path)  # fmt: skip

    built = run("build", "lab-echo", "--sentence", "a b c", "--out", "out")
    assert built.returncode == 0, built.stderr
    manifest = json.loads((tmp_path / "out" / "lab-echo" / "build.json").read_text())
    assert manifest["family"] == "lab.echo.v1" and manifest["configs"]["default"]["splits"]
    assert "lab-echo" in run("build", "--help").stdout
    listed = run("evaluate", "--help").stdout
    assert "lab-length" in listed and "minimal-pair" in listed
    assert "--longest INTEGER" in run("evaluate", "lab-length", "--help").stdout
    without = subprocess.run([sys.executable, "-m", "perturbed_ud", "build", "--help"],
                             capture_output=True, text=True)  # fmt: skip
    assert "lab-echo" not in without.stdout, "only where the plugin is installed"


def installed_site(folder: Path, module: str, entry_points: str) -> dict:
    """An environment whose path holds a package ``lab_plugin`` of the source ``module`` with
    the ``entry_points``, as pip installs one."""
    package = folder / "lab_plugin"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(module)
    info = folder / "lab_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: lab-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(entry_points)
    return {**os.environ, "PYTHONPATH": str(folder)}


def perturbed_ud(env: dict, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "perturbed_ud", *args], env=env,
                          capture_output=True, text=True, cwd=cwd)  # fmt: skip


@pytest.mark.subprocess
def test_a_plugin_that_does_not_import_is_skipped_unless_asked_for(tmp_path):
    env = installed_site(
        tmp_path / "site", "raise ImportError('no module named lab_dep')\n",
        "[perturbed_ud.families]\nlab-broken = lab_plugin\n",
    )  # fmt: skip
    listed = perturbed_ud(env, tmp_path, "build", "--help")
    assert listed.returncode == 0 and "spud" in listed.stdout
    warning = listed.stderr.strip()
    assert warning.startswith("warning: skipped: the dataset family module lab_plugin")
    assert "lab-plugin" in warning and "lab_dep" in warning and "\n" not in warning
    assert perturbed_ud(env, tmp_path, "build", "spud", "--help").returncode == 0
    asked = perturbed_ud(env, tmp_path, "build", "lab-broken", "--out", "out")
    assert asked.returncode != 0 and "error: the dataset family module lab_plugin" in asked.stderr
    assert "Traceback" not in asked.stderr


@pytest.mark.subprocess
@pytest.mark.parametrize(
    "versioned, short, taken", [("nonce.spud.v3", "lab-echo", "nonce.spud.v3"),
                                ("lab.echo.v1", "spud", "spud")],
)  # fmt: skip
def test_a_plugin_taking_a_built_in_name_is_blamed_not_the_built_in(
    tmp_path, versioned, short, taken
):
    clash = PLUGIN.replace('"lab.echo.v1"', f"{versioned!r}").replace('"lab-echo"', f"{short!r}")
    env = installed_site(tmp_path / "site", clash, "[perturbed_ud.families]\nlab-x = lab_plugin\n")
    listed = perturbed_ud(env, tmp_path, "build", "--help")
    assert listed.returncode == 0
    assert "module lab_plugin (entry point 'lab-x' of lab-plugin)" in listed.stderr
    assert f"{taken!r} is registered twice" in listed.stderr
    assert "perturbed_ud.builders" not in listed.stderr


@pytest.mark.subprocess
def test_a_family_reporting_rows_it_did_not_write_leaves_no_dataset(tmp_path):
    liar = PLUGIN.replace('return {"orig": len(rows)}', 'return {"orig": 999}')
    env = installed_site(
        tmp_path / "site", liar, "[perturbed_ud.families]\nlab-echo = lab_plugin\n"
    )  # fmt: skip
    built = perturbed_ud(env, tmp_path, "build", "lab-echo", "--sentence", "a b", "--out", "out")
    assert built.returncode != 0
    assert "lab-echo reports 999 rows in default/orig but wrote 1" in built.stderr
    assert not (tmp_path / "out" / "lab-echo").exists()


@pytest.mark.subprocess
def test_a_broken_plugin_named_like_a_built_in_task_leaves_the_built_in_working(tmp_path):
    env = installed_site(tmp_path / "site", "raise ImportError('gone')\n",
                         "[perturbed_ud.tasks]\nscore = lab_plugin\n")  # fmt: skip
    for args in (["evaluate", "--help"], ["evaluate", "score", "--help"]):
        listed = perturbed_ud(env, tmp_path, *args)
        assert listed.returncode == 0, listed.stderr
        assert "--metric" in listed.stdout or "minimal-pair" in listed.stdout


@pytest.mark.subprocess
def test_a_plugin_command_taking_a_built_in_name_is_blamed_when_asked_for(tmp_path):
    clash = PLUGIN.replace('"lab-echo"', '"spud"')
    env = installed_site(tmp_path / "site", clash, "[perturbed_ud.families]\nclash = lab_plugin\n")
    asked = perturbed_ud(env, tmp_path, "build", "clash", "--out", "out")
    assert asked.returncode != 0
    assert "module lab_plugin (entry point 'clash' of lab-plugin)" in asked.stderr
    assert "perturbed_ud.builders" not in asked.stderr
