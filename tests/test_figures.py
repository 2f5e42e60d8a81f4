"""What a reader of the figures sees: a title that says what is plotted and which interval the
error bars are, the model and N, legends clear of titles and bars, a chance line for minimal
pairs, one colour per condition in every figure, n/a explained, plain-number ticks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from perturbed_ud.data.conditions import DEFAULT_CONDITIONS
from perturbed_ud.evaluation.reporting import figures as plots
from perturbed_ud.evaluation.tasks.masked_word import figures as mw_plots

LANGS = ["de", "en"]
INTERVAL = "bootstrap 95 % over sentences (B = 200, seed 1)"


def accuracy_table() -> pd.DataFrame:
    rows = []
    for lang in LANGS:
        for i, condition in enumerate(DEFAULT_CONDITIONS.labels):
            value = 0.5 - 0.05 * i
            rows.append({"model_name": "m", "lang": lang, "condition": condition,
                         "word_at_1": value, "word_at_1_lo": value - 0.05,
                         "word_at_1_hi": value + 0.05, "N": 300 + 10 * i,
                         "interval": "Wilson 95 %"})  # fmt: skip
    return pd.DataFrame(rows)


def effects_table() -> pd.DataFrame:
    table = pd.DataFrame({"model_name": "m", "lang": LANGS, "N": [300, 120]})
    for column in ("S_full", "S_part", "S_head", "S_L", "I_full", "I_part", "I_head",
                   "part_minus_head"):  # fmt: skip
        table[column] = [0.4, 0.2]
        table[f"{column}_lo"], table[f"{column}_hi"] = [0.3, -3.0], [0.5, 0.6]
    table.loc[1, ["S_head", "S_head_lo", "S_head_hi"]] = np.nan  # e.g. A_Orig = 0
    return table.assign(interval=INTERVAL)


def bar_colours(fig: Figure) -> dict[str, str]:
    """Legend label -> the colour of its bars."""
    return {
        bars.get_label(): to_hex(bars.patches[0].get_facecolor())
        for bars in fig.axes[0].containers
        if hasattr(bars, "patches")
    }


def tick_labels(fig: Figure, axis: str = "x") -> list[str]:
    fig.canvas.draw()
    ax = fig.axes[0]
    return [t.get_text() for t in (ax.get_xticklabels() if axis == "x" else ax.get_yticklabels())]


@pytest.fixture
def figures(tmp_path):
    return {
        "accuracy": mw_plots.plot_accuracy(accuracy_table(), tmp_path / "accuracy.png"),
        **{
            name: mw_plots.plot_effects(effects_table(), tmp_path / f"{name}.png", figure=name)
            for name in ("sensitivity", "interaction", "head_vs_part")
        },
    }


def test_each_condition_has_one_colour_in_every_figure(figures):
    accuracy, sensitivity, interaction = (
        bar_colours(figures[n]) for n in ("accuracy", "sensitivity", "interaction")
    )
    assert len(set(accuracy.values())) == len(accuracy) == 8, accuracy
    for order in ("Full", "Part", "Head"):
        assert accuracy[order] == sensitivity[order] == interaction[f"{order} × L"], order
        assert accuracy[f"{order}+L"] != accuracy[order]
    assert sensitivity["+L"] not in {accuracy[o] for o in ("Full", "Part", "Head")}


def test_titles_name_the_interval_and_ticks_the_n(figures):
    assert "error bars: Wilson 95 %" in figures["accuracy"]._suptitle.get_text()
    for name in ("sensitivity", "interaction", "head_vs_part"):
        assert f"error bars: {INTERVAL}" in figures[name]._suptitle.get_text()
        assert tick_labels(figures[name]) == ["de\nN = 300", "en\nN = 120"]
    assert tick_labels(figures["accuracy"]) == ["de\nN = 300–370", "en\nN = 300–370"]
    assert all(fig.axes[0].get_title() == "m" for fig in figures.values())


def test_legends_stay_clear_of_titles_bars_and_the_edge(figures):
    for name, fig in figures.items():
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        whole = fig.bbox
        boxes = {"title": fig._suptitle.get_window_extent(renderer)}
        boxes |= {f"panel {i}": ax.get_window_extent(renderer) for i, ax in enumerate(fig.axes)}
        for legend in fig.legends:
            box = legend.get_window_extent(renderer)
            assert whole.x0 <= box.x0 and box.x1 <= whole.x1 and whole.y0 <= box.y0, name
            for what, other in boxes.items():
                assert not box.overlaps(other), f"{name}: legend overlaps the {what}"
    assert not figures["head_vs_part"].legends, "one series: the title names it"


def test_missing_values_are_marked_and_explained(figures):
    fig = figures["sensitivity"]
    assert [t.get_text() for t in fig.axes[0].texts] == ["n/a"]
    note = fig.axes[0].get_xlabel()
    assert note.startswith("n/a: condition not scored for the language;")
    assert "intervals below -1 are cut at the axis" in note
    assert fig.axes[0].get_ylim()[0] == -1.0
    assert not figures["interaction"].axes[0].texts


def test_an_effect_undefined_at_a_zero_original_accuracy_says_so_inside_the_axes(tmp_path):
    """German with A_Orig = 0 has no S and no I: the note gives that reason, not "not
    scored", and each n/a label lies within the axes even where its group has no bar."""
    table = effects_table().assign(A_orig=[0.0, 0.4])
    for column in ("S_full", "S_part", "S_head", "S_L", "I_full", "I_part", "I_head"):
        table.loc[0, [column, f"{column}_lo", f"{column}_hi"]] = np.nan
    fig = mw_plots.plot_effects(table, tmp_path / "interaction.png", figure="interaction")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "n/a: A_Orig = 0, so S and I are undefined"
    low, high = ax.get_xlim()
    assert [t.get_text() for t in ax.texts] == ["n/a"] * 3
    assert all(low < t.get_position()[0] < high for t in ax.texts)

    mixed = effects_table()
    mixed.loc[0, ["S_full", "S_full_lo", "S_full_hi"]] = np.nan
    note = plots.grouped_bars(
        mixed, {"S_full": "Full", "S_head": "Head"}, tmp_path / "s.png", title="t", ylabel="S",
        missing=lambda row, column: f"{column} of {row.name} missing",
    ).axes[0].get_xlabel()  # fmt: skip
    assert note == "n/a (de): S_full of de missing; n/a (en): S_head of en missing"


