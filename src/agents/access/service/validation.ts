import { AccessServiceErrors } from './errors.ts';

const MAX_ID = 2_147_483_647;

/** A path or body id: a positive integer that fits the `integer` column. */
export function parseId(field: string, value: unknown): number {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^\d{1,10}$/.test(text) || Number(text) < 1 || Number(text) > MAX_ID) {
    throw AccessServiceErrors.ACCESS_INVALID_ID({ field, value: String(value ?? '') });
  }
  return Number(text);
}

/** `limit`: 1–100, default 100. `offset`: 0 or more, default 0. */
export function parsePage(query: Record<string, unknown>): { limit: number; offset: number } {
  const limitText = query.limit;
  const offsetText = query.offset;
  let limit = 100;
  let offset = 0;
  if (limitText !== undefined) {
    if (typeof limitText !== 'string' || !/^\d{1,3}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 100) {
      throw AccessServiceErrors.ACCESS_INVALID_LIMIT({ value: String(limitText) });
    }
    limit = Number(limitText);
  }
  if (offsetText !== undefined) {
    if (typeof offsetText !== 'string' || !/^\d{1,9}$/.test(offsetText))
      throw AccessServiceErrors.ACCESS_INVALID_OFFSET({ value: String(offsetText) });
    offset = Number(offsetText);
  }
  return { limit, offset };
}

/** A team tag: lower-case letters, digits, `-` and `_`, up to 40 characters. */
export function parseTeam(value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !/^[a-z0-9][a-z0-9_-]{0,39}$/.test(value.toLowerCase())) {
    throw AccessServiceErrors.ACCESS_INVALID_FIELD({
      detail: `team must be a tag such as "engineering" (letters, digits, - and _), got "${String(value)}".`,
    });
  }
  return value.toLowerCase();
}

function bodyObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw AccessServiceErrors.ACCESS_INVALID_FIELD({
      detail: 'The request body must be a JSON object, e.g. {"access_name": "READ_DOCUMENTS"}.',
    });
  }
  return body as Record<string, unknown>;
}

/** The body of a grant: `{ access_name, reason?, duration_days? }` (days: 1–3650, checked against the access's maximum later). */
export function parseGrantBody(body: unknown): { accessName: string; reason: string | null; durationDays: number | null } {
  const object = bodyObject(body);
  const name = object.access_name;
  if (typeof name !== 'string' || name.trim() === '') {
    throw AccessServiceErrors.ACCESS_INVALID_FIELD({
      detail: 'access_name is required and must be a non-empty string, e.g. {"access_name": "READ_DOCUMENTS"}.',
    });
  }
  if (name.length > 100) throw AccessServiceErrors.ACCESS_INVALID_FIELD({ detail: 'access_name must be at most 100 characters.' });
  const reason = object.reason;
  if (reason !== undefined && reason !== null && (typeof reason !== 'string' || reason.length > 500)) {
    throw AccessServiceErrors.ACCESS_INVALID_FIELD({ detail: 'reason, when given, must be a string of at most 500 characters.' });
  }
  const duration = object.duration_days ?? null;
  if (duration !== null && (typeof duration !== 'number' || !Number.isInteger(duration) || duration < 1 || duration > 3650)) {
    throw AccessServiceErrors.ACCESS_INVALID_FIELD({ detail: 'duration_days, when given, must be a whole number of days from 1 to 3650.' });
  }
  return {
    accessName: name.trim(),
    reason: typeof reason === 'string' && reason.trim() !== '' ? reason.trim() : null,
    durationDays: duration,
  };
}

/** The body that creates an access: `{ name, description, renewal_period?, teams? }`. */
export function parseAccessBody(body: unknown): { name: string; description: string; renewal_period: number | null; teams: string[] } {
  const object = bodyObject(body);
  const { name, description } = object;
  if (typeof name !== 'string' || !/^[A-Z][A-Z0-9_]{0,99}$/.test(name)) {
    throw AccessServiceErrors.ACCESS_INVALID_FIELD({
      detail: 'name must be upper-case letters, digits and _, starting with a letter (e.g. DB_READ_PROD).',
    });
  }
  if (typeof description !== 'string' || description.trim() === '' || description.length > 500) {
    throw AccessServiceErrors.ACCESS_INVALID_FIELD({ detail: 'description is required: a non-empty string of at most 500 characters.' });
  }
  const renewal = object.renewal_period ?? null;
  if (renewal !== null && (typeof renewal !== 'number' || !Number.isInteger(renewal) || renewal < 1 || renewal > 3650)) {
    throw AccessServiceErrors.ACCESS_INVALID_FIELD({ detail: 'renewal_period must be null or a whole number of days from 1 to 3650.' });
  }
  const teams = object.teams ?? [];
  if (!Array.isArray(teams))
    throw AccessServiceErrors.ACCESS_INVALID_FIELD({ detail: 'teams must be an array of team tags, e.g. ["engineering"].' });
  return {
    name,
    description: description.trim(),
    renewal_period: renewal,
    teams: teams.map((t) => parseTeam(t) ?? '').filter((t) => t !== ''),
  };
}

/** The body that creates a catalog user: `{ username }`. */
export function parseUserBody(body: unknown): { username: string; teams: string[] } {
  const { username, teams = [] } = bodyObject(body);
  if (!Array.isArray(teams))
    throw AccessServiceErrors.ACCESS_INVALID_FIELD({ detail: 'teams must be an array of team tags, e.g. ["engineering"].' });
  const tags = teams.map((t) => parseTeam(t) ?? '').filter((t) => t !== '');
  if (typeof username !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(username)) {
    throw AccessServiceErrors.ACCESS_INVALID_FIELD({
      detail: 'username must be 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit.',
    });
  }
  return { username, teams: tags };
}
