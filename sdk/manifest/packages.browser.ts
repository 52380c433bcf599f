// The page's twin of packages.ts: no package tree to look in; versions are those the page was built with.
declare const __ZKVAI_VERSIONS__: Record<string, string>;

export const ROOT = "/";
export const rel = (p: string): string => p;

export function pkgVersion(name: string): string {
  return __ZKVAI_VERSIONS__[name] ?? "unknown";
}
