/**
 * `hmc filter`: compresses one tool output from stdin (or, with --jsonl, one JSON case per line:
 * `{"tool","args","output","is_error"}` in, `{"output"}` out), exactly as the engine would when the
 * output first appears. For scripts, other agents' hooks and trying strategies by hand.
 *
 * Invariant: a bad input line gets an `{"error"}` line naming the problem; the batch goes on.
 */
import { parseArgs } from 'node:util';
import { loadConfigFile } from '../config/load.js';
import { compressOutput, type CompressContext } from '../engine/compress.js';
import { isRecord } from '../engine/envelope.js';
import { protectionFor } from '../engine/protection.js';
import { countTokens } from '../engine/tokens.js';
import { resolveConfigPath } from '../config/paths.js';
import type { Command } from './main.js';
import { readStdin } from './io.js';

export const command: Command = {
  summary: 'compress stdin as one tool output',
  async run(argv) {
    const { values } = parseArgs({
      args: argv,
      options: {
        tool: { type: 'string', default: 'terminal' },
        args: { type: 'string', default: '{}' },
        error: { type: 'boolean', default: false },
        jsonl: { type: 'boolean', default: false },
        config: { type: 'string' },
        stats: { type: 'boolean', default: false },
      },
      strict: true,
    });
    const loaded = loadConfigFile(resolveConfigPath(values.config));
    for (const issue of loaded.issues) process.stderr.write(`hmc: config: ${issue.message}\n`);
    const ctx: CompressContext = { config: loaded.config, protection: protectionFor(loaded.config), manual: false, log: (l) => process.stderr.write(`${l}\n`) };
    const input = await readStdin();
    if (!values.jsonl) {
      let args: unknown;
      try {
        args = JSON.parse(values.args);
      } catch {
        process.stderr.write(`hmc filter: --args must be JSON, got ${values.args}\n`);
        return 2;
      }
      const result = compressOutput(input, { tool: values.tool, args, hostError: values.error }, ctx);
      process.stdout.write(result.content);
      if (values.stats) {
        const before = countTokens(result.raw);
        const after = countTokens(result.content);
        process.stderr.write(`hmc filter: ${before} → ${after} tokens (${result.steps.map((s) => s.strategy).join(', ') || 'unchanged'})\n`);
      }
      return 0;
    }
    const out: string[] = [];
    input.split('\n').forEach((line, i) => {
      if (!line.trim()) return;
      out.push(JSON.stringify(filterCase(line, i + 1, ctx)));
    });
    process.stdout.write(out.length ? `${out.join('\n')}\n` : '');
    return 0;
  },
};

export function filterCase(line: string, lineNumber: number, ctx: CompressContext): { output: string } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { error: `line ${lineNumber}: not JSON` };
  }
  if (!isRecord(value)) return { error: `line ${lineNumber}: expected an object {"tool","args","output","is_error"}` };
  if (typeof value.output !== 'string') return { error: `line ${lineNumber}: "output" must be a string` };
  if (value.tool !== undefined && typeof value.tool !== 'string') return { error: `line ${lineNumber}: "tool" must be a string` };
  const result = compressOutput(value.output, { tool: typeof value.tool === 'string' ? value.tool : '', args: value.args ?? {}, hostError: value.is_error === true }, ctx);
  return { output: result.content };
}
