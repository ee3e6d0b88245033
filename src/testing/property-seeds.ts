/** The seed every property test runs with first, so `npm test` is reproducible. */
const FIXED_PROPERTY_SEED = 20_261_122;

/**
 * The seeds a property test runs with: the fixed one, then a random one (or `OPSGATE_PROPERTY_SEED`
 * when set, to replay a failure). The random seed is printed so a failing run can be replayed.
 */
export function propertySeeds(name: string): [fixed: number, random: number] {
  const given = process.env.OPSGATE_PROPERTY_SEED;
  const random = given !== undefined && given !== '' ? Number(given) : (Date.now() ^ (process.pid << 10)) >>> 0;
  if (!Number.isSafeInteger(random)) throw new Error(`OPSGATE_PROPERTY_SEED must be an integer, got ${given}`);
  console.log(`[property] ${name}: seeds ${FIXED_PROPERTY_SEED} (fixed) and ${random} (replay with OPSGATE_PROPERTY_SEED=${random})`);
  return [FIXED_PROPERTY_SEED, random];
}
