// vai session show: a session as the chain committed it, next to what the local store can reproduce.
import { chainHead, encodeTrace } from "../../sdk/core/encoding.js";
import { commitmentRoot } from "../../sdk/core/merkle.js";
import {
  CHAIN_OPTIONS,
  HELP,
  InputError,
  hex64,
  output,
  parseCommand,
  parseSessionId,
  runCommand,
  type Command,
} from "./common.js";
import { USAGE } from "./usage.js";
import { connect, openStore, storeName } from "./connect.js";

export const sessionCommand: Command = {
  usage: USAGE.session,
  run: async (argv) => {
    const [name, ...rest] = argv;
    if (name !== "show")
      return runCommand("session", USAGE.session, async () => {
        if (name === "--help" || name === "-h") throw HELP;
        throw new InputError(
          name === undefined ? "missing subcommand: show" : `unknown subcommand "${name}": show`,
        );
      });
    return runCommand("session show", USAGE.session, () => show(rest));
  },
};

interface Commitment {
  kind: "checkpoint" | "final";
  n: number;
  root: bigint;
  /** null when the store cannot say (no session, too few records). */
  reproduced: boolean | null;
}

async function show(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand(argv, CHAIN_OPTIONS, ["sessionId"]);
  const sessionId = parseSessionId(positionals[0]);
  const { escrow, config } = await connect(values, { wallet: false });
  const s = await escrow.session(sessionId);
  const checkpoints = await escrow.checkpointsOf(sessionId);

  const store = openStore(config, false);
  const stored = store?.session(sessionId);
  const records = stored ? store!.records(sessionId) : [];
  store?.close();
  const leaves = stored ? encodeTrace(records, stored.profile, stored.secret).map((r) => r.leaf) : [];
  const reproduces = (n: number, root: bigint): boolean | null =>
    stored && n >= 1 && n <= leaves.length ? chainHead(leaves, n) === root : null;

  const commitments: Commitment[] = checkpoints.map((c) => ({
    kind: "checkpoint",
    n: c.n,
    root: c.root,
    reproduced: reproduces(c.n, c.root),
  }));
  if (s.closed)
    commitments.push({
      kind: "final",
      n: s.finalN,
      root: s.finalRoot,
      reproduced:
        stored && s.finalN <= leaves.length
          ? commitmentRoot(leaves.slice(0, s.finalN)) === s.finalRoot
          : null,
    });
  const local = {
    path: storeName(config),
    sessionStored: !!stored,
    profileMatches: stored ? stored.profileHash === s.profileHash : null,
    records: records.length,
    reproducesAll:
      !!stored && commitments.every((c) => c.reproduced === true) && stored.profileHash === s.profileHash,
  };
  const result = { sessionId, ...s, checkpoints: commitments, store: local };
  const mark = (c: Commitment) =>
    c.reproduced === null ? "cannot check" : c.reproduced ? "reproduced" : "DIFFERS";
  output(values.json, result, () => [
    `session ${sessionId}`,
    `  provider ${s.provider}, user ${s.user}`,
    `  ${s.closed ? `closed at ${new Date(Number(s.closedAt) * 1000).toISOString()}: ${s.finalN} records` : `open: ${s.lastN} records checkpointed`}, ${s.checkpointCount} checkpoint(s)`,
    ...commitments.map(
      (c) => `  ${c.kind.padEnd(10)} n=${String(c.n).padEnd(4)} root ${hex64(c.root)}  store: ${mark(c)}`,
    ),
    stored
      ? `  store ${storeName(config)}: ${records.length} record(s); profile ${local.profileMatches ? "matches" : "DIFFERS from"} the committed one`
      : `  store ${storeName(config)}: no such session`,
  ]);
}
