"""The bridge inside a fake Hermes that follows the documented contract: the conversation is never
damaged, never left compressed after a turn, and what Hermes stores stays raw, whatever the
sidecar does (answers, hangs, dies, is absent) and even without Node."""
import copy
import json
import os
import stat
import sys
import time
import types
import unittest

from harness import REPO, BridgeCase, fake_sidecar_command, needs_build, needs_node, spy_calls
from fake_host import FakeCtx, FakeHermes
from scenario import PASS, SOURCE, TURNS


def reference_run():
    host = FakeHermes(None)
    snapshots = [copy.deepcopy(host.history)]
    for text, calls in TURNS:
        host.run_turn(text, calls)
        snapshots.append(copy.deepcopy(host.history))
    return host, snapshots


REFERENCE, REFERENCE_SNAPSHOTS = reference_run()


def plugged_run(ctx, between_calls=None, after_turn=None):
    host = FakeHermes(ctx)
    host.between_calls = between_calls
    for n, (text, calls) in enumerate(TURNS):
        host.run_turn(text, calls)
        # After every turn the live conversation is byte-identical to a run without the plugin.
        assert host.history == REFERENCE_SNAPSHOTS[n + 1]
        assert json.dumps(host.history) == json.dumps(REFERENCE_SNAPSHOTS[n + 1])
        if after_turn:
            after_turn(host, n)
    host.finalize()
    assert host.stored == REFERENCE.stored  # what Hermes persisted is raw
    return host


