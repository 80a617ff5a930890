"""The `hmc_control` tool schema the bridge registers. The one copy lives in TypeScript
(src/engine/control/control-schema.ts): the build writes it to `dist/hmc_control.schema.json`, read here at
`register()` time (the sidecar starts on the first hook, after Hermes has listed its tools), and the
sidecar's `hello` answer carries it too, which updates the registered dict in place.

Invariant: registering never fails for want of a schema. Without the file (HMC not built) or with
a damaged one, a minimal schema is registered (one `action` parameter) and one info line says why;
a later `hello` fills it in. The dict Hermes holds is never replaced, only its keys.
"""
import json
import logging

log = logging.getLogger("hmc")

SCHEMA_FILE = ("dist", "hmc_control.schema.json")

MINIMAL = {
    "name": "hmc_control",
    "description": "Control Hermes Context Manager (HMC), which shrinks tool outputs in what the model sees. "
                   "action=help lists the actions.",
    "parameters": {
        "type": "object",
        "properties": {"action": {"type": "string", "description": "help lists the actions"}},
        "required": ["action"],
    },
}


def valid(schema):
    """A tool schema the bridge may register: named hmc_control, with object parameters."""
    return isinstance(schema, dict) and schema.get("name") == "hmc_control" and isinstance(schema.get("description"), str) \
        and isinstance(schema.get("parameters"), dict) and schema["parameters"].get("type") == "object"


def load(plugin_dir):
    """A fresh dict: the built schema, else the minimal one."""
    path = plugin_dir.joinpath(*SCHEMA_FILE)
    try:
        with open(path, encoding="utf-8") as f:
            schema = json.load(f)
        if valid(schema):
            return schema
        why = "it is not an hmc_control tool schema"
    except OSError as exc:
        why = "it cannot be read (%s; is HMC built? `hermes hmc doctor`)" % (exc.strerror or exc)
    except ValueError as exc:
        why = "it is not JSON (%s)" % exc
    log.info("hmc: %s: %s; hmc_control is registered with a minimal schema until the sidecar answers", path, why)
    return json.loads(json.dumps(MINIMAL))


def update(schema, answered):
    """Puts the schema a `hello` answered into the registered dict, key by key (Hermes copies the
    dict when it lists tools; an agent built before keeps what it had). True when it changed."""
    if not valid(answered) or answered == schema:
        return False
    for key, value in answered.items():
        schema[key] = value
    for key in [k for k in schema if k not in answered]:
        del schema[key]
    return True
