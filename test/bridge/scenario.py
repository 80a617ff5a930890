"""Tool outputs shaped like Hermes' own (DESIGN §5) and a three-turn script for the bridge tests.

Job: a large source-file read, a failing then a passing test run, and the same file read again.
Invariant: deterministic; nothing here depends on the engine's thresholds.
"""
import json


def source_file(functions=60):
    lines = ['"""A generated module for the bridge tests."""', "import os", ""]
    for i in range(functions):
        lines += ["def function_%d(value):" % i, '    """Doubles the value %d."""' % i]
        lines += ["    total = value * %d" % j for j in range(8)]
        lines += ["    return total", ""]
    return "\n".join(lines) + "\n"


SOURCE = source_file()
READ = json.dumps({"content": "\n".join("%d|%s" % (n, l) for n, l in enumerate(SOURCE.split("\n"), 1)),
                   "total_lines": SOURCE.count("\n"), "file_size": len(SOURCE), "truncated": False})
FAIL = json.dumps({"output": "\n".join(["collected 240 items", ""] + ["tests/test_mod.py::test_%d PASSED" % i for i in range(239)]
                                       + ["tests/test_mod.py::test_239 FAILED", "Traceback (most recent call last):",
                                          '  File "mod.py", line 12, in function_1', "AssertionError: 2 != 3",
                                          "=== 1 failed, 239 passed in 1.2s ==="]), "exit_code": 1, "error": None})
PASS = json.dumps({"output": "\n".join(["collected 240 items", ""] + ["tests/test_mod.py::test_%d PASSED" % i for i in range(240)]
                                       + ["=== 240 passed in 1.1s ==="]), "exit_code": 0, "error": None})

TURNS = [
    ("Fix the failing test in mod.py", [("read_file", {"path": "mod.py"}, READ),
                                        ("terminal", {"command": "pytest -q"}, FAIL),
                                        ("terminal", {"command": "pytest -q"}, PASS)]),
    ("Read mod.py again", [("read_file", {"path": "mod.py"}, READ)]),
    ("Thanks, that is all", []),
]
