"""The ``perturbed-ud`` command line."""

from __future__ import annotations

import re
import shlex
import signal
import warnings
from pathlib import Path

import click

from .errors import InputError, Interrupted, PerturbedUDError, PerturbedUDWarning
from .redaction import redact
from .registry import FAMILIES, TASKS


class _Commands(click.Group):
    """Any command's `PerturbedUDError` ends it as one ``error:`` line with exit status 1,
    Ctrl-C as one ``interrupted`` line (what was kept, where a command says) with status 130;
    every other exception is a bug and keeps its traceback."""

    def invoke(self, ctx: click.Context):
        signal.signal(signal.SIGTERM, _exit_on_sigterm)
        try:
            with warnings.catch_warnings():  # the library warns; the command line prints
                warnings.simplefilter("always", PerturbedUDWarning)
                warnings.showwarning = _show_warning
                return super().invoke(ctx)
        except PerturbedUDError as err:
            click.echo(f"error: {redact(str(err))}", err=True)
            ctx.exit(1)
        except KeyboardInterrupt as err:
            click.echo(
                redact(str(err)) if isinstance(err, Interrupted) else "interrupted", err=True
            )
            ctx.exit(130)


_python_showwarning = warnings.showwarning


def _show_warning(message, category, *args, **kwargs) -> None:
    """This package's warnings as one ``warning:`` line; any other library's as Python
    shows them."""
    if issubclass(category, PerturbedUDWarning):
        click.echo(f"warning: {redact(str(message))}", err=True)
    else:
        _python_showwarning(message, category, *args, **kwargs)


def _exit_on_sigterm(signum: int, frame) -> None:
    """SIGTERM unwinds like Ctrl-C, so temporary folders and worker processes are cleaned up."""
    raise SystemExit(128 + signum)


@click.group(cls=_Commands)
@click.version_option(package_name="perturbed-ud")
def main() -> None:
    """Build perturbation datasets from Universal Dependencies, publish and evaluate them."""


# --- Options made from settings fields and values given on the command line ---------------


def refuse_empty(value, param: click.Parameter | None, ctx: click.Context | None, wanted: str):
    """An empty path or name is refused: most calls read "" as the current folder, so
    ``--dataset ""`` would scan whatever folder the command runs in."""
    if value == "":
        what = param.get_error_hint(ctx) if param is not None and ctx is not None else "a value"
        raise InputError(f"{what} is empty: give {wanted}")


class GivenPath(click.Path):
    """A path option or argument that refuses an empty value."""

    def convert(self, value, param, ctx):
        refuse_empty(value, param, ctx, "a path")
        return super().convert(value, param, ctx)


class GivenName(click.types.StringParamType):
    """A Hub id or local path (a dataset, a model) that refuses an empty value."""

    def convert(self, value, param, ctx):
        refuse_empty(value, param, ctx, "a Hub id or a path")
        return super().convert(value, param, ctx)


NAME_OR_PATH = GivenName()


class WholeOrAuto(click.ParamType):
    """A whole number of at least the field's minimum, or ``auto``: converted by
    `settings.field_value`, as the Python API converts it."""

    name = "integer|auto"

    def __init__(self, field):
        self.field = field

    def convert(self, value, param, ctx):
        from .settings import field_value

        try:
            return field_value(self.field, int, value)
        except ValueError as err:
            self.fail(str(err), param, ctx)


def _option_type(described) -> click.ParamType:
    """The click type of a setting's option: the same values, and the same words for a bad
    one, as `settings.field_value` takes from the Python API and release files."""
    meta, kind = described.field.metadata, described.kind
    if meta["choices"]:
        return click.Choice([str(c) for c in meta["choices"]])
    if meta["auto"]:
        return WholeOrAuto(described.field)
    if kind is int:
        return click.INT if meta["minimum"] is None else click.IntRange(min=meta["minimum"])
    if kind is float:
        return click.FLOAT
    if kind is Path:
        return GivenPath()
    return click.STRING


