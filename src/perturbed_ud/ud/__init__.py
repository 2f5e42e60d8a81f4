"""Universal Dependencies input: CoNLL-U reading and writing, treebank sources, selection."""
