// What each row of a trace is to AAP-6's circuit, mirroring Aap6RecordRoles
// (circuits/predicates/aap6_grounding.circom): whether its digest binds observations in the circuit's
// reading, and which of its observed values are queries (must be grounded) and grounds. From these, the
// rows' digest inputs and the StrictGrounding hints (./grounding.ts) that the whole-claim circuit takes.
import { KIND, SLOT, type EncodedRecord, type EncodedTrace } from "../../encoding.js";
import { OBS_SLOTS, STATUS } from "../../observations.js";
import type { CircuitInput } from "../../inputs.js";
import { groundingHints, type GroundingElement } from "./grounding.js";

/** θ as the circuit reads it: the padded tool hashes of circuitInputs (0 = padding). */
export interface Aap6CircuitTheta {
  consequentialTools: readonly string[];
  sourceTools: readonly string[];
}

const toolSet = (tools: readonly string[]) => new Set(tools.filter((t) => t !== "0"));

export interface Aap6Row {
  /** An executed call of a tool θ names: the circuit recomputes its digest from its observations. */
  observed: boolean;
  elements: GroundingElement[];
}

/** The roles of one row (undefined: a padding row past n, which has none). */
export function aap6Row(record: EncodedRecord | undefined, theta: Aap6CircuitTheta): Aap6Row {
  const none: Aap6Row = {
    observed: false,
    elements: Array.from({ length: OBS_SLOTS }, () => ({ value: 0n, ground: false, query: false })),
  };
  if (record === undefined) return none;
  const kind = record.slots[SLOT.kind]!;
  const tool = String(record.slots[SLOT.tool]);
  const consequential = toolSet(theta.consequentialTools).has(tool);
  const source = toolSet(theta.sourceTools).has(tool);
  const executed = kind === KIND.call;
  const observed = executed && (consequential || source);
  return {
    observed,
    elements: record.obs.map((value) => ({
      value,
      query: executed && consequential && value !== 0n,
      // Only an executed call grounds (its status and values are the ones its digest binds).
      ground: executed && record.status === STATUS.ok && source,
    })),
  };
}

/**
 * The whole-claim circuit's per-row inputs: status, observations and content (for a row the circuit does
 * not read as observed, its digest whole, as the content: RecordDigest then passes it through), and the
 * StrictGrounding hints, seeded with the final root as the circuit seeds them.
 */
export function aap6WitnessInputs(trace: EncodedTrace, theta: Aap6CircuitTheta): CircuitInput {
  const capacity = trace.slots.length;
  const rows = Array.from({ length: capacity }, (_, i) => ({
    record: trace.records[i],
    role: aap6Row(trace.records[i], theta),
  }));
  const hints = groundingHints(
    rows.flatMap((r) => r.role.elements),
    OBS_SLOTS,
    trace.finalRoot,
  );
  return {
    status: rows.map(({ record }) => String(record?.status ?? 0n)),
    obs: rows.map(({ record }) => (record?.obs ?? Array<bigint>(OBS_SLOTS).fill(0n)).map(String)),
    content: rows.map(({ record, role }) =>
      String(record === undefined ? 0n : role.observed ? record.content : record.digest),
    ),
    groundingPick: hints.pick.map(String),
    groundingGap: hints.gap.map(String),
    groundingMult: hints.mult.map(String),
    groundingAccInv: String(hints.accInv),
  };
}
