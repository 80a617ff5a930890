"""Every request shape Hermes sends, end to end (issue 16): a real Hermes runs three scripted turns
(a large source read, a failing and a passing test run; the read again; one more run and a read of
the tests, asked for in one answer: six tool calls) against the model server in each shape (wire_shapes.py: chat completions, Anthropic
messages, Responses; hermes_runs.MODEL_CONFIG says how Hermes is pointed at each), once without
HMC and once with the plugin as it is. Per Hermes install (HMC_HERMES_PYTHON; skipped with a note
without one, a failure under CI); both 0.16.0 and 0.19.0 speak all three shapes.

Shows, per shape: every turn answered; every agent-loop request in that shape (its path, its
keys, its tool-call and tool-result items, streamed) and readable by the server; Anthropic's
prompt-cache markers where Hermes puts them (the system prompt and the last messages) with HMC as
without it; state.db's tool rows with HMC equal to those without it; turn 1's outputs reach turn
2's first call compressed (the plugin's in-place `pre_llm_call` edits, in every shape); inside
turn 1's tool loop the chat-completions requests carry the outputs compressed. Prints, per shape,
the characters of tool output the model was sent with HMC and without (docs/hermes.md "Request
shapes": the other two shapes are still raw inside the loop).
"""
import json
import os
import re
import unittest

import wire_shapes as W
from hermes_runs import INSTALLS, Sandbox, needs_hermes
from model_server import AGENT
from test_e2e_hermes import FAILING, PASSING, SOURCE, files

SCRIPT = {
    "S1": [("read_file", {"path": SOURCE, "limit": 2000}), ("terminal", {"command": FAILING}), ("terminal", {"command": PASSING})],
    "S2": [("read_file", {"path": SOURCE, "limit": 2000})],
    # Two calls in one answer: their results come back together (one Anthropic user message).
    "S3": [[("terminal", {"command": PASSING}), ("read_file", {"path": "test_mod.py"})]],
}
TURNS = ["S1: fix the failing test", "S2: read it again", "S3: run the tests and read them, at once"]
TIMING = re.compile(r"\d+\.\d+s")  # unittest's "Ran 151 tests in 0.004s"


def run(case, install, shape, hmc):
    box = Sandbox(case, install, SCRIPT, files(), hmc=hmc, shape=shape, toolsets="file,terminal")
    session = None
    for text in TURNS:
        rc, out, err, session = box.run_q(text, session)
        case.assertTrue(rc == 0 and "All done." in out, "%s, %s, HMC %s: %s" % (shape, text, hmc, err[-2000:]))
    case.assertEqual(box.server.errors, [])
    return box, session


def agent_requests(box, turn=None):
    return [r for r in box.server.requests if r["kind"] == AGENT and (turn is None or r["user"].startswith(turn))]


def tool_chars(requests):
    """Characters of tool output the model was sent, over these requests."""
    return sum(len(m.get("content") or "") for r in requests for m in r["messages"] if m["role"] == "tool")


def markers(body):
    """Where a request's Anthropic cache_control markers sit: [(place, block type)]."""
    found = [("system", b.get("type")) for b in body.get("system") or [] if isinstance(b, dict) and "cache_control" in b]
    for i, m in enumerate(body["messages"]):
        for b in m["content"] if isinstance(m["content"], list) else []:
            if "cache_control" in b:
                found.append((i - len(body["messages"]), b.get("type")))
    return found