def command_options(settings_class: type, skip: tuple[str, ...] = ()) -> list[click.Option]:
    """The command-line options of a settings class, one per documented field not in
    ``skip``; a field without a default is a required option."""
    import dataclasses

    from .settings import described_fields, shown_value

    options = []
    for d in described_fields(settings_class, skip):
        f, flag, meta = d.field, d.flag, d.field.metadata
        if d.kind is bool:
            if d.default:
                flag = f"{flag}/--no-{flag[2:]}"
            options.append(click.Option([flag, f.name], is_flag=True, default=bool(d.default),
                                        show_default=bool(d.default), help=d.help))  # fmt: skip
        elif meta["repeat"]:
            required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            options.append(click.Option([flag, f.name], multiple=True, required=required,
                                        help=f"{d.help} Repeatable."))  # fmt: skip
        elif d.kind is tuple:
            default = shown_value(d.default) if d.default else None
            options.append(click.Option(
                [flag, f.name], default=default, show_default=bool(default),
                help=f"{d.help} Comma-separated.", metavar="A,B",
            ))  # fmt: skip
        else:
            options.append(click.Option(
                [flag, f.name], type=_option_type(d), default=d.default,
                show_default=d.default is not None, help=d.help,
            ))  # fmt: skip
    return options


def family_options(family) -> list[click.Option]:
    """The options of a build: the sources', then the settings fields not resolved, then
    the former spellings (hidden)."""
    from .settings import option_name

    sources = command_options(family.sources_class) if family.sources_class else []
    former = [
        click.Option([option_name(old)], hidden=True, help=f"Former {option_name(new)}.")
        for old, new in family.renamed.items()
    ]
    return [*sources, *command_options(family.settings_class, skip=family.resolved), *former]


def find_family(name: str):
    """The family of a short or versioned name, its hyphens or underscores spelled either way:
    the dataset names are fixed by releases (perturbed-ud, local_structure), and a user should
    not have to remember which is which."""
    spellings = (name, name.replace("-", "_"), name.replace("_", "-"))
    return next((family for n in spellings if (family := FAMILIES.find(n))), None)


