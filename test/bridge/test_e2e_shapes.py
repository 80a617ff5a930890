"""Every request shape Hermes sends, end to end (issue 16): a real Hermes runs three scripted turns
(a large source read, a failing and a passing test run; the read again; one more run and a read of
the tests, asked for in one answer: six tool calls) against the model server in each shape
(wire_shapes.py: chat completions, Anthropic messages, Responses; hermes_runs.MODEL_CONFIG says how
Hermes is pointed at each), once without HMC and once with it. Per Hermes install
(HMC_HERMES_PYTHON; skipped with a note without one, a failure under CI); both 0.16.0 (through
`pre_api_request`) and 0.19.0 (through its `llm_request` middleware) speak all three shapes.

Shows, per shape: every turn answered; every agent-loop request in that shape (its path, its
keys, its tool-call and tool-result items, streamed) and readable by the server; inside turn 1's
tool loop the outputs go compressed; every compressed output carries HMC's marker in the block
or item of its own call, and nothing HMC wrote reaches state.db, whose rows are those of the run
without HMC; each prompt-cache marker (Anthropic's `cache_control`) on the same block as without
HMC. Then one turn per shape with a sidecar that shortens the arguments of answered calls (the
fake sidecar's `tool_calls` edits, DESIGN §3): the wire carries them short in the shape's own form
(Anthropic's `tool_use.input` a dict, Responses' `function_call.arguments` a string, which Hermes
re-checks after the middleware), state.db keeps them whole. Prints, per shape, the characters of
tool output the model was sent with HMC and without (docs/hermes.md "Request shapes").
"""
import json
import os
import re
import sqlite3
import unittest

import wire_shapes as W
from harness import fake_sidecar_command
from hermes_runs import INSTALLS, Sandbox, needs_hermes
from model_server import AGENT
from test_e2e_hermes import FAILING, PASSING, SOURCE, files

SCRIPT = {
    "S1": [("read_file", {"path": SOURCE, "limit": 2000}), ("terminal", {"command": FAILING}), ("terminal", {"command": PASSING})],
    "S2": [("read_file", {"path": SOURCE, "limit": 2000})],
    # Two calls in one answer: their results come back together (one Anthropic user message).
    "S3": [[("terminal", {"command": PASSING}), ("read_file", {"path": "test_mod.py"})]],
    # For the tool_calls edits: a write with bulky arguments, answered, then one more call.
    "S4": [("write_file", {"path": "notes.md", "content": "A line of the release notes.\n" * 60}), ("terminal", {"command": "wc -l notes.md"})],
}
TURNS = ["S1: fix the failing test", "S2: read it again", "S3: run the tests and read them, at once"]
TIMING = re.compile(r"\d+\.\d+s")  # unittest's "Ran 151 tests in 0.004s"
# HMC's elision markers (src/strategies: truncation, the code filter, the list-wide placeholders).
HMC_MARK = re.compile(r"lines? omitted\)|lines elided \(|previous line repeated|earlier progress states? omitted|\[[^\]\n]*(?:removed|cleared|superseded|[Ss]ame output)[^\]\n]*\]")


def run(case, install, shape, hmc):
    box = Sandbox(case, install, SCRIPT, files(), hmc=hmc, shape=shape, toolsets="file,terminal")
    session = None
    for text in TURNS:
        rc, out, err, session = box.run_q(text, session)
        case.assertTrue(rc == 0 and "All done." in out, "%s, %s, HMC %s: %s" % (shape, text, hmc, err[-2000:]))
    case.assertEqual(box.server.errors, [])
    # The source read whole, so the gap measures a real read (a read Hermes refuses as too large
    # is a short error, and the figures would say nothing).
    read = next(json.loads(content) for name, content in box.stored_tools(session).values() if name == "read_file")
    source_lines = [line for line in files()[SOURCE].splitlines() if line.strip()]
    case.assertTrue(all(line in read.get("content", "") for line in source_lines), "%s, HMC %s: the source read must be whole" % (shape, hmc))
    return box, session


def agent_requests(box, turn=None):
    return [r for r in box.server.requests if r["kind"] == AGENT and (turn is None or r["user"].startswith(turn))]


def tool_chars(requests):
    """Characters of tool output the model was sent, over these requests."""
    return sum(len(m.get("content") or "") for r in requests for m in r["messages"] if m["role"] == "tool")


def cache_markers(body):
    """Every prompt-cache marker of a request: the path of the block that carries it, its type and
    the call it belongs to."""
    def walk(value, path):
        if isinstance(value, dict):
            here = [(path, value.get("type"), value.get("id") or value.get("tool_use_id"))] if "cache_control" in value else []
            return here + [m for k, v in value.items() if k != "cache_control" for m in walk(v, path + (k,))]
        if isinstance(value, list):
            return [m for i, v in enumerate(value) for m in walk(v, path + (i,))]
        return []
    return walk({k: body.get(k) for k in ("system", "messages", "input", "tools")}, ())


