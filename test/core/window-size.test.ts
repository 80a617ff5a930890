/**
 * A context window as providers name it (issue 27, finding 6): 131,072 tokens is "128K", not
 * "131.1K"; the one formatter the page and `/hmc status` share.
 */
import { describe, expect, it } from 'vitest';
import { fmtWindow } from '../../src/core/window-size.js';
import { fmtWindow as pageFmtWindow } from '../../web/src/format.js';

describe('fmtWindow', () => {
  it.each([
    [131_072, '128K'],
    [128_000, '128K'],
    [200_000, '200K'],
    [1_048_576, '1M'],
    [1_000_000, '1M'],
    [32_768, '32K'],
    [8_192, '8K'],
    [163_840, '160K'],
    [65_536, '64K'],
    [2_097_152, '2M'],
    [1_572_864, '1.5M'],
    [400_000, '400K'],
    [2_000_000, '2M'],
    [1_536_000, '1.536M'],
    [131_100, '131.1K'],
    [4_096, '4K'],
    [512, '512'],
    [999, '999'],
  ])('%d tokens → %s', (tokens, shown) => {
    expect(fmtWindow(tokens)).toBe(shown);
  });

  it('shows none for nothing known', () => {
    for (const x of [0, -1, Number.NaN, null, undefined, Infinity]) expect(fmtWindow(x)).toBe('--');
  });

  it("is the page's formatter too (one function)", () => {
    expect(pageFmtWindow).toBe(fmtWindow);
  });
});

describe('/hmc status names the window as providers do', () => {
  it('ctx: N% of 128K for a 131,072-token window', async () => {
    const { engine } = await import('../helpers/conversation.js');
    const e = engine();
    e.preLlmCall({ session_id: 'w', messages: [{ role: 'user', content: 'hello there' }], context_length: 131_072 });
    e.settle();
    const status = await e.control({ session_id: 'w', args: { action: 'status' } });
    expect(status.status).toMatch(/^HMC \[auto\] \| ctx: \d+% of 128K \| /);
  });
});
