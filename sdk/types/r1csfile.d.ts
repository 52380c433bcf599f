declare module "r1csfile" {
  export function readR1cs(
    path: string,
    options: { loadConstraints: boolean; loadMap: boolean; getFieldFromPrime?: unknown },
  ): Promise<{
    nConstraints: number;
    nVars: number;
    nOutputs: number;
    nPubInputs: number;
    nPrvInputs: number;
    F: { toObject(x: unknown): bigint };
    constraints: Record<string, unknown>[][];
  }>;
}
