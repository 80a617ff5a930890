/**
 * A compaction's extras in the summariser's prompt (issue 16): the focus topic the user asked for
 * and a memory provider's notes go in, bounded and redacted like everything else the summariser
 * reads; without them the prompt is as before.
 */
import { describe, expect, it } from 'vitest';
import { buildPrompt } from '../../src/summarise/prompt.js';

const messages = [
  { role: 'user', content: 'fix the login' },
  { role: 'assistant', content: 'done' },
];
const KEY = 'sk-proj-' + 'A1b2C3d4'.repeat(6);

describe('the prompt with a focus and notes', () => {
  it('carries the focus and the notes, redacted, and nothing when they are absent', async () => {
    const plain = await buildPrompt({ messages, maxTokens: 500 });
    const asked = await buildPrompt({
      messages,
      maxTokens: 500,
      focus: 'the OAuth callback',
      notes: `the user prefers pytest; key ${KEY}`,
    });
    const text = String(asked.messages[1]?.content);
    expect(text.startsWith(String(plain.messages[1]?.content))).toBe(true);
    expect(text).toContain('everything about: the OAuth callback');
    expect(text).toContain('<notes>');
    expect(text).toContain('the user prefers pytest');
    expect(text).not.toContain(KEY);
    expect(asked.redactions).toBeGreaterThan(plain.redactions);
    expect(String(plain.messages[1]?.content)).not.toContain('<notes>');
  });

  it('bounds a long focus', async () => {
    const asked = await buildPrompt({ messages, maxTokens: 500, focus: 'x'.repeat(5000) });
    expect(String(asked.messages[1]?.content).length).toBeLessThan(
      2000 + String((await buildPrompt({ messages, maxTokens: 500 })).messages[1]?.content).length,
    );
  });
});
