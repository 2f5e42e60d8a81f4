"""What every evaluation task shares: the task contract and registry, the checks before a
model loads, the resumable runner and its atomic outputs."""
