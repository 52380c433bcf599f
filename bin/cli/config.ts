// Configuration of the `vai` commands. Each value comes from, in order: a flag, the environment, the config
// file, the deployment file (rpcUrl only: the node it was written for), the default. Every problem is an
// InputError naming the value and where it came from; a private key is never printed.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Hex } from "viem";
import { InputError } from "./common.js";
import { isPostgresUrl } from "../../sdk/provider/store-postgres.js";

export interface VaiConfig {
  /** Undefined when neither a flag, the environment nor the config file sets it (see rpcUrlFor). */
  rpcUrl?: string;
  privateKey?: Hex;
  userPrivateKey?: Hex;
  /** Absolute paths. */
  deployment: string;
  store: string;
  /** Where each value that is set came from ("--rpc-url", "VAI_RPC_URL", "vai.config.json", "default"). */
  sources: Partial<Record<ConfigKey, string>>;
  configFile?: string;
}

export const DEFAULT_RPC_URL = "http://127.0.0.1:8545";
const KEYS = ["rpcUrl", "privateKey", "userPrivateKey", "deployment", "store"] as const;
type ConfigKey = (typeof KEYS)[number];

const ENV: Record<ConfigKey, string> = {
  rpcUrl: "VAI_RPC_URL",
  privateKey: "VAI_PRIVATE_KEY",
  userPrivateKey: "VAI_USER_PRIVATE_KEY",
  deployment: "VAI_DEPLOYMENT",
  store: "VAI_STORE",
};
const DEFAULTS: Partial<Record<ConfigKey, string>> = {
  deployment: ".vai/deployment.json",
  store: ".vai/store.sqlite",
};

export interface ConfigFlags {
  "rpc-url"?: string;
  deployment?: string;
  store?: string;
  config?: string;
}

export function loadConfig(
  flags: ConfigFlags,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): VaiConfig {
  const file = configFile(flags.config, env, cwd);
  const fromFile = file ? readConfigFile(file) : {};
  const fromFlags: Partial<Record<ConfigKey, string>> = {
    rpcUrl: flags["rpc-url"],
    deployment: flags.deployment,
    store: flags.store,
  };
  const sources: VaiConfig["sources"] = {};
  const pick = (key: ConfigKey): string | undefined => {
    const layers: [string | undefined, string, string][] = [
      [fromFlags[key], flagName(key), cwd],
      [env[ENV[key]] || undefined, ENV[key], cwd],
      [fromFile[key], file ? path.basename(file) : "", file ? path.dirname(file) : cwd],
      [DEFAULTS[key], "default", cwd],
    ];
    for (const [value, source, base] of layers) {
      if (value === undefined) continue;
      sources[key] = source;
      // Paths in a config file are relative to the file, so a project's config works from any directory.
      // A store may also be a postgres:// URL, which is no path.
      if (key === "store" && isPostgresUrl(value)) return value;
      return key === "deployment" || key === "store" ? path.resolve(base, value) : value;
    }
    return undefined;
  };
  const rpcUrl = pick("rpcUrl");
  if (rpcUrl !== undefined) checkUrl(rpcUrl, sources.rpcUrl!);
  const privateKey = pick("privateKey");
  const userPrivateKey = pick("userPrivateKey");
  return {
    rpcUrl,
    privateKey: privateKey === undefined ? undefined : checkKey(privateKey, sources.privateKey!),
    userPrivateKey:
      userPrivateKey === undefined ? undefined : checkKey(userPrivateKey, sources.userPrivateKey!),
    deployment: pick("deployment")!,
    store: pick("store")!,
    sources,
    configFile: file,
  };
}

/** The node to talk to: the configured one, else the one the deployment file was written for, else the default. */
export function rpcUrlFor(config: VaiConfig, deploymentRpcUrl?: string): string {
  return config.rpcUrl ?? deploymentRpcUrl ?? DEFAULT_RPC_URL;
}

function flagName(key: ConfigKey): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

function configFile(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const named = flag ?? (env.VAI_CONFIG || undefined);
  if (named !== undefined) {
    const file = path.resolve(cwd, named);
    if (!existsSync(file))
      throw new InputError(`config file ${file} (${flag ? "--config" : "VAI_CONFIG"}) does not exist`);
    return file;
  }
  const implicit = path.join(cwd, "vai.config.json");
  return existsSync(implicit) ? implicit : undefined;
}

function readConfigFile(file: string): Partial<Record<ConfigKey, string>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new InputError(`config file ${file} is not readable JSON: ${(e as Error).message.split("\n")[0]}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new InputError(`config file ${file} must hold one JSON object`);
  const out: Partial<Record<ConfigKey, string>> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!(KEYS as readonly string[]).includes(key))
      throw new InputError(`config file ${file}: unknown key "${key}" (known: ${KEYS.join(", ")})`);
    if (typeof value !== "string" || value === "")
      throw new InputError(`config file ${file}: "${key}" must be a non-empty string`);
    out[key as ConfigKey] = value;
  }
  return out;
}

function checkUrl(url: string, source: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InputError(`RPC URL "${url}" (${source}) is not a URL`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new InputError(`RPC URL "${url}" (${source}) must be http:// or https://`);
}

function checkKey(key: string, source: string): Hex {
  const withPrefix = key.startsWith("0x") ? key : `0x${key}`;
  if (!/^0x[0-9a-fA-F]{64}$/.test(withPrefix))
    throw new InputError(`${source}: a private key is 32 bytes of hex (64 digits, optionally 0x-prefixed)`);
  return withPrefix as Hex;
}
