"""Evaluation of language models on perturbed-ud datasets, grouped by role: `running` (the
task contract, input checks, the resumable runner), `tasks` (one module or package per
``evaluate`` task), `measures` (what the tasks compute) and `reporting` (intervals, tables,
figures, pages every task uses); `finetune` trains the classifier that `classify` reads. The
balanced subsets the masked-word task reads are a family derived from a build
(`builders.balance`)."""
