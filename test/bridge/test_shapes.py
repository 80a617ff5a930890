"""Every request shape Hermes sends, through the bridge (issue 16): chat completions, Anthropic messages
and Responses, each read as the one conversation the sidecar holds and edited where each message
lives in it; the same view on every shape, inside the tool loop, on Hermes with request middleware
(0.19) and without (0.16: `pre_api_request`); prompt-cache markers on the blocks they were on; the
`tool_calls` edits of a view (shorter arguments of answered calls) on the request copy only,
checked first; Hermes' live conversation and what it stores byte-identical to a run without HMC.
The fake Hermes converts its requests as Hermes does (hermes_shapes.py); the model server's own
reader (wire_shapes.py) reads what went out."""
import copy
import json
import unittest

import hermes_shapes as H
import wire_shapes as W
from fake_host import FakeCtx, FakeHermes
from harness import REPO, BridgeCase, fake_sidecar_command, load_plugin, needs_build, needs_node, spy_calls
from scenario import FAIL, PASS, READ, TURNS

SHAPES = (H.CHAT, H.ANTHROPIC, H.RESPONSES)
BIG_WRITE = {"path": "notes.md", "content": "A line of the notes file.\n" * 40}
WRITE_TURNS = [  # a write, answered; a batch of two calls in one answer; a test run
    ("Write the notes, then test", [("write_file", BIG_WRITE, json.dumps({"bytes_written": 1040})),
                                    [("read_file", {"path": "mod.py"}, READ), ("terminal", {"command": "pytest -q"}, FAIL)],
                                    ("terminal", {"command": "pytest -q"}, PASS)]),
    ("Thanks", []),
]


def reference(shape, turns):
    host = FakeHermes(None, shape=shape)
    snapshots = []
    for text, calls in turns:
        host.run_turn(text, calls)
        snapshots.append(copy.deepcopy(host.history))
    return host, snapshots


def plugged(ctx, shape, turns):
    """The turns with the plugin; after every turn Hermes' live conversation, and at the end what it
    stored, equal a run without it."""
    ref, snapshots = reference(shape, turns)
    host = FakeHermes(ctx, shape=shape)
    for (text, calls), snapshot in zip(turns, snapshots):
        host.run_turn(text, calls)
        assert json.dumps(host.history) == json.dumps(snapshot)
    host.finalize()
    assert json.dumps(host.stored) == json.dumps(ref.stored)
    return host, ref


def neutral(shape, request):
    """A request as the model server reads it: chat messages, the system prompt first."""
    return W.view(shape, request)["messages"]


def tool_texts(shape, request):
    return [m["content"] for m in neutral(shape, request) if m["role"] == "tool"]


def markers(value, path=()):
    """Every cache_control marker of a request: the path of the dict that carries it."""
    if isinstance(value, dict):
        found = [path] if "cache_control" in value else []
        return found + [p for k, v in value.items() for p in markers(v, path + (k,))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in markers(v, path + (i,))]
    return []


def call_arguments(shape, request):
    """Every call's arguments as the request carries them, as dicts, in order."""
    return [json.loads(c["function"]["arguments"]) for m in neutral(shape, request) for c in m.get("tool_calls") or []]


