// AAP-2 scope: every executed call to a scoped tool targets a path under a prefix
// that is active at that call.
//
// Semantics (VAI's scope promise, with segment-wise matching):
// - only executed calls count: a blocked record is not a call;
// - only calls to a tool in `scopedTools`; the path is the profile's `path`
//   argument of that tool (sdk/core/encoding.ts callPath);
// - paths and prefixes are normalised as POSIX normpath (sdk/core/paths.ts): `.` and
//   `..` are resolved first, so `/allowed/../etc/passwd` is `/etc/passwd`;
// - a prefix covers a path segment-wise: `/a/b` covers `/a/b` and `/a/b/c`, not
//   `/a/bc`; `/` covers every absolute path; a relative path is never covered;
// - the active set starts as `allowPrefixes`; a grant or revoke record of namespace
//   "scope" adds or removes its (normalised) prefix for every later record: a
//   record at seq j affects calls at seq > j. A revoke removes exactly that prefix
//   (also a declared one), not the prefixes under it;
// - fail-closed: a scoped call whose path argument is missing or null violates;
//   a non-string path is encoded as a marked relative path, which no prefix covers;
// - the verdict reports the first violating record.
// θ: scopedTools (1..2 tools), allowPrefixes (≤ 4 absolute prefixes of at most
// PREFIX_DEPTH = 4 segments, normalised, deduplicated, sorted). Scope grant values
// are bound by the same limits (the encoder refuses others, sdk/core/paths.ts prefixHash).
// VAI's names are accepted too (scoped_tools, allow_prefixes, match_key, grant_tool,
// revoke_tool, scope_key): ./vai.ts, with the profile entries and importer option they imply.
// Circuit: circuits/predicates/aap2_scope.circom with the active-at gadget
// circuits/gadgets/active_set.circom.
import { stringToField } from "../../hash.js";
import { MALFORMED_PATH_PREFIX, PathError, prefixHash } from "../../paths.js";
import type { EncodingProfile } from "../../profile.js";
import { namespaceEvents, checkThetaJson } from "../theta-common.js";
import { onlyKeys, stringSet } from "../theta-amounts.js";
import type { Aap2Theta } from "./theta.js";
import { aap2RecordInputs, checkedCalls, normalisePrefix } from "./scope-walk.js";
import { aap2Samples } from "./samples.js";
import { aap2Segment } from "./segment.js";
import { ThetaError, type PredicateDefinition, type Verdict } from "../types.js";
import { aap2Vai, parseVaiKeys, parseVaiParams, VAI_PARAMS, type Aap2VaiKeys } from "./vai.js";
import type { GrantToolSpec } from "../../import-vai.js";

const CAPS = { tools: 2, prefixes: 4 };
const NAMES = ["scopedTools", "allowPrefixes"] as const;

function fail(message: string): never {
  throw new ThetaError(message);
}

function prefixSet(x: unknown, what: string): string[] {
  if (!Array.isArray(x) || !x.every((s) => typeof s === "string" && s.length > 0)) {
    fail(`${what} must be a list of non-empty strings`);
  }
  const normal = (x as string[]).map((p) => {
    try {
      return normalisePrefix(p);
    } catch (e) {
      if (e instanceof PathError) fail(`${what}: ${e.message}`);
      throw e;
    }
  });
  const unique = [...new Set(normal)].sort();
  if (unique.length > CAPS.prefixes)
    fail(`${what} has ${unique.length} distinct prefixes; circuits hold ${CAPS.prefixes}`);
  return unique;
}

function vaiTheta(params: unknown): Aap2Theta & { vai: Aap2VaiKeys } {
  const theta = aap2Scope.parseTheta(params);
  if (!theta.vai) fail("AAP-2: these are zkVAI θ names, which imply no profile entries or grant tools");
  return theta as Aap2Theta & { vai: Aap2VaiKeys };
}

/** The encoding-profile entries VAI's AAP-2 params imply: each scoped tool reads its path from `match_key`. */
export function aap2ProfileFromVai(params: unknown): EncodingProfile["tools"] {
  return aap2Vai.profileTools(vaiTheta(params));
}

/**
 * The importer option VAI's AAP-2 params imply (sdk/core/import-vai.ts): calls to
 * `grant_tool` / `revoke_tool` become scope grant / revoke records of args[scope_key].
 */
