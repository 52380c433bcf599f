// Which Poseidon template a compiled circuit uses (circuits/gadgets/poseidon.circom): the main file
// (main-source.ts) defines leanPoseidon(), and every gadget's PoseidonHash reads it. Both templates compute
// the same hash with the same constraint count; "lean" trades a ~14 % larger key for 4x less circom2 memory.
export const POSEIDON_TEMPLATES = ["circomlib", "lean"] as const;
export type PoseidonTemplate = (typeof POSEIDON_TEMPLATES)[number];

export function isPoseidonTemplate(value: unknown): value is PoseidonTemplate {
  return POSEIDON_TEMPLATES.includes(value as PoseidonTemplate);
}

/** The circom line a main file carries to pick `template`. */
export function poseidonChoice(template: PoseidonTemplate = "circomlib"): string {
  return `function leanPoseidon() { return ${template === "lean" ? 1 : 0}; }`;
}
