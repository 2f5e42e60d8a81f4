"""Credentials kept out of what perturbed-ud writes or prints: reports, summaries, run files,
error messages.

A results file of another tool may hold a token (lm-eval records ``model_args`` such as
``pretrained=x,token=hf_…`` as given), and a server may echo a request's ``Authorization``
header in an error. `redact` replaces the tokens of the environment and any it is given,
``token=``/``api_key=``-style values, bearer and basic credentials, and anything shaped like a
Hugging Face token (``hf_`` then 34 letters or digits; asking for 20 or more spares names such
as ``hf_hub_download``).
"""

from __future__ import annotations

import os
import re
from typing import Any

REDACTED = "[redacted]"
# Where huggingface_hub reads a token from the environment.
TOKEN_VARIABLES = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")
_BEARER = re.compile(r"(?i)(\b(?:bearer|basic)\s+)[^\s'\",;]+")
# The names a credential is given under (``token=…``, ``"api_key": "…"``, ``Authorization: …``).
_NAMES = (r"(?:token|hf_token|use_auth_token|auth_token|access_token|api_key|apikey|password|"
          r"secret|authorization|auth)")  # fmt: skip
_NAME = re.compile(rf"(?i){_NAMES}")
# A named value in text; a bearer or basic credential after the name is left to `_BEARER`,
# which keeps the scheme.
_NAMED = re.compile(
    rf"(?i)((?<![A-Za-z0-9_]){_NAMES}[\"']?\s*[=:]\s*[\"']?)"
    r"(?!(?:bearer|basic)\s)(?:\[[^\s\]]*\]|[^\s'\",;&)}\]]+)"
)  # a value in brackets whole, so that redacting twice changes nothing
_HF_TOKEN = re.compile(r"\bhf_[A-Za-z0-9]{20,}")
# A URL's password (``https://alice:S3cret@host/``) and GitHub's tokens (``ghp_…``).
_URL_PASSWORD = re.compile(r"(\b[a-z][a-z0-9+.-]*://[^\s/:@]+:)[^\s/@]+(?=@)", re.I)
_GITHUB_TOKEN = re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}")


def redact(text: str, *secrets: str | None) -> str:
    """``text`` with ``secrets``, the environment's tokens and anything shaped like a
    credential replaced by ``[redacted]``."""
    for secret in (*secrets, *(os.environ.get(name) for name in TOKEN_VARIABLES)):
        if secret:
            text = text.replace(secret, REDACTED)
    text = _BEARER.sub(rf"\g<1>{REDACTED}", text)
    text = _NAMED.sub(rf"\g<1>{REDACTED}", text)
    text = _URL_PASSWORD.sub(rf"\g<1>{REDACTED}", text)
    return _GITHUB_TOKEN.sub(REDACTED, _HF_TOKEN.sub(REDACTED, text))


def redact_all(value: Any) -> Any:
    """A JSON value (objects, arrays, strings) with every string in it, names included,
    `redact`-ed, and the string under a credential's name (``{"token": "…"}``) replaced:
    what a report or a run file shows of a file it read or of its options."""
    top = [value]
    pending: list[tuple[Any, Any]] = [(top, 0)]
    while pending:  # not recursive: a deeply nested file must not overflow the stack
        container, key = pending.pop()
        item = container[key]
        if isinstance(item, str):
            container[key] = redact(item)
        elif isinstance(item, list):
            item = container[key] = list(item)
            pending.extend((item, i) for i in range(len(item)))
        elif isinstance(item, dict):
            item = container[key] = {
                redact(k) if isinstance(k, str) else k: _named_value(k, v) for k, v in item.items()
            }
            pending.extend((item, k) for k in item)
    return top[0]


def _named_value(name: Any, value: Any) -> Any:
    """A string under a credential's name is the credential, whatever its shape."""
    if isinstance(name, str) and _NAME.fullmatch(name) and isinstance(value, str) and value:
        return REDACTED
    return value