def test_minimal_pair_accuracy_has_a_chance_line(tmp_path):
    table = accuracy_table().rename(columns={"condition": "construction"})
    wide = table.pivot(index=["model_name", "lang"], columns="construction", values="word_at_1")
    for suffix in ("lo", "hi"):
        wide = wide.join(wide.add_suffix(f"_{suffix}")[[f"{c}_{suffix}" for c in wide.columns]])
    fig = plots.grouped_bars(
        wide.reset_index(), {c: c for c in table["construction"].unique()}, tmp_path / "a.png",
        title="t", ylabel="accuracy", chance=0.5,
    )  # fmt: skip
    lines = [line for line in fig.axes[0].lines if line.get_label() == "chance"]
    assert len(lines) == 1 and list(lines[0].get_ydata()) == [0.5, 0.5]
    assert "chance" in [t.get_text() for t in fig.legends[0].get_texts()]


@pytest.mark.parametrize("spread", [0.03, 0.4, 2.0])
def test_nonce_ratio_ticks_read_as_plain_numbers(tmp_path, spread):
    rng = np.random.default_rng(0)
    paired = pd.DataFrame(
        {"config": ["en_seed1"] * 200 + ["fr_seed1"] * 100,
         "ratio": np.exp(rng.normal(0.1, spread, 300))}
    )  # fmt: skip
    summary = pd.DataFrame({"config": ["en_seed1", "fr_seed1"], "N": [200, 100],
                            "wilcoxon_p": [3.2e-5, 0.41], "measure": "PPL",
                            "model_name": "gpt2-tiny"})  # fmt: skip
    fig = plots.plot_nonce_ratios(paired, summary, tmp_path / "nonce_ratio.png")
    assert "gpt2-tiny" in fig._suptitle.get_text()
    assert tick_labels(fig) == ["en_seed1\nN = 200\np = 3.2e-05", "fr_seed1\nN = 100\np = 0.41"]
    numbers = [label for label in tick_labels(fig, "y") if label]
    assert len(numbers) >= 3
    assert all(float(label) > 0 for label in numbers), numbers  # no 6×10⁻¹
    assert "Wilcoxon" in fig.axes[0].get_xlabel()
    assert (tmp_path / "nonce_ratio.png").stat().st_size > 0


def test_an_all_zero_accuracy_plot_does_not_run_below_zero(tmp_path):
    zeros = accuracy_table().assign(word_at_1=0.0, word_at_1_lo=0.0, word_at_1_hi=0.0)
    fig = mw_plots.plot_accuracy(zeros, tmp_path / "accuracy.png")
    assert fig.axes[0].get_ylim()[0] == 0.0


def performance_table() -> pd.DataFrame:
    """Accuracies of a classifier under each perturbation type, with Wilson-like intervals."""
    kinds = list(plots.PERTURBATION_STYLES)
    return pd.DataFrame({"type": kinds, "lang": "en", "N": 24,
                         "chrf": np.linspace(100, 20, len(kinds)),
                         "accuracy": np.linspace(0.9, 0.3, len(kinds))}).assign(
        accuracy_lo=lambda t: t["accuracy"] - 0.2, accuracy_hi=lambda t: t["accuracy"] + 0.1
    )  # fmt: skip


def test_the_perturbation_legend_sits_beside_the_points_and_error_bars(tmp_path):
    fig = plots.plot_performance_vs_measure(
        performance_table(), "accuracy", "chrf", "chrF", "m", tmp_path / "chrf.png"
    )
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    (legend,) = fig.legends
    box = legend.get_window_extent(renderer)
    assert not box.overlaps(fig.axes[0].get_window_extent(renderer))
    assert fig.bbox.x0 <= box.x0 and box.x1 <= fig.bbox.x1


def test_the_probe_figure_names_the_model_and_the_dataset(tmp_path):
    summary = pd.DataFrame({"config": "en_seed1", "layer": 1, "metric": ["uuas", "dspr"],
                            "sentences": 10, "original": [0.4, 0.5], "original_lo": 0.3,
                            "original_hi": 0.6, "perturbed": [0.3, 0.4], "perturbed_lo": 0.2,
                            "perturbed_hi": 0.5, "interval": INTERVAL})  # fmt: skip
    model, dataset = tmp_path / "trained-bert", "someone/spud"
    model.mkdir()
    fig = plots.plot_probe_summary(summary, tmp_path / "probe.png", model=str(model),
                                   dataset=dataset)  # fmt: skip
    title = fig._suptitle.get_text()
    assert "trained-bert on someone/spud" in title and str(tmp_path) not in title
