/** The jobs area's tables as kysely sees them (migrations 005-jobs, 007-job-outbox, 008-job-credentials). */
export type JobTables = {
  jobs: {
    id: string;
    account_id: string;
    status: string;
    total: number;
    webhook: string | null;
    metadata: string | null;
    idempotency_key: string | null;
    enqueued: number;
    bytes: number | string;
    created_at: number | string;
    started_at: number | string | null;
    completed_at: number | string | null;
    expires_at: number | string;
  };
  job_items: {
    job_id: string;
    idx: number;
    account_id: string;
    kind: string;
    request: string;
    status: string;
    error: string | null;
    attempts: number;
    file: string | null;
    content_type: string | null;
    bytes: number | null;
    etag: string | null;
    width: number | null;
    height: number | null;
    started_at: number | string | null;
    completed_at: number | string | null;
    /** A screenshot item's credentials, sealed (jobs/credentials.ts); null once it has ended. */
    credentials_sealed: string | null;
  };
  job_outbox: {
    id: string;
    account_id: string;
    job_id: string;
    idx: number | null;
    type: string;
    created_at: number | string;
    claimed_by: string | null;
    claimed_until: number | string | null;
    failures: number;
  };
};
