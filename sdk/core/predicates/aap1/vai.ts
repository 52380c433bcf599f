// VAI's dialect of AAP-1 (its no_destructive_without_consent v3 promise). VAI names the gated tools
// destructive_tools, and its authorization_mode must be "invocation": VAI's default when the mode is
// absent is its legacy target/scope mode, which AAP-1 does not express, so VAI-form params must say
// "invocation" outright. VAI has no authority list (parseTheta's default, DEFAULT_AUTHORITIES, is
// what it accepts). AAP-1 reads only what every profile encodes and has no grant tools, so the
// params imply nothing beyond θ.
import { ThetaError, type VaiDialect } from "../types.js";
import type { Aap1Theta } from "./theta.js";

function fail(message: string): never {
  throw new ThetaError(`AAP-1 θ: ${message}`);
}

/**
 * Which field of raw θ holds the gated tools (VAI's destructive_tools or zkVAI's gatedTools), after
 * the checks on authorization_mode, which either form may carry.
 */
export function gatedToolsField(t: Record<string, unknown>): { value: unknown; name: string } {
  if (t.gatedTools !== undefined && t.destructive_tools !== undefined) {
    fail("give gatedTools or VAI's destructive_tools, not both");
  }
  const vai = t.destructive_tools !== undefined;
  if (vai && t.authorization_mode === undefined) {
    fail(
      'authorization_mode is missing; VAI then means its legacy target/scope mode, and only "invocation" is supported',
    );
  }
  if (t.authorization_mode !== undefined && t.authorization_mode !== "invocation") {
    fail(`authorization_mode ${JSON.stringify(t.authorization_mode)} is not supported; only "invocation" is`);
  }
  return vai
    ? { value: t.destructive_tools, name: "destructive_tools" }
    : { value: t.gatedTools, name: "gatedTools" };
}

export const aap1Vai: VaiDialect<Aap1Theta> = {
  predicateNames: [],
  profileTools: () => ({}),
};
