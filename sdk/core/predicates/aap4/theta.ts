// AAP-4's θ as parseTheta returns it (./definition.ts parses, hashes and evaluates it; ./vai.ts reads VAI's
// names for it). Its own file so that the definition and the dialect both import it and not each other.

export interface Aap4Theta {
  outboundTools: string[];
  allowlist: string[];
  /** Set when θ came from VAI's names: the profile and importer keys they imply (not hashed). */
  vai?: { recipientKey: string; grantTool: string; revokeTool: string };
}
