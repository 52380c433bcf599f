// vai ceremony: the multi-party Groth16 phase 2 that turns a development setup into one nobody alone can
// forge against, on top of snarkjs' zkey commands. The procedure is docs/CEREMONY.md.
import { existsSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import * as snarkjs from "snarkjs";
import { releaseProver } from "../../prover/prove.js";
import { sha256File } from "../../prover/artifacts/zkfiles.js";
import { ZkvaiError } from "../../sdk/core/errors.js";
import { exportVerifier } from "../../prover/artifacts/circuit-build.js";

export const CEREMONY_USAGE = `usage: vai ceremony <new|contribute|beacon|verify|export> [options]

Multi-party phase 2 of a Groth16 setup (snarkjs zkey). Production order (docs/CEREMONY.md):
new from a public ptau, contribute once per participant, one beacon, verify, export.

  new        --r1cs <circuit.r1cs> --ptau <trusted.ptau> --out <circuit_0000.zkey>
  contribute --in <zkey> --out <zkey> --name <participant> [--entropy <text>]
             entropy defaults to 64 random bytes; it is never written anywhere
  beacon     --in <zkey> --out <zkey> --beacon <hex> [--iterations <10..63>] [--name <text>]
             the beacon is a public random value fixed before it is known (e.g. a future block hash)
  verify     --r1cs <circuit.r1cs> --ptau <trusted.ptau> --zkey <zkey>
             recomputes the chain of contributions from the r1cs and the ptau
  export     --zkey <final.zkey> --vkey <out.json> --verifier <out.sol> [--contract <Name>]
             writes the verification key and the Solidity verifier, prints their sha256 for build/manifest.json

Prints one JSON object. Exit 0: done (verify: the zkey is valid). 1: verify found the zkey invalid,
or snarkjs refused the operation. 2: bad arguments or missing files.`;

export class UsageError extends ZkvaiError {
  static override readonly code: string = "BAD_CEREMONY_USAGE";
  override name = "UsageError";
}

const OPTIONS = {
  r1cs: { type: "string" },
  ptau: { type: "string" },
  in: { type: "string" },
  out: { type: "string" },
  zkey: { type: "string" },
  name: { type: "string" },
  entropy: { type: "string" },
  beacon: { type: "string" },
  iterations: { type: "string" },
  vkey: { type: "string" },
  verifier: { type: "string" },
  contract: { type: "string" },
  verbose: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>["values"];

function need(values: Values, key: keyof Values, exists = true): string {
  const v = values[key];
  if (typeof v !== "string" || !v) throw new UsageError(`--${key} is required`);
  if (exists && !existsSync(v)) throw new UsageError(`--${key} ${v}: no such file`);
  return v;
}

/** snarkjs reports through a logger and often returns false/-1 instead of throwing; keep what it said. */
function logger(verbose: boolean) {
  const lines: string[] = [];
  const errors: string[] = [];
  const say = (level: string) => (m: string) => {
    lines.push(m);
    if (verbose) console.error(`snarkjs ${level}: ${m}`);
  };
  return {
    lines,
    errors,
    log: {
      debug: say("debug"),
      info: say("info"),
      warn: say("warn"),
      error: (m: string) => (errors.push(m), say("error")(m)),
    },
  };
}

/** Contribution hashes snarkjs prints while verifying, in order: what participants check theirs against. */
function contributionsFrom(messages: string[]): Array<{ index: number; name: string; hash: string }> {
  const lines = messages.flatMap((m) => m.split("\n"));
  const out: Array<{ index: number; name: string; hash: string }> = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^contribution #(\d+) (.*):$/.exec(lines[i].trim());
    if (m) {
      const hash = lines
        .slice(i + 1, i + 5)
        .map((l) => l.trim())
        .join("")
        .replace(/\s+/g, "");
      out.push({ index: Number(m[1]), name: m[2], hash });
    }
  }
  // snarkjs prints the latest contribution first.
  return out.sort((a, b) => a.index - b.index);
}

async function run(command: string, v: Values): Promise<{ code: number; out: Record<string, unknown> }> {
  const { log, lines, errors } = logger(Boolean(v.verbose));
  const failed = (what: string) => ({
    code: 1,
    out: { ok: false, error: `${what} failed`, snarkjs: errors },
  });
  switch (command) {
    case "new": {
      const [r1cs, ptau, out] = [need(v, "r1cs"), need(v, "ptau"), need(v, "out", false)];
      const r = await snarkjs.zKey.newZKey(r1cs, ptau, out, log);
      if (r === -1 || !existsSync(out)) return failed("zkey new");
      return { code: 0, out: { ok: true, zkey: out, sha256: await sha256File(out) } };
    }
    case "contribute": {
      const [input, out, name] = [need(v, "in"), need(v, "out", false), need(v, "name", false)];
      const entropy = v.entropy ?? randomBytes(64).toString("hex");
      const hash = await snarkjs.zKey.contribute(input, out, name, entropy, log);
      if (!hash || !existsSync(out)) return failed("contribute");
      return {
        code: 0,
        out: {
          ok: true,
          zkey: out,
          name,
          contributionHash: Buffer.from(hash as Uint8Array).toString("hex"),
          sha256: await sha256File(out),
        },
      };
    }
    case "beacon": {
      const [input, out, beacon] = [need(v, "in"), need(v, "out", false), need(v, "beacon", false)];
      if (!/^([0-9a-fA-F]{2})+$/.test(beacon))
        throw new UsageError("--beacon must be hex, an even number of digits");
      const iterations = Number(v.iterations ?? 10);
      if (!Number.isInteger(iterations) || iterations < 10 || iterations > 63)
        throw new UsageError("--iterations must be an integer in 10..63 (2^n hash iterations)");
      const name = v.name ?? "final beacon";
      const hash = await snarkjs.zKey.beacon(input, out, name, beacon, iterations, log);
      if (!hash || !existsSync(out)) return failed("beacon");
      return {
        code: 0,
        out: {
          ok: true,
          zkey: out,
          name,
          beacon,
          iterations,
          contributionHash: Buffer.from(hash as Uint8Array).toString("hex"),
          sha256: await sha256File(out),
        },
      };
    }
    case "verify": {
      const [r1cs, ptau, zkey] = [need(v, "r1cs"), need(v, "ptau"), need(v, "zkey")];
      let ok: boolean;
      try {
        ok = await snarkjs.zKey.verifyFromR1cs(r1cs, ptau, zkey, log);
      } catch (e) {
        // A truncated or garbled file makes snarkjs throw rather than answer false.
        errors.push((e as Error).message);
        ok = false;
      }
      const out = {
        ok,
        zkey,
        sha256: await sha256File(zkey),
        contributions: contributionsFrom(lines),
        ...(ok ? {} : { snarkjs: errors }),
      };
      return { code: ok ? 0 : 1, out };
    }
    case "export": {
      const [zkey, vkeyOut, solOut] = [need(v, "zkey"), need(v, "vkey", false), need(v, "verifier", false)];
      // setup names each verifier after its circuit; --contract keeps that, so hardhat artifacts do not collide.
      const { vkey, sol } = await exportVerifier(zkey, v.contract, log);
      writeFileSync(vkeyOut, JSON.stringify(vkey, null, 2) + "\n");
      writeFileSync(solOut, sol);
      return {
        code: 0,
        out: {
          ok: true,
          sha256: {
            zkey: await sha256File(zkey),
            vkey: await sha256File(vkeyOut),
            verifierSol: await sha256File(solOut),
          },
        },
      };
    }
    default:
      throw new UsageError(`unknown subcommand "${command}"`);
  }
}

export async function runCeremony(argv: string[]): Promise<number> {
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true }));
  } catch (e) {
    console.error(`vai ceremony: ${(e as Error).message}\n\n${CEREMONY_USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(CEREMONY_USAGE);
    return 0;
  }
  if (positionals.length !== 1) {
    console.error(`vai ceremony: expected one subcommand\n\n${CEREMONY_USAGE}`);
    return 2;
  }
  try {
    const { code, out } = await run(positionals[0], values);
    console.log(JSON.stringify(out, null, 2));
    return code;
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`vai ceremony: ${e.message}\n\n${CEREMONY_USAGE}`);
      return 2;
    }
    console.error(`vai ceremony ${positionals[0]}: ${(e as Error).message}`);
    return 1;
  } finally {
    await releaseProver();
  }
}
