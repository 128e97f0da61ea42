import type { Generated } from 'kysely';

/** Table shapes as kysely sees them (snake_case, as stored). */
export interface Tables {
  accounts: {
    id: string;
    name: string;
    email: string;
    plan: string;
    created_at: number;
  };
  api_keys: {
    id: string;
    account_id: string;
    name: string;
    environment: string;
    prefix: string;
    last4: string;
    hash: string;
    created_at: number;
    last_used_at: number | null;
    expires_at: number | null;
    revoked_at: number | null;
    replaced_by: string | null;
  };
  usage_daily: {
    account_id: string;
    day: string;
    kind: string;
    count: number;
  };
  meta: {
    name: string;
    value: string;
    updated_at: Generated<number>;
  };
  passwords: {
    account_id: string;
    hash: string;
    updated_at: number;
  };
  invites: {
    hash: string;
    account_id: string;
    created_at: number;
    expires_at: number;
    used_at: number | null;
  };
  sessions: {
    hash: string;
    account_id: string;
    created_at: number;
    last_seen_at: number;
    expires_at: number;
  };
  form_tokens: {
    hash: string;
    used_at: number;
  };
  themes: {
    account_id: string;
    background: string;
    text: string;
    accent: string;
    font: string;
    /** An uploaded family of the account (migration 010); null: the bundled `font`. */
    font_family: string | null;
    logo: Buffer | null;
    logo_width: number | null;
    logo_height: number | null;
    logo_sha256: string | null;
    version: string;
    updated_at: number;
  };
  webhook_endpoints: {
    id: string;
    account_id: string;
    url: string;
    events: string;
    secret_sealed: string;
    previous_sealed: string | null;
    previous_until: number | null;
    disabled_at: number | null;
    disabled_reason: string | null;
    created_at: number;
  };
  webhook_messages: {
    id: string;
    endpoint_id: string;
    account_id: string;
    type: string;
    body: string;
    created_at: number;
    status: string;
    attempts: number;
    series_started_at: number;
    next_attempt_at: number | null;
  };
  webhook_attempts: {
    id: string;
    message_id: string;
    endpoint_id: string;
    account_id: string;
    attempt: number;
    at: number;
    duration_ms: number;
    status: number | null;
    response: string;
    error: string | null;
  };
}
