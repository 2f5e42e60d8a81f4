"""Probes: gold trees from real UD sentences, oracle checks of the metric code, a trained
DepProbe against an untrained one, word vectors independent of batching, and `evaluate
probe` end to end on spud and substitution builds with worst-copy drops."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter, deque
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
import torch
from click.testing import CliRunner
from conftest import SHARED_UD, UD_ROOT, ewt_trees
from scipy.stats import spearmanr

from perturbed_ud.cli import main
from perturbed_ud.errors import InputError
from perturbed_ud.evaluation.measures import lamalfa2022_probing as lamalfa2022
from perturbed_ud.evaluation.measures.probe_labels import (
    BASE_RELATIONS,
    UPOS_TAGS,
    base_relation,
    tree_distances,
)
from perturbed_ud.evaluation.measures.probe_metrics import (
    aggregate,
    attachment_counts,
    decode_dependencies,
    depth_root,
    distance_spearman,
    greedy_tree,
    uuas_counts,
)
from perturbed_ud.evaluation.measures.probe_models import (
    Gold,
    ProbeData,
    Training,
    predictions,
    train_probe,
)
from perturbed_ud.evaluation.measures.probe_models import _dev_loss as held_out_loss
from perturbed_ud.evaluation.tasks.probe import COLUMNS, PROTOCOLS, ProbeSettings, Sentences
from perturbed_ud.ud.columns import SentenceColumns
from perturbed_ud.ud.conllu_io import read_conllu

SENTENCES = ewt_trees()


def bfs_distances(heads: list[int]) -> np.ndarray:
    neighbours = {i: set() for i in range(len(heads))}
    for child, head in enumerate(heads):
        if head:
            neighbours[child].add(head - 1)
            neighbours[head - 1].add(child)
    out = np.full((len(heads), len(heads)), -1)
    for start in neighbours:
        out[start, start], queue = 0, deque([start])
        while queue:
            node = queue.popleft()
            for other in neighbours[node]:
                if out[start, other] < 0:
                    out[start, other] = out[start, node] + 1
                    queue.append(other)
    return out


def test_every_gold_tree_is_connected_and_its_distances_are_those_of_a_search():
    for cols in SENTENCES:
        distances = tree_distances(cols.heads)
        assert (distances >= 0).all() and (distances == bfs_distances(cols.heads)).all()
        assert sorted(distances[cols.heads.index(0)])[-1] < len(cols.heads)


@pytest.mark.parametrize("heads", [[0, 0], [2, 1, 0], [0, 5], []])
def test_heads_that_make_no_tree_are_refused(heads):
    with pytest.raises(ValueError, match="not a tree"):
        tree_distances(heads)


def _per_sentence(predict) -> pd.DataFrame:
    """The metric columns of every sentence, with ``predict(gold)`` -> (distances, depths)."""
    rows = []
    for cols in SENTENCES:
        gold = Gold.of(cols.heads, cols.upos, cols.deprels)
        distances, depths = predict(gold)
        found, edges = uuas_counts(distances, gold.distances, cols.upos)
        rows.append({
            "words": len(cols.forms), "one": 1, "uuas_correct": found, "uuas_edges": edges,
            "dspr": distance_spearman(distances, gold.distances),
            "depth_root_correct": int(depth_root(depths, cols.upos) == gold.root),
        })  # fmt: skip
    return pd.DataFrame(rows)


def test_gold_distances_score_perfectly_and_random_ones_do_not():
    perfect = aggregate(_per_sentence(lambda g: (g.distances, g.depths)))
    assert perfect == {"uuas": 1.0, "depth_root_acc": 1.0, "dspr": pytest.approx(1.0)}
    rng = np.random.default_rng(0)

    def noise(gold):
        x = rng.random(gold.distances.shape)
        return x + x.T, rng.random(len(gold.depths))

    chance = aggregate(_per_sentence(noise))
    assert chance["uuas"] < 0.3 and chance["dspr"] < 0.2 and chance["depth_root_acc"] < 0.3


def test_row_spearman_is_scipys_and_resampling_with_unit_counts_is_the_point():
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 5, (7, 7)).astype(float), rng.random((7, 7))
    assert distance_spearman(a, b) == pytest.approx(
        np.mean([spearmanr(x, y).statistic for x, y in zip(a, b, strict=True)])
    )
    table = _per_sentence(lambda g: (g.distances + rng.random(g.distances.shape), g.depths))
    ones = np.ones((3, len(table)))
    for metric, values in aggregate(table, ones).items():
        assert values == pytest.approx([aggregate(table)[metric]] * 3)


def test_depprobe_decoding_rebuilds_the_gold_tree_from_gold_distances():
    for cols in SENTENCES:
        gold = Gold.of(cols.heads, cols.upos, cols.deprels)
        assert greedy_tree(gold.distances, gold.root) == cols.heads
        scores = np.full((len(cols.heads), len(BASE_RELATIONS)), -9.0)
        for i, deprel in enumerate(cols.deprels):
            scores[i, BASE_RELATIONS.index(base_relation(deprel))] = 0.0
        heads, relations = decode_dependencies(gold.distances.astype(float), scores)
        counts = attachment_counts(heads, relations, cols.heads, cols.deprels)
        assert counts == {k: len(cols.heads) for k in ("uas_correct", "las_correct", "rel_correct")}


@pytest.fixture(scope="module")
def vectors(tiny_bert, tmp_path_factory):
    from perturbed_ud.lm.models import load_masked_lm
    from perturbed_ud.lm.word_vectors import word_vectors

    lm = load_masked_lm(str(tiny_bert))
    folder = tmp_path_factory.mktemp("vectors")
    forms = [cols.forms for cols in SENTENCES]
    made = {
        tokens: word_vectors(
            lm,
            forms,
            [1, 2],
            folder / str(tokens),
            key={"tokens": tokens},
            kind="masked",
            bos="prepend",
            max_tokens=tokens,
        )  # fmt: skip
        for tokens in (64, 4096)
    }
    return made


def test_word_vectors_do_not_depend_on_the_batch_size(vectors):
    small, large = vectors[64], vectors[4096]
    assert (small.offsets == large.offsets).all()
    for layer in (1, 2):
        np.testing.assert_allclose(small.layer(layer), large.layer(layer), atol=1e-5)


def test_a_trained_depprobe_learns_relations_and_lowers_its_held_out_loss(vectors):
    """A random model's vectors carry word identity and position, enough for relations (far
    above an untrained probe) but too little of the tree for UAS to tell the two apart; that
    a probe recovers the tree is tested on a trained model (test_directions.py)."""
    gold = [Gold.of(c.heads, c.upos, c.deprels) for c in SENTENCES]
    data = vectors[4096]

    def split(indices):
        return ProbeData(data.layer(2), data.offsets, gold, list(indices))

    train, dev, test = split(range(400)), split(range(400, 450)), split(range(450, len(gold)))

    def relation_accuracy(probe) -> float:
        counts = Counter()
        for i, output in predictions(probe, test, 32, "cpu"):
            counts.update(attachment_counts(*decode_dependencies(*output), SENTENCES[i].heads,
                                            SENTENCES[i].deprels))  # fmt: skip
            counts["words"] += len(SENTENCES[i].heads)
        return counts["rel_correct"] / counts["words"]

    untrained, _ = train_probe("depprobe", train, dev, Training(epochs=1, learning_rate=0.0), 1,
                               "cpu")  # fmt: skip
    training = Training(epochs=20, learning_rate=1e-2)
    trained, record = train_probe("depprobe", train, dev, training, 1, "cpu")
    assert record["best_epoch"] > 1
    assert relation_accuracy(trained) > relation_accuracy(untrained) + 0.2
    # the held-out loss (distance L1 / length² + relation cross entropy) falls by far more
    loss, loss_0 = (held_out_loss(p, test, training, "cpu") for p in (trained, untrained))
    assert loss < 0.5 * loss_0
    short = Training(epochs=2, learning_rate=1e-2)
    first, again = (train_probe("depprobe", train, dev, short, 1, "cpu")[0] for _ in range(2))
    assert all(
        torch.equal(a, b)
        for a, b in zip(first.state_dict().values(), again.state_dict().values(), strict=True)
    )


def probe_arguments(dataset, model, out, *args) -> list[str]:
    """The command line of a short probe run, after the program's name."""
    return ["evaluate", "probe", "--dataset", str(dataset), "--model", str(model),
            "--ud-root", str(UD_ROOT), "--train-split", "dev", "--dev-split", "dev",
            "--epochs", "3", "--probe-seeds", "1,2", "--resamples", "200",
            "--out", str(out), *map(str, args)]  # fmt: skip


