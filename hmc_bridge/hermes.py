"""What the bridge asks of Hermes itself: where its home is, which hooks and middleware this version
offers, which session its CLI is on, where its compressor really fires, its own rough measure of a
request, and its tool registry. Each answer comes from Hermes' own code where it can be imported,
else from the rule that code follows.

Invariant: every lookup fails soft (None, or the documented fallback); nothing here raises into a
hook, and nothing here decides what HMC does with the answer.
"""
import logging
import os
import shutil
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


SKILL = "hmc-guide"  # its name in SKILL.md: Hermes makes a skill a slash command by its name


def install_skill(plugin_dir):
    """Copies the skill into Hermes' skills once (a user's edits are kept). Its name is not `hmc`:
    Hermes offers every skill as a slash command of its name, and `/hmc` is the plugin's command
    (issue 17, finding 5: the slash menu showed `/hmc` twice). A copy an earlier version installed
    as `skills/hmc/` (frontmatter `name: hmc`, about `hmc_control`) moves to the new name, edits
    and all."""
    skills = hermes_home() / "skills"
    source = plugin_dir / "skills" / "hmc" / "SKILL.md"
    target = skills / SKILL / "SKILL.md"
    old = skills / "hmc" / "SKILL.md"
    if not target.exists() and old.is_file():
        text = old.read_text(encoding="utf-8", errors="replace")
        if text.startswith("---\nname: hmc\n") and "hmc_control" in text:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text.replace("name: hmc\n", "name: %s\n" % SKILL, 1), encoding="utf-8")
            old.unlink()
            try:
                old.parent.rmdir()
            except OSError:
                pass  # something else lives there: left as it is
            log.info("hmc: the skill is now %s (was hmc, a second /hmc in the slash menu)", SKILL)
    if source.is_file() and not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)


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


# -- the tool schemas a 0.16 pre_api_request shows ----------------------------------------------
def hook_tools(seen, cache, shape=None):
    """The request's tool schemas, on Hermes without middleware: its hook shows them depth-limited
    (values below depth 8 of the payload read "<str depth limit>"). Rebuilt from Hermes' tool
    registry by name (in the request's shape, with Hermes' own converter for Anthropic messages or
    Responses), and used only when they match what the hook showed; else what it showed. `cache`
    (a dict) keeps the last answer."""
    names = tuple(((t.get("function") or {}).get("name") if shape in (None, "chat_completions") else t.get("name"))
                  for t in seen if isinstance(t, dict))
    key = (shape, names)
    cached = cache.get(key)
    if cached is None:
        cached = seen
        try:
            from tools.registry import registry

            by_name = {t["function"]["name"]: t for t in registry.get_definitions(set(names), quiet=True)}
            rebuilt = [by_name[n] for n in names]
            if shape == "anthropic_messages":
                from agent.anthropic_adapter import convert_tools_to_anthropic

                rebuilt = convert_tools_to_anthropic(rebuilt)
            elif shape == "codex_responses":
                from agent.codex_responses_adapter import _responses_tools

                rebuilt = _responses_tools(rebuilt)
            if _depth_limited(rebuilt, 2) == seen:  # payload → body → tools: the list is at depth 2
                cached = rebuilt
        except Exception as exc:
            log.debug("hmc: tool schemas not rebuilt (%s)", exc)
        cache.clear()
        cache[key] = cached
    return cached


def _depth_limited(value, depth):
    """`value` as Hermes 0.16 shows it to hooks (run_agent._hook_jsonable: nothing below depth 8)."""
    if depth > 8:
        return "<%s depth limit>" % type(value).__name__
    if isinstance(value, dict):
        return {str(k): _depth_limited(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_depth_limited(v, depth + 1) for v in value]
    return value

