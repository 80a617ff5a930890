"""A fake Hermes that follows the documented plugin contract exactly (reference/hermes-agent-loop.md,
checked against Hermes 0.16.0 and 0.19.0).

Job: run scripted turns the way Hermes' agent loop does: the working list is `list(history)` plus
the user message; `pre_llm_call` gets `conversation_history=list(messages)` (a shallow copy whose
dicts are live) with the documented kwargs and unknown extras; every model call builds its request
from `msg.copy()` of the live dicts (the system prompt first, the turn's context appended to the
API copy of its user message, contents `strip()`ped, call arguments compact with sorted keys,
`tool_name` dropped) and passes it through
`llm_request` middleware (deep copies, last returned request wins) or, for a host without
middleware (0.16), hands the request's own message dicts to `pre_api_request`; tool calls fire
`pre_tool_call` / `post_tool_call`; the turn is persisted (deep copy) before `on_session_end`, which
fires after every turn. `stamp_api_content` mimics 0.19: the composed user message is stamped as
`api_content` and replayed by later requests. `shape` sends every request in one of Hermes'
other request shapes (hermes_shapes.py: Anthropic messages, Responses), converted as Hermes does
before any middleware; a model answer may ask for several calls at once (a parallel batch).
Invariant: records every request and every stored row, so tests can compare them with a run
without the plugin.
"""
import copy
import itertools
import json

import hermes_shapes

TELEMETRY = {"telemetry_schema_version": "hermes.observer.v1"}
SYSTEM = "You are a fake Hermes. Use the tools."
TOOLS = [{"type": "function", "function": {"name": name, "description": "the %s tool" % name,
                                            "parameters": {"type": "object", "properties": {}}}}
         for name in ("read_file", "terminal")]


class FakeLlm:
    def __init__(self):
        self.calls = []

    def complete(self, messages, *, max_tokens=None, **kw):
        self.calls.append((messages, max_tokens))

        class Result:
            text = "summary of %d messages" % len(messages)
            model = "aux-model"

        return Result()


class FakeCtx:
    def __init__(self, llm=True):
        self.hooks = {}
        self.middleware = {}
        self.tools = {}
        self.commands = {}
        self.skills = {}
        self._llm = FakeLlm() if llm else None

    @property
    def llm(self):
        if self._llm is None:
            raise AttributeError("llm")
        return self._llm

    def register_hook(self, name, cb):
        self.hooks.setdefault(name, []).append(cb)

    def register_middleware(self, kind, cb):
        self.middleware.setdefault(kind, []).append(cb)

    def register_tool(self, name, toolset, schema, handler, **kw):
        self.tools[name] = {"toolset": toolset, "schema": schema, "handler": handler}

    def register_command(self, name, handler, description="", args_hint=""):
        self.commands[name] = handler

    def register_skill(self, name, path, description=""):
        self.skills[name] = path