class _Builds(click.Group):
    """Build subcommands, and release files: ``build builders/<name>.toml --out DIR`` runs the
    subcommand the file names with the file's version and options."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return FAMILIES.short_names()

    def get_command(self, ctx: click.Context, name: str):
        from .releases import is_release_file

        if is_release_file(name):
            return self._release_command(ctx, name)
        family = find_family(name)
        return family_command(family) if family else None

    def _release_command(self, ctx: click.Context, path: str) -> click.Command:
        from .releases import read_release

        release = read_release(path)
        family = find_family(release.dataset)
        target = family_command(family) if family else None
        if target is None:
            raise InputError(f"{path}: no dataset {release.dataset!r} to build")
        known = {p.name: p for p in target.params if isinstance(p, click.Option)}
        values = {}
        for option, value in release.options.items():
            param = known.get(option.replace("-", "_")) or next(
                (p for p in known.values() if f"--{option}" in p.opts), None
            )
            if param is None:
                raise InputError(f"{path}: {release.dataset} has no option --{option}")
            if param.name in ("out", "overwrite", "version", "workers"):
                raise InputError(f"{path}: {option!r} is not part of a release")
            if param.multiple and isinstance(value, str):
                value = [value]
            try:
                values[param.name] = param.type_cast_value(ctx, value)
            except click.BadParameter as err:
                raise InputError(f"{path}: option {option}: {err.message}") from None

        @click.command(name=path, help=f"Build {release.dataset} {release.version} from {path}.")
        @click.option("--out", required=True, type=GivenPath(), help="Output folder.")
        @click.option("--overwrite", is_flag=True, help="Replace an existing dataset folder.")
        @click.option("--ud-root", type=GivenPath(), help=UD_ROOT_OVERRIDE)
        @click.pass_context
        def run_release(inner: click.Context, out: str, overwrite: bool, ud_root: str) -> None:
            given = values | {"out": out, "overwrite": overwrite}
            if ud_root is not None:
                given = _from_local_ud(given, ud_root, path)
            inner.invoke(target, **given, version=release.version)

        return run_release


UD_ROOT_OVERRIDE = (
    "A local copy of UD (a folder of UD_* treebank folders) read instead of the treebanks a "
    "release downloads (download = true), e.g. offline: the same files give the same rows and "
    "content hash."
)


def _from_local_ud(values: dict, ud_root: str, path: str) -> dict:
    """A release's options with its download replaced by a local copy of UD, which holds
    the same files where it is a copy of the release the download is pinned to."""
    if not values.get("download"):
        raise InputError(
            f"{path} downloads no treebanks, so --ud-root has nothing to replace: it is for "
            "releases with download = true"
        )
    kept = {name: value for name, value in values.items() if name not in ("download", "offline")}
    return kept | {"ud_root": ud_root}


def family_command(family) -> click.Command:
    """``build <family>``: the family's options (`DatasetFamily.options`), then those of
    every build; it calls `perturbed_ud.build`, so both check and build the same thing."""

    def run(out: str, overwrite: bool, workers: int, **values) -> None:
        from .api import build

        click.echo(f"wrote {build(family, out, overwrite=overwrite, workers=workers, **values)}")

    every_build = [
        click.Option(["--out"], required=True, type=GivenPath(), help="Output folder."),
        click.Option(["--overwrite"], is_flag=True, help="Replace an existing dataset folder."),
        click.Option(["--workers"], type=click.IntRange(min=1), default=1, show_default=True,
                     help="Processes; the output does not depend on them."),
    ]  # fmt: skip
    return click.Command(family.name, params=[*family_options(family), *every_build], callback=run,
                         help=family.__doc__)  # fmt: skip


@main.group(cls=_Builds)
def build() -> None:
    """Build a dataset into OUT/<name>: Parquet per config and split, card, build.json.

    The subcommands are the dataset names, spelled as published (perturbed-ud,
    local_structure); hyphens and underscores are accepted either way (local-structure).

    A release file in place of the subcommand (``build builders/perturbed-ud.toml --out DIR``)
    builds the release it defines; with ``--ud-root DIR``, one that downloads its treebanks
    (``download = true``) reads them from a local copy of UD instead, e.g. offline.

    Treebanks come from the PUD sample shipped with perturbed-ud (the same 1,000 sentences
    in en de es ru zh tr fr ar), or from --files, --ud-root (or $PERTURBED_UD_ROOT), or
    --download: the default treebanks fetched from UD's GitHub at a pinned release into the
    user cache.
    """


def _no_token(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    """`push --token` fails, pointing at HF_TOKEN: a token on a command line shows in `ps`."""
    if value is not None:
        raise click.UsageError(
            "--token is not accepted (a command line shows in `ps`): set HF_TOKEN or run "
            "`hf auth login`",
            ctx,
        )


@main.command()
@click.argument("folder", type=GivenPath())
@click.option("--repo-id", required=True, help="Hub dataset repo, e.g. me/perturbed-ud.")
@click.option("--version", "version",
              help="x.y.z; must match build.json [default: build.json's version].")  # fmt: skip
@click.option("--dry-run", is_flag=True, help="List what would be uploaded; touch no Hub.")
@click.option("--private", is_flag=True, help="Create the repo as private.")
@click.option("--allow-licence-risk", is_flag=True, help="Publish despite licence problems.")
@click.option("--token", hidden=True, expose_value=False, is_eager=True, callback=_no_token)
def push(folder, repo_id, version, dry_run, private, allow_licence_risk) -> None:
    """Upload a built dataset FOLDER to the Hub and tag the commit v<version>.

    The version is the one the folder was built as (build.json), so a tag always names one
    build; --version, where given, must match it.
    The token is that of HF_TOKEN or of `hf auth login`: a command line shows in `ps`.
    """
    from .data.push import push_folder

    push_folder(
        folder,
        repo_id,
        version,
        dry_run=dry_run,
        private=private,
        allow_licence_risk=allow_licence_risk,
        echo=click.echo,
    )


def _comma_list(ctx, param, values) -> list[str] | None:
    """A repeatable option whose values may each be comma lists: --config a,b --config c."""
    from .options import comma_words

    names = [name for value in values for name in comma_words(value)]
    return names or None


def run_options() -> list[click.Option]:
    """The options every evaluate task shares: data, model, device, run folder."""
    from .evaluation.running.task import RANK_TIMEOUT

    return [
        click.Option(["--dataset"], required=True, type=NAME_OR_PATH,
                     help="A dataset folder or Hub id."),
        click.Option(["--config", "configs"], multiple=True, callback=_comma_list,
                     help="Configs, comma-separated or repeated (default: all)."),
        click.Option(["--splits"], multiple=True, callback=_comma_list,
                     help="Splits, comma-separated (default: all)."),
        click.Option(["--limit"], type=click.IntRange(min=1),
                     help="Score only the first N rows of each split (a smoke test)."),
        click.Option(["--model"], required=True, type=NAME_OR_PATH,
                     help="Model name or local path."),
        click.Option(["--revision"], help="Model revision (branch, tag or commit)."),
        click.Option(["--dataset-revision"], help="Dataset revision, e.g. v1.0.0."),
        click.Option(["--device"], default="auto", show_default=True,
                     help="auto (the GPUs if any, else the CPU), cpu, cuda, cuda:N."),
        click.Option(["--num-proc"], type=click.IntRange(min=1),
                     help="Worker processes, one per GPU."),
        click.Option(["--rank-timeout"], type=click.IntRange(min=1),
                     help="Under torchrun or accelerate: seconds rank 0 waits for the other "
                     f"ranks' chunks [default: {RANK_TIMEOUT}]."),
        click.Option(["--out"], required=True, type=GivenPath(),
                     help="Run folder (resumable)."),
        click.Option(["--overwrite"], is_flag=True,
                     help="Replace a run of other settings in --out instead of refusing."),
        click.Option(["--verbose"], is_flag=True,
                     help="Show the libraries' own progress bars and logging."),
    ]  # fmt: skip


def task_command(task) -> click.Command:
    """``evaluate <task>``: the run's options, the task's settings, its own run options."""

    def run(**values) -> None:
        from .api import run_evaluation
        from .evaluation.running.runner import headline_of

        folder = run_evaluation(task.name, **values)
        click.echo(headline_of(folder), nl=False)
        click.echo(f"wrote {folder}")

    extra = task.run_parameters_class
    params = [*run_options(), *command_options(task.settings_class),
              *(command_options(extra) if extra else [])]  # fmt: skip
    return click.Command(task.name, callback=run, params=params, help=task.__doc__)


class _Tasks(click.Group):
    """`evaluate <task>` for every registered evaluation task, made from its registration."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return TASKS.short_names()

    def get_command(self, ctx: click.Context, name: str):
        task = TASKS.find(name)
        return task_command(task) if task else None

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Which datasets each task reads, from the registries."""
        from .evaluation.running.task import task_families

        rows = [(name, ", ".join(task_families(name))) for name in TASKS.short_names()]
        with formatter.section("Datasets each task reads"):
            formatter.write_dl(rows)


@main.group(cls=_Tasks)
def evaluate() -> None:
    """Run language models over a dataset and report the research statistics."""


def finetune_command() -> click.Command:
    """``finetune-classifier``: the data, model and output options, then the training
    settings (`FinetuneSettings`)."""
    from .evaluation.finetune import FinetuneSettings, finetune_classifier
    from .settings import settings_from

    def run(dataset, model, out, device, overwrite, **values) -> None:
        from .lm.models import quiet_libraries

        settings = settings_from(FinetuneSettings, values, "finetune-classifier")
        with quiet_libraries():
            folder = finetune_classifier(dataset, model, out, settings, device=device,
                                         overwrite=overwrite)  # fmt: skip
        click.echo(f"wrote {folder}")

    params = [
        click.Option(["--dataset"], required=True, type=NAME_OR_PATH,
                     help="A Hub dataset id or a folder that datasets.load_dataset reads."),
        click.Option(["--model"], required=True, type=NAME_OR_PATH,
                     help="The base model: Hub id or folder (from_pretrained)."),
        *command_options(FinetuneSettings),
        click.Option(["--device"], default="cpu", show_default=True, help="cpu, cuda, cuda:N."),
        click.Option(["--out"], required=True, type=GivenPath(),
                     help="Folder of the classifier and its tokenizer (save_pretrained)."),
        click.Option(["--overwrite"], is_flag=True,
                     help="Replace a classifier this command wrote in --out."),
    ]  # fmt: skip
    return click.Command("finetune-classifier", callback=run, params=params,
                         help=FINETUNE_HELP)  # fmt: skip


FINETUNE_HELP = """Fine-tune a model as a sequence classifier on a split of a dataset, for
`evaluate classify`: the first half of Clouâtre et al. (2022), who then test it on perturbed
copies of the task's test set (`build local_structure`). A ClassLabel column's names become
the model's labels; the same seed gives the same weights on CPU."""


