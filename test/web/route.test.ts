/**
 * The page's deep links (web/src/route.ts): a hash per session, per inspected output and per
 * view, ids percent-encoded and checked, links that cannot be followed refused with a reason
 * (issue 17, finding 7: a URL per session and per view).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatHash, MAX_ID, OVERVIEW, parseHash, sameTarget, VIEWS, type Route } from '../../web/src/route.js';

const route = (hash: string): Route => {
  const p = parseHash(hash);
  if (p.kind !== 'route') throw new Error(`${hash}: ${p.kind === 'invalid' ? p.reason : 'an anchor'}`);
  return p.route;
};

describe('parseHash', () => {
  it.each(['', '#', '#/'])('reads %j as the overview', (hash) => {
    expect(route(hash)).toEqual(OVERVIEW);
  });

  it('reads a session, an inspected output and a view', () => {
    expect(route('#/session/20261123_231540_8ba12c').target).toEqual({ kind: 'session', id: '20261123_231540_8ba12c' });
    expect(route('#/inspect/live-7f3a9c21d4%3Acall_1_0').target).toEqual({
      kind: 'inspect',
      id: 'live-7f3a9c21d4:call_1_0',
    });
    expect(route('#/view/projects').target).toEqual({ kind: 'view', view: 'projects' });
  });

  it("reads the project filter, and ignores parameters it does not know (a newer page's link)", () => {
    expect(route('#/view/history?project=%2Fhome%2Fada%2Fsrc%2Fhmc&theme=dark')).toEqual({
      target: { kind: 'view', view: 'history' },
      project: '/home/ada/src/hmc',
    });
    expect(route('#/?project=%2Fsrv%2Fa%2Bb').project).toBe('/srv/a+b');
  });

  it('reads the period as UTC days (issue 17, finding 7: since / until)', () => {
    expect(route('#/view/models?since=2026-11-01&until=2026-11-26')).toEqual({
      target: { kind: 'view', view: 'models' },
      project: '',
      since: '2026-11-01',
      until: '2026-11-26',
    });
    expect(route('#/?until=2026-11-26')).toEqual({ ...OVERVIEW, until: '2026-11-26' });
  });

  it("leaves in-page anchors alone (the skip link's #main)", () => {
    expect(parseHash('#main')).toEqual({ kind: 'anchor' });
  });

  it.each([
    ['#/session/%E0%A4%A', 'not correctly encoded'],
    ['#/session/', 'empty'],
    ['#/session/a%0Ab', 'control characters'],
    ['#/session/a%00', 'control characters'],
    ['#/session/a/b', 'no page is called'],
    ['#/view/nope', 'no view called “nope”'],
    ['#/admin', 'no page is called'],
    ['#/view/sessions?project=a%0Ab', 'project contains control characters'],
    ['#/?since=2026-02-30', 'since is not a calendar day'],
    ['#/?until=26-11-2026', 'until is not a calendar day'],
    ['#/?since=2026-11-02&until=2026-11-01', 'since is after until'],
  ])('refuses %s, saying why', (hash, why) => {
    const p = parseHash(hash);
    expect(p.kind).toBe('invalid');
    expect(p.kind === 'invalid' ? p.reason : '').toContain(why);
  });

  it('refuses an id longer than the API takes', () => {
    const p = parseHash(`#/session/${'x'.repeat(MAX_ID + 1)}`);
    expect(p.kind === 'invalid' ? p.reason : '').toContain(`longer than ${MAX_ID}`);
    expect(route(`#/session/${'x'.repeat(MAX_ID)}`).target.kind).toBe('session');
  });

  it('keeps markup in an id as the id (the page shows it as text)', () => {
    expect(route(`#/session/${encodeURIComponent('<img src=x onerror=alert(1)>')}`).target).toEqual({
      kind: 'session',
      id: '<img src=x onerror=alert(1)>',
    });
  });
});

describe('formatHash', () => {
  it('writes each kind of link', () => {
    expect(formatHash(OVERVIEW)).toBe('#/');
    expect(formatHash({ target: { kind: 'view', view: 'sessions' }, project: '' })).toBe('#/view/sessions');
    expect(formatHash({ target: { kind: 'session', id: 'a/b?c#d e' }, project: '/p q' })).toBe(
      '#/session/a%2Fb%3Fc%23d%20e?project=%2Fp%20q',
    );
  });

  it('reads back every route it writes', () => {
    const id = fc
      .string({ unit: 'grapheme', minLength: 1, maxLength: 60 })
      .filter((s) => !/[\u0000-\u001f\u007f]/.test(s));
    const target = fc.oneof(
      fc.constant({ kind: 'overview' as const }),
      fc.constantFrom(...VIEWS).map((view) => ({ kind: 'view' as const, view })),
      id.map((i) => ({ kind: 'session' as const, id: i })),
      id.map((i) => ({ kind: 'inspect' as const, id: i })),
    );
    const days = fc.integer({ min: 0, max: 20_000 }).map((d) => new Date(d * 86_400_000).toISOString().slice(0, 10));
    const range = fc.option(
      fc.tuple(days, days).map(([a, b]) => (a <= b ? [a, b] : [b, a])),
      { nil: undefined },
    );
    fc.assert(
      fc.property(target, fc.oneof(fc.constant(''), id), range, (t, project, r2) => {
        const r: Route = { target: t, project, ...(r2 ? { since: r2[0], until: r2[1] } : {}) };
        const hash = formatHash(r);
        expect(route(hash)).toEqual(r);
        // The hash stays one fragment: no raw #, space, double quote or angle bracket.
        expect(hash.slice(1)).not.toMatch(/[#\s"<>]/);
      }),
    );
  });
});

describe('sameTarget', () => {
  it('compares what is shown, not the project filter', () => {
    expect(sameTarget({ kind: 'session', id: 'a' }, { kind: 'session', id: 'a' })).toBe(true);
    expect(sameTarget({ kind: 'session', id: 'a' }, { kind: 'session', id: 'b' })).toBe(false);
    expect(sameTarget({ kind: 'view', view: 'history' }, { kind: 'view', view: 'projects' })).toBe(false);
    expect(sameTarget({ kind: 'overview' }, { kind: 'inspect', id: 'a' })).toBe(false);
  });
});
