// An INSECURE development Groth16 key, built directly from the r1cs and the public τ, α, β of the dev
// ptau (devptau.ts), with no ptau file at all. snarkjs' `zkey new` reads the Lagrange points of a
// prepared ptau and runs one multi-exponentiation per signal, which takes 6.5 minutes at 2^18 on two
// cores. Knowing τ, each of those points is [s]G for a scalar s = Σ coef · L_c(τ) that plain field
// arithmetic gives, so every point costs one fixed-base multiplication on the dev ptau's worker pool.
//
// The file is byte for byte what `snarkjs zkey new` writes from the INSECURE dev ptau of power
// `ptauPower` (by default the circuit's own power, the smallest ptau that fits): the same sections
// in the same order, δ = γ = 1 and no contribution, and the same circuit hash
// (test/setup/devzkey.test.ts compares them). It is deterministic: the same r1cs gives the same key on
// every machine. Anyone can forge proofs against it, which is why every name and log line says INSECURE.
import { createHash } from "node:crypto";
import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { FIELD_MODULUS as R } from "../../sdk/core/hash.js";
import { affineBytes, chooseWindow, type Group, type PointJob } from "./devptau-pool.js";
import { readR1csConstraints, readR1csHeader, requiredPower } from "./zkfiles.js";
import { CorruptFileError } from "./errors.js";
import { chunk, devToxicWaste, lagrangeScalars, le32, mod, pow, startDevCurve, type Run } from "./devptau.js";

/** Changes whenever the builder's output could change, so that cached dev keys are rebuilt. */
export const DEV_ZKEY_VERSION =
  "zkVAI INSECURE dev zkey v1 (= snarkjs 0.7 zkey new on the dev ptau of the circuit's power)";

export interface DevZkeyOptions {
  seed?: string;
  /** Power of the dev ptau whose `zkey new` output to reproduce; at least the circuit's power. */
  ptauPower?: number;
  onProgress?: (message: string) => void;
}

export interface DevZkeyResult {
  /** snarkjs' circuit hash (blake2b-512 of the key's points), as `zkey new` prints it. */
  csHash: string;
  power: number;
  constraints: number;
}

interface R1cs {
  nVars: number;
  nPublic: number;
  nConstraints: number;
  /** The constraints section: per constraint, three linear combinations of (u32 signal, 32-byte coef). */
  body: Buffer;
}

async function readR1cs(file: string): Promise<R1cs & { power: number }> {
  const header = await readR1csHeader(file);
  if (header.prime !== R)
    throw new CorruptFileError(`${file}: r1cs is not over the bn128 scalar field`, { details: { file } });
  return {
    nVars: header.nWires,
    nPublic: header.nOutputs + header.nPubInputs,
    nConstraints: header.nConstraints,
    body: await readR1csConstraints(file),
    power: requiredPower(header),
  };
}

function readFr(b: Buffer, at: number): bigint {
  const lo = b.readBigUInt64LE(at);
  if (
    b.readBigUInt64LE(at + 8) === 0n &&
    b.readBigUInt64LE(at + 16) === 0n &&
    b.readBigUInt64LE(at + 24) === 0n
  )
    return lo;
  return (
    lo |
    (b.readBigUInt64LE(at + 8) << 64n) |
    (b.readBigUInt64LE(at + 16) << 128n) |
    (b.readBigUInt64LE(at + 24) << 192n)
  );
}

/**
 * The scalars of every point: for signal s, A[s] = Σ_A coef·L_c(τ), B[s] = Σ_B coef·L_c(τ),
 * C[s] = Σ_A coef·β·L_c + Σ_B coef·α·L_c + Σ_C coef·L_c, plus snarkjs' row nConstraints + s for each
 * public signal (A and the β part of C get L_(n+s)); and the coefficient section of the key.
 */
