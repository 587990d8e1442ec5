"""Run benchmarks: ``python -m bench [name ...]`` runs every module ``bench/bench_*.py`` (or those
named); ``python -m bench NAME --option ...`` runs one with its options (``python -m bench soak
--minutes 5 --cluster``).  A name is ``bench_NAME`` when there is one, else the module ``NAME``
(``soak``, which a plain ``python -m bench`` leaves out: it runs for minutes)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys

import bench


def module(name: str, modules: set[str]) -> str:
    if name.startswith("bench_") or f"bench_{name}" in modules or name not in modules:
        return name if name.startswith("bench_") else f"bench_{name}"
    return name


def main(argv: list[str]) -> None:
    modules = {m.name for m in pkgutil.iter_modules(bench.__path__)}
    if any(a.startswith("-") for a in argv):  # one benchmark and its options
        names, options = argv[:1], argv[1:]
    else:
        names, options = argv, []
    wanted = [module(a, modules) for a in names] or sorted(m for m in modules if m.startswith("bench_"))
    for name in wanted:
        print(f"== {name}", flush=True)
        run = importlib.import_module(f"bench.{name}").main
        if inspect.signature(run).parameters:
            run(options)
        else:
            run()


if __name__ == "__main__":
    main(sys.argv[1:])
