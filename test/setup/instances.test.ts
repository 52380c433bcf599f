// The instance table: the Poseidon template is checked when the table loads, and it is part of the
// compile key, so switching an instance's template can never reuse the other template's r1cs.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { currentSourceHash, loadInstances, pathsFor, wrapperFor } from "../../prover/artifacts/circuit-build.js";

const TABLE = "circuits/instances.json";
const TOOLS = { circom2: "test", circomlib: "test" };

async function tableWith(poseidon: unknown): Promise<string> {
  const [first] = await loadInstances(TABLE);
  const file = path.join(mkdtempSync(path.join(tmpdir(), "zkvai-instances-")), "instances.json");
  writeFileSync(file, JSON.stringify({ instances: [{ ...first, poseidon }] }));
  return file;
}

describe("the instance table's Poseidon template", () => {
  it("loads the repository's table; aap2_n1024 is the lean one", async () => {
    const table = await loadInstances(TABLE);
    expect(table.filter((i) => i.poseidon === "lean").map((i) => i.name)).toEqual(["aap2_n1024"]);
  });

  it("refuses a template that is neither circomlib's nor the lean one, naming the entry", async () => {
    await expect(loadInstances(await tableWith("fast"))).rejects.toThrow(
      /instances\[0\]: poseidon must be "circomlib" or "lean", not "fast"/,
    );
    await expect(loadInstances(await tableWith(1))).rejects.toThrow(/poseidon must be/);
  });

  it("writes the choice into the main file setup compiles, and into its compile key", async () => {
    const [inst] = await loadInstances(TABLE);
    const p = pathsFor(inst!.name);
    expect(wrapperFor({ ...inst!, poseidon: undefined }, p)).toContain(
      "function leanPoseidon() { return 0; }",
    );
    expect(wrapperFor({ ...inst!, poseidon: "circomlib" }, p)).toContain(
      "function leanPoseidon() { return 0; }",
    );
    expect(wrapperFor({ ...inst!, poseidon: "lean" }, p)).toContain("function leanPoseidon() { return 1; }");
    const circomlib = await currentSourceHash({ ...inst!, poseidon: "circomlib" }, TOOLS);
    const lean = await currentSourceHash({ ...inst!, poseidon: "lean" }, TOOLS);
    expect(lean).not.toBe(circomlib);
  });
});