def stored_rows(box, session):
    """state.db's rows of a session as Hermes replays them, the test runs' timings and the
    sandbox's own path (in the failing test's traceback) set aside."""
    db = sqlite3.connect(box.home / "state.db")
    try:
        rows = db.execute("SELECT role, content, tool_call_id, tool_calls, tool_name FROM messages WHERE session_id=? ORDER BY id", (session,)).fetchall()
    finally:
        db.close()
    return [tuple(TIMING.sub("", v.replace(str(box.work), "<work>")) if isinstance(v, str) else v for v in row) for row in rows]


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
                    self.check_markers(plain, box)
                    rows.append(self.gap(install, shape, plain, box))
                    self.check_call_edits(install, shape)
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
                marks = [(path[0], path[1] - len(body["messages"]) if path[0] == "messages" else None) for path, _, _ in cache_markers(body)]
                self.assertEqual(marks[0], ("system", None))
                self.assertTrue(2 <= len(marks) <= 4 and all(at in (-1, -2, -3) for _, at in marks[1:]), marks)
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
        """state.db with HMC holds what it holds without: every row of the session, tool results,
        calls and their arguments, but for the test runs' timings and the sandbox's own path."""
        (plain, plain_session), (box, session) = runs
        stored, raw = stored_rows(box, session), stored_rows(plain, plain_session)
        self.assertEqual(sum(1 for r in raw if r[0] == "tool"), 6)
        self.assertTrue(stored == raw, "state.db's rows differ with HMC")  # so no HMC marker reached it

    def check_markers(self, plain, box):
        """Each of HMC's elision markers sits in the result of its own call, and only where the output
        went shorter; each prompt-cache marker sits on the same block as without HMC."""
        sent, raw = agent_requests(box), agent_requests(plain)
        self.assertEqual(len(sent), len(raw))
        shortened = 0
        for on, off in zip(sent, raw):
            self.assertEqual(cache_markers(on["body"]), cache_markers(off["body"]))
            results = lambda r: [(m["tool_call_id"], m["content"]) for m in r["messages"] if m["role"] == "tool"]
            self.assertEqual([i for i, _ in results(on)], [i for i, _ in results(off)])
            for (call, text), (_, whole) in zip(results(on), results(off)):
                if text != whole:  # shorter, and saying so (the source read quotes the bridge's own words)
                    shortened += 1
                    self.assertLess(len(text), len(whole), call)
                    self.assertGreater(len(HMC_MARK.findall(text)), len(HMC_MARK.findall(whole)), "%s: shortened without a marker" % call)
        self.assertGreater(shortened, 0)

    def check_call_edits(self, install, shape):
        """A sidecar that shortens the arguments of answered calls (the fake sidecar's tool_calls
        edits): the wire carries them short in the shape's own form, state.db keeps them whole."""
        box = Sandbox(self, install, SCRIPT, files(), hmc=True, shape=shape, toolsets="file,terminal")
        box.env["HMC_SIDECAR_COMMAND"] = fake_sidecar_command("--call-edits", "short")
        rc, out, err, session = box.run_q("S4: write the release notes")
        self.assertTrue(rc == 0 and "All done." in out, "%s, S4: %s" % (shape, err[-2000:]))
        self.assertEqual(box.server.errors, [])
        write = SCRIPT["S4"][0][1]
        requests = agent_requests(box, "S4")
        self.assertEqual([r["step"] for r in requests], [0, 1, 2])
        for r in requests[1:]:
            calls = [c for m in r["messages"] for c in m.get("tool_calls") or []]
            short = json.loads(calls[0]["function"]["arguments"])
            self.assertEqual((short["path"], short["hmc"][:8]), ("notes.md", "cleared "), shape)
            self.assertLess(len(calls[0]["function"]["arguments"]), 100)
            if shape == W.ANTHROPIC:
                uses = [b for m in r["body"]["messages"] if isinstance(m["content"], list) for b in m["content"] if b.get("type") == "tool_use"]
                self.assertEqual(uses[0]["input"], short)
            elif shape == W.RESPONSES:
                items = [i for i in r["body"]["input"] if i.get("type") == "function_call"]
                self.assertEqual(json.loads(items[0]["arguments"]), short)
        last_calls = [c for m in requests[2]["messages"] for c in m.get("tool_calls") or []]
        self.assertEqual(json.loads(last_calls[1]["function"]["arguments"]), {"command": "wc -l notes.md"})  # short: whole
        stored = [json.loads(r[3]) for r in stored_rows(box, session) if r[0] == "assistant" and r[3]]
        self.assertEqual(json.loads(stored[0][0]["function"]["arguments"]), write)
        self.assertEqual((box.work / "notes.md").read_text(), write["content"])

    def gap(self, install, shape, plain, box):
        t1_on, t1_off = tool_chars(agent_requests(box, "S1")), tool_chars(agent_requests(plain, "S1"))
        on, off = tool_chars(agent_requests(box)), tool_chars(agent_requests(plain))
        read_on, read_off = (tool_chars(agent_requests(b, "S2")[:1]) for b in (box, plain))
        # Turn 1's outputs as turn 2's first call carries them, and inside turn 1's own loop: compressed.
        self.assertLess(read_on, read_off, "%s: turn 2's first call should carry turn 1's outputs compressed" % shape)
        self.assertLess(t1_on, t1_off, "%s: turn 1's loop should carry compressed outputs" % shape)
        return "  Hermes %s, %-18s session %7d / %7d (%4.1f %%), turn 1's loop %7d / %7d (%s)" % (
            install["version"], shape + ":", on, off, 100.0 * on / off, t1_on, t1_off, "compressed" if t1_on < t1_off else "raw")


if __name__ == "__main__":
    unittest.main()
