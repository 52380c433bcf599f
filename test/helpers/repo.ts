// The checkout the tests run in: the package root, found as every other part of zkVAI finds it
// (sdk/chain/locations.ts packageRoot, the repository root's one home).
import { packageRoot } from "../../sdk/chain/locations.js";

export const REPO_ROOT = packageRoot();
