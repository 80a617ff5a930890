// Types of bin/install-check.js (plain JavaScript so it runs before anything is built).
export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  /** How to fix it, for a failed check. */
  fix?: string;
}
export declare const MIN_NODE: readonly [number, number];
export declare function installChecks(
  root: string,
  opts?: { nodeVersion?: string; env?: NodeJS.ProcessEnv; execPath?: string },
): Promise<Check[]>;
export declare function checkNode(version: string): Check;
export declare function checkTab(root: string): Check;
export declare function whyNoBuild(
  env: NodeJS.ProcessEnv,
  execPath: string,
): { detail: string; fix(root: string): string };
export declare function formatCheck(check: Check): string;
