// Prints the imports that run back up between top-level folders and the import circles of the product code.
// Usage: npx tsx scripts/import-graph.ts   (exit 1 when there is either)
import { importCircles, relativeEdges, upwardEdges } from "./lib/import-graph.js";
import { ROOT as REPO_ROOT } from "../sdk/manifest/packages.js";

const edges = relativeEdges(REPO_ROOT);
const upward = upwardEdges(edges);
const circles = importCircles(edges);
console.log(`${edges.length} relative imports; ${upward.length} run back up between top-level folders:`);
for (const e of upward) console.log(`  ${e.from} -> ${e.to}`);
console.log(`${circles.length} import circles:`);
for (const c of circles) console.log(`  ${c.join(" <-> ")}`);
process.exitCode = upward.length + circles.length > 0 ? 1 : 0;
