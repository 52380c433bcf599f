// Measures the commitment levers of issue #6: the constraints per record of a Poseidon tree by arity
// (zkVAI adopted 16), and of the leaf hash by width (packing slots, or two records per leaf; not adopted).
//   npx tsx scripts/bench-levers.ts        # writes docs/bench/levers.json
// Each variant is a small circuit compiled with circom2 --O2 under build/lever; nothing here is part of
// the protocol (sdk/core/merkle.ts and circuits/gadgets/merkle.circom are the 16-ary tree in use).
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pkgBin, ROOT } from "../prover/artifacts/circuit-build.js";

const dir = path.join(ROOT, "build/lever");

function constraints(name: string, body: string): number {
  const file = path.join(dir, `${name}.circom`);
  writeFileSync(file, `pragma circom 2.1.0;\ninclude "circomlib/circuits/poseidon.circom";\n${body}\n`);
  const out = execFileSync(
    process.execPath,
    [
      pkgBin("circom2"),
      path.relative(ROOT, file),
      "--r1cs",
      "--O2",
      "-l",
      "node_modules",
      "-o",
      path.relative(ROOT, dir),
    ],
    { cwd: ROOT, encoding: "utf8" },
  );
  const m = /non-linear constraints: (\d+)/.exec(out);
  if (!m) throw new Error(`${name}: no constraint count in circom's output`);
  return Number(m[1]);
}

// A full K-ary tree over K^L leaves, one Poseidon(K) per internal node.
const tree = (K: number, L: number) => `
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
}
component main = KTree(${K}, ${L});`;

mkdirSync(dir, { recursive: true });
const arities = [
  { arity: 2, levels: 8 },
  { arity: 4, levels: 4 },
  { arity: 8, levels: 3 },
  { arity: 16, levels: 2 },
].map(({ arity, levels }) => {
  const leaves = arity ** levels;
  const total = constraints(`tree_${arity}_${levels}`, tree(arity, levels));
  const perRecord = Number((total / leaves).toFixed(1));
  console.log(`tree arity ${arity}, ${leaves} leaves: ${total} constraints, ${perRecord} per record`);
  return { arity, leaves, constraints: total, perRecord };
});
const widths = [6, 7, 8, 16].map((inputs) => {
  const total = constraints(
    `poseidon_${inputs}`,
    `template P() { signal input x[${inputs}]; signal output y <== Poseidon(${inputs})(x); }\ncomponent main = P();`,
  );
  console.log(`Poseidon(${inputs}): ${total} constraints`);
  return { inputs, constraints: total };
});
const out = path.join(ROOT, "docs/bench/levers.json");
writeFileSync(
  out,
  JSON.stringify(
    {
      command: "npx tsx scripts/bench-levers.ts",
      note: "circom2 --O2 non-linear constraints; the leaf today is Poseidon(8) (7 slots + salt) under a 16-ary tree",
      treeByArity: arities,
      poseidonByWidth: widths,
    },
    null,
    2,
  ) + "\n",
);
console.log(`wrote ${path.relative(process.cwd(), out)}`);
