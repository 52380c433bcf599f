// Copies of circuits/ with one fix taken out, for the adversarial tests' teeth checks: the same move
// must be accepted by the copy and refused by the build.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * A copy of circuits/ under build/adversary-src/<name> with `edits` applied (exact text,
 * each must match): the pre-fix circuits, reconstructed, for the teeth checks.
 */
export function circuitsCopy(name: string, edits: { file: string; remove: string }[]): string {
  const root = join("build", "adversary-src", name);
  const walk = (dir: string) => {
    for (const f of readdirSync(dir)) {
      const p = join(dir, f);
      if (statSync(p).isDirectory()) walk(p);
      else {
        let text = readFileSync(p, "utf8");
        for (const e of edits.filter((e) => e.file === p)) {
          if (!text.includes(e.remove))
            throw new Error(`${p} no longer contains ${JSON.stringify(e.remove)}`);
          text = text.replace(e.remove, "");
        }
        const out = join(root, p);
        mkdirSync(dirname(out), { recursive: true });
        writeFileSync(out, text);
      }
    }
  };
  walk("circuits");
  return root;
}

export const PIN = { file: "circuits/gadgets/multiset.circom", remove: "inv[i] * (1 - sel[i]) === 0;" };
export const ZERO_ROWS = {
  file: "circuits/gadgets/trace.circom",
  remove: "for (var j = 0; j < S; j++) (1 - active[i]) * slots[i][j] === 0;",
};
/** CheckpointHeads without the pin that keeps lookup hits off the rows past n. */
export const HITS_PAST_N = {
  file: "circuits/gadgets/checkpoints.circom",
  remove: "m[i] * (1 - active[i]) === 0;",
};