main.add_command(finetune_command())


@main.command("probe-table")
@click.argument("runs", nargs=-1, required=True, type=GivenPath(exists=True, file_okay=False))
@click.option(
    "--distances",
    multiple=True,
    type=GivenPath(exists=True, file_okay=False),
    help="`evaluate distance` runs of the same models and data (repeatable).",
)
@click.option("--out", required=True, type=GivenPath(), help="Folder for the table.")
def probe_table(runs, distances, out) -> None:
    """The paper's robustness table from `evaluate probe` runs: per model, layer and
    perturbation, each drop as mean ± sd over corpora, beside the distances."""
    from .evaluation.reporting.probe_table import robustness_table
    from .evaluation.reporting.tables import write_table
    from .files import guard_output, output_folder

    folder = output_folder(guard_output(out, [*runs, *distances]))
    table = robustness_table([Path(r) for r in runs], [Path(d) for d in distances])
    write_table(table, folder / "robustness_table.csv", markdown=True)
    click.echo(f"wrote {folder / 'robustness_table.csv'} and .md")


@main.command()
@click.argument("runs", nargs=-1, required=True, type=GivenPath())
@click.option("--out", required=True, type=GivenPath(dir_okay=False), help="The HTML file.")
def report(runs, out) -> None:
    """One self-contained HTML page comparing RUNs: run folders of `evaluate`, lm-eval
    results .json files, or folders of them. Values and intervals side by side per dataset,
    language and condition; each run's signature, provenance and figures."""
    from .evaluation.reporting.report_page import write_comparison_page

    click.echo(f"wrote {write_comparison_page(list(runs), out)}")


