import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  HERMES_DEFAULT_THRESHOLD,
  parseHermesConfig,
  readHermesConfig,
} from '../../../src/hosts/hermes/config-file.js';
import { helloAnswer, STREAM_BYTES } from '../../../src/engine/hello.js';

// The cases the bridge's Python tests checked when the bridge parsed Hermes' YAML itself
// (test_bridge_host_figures.py: the context window and the compression threshold come from Hermes' config).
describe("Hermes' config.yaml: the window and where its compressor fires", () => {
  it('reads model.context_length, past comments and other keys, and not a context_length elsewhere', () => {
    const text =
      'plugins:\n  enabled: [hmc]\nmodel:\n  provider: custom\n  # the window\n  context_length: 131072  # tokens\n  default: m\ncompression:\n  context_length: 5\n';
    expect(parseHermesConfig(text).context_length).toBe(131072);
    expect(parseHermesConfig('model:\n  provider: custom\ncontext_length: 99\n').context_length).toBeUndefined();
    expect(parseHermesConfig('model: gpt-5\n').context_length).toBeUndefined();
    for (const bad of ['0', '-5', '1.5', '"131072"', 'lots'])
      expect(parseHermesConfig(`model:\n  context_length: ${bad}\n`).context_length, bad).toBeUndefined();
  });

  it('reads compression.threshold, with the default when it is absent or out of (0, 1]', () => {
    expect(
      parseHermesConfig('model:\n  context_length: 200000\ncompression:\n  enabled: true\n  threshold: 0.6  # share\n'),
    ).toEqual({ context_length: 200000, compression_threshold: 0.6 });
    expect(parseHermesConfig('compression:\n  threshold: 7\n').compression_threshold).toBe(HERMES_DEFAULT_THRESHOLD);
    expect(parseHermesConfig('compression:\n  threshold: 0\n').compression_threshold).toBe(0.5);
    expect(parseHermesConfig('compression:\n  threshold: 1\n').compression_threshold).toBe(1);
    expect(parseHermesConfig('model:\n  context_length: 1000\n').compression_threshold).toBe(0.5);
  });

  it("gives no threshold when Hermes' compressor is off (false, no, off: Hermes reads YAML 1.1)", () => {
    for (const off of ['false', 'no', 'off', 'Off', 'FALSE']) {
      expect(
        parseHermesConfig(`compression:\n  enabled: ${off}\n  threshold: 0.6\n`).compression_threshold,
        off,
      ).toBeUndefined();
    }
    expect(parseHermesConfig('compression:\n  enabled: yes\n  threshold: 0.6\n').compression_threshold).toBe(0.6);
  });

  it('never throws: a missing, empty or broken file gives no window and the default share', () => {
    const defaults = { compression_threshold: 0.5 };
    expect(parseHermesConfig(null)).toEqual(defaults);
    expect(parseHermesConfig('')).toEqual(defaults);
    expect(parseHermesConfig('model: [unclosed\n  : : :')).toEqual(defaults);
    expect(parseHermesConfig('- a list\n- at the top\n')).toEqual(defaults);
    expect(parseHermesConfig('model:\n  context_length: 1\nmodel:\n  context_length: 2\n').context_length).toBe(2); // as PyYAML: the last one
    expect(parseHermesConfig('compression: {__proto__: {threshold: 0.9}}\n')).toEqual(defaults);
  });
});

describe('hello', () => {
  let dir = '';
  afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('answers the figures of the config file the host named, read at hello', () => {
    dir = mkdtempSync(join(tmpdir(), 'hmc-hello-'));
    const file = join(dir, 'config.yaml');
    writeFileSync(file, 'model:\n  context_length: 65536\ncompression:\n  threshold: 0.7\n');
    expect(helloAnswer({ host: 'hermes', protocol: 1, hermes_config: file }).host_config).toEqual({
      context_length: 65536,
      compression_threshold: 0.7,
    });
    expect(readHermesConfig(join(dir, 'missing.yaml'))).toEqual({ compression_threshold: 0.5 });
    expect(helloAnswer({ host: 'other', protocol: 1 }).host_config).toBeUndefined();
  });

  it('tells the host how big a stretch of a long history to send ahead', () => {
    expect(helloAnswer({}).stream_bytes).toBe(STREAM_BYTES);
    expect(helloAnswer({}).capabilities).toContain('partial');
  });
});
