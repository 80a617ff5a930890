/**
 * The conversation's tool calls, kept up to date as messages arrive (rebuilt after a cut), so
 * input clearing (inputs.ts) costs O(calls that write files) on each model call, and each call's
 * arguments are parsed once.
 *
 * Invariant: describes exactly the held messages it was last updated with; the calls are the
 * host's objects, by reference, never changed.
 */
import type { ToolCall } from '../../core/message.js';
import { toolKind } from '../../hosts/index.js';
import { parseArgs } from '../../hosts/outputs/envelope.js';
import { bulkInputOf, type FileInput } from '../../hosts/tool-inputs.js';
import type { MessageState } from './held.js';

/** One tool call of the conversation, as the index keeps it. */
export interface IndexedCall {
  id: string;
  tool: string;
  /** The held message holding it. */
  message: number;
  /** Its place among all tool calls (0 = the first). */
  ordinal: number;
  call: ToolCall;
  /** Its arguments, parsed, when they may be bulky (else null: never cleared). */
  args: Record<string, unknown> | null;
  input: FileInput | null;
  /** Its short arguments, worked out once per clearing (list-wide/inputs.ts). */
  readonly short: LastAnswer<string | null>;
  /** The paths it names, normalised once per project path (list-wide/inputs.ts). */
  readonly paths: LastAnswer<string[]>;
}

/** The answer for the last key asked (a call's short arguments per clearing, its paths per project): a new key computes again. */
export class LastAnswer<T> {
  private hit: { key: string; value: T } | null = null;

  get(key: string, compute: () => T): T {
    if (this.hit?.key !== key) this.hit = { key, value: compute() };
    return this.hit.value;
  }
}

/** Tool kinds whose calls can carry a file's bulk in their arguments. */
const WRITING_KINDS = new Set(['write', 'edit', 'editor', 'shell']);
/** Any other call's arguments are read only from this length (no shorter one could save `min_chars`). */
const PARSE_MIN_CHARS = 128;

/** The conversation's tool calls, kept up to date as messages arrive (rebuilt after a cut). */
export class InputIndex {
  length = 0;
  readonly calls: IndexedCall[] = [];
  /** The calls with bulky arguments (a file's bulk, a long command, a prompt…), in order. */
  readonly candidates: IndexedCall[] = [];
  readonly byId = new Map<string, IndexedCall>();
  /** The latest assistant message with tool calls: the current step. */
  lastStep = -1;

  update(messages: readonly MessageState[]): void {
    if (messages.length < this.length) this.invalidate();
    for (let i = this.length; i < messages.length; i++) {
      const m = messages[i] as MessageState;
      const calls = m.role === 'assistant' ? m.source.tool_calls : undefined;
      if (!Array.isArray(calls) || calls.length === 0) continue;
      this.lastStep = i;
      for (const call of calls) {
        const id = typeof call?.id === 'string' ? call.id : '';
        const tool = typeof call?.function?.name === 'string' ? call.function.name : '';
        const text = call?.function?.arguments;
        const bulky =
          id !== '' &&
          typeof text === 'string' &&
          (WRITING_KINDS.has(toolKind(tool) ?? '') || text.length >= PARSE_MIN_CHARS);
        const args = bulky ? parseArgs(text) : null;
        const input = args ? bulkInputOf(tool, args) : null;
        const entry: IndexedCall = {
          id,
          tool,
          message: i,
          ordinal: this.calls.length,
          call,
          args,
          input,
          short: new LastAnswer(),
          paths: new LastAnswer(),
        };
        this.calls.push(entry);
        if (id) this.byId.set(id, entry);
        if (input) this.candidates.push(entry);
      }
    }
    this.length = messages.length;
  }

  /** Forgets everything: the next `update` starts over (the held history was cut). */
  invalidate(): void {
    this.length = 0;
    this.calls.length = 0;
    this.candidates.length = 0;
    this.byId.clear();
    this.lastStep = -1;
  }
}
