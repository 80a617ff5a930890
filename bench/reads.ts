/**
 * File reads, per language (issue 8 item 5): runs every tool result of a corpus that is, or looks
 * like, a file read through the engine's single-output compression, and tabulates per file
 * extension the reads seen, the reads reduced, tokens before and after (o200k), and why the
 * others were left whole (the code filter's skip reason, or "not recognised as a read" when the
 * engine did not classify it as one).
 *
 * Corpora: the directories given after `--corpus` (each holding OpenAI-format sessions, `*.json`,
 * or sub-directories of them, one per agent), else those in `$HMC_CORPUS_DIRS` (separated by
 * `:`), else the folders of `../shared/corpus` and `../devcorpus` beside the repository.
 * Run: `npm run bench -- reads` or `npx tsx bench/reads.ts [--corpus DIR]…`.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { defaultConfig } from '../src/config/keys.js';
import { compressOutput } from '../src/engine/turn/compress.js';
import { parseArgs, parseEnvelope } from '../src/hosts/outputs/envelope.js';
import { protectionFor } from '../src/engine/session/protection.js';
import { parseSession } from '../src/app/replay.js';
import { countTokens } from '../src/core/tokens.js';
import type { Message } from '../src/core/message.js';
import { codeFilter } from '../src/strategies/single/code-filter/index.js';

const ROOT = join(import.meta.dirname, '..');

/** One language's row (`ext` is the file extension, `(none)` when the path has none). */
export interface ReadRow {
  ext: string;
  seen: number;
  reduced: number;
  before: number;
  after: number;
  /** Why reads were left whole, with counts. */
  reasons: Map<string, number>;
}

/** A tool result's call: its name and arguments. */
interface Call {
  name: string;
  args: unknown;
}

