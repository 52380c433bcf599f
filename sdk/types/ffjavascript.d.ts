declare module "ffjavascript" {
  export function buildBn128(singleThread?: boolean): Promise<unknown>;
}
