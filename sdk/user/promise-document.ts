// θ as the provider documents it (a promise document: predicate, params or theta, profile), checked against the
// promise on chain: same predicate, and θ hashes to the params hash registerPromise stored.
import { paramsHashOf } from "../core/predicates/index.js";
import { parsePromiseDocument } from "../core/promise-document.js";

export interface PromiseDocumentCheck {
  ok: boolean;
  line: string;
  /** θ as the document gives it (parsed), when it parses. */
  theta?: unknown;
}

export function checkPromiseDocument(
  text: string,
  onChain: { predicateId: number; paramsHash: bigint },
): PromiseDocumentCheck {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, line: `the promise document is not JSON (${(e as Error).message})` };
  }
  let doc;
  try {
    doc = parsePromiseDocument(raw, "the promise document", { profile: "optional" });
  } catch (e) {
    return { ok: false, line: (e as Error).message };
  }
  if (doc.predicate.code !== onChain.predicateId)
    return {
      ok: false,
      line: `the document is a ${doc.predicate.id} promise, but the promise on chain has predicate id ${onChain.predicateId}`,
    };
  const hash = paramsHashOf(doc.predicate, doc.theta);
  return hash === onChain.paramsHash
    ? {
        ok: true,
        line: `θ ${JSON.stringify(doc.theta)} hashes to the on-chain params hash`,
        theta: doc.theta,
      }
    : {
        ok: false,
        line: `θ in the document hashes to 0x${hash.toString(16)}, not the on-chain params hash 0x${onChain.paramsHash.toString(16)}`,
      };
}
