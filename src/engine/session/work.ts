/**
 * What each tool output saved when it arrived, and whether compression cost the agent work (issue
 * 17, finding 7; docs/glossary.md): per tool and shell program, the outputs and their tokens as the
 * tools returned them and as HMC first sent them; the agent's recalls (`hmc_control action=recall`);
 * its re-reads (a read of lines of a file whose earlier read HMC had shortened, the file not written
 * since, so the agent read again what HMC had taken out).
 *
 * Invariants: HMC's own outputs are never tallied as outputs (a recall is counted as a recall);
 * only the tallies and hashed paths are kept (no path, argument or content reaches the disk); a
 * write or patch of a file forgets its reads, so reading a changed file again is no re-read; a read
 * the user asked for ("read src/inventory.py once more") is no re-read either (issue 27, finding
 * 6; the rule: `askedToReadAgain`, docs/glossary.md "re-read").
 */
import { createHash } from 'node:crypto';
import { toolKind } from '../../hosts/index.js';
import { commandOf, commandProgram } from '../../hosts/outputs/shell-command.js';
import { parseEnvelope, type Envelope } from '../../hosts/outputs/envelope.js';
import { isOwnTool } from '../../hosts/own-tool.js';
import { fileOpOf, normalizePath } from '../../strategies/shared/file-ops.js';
import type { OutputTally, WorkFigures } from '../../store/types.js';
import { contentText } from '../../summarise/render.js';

/** One earlier read of a file: the output that showed it and its lines. */
interface ReadMark {
  key: string;
  first: number;
  /** Infinity (to the end) is kept as -1 on disk. */
  last: number;
}

/** The work tally as a session file keeps it. */
export interface WorkSnapshot {
  recalls: number;
  rereads: number;
  outputs: OutputTally[];
  /** The latest reads per file, by a hash of the file's path. */
  reads: Record<string, ReadMark[]>;
}

/** Reads remembered per file (the latest ones). */
const READS_PER_FILE = 8;
/** Files remembered (the ones read most recently). */
const MAX_FILES = 2000;

export class WorkTally {
  recalls = 0;
  rereads = 0;
  private readonly outputs = new Map<string, OutputTally>();
  private readonly reads = new Map<string, ReadMark[]>();

  static from(saved: Partial<WorkSnapshot> | undefined): WorkTally {
    const w = new WorkTally();
    if (!saved || typeof saved !== 'object') return w;
    w.recalls = whole(saved.recalls);
    w.rereads = whole(saved.rereads);
    for (const o of Array.isArray(saved.outputs) ? saved.outputs : []) {
      if (o && typeof o.tool === 'string' && typeof o.program === 'string') {
        w.outputs.set(`${o.tool}\u0000${o.program}`, {
          tool: o.tool,
          program: o.program,
          kind: typeof o.kind === 'string' ? o.kind : '',
          outputs: whole(o.outputs),
          tokens_raw: whole(o.tokens_raw),
          tokens_sent: Math.min(whole(o.tokens_sent), whole(o.tokens_raw)),
        });
      }
    }
    if (saved.reads && typeof saved.reads === 'object') {
      for (const [path, marks] of Object.entries(saved.reads)) {
        if (!Array.isArray(marks)) continue;
        const ok = marks.filter(
          (m): m is ReadMark =>
            !!m && typeof m.key === 'string' && typeof m.first === 'number' && typeof m.last === 'number',
        );
        if (ok.length > 0)
          w.reads.set(
            path,
            ok.map((m) => ({ ...m, last: m.last < 0 ? Infinity : m.last })),
          );
      }
    }
    return w;
  }

  snapshot(): WorkSnapshot {
    const reads: Record<string, ReadMark[]> = {};
    for (const [path, marks] of this.reads)
      reads[path] = marks.map((m) => ({ ...m, last: Number.isFinite(m.last) ? m.last : -1 }));
    return {
      recalls: this.recalls,
      rereads: this.rereads,
      outputs: [...this.outputs.values()].map((o) => ({ ...o })),
      reads,
    };
  }

  /** The tallies for analytics; `elided` is counted by the caller (it knows what is rewritten now). */
  figures(elided: number): WorkFigures {
    return {
      recalls: this.recalls,
      rereads: this.rereads,
      elided,
      outputs: [...this.outputs.values()].map((o) => ({ ...o })),
    };
  }

