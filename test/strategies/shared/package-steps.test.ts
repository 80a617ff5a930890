/**
 * Package managers' progress lines (src/strategies/shared/package-steps.ts): the names in them are
 * not reports, lines of one step are one kind, and a step line that really reports a failure
 * still does.
 */
import { describe, expect, it } from 'vitest';
import { isPackageStep, packageStep, withoutPackageNames } from '../../../src/strategies/shared/package-steps.js';
import { failureTokens, importance, reportsFailure, reportsWarning } from '../../../src/strategies/shared/signals.js';

const NAMES_ONLY = [
  'npm http fetch GET 200 https://registry.npmjs.org/es-errors 81ms (cache hit)',
  'npm http fetch GET 304 https://registry.npmjs.org/http-errors 12ms (cache revalidated)',
  "➤ YN0013: │ abort-controller@npm:3.0.0 can't be found in the cache and will be fetched from the remote registry",
  '➤ YN0007: │ esbuild@npm:0.18.20 must be built because it never has been before or the last one failed',
  'verbose 1.31 Request "https://registry.yarnpkg.com/serialize-error" finished with status code 200.',
  'Collecting Deprecated>=1.2.6 (from opentelemetry-api)',
  'Collecting warning',
  '  Downloading exceptiongroup-1.2.0-py3-none-any.whl (16 kB)',
  'Requirement already satisfied: deprecation>=2.0 in /usr/lib/python3/dist-packages (2.1.0)',
  '  - Installing symfony/error-handler (v6.4.0): Extracting archive',
  'Unpacking liberror-perl (0.17029-2) ...',
  'Setting up liberror-perl (0.17029-2) ...',
  '   Compiling error-chain v0.12.4',
  'go: downloading github.com/pkg/errors v0.9.1',
  '[INFO] Downloaded from central: https://repo.maven.apache.org/maven2/org/fail/fail-core/1.0/fail-core-1.0.jar (12 kB at 300 kB/s)',
  '  Contoso.Errors -> /src/Contoso.Errors/bin/Debug/net8.0/Contoso.Errors.dll',
];

const REAL_FAILURES = [
  "➤ YN0009: │ esbuild@npm:0.18.20 couldn't be built successfully (exit code 1, logs can be found here: /tmp/xfs/build.log)",
  "  Building wheel for pyyaml (pyproject.toml): finished with status 'error'",
  'Collecting es-errors: connection failed',
  'npm http fetch GET 200 https://registry.npmjs.org/x 81ms (cache hit) error: integrity mismatch',
];

describe('package-manager progress lines', () => {
  it.each(NAMES_ONLY)('names are not reports: %s', (line) => {
    expect(isPackageStep(line)).toBe(true);
    expect(reportsFailure(line)).toBe(false);
    expect(reportsWarning(line)).toBe(false);
    expect(failureTokens(line)).toEqual([]);
    expect(importance(line)).toBe(0);
  });

  it.each(REAL_FAILURES)('a step line that reports a failure still does: %s', (line) => {
    expect(reportsFailure(line)).toBe(true);
    expect(failureTokens(line).length).toBeGreaterThan(0);
  });

  it('keeps plain words and blanks names only', () => {
    expect(withoutPackageNames('Collecting es-errors: connection failed')).toContain('connection failed');
    expect(withoutPackageNames('an ordinary line with es-errors in it')).toBe('an ordinary line with es-errors in it');
  });

  it('lines of one step are one kind, whatever their names and codes', () => {
    expect(packageStep('npm http fetch GET 200 https://registry.npmjs.org/a 1ms (cache hit)')).toBe(
      packageStep('npm http fetch GET 304 https://registry.npmjs.org/b-c 90ms (cache revalidated)'),
    );
    expect(packageStep('Progress: resolved 1, reused 0, downloaded 0, added 0')).toBe(
      packageStep('Progress: resolved 812, reused 790, downloaded 22, added 812, done'),
    );
    expect(packageStep('[INFO] platform-core ........ SUCCESS [  1.234 s]')).toBe('maven module');
    expect(packageStep('[INFO] platform-core ........ FAILURE [  1.234 s]')).toBeNull();
    expect(packageStep('plain text')).toBeNull();
  });
});