class AdapterTests(BridgeCase):
    """The adapters alone, on requests converted as Hermes converts them."""

    def setUp(self):
        super().setUp()
        bridge = load_plugin(self, "hmc_shapes").hmc_bridge
        self.shapes, self.views = bridge.shapes, bridge.views

    def chat(self):
        host = FakeHermes(None)
        host.run_turn(*WRITE_TURNS[0])
        # The turn without its last answer, then a user note: Anthropic merges it after the results.
        messages = copy.deepcopy(host.history[:-1]) + [{"role": "user", "content": "a steer note"}]
        for m in messages:
            for c in m.get("tool_calls") or []:  # as Hermes sends them: compact, keys sorted
                c["function"]["arguments"] = json.dumps(json.loads(c["function"]["arguments"]), separators=(",", ":"), sort_keys=True)
        return {"model": "m", "messages": [{"role": "system", "content": "S"}] + messages,
                "tools": [{"type": "function", "function": {"name": "read_file", "parameters": {}}}]}

    def test_each_shape_reads_as_the_chat_conversation(self):
        chat = self.chat()
        expected = [{k: m[k] for k in ("role", "content", "tool_calls", "tool_call_id") if k in m} for m in chat["messages"][1:]]
        expected[-1]["content"] = "a steer note"
        for shape in SHAPES:
            request = self.shapes.read(shape, H.convert(shape, chat))
            self.assertEqual(request.system, "S", shape)
            self.assertEqual(request.tool_names, ("read_file",), shape)
            got = [{k: m[k] for k in ("role", "content", "tool_calls", "tool_call_id") if k in m} for m in request.messages]
            for m, e in zip(got, expected):
                if m["role"] == "assistant" and not e["content"]:
                    m["content"] = e["content"]  # a shape leaves an empty text out: alike, below
            self.assertEqual(got, expected, shape)
            self.assertTrue(request.alike("assistant", "", got[1]["content"]) or shape == H.CHAT)

    def test_responses_items_of_one_assistant_message_read_as_one_message(self):
        items = [{"role": "user", "content": "go"},
                 {"type": "reasoning", "encrypted_content": "x", "summary": []},
                 {"type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "Reading."}]},
                 {"type": "function_call", "call_id": "c1", "name": "read_file", "arguments": "{}"},
                 {"type": "function_call", "call_id": "c2", "name": "terminal", "arguments": "{}"},
                 {"type": "function_call_output", "call_id": "c1", "output": "one"},
                 {"type": "function_call_output", "call_id": "c2", "output": "two"},
                 {"type": "reasoning", "encrypted_content": "y", "summary": []},
                 {"role": "assistant", "content": ""},
                 {"role": "assistant", "content": "Done."}]
        request = self.shapes.read(H.RESPONSES, {"instructions": "S", "input": items})
        self.assertEqual([(m["role"], m["content"], [c["id"] for c in m.get("tool_calls") or []]) for m in request.messages],
                         [("user", "go", []), ("assistant", "Reading.", ["c1", "c2"]), ("tool", "one", []), ("tool", "two", []),
                          ("assistant", "", []), ("assistant", "Done.", [])])

    def test_an_edit_changes_only_its_text_and_every_marker_stays_on_its_block(self):
        chat = self.chat()
        for shape in SHAPES:
            sent = H.convert(shape, chat)
            before = copy.deepcopy(sent)
            request = self.shapes.read(shape, sent)
            for i, m in enumerate(request.messages):
                if m["role"] == "tool":
                    self.assertTrue(request.put(i, "[short %d]" % i), shape)
            self.assertEqual(markers(sent), markers(before), shape)
            self.assertTrue(markers(before) or shape != H.ANTHROPIC)
            self.assertEqual([t for t in tool_texts(shape, sent)], ["[short %d]" % i for i, m in enumerate(request.messages) if m["role"] == "tool"])
            # Nothing but those texts changed.
            for i, m in enumerate(request.messages):
                if m["role"] == "tool":
                    request.put(i, tool_texts(shape, before)[[j for j, n in enumerate(request.messages) if n["role"] == "tool"].index(i)])
            self.assertEqual(json.dumps(sent, sort_keys=True), json.dumps(before, sort_keys=True), shape)

    def test_a_request_of_an_unknown_form_is_left_raw(self):
        self.assertIsNone(self.shapes.read(H.RESPONSES, {"input": [{"type": "web_search_call", "id": "w"}]}))
        self.assertIsNone(self.shapes.read(H.RESPONSES, {"input": "a plain string"}))
        self.assertIsNone(self.shapes.read(H.ANTHROPIC, {"messages": [{"role": "system", "content": "x"}]}))
        self.assertIsNone(self.shapes.read(H.ANTHROPIC, {"messages": [{"role": "user", "content": ["not a block"]}]}))
        self.assertIsNone(self.shapes.read("bedrock_converse", {"messages": []}))
        self.assertIsNotNone(self.shapes.read(None, {"messages": []}))

    def test_a_tool_calls_edit_must_keep_the_calls(self):
        chat = self.chat()
        for shape in SHAPES:
            request = self.shapes.read(shape, H.convert(shape, chat))
            at = next(i for i, m in enumerate(request.messages) if len(m.get("tool_calls") or []) == 2)
            calls = copy.deepcopy(chat["messages"][1 + at]["tool_calls"])
            check = lambda edited: self.shapes.call_arguments(request, at, self.views._calls(edited))  # as views keeps them
            self.assertEqual([a for a, _ in check(calls)], [c["function"]["arguments"] for c in calls], shape)
            for broken in (calls[:1], calls[::-1], [dict(calls[0], id="other"), calls[1]],
                           [dict(calls[0], function=dict(calls[0]["function"], name="terminal")), calls[1]],
                           [dict(calls[0], type="custom"), calls[1]],
                           [dict(calls[0], function=dict(calls[0]["function"], arguments="[1, 2]")), calls[1]],
                           [dict(calls[0], function=dict(calls[0]["function"], arguments="{not json")), calls[1]],
                           "not a list"):
                self.assertIsNone(check(broken), (shape, broken))
        # Anthropic sends ids sanitised: the edit names the call by Hermes' own id.
        chat["messages"][2]["tool_calls"][0]["id"] = chat["messages"][3]["tool_call_id"] = "call:1"
        request = self.shapes.read(H.ANTHROPIC, H.convert(H.ANTHROPIC, chat))
        self.assertEqual(request.calls(1), [("call_1", "write_file", "function")])
        self.assertIsNotNone(self.shapes.call_arguments(request, 1, self.views._calls(chat["messages"][2]["tool_calls"])))


class ShapesThroughTheBridge(BridgeCase):
    """The bridge in a fake Hermes speaking each shape, with the fake sidecar (edits for long tool
    results; `--call-edits`: shorter arguments of answered calls)."""

    def run_shape(self, shape, turns=TURNS, middleware=True, *sidecar):
        self.hermes_cli.middleware.VALID_MIDDLEWARE = {"llm_request", "tool_request"} if middleware else {"tool_request"}
        self._records.records.clear()  # each run its own log lines
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command(*sidecar))
        self.assertEqual("llm_request" in ctx.middleware, middleware)
        host, ref = plugged(ctx, shape, turns)
        return host, ref, bridge

    def test_every_shape_carries_the_view_inside_the_tool_loop_and_keeps_hermes_raw(self):
        for shape in SHAPES:
            for middleware in (True, False):
                with self.subTest(shape=shape, middleware=middleware):
                    host, ref, _ = self.run_shape(shape, TURNS, middleware)
                    # Turn 1: the request after read_file already carries it compressed, the one after
                    # both test runs carries all three; every later request too.
                    self.assertTrue(tool_texts(shape, host.requests[1])[0].startswith("[compressed"))
                    self.assertTrue(all(t.startswith("[compressed") for r in host.requests[3:] for t in tool_texts(shape, r)))
                    # The same requests as without HMC but for those texts: every marker where Hermes put it.
                    for sent, raw in zip(host.requests, ref.requests):
                        self.assertEqual(markers(sent), markers(raw))
                        self.assertEqual([(m["role"], m.get("tool_call_id")) for m in neutral(shape, sent)],
                                         [(m["role"], m.get("tool_call_id")) for m in neutral(shape, raw)])
                    self.assertTrue(markers(host.requests[-1]) or shape != H.ANTHROPIC)
                    self.assertEqual(self.hmc_logs(), [])

    def test_texts_a_shape_drops_or_replaces_keep_the_conversation_the_sidecar_holds(self):
        # An assistant's empty text (None here, as a resumed session has it) is left out by both
        # shapes; an empty tool output goes as "(no output)" to Anthropic. The same messages: later
        # turns still send only what is new, and no call re-sends the whole conversation.
        turns = [("Run it", [("terminal", {"command": "true"}, ""), ("read_file", {"path": "mod.py"}, READ)]),
                 ("Again", [("terminal", {"command": "pytest -q"}, PASS)]), ("Thanks", [])]
        for shape in (H.ANTHROPIC, H.RESPONSES):
            with self.subTest(shape=shape):
                self.hermes_cli.middleware.VALID_MIDDLEWARE = {"llm_request"}
                ctx = FakeCtx()
                _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
                seen = spy_calls(bridge)
                ref = FakeHermes(None, shape=shape, stamp_api_content=True, call_text=None)
                host = FakeHermes(ctx, shape=shape, stamp_api_content=True, call_text=None)
                for text, calls in turns:
                    ref.run_turn(text, calls)
                    host.run_turn(text, calls)
                    # (but for the api_content 0.19 stamps: the user message with HMC's hint)
                    self.assertEqual(json.dumps([{k: v for k, v in m.items() if k != "api_content"} for m in host.history]), json.dumps(ref.history))
                sent = [(method, "messages" in keys) for method, keys in seen if method in ("pre_llm_call", "pre_model_call")]
                # The first two calls send the one user message whole (it gains HMC's hint in between).
                self.assertEqual(sent[:2], [("pre_llm_call", True), ("pre_model_call", True)])
                self.assertEqual([whole for _, whole in sent[2:]], [False] * (len(sent) - 2), sent)
                self.assertTrue(tool_texts(shape, host.requests[2])[1].startswith("[compressed"))
                self.assertEqual(self.hmc_logs(), [])

    def test_a_sidecar_that_lost_the_session_answers_resync_and_gets_the_whole_request_in_every_shape(self):
        for shape in SHAPES:
            with self.subTest(shape=shape):
                ctx = FakeCtx()
                _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
                seen = spy_calls(bridge)
                ref, _ = reference(shape, TURNS[:1])
                host = FakeHermes(ctx, shape=shape)
                forgot = []

                def forget_once():  # after turn 1's second call, the sidecar holds nothing of the session
                    if len(host.requests) == 2 and not forgot:
                        forgot.append(bridge.sidecar.call("pre_llm_call", {"session_id": host.session_id, "messages": []}))
                host.between_calls = forget_once
                host.run_turn(*TURNS[0])
                self.assertEqual(json.dumps(host.history), json.dumps(ref.history))
                model = [keys for method, keys in seen if method == "pre_model_call"]
                self.assertIn("base", model[2])  # the third call tries base + append, is told resync, sends it whole
                self.assertIn("messages", model[3])
                self.assertTrue(all(t.startswith("[compressed") for t in tool_texts(shape, host.requests[3])))
                self.assertEqual(self.hmc_logs(), [])

    def test_a_parallel_batch_in_one_anthropic_user_message_gets_each_result_edited(self):
        host, ref, _ = self.run_shape(H.ANTHROPIC, WRITE_TURNS)
        last = host.requests[3]  # after the batch and the next call
        batch = [m for m in last["messages"] if m["role"] == "user" and len(m["content"]) == 2][0]
        self.assertEqual([b["type"] for b in batch["content"]], ["tool_result", "tool_result"])
        self.assertTrue(all(b["content"].startswith("[compressed") for b in batch["content"]))

    def test_tool_calls_edits_shorten_answered_calls_in_every_shape_on_the_request_only(self):
        for shape in SHAPES:
            for middleware in (True, False):
                with self.subTest(shape=shape, middleware=middleware):
                    host, ref, bridge = self.run_shape(shape, WRITE_TURNS, middleware, "--call-edits", "short")
                    self.assertIn("tool_calls", bridge.sidecar.hello_params["capabilities"])
                    # The write is answered from the second request on: its arguments go short there.
                    first = call_arguments(shape, host.requests[1])[0]
                    self.assertEqual((first["path"], first["hmc"][:8]), ("notes.md", "cleared "))
                    for sent, raw in zip(host.requests[1:], ref.requests[1:]):
                        got, want = call_arguments(shape, sent), call_arguments(shape, raw)
                        self.assertEqual(want[0], BIG_WRITE)
                        self.assertEqual(got[1:], want[1:])  # the short calls are left whole
                        self.assertEqual(markers(sent), markers(raw))
                    self.assertEqual(call_arguments(shape, host.requests[0]), [])
                    if shape == H.ANTHROPIC:  # a tool_use input is a dict, as Anthropic wants it
                        uses = [b for m in host.requests[2]["messages"] if isinstance(m["content"], list) for b in m["content"] if b.get("type") == "tool_use"]
                        self.assertIsInstance(uses[0]["input"], dict)
                    self.assertEqual(self.hmc_logs(), [])

    def test_a_tool_calls_edit_that_changes_a_call_is_dropped_with_one_line(self):
        for shape in SHAPES:
            with self.subTest(shape=shape):
                host, ref, _ = self.run_shape(shape, WRITE_TURNS, True, "--call-edits", "forged")
                for sent, raw in zip(host.requests, ref.requests):
                    self.assertEqual(call_arguments(shape, sent), call_arguments(shape, raw))
                    self.assertTrue(all(t.startswith("[compressed") or len(t) < 200 for t in tool_texts(shape, sent)))
                lines = self.hmc_logs()
                self.assertEqual(len(lines), 1, lines)
                self.assertIn("tool_calls edit", lines[0])

    def test_a_host_without_the_capability_gets_no_tool_calls_edits(self):
        self.hermes_cli.middleware.VALID_MIDDLEWARE = set()
        self.hermes_cli.plugins.VALID_HOOKS = self.hermes_cli.plugins.VALID_HOOKS - {"pre_api_request"}
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command("--call-edits", "short"))
        self.assertNotIn("tool_calls", bridge.sidecar.hello_params["capabilities"])

    @needs_node
    @needs_build
    def test_the_real_sidecar_compresses_every_shape_inside_the_loop(self):
        for shape in SHAPES:
            with self.subTest(shape=shape):
                ctx = FakeCtx()
                self.load_bridge(ctx)
                host, ref = plugged(ctx, shape, TURNS)
                on = [sum(len(t) for t in tool_texts(shape, r)) for r in host.requests]
                off = [sum(len(t) for t in tool_texts(shape, r)) for r in ref.requests]
                self.assertLess(on[1], off[1])  # turn 1's loop
                self.assertLess(sum(on), sum(off) / 2)
                for sent, raw in zip(host.requests, ref.requests):
                    self.assertEqual(markers(sent), markers(raw))
                self.assertEqual(self.hmc_logs(), [])


if __name__ == "__main__":
    unittest.main()
