import { describe, expect, it } from "vitest";
import {
  FIELD_MODULUS,
  hashVector,
  keccakToField,
  reduceBytes32,
  stringToField,
} from "../../sdk/core/hash.js";
import {
  assertWellFormedAmount,
  chainHead,
  encodeSlots,
  encodeTrace,
  EncodingError,
  KIND,
  MALFORMED_TARGET_PREFIX,
  recordContent,
  recordSalt,
  SLOT,
} from "../../sdk/core/encoding.js";
import { commitmentRoot, treeHeight, zeroHash } from "../../sdk/core/merkle.js";
import { checkOpening, openRecord } from "../../sdk/core/opening.js";
import { parseProfile, profileHash, type EncodingProfile } from "../../sdk/core/profile.js";
import { RecordError, parseRecord, type CallRecord, type TraceRecord } from "../../sdk/core/records.js";
import { poseidon } from "../../sdk/core/hash.js";

const profile: EncodingProfile = {
  version: 1,
  tools: {
    send_email: { target: "to" },
    pay: { target: "merchant", amount: { key: "amount", decimals: 2 } },
    noop: {},
  },
};
const call = (tool: string, args: CallRecord["args"], extra: Partial<CallRecord> = {}): CallRecord => ({
  kind: "call",
  seq: 0,
  ts: 0,
  tool,
  args,
  ...extra,
});

describe("field reductions", () => {
  it("reduces 32-byte values by dropping 3 bits, below r at the top edge", () => {
    expect(reduceBytes32(`0x${"ff".repeat(32)}`)).toBe((1n << 253n) - 1n);
    expect((1n << 253n) - 1n < FIELD_MODULUS).toBe(true);
    expect(reduceBytes32(`0x${"00".repeat(32)}`)).toBe(0n);
    expect(reduceBytes32(`0x${"00".repeat(31)}08`)).toBe(1n);
    expect(reduceBytes32(`0x${"00".repeat(31)}07`)).toBe(0n);
    expect(() => reduceBytes32("0x1234")).toThrow(/32 bytes/);
  });

  it("hashes strings with their length, so padding cannot collide", () => {
    expect(stringToField("")).not.toBe(stringToField("\u0000"));
    expect(stringToField("a".repeat(31))).not.toBe(stringToField("a".repeat(32)));
    expect(stringToField("x")).not.toBe(0n);
    expect(keccakToField("abc")).toBeLessThan(FIELD_MODULUS);
  });

  it("chains hashVector past 16 elements", () => {
    const v = Array.from({ length: 17 }, (_, i) => BigInt(i));
    expect(hashVector(v)).toBe(poseidon([poseidon(v.slice(0, 16)), 16n]));
  });
});

describe("encodeSlots", () => {
  it("lays out a call: kind, tool, args hash, action, amount + 1, two targets", () => {
    const slots = encodeSlots(call("pay", { merchant: "acme", amount: 12.5 }, { actionId: "a1" }), profile);
    expect(slots[SLOT.kind]).toBe(KIND.call);
    expect(slots[SLOT.tool]).toBe(stringToField("pay"));
    expect(slots[SLOT.action]).toBe(stringToField("a1"));
    expect(slots[SLOT.aux]).toBe(1251n);
    expect(slots[SLOT.target0]).toBe(stringToField("acme"));
    expect(slots[SLOT.target1]).toBe(0n);
  });

  it("marks blocked calls, skips null targets and keeps malformed ones (fail-closed)", () => {
    expect(encodeSlots(call("noop", {}, { blocked: true }), profile)[SLOT.kind]).toBe(KIND.blocked);
    const slots = encodeSlots(call("send_email", { to: [null, 7] }), profile);
    expect(slots[SLOT.target0]).toBe(stringToField(`${MALFORMED_TARGET_PREFIX}7`));
    expect(encodeSlots(call("send_email", { to: null }), profile)[SLOT.target0]).toBe(0n);
  });

  it("refuses unknown tools, too many targets and inexact amounts with clear errors", () => {
    expect(() => encodeSlots(call("rm_rf", {}), profile)).toThrow(/not in the encoding profile/);
    expect(() => encodeSlots(call("send_email", { to: ["a", "b", "c"] }), profile)).toThrow(EncodingError);
    // An inexact amount is encoded as absent, so amount predicates fail closed on it.
    expect(encodeSlots(call("pay", { merchant: "m", amount: 0.001 }), profile)[SLOT.aux]).toBe(0n);
    expect(() => assertWellFormedAmount(call("pay", { merchant: "m", amount: 0.001 }), profile)).toThrow(
      /decimal places/,
    );
    expect(() =>
      assertWellFormedAmount(call("pay", { merchant: "m", amount: "200000000000000000" }), profile),
    ).toThrow(/2\^64/);
  });

  it("hashes the same args the same whatever their key order", () => {
    const a = encodeSlots(call("noop", { x: 1, y: [1, 2] }), profile);
    const b = encodeSlots(call("noop", { y: [1, 2], x: 1 }), profile);
    expect(a[SLOT.args]).toBe(b[SLOT.args]);
  });
});

