"""Publishing a built dataset folder to the Hugging Face Hub as one tagged release.

The folder goes up whole with ``upload_folder`` (remote Parquet files that the build no longer
has are deleted, so stale configs cannot linger) and the commit is pinned by a ``v<version>``
tag, the revision users pass to ``load_dataset``. Everything that can be checked locally is
checked before the first Hub call, and an existing tag stops the push before ``main`` changes.
The licences checked are those of the manifest's ``treebanks`` or, for a dataset built from
other inputs, of its ``sources``.

The token comes from ``HF_TOKEN`` or the ``hf auth login`` file, never from a command line
(``ps`` shows it to every user), and no error message carries it: a server's error body is
printed, and a server may echo the request's ``Authorization`` header.
"""

from __future__ import annotations

import re
from pathlib import Path

from huggingface_hub import HfApi, get_token
from huggingface_hub.utils import DEFAULT_IGNORE_PATTERNS, filter_repo_objects, validate_repo_id

from ..errors import PushError
from ..files import read_json_object
from ..licences import publishing_problem
from ..releases import parse_version
from .card import inputs
from .writer import read_build_manifest

LICENCE_FLAG = "--allow-licence-risk"
REDACTED = "[redacted]"
# Credentials a server may echo besides the token itself: a bearer credential, and anything
# shaped like a Hugging Face token (``hf_`` then 34 letters or digits; asking for 20 or more
# spares names such as ``hf_hub_download``).
_BEARER = re.compile(r"(?i)(\bbearer\s+)[^\s'\",;]+")
_HF_TOKEN = re.compile(r"\bhf_[A-Za-z0-9]{20,}")


def redact(text: str, token: str | None) -> str:
    """`text` with the token, bearer credentials and Hugging Face tokens replaced."""
    if token:
        text = text.replace(token, REDACTED)
    return _HF_TOKEN.sub(REDACTED, _BEARER.sub(rf"\g<1>{REDACTED}", text))


def _manifest(folder: Path) -> dict:
    keys = ("dataset", "version", ("treebanks", "sources"), "configs", "content_sha256")
    return read_build_manifest(folder, keys, PushError)


def _input_kind(manifest: dict) -> str:
    return "treebank" if "treebanks" in manifest else "source"


def licence_problems(manifest: dict) -> list[str]:
    """One line per treebank (or source) whose licence makes publishing risky."""
    problems = []
    for source in inputs(manifest):
        problem = publishing_problem(source.get("license", "unknown"))
        if problem:
            problems.append(f"{source.get('name', '?')}: {problem}")
    return problems


def upload_files(folder: Path) -> list[str]:
    """The paths ``upload_folder`` would send, relative to the folder, in its order."""
    files = sorted(p.relative_to(folder).as_posix() for p in folder.glob("**/*") if p.is_file())
    return list(filter_repo_objects(files, ignore_patterns=DEFAULT_IGNORE_PATTERNS))


def _size(n: int) -> str:
    return f"{n} bytes" if n < 1_000_000 else f"{n / 1_000_000:.1f} MB"


def push_folder(
    folder,
    repo_id: str,
    version: str,
    *,
    dry_run: bool = False,
    private: bool = False,
    allow_licence_risk: bool = False,
    token: str | None = None,
    echo=print,
) -> str:
    """Upload a built dataset folder to a Hub dataset repo and tag it; return the tag.

    With ``dry_run``, only report what would be uploaded: no Hub call, no token needed.
    Without ``token``, that of ``HF_TOKEN`` or ``hf auth login``.
    """
    folder = Path(folder)
    manifest = _manifest(folder)
    wanted = parse_version(version, "--version")
    built = parse_version(manifest["version"], f"{folder / 'build.json'} version")
    if wanted != built:
        raise PushError(
            f"the folder was built as version {manifest['version']}, not {version}: "
            "rebuild with --version, or push the version it was built as"
        )
    try:
        validate_repo_id(repo_id)
    except ValueError as err:
        raise PushError(f"bad --repo-id: {err}") from None

    problems = licence_problems(manifest)
    kind = _input_kind(manifest)
    if problems and not allow_licence_risk:
        listing = "\n".join(f"  {p}" for p in problems)
        raise PushError(
            f"refusing to publish: some {kind} licences forbid or do not clearly allow "
            f"a public derived dataset:\n{listing}\n"
            f"Check the licences; pass {LICENCE_FLAG} to publish anyway."
        )
    if problems:
        verdict = f"licences: {len(problems)} problem(s), overridden by {LICENCE_FLAG}:\n" + (
            "\n".join(f"  {p}" for p in problems)
        )
    else:
        verdict = f"licences: every {kind} licence allows publishing"

    tag = f"v{manifest['version']}"
    dataset = manifest["dataset"]
    visibility = "private" if private else "public"

    if dry_run:
        files = upload_files(folder)
        total = sum((folder / f).stat().st_size for f in files)
        echo("dry run: nothing is sent to the Hub")
        echo(f"repo: {repo_id} (dataset, {visibility})")
        echo(f"tag: {tag}")
        echo(f"files: {len(files)}, {_size(total)}")
        for f in files:
            echo(f"  {f}  {_size((folder / f).stat().st_size)}")
        echo(verdict)
        return tag

    token = token or get_token()
    if token is None:
        raise PushError("no Hugging Face token: run `hf auth login` or set HF_TOKEN")
    if problems:
        echo(verdict)

    api = HfApi(token=token)
    step = "creating the repo"
    try:
        api.create_repo(repo_id, repo_type="dataset", exist_ok=True, private=private)
        step = "listing the repo's tags"
        refs = api.list_repo_refs(repo_id, repo_type="dataset")
        if any(ref.name == tag for ref in refs.tags):
            step = f"reading build.json at tag {tag}"
            tagged = api.hf_hub_download(repo_id, "build.json", repo_type="dataset", revision=tag)
            ours = manifest["content_sha256"]
            theirs = read_json_object(tagged, PushError).get("content_sha256")
            if theirs != ours:
                raise PushError(
                    f"{repo_id} already has tag {tag} for other content (sha256 {theirs}, "
                    f"this folder {ours}): rebuild with a new --version"
                )
            echo(f"{repo_id} already has this content at tag {tag}: nothing to push")
            return tag
        step = "uploading the folder"
        api.upload_folder(
            repo_id=repo_id,
            repo_type="dataset",
            folder_path=str(folder),
            commit_message=f"{dataset} {tag}",
            delete_patterns=["*/*.parquet"],
        )
        step = f"creating tag {tag}"
        api.create_tag(repo_id, tag=tag, repo_type="dataset")
    except Exception as err:  # HTTP, offline-mode and connection errors of any client library
        message = str(err) if isinstance(err, PushError) else f"{step} on {repo_id} failed: {err}"
        # from None: the original error's text, in a traceback, may hold the token too
        raise PushError(redact(message, token)) from None
    echo(f"pushed {folder} to https://huggingface.co/datasets/{repo_id} at tag {tag}")
    return tag
