/** What the interpreter knows of a catalog entry. */
export interface CatalogEntry {
  readonly name: string;
  readonly description: string;
  readonly renewal_period?: number | null;
  readonly teams?: readonly string[];
}

/** Words people use → the name tokens of the catalog (`DB_READ_PROD` → DB, READ, PROD). */
const SYNONYMS: Readonly<Record<string, string>> = {
  read: 'READ',
  reading: 'READ',
  reads: 'READ',
  view: 'READ',
  viewing: 'READ',
  see: 'READ',
  readonly: 'READ',
  write: 'WRITE',
  writing: 'WRITE',
  writes: 'WRITE',
  edit: 'WRITE',
  editing: 'WRITE',
  modify: 'WRITE',
  update: 'WRITE',
  document: 'DOCUMENTS',
  documents: 'DOCUMENTS',
  docs: 'DOCUMENTS',
  doc: 'DOCUMENTS',
  database: 'DB',
  databases: 'DB',
  db: 'DB',
  dbs: 'DB',
  production: 'PROD',
  prod: 'PROD',
  staging: 'STAGING',
  stage: 'STAGING',
  development: 'DEV',
  dev: 'DEV',
  deploy: 'DEPLOY',
  deploying: 'DEPLOY',
  deployment: 'DEPLOY',
  deployments: 'DEPLOY',
  deploys: 'DEPLOY',
  customer: 'CRM',
  customers: 'CRM',
  invoices: 'BILLING',
  refunds: 'BILLING',
};

/** Words that carry no catalog meaning in a request. */
const STOP_WORDS = new Set(
  'i me my we need want would like please could can you give get grant request access accesses to the a an for and or of on in with only just also some be able have has is it this that do does'.split(
    ' ',
  ),
);

const ENVIRONMENTS: ReadonlyArray<readonly [string, string]> = [
  ['DEV', 'development'],
  ['STAGING', 'staging'],
  ['PROD', 'production'],
];
const MODES: ReadonlyArray<readonly [string, string]> = [
  ['READ', 'read'],
  ['WRITE', 'write'],
];
const SUBJECTS: Readonly<Record<string, string>> = { DB: 'database', DOCUMENTS: 'document', DEPLOY: 'deployment' };

function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9_]+/g) ?? [];
}

function nameTokens(name: string): string[] {
  return name.toUpperCase().split('_').filter(Boolean);
}

/** Names written as names (`DB_READ_PROD`, `db_read_prod`) in the text. */
export function explicitNames(text: string): string[] {
  return (text.match(/\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b/g) ?? []).map((n) => n.toUpperCase());
}

export type MatchResult =
  | { readonly kind: 'unique'; readonly access: CatalogEntry }
  | { readonly kind: 'ambiguous'; readonly candidates: readonly CatalogEntry[] }
  | { readonly kind: 'unknown'; readonly query: string; readonly suggestions: readonly CatalogEntry[] };

/**
 * Finds the access a request means. Ties are never broken by guessing: several equally good
 * matches are `ambiguous`, and the caller asks the person.
 */
export function matchAccess(text: string, catalog: readonly CatalogEntry[]): MatchResult {
  const named = explicitNames(text);
  for (const name of named) {
    const access = catalog.find((a) => a.name === name);
    if (access) return { kind: 'unique', access };
  }
  if (named.length > 0) return { kind: 'unknown', query: named[0]!, suggestions: closestAccesses(named[0]!, catalog) };

  const known = new Set(catalog.flatMap((a) => nameTokens(a.name)));
  const tokens = new Set<string>();
  const unmatched: string[] = [];
  for (const word of words(text)) {
    if (STOP_WORDS.has(word)) continue;
    const token = SYNONYMS[word] ?? word.toUpperCase();
    if (known.has(token)) tokens.add(token);
    else unmatched.push(word);
  }
  let best = 0;
  let candidates: CatalogEntry[] = [];
  for (const access of catalog) {
    const score = nameTokens(access.name).filter((t) => tokens.has(t)).length;
    if (score > best) {
      best = score;
      candidates = [access];
    } else if (score === best && score > 0) {
      candidates.push(access);
    }
  }
  const query = unmatched.join(' ') || text.trim();
  // One shared token among more unrelated words ("Kubernetes admin console" vs BILLING_ADMIN) is not a match.
  const unrelated = unmatched.length > tokens.size && best < 2;
  if (best === 0 || unrelated || (unmatched.length > 0 && best < 2 && candidates.length > 1)) {
    return { kind: 'unknown', query, suggestions: closestAccesses(query, catalog) };
  }
  // A candidate is only certain when it asks for nothing the person did not say about its dimensions.
  if (candidates.length === 1) return { kind: 'unique', access: candidates[0]! };
  return { kind: 'ambiguous', candidates };
}

