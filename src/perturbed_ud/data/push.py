"""Publishing a built dataset folder to the Hugging Face Hub as one tagged release.

Exactly the files the build wrote go up with ``upload_folder``: the card, ``build.json`` and
the Parquet files of its configs, hashed again and compared with the content ``build.json``
records; anything else in the folder, or a symlink, stops the push with its name. Remote
Parquet files that the build no longer has are deleted, so stale configs cannot linger, and
the commit is pinned by a ``v<version>`` tag, the revision users pass to ``load_dataset``.
Everything that can be checked locally is checked before the first Hub call, and an existing
tag stops the push before ``main`` changes.
The licences checked are those of the manifest's ``treebanks`` or, for a dataset built from
other inputs, of its ``sources``.

The token comes from ``HF_TOKEN`` or the ``hf auth login`` file, never from a command line
(``ps`` shows it to every user), and no error message carries it: a server's error body is
printed, and a server may echo the request's ``Authorization`` header.
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

from huggingface_hub import HfApi, get_token
from huggingface_hub.utils import validate_repo_id

from ..errors import PushError
from ..files import read_json_object
from ..licences import publishing_problem
from ..redaction import redact
from ..releases import parse_version
from .card import inputs
from .layout import check_card_layout, layout_content
from .writer import check_recorded_content, read_build_manifest, split_pattern

LICENCE_FLAG = "--allow-licence-risk"
BUILD_FILES = ("README.md", "build.json")  # beside the Parquet files of the configs


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


def check_no_credentials(folder: Path) -> None:
    """Refuse a card or build.json holding what looks like a credential (a token pasted into
    the card, a password in a URL): a public upload would publish it."""
    for name in BUILD_FILES:
        text = (folder / name).read_text(encoding="utf-8", errors="replace")
        if redact(text) != text:
            line = next((i for i, x in enumerate(text.splitlines(), 1) if redact(x) != x), 1)
            raise PushError(
                f"{folder / name}:{line}: holds what looks like a credential; remove it before "
                "pushing (a public upload would publish it)"
            )


def upload_files(folder: Path, manifest: dict) -> list[str]:
    """The files the build wrote, relative to the folder and sorted: its card, build.json and
    the Parquet shards of the splits build.json lists. Anything else in the folder (a dotfile,
    notes, a folder of another tool), a symlink or what is no regular file is refused by
    name: a public upload must not carry what was left beside the data or what a link points
    at outside it."""
    built, others = [], []
    for root, folders, files in os.walk(folder):  # symlinked folders are listed, not entered
        for name in sorted(folders + files):
            path = Path(root) / name
            relative = path.relative_to(folder).as_posix()
            if path.is_symlink():
                others.append(f"{relative} (a symlink)")
            elif name in folders:
                continue
            elif not path.is_file():
                others.append(f"{relative} (not a regular file)")
            elif relative in BUILD_FILES or _is_shard(relative, manifest):
                built.append(relative)
            else:
                others.append(relative)
    if others:
        raise PushError(
            f"{folder} holds what the build did not write: {', '.join(sorted(others))}; move "
            "it out of the folder (only README.md, build.json and the Parquet files of the "
            "configs in build.json are published)"
        )
    return sorted(built)


def _is_shard(relative: str, manifest: dict) -> bool:
    """A Parquet shard ``<config>/<split>-…parquet`` of a split that build.json lists."""
    config, _, name = relative.partition("/")
    splits = (manifest["configs"].get(config) or {}).get("splits") or {}
    return "/" not in name and any(
        fnmatch.fnmatchcase(relative, split_pattern(config, split)) for split in splits
    )


def _exactly(name: str) -> str:
    """An ``allow_patterns`` entry that matches only ``name``: glob characters bracketed."""
    return re.sub(r"([*?[])", r"[\1]", name)


def _size(n: int) -> str:
    return f"{n} bytes" if n < 1_000_000 else f"{n / 1_000_000:.1f} MB"


def push_folder(
    folder,
    repo_id: str,
    version: str | None = None,
    *,
    dry_run: bool = False,
    private: bool = False,
    allow_licence_risk: bool = False,
    token: str | None = None,
    echo=print,
) -> str:
    """Upload a built dataset folder to a Hub dataset repo and tag it; return the tag.

    With ``dry_run``, only report what would be uploaded: no Hub call, no token needed.
    Without ``token``, that of ``HF_TOKEN`` or ``hf auth login``. ``version`` (default: the
    one build.json records) must be the version the folder was built as.
    """
    folder = Path(folder)
    manifest = _manifest(folder)
    files = upload_files(folder, manifest)  # before hashing: no link is followed
    check_no_credentials(folder)
    # a tag names the content build.json records: an edited file must not go up under it
    check_card_layout(folder, manifest, PushError)
    content = layout_content(folder, manifest, PushError)
    check_recorded_content(folder, content, manifest["content_sha256"], error=PushError)
    version = manifest["version"] if version is None else version
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
        commit = api.upload_folder(
            repo_id=repo_id,
            repo_type="dataset",
            folder_path=str(folder),
            allow_patterns=[_exactly(f) for f in files],
            commit_message=f"{dataset} {tag}",
            delete_patterns=["*/*.parquet"],
        )
        step = f"creating tag {tag}"
        # the commit this upload made, not whatever main is by now (another push may follow)
        api.create_tag(repo_id, tag=tag, repo_type="dataset", revision=commit.oid)
    except Exception as err:  # HTTP, offline-mode and connection errors of any client library
        message = str(err) if isinstance(err, PushError) else f"{step} on {repo_id} failed: {err}"
        # from None: the original error's text, in a traceback, may hold the token too
        raise PushError(redact(message, token)) from None
    echo(f"pushed {folder} to https://huggingface.co/datasets/{repo_id} at tag {tag}")
    return tag
