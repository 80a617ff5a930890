/**
 * Renders `config.yaml.example` from the key table, so the documented keys, their defaults and
 * their one-line docs can never drift from what the loader accepts (a test checks the file).
 */
import { CONFIG_KEYS } from './keys.js';

const HEADER = `# HMC configuration. Copy to config.yaml beside the plugin (hermes plugins install does it).
# Edits apply while running; a bad value is reported by its key and that key falls back to its
# default. Every key below shows its default.
`;

export function renderExample(): string {
  const out: string[] = [HEADER];
  const opened = new Set<string>();
  for (const key of CONFIG_KEYS) {
    const parts = key.path.split('.');
    const parents = parts.slice(0, -1);
    // A blank line between top-level sections.
    if (!opened.has(parts[0] as string) && out.length > 1) out.push('');
    parents.forEach((parent, depth) => {
      const prefix = parents.slice(0, depth + 1).join('.');
      if (opened.has(prefix)) return;
      opened.add(prefix);
      out.push(`${'  '.repeat(depth)}${parent}:`);
    });
    opened.add(parts[0] as string);
    const indent = '  '.repeat(parents.length);
    // JSON is valid YAML, and keeps lists and maps on one line.
    out.push(`${indent}# ${key.doc}`, `${indent}${parts.at(-1) as string}: ${JSON.stringify(key.default)}`);
  }
  return `${out.join('\n')}\n`;
}
