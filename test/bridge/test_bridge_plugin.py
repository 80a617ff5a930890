"""What the plugin registers with Hermes (split from test_bridge.py): its hooks (never
transform_tool_result), the hmc_control tool, /hmc and ctx.llm, `hermes hmc` (the plugin's CLI,
with or without Node), and its skill (the plugin's own, never a copy in Hermes' skills)."""
import json
import os
import unittest

from harness import REPO, BridgeCase, fake_sidecar_command, needs_build, needs_node
from fake_host import FakeCtx


class PluginTests(BridgeCase):
    def test_transform_tool_result_is_never_registered(self):
        ctx = FakeCtx()
        self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        assert "transform_tool_result" not in ctx.hooks
        assert sorted(ctx.hooks) == ["on_session_end", "on_session_finalize", "on_session_reset", "post_tool_call", "pre_llm_call", "pre_tool_call"]

    @needs_build  # the schema registered is the built one (dist/hmc_control.schema.json)
    def test_control_tool_command_and_llm_complete(self):
        ctx = FakeCtx()
        self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        assert ctx.tools["hmc_control"]["toolset"] == "hmc_tools"
        props = ctx.tools["hmc_control"]["schema"]["parameters"]["properties"]
        assert sorted(props) == ["action", "by", "count", "enabled", "id", "limit", "lines", "message", "messages", "period", "phase", "query", "scope", "session", "since", "sub_action", "until"]
        assert ctx.commands["hmc"]("status") == "fake: status"
        out = json.loads(ctx.tools["hmc_control"]["handler"]({"action": "ask"}, task_id="t", session_id="s9"))
        assert out["answer"]["result"]["text"] == "summary of 1 messages"
        assert ctx.llm.calls == [([{"role": "user", "content": "sum"}], 7)]

    def test_hermes_hmc_runs_the_plugins_cli_and_says_when_node_is_missing(self):
        import argparse
        import io
        from unittest import mock

        class CliCtx(FakeCtx):
            def register_cli_command(self, name, help, setup_fn, handler_fn=None, description=""):
                self.cli = (name, setup_fn, handler_fn)

        ctx = CliCtx()
        self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        name, setup, run = ctx.cli
        parser = argparse.ArgumentParser(prog="hermes hmc")
        setup(parser)
        args = parser.parse_args(["dashboard", "status", "--state-dir", str(self.tmp)])
        assert args.hmc_args == ["dashboard", "status", "--state-dir", str(self.tmp)]
        with mock.patch("subprocess.call", return_value=3) as call:
            with self.assertRaises(SystemExit) as exited:
                run(args)
        assert name == "hmc" and exited.exception.code == 3
        assert call.call_args[0][0][1:] == [str(REPO / "bin" / "hmc.js"), "dashboard", "status", "--state-dir", str(self.tmp)]
        # Its hints then name `hermes hmc …`, the command line the user has (issue 17, finding 5).
        assert call.call_args[1]["env"]["HMC_INVOKED_AS"] == "hermes hmc"
        # Without Node: no hook, tool or command, but `hermes hmc` explains.
        empty = self.tmp / "empty-bin"
        empty.mkdir()
        self.setenv("PATH", str(empty))
        os.environ.pop("HMC_SIDECAR_COMMAND", None)
        ctx = CliCtx()
        _, bridge = self.load_bridge(ctx)
        assert bridge is None and ctx.hooks == {} and ctx.tools == {}
        err = io.StringIO()
        with mock.patch("sys.stderr", err), self.assertRaises(SystemExit) as exited:
            ctx.cli[2](parser.parse_args(["doctor"]))
        assert exited.exception.code == 1 and "Node.js (>= 20.19) is not on PATH" in err.getvalue()

    @needs_node
    @needs_build
    def test_hermes_hmc_reaches_the_real_cli(self):
        import argparse

        class CliCtx(FakeCtx):
            def register_cli_command(self, name, help, setup_fn, handler_fn=None, description=""):
                self.cli = (setup_fn, handler_fn)

        ctx = CliCtx()
        self.load_bridge(ctx)
        setup, run = ctx.cli
        parser = argparse.ArgumentParser(prog="hermes hmc")
        setup(parser)
        with self.assertRaises(SystemExit) as exited:
            run(parser.parse_args(["dashboard", "status", "--state-dir", str(self.tmp / "state")]))
        assert exited.exception.code == 3  # `hmc dashboard status`: not running

    def test_the_skill_is_the_plugins_own_never_copied_into_hermes_skills(self):
        # Issue 27, finding 1: the copy in $HERMES_HOME/skills/ outlived `hermes plugins disable/remove`.
        ctx = FakeCtx()
        self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        assert ctx.skills == {"hmc-guide": REPO / "skills" / "hmc" / "SKILL.md"}, ctx.skills
        assert not (self.home / "skills").exists()

    def test_an_unedited_copy_an_earlier_version_left_goes_an_edited_one_stays(self):
        shipped = (REPO / "skills" / "hmc" / "SKILL.md").read_text()
        as_hmc = self.home / "skills" / "hmc" / "SKILL.md"
        as_guide = self.home / "skills" / "hmc-guide" / "SKILL.md"
        for path, text in ((as_hmc, shipped.replace("name: hmc-guide\n", "name: hmc\n")), (as_guide, shipped)):
            path.parent.mkdir(parents=True)
            path.write_text(text)
        self.load_bridge(FakeCtx(), HMC_SIDECAR_COMMAND=fake_sidecar_command())
        assert not as_hmc.parent.exists() and not as_guide.parent.exists()
        # Edited: the user's, kept and named once in the log; a user's own skill called hmc: untouched.
        as_guide.parent.mkdir(parents=True)
        as_guide.write_text(shipped + "\nmy note\n")
        as_hmc.parent.mkdir(parents=True)
        as_hmc.write_text("---\nname: hmc\ndescription: my own\n---\n")
        self.load_bridge(FakeCtx(), HMC_SIDECAR_COMMAND=fake_sidecar_command())
        assert as_guide.read_text().endswith("my note\n") and as_hmc.read_text().endswith("my own\n---\n")
        assert [l for l in self.hmc_logs() if "edited copy" in l and str(as_guide) in l], self.hmc_logs()


if __name__ == "__main__":
    unittest.main()
