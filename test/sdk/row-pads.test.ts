// Row pads (sdk/core/predicates/aap7/pads.ts, issue 37): a session under a domain fact profile closes with the
// blocked pad calls its rows need, so the circuit the escrow picks by record count holds every row. Checked here:
// the count, that pads change no verdict, that every τ³ and AAP-7 fixture (and a user turn typing 200 ids) fits
// the smallest circuit of its padded record count, and that Session.close appends them under the final root.
// Proving a padded trace is test/circuits/rule-rows-review.test.ts part E (aap7_n16, test:full).
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { encodeTrace } from "../../sdk/core/encoding.js";
import { importTauRecords } from "../../sdk/core/import-tau.js";
import { PAD_TOOL, padsNeeded, rowCount, withRowPads } from "../../sdk/core/predicates/aap7/pads.js";
import { aap7Rows } from "../../sdk/core/predicates/aap7/rows.js";
import { PREDICATES } from "../../sdk/core/predicates/index.js";
import type { EncodingProfile } from "../../sdk/core/profile.js";
import type { TraceRecord } from "../../sdk/core/records.js";
import { Session } from "../../sdk/provider/session.js";
import { memoryLogger } from "../../sdk/provider/log.js";
import { predicateFixtures } from "../helpers/fixtures.js";
import { freshId, sessionEnv, storedRoot, type SessionEnv } from "./session-fixture.js";

const AIRLINE: EncodingProfile = { version: 1, facts: "tau_airline", tools: {} };
const profileFor = (
  records: readonly TraceRecord[],
  facts: "tau_airline" | "tau_retail",
): EncodingProfile => ({
  version: 1,
  facts,
  tools: Object.fromEntries(records.flatMap((r) => ("tool" in r ? [[r.tool, {}]] : []))),
});
const capacityFor = (n: number) => 2 ** Math.max(3, Math.ceil(Math.log2(n)));

/** A user turn typing `ids` airline user ids: one mention row each, past its primary row. */
const userTurn = (seq: number, ids: number): TraceRecord => ({
  kind: "call",
  seq,
  ts: 1_700_000_000_000,
  tool: "tau.user",
  args: {},
  result: Array.from({ length: ids }, (_, i) => `mei_kovacs_${8000 + i}`).join(" "),
});

/** The fixture's records padded, encoded and laid into the smallest circuit of their count: throws past it. */
function fitsSmallestCircuit(records: readonly TraceRecord[], profile: EncodingProfile) {
  const closed = withRowPads(records, profile);
  const capacity = capacityFor(closed.length);
  aap7Rows(encodeTrace(closed, profile, 7n), capacity);
  return { closed, capacity };
}

describe("the pad count", () => {
  it("is rows − 2·records, never negative; a user turn gives a row per typed id past its own", () => {
    expect(padsNeeded(16, 8)).toBe(0);
    expect(padsNeeded(17, 8)).toBe(1);
    expect(padsNeeded(3, 8)).toBe(0);
    expect(rowCount(userTurn(0, 16), AIRLINE)).toBe(17);
    expect(rowCount({ ...userTurn(0, 16), blocked: true } as TraceRecord, AIRLINE)).toBe(1);
  });

  it("pads are blocked calls of vai.rows after the last record, numbered on; none without a fact profile", () => {
    const records = [userTurn(0, 9)];
    const closed = withRowPads(records, AIRLINE);
    expect(closed.slice(1)).toEqual(
      Array.from({ length: 8 }, (_, k) => ({
        kind: "call",
        seq: 1 + k,
        ts: records[0]!.ts,
        tool: PAD_TOOL,
        args: { pad: k },
        blocked: true,
      })),
    );
    // Padding a padded trace adds nothing: its rows are twice its records.
    expect(withRowPads(closed, AIRLINE)).toEqual(closed);
    expect(withRowPads(records, { version: 1, tools: {} })).toEqual(records);
  });
});

