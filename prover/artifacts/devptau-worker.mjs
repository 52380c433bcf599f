// Worker thread of the INSECURE development ptau (devptau.ts, devptau-pool.ts).
// Plain JavaScript on purpose: Node 20 worker threads load no TypeScript under tsx or vitest, and
// importing ffjavascript here would not work either (its web-worker dependency takes over any worker
// thread that loads it). So the main thread hands over ffjavascript's compiled bn128 wasm module and
// this worker drives it directly: a fixed-base window table lives in this worker's wasm memory, and a
// whole chunk of scalars → affine points runs here, one batched affine addition per window
// (devptau-wasm.ts's devptauAddWindow), with no message per point.
import { parentPort } from "node:worker_threads";

const FR = 32; // bytes of an Fr element
const PAGE = 65536;
const MAX_PAGES = 32767; // what ffjavascript allows its wasm memories

let wasm; // the module's exports
let memory;
let heapStart = 0; // first free byte after the module's static data
let tableEnd = 0; // first free byte after the loaded table
let gens; // { g1, g2 }: Jacobian generators inside the module's static data
let table = null; // { group, w, windows, ptr }

const fieldBytes = (group) => (group === "g1" ? 32 : 64);
const u8 = () => new Uint8Array(memory.buffer);
const u32 = () => new Uint32Array(memory.buffer);

/** Room for `bytes` past the free pointer (the wasm batch functions take scratch space there). */
function reserve(bytes) {
  const need = u32()[0] + bytes;
  const have = memory.buffer.byteLength;
  if (need > have) {
    const pages = Math.ceil((need - have) / PAGE);
    if (have / PAGE + pages > MAX_PAGES) throw new Error(`dev ptau worker: wasm memory over 2 GiB`);
    memory.grow(pages);
  }
}

function alloc(bytes) {
  const words = u32();
  words[0] = (words[0] + 7) & ~7;
  const ptr = words[0];
  words[0] = ptr + bytes;
  reserve(0);
  return ptr;
}

function resetTo(ptr) {
  u32()[0] = ptr;
}

function setScalar(ptr, bytes) {
  u8().set(bytes, ptr);
  wasm.frm_toMontgomery(ptr, ptr);
}

async function init({ module, g1gen, g2gen }) {
  memory = new WebAssembly.Memory({ initial: 32, maximum: MAX_PAGES });
  const instance = await WebAssembly.instantiate(module, { env: { memory } });
  wasm = instance.exports;
  heapStart = u32()[0];
  tableEnd = heapStart;
  gens = { g1: g1gen, g2: g2gen };
}

/**
 * Rows k ∈ [from, to) of the table: row k holds d·2^(w·k)·G for d = 1 … 2^w − 1, affine. Built in
 * doubling steps, entries (h, 2h] = entries (0, h] + entry h, so that each step is one batched
 * affine addition (entry 2h = entry h + entry h takes the addition's doubling path).
 */
function buildTable({ group, w, from, to, shared }) {
  table = null;
  resetTo(heapStart);
  const sA = 2 * fieldBytes(group);
  const rowLen = 2 ** w - 1;
  const half = 2 ** (w - 1);
  const fn = (name) => wasm[`${group}m_${name}`];
  const jacobian = alloc(1.5 * sA);
  const row = alloc(rowLen * sA);
  const q = alloc(half * 4);
  const dx = alloc(half * fieldBytes(group));
  const inv = alloc(half * fieldBytes(group));
  reserve((half + 2) * fieldBytes(group)); // batchInverse's scratch
  fn("copy")(gens[group], jacobian);
  for (let i = 0; i < w * from; i++) fn("double")(jacobian, jacobian);
  fn("toAffine")(jacobian, row);
  for (let k = from; k < to; k++) {
    for (let h = 1; h < rowLen; h *= 2) {
      const n = Math.min(h, rowLen - h);
      u8().copyWithin(row + h * sA, row, row + n * sA);
      u32().fill(row + (h - 1) * sA, q >>> 2, (q >>> 2) + n);
      fn("devptauAddWindow")(row + h * sA, q, n, dx, inv);
    }
    new Uint8Array(shared, k * rowLen * sA, rowLen * sA).set(u8().subarray(row, row + rowLen * sA));
    // The next row starts at 2^w times this row's base: entry 2^(w−1), doubled.
    fn("doubleAffine")(row + (half - 1) * sA, jacobian);
    fn("toAffine")(jacobian, row);
  }
  resetTo(heapStart);
}