describe("records and profiles", () => {
  it("rejects malformed records naming the field", () => {
    expect(() => parseRecord({ kind: "call", seq: 0, ts: 0, tool: "x", args: [] })).toThrow(
      /args must be a JSON object/,
    );
    expect(() => parseRecord({ kind: "call", seq: -1, ts: 0, tool: "x", args: {} })).toThrow(RecordError);
    expect(() => parseRecord({ kind: "call", seq: 0, ts: 0, tool: "x", args: { a: NaN } })).toThrow(/NaN/);
    expect(() =>
      parseRecord({
        kind: "authorization",
        seq: 0,
        ts: 0,
        actionId: "a",
        tool: "t",
        argsHash: "0x12",
        decision: "allow",
        authority: "human",
        scope: "once",
      }),
    ).toThrow(/argsHash/);
    expect(() => parseRecord({ kind: "grant", seq: 0, ts: 0, namespace: "planet", value: "x" })).toThrow(
      /namespace/,
    );
  });

  it("profile hash depends on content, not key order", () => {
    const reordered = parseProfile({
      tools: { noop: {}, pay: profile.tools.pay, send_email: { target: "to" } },
      version: 1,
    });
    expect(profileHash(reordered)).toBe(profileHash(profile));
    expect(profileHash({ ...profile, tools: { ...profile.tools, send_email: { target: "cc" } } })).not.toBe(
      profileHash(profile),
    );
    expect(() => parseProfile({ version: 2, tools: {} })).toThrow(/version/);
  });
});

describe("commitment", () => {
  const leaves = Array.from({ length: 20 }, (_, i) => poseidon([BigInt(i + 1)]));
  const pad = (xs: bigint[], z: bigint) => [...xs, ...Array<bigint>(16 - xs.length).fill(z)];
  it("is the root of the smallest 16-ary tree, independent of capacity", () => {
    expect(commitmentRoot([])).toBe(0n);
    expect(commitmentRoot(leaves.slice(0, 1))).toBe(leaves[0]);
    expect(commitmentRoot(leaves.slice(0, 2))).toBe(poseidon(pad(leaves.slice(0, 2), 0n)));
    expect(commitmentRoot(leaves.slice(0, 16))).toBe(poseidon(leaves.slice(0, 16)));
    const l17 = poseidon(pad([poseidon(leaves.slice(0, 16)), poseidon(pad([leaves[16]], 0n))], zeroHash(1)));
    expect(commitmentRoot(leaves.slice(0, 17))).toBe(l17);
    expect([0, 1, 2, 16, 17, 256, 257].map(treeHeight)).toEqual([0, 0, 1, 1, 2, 2, 3]);
    expect(zeroHash(1)).toBe(poseidon(Array<bigint>(16).fill(0n)));
  });
});

