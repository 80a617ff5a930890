"""A long scripted session for layer 1 in a real Hermes (issue 10): eight user turns that read 32
project documents one by one (prose that layer 0 leaves whole, so the context grows the way a
research or review session does) and three files holding credentials (a seeded list of fake
secrets: two read with read_file, one printed by a terminal command).

Job: the work directory's files, the model server's script and the turns' user texts.
Invariant: deterministic (a fixed seed): a run with HMC and a run without it see the same bytes, so
their stored sessions can be compared byte for byte.
"""
import json
import random

_RNG = random.Random(20261123)
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _rand(n, alphabet=_ALNUM):
    return "".join(_RNG.choice(alphabet) for _ in range(n))


# Fake credentials in the shapes the redactor knows (docs/engine.md "Secrets"), each one unique.
SECRETS = {
    "aws_key_id": "AKIA" + _rand(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
    "aws_secret": _rand(40),
    "openai": "sk-proj-" + _rand(48),
    "github": "ghp_" + _rand(36),
    "slack": "xoxb-" + _rand(12, "0123456789") + "-" + _rand(24),
    "db_password": _rand(22),
    "stripe": "sk_live_" + _rand(32),
    "jwt_secret": _rand(44),
    "yaml_password": _rand(24),
    "client_secret": _rand(36),
    "bearer": _rand(40),
    "url_key": _rand(32),
}

ENV_FILE = "deploy.env"
ENV_TEXT = "\n".join([
    "# deployment settings for the staging cluster",
    "APP_ENV=staging",
    "AWS_ACCESS_KEY_ID=%s" % SECRETS["aws_key_id"],
    "AWS_SECRET_ACCESS_KEY=%s" % SECRETS["aws_secret"],
    "OPENAI_API_KEY=%s" % SECRETS["openai"],
    "GITHUB_TOKEN=%s" % SECRETS["github"],
    "DATABASE_URL=postgres://app:%s@db.staging.internal:5432/app" % SECRETS["db_password"],
    "LOG_LEVEL=info",
    "",
])
SECRETS_FILE = "service.json"
SECRETS_JSON = json.dumps({"service": "billing", "port": 8443,
                           "slack": {"bot_token": SECRETS["slack"], "channel": "#deploys"},
                           "stripe": {"secret_key": SECRETS["stripe"]},
                           "auth": {"jwt_secret": SECRETS["jwt_secret"], "ttl_seconds": 3600}}, indent=2) + "\n"

NOTES_FILE = "ops/notes.md"
NOTES_TEXT = "\n".join([
    "# Operations notes",
    "",
    "The staging database user (values.yaml):",
    "",
    "    db:",
    "      user: app",
    "      password: %s" % SECRETS["yaml_password"],
    "    oauth:",
    "      client_secret: %s" % SECRETS["client_secret"],
    "",
    "Checking the export API by hand:",
    "",
    "    curl -H 'Authorization: Bearer %s' https://export.staging.internal/v1/jobs" % SECRETS["bearer"],
    "    curl 'https://metrics.staging.internal/v1/query?api_key=%s&q=up'" % SECRETS["url_key"],
    "",
])

_TOPICS = ["billing", "ingest", "search", "cache", "auth", "export", "scheduler", "metrics", "storage", "gateway",
           "queue", "mailer", "reports", "audit", "sync", "webhooks", "profiles", "backups", "limits", "tenants",
           "alerts", "imports", "pricing", "sessions", "payments", "routing", "locks", "quotas", "search_ui", "admin",
           "billing_v2", "ledger"]
_WORDS = ("request record batch window retry budget shard replica index token tenant quota queue worker lease "
          "snapshot checkpoint latency throughput timeout backoff schema migration rollout canary flag "
          "partition cursor offset ledger invoice account region cluster node pool limit burst").split()


def document(n):
    """Design notes for one subsystem: a title, sections of prose, a small table; about 7,000 characters."""
    rng = random.Random(n)
    topic = _TOPICS[n - 1]
    lines = ["# %s service: design notes (doc %02d)" % (topic.capitalize(), n), ""]
    for section in ("Overview", "Data flow", "Failure handling", "Capacity", "Open questions"):
        lines += ["## " + section, ""]
        for _ in range(3):
            words = [rng.choice(_WORDS) for _ in range(62)]
            words[0] = words[0].capitalize()
            lines.append("The %s service %s." % (topic, " ".join(words)))
            lines.append("")
    lines += ["| setting | value |", "|---|---|"] + ["| %s_%s | %d |" % (topic, w, rng.randint(1, 9999)) for w in rng.sample(_WORDS, 6)]
    return "\n".join(lines) + "\n"


DOCS = {"docs/%s.md" % _TOPICS[n - 1]: document(n) for n in range(1, 33)}
_NAMES = list(DOCS)


def _reads(names):
    return [("read_file", {"path": name}) for name in names]


# Turn text → the tool calls the model makes, in order (model_server.py).
SCRIPT = {
    "L1": [("terminal", {"command": "cat %s" % ENV_FILE})] + _reads(_NAMES[0:4]),
    "L2": _reads(_NAMES[4:8]) + [("read_file", {"path": SECRETS_FILE}), ("read_file", {"path": NOTES_FILE})],
    "L3": _reads(_NAMES[8:12]),
    "L4": _reads(_NAMES[12:16]),
    "L5": _reads(_NAMES[16:20]),
    "L6": _reads(_NAMES[20:24]),
    "L7": _reads(_NAMES[24:28]),
    "L8": _reads(_NAMES[28:32]),
}
TURNS = ["L1: survey the deployment settings and the first design notes",
         "L2: go on with the next design notes and the service config",
         "L3: read the next four design notes",
         "L4: read the next four design notes",
         "L5: read the next four design notes",
         "L6: read the next four design notes",
         "L7: read the next four design notes",
         "L8: read the last four design notes"]


def files():
    return dict(DOCS, **{ENV_FILE: ENV_TEXT, SECRETS_FILE: SECRETS_JSON, NOTES_FILE: NOTES_TEXT})
