// Test harness for Circom: compile a small test circuit once (through the build's own compile-and-cache,
// prover/artifacts/compile.ts, keyed by content hash under build/compiled), compute witnesses, check
// R1CS satisfaction ourselves, and forge witnesses by editing a named signal.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { readR1cs } from "r1csfile";
import { expect } from "vitest";
import {
  compileMain,
  isBuildFresh,
  loadInstances,
  type MainSpec,
} from "../../prover/artifacts/circuit-build.js";
import { FIELD_MODULUS } from "../../sdk/core/hash.js";
import { firstBroken, type Constraint } from "./witness-solver.js";

const ROOT = process.cwd();
const require = createRequire(import.meta.url);

export interface TestCircuit {
  name: string;
  r1csPath: string;
  wasmPath: string;
  constraints: number;
  signals: Map<string, number>;
  /** The constraints, and the witness layout: nVars signals, of which 1..nInputs are main's inputs. */
  system: Constraint[];
  nVars: number;
  nInputs: number;
  witness(input: Record<string, unknown>): Promise<bigint[]>;
  /** The circuit's own witness code, run past failing `===` (it counts them). */
  lenientWitness(input: Record<string, unknown>): Promise<{ witness: bigint[]; failedAsserts: number }>;
  /** Index of the first unsatisfied constraint, or -1 when the witness satisfies all. */
  firstUnsatisfied(witness: bigint[]): number;
}

/**
 * What a test compiles: `template(args)` as main, over the given includes (paths from the repo root) and
 * an optional harness template in `body`, its gadgets hashing with the given Poseidon template.
 */
export type TestMain = Omit<MainSpec, "includes" | "origin"> & { includes?: readonly string[] };

/** Compiles `main` unless its content key is cached, and loads it. */
export async function compileTestCircuit(name: string, main: TestMain): Promise<TestCircuit> {
  const compiled = await compileMain({
    name,
    main: { origin: "test/helpers/circuit.ts", ...main, includes: main.includes ?? [] },
  });
  return load(name, compiled.dir);
}

/**
 * A circuit instance exactly as setup built it (build/circuits/<name>): its own r1cs, sym and
 * wasm, for the adversarial searches, which must judge witnesses by the build's constraints.
 */
export async function builtCircuit(name: string): Promise<TestCircuit> {
  const inst = (await loadInstances(join(ROOT, "circuits", "instances.json"))).find((i) => i.name === name);
  if (!inst) throw new Error(`no circuit instance ${name} in circuits/instances.json`);
  if (!(await isBuildFresh(inst)))
    throw new Error(
      `${name} is not built from today's sources: run \`npx tsx scripts/setup.ts --only ${name}\``,
    );
  return load(name, join(ROOT, "build", "circuits", name));
}

// The witness calculator circom writes is CommonJS; a copy named .cjs loads under "type": "module".
// The lenient copy reports a failing `===` instead of throwing, so a search can still read the
// challenges an adversary would see (circom skips the rest of the failing template's body).
function calculatorCopy(jsDir: string, lenient: boolean): string {
  const file = join(jsDir, lenient ? "witness_calculator.lenient.cjs" : "witness_calculator.cjs");
  if (!existsSync(file)) {
    let source = readFileSync(join(jsDir, "witness_calculator.js"), "utf8");
    if (lenient) {
      const thrower = "throw new Error(err + errStr);";
      if (!source.includes(thrower)) throw new Error(`unexpected witness calculator in ${jsDir}`);
      source = source.replace(
        thrower,
        "if (code == 4 && globalThis.__zkvaiLenient) { globalThis.__zkvaiLenient.failures++; errStr = ''; return; } " +
          thrower,
      );
    }
    const tmp = `${file}.tmp-${process.pid}`;
    writeFileSync(tmp, source);
    renameSync(tmp, file);
  }
  return file;
}

async function load(name: string, dir: string): Promise<TestCircuit> {
  const r1cs = await readR1cs(join(dir, `${name}.r1cs`), {
    loadConstraints: true,
    loadMap: false,
    getFieldFromPrime: undefined,
  });
  const system: Constraint[] = r1cs.constraints.map(
    (c: Record<string, unknown>[]) =>
      c.map((lc) => new Map(Object.entries(lc).map(([k, v]) => [Number(k), toBig(r1cs.F, v)]))) as never,
  );
  const signals = new Map<string, number>();
  for (const line of readFileSync(join(dir, `${name}.sym`), "utf8").split("\n")) {
    const [, varIdx, , label] = line.split(",");
    if (label && Number(varIdx) >= 0) signals.set(label.replace(/^main\./, ""), Number(varIdx));
  }
  const jsDir = join(dir, `${name}_js`);
  const wasm = readFileSync(join(jsDir, `${name}.wasm`));
  const calculator = await require(calculatorCopy(jsDir, false))(wasm);
  const lenientCalculator = await require(calculatorCopy(jsDir, true))(wasm);
  const g = globalThis as { __zkvaiLenient?: { failures: number } };
  return {
    name,
    r1csPath: join(dir, `${name}.r1cs`),
    wasmPath: join(jsDir, `${name}.wasm`),
    constraints: r1cs.nConstraints,
    signals,
    system,
    nVars: r1cs.nVars,
    nInputs: r1cs.nOutputs + r1cs.nPubInputs + r1cs.nPrvInputs,
    witness: (input) => calculator.calculateWitness(input, true) as Promise<bigint[]>,
    async lenientWitness(input) {
      const state = { failures: 0 };
      g.__zkvaiLenient = state;
      try {
        const witness = (await lenientCalculator.calculateWitness(input, true)) as bigint[];
        return { witness, failedAsserts: state.failures };
      } finally {
        delete g.__zkvaiLenient;
      }
    },
    firstUnsatisfied: (w) => firstBroken(system, w),
  };
}