describe("record commitment v2", () => {
  const PROFILE_V2 = { version: 1, tools: { send_email: { target: "to" }, read_inbox: {} } } as const;
  const SECRET = 0xbeefn;
  const trace: TraceRecord[] = [
    { kind: "call", seq: 0, ts: 10, tool: "read_inbox", args: {}, result: { mails: ["hi"] } },
    { kind: "call", seq: 1, ts: 11, tool: "send_email", args: { to: "bob@x" }, result: "sent" },
    { kind: "call", seq: 2, ts: 12, tool: "read_inbox", args: {}, error: "timeout" },
  ];
  const leaves = (records: readonly TraceRecord[]) =>
    encodeTrace(records, PROFILE_V2, SECRET).map((r) => r.leaf);

  it("chains each leaf to the one before: leaf_i = Poseidon(slots_i, digest_i, leaf_{i-1})", () => {
    const encoded = encodeTrace(trace, PROFILE_V2, SECRET);
    let prev = 0n;
    for (const [i, r] of encoded.entries()) {
      expect(r.content).toBe(recordContent(trace[i]!, recordSalt(SECRET, i)));
      // v3: a profile that observes nothing leaves every digest as v2's, the content (status still reported).
      expect(r.status).toBe(i === 2 ? 2n : 1n);
      expect(r.observed).toBe(false);
      expect(r.digest).toBe(r.content);
      expect(r.leaf).toBe(poseidon([...r.slots, r.digest, prev]));
      prev = r.leaf;
    }
    expect(chainHead(leaves(trace), 2)).toBe(encoded[1]!.leaf);
  });

  it("binds results, errors, ts and metadata, which no slot reads", () => {
    const base = leaves(trace);
    const edits: TraceRecord[] = [
      { ...trace[0]!, result: { mails: ["bye"] } } as TraceRecord,
      { ...trace[0]!, ts: 99 },
      { ...trace[0]!, actionId: "a1" } as TraceRecord,
    ];
    for (const edited of edits) {
      const changed = leaves([edited, trace[1]!, trace[2]!]);
      expect(encodeSlots(edited, PROFILE_V2).slice(0, 3)).toEqual(
        encodeSlots(trace[0]!, PROFILE_V2).slice(0, 3),
      );
      // The edit moves every leaf from its own on: each later chain head commits to it.
      for (let i = 0; i < 3; i++) expect(changed[i], `leaf ${i}`).not.toBe(base[i]);
    }
    const laterEdit = leaves([trace[0]!, trace[1]!, { ...trace[2]!, error: "other" } as TraceRecord]);
    expect(laterEdit.slice(0, 2)).toEqual(base.slice(0, 2));
    expect(laterEdit[2]).not.toBe(base[2]);
  });

  it("the digest is salted: the same record in another session or position digests differently", () => {
    expect(recordContent(trace[0]!, 1n)).not.toBe(recordContent(trace[0]!, 2n));
  });

  it("refuses a trace with a gap in seq, and a chain head out of range", () => {
    expect(() => encodeTrace([trace[0]!, trace[2]!], PROFILE_V2, SECRET)).toThrow(EncodingError);
    expect(() => chainHead(leaves(trace), 0)).toThrow(RangeError);
    expect(() => chainHead(leaves(trace), 4)).toThrow(RangeError);
  });
});

describe("record openings", () => {
  const PROFILE_O = { version: 1, tools: { read_inbox: {} } } as const;
  const records: TraceRecord[] = Array.from({ length: 20 }, (_, seq) => ({
    kind: "call",
    seq,
    ts: seq,
    tool: "read_inbox",
    args: {},
    result: `mail ${seq}`,
  }));
  const root = commitmentRoot(encodeTrace(records, PROFILE_O, 5n).map((r) => r.leaf));

  it("open any record against the final root (two levels at 20 records)", () => {
    for (const seq of [0, 1, 15, 16, 19]) {
      const opening = openRecord(records, PROFILE_O, 5n, seq);
      expect(opening.path).toHaveLength(2);
      expect(checkOpening(opening, PROFILE_O, root), `seq ${seq}`).toBe(true);
    }
  });

  it("fail for a rewritten result, another position, another root or a bad path", () => {
    const opening = openRecord(records, PROFILE_O, 5n, 7);
    expect(
      checkOpening(
        { ...opening, record: { ...opening.record, result: "edited" } as TraceRecord },
        PROFILE_O,
        root,
      ),
    ).toBe(false);
    expect(checkOpening({ ...opening, record: { ...opening.record, seq: 8 } }, PROFILE_O, root)).toBe(false);
    expect(checkOpening(opening, PROFILE_O, root + 1n)).toBe(false);
    expect(checkOpening({ ...opening, prev: opening.prev + 1n }, PROFILE_O, root)).toBe(false);
    expect(checkOpening({ ...opening, path: opening.path.slice(1) }, PROFILE_O, root)).toBe(false);
  });
});
