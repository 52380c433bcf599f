// What every `vai` command shares: argument parsing that fails with one line and exit code 2, validators for
// ids and amounts, error messages that name the escrow's revert, and text-or-JSON output.
import { existsSync, readFileSync } from "node:fs";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { isAddress, parseEther, type Address, type Hex } from "viem";
import { InputError, withDetails, ZkvaiError, type ZkvaiErrorOptions } from "../../sdk/core/errors.js";
import { describeError } from "../../sdk/chain/retry.js";

// Bad input (InputError and its subclasses): the command exits 2 with the message, and has sent nothing.
export { InputError } from "../../sdk/core/errors.js";

export interface Command {
  /** First line: `usage: vai <name> …`; the rest: what it does, options, exit codes. */
  usage: string;
  run(argv: string[]): Promise<number>;
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** Flags every command that talks to the chain accepts (bin/cli/config.ts reads them). */
export const CHAIN_OPTIONS = {
  "rpc-url": { type: "string" },
  deployment: { type: "string" },
  store: { type: "string" },
  config: { type: "string" },
  as: { type: "string" },
  json: { type: "boolean", default: false },
} as const satisfies Options;

export interface Parsed<O extends Options> {
  values: ReturnType<typeof parseArgs<{ options: O; allowPositionals: true }>>["values"];
  positionals: string[];
}

/**
 * parseArgs with every parse error turned into an InputError, and `--help` thrown as HELP; `positionals` names
 * the positional arguments the command needs, so a missing one is refused with its name.
 */
export function parseCommand<O extends Options>(
  argv: string[],
  options: O,
  positionals: string[] = [],
): Parsed<O> {
  refuseNegativeNumbers(argv, options);
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...options, help: { type: "boolean", short: "h", default: false } },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    throw new InputError((e as Error).message.split("\n")[0]);
  }
  if ((parsed.values as { help?: boolean }).help) throw HELP;
  if (parsed.positionals.length < positionals.length)
    throw new InputError(`missing <${positionals[parsed.positionals.length]}>`);
  if (parsed.positionals.length > positionals.length)
    throw new InputError(`unexpected argument "${parsed.positionals[positionals.length]}"`);
  return parsed as unknown as Parsed<O>;
}

/**
 * A negative number given to an option that takes a value (`--amount -1`, `--workers=-3`) is refused by name:
 * parseArgs would call the first form "ambiguous" and pass the second on. No `vai` option takes a negative
 * number (amounts, counts, blocks, times), and none takes a value that looks like one.
 */
export function refuseNegativeNumbers(argv: readonly string[], options: Options): void {
  const takesValue = (name: string) => options[name]?.type === "string";
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") return;
    const m = /^--([^=]+)(?:=(.*))?$/s.exec(arg);
    if (!m || !takesValue(m[1])) continue;
    const value = m[2] ?? argv[i + 1];
    if (value !== undefined && /^-(\d|\.\d|Infinity\b)/.test(value))
      throw new InputError(`--${m[1]} must be a non-negative number, not ${value}`);
  }
}

/** Runs a command body with the shared exit-code contract: 0 ok, 1 failed operation, 2 bad input. */
export async function runCommand(name: string, usage: string, body: () => Promise<void>): Promise<number> {
  try {
    await body();
    return 0;
  } catch (e) {
    if (e === HELP) {
      console.log(usage);
      return 0;
    }
    if (e instanceof AlreadyReported) return e.exitCode;
    const message = describeError(e);
    if (e instanceof InputError) {
      console.error(`vai ${name}: ${message}`);
      return 2;
    }
    console.error(`vai ${name}: ${message}`);
    return 1;
  }
}

/** Thrown by a command body to print its usage and exit 0. */
export const HELP = Symbol("help");

/** Thrown by a command body that has already printed why it failed: exit 1 (or `exitCode`), nothing more said. */
export class AlreadyReported extends ZkvaiError {
  static override readonly code: string = "ALREADY_REPORTED";
  override name = "AlreadyReported";
  constructor(
    message: string,
    readonly exitCode = 1,
    options?: ZkvaiErrorOptions,
  ) {
    super(message, withDetails(options, { exitCode }));
  }
}

export function required<T>(value: T | undefined, flag: string): T {
  if (value === undefined || value === "") throw new InputError(`${flag} is required`);
  return value;
}

export function parseClaimId(s: string): bigint {
  if (!/^[0-9]{1,77}$/.test(s) || BigInt(s) === 0n)
    throw new InputError(`claim id "${s}" is not a positive integer`);
  return BigInt(s);
}

export function parsePromiseId(s: string): bigint {
  if (!/^[0-9]{1,77}$/.test(s) || BigInt(s) === 0n)
    throw new InputError(`promise id "${s}" is not a positive integer`);
  return BigInt(s);
}

export function parseSessionId(s: string): Hex {
  if (!/^0x[0-9a-fA-F]{64}$/.test(s)) throw new InputError(`session id "${s}" is not 0x and 64 hex digits`);
  return s.toLowerCase() as Hex;
}

export function parseAddress(s: string, what: string): Address {
  if (!isAddress(s, { strict: false })) throw new InputError(`${what} "${s}" is not an address`);
  return s as Address;
}

/** ETH as a decimal ("0.25"), to wei; `positive` refuses zero. */
export function parseEth(s: string, flag: string, positive = true): bigint {
  if (!/^[0-9]+(\.[0-9]{1,18})?$/.test(s)) throw new InputError(`${flag} "${s}" is not an amount in ETH`);
  const wei = parseEther(s);
  if (positive && wei === 0n) throw new InputError(`${flag} must be more than 0`);
  return wei;
}

export function parseInteger(s: string, flag: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^[0-9]+$/.test(s) || Number(s) < min || Number(s) > max)
    throw new InputError(`${flag} "${s}" must be an integer from ${min} to ${max}`);
  return Number(s);
}

/**
 * One line: the escrow's custom error when a transaction or call reverted ("fileClaim reverted:
 * ClaimWindowClosed(…)"), viem's short message for other RPC failures, the message otherwise.
 */
export { describeError } from "../../sdk/chain/retry.js";

/** A command's result: lines for people, or with --json the object itself (bigints as decimal strings). */
export function output(json: boolean, result: Record<string, unknown>, lines: () => string[]): void {
  if (json) console.log(JSON.stringify(result, (_, v) => (typeof v === "bigint" ? v.toString() : v), 2));
  else console.log(lines().join("\n"));
}

export const hex64 = (x: bigint): Hex => `0x${x.toString(16).padStart(64, "0")}`;

/** A chain time (Unix seconds) for a person: ISO 8601 in UTC, never the raw number. */
export const isoTime = (seconds: bigint): string => new Date(Number(seconds) * 1000).toISOString();

/** A wait for a person: "2 d 23 h 59 min", "5 min 3 s", "40 s". */
export function durationText(seconds: bigint): string {
  let left = seconds < 0n ? 0n : seconds;
  const parts: string[] = [];
  for (const [unit, size] of [
    ["d", 86_400n],
    ["h", 3_600n],
    ["min", 60n],
  ] as const) {
    if (left >= size) parts.push(`${left / size} ${unit}`);
    left %= size;
  }
  if (left > 0n || parts.length === 0) parts.push(`${left} s`);
  return parts.slice(0, 3).join(" ");
}

/** A JSON file named on the command line; a missing or unparsable one is bad input, named as `what`. */
export function readJsonFile(file: string, what: string): unknown {
  if (!existsSync(file)) throw new InputError(`${what} file ${file} does not exist`);
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new InputError(`${what} file ${file} is not JSON: ${(e as Error).message}`);
  }
}
