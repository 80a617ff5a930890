"""What the bridge asks of Hermes itself: where its home is, which hooks and middleware this version
offers, which session its CLI is on, where its compressor really fires, its own rough measure of a
request, and its tool registry. Each answer comes from Hermes' own code where it can be imported,
else from the rule that code follows.

Invariant: every lookup fails soft (None, or the documented fallback); nothing here raises into a
hook, and nothing here decides what HMC does with the answer.
"""
import logging
import os
import sys
from pathlib import Path

log = logging.getLogger("hmc")


def hermes_home():
    try:
        from hermes_constants import get_hermes_home

        return Path(get_hermes_home())
    except Exception:
        return Path(os.environ.get("HERMES_HOME") or Path.home() / ".hermes")


def features(ctx):
    """The hooks and middleware this Hermes offers (its registries' names), by feature."""
    try:
        from hermes_cli.plugins import VALID_HOOKS
    except Exception:
        VALID_HOOKS = set()
    try:
        from hermes_cli.middleware import VALID_MIDDLEWARE
    except Exception:
        VALID_MIDDLEWARE = set()
    middleware = hasattr(ctx, "register_middleware") and "llm_request" in VALID_MIDDLEWARE
    return {
        "middleware": middleware,
        # Hermes without request middleware (0.16): its pre_api_request hook gets the request's own
        # message dicts, copies made for that one call, so editing them changes that request only.
        "pre_api_request": not middleware and "pre_api_request" in VALID_HOOKS,
        "on_session_reset": "on_session_reset" in VALID_HOOKS,
        "pre_gateway_dispatch": "pre_gateway_dispatch" in VALID_HOOKS,
        # The provider's usage of every API call (0.16.0 and 0.19.0): issue 24.
        "post_api_request": "post_api_request" in VALID_HOOKS,
    }


def cli_session():
    """The session Hermes' interactive CLI is on now, or None (outside the CLI: `-q`, the gateway,
    the TUI; or an older Hermes). Slash commands get no session id (`fn(raw_args)`); the CLI gives
    the plugin manager a reference to itself (`_cli_ref`, private, set in `HermesCLI.run()` before
    the first prompt: 0.16.0 and 0.19.0) whose `session_id` is the resumed one from the start
    (`--resume ID`, before any message) and follows `/new`, `/resume` and a compression that moved
    to a new id; its agent, once built, holds the id the hooks use."""
    try:
        from hermes_cli.plugins import get_plugin_manager

        cli = getattr(get_plugin_manager(), "_cli_ref", None)
        if cli is None:
            return None
        for owner in (getattr(cli, "agent", None), cli):
            sid = getattr(owner, "session_id", None)
            if isinstance(sid, str) and sid:
                return sid
    except Exception:
        pass
    return None


def gateway_session(event, session_store):
    """The session the gateway's own store holds for the chat a message comes from (its source: the
    platform, chat, thread and user, by the gateway's key rule), without creating one; else the
    store's key for that chat, which names no session (the chat has none yet, so `/hmc status`
    says so, never another chat's figures). None when this is no gateway message. 0.19 reads it
    with `peek_session_id`; 0.16, which has no such accessor, from the store's entries."""
    source = getattr(event, "source", None)
    if source is None or session_store is None:
        return None
    key = session_store._generate_session_key(source)
    peek = getattr(session_store, "peek_session_id", None)
    if callable(peek):
        sid = peek(key)
    else:
        session_store._ensure_loaded()
        entry = session_store._entries.get(key)
        sid = getattr(entry, "session_id", None)
    return sid if isinstance(sid, str) and sid else "gateway-chat:%s" % key


def tell_user(text):
    """Shows one line where this Hermes' user looks, and logs it under "hmc" (agent.log, errors.log,
    which is all a gateway or the TUI shows of a plugin). In the interactive CLI it goes through the
    agent's own warning path (`_emit_warning`: printed above the prompt, as Hermes' own warnings
    are); elsewhere on a terminal (`hermes chat -q`, a foreground gateway) to stderr. Hermes' log
    handlers write files only, so a log line alone is seen by nobody at the terminal."""
    log.warning("%s", text)
    try:
        from hermes_cli.plugins import get_plugin_manager

        agent = getattr(getattr(get_plugin_manager(), "_cli_ref", None), "agent", None)
        warn = getattr(agent, "_emit_warning", None)
        if callable(warn) and not getattr(agent, "suppress_status_output", False):
            warn("⚠ " + text)
            return
    except Exception:
        pass
    try:
        if sys.stderr is not None and sys.stderr.isatty():
            sys.stderr.write(text + "\n")
            sys.stderr.flush()
    except Exception:
        pass


