/**
 * `hmc filter`: compresses one tool output from stdin (or, with --jsonl, one JSON case per line:
 * `{"tool","args","output","is_error"}` in, `{"output"}` out), exactly as the engine would when the
 * output first appears. For scripts, other agents' hooks and trying strategies by hand.
 *
 * Invariant: a bad input line gets an `{"error"}` line naming the problem; the batch goes on.
 * stdout carries the output and nothing else: `--stats` writes its one line to stderr.
 */
import { parseArgs } from 'node:util';
import { loadConfigFile } from '../config/load.js';
import { compressOutput, type CompressContext } from '../engine/turn/compress.js';
import { isRecord } from '../hosts/outputs/envelope.js';
import { protectionFor } from '../engine/session/protection.js';
import { countTokens } from '../core/tokens.js';
import { resolveConfigPath } from '../config/paths.js';
import type { Command } from './command.js';
import { explicitConfig, UsageError } from './args.js';
import { readStdin } from './io.js';

const USAGE = `usage: hmc filter [--tool T] [--args JSON] [--error] [--jsonl] [--stats] [--config PATH]
  compresses stdin as one tool output and prints the result on stdout
  --tool T        the tool that produced it (default terminal)
  --args JSON     the tool call's arguments (default {})
  --error         the call failed
  --jsonl         one case per line: {"tool","args","output","is_error"} in, {"output"} out
  --stats         tokens before and after (and the strategies applied) as one line on stderr
  --config PATH   the config to use (default: config.yaml beside the plugin)
`;

export const command: Command = {
  summary: 'compress stdin as one tool output',
  usage: USAGE,
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
    const loaded = loadConfigFile(resolveConfigPath(explicitConfig(values.config)));
    for (const issue of loaded.issues) process.stderr.write(`hmc: config: ${issue.message}\n`);
    const ctx: CompressContext = {
      config: loaded.config,
      protection: protectionFor(loaded.config),
      manual: false,
      log: (l) => process.stderr.write(`${l}\n`),
    };
    const input = await readStdin();
    if (!values.jsonl) {
      let args: unknown;
      try {
        args = JSON.parse(values.args);
      } catch {
        throw new UsageError(
          `--args must be JSON, got ${values.args.length > 200 ? `${values.args.slice(0, 200)}…` : values.args}`,
        );
      }
      const result = compressOutput(input, { tool: values.tool, args, hostError: values.error }, ctx);
      process.stdout.write(result.content);
      if (values.stats) {
        const before = countTokens(result.raw);
        const after = countTokens(result.content);
        process.stderr.write(
          `hmc filter: ${before} → ${after} tokens (${result.steps.map((s) => s.strategy).join(', ') || 'unchanged'})\n`,
        );
      }
      return 0;
    }
    const out: string[] = [];
    const totals = { cases: 0, errors: 0, before: 0, after: 0 };
    input.split('\n').forEach((line, i) => {
      if (!line.trim()) return;
      const result = filterCase(line, i + 1, ctx);
      out.push(JSON.stringify(result.answer));
      totals.cases++;
      if (!result.raw) totals.errors++;
      else if (values.stats) {
        totals.before += countTokens(result.raw);
        totals.after += countTokens(result.answer.output ?? '');
      }
    });
    process.stdout.write(out.length ? `${out.join('\n')}\n` : '');
    if (values.stats) {
      const saved =
        totals.before > 0 ? ` (${(((totals.before - totals.after) / totals.before) * 100).toFixed(1)}% saved)` : '';
      process.stderr.write(
        `hmc filter: ${totals.cases} case(s), ${totals.errors} rejected; ${totals.before} → ${totals.after} tokens${saved}\n`,
      );
    }
    return 0;
  },
};

/** One --jsonl case: the answer line, and the raw output when the case was valid (for --stats). */
export function filterCase(
  line: string,
  lineNumber: number,
  ctx: CompressContext,
): { answer: { output?: string; error?: string }; raw: string | null } {
  const reject = (error: string) => ({ answer: { error: `line ${lineNumber}: ${error}` }, raw: null });
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return reject('not JSON');
  }
  if (!isRecord(value)) return reject('expected an object {"tool","args","output","is_error"}');
  if (typeof value.output !== 'string') return reject('"output" must be a string');
  if (value.tool !== undefined && typeof value.tool !== 'string') return reject('"tool" must be a string');
  const result = compressOutput(
    value.output,
    {
      tool: typeof value.tool === 'string' ? value.tool : '',
      args: value.args ?? {},
      hostError: value.is_error === true,
    },
    ctx,
  );
  return { answer: { output: result.content }, raw: value.output };
}
