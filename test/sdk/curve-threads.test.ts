// snarkjs' cached curve and its worker threads (sdk/chain/groth16.ts): every proof and verification of the
// product goes through withCurveThreads, and once none is running the pool is terminated, so a process that
// proved or verified exits by itself (the README's library snippet relies on it: test/docs/readme.test.ts).
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import * as snarkjs from "snarkjs";
import { describe, expect, it } from "vitest";
import { IDLE_RELEASE_MS, withCurveThreads } from "../../sdk/chain/groth16.js";
import { REPO_ROOT } from "../helpers/repo.js";

const cached = () => (globalThis as { curve_bn128?: unknown }).curve_bn128;

function sources(dir: string): string[] {
  return readdirSync(path.join(REPO_ROOT, dir)).flatMap((name) => {
    const rel = `${dir}/${name}`;
    if (statSync(path.join(REPO_ROOT, rel)).isDirectory()) return name === "generated" ? [] : sources(rel);
    return rel.endsWith(".ts") ? [rel] : [];
  });
}

describe("snarkjs' worker threads", () => {
  it("are used by the product only through withCurveThreads", () => {
    const direct = [...sources("sdk"), ...sources("prover"), ...sources("bin/cli")].filter((f) => {
      const text = readFileSync(path.join(REPO_ROOT, f), "utf8");
      return /snarkjs\.groth16\.(prove|fullProve|verify)\(/.test(text) && !/withCurveThreads\(/.test(text);
    });
    expect(direct).toEqual([]);
  });

  it("are terminated once no proof or verification is left, and built again for the next", async () => {
    const curveName = "bn128";
    const curves = (snarkjs as unknown as { curves: { getCurveFromName(n: string): Promise<unknown> } })
      .curves;
    const first = await withCurveThreads(() => curves.getCurveFromName(curveName));
    expect(cached()).toBe(first);
    // Overlapping work keeps it: the release waits for the last.
    let finish!: () => void;
    const long = withCurveThreads(() => new Promise<void>((r) => (finish = r)));
    await withCurveThreads(async () => undefined);
    await new Promise((r) => setTimeout(r, IDLE_RELEASE_MS + 500));
    expect(cached()).toBe(first);
    finish();
    await long;
    const deadline = Date.now() + 30_000;
    while (cached() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(cached()).toBeFalsy();
    const second = await withCurveThreads(() => curves.getCurveFromName(curveName));
    expect(second).not.toBe(first);
  }, 60_000);
});
