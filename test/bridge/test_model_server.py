"""The scripted model server in each request shape, over real HTTP, without Hermes: a scripted
conversation (tool call, result, parallel batch, final answer) in chat completions, Anthropic
messages and Responses, as JSON and as a stream; the shape-neutral view the script reads; the
auxiliary kinds; the simulated prompt cache; errors. Standard library only (unittest, urllib).
"""
import json
import unittest
import urllib.error
import urllib.request

import wire_shapes as W
from model_server import AGENT, HMC_SUMMARY, OTHER, ModelServer

SCRIPT = {"T1": [("read_file", {"path": "a.py"}), [("terminal", {"command": "ls"}), ("terminal", {"command": "pwd"})]]}
PATHS = {W.CHAT: "/v1/chat/completions", W.ANTHROPIC: "/v1/messages", W.RESPONSES: "/v1/responses"}
SYSTEM = "You are a scripted test agent. " * 200  # long enough for the OpenAI shapes' automatic caching


def post(server, path, body):
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (server.port, path), json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.headers.get("Content-Type"), r.read().decode()


def events(text):
    """SSE frames → [(event name or None, data)]."""
    out = []
    for frame in text.strip().split("\n\n"):
        name = next((line[7:] for line in frame.split("\n") if line.startswith("event: ")), None)
        data = next(line[6:] for line in frame.split("\n") if line.startswith("data: "))
        out.append((name, data if data == "[DONE]" else json.loads(data)))
    return out


def answer(shape, content_type, text):
    """(tool calls [(id, name, args)], final text, usage) from a response in any shape."""
    if "event-stream" not in content_type:
        body = json.loads(text)
        if shape == W.ANTHROPIC:
            calls = [(b["id"], b["name"], b["input"]) for b in body["content"] if b["type"] == "tool_use"]
            return calls, "".join(b.get("text", "") for b in body["content"] if b["type"] == "text"), body["usage"]
        if shape == W.RESPONSES:
            calls = [(i["call_id"], i["name"], json.loads(i["arguments"])) for i in body["output"] if i["type"] == "function_call"]
            return calls, "".join(p["text"] for i in body["output"] if i["type"] == "message" for p in i["content"]), body["usage"]
        m = body["choices"][0]["message"]
        return [(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"])) for c in m.get("tool_calls") or []], m["content"] or "", body["usage"]
    frames = events(text)
    if shape == W.ANTHROPIC:
        names = [n for n, _ in frames]
        assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"], names
        blocks, joined = {}, {}
        for name, d in frames:
            assert name == d["type"]
            if name == "content_block_start":
                blocks[d["index"]] = d["content_block"]
            elif name == "content_block_delta":
                joined[d["index"]] = joined.get(d["index"], "") + d["delta"].get("partial_json", d["delta"].get("text", ""))
        calls = [(b["id"], b["name"], json.loads(joined[i])) for i, b in sorted(blocks.items()) if b["type"] == "tool_use"]
        text = "".join(joined[i] for i, b in sorted(blocks.items()) if b["type"] == "text")
        return calls, text, frames[-2][1]["usage"]
    if shape == W.RESPONSES:
        kinds = [d["type"] for _, d in frames]
        assert kinds[0] == "response.created" and kinds[-1] == "response.completed", kinds
        assert [d["sequence_number"] for _, d in frames] == list(range(len(frames)))
        deltas, calls = {}, []
        for _, d in frames:
            if d["type"] == "response.function_call_arguments.delta":
                deltas[d["item_id"]] = deltas.get(d["item_id"], "") + d["delta"]
            if d["type"] == "response.function_call_arguments.done":
                assert deltas[d["item_id"]] == d["arguments"]
            if d["type"] == "response.output_item.done" and d["item"]["type"] == "function_call":
                calls.append((d["item"]["call_id"], d["item"]["name"], json.loads(d["item"]["arguments"])))
        text = "".join(d["delta"] for _, d in frames if d["type"] == "response.output_text.delta")
        return calls, text, frames[-1][1]["response"]["usage"]
    assert frames[-1] == (None, "[DONE]")
    calls, args = {}, {}
    for _, d in frames[:-1]:
        for c in (d["choices"][0]["delta"].get("tool_calls") or []) if d["choices"] else []:
            if "id" in c:
                calls[c["index"]] = (c["id"], c["function"]["name"])
            args[c["index"]] = args.get(c["index"], "") + c["function"].get("arguments", "")
    text = "".join(d["choices"][0]["delta"].get("content") or "" for _, d in frames[:-1] if d["choices"])
    return [(i, n, json.loads(args[k])) for k, (i, n) in sorted(calls.items())], text, frames[-2][1]["usage"]


def request(shape, history, stream, tools=True):
    """A request in `shape` for a neutral history [("user", text) | ("calls", [(id, name, args)]) | ("result", id, text)]."""
    if shape == W.ANTHROPIC:
        messages = []
        for turn in history:
            if turn[0] == "user":
                messages.append({"role": "user", "content": [{"type": "text", "text": turn[1], "cache_control": {"type": "ephemeral"}}]})
            elif turn[0] == "calls":
                messages.append({"role": "assistant", "content": [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in turn[1]]})
            elif messages[-1]["role"] == "user" and messages[-1]["content"][0]["type"] == "tool_result":
                messages[-1]["content"].append({"type": "tool_result", "tool_use_id": turn[1], "content": turn[2]})
            else:
                messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": turn[1], "content": turn[2]}]})
        body = {"model": "m", "max_tokens": 100, "system": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}],
                "messages": messages}
        if tools:
            body["tools"] = [{"name": "read_file", "input_schema": {"type": "object"}}, {"name": "terminal", "input_schema": {"type": "object"}}]
    elif shape == W.RESPONSES:
        items = []
        for turn in history:
            if turn[0] == "user":
                items.append({"role": "user", "content": turn[1]})
            elif turn[0] == "calls":
                items += [{"type": "function_call", "call_id": i, "name": n, "arguments": json.dumps(a)} for i, n, a in turn[1]]
            else:
                items.append({"type": "function_call_output", "call_id": turn[1], "output": turn[2]})
        body = {"model": "m", "instructions": SYSTEM, "input": items, "store": False}
        if tools:
            body["tools"] = [{"type": "function", "name": "read_file", "parameters": {}}, {"type": "function", "name": "terminal", "parameters": {}}]
    else:
        messages = [{"role": "system", "content": SYSTEM}]
        for turn in history:
            if turn[0] == "user":
                messages.append({"role": "user", "content": turn[1]})
            elif turn[0] == "calls":
                messages.append({"role": "assistant", "content": None, "tool_calls": [
                    {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}} for i, n, a in turn[1]]})
            else:
                messages.append({"role": "tool", "tool_call_id": turn[1], "content": turn[2]})
        body = {"model": "m", "messages": messages}
        if tools:
            body["tools"] = [{"type": "function", "function": {"name": "read_file", "parameters": {}}},
                             {"type": "function", "function": {"name": "terminal", "parameters": {}}}]
    if stream:
        body["stream"] = True
    return body