SKILL = "hmc-guide"  # its name in SKILL.md and under the plugin: `skill_view("hmc:hmc-guide")`
# The SKILL.md texts earlier versions copied into $HERMES_HOME/skills/ (as hmc/ or hmc-guide/, under
# either frontmatter name): a copy equal to one of these is HMC's own, unedited, and is removed.
SHIPPED_SKILLS = {
    "065cec77c9ca47985b6b057e9b1081512c3d17d2fc3e0af2506121b7f45f071b",
    "70e21c00ade05bb08d844bd6d3390eba0e1dbe7ec807109148662cf404a26f92",
    "96f881ae35679f3b738dea90c91d3fb01c0fead446e2aaf45f14072668f433a9",
    "a6163c9c67569039177c1e7932e482684d57a2c66f697be8bf05fa7fc08ea0eb",
    "be0d68ccf936b15dfc4396c807381c446a18c5b0ffd7b05dba649a48da905751",
    "d1f50af565c97fdbfeab096a11d454b639214c0a3ca2025b19085815e61cbf89",
}


def register_skill(ctx, plugin_dir):
    """The guide as a plugin skill (`ctx.register_skill`, 0.16.0 and 0.19.0): it lives in the plugin's
    folder and exists only while the plugin is loaded, so disabling or removing HMC takes it away
    (issue 27, finding 1: the copy in $HERMES_HOME/skills/ stayed, and the system prompt went on
    advertising it with `hmc_control` gone). Hermes lists no plugin skill in the system prompt; the
    model loads it by name (`skill_view("hmc:hmc-guide")`). A copy an earlier version left in
    $HERMES_HOME/skills/ is removed when it is unedited; an edited one is the user's and stays,
    named in one log line. Returns True when the skill was registered."""
    source = plugin_dir / "skills" / "hmc" / "SKILL.md"
    _remove_old_copies(source)
    if not source.is_file() or not callable(getattr(ctx, "register_skill", None)):
        return False
    ctx.register_skill(SKILL, source, description="How to read HMC's markers, recall an original, and control HMC (hmc_control)")
    return True


def _remove_old_copies(source):
    import hashlib

    # Unedited: a guide an earlier version shipped, or today's (under either name it was copied as),
    # so a copy is recognised whatever the guide's wording became since.
    unedited = set(SHIPPED_SKILLS)
    try:
        shipped = source.read_bytes()
        unedited |= {hashlib.sha256(v).hexdigest() for v in (shipped, shipped.replace(b"name: hmc-guide\n", b"name: hmc\n", 1))}
    except OSError:
        pass
    skills = hermes_home() / "skills"
    for folder in (skills / SKILL, skills / "hmc"):
        copy = folder / "SKILL.md"
        try:
            if not copy.is_file():
                continue
            text = copy.read_bytes()
            if hashlib.sha256(text).hexdigest() not in unedited:
                if b"hmc_control" in text and text.startswith(b"---\nname: hmc"):
                    log.warning("hmc: %s is an edited copy of HMC's guide from an earlier version; it is yours and stays "
                                "(HMC's guide is now the plugin skill hmc:%s); remove it if you do not need it", copy, SKILL)
                continue
            copy.unlink()
            try:
                folder.rmdir()
            except OSError:
                pass  # something else lives there: left as it is
            log.info("hmc: removed %s (HMC's guide is now the plugin skill hmc:%s)", copy, SKILL)
        except OSError as exc:
            log.info("hmc: could not check %s (%s)", copy, exc)


# -- what a summary costs -----------------------------------------------------------------------------
def summariser_price(main, model, provider):
    """The price of the model that wrote a summary (`model`, `provider`), its input and output tokens
    as multiples of the main model's input token price (`main`: model, provider, base URL of the
    last model call), from Hermes' own price table (agent.usage_pricing, which Hermes' cost display
    uses). None when Hermes knows either price not, or the main model's input is free."""
    try:
        from agent.usage_pricing import get_pricing_entry

        main_model, main_provider, base_url = main
        ours = get_pricing_entry(main_model, provider=main_provider, base_url=base_url)
        same_route = not provider or provider == main_provider
        theirs = get_pricing_entry(model or main_model, provider=provider or main_provider, base_url=base_url if same_route else None)
        base = float(ours.input_cost_per_million)
        price = {"input": float(theirs.input_cost_per_million) / base, "output": float(theirs.output_cost_per_million) / base}
    except Exception:  # no Hermes pricing, an unknown model, a missing price, a free main model
        return None
    return price if all(v >= 0 and v != float("inf") for v in price.values()) else None


# -- where Hermes' compressor fires ----------------------------------------------------------------
def trigger_share(context_length, share):
    """Where Hermes' own compressor really fires, as a share of the window, for the `share` of its
    config (the sidecar reads that in Hermes' config.yaml: hello's `host_config`). Hermes raises it
    by rules of its own that differ by version; they are applied here with Hermes' code (0.19: at
    least 0.75 under a 512 K window, at least 64 K tokens, 85 % of a window that floor meets; 0.16:
    at least 64 K tokens, as its compressor computes it). Without Hermes' code, or without a
    window, the share as it is."""
    if not context_length:
        return share
    try:
        from agent.context_compressor import ContextCompressor
        effective = getattr(ContextCompressor, "_effective_threshold_percent", None)
        if callable(effective):
            share = float(effective(context_length, share))
        tokens = getattr(ContextCompressor, "_compute_threshold_tokens", None)
        if callable(tokens):
            return min(1.0, float(tokens(context_length, share, None)) / context_length)
        from agent.model_metadata import MINIMUM_CONTEXT_LENGTH
        return min(1.0, max(context_length * share, MINIMUM_CONTEXT_LENGTH) / context_length)
    except Exception:
        return share


