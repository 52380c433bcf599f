// The deployment file of protocol v2: written and read back with the escrow's checkpoint interval and receipt
// window, and a protocol v1 file (a MAX_CHECKPOINTS escrow) refused with the way out, never read as if it were v2.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  DeploymentError,
  readDeployment,
  writeDeployment,
  type Deployment,
} from "../../sdk/chain/deployment.js";

const A = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const record: Deployment = {
  version: 2,
  chainId: 31337,
  rpcUrl: "http://127.0.0.1:8545",
  escrow: A,
  fromBlock: 3,
  poseidon3: A,
  checkpointInterval: 10,
  receiptWindow: 3600,
  verifiers: [
    { circuit: "aap4_n8", predicate: "AAP-4", capacity: 8, checkpoints: 2, address: A, vkeySha256: "ab" },
  ],
  segmentVerifiers: [
    {
      circuit: "aap3_seg8",
      predicate: "AAP-3",
      segmentSize: 8,
      checkpoints: 2,
      address: A,
      vkeySha256: "ef",
    },
  ],
  manifestSha256: "cd",
  deployer: A,
  deployedAt: "2026-01-01T00:00:00.000Z",
};

const file = (name: string) => join(mkdtempSync(join(tmpdir(), "zkvai-deployment-")), name);

describe("the deployment file", () => {
  it("round-trips a v2 record", () => {
    const f = file("d.json");
    writeDeployment(f, record);
    expect(readDeployment(f)).toEqual(record);
  });

  it("refuses a v1 file (a MAX_CHECKPOINTS escrow) with the way out, and a zero or missing interval", () => {
    const f = file("v1.json");
    const { checkpointInterval: _, ...rest } = record;
    writeFileSync(f, JSON.stringify({ ...rest, version: 1, maxCheckpoints: 4 }));
    expect(() => readDeployment(f)).toThrow(DeploymentError);
    expect(() => readDeployment(f)).toThrow(/protocol v1 escrow.*vai deploy --force/);
    for (const checkpointInterval of [0, undefined, -1, 1.5]) {
      writeFileSync(f, JSON.stringify({ ...record, checkpointInterval }));
      expect(() => readDeployment(f)).toThrow(/checkpointInterval/);
    }
    writeFileSync(f, JSON.stringify({ ...record, version: 3 }));
    expect(() => readDeployment(f)).toThrow(/expected version 2/);
  });

  it("needs the escrow's receipt window: a whole number of seconds, 0 included (development chains)", () => {
    const f = file("window.json");
    for (const receiptWindow of [undefined, -1, 1.5, "3600", null]) {
      writeFileSync(f, JSON.stringify({ ...record, receiptWindow }));
      expect(() => readDeployment(f), String(receiptWindow)).toThrow(DeploymentError);
      expect(() => readDeployment(f), String(receiptWindow)).toThrow(/receiptWindow/);
    }
    for (const receiptWindow of [0, 1, 3600, 3 * 86400 - 1]) {
      writeFileSync(f, JSON.stringify({ ...record, receiptWindow }));
      expect(readDeployment(f).receiptWindow).toBe(receiptWindow);
    }
  });
});

describe("the deployment file's segment verifiers", () => {
  it("reads a file without them (written before segmented settlement) as none, and refuses a bad one", () => {
    const f = file("segments.json");
    const { segmentVerifiers: _, ...older } = record;
    writeFileSync(f, JSON.stringify(older));
    expect(readDeployment(f).segmentVerifiers).toEqual([]);
    writeFileSync(f, JSON.stringify({ ...record, segmentVerifiers: {} }));
    expect(() => readDeployment(f)).toThrow(/segmentVerifiers is not a list/);
    const zero = [{ ...record.segmentVerifiers[0], segmentSize: 0 }];
    writeFileSync(f, JSON.stringify({ ...record, segmentVerifiers: zero }));
    expect(() => readDeployment(f)).toThrow(/segmentVerifiers\[0\]\.segmentSize is 0/);
  });
});
