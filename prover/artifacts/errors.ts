// What building the circuits (`vai setup`, scripts/setup.ts) fails with, besides a tool that failed (ToolError,
// zkfiles.ts) and a build that is missing (BuildMissingError): each a ZkvaiError with its code (ERROR_CODES).
// None is an InputError: the `vai` CLI exits 1 for them, as it did when they were plain errors.
import { ConfigurationError, ZkvaiError } from "../../sdk/core/errors.js";

/** Another setup holds build/.setup.lock: two would rebuild the same files under each other. */
export class BuildLockedError extends ZkvaiError {
  static override readonly code: string = "BUILD_LOCKED";
  override name = "BuildLockedError";
}

/** The powers-of-tau file is missing, unreadable, not bn128, not prepared for phase 2, or too small. */
export class PtauError extends ConfigurationError {
  static override readonly code: string = "BAD_PTAU";
  override name = "PtauError";
}

/** The instance table (circuits/instances.json) names something setup cannot build, or that disagrees with it. */
export class InstanceTableError extends ConfigurationError {
  static override readonly code: string = "BAD_INSTANCES";
  override name = "InstanceTableError";
}

/** An r1cs, zkey or ptau file that is truncated or is not what its name says. */
export class CorruptFileError extends ZkvaiError {
  static override readonly code: string = "CORRUPT_FILE";
  override name = "CorruptFileError";
}
