/**
 * The API key `npx cardshot shot` sends when no --api-key is given: CARDSHOT_KEY, the variable
 * the README has people export for curl. Read here because `config/` is the only place that
 * reads the environment.
 */
export function apiKeyFromEnv(env: Record<string, string | undefined> = process.env): string | undefined {
  const key = env.CARDSHOT_KEY?.trim();
  return key ? key : undefined;
}
