"""What a local_structure run compares across settings: per config × setting, the mean chrF,
IDC and compression of the texts a model read, the setting's perturbation type and script;
and the Spearman correlation of a performance column with those measures, over all settings,
per language and per script (Clouâtre et al. 2022, Tables 2-3). Shared by ``classify``
(accuracy) and ``score`` (perplexity).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ..reporting.figures import plot_performance_vs_measure
from ..reporting.tables import write_table
from ..running.task import with_config_and_split

MEASURES = ("chrf", "idc", "compression")
# The key columns of a per-setting row (`setting_rows`) and of a correlation row
# (`setting_correlations`), as `report` names their conditions.
SETTING_KEYS = ("config", "split", "unit", "method", "type", "script", "rho", "seed")
CORRELATION_KEYS = ("level", "group", "performance", "measure")
# The script of a language's texts, by ISO 639 code; others are "unknown".
_LANGS_OF_SCRIPT = {
    "Latin": "af ca cs cy da de en es et eu fi fr ga gl hr hu id is it lt lv mt nl no nb nn pl "
    "pt ro sk sl sq sv sw tl tr vi wo yo",
    "Cyrillic": "be bg kk ky mk ru sr uk",
    "Han": "zh lzh yue",
    "Arabic": "ar fa ps ug ur",
    "Hebrew": "he yi",
    "Devanagari": "hi mr ne sa",
    "Japanese": "ja",
    "Hangul": "ko",
    "Greek": "el",
    "Armenian": "hy",
    "Georgian": "ka",
    "Thai": "th",
    "Tamil": "ta",
    "Telugu": "te",
    "Bengali": "bn",
}
SCRIPTS = {lang: script for script, langs in _LANGS_OF_SCRIPT.items() for lang in langs.split()}


def script_of(lang: str | None) -> str:
    """The script of a language code (``en``, ``zh-Hans``, ``fr_gsd``); "unknown" if not known."""
    if not isinstance(lang, str) or not lang:
        return "unknown"
    return SCRIPTS.get(lang.replace("-", "_").split("_")[0].lower(), "unknown")


def perturbation_type(unit, method) -> str:
    """The paper's perturbation types: unperturbed, or unit × full / phrase / neighbour."""
    if not isinstance(unit, str) or not isinstance(method, str):
        return "unperturbed"
    family = {"full_shuffle": "full", "phrase_shuffle": "phrase"}.get(method, "neighbour")
    return f"{unit} {family}"


def _first(values: pd.Series):
    values = values.dropna()
    return values.iloc[0] if len(values) else None


def setting_rows(scored: pd.DataFrame, text_columns, performance) -> pd.DataFrame:
    """One row per config × split (= setting): what the setting is, its language and
    script, ``performance(rows)`` (a dict of columns), and the mean chrF, IDC and
    compression of the rows (averaged over the text columns)."""
    scored = with_config_and_split(scored)
    for measure in MEASURES:
        names = [f"{c}_{measure}" for c in text_columns if f"{c}_{measure}" in scored]
        scored[measure] = scored[names].astype(float).mean(axis=1) if names else np.nan
    rows = []
    for (config, split), group in scored.groupby(["config", "split"], sort=True):
        row = {"config": config, "split": split}
        for column in ("lang", "seed", "unit", "method", "rho"):
            row[column] = _first(group[column]) if column in group else None
        row["type"] = perturbation_type(row["unit"], row["method"])
        row["script"] = script_of(row["lang"])
        row |= performance(group)
        for measure in MEASURES:
            values = group[measure].dropna()
            row[measure] = float(values.mean()) if len(values) else float("nan")
        rows.append(row)
    return pd.DataFrame(rows)


def setting_correlations(table: pd.DataFrame, performance: str) -> pd.DataFrame:
    """Spearman's ρ of ``performance`` (a column of a per-setting table) with the mean chrF,
    IDC and compression of the settings: over all settings, per language and per script.
    Fewer than three settings, or a constant column, give NaN."""
    from scipy.stats import spearmanr

    groups = [("all", "all", table)]
    for level, column in (("language", "lang"), ("script", "script")):
        for value, group in table.groupby(column, sort=True, dropna=False):
            groups.append((level, str(value), group))
    rows = []
    for level, value, group in groups:
        for measure in MEASURES:
            pairs = group[[performance, measure]].astype(float).dropna()
            rho = p = float("nan")
            if len(pairs) >= 3:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    result = spearmanr(pairs[performance], pairs[measure])
                rho, p = float(result.statistic), float(result.pvalue)
            rows.append(
                {
                    "level": level,
                    "group": value,
                    "performance": performance,
                    "measure": measure,
                    "settings": len(pairs),
                    "spearman_rho": rho,
                    "p_value": p,
                }
            )
    return pd.DataFrame(rows)


def write_comparison(table: pd.DataFrame, performance: str, model: str, run: Path) -> pd.DataFrame:
    """``correlations.csv``/``.md`` and the figures of ``performance`` against chrF and
    against IDC; the correlations."""
    correlations = setting_correlations(table, performance)
    write_table(correlations, run / "correlations.csv", markdown=True)
    for measure, name in (("chrf", "chrF"), ("idc", "IDC")):
        if table[measure].notna().any():
            plot_performance_vs_measure(
                table, performance, measure, name, model, run / f"performance_vs_{measure}.png"
            )
    return correlations
