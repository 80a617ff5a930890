"""A fake Hermes that follows the documented plugin contract exactly (reference/hermes-agent-loop.md).

Job: run scripted turns the way Hermes' agent loop does: the working list is `list(history)` plus
the user message; `pre_llm_call` gets `conversation_history=list(messages)` (a shallow copy whose
dicts are live) with the documented kwargs and unknown extras; every model call builds its request
from `msg.copy()` of the live dicts and passes it through `llm_request` middleware (deep copies,
last returned request wins); tool calls fire `pre_tool_call` / `post_tool_call`; the turn is
persisted (deep copy) before `on_session_end`, which fires after every turn.
Invariant: records every request and every stored row, so tests can compare them with a run
without the plugin.
"""
import copy
import itertools
import json

TELEMETRY = {"telemetry_schema_version": "hermes.observer.v1"}


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


class FakeHermes:
    """One session of the agent loop. `ctx` None runs without the plugin (the reference run)."""

    def __init__(self, ctx=None, session_id="sess-1"):
        self.ctx = ctx
        self.session_id = session_id
        self.history = []
        self.stored = []
        self.requests = []
        self.turn = 0
        self._ids = itertools.count(1)
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

    def _request(self, messages):
        request = {"model": "m", "messages": [m.copy() for m in messages], "tools": []}
        for cb in (self.ctx.middleware.get("llm_request", []) if self.ctx else []):
            current = copy.deepcopy(request)
            try:
                r = cb(request=current, original_request=copy.deepcopy(request), task_id="t", turn_id="u%d" % self.turn,
                       api_request_id="a", session_id=self.session_id, platform="cli", model="m", provider="custom",
                       base_url="http://x", api_mode="chat_completions", api_call_count=1, **TELEMETRY)
            except Exception:
                continue
            if isinstance(r, dict) and isinstance(r.get("request"), dict):
                request = copy.deepcopy(r["request"])
        self.requests.append(copy.deepcopy(request))
        if self.between_calls:
            self.between_calls()

    def run_turn(self, user_text, tool_calls):
        """tool_calls: list of (tool_name, args, output) the model asks for, one per model call."""
        self.turn += 1
        messages = list(self.history)
        messages.append({"role": "user", "content": user_text})
        results = self.invoke("pre_llm_call", session_id=self.session_id, task_id="t", turn_id="u%d" % self.turn,
                              user_message=user_text, conversation_history=list(messages),
                              is_first_turn=not self.history, model="m", platform="cli", sender_id="",
                              unknown_future_kwarg={"x": 1})
        context = "\n\n".join(r["context"] for r in results if isinstance(r, dict) and r.get("context"))
        for name, args, output in tool_calls:
            self._request(messages)
            call_id = "call_%d" % next(self._ids)
            messages.append({"role": "assistant", "content": "", "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]})
            self.invoke("pre_tool_call", tool_name=name, args=args, task_id="t", session_id=self.session_id,
                        tool_call_id=call_id, turn_id="u%d" % self.turn, api_request_id="a", middleware_trace=[])
            self.invoke("post_tool_call", tool_name=name, args=args, result=output, task_id="t", session_id=self.session_id,
                        tool_call_id=call_id, turn_id="u%d" % self.turn, api_request_id="a", duration_ms=3, status="ok",
                        error_type=None, error_message=None, middleware_trace=[])
            messages.append({"role": "tool", "name": name, "tool_name": name, "content": output, "tool_call_id": call_id})
        self._request(messages)
        messages.append({"role": "assistant", "content": "done %d" % self.turn})
        self.stored.extend(copy.deepcopy(messages[len(self.stored):]))  # persisted before on_session_end
        self.invoke("on_session_end", session_id=self.session_id, task_id="t", turn_id="u%d" % self.turn,
                    completed=True, interrupted=False, model="m", platform="cli")
        self.history = messages
        return context

    def finalize(self):
        self.invoke("on_session_finalize", session_id=self.session_id, platform="cli", reason="shutdown")
