// The files of a build on this machine that a manifest names (Node only; the page has none: build-files.browser.ts):
// read when present, each checked against the sha256 the manifest records.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { artifactsRoot } from "../chain/locations.js";
import type { FileRef } from "../manifest/manifest.js";
import { SettlementInvalid } from "./errors.js";
import { sha256Hex } from "./solc-target.js";

/** Inside the artifacts root relative to it (as the manifest writes paths), absolute outside it. */
export const rel = (file: string) => {
  const r = path.relative(artifactsRoot(), file);
  return r && !r.startsWith("..") ? r : file;
};

/**
 * A file a manifest names, under the artifacts root (the build's parent). A manifest may come from anyone, so a
 * path that is absolute or climbs out of the root is refused rather than read.
 */
function manifestFilePath(ref: FileRef, what: string): string {
  const root = artifactsRoot();
  const file = path.resolve(root, ref.path);
  const inside = path.relative(root, file);
  if (path.isAbsolute(ref.path) || inside.startsWith("..") || path.isAbsolute(inside))
    throw new SettlementInvalid(
      `the manifest names ${what} ${ref.path}, outside the build it describes (paths are relative to its root)`,
    );
  return file;
}

/** The build's copy of a manifest-named file, checked against its sha256; undefined when it is not here. */
export function buildFile(ref: FileRef, what: string, manifestPath: string): Uint8Array | undefined {
  const file = manifestFilePath(ref, what);
  if (!existsSync(file)) return undefined;
  const bytes = readFileSync(file);
  const actual = sha256Hex(bytes);
  if (actual !== ref.sha256)
    throw new SettlementInvalid(
      `${what} ${ref.path} has sha256 ${actual}, but ${rel(manifestPath)} records ${ref.sha256}`,
    );
  return bytes;
}
