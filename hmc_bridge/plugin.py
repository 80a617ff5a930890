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

from . import control_schema, engine, hermes
from .bridge import Bridge
from .sidecar import Sidecar

log = logging.getLogger("hmc")

PLUGIN_DIR = Path(__file__).resolve().parents[1]  # the plugin's root: plugin.yaml, bin/, dist/
MIN_NODE = (20, 0)


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
    # No --config: the sidecar takes $HMC_CONFIG, else config.yaml beside the plugin (config/paths.ts).
    return [node, str(PLUGIN_DIR / "bin" / "hmc.js"), "sidecar", "--stdio", "--state-dir", str(state_dir)]


def _child_env(ctx):
    """The environment of the processes HMC starts (the sidecar, `hermes hmc`): Hermes' own, plus
    which Hermes config and plugin names a background dashboard they start watches, so it leaves
    by itself once Hermes no longer loads the plugin (docs/hermes.md "Disable, remove")."""
    manifest = getattr(ctx, "manifest", None)
    names = [n for n in (getattr(manifest, "key", None), getattr(manifest, "name", None)) if isinstance(n, str) and n]
    watch = {"config": str(hermes.hermes_home() / "config.yaml"), "names": list(dict.fromkeys(names)) or ["hmc"]}
    return dict(os.environ, HMC_HERMES_PLUGIN=json.dumps(watch))


def _register_cli(ctx, node):
    """`hermes hmc <command>`: this plugin's `hmc` command line, which is not on PATH after an install."""
    def setup(parser):
        parser.add_argument("hmc_args", nargs=argparse.REMAINDER, metavar="COMMAND",
                            help="doctor | dashboard start|status|stop | analytics | control ACTION … (hermes hmc help lists them)")

    def run(args):
        if node is None:
            sys.stderr.write("hmc: Node.js (>= 20.19) is not on PATH; install it, then run `hermes hmc doctor`\n")
            sys.exit(1)
        # Its hints name commands the way the user can type them here (`hermes hmc dashboard stop`).
        env = dict(_child_env(ctx), HMC_INVOKED_AS="hermes hmc")
        sys.exit(subprocess.call([node, str(PLUGIN_DIR / "bin" / "hmc.js")] + list(getattr(args, "hmc_args", None) or []), env=env))

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
            hermes.register_skill(ctx, PLUGIN_DIR)
        except Exception as exc:  # a name Hermes refuses, a missing file: only the guide is lost
            log.info("hmc: could not register the skill (%s)", exc)
        features = hermes.features(ctx)
        try:
            llm = ctx.llm
        except Exception:
            llm = None
        per_call = features["middleware"] or features["pre_api_request"]
        # tool_calls: a model-call view may shorten answered calls' arguments; the bridge puts them on
        # the request copy only, in every request shape (shapes.py), never in what Hermes stores.
        caps = ["append"] + (["model_call", "tool_calls"] if per_call else []) + (["llm.complete"] if llm is not None else [])
        # The sidecar reads Hermes' config (window, compressor threshold) and answers its figures.
        # host_config_file: the generic name (older bridges sent hermes_config; the sidecar still reads it).
        hello = {"host": "hermes", "protocol": 1, "capabilities": caps, "plugin_dir": str(PLUGIN_DIR),
                 "host_config_file": str(hermes.hermes_home() / "config.yaml")}
        bridge = Bridge(None, llm)
        precheck = None if os.environ.get("HMC_SIDECAR_COMMAND") else (lambda: _node_problem(node))
        bridge.tool_schema = control_schema.load(PLUGIN_DIR)
        sidecar = Sidecar(lambda: _sidecar_argv(node), bridge.host_request, hello, precheck, bridge.hello_answered, lambda: _child_env(ctx))
        bridge.sidecar = sidecar
        atexit.register(sidecar.close)
        hooks = ["pre_tool_call", "post_tool_call", "pre_llm_call", "on_session_end", "on_session_finalize"]
        hooks += [name for name in ("pre_api_request", "on_session_reset", "pre_gateway_dispatch", "post_api_request") if features[name]]
        bridge.usage_hook = features["post_api_request"]  # the engine's update_from_response then stores nothing twice
        for name in hooks:
            ctx.register_hook(name, getattr(bridge, name))
        # transform_tool_result exists in Hermes but is deliberately not used: a string returned
        # there becomes the stored session row (docs/hermes.md). The middleware changes only the wire.
        if features["middleware"]:
            ctx.register_middleware("llm_request", bridge.llm_request)
        ctx.register_tool(name="hmc_control", toolset="hmc_tools", schema=bridge.tool_schema, handler=bridge.hmc_control,
                          description=bridge.tool_schema["description"], emoji="\U0001F9ED")
        engine.register(ctx, bridge)  # `context.engine: hmc`: HMC owns compaction too (docs/hermes.md)
        if hasattr(ctx, "register_command"):
            ctx.register_command("hmc", bridge.command, description="HMC: status, stats, analytics, dashboard action=start …",
                                 args_hint="status | stats | analytics | dashboard action=start")
        return bridge
    except Exception as exc:
        log.warning("hmc: could not register (%s: %s); Hermes runs untouched", type(exc).__name__, exc)
        return None
