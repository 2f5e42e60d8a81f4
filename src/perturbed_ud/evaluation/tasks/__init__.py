"""One module per ``evaluate`` task (masked-word: a package of its files), each registered in
`TASKS` and named in the ``perturbed_ud.tasks`` entry points: masked-word, minimal-pair,
score, distance, probe, classify."""