/** Levenshtein distance. */
export function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const above = previous[j]!;
      previous[j] = Math.min(above + 1, previous[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[b.length]!;
}

function similarity(a: string, b: string): number {
  const longest = Math.max(a.length, b.length);
  return longest === 0 ? 0 : 1 - editDistance(a, b) / longest;
}

/** The catalog names closest to what was asked: edit distance of the name, and of words to its tokens and description. */
export function closestAccesses(query: string, catalog: readonly CatalogEntry[], count = 3): CatalogEntry[] {
  const queryWords = words(query).filter((w) => !STOP_WORDS.has(w));
  const whole = query.toUpperCase().replace(/\s+/g, '_');
  const scored = catalog.map((access) => {
    const targets = [...nameTokens(access.name).map((t) => t.toLowerCase()), ...words(access.description)];
    let wordScore = 0;
    for (const word of queryWords) {
      const mapped = SYNONYMS[word]?.toLowerCase();
      for (const target of targets) wordScore += Math.max(similarity(word, target), mapped === target ? 1 : 0) >= 0.75 ? 1 : 0;
    }
    return { access, score: wordScore + similarity(whole, access.name) };
  });
  return scored
    .sort((x, y) => y.score - x.score || x.access.name.localeCompare(y.access.name))
    .slice(0, count)
    .map((s) => s.access);
}

/**
 * The clarifying question for several equally good matches, naming the options the catalog has:
 * "I found multiple database accesses. Which environment do you need: development, staging, or
 * production? And do you need read or write access?"
 */
export function clarifyingQuestion(candidates: readonly CatalogEntry[]): string {
  const tokenSets = candidates.map((c) => new Set(nameTokens(c.name)));
  const shared = [...tokenSets[0]!].filter((t) => tokenSets.every((s) => s.has(t)));
  const environments = ENVIRONMENTS.filter(([token]) => tokenSets.some((s) => s.has(token)));
  const modes = MODES.filter(([token]) => tokenSets.some((s) => s.has(token)));
  const explained = candidates.every((c) => {
    const rest = nameTokens(c.name).filter(
      (t) => !shared.includes(t) && !ENVIRONMENTS.some(([e]) => e === t) && !MODES.some(([m]) => m === t),
    );
    return rest.length === 0;
  });
  const isDimension = (t: string) => ENVIRONMENTS.some(([e]) => e === t) || MODES.some(([m]) => m === t);
  const sharedWords = [
    ...MODES.filter(([t]) => shared.includes(t)).map(([, word]) => word),
    ...ENVIRONMENTS.filter(([t]) => shared.includes(t)).map(([, word]) => word),
    ...shared.filter((t) => !isDimension(t)).map((t) => SUBJECTS[t] ?? t.toLowerCase()),
  ];
  const subject = sharedWords.join(' ');
  if (!explained || (environments.length < 2 && modes.length < 2)) {
    return `I found several matching accesses: ${candidates.map((c) => `${c.name} (${c.description})`).join(', ')}. Which one do you need?`;
  }
  const parts = [`I found multiple ${subject ? `${subject} ` : ''}accesses.`];
  if (environments.length >= 2)
    parts.push(
      `Which environment do you need: ${oxford(
        environments.map(([, word]) => word),
        'or',
      )}?`,
    );
  if (modes.length >= 2)
    parts.push(
      `${environments.length >= 2 ? 'And do' : 'Do'} you need ${oxford(
        modes.map(([, word]) => word),
        'or',
      )} access?`,
    );
  return parts.join(' ');
}

function oxford(items: readonly string[], conjunction: string): string {
  if (items.length <= 1) return items.join('');
  if (items.length === 2) return `${items[0]} ${conjunction} ${items[1]}`;
  return `${items.slice(0, -1).join(', ')}, ${conjunction} ${items[items.length - 1]}`;
}

/** True for accesses whose grant is sensitive enough to state the renewal terms before approval. */
export function isSensitive(access: CatalogEntry): boolean {
  const tokens = nameTokens(access.name);
  return tokens.includes('WRITE') || tokens.includes('PROD') || tokens.includes('ADMIN') || (access.renewal_period ?? null) !== null;
}
