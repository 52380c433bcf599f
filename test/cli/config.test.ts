// Where each `vai` setting comes from: flag > environment > config file > deployment file (URL) > default.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_RPC_URL, loadConfig, rpcUrlFor } from "../../bin/cli/config.js";
import { InputError } from "../../bin/cli/common.js";

const KEY_A = `0x${"a1".repeat(32)}`;
const KEY_B = `0x${"b2".repeat(32)}`;

function workspace(config?: Record<string, unknown>) {
  const cwd = mkdtempSync(join(tmpdir(), "zkvai-config-"));
  const projectDir = join(cwd, "project");
  mkdirSync(projectDir);
  const file = join(projectDir, "vai.config.json");
  if (config) writeFileSync(file, JSON.stringify(config));
  return { cwd, projectDir, file };
}

describe("loadConfig", () => {
  it("uses the defaults when nothing is set, and no config file is implied without ./vai.config.json", () => {
    const { cwd } = workspace();
    const c = loadConfig({}, {}, cwd);
    expect(c).toMatchObject({
      rpcUrl: undefined,
      privateKey: undefined,
      userPrivateKey: undefined,
      deployment: join(cwd, ".vai/deployment.json"),
      store: join(cwd, ".vai/store.sqlite"),
      configFile: undefined,
    });
    expect(rpcUrlFor(c)).toBe(DEFAULT_RPC_URL);
    expect(rpcUrlFor(c, "http://127.0.0.1:9999")).toBe("http://127.0.0.1:9999");
  });

  it("keeps a postgres:// store URL as it is, from a flag, the environment or a config file", () => {
    const url = "postgres://vai@db.internal:5432/traces";
    const { cwd, file } = workspace({ store: url });
    expect(loadConfig({ store: url }, {}, cwd).store).toBe(url);
    expect(loadConfig({}, { VAI_STORE: "postgresql://vai@db/traces" }, cwd).store).toBe(
      "postgresql://vai@db/traces",
    );
    expect(loadConfig({}, { VAI_CONFIG: file }, cwd).store).toBe(url);
  });

  it("reads the config file, resolving its paths against the file's folder", () => {
    const { cwd, projectDir, file } = workspace({
      rpcUrl: "http://10.0.0.1:8545",
      privateKey: KEY_A.slice(2),
      deployment: "deployments/test.json",
      store: "/var/vai/store.sqlite",
    });
    const c = loadConfig({}, { VAI_CONFIG: file }, cwd);
    expect(c).toMatchObject({
      rpcUrl: "http://10.0.0.1:8545",
      privateKey: KEY_A,
      deployment: join(projectDir, "deployments/test.json"),
      store: "/var/vai/store.sqlite",
      configFile: file,
    });
    expect(c.sources).toMatchObject({ rpcUrl: "vai.config.json", privateKey: "vai.config.json" });
    // The configured URL wins over the deployment file's.
    expect(rpcUrlFor(c, "http://127.0.0.1:9999")).toBe("http://10.0.0.1:8545");
  });

  it("lets the environment override the file, and a flag override the environment", () => {
    const { cwd, file } = workspace({ rpcUrl: "http://file:1", privateKey: KEY_A, store: "file.sqlite" });
    const env = {
      VAI_CONFIG: file,
      VAI_RPC_URL: "http://env:2",
      VAI_PRIVATE_KEY: KEY_B,
      VAI_STORE: "env.sqlite",
    };
    const fromEnv = loadConfig({}, env, cwd);
    expect(fromEnv).toMatchObject({
      rpcUrl: "http://env:2",
      privateKey: KEY_B,
      store: join(cwd, "env.sqlite"),
    });
    const fromFlags = loadConfig({ "rpc-url": "http://flag:3", store: "flag.sqlite" }, env, cwd);
    expect(fromFlags).toMatchObject({ rpcUrl: "http://flag:3", store: join(cwd, "flag.sqlite") });
    expect(fromFlags.sources).toMatchObject({
      rpcUrl: "--rpc-url",
      store: "--store",
      privateKey: "VAI_PRIVATE_KEY",
    });
    // An empty variable counts as unset, as shells often leave them.
    expect(loadConfig({}, { ...env, VAI_RPC_URL: "" }, cwd).rpcUrl).toBe("http://file:1");
  });

  it("finds ./vai.config.json in the working folder, and --config names another", () => {
    const { projectDir, cwd } = workspace({ store: "here.sqlite" });
    expect(loadConfig({}, {}, projectDir).store).toBe(join(projectDir, "here.sqlite"));
    const other = join(cwd, "other.json");
    writeFileSync(other, JSON.stringify({ store: "there.sqlite" }));
    expect(loadConfig({ config: other }, {}, projectDir).store).toBe(join(cwd, "there.sqlite"));
  });

  it("refuses a bad file or value with an InputError naming it", () => {
    const { cwd, file } = workspace({ deployment: 7 });
    const cases: [() => unknown, RegExp][] = [
      [() => loadConfig({}, { VAI_CONFIG: file }, cwd), /"deployment" must be a non-empty string/],
      [() => loadConfig({ config: "missing.json" }, {}, cwd), /missing.json \(--config\) does not exist/],
      [() => loadConfig({}, { VAI_USER_PRIVATE_KEY: "0xzz" }, cwd), /^VAI_USER_PRIVATE_KEY: a private key/],
      [() => loadConfig({ "rpc-url": "localhost:8545" }, {}, cwd), /RPC URL "localhost:8545" \(--rpc-url\)/],
    ];
    for (const [run, message] of cases) {
      expect(run).toThrow(InputError);
      expect(run).toThrow(message);
    }
  });
});