// r1csfile hands coefficients back in the field's internal (Montgomery) form.
function toBig(F: { toObject(x: unknown): bigint }, v: unknown): bigint {
  return BigInt(F.toObject(v));
}

/** The value of a named signal in a witness. */
export function signalValue(circuit: TestCircuit, witness: bigint[], name: string): bigint {
  const idx = circuit.signals.get(name);
  if (idx === undefined) throw new Error(`no signal ${name} in ${circuit.name}`);
  return witness[idx]!;
}

/** A copy of `witness` with the named signal replaced. */
export function forge(circuit: TestCircuit, witness: bigint[], signal: string, value: bigint): bigint[] {
  const idx = circuit.signals.get(signal);
  if (idx === undefined)
    throw new Error(
      `no signal ${signal} in ${circuit.name}; known e.g. ${[...circuit.signals.keys()].slice(0, 8).join(", ")}`,
    );
  const forged = [...witness];
  forged[idx] = ((value % FIELD_MODULUS) + FIELD_MODULUS) % FIELD_MODULUS;
  return forged;
}

/** Names of the witness signals matching a pattern (anonymous components get generated names). */
export function signalsMatching(circuit: TestCircuit, pattern: RegExp): string[] {
  return [...circuit.signals.keys()].filter((s) => pattern.test(s));
}

/**
 * The circuit's verdict on an honest input: its witness computes `violated` as the
 * public outcome, and the same input claiming the other outcome has no witness.
 * Returns the witness for further checks.
 */
export async function expectVerdict(
  circuit: TestCircuit,
  input: Record<string, unknown>,
  violated: boolean,
): Promise<bigint[]> {
  const w = await circuit.witness(input);
  expect(w[circuit.signals.get("outcome")!], "circuit outcome").toBe(violated ? 1n : 0n);
  expect(
    await witnessFails(circuit, { ...input, outcome: violated ? "0" : "1" }),
    "flipped outcome has no witness",
  ).toBe(true);
  return w;
}

/** Asserts witness computation itself refuses the input (a failing `===` or assert). */
export async function witnessFails(circuit: TestCircuit, input: Record<string, unknown>): Promise<boolean> {
  try {
    await circuit.witness(input);
    return false;
  } catch {
    return true;
  }
}

/**
 * Whether the circuit accepts the input: a witness exists (no failed assert while computing it) and satisfies
 * every constraint of the circuit's own r1cs.
 */
export async function accepts(circuit: TestCircuit, input: Record<string, unknown>): Promise<boolean> {
  try {
    return circuit.firstUnsatisfied(await circuit.witness(input)) === -1;
  } catch {
    return false;
  }
}

/**
 * The time a wide property test (hundreds of witnesses) may take. Their cost is the work, not a wait, so the
 * limit only has to catch a hang: generous enough that a loaded 2-core machine never trips it.
 */
export const PROPERTY_TIMEOUT_MS = 900_000;

/**
 * How wide the random property tests run. `npm run test:full` (ZKVAI_FULL=1) draws 300 fresh cases each; `npm
 * test` draws 30 from a fixed seed, so its coverage thresholds (`atLeast`) hold deterministically and the
 * suite stays within its time budget.
 */
const WIDE = process.env.ZKVAI_FULL === "1";
export const PROPERTY_RUNS = WIDE ? 300 : 30;
export const propertyParams = (): { numRuns: number; seed?: number } =>
  WIDE ? { numRuns: PROPERTY_RUNS } : { numRuns: PROPERTY_RUNS, seed: 20_261_201 };
/** A property of its own width: `wide` runs under test:full, `quick` from the fixed seed in npm test. */
export const runsOf = (wide: number, quick: number): { numRuns: number; seed?: number } =>
  WIDE ? { numRuns: wide } : { numRuns: quick, seed: 20_261_201 };
/** A coverage threshold written for 300 runs, scaled to the runs this suite makes. */
export const atLeast = (per300: number): number => Math.floor((per300 * PROPERTY_RUNS) / 300);
