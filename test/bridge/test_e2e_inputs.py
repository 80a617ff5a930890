"""Input clearing inside a real Hermes (issue 15): an answered `write_file` call, once older than
the calls kept whole, reaches the model with short arguments (its path, its size, a recall id),
while Hermes' stored history (state.db) keeps the raw arguments and the file on disk is what the
model wrote; `hmc_control action=recall` gives the exact arguments back. Once per Hermes install
and request shape (issue 16: chat completions; Anthropic messages, where the short arguments go
as the `tool_use` block's `input` dict; Responses, as the `function_call` item's `arguments`):
0.19 edits the request through `llm_request` middleware, 0.16 through `pre_api_request`.
"""
import json
import shutil
import sqlite3
import subprocess
import unittest

import wire_shapes as W
from harness import REPO
from hermes_runs import INSTALLS, Sandbox, needs_hermes
from model_server import AGENT

BIG = "\n".join("VALUE_%03d = %d  # a line of the generated module" % (i, i * 7) for i in range(200)) + "\n"
SCRIPT = {"W1": [("write_file", {"path": "big.py", "content": BIG}), ("terminal", {"command": "python3 big.py"}),
                 ("terminal", {"command": "wc -l big.py"}), ("terminal", {"command": "ls"}), ("terminal", {"command": "echo done"})]}
# Rewrites of messages already sent allowed at every call, so the clearing shows in one short turn.
HMC_CONFIG = "cache:\n  min_batch_tokens: 0\n  max_breaks_per_100_calls: 100\n  first_break_after: 0\n"


def write_args(request):
    """The arguments of the write_file call as this request sent them (None: not in it), read from
    the request in its own shape (the model server's reading: an Anthropic `tool_use.input`, a
    Responses `function_call.arguments`, a chat call's `function.arguments`)."""
    for m in request["messages"]:
        for call in m.get("tool_calls") or []:
            if (call.get("function") or {}).get("name") == "write_file":
                return json.loads(call["function"]["arguments"])
    return None


def tool_uses(request):
    return [b for m in request["body"].get("messages") or [] if isinstance(m.get("content"), list) for b in m["content"] if b.get("type") == "tool_use"]


@needs_hermes
class InputClearingInHermes(unittest.TestCase):
    def test_a_write_goes_out_short_and_is_kept_raw(self):
        for install in INSTALLS:
            for shape in W.SHAPES:
                with self.subTest(hermes=install["version"], shape=shape):
                    self.run_shape(install, shape)

    def run_shape(self, install, shape):
        box = Sandbox(self, install, SCRIPT, {}, HMC_CONFIG, shape=shape)
        rc, out, err, session = box.run_q("W1: write the module and check it")
        self.assertTrue(rc == 0 and "All done." in out, err[-2000:])
        self.assertEqual((box.work / "big.py").read_text(), BIG)
        sent = [write_args(r) for r in box.server.requests]
        sent = [a for a in sent if a is not None]
        self.assertEqual(sent[0], {"path": "big.py", "content": BIG})  # the call's own step: whole
        short = sent[-1]
        self.assertEqual(short.get("path"), "big.py", short)
        self.assertNotIn("content", short)
        self.assertEqual(short["cleared"], {"content": "200 lines, %d characters" % len(BIG)})
        self.assertEqual(box.server.errors, [])
        if shape == W.ANTHROPIC:  # a dict, where Anthropic wants one
            last = [r for r in box.server.requests if r["kind"] == AGENT][-1]
            self.assertEqual([b["input"] for b in tool_uses(last) if b["name"] == "write_file"], [short])
        # What Hermes stored is the raw call.
        db = sqlite3.connect(box.home / "state.db")
        try:
            rows = [r[0] for r in db.execute("SELECT tool_calls FROM messages WHERE session_id=? AND role='assistant' AND tool_calls IS NOT NULL", (session,))]
        finally:
            db.close()
        stored = [json.loads(c["function"]["arguments"]) for r in rows for c in json.loads(r) if c["function"]["name"] == "write_file"]
        self.assertEqual(stored, [{"path": "big.py", "content": BIG}])
        # Recall gives the exact arguments back (another process: the copy is in the state dir).
        rid = short["original"].rsplit("id=", 1)[1]
        out = subprocess.run([shutil.which("node"), str(REPO / "bin" / "hmc.js"), "control", "recall", "id=" + rid, "--session", session, "--json",
                              "--state-dir", str(box.state)], capture_output=True, text=True, timeout=60)
        recalled = json.loads(out.stdout)
        self.assertEqual(json.loads(recalled["arguments"]), {"path": "big.py", "content": BIG})


if __name__ == "__main__":
    unittest.main()
