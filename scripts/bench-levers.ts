// Measures the commitment levers: the constraints per record of a Poseidon tree by arity
// (zkVAI adopted 16), and of the leaf hash by width: 9 is the v2 leaf (7 slots, the record's digest, the
// previous leaf), 8 the v1 leaf (7 slots + salt); fewer is packing slots, 16 two v1 records per leaf (not
// adopted).
//   npx tsx scripts/bench-levers.ts        # writes docs/bench/levers.json
// Each variant is a small circuit compiled, r1cs only, with circom2 --O2 through the build's compile
// cache (prover/artifacts/compile.ts); nothing here is part of the protocol (sdk/core/merkle.ts and
// circuits/gadgets/merkle.circom are the 16-ary tree in use).
import { writeFileSync } from "node:fs";
import path from "node:path";
import { compileMain, ROOT } from "../prover/artifacts/circuit-build.js";

const POSEIDON = "node_modules/circomlib/circuits/poseidon.circom";

async function constraints(
  name: string,
  body: string,
  template: string,
  args: number[] = [],
): Promise<number> {
  const main = { includes: [POSEIDON], body, template, args, origin: "scripts/bench-levers.ts" };
  return (await compileMain({ name, main, countOnly: true })).constraints;
}

// A full K-ary tree over K^L leaves, one Poseidon(K) per internal node.
const TREE = `
template KTree(K, L) {
    var N = 1;
    for (var i = 0; i < L; i++) N *= K;
    var internal = (N - 1) \\ (K - 1);
    signal input leaves[N];
    signal output root;
    signal nodes[N + internal];
    for (var i = 0; i < N; i++) nodes[i] <== leaves[i];
    component h[internal];
    var from = 0;
    var to = N;
    var w = N;
    var k = 0;
    for (var l = 0; l < L; l++) {
        w = w \\ K;
        for (var i = 0; i < w; i++) {
            h[k] = Poseidon(K);
            for (var j = 0; j < K; j++) h[k].inputs[j] <== nodes[from + K * i + j];
            nodes[to + i] <== h[k].out;
            k++;
        }
        from = to;
        to += w;
    }
    root <== nodes[N + internal - 1];
}`;

const arities: { arity: number; leaves: number; constraints: number; perRecord: number }[] = [];
for (const { arity, levels } of [
  { arity: 2, levels: 8 },
  { arity: 4, levels: 4 },
  { arity: 8, levels: 3 },
  { arity: 16, levels: 2 },
]) {
  const leaves = arity ** levels;
  const total = await constraints(`tree_${arity}_${levels}`, TREE, "KTree", [arity, levels]);
  const perRecord = Number((total / leaves).toFixed(1));
  console.log(`tree arity ${arity}, ${leaves} leaves: ${total} constraints, ${perRecord} per record`);
  arities.push({ arity, leaves, constraints: total, perRecord });
}
const widths: { inputs: number; constraints: number }[] = [];
for (const inputs of [6, 7, 8, 9, 16]) {
  const total = await constraints(
    `poseidon_${inputs}`,
    `template P() { signal input x[${inputs}]; signal output y <== Poseidon(${inputs})(x); }`,
    "P",
  );
  console.log(`Poseidon(${inputs}): ${total} constraints`);
  widths.push({ inputs, constraints: total });
}
const out = path.join(ROOT, "docs/bench/levers.json");
writeFileSync(
  out,
  JSON.stringify(
    {
      command: "npx tsx scripts/bench-levers.ts",
      note: "circom2 --O2 non-linear constraints; the leaf today (protocol v2) is Poseidon(9) (7 slots, the record's digest, the previous leaf) under a 16-ary tree",
      treeByArity: arities,
      poseidonByWidth: widths,
    },
    null,
    2,
  ) + "\n",
);
console.log(`wrote ${path.relative(process.cwd(), out)}`);
