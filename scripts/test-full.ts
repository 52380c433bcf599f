// `npm run test:full`: the runs test/suites.ts lists, one vitest process each, stopping at the first failure,
// after building the circuits only its suites need (the instances of group "full", beyond npm test's "test").
import { spawnSync } from "node:child_process";
import { FULL_RUNS } from "./lib/test-suites.js";

const built = spawnSync("npx", ["tsx", "scripts/setup.ts", "--group", "full"], { stdio: "inherit" });
if (built.status !== 0) {
  console.error(`test:full: setup --group full exited with ${built.signal ?? built.status}`);
  process.exit(built.status ?? 1);
}

for (const run of FULL_RUNS) {
  const args = ["vitest", "run", ...run.files, ...(run.only ? ["-t", run.only] : [])];
  console.log(
    `test:full: ${Object.entries(run.env)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ")} npx ${args.join(" ")}`,
  );
  const { status, signal } = spawnSync("npx", args, {
    stdio: "inherit",
    env: { ...process.env, ...run.env },
  });
  if (status !== 0) {
    console.error(`test:full: vitest exited with ${signal ?? status}`);
    process.exit(status ?? 1);
  }
}
