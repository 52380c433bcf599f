// `vai promise check` (checkPromise) on a predicate appended after deployment: an escrow deployed with AAP-4's
// verifiers only, then AAP-3's appended from the manifest (prover/artifacts/deploy.ts appendPredicateFromManifest).
// A promise of AAP-3 settles through the appended verifiers, and checkPromise must check every one of them, the
// segment verifier included, against the manifest. Real snarkjs verifiers: needs the test build (`npm run setup --
// --group test`).
import { parseEther } from "viem";
import { describe, expect, it } from "vitest";
import { appendPredicateFromManifest, deployZkVai } from "../../prover/artifacts/deploy.js";
import { capacityOfDepth } from "../../sdk/core/claim.js";
import { embeddedChain } from "../../sdk/dev/embedded.js";
import { claimCircuits, loadManifest } from "../../sdk/manifest/manifest.js";
import { checkPromise } from "../../sdk/user/index.js";

describe("checkPromise on an appended predicate", () => {
  it("lists and checks every verifier the promise settles through, appended ones included", async () => {
    const chain = await embeddedChain();
    const [deployer, stranger] = chain.wallets;
    const manifest = loadManifest();
    const { escrow, record } = await deployZkVai(chain, deployer, {
      predicates: ["AAP-4"],
      receiptWindow: 0,
      // AAP-4's whole-claim verifiers only, whatever segment circuits the build holds (bench groups build some).
      segments: false,
    });
    expect(new Set(record.verifiers.map((v) => v.predicate))).toEqual(new Set(["AAP-4"]));
    expect(await escrow.verifierSet(3)).toEqual({ capacities: [], verifiers: [] });

    // Only the deployer, and only once: both refused before any verifier is deployed.
    await expect(appendPredicateFromManifest(escrow.as(stranger), record, "AAP-3")).rejects.toThrow(
      /only the escrow's deployer/,
    );
    const appended = await appendPredicateFromManifest(escrow, record, "AAP-3", { segmentSize: 8 });
    await expect(appendPredicateFromManifest(escrow, appended.record, "AAP-3")).rejects.toThrow(
      /serves AAP-3 already/,
    );
    await expect(appendPredicateFromManifest(escrow, appended.record, "AAP-4")).rejects.toThrow(
      /serves AAP-4 already/,
    );
    const added = appended.record.verifiers
      .filter((v) => v.predicate === "AAP-3")
      .sort((a, b) => a.capacity - b.capacity);
    const built = claimCircuits(manifest)
      .filter(([, c]) => c.predicate === "AAP-3")
      .map(([name, c]) => ({ name, capacity: capacityOfDepth(Number(c.params.depth)) }))
      .sort((a, b) => a.capacity - b.capacity);
    expect(added.map((v) => v.circuit)).toEqual(built.map((c) => c.name));
    const [segment] = appended.record.segmentVerifiers;
    expect(appended.record.segmentVerifiers).toHaveLength(1);
    expect(segment).toMatchObject({ circuit: "aap3_seg8", predicate: "AAP-3", segmentSize: 8 });
    const classes = added.length;
    console.log(
      `appendPredicateVerifiers, AAP-3 from the manifest (${classes} verifiers + 1 segment verifier): ${appended.gas.append} gas`,
    );

    const { promiseId } = await escrow.registerPromise({
      predicateId: 3,
      paramsHash: 1234n,
      profileHash: 77n,
      payout: parseEther("1"),
    });
    const report = await checkPromise({ chain, escrow: escrow.address, promiseId, manifest });
    expect(report.predicate).toBe("AAP-3");
    expect(report.verifiers).toEqual([
      ...added.map((v) => ({ kind: "claim", capacity: v.capacity, address: v.address, circuit: v.circuit })),
      { kind: "segment", capacity: 8, address: segment!.address, circuit: "aap3_seg8" },
    ]);
    const checks = report.checks.join("\n");
    for (const v of [...added, segment!]) expect(checks).toContain(`${v.address} runs exactly that code`);

    // A promise of the deployment's predicate is checked as before.
    const { promiseId: aap4 } = await escrow.registerPromise({
      predicateId: 4,
      paramsHash: 1234n,
      profileHash: 77n,
      payout: parseEther("1"),
    });
    const before = await checkPromise({ chain, escrow: escrow.address, promiseId: aap4, manifest });
    expect(before.verifiers.map((v) => v.address)).toEqual(
      record.verifiers
        .filter((v) => v.predicate === "AAP-4")
        .sort((a, b) => a.capacity - b.capacity)
        .map((v) => v.address),
    );
  }, 300_000);
});
