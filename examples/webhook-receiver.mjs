// A Cardshot webhook receiver: verifies every delivery with the `standardwebhooks` package
// (npm install standardwebhooks), answers at once, and when a job completes downloads its zip
// through the signed resultsUrl in the event (no API key needed).
//
//   WEBHOOK_SECRET=whsec_… PORT=8080 OUT_DIR=results node examples/webhook-receiver.mjs
//
// Then add it: npx cardshot webhooks add https://your-host.example/hooks/cardshot
// (Cardshot calls public addresses only; expose it with your reverse proxy or a tunnel.)
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Webhook } from 'standardwebhooks';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error('Set WEBHOOK_SECRET to the whsec_… secret Cardshot showed when the endpoint was added.');
  process.exit(2);
}
const webhook = new Webhook(secret);
const outDir = process.env.OUT_DIR ?? 'results';
const MAX_BODY = 64 * 1024; // Cardshot's events stay under 20 KB.
// A delivery is retried until it gets a 2xx, so the same webhook-id can come twice: handle it once.
const seen = new Set();

const server = createServer(async (req, res) => {
  if (req.method !== 'POST' || req.url !== '/hooks/cardshot') {
    res.writeHead(404).end();
    return;
  }
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > MAX_BODY) {
      res.writeHead(413).end();
      return;
    }
  }
  let event;
  try {
    // The raw body, exactly as it arrived: a parsed and re-serialised body would not match.
    event = webhook.verify(body, req.headers);
  } catch {
    console.log(`refused a delivery: bad signature or timestamp`);
    res.writeHead(400).end('bad signature');
    return;
  }
  // Answer first (Cardshot waits 15 s at most), then do the work.
  res.writeHead(204).end();
  const id = req.headers['webhook-id'];
  if (seen.has(id)) return;
  seen.add(id);
  console.log(`${event.type} ${event.data.id ?? event.data.jobId ?? ''}`.trim());
  if (event.type === 'job.completed') await saveZip(event.data).catch((err) => console.error(err.message));
});

/** Streams the job's zip to OUT_DIR/<job id>.zip. */
async function saveZip(job) {
  const res = await fetch(job.resultsUrl);
  if (!res.ok || !res.body) throw new Error(`results of ${job.id}: HTTP ${res.status}`);
  await mkdir(outDir, { recursive: true });
  const file = path.join(outDir, `${job.id}.zip`);
  await pipeline(Readable.fromWeb(res.body), createWriteStream(file));
  console.log(`saved ${file} (${job.counts.succeeded} images)`);
}

server.listen(Number(process.env.PORT ?? 8080), process.env.HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address();
  console.log(`listening on http://${address}:${port}/hooks/cardshot`);
});
