"""Where the context goes (issue 24, part 5), in a real Hermes offering its default tools (no `-t`:
the `hermes-cli` toolsets), once per Hermes install (hermes_runs.py):

- turn 1 calls `terminal` 17 times (16 outputs of 2,005 characters); turn 2 asks `hmc_control
  action=context`. The breakdown it answers has one tool-schema row per tool Hermes sent on the
  wire (the model server's record of the request), with the same names, and the tool schemas'
  tokens are the wire's tools by the engine's own rule, on 0.16 too (its hook shows the schemas
  cut short, and past 50,000 characters not at all: 10,087 of 11,967 tokens were counted in a
  short session).
- Its advice names tools never called (and not `terminal`, called in turn 1 and counted by the
  analytics store over the period, nor HMC's own tool).
- `hermes hmc control context` in a terminal answers the breakdown the session file kept, and
  `/hmc context` in Hermes' CLI on the resumed session shows it as aligned text.
"""
import json
import subprocess
import unittest

from hermes_runs import INSTALLS, Sandbox, needs_hermes, wire_tokens

# Turn 1 grows the conversation past what Hermes 0.16's hook shows whole: beside the default tools'
# schemas, one output of 2,005 characters already puts the hook's copy over 50,000 characters even
# with its strings cut at 1,000, so from turn 1's third model call on (and in all of turn 2) it
# hands over a preview with no body (no tool schemas, no system prompt): test_hook_request.py.
# Eight distinct commands per step (Hermes runs identical calls of one answer once).
LONG = [[("terminal", {"command": "seq %d %d" % (1000 + 10 * i + step, 1400 + 10 * i + step)}) for i in range(8)] for step in (0, 1)]
SCRIPT = {
    "C1": [("terminal", {"command": "echo hello from the context test"}), LONG[0], LONG[1]],
    "C2": [("hmc_control", {"action": "context"})],
}


def wire_name(tool):
    fn = tool.get("function") if isinstance(tool.get("function"), dict) else tool
    return fn.get("name")


@needs_hermes
class ContextViewInHermes(unittest.TestCase):
    def test_breakdown_counts_the_tools_hermes_sent_and_advises_on_the_unused(self):
        for install in INSTALLS:
            with self.subTest(hermes=install["version"]):
                box = Sandbox(self, install, SCRIPT, {"notes.txt": "nothing here\n"}, hmc_config="", toolsets=None)
                rc, out, err, session = box.run_q("C1: say hello")
                self.assertTrue(rc == 0 and "All done." in out, err[-2000:])
                rc, out, err, session = box.run_q("C2: where does the context go?", session)
                self.assertTrue(rc == 0 and "All done." in out, err[-2000:])

                answers = [content for name, content in box.stored_tools(session).values() if name == "hmc_control"]
                self.assertEqual(len(answers), 1, answers)
                answer = json.loads(answers[0])
                view = answer["breakdown"]
                self.assertIsNotNone(view, answer)

                # The request that asked for hmc_control: the tools Hermes sent with it.
                asked = [r for r in box.server.requests if "C2" in r["user"] and r["body"].get("tools")][0]
                wire = [wire_name(t) for t in asked["body"]["tools"]]
                self.assertEqual(len(view["tools"]), len(wire), (sorted(t["name"] for t in view["tools"]), sorted(wire)))
                self.assertEqual(sorted(t["name"] for t in view["tools"]), sorted(wire))
                schemas = next(p for p in view["parts"] if p["part"] == "tool_schemas")
                tools_only = wire_tokens([{"messages": [], "tools": asked["body"]["tools"]}])[0]
                # Every Hermes: the schemas counted are the ones on the wire (0.16's hook shows a
                # cut-down copy; the bridge reads the request's own body: test_hook_request.py).
                self.assertEqual([p for p in view["problems"] if "depth limit" in p], [])
                self.assertEqual(schemas["sent"], tools_only)
                self.assertEqual(sum(p["sent"] for p in view["parts"]), view["total"]["sent"])

                # terminal was called in turn 1: the analytics store counts it over the period.
                terminal = next(t for t in view["tools"] if t["name"] == "terminal")
                self.assertGreaterEqual(terminal["calls_period"], 1, view["tools"])
                unused = view["unused_tools"]
                self.assertNotIn("terminal", unused)
                self.assertNotIn("hmc_control", unused)
                self.assertEqual(sorted(unused), sorted(n for n in wire if n not in ("terminal", "hmc_control")))
                self.assertEqual(len(view["advice"]), 1, view)
                advice = view["advice"][0]
                self.assertRegex(advice, r"^tool schemas are [\d.]+ %% of each request; these %d tools were never called in 30 days" % len(unused))
                self.assertIn("hermes tools disable <toolset>", advice)
                for name in unused[:12]:
                    self.assertIn(name, advice)

                # From a terminal: the breakdown the session file kept.
                cli = subprocess.run([install["hermes"], "hmc", "control", "context", "--session", session, "--json"], cwd=box.work, env=box.env,
                                     capture_output=True, text=True, timeout=120)
                self.assertEqual(cli.returncode, 0, cli.stderr[-2000:])
                saved = json.loads(cli.stdout)["breakdown"]
                self.assertEqual(sorted(t["name"] for t in saved["tools"]), sorted(wire))
                # `/hmc context` in Hermes' CLI, on the resumed session: the same view as aligned text.
                hermes = box.interactive("--resume", session)
                try:
                    hermes.wait_for("❯", 120)
                    text = hermes.say("/hmc context", r"Advice: [^\n]*\n", 120)
                finally:
                    hermes.close()
                self.assertRegex(text, r"Latest request: [\d.]+K? tokens sent")
                self.assertRegex(text, r"tool schemas \(%d\) +[\d.]+K? +[\d.]+K? +[\d.]+ %%" % len(wire))
                self.assertIn("Tool schemas, largest first:", text)
                self.assertRegex(text, r"\n +terminal +[\d.]+K? +[1-9]\d* +\d+")
                share = 100.0 * schemas["sent"] / view["total"]["sent"]
                print("\nHermes %s: %d tools sent (%d tokens on the wire, %d counted, %.1f %% of the request); %d never called; advice: %s"
                      % (install["version"], len(wire), tools_only, schemas["sent"], share, len(unused), advice[:160]))
                print("\n".join(line for line in text.splitlines() if line.strip())[:1600])


if __name__ == "__main__":
    unittest.main()