@main.command()
@click.argument("items", type=GivenPath(exists=True, dir_okay=False))
@click.option("--out", required=True, type=GivenPath(), help="Output folder.")
@click.option(
    "--balance", type=click.Choice(["auto", "aligned", "head"]), default="auto", show_default=True,
    help="aligned: items present in every condition; head: the released first-n rows.",
)  # fmt: skip
@click.option("--bootstrap", type=int, default=2000, show_default=True, help="Resamples.")
@click.option(
    "--run-seed", type=int,
    help="Seed of a single run whose items carry none (default: from a 'seedN' file name).",
)  # fmt: skip
@click.option(
    "--dataset", type=GivenPath(exists=True, file_okay=False),
    help="The dataset folder the items were scored on: its conditions (default: the "
    "word-order conditions of perturbed-ud).",
)  # fmt: skip
def summarize(items, out, balance, bootstrap, run_seed, dataset) -> None:
    """Summary tables, confidence intervals and plots from a per-item file (.jsonl[.gz],
    .parquet) in the released schema, ours or the original code's."""
    from .data.conditions import DEFAULT_CONDITIONS, dataset_conditions
    from .evaluation.tasks.masked_word.summarize import summarize as write_summaries
    from .files import guard_output

    guard_output(out, [items, dataset])
    if run_seed is None and (match := re.search(r"seed(\d+)", Path(items).name)):
        run_seed = int(match.group(1))
    conditions = dataset_conditions(dataset) if dataset else DEFAULT_CONDITIONS
    written = write_summaries(
        items, out, balance=balance, bootstrap=bootstrap, run_seed=run_seed, conditions=conditions
    )
    for path in written.values():
        click.echo(f"wrote {path}")


