"""Hermes' hooks, its `llm_request` middleware (0.19) or `pre_api_request` hook (0.16), the
`hmc_control` tool, the `/hmc` command and `ctx.llm`, each turned into protocol calls to the
sidecar; the answers applied through views.py.

The conversation is sent the way Hermes sends it (system prompt apart, contents stripped,
`api_content` replayed), so both methods describe one list (docs/hermes.md "One conversation, two
views"), whatever request shape a model call has (shapes.py reads it); once the sidecar holds a
session, only what is new goes (`base` + `append`), and a long history goes ahead in stretches
(`partial`).

Invariant: fail open. Every entry point catches everything, logs one line under the "hmc" logger
and hands Hermes its data back untouched; no decision is taken here.
"""
import contextvars
import json
import logging
import threading

from . import control_schema, hermes, shapes, usage, views

log = logging.getLogger("hmc")

CONTROL_TIMEOUT = 20.0
# The session of the gateway message being handled, set by pre_gateway_dispatch in the message's
# own asyncio task, which then dispatches `/hmc` in that same task (so no other chat's value is seen).
_GATEWAY_SESSION = contextvars.ContextVar("hmc_gateway_session", default=None)
_PARTIAL_KEYS = ("session_id", "model", "platform", "context_length")  # what a streamed stretch carries


