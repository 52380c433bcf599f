// VAI's args_hash: Python's json.dumps(sort_keys=True, separators=(",", ":"),
// ensure_ascii=False) reproduced from raw JSON text, and the importer that keeps it.
// The expected strings and hashes were produced by CPython 3.11's json module and an
// independent pure-Python Keccak-256 (not viem), then hard-coded here.
import { describe, expect, it } from "vitest";
import { keccak256, toBytes } from "viem";
import { importVaiJsonl } from "../../sdk/core/import-vai.js";
import { aap1Authorization } from "../../sdk/core/predicates/aap1/definition.js";
import {
  PythonJsonError,
  parseLossless,
  pythonDumps,
  pythonFloatRepr,
  vaiArgsHash,
} from "../../sdk/core/python-json.js";
import { encodeSlots, SLOT } from "../../sdk/core/encoding.js";
import { reduceBytes32 } from "../../sdk/core/hash.js";
import { RecordError, type CallRecord } from "../../sdk/core/records.js";

const VECTORS: { raw: string; dumps: string; hash: string }[] = [
  {
    raw: '{"amount": 0.0}',
    dumps: '{"amount":0.0}',
    hash: "0x66be0c4fe3e22c613b05539762db0abb4b0ead508f73b0cfb9ef616dc8262d16",
  },
  {
    raw: '{"amount": 100.5, "currency": "EUR"}',
    dumps: '{"amount":100.5,"currency":"EUR"}',
    hash: "0x69778781939e8d6c032b09d2c4ad0e46aff05bc9ff85c948de010379bb68c0f2",
  },
  {
    raw: '{"eps": 1e-7, "big": 1e16, "n": 12345678901234567890}',
    dumps: '{"big":1e+16,"eps":1e-07,"n":12345678901234567890}',
    hash: "0xbb1d3618ed189c515b9bac208eb1320025e9e47fa306973c1e8879c96b0487d5",
  },
  {
    raw: '{"neg": -0, "negf": -0.0, "e": 1E5, "p": 2.5E+3, "small": 0.0001, "smaller": 0.00001}',
    dumps: '{"e":100000.0,"neg":0,"negf":-0.0,"p":2500.0,"small":0.0001,"smaller":1e-05}',
    hash: "0x12010e310554166784d21c44f7e056d3633b6a7a613447dae349be0bb2d25ffb",
  },
  {
    raw: '{"nested": [1, [2.0, [3e0, {"z": [], "a": {}}]], null, true, false], "x": 123456789012345678.0}',
    dumps: '{"nested":[1,[2.0,[3.0,{"a":{},"z":[]}]],null,true,false],"x":1.2345678901234568e+17}',
    hash: "0x003a29e71317b6edb0a957f5b7089d5ea822eb7a283db9b3f2b26426fc169a8c",
  },
  {
    raw: '{"to": "Zo\u00eb <zo\u00eb@example.com>", "emoji": "\ud83d\ude00", "cjk": "\u4e2d\u6587", "bmp": "\\ufb01", "astral": "\\ud83d\\ude00"}',
    dumps:
      '{"astral":"\ud83d\ude00","bmp":"\ufb01","cjk":"\u4e2d\u6587","emoji":"\ud83d\ude00","to":"Zo\u00eb <zo\u00eb@example.com>"}',
    hash: "0x5aaa059013d372e0fad9761d6518a9a4960649e5fd56d73688f7d7d7f010464c",
  },
  {
    raw: '{"esc": "quote\\" backslash\\\\ slash\\/ nl\\n tab\\t cr\\r bs\\b ff\\f nul\\u0000 us\\u001f del\\u007f ls\\u2028"}',
    dumps:
      '{"esc":"quote\\" backslash\\\\ slash/ nl\\n tab\\t cr\\r bs\\b ff\\f nul\\u0000 us\\u001f del\u007f ls\u2028"}',
    hash: "0x35c48b902acfecc269ad3305e2409714ab148bebcbec38e2cabfc14dbed2870a",
  },
  {
    raw: '{"b": 1, "a": 2, "B": 3, "\\u00e9": 4, "e": 5, "\\ufb01": 6, "\ud83d\ude00": 7, "b": 8}',
    dumps: '{"B":3,"a":2,"b":8,"e":5,"\u00e9":4,"\ufb01":6,"\ud83d\ude00":7}',
    hash: "0x9ddf609edba13b8c770513e8c2062bee1bfa349e0f972f78b3191475f65cc203",
  },
  {
    raw: '{"tiny": 5e-324, "max": 1.7976931348623157e308, "under": 1e-400, "f": 9999999999999998.0, "g": 1234567890123456.7, "h": 1.5e-5}',
    dumps:
      '{"f":9999999999999998.0,"g":1234567890123456.8,"h":1.5e-05,"max":1.7976931348623157e+308,"tiny":5e-324,"under":0.0}',
    hash: "0x52ef2c4a5b042b3b5115c787b616219cee4907b03edda9a9bc13749bc44ba208",
  },
];

