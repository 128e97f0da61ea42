/** fontkit ships no types; Cardshot reads its results as `any` in one file (probe-worker.ts). */
declare module 'fontkit' {
  // biome-ignore lint/suspicious/noExplicitAny: untyped package.
  export function create(buffer: Buffer, postscriptName?: string): any;
}
