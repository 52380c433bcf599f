// The encoding profile: per tool, which argument holds the target(s), which holds
// the amount, and the one fact its calls observe (record encoding v3, ./observations.ts).
// It decides what the circuits see of each call, so its hash is committed when a session
// opens and pinned by every promise that covers it.
import { CanonicalJsonError, canonicalJson } from "./canonical.js";
import { keccakToField } from "./hash.js";
import { ZkvaiError } from "./errors.js";
import { TAU_DOMAINS, type TauDomain } from "./rules/tau-facts.js";
import {
  OBS_SLOTS,
  RESULT_SHAPES,
  parseFactPath,
  type ObservedFact,
  type ResultShape,
} from "./observations.js";

export interface ToolProfile {
  /** Argument holding the recipient(s), path or merchant: a string or a list of strings. */
  target?: string;
  /** Argument holding a filesystem-like path (AAP-2); committed as its path digest (sdk/core/paths.ts). */
  path?: string;
  /** Argument holding an amount, converted exactly to integer minor units. */
  amount?: { key: string; decimals: number };
  /** The fact AAP-6 and later predicates read from this tool's calls. */
  observe?: ObservedFact;
}

export interface EncodingProfile {
  version: 1;
  /** Every tool the agent may call. A call to a tool not listed here cannot be recorded. */
  tools: { [tool: string]: ToolProfile };
  /** How the harness records results (default "json"): where a fact's result path starts. */
  results?: ResultShape;
  /** Per-record bounds: the longest text a fact reads (default 65,536 characters). */
  bounds?: { text?: number };
  /**
   * A domain fact profile: every executed call observes its domain facts (sdk/core/rules/tau-facts.ts), which
   * the rule predicate (AAP-7) reads; a profile with facts has no tool `observe`.
   */
  facts?: TauDomain;
}

export class ProfileError extends ZkvaiError {
  static override readonly code: string = "BAD_PROFILE";
  override name = "ProfileError";
}

export function parseProfile(x: unknown): EncodingProfile {
  const fail = (m: string): never => {
    throw new ProfileError(`encoding profile: ${m}`);
  };
  if (typeof x !== "object" || x === null) fail("must be a JSON object");
  try {
    canonicalJson(x);
  } catch (e) {
    if (e instanceof CanonicalJsonError) fail(e.message);
    throw e;
  }
  const p = x as Record<string, unknown>;
  if (p.version !== 1) fail(`version must be 1, got ${JSON.stringify(p.version)}`);
  if (typeof p.tools !== "object" || p.tools === null || Array.isArray(p.tools))
    fail("tools must be an object");
  const tools: EncodingProfile["tools"] = {};
  for (const [name, spec] of Object.entries(p.tools as object)) {
    if (name.length === 0) fail("a tool name is empty");
    if (typeof spec !== "object" || spec === null) fail(`tool ${name}: must be an object`);
    const s = spec as Record<string, unknown>;
    const entry: ToolProfile = {};
    if (s.target !== undefined) {
      if (typeof s.target !== "string" || !s.target) fail(`tool ${name}: target must be an argument name`);
      entry.target = s.target as string;
    }
    if (s.path !== undefined) {
      if (typeof s.path !== "string" || !s.path) fail(`tool ${name}: path must be an argument name`);
      if (s.target !== undefined) fail(`tool ${name}: a tool reads a target or a path, not both`);
      entry.path = s.path as string;
    }
    if (s.amount !== undefined) {
      const a = s.amount as Record<string, unknown>;
      if (typeof a?.key !== "string" || !Number.isInteger(a.decimals) || (a.decimals as number) < 0) {
        fail(`tool ${name}: amount must be {key: string, decimals: integer >= 0}`);
      }
      entry.amount = { key: a.key as string, decimals: a.decimals as number };
    }
    if (s.observe !== undefined) entry.observe = parseFact(s.observe, `tool ${name}: observe`, fail);
    const extra = Object.keys(s).filter((k) => !["target", "path", "amount", "observe"].includes(k));
    if (extra.length) fail(`tool ${name}: unknown field(s) ${extra.join(", ")}`);
    tools[name] = entry;
  }
  const profile: EncodingProfile = { version: 1, tools };
  if (p.results !== undefined) {
    if (!RESULT_SHAPES.includes(p.results as ResultShape))
      fail(`results must be one of ${RESULT_SHAPES.join(", ")}; got ${JSON.stringify(p.results)}`);
    profile.results = p.results as ResultShape;
  }
  if (p.bounds !== undefined) {
    const b = p.bounds as Record<string, unknown>;
    if (typeof b !== "object" || b === null || Object.keys(b).some((k) => k !== "text"))
      fail("bounds must be an object with only `text`");
    if (b.text !== undefined && (!Number.isSafeInteger(b.text) || (b.text as number) < 1))
      fail("bounds.text must be an integer >= 1");
    profile.bounds = b.text === undefined ? {} : { text: b.text as number };
  }
  if (p.facts !== undefined) {
    if (!TAU_DOMAINS.includes(p.facts as TauDomain))
      fail(`facts must be one of ${TAU_DOMAINS.join(", ")}; got ${JSON.stringify(p.facts)}`);
    const observing = Object.entries(tools).find(([, t]) => t.observe !== undefined);
    if (observing !== undefined)
      fail(
        `tool ${observing[0]}: a profile with domain facts observes them for every call; drop the tool's observe`,
      );
    profile.facts = p.facts as TauDomain;
  }
  const extra = Object.keys(p).filter((k) => !["version", "tools", "results", "bounds", "facts"].includes(k));
  if (extra.length) fail(`unknown field(s) ${extra.join(", ")}`);
  return profile;
}

