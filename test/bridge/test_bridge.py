"""The bridge inside a fake Hermes that follows the documented contract: the conversation is never
damaged, never left compressed after a turn, and what Hermes stores stays raw, whatever the
sidecar does (answers, hangs, dies, is absent) and even without Node.

This file: the edits of a conversation, on the live turn and on each request (middleware,
pre_api_request), what each call sends the sidecar, and the real sidecar's round trip. Beside it,
by concern: test_bridge_sessions.py (which session a hook or /hmc is about), test_bridge_fail_open.py
(a sidecar that dies, hangs or is absent; no Node; a host without middleware; odd messages),
test_bridge_plugin.py (what the plugin registers: tool, command, `hermes hmc`, the skill) and
test_bridge_host_figures.py (Hermes' window, threshold and prices in the hello and each call)."""
import copy
import json
import unittest

from harness import BridgeCase, fake_sidecar_command, needs_build, needs_node, spy_calls
from fake_host import FakeCtx, FakeHermes
from reference import REFERENCE, REFERENCE_SNAPSHOTS, plugged_run, tool_contents
from scenario import PASS, SOURCE, TURNS


class BridgeTests(BridgeCase):
    # -- against the fake sidecar (always runs) ------------------------------------------------------

    def test_edits_and_middleware_compress_what_the_model_sees_but_never_what_is_kept(self):
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        assert "llm_request" in ctx.middleware
        host = plugged_run(ctx)
        # Turn 1: request 2 (after read_file) already carries the compressed read: the middleware.
        turn1 = host.requests[:4]
        assert tool_contents(turn1[1])[0].startswith("[compressed")
        assert all(c.startswith("[compressed") for c in tool_contents(turn1[3]))
        # Turn 2: the earlier turn's outputs arrive compressed through pre_llm_call's in-place edits.
        assert all(c.startswith("[compressed") for c in tool_contents(host.requests[4]))
        assert len(json.dumps(host.requests)) < len(json.dumps(REFERENCE.requests)) / 3
        assert self.hmc_logs() == []

    def test_later_turns_send_base_and_append_and_a_rewritten_history_sends_everything(self):
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        seen = spy_calls(bridge)
        host = FakeHermes(ctx, stamp_api_content=True)  # Hermes 0.19: the composed user message is replayed
        host.run_turn(*TURNS[0])
        host.run_turn(*TURNS[1])
        pre = [keys for method, keys in seen if method == "pre_llm_call"]
        assert "messages" in pre[0] and "base" in pre[1] and "append" in pre[1]
        # Hermes' own compressor rebuilds the history: a summary replaces the head, so everything goes.
        host.history = [{"role": "user", "content": "[summary of the earlier turns]"}] + [dict(m) for m in host.history[4:]]
        del seen[:]
        host.run_turn(*TURNS[2])
        assert [keys for method, keys in seen if method == "pre_llm_call"][0].count("messages") == 1
        model = [keys for method, keys in seen if method == "pre_model_call"]
        assert "base" in model[0]  # the model call after it holds the same conversation: incremental
        assert not any(str(m.get("content")).startswith("[compressed") for m in host.history)  # restored

    def test_a_restarted_sidecar_answers_resync_and_gets_the_whole_list(self):
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        host = FakeHermes(ctx, stamp_api_content=True)
        host.run_turn(*TURNS[0])
        # The sidecar lost what it held (the bridge cannot tell): it answers resync to base + append.
        bridge.sidecar.call("pre_llm_call", {"session_id": host.session_id, "messages": []})
        seen = spy_calls(bridge)
        host.run_turn(*TURNS[1])
        pre = [keys for method, keys in seen if method == "pre_llm_call"]
        assert "base" in pre[0] and "messages" in pre[1] and "base" not in pre[1]
        assert "unknown_future_kwarg" in pre[0] and "telemetry_schema_version" in pre[0]
        assert all(c.startswith("[compressed") for c in tool_contents(host.requests[4]))
        assert [{k: v for k, v in m.items() if k != "api_content"} for m in host.history] == REFERENCE_SNAPSHOTS[2]

    def test_every_model_call_carries_hermes_own_measure_of_the_raw_request(self):
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command(), HMC_FAKE_LOG=str(self.tmp / "fake.log"))
        host = FakeHermes(ctx, stamp_api_content=True)
        host.run_turn(*TURNS[0])
        log = [json.loads(line) for line in (self.tmp / "fake.log").read_text().splitlines()]
        sent = [r["params"]["host_tokens"] for r in log if r["method"] == "pre_model_call"]
        # Hermes' rule (characters / 4 of every message and of the tool schemas), on the request as
        # it was before HMC's edits: each tool result as the run without the plugin sent it.
        def raw(request, reference):
            return [dict(m, content=r["content"]) if m.get("role") == "tool" else m for m, r in zip(request["messages"], reference["messages"])]
        rough = [(sum(len(str(m)) for m in raw(r, ref)) + 3) // 4 + (len(str(r["tools"])) + 3) // 4 for r, ref in zip(host.requests, REFERENCE.requests[:len(sent)])]
        assert len(sent) == 4 and sent == rough, (sent, rough)
        # The compressed read went out, yet Hermes' measure of the raw request kept growing.
        assert tool_contents(host.requests[1])[0].startswith("[compressed") and sent == sorted(sent)

    def test_every_model_call_goes_to_pre_model_call_incrementally_with_the_fixed_part_once(self):
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command(), HMC_FAKE_LOG=str(self.tmp / "fake.log"))
        host = FakeHermes(ctx, stamp_api_content=True)
        for text, calls in TURNS:
            host.run_turn(text, calls)
        log = [json.loads(line) for line in (self.tmp / "fake.log").read_text().splitlines()]
        model = [r["params"] for r in log if r["method"] == "pre_model_call"]
        assert len(model) == len(host.requests)
        assert [m["call_id"] for m in model] == ["u%d:api:%d" % (t, c) for t, n in ((1, 4), (2, 2), (3, 1)) for c in range(1, n + 1)]
        # The system prompt and the tool schemas go once (they never changed), the conversation incrementally.
        assert [("system" in m, "tools" in m) for m in model] == [(True, True)] + [(False, False)] * (len(model) - 1)
        assert model[0]["system"] == "You are a fake Hermes. Use the tools." and len(model[0]["tools"]) == 2
        assert "messages" not in model[0] or len(model[0]["messages"]) == 1
        assert all("base" in m for m in model[1:])
        # The sidecar holds the conversation as Hermes sends it: the composed user message, raw tool results.
        held = [r["params"] for r in log if r["method"] in ("pre_llm_call", "pre_model_call")]
        last = held[-1]
        assert last["append"][-1]["role"] == "user" or last["base"] > 0
        # Views after the first come as deltas, and the requests still carry every edit.
        assert all(m["view"] > 0 for m in model[1:])
        assert all(c.startswith("[compressed") for c in tool_contents(host.requests[-1]))

    def test_an_edit_whose_message_changed_under_it_is_left_raw_and_everything_is_sent_next(self):
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        convo = [{"role": "user", "content": "go"}]
        for i in range(4):
            convo += [{"role": "assistant", "content": "", "tool_calls": [{"id": "c%d" % i, "type": "function", "function": {"name": "terminal", "arguments": "{}"}}]},
                      {"role": "tool", "tool_call_id": "c%d" % i, "name": "terminal", "content": "x" * (500 + i)}]
        convo.append({"role": "assistant", "content": "ok"})  # 10 messages: the anchors are 0, 2, 4, 6 and 9

        def request(msgs):
            return {"model": "m", "messages": [{"role": "system", "content": "S"}] + copy.deepcopy(msgs), "tools": []}

        out = bridge.llm_request(request=request(convo), session_id="s", api_request_id="a1", api_mode="chat_completions")
        assert out["request"]["messages"][9]["content"] == "[compressed 503]"
        # Something rewrote a tool result no anchor looks at: the old edit must not land on it.
        changed = copy.deepcopy(convo)
        changed[8]["content"] = "y" * 400
        seen = spy_calls(bridge)
        out = bridge.llm_request(request=request(changed + [{"role": "assistant", "content": "again"}]), session_id="s", api_request_id="a2", api_mode="chat_completions")
        assert out["request"]["messages"][9]["content"] == "y" * 400
        assert out["request"]["messages"][3]["content"] == "[compressed 500]"
        bridge.llm_request(request=request(changed), session_id="s", api_request_id="a3", api_mode="chat_completions")
        assert "messages" in [keys for method, keys in seen if method == "pre_model_call"][-1]

    def test_tool_calls_edits_shorten_arguments_in_the_request_only(self):
        # Input clearing: an answered write's arguments go out short; what Hermes keeps and stores is raw.
        for middleware in (True, False):  # 0.19 llm_request middleware; 0.16 pre_api_request (shallow copies)
            if not middleware:
                self.hermes_cli.middleware.VALID_MIDDLEWARE = {"tool_request"}
            ctx = FakeCtx()
            _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
            assert "tool_calls" in bridge.sidecar.hello_params["capabilities"]
            turn = [("write_file", {"path": "mod.py", "content": SOURCE}, json.dumps({"bytes_written": len(SOURCE)})),
                    ("terminal", {"command": "pytest -q"}, PASS), ("terminal", {"command": "pytest -q"}, PASS)]
            reference = FakeHermes(None)
            reference.run_turn("write mod.py", turn)
            host = FakeHermes(ctx)
            host.run_turn("write mod.py", turn)
            sent = [m for m in host.requests[2]["messages"] if m.get("tool_calls")]
            # As Hermes sends arguments (compact, keys sorted): what the sidecar measured.
            written = json.dumps({"path": "mod.py", "content": SOURCE}, separators=(",", ":"), sort_keys=True)
            assert json.loads(sent[0]["tool_calls"][0]["function"]["arguments"]) == {"cleared": len(written)}
            assert sent[0]["tool_calls"][0]["id"] == "call_1" and sent[0]["tool_calls"][0]["function"]["name"] == "write_file"
            assert json.loads(sent[1]["tool_calls"][0]["function"]["arguments"]) == {"command": "pytest -q"}  # the current step: whole
            assert host.requests[1]["messages"][2]["tool_calls"][0]["function"]["arguments"] == written
            assert host.history == reference.history and host.stored == reference.stored
            assert json.dumps(host.history) == json.dumps(reference.history)
            assert self.hmc_logs() == []

    def test_a_tool_calls_edit_that_changes_a_call_is_not_applied(self):
        ctx = FakeCtx()
        mod, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        views = mod.hmc_bridge.views
        sess = bridge._session("s")
        msg = {"role": "assistant", "content": "", "tool_calls": [{"id": "a", "type": "function", "function": {"name": "write_file", "arguments": "{}"}}]}
        calls = msg["tool_calls"]
        request = mod.hmc_bridge.shapes.read("chat_completions", {"messages": [msg]})
        sess.held = [("assistant", "")]
        sess.calls = {0: [("b", "function", "write_file", '{"x":1}')]}  # another id: refused
        assert views.apply_view(sess, request) is False and msg["tool_calls"] is calls
        sess.calls = {0: [("a", "function", "write_file", '{"x":1}')]}
        assert views.apply_view(sess, request) is True
        assert msg["tool_calls"] is not calls and calls[0]["function"]["arguments"] == "{}"  # a new list; the old one untouched
        assert msg["tool_calls"][0]["function"]["arguments"] == '{"x":1}'

    def test_a_delta_entry_replaces_the_whole_entry_of_its_index(self):
        mod, _ = self.load_bridge(FakeCtx(), HMC_SIDECAR_COMMAND=fake_sidecar_command())
        views = mod.hmc_bridge.views
        sess = views.Session()
        call = {"id": "a", "type": "function", "function": {"name": "t", "arguments": "{}"}}
        views.take_view(sess, {"edits": [{"index": 1, "content": "x", "tool_calls": [call]}, {"index": 2, "content": "y"}], "view": 1}, 5, 0)
        assert sess.view == {1: "x", 2: "y"} and sess.calls == {1: [("a", "function", "t", "{}")]}
        views.take_view(sess, {"edits": [{"index": 1, "tool_calls": [call]}], "view": 2, "since": 1, "removed": [2]}, 5, 1)
        assert sess.view == {} and 1 in sess.calls
        views.take_view(sess, {"edits": [{"index": 3, "tool_calls": [{"id": "b", "function": {"name": "t"}}]}], "view": 3}, 5, 0)
        assert sess.view == {} and sess.calls == {}  # not a delta, and a malformed tool_calls is left out

    def test_requests_of_a_shape_not_covered_or_an_unknown_form_are_left_alone(self):
        # Anthropic and Responses requests are edited (test_shapes.py); Bedrock's own shape and an
        # item the adapter does not know go raw, with no call to the sidecar.
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        seen = spy_calls(bridge)
        assert bridge.llm_request(request={"messages": [{"role": "user", "content": [{"text": "x" * 500}]}]}, session_id="s", api_mode="bedrock_converse") is None
        assert bridge.llm_request(request={"input": [{"type": "web_search_call", "id": "w"}]}, session_id="s", api_mode="codex_responses") is None
        assert bridge.llm_request(request={"messages": [{"role": "system", "content": "x"}]}, session_id="s", api_mode="anthropic_messages") is None
        assert not [m for m, _ in seen if m == "pre_model_call"]
        assert self.hmc_logs() == []

    def test_pre_api_request_never_edits_live_message_dicts(self):
        self.hermes_cli.middleware.VALID_MIDDLEWARE = set()
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        live = [{"role": "user", "content": "go"}, {"role": "tool", "tool_call_id": "c", "content": "z" * 500}]
        bridge.pre_api_request(session_id="s", request_messages=list(live), conversation_history=list(live), api_mode="chat_completions")
        assert live[1]["content"] == "z" * 500
        assert any("live messages" in line for line in self.hmc_logs())

    # -- against the real sidecar (needs `npm run build`) --------------------------------------------

    @needs_node
    @needs_build
    def test_real_sidecar_compresses_and_restores(self):
        ctx = FakeCtx()
        self.load_bridge(ctx)
        host = plugged_run(ctx)
        assert len(json.dumps(host.requests)) < len(json.dumps(REFERENCE.requests))
        assert self.hmc_logs() == []
        assert "HMC" in ctx.commands["hmc"]("status")
        assert "error" not in json.loads(ctx.tools["hmc_control"]["handler"]({"action": "analytics"}))


if __name__ == "__main__":
    unittest.main()
