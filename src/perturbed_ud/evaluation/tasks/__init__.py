"""One module per ``evaluate`` task, each registered in `TASKS` and named in the
``perturbed_ud.tasks`` entry points: masked-word, minimal-pair, score, distance, probe,
classify."""
