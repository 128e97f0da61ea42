import { readFileSync } from 'node:fs';

/** The unprivileged user Chromium runs as when the service is root (CARDSHOT_CHROMIUM_USER). */
export interface ChromiumUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

/** `name` from /etc/passwd (system users live there); undefined when absent or root itself. */
export function lookupUser(name: string, passwd = '/etc/passwd'): ChromiumUser | undefined {
  let text: string;
  try {
    text = readFileSync(passwd, 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    const [user, , uid, gid, , home] = line.split(':');
    if (user !== name || uid === undefined || gid === undefined) continue;
    const u = Number(uid);
    const g = Number(gid);
    if (!Number.isInteger(u) || !Number.isInteger(g) || u === 0 || g === 0) return undefined;
    return { name, uid: u, gid: g, home: home || '/' };
  }
  return undefined;
}
