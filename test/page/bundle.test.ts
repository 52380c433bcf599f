// The check page's bundle (scripts/build-page.ts): the library's user side with every Node-only leaf swapped for
// its `.browser.ts` twin, nothing of Node left (buildPage refuses a bundle that imports a builtin, and esbuild
// refuses a twin that lacks a name its importer uses), nothing fetched from elsewhere, and a compiled-code table
// that holds every manifest verifier, the escrow and its Poseidon(3).
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildPage } from "../../scripts/build-page.js";
import { pageDir, servePage } from "../../bin/cli/page.js";
import { loadManifest } from "../../sdk/manifest/manifest.js";

describe("the check page's bundle", () => {
  it("builds with no Node code, no remote resources, and the compiled code of every contract it checks", async () => {
    const { out, bundleBytes } = await buildPage({ out: mkdtempSync(join(tmpdir(), "zkvai-page-")) });
    for (const f of ["index.html", "page.js", "manifest.json", "compiled-code.json"])
      expect(existsSync(join(out, f)), f).toBe(true);
    expect(bundleBytes).toBeLessThan(2_500_000);
    const html = readFileSync(join(out, "index.html"), "utf8");
    // No CDN, fonts or analytics: every src/href is the page's own file (or an inline data: icon).
    for (const m of html.matchAll(/(?:src|href)="([^"]+)"/g)) expect(m[1]).toMatch(/^(\.\/[\w.-]+|data:,)$/);
    const js = readFileSync(join(out, "page.js"), "utf8");
    expect(js).not.toMatch(/\bfrom\s*"node:|require\("(fs|path|child_process|worker_threads)"\)/);
    const code = JSON.parse(readFileSync(join(out, "compiled-code.json"), "utf8")) as {
      code: Record<string, unknown>;
      contracts: Record<string, string>;
    };
    expect(Object.keys(code.contracts)).toEqual(
      expect.arrayContaining(["contracts/Escrow.sol", "contracts/PoseidonT4.sol"]),
    );
    expect(Object.keys(code.code).length).toBe(Object.keys(loadManifest().circuits).length + 2);

    // vai page: plain static files from that folder, nothing outside it.
    expect(pageDir(out)).toBe(out);
    expect(() => pageDir(join(out, "nothing-here"))).toThrow(
      /no built page in .*: run `npm run build:page` first/,
    );
    const server = await servePage(out, 0, "127.0.0.1");
    try {
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const index = await fetch(`${base}/?rpc=x&claim=1`);
      expect(index.status).toBe(200);
      expect(index.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect((await fetch(`${base}/page.js`)).headers.get("content-type")).toMatch(/^text\/javascript/);
      for (const escape of ["/%2e%2e/package.json", "/..%2fpackage.json", "/%2e%2e%2f%2e%2e%2fetc/passwd"])
        expect((await fetch(`${base}${escape}`)).status, escape).toBe(404);
      expect((await fetch(`${base}/`, { method: "POST" })).status).toBe(405);
    } finally {
      server.close();
    }
  });
});
