import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONTROL_HELP } from '../../src/engine/control/control.js';
import { CONTROL_TOOL_SCHEMA, MODEL_ACTIONS } from '../../src/engine/control/control-schema.js';
import { PERIODS, SCOPES } from '../../src/store/action.js';
import { engine } from '../helpers/conversation.js';

const BUILT_SCHEMA = new URL('../../dist/hmc_control.schema.json', import.meta.url);
const README = new URL('../../README.md', import.meta.url);

/** The `period=a|b|…` lists a text names (in a Markdown table the bars are escaped: `a\\|b`). */
const periodLists = (text: string): string[][] =>
  [...text.matchAll(/period=([a-z]+(?:\\?\|[a-z]+)+)/g)].map((m) => (m[1] ?? '').split(/\\?\|/));

describe('the hmc_control tool schema', () => {
  it('offers exactly the actions control answers, help and config aside (they are for people)', () => {
    const answered = Object.keys(CONTROL_HELP).filter((a) => a !== 'help' && a !== 'config');
    expect([...MODEL_ACTIONS].sort()).toEqual(answered.sort());
    for (const action of MODEL_ACTIONS) {
      expect(CONTROL_TOOL_SCHEMA.parameters.properties.action?.description).toContain(action);
      expect(CONTROL_TOOL_SCHEMA.description).toContain(action);
    }
  });

  it('offers the analytics periods the action takes, as /hmc help and the README list them (issue 17, finding 5)', async () => {
    // Before: the schema offered all|day|month|recent|project; the action, help and README also tool|strategy.
    const schemaPeriods = CONTROL_TOOL_SCHEMA.parameters.properties.period?.description ?? '';
    for (const p of PERIODS) expect(schemaPeriods).toContain(p);
    expect(periodLists(CONTROL_TOOL_SCHEMA.description)).toEqual([[...PERIODS]]);
    expect(periodLists(CONTROL_HELP.analytics)).toEqual([[...PERIODS]]);
    expect(CONTROL_HELP.analytics).toContain(`scope=${SCOPES.join('|')}`);
    expect(await engine().command({ session_id: '', raw_args: 'help' })).toContain(`period=${PERIODS.join('|')}`);
    const readme = readFileSync(README, 'utf8');
    expect(periodLists(readme).length).toBeGreaterThan(0);
    for (const list of periodLists(readme)) expect(list).toEqual([...PERIODS]);
  });

  it('requires an action and describes every parameter', () => {
    expect(CONTROL_TOOL_SCHEMA.parameters.required).toEqual(['action']);
    for (const [name, p] of Object.entries(CONTROL_TOOL_SCHEMA.parameters.properties)) {
      expect(['string', 'integer', 'boolean'], name).toContain(p.type);
      expect(p.description.length, name).toBeGreaterThan(10);
    }
  });

  it('is sent in the hello answer, so a host registers what the sidecar answers', () => {
    expect(engine().hello({ host: 't', protocol: 1 }).control_schema).toEqual(CONTROL_TOOL_SCHEMA);
  });

  it.skipIf(!existsSync(BUILT_SCHEMA))(
    'is the file the build writes for the bridge (dist/hmc_control.schema.json)',
    () => {
      expect(JSON.parse(readFileSync(BUILT_SCHEMA, 'utf8'))).toEqual(CONTROL_TOOL_SCHEMA);
    },
  );
});
