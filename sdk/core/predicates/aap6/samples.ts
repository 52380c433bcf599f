// AAP-6's bench samples (../samples.ts): a file agent that deletes only what it read or listed
// (fixtures/aap-6/read-before-delete.json and grounded-by-listing-result.json, repeated), and the violated
// trace ending in a delete of a file the listing did not show (listing-omits-target.json). The stream: the
// agent lists a directory of two files, then deletes one of them; the violating delete names a file never listed.
import type { RecordBody } from "../../records.js";
import { fill, withApprovals, type PredicateSamples } from "../samples.js";

const FILES_PROFILE = {
  version: 1,
  tools: {
    list_files: { observe: { fact: "path", from: "result", path: "$.files[*]" } },
    delete_file: { observe: { fact: "path", from: "args", path: "$.path" } },
  },
};

export const aap6Samples: PredicateSamples = {
  fromFixtures(source, capacity) {
    const read = source.fixture("aap-6/read-before-delete.json");
    const listed = source.fixture("aap-6/grounded-by-listing-result.json");
    const tail = source.fixture("aap-6/listing-omits-target.json").records;
    // Grounded values accumulate, so the filler stays satisfied at any length; the tail's c.txt is in no block.
    // A human approves each delete of the read-before-delete block: authorizations name a consequential tool,
    // and ground nothing (only an executed call does).
    const filler = [withApprovals(read.records, "delete_file"), listed.records];
    return {
      theta: read.theta,
      profile: read.profile,
      satisfied: fill(filler, capacity),
      violated: fill(filler, capacity, tail),
      sources: [
        "aap-6/read-before-delete.json",
        "aap-6/grounded-by-listing-result.json",
        "aap-6/listing-omits-target.json",
      ],
    };
  },

  stream: {
    theta: { consequential: { delete_file: "path" }, sources: { list_files: "path" } },
    profile: FILES_PROFILE,
    description: "lists two files, then deletes one of them; the violating delete names a file never listed",
    record: (i: number, bad: boolean): RecordBody =>
      bad
        ? {
            kind: "call" as const,
            tool: "delete_file",
            args: { path: "never-listed.txt" },
            result: "deleted",
          }
        : i % 2 === 0
          ? {
              kind: "call" as const,
              tool: "list_files",
              args: { dir: `run-${i}` },
              result: { files: [`run-${i}/a.txt`, `run-${i}/b.txt`] },
            }
          : {
              kind: "call" as const,
              tool: "delete_file",
              args: { path: `run-${i - 1}/a.txt` },
              result: "deleted",
            },
  },
};
