"""The HMC bridge for Hermes, as a package beside the plugin's face (the repository root's
__init__.py, which Hermes imports as `hermes_plugins.<slug>` and which re-exports `register`).

- sidecar.py: the sidecar process: start, framing, timeouts, restart with backoff.
- views.py: what the bridge keeps of each session; edits applied in place or on one request,
  and restored.
- shapes.py (shape_chat.py, shape_anthropic.py, shape_responses.py, shape_base.py): Hermes'
  request shapes, each read as the conversation the sidecar holds, each edit put back where its
  message lives in the request.
- bridge.py: Hermes' hooks, middleware, tool, command and `ctx.llm` as protocol calls.
- hermes.py: what the bridge asks of Hermes itself (its home, features, its compressor's floors,
  its own rough measure of a request, its tool registry).
- control_schema.py: the `hmc_control` schema registered (the build's copy; hello updates it).
- engine.py: HMC as Hermes' context engine (`context.engine: hmc`): decisions by the sidecar,
  Hermes' built-in compressor as the fallback; compaction.py: the list a compaction sends and the
  one the sidecar's plan describes.
- plugin.py: `register(ctx)`, the wiring.

Invariant: standard library only; fail open (docs/hermes.md). Imported relatively, so the package
works under whatever name Hermes gives the plugin.
"""
