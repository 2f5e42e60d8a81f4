"""perturbed-ud: UD treebanks and grammars as versioned datasets of controlled perturbations.

``perturbed_ud.build(family, out, **options)`` builds a dataset,
``perturbed_ud.evaluate(task, **options)`` runs a model over one, and
``perturbed_ud.lm_eval_tasks(dataset, out, **options)`` writes its lm-evaluation-harness tasks;
each takes the options of the matching command (``perturbed-ud build``, ``perturbed-ud
evaluate``, ``perturbed-ud lm-eval-tasks``) as keywords.
"""

from importlib.metadata import PackageNotFoundError, version

from .api import build, evaluate, lm_eval_tasks

try:
    __version__ = version("perturbed-ud")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"

__all__ = ["build", "evaluate", "lm_eval_tasks", "__version__"]
