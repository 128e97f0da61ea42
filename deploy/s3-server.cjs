// s3rver for deploy/s3.Dockerfile: S3_ADDRESS (0.0.0.0), S3_PORT (4568) and the buckets of
// S3_BUCKETS (comma-separated; one that exists already keeps its objects). Run by node as PID 1,
// which gets no default signal handlers: without the handlers below `docker stop` would wait
// out its grace period and SIGKILL the server.
const S3rver = require('s3rver');

const buckets = (process.env.S3_BUCKETS ?? '').split(',').filter(Boolean);
const server = new S3rver({
  address: process.env.S3_ADDRESS || '0.0.0.0',
  port: Number(process.env.S3_PORT || 4568),
  directory: '/data',
  // Path-style only: compose services reach it by service name (http://s3:4568/<bucket>/<key>),
  // a name no bucket subdomain can hang off.
  vhostBuckets: false,
  configureBuckets: buckets.map((name) => ({ name })),
});
server.run().then(
  ({ address, port }) => console.log(`S3rver listening on ${address}:${port}, buckets ${buckets.join(', ')}`),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () =>
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    ),
  );
}
