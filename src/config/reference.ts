/**
 * Renders `docs/configuration.md` from the key table, like `config.yaml.example` (example.ts): every
 * key with its default, the values it accepts (the validator's own words) and its doc line, so
 * the reference cannot drift from what the loader accepts (a test compares the file).
 *
 * Invariant: generated text only; the accepted values come from each validator's refusal of a
 * value no validator takes, never from a second list.
 */
import { CONFIG_KEYS, type ConfigKey } from './keys.js';
import { BUILT_IN_PRICES } from './prices.js';

/** Keys whose doc line needs more than one line of context. */
const NOTES: Record<string, string> = {
  'compress.min_context_percent':
    'Layer 1 does not aim at a context size: it summarises finished ranges ([engine.md](engine.md) "Layer 1").',
};

const HEADER = `# Configuration

<!-- Generated from src/config/keys.ts by \`npm run config:example\`; edit the key table, not this file. -->

HMC reads \`config.yaml\` beside the plugin (\`~/.hermes/plugins/hmc/config.yaml\`; \`hermes plugins
install\` copies it from [\`config.yaml.example\`](../config.yaml.example), which lists the same keys
with their defaults). \`--config PATH\` or \`$HMC_CONFIG\` point elsewhere. A missing file means every
default. Edits apply while running (the file is watched). A bad value is reported once, naming its
key, its line and what was expected, and only that key falls back to its default; an unknown key
names the key it most likely meant (\`\`enabeld: unknown key, ignored; did you mean \`enabled\`? (line 1)\`\`:
a swap, a missing, extra or wrong letter, or the right name in the wrong section). Numbers and
booleans may be written as strings (\`"50"\`, \`"false"\`).

Where the problems show: \`/hmc status\` ends with \`config: N problems in <file>: <the first, in file
order>\`; once per session Hermes' CLI prints the same line as a warning (\`⚠ hmc: config: …\`; on
stderr with \`hermes chat -q\` at a terminal) and Hermes' \`logs/agent.log\` and \`errors.log\` get it
(where a gateway shows it); \`/hmc config\` (\`hmc_control action=config\`: \`issues\` and that
\`summary\`), \`hermes hmc doctor\` and the sidecar log list them all. A file that is not valid YAML
(or not a mapping, or unreadable) means every default at the first load, said as the first problem
(\`… is not valid YAML at line 4 (…); using the defaults for every key\`); an edit that breaks a file
that worked keeps the config in force until the file is fixed (\`…; keeping the config in force
(the last one that parsed) until the file is fixed\`). Deleting the file means the defaults.
`;

/** The built-in price table as a section of its own, after the `pricing` keys. */
function priceTable(): string {
  const rows = Object.entries(BUILT_IN_PRICES).map(
    ([name, p]) => `| \`${name}\` | ${p.input} | ${p.cache_read} | ${p.cache_write} | ${p.output} |`,
  );
  return [
    '## The built-in price table',
    '',
    'USD per million tokens, list prices as the providers published them in 2025 (check yours: prices change).',
    '`pricing.models` adds to this table and replaces an entry of the same name; a model no table names is',
    "priced with `pricing.default_*`. Names match a model's name at word boundaries, the longest winning",
    '(`gpt-4o` prices `openai/gpt-4o-2024-08-06`, `gpt-4o-mini` its mini), over both tables: your',
    '`gpt-4.1` entry prices `gpt-4.1-2025-04-14` but not `gpt-4.1-mini`, which this table names. How the figures are priced:',
    '[glossary.md](glossary.md) "cost".',
    '',
    '| model | input | cache read | cache write | output |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

const FOOTER = `
## Not in this file

| variable | what |
|---|---|
| \`HERMES_HOME\` | Hermes' home (default \`~/.hermes\`); the state dir is \`$HERMES_HOME/hmc_state\` |
| \`HMC_STATE_DIR\` | the state dir itself (sessions, events, inspector copies, \`analytics.db\`, the dashboard's record and log) |
| \`HMC_DB_PATH\` | the analytics database, when \`analytics.db_path\` is empty |
| \`HMC_CONFIG\` | this file's path, when \`--config\` is not given |
| \`HMC_DEBUG\` | any value: the CLI prints stack traces of unexpected errors |
| \`HMC_HOOK_TIMEOUT\`, \`HMC_START_TIMEOUT\` | the bridge's wait for a hook's answer and for the sidecar's start, in seconds |
| \`HMC_STUCK_LIMIT\` | seconds a sidecar may stay silent (a ping included) after a hook gave up on its answer before it is killed and restarted (default 10; docs/faults.md) |
| \`HMC_PROBE_AFTER\`, \`HMC_PROBE_LIMIT\` | a long call (a compaction) pings a sidecar silent this long (0.5 s), and ends when a ping goes unanswered this long (2.5 s) |
| \`HMC_SIDECAR_COMMAND\`, \`HMC_DASHBOARD_COMMAND\` | a JSON list replacing the command that runs the sidecar / the background dashboard (tests) |
`;

/** What a key accepts, in its validator's words (every validator refuses this value: no YAML value is a symbol). */
function accepted(key: ConfigKey): string {
  const r = key.validate(Symbol('no validator accepts this'));
  return r.ok ? 'any value' : r.expected;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function renderReference(): string {
  const sections = new Map<string, ConfigKey[]>();
  for (const key of CONFIG_KEYS) {
    const top = key.path.includes('.') ? (key.path.split('.')[0] as string) : '(top level)';
    sections.set(top, [...(sections.get(top) ?? []), key]);
  }
  const out = [HEADER];
  for (const [section, keys] of sections) {
    out.push(
      `## ${section === '(top level)' ? 'Top level' : `\`${section}\``}`,
      '',
      '| key | default | accepts | what it does |',
      '|---|---|---|---|',
    );
    for (const key of keys) {
      const note = NOTES[key.path];
      out.push(
        `| \`${key.path}\` | \`${cell(JSON.stringify(key.default))}\` | ${cell(accepted(key))} | ${cell(key.doc)}${note ? ` ${cell(note)}` : ''} |`,
      );
    }
    out.push('');
  }
  return `${out.join('\n').trimEnd()}\n\n${priceTable()}${FOOTER}`;
}
