import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { type AuditLog, userActor } from '../../core/audit/index.ts';
import { CoreErrors } from '../../core/errors/index.ts';
import { hasRole, ROLE_ADMIN } from '../../core/identity/index.ts';
import { type ApiCatalog, apiRoute } from '../api-route.ts';

/** What the server needs of the troubleshoot agent's host repository (never secrets out). */
export interface HostDirectory {
  list(): Promise<
    ReadonlyArray<{
      readonly id: number;
      readonly name: string;
      readonly address: string;
      readonly port: number;
      readonly username: string;
      readonly os: string;
      readonly authKind: string;
      readonly hostKeySha256?: string;
    }>
  >;
  add(input: {
    name: string;
    address: string;
    port?: number;
    username: string;
    os?: 'linux' | 'windows' | 'unknown';
    auth: { kind: 'key'; privateKey: string; passphrase?: string } | { kind: 'password'; password: string };
    hostKeySha256?: string;
  }): Promise<{ readonly name: string }>;
  remove(name: string): Promise<void>;
  /** The SHA-256 fingerprint the host presents now (an SSH handshake, no login). */
  fingerprint(name: string): Promise<string>;
  /** Pins `fingerprint` after checking the host presents exactly that key; returns it. */
  trust(name: string, fingerprint: string): Promise<string>;
}

const addHostBody = z
  .object({
    name: z.string().min(1).max(63),
    address: z.string().min(1).max(255),
    port: z.number().int().min(1).max(65535).optional(),
    username: z.string().min(1).max(64),
    os: z.enum(['linux', 'windows', 'unknown']).optional(),
    auth: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('key'), privateKey: z.string().min(1), passphrase: z.string().optional() }).strict(),
      z.object({ kind: z.literal('password'), password: z.string().min(1) }).strict(),
    ]),
    hostKeySha256: z.string().optional(),
  })
  .strict();

function requireAdmin(request: FastifyRequest): void {
  if (!hasRole(request.identity, ROLE_ADMIN)) throw CoreErrors.ROLE_REQUIRED({ role: ROLE_ADMIN });
}

/** Hosts for the troubleshoot agent: everyone may list (to pick one); admins add, trust and remove, on the record. */
export function hostRoutes(app: FastifyInstance, catalog: ApiCatalog, hosts: HostDirectory, audit: AuditLog): void {
  const record = (request: FastifyRequest, type: 'host_added' | 'host_trusted' | 'host_removed', payload: Record<string, unknown>) =>
    audit.append({
      type,
      actor: userActor(request.identity.username),
      payload: {
        ...payload,
        via: request.identity.channel ?? 'rest',
        ...(request.identity.credentialIssuedBy ? { credentialIssuedBy: request.identity.credentialIssuedBy } : {}),
      },
    });
  apiRoute(
    app,
    catalog,
    { method: 'GET', path: '/api/hosts', summary: 'Registered SSH hosts (never their credentials).', tag: 'hosts' },
    async () => ({
      hosts: (await hosts.list()).map(({ id, name, address, port, username, os, authKind, hostKeySha256 }) => ({
        id,
        name,
        address,
        port,
        username,
        os,
        authKind,
        hostKeySha256,
      })),
    }),
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'POST',
      path: '/api/hosts',
      summary: 'Admins: register a host; the key or password goes to the secret store.',
      tag: 'hosts',
      body: addHostBody,
    },
    async ({ body, request, reply }) => {
      requireAdmin(request);
      const host = await hosts.add(body as Parameters<HostDirectory['add']>[0]);
      // Never the key or password: only what names the host and how it signs in.
      await record(request, 'host_added', {
        name: host.name,
        address: body.address,
        port: body.port ?? 22,
        username: body.username,
        authKind: body.auth.kind,
        ...(body.hostKeySha256 ? { hostKeySha256: body.hostKeySha256 } : {}),
      });
      void reply.status(201);
      return { name: host.name };
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'GET',
      path: '/api/hosts/:name/fingerprint',
      summary: 'Admins: the host key fingerprint the host presents now, to compare with one verified out of band.',
      tag: 'hosts',
      params: z.object({ name: z.string().min(1).max(63) }),
    },
    async ({ params, request }) => {
      requireAdmin(request);
      return { name: params.name, fingerprint: await hosts.fingerprint(params.name) };
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'POST',
      path: '/api/hosts/:name/trust',
      summary: 'Admins: pin the host key (checked against what the host presents now), like `opsgate hosts trust`.',
      tag: 'hosts',
      params: z.object({ name: z.string().min(1).max(63) }),
      body: z.object({ fingerprint: z.string().regex(/^SHA256:[A-Za-z0-9+/=]+$/) }).strict(),
    },
    async ({ params, body, request }) => {
      requireAdmin(request);
      const hostKeySha256 = await hosts.trust(params.name, body.fingerprint);
      await record(request, 'host_trusted', { name: params.name, hostKeySha256 });
      return { name: params.name, hostKeySha256 };
    },
  );
  apiRoute(
    app,
    catalog,
    {
      method: 'DELETE',
      path: '/api/hosts/:name',
      summary: 'Admins: remove a host and its stored credentials.',
      tag: 'hosts',
      params: z.object({ name: z.string().min(1).max(63) }),
    },
    async ({ params, request }) => {
      requireAdmin(request);
      await hosts.remove(params.name);
      await record(request, 'host_removed', { name: params.name });
      return { ok: true };
    },
  );
}