# -- Hermes' own rough measure of a request ------------------------------------------------------
_MESSAGE_CHARS = []  # Hermes' per-message character count, looked up once (a failed import searches sys.path)


def _hermes_message_chars():
    """Hermes' own character count of one message (images aside), else the rule it follows."""
    if not _MESSAGE_CHARS:
        try:
            from agent.model_metadata import _estimate_message_chars as count
        except Exception:
            def count(msg):
                return len(str(msg))
        _MESSAGE_CHARS.append(count)
    return _MESSAGE_CHARS[0]


def _hermes_tools_tokens(tools):
    """Hermes' own rough count of the tool schemas (0.19 sums their main fields; 0.16 `str(tools)` / 4)."""
    if not tools:
        return 0
    try:
        from agent.model_metadata import _estimate_tools_tokens_rough

        return int(_estimate_tools_tokens_rough(tools))
    except Exception:
        return (len(str(tools)) + 3) // 4


def host_tokens(sess, head, messages, base, tools, tools_key):
    """Hermes' rough measure of this request as its compressor judges it (0.16, 0.19:
    `estimate_request_tokens_rough`, characters / 4 of every message and of the tool schemas),
    before HMC's edits. Layer 1 fires at its share of Hermes' threshold in these units
    (docs/hermes.md "Layer 1 beside Hermes' compressor"). `head`: the system prompt as a message;
    `messages`: the conversation (in a converting shape, read back as chat messages, which is what
    Hermes measures before it converts). The `base` messages the sidecar holds unchanged keep the
    count they had when they were new (an in-place edit of an earlier turn is counted raw: a
    little more than Hermes counts)."""
    chars_of = _hermes_message_chars()
    keep = base if base is not None and base <= len(sess.measured) else 0
    sess.measured = sess.measured[:keep] + [chars_of(messages[i]) for i in range(keep, len(messages))]
    if sess.tools_tokens[0] != tools_key:
        sess.tools_tokens = (tools_key, _hermes_tools_tokens(tools))
    return (sum(chars_of(m) for m in head) + sum(sess.measured) + 3) // 4 + sess.tools_tokens[1]


# -- the request a 0.16 pre_api_request is about ----------------------------------------------
_FRAMES = 12  # how far up from the hook the caller is looked for (Hermes' loop is 6 frames up)


def hook_request_body(request_messages, shown):
    """The body of the request a Hermes 0.16 `pre_api_request` is about, as it is sent; else the
    hook's copy (`shown`) as it is. The hook's `request` is a sanitised copy (run_agent
    `_sanitize_hook_payload`, 0.16.0): nothing below depth 8 of the payload (a tool schema's enums
    and item types read "<str depth limit>"), strings cut at 8,000 characters, and a copy over
    50,000 characters (HERMES_PLUGIN_PAYLOAD_MAX_CHARS; the default tools' schemas alone are about
    48,000) made again with strings cut at 1,000 and lists at 50, or, still too long, a preview
    with no body at all. So its tool schemas and system prompt (Anthropic's `system`, Responses'
    `instructions`) fall short of what is sent: 10,087 of 11,967 schema tokens with the default
    tools, none once the conversation is long. Only `request_messages` are the request's own
    dicts; the body they belong to is Hermes' `api_kwargs` in the caller's frame
    (agent/conversation_loop.py), found here by the identity of those messages, and only read
    (10 µs a call, whatever the conversation's length)."""
    if not isinstance(request_messages, list) or not request_messages:
        return shown
    try:
        frame = sys._getframe(1)
        for _ in range(_FRAMES):
            if frame is None:
                break
            for value in frame.f_locals.values():
                if _carries(value, request_messages):
                    return value
            frame = frame.f_back
    except Exception as exc:
        log.debug("hmc: the request's own body was not found (%s)", exc)
    return shown


def _carries(body, messages):
    """Whether `body` is a request whose conversation (`messages`, Responses' `input`) is these
    message objects: as many, and the same objects first, in the middle and last (three identity
    checks, not one per message: the hook's list is a shallow copy of that very list)."""
    if not isinstance(body, dict):
        return False
    sent = body.get("messages")
    if not isinstance(sent, list):
        sent = body.get("input")
    n = len(messages)
    return isinstance(sent, list) and len(sent) == n and all(sent[i] is messages[i] for i in (0, n // 2, n - 1))