class ModelServerShapes(unittest.TestCase):
    def setUp(self):
        self.server = ModelServer(SCRIPT, real_usage=True)
        self.addCleanup(self.server.close)

    def test_a_scripted_conversation_in_every_shape_and_mode(self):
        for shape in W.SHAPES:
            for stream in (False, True):
                with self.subTest(shape=shape, stream=stream):
                    server = ModelServer(SCRIPT, real_usage=True)  # a cold prompt cache for each
                    self.addCleanup(server.close)
                    history, usages = [("user", "T1: look around")], []
                    for expected in (["read_file"], ["terminal", "terminal"], []):
                        content_type, text = post(server, PATHS[shape], request(shape, history, stream))
                        calls, final, usage = answer(shape, content_type, text)
                        usages.append(usage)
                        self.assertEqual([n for _, n, _ in calls], expected)
                        if not calls:
                            self.assertEqual(final, "All done.")
                            break
                        history.append(("calls", calls))
                        history += [("result", i, "output of %s %s" % (n, json.dumps(a))) for i, n, a in calls]
                    recorded = server.requests
                    self.assertEqual([(r["shape"], r["stream"], r["kind"], r["step"]) for r in recorded],
                                     [(shape, stream, AGENT, s) for s in (0, 1, 2)])
                    self.assertEqual(recorded[0]["raw"], json.dumps(request(shape, history[:1], stream)))
                    # The neutral view: system, user, then each call's results after it, ids matching.
                    seen = recorded[2]["messages"]
                    self.assertEqual([m["role"] for m in seen], ["system", "user", "assistant", "tool", "assistant", "tool", "tool"])
                    self.assertEqual(seen[0]["content"], SYSTEM)
                    ids = [c["id"] for m in seen for c in m.get("tool_calls") or []]
                    self.assertEqual(ids, [m["tool_call_id"] for m in seen if m["role"] == "tool"])
                    self.assertEqual(json.loads(seen[4]["tool_calls"][1]["function"]["arguments"]), {"command": "pwd"})
                    self.assertEqual(recorded[0]["tools"], ["read_file", "terminal"])
                    self.check_usage(shape, usages)

    def check_usage(self, shape, usages):
        """The prompt cache: the first call writes (Anthropic, at its markers), later calls read."""
        if shape == W.ANTHROPIC:
            self.assertGreater(usages[0]["cache_creation_input_tokens"], 0)
            self.assertTrue(all(u["cache_read_input_tokens"] > 0 for u in usages[1:]), usages)
            self.assertTrue(all(u["input_tokens"] >= 0 for u in usages))
        elif shape == W.RESPONSES:
            self.assertTrue(all(u["input_tokens_details"]["cached_tokens"] > 0 for u in usages[1:]), usages)
            self.assertTrue(all(u["input_tokens_details"]["cached_tokens"] < u["input_tokens"] for u in usages))
        else:
            self.assertTrue(all(u["prompt_tokens_details"]["cached_tokens"] > 0 for u in usages[1:]), usages)

    def test_a_moved_cache_marker_still_reads_the_prefix_the_previous_request_wrote(self):
        # Hermes marks the last messages: the next request marks newer ones, the older ones lose
        # their marker. A provider keys its cache on the content, so the prefix is still read
        # (before the fix the marker was part of the block, and a string was not a text block: only
        # the system prompt read, Anthropic's share 28-30 % in a real Hermes against HMC's 82 %).
        cache = W.PromptCache()
        mark = {"type": "ephemeral"}
        first = {"system": [{"type": "text", "text": "S" * 400, "cache_control": mark}],
                 "messages": [{"role": "user", "content": [{"type": "text", "text": "A" * 4000, "cache_control": mark}]}]}
        second = {"system": [{"type": "text", "text": "S" * 400, "cache_control": mark}],
                  # Unmarked, Hermes sends a message's text as a string: the same block for the provider.
                  "messages": [{"role": "user", "content": "A" * 4000},
                               {"role": "assistant", "content": [{"type": "text", "text": "B" * 400}]},
                               {"role": "user", "content": [{"type": "text", "text": "C" * 400, "cache_control": mark}]}]}
        self.assertEqual(cache.split(W.ANTHROPIC, first, 1100), (0, 1100))
        read, write = cache.split(W.ANTHROPIC, second, 1300)
        self.assertGreater(read, 1000)
        self.assertEqual(read + write, 1300)

    def test_auxiliary_calls_are_told_apart_in_every_shape(self):
        for shape in W.SHAPES:
            with self.subTest(shape=shape):
                body = request(shape, [("user", "Summarise docs/a.md and b.py")], False, tools=False)
                if shape == W.ANTHROPIC:
                    body["system"] = "You write handoff notes for a colleague."
                elif shape == W.RESPONSES:
                    body["instructions"] = "You write handoff notes for a colleague."
                else:
                    body["messages"][0]["content"] = "You write handoff notes for a colleague."
                _, final, _ = answer(shape, *post(self.server, PATHS[shape], body))
                self.assertIn("## Files\ndocs/a.md: read, unchanged\nb.py: read, unchanged", final)
                _, final, _ = answer(shape, *post(self.server, PATHS[shape], request(shape, [("user", "Name this chat")], False, tools=False)))
                self.assertEqual(final, "All done.")
                self.assertEqual([r["kind"] for r in self.server.requests[-2:]], [HMC_SUMMARY, OTHER])

    def test_a_plain_string_input_and_errors(self):
        _, final, _ = answer(W.RESPONSES, *post(self.server, "/v1/responses", {"model": "m", "input": "hello"}))
        self.assertEqual((final, self.server.requests[-1]["messages"]), ("All done.", [{"role": "user", "content": "hello"}]))
        with self.assertRaises(urllib.error.HTTPError) as unknown:
            post(self.server, "/v1/embeddings", {})
        self.assertEqual(unknown.exception.code, 404)
        with self.assertRaises(urllib.error.HTTPError) as unreadable:
            post(self.server, "/v1/messages", {"messages": "not a list"})
        self.assertEqual(unreadable.exception.code, 400)
        self.assertEqual(len(self.server.errors), 1)
        self.assertIn("anthropic_messages /v1/messages", self.server.errors[0])

    def test_without_real_usage_every_request_reports_ten_prompt_tokens(self):
        server = ModelServer(SCRIPT)
        self.addCleanup(server.close)
        for shape in W.SHAPES:
            _, _, usage = answer(shape, *post(server, PATHS[shape], request(shape, [("user", "T1: go")], False)))
            self.assertEqual(usage.get("prompt_tokens", usage.get("input_tokens")), 10)


if __name__ == "__main__":
    unittest.main()
