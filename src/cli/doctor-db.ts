/**
 * `hmc doctor`'s analytics-database check: SQLite's `integrity_check` (its `quick_check` on files
 * over 64 MiB), and a file that is not a database at all reported as such, never as "missing"
 * (issue 11: doctor said "all checks passed" for a damaged file and for one that was no database).
 *
 * Invariant: read-only; a missing file is fine (it is created when the first session ends).
 */
import { existsSync, statSync } from 'node:fs';
import type { Check } from '../../bin/install-check.js';
import { errorText } from '../core/errors.js';
import type { HmcConfig } from '../config/keys.js';

export async function checkDatabase(path: string): Promise<Check> {
  if (!existsSync(path))
    return {
      name: 'analytics db',
      ok: true,
      detail: `no database yet at ${path} (created when the first session ends)`,
    };
  let store: typeof import('../store/index.js');
  try {
    store = await import('../store/index.js');
  } catch (err) {
    return {
      name: 'analytics db',
      ok: false,
      detail: `cannot check ${path}: the SQLite module does not load (${errorText(err)})`,
      fix: 'see the sqlite check above',
    };
  }
  const { checkFile, INTEGRITY_MAX_BYTES } = store;
  const { size } = statSync(path);
  const depth = size <= INTEGRITY_MAX_BYTES ? 'full' : 'quick';
  const problem = checkFile(path, depth);
  const mb = `${(size / 1024 / 1024).toFixed(1)} MB`;
  if (!problem)
    return {
      name: 'analytics db',
      ok: true,
      detail: `${path} passed SQLite's ${depth === 'full' ? 'integrity_check' : 'quick_check'} (${mb})`,
    };
  return {
    name: 'analytics db',
    ok: false,
    detail: `${path} ${problem.startsWith('it is') ? problem.slice(3) : `is damaged: ${problem}`}`,
    fix: `stop Hermes, then move ${path} (and its -wal, -shm) aside; a running HMC moves a damaged database aside by itself on its next write, starts a fresh one and copies back the sessions that still read`,
  };
}

/**
 * Models the analytics database holds that no price table names (issue 24): they are priced at
 * `pricing.default_*`, so their money figures are a guess; named here with the fix. A database that
 * cannot be read is the check above's to report.
 */
export async function checkPrices(path: string, pricing: HmcConfig['pricing']): Promise<Check | null> {
  if (!existsSync(path)) return null;
  try {
    const { openStore } = await import('../store/index.js');
    const { priceModels } = await import('../store/pricing.js');
    const db = openStore(path, { readonly: true });
    try {
      const models = new Set([...db.byModel().map((r) => r.model), ...db.providerByModel().map((r) => r.model)]);
      const host = db.hostPrices();
      const rows = [...models].map((model) => ({
        model,
        sessions: 0,
        model_calls: 0,
        input: 0,
        sent: 0,
        saved: 0,
        cached_input: 0,
        cached_sent: 0,
        plain_input: 0,
        plain_sent: 0,
        sessions_without_cache_model: 0,
        ...(host.has(model) ? { host_price: host.get(model)! } : {}),
      }));
      const priced = priceModels(rows, pricing);
      const unknown = priced.filter((m) => m.price.unknown_model).map((m) => m.model || '(no model name)');
      const sources = [...new Set(priced.filter((m) => !m.price.unknown_model).map((m) => m.price.source))].join(', ');
      if (unknown.length === 0)
        return {
          name: 'prices',
          ok: true,
          detail: `every model of the analytics database is priced (${priced.length} model${priced.length === 1 ? '' : 's'}${sources ? `: ${sources}` : ''})`,
        };
      return {
        name: 'prices',
        ok: false,
        detail: `unknown model${unknown.length === 1 ? '' : 's'}, priced at pricing.default_* (its money figures are a guess): ${unknown.join(', ')}`,
        fix: 'add each to pricing.models in config.yaml (docs/configuration.md), e.g. `pricing: {models: {name: {input: 3, cache_read: 0.3, cache_write: 3.75, output: 15}}}`',
      };
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}
