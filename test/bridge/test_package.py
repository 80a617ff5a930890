"""The plugin as Hermes loads it: the face (`__init__.py`, re-exporting `register`) imported as the
package `hermes_plugins.<slug>` finds the bridge package beside it; without that package it
registers nothing and says so in one line (Hermes runs untouched)."""
import ast
import shutil
import sys
import unittest

from harness import REPO, BridgeCase, fake_sidecar_command, load_plugin
from fake_host import FakeCtx


class PackageTests(BridgeCase):

    def test_the_face_is_short_and_reexports_register(self):
        face = (REPO / "__init__.py").read_text()
        self.assertLessEqual(len(face.splitlines()), 80)
        mod = load_plugin(self, "hmc_face")
        self.assertIs(mod.register, mod.hmc_bridge.plugin.register)
        self.assertEqual(mod.__name__, "hermes_plugins.hmc_face")
        self.assertEqual(mod.hmc_bridge.plugin.__name__, "hermes_plugins.hmc_face.hmc_bridge.plugin")

    def test_the_package_uses_only_relative_imports_of_itself_and_the_standard_library(self):
        allowed_hermes = {"hermes_constants", "hermes_cli", "agent", "tools"}  # Hermes' own, imported inside try
        for path in sorted((REPO / "hmc_bridge").glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.level == 0:
                    top = node.module.split(".")[0]
                elif isinstance(node, ast.Import):
                    top = node.names[0].name.split(".")[0]
                else:
                    continue
                self.assertNotIn(top, {"hmc_bridge"}, "%s: import the package relatively" % path.name)
                self.assertTrue(top in sys.stdlib_module_names or top in allowed_hermes, "%s imports %s" % (path.name, top))

    def test_registers_through_the_face_under_hermes_module_name(self):
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        self.assertIsNotNone(bridge)
        self.assertIn("pre_llm_call", ctx.hooks)
        self.assertIn("hmc_control", ctx.tools)
        self.assertEqual(bridge.command("status"), "fake: status")

    def test_without_the_package_nothing_is_registered_and_one_line_says_why(self):
        lone = self.tmp / "plugin"
        lone.mkdir()
        shutil.copyfile(REPO / "__init__.py", lone / "__init__.py")  # an install that lost hmc_bridge/
        ctx = FakeCtx()
        mod = load_plugin(self, "hmc_lone", lone)
        self.assertIsNone(mod.register(ctx))
        self.assertEqual((ctx.hooks, ctx.tools, ctx.commands, ctx.middleware), ({}, {}, {}, {}))
        logs = self.hmc_logs()
        self.assertEqual(len(logs), 1, logs)
        self.assertIn("hmc_bridge", logs[0])
        self.assertIn("Hermes runs untouched", logs[0])


if __name__ == "__main__":
    unittest.main()
