"""Hermes 0.16's `pre_api_request` (no request middleware): the hook's `request` is a sanitised copy
(run_agent `_sanitize_hook_payload`: nothing below depth 8, strings cut at 8,000 or 1,000
characters, over 50,000 characters a preview with no body), so the bridge takes the tool schemas
and the system prompt from the request's own body, the one its `request_messages` belong to
(issue 24: HMC counted 10,087 of 11,967 schema tokens with 0.16's default tools). Where no caller
holds that body, the hook's copy is used as it is, with one log line.
"""
import copy
import json
import logging
import unittest

from harness import BridgeCase, fake_sidecar_command
from fake_host import FakeCtx

DEEP = {"type": "object", "properties": {"action": {"type": "string", "enum": ["add", "replace", "remove"]},
                                         "paths": {"type": "array", "items": {"type": "object", "properties": {"path": {"type": "string"}}}}},
        "required": ["action"]}
CHAT_TOOLS = [{"type": "function", "function": {"name": "memory", "description": "Keeps notes. " * 120, "parameters": DEEP}},
              {"type": "function", "function": {"name": "terminal", "description": "Runs a command.", "parameters": DEEP}}]
ANTHROPIC_TOOLS = [{"name": t["function"]["name"], "description": t["function"]["description"], "input_schema": DEEP} for t in CHAT_TOOLS]
SYSTEM = "You are Hermes. " * 300  # 4,800 characters: over the 1,000 a long payload's copy keeps


def cut(value, depth=0, limit=1000):
    """What 0.16's hook shows of a value: Hermes' _hook_jsonable with its second pass's limits."""
    if depth > 8:
        return "<%s depth limit>" % type(value).__name__
    if isinstance(value, str) and len(value) > limit:
        return value[:limit] + "...[truncated %d chars]" % (len(value) - limit)
    if isinstance(value, dict):
        return {str(k): cut(v, depth + 1, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [cut(v, depth + 1, limit) for v in value[:50]]
    return value


def hermes_sends(bridge, api_kwargs, shown, api_mode, own=True):
    """Hermes 0.16's conversation loop: `api_kwargs` is the body it sends; the hook gets the list of
    its messages (shallow copy) and `shown`, a copy of the payload (or, `own=False`, messages that are
    not the body's own objects: a caller the bridge cannot find)."""
    sent = api_kwargs.get("messages") if api_mode != "codex_responses" else api_kwargs.get("input")
    request_messages = list(sent) if own else copy.deepcopy(sent)
    bridge.pre_api_request(task_id="t", turn_id="u1", api_request_id="u1:api:1", session_id="s", user_message="go",
                           conversation_history=copy.deepcopy(sent), model="m", provider="custom", api_mode=api_mode,
                           api_call_count=1, request_messages=request_messages, tool_count=len(api_kwargs.get("tools") or []),
                           request=shown)


class HookRequestBody(BridgeCase):
    def bridge_with_spy(self):
        self.hermes_cli.middleware.VALID_MIDDLEWARE = {"tool_request"}  # 0.16: no llm_request middleware
        _, bridge = self.load_bridge(FakeCtx(), HMC_SIDECAR_COMMAND=fake_sidecar_command())
        calls = []
        real = bridge.sidecar.call

        def call(method, params, timeout=None):
            calls.append((method, json.loads(json.dumps(params))))
            return real(method, params, timeout)

        bridge.sidecar.call = call
        return bridge, calls

    def model_call(self, calls):
        sent = [params for method, params in calls if method == "pre_model_call"]
        self.assertEqual(len(sent), 1, [m for m, _ in calls])
        return sent[0]

    def test_a_preview_only_payload_still_counts_the_tools_sent(self):
        bridge, calls = self.bridge_with_spy()
        api_kwargs = {"model": "m", "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "go"}],
                      "tools": CHAT_TOOLS}
        preview = {"_truncated": True, "original_type": "dict", "preview": json.dumps({"method": "POST", "body": api_kwargs})[:50000]}
        hermes_sends(bridge, api_kwargs, preview, "chat_completions")
        params = self.model_call(calls)
        self.assertEqual(params["tools"], CHAT_TOOLS)
        self.assertEqual(params["system"], SYSTEM)

    def test_a_depth_limited_copy_is_not_what_is_counted(self):
        bridge, calls = self.bridge_with_spy()
        api_kwargs = {"model": "m", "system": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}],
                      "messages": [{"role": "user", "content": "go"}], "tools": ANTHROPIC_TOOLS, "max_tokens": 100}
        shown = cut({"method": "POST", "body": api_kwargs})["body"]
        self.assertIn("depth limit>", json.dumps(shown["tools"]))  # what the hook shows: cut
        hermes_sends(bridge, api_kwargs, {"method": "POST", "body": shown}, "anthropic_messages")
        params = self.model_call(calls)
        self.assertEqual(params["tools"], ANTHROPIC_TOOLS)
        self.assertEqual(params["system"], SYSTEM)

    def test_without_the_callers_body_the_hooks_copy_is_used_and_said_once(self):
        bridge, calls = self.bridge_with_spy()
        api_kwargs = {"model": "m", "messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "go"}],
                      "tools": CHAT_TOOLS}
        shown = cut({"method": "POST", "body": api_kwargs})["body"]
        with self.assertLogs("hmc", logging.INFO) as logs:
            hermes_sends(bridge, api_kwargs, {"method": "POST", "body": shown}, "chat_completions", own=False)
            hermes_sends(bridge, api_kwargs, {"method": "POST", "body": shown}, "chat_completions", own=False)
        self.assertEqual(len([m for m, _ in calls if m == "pre_model_call"]), 2)
        first = [params for method, params in calls if method == "pre_model_call"][0]
        self.assertEqual(first["tools"], shown["tools"])
        noted = [line for line in logs.output if "own body was not found" in line]
        self.assertEqual(len(noted), 1, logs.output)


if __name__ == "__main__":
    unittest.main()
