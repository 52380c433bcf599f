// A JSON-RPC relay between a client and a real node that a test can take down and bring back, to
// simulate an RPC outage without losing the chain's state (killing the node would).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface RpcProxy {
  url: string;
  /** While down, every request fails as a refused connection would: the socket is destroyed unanswered. */
  down(): void;
  up(): void;
  /** Requests relayed while up, and refused while down. */
  readonly counts: { relayed: number; refused: number };
  close(): Promise<void>;
}

export async function startRpcProxy(upstream: string): Promise<RpcProxy> {
  let isDown = false;
  const counts = { relayed: 0, refused: 0 };
  const server: Server = createServer(async (req, res) => {
    if (isDown) {
      counts.refused++;
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    try {
      const reply = await fetch(upstream, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: Buffer.concat(chunks),
      });
      counts.relayed++;
      res.writeHead(reply.status, { "content-type": "application/json" });
      res.end(Buffer.from(await reply.arrayBuffer()));
    } catch {
      req.socket.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    down: () => void (isDown = true),
    up: () => void (isDown = false),
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
