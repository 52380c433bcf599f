// AAP-1's segment carrier: its authorization chains over the session (./segment-chains.ts).
import { SLOT_COUNT } from "../../encoding.js";
import { hashVector } from "../../hash.js";
import type { SegmentCarrier } from "../segment-carrier.js";
import { authorizationCarryVector, authorizationChain } from "./segment-chains.js";

/**
 * AAP-1's authorization chains over the session (./segment-chains.ts): the carried state at
 * each boundary, and each segment's chain labels and certificate weights.
 */
export const aap1Segment: SegmentCarrier = {
  carry({ encoded, boundaries, size, thetaInputs, finalRoot, overrides }) {
    const m = boundaries.length - 1;
    const zero = Array<bigint>(SLOT_COUNT).fill(0n);
    const slots = Array.from({ length: m * size }, (_, i) => encoded[i]?.slots ?? zero);
    const gatedTools = (thetaInputs.gatedTools as string[]).map(BigInt);
    const accepted = (thetaInputs.authorities as string[]).map(BigInt);
    const chain = authorizationChain(
      slots,
      encoded.length,
      size,
      finalRoot,
      gatedTools,
      accepted,
      overrides.chainForgery,
    );
    const rows = (xs: readonly bigint[], j: number) => xs.slice(j * size, (j + 1) * size).map(String);
    return {
      states: chain.carries.map((c) => hashVector(authorizationCarryVector(c))),
      inputs: chain.carries.map((c, j) => ({
        packChain: String(c.packChain),
        weightChain: String(c.weightChain),
        states: String(c.states),
        handOffs: String(c.handOffs),
        roots: String(c.roots),
        fractions: String(c.fractions),
        firsts: String(c.firsts),
        chainBeta: String(c.beta),
        chainZeta: String(c.zeta),
        chainRank: rows(chain.labels.rank, j),
        chainLast: rows(chain.labels.last, j),
        chainPred: rows(chain.labels.pred, j),
        chainValidIn: rows(chain.labels.validIn, j),
        chainUsedIn: rows(chain.labels.usedIn, j),
        chainCoversIn: rows(chain.labels.coversIn, j),
        chainWeight: rows(chain.weight, j),
      })),
    };
  },
};
