import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

/** s3rver's one account: the access key and secret it signs with. */
export const S3_KEY = Object.freeze({ accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' });

/**
 * A real S3-protocol server (s3rver: SigV4 checked, objects on disk) on a free loopback port,
 * with the given buckets, and a plain SDK client to read what arrived.
 */
export interface S3Server {
  port: number;
  endpoint: string;
  hostPort: string;
  client: S3Client;
  get(
    bucket: string,
    key: string,
  ): Promise<{ body: Buffer; contentType?: string; metadata: Record<string, string> }>;
  head(
    bucket: string,
    key: string,
  ): Promise<{ contentType?: string; metadata: Record<string, string>; size: number }>;
  keys(bucket: string): Promise<string[]>;
  close(): Promise<void>;
}

export async function startS3Server(buckets: string[]): Promise<S3Server> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'cardshot-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    vhostBuckets: false,
    configureBuckets: buckets.map((name) => ({ name })),
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    // A copy: the SDK marks the object it is given (a $source field).
    credentials: { ...S3_KEY },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    port,
    endpoint,
    hostPort: `127.0.0.1:${port}`,
    client,
    async get(bucket, key) {
      const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      const body = Buffer.from(await out.Body!.transformToByteArray());
      return {
        body,
        ...(out.ContentType ? { contentType: out.ContentType } : {}),
        metadata: out.Metadata ?? {},
      };
    },
    async head(bucket, key) {
      const out = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      return {
        ...(out.ContentType ? { contentType: out.ContentType } : {}),
        metadata: out.Metadata ?? {},
        size: out.ContentLength ?? -1,
      };
    },
    async keys(bucket) {
      const out = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
      return (out.Contents ?? []).map((o) => o.Key!).sort();
    },
    async close() {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
