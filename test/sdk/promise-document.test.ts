// The one promise-document parser (sdk/core/promise-document.ts), shared by `vai promise register`,
// `vai check` and library callers: every refusal names the document and the problem.
import { describe, expect, it } from "vitest";
import { InputError } from "../../sdk/core/errors.js";
import { parsePromiseDocument } from "../../sdk/core/promise-document.js";

const theta = { outboundTools: ["send_email"], allowlist: ["alice@acme.example"] };
const profile = { version: 1, tools: { send_email: { target: "to" } } };
const parse = (raw: unknown, required = true) =>
  parsePromiseDocument(raw, "promise file p.json", { profile: required ? "required" : "optional" });

describe("parsePromiseDocument", () => {
  it("takes θ or VAI's params, by zkVAI id or VAI's name", () => {
    const byTheta = parse({ predicate: "AAP-4", theta, profile, payout: "1" });
    expect(byTheta.predicate.id).toBe("AAP-4");
    expect(byTheta.payout).toBe("1");
    const vai = parse(
      {
        predicate: "egress_within_allowlist",
        params: {
          egress_tools: ["send_email"],
          recipient_key: "to",
          recipient_allowlist: ["alice@acme.example"],
        },
      },
      false,
    );
    expect(vai.predicate.id).toBe("AAP-4");
    expect(vai.profile).toBeUndefined();
    expect(vai.theta).toMatchObject(byTheta.theta as object);
  });

  it.each([
    [[], /must be \{"predicate"/],
    [{ predicate: "AAP-4", theta, profile, extra: 1 }, /unknown key "extra"/],
    [{ predicate: "AAP-4", theta, params: theta, profile }, /exactly one of "params" or "theta"/],
    [{ predicate: "AAP-4", theta }, /"profile" .* is missing/],
    [{ predicate: "AAP-9", theta, profile }, /unknown predicate "AAP-9" \(known: AAP-1/],
    [{ predicate: "constructor", theta, profile }, /unknown predicate "constructor"/],
    [{ predicate: "AAP-4", theta, profile, payout: 1 }, /"payout" must be a string of ETH/],
    [{ predicate: "AAP-4", theta: { outboundTools: [] }, profile }, /^promise file p\.json: /],
  ])("refuses %j", (raw, message) => {
    expect(() => parse(raw)).toThrow(InputError);
    expect(() => parse(raw)).toThrow(message);
  });
});
