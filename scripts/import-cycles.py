#!/usr/bin/env python3
"""No import cycle between the files of a crate (issue 59): a module that names
another (`use crate::a::b`, `super::b::f`) may not be named back by it, directly
or round a loop. A module naming its own ancestors (the items its parent
declares) is how Rust nests and is not counted; test modules are left out.
Exits 1 and lists each cycle where there is one.

  scripts/import-cycles.py [COMPONENTS_DIR]"""
import re
import sys
from collections import defaultdict
from pathlib import Path

PATH = re.compile(r"\b(crate|super|self)((?:::\w+)+)")


def module_of(src, file):
    parts = list(file.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("lib", "mod", "main"):
        parts.pop()
    return tuple(parts)


def code_of(file):
    """The file's code before its tests, without comments."""
    text = file.read_text().split("#[cfg(test)]")[0]
    return "\n".join(line.split("//")[0] for line in text.splitlines())


def edges(src):
    modules = {module_of(src, f): f for f in src.rglob("*.rs")}
    graph = defaultdict(set)
    for module, file in modules.items():
        for match in PATH.finditer(code_of(file)):
            head, rest = match.group(1), match.group(2).split("::")[1:]
            base = {"crate": (), "super": module[:-1], "self": module}[head]
            while rest and rest[0] == "super":
                base, rest = base[:-1], rest[1:]
            target = None
            for part in rest:
                if base + (part,) not in modules:
                    break
                base = target = base + (part,)
            if target and module[: len(target)] != target:
                graph[module].add(target)
    return modules, graph


def cycles(modules, graph):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    sys.setrecursionlimit(10_000)
    for v in modules:
        if v not in index:
            visit(v)
    return found


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "components")
    bad = 0
    for src in sorted(root.glob("*/src")):
        for component in cycles(*edges(src)):
            bad += 1
            print(f"{src.parent.name}: an import cycle between " + ", ".join("::".join(m) or "lib" for m in sorted(component)))
    if bad:
        sys.exit(1)
    print(f"import cycles: none between the files of {len(list(root.glob('*/src')))} crates")


main()
