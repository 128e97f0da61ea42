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
    logo: Buffer | null;
    logo_width: number | null;
    logo_height: number | null;
    logo_sha256: string | null;
    version: string;
    updated_at: number;
  };
}