const FACT_KEYS = ["fact", "from", "path", "pattern", "normalise", "decimals", "max"];

function parseFact(x: unknown, what: string, fail: (m: string) => never): ObservedFact {
  if (typeof x !== "object" || x === null || Array.isArray(x)) fail(`${what} must be an object`);
  const f = x as Record<string, unknown>;
  const extra = Object.keys(f).filter((k) => !FACT_KEYS.includes(k));
  if (extra.length) fail(`${what}: unknown field(s) ${extra.join(", ")}`);
  if (typeof f.fact !== "string" || !f.fact) fail(`${what}.fact must be a name`);
  if (f.from !== "args" && f.from !== "result") fail(`${what}.from must be "args" or "result"`);
  if (typeof f.path !== "string") fail(`${what}.path must be a path such as "$.files[*].name"`);
  try {
    parseFactPath(f.path as string);
  } catch (e) {
    fail(`${what}: ${(e as Error).message}`);
  }
  const fact: ObservedFact = { fact: f.fact as string, from: f.from, path: f.path as string };
  if (f.pattern !== undefined) {
    if (typeof f.pattern !== "string" || !f.pattern) fail(`${what}.pattern must be a regular expression`);
    try {
      new RegExp(f.pattern as string, "gu");
    } catch (e) {
      fail(`${what}.pattern: ${(e as Error).message}`);
    }
    fact.pattern = f.pattern as string;
  }
  if (f.normalise !== undefined) {
    if (f.normalise !== "exact" && f.normalise !== "fold")
      fail(`${what}.normalise must be "exact" or "fold"`);
    fact.normalise = f.normalise;
  }
  if (f.decimals !== undefined) {
    if (!Number.isInteger(f.decimals) || (f.decimals as number) < 0)
      fail(`${what}.decimals must be an integer >= 0`);
    if (fact.pattern !== undefined) fail(`${what}: a fact reads a pattern or an amount, not both`);
    fact.decimals = f.decimals as number;
  }
  if (f.max !== undefined) {
    if (!Number.isInteger(f.max) || (f.max as number) < 1 || (f.max as number) > OBS_SLOTS)
      fail(
        `${what}.max must be an integer in 1..${OBS_SLOTS} (record encoding v3 holds ${OBS_SLOTS} values per record)`,
      );
    fact.max = f.max as number;
  }
  return fact;
}

/** The profile's commitment: keccak of its canonical JSON, reduced to the field. */
export function profileHash(profile: EncodingProfile): bigint {
  return keccakToField(canonicalJson(profile));
}
