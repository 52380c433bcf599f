// The predicate registry, the instance table and the docs agree: adding a predicate is the steps README.md
// lists under "Adding a predicate", and a step left out fails here rather than somewhere downstream.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readInstances, readInstanceTable } from "../../prover/artifacts/instances.js";
import { PUBLIC_INPUTS, SEGMENT_PUBLIC_INPUTS } from "../../sdk/core/claim.js";
import { PREDICATES } from "../../sdk/core/predicates/index.js";
import { parseRecord } from "../../sdk/core/records.js";
import { benchTraces } from "../../scripts/bench/traces.js";

const ids = Object.keys(PREDICATES);
/** A predicate's folder and file stem: "AAP-4" → "aap4". */
const stem = (id: string) => id.toLowerCase().replace("-", "");
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

describe("everything a predicate needs, named when it is missing", () => {
  it.each(ids)("%s: its folder holds θ, the definition, the segment carrier and the bench samples", (id) => {
    const dir = `sdk/core/predicates/${stem(id)}`;
    for (const file of ["theta.ts", "definition.ts", "segment.ts", "samples.ts"])
      expect(existsSync(`${dir}/${file}`), `${dir}/${file}`).toBe(true);
    const def = PREDICATES[id as keyof typeof PREDICATES];
    expect(typeof def.segment?.carry, `${id}: definition.segment (its carrier)`).toBe("function");
    expect(typeof def.samples?.fromFixtures, `${id}: definition.samples`).toBe("function");
  });

  it.each(ids)("%s: its samples stream records and its fixture traces hold their verdicts", (id) => {
    const def = PREDICATES[id as keyof typeof PREDICATES];
    for (const bad of [false, true])
      expect(() => parseRecord({ ...def.samples.stream.record(0, bad), seq: 0, ts: 0 })).not.toThrow();
    const traces = benchTraces(id, 8);
    expect([traces.satisfied.length, traces.violated.length]).toEqual([8, 8]);
  });

  it.each(ids)("%s: a segment circuit in its family and a segment instance to build", (id) => {
    const family = table.families[id]!;
    expect(family.segment, `${id}: instances.json family has no "segment"`).toBeDefined();
    expect(existsSync(family.segment!.source), family.segment!.source).toBe(true);
    expect(
      instances.some((i) => i.predicate === id && i.kind === "segment"),
      `${id}: no segment row in circuits/instances.json`,
    ).toBe(true);
  });

  it.each(ids)("%s: fixtures, a predicate test file and an adversarial sweep", (id) => {
    const fixtures = `fixtures/${id.toLowerCase()}`;
    expect(existsSync(fixtures) && readdirSync(fixtures).some((f) => f.endsWith(".json")), fixtures).toBe(
      true,
    );
    expect(
      readdirSync("test/predicates").some((f) => f.startsWith(`${stem(id)}-`)),
      `test/predicates/${stem(id)}-<name>.test.ts`,
    ).toBe(true);
    const sweep = `test/adversary/${stem(id)}.sweep.test.ts`;
    expect(existsSync(sweep), sweep).toBe(true);
    const swept = readFileSync(sweep, "utf8").match(/sweep\(\s*"([a-z0-9_]+)"/)?.[1];
    expect(instances.find((i) => i.name === swept)?.predicate, `${sweep} sweeps an instance of ${id}`).toBe(
      id,
    );
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
