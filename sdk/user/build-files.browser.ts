// The page's twin of build-files.ts: a browser holds no build, so every check rests on what the manifest embeds.
import type { FileRef } from "../manifest/manifest.js";

/** As the Node side names a file under the build: without a leading "./". */
export const rel = (file: string): string => file.replace(/^\.\//, "");

export function buildFile(_ref: FileRef, _what: string, _manifestPath: string): Uint8Array | undefined {
  return undefined;
}
