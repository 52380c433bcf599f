// A private Postgres for a test run (test/sdk/store.test.ts and the Postgres store's process tests): initdb
// into a temp dir, the server on 127.0.0.1 at a free port with no Unix socket, fsync on, and one database
// made for the caller; down() and up() stop it (pg_ctl) and start it again on its data, as an outage would;
// stop() ends the server by its pid (immediate shutdown) and removes the dir. Run as root
// (CI containers), the cluster belongs to `postgres` (or `nobody`), since initdb and postgres refuse root.
// Binaries come from PATH, else from Debian's /usr/lib/postgresql/<version>/bin (the postgresql package
// puts only psql on PATH). No system service is used or left running.
import { spawn, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { exited, freePort, stopChild } from "./private-service.js";

export interface PrivatePostgres {
  port: number;
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url: string;
  pid: number;
  /** A URL to another, new, empty database on this server. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
  /** Stops the server with `pg_ctl stop` (immediate: as a crash would; fast: a clean shutdown), keeping its data. */
  down(mode?: "fast" | "immediate"): Promise<void>;
  /** Starts the server again on the same data and port, once it is down; resolves when it answers. */
  up(): Promise<void>;
  /** What the server wrote on stdout and stderr so far (for a failure's message). */
  serverLog(): string;
}

/** The folder holding initdb and postgres: PATH's, else the newest /usr/lib/postgresql/<version>/bin. */
export function postgresBin(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const which = spawnSync("sh", ["-c", "command -v initdb"], { encoding: "utf8", env });
  if (which.status === 0 && which.stdout.trim()) {
    const real = spawnSync("readlink", ["-f", which.stdout.trim()], { encoding: "utf8" }).stdout.trim();
    return join(real, "..");
  }
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], "bin") : undefined;
}

/**
 * Root may not run a cluster: the ids of the user who will, `postgres` where Debian's package made one, else
 * `nobody`. Undefined when not root (the cluster is then the caller's own).
 */
function clusterUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ["postgres", "nobody"]) {
    const uid = spawnSync("id", ["-u", name], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", name], { encoding: "utf8" });
    if (uid.status === 0 && gid.status === 0) return { uid: Number(uid.stdout), gid: Number(gid.stdout) };
  }
  throw new Error("running as root, and there is neither a postgres nor a nobody user to run the cluster as");
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Starts a private cluster and makes `database` on it; throws saying how to install Postgres when it is missing. */
export async function startPostgres(database = "zkvai", timeoutMs = 30_000): Promise<PrivatePostgres> {
  const bin = postgresBin();
  if (!bin)
    throw new Error(
      "no initdb on PATH or under /usr/lib/postgresql/*/bin (the Postgres store's tests start their own cluster): " +
        "apt-get install -y postgresql",
    );
  const user = clusterUser();
  const dir = mkdtempSync(join(tmpdir(), "zkvai-pg-"));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, "data");
  // --no-sync skips only initdb's own final flush of a throwaway cluster; the server below runs with fsync on.
  const init = spawnSync(
    join(bin, "initdb"),
    ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "--encoding=UTF8", "--locale=C"],
    { encoding: "utf8", cwd: dir, ...user },
  );
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${(init.stderr || init.stdout || String(init.error)).trim()}`);
  }
  let lastLog = "";
  const launch = (port: number) =>
    spawn(
      join(bin, "postgres"),
      [
        "-D",
        data,
        "-p",
        String(port),
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        "unix_socket_directories=",
        "-c",
        "fsync=on",
        "-c",
        "synchronous_commit=on",
        "-c",
        "max_connections=50",
      ],
      { cwd: dir, stdio: ["ignore", "pipe", "pipe"], ...user },
    );
  // A free port can be taken between the probe and the server binding it: try a few.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    let child = launch(port);
    let log = "";
    child.stdout!.on("data", (c) => (log += c.toString()));
    child.stderr!.on("data", (c) => (log += c.toString()));
    // Immediate shutdown: no shutdown checkpoint to flush, as the cluster is removed right after.
    const halt = () => stopChild(child, "SIGQUIT");
    const base = `postgres://postgres@127.0.0.1:${port}`;
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && child.exitCode === null) {
      if (await answers(`${base}/postgres`)) {
        const createDatabase = async (name: string) => {
          const admin = new pg.Client({ connectionString: `${base}/postgres` });
          await admin.connect();
          try {
            await admin.query(`CREATE DATABASE "${name.replace(/"/g, "")}"`);
          } finally {
            await admin.end();
          }
          return `${base}/${name}`;
        };
        const url = await createDatabase(database);
        const stop = async () => {
          await halt();
          rmSync(dir, { recursive: true, force: true });
        };
        const down = async (mode: "fast" | "immediate" = "immediate") => {
          const r = spawnSync(join(bin, "pg_ctl"), ["stop", "-D", data, "-m", mode, "-w"], {
            encoding: "utf8",
            cwd: dir,
            ...user,
          });
          if (r.status !== 0) throw new Error(`pg_ctl stop failed: ${(r.stderr || r.stdout).trim()}`);
          await exited(child);
        };
        const up = async () => {
          child = launch(port);
          child.stdout!.on("data", (c) => (log += c.toString()));
          child.stderr!.on("data", (c) => (log += c.toString()));
          const until = Date.now() + timeoutMs;
          while (!(await answers(`${base}/postgres`))) {
            if (Date.now() > until || child.exitCode !== null)
              throw new Error(`postgres did not come back on port ${port}`);
            await new Promise((r) => setTimeout(r, 100));
          }
        };
        return { port, url, pid: child.pid!, createDatabase, stop, down, up, serverLog: () => log };
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    lastLog = log;
    await halt();
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error(
    `postgres did not answer on 127.0.0.1: ${lastLog.trim().split("\n").slice(-3).join(" | ")}`,
  );
}
