/**
 * Search listings: grep/rg/find/ls/git grep through a shell, and the search tools of several
 * agents. Every hit is a fact; the ones placed in the middle are what a log-style cut loses.
 */
import { bash, type HarmCase } from './case.js';
import { noise, text } from './noise.js';

const mid = (lines: string[], at: number, ...inserted: string[]): string[] => [
  ...lines.slice(0, at),
  ...inserted,
  ...lines.slice(at),
];

export const searchCases: HarmCase[] = [
  {
    name: 'grep -rn through bash keeps a middle hit',
    klass: 'search',
    ...bash('grep -rn "user_id" src/'),
    output: text(
      mid(
        noise.grepHits(140, 21),
        70,
        'src/payments/refunds.py:88:    refund.user_id = order.legacy_owner  # set by the 2019 importer',
      ),
    ),
    keep: ['src/payments/refunds.py:88:', 'legacy_owner'],
  },
  {
    name: 'rg --heading groups keep a middle file and its hits',
    klass: 'search',
    ...bash('rg -n --heading "TODO" .'),
    output: text(
      Array.from({ length: 30 }, (_, f) => [
        `src/module_${f}/service.ts`,
        `${12 + f}:  // TODO: tidy the retry loop`,
        `${40 + f}:  // TODO: cache lookups`,
        '',
      ])
        .flat()
        .slice(0, 58),
      ['src/billing/invoice.ts', '214:  // TODO: VAT for EU customers is computed twice here', ''],
      Array.from({ length: 20 }, (_, f) => [`lib/part_${f}.ts`, `${7 + f}:  // TODO: split this file`, '']).flat(),
    ),
    keep: ['src/billing/invoice.ts', 'VAT for EU customers is computed twice'],
  },
  {
    name: 'find -name lists a middle path',
    klass: 'search',
    ...bash('find . -name "*.py" -not -path "./.venv/*"'),
    output: text(mid(noise.paths(200, 22), 104, './src/legacy/importer_v2.py')),
    keep: ['./src/legacy/importer_v2.py'],
  },
  {
    name: 'ls -la of a big directory keeps a middle entry',
    klass: 'search',
    ...bash('ls -la /etc/nginx/conf.d'),
    output: text(
      'total 312',
      'drwxr-xr-x  2 root root 4096 May  2 10:31 .',
      'drwxr-xr-x 18 root root 4096 May  2 10:30 ..',
      Array.from(
        { length: 40 },
        (_, i) => `-rw-r--r--  1 root root ${1200 + i * 13} May  2 10:31 site-${String(i).padStart(2, '0')}.conf`,
      ),
      '-rw-------  1 root root  611 Apr 30 09:12 upstream-payments.conf.bak',
      Array.from(
        { length: 40 },
        (_, i) => `-rw-r--r--  1 root root ${900 + i * 7} May  2 10:31 zone-${String(i).padStart(2, '0')}.conf`,
      ),
    ),
    keep: ['upstream-payments.conf.bak'],
  },
  {
    name: 'git grep keeps a middle hit',
    klass: 'search',
    ...bash('git grep -n "deprecated_api("'),
    output: text(
      Array.from(
        { length: 45 },
        (_, i) => `tests/unit/test_client_${i}.py:${10 + i}:    client.deprecated_api(payload)`,
      ),
      'app/jobs/nightly_export.py:133:        rows = svc.deprecated_api(query, page_size=5000)',
      Array.from(
        { length: 45 },
        (_, i) => `tests/integration/test_flow_${i}.py:${20 + i}:    assert client.deprecated_api(x)`,
      ),
    ),
    keep: ['app/jobs/nightly_export.py:133:'],
  },
  {
    name: 'Hermes search_files envelope keeps a middle match',
    klass: 'search',
    tool: 'search_files',
    args: { pattern: 'RETRY_LIMIT', path: '.' },
    output: JSON.stringify({
      total_count: 121,
      matches: [
        ...Array.from({ length: 60 }, (_, i) => ({
          path: `tests/test_retry_${i}.py`,
          line: 10 + i,
          content: `    assert RETRY_LIMIT == 3  # case ${i}`,
        })),
        {
          path: 'services/queue/consumer.go',
          line: 77,
          content: 'const RETRY_LIMIT = 12 // overrides the shared default',
        },
        ...Array.from({ length: 60 }, (_, i) => ({
          path: `docs/retry_${i}.md`,
          line: 3 + i,
          content: `RETRY_LIMIT is documented here (${i})`,
        })),
      ],
      files: [],
    }),
    keep: ['services/queue/consumer.go', 'overrides the shared default'],
  },
  {
    name: 'Claude Code Grep files_with_matches keeps a middle file',
    klass: 'search',
    tool: 'Grep',
    args: { pattern: 'useSession', output_mode: 'files_with_matches' },
    output: [
      'Found 96 files',
      ...Array.from({ length: 95 }, (_, i) =>
        i === 48 ? '/Users/dev/app/src/auth/SessionBridge.tsx' : `/Users/dev/app/src/components/widget_${i}.tsx`,
      ),
    ].join('\n'),
    keep: ['/Users/dev/app/src/auth/SessionBridge.tsx'],
  },
  {
    name: 'Claude Code Glob keeps a middle path',
    klass: 'search',
    tool: 'Glob',
    args: { pattern: 'priv/repo/migrations/*.exs' },
    output: Array.from({ length: 90 }, (_, i) =>
      i === 51
        ? '/home/dev/shop/priv/repo/migrations/20240212093011_drop_legacy_carts.exs'
        : `/home/dev/shop/priv/repo/migrations/2024021${i % 10}0930${String(i).padStart(2, '0')}_add_field_${i}.exs`,
    ).join('\n'),
    keep: ['20240212093011_drop_legacy_carts.exs'],
  },
  {
    name: 'SWE-agent search_dir keeps a middle file and its count',
    klass: 'search',
    tool: 'search_dir',
    args: { command: 'search_dir "session"' },
    output: text(
      'Found 187 matches for "session" in /marshmallow-code__marshmallow:',
      Array.from(
        { length: 30 },
        (_, i) => `/marshmallow-code__marshmallow/tests/test_case_${i}.py (${(i % 5) + 1} matches)`,
      ),
      '/marshmallow-code__marshmallow/src/marshmallow/orderedset_session.py (14 matches)',
      Array.from(
        { length: 30 },
        (_, i) => `/marshmallow-code__marshmallow/docs/page_${i}.rst (${(i % 3) + 1} matches)`,
      ),
      'End of matches for "session" in /marshmallow-code__marshmallow',
    ),
    keep: ['orderedset_session.py (14 matches)'],
  },
  {
    name: 'SWE-agent search_file keeps a middle line',
    klass: 'search',
    tool: 'search_file',
    args: { command: 'search_file "timezone" src/marshmallow/fields.py' },
    output: text(
      'Found 64 matches for "timezone" in /repo/src/marshmallow/fields.py:',
      Array.from({ length: 63 }, (_, i) =>
        i === 33
          ? 'Line 1102:            value = value.astimezone(self.timezone or dt.timezone.utc)'
          : `Line ${100 + i * 15}:        # timezone handling ${i}`,
      ),
      'End of matches for "timezone" in /repo/src/marshmallow/fields.py',
    ),
    keep: ['Line 1102:', 'astimezone(self.timezone or dt.timezone.utc)'],
  },
  {
    name: 'a compound shell command (cd && grep) is still a search',
    klass: 'search',
    ...bash('cd /srv/app && grep -rn "TIMEOUT" --include=*.go .'),
    output: text(
      mid(
        noise.grepHits(90, 23, 'TIMEOUT').map((l) => l.replace('.py', '.go')),
        45,
        './internal/http/client.go:31:	DefaultTIMEOUT = 90 * time.Second // proxy needs more than 60s',
      ),
    ),
    keep: ['./internal/http/client.go:31:', 'proxy needs more than 60s'],
  },
  {
    name: 'grep piped to head is still a search',
    klass: 'search',
    ...bash('grep -rn "feature_flag" . | head -150'),
    output: text(
      mid(
        noise.grepHits(120, 24, 'feature_flag'),
        60,
        './config/flags.yaml:9:  checkout_v2_feature_flag: off  # turned off after incident 4411',
      ),
    ),
    keep: ['turned off after incident 4411'],
  },
  {
    name: 'fd listing keeps a middle path',
    klass: 'search',
    ...bash('fd -e tsx . src'),
    output: text(
      mid(
        noise.paths(150, 25, 'src').map((p) => p.replace(/\.\w+$/, '.tsx')),
        77,
        'src/pages/admin/RefundApproval.tsx',
      ),
    ),
    keep: ['src/pages/admin/RefundApproval.tsx'],
  },
  {
    name: 'ag output keeps a middle hit',
    klass: 'search',
    ...bash('ag "render\\(" web/'),
    output: text(
      Array.from({ length: 100 }, (_, i) =>
        i === 58
          ? 'web/legacy/dashboard.js:412:  render(<Dashboard beta />, mountNode);'
          : `web/components/c${i}.js:${i + 3}:    return render(tree);`,
      ),
    ),
    keep: ['web/legacy/dashboard.js:412:'],
  },
  {
    name: 'Gemini search_file_content keeps a middle file block',
    klass: 'search',
    tool: 'search_file_content',
    args: { pattern: 'maxRetries' },
    output: [
      'Found 70 matches for pattern "maxRetries" in path ".":',
      '---',
      ...Array.from({ length: 34 }, (_, i) => [
        `File: packages/core/src/m${i}.ts`,
        `L${i + 10}: const maxRetries = 3;`,
      ]).flat(),
      'File: packages/cli/src/config/network.ts',
      'L88: export const maxRetries = Number(process.env.CLI_MAX_RETRIES ?? 7);',
      ...Array.from({ length: 34 }, (_, i) => [`File: packages/web/src/n${i}.ts`, `L${i + 4}: maxRetries: 2,`]).flat(),
      '---',
    ].join('\n'),
    keep: ['packages/cli/src/config/network.ts', 'CLI_MAX_RETRIES'],
  },
  {
    name: 'OpenCode grep tool keeps a middle match',
    klass: 'search',
    tool: 'grep',
    args: { pattern: 'fetchUser' },
    output: [
      'Found 80 matches',
      ...Array.from({ length: 40 }, (_, i) => [
        `/work/app/src/f${i}.ts:`,
        `  Line ${i + 2}: const u = await fetchUser(id)`,
        '',
      ]).flat(),
      '/work/app/src/api/admin.ts:',
      '  Line 311: return fetchUser(id, { includeDeleted: true })',
    ].join('\n'),
    keep: ['/work/app/src/api/admin.ts:', 'includeDeleted: true'],
  },
  {
    name: 'tree output keeps a middle directory entry',
    klass: 'search',
    ...bash('tree -L 3 services'),
    output: text(
      'services',
      Array.from({ length: 30 }, (_, i) => [`├── svc${i}`, `│   ├── main.go`, `│   └── handler.go`]).flat(),
      '├── ledger-reconciler',
      '│   └── reconcile_batch.go',
      Array.from({ length: 10 }, (_, i) => [`├── tool${i}`, `│   └── run.sh`]).flat(),
      '',
      '52 directories, 82 files',
    ),
    keep: ['ledger-reconciler', 'reconcile_batch.go'],
  },
  {
    name: 'git ls-files keeps a middle path',
    klass: 'search',
    ...bash('git ls-files'),
    output: text(
      mid(
        noise.paths(180, 26, 'pkg').map((p) => p.slice(2)),
        92,
        'pkg/migrations/0042_backfill_tenant_ids.sql',
      ),
    ),
    keep: ['pkg/migrations/0042_backfill_tenant_ids.sql'],
  },
  {
    name: 'grep -c counts per file keep a middle count',
    klass: 'search',
    ...bash('grep -c "SELECT" -r sql/'),
    output: text(
      Array.from({ length: 90 }, (_, i) =>
        i === 47 ? 'sql/reports/monthly_revenue.sql:38' : `sql/q${i}.sql:${i % 4}`,
      ),
    ),
    keep: ['sql/reports/monthly_revenue.sql:38'],
  },
  {
    name: 'Gemini run_shell_command find keeps a middle path',
    klass: 'search',
    tool: 'run_shell_command',
    args: { command: 'find . -type f -newer package.json' },
    output: text(mid(noise.paths(130, 27), 66, './src/state/undoStack.ts')),
    keep: ['./src/state/undoStack.ts'],
  },
  {
    name: 'Codex shell with bash -lc rg keeps a middle hit',
    klass: 'search',
    tool: 'shell',
    args: { command: ['bash', '-lc', "rg -n 'resolveAgentCredentials' src"] },
    output: text(
      Array.from({ length: 70 }, (_, i) =>
        i === 36
          ? 'src/commands/execute/agent-setup.ts:58:export function resolveAgentCredentials(homeDir: string, repoRoot: string) {'
          : `src/commands/c${i}.ts:${i + 1}:import { resolveAgentCredentials } from './x.js';`,
      ),
    ),
    keep: ['agent-setup.ts:58:'],
  },
  {
    name: 'Codex shell string bash -lc grep keeps a middle hit',
    klass: 'search',
    tool: 'shell',
    args: { command: 'bash -lc \'grep -rn "phaseName" src | head -200\'' },
    output: text(
      Array.from({ length: 90 }, (_, i) =>
        i === 44
          ? "src/phases/report.ts:212:    if (phaseName === 'evaluation') return skipReport();"
          : `src/p/x${i}.ts:${i + 2}:  log(phaseName);`,
      ),
    ),
    keep: ['src/phases/report.ts:212:'],
  },
  {
    name: 'grep with a permission error keeps both the error and a middle hit',
    klass: 'search',
    ...bash('grep -rn "api_key" /srv'),
    output: text(
      noise.grepHits(50, 28, 'api_key'),
      'grep: /srv/secrets/vault.db: Permission denied',
      noise.grepHits(20, 29, 'api_key'),
      '/srv/billing/stripe_client.py:19:    api_key = os.environ["STRIPE_LIVE_KEY"]',
      noise.grepHits(50, 30, 'api_key'),
    ),
    keep: ['Permission denied', '/srv/billing/stripe_client.py:19:'],
  },
];
