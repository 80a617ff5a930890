"""Fixtures for the bridge tests: load the repo-root __init__.py as a fresh module per test, with a
temporary HERMES_HOME and a fake `hermes_cli` (VALID_HOOKS / VALID_MIDDLEWARE) to feature-detect.

The tests that run the real sidecar (`node bin/hmc.js sidecar --stdio`) need `npm run build`
first; without `dist/` they skip with a message saying so.
"""
import importlib.util
import itertools
import logging
import os
import shutil
import sys
import types
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
_n = itertools.count()


def built():
    return (REPO / "dist" / "cli" / "main.js").is_file() and (REPO / "dist" / "engine" / "runtime.js").is_file()


needs_build = pytest.mark.skipif(not built(), reason="dist/ is missing: run `npm run build` first (these tests run node bin/hmc.js)")
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")


@pytest.fixture
def hermes_cli(monkeypatch):
    """A stand-in for Hermes' registries, so the bridge's feature detection has something to read."""
    pkg = types.ModuleType("hermes_cli")
    plugins = types.ModuleType("hermes_cli.plugins")
    middleware = types.ModuleType("hermes_cli.middleware")
    plugins.VALID_HOOKS = {"pre_tool_call", "post_tool_call", "pre_llm_call", "on_session_end", "on_session_finalize", "transform_tool_result"}
    middleware.VALID_MIDDLEWARE = {"llm_request", "llm_execution", "tool_request", "tool_execution"}
    pkg.plugins, pkg.middleware = plugins, middleware
    for name, mod in (("hermes_cli", pkg), ("hermes_cli.plugins", plugins), ("hermes_cli.middleware", middleware)):
        monkeypatch.setitem(sys.modules, name, mod)
    return pkg


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "hermes_home"
    h.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(h))
    monkeypatch.delenv("HMC_SIDECAR_COMMAND", raising=False)
    return h


@pytest.fixture
def load_bridge(home, hermes_cli, monkeypatch):
    """Returns `load(ctx, **env)`: a fresh copy of the bridge module registered on `ctx`, giving
    (module, bridge); every sidecar it started is closed after the test."""
    bridges = []

    def load(ctx, **env):
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        spec = importlib.util.spec_from_file_location("hmc_bridge_%d" % next(_n), REPO / "__init__.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        bridge = mod.register(ctx)
        if bridge is not None:
            bridges.append(bridge)
        return mod, bridge

    yield load
    for bridge in bridges:
        bridge.sidecar.close()


@pytest.fixture
def hmc_logs(caplog):
    caplog.set_level(logging.DEBUG, logger="hmc")
    return lambda: [r.getMessage() for r in caplog.records if r.name == "hmc" and r.levelno >= logging.WARNING]


def fake_sidecar_command(*extra):
    import json

    return json.dumps([sys.executable, str(HERE / "fake_sidecar.py"), *extra])