  /**
   * One tool output arrived (`tokensRaw` as returned, `tokensSent` as HMC first sent it). A read of
   * lines an earlier, since elided read of the same file showed counts as a re-read (`elided` says
   * which outputs HMC has shortened); a write or patch forgets the file's reads.
   */
  output(
    o: {
      key: string;
      tool: string;
      args: unknown;
      raw: string;
      tokensRaw: number;
      tokensSent: number;
      project: string;
      asked?: string;
      envelope?: () => Envelope;
    },
    elided: (key: string) => boolean,
  ): void {
    const args =
      o.args !== null && typeof o.args === 'object' && !Array.isArray(o.args)
        ? (o.args as Record<string, unknown>)
        : {};
    const kind = toolKind(o.tool) ?? '';
    const program = kind === 'shell' || (kind === '' && commandOf(args) !== '') ? commandProgram(commandOf(args)) : '';
    const key = `${o.tool}\u0000${program}`;
    const row = this.outputs.get(key) ?? { tool: o.tool, program, kind, outputs: 0, tokens_raw: 0, tokens_sent: 0 };
    row.outputs++;
    row.tokens_raw += Math.max(0, o.tokensRaw);
    row.tokens_sent += Math.min(Math.max(0, o.tokensSent), Math.max(0, o.tokensRaw));
    this.outputs.set(key, row);
    // The envelope compress.ts parsed, when it was parsed with these same arguments (tool-result.ts).
    const op = fileOpOf(
      (o.envelope && args === o.args ? o.envelope() : parseEnvelope(o.raw, { tool: o.tool, args })).output,
    );
    if (!op) return;
    if (op.op !== 'read') {
      for (const path of op.paths) this.reads.delete(pathKey(path, o.project));
      return;
    }
    const file = pathKey(op.path, o.project);
    const earlier = this.reads.get(file) ?? [];
    if (
      earlier.some((m) => m.first <= op.span.last && op.span.first <= m.last && elided(m.key)) &&
      !askedToReadAgain(o.asked ?? '', op.path)
    )
      this.rereads++;
    const marks = [...earlier, { key: o.key, first: op.span.first, last: op.span.last }].slice(-READS_PER_FILE);
    this.reads.delete(file);
    this.reads.set(file, marks);
    if (this.reads.size > MAX_FILES) this.reads.delete(this.reads.keys().next().value as string);
  }
}

/** What noting an output needs of its session. */
export interface WorkHolder {
  work: WorkTally;
  meta: { readonly projectPath: string };
  elided(key: string): boolean;
}

/**
 * One tool output, once its tokens are counted (off the hook path): HMC's own tool counts a recall
 * when the agent asked for one; any other output is tallied (and may be a re-read).
 */
export function noteOutput(
  s: WorkHolder,
  o: {
    key: string;
    tool: string;
    args: unknown;
    raw: string;
    tokensRaw: number;
    tokensSent: number;
    asked?: unknown;
    envelope?: () => Envelope;
  },
): void {
  if (isOwnTool(o.tool)) {
    const args = typeof o.args === 'string' ? parsed(o.args) : o.args;
    const action = args !== null && typeof args === 'object' ? (args as Record<string, unknown>).action : undefined;
    if (typeof action === 'string' && action.trim().toLowerCase() === 'recall') s.work.recalls++;
    return;
  }
  s.work.output(
    { ...o, project: s.meta.projectPath, asked: o.asked === undefined ? '' : contentText(o.asked) },
    (key) => s.elided(key),
  );
}

/** Words that ask for a second look, and verbs of reading (a whole word each, any case). */
const AGAIN = /\b(again|once more|one more time)\b/i;
const REREAD = /\bre-?read\b/i;
const READ_VERB = /\b(read|open|show|look|view|cat|print|check|see)\b/i;
/** A token that names a file: a name with an extension (`inventory.py`, `src/app/main.ts`). */
const FILE_NAME = /[\w./-]*\w\.[a-z0-9]{1,10}\b/gi;

/**
 * Did the user's message ask for this read? It asks to read again ("re-read", "reread", or
 * "again" / "once more" / "one more time" with a verb of reading: read, open, show, look, view,
 * cat, print, check, see), and it names this file (its name, as `inventory.py`, or its path) or no
 * file at all ("read it again"). A message that names only other files asked for those. Such a
 * read is the user's doing, not a re-read HMC caused (docs/glossary.md "re-read").
 */
export function askedToReadAgain(userText: string, path: string): boolean {
  if (!userText) return false;
  if (!REREAD.test(userText) && !(AGAIN.test(userText) && READ_VERB.test(userText))) return false;
  const named = userText.match(FILE_NAME) ?? [];
  if (named.length === 0) return true;
  const base = (p: string): string => (p.split('/').pop() ?? p).toLowerCase();
  const file = base(path);
  return named.some((n) => base(n) === file);
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** A file's path as kept: hashed (paths are arguments, and none is written to disk). */
function pathKey(path: string, project: string): string {
  return createHash('sha256').update(normalizePath(path, project)).digest('hex').slice(0, 24);
}

function whole(x: unknown): number {
  return typeof x === 'number' && Number.isFinite(x) && x > 0 ? Math.floor(x) : 0;
}
