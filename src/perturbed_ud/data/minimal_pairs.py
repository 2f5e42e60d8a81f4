"""The columns every minimal-pair family writes and `evaluate minimal-pair` and the lm-eval
``minimal_pair`` tasks read: both sentences, the changed words and their word positions.
Declared once, so that a family and its readers cannot drift apart; each family adds its
own provenance columns around them."""

from datasets import List, Value

PAIR_FEATURES = {
    "sentence_good": Value("string"),
    "sentence_bad": Value("string"),
    "good_form": Value("string"),
    "bad_form": Value("string"),
    "good_positions": List(Value("int32")),  # the changed words among space-separated words
    "bad_positions": List(Value("int32")),
}
# What a minimal-pair reader needs: the pair's id, the phenomenon it is grouped by, the pair.
PAIR_COLUMNS = ("pair_id", "construction", *PAIR_FEATURES)


class MinimalPairs:
    """A family of minimal pairs (a mixin before its `DatasetFamily` base): the tasks that
    read its datasets, named once for every such family."""

    tasks = ("minimal-pair",)
    lm_eval_tasks = ("minimal_pair",)
