// A trace as JSON lines: zkVAI's records (seq from 0 without gaps), or VAI's ActionRecords (told apart by
// the first line, which has no "kind"), imported with the options the promise's VAI dialect implies; a VAI
// run in the τ³-bench layout (its first record the tool "tau.capture") through the τ³ importer.
import { InputError } from "./errors.js";
import { importTauJsonl } from "./import-tau.js";
import { importVaiJsonl, type ImportOptions } from "./import-vai.js";
import { parseRecord, type TraceRecord } from "./records.js";

export interface ParsedTrace {
  records: TraceRecord[];
  /** The trace's own sequence number of record i: VAI's seq for imported traces, i for zkVAI's. */
  seqOf: (i: number) => number;
  format: "zkvai" | "vai" | "tau";
}

export function parseTraceText(text: string, options: ImportOptions): ParsedTrace {
  const first = text.split("\n").find((l) => l.trim());
  let firstObject: Record<string, unknown> = {};
  try {
    firstObject = first ? JSON.parse(first) : {};
  } catch (e) {
    throw new InputError(`trace line 1 is not JSON: ${(e as Error).message}`);
  }
  if (first && !("kind" in firstObject) && firstObject.tool === "tau.capture") {
    const imported = importTauJsonl(text);
    return { records: imported.records, seqOf: (i) => imported.vaiSeq[i]!, format: "tau" };
  }
  if (first && !("kind" in firstObject)) {
    const imported = importVaiJsonl(text, options);
    return { records: imported.records, seqOf: (i) => imported.vaiSeq[i], format: "vai" };
  }
  const records = text
    .split("\n")
    .map((line, i) => ({ line, i }))
    .filter(({ line }) => line.trim())
    .map(({ line, i }) => {
      try {
        return parseRecord(JSON.parse(line));
      } catch (e) {
        throw new InputError(`trace line ${i + 1}: ${(e as Error).message}`);
      }
    });
  records.forEach((r, i) => {
    if (r.seq !== i)
      throw new InputError(`trace record ${i} has seq ${r.seq}; zkVAI records run from seq 0 without gaps`);
  });
  return { records, seqOf: (i) => i, format: "zkvai" };
}
