/**
 * The harm suite: realistic tool outputs in the classes where harmful cuts were seen (issue 8
 * item 7) and the classes older tests cover, run through the real single-output path
 * (`compressOutput`, what `hmc filter --jsonl` and `post_tool_call` use) with the default config.
 * Each case names the facts that must survive, and where it matters a success claim that must
 * not appear; repetitive outputs must also shrink.
 */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/keys.js';
import { compressOutput, type CompressContext } from '../../src/engine/turn/compress.js';
import { protectionFor } from '../../src/engine/session/protection.js';
import { reportsFailure, importance } from '../../src/strategies/shared/signals.js';
import { pairedLines, type HarmCase, type HarmClass } from './harm/case.js';
import { HARM_CASES } from './harm/all.js';
import { noise } from './harm/noise.js';

const config = defaultConfig();
const ctx: CompressContext = { config, protection: protectionFor(config), manual: false, log: () => {} };

/** What the model reads: the content, and inside a JSON envelope every string value decoded. */
function visible(content: string): string {
  const strings: string[] = [content];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') strings.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(walk);
  };
  if (content.trimStart().startsWith('{')) {
    try {
      walk(JSON.parse(content));
    } catch {
      // not JSON: the content itself is what the model reads
    }
  }
  return strings.join('\n');
}

function run(c: HarmCase): { content: string; raw: string } {
  const r = compressOutput(c.output, { tool: c.tool, args: c.args ?? {}, hostError: c.isError === true }, ctx);
  return { content: r.content, raw: r.raw };
}

describe('the harm suite is well formed', () => {
  it('has at least 120 cases and names every class', () => {
    expect(HARM_CASES.length).toBeGreaterThanOrEqual(120);
    const classes = new Set<HarmClass>(HARM_CASES.map((c) => c.klass));
    expect([...classes].sort()).toEqual([
      'chained',
      'false-success',
      'install-warning',
      'language',
      'lint-all-messages',
      'lint-message',
      'log-failure',
      'prose',
      'rare-kind',
      'repetitive',
      'search',
      'test-title',
      'traceback',
      'warning-detail',
    ]);
    expect(new Set(HARM_CASES.map((c) => c.name)).size).toBe(HARM_CASES.length);
  });

  it.each(HARM_CASES.map((c) => [c.name, c] as const))('%s: its facts are in its input', (_name, c) => {
    const input = visible(c.output);
    for (const fact of c.keep) expect(input).toContain(fact);
    for (const claim of c.absent ?? []) expect(input).not.toContain(claim);
    if (c.pairs) expect(pairedLines(c.output, c.pairs).size).toBeGreaterThan(3);
  });

  it('filler lines report no failure and carry no importance, so the facts are the only thing to keep', () => {
    const lines = [
      ...noise.pytestVerbose(50),
      ...noise.appLog(50),
      ...noise.cargoCompiling(50),
      ...noise.npmVerbose(50),
      ...noise.pipInstall(50),
      ...noise.dockerBuild(50),
      ...noise.kubectlPods(50),
      ...noise.gradleTasks(50),
      ...noise.mavenInfo(50),
      ...noise.jestPass(50),
      ...noise.terraformPlan(50),
      ...noise.prose(50),
      ...noise.gitLog(50),
    ];
    for (const line of lines) {
      expect(reportsFailure(line), line).toBe(false);
      expect(importance(line), line).toBeLessThan(2);
    }
  });
});

describe('no harmful compression', () => {
  it.each(HARM_CASES.map((c) => [`${c.klass}: ${c.name}`, c] as const))('%s', (_name, c) => {
    const { content, raw } = run(c);
    const seen = visible(content);
    expect(content.length).toBeLessThanOrEqual(raw.length);
    for (const fact of c.keep) expect(seen, `lost: ${fact}`).toContain(fact);
    for (const claim of c.absent ?? []) expect(seen, `claims: ${claim}`).not.toContain(claim);
    for (const mark of c.marks ?? []) expect(seen, `no marker: ${mark}`).toContain(mark);
    if (c.shrinkTo !== undefined)
      expect(content.length, `did not shrink to ${c.shrinkTo}`).toBeLessThanOrEqual(
        Math.floor(raw.length * c.shrinkTo),
      );
    if (c.pairs) {
      const kept = new Set(content.split('\n'));
      for (const [location, message] of pairedLines(c.output, c.pairs))
        if (kept.has(location)) expect(kept.has(message), `${location} kept without ${message}`).toBe(true);
    }
  });
});
