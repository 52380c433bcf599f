// A private Redis for a test or a bench run (test/prover/segment-queue.test.ts, scripts/bench/segments.ts
// --queue): Debian's redis-server on 127.0.0.1 at a free random port, no persistence (`--save ""
// --appendonly no`), in a temp dir, answering PING before startRedis returns; stop() ends it by its pid and
// removes the dir. No system service is used or left running.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, stopChild } from "./private-service.js";

export interface PrivateRedis {
  host: string;
  port: number;
  /** redis://127.0.0.1:<port> */
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** One PING over a raw socket: true when the server answers +PONG. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    let reply = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      reply += chunk.toString();
      if (reply.includes("\r\n")) done(reply.startsWith("+PONG"));
    });
  });
}

/** Starts a private redis-server; throws saying how to install it when there is none. */
export async function startRedis(timeoutMs = 10_000): Promise<PrivateRedis> {
  const probe = spawnSync("redis-server", ["--version"], { encoding: "utf8" });
  if (probe.error)
    throw new Error(
      "redis-server is not on PATH (the segment-queue tests and the queue bench start their own Redis): " +
        "apt-get install -y redis-server",
    );
  let lastLog = "";
  // A free port can be taken between the probe and redis binding it: try a few.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), "zkvai-redis-"));
    const child = spawn(
      "redis-server",
      ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no", "--dir", dir],
      { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
    );
    let log = "";
    child.stdout!.on("data", (c) => (log += c.toString()));
    child.stderr!.on("data", (c) => (log += c.toString()));
    const stop = async () => {
      await stopChild(child, "SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    };
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && child.exitCode === null) {
      if (await ping(port)) {
        return { host: "127.0.0.1", port, url: `redis://127.0.0.1:${port}`, pid: child.pid!, stop };
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    lastLog = log;
    await stop();
  }
  throw new Error(
    `redis-server did not answer PING on 127.0.0.1: ${lastLog.trim().split("\n").slice(-3).join(" | ")}`,
  );
}
