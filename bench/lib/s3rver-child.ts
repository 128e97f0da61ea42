/**
 * An S3-protocol server (s3rver, objects on disk) in its own process for the delivery bench, so
 * its work is not counted against the server's event loop: prints its port, stops on SIGTERM.
 *   node dist/bench/lib/s3rver-child.js DIR BUCKET
 */
import S3rver from 's3rver';

const [directory, bucket] = process.argv.slice(2);
const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory: directory ?? '/tmp/cardshot-s3rver',
  vhostBuckets: false,
  configureBuckets: [{ name: bucket ?? 'bench' }],
});
const { port } = await server.run();
process.stdout.write(`${port}\n`);
const stop = () => void server.close().finally(() => process.exit(0));
process.on('SIGTERM', stop);
// Its parent holds stdin open: when the parent dies (even by a crash), stdin ends and so does this.
process.stdin.on('end', stop).resume();
