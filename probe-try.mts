import { readFileSync } from 'node:fs';
import { probeFont } from './dist/src/fonts/probe.js';

for (const f of [
  'node_modules/@fontsource/source-serif-4/files/source-serif-4-latin-700-normal.woff2',
  'node_modules/inter-ui/variable/InterVariable.woff2',
  'node_modules/harfbuzzjs/test/fonts/noto/NotoSans-Regular.otf',
]) {
  const t = performance.now();
  try {
    const i = await probeFont(readFileSync(f));
    console.log(
      f.split('/').pop(),
      i.format,
      i.family,
      i.weight,
      i.weightRange,
      i.glyphs,
      i.codePoints.length,
      i.scales,
      (performance.now() - t).toFixed(0),
    );
  } catch (e) {
    console.log('ERR', e.message);
  }
}
try {
  await probeFont(readFileSync('node_modules/inter-ui/variable/InterVariable.woff2').subarray(0, 5000));
} catch (e) {
  console.log('trunc:', e.message);
}
