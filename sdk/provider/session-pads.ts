// The row pads a session's close appends (sdk/core/predicates/aap7/pads.ts has why): the session keeps a running
// count of its records' rows, so close knows how many pads its trace needs without reading it again.
import type { Hex } from "viem";
import type { EncodingProfile } from "../core/profile.js";
import { padBody, padsNeeded, rowCount } from "../core/predicates/aap7/pads.js";
import { isPadCall, type RecordBody, type TraceRecord } from "../core/records.js";
import type { Logger } from "./log.js";

export class RowPads {
  private rows = 0;
  private pads = 0;

  constructor(private readonly profile: EncodingProfile) {}

  /** Counts a stored record's rows (a recovered session's too, so a close after a crash pads the same way). */
  track(record: TraceRecord): void {
    if (this.profile.facts === undefined) return;
    this.rows += rowCount(record, this.profile);
    if (isPadCall(record)) this.pads += 1;
  }

  /** The pads a trace of `records` records needs now, numbered after any it holds; none without fact profile. */
  due(records: number, log: Logger, sessionId: Hex): RecordBody[] {
    if (this.profile.facts === undefined) return [];
    const needed = padsNeeded(this.rows, records);
    if (needed > 0)
      log.log("info", "session.row_pads", { sessionId, records, rows: this.rows, pads: needed });
    return Array.from({ length: needed }, (_, k) => padBody(this.pads + k));
  }
}
