// What the private services the tests start (private-redis.ts, private-postgres.ts) share: a free loopback port,
// a child's exit as a promise, and a stop that escalates to SIGKILL when the process ignores its signal.
import type { ChildProcess } from "node:child_process";
import { createServer } from "node:net";

/** A port free on 127.0.0.1 now (another process may take it before the caller binds it: callers retry). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()));
}

/** Sends `signal` to a running child, then SIGKILL if it has not exited within 5 s; resolves once it has. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  const killer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited(child);
  clearTimeout(killer);
}
