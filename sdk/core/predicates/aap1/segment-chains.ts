// The AAP-1 state a segment chain carries (circuits/segments/aap1_authorization.circom, with
// AuthorizationChainFrom of circuits/gadgets/segment_authorization.circom and SessionArgumentClose of
// segment_argument.circom): the single circuit's authorization chains, labelled over the whole session, with
// their two multiset products and distinctness certificate split over the segments and the challenges
// global. Mirrors the circuit's arithmetic exactly, so that the states at each boundary are the ones the
// circuit computes. Pure: no I/O.
import { SLOT } from "../../encoding.js";
import { FIELD_MODULUS as P, hashVector } from "../../hash.js";
import { addDistinctRoot, packLabels, rowWeights } from "../../multiset.js";
import { authorizationLabels, decodeAuthorizationRow, type ChainLabels } from "./chains.js";
import { SESSION_COUNT_BITS } from "../../segments.js";

/** The carried state: [packChain, weightChain, states, handOffs, roots, fractions, firsts, beta, zeta]. */
export interface AuthorizationCarry {
  packChain: bigint;
  weightChain: bigint;
  states: bigint;
  handOffs: bigint;
  roots: bigint;
  fractions: bigint;
  firsts: bigint;
  beta: bigint;
  zeta: bigint;
}

export function authorizationCarryVector(c: AuthorizationCarry): bigint[] {
  return [c.packChain, c.weightChain, c.states, c.handOffs, c.roots, c.fractions, c.firsts, c.beta, c.zeta];
}

export interface AuthorizationChain {
  /** The carried state at each boundary 0..m (index j: before segment j; m: after the last). */
  carries: AuthorizationCarry[];
  /** The session's labels and certificate weights, one per row of the m·S rows. */
  labels: ChainLabels;
  weight: bigint[];
}

/**
 * What a dishonest prover may choose in place of the honest values, for the tests that attack the argument:
 * chain labels, the challenges (each otherwise derived from the chain), and the certificate weights
 * (otherwise the partial-fraction weights of the rank-1 members' action ids). The circuit refuses every
 * chain built from any of them but the honest ones.
 */
export interface AuthorizationForgery {
  labels?: ChainLabels;
  beta?: bigint;
  zeta?: bigint;
  /** One per row of the m·S rows. */
  weight?: readonly bigint[];
}

const mod = (x: bigint) => ((x % P) + P) % P;

/** A row's label as the circuit packs it: rank − 1, last, pred (24 bits each but last), validIn, usedIn. */
function packedLabel(l: ChainLabels, i: number): bigint {
  const b = BigInt(SESSION_COUNT_BITS);
  return (
    l.rank[i]! -
    1n +
    (l.last[i]! << b) +
    (l.pred[i]! << (b + 1n)) +
    (l.validIn[i]! << (2n * b + 1n)) +
    (l.usedIn[i]! << (2n * b + 2n))
  );
}

/**
 * The chain's AAP-1 state over `slots` (m·S rows of the session, zero past n), cut every `size` rows: the
 * session's chain labels, beta = HashVector(finalRoot, packChain) over every segment's packed labels and
 * coversIn, the certificate weights for the rank-1 members' action ids, zeta = HashVector(beta,
 * weightChain), and each segment's running products and sums at zeta. `forged` values are used as given in
 * place of the honest ones (tests of forgeries only); two rank-1 members of one action id have no
 * partial-fraction certificate, and throw unless forged weights are given.
 */
export function authorizationChain(
  slots: readonly (readonly bigint[])[],
  n: number,
  size: number,
  finalRoot: bigint,
  gatedTools: readonly bigint[],
  accepted: readonly bigint[],
  forged: AuthorizationForgery = {},
): AuthorizationChain {
  if (slots.length % size !== 0)
    throw new RangeError(`${slots.length} rows are not whole segments of ${size}`);
  const m = slots.length / size;
  const rows = slots.map((s, i) => decodeAuthorizationRow(s, i < n, gatedTools, accepted));
  const labels = forged.labels ?? authorizationLabels(slots, n, finalRoot, gatedTools, accepted).labels;
  const { rank, last, pred, validIn, usedIn, coversIn } = labels;
  const member = rows.map((r) => r.auth || r.gated);
  const first = member.map((isMember, i) => isMember && rank[i] === 1n);

  const packChains = [0n];
  for (let j = 0; j < m; j++) {
    const at = Array.from({ length: size }, (_, i) => j * size + i);
    const packs = packLabels(
      at.map((i) => packedLabel(labels, i)),
      2 * SESSION_COUNT_BITS + 3,
    );
    packChains.push(hashVector([packChains[j]!, ...packs, ...at.map((i) => coversIn[i]!)]));
  }
  const beta = forged.beta ?? hashVector([finalRoot, packChains[m]!]);
  const weight = forged.weight ?? rowWeights(slots.map((s, i) => (first[i] ? s[SLOT.action]! : null)));
  const weightChains = [0n];
  for (let j = 0; j < m; j++)
    weightChains.push(hashVector([weightChains[j]!, ...weight.slice(j * size, (j + 1) * size)]));
  const zeta = forged.zeta ?? hashVector([beta, weightChains[m]!]);

  const beta2 = (beta * beta) % P;
  const b = BigInt(SESSION_COUNT_BITS);
  const tuple = (action: bigint, rankPart: bigint, at: bigint, valid: bigint, used: bigint, covers: bigint) =>
    mod(
      action + beta * (rankPart + (at << b) + (valid << (2n * b)) + (used << (2n * b + 1n))) + beta2 * covers,
    );
  let c: AuthorizationCarry = {
    packChain: 0n,
    weightChain: 0n,
    states: 1n,
    handOffs: 1n,
    roots: 1n,
    fractions: 0n,
    firsts: 0n,
    beta,
    zeta,
  };
  const carries = [c];
  for (let j = 0; j < m; j++) {
    let { states, handOffs, roots, fractions, firsts } = c;
    for (let i = j * size; i < (j + 1) * size; i++) {
      if (!member[i]) continue;
      const s = slots[i]!;
      const { auth, gated, valid } = rows[i]!;
      const action = s[SLOT.action]!;
      const covers = mod(s[SLOT.tool]! + finalRoot * s[SLOT.args]!);
      const validOut = auth ? (valid ? 1n : 0n) : validIn[i]!;
      const usedOut = gated ? 1n : usedIn[i]!;
      const coversOut = auth ? covers : coversIn[i]!;
      const out = tuple(action, rank[i]! - 1n, BigInt(i), validOut, usedOut, coversOut);
      states = (states * mod(zeta - out)) % P;
      if (last[i] === 1n) handOffs = (handOffs * mod(zeta - out)) % P;
      if (first[i]) {
        ({ roots, fractions, firsts } = addDistinctRoot(
          { roots, fractions, firsts },
          action,
          weight[i]!,
          zeta,
        ));
      } else {
        const into = tuple(action, rank[i]! - 2n, pred[i]!, validIn[i]!, usedIn[i]!, coversIn[i]!);
        handOffs = (handOffs * mod(zeta - into)) % P;
      }
    }
    c = {
      packChain: packChains[j + 1]!,
      weightChain: weightChains[j + 1]!,
      states,
      handOffs,
      roots,
      fractions,
      firsts,
      beta,
      zeta,
    };
    carries.push(c);
  }
  return { carries, labels, weight: [...weight] };
}