describe("a padded trace", () => {
  const fixtures = predicateFixtures("AAP-7");

  it("has the verdict and seq of the unpadded one, for every AAP-7 fixture", () => {
    let padded = 0;
    for (const f of fixtures) {
      const def = PREDICATES["AAP-7"]!;
      const theta = def.parseTheta(f.theta);
      const records = [userTurn(0, 20), ...f.records.map((r) => ({ ...r, seq: r.seq + 1 }))];
      const closed = withRowPads(records, f.profile);
      if (closed.length > records.length) padded += 1;
      expect(def.evaluate(closed, theta, f.profile), f.file).toEqual(def.evaluate(records, theta, f.profile));
    }
    // The airline ones: a retail user turn gives no mention rows.
    expect(padded).toBeGreaterThan(5);
  });

  it("fits the smallest circuit of its record count, for every τ³ fixture and AAP-7 fixture", () => {
    const root = join(import.meta.dirname, "..", "..", "fixtures", "tau");
    let checked = 0;
    let movedUp = 0;
    let padded = 0;
    for (const domain of ["airline", "retail"] as const) {
      for (const arm of readdirSync(join(root, domain))) {
        for (const file of readdirSync(join(root, domain, arm)).filter((x) => x.endsWith(".json"))) {
          const raw = JSON.parse(readFileSync(join(root, domain, arm, file), "utf8")) as {
            records: unknown[];
          };
          const { records } = importTauRecords(raw.records);
          const { closed } = fitsSmallestCircuit(records, profileFor(records, `tau_${domain}`));
          checked += 1;
          if (closed.length > records.length) padded += 1;
          if (capacityFor(closed.length) > capacityFor(records.length)) movedUp += 1;
        }
      }
    }
    for (const f of fixtures) fitsSmallestCircuit(f.records, f.profile);
    expect(checked).toBeGreaterThan(150);
    // docs/BENCHMARKS.md quotes these: 16 of the 192 τ³ fixtures get pads, and 15 of them a larger circuit.
    expect(checked).toBe(192);
    expect(padded).toBe(16);
    expect(movedUp).toBe(15);
  });

  it("fits when one user turn types 200 ids, where the unpadded trace fits no circuit of its count", () => {
    const f = fixtures.find((x) => x.file === "aap-7/user-id-only-from-agent.json")!;
    const records = [userTurn(0, 200), ...f.records.map((r) => ({ ...r, seq: r.seq + 1 }))];
    const encoded = encodeTrace(records, f.profile, 7n);
    expect(() => aap7Rows(encoded, capacityFor(records.length))).toThrow(RangeError);
    const { closed, capacity } = fitsSmallestCircuit(records, f.profile);
    const rows = records.reduce((sum, r) => sum + rowCount(r, f.profile), 0);
    expect(rows).toBeGreaterThan(200);
    expect(closed.length).toBe(records.length + padsNeeded(rows, records.length));
    expect(capacity).toBe(256);
  });
});

describe("Session.close", () => {
  let env: SessionEnv;
  beforeAll(async () => {
    env = await sessionEnv();
  });

  async function recorded(records: readonly TraceRecord[], profile: EncodingProfile) {
    const store = env.store();
    const sessionId = freshId("pads");
    const log = memoryLogger();
    const session = await Session.open({
      store,
      escrow: env.escrow,
      sessionId,
      user: env.user,
      profile,
      log,
    });
    for (const r of records) {
      const { seq: _seq, ts: _ts, ...body } = r;
      session.append(body as Parameters<Session["append"]>[0]);
    }
    const closed = await session.close();
    return { store, sessionId, closed, log };
  }

  it("appends the pads the rows need, under the final root, and logs how many", async () => {
    const f = predicateFixtures("AAP-7").find((x) => x.file === "aap-7/user-id-only-from-agent.json")!;
    const records = [userTurn(0, 16), ...f.records.map((r) => ({ ...r, seq: r.seq + 1 }))];
    const { store, sessionId, closed, log } = await recorded(records, f.profile);
    const stored = store.records(sessionId);
    const expected = withRowPads(records, f.profile);
    expect(expected.length).toBeGreaterThan(records.length);
    expect(closed.finalN).toBe(expected.length);
    expect(stored.map(({ ts: _ts, ...r }) => r)).toEqual(expected.map(({ ts: _ts, ...r }) => r));
    expect(closed.finalRoot).toBe(storedRoot(store, sessionId));
    expect(log.entries).toContainEqual({
      level: "info",
      event: "session.row_pads",
      fields: expect.objectContaining({ sessionId, pads: expected.length - records.length }),
    });
    store.close();
  });

  it("appends none when the rows fit, or the profile has no domain facts", async () => {
    const f = predicateFixtures("AAP-7").find((x) => x.file === "aap-7/owner-small.json")!;
    const a = await recorded(f.records, f.profile);
    expect(a.closed.finalN).toBe(f.records.length);
    const plain: EncodingProfile = { version: 1, tools: { "tau.user": {} } };
    const b = await recorded([userTurn(0, 16)], plain);
    expect(b.closed.finalN).toBe(1);
    a.store.close();
    b.store.close();
  });
});