function scalarsOf(r1cs: R1cs, L: bigint[], alpha: bigint, beta: bigint) {
  const { nVars, nPublic, nConstraints, body } = r1cs;
  const A = new Array<bigint>(nVars).fill(0n);
  const B = new Array<bigint>(nVars).fill(0n);
  const CA = new Array<bigint>(nVars).fill(0n);
  const CB = new Array<bigint>(nVars).fill(0n);
  const CC = new Array<bigint>(nVars).fill(0n);
  // Section 4 lists A and B entries as (matrix, constraint, signal, coef·R² mod r): snarkjs stores the
  // coefficient in Montgomery form twice over, R = 2^256 mod r.
  const R2 = ((2n ** 256n % R) * (2n ** 256n % R)) % R;
  // One buffer for the whole section, sized by a first pass: a Buffer per entry costs ~10 times its 44
  // bytes, several GB at a million constraints.
  let entries = nPublic + 1;
  for (let c = 0, at = 0; c < nConstraints; c++) {
    for (let matrix = 0; matrix < 3; matrix++) {
      const terms = body.readUInt32LE(at);
      if (matrix < 2) entries += terms;
      at += 4 + terms * 36;
    }
  }
  const coefs = Buffer.alloc(4 + entries * 44);
  coefs.writeUInt32LE(entries, 0);
  let written = 0;
  const coefEntry = (matrix: number, c: number, s: number, coef: bigint) => {
    const at = 4 + written++ * 44;
    coefs.writeUInt32LE(matrix, at);
    coefs.writeUInt32LE(c, at + 4);
    coefs.writeUInt32LE(s, at + 8);
    coefs.set(le32((coef * R2) % R), at + 12);
  };
  let pos = 0;
  for (let c = 0; c < nConstraints; c++) {
    for (let matrix = 0; matrix < 3; matrix++) {
      const terms = body.readUInt32LE(pos);
      pos += 4;
      for (let t = 0; t < terms; t++, pos += 36) {
        const s = body.readUInt32LE(pos);
        const coef = readFr(body, pos + 4);
        const term = coef * L[c];
        if (matrix === 0) {
          A[s] += term;
          CA[s] += term;
          coefEntry(0, c, s, coef);
        } else if (matrix === 1) {
          B[s] += term;
          CB[s] += term;
          coefEntry(1, c, s, coef);
        } else CC[s] += term;
      }
    }
  }
  if (pos !== body.length)
    throw new CorruptFileError(`r1cs constraints section: ${body.length - pos} stray bytes`);
  for (let s = 0; s <= nPublic; s++) {
    A[s] += L[nConstraints + s];
    CA[s] += L[nConstraints + s];
    coefEntry(0, nConstraints + s, s, 1n);
  }
  if (written !== entries)
    throw new CorruptFileError(`coefficient section: ${written} entries, expected ${entries}`);
  const C = CC.map((cc, s) => mod(beta * mod(CA[s]) + alpha * mod(CB[s]) + cc));
  return { A: A.map(mod), B: B.map(mod), C, coefs };
}

const packScalars = (xs: bigint[]): Uint8Array => {
  const out = new Uint8Array(xs.length * 32);
  xs.forEach((x, i) => out.set(le32(x), i * 32));
  return out;
};

