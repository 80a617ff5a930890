/**
 * Reads a shell command far enough to say which files it writes from text it carries itself: a
 * here-document fed to `cat > f`, `cat >> f`, `tee f` (or `cat <<EOF | tee f`). Those commands are
 * a file write in all but name (mini-swe-agent and SWE-agent write every script this way), so
 * their bulk can be cleared like a `Write` call's content once the call is answered.
 *
 * The scan follows the shell's own rules where they matter: quotes ('…', "…", $'…'), backslash
 * escapes and `$((…))` hide a `<<`; `<<<` is a here-string, not a document; the delimiter may be
 * quoted (`'EOF'`, `"EOF"`, `\EOF`) and `<<-` strips leading tabs from the body's lines; several
 * documents on one line have their bodies in order after it.
 *
 * Invariant: unsure means no write. A document whose command is not `cat`/`tee` into a file
 * (`python - <<EOF`, `mysql <<SQL`), an unterminated body, or a target that is not a file path
 * (`/dev/null`, `&2`, `$VAR`) gives nothing.
 */

/** One here-document that writes a file. */
export interface HeredocWrite {
  /** The file it writes, as the command names it. */
  path: string;
  /** Where its body starts and ends in the command (character offsets; the body's lines, without the delimiter line). */
  bodyStart: number;
  bodyEnd: number;
  /** Lines and characters of the body (what the file receives). */
  lines: number;
  chars: number;
}

interface Doc {
  delimiter: string;
  stripTabs: boolean;
  /** Offsets of the simple command holding the `<<` (for its program and redirections). */
  commandStart: number;
  /** The rest of the pipeline after this command, up to the end of its line (for `| tee f`). */
  lineEnd: number;
}

/** The here-documents of `command` that write a file (none when the command writes none this way). */
export function heredocWrites(command: string): HeredocWrite[] {
  if (!command.includes('<<')) return [];
  const out: HeredocWrite[] = [];
  let i = 0;
  while (i < command.length) {
    const line = scanLine(command, i);
    if (line === null) return out;
    i = line.next;
    for (const doc of line.docs) {
      const body = readBody(command, i, doc);
      if (body === null) return out;
      const path = writtenPath(command.slice(doc.commandStart, doc.lineEnd));
      if (path !== null) {
        const text = command.slice(body.start, body.end);
        out.push({ path, bodyStart: body.start, bodyEnd: body.end, lines: lineCount(text), chars: text.length });
      }
      i = body.next;
    }
  }
  return out;
}

