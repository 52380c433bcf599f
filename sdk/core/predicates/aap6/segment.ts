// AAP-6's segment carrier: the grounding argument over the session (./segment-grounding.ts), and each
// segment's rows as the circuit reads observations (status, observed values, content: the circuit
// recomputes the digest, so prover/segments/witness.ts gives none for a predicate that reads observations).
import type { EncodedRecord } from "../../encoding.js";
import { hashVector } from "../../hash.js";
import type { CircuitInput } from "../../inputs.js";
import { OBS_SLOTS } from "../../observations.js";
import type { SegmentCarrier } from "../segment-carrier.js";
import { aap6Row, type Aap6CircuitTheta, type Aap6Row } from "./roles.js";
import {
  groundingCarryVector,
  groundingChain,
  type GroundingChain,
  type SessionGroundingLabels,
} from "./segment-grounding.js";

/** A row's status, observations and content as the circuit takes them (all 0 for a row past n). */
function observationInputs(record: EncodedRecord | undefined, role: Aap6Row) {
  if (record === undefined) return { status: "0", obs: Array<string>(OBS_SLOTS).fill("0"), content: "0" };
  return {
    status: String(record.status),
    obs: record.obs.map(String),
    // A row the circuit does not read as observed passes its whole digest through RecordDigest.
    content: String(role.observed ? record.content : record.digest),
  };
}

/**
 * The chain's carried states and every segment's inputs, with the labels (or challenges) to certify in
 * place of the honest ones: tests of forgeries (test/circuits/segment-grounding.test.ts) pass them.
 */
export function aap6SegmentChain(
  encoded: readonly EncodedRecord[],
  boundaries: readonly number[],
  size: number,
  thetaInputs: CircuitInput,
  finalRoot: bigint,
  forged: {
    labels?: SessionGroundingLabels;
    challenges?: { beta: bigint; z: bigint };
    claim?: { b?: bigint; V?: bigint };
  } = {},
): { states: bigint[]; inputs: CircuitInput[]; chain: GroundingChain } {
  const theta = thetaInputs as unknown as Aap6CircuitTheta;
  const m = boundaries.length - 1;
  const rows = Array.from({ length: m * size }, (_, i) => aap6Row(encoded[i], theta));
  const elements = rows.flatMap((r) => r.elements);
  const chain = groundingChain(
    elements,
    OBS_SLOTS,
    size,
    finalRoot,
    forged.labels,
    forged.challenges,
    forged.claim,
  );
  const perSegment = size * OBS_SLOTS;
  const slice = (labels: bigint[], j: number) =>
    labels.slice(j * perSegment, (j + 1) * perSegment).map(String);
  const inputs = Array.from({ length: m }, (_, j): CircuitInput => {
    const c = chain.carries[j]!;
    const observations = Array.from({ length: size }, (_, i) =>
      observationInputs(encoded[j * size + i], rows[j * size + i]!),
    );
    return {
      status: observations.map((o) => o.status),
      obs: observations.map((o) => o.obs),
      content: observations.map((o) => o.content),
      groundingB: String(c.b),
      groundingV: String(c.V),
      groundingPicked: String(c.picked),
      groundingRunning: String(c.running),
      groundingAcc: String(c.acc),
      groundingQuerySum: String(c.querySum),
      groundingGroundSum: String(c.groundSum),
      groundingPackChain: String(c.packChain),
      groundingBeta: String(c.beta),
      groundingZ: String(c.z),
      groundingPick: slice(chain.labels.pick, j),
      groundingGap: slice(chain.labels.gap, j),
      groundingMult: slice(chain.labels.mult, j),
      groundingAccInv: String(chain.accInv),
    };
  });
  return { states: chain.carries.map((c) => hashVector(groundingCarryVector(c))), inputs, chain };
}

/** AAP-6's strict grounding over the session (circuits/segments/aap6_grounding.circom). */
export const aap6Segment: SegmentCarrier = {
  carry({ encoded, boundaries, size, thetaInputs, finalRoot }) {
    const { states, inputs } = aap6SegmentChain(encoded, boundaries, size, thetaInputs, finalRoot);
    return { states, inputs };
  },
};
