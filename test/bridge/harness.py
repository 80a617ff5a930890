"""Shared set-up for the bridge tests, standard library only (unittest), so `npm test` runs them
with any Python 3, including a system Python without pytest (Debian's, PEP 668).

Job: `BridgeCase` gives each test a temporary HERMES_HOME, a fake `hermes_cli` (VALID_HOOKS /
VALID_MIDDLEWARE) for the bridge's feature detection, `load_bridge()` (a fresh copy of the plugin,
imported as Hermes imports it, registered on a ctx), `hmc_logs()` (the bridge's warnings) and
`setenv` / `setattr` that are undone after the test.
Invariant: every change to os.environ, sys.modules or a module is undone, and every sidecar a
test started is closed, even when the test fails. A test that leaves a file, pipe or process
unclosed fails (a ResourceWarning once its cleanups ran, issue 17: there were 28).

The tests that run the real sidecar (`node bin/hmc.js sidecar --stdio`) need `npm run build`
first; without `dist/` they skip with a message saying so.
"""
import gc
import importlib.util
import itertools
import json
import logging
import os
import shutil
import sys
import tempfile
import types
import unittest
import warnings
from pathlib import Path
from unittest import mock

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
_n = itertools.count()


def built():
    return (REPO / "dist" / "cli" / "main.js").is_file() and (REPO / "dist" / "app" / "runtime.js").is_file()


needs_build = unittest.skipUnless(built(), "dist/ is missing: run `npm run build` first (these tests run node bin/hmc.js)")
needs_node = unittest.skipUnless(shutil.which("node"), "node is not on PATH")


def fake_sidecar_command(*extra):
    return json.dumps([sys.executable, str(HERE / "fake_sidecar.py"), *extra])


def spy_calls(bridge):
    """Records (method, sorted param names) of every call the bridge makes to its sidecar."""
    seen = []
    real = bridge.sidecar.call

    def call(method, params, timeout=None):
        seen.append((method, sorted(params)))
        return real(method, params, timeout)

    bridge.sidecar.call = call
    return seen


def load_plugin(case, slug, plugin_dir=REPO):
    """The plugin directory imported the way Hermes imports it (hermes_cli/plugins.py,
    `_load_directory_module`, 0.16 and 0.19): `__init__.py` as the package `hermes_plugins.<slug>`
    whose path is the directory, so the face's relative imports find `hmc_bridge/`. A fresh copy
    per slug; the modules are dropped from sys.modules after the test."""
    if "hermes_plugins" not in sys.modules:
        parent = types.ModuleType("hermes_plugins")
        parent.__path__ = []
        sys.modules["hermes_plugins"] = parent
        case.addCleanup(sys.modules.pop, "hermes_plugins", None)
    name = "hermes_plugins." + slug
    spec = importlib.util.spec_from_file_location(name, Path(plugin_dir) / "__init__.py", submodule_search_locations=[str(plugin_dir)])
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    case.addCleanup(lambda: [sys.modules.pop(k) for k in list(sys.modules) if k == name or k.startswith(name + ".")])
    spec.loader.exec_module(mod)
    return mod


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append(record)


def fake_hermes_cli():
    """A stand-in for Hermes' registries, so the bridge's feature detection has something to read."""
    pkg = types.ModuleType("hermes_cli")
    plugins = types.ModuleType("hermes_cli.plugins")
    middleware = types.ModuleType("hermes_cli.middleware")
    plugins.VALID_HOOKS = {"pre_tool_call", "post_tool_call", "pre_llm_call", "on_session_end", "on_session_finalize",
                           "on_session_reset", "pre_api_request", "transform_tool_result"}
    middleware.VALID_MIDDLEWARE = {"llm_request", "llm_execution", "tool_request", "tool_execution"}
    pkg.plugins, pkg.middleware = plugins, middleware
    return pkg


class BridgeCase(unittest.TestCase):
    """A test with a temporary HERMES_HOME (`self.home`), a scratch dir (`self.tmp`) and a fake
    `hermes_cli` (`self.hermes_cli`)."""

    def setUp(self):
        self.addCleanup(self._no_resource_left, self._catch_resource_warnings())  # runs last
        self.tmp = Path(tempfile.mkdtemp(prefix="hmc-bridge-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)
        env = mock.patch.dict(os.environ)
        env.start()
        self.addCleanup(env.stop)
        self.home = self.tmp / "hermes_home"
        self.home.mkdir()
        os.environ["HERMES_HOME"] = str(self.home)
        os.environ.pop("HMC_SIDECAR_COMMAND", None)
        self.hermes_cli = fake_hermes_cli()
        modules = mock.patch.dict(sys.modules, {"hermes_cli": self.hermes_cli, "hermes_cli.plugins": self.hermes_cli.plugins,
                                                "hermes_cli.middleware": self.hermes_cli.middleware})
        modules.start()
        self.addCleanup(modules.stop)
        self._records = _Records()
        logger = logging.getLogger("hmc")
        old_level = logger.level
        logger.addHandler(self._records)
        logger.setLevel(logging.DEBUG)
        self.addCleanup(logger.removeHandler, self._records)
        self.addCleanup(logger.setLevel, old_level)

    def _catch_resource_warnings(self):
        catcher = warnings.catch_warnings(record=True)
        caught = catcher.__enter__()
        warnings.simplefilter("always", ResourceWarning)
        return catcher, caught

    def _no_resource_left(self, catching):
        catcher, caught = catching
        gc.collect()  # what the test dropped unclosed warns now
        catcher.__exit__(None, None, None)
        for w in caught:  # other warnings are shown as usual
            if not issubclass(w.category, ResourceWarning):
                warnings.showwarning(w.message, w.category, w.filename, w.lineno)
        leaked = ["%s (%s:%s)" % (w.message, w.filename, w.lineno) for w in caught if issubclass(w.category, ResourceWarning)]
        self.assertEqual(leaked, [], "left unclosed")

    def setenv(self, key, value):
        os.environ[key] = value  # undone by the patch.dict of setUp

    def setattr(self, obj, name, value):
        patch = mock.patch.object(obj, name, value)
        patch.start()
        self.addCleanup(patch.stop)

    def load_bridge(self, ctx, **env):
        """A fresh copy of the bridge module registered on `ctx`: (module, bridge). Every sidecar it
        started is closed after the test."""
        for key, value in env.items():
            self.setenv(key, value)
        mod = load_plugin(self, "hmc_t%d" % next(_n))
        bridge = mod.register(ctx)
        if bridge is not None:
            self.addCleanup(bridge.sidecar.close)
        return mod, bridge

    def hmc_logs(self):
        """The bridge's log lines at WARNING and above."""
        return [r.getMessage() for r in self._records.records if r.name == "hmc" and r.levelno >= logging.WARNING]
