/**
 * Replaces every configured secret by "[masked]" anywhere in a JSON value (results, prompts,
 * resources, error texts), matching the secret as it appears inside a JSON string.
 */
export function masked<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  let text = JSON.stringify(value);
  for (const secret of secrets) text = text.split(JSON.stringify(secret).slice(1, -1)).join('[masked]');
  return JSON.parse(text) as T;
}
