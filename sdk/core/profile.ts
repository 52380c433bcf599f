// The encoding profile: per tool, which argument holds the target(s) and which
// holds the amount. It decides what the circuits see of each call, so its hash is
// committed when a session opens and pinned by every promise that covers it.
import { CanonicalJsonError, canonicalJson } from "./canonical.js";
import { keccakToField } from "./hash.js";
import { ZkvaiError } from "./errors.js";

export interface ToolProfile {
  /** Argument holding the recipient(s), path or merchant: a string or a list of strings. */
  target?: string;
  /** Argument holding a filesystem-like path (AAP-2); committed as its path digest (sdk/core/paths.ts). */
  path?: string;
  /** Argument holding an amount, converted exactly to integer minor units. */
  amount?: { key: string; decimals: number };
}

export interface EncodingProfile {
  version: 1;
  /** Every tool the agent may call. A call to a tool not listed here cannot be recorded. */
  tools: { [tool: string]: ToolProfile };
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
    const extra = Object.keys(s).filter((k) => !["target", "path", "amount"].includes(k));
    if (extra.length) fail(`tool ${name}: unknown field(s) ${extra.join(", ")}`);
    tools[name] = entry;
  }
  return { version: 1, tools };
}

/** The profile's commitment: keccak of its canonical JSON, reduced to the field. */
export function profileHash(profile: EncodingProfile): bigint {
  return keccakToField(canonicalJson(profile));
}
