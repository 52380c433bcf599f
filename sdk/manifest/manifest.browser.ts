// The page's twin of manifest.ts: no files to read; the page fetches a manifest and parses it (manifest-core.ts).
import { ManifestError, type Manifest } from "./manifest-core.js";
export * from "./manifest-core.js";

export const MANIFEST_PATH = "build/manifest.json";

/** Where the page's manifest came from is its own business; the checks only name it in messages. */
export function manifestPath(): string {
  return MANIFEST_PATH;
}

export function readManifest(file: string): Manifest {
  throw new ManifestError(`manifest ${file}: a page reads no files; pass the manifest it fetched`);
}

export function loadManifest(): Manifest {
  return readManifest(MANIFEST_PATH);
}
