"""Run the examples of README.md and docs/, in order, as a reader on a fresh clone would.

A fenced block whose info string is exactly ``bash`` or ``python`` is an example that runs;
any other block (``bash norun``, ``python norun``, ``text`` ...) is shown only. The files are
read in a fixed order: README.md, then the pages that docs/index.md links, in its order, then
any other page under docs/ in path order.

Each file runs in a fresh temporary copy of the repository (the files git tracks or would
track: no .git, no virtual environment, no ignored outputs), its blocks in order: a bash
block with ``bash -euo pipefail``, a Python block with this interpreter, both with the
copy as working directory, this environment's ``perturbed-ud`` first on PATH, the copy's
``src`` first on PYTHONPATH, and HF_HUB_OFFLINE=1. The first failure stops the run; the
block and its file:line are printed.

    python scripts/run_doc_examples.py                    # every file
    python scripts/run_doc_examples.py docs/families/spud.md
    python scripts/run_doc_examples.py --list             # the blocks, without running them
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNNABLE = ("bash", "python")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
LINK = re.compile(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)")


@dataclass(frozen=True)
class Block:
    path: str  # relative to the repository root
    line: int  # the line of the opening fence
    language: str  # the info string's first word
    info: str  # the whole info string
    code: str

    @property
    def runnable(self) -> bool:
        return self.info in RUNNABLE

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def blocks(path: Path, root: Path = ROOT) -> list[Block]:
    """Every fenced code block of a Markdown file, runnable or not."""
    found, lines = [], path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, fence, info = match.group(1), match.group(2), match.group(3).strip()
        start, body = i + 1, []
        i += 1
        while i < len(lines):
            close = FENCE.match(lines[i])
            if close and close.group(2).startswith(fence) and not close.group(3).strip():
                break
            line = lines[i]
            body.append(line[len(indent) :] if line.startswith(indent) else line.lstrip())
            i += 1
        language = info.split()[0] if info else ""
        rel = path.resolve().relative_to(root).as_posix()
        found.append(Block(rel, start, language, info, "\n".join(body) + "\n"))
        i += 1
    return found


def ordered_files(root: Path = ROOT) -> list[Path]:
    """README.md, the docs/ pages in docs/index.md's order, then any other page."""
    docs = root / "docs"
    order = [root / "README.md", docs / "index.md"]
    index = docs / "index.md"
    if index.exists():
        for target in LINK.findall(index.read_text(encoding="utf-8")):
            path = (docs / target).resolve()
            if path.is_relative_to(docs.resolve()) and path.exists() and path not in order:
                order.append(path)
    rest = sorted(p.resolve() for p in docs.rglob("*.md") if p.resolve() not in order)
    return [p for p in order + rest if p.exists()]


def repository_copy(destination: Path, root: Path = ROOT) -> Path:
    """The files git tracks or would track (untracked ones that are not ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    for name in filter(None, listed):
        source = root / os.fsdecode(name)
        if not source.is_file():  # deleted in the work tree
            continue
        target = destination / os.fsdecode(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    return destination


def environment(copy: Path) -> dict[str, str]:
    env = dict(os.environ)
    binaries = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join([binaries, env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(copy / "src"), env.get("PYTHONPATH")]))
    env["HF_HUB_OFFLINE"] = "1"
    env.pop("PERTURBED_UD_ROOT", None)  # the examples name their sources
    return env


def run_block(block: Block, copy: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    if block.info == "bash":
        command = ["bash", "-euo", "pipefail", "-c", block.code]
    else:
        command = [sys.executable, "-c", block.code]
    return subprocess.run(command, cwd=copy, env=env, capture_output=True, text=True)


def run_file(path: Path, keep: bool = False) -> bool:
    runnable = [b for b in blocks(path) if b.runnable]
    if not runnable:
        return True
    copy = Path(tempfile.mkdtemp(prefix="doc-examples-"))
    try:
        repository_copy(copy)
        env = environment(copy)
        for block in runnable:
            started = time.monotonic()
            result = run_block(block, copy, env)
            seconds = time.monotonic() - started
            if result.returncode != 0:
                print(f"FAILED {block.where} ({block.info}, exit {result.returncode})")
                print(block.code.rstrip())
                print("--- output ---")
                print((result.stdout + result.stderr).rstrip()[-6000:])
                print(f"(the copy is kept in {copy})")
                keep = True
                return False
            print(f"ok {block.where} ({seconds:.1f} s)", flush=True)
        return True
    finally:
        if not keep:
            shutil.rmtree(copy, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="Default: every file, in order.")
    parser.add_argument("--list", action="store_true", help="List the blocks; run nothing.")
    parser.add_argument("--keep", action="store_true", help="Keep the temporary copies.")
    args = parser.parse_args(argv)
    files = [f.resolve() for f in args.files] or ordered_files()
    if args.list:
        for path in files:
            for block in blocks(path):
                print(f"{block.where}\t{'run' if block.runnable else 'shown'}\t{block.info}")
        return 0
    started = time.monotonic()
    for path in files:
        if not run_file(path, keep=args.keep):
            return 1
    print(f"every example ran ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