@main.command()
@click.option("--dataset", required=True, type=GivenPath(exists=True, file_okay=False))
@click.option(
    "--tokenizer",
    required=True,
    type=NAME_OR_PATH,
    help="Tokenizer name or path (from_pretrained).",
)
@click.option("--revision", help="Tokenizer revision.")
@click.option("--max-span-pieces", type=int, default=6, show_default=True)
@click.option(
    "--scoring", type=click.Choice(["paper", "lrec2026"]), default="paper", show_default=True,
    help="paper, or lrec2026: the released code's word matching and top-k.",
)  # fmt: skip
@click.option("--out", required=True, type=GivenPath(), help="Folder of the balanced dataset.")
@click.option("--overwrite", is_flag=True)
def balance(dataset, tokenizer, revision, max_span_pieces, scoring, out, overwrite) -> None:
    """Write the subset of DATASET whose items a tokenizer can score in every condition."""
    from .builders.balance import balance_dataset

    folder = balance_dataset(
        dataset, tokenizer, out, max_span_pieces=max_span_pieces, scoring=scoring,
        revision=revision, overwrite=overwrite,
    )  # fmt: skip
    click.echo(f"wrote {folder}")


@main.command()
@click.option("--dataset", required=True, type=GivenPath(exists=True, file_okay=False))
@click.option("--per-split", required=True, type=click.IntRange(min=1),
              help="Rows kept of each split of each config (MultiBLiMP: 100 pairs per "
              "phenomenon).")  # fmt: skip
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the draw.")
@click.option("--out", required=True, type=GivenPath(), help="Folder of the capped dataset.")
@click.option("--overwrite", is_flag=True)
def cap(dataset, per_split, seed, out, overwrite) -> None:
    """Write the subset of DATASET with at most N rows in each split of each config (each
    phenomenon of each language, for minimal pairs), drawn by seed; the same sentences in
    every split of a config whose splits are conditions of one sentence."""
    from .builders.balance import cap_dataset

    folder = cap_dataset(dataset, per_split, out, seed=seed, overwrite=overwrite)
    click.echo(f"wrote {folder}")


@main.command("clams-generate")
@click.argument("grammar_dir", type=GivenPath(exists=True, file_okay=False))
@click.argument("out_dir", type=GivenPath(file_okay=False))
def clams_generate(grammar_dir, out_dir) -> None:
    """Generate OUT_DIR/<construction>.txt (label TAB sentence) from each attribute-varying
    grammar GRAMMAR_DIR/<construction>.avg, read after GRAMMAR_DIR/common.avg."""
    from .grammar import write_evalsets

    written = write_evalsets(grammar_dir, out_dir)
    for path in written:
        click.echo(f"wrote {path}")


