// vai page: serves the user's check page (sdk/page, built into dist/page by `npm run build:page`) as plain
// static files on a local port. The page has no backend: it talks to the JSON-RPC URL the user gives, and
// nothing here takes part in a check. A provider may host the same folder anywhere instead.
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import path from "node:path";
import { packageRoot } from "../../sdk/chain/locations.js";
import { InputError, parseCommand, parseInteger, runCommand, type Command } from "./common.js";
import { USAGE } from "./usage.js";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".png": "image/png",
};

/** The page's folder: --dir, else the package's dist/page. */
export function pageDir(dir?: string): string {
  const d = path.resolve(dir ?? path.join(packageRoot(), "dist", "page"));
  if (!existsSync(path.join(d, "index.html")) || !existsSync(path.join(d, "page.js")))
    throw new InputError(`no built page in ${d}: run \`npm run build:page\` first (or pass --dir)`);
  return d;
}

/** A static server of `dir` (GET/HEAD only; nothing outside `dir`). Resolves once it listens. */
export function servePage(dir: string, port: number, host: string): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405).end();
      return;
    }
    const url = new URL(req.url ?? "/", "http://page");
    const rel = decodeURIComponent(url.pathname).replace(/^\/+/, "") || "index.html";
    const file = path.resolve(dir, rel);
    if (path.relative(dir, file).startsWith("..") || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    res.writeHead(200, {
      "content-type": TYPES[path.extname(file)] ?? "application/octet-stream",
      "cache-control": "no-cache",
      "x-content-type-options": "nosniff",
    });
    res.end(req.method === "HEAD" ? undefined : readFileSync(file));
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve(server));
  });
}

export const pageCommand: Command = {
  usage: USAGE.page,
  run: (argv) =>
    runCommand("page", USAGE.page, async () => {
      const { values } = parseCommand(argv, {
        port: { type: "string" },
        host: { type: "string" },
        dir: { type: "string" },
      });
      const dir = pageDir(values.dir);
      const port = parseInteger(values.port ?? "8080", "--port", 0, 65535);
      const host = values.host ?? "127.0.0.1";
      const server = await servePage(dir, port, host);
      const address = server.address();
      const bound = typeof address === "object" && address ? address.port : port;
      console.log(`serving the check page from ${dir} at http://${host}:${bound}/ (Ctrl-C to stop)`);
      console.log(
        `  link a claim: http://${host}:${bound}/?rpc=<json-rpc-url>&escrow=<address>&claim=<id>  (or &promise=<id>)`,
      );
      await new Promise<void>((resolve) => {
        const stop = () => server.close(() => resolve());
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
      });
    }),
};
