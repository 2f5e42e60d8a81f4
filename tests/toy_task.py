"""A toy evaluation task, whole: how many words of each sentence are long. The tests register
it as a lab's package would through its entry point (test_task_contract.py)."""

from __future__ import annotations

from dataclasses import dataclass

from perturbed_ud.evaluation.reporting.statistics import wilson_interval
from perturbed_ud.evaluation.running.task import EvaluationTask, Outputs, Scored
from perturbed_ud.settings import setting


@dataclass(frozen=True, kw_only=True)
class CountSettings:
    """What shapes a toy count."""

    words_column: str = setting("The column of each row's words.", default="forms")
    longer_than: int = setting("Count the words longer than this.", default=3, minimum=0)
    lowercase: bool = setting("Compare lower-cased words.", default=False)


def count_words(batch, rank=None, *, model: str, revision, device: str, settings: dict):
    """`datasets.map` function: the words of each row longer than the threshold."""
    options = CountSettings(**settings)
    words = batch[options.words_column]
    return {"long_words": [sum(len(w) > options.longer_than for w in row) for row in words]}


class ToyCount(EvaluationTask):
    """Toy: how many words of each sentence are long."""

    name = "toy-count"
    version = "1.0.0"
    settings_class = CountSettings
    score = staticmethod(count_words)
    reads = ("spud",)
    key_columns = ("split",)

    @classmethod
    def columns(cls, settings: CountSettings) -> tuple[str, ...]:
        return (settings.words_column,)

    @classmethod
    def outputs(cls, scored: Scored) -> Outputs:
        """The long words, and their share per split with an interval, which `report`
        compares across runs."""
        rows = scored.rows.assign(words=scored.rows[scored.settings.words_column].map(len))
        per_split = rows.groupby("split_key")[["long_words", "words"]].sum()
        share = per_split["long_words"] / per_split["words"]
        low, high = wilson_interval(share, per_split["words"])
        shares = [
            {"split": split, "long_share": share[split], "long_share_lo": lo,
             "long_share_hi": hi, "n": int(n), "interval": "Wilson 95%"}
            for split, n, lo, hi in zip(per_split.index, per_split["words"], low, high,
                                        strict=True)
        ]  # fmt: skip
        metrics = {"long_words": int(rows["long_words"].sum()), "long_share": shares}
        return Outputs(metrics, counts={"rows": len(rows)})