/** Lines of a text: a final newline ends the last line, it does not start another. */
export function lineCount(text: string): number {
  if (text.length === 0) return 0;
  let n = 1;
  for (let i = 0; i < text.length - 1; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

/**
 * Scans one logical line from `start` (quotes may span lines): the here-documents it opens, and
 * where the next line starts. Null when a quote never closes (unsure: nothing is claimed).
 */
function scanLine(s: string, start: number): { docs: Doc[]; next: number } | null {
  const docs: Doc[] = [];
  let commandStart = start;
  let i = start;
  while (i < s.length) {
    const c = s[i] as string;
    if (c === '\n') break;
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === "'") {
      const end = s.indexOf("'", i + 1);
      if (end < 0) return null;
      i = end + 1;
      continue;
    }
    if (c === '"') {
      const end = closingDoubleQuote(s, i + 1);
      if (end < 0) return null;
      i = end + 1;
      continue;
    }
    if (c === '$' && s.startsWith('((', i + 1)) {
      const end = s.indexOf('))', i + 3);
      if (end < 0) return null;
      i = end + 2;
      continue;
    }
    if (c === '#' && (i === start || /\s/.test(s[i - 1] as string))) {
      // A comment runs to the end of the line: a `<<` in it opens nothing.
      const end = s.indexOf('\n', i);
      i = end < 0 ? s.length : end;
      continue;
    }
    if (c === ';' || c === '&' || c === '|' || c === '(' || c === ')') {
      // A new simple command starts after a separator (a `<<` belongs to the one it is in).
      if (!(c === '&' && (s[i - 1] === '>' || s[i + 1] === '>'))) commandStart = i + 1;
      i++;
      continue;
    }
    if (c === '<' && s[i + 1] === '<') {
      if (s[i + 2] === '<') {
        i += 3; // a here-string (<<<): its word is on this line
        continue;
      }
      const word = delimiterAt(s, i + 2);
      if (word === null) return null;
      docs.push({ delimiter: word.delimiter, stripTabs: word.stripTabs, commandStart, lineEnd: -1 });
      i = word.next;
      continue;
    }
    i++;
  }
  const lineEnd = i;
  for (const d of docs) d.lineEnd = lineEnd;
  return { docs, next: i < s.length ? i + 1 : s.length };
}

/** The closing `"` of a double-quoted string opened before `from` (backslash escapes honoured), or -1. */
function closingDoubleQuote(s: string, from: number): number {
  for (let i = from; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') i++;
    else if (c === '"') return i;
  }
  return -1;
}

/** The here-document's delimiter word after `<<` (and an optional `-`), unquoted. */
function delimiterAt(s: string, from: number): { delimiter: string; stripTabs: boolean; next: number } | null {
  let i = from;
  const stripTabs = s[i] === '-';
  if (stripTabs) i++;
  while (s[i] === ' ' || s[i] === '\t') i++;
  let word = '';
  while (i < s.length && !/[\s;&|<>()]/.test(s[i] as string)) {
    const c = s[i] as string;
    if (c === "'" || c === '"') {
      const end = s.indexOf(c, i + 1);
      if (end < 0) return null;
      word += s.slice(i + 1, end);
      i = end + 1;
    } else if (c === '\\') {
      word += s[i + 1] ?? '';
      i += 2;
    } else {
      word += c;
      i++;
    }
  }
  return word.length > 0 ? { delimiter: word, stripTabs, next: i } : null;
}

/** The body from `start` up to the line that is the delimiter (tabs stripped for `<<-`), or null. */
function readBody(s: string, start: number, doc: Doc): { start: number; end: number; next: number } | null {
  let i = start;
  while (i <= s.length) {
    const nl = s.indexOf('\n', i);
    const lineEnd = nl < 0 ? s.length : nl;
    let line = s.slice(i, lineEnd);
    if (doc.stripTabs) line = line.replace(/^\t+/, '');
    if (line === doc.delimiter || line.replace(/\r$/, '') === doc.delimiter) {
      return { start, end: i, next: nl < 0 ? s.length : nl + 1 };
    }
    if (nl < 0) return null;
    i = nl + 1;
  }
  return null;
}

/** The file a command holding a here-document writes: `cat > f`, `cat >> f`, `tee [-a] f`, `cat | tee f`. */
function writtenPath(command: string): string | null {
  const stages = splitPipeline(command);
  const first = stages[0] ?? '';
  const program = programOf(first);
  if (program === 'cat') {
    const target = redirectTarget(first);
    if (target !== null) return target;
    const tee = stages.slice(1).find((stage) => programOf(stage) === 'tee');
    return tee ? teeTarget(tee) : null;
  }
  if (program === 'tee') return teeTarget(first);
  return null;
}

function splitPipeline(command: string): string[] {
  return command.split(/(?<![|>])\|(?!\|)/).map((stage) => stage.trim());
}

/** The first word of a stage that is not an assignment, a redirection or `sudo`/`command`. */
function programOf(stage: string): string {
  const words = stage.split(/\s+/).filter((w) => w !== '');
  for (let k = 0; k < words.length; k++) {
    const w = words[k] as string;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w) || w === 'sudo' || w === 'command') continue;
    if (/^\d*>>?$/.test(w) || /^<</.test(w)) {
      k++; // the redirection's word
      continue;
    }
    if (/^\d*>>?\S/.test(w) || /^<<\S/.test(w)) continue;
    return w.replace(/^.*\//, '');
  }
  return '';
}

/** `> f` or `>> f` (not `2>`, `>&2`, `/dev/…`) in a stage. */
function redirectTarget(stage: string): string | null {
  const re = /(?:^|[^0-9&>])>{1,2}\s*('[^']*'|"[^"]*"|[^\s;&|<>]+)/g;
  for (const m of stage.matchAll(re)) {
    const target = unquote(m[1] as string);
    if (isFilePath(target)) return target;
  }
  return null;
}

function teeTarget(stage: string): string | null {
  const words = stage.split(/\s+/).filter((w) => w !== '');
  for (let k = words.indexOf('tee') + 1; k > 0 && k < words.length; k++) {
    const w = words[k] as string;
    if (w.startsWith('-')) continue;
    if (w.startsWith('>') || w.startsWith('<')) break;
    const target = unquote(w);
    return isFilePath(target) ? target : null;
  }
  return null;
}

function unquote(word: string): string {
  return /^(['"]).*\1$/.test(word) ? word.slice(1, -1) : word;
}

function isFilePath(target: string): boolean {
  return (
    target.length > 0 &&
    !target.startsWith('/dev/') &&
    !target.startsWith('&') &&
    !target.startsWith('$') &&
    !target.includes('`') &&
    /[\w.]/.test(target)
  );
}
