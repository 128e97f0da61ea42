import sharp from 'sharp';
const [out, ...files] = process.argv.slice(2);
const w = 600, h = 315, cols = 2;
const rows = Math.ceil(files.length / cols);
const comps = await Promise.all(files.map(async (f, i) => ({ input: await sharp(f).resize(w, h).toBuffer(), left: (i % cols) * (w + 10), top: Math.floor(i / cols) * (h + 10) })));
await sharp({ create: { width: cols * w + 10, height: rows * (h + 10), channels: 3, background: '#888' } }).composite(comps).png().toFile(out);
