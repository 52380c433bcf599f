// vai receipt check|post: the user's side of a provider-signed receipt (docs/PROTOCOL.md "Receipts").
import { readFileSync } from "node:fs";
import { parseReceiptJson, verifyReceipt } from "../../sdk/chain/receipts.js";
import { CHAIN_OPTIONS, HELP, InputError, output, parseCommand, runCommand, type Command } from "./common.js";
import { USAGE } from "./usage.js";
import { connect, parseRole } from "./connect.js";

export const receiptCommand: Command = {
  usage: USAGE.receipt,
  run: async (argv) => {
    const [name, ...rest] = argv;
    const handler = name ? HANDLERS[name] : undefined;
    if (!handler)
      return runCommand("receipt", USAGE.receipt, async () => {
        if (name === "--help" || name === "-h") throw HELP;
        const known = Object.keys(HANDLERS).join(", ");
        throw new InputError(
          name === undefined ? `missing subcommand: ${known}` : `unknown subcommand "${name}": ${known}`,
        );
      });
    return runCommand(`receipt ${name}`, USAGE.receipt, () => handler(rest));
  },
};

function readReceipt(file: string | undefined) {
  if (!file) throw new InputError("missing <receipt.json>");
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new InputError(`cannot read ${file}: ${(e as Error).message}`);
  }
  return parseReceiptJson(text);
}

/** The receipt checked as postReceipt will check it, and against the escrow the command connects to. */
async function checked(argv: string[], wallet: boolean) {
  const { values, positionals } = parseCommand(
    argv,
    { ...CHAIN_OPTIONS, spare: { type: "boolean", default: false } },
    ["receipt.json"],
  );
  const receipt = readReceipt(positionals[0]);
  const { escrow } = await connect(values, { role: parseRole(values.as, "user"), wallet });
  if (
    receipt.chainId !== escrow.chain.chainId ||
    receipt.escrow.toLowerCase() !== escrow.address.toLowerCase()
  )
    throw new InputError(
      `the receipt is for escrow ${receipt.escrow} on chain ${receipt.chainId}, not ${escrow.address} on chain ${escrow.chain.chainId}`,
    );
  const check = await verifyReceipt(
    { chainId: receipt.chainId, escrow: receipt.escrow },
    receipt,
    receipt.signature,
  );
  if (!check.ok) throw new InputError(`the escrow would refuse this receipt: ${check.message}`);
  const session = await escrow.session(receipt.sessionId);
  return { values, receipt, escrow, signer: check.signer, session };
}

const HANDLERS: Record<string, (argv: string[]) => Promise<void>> = {
  async check(argv) {
    const { values, receipt, signer, session } = await checked(argv, false);
    const short = session.closed && receipt.n > session.finalN;
    output(
      values.json,
      { ok: true, signer, n: receipt.n, sessionClosed: session.closed, closedShort: short },
      () => [
        `receipt for the first ${receipt.n} records of session ${receipt.sessionId}, signed by its provider ${signer}`,
        session.closed
          ? short
            ? `  the session closed at ${session.finalN} records, fewer than this receipt: post it (vai receipt post) and every claim defaults to you`
            : `  the session closed at ${session.finalN} records; post it if you doubt the history behind the checkpoints`
          : `  the session is open: ${session.checkpointCount} entries, the last at ${session.lastN} records`,
      ],
    );
  },
  async post(argv) {
    const { values, receipt, escrow, session } = await checked(argv, true);
    // After close only the spare can be posted; before close it is spent only when asked (--spare), since
    // the one spare is the user's answer to a short close or a rewritten history.
    const spare = session.closed || values.spare === true;
    if (spare && session.spareReceiptUsed)
      throw new InputError(`session ${receipt.sessionId} has already used its one spare receipt`);
    const tx = await escrow.postReceipt(receipt, receipt.signature, { spare });
    output(values.json, { ...tx, root: `0x${tx.root.toString(16)}`, acc: `0x${tx.acc.toString(16)}` }, () => [
      `receipt for ${tx.n} records folded into session ${receipt.sessionId}${tx.spare ? " as its spare entry" : ""}; tx ${tx.txHash}`,
    ]);
  },
};
