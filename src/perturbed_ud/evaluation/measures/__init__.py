"""What the tasks compute from a model and a sentence: sentence log-probabilities, the
probes and their gold labels and metrics, the local-structure measures."""