@main.command("lm-eval-tasks")
@click.argument("dataset", type=GivenPath())
@click.option(
    "--out",
    required=True,
    type=GivenPath(),
    help="Folder for the task group: the harness's --include_path.",
)
@click.option("--hub-id", help="Tasks read this Hub dataset repo (OWNER/NAME), not the folder.")
@click.option(
    "--revision", help="With --hub-id: the revision read (default: the tag v<version> of push)."
)
@click.option(
    "--max-length-of",
    type=NAME_OR_PATH,
    help="A model (Hub id or folder): leave out the rows whose choices are longer than its "
    "context, which stop the harness; counted in each task's metadata.",
)
@click.option("--overwrite", is_flag=True, help="Replace an existing task folder.")
def lm_eval_tasks(dataset, out, hub_id, revision, max_length_of, overwrite) -> None:
    """Write an lm-evaluation-harness task group for a built DATASET folder into OUT/<group>,
    pinned to the dataset's version: clams minimal pairs, perturbed-ud orig-vs-perturbed
    choices, and per-split perplexity (``lm_eval --include_path OUT --tasks <group>``). The
    tasks read copies of the dataset's Parquet files in OUT/<group>/data, each named by its
    sha256, so a later rebuild of DATASET does not change what they score."""
    import yaml

    from .data.lm_eval_tasks import write_tasks

    folder = write_tasks(dataset, out, hub_id=hub_id, revision=revision,
                         max_length_of=max_length_of, overwrite=overwrite)  # fmt: skip
    tasks = len(list(folder.glob("*.yaml"))) - 1
    click.echo(f"wrote {folder}: group {folder.name}, {tasks} tasks")
    if max_length_of:
        group = yaml.safe_load((folder / f"{folder.name}.yaml").read_text(encoding="utf-8"))
        left_out = group["metadata"]["left_out"]
        click.echo(f"left out {left_out['rows']} rows: {left_out['reason']}")
    click.echo(
        "run: lm_eval --model hf --model_args pretrained=MODEL --include_path "
        f"{shlex.quote(str(out))} --tasks {shlex.quote(folder.name)}"
    )


@main.command("export-conllu")
@click.argument("folder", type=GivenPath(exists=True, file_okay=False))
@click.option("--config", required=True, help="A config of the dataset, e.g. en_seed1.")
@click.option("--split", default="nonce", show_default=True)
@click.option("--out", required=True, type=GivenPath(dir_okay=False), help="A .conllu file.")
def export_conllu(folder, config, split, out) -> None:
    """Write one split of a built dataset FOLDER (one with every CoNLL-U column, e.g. spud)
    back as a CoNLL-U treebank."""
    from .data.export import export_conllu as run

    n = run(folder, config, split, out)
    click.echo(f"wrote {out} ({n} sentences)")


@main.command()
@click.argument("dataset", type=GivenPath())
@click.option("--sample", type=click.IntRange(min=1), default=50, show_default=True,
              help="Sentences per config, each with a replaced word.")  # fmt: skip
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the draw.")
@click.option("--config", "configs", multiple=True, callback=_comma_list,
              help="Configs, comma-separated or repeated (default: all).")  # fmt: skip
@click.option("--out", required=True, type=GivenPath(), help="Folder for the sheet.")
@click.option("--overwrite", is_flag=True, help="Replace a sheet already in --out.")
def review(dataset, sample, seed, configs, out, overwrite) -> None:
    """Write a review sheet of a spud DATASET folder for native speakers: OUT/review.html
    (each original above its nonce version, replaced words highlighted with UPOS and FEATS)
    and OUT/review.csv, whose judgement column they fill in. A sentence appears at most once
    per language; `review-score` reads the marked sheet."""
    from .api import review as write_review

    folder = write_review(dataset, out, sample=sample, seed=seed, configs=configs,
                          overwrite=overwrite)  # fmt: skip
    click.echo(f"wrote {folder / 'review.html'} and {folder / 'review.csv'}")


@main.command("review-score")
@click.argument("marked", type=GivenPath(exists=True, dir_okay=False))
@click.option("--out", type=GivenPath(), help="Folder for grammaticality.csv, .md and .json.")
def review_score(marked, out) -> None:
    """The grammatical share per language of a marked review sheet (review.csv), with its
    Wilson 95 % interval. Judgements: grammatical (g, yes, 1), ungrammatical (u, no, 0),
    unsure (?); unsure and blank rows are counted but left out of the denominator."""
    from .evaluation.reporting.review import score_sheet, scores_markdown, write_scores

    table = score_sheet(marked)
    click.echo(scores_markdown(table))
    if out:
        for path in write_scores(table, marked, out):
            click.echo(f"wrote {path}")


if __name__ == "__main__":
    main()
