"""The plugin's entry point: `register(ctx)` wires the bridge into Hermes (hooks, middleware, the
`hmc_control` tool, the `/hmc` command, `hermes hmc`) and builds the supervised sidecar it talks to.

Invariant: registering never breaks Hermes. Without Node only `hermes hmc` is registered (it says
what is missing); any error logs one line and leaves Hermes as it was.
"""
import argparse
import atexit
import json
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from . import hermes
from .bridge import Bridge
from .sidecar import Sidecar

log = logging.getLogger("hmc")

PLUGIN_DIR = Path(__file__).resolve().parents[1]  # the plugin's root: plugin.yaml, bin/, dist/
MIN_NODE = (20, 0)

CONTROL_SCHEMA = {
    "name": "hmc_control",
    "description": (
        "Control Hermes Context Manager (HMC), which shrinks tool outputs in what the model sees. "
        "Actions: status, context, stats, index (this session's summarised phases; query to search them, "
        "scope=global for all sessions; phase=N for one phase's whole summary), "
        "analytics (scope, period=all|day|month|recent|project, "
        "limit), dashboard (sub_action=start|stop|status), sweep (count), manual_set (enabled), "
        "manual_status, recall (id, lines): the exact text a marker like (recall id=r... lines=41-160) stands for; "
        "of a summarised phase, its exact messages a page at a time (messages, or message with lines)."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "action": {"type": "string", "description": "status, context, stats, index, recall, analytics, dashboard, sweep, manual_set or manual_status"},
            "id": {"type": "string", "description": "recall: the id a marker prints (recall id=r...)"},
            "lines": {"type": "string", "description": "recall: the lines a marker names, e.g. 41-160 (omit for the whole output); with message, that message's lines"},
            "messages": {"type": "string", "description": "recall of a summarised phase: which of its messages, e.g. 21-40 (an answer says which come next)"},
            "message": {"type": "integer", "description": "recall of a summarised phase: one message too big for a page, read with lines"},
            "count": {"type": "integer", "description": "sweep: how many recent tool outputs to prune"},
            "enabled": {"type": "boolean", "description": "manual_set: turn manual mode on or off"},
            "query": {"type": "string", "description": "index: words to search the summarised phases for"},
            "phase": {"type": "integer", "description": "index: the phase number whose whole summary to show"},
            "session": {"type": "string", "description": "index: another session's id (from a scope=global hit) to list or read"},
            "scope": {"type": "string", "description": "analytics: global or project; index: session (default) or global"},
            "period": {"type": "string", "description": "analytics: all, day, month, recent or project"},
            "limit": {"type": "integer", "description": "analytics: rows (days, months or sessions); index: hits of a search (default 10)"},
            "sub_action": {"type": "string", "description": "dashboard: start, stop or status"},
        },
        "required": ["action"],
    },
}


def _node_problem(node):
    """Why Node cannot run the sidecar (checked once, on the first start), or None."""
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=10).stdout.strip()
    except Exception as exc:
        return "Node at %s does not run (%s)" % (node, exc)
    match = re.match(r"v(\d+)\.(\d+)", out)
    if not match or (int(match.group(1)), int(match.group(2))) < MIN_NODE:
        return "Node %s at %s is too old (HMC needs >= 20.19)" % (out or "?", node)
    return None


def _sidecar_argv(node):
    override = os.environ.get("HMC_SIDECAR_COMMAND")
    if override:
        return json.loads(override)
    state_dir = hermes.hermes_home() / "hmc_state"
    return [node, str(PLUGIN_DIR / "bin" / "hmc.js"), "sidecar", "--stdio", "--state-dir", str(state_dir), "--config", str(PLUGIN_DIR / "config.yaml")]


def _register_cli(ctx, node):
    """`hermes hmc <command>`: this plugin's `hmc` command line, which is not on PATH after an install."""
    def setup(parser):
        parser.add_argument("hmc_args", nargs=argparse.REMAINDER, metavar="COMMAND",
                            help="doctor | dashboard start|status|stop | analytics | control ACTION … (hermes hmc help lists them)")

    def run(args):
        if node is None:
            sys.stderr.write("hmc: Node.js (>= 20.19) is not on PATH; install it, then run `hermes hmc doctor`\n")
            sys.exit(1)
        sys.exit(subprocess.call([node, str(PLUGIN_DIR / "bin" / "hmc.js")] + list(getattr(args, "hmc_args", None) or [])))

    ctx.register_cli_command("hmc", "HMC's command line: doctor, dashboard, analytics, control", setup, run)


def register(ctx, **_kw):
    """Hermes entry point. Without Node it registers no hook, tool or slash command (the agent runs
    untouched), only `hermes hmc`, which says what is missing."""
    try:
        node = shutil.which("node")
        if hasattr(ctx, "register_cli_command"):
            try:
                _register_cli(ctx, node)
            except Exception as exc:  # a name clash or an older signature: only `hermes hmc` is lost
                log.info("hmc: could not add `hermes hmc` (%s)", exc)
        if node is None and not os.environ.get("HMC_SIDECAR_COMMAND"):
            log.warning("hmc: Node.js not found on PATH; HMC is off and Hermes runs untouched (install Node >= 20.19, then `hermes hmc doctor`)")
            return
        try:
            hermes.install_skill(PLUGIN_DIR)
        except OSError as exc:
            log.info("hmc: could not install the skill (%s)", exc)
        features = hermes.features(ctx)
        try:
            llm = ctx.llm
        except Exception:
            llm = None
        per_call = features["middleware"] or features["pre_api_request"]
        caps = ["append"] + (["model_call"] if per_call else []) + (["llm.complete"] if llm is not None else [])
        hello = {"host": "hermes", "protocol": 1, "capabilities": caps, "plugin_dir": str(PLUGIN_DIR)}
        config_file = hermes.hermes_home() / "config.yaml"
        context_length = hermes.configured_context_length(config_file)
        bridge = Bridge(None, llm, context_length, hermes.compression_threshold(config_file, context_length))
        precheck = None if os.environ.get("HMC_SIDECAR_COMMAND") else (lambda: _node_problem(node))
        sidecar = Sidecar(lambda: _sidecar_argv(node), bridge.host_request, hello, precheck)
        bridge.sidecar = sidecar
        atexit.register(sidecar.close)
        hooks = ["pre_tool_call", "post_tool_call", "pre_llm_call", "on_session_end", "on_session_finalize"]
        hooks += [name for name in ("pre_api_request", "on_session_reset") if features[name]]
        for name in hooks:
            ctx.register_hook(name, getattr(bridge, name))
        # transform_tool_result exists in Hermes but is deliberately not used: a string returned
        # there becomes the stored session row (docs/hermes.md). The middleware changes only the wire.
        if features["middleware"]:
            ctx.register_middleware("llm_request", bridge.llm_request)
        ctx.register_tool(name="hmc_control", toolset="hmc_tools", schema=CONTROL_SCHEMA, handler=bridge.hmc_control,
                          description=CONTROL_SCHEMA["description"], emoji="\U0001F9ED")
        if hasattr(ctx, "register_command"):
            ctx.register_command("hmc", bridge.command, description="HMC: status, stats, analytics, dashboard action=start …",
                                 args_hint="status | stats | analytics | dashboard action=start")
        return bridge
    except Exception as exc:
        log.warning("hmc: could not register (%s: %s); Hermes runs untouched", type(exc).__name__, exc)
        return None
