// The provider's recorder: writes each record to the store before anything else
// (so an acknowledged record is never lost, P7), keeps the leaves, and commits
// prefix roots on-chain. Issue #5 extends it with checkpoint policy, retries and
// guard mode; this is the core those build on.
import { randomBytes } from "node:crypto";
import type { Address, Hex } from "viem";
import type { EscrowClient, TxResult } from "./chain.js";
import type { Json } from "./canonical.js";
import { assertWellFormedAmount, encodeRecord } from "./encoding.js";
import { FIELD_MODULUS } from "./hash.js";
import { commitmentRoot } from "./merkle.js";
import { parseProfile, type EncodingProfile } from "./profile.js";
import { parseRecord, type TraceRecord } from "./records.js";
import type { TraceStore } from "./store.js";

/** A record as the agent describes it; the recorder assigns seq and ts. */
export type RecordBody = TraceRecord extends infer R
  ? R extends TraceRecord
    ? Omit<R, "seq" | "ts">
    : never
  : never;

export function randomSecret(): bigint {
  return BigInt(`0x${randomBytes(32).toString("hex")}`) % FIELD_MODULUS;
}

export class Recorder {
  private readonly leaves: bigint[] = [];

  private constructor(
    readonly store: TraceStore,
    readonly escrow: EscrowClient,
    readonly sessionId: Hex,
    private readonly profile: EncodingProfile,
    private readonly secret: bigint,
  ) {}

  /** Creates the session in the store, then on-chain; a failure on-chain leaves no covered call run. */
  static async open(opts: {
    store: TraceStore;
    escrow: EscrowClient;
    sessionId: Hex;
    user: Address;
    profile: EncodingProfile;
    secret?: bigint;
  }): Promise<Recorder & { openTx: TxResult }> {
    const profile = parseProfile(opts.profile);
    const stored = opts.store.createSession({
      sessionId: opts.sessionId,
      secret: opts.secret ?? randomSecret(),
      profile,
      user: opts.user,
    });
    const openTx = await opts.escrow.openSession(opts.sessionId, opts.user, stored.profileHash);
    const recorder = new Recorder(opts.store, opts.escrow, opts.sessionId, profile, stored.secret);
    return Object.assign(recorder, { openTx });
  }

  get count(): number {
    return this.leaves.length;
  }

  /** Encodes (which validates against the profile), stores, and only then acknowledges. */
  append(body: RecordBody): TraceRecord {
    const record = parseRecord({ ...body, seq: this.leaves.length, ts: Date.now() });
    if (record.kind === "call") assertWellFormedAmount(record, this.profile);
    const { leaf } = encodeRecord(record, this.profile, this.secret);
    this.store.append(this.sessionId, record);
    this.leaves.push(leaf);
    return record;
  }

  /** Records a tool call around running it: the result, or the error, which is re-thrown. */
  async call<T extends Json>(
    tool: string,
    args: { [k: string]: Json },
    run: () => Promise<T>,
    actionId?: string,
  ): Promise<T> {
    try {
      const result = await run();
      this.append({ kind: "call", tool, args, result, ...(actionId ? { actionId } : {}) });
      return result;
    } catch (e) {
      this.append({
        kind: "call",
        tool,
        args,
        error: String((e as Error)?.message ?? e),
        ...(actionId ? { actionId } : {}),
      });
      throw e;
    }
  }

  root(): bigint {
    return commitmentRoot(this.leaves);
  }

  async checkpoint(): Promise<TxResult> {
    const n = this.leaves.length;
    const root = this.root();
    const tx = await this.escrow.checkpoint(this.sessionId, n, root);
    this.store.addCheckpoint(this.sessionId, { n, root, final: false });
    return tx;
  }

  async close(): Promise<TxResult> {
    const n = this.leaves.length;
    const root = this.root();
    const tx = await this.escrow.closeSession(this.sessionId, n, root);
    this.store.addCheckpoint(this.sessionId, { n, root, final: true });
    return tx;
  }
}
