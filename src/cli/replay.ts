/**
 * `hmc replay <session.json> [--json] [--record]`: a recorded conversation run through the hooks
 * as a host would; prints input tokens with and without HMC over all model calls, the final
 * context, savings per strategy and per tool, cache breaks and whether the restore was exact.
 * `--record` writes the replayed session into analytics (history from recorded sessions).
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfigFile } from '../config/load.js';
import { parseSession, replaySession, type ReplayReport } from '../app/replay.js';
import { createRuntime } from '../app/runtime.js';
import { resolveConfigPath } from '../config/paths.js';
import type { Command } from './command.js';
import { explicitConfig, readableFile, UsageError } from './args.js';
import { count, num, table } from './io.js';
import { errorText } from '../core/errors.js';

const USAGE = `usage: hmc replay <session.json>... [--json] [--record] [--config PATH] [--state-dir D]
                  [--session ID] [--model M] [--context-length N]
  runs recorded conversations through the hooks as a host would and reports the savings;
  exit 1 when a restore was not exact or an invariant broke
  --json               the reports as JSON
  --record             also write the sessions into the analytics database of --state-dir
  --session ID         the session id (one file only; default: the file's name)
  --model M, --context-length N   what the host would say about the model
`;

export const command: Command = {
  summary: 'run a recorded session through the hooks',
  usage: USAGE,
  async run(argv) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: 'boolean', default: false },
        record: { type: 'boolean', default: false },
        config: { type: 'string' },
        'state-dir': { type: 'string' },
        session: { type: 'string' },
        model: { type: 'string' },
        'context-length': { type: 'string' },
      },
    });
    if (positionals.length === 0) throw new UsageError('name at least one session file');
    // Every file is checked before anything runs: a typo must not cost a long replay first.
    const sessions = positionals.map((file) => {
      const text = readFileSync(readableFile(file, 'session file'), 'utf8');
      try {
        return { file, messages: parseSession(text, file) };
      } catch (err) {
        throw new UsageError(errorText(err));
      }
    });
    const loaded = loadConfigFile(resolveConfigPath(explicitConfig(values.config)));
    for (const issue of loaded.issues) process.stderr.write(`hmc: config: ${issue.message}\n`);
    const contextLength = values['context-length'] ? Number(values['context-length']) : undefined;
    if (contextLength !== undefined && !(Number.isInteger(contextLength) && contextLength > 0)) {
      throw new UsageError(`--context-length must be a whole number above 0, got ${values['context-length']}`);
    }
    const runtime = values.record
      ? await createRuntime({
          config: loaded.config,
          ...(values['state-dir'] ? { stateDir: values['state-dir'] } : {}),
        })
      : null;
    const reports: ReplayReport[] = [];
    try {
      for (const { file, messages } of sessions) {
        const sessionId =
          positionals.length === 1 && values.session ? values.session : basename(file).replace(/\.(json|jsonl)$/, '');
        reports.push(
          replaySession(messages, {
            sessionId,
            config: loaded.config,
            platform: 'replay',
            ...(values.model ? { model: values.model } : {}),
            ...(contextLength ? { contextLength } : {}),
            ...(runtime ? { engine: runtime.engine } : {}),
          }),
        );
      }
      await runtime?.flush();
    } finally {
      await runtime?.close();
    }
    if (values.json) process.stdout.write(`${JSON.stringify(reports.length === 1 ? reports[0] : reports, null, 2)}\n`);
    else
      process.stdout.write(
        `${[...reports.map(formatReport), ...(reports.length > 1 ? [formatTotals(reports)] : [])].join('\n\n')}\n`,
      );
    return reports.every((r) => r.restore_exact && r.invariant_violations.length === 0) ? 0 : 1;
  },
};

export function formatReport(r: ReplayReport): string {
  const saved = r.input_tokens.raw - r.input_tokens.hmc;
  const ctxSaved = r.final_context_tokens.raw - r.final_context_tokens.hmc;
  const lines = [
    `session ${r.session_id}: ${count(r.messages, 'message')}, ${count(r.turns, 'turn')}, ${count(r.tool_calls, 'tool call')}, ${count(r.model_calls, 'model call')}`,
    '',
    table(
      ['', 'without HMC', 'with HMC', 'saved', '%'],
      [
        [
          'input tokens (all model calls)',
          num(r.input_tokens.raw),
          num(r.input_tokens.hmc),
          num(saved),
          pct(saved, r.input_tokens.raw),
        ],
        [
          'final context',
          num(r.final_context_tokens.raw),
          num(r.final_context_tokens.hmc),
          num(ctxSaved),
          pct(ctxSaved, r.final_context_tokens.raw),
        ],
        [
          'input cost (prompt cache)',
          num(r.cost.raw),
          num(r.cost.hmc),
          num(r.cost.raw - r.cost.hmc),
          `${r.cost_saved_pct.toFixed(1)}%`,
        ],
      ],
    ),
    '',
    table(
      ['strategy', 'input tokens saved'],
      sorted(r.saved_by_strategy).map(([k, v]) => [k, num(v)]),
    ),
    '',
    table(
      ['tool', 'input tokens saved'],
      sorted(r.saved_by_tool).map(([k, v]) => [k, num(v)]),
    ),
    '',
    `cache breaks: ${r.cache_breaks} (${r.cache_breaks_per_100_calls} per 100 model calls)`,
    `restore exact: ${r.restore_exact ? 'yes' : 'NO'}`,
    `invariants: ${r.invariant_violations.length === 0 ? 'all held' : `${r.invariant_violations.length} broken`}`,
    ...r.invariant_violations.slice(0, 20).map((v) => `  - ${v}`),
  ];
  return lines.join('\n');
}

/** One table over several sessions: what a corpus saves as a whole. */
export function formatTotals(reports: readonly ReplayReport[]): string {
  const sum = (f: (r: ReplayReport) => number): number => reports.reduce((n, r) => n + f(r), 0);
  const raw = sum((r) => r.input_tokens.raw);
  const hmc = sum((r) => r.input_tokens.hmc);
  const costRaw = sum((r) => r.cost.raw);
  const costHmc = sum((r) => r.cost.hmc);
  const calls = sum((r) => r.model_calls);
  const breaks = sum((r) => r.cache_breaks);
  const exact = reports.filter((r) => r.restore_exact).length;
  return [
    `all ${count(reports.length, 'session')}: ${count(calls, 'model call')}`,
    '',
    table(
      ['', 'without HMC', 'with HMC', 'saved', '%'],
      [
        ['input tokens (all model calls)', num(raw), num(hmc), num(raw - hmc), pct(raw - hmc, raw)],
        [
          'input cost (prompt cache)',
          num(costRaw),
          num(costHmc),
          num(costRaw - costHmc),
          pct(costRaw - costHmc, costRaw),
        ],
      ],
    ),
    '',
    `cache breaks: ${breaks} (${calls > 0 ? ((breaks / calls) * 100).toFixed(2) : '0'} per 100 model calls)`,
    `restore exact: ${exact}/${reports.length}`,
  ].join('\n');
}

function sorted(record: Record<string, number>): [string, number][] {
  const rows = Object.entries(record).sort((a, b) => b[1] - a[1]);
  return rows.length ? rows : [['(none)', 0]];
}

function pct(part: number, whole: number): string {
  return whole > 0 ? `${((part / whole) * 100).toFixed(1)}%` : '-';
}
