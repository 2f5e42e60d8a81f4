"""One static HTML page comparing finished runs (`result_files`): a table per comparison with
each run's value and interval side by side, the runs' figures side by side, then each run's
signature and provenance.

The page is one self-contained file that opens offline: styles inline, no scripts, figures
embedded as PNG data URIs, and a Content-Security-Policy that lets the browser load nothing
else. Every text taken from the files is escaped (the template autoescapes), so a hostile
run, model or split name shows as text.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from pathlib import Path

from ...errors import InputError
from ...files import guard_output, output_folder, write_text
from ...version import __version__
from .pages import page_template
from .result_files import Estimate, RunResults, read_runs

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class ComparisonRow:
    """One number of several runs: what it is, and each run's value and interval."""

    language: str
    condition: str
    metric: str
    interval: str
    cells: tuple[Estimate | None, ...]  # one per run of the table; None: the run has no value

    @property
    def counts_differ(self) -> bool:
        """Whether the runs' values of this row are computed from different N."""
        return len({cell.n for cell in self.cells if cell is not None}) > 1


@dataclass(frozen=True)
class ComparisonTable:
    """The numbers that runs share one comparison for (task, metric table and data)."""

    title: str
    runs: tuple[str, ...]  # the runs with a value in this table, in the order given
    rows: tuple[ComparisonRow, ...]
    differences: tuple[str, ...]  # the settings its runs differ in: "limit: 20 vs all"

    @property
    def counts_differ(self) -> bool:
        return any(row.counts_differ for row in self.rows)


def write_comparison_page(paths: list[str | Path], out: str | Path) -> Path:
    """Read every run the paths name and write the page to ``out`` (atomically)."""
    out = guard_output(out, paths)
    page = render_page(read_runs(paths))
    output_folder(out.parent)
    write_text(out, page)
    return out


def render_page(runs: list[RunResults]) -> str:
    """The page's HTML; a name the template does not know fails instead of showing blank."""
    return page_template("report_page.html", number=number, count=count).render(
        runs=runs, tables=comparison_tables(runs), figures=figures_by_name(runs),
        version=__version__,
    )  # fmt: skip


def comparison_tables(runs: list[RunResults]) -> list[ComparisonTable]:
    """The estimates of all runs, one table per comparison and one row per (language,
    condition, metric, interval), in the order the runs list them."""
    tables: dict[str, dict[tuple, dict[int, Estimate]]] = {}
    for index, run in enumerate(runs):
        for e in run.estimates:
            key = (e.language, e.condition, e.metric, e.interval)
            tables.setdefault(e.table, {}).setdefault(key, {})[index] = e
    result = []
    for title, rows in tables.items():
        # the rows of one language and condition together (lm-eval's acc beside our accuracy),
        # each group where its first row was
        first = {}
        for language, condition, *_ in rows:
            first.setdefault((language, condition), len(first))
        rows = dict(sorted(rows.items(), key=lambda item: first[item[0][:2]]))
        present = sorted({index for cells in rows.values() for index in cells})
        result.append(
            ComparisonTable(
                title=title,
                runs=tuple(runs[index].name for index in present),
                rows=tuple(
                    ComparisonRow(*key, cells=tuple(cells.get(index) for index in present))
                    for key, cells in rows.items()
                ),
                differences=setting_differences([runs[index] for index in present]),
            )
        )
    return result


def setting_differences(runs: list[RunResults]) -> tuple[str, ...]:
    """The settings whose values are not the same in all the runs, each as its values in the
    runs' order: ``limit: 20 vs all``."""
    settings = [dict(run.settings) for run in runs]
    keys = dict.fromkeys(key for values in settings for key in values)
    return tuple(
        f"{key}: " + " vs ".join(values.get(key, "—") for values in settings)
        for key in keys
        if len({values.get(key) for values in settings}) > 1
    )


def figures_by_name(runs: list[RunResults]) -> dict[str, list[tuple[str, str]]]:
    """Every run's figures (run name, data URI) under their file name and what wrote them, so
    that the same figure of several runs is shown side by side."""
    figures: dict[str, list[tuple[str, str]]] = {}
    for run in runs:
        for path in run.figures:
            title = f"{path.name} · {run.source}"
            figures.setdefault(title, []).append((run.name, png_data_uri(path)))
    return figures


def count(value: float | None) -> str:
    """An N as a whole number, or a dash where the row names none."""
    if value is None or value != value:
        return "—"
    return f"{value:.0f}" if value == int(value) else f"{value:g}"


def number(value: float | None) -> str:
    """Three decimals, or three significant digits where decimals would hide the value."""
    if value is None or value != value:
        return "—"
    if isinstance(value, int):
        return str(value)
    return f"{value:.3f}" if value == 0 or 1e-3 <= abs(value) < 1e5 else f"{value:.3g}"


def png_data_uri(path: Path) -> str:
    """The figure inside the page, so that the page is one file that needs nothing else."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise InputError(f"cannot read {path}: {err.strerror or err}") from None
    if not data.startswith(PNG_SIGNATURE):
        raise InputError(f"{path}: not a PNG image")
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")
