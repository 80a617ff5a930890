"""HMC as Hermes' context engine (issue 16; docs/hermes.md "HMC as Hermes' context engine"), opt-in
with `context.engine: hmc` in Hermes' config.yaml. A `ContextEngine` subclass that delegates
every decision to the sidecar (protocol methods `should_compress`, `compress`,
`update_from_response`, `engine_session`): Hermes compacts when the context as HMC sends it nears
Hermes' own threshold, and a compaction is layer 1's (summaries of finished work, exact recall,
the session index).

What stays here is mechanics: which measure Hermes passed (its rough estimate or the provider's
figure), what the turn's in-place edits already took off, and the hand-over; turning the
sidecar's plan into the list Hermes keeps (its own message objects, copied as Hermes copies them)
is compaction.py's.

Invariants: no method raises into Hermes (an exception from `compress` would end the turn); when
the sidecar is unavailable or fails, Hermes' built-in `ContextCompressor` decides and compacts,
with one clear log line: a session must always be able to compact. The engine is safe under
`copy.deepcopy` (Hermes 0.19 copies it for each agent): copies share the bridge and its sidecar,
never copy a process, a pipe or a lock; per-session state lives in the sidecar.
"""
import copy
import inspect
import json
import logging
import math
import os

from . import compaction, views

log = logging.getLogger("hmc")

NAME = "hmc"
# A compaction waits for the summaries (background_compression.timeout_seconds, 120 s by default).
COMPRESS_TIMEOUT = float(os.environ.get("HMC_COMPRESS_TIMEOUT", "180"))
# What Hermes reads back from its engine to word its warnings after a compaction.
_LAST_ATTRS = ("_last_compress_aborted", "_last_summary_error", "_last_compression_made_progress", "_last_summary_fallback_used",
               "_last_summary_dropped_count", "_last_aux_model_failure_model", "_last_aux_model_failure_error")
_STATE_ATTRS = ("last_prompt_tokens", "last_completion_tokens", "last_total_tokens", "compression_count",
                "awaiting_real_usage_after_compression", "last_compression_rough_tokens")


def selected():
    """True when Hermes' config chooses HMC as its context engine (`context.engine: hmc`), read with
    Hermes' own loader. Registered only then: Hermes takes one engine per process and refuses a
    second, so an HMC registered regardless would push out another plugin's engine."""
    try:
        from hermes_cli.config import load_config

        ctx = (load_config() or {}).get("context") or {}
        return isinstance(ctx, dict) and str(ctx.get("engine") or "").strip() == NAME
    except Exception:
        return False


def register(ctx, bridge):
    """Registers HMC as Hermes' context engine when the config chooses it (the plugin's one line).
    Returns the engine, or None; never raises."""
    try:
        if not hasattr(ctx, "register_context_engine") or not selected():
            return None
        engine = build(bridge)
        if engine is not None:
            ctx.register_context_engine(engine)
        return engine
    except Exception as exc:
        log.warning("hmc: could not register HMC as the context engine (%s: %s); Hermes' built-in compressor is used", type(exc).__name__, exc)
        return None


def build(bridge):
    """The engine to register: an instance of Hermes' `ContextEngine`, or None when this Hermes has none."""
    try:
        from agent.context_engine import ContextEngine
    except Exception as exc:
        log.warning("hmc: this Hermes has no context-engine interface (%s); context.engine: hmc is ignored", exc)
        return None
    return engine_class(ContextEngine)(bridge)


_CLASSES = {}


def engine_class(base):
    """The engine class over Hermes' `ContextEngine` (imported only inside Hermes; tests pass a stand-in)."""
    if base not in _CLASSES:
        class HmcContextEngine(_Engine, base):
            __doc__ = _Engine.__doc__

        _CLASSES[base] = HmcContextEngine
    return _CLASSES[base]


