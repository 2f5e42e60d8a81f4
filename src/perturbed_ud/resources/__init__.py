"""Language resources the builders read beside the treebanks: lexicons of word forms (the
treebanks' own, UniMorph, UDLexicons, pymorphy3's paradigms), how a word is entered in them,
and WordNet with the Open Multilingual Wordnet. The data files shipped with the package are
in `perturbed_ud.lexicons`."""
