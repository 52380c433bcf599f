// What binding every checkpoint costs, in constraints per record, under three encodings (circuits in
// scripts/bench/encodings/), at capacities N = 2^D with K = checkpointSlots(N) entries:
//   E1 prefix roots, checked in-circuit (protocol v1: v1/checkpoints.circom's CheckpointChain);
//   E2 chain heads, picked by a multiplexer per entry (mux_heads.circom);
//   E3 chain heads, by a log-derivative lookup under an in-circuit challenge (protocol v2's gadgets).
// Rows: each encoding's checkpoint part alone, over a tree or leaves given as input; the v1 and v2 leaf
// hashes; and the whole CommittedTrace, v1 (at the old cap K = 4 and at K) and v2. Counts go through the
// build's compile-and-cache (circom2 --O2, the lean Poseidon: same counts, 4x faster), so a rerun only
// compiles what changed. Writes docs/bench/checkpoint-encodings.json and prints a markdown table.
//
//   npx tsx scripts/bench/encodings.ts [--whole 4,6,8] [--only REGEX]
// --whole: the depths at which to compile the whole commitment (others are read from the cache if there);
// --only: compile only the rows whose label matches (the others, too, come from the cache or are left out).
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { compileMain, rel, ROOT, type MainSpec } from "../../prover/artifacts/circuit-build.js";
import { checkpointSlots } from "../../sdk/core/checkpoints.js";

const DEPTHS = [4, 6, 8, 10];
const DIR = "scripts/bench/encodings";
const V1 = `${DIR}/v1`;

interface Cell {
  encoding: string;
  part: "checkpoints" | "leaf" | "commitment";
  D?: number;
  K?: number;
  main: Omit<MainSpec, "poseidon" | "origin">;
  /** Compile it now, rather than only reading the cache. */
  compile: boolean;
}

const { values } = parseArgs({ options: { whole: { type: "string" }, only: { type: "string" } } });
const wholeDepths = (values.whole ?? "4,6,8").split(",").map(Number);
const only = values.only === undefined ? undefined : new RegExp(values.only);

const cells: Cell[] = [];
for (const D of DEPTHS) {
  const K = checkpointSlots(1 << D);
  const part = "checkpoints";
  const cell = (encoding: string, file: string, template: string) =>
    cells.push({ encoding, part, D, K, main: { includes: [file], template, args: [D, K] }, compile: true });
  cell("E1 prefix roots", `${DIR}/prefix_roots.circom`, "PrefixRootCheckpoints");
  cell("E2 mux heads", `${DIR}/mux_heads.circom`, "MuxHeads");
  cell("E3 lookup heads", `${DIR}/lookup_heads.circom`, "LookupHeads");
}
for (const [encoding, inputs] of [
  ["v1 leaf", 8],
  ["v2 leaf", 9],
] as const) {
  const main = { includes: ["circuits/gadgets/poseidon.circom"], template: "PoseidonHash", args: [inputs] };
  cells.push({ encoding, part: "leaf", main, compile: true });
}
for (const D of DEPTHS) {
  const K = checkpointSlots(1 << D);
  const compile = wholeDepths.includes(D);
  const whole = (encoding: string, source: string, k: number) =>
    cells.push({
      encoding,
      part: "commitment",
      D,
      K: k,
      main: { includes: [source], template: "CommittedTrace", args: [D, k] },
      compile,
    });
  whole("v1 CommittedTrace, K = 4", `${V1}/trace.circom`, 4);
  whole("v1 CommittedTrace", `${V1}/trace.circom`, K);
  whole("v2 CommittedTrace", "circuits/gadgets/trace.circom", K);
}

const label = (c: Cell) =>
  `${c.encoding.split(",")[0]!.replace(/\W+/g, "_")}_${c.main.template}_${(c.main.args ?? []).join("_")}`;

interface Row {
  encoding: string;
  part: Cell["part"];
  D?: number;
  N?: number;
  K?: number;
  constraints?: number;
  perCheckpoint?: number;
  perRecord?: number;
  compileSeconds?: number;
  command: string;
}

const rows: Row[] = [];
for (const c of cells) {
  const name = `enc_${label(c)}`;
  const compileNow = c.compile && (only === undefined || only.test(name));
  const main = { ...c.main, poseidon: "lean" as const, origin: "scripts/bench/encodings.ts" };
  const compiled = await compileMain({ name, main, countOnly: true, cacheOnly: !compileNow });
  const N = c.D === undefined ? 1 : 1 << c.D;
  const row: Row = {
    encoding: c.encoding,
    part: c.part,
    D: c.D,
    N: c.D === undefined ? undefined : N,
    K: c.K,
    constraints: compiled?.constraints,
    perCheckpoint:
      compiled && c.K && c.part === "checkpoints" ? Math.round(compiled.constraints / c.K) : undefined,
    perRecord: compiled ? Number((compiled.constraints / N).toFixed(1)) : undefined,
    compileSeconds: compiled?.compileSeconds,
    command: compiled
      ? `circom2 ${rel(compiled.wrapper)} --r1cs --O2 -l node_modules -l . (${c.main.template}(${(c.main.args ?? []).join(", ")}), leanPoseidon() = 1)`
      : "not compiled",
  };
  rows.push(row);
  console.error(`${name}: ${row.constraints ?? "not compiled"}${compiled?.cached ? " (cached)" : ""}`);
}

await writeFile(
  path.join(ROOT, "docs/bench/checkpoint-encodings.json"),
  JSON.stringify({ generated: new Date().toISOString(), rows }, null, 2) + "\n",
);

const n = (x: number | undefined) => (x === undefined ? "–" : x.toLocaleString("en-US"));
console.log("| encoding | part | D | N | K | constraints | per checkpoint | per record | compile s |");
console.log("|---|---|--:|--:|--:|--:|--:|--:|--:|");
for (const r of rows) {
  const cols = [r.encoding, r.part, r.D, r.N, r.K].map((x) => x ?? "–");
  const counts = [r.constraints, r.perCheckpoint, r.perRecord, r.compileSeconds].map(n);
  console.log(`| ${[...cols, ...counts].join(" | ")} |`);
}
const leaf = (e: string) => rows.find((r) => r.encoding === e)?.constraints;
const [v1Leaf, v2Leaf] = [leaf("v1 leaf"), leaf("v2 leaf")];
if (v1Leaf !== undefined && v2Leaf !== undefined)
  console.log(`\nv2 leaf (9 inputs) - v1 leaf (8 inputs): ${v2Leaf - v1Leaf} constraints per record`);