const PATH_KEYS = [
  'path',
  'file_path',
  'filePath',
  'filename',
  'file',
  'target_file',
  'filepath',
  'absolute_path',
  'relative_path',
  'uri',
];
/** A shell command that prints one file (possibly a line range of it). */
const SHELL_READ =
  /(?:^|&&|;|\|)\s*(?:cat|nl|bat|head|tail|less|more|open|sed\s+-n)\b[^|;&]*?\s["']?([\w./~@+-]+\.[A-Za-z0-9]{1,8})["']?\s*$/;
const WRITE_TOOL = /write|edit|patch|create|insert|replace|apply|delete|move|rename|search|grep|glob|find|list|ls/i;

/** The path a call seems to read, judged from its arguments alone (a bench heuristic, not the engine's rule). */
function probableReadPath(call: Call): string | undefined {
  if (WRITE_TOOL.test(call.name) && !/view|read/i.test(call.name)) return undefined;
  const args = parseArgs(call.args);
  if (typeof args.command === 'string' && /^(?:create|str_replace|insert|undo_edit)$/.test(args.command))
    return undefined;
  for (const key of PATH_KEYS) {
    const v = args[key];
    if (typeof v === 'string' && /\.[A-Za-z0-9]{1,8}$/.test(v)) return v;
  }
  const command = args.command ?? args.cmd;
  const joined = Array.isArray(command) ? command.map(String).join(' ') : typeof command === 'string' ? command : '';
  // `bash -lc '…'` runs the script inside the quotes.
  const text = /^\s*(?:\S*\/)?(?:ba|z)?sh\s+-l?c\s+(['"])([\s\S]*)\1\s*$/.exec(joined)?.[2] ?? joined;
  // Writes, heredocs, diffs, searches and programs print something else than a file.
  if (/[>]|<<|\b(?:git|diff|grep|rg|find|python3?|pip|echo|awk)\b/.test(text)) return undefined;
  return SHELL_READ.exec(text.trim())?.[1];
}

function extensionOf(path: string): string {
  const base = basename(path.replace(/\\/g, '/')).trim();
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '(none)' : base.slice(dot + 1).toLowerCase();
}

/** The session files under `dir` (its own `*.json`, and those of its folders). */
function sessionFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    // Symbolic links are other views of sessions already counted (devcorpus/all).
    if (lstatSync(full).isSymbolicLink()) continue;
    if (statSync(full).isDirectory()) out.push(...sessionFiles(full));
    else if (name.endsWith('.json')) out.push(full);
  }
  return out;
}

/** Runs every read of the sessions under `dir` through the engine; one row per extension. */
export function readsOfCorpus(dir: string): ReadRow[] {
  const config = defaultConfig();
  const ctx = { config, protection: protectionFor(config), manual: false, log: () => {} };
  const rows = new Map<string, ReadRow>();
  for (const file of sessionFiles(dir)) {
    let messages: Message[];
    try {
      messages = parseSession(readFileSync(file, 'utf8'), file);
    } catch {
      continue;
    }
    const calls = new Map<string, Call>();
    for (const m of messages) {
      if (m.role === 'assistant' && Array.isArray(m.tool_calls)) {
        for (const c of m.tool_calls)
          if (typeof c.id === 'string')
            calls.set(c.id, { name: c.function?.name ?? '', args: c.function?.arguments ?? {} });
      }
      if (m.role !== 'tool' || typeof m.content !== 'string' || m.content.length === 0) continue;
      const call = (typeof m.tool_call_id === 'string' ? calls.get(m.tool_call_id) : undefined) ?? {
        name: typeof m.name === 'string' ? m.name : '',
        args: {},
      };
      const info = {
        tool: call.name || (typeof m.name === 'string' ? m.name : ''),
        args: call.args,
        hostError: m.is_error === true,
      };
      const env = parseEnvelope(m.content, info);
      const recognised = env.output.kind === 'file' && env.output.path !== undefined;
      const path = recognised ? env.output.path : probableReadPath(call);
      if (path === undefined) continue;
      const ext = extensionOf(path);
      const row = rows.get(ext) ?? {
        ext,
        seen: 0,
        reduced: 0,
        before: 0,
        after: 0,
        reasons: new Map<string, number>(),
      };
      rows.set(ext, row);
      const result = compressOutput(m.content, info, ctx);
      row.seen++;
      row.before += countTokens(m.content);
      row.after += countTokens(result.content);
      if (result.content !== m.content) {
        row.reduced++;
        continue;
      }
      const reason = !recognised
        ? 'not recognised as a read'
        : env.output.isError
          ? 'error output'
          : ctx.protection.file(path)
            ? 'protected file'
            : skipReason(env.output, config);
      row.reasons.set(reason, (row.reasons.get(reason) ?? 0) + 1);
    }
  }
  return [...rows.values()].sort((a, b) => b.before - a.before);
}

function skipReason(output: Parameters<typeof codeFilter>[0], config: ReturnType<typeof defaultConfig>): string {
  const result = codeFilter(output, config.code_filter);
  if (result.kind !== 'skipped') return 'code filter plan not shorter in the envelope';
  // Numbers in reasons (line counts) would split one cause into many rows.
  return result.reason.replace(/\d+/g, 'N');
}

/** The table as Markdown, with a total row. */
export function formatReads(title: string, rows: readonly ReadRow[]): string {
  const out = [
    `${title}`,
    '',
    '| ext | reads | reduced | tokens before | tokens after | saved | main reasons left whole |',
    '|---|---:|---:|---:|---:|---:|---|',
  ];
  const total: ReadRow = { ext: '**all**', seen: 0, reduced: 0, before: 0, after: 0, reasons: new Map() };
  for (const row of rows) {
    out.push(line(row));
    total.seen += row.seen;
    total.reduced += row.reduced;
    total.before += row.before;
    total.after += row.after;
    for (const [k, v] of row.reasons) total.reasons.set(k, (total.reasons.get(k) ?? 0) + v);
  }
  out.push(line(total));
  return out.join('\n');
}

function line(row: ReadRow): string {
  const saved = row.before === 0 ? 0 : (100 * (row.before - row.after)) / row.before;
  const reasons = [...row.reasons.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([k, v]) => `${k} (${v})`)
    .join('; ');
  return `| ${row.ext} | ${row.seen} | ${row.reduced} | ${row.before} | ${row.after} | ${saved.toFixed(1)}% | ${reasons} |`;
}

/** The corpora to measure: `--corpus a --corpus b`, else every folder of ../shared/corpus and ../devcorpus. */
export function defaultCorpora(argv: readonly string[]): string[] {
  const given: string[] = [];
  for (let i = 0; i < argv.length; i++)
    if (argv[i] === '--corpus' && argv[i + 1] !== undefined) given.push(argv[++i] as string);
  if (given.length > 0) return given;
  const fromEnv = (process.env.HMC_CORPUS_DIRS ?? '').split(':').filter((d) => d.length > 0);
  if (fromEnv.length > 0) return fromEnv;
  const found: string[] = [];
  for (const parent of [join(ROOT, '..', 'shared', 'corpus'), join(ROOT, '..', 'devcorpus')]) {
    if (!existsSync(parent)) continue;
    for (const name of readdirSync(parent).sort())
      if (statSync(join(parent, name)).isDirectory()) found.push(join(parent, name));
  }
  return found;
}

export function runReadsBench(argv: readonly string[]): void {
  const corpora = defaultCorpora(argv);
  if (corpora.length === 0) {
    process.stdout.write('skipped: no corpus (give --corpus DIR, or put ../shared/corpus beside the repository)\n');
    return;
  }
  for (const dir of corpora) process.stdout.write(`\n${formatReads(`file reads in ${dir}`, readsOfCorpus(dir))}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) runReadsBench(process.argv.slice(2));
