# An S3-compatible server for deploy/docker-compose.yml's topology: s3rver (the npm package the
# tests use, test/helpers/s3.ts) on the node base image, because no registry serves MinIO here.
# It checks SigV4 signatures against its one fixed account (access key S3RVER, secret S3RVER)
# and keeps objects as files in /data: enough to try job delivery ("store": "s3") end to end,
# not a production object store (no authorisation beyond that key, one process, no replication).
# Point storage targets at MinIO or a cloud bucket in production.
#   S3_ADDRESS (default 0.0.0.0), S3_PORT (default 4568) and S3_BUCKETS (comma-separated, made at start when missing).
FROM node:24-bookworm-slim
WORKDIR /opt/s3rver
# Pinned to the version package-lock.json has for the tests, so both run the same server.
RUN npm install --no-audit --no-fund --loglevel=error --omit=dev --save-exact s3rver@3.7.1 \
 && node -e "require('s3rver')" \
 && useradd --system --uid 10002 --no-create-home --shell /usr/sbin/nologin s3 \
 && mkdir -p /data && chown s3:s3 /data
COPY s3-server.cjs /opt/s3rver/s3-server.cjs
USER s3
ENV S3_PORT=4568 S3_BUCKETS=cardshot
VOLUME ["/data"]
EXPOSE 4568
# Any HTTP answer means it serves.
HEALTHCHECK --interval=5s --timeout=3s --retries=10 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.S3_PORT+'/').then(()=>process.exit(0),()=>process.exit(1))"]
CMD ["node", "/opt/s3rver/s3-server.cjs"]
