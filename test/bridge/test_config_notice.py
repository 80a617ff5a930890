"""Config mistakes said where the user looks (issue 27, finding 2), with the real sidecar: once per
session the bridge asks the sidecar for the config's problems (`hmc_control action=config`, its
`summary` line) and shows that line through Hermes' own warning path in the interactive CLI (the
agent's `_emit_warning`), always logging it under "hmc" too (Hermes' agent.log and errors.log).
Before, the problems were only in sidecar.log, `/hmc config` and `hmc doctor`.
"""
import types
import unittest

from harness import BridgeCase, needs_build, needs_node, spy_calls
from fake_host import FakeCtx

CONFIG = "enabeld: true\ntruncation:\n  max_lines: lots\n"
HI = [{"role": "user", "content": "hi"}]


class FakeAgent:
    def __init__(self):
        self.warnings = []
        self.suppress_status_output = False

    def _emit_warning(self, message):
        self.warnings.append(message)


@needs_node
@needs_build
class ConfigNoticeTests(BridgeCase):
    def cli_with(self, agent):
        manager = types.SimpleNamespace(_cli_ref=types.SimpleNamespace(agent=agent, session_id="s1"))
        self.hermes_cli.plugins.get_plugin_manager = lambda: manager

    def test_once_per_session_through_the_cli_warning_and_the_log(self):
        config = self.tmp / "config.yaml"
        config.write_text(CONFIG)
        agent = FakeAgent()
        self.cli_with(agent)
        _, bridge = self.load_bridge(FakeCtx(), HMC_CONFIG=str(config))
        seen = spy_calls(bridge)
        for sid in ("s1", "s1", "s2"):
            bridge.pre_llm_call(session_id=sid, conversation_history=list(HI), model="m")
        self.assertEqual([m for m, _ in seen].count("hmc_control"), 2, "one question per session")
        first = "config: 2 problems in %s: enabeld: unknown key, ignored; did you mean `enabled`? (line 1) (/hmc config lists all)" % config
        self.assertEqual(agent.warnings, ["⚠ hmc: " + first] * 2)
        self.assertEqual([l for l in self.hmc_logs() if "problems" in l], ["hmc: " + first] * 2)

    def test_quiet_cli_and_no_cli_log_it_only(self):
        config = self.tmp / "config.yaml"
        config.write_text(CONFIG)
        agent = FakeAgent()
        agent.suppress_status_output = True  # `hermes chat -q`: stdout is the answer alone
        self.cli_with(agent)
        _, bridge = self.load_bridge(FakeCtx(), HMC_CONFIG=str(config))
        bridge.pre_llm_call(session_id="s1", conversation_history=list(HI), model="m")
        self.assertEqual(agent.warnings, [])
        self.assertEqual(len([l for l in self.hmc_logs() if "2 problems" in l]), 1)

    def test_a_good_config_says_nothing(self):
        config = self.tmp / "config.yaml"
        config.write_text("truncation:\n  max_lines: 80\n")
        agent = FakeAgent()
        self.cli_with(agent)
        _, bridge = self.load_bridge(FakeCtx(), HMC_CONFIG=str(config))
        bridge.pre_llm_call(session_id="s1", conversation_history=list(HI), model="m")
        self.assertEqual(agent.warnings, [])
        self.assertEqual([l for l in self.hmc_logs() if "config" in l], [])


if __name__ == "__main__":
    unittest.main()
