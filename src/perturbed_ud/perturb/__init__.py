"""Perturbations: pure functions of (sentence columns, randomness, parameters).

Every word-order perturbation returns a permutation ``perm`` with ``perm[i]`` = the new
position of original word ``i`` (`apply_permutation` builds the new sequence).
"""
