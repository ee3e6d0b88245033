/** Fastify response schemas: fast serialisation and the exact wire shapes of the spec (plus documented extras). */
const nullableInteger = { type: ['integer', 'null'] } as const;
const nullableString = { type: ['string', 'null'] } as const;

export const accessSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    description: { type: 'string' },
    renewal_period: nullableInteger,
    teams: { type: 'array', items: { type: 'string' } },
  },
  required: ['id', 'name', 'description', 'renewal_period'],
} as const;

const errorSchema = {
  type: 'object',
  properties: { detail: { type: 'string' }, code: { type: 'string' } },
  required: ['detail'],
} as const;

const errors = { '4xx': errorSchema, '5xx': errorSchema };

export const listAccessesResponse = {
  200: {
    type: 'object',
    properties: {
      accesses: { type: 'array', items: accessSchema },
      total: { type: 'integer' },
      limit: { type: 'integer' },
      offset: { type: 'integer' },
    },
    required: ['accesses', 'total', 'limit', 'offset'],
  },
  ...errors,
} as const;

export const userAccessesResponse = {
  200: {
    type: 'object',
    properties: {
      user_id: { type: 'integer' },
      username: { type: 'string' },
      teams: { type: 'array', items: { type: 'string' } },
      accesses: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'integer' },
            name: { type: 'string' },
            description: { type: 'string' },
            assigned_at: { type: 'string' },
            expires_at: nullableString,
          },
          required: ['id', 'name', 'description', 'assigned_at', 'expires_at'],
        },
      },
    },
    required: ['user_id', 'username', 'accesses'],
  },
  ...errors,
} as const;

export const grantResponse = {
  201: {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      name: { type: 'string' },
      description: { type: 'string' },
      renewal_period: nullableInteger,
      assigned_at: { type: 'string' },
      expires_at: nullableString,
    },
    required: ['id', 'name', 'description', 'renewal_period', 'assigned_at', 'expires_at'],
  },
  ...errors,
} as const;

export const userResponse = (status: number) =>
  ({
    [status]: {
      type: 'object',
      properties: { user_id: { type: 'integer' }, username: { type: 'string' }, teams: { type: 'array', items: { type: 'string' } } },
      required: ['user_id', 'username'],
    },
    ...errors,
  }) as const;

export const revokeResponse = {
  200: {
    type: 'object',
    properties: { user_id: { type: 'integer' }, access_name: { type: 'string' }, revoked_at: { type: 'string' } },
    required: ['user_id', 'access_name', 'revoked_at'],
  },
  ...errors,
} as const;