describe("Python json.dumps from raw JSON", () => {
  for (const v of VECTORS) {
    it(`reproduces ${v.dumps.slice(0, 48)}`, () => {
      expect(pythonDumps(parseLossless(v.raw))).toBe(v.dumps);
      expect(vaiArgsHash(parseLossless(v.raw))).toBe(v.hash);
    });
  }

  it("writes floats as CPython's repr: shortest digits, exponent below 1e-4 and from 1e16", () => {
    const cases: [string, string][] = [
      ["0.0", "0.0"],
      ["-0.0", "-0.0"],
      ["100.5", "100.5"],
      ["1.0", "1.0"],
      ["1e-7", "1e-07"],
      ["1e16", "1e+16"],
      ["1e15", "1000000000000000.0"],
      ["0.0001", "0.0001"],
      ["0.00001", "1e-05"],
      ["1e22", "1e+22"],
      ["1e100", "1e+100"],
      ["1.5e-300", "1.5e-300"],
      ["0.1", "0.1"],
      ["2.5E+3", "2500.0"],
      ["123.456e1", "1234.56"],
      ["0.30000000000000004", "0.30000000000000004"],
    ];
    for (const [lexeme, repr] of cases) expect(pythonFloatRepr(lexeme), lexeme).toBe(repr);
  });

  it("keeps integers exactly, beyond 2^53 too, and -0 as 0", () => {
    expect(pythonDumps(parseLossless("[12345678901234567890,-0,-7,0]"))).toBe(
      "[12345678901234567890,0,-7,0]",
    );
  });

  it("refuses what Python could not hash as JSON, and malformed JSON, with clear errors", () => {
    expect(() => pythonDumps(parseLossless('{"x":1e400}'))).toThrow(/Infinity/);
    expect(() => pythonDumps(parseLossless('{"x":"\\ud800"}'))).toThrow(/lone surrogate/);
    for (const bad of ["{", '{"a":NaN}', "[1,]", '{"a":1} x', "01", '"\t"', '{"a" 1}']) {
      expect(() => parseLossless(bad), bad).toThrow(PythonJsonError);
    }
  });
});

describe("VAI import keeps VAI's args_hash", () => {
  const session = "sess-1";
  const callArgs = '{"command": "transfer", "amount": 1.0, "fee": 1e-7}';
  // Python: json.dumps -> {"amount":1.0,"command":"transfer","fee":1e-07}
  const vaiHash = "0xb94a490f9a720f359575b8a107dd5dd0e825c50081177c41b5bf7e0e735d3419";
  const authLine = (extra = "") =>
    `{"seq": 1, "session_id": "${session}", "tool": "user_authorization", "args": {"schema_version": 1, "action_id": "a", "request_id": "r", "session_id": "${session}", "tool": "exec", "args_hash": "${vaiHash}", "decision": "allow", "scope": "once", "authority": "human"${extra}}, "result": "allow", "ts": 1}`;
  const callLine = (args: string) =>
    `{"seq": 2, "session_id": "${session}", "tool": "exec", "args": ${args}, "result": "done", "ts": 2, "metadata": {"action_id": "a", "event_id": "e"}}`;
  const theta = aap1Authorization.parseTheta({
    destructive_tools: ["exec"],
    authorization_mode: "invocation",
  });
  const profile = { version: 1 as const, tools: { exec: {} } };

  it("sets argsHash on imported calls, and the encoder commits it", () => {
    const { records } = importVaiJsonl([authLine(), callLine(callArgs)].join("\n"));
    const call = records[1] as CallRecord;
    expect(call.argsHash).toBe(vaiHash);
    expect(call.args).toEqual({ command: "transfer", amount: 1, fee: 1e-7 });
    expect(encodeSlots(call, profile)[SLOT.args]).toBe(reduceBytes32(vaiHash));
    // JS's canonical JSON writes 1 and 1e-7, so the hash would differ without it.
    expect(keccak256(toBytes('{"amount":1,"command":"transfer","fee":1e-7}'))).not.toBe(vaiHash);
  });

  it("so VAI's float-carrying approvals authorize the call they approved, and only that one", () => {
    const ok = importVaiJsonl([authLine(), callLine(callArgs)].join("\n"));
    expect(aap1Authorization.evaluate(ok.records, theta, profile).violated).toBe(false);
    const other = importVaiJsonl(
      [authLine(), callLine('{"command": "transfer", "amount": 1, "fee": 1e-7}')].join("\n"),
    );
    expect(aap1Authorization.evaluate(other.records, theta, profile)).toMatchObject({
      violated: true,
      seq: 1,
    });
  });

  it("refuses authorizations VAI would not count: schema_version not the integer 1, another session", () => {
    for (const version of ["1.0", "2", '"1"', "true"]) {
      const line = authLine().replace('"schema_version": 1', `"schema_version": ${version}`);
      expect(() => importVaiJsonl(line), version).toThrow(/schema_version/);
    }
    expect(() => importVaiJsonl(authLine().replace('"schema_version": 1, ', ""))).toThrow(RecordError);
    const elsewhere = authLine().replace(
      `"request_id": "r", "session_id": "${session}"`,
      '"request_id": "r", "session_id": "other"',
    );
    expect(() => importVaiJsonl(elsewhere)).toThrow(/session/);
  });

  it("checks a call's argsHash like an authorization's", async () => {
    const { parseRecord } = await import("../../sdk/core/records.js");
    const base = { kind: "call", seq: 0, ts: 0, tool: "exec", args: {} };
    expect(() => parseRecord({ ...base, argsHash: "0x12" })).toThrow(/argsHash must be 32 bytes/);
    expect(
      (parseRecord({ ...base, argsHash: vaiHash.toUpperCase().replace("0X", "0x") }) as CallRecord).argsHash,
    ).toBe(vaiHash);
  });
});
