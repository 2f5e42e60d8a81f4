"""Evaluation of language models on perturbed-ud datasets, grouped by role: `running` (the
task contract, input checks, the resumable runner), `tasks` (one module per ``evaluate``
task), `measures` (what the tasks compute) and `reporting` (statistics, tables, figures,
pages); `balance` derives the balanced subsets the masked-word task reads."""
