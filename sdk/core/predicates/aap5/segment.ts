// AAP-5's segment carrier: its running count and sum and its repeat argument over the session
// (./segment-repeats.ts).
import { KIND, SLOT } from "../../encoding.js";
import { hashVector } from "../../hash.js";
import type { SegmentCarrier } from "../segment-carrier.js";
import { limitsCarryVector, limitsChain, type LimitsRow } from "./segment-repeats.js";

/**
 * AAP-5's running count and sum and its repeat argument over the session (./segment-repeats.ts): the
 * carried state at each boundary, and each segment's labels and certificate weights.
 */
export const aap5Segment: SegmentCarrier = {
  carry({ encoded, boundaries, size, thetaInputs, finalRoot, overrides }) {
    const counted = new Set((thetaInputs.countedTools as string[]).filter((t) => t !== "0"));
    const summed = new Set((thetaInputs.summedTools as string[]).filter((t) => t !== "0"));
    const m = boundaries.length - 1;
    const rows: LimitsRow[] = Array.from({ length: m * size }, (_, i) => {
      const slots = encoded[i]?.slots;
      const live = slots !== undefined && slots[SLOT.kind] === KIND.call;
      if (!live)
        return {
          live: false,
          tool: slots?.[SLOT.tool] ?? 0n,
          args: slots?.[SLOT.args] ?? 0n,
          counted: false,
          amount: 0n,
        };
      const tool = slots[SLOT.tool]!;
      const aux = slots[SLOT.aux]!;
      return {
        live,
        tool,
        args: slots[SLOT.args]!,
        counted: counted.has(String(tool)),
        amount: summed.has(String(tool)) && aux !== 0n ? aux - 1n : 0n,
      };
    });
    const chain = limitsChain(rows, size, finalRoot, overrides.repeatLabels);
    return {
      states: chain.carries.map((c) => hashVector(limitsCarryVector(c))),
      inputs: chain.carries.slice(0, m + 1).map((c, j) => ({
        runCount: String(c.count),
        runSum: String(c.sum),
        packChain: String(c.packChain),
        weightChain: String(c.weightChain),
        labelled: String(c.labelled),
        steps: String(c.steps),
        roots: String(c.roots),
        fractions: String(c.fractions),
        firsts: String(c.firsts),
        repeatBeta: String(c.beta),
        repeatZeta: String(c.zeta),
        repeatCount: chain.count.slice(j * size, (j + 1) * size).map(String),
        repeatLast: chain.last.slice(j * size, (j + 1) * size).map(String),
        repeatWeight: chain.weight.slice(j * size, (j + 1) * size).map(String),
      })),
    };
  },
};
