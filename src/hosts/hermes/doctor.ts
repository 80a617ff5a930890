/**
 * `hmc doctor`'s Hermes checks: a Hermes home exists, the plugin is in it, and Hermes' config
 * enables it (and does not disable it).
 *
 * Invariant: never throws; a config that does not parse is one failed check naming the file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorLine } from '../../core/errors.js';
import type { Check } from '../host.js';
import { hermesConfigPath, hermesPluginDir } from './paths.js';

/** The checks of the Hermes install at `home`. */
export async function hermesChecks(home: string): Promise<Check[]> {
  const checks: Check[] = [];
  if (!existsSync(home)) {
    return [
      {
        name: 'hermes',
        ok: false,
        detail: `no Hermes home at ${home}`,
        fix: 'install Hermes, or set $HERMES_HOME; use --no-hermes when running HMC without Hermes',
      },
    ];
  }
  const pluginDir = hermesPluginDir(home);
  checks.push(
    existsSync(join(pluginDir, 'plugin.yaml'))
      ? { name: 'hermes plugin', ok: true, detail: `${pluginDir} holds the plugin` }
      : {
          name: 'hermes plugin',
          ok: false,
          detail: `${pluginDir}/plugin.yaml is missing`,
          fix: 'hermes plugins install <this repository>',
        },
  );
  const configPath = hermesConfigPath(home);
  let enabled = false;
  let disabled = false;
  try {
    const { parse } = await import('yaml');
    const parsed: unknown = existsSync(configPath)
      ? parse(readFileSync(configPath, 'utf8'), { logLevel: 'error' })
      : null;
    const plugins = isRecord(parsed) ? parsed.plugins : undefined;
    const list = (key: string): unknown[] => (isRecord(plugins) && Array.isArray(plugins[key]) ? plugins[key] : []);
    enabled = list('enabled').includes('hmc');
    disabled = list('disabled').includes('hmc');
  } catch (err) {
    checks.push({
      name: 'hermes config',
      ok: false,
      detail: `${configPath} does not parse: ${errorLine(err)}`,
      fix: "fix the YAML syntax of Hermes' config",
    });
    return checks;
  }
  checks.push(
    enabled && !disabled
      ? { name: 'hermes enabled', ok: true, detail: `hmc is in plugins.enabled of ${configPath}` }
      : {
          name: 'hermes enabled',
          ok: false,
          detail: disabled
            ? `hmc is in plugins.disabled of ${configPath}`
            : `hmc is not in plugins.enabled of ${configPath}`,
          fix: 'hermes plugins enable hmc, then restart Hermes',
        },
  );
  return checks;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
