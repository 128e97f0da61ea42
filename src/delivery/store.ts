/**
 * What the delivery area stores: an account's storage targets, each with its secret access key
 * sealed under the server secret (the target id as context). Its own table (migration
 * 009-delivery), read through the service's one kysely instance on SQLite or PostgreSQL.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Tables } from '../storage/tables.js';

export interface TargetRecord {
  /** `st_…` */
  id: string;
  accountId: string;
  /** The account's own label (shown in lists). */
  name: string;
  /** The S3 API's base URL (`https://s3.eu-west-1.amazonaws.com`, a MinIO's address). */
  endpoint: string;
  region: string;
  bucket: string;
  /** Put before every key (`cards/`); may be empty. */
  prefix: string;
  /** A job item's key below the prefix (`{job}/{index}-{name}.{ext}`). */
  pathTemplate: string;
  /** A synchronous render's key below the prefix (`{date}/{id}.{ext}`). */
  syncTemplate: string;
  /** Bucket in the path (`endpoint/bucket/key`, MinIO and most S3-compatible servers), not the host. */
  forcePathStyle: boolean;
  accessKeyId: string;
  /** The secret access key, sealed (ServerSecrets.seal) with the target id as context. */
  secretSealed: string;
  createdAt: number;
}

export interface TargetStore {
  insertTarget(target: TargetRecord): Promise<void>;
  /** The account's targets, oldest first. */
  listTargets(accountId: string): Promise<TargetRecord[]>;
  /** The target if it belongs to `accountId` (another account's id reads as missing). */
  getTarget(accountId: string, id: string): Promise<TargetRecord | undefined>;
  countTargets(accountId: string): Promise<number>;
  /** False when the account has no such target. */
  deleteTarget(accountId: string, id: string): Promise<boolean>;
  /** Records the target a job's items go to. */
  setJobTarget(jobId: string, accountId: string, targetId: string): Promise<void>;
  /** The target id a job's items go to, if it asked for delivery. */
  jobTarget(jobId: string): Promise<string | undefined>;
}

/** The delivery area's table as kysely sees it. */
export type DeliveryTables = {
  storage_targets: {
    id: string;
    account_id: string;
    name: string;
    endpoint: string;
    region: string;
    bucket: string;
    prefix: string;
    path_template: string;
    sync_template: string;
    force_path_style: number;
    access_key_id: string;
    secret_sealed: string;
    created_at: number | string;
  };
  job_deliveries: { job_id: string; account_id: string; target_id: string };
};

/** The target store over the service's database. */
export function createTargetStore(base: Kysely<Tables>): TargetStore {
  const db = base.withTables<DeliveryTables>() as unknown as Kysely<DeliveryTables>;
  return {
    async insertTarget(t) {
      await db
        .insertInto('storage_targets')
        .values({
          id: t.id,
          account_id: t.accountId,
          name: t.name,
          endpoint: t.endpoint,
          region: t.region,
          bucket: t.bucket,
          prefix: t.prefix,
          path_template: t.pathTemplate,
          sync_template: t.syncTemplate,
          force_path_style: t.forcePathStyle ? 1 : 0,
          access_key_id: t.accessKeyId,
          secret_sealed: t.secretSealed,
          created_at: t.createdAt,
        })
        .execute();
    },

    async listTargets(accountId) {
      const rows = await db
        .selectFrom('storage_targets')
        .selectAll()
        .where('account_id', '=', accountId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toTarget);
    },

    async getTarget(accountId, id) {
      const r = await db
        .selectFrom('storage_targets')
        .selectAll()
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return r && toTarget(r);
    },

    async countTargets(accountId) {
      const r = await db
        .selectFrom('storage_targets')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },

    async deleteTarget(accountId, id) {
      const r = await db
        .deleteFrom('storage_targets')
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },

    async setJobTarget(jobId, accountId, targetId) {
      await db
        .insertInto('job_deliveries')
        .values({ job_id: jobId, account_id: accountId, target_id: targetId })
        .execute();
    },

    async jobTarget(jobId) {
      const r = await db
        .selectFrom('job_deliveries')
        .select('target_id')
        .where('job_id', '=', jobId)
        .executeTakeFirst();
      return r?.target_id;
    },
  };
}

function toTarget(r: Selectable<DeliveryTables['storage_targets']>): TargetRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    name: r.name,
    endpoint: r.endpoint,
    region: r.region,
    bucket: r.bucket,
    prefix: r.prefix,
    pathTemplate: r.path_template,
    syncTemplate: r.sync_template,
    forcePathStyle: r.force_path_style !== 0,
    accessKeyId: r.access_key_id,
    secretSealed: r.secret_sealed,
    createdAt: Number(r.created_at),
  };
}