@needs_hermes
class EveryRequestShape(unittest.TestCase):
    def test_every_shape_with_and_without_hmc(self):
        rows = []
        for install in INSTALLS:
            for shape in W.SHAPES:
                with self.subTest(hermes=install["version"], shape=shape):
                    if shape == W.ANTHROPIC and not install.get("anthropic"):
                        message = "Hermes %s has no `anthropic` package beside it: pip install anthropic==0.87.0 in its venv" % install["version"]
                        if os.environ.get("CI"):
                            self.fail(message)
                        self.skipTest(message)
                    plain, plain_session = run(self, install, shape, hmc=False)
                    box, session = run(self, install, shape, hmc=True)
                    for b in (plain, box):
                        self.check_shape(shape, agent_requests(b))
                    self.check_stored((plain, plain_session), (box, session))
                    if shape == W.ANTHROPIC:
                        self.assertEqual([markers(r["body"]) for r in agent_requests(box)], [markers(r["body"]) for r in agent_requests(plain)])
                    rows.append(self.gap(install, shape, plain, box))
        print("\nTool output the model was sent, characters (HMC on / off):\n" + "\n".join(rows))

    def check_shape(self, shape, requests):
        self.assertEqual(len(requests), 4 + 2 + 2, [r["user"] for r in requests])
        for r in requests:
            body = r["body"]
            self.assertEqual((r["shape"], r["stream"]), (shape, True))
            if shape == W.CHAT:
                self.assertTrue(r["path"].endswith("/chat/completions"))
                self.assertEqual(body["messages"][0]["role"], "system")
                self.assertTrue(all("function" in t for t in body["tools"]))
            elif shape == W.ANTHROPIC:
                self.assertTrue(r["path"].endswith("/messages"))
                self.assertTrue(body["system"] and all(m["role"] in ("user", "assistant") for m in body["messages"]))
                self.assertTrue(all("input_schema" in t for t in body["tools"]))
                # Hermes' layout (agent/prompt_caching.py system_and_3): the system prompt and the last messages.
                marks = markers(body)
                self.assertEqual(marks[0], ("system", "text"))
                self.assertTrue(2 <= len(marks) <= 4 and all(place in (-1, -2, -3) for place, _ in marks[1:]), marks)
            else:
                self.assertTrue(r["path"].endswith("/responses"))
                self.assertTrue(body["instructions"] and "messages" not in body)
                self.assertTrue(all(t.get("type") == "function" and "name" in t for t in body["tools"]))
            blocks = [b for m in body.get("messages") or [] if isinstance(m.get("content"), list) for b in m["content"]]
            items = body.get("input") or []
            calls = [c for m in r["messages"] for c in m.get("tool_calls") or []]
            results = [m for m in r["messages"] if m["role"] == "tool"]
            # Every call has exactly one result, in the shape's own items.
            self.assertEqual([c["id"] for c in calls], [m["tool_call_id"] for m in results])
            if shape == W.ANTHROPIC:
                self.assertEqual(len(calls), sum(1 for b in blocks if b.get("type") == "tool_use"))
                self.assertEqual(len(results), sum(1 for b in blocks if b.get("type") == "tool_result"))
            elif shape == W.RESPONSES:
                self.assertEqual(len(calls), sum(1 for i in items if i.get("type") == "function_call"))
                self.assertEqual(len(results), sum(1 for i in items if i.get("type") == "function_call_output"))
            else:
                self.assertEqual(len(results), sum(1 for m in body["messages"] if m["role"] == "tool"))
        # The parallel batch of turn 3, as its last request carries it.
        last = requests[-1]
        batch = [m for m in last["messages"] if m.get("tool_calls")][-1]["tool_calls"]
        self.assertEqual([c["function"]["name"] for c in batch], ["terminal", "read_file"])
        if shape == W.ANTHROPIC:
            self.assertEqual([b["type"] for b in last["body"]["messages"][-1]["content"]], ["tool_result", "tool_result"])
        elif shape == W.RESPONSES:
            self.assertEqual([i.get("type") for i in last["body"]["input"][-4:]],
                             ["function_call", "function_call", "function_call_output", "function_call_output"])

    def check_stored(self, *runs):
        """state.db's tool rows with HMC equal those without it, but for the test runs' timings and
        the sandbox's own path (in the failing test's traceback)."""
        stored = [[(name, TIMING.sub("", content.replace(str(box.work), "<work>"))) for name, content in box.stored_tools(session).values()]
                  for box, session in runs]
        self.assertEqual(len(stored[0]), 6)
        self.assertTrue(stored[0] == stored[1], "state.db's tool rows differ with HMC")

    def gap(self, install, shape, plain, box):
        t1_on, t1_off = tool_chars(agent_requests(box, "S1")), tool_chars(agent_requests(plain, "S1"))
        on, off = tool_chars(agent_requests(box)), tool_chars(agent_requests(plain))
        read_on, read_off = (tool_chars(agent_requests(b, "S2")[:1]) for b in (box, plain))
        # Turn 1's outputs as turn 2's first call carries them: compressed in every shape
        # (pre_llm_call edits the live messages in place, before Hermes builds any request).
        self.assertLess(read_on, read_off, "%s: turn 2's first call should carry turn 1's outputs compressed" % shape)
        if shape == W.CHAT:
            self.assertLess(t1_on, t1_off, "chat completions: turn 1's loop should carry compressed outputs")
        return "  Hermes %s, %-18s session %7d / %7d (%4.1f %%), turn 1's loop %7d / %7d (%s)" % (
            install["version"], shape + ":", on, off, 100.0 * on / off, t1_on, t1_off, "compressed" if t1_on < t1_off else "raw")


if __name__ == "__main__":
    unittest.main()
