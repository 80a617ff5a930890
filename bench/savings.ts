/**
 * Savings on real sessions (issue 8): every session of each corpus replayed through the engine as
 * an ideal host drives it (pre_model_call before every model call, tool hooks around each result),
 * with the real o200k tokenizer. Per corpus: input tokens saved over all model calls, input cost
 * saved under the prompt cache (cached 0.1×, written 1.25×), cache breaks per 100 model calls,
 * and sessions restored exactly with every invariant held.
 *
 * Corpora: ../shared/corpus/swe-agent, and the development corpus of long sessions built by
 * bench/corpus/convert.py (its agents' folders under $HMC_DEV_CORPUS, default ../devcorpus; the
 * shared corpus under $HMC_SHARED_CORPUS, default ../shared/corpus); each is skipped with a note
 * when absent; any other folder of sessions is given as an argument (`npm run bench -- savings
 * DIR…`, then only those). The host-neutral figures (chars/4, the same for every plugin) come from
 * ../shared/bench/replay.py --driver ts: docs/engine.md gives both.
 * Each corpus also gets the share of its input by part, raw and as HMC sends it (input-parts.ts).
 * Run: `npm run bench -- savings`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { defaultConfig } from '../src/config/keys.js';
import { parseSession, replaySession } from '../src/app/replay.js';
import { Engine } from '../src/engine/engine.js';
import { NULL_SINK } from '../src/events/types.js';
import { formatParts, PartIndex, sentRequest, type PartTotals } from './input-parts.js';

const ROOT = join(import.meta.dirname, '..');
const DEV = process.env.HMC_DEV_CORPUS ?? join(ROOT, '..', 'devcorpus');
const SHARED = process.env.HMC_SHARED_CORPUS ?? join(ROOT, '..', 'shared', 'corpus');

export interface SavingsRow {
  corpus: string;
  sessions: number;
  calls: number;
  inputRaw: number;
  inputHmc: number;
  costRaw: number;
  costHmc: number;
  breaks: number;
  exact: number;
  byStrategy: Record<string, number>;
  /** The input by part over every model call: raw, and as HMC sends it. */
  parts: PartTotals;
}

/** The corpora found: the folders given (`dirs`), else the shared one, then each agent folder of the development corpus. */
export function corpora(dirs: readonly string[] = []): { name: string; dir: string }[] {
  if (dirs.length > 0) return dirs.map((d) => ({ name: basename(resolve(d)), dir: resolve(d) }));
  const out = [{ name: 'shared/corpus/swe-agent', dir: join(SHARED, 'swe-agent') }];
  if (existsSync(DEV)) {
    for (const agent of readdirSync(DEV).sort()) {
      const dir = join(DEV, agent);
      if (agent !== 'all' && statSync(dir).isDirectory()) out.push({ name: `devcorpus/${agent}`, dir });
    }
  }
  return out;
}

export function replayCorpus(name: string, dir: string): SavingsRow | null {
  if (!existsSync(dir)) return null;
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  if (files.length === 0) return null;
  const row: SavingsRow = {
    corpus: name,
    sessions: files.length,
    calls: 0,
    inputRaw: 0,
    inputHmc: 0,
    costRaw: 0,
    costHmc: 0,
    breaks: 0,
    exact: 0,
    byStrategy: {},
    parts: { raw: {}, sent: {} },
  };
  const config = defaultConfig();
  for (const f of files) {
    const session = parseSession(readFileSync(join(dir, f), 'utf8'), f);
    const engine = new Engine({
      config: () => config,
      stateDir: null,
      sink: NULL_SINK,
      recorder: null,
      log: () => {},
      autoSettle: false,
    });
    // Every model call's request, raw and as sent, by part.
    const index = new PartIndex();
    const original = engine.preModelCall.bind(engine);
    engine.preModelCall = (p) => {
      const result = original(p);
      const messages = p.messages ?? [];
      index.learn(messages);
      index.add(messages, row.parts.raw);
      index.add(sentRequest(messages, result.edits), row.parts.sent);
      return result;
    };
    const r = replaySession(session, { sessionId: f, config, engine });
    row.calls += r.model_calls;
    row.inputRaw += r.input_tokens.raw;
    row.inputHmc += r.input_tokens.hmc;
    row.costRaw += r.cost.raw;
    row.costHmc += r.cost.hmc;
    row.breaks += r.cache_breaks;
    if (r.restore_exact && r.invariant_violations.length === 0) row.exact++;
    for (const [k, v] of Object.entries(r.saved_by_strategy)) row.byStrategy[k] = (row.byStrategy[k] ?? 0) + v;
  }
  return row;
}

const pct = (raw: number, hmc: number): string => (raw > 0 ? `${(((raw - hmc) / raw) * 100).toFixed(1)}%` : '-');

export function runSavingsBench(dirs: readonly string[] = []): void {
  const header = ['corpus', 'sessions', 'model calls', 'input saved', 'cost saved', 'breaks /100 calls', 'exact'];
  const rows: string[][] = [];
  const notes: string[] = [];
  const shares: string[] = [];
  for (const { name, dir } of corpora(dirs)) {
    const r = replayCorpus(name, dir);
    if (!r) {
      notes.push(`${name}: skipped (no sessions at ${dir})`);
      continue;
    }
    rows.push([
      r.corpus,
      String(r.sessions),
      String(r.calls),
      pct(r.inputRaw, r.inputHmc),
      pct(r.costRaw, r.costHmc),
      ((r.breaks / Math.max(1, r.calls)) * 100).toFixed(2),
      `${r.exact}/${r.sessions}`,
    ]);
    const total = Object.values(r.byStrategy).reduce((a, b) => a + b, 0);
    shares.push(
      `${name}: input by part over every model call, raw → what HMC still sends (both as shares of all raw input)\n${formatParts(r.parts)}`,
    );
    notes.push(
      `${name}: ${Object.entries(r.byStrategy)
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} ${((v / Math.max(1, total)) * 100).toFixed(0)}%`)
        .join(', ')} of what was saved`,
    );
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  process.stdout.write(
    `${line(header)}\n${rows.map(line).join('\n')}\n${notes.join('\n')}\n\n${shares.join('\n\n')}\n`,
  );
}

/** Folders of sessions named on the command line (`npm run bench -- savings DIR…`). */
export function corpusArguments(argv: readonly string[]): string[] {
  return argv.filter((a) => existsSync(a) && statSync(a).isDirectory());
}

if (import.meta.url === `file://${process.argv[1]}`) runSavingsBench(corpusArguments(process.argv.slice(2)));
