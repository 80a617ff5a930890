import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONTROL_HELP } from '../../src/engine/control.js';
import { CONTROL_TOOL_SCHEMA, MODEL_ACTIONS } from '../../src/engine/control-schema.js';
import { engine } from '../helpers/conversation.js';

const BUILT_SCHEMA = new URL('../../dist/hmc_control.schema.json', import.meta.url);

describe('the hmc_control tool schema', () => {
  it('offers exactly the actions control answers, help and config aside (they are for people)', () => {
    const answered = Object.keys(CONTROL_HELP).filter((a) => a !== 'help' && a !== 'config');
    expect([...MODEL_ACTIONS].sort()).toEqual(answered.sort());
    for (const action of MODEL_ACTIONS) {
      expect(CONTROL_TOOL_SCHEMA.parameters.properties.action?.description).toContain(action);
      expect(CONTROL_TOOL_SCHEMA.description).toContain(action);
    }
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

  it.skipIf(!existsSync(BUILT_SCHEMA))('is the file the build writes for the bridge (dist/hmc_control.schema.json)', () => {
    expect(JSON.parse(readFileSync(BUILT_SCHEMA, 'utf8'))).toEqual(CONTROL_TOOL_SCHEMA);
  });
});
