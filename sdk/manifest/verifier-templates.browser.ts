// The page's twin of verifier-templates.ts: the same template texts, inlined by the page build
// (scripts/build-page.ts defines them from node_modules/snarkjs/templates and contracts/templates), and ejs'
// own browser build, so the page regenerates a verifier's source from a key byte for byte as setup wrote it.
// @ts-expect-error ejs ships its browser build without types; it exports render(template, data) as lib/ejs does.
import ejs from "ejs/ejs.js";

declare const __ZKVAI_SNARKJS_TEMPLATE__: string;
declare const __ZKVAI_SEGMENT_TEMPLATE__: string;

export function renderer(): { template: string; render(template: string, data: object): string } {
  const { render } = ejs as { render(template: string, data: object): string };
  return { template: __ZKVAI_SNARKJS_TEMPLATE__, render: (t, d) => render(t, d) };
}

export function segmentTemplate(): string {
  return __ZKVAI_SEGMENT_TEMPLATE__;
}
