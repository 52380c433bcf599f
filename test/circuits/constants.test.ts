import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { KIND, SLOT, SLOT_COUNT } from "../../sdk/core/encoding.js";
import { stringToField } from "../../sdk/core/hash.js";
import { PREFIX_DEPTH, ROOT_PREFIX_HASH } from "../../sdk/core/paths.js";

const text = readFileSync("circuits/gadgets/constants.circom", "utf8");
const constant = (name: string) => {
  const m = new RegExp(`function ${name}\\(\\) \\{ return (\\d+); \\}`).exec(text);
  if (!m) throw new Error(`constants.circom lacks ${name}`);
  return BigInt(m[1]);
};

it("slot indices, kinds, namespaces and path width equal the TS encoding", () => {
  for (const [name, index] of Object.entries(SLOT)) {
    const circom = {
      kind: "KIND",
      tool: "TOOL",
      args: "ARGS",
      action: "ACTION",
      aux: "AUX",
      target0: "TARGET0",
      target1: "TARGET1",
    }[name]!;
    expect(constant(`SLOT_${circom}`), name).toBe(BigInt(index));
  }
  expect(constant("SLOT_TARGET1") + 1n).toBe(BigInt(SLOT_COUNT));
  for (const [name, code] of Object.entries(KIND))
    expect(constant(`KIND_${name.toUpperCase()}`), name).toBe(code);
  expect(constant("NAMESPACE_RECIPIENT")).toBe(stringToField("recipient"));
  expect(constant("NAMESPACE_SCOPE")).toBe(stringToField("scope"));
  expect(constant("PREFIX_DEPTH")).toBe(BigInt(PREFIX_DEPTH));
  expect(constant("ROOT_PREFIX_HASH")).toBe(ROOT_PREFIX_HASH);
  expect(ROOT_PREFIX_HASH).toBe(stringToField("/"));
  expect(readFileSync("circuits/gadgets/leaf.circom", "utf8")).toContain(
    `function slotCount() { return ${SLOT_COUNT}; }`,
  );
});