class _Engine:
    """HMC as Hermes' context engine: decisions by the sidecar, Hermes' compressor as the fallback."""

    threshold_percent = 0.75
    protect_first_n = 3
    protect_last_n = 20

    def __init__(self, bridge):
        self._bridge = bridge
        self.session_id = ""
        self.model = ""
        self.provider = ""
        self.context_length = 0
        self.threshold_tokens = 0
        self.last_prompt_tokens = 0
        self.last_completion_tokens = 0
        self.last_total_tokens = 0
        self.compression_count = 0
        self._fallback = None
        self._fallback_kw = None  # how to build the built-in compressor (update_model's figures)
        self._rough = None  # Hermes' rough measure announced (should_defer_…) for the next should_compress
        self._usage_prompt = 0  # the provider's prompt tokens of the last response
        self._handed_over = None  # why the built-in compressor decides now (logged once per episode)
        self._why = ""  # why the sidecar could not answer, for the hand-over's log line
        self._bad_usage = None  # the session whose bad usage figures were logged (once per session)

    @property
    def name(self):
        return NAME

    def __deepcopy__(self, memo):
        # Hermes 0.19 copies the engine for each agent: share the bridge (its sidecar process, pipes
        # and locks), copy the figures; each copy builds its own fallback from update_model.
        clone = copy.copy(self)
        clone._fallback = None
        clone._fallback_kw = dict(self._fallback_kw) if self._fallback_kw else None
        memo[id(self)] = clone
        return clone

    # -- Hermes' model and window --------------------------------------------------------------
    def update_model(self, model, context_length, base_url="", api_key="", provider="", api_mode="", **_kw):
        try:
            self.model, self.provider = str(model or ""), str(provider or "")
            self.context_length = int(context_length or 0)
            self._fallback_kw = {"model": model, "base_url": base_url, "api_key": api_key, "provider": provider, "api_mode": api_mode,
                                 "config_context_length": self.context_length or None}
            self._fallback = None
            fallback = self._builtin()
            if fallback is not None:
                # Where Hermes' own compressor fires (compression.threshold and its floors): the same
                # point, now measured on what HMC sends.
                self.threshold_tokens = int(fallback.threshold_tokens)
                self.threshold_percent = float(fallback.threshold_percent)
                self.protect_first_n, self.protect_last_n = int(fallback.protect_first_n), int(fallback.protect_last_n)
            else:
                self.threshold_tokens = int(self.context_length * self.threshold_percent)
        except Exception as exc:
            log.warning("hmc: the context engine could not take in the model (%s: %s)", type(exc).__name__, exc)

    def _builtin(self):
        """Hermes' own ContextCompressor, built as Hermes builds it from its config, or None."""
        if self._fallback is not None or not self._fallback_kw:
            return self._fallback
        try:
            from agent.context_compressor import ContextCompressor

            cfg = _compression_config()
            kw = dict(self._fallback_kw, threshold_percent=float(cfg.get("threshold", 0.50)),
                      protect_first_n=max(0, int(cfg.get("protect_first_n", 3))), protect_last_n=int(cfg.get("protect_last_n", 20)),
                      summary_target_ratio=float(cfg.get("target_ratio", 0.20)), quiet_mode=True,
                      abort_on_summary_failure=str(cfg.get("abort_on_summary_failure", False)).lower() in ("true", "1", "yes"))
            accepted = inspect.signature(ContextCompressor.__init__).parameters
            self._fallback = ContextCompressor(**{k: v for k, v in kw.items() if k in accepted})
            for attr in ("_session_db", "_session_id"):
                if hasattr(self, attr):
                    setattr(self._fallback, attr, getattr(self, attr))
        except Exception as exc:
            log.warning("hmc: Hermes' built-in compressor could not be built as the fallback (%s: %s)", type(exc).__name__, exc)
            self._fallback = None
        return self._fallback

    # -- the sidecar -----------------------------------------------------------------------------
    def _ask(self, method, params, timeout=None, start=True):
        """The sidecar's result (a dict), or None with the reason kept in `self._why`."""
        sidecar = self._bridge.sidecar
        try:
            if not start and sidecar.proc is None:
                self._why = "the sidecar is not running"
                return None
            if not sidecar.ensure():
                self._why = sidecar.disabled or ("the sidecar is starting" if sidecar.starting else "the sidecar is not running (see the line before)")
                return None
            if "context_engine" not in sidecar.capabilities:
                self._why = "this sidecar is no context engine (an older build, or HMC_SIDECAR_COMMAND names another)"
                return None
            answer = sidecar.call(method, params, timeout)
        except Exception as exc:
            self._why = "%s: %s" % (type(exc).__name__, exc)
            return None
        if not isinstance(answer, dict):
            self._why = "the sidecar did not answer %s (%s)" % (method, sidecar.disabled or sidecar.last_failure or "see the hmc log lines")
            return None
        if "error" in answer:
            self._why = "the sidecar answered %s with an error: %s" % (method, (answer.get("error") or {}).get("message", "?"))
            return None
        result = answer.get("result")
        return result if isinstance(result, dict) else None

    def _hand_over(self, what):
        """The built-in compressor decides now; one line per episode (and one per compaction)."""
        if self._handed_over != self._why or what == "compress":
            self._handed_over = self._why
            log.warning("hmc: %s: %s; Hermes' built-in compressor %s", "compaction" if what == "compress" else "the context engine",
                        self._why, "compacts this time" if what == "compress" else "decides when to compact until the sidecar is back")
        fallback = self._builtin()
        if fallback is not None:
            for attr in _STATE_ATTRS:
                if hasattr(self, attr):
                    setattr(fallback, attr, getattr(self, attr))
        return fallback

    # -- should Hermes compact? -----------------------------------------------------------------
    def should_defer_preflight_to_real_usage(self, rough_tokens):
        # Hermes calls this right before should_compress with its rough measure: remember which one it is.
        self._rough = rough_tokens
        return False

    def should_compress(self, prompt_tokens=None):
        try:
            tokens = int(prompt_tokens if prompt_tokens is not None else self.last_prompt_tokens)
            rough, self._rough = self._rough, None
            measure = "provider" if tokens > 0 and tokens == self._usage_prompt and tokens != rough else "host"
            params = {"session_id": self.session_id, "tokens": max(0, tokens), "measure": measure, "threshold_tokens": self.threshold_tokens,
                      "awaiting_usage": bool(getattr(self, "awaiting_real_usage_after_compression", False))}
            if measure == "host":
                params["in_place_tokens"] = self._in_place_tokens()
            result = self._ask("should_compress", params)
            if result is not None and isinstance(result.get("compress"), bool):
                self._handed_over = None
                return result["compress"]
            fallback = self._hand_over("should_compress")
            return bool(fallback.should_compress(prompt_tokens)) if fallback is not None else tokens >= self.threshold_tokens > 0
        except Exception as exc:
            log.warning("hmc: should_compress failed inside the bridge (%s: %s); Hermes' own figure decides", type(exc).__name__, exc)
            return prompt_tokens is not None and self.threshold_tokens > 0 and prompt_tokens >= self.threshold_tokens

    def should_compress_preflight(self, messages):
        return False  # never called by Hermes 0.16 or 0.19; should_compress decides

    def _in_place_tokens(self):
        """Hermes units (characters / 4) the turn's in-place edits take off the live history now."""
        sess = self._bridge.sessions.get(self.session_id)
        chars = 0
        for _msg, _had, original, edited in (sess.backups if sess is not None else []):
            if isinstance(original, str) and isinstance(edited, str):
                chars += len(original) - len(edited)
        return max(0, chars // 4)

    # -- the compaction --------------------------------------------------------------------------
    def has_content_to_compress(self, messages):
        return True

    def compress(self, messages, current_tokens=None, focus_topic=None, force=False, memory_context="", **_kw):
        try:
            return self._compress(messages, current_tokens, focus_topic, force, memory_context)
        except Exception as exc:
            self._why = "the bridge failed (%s: %s)" % (type(exc).__name__, exc)
            return self._builtin_compress(messages, current_tokens, focus_topic, force)

    def _compress(self, messages, current_tokens, focus_topic, force, memory_context):
        # What Hermes keeps must be raw: undo the turn's in-place edits first (the hooks put them back next turn).
        sess = self._bridge.sessions.get(self.session_id)
        if sess is not None:
            views.restore(sess)
        sent, where = compaction.readable(messages)
        params = {"session_id": self.session_id, "messages": sent, "threshold_tokens": self.threshold_tokens, "force": bool(force)}
        if isinstance(focus_topic, str) and focus_topic.strip():
            params["focus_topic"] = focus_topic
        if isinstance(memory_context, str) and memory_context.strip():
            params["memory_context"] = memory_context
        result = self._ask("compress", params, COMPRESS_TIMEOUT)
        compacted = compaction.apply_plan(messages, result.get("plan"), where) if result is not None else None
        if compacted is None:
            if result is not None:
                self._why = "HMC did not compact (%s)" % (result.get("reason") or "no plan")
            return self._builtin_compress(messages, current_tokens, focus_topic, force)
        self._handed_over = None
        self.compression_count += 1
        self._last_compress_aborted = False
        self._last_summary_error = None
        self._last_summary_fallback_used = False
        self._last_compression_made_progress = True
        log.info("hmc: compacted as Hermes' context engine: %d messages -> %d (%s)", len(messages), len(compacted), result.get("reason", ""))
        return compacted

    def _builtin_compress(self, messages, current_tokens, focus_topic, force):
        fallback = self._hand_over("compress")
        if fallback is None:
            log.warning("hmc: no compressor could compact this time; the conversation goes on unchanged")
            self._last_compress_aborted = True
            self._last_summary_error = "neither HMC nor Hermes' built-in compressor could compact"
            return messages
        try:
            kw = {"current_tokens": current_tokens, "focus_topic": focus_topic, "force": force}
            accepted = inspect.signature(fallback.compress).parameters
            result = fallback.compress(messages, **{k: v for k, v in kw.items() if k in accepted})
        except Exception as exc:
            log.warning("hmc: Hermes' built-in compressor failed too (%s: %s); the conversation goes on unchanged", type(exc).__name__, exc)
            self._last_compress_aborted, self._last_summary_error = True, str(exc)[:300]
            return messages
        for attr in _LAST_ATTRS:
            if hasattr(fallback, attr):
                setattr(self, attr, getattr(fallback, attr))
        self.compression_count = max(self.compression_count + (1 if result is not messages else 0), int(getattr(fallback, "compression_count", 0)))
        return result

    # -- usage, sessions, status -------------------------------------------------------------------
    def update_from_response(self, usage):
        try:
            usage = usage if isinstance(usage, dict) else {}
            keys = ("prompt_tokens", "completion_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens")
            figures = {k: _tokens(usage.get(k)) for k in keys}
            bad = [k for k in keys if figures[k] is None]
            if bad:
                # Issue 26, finding 9: a figure that is no token count (negative, NaN, a word) is
                # neither kept nor sent: the call's usage is unknown, not 0. Said once per session.
                if self._bad_usage != self.session_id:
                    self._bad_usage = self.session_id
                    log.warning("hmc: the provider's usage has %s = %r, not a whole number of tokens; this call's usage is not recorded (said once per session)",
                                bad[0], usage.get(bad[0]))
                return
            self.last_prompt_tokens = figures["prompt_tokens"]
            self.last_completion_tokens = figures["completion_tokens"]
            total = _tokens(usage.get("total_tokens"))
            self.last_total_tokens = total if total else self.last_prompt_tokens + self.last_completion_tokens
            self._usage_prompt = self.last_prompt_tokens
            self.awaiting_real_usage_after_compression = False
            if self._fallback is not None:
                self._fallback.update_from_response(usage)
            # With the post_api_request hook (usage.py) the bridge stores every call's usage with its
            # ids; this one names no call, so it is stored only where that hook is missing.
            if usage and not getattr(self._bridge, "usage_hook", False):
                self._ask("update_from_response", {"session_id": self.session_id, "model": self.model, "provider": self.provider,
                                                   "usage": figures}, start=False)
        except Exception as exc:
            log.warning("hmc: update_from_response failed inside the bridge (%s: %s)", type(exc).__name__, exc)

    def bind_session_state(self, session_db=None, session_id="", **_kw):
        if session_id:
            self.session_id = str(session_id)
        self._session_db, self._session_id = session_db, str(session_id or "")
        self._forward("bind_session_state", session_db=session_db, session_id=session_id)

    def on_session_start(self, session_id, **kw):
        self.session_id = str(session_id or "")
        self._forward("on_session_start", session_id, **kw)
        params = {"session_id": self.session_id, "event": "start"}
        for key in ("old_session_id", "boundary_reason"):
            if isinstance(kw.get(key), str) and kw[key]:
                params[key] = kw[key]
        self._ask("engine_session", params, start=False)

    def on_session_end(self, session_id, messages=None, **_kw):
        # Hermes calls this at every compaction and every `hermes -q` exit too: HMC saves, never
        # ends the session (the hooks' on_session_finalize does).
        self._forward("on_session_end", session_id, messages)
        self._ask("engine_session", {"session_id": str(session_id or self.session_id), "event": "end"}, start=False)

    def on_session_reset(self):
        self.last_prompt_tokens = self.last_completion_tokens = self.last_total_tokens = self.compression_count = 0
        self._usage_prompt = 0
        self._forward("on_session_reset")
        self._ask("engine_session", {"session_id": self.session_id, "event": "reset"}, start=False)

    def _forward(self, method, *args, **kw):
        """Keeps the fallback's own state in step, so it can take over at any time."""
        fallback = self._fallback
        if fallback is not None and hasattr(fallback, method):
            try:
                getattr(fallback, method)(*args, **kw)
            except Exception as exc:
                log.debug("hmc: the fallback's %s failed (%s)", method, exc)

    def get_status(self):
        last = self.last_prompt_tokens if self.last_prompt_tokens > 0 else 0
        sidecar = self._bridge.sidecar
        return {"last_prompt_tokens": last, "threshold_tokens": self.threshold_tokens, "context_length": self.context_length,
                "usage_percent": min(100, last / self.context_length * 100) if self.context_length else 0,
                "compression_count": self.compression_count, "engine": NAME,
                "sidecar": "running" if sidecar.proc is not None else (sidecar.disabled or "not running"),
                "compacts": "Hermes' built-in compressor (%s)" % self._handed_over if self._handed_over else "HMC"}

    # -- hmc_control through the engine ------------------------------------------------------------
    def get_tool_schemas(self):
        # Hermes skips a name already registered (the plugin's own hmc_control): offered once.
        schema = self._bridge.tool_schema
        return [schema] if isinstance(schema, dict) and schema.get("name") else []

    def handle_tool_call(self, name, args, **kw):
        if name != "hmc_control":
            return json.dumps({"error": "Unknown context engine tool: %s" % name})
        return self._bridge.hmc_control(args if isinstance(args, dict) else {}, session_id=self.session_id)

    # -- what Hermes' main adds after 0.19.0 (called there, when present) ---------------------------
    def select_context(self, request_messages, *, conversation_messages=None, incoming_message=None, budget_tokens=0, **_kw):
        # The per-call view is already put on every request by the request middleware (after Hermes
        # built the request in its shape): doing it here too would do it twice.
        return None

    def on_turn_complete(self, messages, usage=None, **kw):
        # The turn's boundary: HMC saves the session (the hooks count the turn at on_session_end).
        self._ask("engine_session", {"session_id": self.session_id, "event": "end"}, start=False)

    def prune_tool_results_only(self, messages, current_tokens=None):
        # HMC never prunes what Hermes stores: layer 0 shrinks old tool results on the wire, every call.
        return messages, 0


def _tokens(value):
    """A token count from the provider's usage: None or absent is 0; a whole number of 0 or more (an
    integral float, its digits as a string) is itself; anything else (negative, NaN, a word, past
    1e12) is None."""
    if value is None:
        return 0
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 10 ** 12:
        return value
    return None


def _compression_config():
    try:
        from hermes_cli.config import load_config

        cfg = (load_config() or {}).get("compression") or {}
        return cfg if isinstance(cfg, dict) else {}
    except Exception:
        return {}