function loadTable({ group, w, windows, shared }) {
  resetTo(heapStart);
  const ptr = alloc(shared.byteLength);
  u8().set(new Uint8Array(shared), ptr);
  tableEnd = u32()[0];
  table = { group, w, windows, ptr };
}

/** Fills `count` scalars (standard form, little-endian) at `out`. See devptau.ts for the formulas. */
function scalars(job, out) {
  const { count } = job;
  if (job.kind === "explicit") {
    u8().set(job.scalars, out);
    return;
  }
  if (job.kind === "geometric") {
    const ratio = alloc(FR);
    setScalar(out, job.first);
    setScalar(ratio, job.ratio);
    for (let i = 1; i < count; i++) wasm.frm_mul(out + (i - 1) * FR, ratio, out + i * FR);
  } else {
    // s_i = ω^i · (c / (τ − ω^i) − tail), ω^i running from ω^start.
    const [omega, tau, c, tail] = [job.omega, job.tau, job.c, job.tail].map((bytes) => {
      const ptr = alloc(FR);
      setScalar(ptr, bytes);
      return ptr;
    });
    const powers = alloc(count * FR);
    const denominators = alloc(count * FR);
    setScalar(powers, job.omegaStart);
    for (let i = 1; i < count; i++) wasm.frm_mul(powers + (i - 1) * FR, omega, powers + i * FR);
    for (let i = 0; i < count; i++) wasm.frm_sub(tau, powers + i * FR, denominators + i * FR);
    reserve((count + 2) * FR);
    wasm.frm_batchInverse(denominators, FR, count, out, FR);
    for (let i = 0; i < count; i++) {
      const s = out + i * FR;
      wasm.frm_mul(c, s, s);
      wasm.frm_sub(s, tail, s);
      wasm.frm_mul(s, powers + i * FR, s);
    }
  }
  wasm.frm_batchFromMontgomery(out, count, out);
}

function points(job) {
  const { group, count } = job;
  if (!table || table.group !== group) throw new Error(`dev ptau worker: no ${group} table loaded`);
  resetTo(tableEnd);
  const n8 = fieldBytes(group);
  const sA = 2 * n8;
  const { w, windows, ptr: tablePtr } = table;
  const rowLen = 2 ** w - 1;
  const addWindow = wasm[`${group}m_devptauAddWindow`];

  const acc = alloc(count * sA);
  const q = alloc(count * 4);
  const dx = alloc(count * n8);
  const inv = alloc(count * n8);
  const scalarPtr = alloc(count * FR);
  const mark = u32()[0];
  scalars(job, scalarPtr);
  resetTo(mark);
  reserve((count + 2) * n8); // batchInverse's scratch inside addWindow
  u8().fill(0, acc, acc + count * sA); // (0, 0): the point at infinity

  const words = u32(); // nothing grows the memory below, so this view stays valid
  const qWords = q >>> 2;
  for (let k = 0; k < windows; k++) {
    const bit = k * w;
    const word = bit >>> 5;
    const shift = bit & 31;
    const straddles = shift + w > 32 && word < 7;
    const row = tablePtr + (k * rowLen - 1) * sA;
    for (let i = 0; i < count; i++) {
      const s = ((scalarPtr + i * FR) >>> 2) + word;
      let digit = words[s] >>> shift;
      if (straddles) digit |= words[s + 1] << (32 - shift);
      digit &= rowLen;
      words[qWords + i] = digit ? row + digit * sA : 0;
    }
    addWindow(acc, q, count, dx, inv);
  }
  return u8().slice(acc, acc + count * sA);
}

parentPort.on("message", async ({ id, cmd, args }) => {
  try {
    let result = null;
    if (cmd === "init") await init(args);
    else if (cmd === "table") buildTable(args);
    else if (cmd === "load") loadTable(args);
    else if (cmd === "points") result = points(args);
    else throw new Error(`dev ptau worker: unknown command ${cmd}`);
    parentPort.postMessage({ id, result }, result ? [result.buffer] : []);
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.stack : String(error) });
  }
});
