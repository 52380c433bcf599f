// The instance table: rows expand into whole entries from their family, the predicate's definition and
// the claim's public inputs; the Poseidon template is checked when the table loads, and it is part of the
// compile key, so switching an instance's template can never reuse the other template's r1cs.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  currentSourceHash,
  loadInstances,
  pathsFor,
  wrapperFor,
} from "../../prover/artifacts/circuit-build.js";
import { readInstanceTable } from "../../prover/artifacts/instances.js";

const TABLE = "circuits/instances.json";
const TOOLS = { circom2: "test", circomlib: "test" };

async function tableWith(poseidon: unknown): Promise<string> {
  const { families, instances } = readInstanceTable(TABLE);
  const file = path.join(mkdtempSync(path.join(tmpdir(), "zkvai-instances-")), "instances.json");
  writeFileSync(file, JSON.stringify({ families, instances: [{ ...instances[0], poseidon }] }));
  return file;
}

describe("the instance table's Poseidon template", () => {
  it("loads the repository's table, with its ten lean entries (large circuits, for circom2's 4 GB)", async () => {
    const table = await loadInstances(TABLE);
    expect(table.filter((i) => i.poseidon === "lean").map((i) => i.name)).toEqual([
      "aap7_n1024",
      "aap3_n1024",
      "aap4_n1024",
      "aap2_n1024",
      "aap5_n1024",
      "aap1_n1024",
      "aap6_n1024",
      "aap2_seg1024",
      "aap4_seg1024",
      "aap1_seg1024",
    ]);
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

describe("the instance table's rows", () => {
  const table = readInstanceTable(TABLE);
  const write = (instances: unknown[]) => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "zkvai-instances-")), "instances.json");
    writeFileSync(file, JSON.stringify({ families: table.families, instances }));
    return file;
  };

  it("expand into the whole entry: the family's template, checkpointSlots(2^depth), the definition's θ sizes, the claim's publics", async () => {
    const aap1 = (await loadInstances(TABLE)).find((i) => i.name === "aap1_n4")!;
    expect(aap1).toEqual({
      name: "aap1_n4",
      predicate: "AAP-1",
      source: "circuits/main/aap1_authorization.circom",
      template: "Aap1AuthorizationMain",
      params: { depth: 2, checkpoints: 2, tools: 4, authorities: 3 },
      args: [2, 2, 4],
      publicSignals: ["context", "finalRoot", "n", "checkpointAcc", "paramsHash", "outcome"],
      groups: ["test"],
    });
    const aap2 = (await loadInstances(TABLE)).find((i) => i.name === "aap2_n4")!;
    expect(aap2.params).toEqual({ depth: 2, checkpoints: 2, tools: 2, prefixes: 4, events: 4 });
    expect(aap2.args).toEqual([2, 2, 2, 4, 4]);
    const large = (await loadInstances(TABLE)).find((i) => i.params.depth === 10)!;
    expect(large.params.checkpoints).toBe(104); // ceil(1024 / 10) + 1: one per 10 records, plus the spare receipt
  });

  it("refuses a row or family that sets checkpoints by hand", async () => {
    const row = { name: "x", family: "AAP-1", depth: 2, groups: [], checkpoints: 4 };
    await expect(loadInstances(write([row]))).rejects.toThrow(/checkpoints is not set by hand/);
  });

  it("refuses an unknown family, an unknown parameter and a duplicate name, naming the row", async () => {
    const row = { name: "x_n4", family: "AAP-1", depth: 2, groups: [] };
    await expect(loadInstances(write([{ ...row, family: "AAP-9" }]))).rejects.toThrow(
      /instances\[0\]: family must be one of AAP-1/,
    );
    await expect(loadInstances(write([{ ...row, event: 8 }]))).rejects.toThrow(
      /instances\[0\]: unknown key event; parameters of AAP-1: depth, checkpoints, tools, authorities/,
    );
    await expect(loadInstances(write([{ ...row, depth: -1 }]))).rejects.toThrow(
      /depth must be a non-negative/,
    );
    await expect(loadInstances(write([row, row]))).rejects.toThrow(/instances\[1\]: duplicate name x_n4/);
  });
});