def tool_contents(request):
    return [m["content"] for m in request["messages"] if m.get("role") == "tool"]


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


    def test_finalize_without_a_session_id_ends_every_session_this_process_touched(self):
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command(), HMC_FAKE_LOG=str(self.tmp / "fake.log"))
        a, b = FakeHermes(ctx, "A"), FakeHermes(ctx, "B")
        a.run_turn(*TURNS[0])
        b.run_turn(*TURNS[0])
        a.invoke("on_session_finalize", session_id=None, platform="cli", reason="shutdown")  # Hermes' CLI exit
        finals = [json.loads(line)["params"] for line in (self.tmp / "fake.log").read_text().splitlines() if '"on_session_finalize"' in line]
        assert [f["session_id"] for f in finals] == [""]
        assert bridge.sessions == {} and bridge.last_session == ""
        assert a.history == b.history == REFERENCE_SNAPSHOTS[1]


    def test_hmc_status_follows_the_session_hermes_starts_with_new(self):
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        assert bridge.last_session == ""
        host = FakeHermes(ctx, "old")
        host.run_turn(*TURNS[0])
        host.finalize()
        assert bridge.last_session == ""  # not the finalized session's figures
        host.invoke("on_session_reset", session_id="new", platform="cli", reason="new_session")
        seen = []
        real = bridge.sidecar.call
        bridge.sidecar.call = lambda method, params, timeout=None: seen.append(params) or real(method, params, timeout)
        ctx.commands["hmc"]("status")
        assert seen[-1]["session_id"] == "new"

    def test_hmc_after_a_restart_is_about_the_session_hermes_cli_resumed(self):
        # Issue 17, finding 2: `hermes chat --resume ID`, then /hmc before any message. No hook has
        # run yet; Hermes' CLI (its plugin manager's `_cli_ref`) already holds the resumed id.
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        seen = []
        real = bridge.sidecar.call
        bridge.sidecar.call = lambda method, params, timeout=None: seen.append((method, params)) or real(method, params, timeout)
        cli = types.SimpleNamespace(session_id="resumed-1", agent=None)
        manager = types.SimpleNamespace(_cli_ref=cli)
        self.hermes_cli.plugins.get_plugin_manager = lambda: manager
        ctx.commands["hmc"]("status")
        bridge.hmc_control({"action": "stats"})  # a call without a session id (a plugin's dispatch_tool)
        assert [p["session_id"] for _, p in seen] == ["resumed-1", "resumed-1"]
        # Once the agent is built its id is the one hooks use (a compression may have moved it on).
        cli.agent = types.SimpleNamespace(session_id="moved-on")
        ctx.commands["hmc"]("status")
        assert seen[-1][1]["session_id"] == "moved-on"
        # Outside the CLI (gateway, -q) there is no reference: the last session a hook named.
        manager._cli_ref = None
        FakeHermes(ctx, "hooked").run_turn(*TURNS[0])
        ctx.commands["hmc"]("status")
        assert seen[-1][1]["session_id"] == "hooked"
        # A Hermes whose plugin manager cannot be asked fails open to the same.
        self.hermes_cli.plugins.get_plugin_manager = lambda: (_ for _ in ()).throw(RuntimeError("no manager"))
        ctx.commands["hmc"]("status")
        assert seen[-1][1]["session_id"] == "hooked"


    def test_sidecar_killed_mid_turn_changes_nothing_and_restarts_later(self):
        ctx = FakeCtx()
        mod, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        self.setattr(mod.hmc_bridge.sidecar, "BACKOFF_MAX", 0.2)
        killed = []

        def kill_once():
            if not killed and bridge.sidecar.proc is not None:
                killed.append(bridge.sidecar.proc.pid)
                bridge.sidecar.proc.kill()
                bridge.sidecar.proc.wait()

        plugged_run(ctx, between_calls=kill_once)
        assert killed
        lines = self.hmc_logs()
        assert 1 <= len(lines) <= 2 and "sidecar" in lines[0]
        time.sleep(0.3)
        assert json.loads(bridge.hmc_control({"action": "status"}))["echo"]["args"] == {"action": "status"}
        assert bridge.sidecar.proc.pid != killed[0]


    def test_hanging_sidecar_times_out_and_the_turn_goes_on(self):
        ctx = FakeCtx()
        mod, _ = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command("--hang", "pre_llm_call"))
        self.setattr(mod.hmc_bridge.sidecar, "HOOK_TIMEOUT", 0.3)
        started = time.monotonic()
        host = FakeHermes(ctx)
        host.run_turn(*TURNS[0])
        assert time.monotonic() - started < 3
        assert host.history == REFERENCE_SNAPSHOTS[1]
        assert host.stored == REFERENCE_SNAPSHOTS[1]
        assert any("did not answer pre_llm_call" in line for line in self.hmc_logs())


    def test_absent_sidecar_logs_once_and_passes_through(self):
        ctx = FakeCtx()
        self.load_bridge(ctx, HMC_SIDECAR_COMMAND=json.dumps(["/nonexistent/hmc-sidecar"]))
        host = plugged_run(ctx)
        assert host.requests == REFERENCE.requests
        lines = self.hmc_logs()
        assert len(lines) == 1 and "could not start" in lines[0]
        assert "unavailable" in json.loads(ctx.tools["hmc_control"]["handler"]({"action": "status"}))["error"]


    def test_sidecar_that_dies_on_a_method_fails_open(self):
        ctx = FakeCtx()
        self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command("--die-on", "post_tool_call"))
        plugged_run(ctx)
        assert any("exited (code 3)" in line or "could not be written" in line for line in self.hmc_logs())


    def test_without_node_nothing_is_registered(self):
        empty = self.tmp / "empty-bin"
        empty.mkdir()
        self.setenv("PATH", str(empty))
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx)
        assert bridge is None and ctx.hooks == {} and ctx.tools == {} and ctx.commands == {}
        lines = self.hmc_logs()
        assert len(lines) == 1 and "Node.js not found" in lines[0]
        host = FakeHermes(ctx)
        host.run_turn(*TURNS[0])
        assert host.history == REFERENCE_SNAPSHOTS[1]


    def test_too_old_node_turns_hmc_off_with_one_line(self):
        bindir = self.tmp / "old-node"
        bindir.mkdir()
        node = bindir / "node"
        node.write_text("#!/bin/sh\necho v18.19.0\n")
        node.chmod(node.stat().st_mode | stat.S_IEXEC)
        self.setenv("PATH", str(bindir) + os.pathsep + "/usr/bin:/bin")
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx)
        plugged_run(ctx)
        lines = self.hmc_logs()
        assert len(lines) == 1 and "too old" in lines[0]
        assert bridge.sidecar.proc is None


    def test_host_without_request_middleware_edits_each_request_through_pre_api_request(self):
        # Hermes 0.16 has no llm_request middleware; pre_api_request gets the request's own dicts.
        self.hermes_cli.middleware.VALID_MIDDLEWARE = {"tool_request"}
        ctx = FakeCtx()
        self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        assert ctx.middleware == {} and "pre_api_request" in ctx.hooks
        host = plugged_run(ctx)
        assert tool_contents(host.requests[1])[0].startswith("[compressed")  # inside turn 1's tool loop
        assert all(c.startswith("[compressed") for c in tool_contents(host.requests[4]))


    def test_host_with_neither_still_restores_exactly(self):
        self.hermes_cli.middleware.VALID_MIDDLEWARE = {"tool_request"}
        self.hermes_cli.plugins.VALID_HOOKS = self.hermes_cli.plugins.VALID_HOOKS - {"pre_api_request"}
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        assert ctx.middleware == {} and "pre_api_request" not in ctx.hooks
        host = plugged_run(ctx)
        assert not tool_contents(host.requests[1])[0].startswith("[compressed")  # no per-request look
        assert all(c.startswith("[compressed") for c in tool_contents(host.requests[4]))  # next turn: edits
        assert "model_call" not in bridge.sidecar.hello_params["capabilities"]


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


    def test_odd_messages_pass_through(self):
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        parts = [{"type": "text", "text": "x" * 500}, {"type": "image_url", "image_url": {"url": "data:..."}}]
        history = [{"role": "user", "content": parts}, {"role": "tool", "content": None, "tool_call_id": "c"},
                   {"role": "weird", "content": "y" * 300}, {"role": "tool", "content": "\ud800 lone surrogate" + "z" * 300}]
        before = copy.deepcopy(history)
        out = bridge.pre_llm_call(session_id="s", conversation_history=list(history), user_message="u", extra=object())
        assert out == {"context": "hmc: 1 edits"}
        assert history[3]["content"].startswith("[compressed")
        bridge.on_session_end(session_id="s", completed=True)
        assert history == before


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


    @needs_node
    @needs_build
    def test_real_sidecar_killed_mid_turn(self):
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx)
        killed = []

        def kill_once():
            if len(REFERENCE.requests) and not killed and bridge.sidecar.proc is not None:
                killed.append(bridge.sidecar.proc.pid)
                bridge.sidecar.proc.kill()

        plugged_run(ctx, between_calls=kill_once)
        assert killed and self.hmc_logs()


    @needs_node
    @needs_build
    def test_a_gateway_sender_is_the_owner_of_its_session(self):
        # Issue 19, finding 4: Hermes names the sender with pre_llm_call (platform, sender_id); the
        # sidecar keeps it as the session's owner, so users never read each other's index.
        _, bridge = self.load_bridge(FakeCtx())
        for sid, sender in (("tg-a", "1001"), ("tg-b", "2002")):
            bridge.pre_llm_call(session_id=sid, conversation_history=[{"role": "user", "content": "hi"}], model="m", platform="telegram", sender_id=sender)
            bridge.on_session_finalize(session_id=sid, platform="telegram", reason="shutdown")
        files = [self.home / "hmc_state" / "sessions" / ("%s.json" % sid) for sid in ("tg-a", "tg-b")]
        deadline = time.time() + 10
        while not all(f.exists() for f in files) and time.time() < deadline:
            time.sleep(0.05)
        owners = [(json.loads(f.read_text())["platform"], json.loads(f.read_text())["user"]) for f in files]
        assert owners == [("telegram", "1001"), ("telegram", "2002")], owners
        answer = json.loads(bridge.hmc_control({"action": "index", "session": "tg-a"}, session_id="tg-b"))
        assert answer.get("count") == 0 and answer.get("entries") == [], answer

    @needs_node
    @needs_build  # the sidecar reads Hermes' config.yaml (its cases: test/hosts/hermes/config-file.test.ts)
    def test_the_context_window_comes_from_hermes_config(self):
        (self.home / "config.yaml").write_text(
            "plugins:\n  enabled: [hmc]\nmodel:\n  provider: custom\n  # the window\n  context_length: 131072  # tokens\n  default: m\ncompression:\n  context_length: 5\n"
        )
        mod, bridge = self.load_bridge(FakeCtx())
        assert bridge.sidecar.hello_params["host_config_file"] == str(self.home / "config.yaml")
        seen = spy_calls(bridge)
        bridge.pre_llm_call(session_id="s", conversation_history=[{"role": "user", "content": "hi"}], model="m")
        assert bridge.context_length == 131072
        assert ("pre_llm_call", sorted(["session_id", "messages", "model", "context_length", "compression_threshold"])) in seen

    @needs_node
    @needs_build
    def test_hermes_compression_threshold_comes_from_its_config(self):
        (self.home / "config.yaml").write_text("model:\n  context_length: 200000\ncompression:\n  enabled: true\n  threshold: 0.6  # share\n")
        mod, bridge = self.load_bridge(FakeCtx())
        bridge.pre_llm_call(session_id="s", conversation_history=[{"role": "user", "content": "hi"}], model="m")
        try:
            import agent.context_compressor  # noqa: F401  (a real Hermes applies its own floors)
            has_hermes = True
        except Exception:
            has_hermes = False
        if not has_hermes:
            assert bridge.compression_threshold == 0.6
        assert mod.hmc_bridge.hermes.trigger_share(None, 0.6) == 0.6  # no window: the share as it is
        (self.home / "config.yaml").write_text("compression:\n  enabled: false\n  threshold: 0.6\n")
        _, off = self.load_bridge(FakeCtx())
        seen = spy_calls(off)
        off.pre_llm_call(session_id="s", conversation_history=[{"role": "user", "content": "hi"}], model="m")
        assert off.compression_threshold is None and off.context_length is None
        assert ("pre_llm_call", sorted(["session_id", "messages", "model"])) in seen

    def test_a_summary_is_priced_from_hermes_own_price_table_when_it_knows_both_models(self):
        import types
        from decimal import Decimal
        from unittest import mock

        mod, bridge = self.load_bridge(FakeCtx(), HMC_SIDECAR_COMMAND=fake_sidecar_command())
        table = {"big": (Decimal("3"), Decimal("15")), "aux-model": (Decimal("0.8"), Decimal("4")), "free": (Decimal("0"), Decimal("0"))}

        def get_pricing_entry(model, provider=None, base_url=None, api_key=None):
            if model not in table:
                return None
            return types.SimpleNamespace(input_cost_per_million=table[model][0], output_cost_per_million=table[model][1])

        pricing = types.ModuleType("agent.usage_pricing")
        pricing.get_pricing_entry = get_pricing_entry
        with mock.patch.dict(sys.modules, {"agent": types.ModuleType("agent"), "agent.usage_pricing": pricing}):
            price = mod.hmc_bridge.hermes.summariser_price
            assert price(("big", "anthropic", None), "aux-model", "anthropic") == {"input": 0.8 / 3, "output": 4 / 3}
            assert price(("big", "anthropic", None), "", None) == {"input": 1.0, "output": 5.0}  # no model named: the main one
            assert price(("big", "anthropic", None), "unknown-model", "x") is None
            assert price(("free", "local", None), "aux-model", None) is None  # a free main model: no multiple
            assert price(None, "aux-model", None) is None  # no model call seen yet
            # Through llm.complete: the answer carries the price once a model call named the main model.
            assert "price" not in bridge.host_request("llm.complete", {"messages": [{"role": "user", "content": "x"}], "max_tokens": 5})
            bridge.main_model = ("big", "anthropic", None)
            answer = bridge.host_request("llm.complete", {"messages": [{"role": "user", "content": "x"}], "max_tokens": 5})
            assert answer["price"] == {"input": 0.8 / 3, "output": 4 / 3} and answer["model"] == "aux-model"

    def test_a_hello_without_host_figures_sends_none_and_odd_figures_are_ignored(self):
        for figures in (None, {"context_length": "131072", "compression_threshold": True}, {"context_length": -1, "compression_threshold": 0}):
            with self.subTest(figures=figures):
                extra = ("--host-config", json.dumps(figures)) if figures is not None else ()
                _, bridge = self.load_bridge(FakeCtx(), HMC_SIDECAR_COMMAND=fake_sidecar_command(*extra))
                seen = spy_calls(bridge)
                bridge.pre_llm_call(session_id="s", conversation_history=[{"role": "user", "content": "hi"}], model="m")
                assert (bridge.context_length, bridge.compression_threshold, bridge.stream_bytes) == (None, None, None)
                assert ("pre_llm_call", sorted(["session_id", "messages", "model"])) in seen
        _, bridge = self.load_bridge(FakeCtx(), HMC_SIDECAR_COMMAND=fake_sidecar_command("--host-config", json.dumps({"context_length": 64000, "compression_threshold": 0.7})))
        seen = spy_calls(bridge)
        bridge.pre_llm_call(session_id="s", conversation_history=[{"role": "user", "content": "hi"}], model="m")
        assert bridge.context_length == 64000
        assert ("pre_llm_call", sorted(["session_id", "messages", "model", "context_length", "compression_threshold"])) in seen


if __name__ == "__main__":
    unittest.main()