class FakeHermes:
    """One session of the agent loop. `ctx` None runs without the plugin (the reference run)."""

    def __init__(self, ctx=None, session_id="sess-1", stamp_api_content=False, shape=None, call_text=""):
        self.ctx = ctx
        self.session_id = session_id
        self.stamp_api_content = stamp_api_content
        self.shape = shape or hermes_shapes.CHAT
        self.call_text = call_text  # the content of an assistant message that calls tools ("" or None)
        self.history = []
        self.stored = []
        self.requests = []
        self.turn = 0
        self._ids = itertools.count(1)
        self._calls = 0
        self.between_calls = None  # test hook: run after each model request

    def invoke(self, name, **kw):
        results = []
        for cb in (self.ctx.hooks.get(name, []) if self.ctx else []):
            try:
                r = cb(**kw, **TELEMETRY)
            except Exception:  # Hermes isolates every callback
                continue
            if r is not None:
                results.append(r)
        return results

    def _api_message(self, msg, current, context):
        c = msg.copy()
        stamped = c.pop("api_content", None)
        if current and context and isinstance(c.get("content"), str):
            c["content"] = stamped or c["content"] + "\n\n" + context
        elif isinstance(stamped, str) and stamped and c.get("role") in ("user", "assistant"):
            c["content"] = stamped
        if isinstance(c.get("content"), str):
            c["content"] = c["content"].strip()
        if c.get("tool_calls"):  # re-serialised compact with sorted keys, new dicts (conversation_loop.py)
            c["tool_calls"] = [dict(tc, function=dict(tc["function"], arguments=json.dumps(
                json.loads(tc["function"]["arguments"]), separators=(",", ":"), sort_keys=True))) for tc in c["tool_calls"]]
        c.pop("tool_name", None)
        return c

    def _request(self, messages, user_idx, context):
        api = [self._api_message(m, i == user_idx, context) for i, m in enumerate(messages)]
        request = {"model": "m", "messages": [{"role": "system", "content": SYSTEM}] + api, "tools": copy.deepcopy(TOOLS)}
        request = hermes_shapes.convert(self.shape, request)
        self._calls += 1
        ids = dict(task_id="t", turn_id="u%d" % self.turn, api_request_id="u%d:api:%d" % (self.turn, self._calls),
                   session_id=self.session_id, platform="cli", model="m", provider="custom", base_url="http://x",
                   api_mode=self.shape, api_call_count=self._calls)
        for cb in (self.ctx.middleware.get("llm_request", []) if self.ctx else []):
            current = copy.deepcopy(request)
            try:
                r = cb(request=current, original_request=copy.deepcopy(request), **ids, **TELEMETRY)
            except Exception:
                continue
            if isinstance(r, dict) and isinstance(r.get("request"), dict):
                request = copy.deepcopy(r["request"])
        sent = request.get("input") if self.shape == hermes_shapes.RESPONSES else request["messages"]
        self.invoke("pre_api_request", user_message="u", conversation_history=list(messages),
                    request_messages=list(sent), message_count=len(sent),
                    request={"method": "POST", "body": request}, **ids)
        if self.shape == hermes_shapes.RESPONSES:
            hermes_shapes.preflight_codex_items(request["input"])  # Hermes checks every item again
        self.requests.append(copy.deepcopy(request))
        if self.between_calls:
            self.between_calls()

    def run_turn(self, user_text, tool_calls):
        """tool_calls: what the model asks for, one entry per model call: (tool_name, args, output),
        or a list of those (several calls in one answer, their results after it in order)."""
        self.turn += 1
        self._calls = 0
        messages = list(self.history)
        messages.append({"role": "user", "content": user_text})
        user_idx = len(messages) - 1
        results = self.invoke("pre_llm_call", session_id=self.session_id, task_id="t", turn_id="u%d" % self.turn,
                              user_message=user_text, conversation_history=list(messages),
                              is_first_turn=not self.history, model="m", platform="cli", sender_id="",
                              unknown_future_kwarg={"x": 1})
        context = "\n\n".join(r["context"] for r in results if isinstance(r, dict) and r.get("context"))
        if context and self.stamp_api_content:
            messages[user_idx]["api_content"] = user_text + "\n\n" + context
        for answer in tool_calls:
            batch = answer if isinstance(answer, list) else [answer]
            self._request(messages, user_idx, context)
            ids = ["call_%d" % next(self._ids) for _ in batch]
            messages.append({"role": "assistant", "content": self.call_text, "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
                for call_id, (name, args, _output) in zip(ids, batch)]})
            for call_id, (name, args, output) in zip(ids, batch):
                self.invoke("pre_tool_call", tool_name=name, args=args, task_id="t", session_id=self.session_id,
                            tool_call_id=call_id, turn_id="u%d" % self.turn, api_request_id="a", middleware_trace=[])
                self.invoke("post_tool_call", tool_name=name, args=args, result=output, task_id="t", session_id=self.session_id,
                            tool_call_id=call_id, turn_id="u%d" % self.turn, api_request_id="a", duration_ms=3, status="ok",
                            error_type=None, error_message=None, middleware_trace=[])
                messages.append({"role": "tool", "name": name, "tool_name": name, "content": output, "tool_call_id": call_id})
        self._request(messages, user_idx, context)
        messages.append({"role": "assistant", "content": "done %d" % self.turn})
        self.stored.extend(copy.deepcopy(messages[len(self.stored):]))  # persisted before on_session_end
        self.invoke("on_session_end", session_id=self.session_id, task_id="t", turn_id="u%d" % self.turn,
                    completed=True, interrupted=False, model="m", platform="cli")
        self.history = messages
        return context

    def finalize(self):
        self.invoke("on_session_finalize", session_id=self.session_id, platform="cli", reason="shutdown")
