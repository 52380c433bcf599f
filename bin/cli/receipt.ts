// vai receipt check|post: the user's side of a provider-signed receipt (docs/PROTOCOL.md "Receipts").
import { readFileSync } from "node:fs";
import { checkReceiptOrThrow, receiptDeadline, receiptLines } from "../../sdk/user/receipt-check.js";
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

function readReceiptText(file: string | undefined): string {
  if (!file) throw new InputError("missing <receipt.json>");
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new InputError(`cannot read ${file}: ${(e as Error).message}`);
  }
  return text;
}

/** The receipt checked as postReceipt will check it, and against the escrow the command connects to. */
async function checked(argv: string[], wallet: boolean) {
  const { values, positionals } = parseCommand(
    argv,
    { ...CHAIN_OPTIONS, spare: { type: "boolean", default: false } },
    ["receipt.json"],
  );
  const text = readReceiptText(positionals[0]);
  const { escrow } = await connect(values, { role: parseRole(values.as, "user"), wallet });
  const { receipt, signer, session } = await checkReceiptOrThrow(escrow, text);
  return { values, receipt, escrow, signer, session };
}

const HANDLERS: Record<string, (argv: string[]) => Promise<void>> = {
  async check(argv) {
    const { values, receipt, escrow, signer, session } = await checked(argv, false);
    const short = session.closed && receipt.n > session.finalN;
    const deadline = await receiptDeadline(escrow, receipt.sessionId, session);
    output(
      values.json,
      {
        ok: true,
        signer,
        n: receipt.n,
        sessionClosed: session.closed,
        closedShort: short,
        postUntil: deadline.until === null ? null : Number(deadline.until),
      },
      () => {
        const [first, advice] = receiptLines(receipt, signer, session);
        return [first!, `  ${advice}`, `  ${deadline.line}`];
      },
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
