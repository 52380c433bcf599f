// What the Session checks before a tool runs or an event is stored: a record that passes
// here is stored and encoded without error later, so a refusal always comes before
// anything is run, written or sent.
import { keccak256, toBytes, type Hex } from "viem";
import { canonicalJson, type Json } from "./canonical.js";
import { assertWellFormedAmount, callPath, callTargets, encodeSlots } from "./encoding.js";
import type { EncodingProfile } from "./profile.js";
import { recordObservations } from "./observations.js";
import {
  MAX_ACTION_ID_CHARS,
  parseRecord,
  type AuthorizationRecord,
  type CallRecord,
  type RecordBody,
  type TraceRecord,
} from "./records.js";
import { InvalidCallError, InvalidRecordError } from "./errors.js";

export const messageOf = (e: unknown): string => (e as Error)?.message ?? String(e);

/** The call as it would be recorded at seq, or InvalidCallError. */
export function checkCall(
  profile: EncodingProfile,
  seq: number,
  tool: string,
  args: { [k: string]: Json },
  actionId: string | undefined,
  rest: Partial<CallRecord> = {},
): CallRecord {
  const what = `call ${JSON.stringify(tool)}`;
  // hasOwn: "constructor" or "toString" must not pass for a tool through the prototype.
  if (typeof tool !== "string" || !Object.hasOwn(profile.tools, tool)) {
    throw new InvalidCallError(
      `${what}: the tool is not in the session's encoding profile (${Object.keys(profile.tools).join(", ")})`,
    );
  }
  if (typeof args !== "object" || args === null || Array.isArray(args))
    throw new InvalidCallError(`${what}: args must be a JSON object`);
  if (actionId !== undefined && (typeof actionId !== "string" || actionId.length === 0))
    throw new InvalidCallError(`${what}: actionId must be a non-empty string`);
  if (actionId !== undefined && actionId.length > MAX_ACTION_ID_CHARS)
    throw new InvalidCallError(
      `${what}: actionId is ${actionId.length} characters, over the ${MAX_ACTION_ID_CHARS}-character limit (MAX_ACTION_ID_CHARS)`,
    );
  try {
    const call = parseRecord({
      ...rest,
      kind: "call",
      seq,
      ts: 0,
      tool,
      args,
      ...(actionId !== undefined ? { actionId } : {}),
    }) as CallRecord;
    // Everything encodeSlots can refuse for a call, without its hashing (done later, off the call path).
    callTargets(call, profile);
    callPath(call, profile);
    assertWellFormedAmount(call, profile);
    // Its observed fact within the profile's bounds: the args' now, a result's too when append() brings one.
    recordObservations(call, profile);
    return call;
  } catch (e) {
    throw new InvalidCallError(`${what}: ${messageOf(e)}`, { cause: e });
  }
}

/** An authorization, grant or revoke as it would be recorded at seq (it must encode), or InvalidRecordError. */
export function checkEvent(profile: EncodingProfile, seq: number, body: RecordBody): TraceRecord {
  for (const key of ["actionId", "eventId"] as const) {
    const id = (body as { [k in typeof key]?: unknown })[key];
    if (typeof id === "string" && id.length > MAX_ACTION_ID_CHARS)
      throw new InvalidRecordError(
        `${body.kind}: ${key} is ${id.length} characters, over the ${MAX_ACTION_ID_CHARS}-character limit (MAX_ACTION_ID_CHARS)`,
      );
  }
  try {
    const record = parseRecord({ ...body, seq, ts: 0 });
    encodeSlots(record, profile);
    return record;
  } catch (e) {
    throw new InvalidRecordError(`${body.kind}: ${messageOf(e)}`, { cause: e });
  }
}

export interface AuthorizationInput {
  actionId: string;
  tool: string;
  /** The args the decision covers; or give their argsHash. */
  args?: { [k: string]: Json };
  /** keccak256 of the canonical JSON of the args, 0x-hex. */
  argsHash?: Hex;
  decision: AuthorizationRecord["decision"];
  authority: AuthorizationRecord["authority"];
  scope: AuthorizationRecord["scope"];
  policyId?: string;
  eventId?: string;
}

/** The authorization record's body, with argsHash computed as a call's args slot is. */
export function authorizationBody(a: AuthorizationInput): RecordBody {
  let argsHash = a.argsHash;
  if (a.args !== undefined) {
    let computed: Hex;
    try {
      computed = keccak256(toBytes(canonicalJson(a.args)));
    } catch (e) {
      throw new InvalidRecordError(`authorization ${a.actionId}: args: ${messageOf(e)}`, { cause: e });
    }
    if (argsHash !== undefined && argsHash.toLowerCase() !== computed)
      throw new InvalidRecordError(`authorization ${a.actionId}: args and argsHash disagree`);
    argsHash = computed;
  }
  if (argsHash === undefined)
    throw new InvalidRecordError(`authorization ${a.actionId}: give the args it covers, or their argsHash`);
  const { actionId, tool, decision, authority, scope, policyId, eventId } = a;
  return {
    kind: "authorization",
    ...{ actionId, tool, argsHash, decision, authority, scope },
    ...(policyId !== undefined ? { policyId } : {}),
    ...(eventId !== undefined ? { eventId } : {}),
  };
}
