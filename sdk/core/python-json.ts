// VAI's args_hash, reproduced from raw JSON text.
//
// VAI hashes args as keccak256 of the UTF-8 bytes of Python's
//   json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
// after json.loads. That differs from RFC 8785 (sdk/core/canonical.ts) where JSON.parse
// cannot see the difference: Python keeps `1.0` a float and writes it back as
// `1.0`, `1e-7` as `1e-07` and `1E5` as `100000.0`, and integers of any size
// exactly. So the importer hashes the raw line with this lossless reader, which
// keeps each number's lexeme, and this writer, which follows CPython:
// - an integer lexeme (no `.`, `e`, `E`) is a Python int: written as read, `-0` as `0`;
// - any other number is a float, written by float.__repr__: the shortest digits
//   that round-trip, in exponent form when the decimal exponent is < -4 or >= 16
//   (`1e-05`, `1e+16`: sign and at least two digits), else positional with at
//   least one fractional digit (`100.0`, `0.0001`); `-0.0` keeps its sign;
//   a float that overflows to infinity is refused (VAI would write `Infinity`);
// - strings escape `"`, `\`, \b \f \n \r \t and other controls below U+0020 as
//   `\u00xx` (lower-case hex); everything else, U+007F and U+2028 included, is
//   written as is; a lone surrogate cannot be UTF-8 encoded and is refused;
// - object keys are sorted by code point (Python's str order, not UTF-16 units),
//   and a repeated key keeps its last value, as json.loads does.
import { keccak256, toBytes } from "viem";
import { ZkvaiError } from "./errors.js";

export type LosslessJson =
  null | boolean | string | { number: string } | LosslessJson[] | { object: Map<string, LosslessJson> };

export class PythonJsonError extends ZkvaiError {
  static override readonly code: string = "BAD_PYTHON_JSON";
  override name = "PythonJsonError";
}

/** Parses strict JSON (RFC 8259) keeping every number's lexeme. */
export function parseLossless(text: string): LosslessJson {
  let at = 0;
  const fail = (what: string): never => {
    throw new PythonJsonError(`JSON: ${what} at offset ${at}`);
  };
  const ws = () => {
    while (at < text.length && " \t\n\r".includes(text[at])) at++;
  };
  const literal = (word: string) => {
    if (text.startsWith(word, at)) {
      at += word.length;
      return true;
    }
    return false;
  };
  const string = (): string => {
    at++; // opening quote
    let out = "";
    for (;;) {
      if (at >= text.length) fail("unterminated string");
      const c = text[at++];
      if (c === '"') return out;
      if (c < " ") fail("control character in string");
      if (c !== "\\") {
        out += c;
        continue;
      }
      const e = text[at++];
      const simple: Record<string, string> = {
        '"': '"',
        "\\": "\\",
        "/": "/",
        b: "\b",
        f: "\f",
        n: "\n",
        r: "\r",
        t: "\t",
      };
      if (e in simple) out += simple[e];
      else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(at, at + 4))) {
        out += String.fromCharCode(parseInt(text.slice(at, at + 4), 16));
        at += 4;
      } else fail("bad escape");
    }
  };
  const value = (): LosslessJson => {
    ws();
    const c = text[at];
    if (c === "{") {
      at++;
      const object = new Map<string, LosslessJson>();
      ws();
      if (text[at] === "}") {
        at++;
        return { object };
      }
      for (;;) {
        ws();
        if (text[at] !== '"') fail("expected a key");
        const key = string();
        ws();
        if (text[at++] !== ":") fail("expected ':'");
        object.delete(key);
        object.set(key, value());
        ws();
        const sep = text[at++];
        if (sep === "}") return { object };
        if (sep !== ",") fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      at++;
      const list: LosslessJson[] = [];
      ws();
      if (text[at] === "]") {
        at++;
        return list;
      }
      for (;;) {
        list.push(value());
        ws();
        const sep = text[at++];
        if (sep === "]") return list;
        if (sep !== ",") fail("expected ',' or ']'");
      }
    }
    if (c === '"') return string();
    if (literal("true")) return true;
    if (literal("false")) return false;
    if (literal("null")) return null;
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at));
    if (!m) return fail("unexpected character");
    at += m[0].length;
    return { number: m[0] };
  };
  const result = value();
  ws();
  if (at !== text.length) fail("trailing characters");
  return result;
}

/** Python's repr of the float a JSON number lexeme parses to. */
export function pythonFloatRepr(lexeme: string): string {
  const x = Number(lexeme);
  if (!Number.isFinite(x)) {
    throw new PythonJsonError(
      `number ${lexeme} overflows a double; Python would write Infinity, which JSON cannot carry`,
    );
  }
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  // String(x) holds the shortest round-trip digits (closest when tied), like CPython's repr.
  const s = String(Math.abs(x));
  let digits: string;
  let exp: number; // x = d.ddd × 10^exp
  const e = s.indexOf("e");
  if (e >= 0) {
    digits = s.slice(0, e).replace(".", "");
    exp = Number(s.slice(e + 1));
  } else {
    const [int, frac = ""] = s.split(".");
    if (int !== "0") {
      digits = int + frac;
      exp = int.length - 1;
    } else {
      const lead = frac.length - frac.replace(/^0+/, "").length;
      digits = frac.slice(lead);
      exp = -lead - 1;
    }
  }
  digits = digits.replace(/0+$/, "");
  if (exp < -4 || exp >= 16) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${mantissa}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const int = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
  return `${sign}${int}.${digits.slice(exp + 1) || "0"}`;
}

function pythonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += s[i] + s[i + 1];
        i++;
        continue;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      throw new PythonJsonError(
        `string holds a lone surrogate U+${c.toString(16)}, which UTF-8 cannot encode`,
      );
    }
    const ch = s[i];
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (c < 0x20) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Orders strings by code point, as Python compares str. */
function byCodePoint(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False) as CPython writes it. */
export function pythonDumps(value: LosslessJson): string {
  if (value === null) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "string") return pythonString(value);
  if (Array.isArray(value)) return `[${value.map(pythonDumps).join(",")}]`;
  if ("number" in value) {
    if (/[.eE]/.test(value.number)) return pythonFloatRepr(value.number);
    return value.number === "-0" ? "0" : value.number;
  }
  const keys = [...value.object.keys()].sort(byCodePoint);
  return `{${keys.map((k) => `${pythonString(k)}:${pythonDumps(value.object.get(k)!)}`).join(",")}}`;
}

/** VAI's args_hash of a value read losslessly: keccak256 of its Python dumps, 0x-hex. */
export function vaiArgsHash(args: LosslessJson): `0x${string}` {
  return keccak256(toBytes(pythonDumps(args)));
}
