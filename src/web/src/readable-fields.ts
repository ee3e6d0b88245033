type Scalar = string | number | boolean | null;

const isScalar = (value: unknown): value is Scalar => value === null || ['string', 'number', 'boolean'].includes(typeof value);

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * One value as a person reads it (review A11): a timestamp in the same local format as "asked at"
 * beside it, not ISO; a count of days with its unit ("renewal period 14" said nothing).
 */
function valueText(label: string, value: Scalar): string {
  if (value === null) return '—';
  if (typeof value === 'string' && ISO_TIMESTAMP.test(value)) return new Date(value).toLocaleString();
  if (typeof value === 'number' && / (days|period)$/.test(label)) return `${value} day${value === 1 ? '' : 's'}`;
  return String(value);
}

/** Rows past this many read worse than the JSON itself. */
const MOST_ROWS = 40;

/**
 * An object's values as label/value rows a person reads, nested ones included: a list of scalars
 * on one row, a nested object or list of objects as `entities #1 › name` (F12: an approver saw only
 * raw JSON for memory's create_entities). Undefined when there is nothing, or too much, to show.
 */
export function readableFields(details: unknown): Array<[string, string]> | undefined {
  if (!details || typeof details !== 'object' || Array.isArray(details)) return undefined;
  const rows: Array<[string, string]> = [];
  const walk = (value: unknown, label: string): boolean => {
    if (rows.length > MOST_ROWS) return false;
    if (isScalar(value)) rows.push([label, valueText(label, value)]);
    else if (Array.isArray(value) && value.every(isScalar)) rows.push([label, value.join(', ')]);
    else if (Array.isArray(value)) return value.every((item, index) => walk(item, `${label} #${index + 1}`));
    else if (typeof value === 'object')
      return Object.entries(value).every(([key, item]) => walk(item, `${label} › ${key.replace(/_/g, ' ')}`));
    else return false;
    return true;
  };
  const complete = Object.entries(details as Record<string, unknown>).every(([key, value]) => walk(value, key.replace(/_/g, ' ')));
  return complete && rows.length > 0 && rows.length <= MOST_ROWS ? rows : undefined;
}
