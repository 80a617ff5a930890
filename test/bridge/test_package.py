"""The plugin as Hermes loads it: the face (`__init__.py`, re-exporting `register`) imported as the
package `hermes_plugins.<slug>` finds the bridge package beside it; without that package it
registers nothing and says so in one line (Hermes runs untouched). The `hmc_control` schema: the
built one at register, the sidecar's hello answer after, a minimal one when neither is there."""
import ast
import json
import shutil
import sys
import unittest

from harness import REPO, BridgeCase, fake_sidecar_command, load_plugin, needs_build, needs_node
from fake_host import FakeCtx

HELLO_SCHEMA = {"name": "hmc_control", "description": "as the sidecar's hello says",
                "parameters": {"type": "object", "properties": {"action": {"type": "string", "description": "what to do"},
                                                                "extra": {"type": "integer", "description": "a new one"}},
                               "required": ["action"]}}


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



class ControlSchemaTests(BridgeCase):

    def plugin_copy(self, schema_text=None):
        """The plugin's Python in a folder of its own, with `schema_text` as its built schema (None: not built)."""
        root = self.tmp / "plugin"
        shutil.copytree(REPO / "hmc_bridge", root / "hmc_bridge", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copyfile(REPO / "__init__.py", root / "__init__.py")
        if schema_text is not None:
            (root / "dist").mkdir()
            (root / "dist" / "hmc_control.schema.json").write_text(schema_text)
        return root

    def register_copy(self, root, *sidecar_args):
        schema_file = self.tmp / "hello-schema.json"
        schema_file.write_text(json.dumps(HELLO_SCHEMA))
        self.setenv("HMC_SIDECAR_COMMAND", fake_sidecar_command("--schema", str(schema_file), *sidecar_args))
        ctx = FakeCtx()
        bridge = load_plugin(self, "hmc_copy", root).register(ctx)
        self.addCleanup(bridge.sidecar.close)
        return ctx, bridge

    def info_lines(self):
        return [r.getMessage() for r in self._records.records if r.name == "hmc"]

    @needs_node
    @needs_build
    def test_the_built_schema_is_registered_and_is_what_the_sidecar_says_in_hello(self):
        built = json.loads((REPO / "dist" / "hmc_control.schema.json").read_text())
        answered = []
        ctx = FakeCtx()
        mod, bridge = self.load_bridge(ctx)
        real = mod.hmc_bridge.control_schema.update
        self.setattr(mod.hmc_bridge.control_schema, "update", lambda schema, new: answered.append(new) or real(schema, new))
        registered = ctx.tools["hmc_control"]["schema"]
        self.assertEqual(registered, built)
        self.assertIn("recall", registered["parameters"]["properties"]["action"]["description"])
        self.assertTrue(bridge.command("status").startswith("HMC"))  # the sidecar starts: hello
        self.assertEqual(answered, [built])
        self.assertIs(ctx.tools["hmc_control"]["schema"], registered)
        self.assertEqual(self.hmc_logs(), [])

    def test_without_a_build_a_minimal_schema_is_registered_and_hello_fills_it_in_place(self):
        ctx, bridge = self.register_copy(self.plugin_copy())
        registered = ctx.tools["hmc_control"]["schema"]
        self.assertEqual(sorted(registered["parameters"]["properties"]), ["action"])
        self.assertEqual(registered["parameters"]["required"], ["action"])
        said = [l for l in self.info_lines() if "hmc_control.schema.json" in l]
        self.assertEqual(len(said), 1, self.info_lines())
        self.assertIn("minimal schema", said[0])
        self.assertEqual(self.hmc_logs(), [])  # an info line, not a warning: HMC itself works
        self.assertEqual(bridge.command("status"), "fake: status")
        self.assertIs(ctx.tools["hmc_control"]["schema"], registered)
        self.assertEqual(registered, HELLO_SCHEMA)
        # The tool answers through the sidecar either way.
        self.assertIn("echo", json.loads(ctx.tools["hmc_control"]["handler"]({"action": "status"}, session_id="s")))

    def test_a_damaged_schema_file_gives_the_minimal_schema_and_says_why(self):
        for text, why in (("{not json", "not JSON"), (json.dumps({"name": "other"}), "not an hmc_control tool schema")):
            with self.subTest(why=why):
                self._records.records.clear()
                root = self.plugin_copy(text)
                ctx = FakeCtx()
                self.setenv("HMC_SIDECAR_COMMAND", fake_sidecar_command())
                bridge = load_plugin(self, "hmc_damaged_%d" % len(why), root).register(ctx)
                self.addCleanup(bridge.sidecar.close)
                self.assertEqual(sorted(ctx.tools["hmc_control"]["schema"]["parameters"]["properties"]), ["action"])
                self.assertTrue(any(why in l for l in self.info_lines()), self.info_lines())
                shutil.rmtree(root)

    def test_a_hello_schema_that_is_not_one_is_ignored(self):
        ctx, bridge = self.register_copy(self.plugin_copy(json.dumps(HELLO_SCHEMA)))
        before = json.loads(json.dumps(ctx.tools["hmc_control"]["schema"]))
        for answered in (None, [], {"name": "hmc_control"}, dict(HELLO_SCHEMA, name="other"), dict(HELLO_SCHEMA, parameters={"type": "array"})):
            bridge.hello_answered({"control_schema": answered})
            self.assertEqual(ctx.tools["hmc_control"]["schema"], before)


if __name__ == "__main__":
    unittest.main()
