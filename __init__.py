"""HMC for Hermes: the plugin's face. Hermes imports this directory as the package
`hermes_plugins.<slug>` and calls `register(ctx)`; the bridge itself lives in `hmc_bridge/` beside
this file (docs/hermes.md "The bridge"):

- `hmc_bridge/sidecar.py`: starts `hmc sidecar --stdio` lazily, one JSON line per call (protocol
  v1, DESIGN §3), a timeout on every call, a restart with backoff after any failure;
- `hmc_bridge/views.py`: the sidecar's edits applied in place on Hermes' live message dicts for a
  turn (`pre_llm_call`) or on one request's own copies (`pre_model_call`), and restored;
- `hmc_bridge/shapes.py` and `shape_*.py`: each request shape Hermes sends (chat completions,
  Anthropic messages, Responses) read as one conversation, and the edits put back on it;
- `hmc_bridge/bridge.py`: Hermes' hooks, `llm_request` middleware (or `pre_api_request` on
  Hermes without it), the `hmc_control` tool, `/hmc` and `ctx.llm`, as protocol calls;
- `hmc_bridge/hermes.py`: what the bridge asks of Hermes itself (home, features, its
  compressor's floors, its own rough measure of a request, its tool registry);
- `hmc_bridge/control_schema.py`: the `hmc_control` schema it registers (built from TypeScript);
- `hmc_bridge/engine.py`: HMC as Hermes' context engine, registered when `context.engine: hmc`;
- `hmc_bridge/plugin.py`: `register(ctx)`, the wiring.

Invariant: fail open. No decision is taken in Python; any error (Node missing or too old, the
sidecar absent, slow, hung or dead, a bad answer, even this package missing) logs one line under
the "hmc" logger and hands Hermes its data back untouched. After the last restore the
conversation is byte-identical to what it would be without the plugin. Standard library only.
"""
import logging

try:
    from .hmc_bridge.plugin import register
except Exception as _exc:  # loaded as a lone file, or the package is missing or broken
    _why = "%s: %s" % (type(_exc).__name__, _exc)

    def register(ctx, **_kw):
        """HMC stays off: nothing is registered, and Hermes runs untouched."""
        logging.getLogger("hmc").warning("hmc: the bridge package (hmc_bridge/) could not be imported (%s); "
                                         "HMC is off and Hermes runs untouched", _why)
        return None

__all__ = ["register"]