export async function writeDevZkey(
  r1csFile: string,
  zkeyFile: string,
  options: DevZkeyOptions = {},
  workers?: number,
): Promise<DevZkeyResult> {
  const r1cs = await readR1cs(r1csFile);
  const { power } = r1cs;
  const ptauPower = options.ptauPower ?? power;
  if (!Number.isInteger(ptauPower) || ptauPower < power || ptauPower > 27)
    throw new RangeError(`dev zkey: ptau power must be ${power}..27 for this circuit, got ${ptauPower}`);
  const say = options.onProgress ?? (() => {});
  const { tau, alpha, beta } = devToxicWaste(options.seed);
  const { nVars, nPublic, nConstraints } = r1cs;
  const n = 2 ** power;
  const { curve, pool } = await startDevCurve(workers);
  try {
    const omega = (p: number) => curve.Fr.toObject(curve.Fr.w[p]);
    say(`INSECURE dev zkey: ${nConstraints} constraints, ${nVars} signals, domain 2^${power}: scalars`);
    const L = lagrangeScalars(tau, power, omega(power), false);
    const { A, B, C, coefs } = scalarsOf(r1cs, L, alpha, beta);

    // Layout, in snarkjs' order: sections 1, 2, 4, 3 (IC), 9 (H), 8 (C), 5 (A), 6 (B1), 7 (B2), 10.
    const sections: { id: number; offset: number; size: number }[] = [];
    let end = 12;
    const section = (id: number, size: number) => {
      sections.push({ id, offset: end + 12, size });
      end += 12 + size;
      return end - size;
    };
    const g1 = affineBytes("g1");
    const g2 = affineBytes("g2");
    section(1, 4);
    const header = section(2, 4 + 32 + 4 + 32 + 12 + 3 * g1 + 3 * g2);
    const coefSection = section(4, coefs.length);
    const ic = section(3, (nPublic + 1) * g1);
    const h = section(9, n * g1);
    const cPoints = section(8, (nVars - nPublic - 1) * g1);
    const aPoints = section(5, nVars * g1);
    const b1Points = section(6, nVars * g1);
    const b2Points = section(7, nVars * g2);
    const contributions = section(10, 64 + 4);
    const pointsAt = header + 4 + 32 + 4 + 32 + 12;

    const explicit = (group: Group, offset: number, scalars: bigint[]): PointJob[] => {
      const step = group === "g1" ? 8192 : 4096;
      const jobs: PointJob[] = [];
      for (let i = 0; i < scalars.length; i += step) {
        const part = scalars.slice(i, i + step);
        jobs.push({
          group,
          count: part.length,
          offset: offset + i * affineBytes(group),
          kind: "explicit",
          scalars: packScalars(part),
        });
      }
      return jobs;
    };
    // H: the odd points of the dev ptau's Lagrange domain 2n, which at the ptau's top power has its last
    // monomial dropped (devptau.ts), so the key depends on which ptau snarkjs would have read.
    const m = 2 * n;
    const mInv = pow(BigInt(m), R - 2n);
    const hRun: Run = {
      group: "g1",
      count: n,
      offset: h,
      kind: "lagrange",
      omega: omega(power),
      c: (mod(pow(tau, BigInt(m)) - 1n) * mInv) % R,
      tail: ptauPower === power ? (pow(tau, BigInt(m - 1)) * mInv) % R : 0n,
    };
    const hJobs = chunk(hRun, tau).map((job) =>
      job.kind === "lagrange"
        ? {
            ...job,
            omegaStart: le32((omega(power + 1) * pow(omega(power), BigInt((job.offset - h) / g1))) % R),
          }
        : job,
    );
    const fileJobs: Record<Group, PointJob[]> = {
      g1: [
        ...explicit("g1", pointsAt, [alpha, beta]),
        ...explicit("g1", pointsAt + 2 * g1 + 2 * g2, [1n]),
        ...explicit("g1", ic, C.slice(0, nPublic + 1)),
        ...hJobs,
        ...explicit("g1", cPoints, C.slice(nPublic + 1)),
        ...explicit("g1", aPoints, A),
        ...explicit("g1", b1Points, B),
      ],
      g2: [
        ...explicit("g2", pointsAt + 2 * g1, [beta, 1n]),
        ...explicit("g2", pointsAt + 3 * g1 + 2 * g2, [1n]),
        ...explicit("g2", b2Points, B),
      ],
    };
    // The circuit hash also covers [τ^i (τ^n − 1)]G1, i < n − 1, which the key does not store.
    const zPoints = new Uint8Array((n - 1) * g1);
    const zJobs = chunk(
      {
        group: "g1",
        count: n - 1,
        offset: 0,
        kind: "geometric",
        first: mod(pow(tau, BigInt(n)) - 1n),
        ratio: tau,
      },
      tau,
    );

    const fd = openSync(zkeyFile, "w+");
    try {
      const at = (offset: number, bytes: Uint8Array) => {
        for (let done = 0; done < bytes.length;)
          done += writeSync(fd, bytes, done, bytes.length - done, offset + done);
      };
      const u32 = (x: number) => Buffer.from(new Uint32Array([x]).buffer);
      at(0, Buffer.concat([Buffer.from("zkey"), u32(1), u32(sections.length)]));
      for (const s of sections) {
        const head = Buffer.alloc(12);
        head.writeUInt32LE(s.id, 0);
        head.writeBigUInt64LE(BigInt(s.size), 4);
        at(s.offset - 12, head);
      }
      at(sections[0].offset, u32(1)); // Groth16
      at(header, Buffer.concat([u32(32), le32(curve.q), u32(32), le32(R), u32(nVars), u32(nPublic), u32(n)]));
      at(coefSection, coefs);

      for (const group of ["g1", "g2"] as const) {
        const jobs = group === "g1" ? [...fileJobs.g1, ...zJobs] : fileJobs.g2;
        const total = jobs.reduce((sum, job) => sum + job.count, 0);
        const w = chooseWindow(total, pool.size);
        const label = `INSECURE dev zkey ${group.toUpperCase()}`;
        say(`${label}: ${total} points, ${w}-bit table, ${pool.size} threads`);
        await pool.loadTable(group, w);
        let done = 0;
        let reported = 0;
        const report = (count: number) => {
          done += count;
          if (done - reported >= total / 20 || done === total) {
            reported = done;
            say(`${label}: ${done}/${total} points`);
          }
        };
        await pool.run(fileJobs[group], (job, points) => {
          at(job.offset, points);
          report(job.count);
        });
        if (group === "g1")
          await pool.run(zJobs, (job, points) => {
            zPoints.set(points, job.offset);
            report(job.count);
          });
      }

      say("INSECURE dev zkey: circuit hash");
      const hasher = createHash("blake2b512");
      const readBack = (offset: number, bytes: number) => {
        const out = new Uint8Array(bytes);
        for (let got = 0; got < bytes;) {
          const r = readSync(fd, out, got, bytes - got, offset + got);
          if (r === 0) throw new CorruptFileError("dev zkey: short read");
          got += r;
        }
        return out;
      };
      const hashPoints = async (
        group: Group,
        read: (from: number, count: number) => Uint8Array,
        count: number,
      ) => {
        const G = group === "g1" ? curve.G1 : curve.G2;
        for (let i = 0; i < count; i += 65536)
          hasher.update(await G.batchLEMtoU(read(i, Math.min(65536, count - i))));
      };
      const fromFile = (group: Group, offset: number) => (from: number, count: number) =>
        readBack(offset + from * affineBytes(group), count * affineBytes(group));
      const lengthBE = (x: number) => Buffer.from([x >>> 24, (x >>> 16) & 255, (x >>> 8) & 255, x & 255]);
      await hashPoints("g1", fromFile("g1", pointsAt), 2); // α1, β1
      await hashPoints("g2", fromFile("g2", pointsAt + 2 * g1), 2); // β2, γ2
      await hashPoints("g1", fromFile("g1", pointsAt + 2 * g1 + 2 * g2), 1); // δ1
      await hashPoints("g2", fromFile("g2", pointsAt + 3 * g1 + 2 * g2), 1); // δ2
      const sectionPoints: [Group, number, number][] = [
        ["g1", ic, nPublic + 1],
        ["g1", -1, n - 1],
        ["g1", cPoints, nVars - nPublic - 1],
        ["g1", aPoints, nVars],
        ["g1", b1Points, nVars],
        ["g2", b2Points, nVars],
      ];
      for (const [group, offset, count] of sectionPoints) {
        hasher.update(lengthBE(count));
        const read =
          offset < 0
            ? (from: number, k: number) => zPoints.subarray(from * g1, (from + k) * g1)
            : fromFile(group, offset);
        await hashPoints(group, read, count);
      }
      const csHash = hasher.digest();
      at(contributions, Buffer.concat([csHash, u32(0)]));
      return { csHash: csHash.toString("hex"), power, constraints: nConstraints };
    } finally {
      closeSync(fd);
    }
  } finally {
    await pool.close();
  }
}
