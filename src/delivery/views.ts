import type { TargetRecord } from './store.js';

/** A storage target as the API shows it: never its secret access key. */
export interface TargetView {
  id: string;
  name: string;
  endpoint: string;
  region: string;
  bucket: string;
  prefix: string;
  pathTemplate: string;
  syncPathTemplate: string;
  pathStyle: boolean;
  accessKeyId: string;
  createdAt: string;
}

export function targetView(t: TargetRecord): TargetView {
  return {
    id: t.id,
    name: t.name,
    endpoint: t.endpoint,
    region: t.region,
    bucket: t.bucket,
    prefix: t.prefix,
    pathTemplate: t.pathTemplate,
    syncPathTemplate: t.syncTemplate,
    pathStyle: t.forcePathStyle,
    accessKeyId: t.accessKeyId,
    createdAt: new Date(t.createdAt).toISOString(),
  };
}
