// Structured logs for long-running parts (the recorder's checkpoint loop, the claim watcher):
// one JSON object per line, so operators can grep, ship and alert on them.
export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFields = Record<string, unknown>;

export interface Logger {
  log(level: LogLevel, event: string, fields?: LogFields): void;
}

/** JSON lines on a stream (stderr by default); bigints are written as decimal strings. */
export function jsonLogger(
  stream: NodeJS.WritableStream = process.stderr,
  minLevel: LogLevel = "info",
): Logger {
  const order: LogLevel[] = ["debug", "info", "warn", "error"];
  return {
    log(level, event, fields = {}) {
      if (order.indexOf(level) < order.indexOf(minLevel)) return;
      const line = JSON.stringify({ ts: new Date().toISOString(), level, event, ...fields }, (_, v) =>
        typeof v === "bigint" ? v.toString() : v,
      );
      stream.write(`${line}\n`);
    },
  };
}

/** Keeps every entry in memory: for tests and for callers that render logs themselves. */
export function memoryLogger(): Logger & {
  entries: { level: LogLevel; event: string; fields: LogFields }[];
} {
  const entries: { level: LogLevel; event: string; fields: LogFields }[] = [];
  return { entries, log: (level, event, fields = {}) => void entries.push({ level, event, fields }) };
}

export const silentLogger: Logger = { log: () => {} };
