/**
 * JSON-lines framing for the sidecar protocol: split incoming bytes on LF only, and write one
 * record per line.
 *
 * Invariant: a record boundary is the byte 0x0A and nothing else. Node's `readline` also splits on
 * CR and on U+2028/U+2029 inside strings, which would cut a valid JSON record in two; we avoid it.
 * A trailing CR (a CRLF host) is dropped; a final line without LF is delivered at end of input;
 * a line longer than `maxLineBytes` is skipped (reported once, with its first bytes, so the answer
 * can name the request's id) instead of exhausting memory.
 */

const LF = 0x0a;
const CR = 0x0d;

/** 256 MiB: well above any tool output Hermes keeps (it spills results over 100 K characters). */
export const DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024;
/** Bytes of an oversize line kept to find its request id (`{"id":…` comes first). */
const HEAD_BYTES = 256;

export interface LineSplitterOptions {
  /** Called with each complete line, without its LF (and without a CR before it). */
  onLine: (line: string) => void;
  /** Called when a line is dropped for being longer than `maxLineBytes`, with its first bytes. */
  onOversize?: (bytes: number, head: string) => void;
  maxLineBytes?: number;
}

/**
 * Accumulates chunks and emits lines. Chunks are kept as a list (no repeated concatenation), so a
 * huge line arriving in many chunks costs O(total bytes), and UTF-8 sequences split across chunks
 * are decoded only once the whole line is present.
 */
export class LineSplitter {
  private chunks: Buffer[] = [];
  private pending = 0;
  private skipping = false;
  private skipped = 0;
  private head = '';
  private readonly maxLineBytes: number;

  constructor(private readonly options: LineSplitterOptions) {
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  }

  push(chunk: Buffer | string): void {
    let data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    for (;;) {
      const nl = data.indexOf(LF);
      if (nl < 0) {
        this.hold(data);
        return;
      }
      this.hold(data.subarray(0, nl));
      this.flushLine();
      data = data.subarray(nl + 1);
    }
  }

  /** Part of a line has arrived and its end has not (a long request is still coming in). */
  get midLine(): boolean {
    return this.pending > 0 || this.skipping;
  }

  /** End of input: a last line without LF is still a line. */
  end(): void {
    if (this.pending > 0 || this.skipping) this.flushLine();
  }

  private hold(part: Buffer): void {
    if (part.length === 0) return;
    if (this.skipping) {
      this.skipped += part.length;
      return;
    }
    if (this.pending + part.length > this.maxLineBytes) {
      this.skipping = true;
      this.skipped = this.pending + part.length;
      this.head = Buffer.concat([...this.chunks, part.subarray(0, HEAD_BYTES)])
        .subarray(0, HEAD_BYTES)
        .toString('utf8');
      this.chunks = [];
      this.pending = 0;
      return;
    }
    // Copy: the caller may reuse the chunk's memory (stream buffers are pooled).
    this.chunks.push(Buffer.from(part));
    this.pending += part.length;
  }

  private flushLine(): void {
    if (this.skipping) {
      const bytes = this.skipped;
      const head = this.head;
      this.skipping = false;
      this.skipped = 0;
      this.head = '';
      this.options.onOversize?.(bytes, head);
      return;
    }
    let buf = this.chunks.length === 1 ? (this.chunks[0] ?? Buffer.alloc(0)) : Buffer.concat(this.chunks, this.pending);
    this.chunks = [];
    this.pending = 0;
    if (buf.length > 0 && buf[buf.length - 1] === CR) buf = buf.subarray(0, buf.length - 1);
    const line = buf.toString('utf8');
    if (line.trim() === '') return;
    this.options.onLine(line);
  }
}

/**
 * One record as one line. JSON.stringify escapes LF and CR inside strings, so the only LF is the
 * terminator; U+2028/U+2029 stay raw, which is valid JSON and harmless under LF-only framing.
 */
export function serializeRecord(record: unknown): string {
  return `${JSON.stringify(record)}\n`;
}
