#!/usr/bin/python3
"""The folder rules of the repository's layout (README.md, "Layout"), checked
on every #include of every C++ file under core/, partition/, models/ and io/:

  core/       includes nothing from partition/, models/ or io/ (it knows nothing of GPUs)
  partition/  includes nothing from models/ or io/ (it maps a plain LP graph to ranks)
  models/     includes nothing from io/, no MPI header (MPI stays behind core/),
              and none of the engine driver's headers (a model sees core/lp_context.h)
  no include cycle between folders, at either grain: the top-level folders
  (core, partition, models, io) and their parts (io/<x>, models/<x>)

Prints every breach as FILE:LINE and exits 1 if there is one.
  /usr/bin/python3 tests/layout/check_layers.py [REPO_ROOT]
"""
import re
import sys
from pathlib import Path

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
FORBIDDEN = {
    "core": ("partition/", "models/", "io/"),
    "partition": ("models/", "io/"),
    "models": ("io/", "core/engine.h", "core/communicator.h", "core/mpi_handle.h", "core/sync_state.h"),
}
MPI_HEADERS = ("mpi.h",)


def folder_of(path):
    """core, partition, io/<x> or models/<x> for a repository-relative path."""
    parts = Path(path).parts
    if parts[0] in ("models", "io") and len(parts) > 2:
        return parts[0] + "/" + parts[1]
    return parts[0]


def scan(root):
    breaches, edges = [], {}
    for top in ("core", "partition", "models", "io"):
        for f in sorted((root / top).rglob("*")):
            if f.suffix not in (".h", ".cpp"):
                continue
            rel = f.relative_to(root).as_posix()
            here = folder_of(rel)
            for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                kind, target = m.groups()
                if kind == "<":
                    if top == "models" and target in MPI_HEADERS:
                        breaches.append(f"{rel}:{n}: models/ includes <{target}> (MPI stays behind core/)")
                    continue
                if top in FORBIDDEN and target.startswith(FORBIDDEN[top]):
                    breaches.append(f"{rel}:{n}: {top}/ includes {target}")
                if (root / target).is_file():
                    there = folder_of(target)
                    if there != here:
                        edges.setdefault(here, {}).setdefault(there, f"{rel}:{n}")
    return breaches, edges


def cycles(edges):
    """Every folder cycle, as a list of 'a -> b (where)' steps, found by DFS."""
    found, state, stack = [], {}, []

    def visit(v):
        state[v] = 1
        stack.append(v)
        for w, where in sorted(edges.get(v, {}).items()):
            if state.get(w) == 1:
                loop = stack[stack.index(w):] + [w]
                found.append([f"{a} -> {b} ({edges[a][b]})" for a, b in zip(loop, loop[1:])])
            elif state.get(w) is None:
                visit(w)
        stack.pop()
        state[v] = 2

    for v in sorted(edges):
        if state.get(v) is None:
            visit(v)
    return found


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
    breaches, edges = scan(root)
    for b in breaches:
        print(b)
    top = {}
    for a, deps in edges.items():
        for b, where in deps.items():
            if a.split("/")[0] != b.split("/")[0]:
                top.setdefault(a.split("/")[0], {}).setdefault(b.split("/")[0], where)
    for c in cycles(edges) + cycles(top):
        print("include cycle between folders: " + "; ".join(c))
        breaches.append(c)
    folders = sorted(set(edges) | {w for d in edges.values() for w in d})
    print(f"{len(folders)} folders, {sum(len(d) for d in edges.values())} folder dependencies, "
          f"{len(breaches)} breaches")
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
