/**
 * The host behind one door (issue 23, point 4): the engine finds a host's config reader in the
 * registry by the `host` of the hello; `hermes_config`, the field older Hermes bridges send, is
 * still read; a host not registered gets what it got before: no `host_config`, no error.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { helloAnswer } from '../../src/engine/hello.js';
import { hermes } from '../../src/hosts/hermes/index.js';
import { hermesHome, hermesStateDir } from '../../src/hosts/hermes/paths.js';
import { HOME_HOST, helloHostConfig, hostNamed, HOSTS } from '../../src/hosts/index.js';
import { resolveStateDir } from '../../src/hosts/state-dir.js';

describe('the hosts registry', () => {
  let dir = '';
  let file = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hmc-hosts-'));
    file = join(dir, 'config.yaml');
    writeFileSync(file, 'model:\n  context_length: 65536\ncompression:\n  threshold: 0.7\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('finds a host by the name its hello gives, and nothing for a name not registered', () => {
    expect(hostNamed('hermes')).toBe(hermes);
    for (const name of ['Hermes', 'other', 'in-process', '', undefined, 7])
      expect(hostNamed(name), String(name)).toBeUndefined();
    expect(new Set(HOSTS.map((h) => h.name)).size).toBe(HOSTS.length);
  });

  it("reads the config file a hello names (host_config_file) with the named host's reader", () => {
    const figures = { context_length: 65536, compression_threshold: 0.7 };
    expect(helloHostConfig({ host: 'hermes', host_config_file: file })).toEqual(figures);
    expect(helloAnswer({ host: 'hermes', protocol: 1, host_config_file: file }).host_config).toEqual(figures);
  });

  it("still reads hermes_config, the name an older Hermes bridge sends, by Hermes' reader", () => {
    const figures = { context_length: 65536, compression_threshold: 0.7 };
    expect(helloAnswer({ host: 'hermes', protocol: 1, hermes_config: file }).host_config).toEqual(figures);
    // The field names Hermes' file whatever the host says of itself, as before the generic name.
    expect(helloAnswer({ protocol: 1, hermes_config: file }).host_config).toEqual(figures);
    // Both sent: the generic name wins.
    const other = join(dir, 'other.yaml');
    writeFileSync(other, 'model:\n  context_length: 1000\n');
    expect(helloAnswer({ host: 'hermes', host_config_file: other, hermes_config: file }).host_config).toEqual({
      context_length: 1000,
      compression_threshold: 0.5,
    });
  });

  it('gives a host it does not know no host_config (no error), as a hello without a config file', () => {
    expect(helloAnswer({ host: 'other', protocol: 1, host_config_file: file }).host_config).toBeUndefined();
    expect(helloAnswer({ protocol: 1, host_config_file: file }).host_config).toBeUndefined();
    expect(helloAnswer({ host: 'hermes', protocol: 1, host_config_file: '' }).host_config).toBeUndefined();
    // From the wire (the guards pass hello's fields through unchecked): a number is no file name.
    expect(
      helloAnswer(JSON.parse('{"host": "hermes", "protocol": 1, "host_config_file": 42}')).host_config,
    ).toBeUndefined();
    expect(helloAnswer({ host: 'other', protocol: 1 }).capabilities).toEqual(
      helloAnswer({ host: 'hermes', protocol: 1 }).capabilities,
    );
  });

  it('takes the state dir default from the home host (Hermes: $HERMES_HOME/hmc_state)', () => {
    expect(HOME_HOST).toBe(hermes);
    const env = { HERMES_HOME: dir };
    expect(resolveStateDir(undefined, env)).toBe(hermesStateDir(hermesHome(env)));
    expect(resolveStateDir(undefined, env)).toBe(join(dir, 'hmc_state'));
    expect(HOME_HOST.stateDir(join(dir, 'h2'), env)).toBe(join(dir, 'h2', 'hmc_state'));
  });
});
