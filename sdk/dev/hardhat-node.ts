// A `hardhat node` as a child process: the local JSON-RPC chain behind `vai node` and the tests that need a
// real node (a separate process, reached over HTTP, as a provider's chain would be).
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { createRequire } from "node:module";
import { hardhatConfigPath, packageRoot } from "../chain/locations.js";
import { ZkvaiError } from "../core/errors.js";

/** A development Hardhat node that could not start (its port taken, no answer in time) or exited on its own. */
export class DevNodeError extends ZkvaiError {
  static override readonly code: string = "DEV_NODE_FAILED";
  override name = "DevNodeError";
}

export interface HardhatNode {
  url: string;
  port: number;
  pid: number;
  /** Resolves when the child has exited (SIGTERM first, SIGKILL if it lingers). Safe to call twice. */
  stop(): Promise<void>;
  /** Resolves with the exit code if the node dies on its own. */
  readonly exited: Promise<number | null>;
}

export interface HardhatNodeOptions {
  /** Default: a free port chosen by the OS. */
  port?: number;
  hostname?: string;
  /** How long to wait for the JSON-RPC server to answer. */
  readyTimeoutMs?: number;
  /** Called with each line the node prints after it is ready (transactions, blocks). */
  onLine?: (line: string) => void;
}

/** A port nobody listens on right now. Another process may still take it first; the caller retries. */
export async function freePort(hostname = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, hostname, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function portIsFree(port: number, hostname: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, hostname, () => server.close(() => resolve(true)));
  });
}

async function rpcAnswers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      signal: AbortSignal.timeout(1000),
    });
    return res.ok && typeof ((await res.json()) as { result?: unknown }).result === "string";
  } catch {
    return false;
  }
}

export async function startHardhatNode(options: HardhatNodeOptions = {}): Promise<HardhatNode> {
  const hostname = options.hostname ?? "127.0.0.1";
  // A port chosen here may be taken before hardhat binds it; only then is a second try worth it.
  for (let attempt = 0; ; attempt++) {
    const port = options.port ?? (await freePort(hostname));
    try {
      return await launch(port, hostname, options);
    } catch (e) {
      if (options.port !== undefined || attempt >= 2 || !/EADDRINUSE/.test(String(e))) throw e;
    }
  }
}

async function launch(port: number, hostname: string, options: HardhatNodeOptions): Promise<HardhatNode> {
  // Otherwise another node already on the port would answer the readiness probe, and we would deploy onto it.
  if (!(await portIsFree(port, hostname)))
    throw new DevNodeError(`port ${port} on ${hostname} is already in use (EADDRINUSE)`, {
      details: { port, hostname },
    });
  // cli.js, not the bin's bootstrap.js: the bootstrap may re-spawn node, and then stop() would kill only the
  // wrapper and leave the real node holding the port.
  const cli = createRequire(import.meta.url).resolve("hardhat/internal/cli/cli.js");
  const args = [cli, "node", "--config", hardhatConfigPath(), "--hostname", hostname, "--port", String(port)];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: packageRoot(),
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, HARDHAT_NETWORK: undefined, HARDHAT_CONFIG: undefined },
  });
  const url = `http://${hostname}:${port}`;
  // The node logs every request; the pipes must be drained or it blocks. The tail explains a failed start.
  const tail: string[] = [];
  let ready = false;
  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split("\n")) {
      if (!line.trim()) continue;
      if (ready) options.onLine?.(line);
      else {
        tail.push(line);
        if (tail.length > 20) tail.shift();
      }
    }
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);

  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  // A parent that exits (a finished test run, Ctrl-C) must not leave a node holding the port.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      process.removeListener("exit", killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
      await exited;
      clearTimeout(timer);
    })());

  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  let died = false;
  void exited.then(() => (died = true));
  while (!(await rpcAnswers(url))) {
    if (died || Date.now() > deadline) {
      await stop();
      const why = died ? `exited with code ${child.exitCode}` : "did not answer in time";
      throw new DevNodeError(`hardhat node on port ${port} ${why}: ${tail.slice(-5).join(" | ")}`, {
        details: { port, exitCode: child.exitCode, output: tail.slice(-5) },
      });
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  ready = true;
  return { url, port, pid: child.pid!, stop, exited };
}
