// Every `vai` command's help text, in a module with no dependencies: `vai <command> --help` answers without
// loading viem, snarkjs or the prover.
export const CHAIN_FLAGS_HELP = `common options:
  --rpc-url <url>      JSON-RPC endpoint (env VAI_RPC_URL; default http://127.0.0.1:8545)
  --deployment <file>  deployment file (env VAI_DEPLOYMENT; default .vai/deployment.json)
  --store <file|url>   provider's trace store: a SQLite file, or a postgres:// URL (run
                       \`vai store migrate\` first) (env VAI_STORE; default .vai/store.sqlite)
  --config <file>      config file (env VAI_CONFIG; default ./vai.config.json if present)
  --as provider|user   send as the provider (VAI_PRIVATE_KEY, else the node's 1st account) or the
                       user (VAI_USER_PRIVATE_KEY, else the node's 2nd account)
  --json               print the result as one JSON object
exit codes: 0 done, 1 the operation failed (chain, proof, store), 2 bad input or configuration`;

export const USAGE = {
  store: `usage: vai store migrate [--store <file|url>] [--config <file>] [--json]

Brings the trace store's schema up to this version of vai, and says which migrations it applied.
A Postgres store (--store postgres://user@host:5432/db, or VAI_STORE) is opened only once its schema
is current: run this after installing or upgrading vai. Migrations are numbered, applied in order in
one transaction, and recorded in the schema_migrations table; two hosts migrating at once apply each
once. A SQLite store makes its schema when it is opened, so there is nothing to migrate.
exit codes: 0 up to date, 1 the migration failed (nothing of it is applied), 2 bad input`,
  setup: `usage: vai setup [--ptau <file>] [--group test|demo|bench|bench-large] [--only <circuit>] [--force]

Builds the circuits of circuits/instances.json (all, one group, or one instance): r1cs, wasm,
Groth16 keys, a Solidity verifier each, the contracts, and build/manifest.json; then prints the
manifest: circuit, constraints, zkey sha256, verifier contract. Unchanged stages are cached.
  --ptau <file>   a prepared bn128 powers-of-tau file (as VAI_PTAU); without one, an INSECURE
                  development ptau is generated
  --group <name>  only the instances of one group
  --only <name>   only one instance
  --force         rebuild every stage
exit codes: 0 built, 1 the build failed, 2 bad input`,
  demo: `usage: vai demo

Builds the demo circuit if needed (vai setup --group demo), then runs the whole insurance loop on
an in-process chain: an AAP-4 promise, three sessions, three claims, two settled by proofs and one
by default. Exits non-zero if any money moves differently from the protocol.
exit codes: 0 the demo's checks passed, 1 they did not (or the build failed), 2 bad input`,
  node: `usage: vai node [--port 8545] [--deployment <file>] [--receipt-window <s>] [--verbose]

Starts a local chain (\`hardhat node\`, chain 31337, 20 funded unlocked accounts), deploys
zkVAI on it (Poseidon(3), one verifier per circuit in build/manifest.json, the Escrow) from the
first account, writes the deployment file (default .vai/deployment.json, or VAI_DEPLOYMENT) and
stays up until Ctrl-C / SIGTERM, which stops the node. The chain lives in memory only.
  --port <n>     JSON-RPC port on 127.0.0.1 (default 8545)
  --verbose      print the node's own log (every request) on stderr
  --receipt-window <s>   seconds settle waits after a session's close, for the user's receipt
                         (default 0 on this development node: a claim settles right after close;
                         vai deploy's default for real chains is 3600)
exit codes: 0 stopped by a signal, 1 the node or the deployment failed, 2 bad input`,
  deploy: `usage: vai deploy [--rpc-url <url>] [--deployment <file>] [--force]

Deploys zkVAI (Poseidon(3), one verifier per circuit in build/manifest.json, the Escrow) onto the
configured chain from the provider account (VAI_PRIVATE_KEY, else the node's first unlocked
account), and writes the deployment file. Any EVM chain with the BN254 precompiles works.
  --force              overwrite an existing deployment file
  --receipt-window <s> seconds settle waits after a session's close, for the user's spare receipt
                       (default 3600; 0 settles at once, for development chains only)
  --rpc-url <url>      JSON-RPC endpoint (env VAI_RPC_URL; default http://127.0.0.1:8545)
  --deployment <file>  where to write (env VAI_DEPLOYMENT; default .vai/deployment.json)
  --config <file>      config file (env VAI_CONFIG; default ./vai.config.json if present)
  --json               print the deployment as JSON
exit codes: 0 deployed, 1 a transaction failed, 2 bad input or configuration`,
  promise: `usage: vai promise register|fund|retire|show|check …

  vai promise register --file promise.json [--payout <eth>] [--reserve <eth>]
      registers a promise backed by a reserve; keeps its θ in the trace store for proving.
      promise.json: {"predicate": a registered id (e.g. "AAP-4"), "params": {...} (or "theta"), "profile": {...},
                     "payout"?: "<eth>", "reserve"?: "<eth>"}; flags override the file's amounts,
      and the reserve defaults to the payout.
  vai promise fund <promiseId> --amount <eth>     adds to the reserve (anyone may)
  vai promise retire <promiseId>                  ends new coverage (provider only)
  vai promise show <promiseId>                    on-chain terms, and whether θ is in the store
  vai promise check <promiseId> [--manifest f] [--session 0x…] [--verbose]
      a user's check before relying on a promise, with the manifest and the chain alone: the escrow
      and its Poseidon(3) are this package's contracts compiled, and every verifier a claim can be
      settled through (whole-claim and segment) runs the code compiled from its manifest circuit's
      key, with every checksum \`vai verify\` checks; then the reserve free to cover new sessions
      (each covered session has its payout earmarked since it opened). --session <id>: also whether
      that session is covered, its earmark and until when it can be claimed. Says so when the
      manifest marks the keys as INSECURE development keys. Exit 1 with the reason when a check fails.

${CHAIN_FLAGS_HELP}`,
  session: `usage: vai session show <sessionId>

Prints the session's on-chain state (provider, user, checkpoints, closed, final root and count)
and what the local trace store holds for it: the record count and, for each on-chain commitment,
whether the stored records reproduce its root (they must, for a claim on it to be provable).

${CHAIN_FLAGS_HELP}`,
  receipt: `usage: vai receipt check|post <receipt.json>

A receipt is the provider's signature over the chain head of a session's first n records
(session.receipt(), docs/PROTOCOL.md "Receipts"), as JSON: {sessionId, n, root, chainId, escrow,
signature}.
  vai receipt check <receipt.json>   checks it as the escrow will (signer = the session's provider,
                                     this chain, this escrow) and says whether the session closed short
  vai receipt post <receipt.json> [--spare]
      posts it, as the session's user (default --as user): it folds into the session's checkpoints,
      so a session closed short of it, or over another history, can no longer be proven and its claims
      default to the user. After close it is the session's one spare entry; before close it must
      follow the checkpoint rules unless --spare spends the spare on it. Best: keep your receipts and
      post the highest one after close (settle waits the escrow's receipt window for it).

${CHAIN_FLAGS_HELP}`,
  claim: `usage: vai claim file|status|default …

  vai claim file <sessionId> --promise <promiseId> --bond <eth>
      files a claim on the session under the promise, as the session's user (default --as user)
  vai claim status <claimId>     state of the claim, the proof window, and how it was resolved
  vai claim default <claimId>    after 3 days without a proof: pays the user payout + bond (anyone)

${CHAIN_FLAGS_HELP}`,
  prove: `usage: vai prove <claimId> [--dry-run] [--workers <n>]

Answers an open claim: checks that the stored records reproduce every on-chain commitment of
the session and that the stored θ hashes to the promise's, evaluates the promise, proves the
outcome with the smallest fitting circuit, verifies the proof locally, and settles the claim
(violated: the user gets payout + bond; satisfied: the provider gets the bond). A session longer
than every whole-claim circuit is proven in segments (docs/PROTOCOL.md "Segmented settlement"):
each segment in a local worker process, sent with proveSegment, and the chain settled once; a run
that stopped halfway resumes with the segments the escrow does not hold yet.
  --dry-run       prove and verify locally, send nothing (whole-claim circuits only)
  --workers <n>   worker processes for segments (default 1)

${CHAIN_FLAGS_HELP}`,
  watch: `usage: vai watch [--poll-ms <ms>] [--confirmations <n>] [--memory-mb <MB>] [--state <file>]
                 [--workers <n>] [--lease-ms <ms>]

Watches the escrow for claims on this provider's promises and answers each with a proof from the
trace store, until Ctrl-C / SIGTERM. Logs one JSON object per line on stderr. Progress survives a
restart through the state file (which claims are answered, which blocks were scanned).
With a postgres:// store, any number of watchers (on any hosts) may run on one escrow: one holds a
lease in the store and answers, the others wait as standbys ("lease.standby") and one takes over
("lease.acquired") within --lease-ms of the holder's death. With a SQLite store, one per state file.
  --poll-ms <ms>         how often to look for new claims (default: the watcher's)
  --confirmations <n>    blocks a claim must be buried under before it is answered
  --memory-mb <MB>       memory budget for concurrent proofs
  --state <file>         the watcher's SQLite state (default: watcher.sqlite next to the store,
                         or .vai/watcher.sqlite for a postgres:// store)
  --workers <n>          worker processes for the segments of long sessions (default 1)
  --lease-ms <ms>        postgres:// store only: how long the lease outlives its holder (default
                         15000; renewed every third of it; env VAI_WATCH_LEASE_MS)
  --debug                log debug events too

${CHAIN_FLAGS_HELP}`,
  verify: `usage: vai verify <claimId> [--manifest <file>] [--escrow <address> [--from-block <n>]]

Checks, trusting only the chain, the manifest and this package, that claim <claimId> was settled
by a valid proof: finds its ClaimSettled event and transaction, decodes the proof from the calldata,
rebuilds the public inputs from the escrow's storage, re-verifies the Groth16 proof with the
circuit's verification key, and checks that the escrow and its Poseidon(3) run this package's
contracts/ compiled with solc-js, and that the verifier the escrow called runs the code compiled
from the verifier source regenerated from the manifest's key (its sha256, and the key's, as the
manifest records). No build folder is needed: a manifest written by setup embeds its keys.
Prints one line:
  "settlement valid: …"                   the proof holds and the money followed it
  "settlement valid under INSECURE development keys: …"   the same, but the manifest marks the
                                          keys as development keys anyone can forge proofs against
  "settlement NOT valid: <reason>"        a link of the evidence does not hold
  "settlement NOT verified: <reason>"     evidence is missing (e.g. an old manifest without keys)
  "claim <id> does not exist …", "claim <id> is not settled yet: …", "claim <id> was not settled
  by a proof: it defaulted …"             there is no proof to check
  --manifest <file>     manifest to trust (default build/manifest.json); paths in it are relative
                        to the build it describes, and never lead outside it
  --escrow <address>    the escrow to ask, instead of the deployment file's
  --from-block <n>      first block to search for the settlement (with --escrow; default 0)
  --recompile           accepted for older scripts: every check now compiles from source
  --verbose             list every check that passed
  --rpc-url, --deployment, --config, --json: as for the other commands (see \`vai claim --help\`)
exit codes: 0 valid (also under insecure keys: the line and --json's "insecureKeys" say so),
            1 not valid or could not be checked, 2 bad input, 3 no proof to check (no such claim,
            not settled yet, defaulted)`,
  page: `usage: vai page [--port 8080] [--host 127.0.0.1] [--dir <folder>]

Serves the check page as static files: a user opens it, gives a JSON-RPC URL and an escrow address
(or a link carries them: ?rpc=<url>&escrow=<address>&claim=<id> or &promise=<id>), and the browser
runs the same checks as \`vai verify\` and \`vai promise check\`, the Groth16 proof included, with the
manifest the page was built with. Nothing is sent anywhere but to that JSON-RPC URL.
  --port <n>        port to listen on (default 8080; 0 picks a free one)
  --host <addr>     address to listen on (default 127.0.0.1)
  --dir <folder>    the built page (default: the package's dist/page, from \`npm run build:page\`);
                    a provider may host that folder anywhere as plain files instead`,
} as const;
