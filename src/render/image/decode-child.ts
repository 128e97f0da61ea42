/**
 * The code a decode child runs (`node -e`, like the watchdog: no file to find in src/ or
 * dist/). It loads sharp from the path it is given and answers each job: `metadata`, or a
 * pipeline of whitelisted sharp methods ending in a buffer. One job at a time, libvips's own
 * cache off and one libvips thread: the parent measures this process's CPU and memory as the
 * job's, and kills it past either limit.
 */
export const DECODE_CHILD_MARKER = '// cardshot image decode child';

export const DECODE_CHILD_CODE = `${DECODE_CHILD_MARKER}
const sharp = require(process.argv[1]);
sharp.cache(false);
sharp.concurrency(1);
const METHODS = new Set(['autoOrient', 'extract', 'resize', 'extend', 'ensureAlpha', 'png']);
const META = ['format', 'width', 'height', 'pageHeight', 'pages', 'orientation'];
process.on('disconnect', () => process.exit(0));
process.on('message', async (job) => {
  try {
    const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
    let image = sharp(bytes, job.input);
    if (job.op === 'metadata') {
      const meta = await image.metadata();
      const picked = {};
      for (const k of META) if (meta[k] !== undefined) picked[k] = meta[k];
      process.send({ id: job.id, meta: picked });
      return;
    }
    for (const [method, ...args] of job.steps) {
      if (!METHODS.has(method)) throw new Error('method not allowed: ' + method);
      image = image[method](...args);
    }
    const { data, info } = await image.toBuffer({ resolveWithObject: true });
    process.send({ id: job.id, data, width: info.width, height: info.height });
  } catch (err) {
    process.send({ id: job.id, error: String((err && err.message) || err) });
  }
});
process.send({ ready: true });
`;
