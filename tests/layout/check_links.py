#!/usr/bin/python3
"""The link rules of the repository's layout (README.md, "Layout"), checked on
what CMake says each library links (build/layout_links.txt, written at
configure time: one line per target, "name<TAB>folder<TAB>dep;dep;..."):

  models/     no library of models/ links MPI, directly or through another
              library, nor pf_engine (the engine driver that runs models)
  partition/  links no library of models/ or io/
  core/       pf_core (what handlers use) links no MPI; only pf_engine does

Prints every breach with the chain of links that causes it and exits 1 if
there is one.
  /usr/bin/python3 tests/layout/check_links.py build/layout_links.txt
"""
import sys


def read(path):
    targets = {}
    for line in open(path):
        line = line.rstrip("\n")
        if not line:
            continue
        name, folder, deps = (line.split("\t") + ["", ""])[:3]
        # $<LINK_ONLY:x> and other generator expressions name a target inside.
        clean = []
        for d in deps.split(";"):
            d = d.strip()
            if d.startswith("$<LINK_ONLY:") and d.endswith(">"):
                d = d[len("$<LINK_ONLY:"):-1]
            if d:
                clean.append(d)
        targets[name] = (folder, clean)
    return targets


def chain_to(targets, start, bad):
    """The first link chain from `start` to a dependency for which bad(dep) holds, or None."""
    seen, stack = {start}, [(start, [start])]
    while stack:
        t, path = stack.pop()
        for d in targets.get(t, ("", []))[1]:
            if bad(d):
                return path + [d]
            if d not in seen and d in targets:
                seen.add(d)
                stack.append((d, path + [d]))
    return None


def is_mpi(dep):
    return dep.startswith("MPI::") or "libmpi" in dep


def main():
    targets = read(sys.argv[1])
    folder_of = {name: folder for name, (folder, _) in targets.items()}
    rules = []
    for name, (folder, _) in sorted(targets.items()):
        top = folder.split("/")[0]
        if top == "models":
            rules.append((name, "links MPI", is_mpi))
            rules.append((name, "links the engine driver", lambda d: d == "pf_engine"))
        elif top == "partition":
            rules.append((name, "links a model or io library",
                          lambda d: folder_of.get(d, "").split("/")[0] in ("models", "io")))
        elif name == "pf_core":
            rules.append((name, "links MPI", is_mpi))
    breaches = 0
    for name, what, bad in rules:
        chain = chain_to(targets, name, bad)
        if chain:
            breaches += 1
            print(f"{folder_of[name]}: {name} {what}: " + " -> ".join(chain))
    checked = len({r[0] for r in rules})
    print(f"{checked} libraries checked, {breaches} breaches")
    if checked == 0:
        print("no libraries of models/, partition/ or core/ found: is this the right file?")
        return 1
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
