// One wasm function per group, added to ffjavascript's bn128 module through buildBn128's plugin
// hook, for the INSECURE development ptau (devptau.ts). It adds one table point to each of n affine
// accumulators with a single shared inversion (Montgomery's trick): ~6 field multiplications per
// point instead of the ~11 of wasmcurves' Jacobian mixed addition, and the results are already the
// affine points the ptau file stores. Built with wasmbuilder, the code generator of wasmcurves.

type Code = number[];
type Operand = Code | number | string;
/** The part of wasmbuilder's CodeBuilder used here: each op returns the bytes of its instruction. */
type CodeBuilder = Record<string, (...args: Operand[]) => Code>;
interface FunctionBuilder {
  addParam(name: string, type: "i32"): void;
  addLocal(name: string, type: "i32"): void;
  addCode(...code: Code[]): void;
  getCodeBuilder(): CodeBuilder;
}
export interface ModuleBuilder {
  addFunction(name: string): FunctionBuilder;
  exportFunction(name: string): void;
  /** Static scratch memory of `bytes`; returns its address. */
  alloc(bytes: number): number;
}

export const addWindowFunction = (group: "g1" | "g2"): string => `${group}m_devptauAddWindow`;

/**
 * `${g}m_devptauAddWindow(pAcc, pQ, n, pDx, pInv)`: for i < n, acc[i] += *q[i], where acc is an
 * array of affine points (the point at infinity is (0, 0), as in ffjavascript), q an array of
 * u32 addresses of affine points (0: add nothing), and pDx, pInv scratch for n field elements.
 * When acc[i] = ±q[i] the shared inversion cannot serve; wasmcurves' complete affine addition takes
 * those (P + P, P − P) instead, so the result is exact for every input.
 */
function buildAddWindow(module: ModuleBuilder, group: "g1" | "g2"): void {
  const G = `${group}m`;
  const F = group === "g1" ? "f1m" : "f2m";
  const n8 = group === "g1" ? 32 : 64;
  const f = module.addFunction(addWindowFunction(group));
  for (const p of ["pAcc", "pQ", "n", "pDx", "pInv"]) f.addParam(p, "i32");
  for (const l of ["i", "acc", "q", "dx", "inv"]) f.addLocal(l, "i32");
  const c = f.getCodeBuilder();
  const lambda = c.i32_const(module.alloc(n8));
  const x3 = c.i32_const(module.alloc(n8));
  const t = c.i32_const(module.alloc(n8));
  const jacobian = c.i32_const(module.alloc(3 * n8));

  const get = (name: string) => c.getLocal(name);
  const plus = (code: Code, bytes: number) => c.i32_add(code, c.i32_const(bytes));
  const [accX, accY, qX, qY] = [get("acc"), plus(get("acc"), n8), get("q"), plus(get("q"), n8)];
  /** for (i = 0; i < n; i++) with acc, q, dx, inv pointing at element i. */
  const forEach = (...body: Code[]) => [
    ...c.setLocal("i", c.i32_const(0)),
    ...c.block(
      c.loop(
        c.br_if(1, c.i32_eq(get("i"), get("n"))),
        c.setLocal("acc", c.i32_add(get("pAcc"), c.i32_mul(get("i"), c.i32_const(2 * n8)))),
        c.setLocal("q", c.i32_load(c.i32_add(get("pQ"), c.i32_mul(get("i"), c.i32_const(4))))),
        c.setLocal("dx", c.i32_add(get("pDx"), c.i32_mul(get("i"), c.i32_const(n8)))),
        c.setLocal("inv", c.i32_add(get("pInv"), c.i32_mul(get("i"), c.i32_const(n8)))),
        ...body,
        c.setLocal("i", c.i32_add(get("i"), c.i32_const(1))),
        c.br(0),
      ),
    ),
  ];

  f.addCode(
    // dx = q.x − acc.x where both points are there; 0 elsewhere, which batchInverse skips.
    forEach(
      c.if(
        c.i32_and(c.i32_ne(get("q"), c.i32_const(0)), c.i32_eqz(c.call(`${G}_isZeroAffine`, get("acc")))),
        c.call(`${F}_sub`, qX, accX, get("dx")),
        c.call(`${F}_zero`, get("dx")),
      ),
    ),
    c.call(`${F}_batchInverse`, get("pDx"), c.i32_const(n8), get("n"), get("pInv"), c.i32_const(n8)),
    forEach(
      c.if(
        c.i32_ne(get("q"), c.i32_const(0)),
        c.if(
          c.call(`${G}_isZeroAffine`, get("acc")),
          c.call(`${G}_copyAffine`, get("q"), get("acc")),
          c.if(
            c.call(`${F}_isZero`, get("dx")),
            [
              ...c.call(`${G}_addAffine`, get("acc"), get("q"), jacobian),
              ...c.call(`${G}_toAffine`, jacobian, get("acc")),
            ],
            [
              // λ = (q.y − acc.y)/dx; x3 = λ² − acc.x − q.x; y3 = λ(acc.x − x3) − acc.y
              ...c.call(`${F}_sub`, qY, accY, lambda),
              ...c.call(`${F}_mul`, lambda, get("inv"), lambda),
              ...c.call(`${F}_square`, lambda, x3),
              ...c.call(`${F}_sub`, x3, accX, x3),
              ...c.call(`${F}_sub`, x3, qX, x3),
              ...c.call(`${F}_sub`, accX, x3, t),
              ...c.call(`${F}_mul`, lambda, t, t),
              ...c.call(`${F}_sub`, t, accY, accY),
              ...c.call(`${F}_copy`, x3, accX),
            ],
          ),
        ),
      ),
    ),
  );
  module.exportFunction(addWindowFunction(group));
}

/** The plugin for `buildBn128(singleThread, plugin)`. */
export function devPtauWasmPlugin(module: ModuleBuilder): void {
  buildAddWindow(module, "g1");
  buildAddWindow(module, "g2");
}
