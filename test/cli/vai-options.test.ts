// Issue 34 item 7 and issue 33 item 9: a negative number given to a `vai` option is refused by name (exit 2,
// one line, nothing sent), not with parseArgs' "argument is ambiguous"; and the CLI prints times as dates
// and waits as durations. Parsing refuses before any node is contacted, so no chain is needed here.
import { describe, expect, it } from "vitest";
import { durationText, isoTime, parseCommand, refuseNegativeNumbers } from "../../bin/cli/common.js";
import { InputError } from "../../sdk/core/errors.js";
import { vaiInProcess } from "./cli-helpers.js";

describe("negative numbers to options", () => {
  const cases: [string[], string][] = [
    [["promise", "fund", "1", "--amount", "-1"], "--amount must be a non-negative number, not -1"],
    [["promise", "fund", "1", "--amount=-0.5"], "--amount must be a non-negative number, not -0.5"],
    [["prove", "1", "--workers", "-3"], "--workers must be a non-negative number, not -3"],
    [["verify", "1", "--from-block", "-1"], "--from-block must be a non-negative number, not -1"],
    [
      ["claim", "file", `0x${"ab".repeat(32)}`, "--promise", "1", "--bond", "-2"],
      "--bond must be a non-negative number, not -2",
    ],
  ];

  it.each(cases)("vai %j: exit 2, the option named, one line", async (args, message) => {
    const r = await vaiInProcess(args, { VAI_DEPLOYMENT: "/nonexistent/deployment.json" });
    expect(r.code, r.err).toBe(2);
    expect(r.err.trim()).toMatch(
      new RegExp(`^vai [a-z ]+: ${message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`),
    );
    expect(r.err).not.toMatch(/ambiguous/);
    expect(r.out).toBe("");
  });

  it("leaves positive values, flags and values after -- alone", () => {
    const options = { amount: { type: "string" }, json: { type: "boolean" } } as const;
    expect(() => refuseNegativeNumbers(["--amount", "1", "--json"], options)).not.toThrow();
    expect(() => refuseNegativeNumbers(["--json", "-1"], options)).not.toThrow();
    expect(() => refuseNegativeNumbers(["--", "--amount", "-1"], options)).not.toThrow();
    expect(() => parseCommand(["--amount", "-7"], options)).toThrow(InputError);
    expect(parseCommand(["--amount", "7"], options).values.amount).toBe("7");
  });
});

describe("times for people", () => {
  it("isoTime writes a chain time as an ISO date; durationText writes a wait", () => {
    expect(isoTime(1_765_000_000n)).toBe("2025-12-06T05:46:40.000Z");
    expect(durationText(3n * 86_400n - 1n)).toBe("2 d 23 h 59 min");
    expect(durationText(3_603n)).toBe("1 h 3 s");
    expect(durationText(40n)).toBe("40 s");
    expect(durationText(0n)).toBe("0 s");
    expect(durationText(-5n)).toBe("0 s");
  });
});
