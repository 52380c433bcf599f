// File-level helpers for the setup pipeline: hashing, atomic writes, iden3 binary headers (r1cs, ptau)
// and running CLI tools with a bounded output tail for error messages.
// The headers are read directly (a few dozen bytes) because snarkjs' r1cs.info loads every constraint,
// and a 150 MB ptau should not be parsed just to learn its power.

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, existsSync } from "node:fs";
import { open, readdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { ZkvaiError, type ZkvaiErrorOptions } from "../../sdk/core/errors.js";
import { CorruptFileError } from "./errors.js";

export const BN128_Q = 21888242871839275222246405745257275088696311157297823662689037894645226208583n;

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

export async function sha256File(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** Unique sibling temp name: a crash leaves `*.tmp-*` debris, never a file under the final name. */
export function tempName(file: string): string {
  return `${file}.tmp-${process.pid}-${Date.now().toString(36)}`;
}

/** Deletes temp files a killed run left behind; they are never mistaken for outputs, only waste space. */
export async function removeDebris(dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  for (const f of await readdir(dir))
    if (f.includes(".tmp-")) await rm(path.join(dir, f), { recursive: true, force: true });
}

export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const tmp = tempName(file);
  try {
    await writeFile(tmp, data);
    await rename(tmp, file);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}

interface Section {
  type: number;
  pos: number;
  size: number;
}

async function readSections(
  file: string,
  magic: string,
): Promise<{
  sections: Section[];
  read: (pos: number, len: number) => Promise<Buffer>;
  close: () => Promise<void>;
}> {
  const fd = await open(file, "r");
  const read = async (pos: number, len: number): Promise<Buffer> => {
    const buf = Buffer.alloc(len);
    const { bytesRead } = await fd.read(buf, 0, len, pos);
    if (bytesRead !== len)
      throw new CorruptFileError(`${file}: truncated (wanted ${len} bytes at ${pos})`, { details: { file } });
    return buf;
  };
  try {
    const { size: fileSize } = await fd.stat();
    const head = await read(0, 12);
    const found = head.subarray(0, 4).toString("latin1");
    if (found !== magic)
      throw new CorruptFileError(`${file}: not a ${magic} file (magic ${JSON.stringify(found)})`, {
        details: { file },
      });
    const nSections = head.readUInt32LE(8);
    const sections: Section[] = [];
    let pos = 12;
    for (let i = 0; i < nSections; i++) {
      const sh = await read(pos, 12);
      const size = Number(sh.readBigUInt64LE(4));
      sections.push({ type: sh.readUInt32LE(0), pos: pos + 12, size });
      pos += 12 + size;
    }
    if (pos > fileSize)
      throw new CorruptFileError(`${file}: truncated (sections end at ${pos}, file has ${fileSize} bytes)`, {
        details: { file },
      });
    return { sections, read, close: () => fd.close() };
  } catch (error) {
    await fd.close();
    throw error;
  }
}

function readLEBigInt(buf: Buffer): bigint {
  let v = 0n;
  for (let i = buf.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(buf[i]);
  return v;
}

export interface R1csHeader {
  prime: bigint;
  nWires: number;
  nOutputs: number;
  nPubInputs: number;
  nPrvInputs: number;
  nConstraints: number;
}

export async function readR1csHeader(file: string): Promise<R1csHeader> {
  const f = await readSections(file, "r1cs");
  try {
    const header = f.sections.find((s) => s.type === 1);
    if (!header) throw new CorruptFileError(`${file}: r1cs header section missing`, { details: { file } });
    const n8 = (await f.read(header.pos, 4)).readUInt32LE(0);
    const b = await f.read(header.pos + 4, n8 + 28);
    return {
      prime: readLEBigInt(b.subarray(0, n8)),
      nWires: b.readUInt32LE(n8),
      nOutputs: b.readUInt32LE(n8 + 4),
      nPubInputs: b.readUInt32LE(n8 + 8),
      nPrvInputs: b.readUInt32LE(n8 + 12),
      nConstraints: b.readUInt32LE(n8 + 24),
    };
  } finally {
    await f.close();
  }
}

/** The r1cs constraints section, whole: per constraint, three linear combinations of (u32 signal, coefficient). */
export async function readR1csConstraints(file: string): Promise<Buffer> {
  const f = await readSections(file, "r1cs");
  try {
    const body = f.sections.find((s) => s.type === 2);
    if (!body) throw new CorruptFileError(`${file}: r1cs constraints section missing`, { details: { file } });
    return await f.read(body.pos, body.size);
  } finally {
    await f.close();
  }
}

/** Smallest ptau power snarkjs' `zkey new` accepts: it needs a domain > constraints + public inputs. */
export function requiredPower(h: R1csHeader): number {
  const n = h.nConstraints + h.nPubInputs + h.nOutputs;
  return Math.floor(Math.log2(Math.max(n, 1))) + 1;
}

export interface PtauHeader {
  curveQ: bigint;
  power: number;
  ceremonyPower: number;
  /** Phase-2 ready: `prepare phase2` adds the Lagrange sections (12..15) that `zkey new` requires. */
  prepared: boolean;
}

export async function readPtauHeader(file: string): Promise<PtauHeader> {
  const f = await readSections(file, "ptau");
  try {
    const header = f.sections.find((s) => s.type === 1);
    if (!header) throw new CorruptFileError(`${file}: ptau header section missing`, { details: { file } });
    const n8 = (await f.read(header.pos, 4)).readUInt32LE(0);
    const b = await f.read(header.pos + 4, n8 + 8);
    return {
      curveQ: readLEBigInt(b.subarray(0, n8)),
      power: b.readUInt32LE(n8),
      ceremonyPower: b.readUInt32LE(n8 + 4),
      prepared: f.sections.some((s) => s.type === 12 && s.size > 0),
    };
  } finally {
    await f.close();
  }
}

export class ToolError extends ZkvaiError {
  static override readonly code: string = "TOOL_FAILED";
  override name = "ToolError";
  constructor(
    message: string,
    readonly tail: string,
    options?: ZkvaiErrorOptions,
  ) {
    super(tail ? `${message}\n--- output tail ---\n${tail}` : message, options);
  }
}

const stripAnsi = (s: string): string => s.replace(/\x1b\[[0-9;]*m/g, "");

/** Last `max` lines of `text`, without colour codes, for error messages. */
export function tailLines(text: string, max = 25): string {
  return stripAnsi(text).trimEnd().split("\n").slice(-max).join("\n");
}

/** Runs a command, streaming each output line to `onLine`, and rejects with the output tail on failure. */
export function runTool(
  command: string,
  args: string[],
  options: { cwd: string; onLine?: (line: string) => void },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] });
    // Bounded so a chatty tool cannot grow memory without limit; the tail is what matters for errors.
    let output = "";
    const onData = (chunk: Buffer): void => {
      const text = chunk.toString("utf8");
      output = (output + text).slice(-64_000);
      for (const line of stripAnsi(text).split("\n")) if (line.trim()) options.onLine?.(line);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", (error) => reject(new ToolError(`could not start ${command}: ${error.message}`, "")));
    child.on("close", (code, signal) => {
      if (code === 0) resolve(output);
      else
        reject(
          new ToolError(`${[command, ...args].join(" ")} exited with ${signal ?? code}`, tailLines(output)),
        );
    });
  });
}

/** Whether a process (a lock holder) still runs; EPERM means it does, under another user. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
