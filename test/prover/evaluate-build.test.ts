// `vai check --prove` in a checkout where the circuit a trace needs is not built yet: evaluatePromise builds the
// smallest instance of circuits/instances.json that holds the trace (through the builder it is given, which the
// CLI makes from setup's --only), then proves with it. Without a builder, the error names that instance and
// the command that builds it.
import { describe, expect, it } from "vitest";
import { evaluatePromise } from "../../prover/evaluate.js";
import { parsePromiseDocument } from "../../sdk/core/promise-document.js";
import { parseTraceText } from "../../sdk/core/trace-text.js";
import { traceImportOptions } from "../../prover/evaluate.js";

const doc = parsePromiseDocument(
  {
    predicate: "AAP-4",
    params: { outboundTools: ["send_email"], allowlist: ["alice@a.example"] },
    profile: { version: 1, tools: { send_email: { target: "to" } } },
  },
  "test promise",
  { profile: "optional" },
);
// 300 records: more than any circuit the tests or the quick bench build holds; aap4_n1024 (bench-large, never
// built by a test) is the smallest instance that does.
const text = Array.from({ length: 300 }, (_, seq) =>
  JSON.stringify({ kind: "call", seq, ts: seq, tool: "send_email", args: { to: "alice@a.example" } }),
).join("\n");
const trace = parseTraceText(text, traceImportOptions(doc));

describe("evaluatePromise --prove on a trace no built circuit holds", () => {
  it("builds the smallest instance that holds it, through the given builder", async () => {
    const asked: string[] = [];
    const refuse = async (circuit: string) => {
      asked.push(circuit);
      throw new Error(`not building ${circuit} in this test`);
    };
    await expect(evaluatePromise(doc, trace, { prove: true, build: refuse })).rejects.toThrow(
      "not building aap4_n1024 in this test",
    );
    expect(asked).toEqual(["aap4_n1024"]);
  });

  it("without a builder, names the instance and the command that builds it", async () => {
    await expect(evaluatePromise(doc, trace, { prove: true })).rejects.toThrow(
      /no built AAP-4 circuit holds 300 records; build aap4_n1024 \(1024 records\) with `npm run setup -- --only aap4_n1024`/,
    );
  });
});