export function aap2GrantToolsFromVai(params: unknown): Record<string, GrantToolSpec> {
  return aap2Vai.grantTools!(vaiTheta(params));
}

function padded(values: readonly bigint[], size: number): bigint[] {
  return [...values, ...Array<bigint>(size - values.length).fill(0n)];
}

function describePath(path: string): string {
  return path.startsWith(MALFORMED_PATH_PREFIX)
    ? `a non-string path ${path.slice(MALFORMED_PATH_PREFIX.length)}`
    : `path ${JSON.stringify(path)}`;
}

export const aap2Scope: PredicateDefinition<Aap2Theta, "AAP-2"> = {
  id: "AAP-2",
  code: 2,
  caps: CAPS,
  samples: aap2Samples,
  segment: aap2Segment,

  parseTheta(x) {
    checkThetaJson(x, "AAP-2");
    if (typeof x !== "object" || x === null || Array.isArray(x)) fail("AAP-2 θ must be an object");
    const t = x as Record<string, unknown>;
    if (VAI_PARAMS.some((k) => k in t)) {
      if (NAMES.some((k) => k in t))
        fail(`AAP-2 θ mixes zkVAI names (${NAMES.join(", ")}) with VAI's (${VAI_PARAMS.join(", ")})`);
      onlyKeys(t, VAI_PARAMS, "AAP-2 params");
      return parseVaiParams(t, { tools: CAPS.tools, prefixes: prefixSet });
    }
    onlyKeys(t, [...NAMES, "vai"], "AAP-2 θ");
    const scopedTools = stringSet(t.scopedTools, "AAP-2 θ: scopedTools", CAPS.tools);
    if (scopedTools.length === 0) fail("AAP-2 θ: scopedTools is empty, so the promise says nothing");
    const theta: Aap2Theta = {
      scopedTools,
      allowPrefixes: prefixSet(t.allowPrefixes, "AAP-2 θ: allowPrefixes"),
    };
    // A parsed θ parses to itself, with the keys its VAI params implied.
    if (t.vai !== undefined) theta.vai = parseVaiKeys(t.vai);
    return theta;
  },

  vai: aap2Vai,

  checkProfile(theta, profile) {
    for (const tool of theta.scopedTools) {
      const path = profile.tools[tool]?.path;
      if (path === undefined)
        fail(`AAP-2 θ: the encoding profile does not read a path for scoped tool "${tool}"`);
      if (theta.vai && path !== theta.vai.matchKey) {
        fail(
          `AAP-2 θ: the params read scoped tool "${tool}"'s path as "${theta.vai.matchKey}", but the encoding profile reads "${path}"`,
        );
      }
    }
  },

  thetaVector(theta) {
    return [
      BigInt(this.code),
      BigInt(CAPS.tools),
      BigInt(CAPS.prefixes),
      ...padded(theta.scopedTools.map(stringToField), CAPS.tools),
      ...padded(theta.allowPrefixes.map(prefixHash), CAPS.prefixes),
    ];
  },

  eventCount: namespaceEvents("scope"),

  evaluate(records, theta, profile): Verdict {
    for (const call of checkedCalls(records, theta, profile)) {
      if (call.path === undefined) {
        return {
          violated: true,
          seq: call.record.seq,
          reason: `scope: ${call.record.tool} has no path (argument "${profile.tools[call.record.tool].path}" missing or null)`,
        };
      }
      if (call.cover === undefined) {
        const list = [...call.active].sort().map((p) => JSON.stringify(p));
        const where = list.length
          ? `is under none of the active prefixes ${list.join(", ")}`
          : "while no prefix is active";
        return {
          violated: true,
          seq: call.record.seq,
          reason: `scope: ${call.record.tool} ${describePath(call.path)} ${where}`,
        };
      }
    }
    return { violated: false, seq: null, reason: "" };
  },

  circuitInputs(theta) {
    return {
      tools: padded(theta.scopedTools.map(stringToField), CAPS.tools).map(String),
      prefixes: padded(theta.allowPrefixes.map(prefixHash), CAPS.prefixes).map(String),
    };
  },

  recordInputs(records, theta, profile, capacity) {
    return aap2RecordInputs(records, theta, profile, capacity);
  },
};

export type { Aap2Theta } from "./theta.js";
export { aap2UncoveredCalls, normalisePrefix, PATH_WITNESS_WIDTH } from "./scope-walk.js";
