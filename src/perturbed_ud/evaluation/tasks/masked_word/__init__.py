"""The masked-word task and every file of its own: the task (`task`), the released per-item
schema (`items`), per-condition summaries (`summary`, `summarize`), and the paper's effects
and figures (`statistics`, `figures`). Only `task` loads a language model's libraries, so
`perturbed-ud summarize` runs without them."""
