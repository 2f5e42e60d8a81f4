"""Evaluation of language models on perturbed-ud items: per-item results, summaries, statistics."""
