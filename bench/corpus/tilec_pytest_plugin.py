"""A pytest plugin: a public project's own tests run as usual, and every Triton launch they make is
compiled by tilec for the same specialisation and compared with Triton's results (tilec_diff).

run_pytest.py loads it (`-p tilec_pytest_plugin`) and configures it through the environment, so that
pytest-xdist's workers, which load plugins by name, get the same settings:

  TILEC_CORPUS_TILEC     the tilec executable tilec_diff runs (with the project's -I folders)
  TILEC_CORPUS_OUT       the output folder; each process writes to OUT/<project>.<worker>/
  TILEC_CORPUS_PROJECT   the project's name (the table's first column)
  TILEC_CORPUS_FIRST     keep only the first N parametrisations of each test function (0: all)
  TILEC_CORPUS_SPREAD    "1": the N kept are spread evenly over the test's list (first, ..., last)
                         instead of the first N, so that a test parametrised over dtypes keeps
                         several dtypes
  TILEC_CORPUS_ONE_CONFIG  "1": an autotuned kernel runs only the first config Triton's pruning
                         keeps, so that each kernel is compiled once instead of once per config
  TILEC_CORPUS_DEADLINE  a time.time() after which the remaining tests are skipped, so that the run
                         ends (and writes its results) within the time it has
  TILEC_CORPUS_RECHECK   "1": a launch whose results differ runs again, Triton's and tilec's kernels
                         each on fresh copies of the inputs, and the record says which result is
                         reproducible (harness.recheck)
  TILEC_CORPUS_DUMP      part of a kernel's name: a launch of it whose results differ is saved to
                         OUT/<project>.<worker>/dump_*.pt for bench/corpus/replay.py
  TILEC_DIFF             tilec_diff.py (else harness.find_tilec_diff's search)

Each test is tilec_diff's label for the launches it makes (its pytest node id); ops.tsv lists
the tests and how they ended (the project's own assertions: a failure there says nothing of tilec).
"""
import json
import os
import time

import pytest

import harness

_state = {"td": None, "out": None, "tests": []}


def _is_xdist_controller(config):
    return os.environ.get("PYTEST_XDIST_WORKER") is None and getattr(config.option, "numprocesses", None)


def pytest_configure(config):
    if _is_xdist_controller(config):
        return  # the workers run the tests; the controller only distributes them
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    project = os.environ.get("TILEC_CORPUS_PROJECT", "project")
    out = os.path.join(os.environ["TILEC_CORPUS_OUT"], f"{project}.{worker}")
    _state["out"] = out
    _state["td"] = harness.install_tilec_diff(os.environ["TILEC_CORPUS_TILEC"], out,
                                              os.environ.get("TILEC_DIFF"))
    if os.environ.get("TILEC_CORPUS_ONE_CONFIG") == "1":
        from triton.runtime.autotuner import Autotuner
        prune = Autotuner.prune_configs
        Autotuner.prune_configs = lambda self, *a, **k: prune(self, *a, **k)[:1]


def pytest_collection_modifyitems(session, config, items):
    first = int(os.environ.get("TILEC_CORPUS_FIRST", "0"))
    if first <= 0:
        return
    groups = {}
    for index, item in enumerate(items):
        groups.setdefault((str(item.fspath), getattr(item, "originalname", item.name)), []).append(index)
    keep = set()
    spread = os.environ.get("TILEC_CORPUS_SPREAD") == "1"
    for indices in groups.values():
        if len(indices) <= first:
            keep.update(indices)
        elif spread and first > 1:
            keep.update(indices[round(i * (len(indices) - 1) / (first - 1))] for i in range(first))
        else:
            keep.update(indices[:first])
    items[:] = [item for index, item in enumerate(items) if index in keep]


def pytest_runtest_setup(item):
    deadline = float(os.environ.get("TILEC_CORPUS_DEADLINE", "0"))
    if deadline and time.time() > deadline:
        pytest.skip("tilec corpus run: out of time")
    if _state["td"]:
        _state["td"].label(item.nodeid)


def pytest_runtest_logreport(report):
    if not _state["td"] or (report.when != "call" and not (report.when == "setup" and report.outcome != "passed")):
        return
    outcome = "ok" if report.outcome == "passed" else report.outcome
    if report.outcome == "failed":
        message = str(report.longrepr).strip().splitlines()
        outcome = "test failed: " + (message[-1] if message else "")[:200]
    _state["tests"].append((report.nodeid, outcome, report.duration))
    _write()


def _write():
    td, out = _state["td"], _state["out"]
    rows = [{"file": f, "kernel": k, "sig": s, "warps": w, "stages": st, **r}
            for (f, k, s, w, st), r in td.results.items()]
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(rows, f, indent=1, default=str)
    with open(os.path.join(out, "ops.tsv"), "w") as f:
        f.write("# op\toutcome\tseconds\n")
        for name, outcome, seconds in _state["tests"]:
            f.write(f"{name}\t{outcome.replace(chr(9), ' ')}\t{seconds:.2f}\n")


def pytest_unconfigure(config):
    if _state["td"]:
        _state["td"].report()
        _write()
