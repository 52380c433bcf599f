// The predicate registry, the instance table and the docs agree: adding a predicate is the steps README.md
// lists under "Adding a predicate", and a step left out fails here rather than somewhere downstream.
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readInstances, readInstanceTable } from "../../prover/artifacts/instances.js";
import { PUBLIC_INPUTS, SEGMENT_PUBLIC_INPUTS } from "../../sdk/core/claim.js";
import { PREDICATES } from "../../sdk/core/predicates/index.js";

const ids = Object.keys(PREDICATES);
const table = readInstanceTable();
const instances = readInstances();

describe("the predicate registry and the instance table", () => {
  it("has exactly one family per registered predicate, and no other family", () => {
    expect(Object.keys(table.families).sort()).toEqual([...ids].sort());
  });

  it.each(ids)("%s has at least one instance, and one in the test group", (id) => {
    const of = instances.filter((i) => i.predicate === id);
    expect(of.length).toBeGreaterThan(0);
    expect(
      of.some((i) => i.groups.includes("test")),
      `${id}: no test-group instance`,
    ).toBe(true);
  });

  it.each(Object.entries(table.families))("family %s: its source file defines its template", (_, family) => {
    expect(existsSync(family.source), family.source).toBe(true);
    const text = readFileSync(family.source, "utf8");
    expect(text, `${family.source} defines ${family.template}`).toMatch(
      new RegExp(`^\\s*template\\s+${family.template}\\s*\\(`, "m"),
    );
  });

  it.each(ids)("%s: every instance has the predicate's θ sizes and its kind's public inputs", (id) => {
    const caps = PREDICATES[id as keyof typeof PREDICATES].caps;
    for (const inst of instances.filter((i) => i.predicate === id)) {
      for (const [k, v] of Object.entries(caps)) expect(inst.params[k], `${inst.name}.${k}`).toBe(v);
      expect(inst.publicSignals).toEqual([
        ...(inst.kind === "segment" ? SEGMENT_PUBLIC_INPUTS : PUBLIC_INPUTS),
      ]);
    }
  });
});

describe("the docs", () => {
  const predicatesDoc = readFileSync("docs/PREDICATES.md", "utf8");
  it.each(ids)("docs/PREDICATES.md has a section for %s", (id) => {
    expect(predicatesDoc).toMatch(new RegExp(`^## ${id} `, "m"));
  });

  it('README.md lists the steps under "## Adding a predicate"', () => {
    const readme = readFileSync("README.md", "utf8");
    const at = readme.search(/^## Adding a predicate$/m);
    expect(at, "README.md has no '## Adding a predicate' section").toBeGreaterThanOrEqual(0);
    const section = readme.slice(at).split(/^## /m)[1]!;
    // The steps name the places this test and the loader check.
    for (const place of ["sdk/core/predicates/index.ts", "circuits/instances.json", "circuits/main/"])
      expect(section, place).toContain(place);
  });
});
