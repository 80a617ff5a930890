/**
 * Checks the summariser's answer against the handoff template and takes the phase's title from
 * it. Models wrap answers in code fences, think aloud in `<think>` blocks, or greet before the
 * first heading: those wrappings go. A templated note starts at its `## Goal` heading; a model
 * that answers in free prose (weaker auxiliary models do) is taken at its word, titled by its
 * first sentence; a refusal, an apology or an answer too short to say anything is refused, never
 * stored as if it were a note.
 *
 * Invariant: pure and total.
 */
import { SECTIONS } from './prompt.js';

/** Fewer known sections than this and the answer is not a note (a refusal, a chat reply). */
export const MIN_SECTIONS = 4;
/** A free-prose answer shorter than this says nothing worth a range. */
export const MIN_PROSE_CHARS = 80;
/** An answer that refuses, apologises or asks back rather than summarising. */
const REFUSAL =
  /^(?:i(?:'m| am)? (?:sorry|unable|can(?:no|')t|cannot|won't)|sorry\b|as an ai\b|i do not have|could you (?:please )?(?:provide|share|clarify))/i;
/** A topic longer than this is cut at a word end. */
export const MAX_TOPIC_CHARS = 80;

export type CheckedAnswer = { ok: true; text: string; topic: string } | { ok: false; reason: string };

const HEADING = /^#{1,3}[ \t]*\**([A-Za-z][A-Za-z &/-]*?)\**[ \t]*:?[ \t]*$/;

export function checkAnswer(raw: string): CheckedAnswer {
  let text = raw.replace(/<think>[\s\S]*?<\/think>/gi, '').trim();
  const fenced = /^```[\w-]*\n([\s\S]*?)\n```$/.exec(text);
  if (fenced) text = (fenced[1] ?? '').trim();
  if (!text) return { ok: false, reason: 'the summariser answered with an empty text' };
  const lines = text.split('\n');
  const found = new Set<string>();
  let goalLine = -1;
  for (let i = 0; i < lines.length; i++) {
    const name = sectionOf(lines[i] as string);
    if (!name) continue;
    found.add(name);
    if (name === 'Goal' && goalLine === -1) goalLine = i;
  }
  if (goalLine === -1 || found.size < MIN_SECTIONS) {
    // Free prose: a note all the same, unless it refuses or says nothing.
    if (REFUSAL.test(text))
      return { ok: false, reason: 'the summariser refused or apologised instead of writing a note' };
    if (text.length < MIN_PROSE_CHARS)
      return {
        ok: false,
        reason: `the answer is too short to be a note (${text.length} characters, ${found.size} of ${SECTIONS.length} sections)`,
      };
    return { ok: true, text, topic: topicOf([text.split(/(?<=[.!?])\s|\n/)[0] ?? '']) };
  }
  const note = lines.slice(goalLine).join('\n').trim();
  return { ok: true, text: note, topic: topicOf(lines.slice(goalLine + 1)) };
}

/** The template section a heading line names, if any. */
function sectionOf(line: string): string | undefined {
  const m = HEADING.exec(line.trim());
  if (!m) return undefined;
  const name = (m[1] ?? '').trim().toLowerCase();
  return SECTIONS.find((s) => s.toLowerCase() === name);
}

/** The first line with words under Goal, without list marks or emphasis, at most MAX_TOPIC_CHARS. */
export function topicOf(goalLines: readonly string[]): string {
  for (const raw of goalLines) {
    if (/^#{1,6}\s/.test(raw.trim())) break;
    const line = raw
      .trim()
      .replace(/^(?:[-*+>]|\d+[.)])\s+/, '')
      .replace(/\*+|`+/g, '') // emphasis and code marks (underscores stay: __main__, snake_case)
      .replace(/^(?:title|topic)\s*:\s*/i, '')
      .replace(/[.:;]+$/, '')
      .trim();
    if (!line || /^none$/i.test(line)) continue;
    if (line.length <= MAX_TOPIC_CHARS) return line;
    const cut = line.slice(0, MAX_TOPIC_CHARS);
    const space = cut.lastIndexOf(' ');
    return `${(space > MAX_TOPIC_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
  }
  return 'Earlier work';
}
