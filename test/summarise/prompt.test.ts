/** The summariser's request (render.ts, prompt.ts) and how its answer is checked (answer.ts). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { checkAnswer, topicOf } from '../../src/summarise/answer.js';
import { buildPrompt, DEFAULT_REQUEST_BUDGET_CHARS, SECTIONS } from '../../src/summarise/prompt.js';
import { cutMiddle, renderRange, RENDER_LEVELS, toolText } from '../../src/summarise/render.js';
import { rng } from '../helpers/random.js';
import { fakeSecrets } from './fake-secrets.js';
import { GOOD_SUMMARY } from './openai-server.js';

const call = (id: string, name: string, args: string): Message => ({
  role: 'assistant',
  content: '',
  tool_calls: [{ id, type: 'function', function: { name, arguments: args } }],
});

describe('renderRange', () => {
  it('shows each message with its number and role, the tool of each output, and each call with its arguments', async () => {
    const text = (
      await renderRange(
        [
          { role: 'user', content: 'Read the config.' },
          call('c1', 'read_file', '{"path":"hmc.yaml"}'),
          { role: 'tool', tool_call_id: 'c1', content: 'enabled: true' },
          { role: 'tool', tool_name: 'web_search', content: 'result' },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Looked at it.' },
              { type: 'image_url', image_url: { url: 'data:…' } },
            ],
          },
        ],
        DEFAULT_REQUEST_BUDGET_CHARS,
      )
    ).text;
    expect(text).toBe(
      [
        '#1 user:\nRead the config.',
        '#2 assistant:\n→ calls read_file {"path":"hmc.yaml"}',
        '#3 tool read_file (output):\nenabled: true',
        '#4 tool web_search (output):\nresult',
        '#5 assistant:\nLooked at it.\n[image]',
      ].join('\n\n'),
    );
  });

  it('unwraps a JSON envelope: the short fields on one line, the main text with real line breaks', async () => {
    expect(toolText(JSON.stringify({ output: 'a\nb', exit_code: 1, error: null }))).toBe('(exit_code: 1)\na\nb');
    expect(toolText(JSON.stringify({ matches: [{ path: 'a.ts', line: 3, content: 'x' }], total: 1 }))).toBe(
      '(total: 1)\na.ts:3: x',
    );
    expect(toolText('{"not": "an envelope"}')).toBe('{"not": "an envelope"}');
    expect(toolText('{broken')).toBe('{broken');
  });

  it('cuts a long output in the middle, keeps its head and tail, and says how much went', async () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i}`);
    const cut = cutMiddle(lines.join('\n'), 3000);
    expect(cut.startsWith('line 0\nline 1\n')).toBe(true);
    expect(cut.endsWith('line 1998\nline 1999')).toBe(true);
    expect(cut).toMatch(/\n\[… [\d,]+ characters, [\d,]+ line breaks cut here …\]\n/);
    expect(cut.length).toBeLessThan(3100);
  });

  it('gives user and assistant text more room than tool output at every level', async () => {
    for (const level of RENDER_LEVELS) expect(level.textChars).toBeGreaterThan(level.toolOutputChars);
  });

  it('keeps a long range within the budget, leaving out whole messages from the middle and naming them', async () => {
    const messages: Message[] = [{ role: 'user', content: 'Start the migration.' }];
    for (let i = 0; i < 300; i++) {
      messages.push(call(`c${i}`, 'terminal', `{"command":"step ${i}"}`));
      messages.push({ role: 'tool', tool_call_id: `c${i}`, content: `output ${i}\n${'x'.repeat(5000)}` });
    }
    messages.push({ role: 'assistant', content: 'Migration finished.' });
    const budget = 20_000;
    const r = await renderRange(messages, budget);
    expect(r.text.length).toBeLessThanOrEqual(budget + 200);
    expect(r.level).toBe(RENDER_LEVELS.length - 1);
    expect(r.omitted).toBeGreaterThan(0);
    expect(r.text.startsWith('#1 user:\nStart the migration.')).toBe(true);
    expect(r.text.endsWith(`#${messages.length} assistant:\nMigration finished.`)).toBe(true);
    expect(r.text).toMatch(new RegExp(`\\[… messages #\\d+–#\\d+ \\(${r.omitted}\\) left out here`));
  });

  it('counts exactly what a cut removed from a huge output, windowing included', async () => {
    const output = Array.from({ length: 100_000 }, (_, i) => `line ${i}`).join('\n');
    const text = (await renderRange([{ role: 'tool', content: output }], DEFAULT_REQUEST_BUDGET_CHARS)).text;
    const m =
      /^#1 tool \(output\):\n([\s\S]*)\n\[… ([\d,]+) characters, ([\d,]+) line breaks cut here …\]\n([\s\S]*)$/.exec(
        text,
      );
    expect(m).not.toBeNull();
    const [, head, chars, breaks, tail] = m as RegExpExecArray;
    expect(output.startsWith(head!)).toBe(true);
    expect(output.endsWith(tail!)).toBe(true);
    const gone = output.slice(head!.length, output.length - tail!.length);
    expect(Number(chars!.replace(/,/g, ''))).toBe(gone.length);
    expect(Number(breaks!.replace(/,/g, ''))).toBe(gone.split('\n').length - 1);
    expect(text).not.toContain('\u0000');
  });

  it('gives the event loop back while it renders a long range', async () => {
    const messages: Message[] = Array.from({ length: 300 }, (_, i) => ({
      role: 'tool',
      content: `out ${i} ${'token=abc123 '.repeat(2000)}`,
    }));
    let turns = 0;
    const timer = setInterval(() => turns++, 1);
    const r = await renderRange(messages, DEFAULT_REQUEST_BUDGET_CHARS);
    clearInterval(timer);
    expect(r.omitted).toBeGreaterThan(0);
    expect(turns).toBeGreaterThan(0);
  });

  it('uses the most generous level that fits', async () => {
    const small = await renderRange([{ role: 'tool', content: 'y'.repeat(2500) }], DEFAULT_REQUEST_BUDGET_CHARS);
    expect(small.level).toBe(0);
    expect(small.text).not.toContain('cut here');
  });

  it('redacts before it cuts: no piece of a secret survives wherever the cut falls', async () => {
    const r = rng(5);
    for (const secret of fakeSecrets(99, 150)) {
      // Pads up to 40 KB each side: the secret lands in the kept head or tail, the windowing gap or the cut.
      const output = `${'a '.repeat(Math.floor(r() * 20_000))}\n${secret.text}\n${'b '.repeat(Math.floor(r() * 20_000))}`;
      const text = (await renderRange([{ role: 'tool', content: output }], DEFAULT_REQUEST_BUDGET_CHARS)).text;
      const needle = secret.secret.split('\\n')[0]!.split('\n')[0]!;
      for (let i = 0; i + 12 <= needle.length; i += 3) expect(text, secret.kind).not.toContain(needle.slice(i, i + 12));
      if (needle.length < 12) expect(text).not.toContain(needle);
    }
  });

  it('renders a real session range under the budget', async () => {
    const session = JSON.parse(readFileSync('test/fixtures/session-build-fix.json', 'utf8')) as Message[];
    const r = await renderRange(session.slice(1), DEFAULT_REQUEST_BUDGET_CHARS);
    expect(r.omitted).toBe(0);
    expect(r.text).toContain('(exit_code: 2)');
    expect(r.text.length).toBeLessThan(DEFAULT_REQUEST_BUDGET_CHARS);
  });
});

describe('buildPrompt', () => {
  it('asks for the seven sections in order, the title first, credentials never', async () => {
    const p = await buildPrompt({ messages: [{ role: 'user', content: 'hi' }], maxTokens: 1000 });
    const system = String(p.messages[0]!.content);
    let at = -1;
    for (const s of SECTIONS) {
      const i = system.indexOf(`\n## ${s}\n`);
      expect(i, s).toBeGreaterThan(at);
      at = i;
    }
    expect(system).toMatch(/first line is a title/);
    expect(system).toMatch(/Credentials never go in the note/);
    expect(system).toMatch(/under about 850 tokens/);
    expect(String(p.messages[1]!.content)).toMatch(/^The 1 message to record, oldest first\./);
  });

  it('on an update, sends the previous note first and asks to keep what still holds', async () => {
    const p = await buildPrompt({
      messages: [{ role: 'user', content: 'next' }],
      previous: GOOD_SUMMARY,
      maxTokens: 1000,
    });
    const user = String(p.messages[1]!.content);
    expect(user).toMatch(/^Your earlier note on this work:\n\n<note>\n## Goal/);
    expect(user).toContain('Keep every item of the earlier note that the new messages do not contradict');
    expect(user.indexOf('</note>')).toBeLessThan(user.indexOf('<turns>'));
  });

  it('redacts the previous note too, and bounds it to half the budget', async () => {
    const p = await buildPrompt(
      {
        messages: [{ role: 'user', content: 'x' }],
        previous: `## Facts\nGITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n${'z'.repeat(100_000)}`,
        maxTokens: 1000,
      },
      20_000,
    );
    const user = String(p.messages[1]!.content);
    expect(user).toContain('GITHUB_TOKEN=[REDACTED]');
    expect(p.redactions).toBe(1);
    expect(user.length).toBeLessThan(20_000 + 1500);
  });

  it('keeps a whole request under the default budget plus its instructions', async () => {
    const messages: Message[] = Array.from({ length: 400 }, (_, i) => ({
      role: i % 2 ? 'tool' : 'user',
      content: 'w '.repeat(4000),
    }));
    const p = await buildPrompt({ messages, previous: 'p'.repeat(200_000), maxTokens: 1500 });
    expect(p.chars).toBeLessThan(DEFAULT_REQUEST_BUDGET_CHARS + 4000);
  });
});

describe('checkAnswer', () => {
  it('accepts a note and takes its title from the first line under Goal', async () => {
    expect(checkAnswer(GOOD_SUMMARY)).toEqual({
      ok: true,
      text: GOOD_SUMMARY,
      topic: 'Fix the failing build of the pipeline',
    });
  });

  it('drops what comes before the note: a greeting, a think block, a code fence', async () => {
    const wrapped = `<think>Let me see.</think>\nSure, here it is:\n\n\`\`\`markdown\n${GOOD_SUMMARY}\n\`\`\``;
    const fenced = checkAnswer(`\`\`\`markdown\n${GOOD_SUMMARY}\n\`\`\``);
    expect(fenced).toMatchObject({ ok: true, text: GOOD_SUMMARY });
    const r = checkAnswer(wrapped);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.text.startsWith('## Goal')).toBe(true);
  });

  it('refuses an answer that is not a note: a refusal, an apology, too little to say anything', async () => {
    expect(checkAnswer(`I cannot help with that. ${'Really. '.repeat(20)}`)).toEqual({
      ok: false,
      reason: 'the summariser refused or apologised instead of writing a note',
    });
    expect(checkAnswer(`Sorry, ${'I do not know. '.repeat(10)}`)).toMatchObject({ ok: false });
    expect(checkAnswer('## Goal\nx\n## Done\ny')).toEqual({
      ok: false,
      reason: 'the answer is too short to be a note (19 characters, 2 of 7 sections)',
    });
    expect(checkAnswer('')).toEqual({ ok: false, reason: 'the summariser answered with an empty text' });
  });

  it('takes a note in free prose at its word, titled by its first sentence (weaker models answer so)', async () => {
    const prose =
      'The agent migrated the users table to the new schema. It ran the tests twice; the second run passed after fixing the date parser in src/dates.py.';
    expect(checkAnswer(prose)).toEqual({
      ok: true,
      text: prose,
      topic: 'The agent migrated the users table to the new schema',
    });
  });

  it('reads headings written a little differently (bold, a colon, another level)', async () => {
    expect(checkAnswer('### **Goal**:\nShip it\n# Done\n-\n## Open:\nNone.\n## facts\nx').ok).toBe(true);
  });

  it.each([
    [['- **Title:** Migrate the user table.'], 'Migrate the user table'],
    [['Fix `parse_args` in __main__.py'], 'Fix parse_args in __main__.py'],
    [['', 'None.', 'Real goal'], 'Real goal'],
    [['## Done'], 'Earlier work'],
    [
      [`Refactor ${'the very long module name '.repeat(6)}`],
      expect.stringMatching(/^Refactor the very long .{40,75}…$/),
    ],
  ])('takes the topic from %j', (lines, topic) => {
    expect(topicOf(lines as string[])).toEqual(topic);
  });
});
