// The distinctness certificate's weights (sdk/core/multiset.ts partialFractionWeights), the one step of a
// segmented AAP-1 or AAP-5 claim that runs over the whole session at once before any segment is proven:
// w_k = 1 / ∏_(j≠k) (u_k − u_j) over its k distinct action ids or calls. Times the product and remainder
// trees (sdk/core/field-poly.ts) against the direct products at each --sizes, the direct ones only up to
// --direct-up-to (they are quadratic), and prints a markdown table.
//
//   npx tsx scripts/bench/weights.ts [--sizes 1024,5000,20000,50000] [--direct-up-to 5000]
import os from "node:os";
import { parseArgs } from "node:util";
import { derivativeByProducts as direct } from "../../sdk/core/field-poly.js";
import { FIELD_MODULUS as P } from "../../sdk/core/hash.js";
import { partialFractionWeights } from "../../sdk/core/multiset.js";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "1024,5000,20000,50000" },
    "direct-up-to": { type: "string", default: "5000" },
  },
});
const sizes = values.sizes.split(",").map(Number);
const directUpTo = Number(values["direct-up-to"]);
if (sizes.some((k) => !Number.isInteger(k) || k < 1) || !Number.isInteger(directUpTo))
  throw new Error("--sizes takes positive integers, --direct-up-to an integer");

// Distinct pseudo-random field elements, as action-id and call keys look to the certificate.
function keys(count: number): bigint[] {
  let x = 7n;
  return Array.from({ length: count }, () => (x = (x * 0x9e3779b97f4a7c15n + 0x632be59bd9b4e019n) % P));
}

function seconds(run: () => unknown): number {
  const start = performance.now();
  run();
  return (performance.now() - start) / 1000;
}

// Warm the JIT on both paths first, or the first size pays for compiling them.
partialFractionWeights(keys(1100));
direct(keys(200));
console.log(`${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(1)} at the start`);
console.log("| distinct keys | trees | direct products |");
console.log("| ---: | ---: | ---: |");
for (const k of sizes) {
  const u = keys(k);
  const trees = seconds(() => partialFractionWeights(u));
  const products = k <= directUpTo ? `${seconds(() => direct(u)).toFixed(2)} s` : "—";
  console.log(`| ${k.toLocaleString("en-US")} | ${trees.toFixed(2)} s | ${products} |`);
}
console.log(`load average ${os.loadavg()[0]!.toFixed(1)} at the end`);
