/**
 * Whether the process behind an event source still runs: a session whose sidecar was killed
 * before it could say the session went idle must not show as live for ever (issue 17, finding 4).
 * Event sources name their process (`sidecar-<pid>-<start ms>`, events/state-dir-sink.ts).
 *
 * Invariant: unsure means alive (a source without a pid, a process of another user, another
 * platform's error): only a definite "no such process" makes a session idle.
 */
const SOURCE_PID = /^sidecar-(\d+)-\d+$/;

export function processAlive(source: string): boolean {
  const pid = Number(SOURCE_PID.exec(source)?.[1] ?? 0);
  if (!Number.isSafeInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