def probe_command(dataset, model, out, *args):
    return CliRunner().invoke(main, probe_arguments(dataset, model, out, *args))


def probe_run(dataset, model, out, *args):
    result = probe_command(dataset, model, out, *args)
    assert result.exit_code == 0, result.output
    return json.loads((out / "results.json").read_text())


def build(out, family, *args):
    result = CliRunner().invoke(
        main, ["build", family, "--ud-root", str(UD_ROOT), "--langs", "en", "--seeds", "1",
               "--limit", "40", "--out", str(out), *args],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out / family


@pytest.fixture(scope="module")
def spud(tmp_path_factory):
    """One spud build, read by every probe run on spud."""
    return build(tmp_path_factory.mktemp("spud"), "spud")


def test_probe_runs_on_a_spud_build_original_against_nonce(spud, tmp_path, tiny_bert):
    results = probe_run(spud, tiny_bert, tmp_path / "run", "--layers", "-1")
    summary = pd.DataFrame(results["metrics"]["probe"])
    assert set(summary["metric"]) == {"uuas", "dspr", "root_acc", "depth_root_acc", "nspr",
                                      "pos_acc", "uas", "las", "rel_acc"}  # fmt: skip
    assert set(summary["layer"]) == {2} and set(summary["copies"]) == {1}
    for side in ("original", "perturbed", "drop"):
        assert (summary[f"{side}_lo"] <= summary[f"{side}_hi"]).all()
    assert summary["drop"].to_numpy() == pytest.approx(
        (summary["original"] - summary["perturbed"]).to_numpy()
    )
    assert results["metrics"]["treebanks"]["en"]["code"] == "en_ewt"
    assert (tmp_path / "run" / "probe_summary.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (graphs,) = results["metrics"]["gold_graphs"]  # whole trees: nothing lost
    assert graphs["sentences"] == 40 and graphs["tree_edges"] > 500
    assert {key: value for key, value in graphs.items()
            if key.startswith(("disconnected", "edges_lost"))} == dict.fromkeys(
        ("disconnected", "disconnected_by_cut", "disconnected_by_word1_head",
         "edges_lost_to_cut", "edges_lost_to_word1_head"), 0)  # fmt: skip
    assert {t["probe_seed"] for t in results["metrics"]["training"]} == {1, 2}


def test_a_killed_probe_run_resumes_from_its_probes_and_chunks_and_writes_files_whole(
    spud, tmp_path, tiny_bert, monkeypatch
):
    """As the other tasks: an interrupted run keeps its trained probes and finished chunks;
    the same command trains nothing again, scores only the chunks left and writes what an
    uninterrupted run writes. Every file a run leaves was renamed into place whole (the word
    vectors with their folder). A run resumes only on the treebank files its probes trained
    on."""
    import os
    import shutil

    import perturbed_ud.evaluation.running.runner as runner
    import perturbed_ud.evaluation.tasks.probe as probing

    args = ("--layers", "-1", "--probes", "pos,root", "--probe-seeds", "1")
    whole = probe_run(spud, tiny_bert, tmp_path / "whole", *args)
    real_chunk, chunks = runner._score_chunk, []

    def interrupted_on_the_second_chunk(*chunk):
        chunks.append(chunk)
        if len(chunks) == 2:
            raise KeyboardInterrupt
        return real_chunk(*chunk)

    real_replace, renamed = os.replace, set()

    def replace(source, target):
        renamed.add(Path(target))
        return real_replace(source, target)

    monkeypatch.setattr(runner, "_score_chunk", interrupted_on_the_second_chunk)
    monkeypatch.setattr(os, "replace", replace)
    run = tmp_path / "run"
    result = probe_command(spud, tiny_bert, run, *args)
    assert result.exit_code == 130 and not (run / "results.json").exists()
    assert f"interrupted: 1 of 2 chunks are kept in {run}" in result.stderr
    assert len(list((run / "chunks" / "probes").rglob("*.pt"))) == 2

    def trained_again(*args):
        pytest.fail("a probe the interrupted run kept was trained again")

    monkeypatch.setattr(probing, "train_probe", trained_again)
    result = probe_command(spud, tiny_bert, run, *args)
    assert result.exit_code == 0, result.output
    assert f"resuming {run}: 1 of 2 chunks done, 1 to score" in result.stderr
    assert len(chunks) == 3
    resumed = json.loads((run / "results.json").read_text())
    assert resumed["metrics"] == whole["metrics"]
    for name in ("probe_summary.csv", "probe_gold_graphs.csv", "probe_sentences.parquet"):
        assert (run / name).read_bytes() == (tmp_path / "whole" / name).read_bytes(), name
    left = [p for p in run.rglob("*") if p.is_file()]
    placed = [p for p in left if renamed & {p, *p.parents}]
    assert left and placed == left, sorted(map(str, set(left) - set(placed)))

    ud_root = tmp_path / "ud"
    shutil.copytree(UD_ROOT / "UD_English-EWT", ud_root / "UD_English-EWT")
    dev = ud_root / "UD_English-EWT" / "en_ewt-ud-dev.conllu"
    dev.write_text(dev.read_text().split("\n\n", 1)[1])  # one training sentence less
    result = probe_command(spud, tiny_bert, run, *args, "--ud-root", ud_root)
    assert result.exit_code == 1 and "holds a run with other settings or data" in result.output


def test_probe_takes_the_worst_of_k_substitution_copies(tmp_path, tiny_bert):
    folder = build(tmp_path, "substitution", "--methods", "copos_treebank", "--tau", "1",
                   "--copies", "10")  # fmt: skip
    results = probe_run(folder, tiny_bert, tmp_path / "run", "--probes", "pos,distance",
                        "--probe-seeds", "1")  # fmt: skip
    summary = pd.DataFrame(results["metrics"]["probe"]).set_index("metric")
    assert summary.loc["pos_acc", "copies"] == 10
    scored = pd.read_parquet(tmp_path / "run" / "probe_sentences.parquet")
    per_copy = scored[scored["split"] != "orig"].groupby("split")["pos_correct"].sum()
    worst = summary.loc["pos_acc", "perturbed"] * scored[scored["split"] == "orig"]["words"].sum()
    assert worst <= per_copy.min() + 1e-9


def test_the_robustness_table_puts_drops_beside_distances(tmp_path, tiny_bert):
    folder = build(tmp_path, "substitution", "--methods", "copos_treebank", "--tau", "1",
                   "--copies", "2")  # fmt: skip
    results = probe_run(folder, tiny_bert, tmp_path / "probe", "--probes", "pos",
                        "--probe-seeds", "1", "--layers", "1,2")  # fmt: skip
    distance = CliRunner().invoke(
        main, ["evaluate", "distance", "--dataset", str(folder), "--model", str(tiny_bert),
               "--out", str(tmp_path / "distance")],
    )  # fmt: skip
    assert distance.exit_code == 0, distance.output
    result = CliRunner().invoke(
        main, ["probe-table", str(tmp_path / "probe"), "--distances", str(tmp_path / "distance"),
               "--out", str(tmp_path / "table")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    table = pd.read_csv(tmp_path / "table" / "robustness_table.csv")
    assert list(table["layer"]) == [1, 2]
    assert set(table["perturbation"]) == {"copos_treebank τ=1"} and set(table["corpora"]) == {1}
    drops = {row["layer"]: row["drop"] for row in results["metrics"]["probe"]}
    for _, row in table.iterrows():
        assert row["drop_pos_acc"] == pytest.approx(drops[row["layer"]], abs=5e-4)
    distances = pd.read_csv(tmp_path / "distance" / "distance_summary.csv").set_index("layer")
    for _, row in table.iterrows():
        assert row["l2_mean"] == pytest.approx(distances.loc[row["layer"], "l2_mean"], abs=5e-4)
    wrong = CliRunner().invoke(main, ["probe-table", str(tmp_path / "distance"),
                                      "--out", str(tmp_path / "t2")])  # fmt: skip
    assert wrong.exit_code == 1 and "is an `evaluate distance` run, not probe" in wrong.output


def test_the_released_gold_trees_lose_every_edge_headed_by_word_1():
    """lamalfa2022: distances over the first 20 words without the edges whose head is word 1
    (or beyond word 20), unreachable pairs at 0; a search over those edges agrees."""
    disconnected = 0
    for cols in SENTENCES:
        kept = [0 if h == 1 or h > 20 else h for h in cols.heads[:20]]
        expected = np.maximum(bfs_distances(kept), 0)
        damaged = lamalfa2022.damaged_distances(cols.heads)
        assert (damaged == expected).all()
        disconnected += bool((damaged + np.eye(len(damaged), dtype=int) == 0).any())
        if 1 in cols.heads[1:20]:
            assert (damaged[0] == 0).sum() > 1  # word 1 is cut off from its dependents
    assert 0.2 < disconnected / len(SENTENCES) < 0.6


def released_reader(lines: list[str], lowest_head: int = 1) -> tuple[list[str], np.ndarray]:
    """The released data.py's conll2matrix on a sentence's token lines, written again from its
    logic: the first 20 lines; a line whose ID is not a whole number (a multiword token, an
    empty node) counts but is skipped; an edge where ``lowest_head <= HEAD-1 < 20`` (1: the
    released off-by-one; 0: mended); Floyd-Warshall over 20 ids with 999, then 999 -> 0."""
    words, distances = [], np.full((20, 20), 999)
    for line in lines[:20]:
        cols = line.split("\t")
        if not cols[0].isdigit():
            continue
        words.append(cols[1])
        child, head = int(cols[0]) - 1, int(cols[6]) - 1
        if lowest_head <= head < 20:
            distances[child, head] = distances[head, child] = 1
    np.fill_diagonal(distances, 0)
    for k in range(20):
        distances = np.minimum(distances, distances[:, [k]] + distances[[k], :])
    distances[distances >= 999] = 0
    return words, distances


def token_lines(cols: SentenceColumns) -> list[str]:
    return [line for line in cols.to_lines() if not line.startswith("#")]


def released_gold_graphs(sentences: list[SentenceColumns]) -> dict:
    """Per the released reader, what the gold graphs lack (probing.GOLD_GRAPH_COUNTS): a
    graph disconnected even with the off-by-one mended is the cut's doing."""
    counts = dict.fromkeys(("sentences", "disconnected", "disconnected_by_cut",
                            "disconnected_by_word1_head", "tree_edges", "edges_lost_to_cut",
                            "edges_lost_to_word1_head"), 0)  # fmt: skip
    for cols in sentences:
        words, released = released_reader(token_lines(cols))
        mended = released_reader(token_lines(cols), lowest_head=0)[1]
        n = len(words)
        off_diagonal = ~np.eye(n, dtype=bool)
        disconnected = bool((released[:n, :n][off_diagonal] == 0).any())
        by_cut = bool((mended[:n, :n][off_diagonal] == 0).any())
        edges = sum(h != 0 for h in cols.heads)
        word1 = sum(h == 1 for h in cols.heads[:n])
        kept = int(np.triu(released[:n, :n] == 1).sum())
        found = {"sentences": 1, "disconnected": disconnected, "disconnected_by_cut": by_cut,
                 "disconnected_by_word1_head": disconnected and not by_cut, "tree_edges": edges,
                 "edges_lost_to_cut": edges - kept - word1,
                 "edges_lost_to_word1_head": word1}  # fmt: skip
        for key, value in found.items():
            counts[key] += value
    return counts


def lamalfa2022_sentences(sentences: list[SentenceColumns]) -> Sentences:
    columns = ([getattr(c, name) for c in sentences] for name in COLUMNS)
    return Sentences.of(*columns, PROTOCOLS["lamalfa2022"])


UD_SAMPLES = [
    UD_ROOT / "UD_English-PUD" / "en_pud-ud-test.conllu",
    *(UD_ROOT / "UD_English-EWT" / f"en_ewt-ud-{split}.conllu" for split in ("dev", "test")),
]


def test_the_released_cut_counts_multiword_token_and_empty_node_lines():
    """lamalfa2022 keeps the words among a sentence's first 20 lines (``3-4 du`` counts) and
    the released reader's 20 × 20 gold grid, as the reader written again here has them."""
    sentences = [SentenceColumns.from_sentence(s) for path in UD_SAMPLES for s in read_conllu(path)]
    cut = lamalfa2022_sentences(sentences)
    shorter = 0
    for i, cols in enumerate(sentences):
        words, grid = released_reader(token_lines(cols))
        assert cut.forms[i] == words, cols.sent_id
        assert (lamalfa2022.released_grid(cut.heads[i]) == grid).all(), cols.sent_id
        shorter += len(words) < min(len(cols.forms), 20)
    assert shorter > 20  # multiword tokens and empty nodes among the first 20 lines


def test_most_pud_gold_graphs_are_disconnected_by_the_cut_not_the_word_1_bug():
    from perturbed_ud.evaluation.tasks.probe import gold_graph_losses

    pud = next(f for f in (SHARED_UD / "UD_English-PUD", UD_ROOT / "UD_English-PUD") if f.is_dir())
    sentences = [SentenceColumns.from_sentence(s) for s in read_conllu(next(pud.glob("*.conllu")))]
    counts = Counter()
    for cols, gold in zip(sentences, lamalfa2022_sentences(sentences).gold, strict=True):
        counts.update(gold_graph_losses(cols.heads, gold))
    assert dict(counts) == released_gold_graphs(sentences)
    assert counts["disconnected_by_cut"] > 2 * counts["disconnected_by_word1_head"] > 0
    assert counts["edges_lost_to_cut"] > 10 * counts["edges_lost_to_word1_head"] > 0


def test_the_released_metrics_count_padding_cells():
    """Gold distances score SDR and cell UUAS 1.0; predicting 0 everywhere still scores
    the padding and diagonal cells, so SDR rewards short sentences."""
    short = next(c for c in SENTENCES if len(c.forms) == 5)
    gold = lamalfa2022.gold(short.heads, short.upos, short.deprels)
    perfect = lamalfa2022.sentence_metrics("distance", gold.distances.astype(float), gold,
                                           short.upos, short.heads, short.deprels)  # fmt: skip
    assert perfect["sdr_equal"] == perfect["cells"] == 400
    assert perfect["cell_uuas_found"] == perfect["cell_uuas_gold"] > 0
    zeros = lamalfa2022.sentence_metrics("distance", np.zeros((5, 5)), gold, short.upos,
                                         short.heads, short.deprels)  # fmt: skip
    assert zeros["sdr_equal"] / zeros["cells"] >= (400 - 20) / 400
    assert zeros["cell_uuas_found"] == 0
    tags = np.eye(len(UPOS_TAGS))[[UPOS_TAGS.index("X")] * 5]
    pos = lamalfa2022.sentence_metrics("pos", tags, gold, short.upos, short.heads, short.deprels)
    assert pos == {"pos_correct_padded": 15 + short.upos.count("X"), "slots": 20}


def test_the_protocol_option_offers_exactly_the_protocols():
    (protocol,) = [f for f in dataclasses.fields(ProbeSettings) if f.name == "protocol"]
    assert set(protocol.metadata["choices"]) == set(PROTOCOLS)
    with pytest.raises(InputError, match="--protocol: 'papers' is not one of"):
        ProbeSettings(protocol="papers")


def test_the_lamalfa2022_protocol_runs_with_its_metrics_named_as_released(
    spud, tmp_path, tiny_bert
):
    folder = spud
    refused = CliRunner().invoke(
        main, ["evaluate", "probe", "--dataset", str(folder), "--model", str(tiny_bert),
               "--protocol", "lamalfa2022", "--ud-root", str(UD_ROOT), "--train-split", "dev",
               "--dev-split", "dev", "--out", str(tmp_path / "refused")],
    )  # fmt: skip
    assert refused.exit_code == 1
    assert "layers [-5, -9] do not exist: the model has hidden states 0..2" in refused.output
    results = probe_run(folder, tiny_bert, tmp_path / "run", "--protocol", "lamalfa2022",
                        "--layers", "-1", "--probes", "distance,pos,root,depth")  # fmt: skip
    summary = pd.DataFrame(results["metrics"]["probe"]).set_index("metric")
    assert set(summary.index) == {"sdr", "cell_uuas", "spearman_pooled", "pos_acc", "root_acc",
                                  "depth_acc"}  # fmt: skip
    assert summary["definition"].str.len().min() > 20
    assert summary.loc["spearman_pooled", "drop"] == pytest.approx(
        summary.loc["spearman_pooled", "original"] - summary.loc["spearman_pooled", "perturbed"]
    )
    assert results["metrics"]["protocol"] == "lamalfa2022"
    assert set(results["metrics"]["departures_from_correct_definitions"]) >= set(summary.index)
    scored = pd.read_parquet(tmp_path / "run" / "probe_sentences.parquet")
    assert scored["words"].max() == 20 and (scored["cells"].dropna() == 400).all()
    orig = pq.read_table(next((folder / "en_seed1").glob("orig-*.parquet"))).to_pylist()
    expected = released_gold_graphs([SentenceColumns.from_row(row) for row in orig])
    assert results["metrics"]["gold_graphs"] == [{"config": "en_seed1", "lang": "en", **expected}]
    assert expected["disconnected"] > 0 and expected["edges_lost_to_cut"] > 0
    table = (tmp_path / "run" / "probe_gold_graphs.md").read_text()
    assert "disconnected_by_cut" in table and "en_seed1" in table
    depprobe = CliRunner().invoke(
        main, ["evaluate", "probe", "--dataset", str(folder), "--model", str(tiny_bert),
               "--protocol", "lamalfa2022", "--probes", "depprobe", "--out", str(tmp_path / "d")],
    )  # fmt: skip
    assert depprobe.exit_code == 1
    assert "the lamalfa2022 protocol's probes are distance, depth, pos, root" in depprobe.output


@pytest.mark.parametrize("protocol", ["paper", "lamalfa2022"])
def test_a_run_of_the_original_split_alone_has_nothing_to_compare(
    spud, tmp_path, tiny_bert, protocol
):
    results = probe_run(spud, tiny_bert, tmp_path / "run", "--protocol",
                        protocol, "--layers", "-1", "--probes", "distance", "--probe-seeds",
                        "1", "--splits", "orig", "--config", "en_seed1")  # fmt: skip
    assert results["metrics"]["probe"] == []
    scored = pd.read_parquet(tmp_path / "run" / "probe_sentences.parquet")
    assert set(scored["split"]) == {"orig"} and len(scored) == 40
