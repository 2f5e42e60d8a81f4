"""perturbed-ud: UD treebanks and grammars as versioned datasets of controlled perturbations.

``perturbed_ud.build(family, out, **options)`` builds a dataset,
``perturbed_ud.evaluate(task, **options)`` runs a model over one,
``perturbed_ud.lm_eval_tasks(dataset, out, **options)`` writes its lm-evaluation-harness tasks,
and ``perturbed_ud.review(dataset, out, **options)`` a sheet of nonce sentences for native
speakers to judge, which ``perturbed_ud.review_score(marked)`` scores; each takes the options
of the matching command (``perturbed-ud build``, ``perturbed-ud evaluate``, ``perturbed-ud
lm-eval-tasks``, ``perturbed-ud review``, ``perturbed-ud review-score``) as keywords.
"""

from .api import build, evaluate, lm_eval_tasks, review, review_score
from .version import __version__

__all__ = ["build", "evaluate", "lm_eval_tasks", "review", "review_score", "__version__"]