class Bridge:
    """Hermes hooks → protocol calls; applies and restores edits. Every method fails open."""

    def __init__(self, sidecar, llm=None):
        self.sidecar = sidecar
        self.llm = llm
        self.context_length = None  # the window, from Hermes' config (hello's host_config)
        self.compression_threshold = None  # where Hermes' compressor fires, a share of the window
        self.stream_bytes = None  # the size of a stretch of a long history (hello), None: send it whole
        self.tool_schema = {}  # the hmc_control schema as registered (plugin.py), kept up to date
        self.sessions = {}
        self.last_session = ""
        self._lock = threading.RLock()
        self._refused = False
        self._failed = set()  # (session, kind of failure) already logged by _guard
        self._copy_noted = False  # one log line when a 0.16 request's own body is not found
        self._told = set()  # sessions already told of the config's problems
        self.main_model = None  # (model, provider, base_url) of the last model call: what a summary is priced against
        self.usage_hook = False  # post_api_request is registered: every call's usage comes from there (usage.py)

    def hello_answered(self, result):
        """What the sidecar's hello answer tells the host: the hmc_control schema, the stretch size
        for a long history, and the figures of Hermes' config, sent with each call from now on."""
        control_schema.update(self.tool_schema, result.get("control_schema"))
        self.stream_bytes = _positive(result.get("stream_bytes"), int)
        config = result.get("host_config") if isinstance(result.get("host_config"), dict) else {}
        self.context_length = _positive(config.get("context_length"), int)
        share = _positive(config.get("compression_threshold"), (int, float))
        self.compression_threshold = hermes.trigger_share(self.context_length, share) if share else None

    def _session(self, session_id):
        sid = session_id or ""
        if sid:
            self.last_session = sid
        with self._lock:
            return self.sessions.setdefault(sid, views.Session())

    def _guard(self, name, fn, *args):
        try:
            return fn(*args)
        except Exception as exc:
            # Once per session and kind of failure (issue 26, finding 8: tool arguments nested 10 K
            # levels deep logged a RecursionError at every hook, 8 lines for 4 turns); later ones at debug.
            sid = next((a.get("session_id") for a in args if isinstance(a, dict)), "") or ""
            key = (str(sid), type(exc).__name__)
            with self._lock:
                first = key not in self._failed
                self._failed.add(key)
            if first:
                log.warning("hmc: %s failed inside the bridge (%s: %s); passed through (said once per session)", name, type(exc).__name__,
                            str(exc)[:300])
            else:
                log.debug("hmc: %s failed inside the bridge again (%s); passed through", name, type(exc).__name__)
            return None

    def _held(self, sess):
        """What the sidecar holds of this session, if still the same sidecar process."""
        return sess.held if sess.held is not None and sess.generation == self.sidecar.generation else None

    # -- hooks ---------------------------------------------------------------------------------
    def pre_tool_call(self, **kw):
        self._guard("pre_tool_call", self._forward, "pre_tool_call", kw)

    def post_tool_call(self, **kw):
        # The sidecar compresses the result now, off the model call's path; pre_model_call sends it.
        # Its answer's `replace` is dropped on purpose: Hermes ignores what post_tool_call returns
        # (model_tools._emit_post_tool_call_hook, 0.16 and 0.19), and transform_tool_result, the one
        # hook that swaps a result, swaps the row state.db stores too (docs/hermes.md, "Which
        # mechanism does what"). The shortened text reaches the model on the next request's copy.
        self._guard("post_tool_call", self._forward, "post_tool_call", kw)

    def _forward(self, method, kw):
        params = dict(kw)
        params["session_id"] = kw.get("session_id") or ""
        self._session(params["session_id"])
        return self.sidecar.call(method, params)

    def pre_llm_call(self, **kw):
        return self._guard("pre_llm_call", self._pre_llm_call, kw)

    def _pre_llm_call(self, kw):
        messages = kw.pop("conversation_history", None)
        sess = self._session(kw.get("session_id"))
        views.restore(sess)
        if not isinstance(messages, list):
            return None
        started = self.sidecar.ensure()  # a first start answers hello, whose figures go with this call
        params = dict(kw)
        params["session_id"] = kw.get("session_id") or ""
        if started:
            self._config_notice(params["session_id"])
        if self.context_length:
            params.setdefault("context_length", self.context_length)
        if self.compression_threshold:
            params.setdefault("compression_threshold", self.compression_threshold)
        held = self._held(sess) if "append" in self.sidecar.capabilities else None
        first = 0
        if held is not None:
            # Once per turn: compare every message by role and content (identity first, so cheap).
            first, stop = 0, min(len(held), len(messages))
            while first < stop and views.same_as_held(held[first], messages[first]):
                first += 1
        answer, _ = self._send("pre_llm_call", params, messages, first if held is not None else None, lambda m, i: views.live_message(m))
        result = _result(answer)
        if not result:
            return None
        views.apply_in_place(sess, messages, result.get("edits"))
        context = result.get("context")
        return {"context": context} if isinstance(context, str) and context else None

    def _config_notice(self, sid):
        """Once per session: the config's problems in one line (the sidecar words it), shown where
        this Hermes' user looks (hermes.tell_user). Issue 27, finding 2: they were only in sidecar.log."""
        if sid in self._told:
            return
        self._told.add(sid)
        answer = self.sidecar.call("hmc_control", {"session_id": sid, "args": {"action": "config"}})
        summary = _result(answer).get("summary")
        if isinstance(summary, str) and summary:
            hermes.tell_user("hmc: " + summary)

    def _send(self, method, params, messages, base, convert):
        """Sends `messages` (converted; `convert(message, index)`) as `base` + `append` when `base` is
        known, else whole; on success the session's held conversation is what was sent. `messages`
        may be a request's conversation read through its shape (shapes.py): it is read by index,
        and only from `base` on. Returns (answer, count)."""
        sess = self._session(params["session_id"])
        generation = self.sidecar.generation
        held = self._held(sess)
        answer = None
        if base and held is not None:
            append = [convert(messages[i], i) for i in range(base, len(messages))]
            answer = self.sidecar.call(method, dict(params, base=base, append=append))
            if _error_code(answer) == "resync" or self.sidecar.generation != generation:
                answer = None
            else:
                new = held[:base] + [(m["role"], m["content"]) for m in append]
                if method != "pre_model_call":
                    sess.measured = sess.measured[:base]  # Hermes' counts hold for the unchanged messages only
        if answer is None:
            if method != "pre_model_call":
                sess.measured = []
            whole = [convert(messages[i], i) for i in range(len(messages))]
            streamed = self._stream(params, whole)
            answer = self.sidecar.call(method, dict(params, base=streamed, append=whole[streamed:]) if streamed else dict(params, messages=whole))
            new = [(m["role"], m["content"]) for m in whole]
        if not _result(answer) or "error" in answer:
            sess.held, sess.view, sess.calls, sess.view_id = None, {}, {}, None
            return None, 0
        sess.held, sess.generation = new, self.sidecar.generation
        return answer, len(new)

    def _stream(self, params, messages):
        """A long history (a resumed session) goes ahead in `partial` calls of about `stream_bytes`, so no
        call carries, or makes the sidecar work on, more than that (issue 11: one 100 K-message call
        outlasted the hook limit). Returns how many messages the sidecar now holds, 0 to send all."""
        if not self.sidecar.ensure() or "partial" not in self.sidecar.capabilities or not self.stream_bytes:
            return 0
        ends, size = [], 0
        for i, msg in enumerate(messages):
            size += views.approx_bytes(msg)
            if size >= self.stream_bytes:
                ends.append(i + 1)
                size = 0
        held = 0
        for end in ends:
            if end >= len(messages):
                break
            part = {k: v for k, v in params.items() if k in _PARTIAL_KEYS}
            part["partial"] = True
            if held == 0:
                part["messages"] = messages[:end]
            else:
                part.update(base=held, append=messages[held:end])
            if "result" not in (self.sidecar.call("pre_llm_call", part) or {}):
                return 0
            held = end
        return held


    def on_session_end(self, **kw):
        self._guard("on_session_end", self._end, "on_session_end", kw)

    def on_session_finalize(self, **kw):
        self._guard("on_session_finalize", self._end, "on_session_finalize", kw)

    def on_session_reset(self, **kw):
        # /new in the CLI: the next /hmc status is about the new session, not the finalized one.
        sid = kw.get("session_id")
        if isinstance(sid, str) and sid:
            self.last_session = sid

    def pre_gateway_dispatch(self, event=None, session_store=None, **_kw):
        """Every gateway message, before Hermes dispatches it (0.16, 0.19): which session its chat is
        on, for a `/hmc` command in it (plugin commands get no session, and after a restart no hook
        has named one yet: issue 27). Returns None: the message goes on as it came."""
        try:
            _GATEWAY_SESSION.set(hermes.gateway_session(event, session_store))
        except Exception as exc:
            _GATEWAY_SESSION.set(None)
            log.info("hmc: the gateway's session for /hmc is unknown (%s: %s)", type(exc).__name__, exc)

    def _end(self, method, kw):
        sid = kw.get("session_id")
        with self._lock:
            # Hermes' CLI exit may finalize with session_id=None: every session this process touched.
            targets = [self.sessions.get(sid)] if sid else list(self.sessions.values())
        for sess in targets:
            if sess is not None:
                views.restore(sess)
        if method == "on_session_finalize":
            with self._lock:
                if sid:
                    self.sessions.pop(sid, None)
                else:
                    self.sessions.clear()
                if not sid or self.last_session == sid:
                    self.last_session = ""
        params = dict(kw)
        params["session_id"] = sid or ""
        self.sidecar.call(method, params)

    def post_api_request(self, **kw):
        """The provider's usage of one model call (usage.py), stored beside HMC's record of it."""
        self._guard("post_api_request", self._post_api_request, kw)

    def _post_api_request(self, kw):
        params = usage.params(kw)
        # Never starts the sidecar: a call it was not up for has no record of HMC's to stand beside.
        if params is not None and self.sidecar.generation:
            self.sidecar.call("update_from_response", params)

    # -- every model call: pre_model_call, its edits applied to that request only ---------------
    def llm_request(self, request=None, session_id=None, **kw):
        """`llm_request` middleware (Hermes 0.19): edits a copy of the request for this call only,
        in whichever shape Hermes speaks (shapes.py)."""
        return self._guard("llm_request", self._llm_request, request, session_id, kw)

    def _llm_request(self, request, session_id, kw):
        changed = self._model_call(session_id, shapes.read(kw.get("api_mode"), request), kw)
        return {"request": request} if changed else None

    def pre_api_request(self, **kw):
        """Hermes without request middleware (0.16): the same, on the request's own message dicts
        (`request_messages`: the `messages` or Responses' `input` that is sent)."""
        self._guard("pre_api_request", self._pre_api_request, kw)

    def _pre_api_request(self, kw):
        messages, live = kw.get("request_messages"), kw.get("conversation_history")
        if not isinstance(messages, list):
            return
        # Editing these dicts changes only this request, as long as they are copies: never edit a
        # dict of the live conversation (that would change what Hermes stores).
        if isinstance(live, list) and any(a is b for a in messages[:3] for b in live[:3]):
            if not self._refused:
                self._refused = True
                log.warning("hmc: this Hermes sends its live messages; requests are left raw (docs/hermes.md)")
            return
        shown = kw.get("request").get("body") if isinstance(kw.get("request"), dict) else None
        # The system prompt and tool schemas as sent: the hook's `request` is a cut-down copy.
        body = hermes.hook_request_body(messages, shown)
        if body is shown and not self._copy_noted:
            self._copy_noted = True
            log.info("hmc: the request's own body was not found beside pre_api_request; its tool schemas and system "
                     "prompt are counted as the hook's copy shows them, which may be cut short (docs/hermes.md)")
        fields = dict(body) if isinstance(body, dict) else {}
        self._model_call(kw.get("session_id"), shapes.read(kw.get("api_mode"), fields, messages), kw)

    def _model_call(self, session_id, request, kw):
        """pre_model_call for one request (read through its shape's adapter, None: a shape or form
        left raw); applies the view on that request's own dicts. Returns True when it changed."""
        if request is None or not session_id:
            return False
        if not self.sidecar.ensure() or "model_call" not in self.sidecar.capabilities:
            return False
        sess = self._session(session_id)
        if kw.get("model"):
            self.main_model = (kw.get("model"), kw.get("provider"), kw.get("base_url"))
        params = {"session_id": session_id, "model": kw.get("model") or "", "call_id": str(kw.get("api_request_id") or "")}
        if self.context_length:
            params["context_length"] = self.context_length
        if self.compression_threshold:
            params["compression_threshold"] = self.compression_threshold
        fresh = sess.generation != self.sidecar.generation
        if fresh or sess.system is views.UNSENT or request.system != sess.system:
            params["system"] = request.system
        if fresh or request.tool_names != sess.tools_key:
            params["tools"] = request.tools or []
        params["view"] = sess.view_id if not fresh and sess.view_id is not None else 0
        base = views.base(sess, self._held(sess), request)
        params["host_tokens"] = hermes.host_tokens(sess, request.head, request.messages, base, request.tools, request.tool_names)
        answer, held = self._send("pre_model_call", params, request.messages, base, lambda m, i: views.raw(sess, request, m, i))
        result = _result(answer)
        if not result:
            return False
        sess.system, sess.tools_key = request.system, request.tool_names
        views.take_view(sess, result, held, params["view"])
        return views.apply_view(sess, request)

    # -- tool, command, host calls --------------------------------------------------------------
    def hmc_control(self, args, **kw):
        try:
            params = {"session_id": kw.get("session_id") or self.current_session(), "args": args if isinstance(args, dict) else {}}
            answer = self.sidecar.call("hmc_control", params, CONTROL_TIMEOUT)
            if answer is None:
                return json.dumps({"error": "HMC sidecar unavailable: %s" % self._why()})
            if "error" in answer:
                return json.dumps({"error": str((answer.get("error") or {}).get("message", "error"))})
            return json.dumps(answer.get("result"), default=str)
        except Exception as exc:
            return json.dumps({"error": "hmc_control failed: %s" % exc})

    def current_session(self):
        """The session a `/hmc` command is about (slash commands get no session id): the one Hermes'
        CLI is on (a resumed one before its first message too), the one the gateway's session store
        holds for the chat the command came from (pre_gateway_dispatch), else the last one a hook
        named (the TUI, an older Hermes)."""
        gateway = _GATEWAY_SESSION.get()
        return hermes.cli_session() or gateway or self.last_session

    def command(self, raw_args="", *args, **kw):
        try:
            answer = self.sidecar.call("command", {"session_id": self.current_session(), "raw_args": str(raw_args or "")}, CONTROL_TIMEOUT)
            if answer is None:
                return "HMC is not running: %s" % self._why()
            if "error" in answer:
                return "HMC: %s" % (answer.get("error") or {}).get("message", "error")
            result = answer.get("result")
            return result if isinstance(result, str) else json.dumps(result, indent=2, default=str)
        except Exception as exc:
            return "HMC: %s" % exc

    def _why(self):
        return self.sidecar.disabled or "the sidecar is restarting (see the hmc log lines)"

    def host_request(self, method, params):
        if method != "llm.complete" or self.llm is None:
            raise RuntimeError("host cannot answer %s" % method)
        kwargs = {"max_tokens": params["max_tokens"]} if isinstance(params.get("max_tokens"), int) else {}
        res = self.llm.complete(params.get("messages") or [], **kwargs)
        answer = {"text": str(getattr(res, "text", "") or ""), "model": str(getattr(res, "model", "") or "")}
        price = hermes.summariser_price(self.main_model, answer["model"], getattr(res, "provider", None))
        if price:
            answer["price"] = price
        return answer


def _result(answer):
    result = answer.get("result") if isinstance(answer, dict) else None
    return result if isinstance(result, dict) else {}


def _positive(value, kind):
    """`value` when it is a number of `kind` above 0 (never a bool), else None."""
    return value if isinstance(value, kind) and not isinstance(value, bool) and value > 0 else None


def _error_code(answer):
    error = answer.get("error") if isinstance(answer, dict) else None
    return error.get("code") if isinstance(error, dict) else None
